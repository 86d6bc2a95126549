//===- Builder.cpp - Creating tile IR -------------------------------------===//

#include "tilec/IR/Builder.h"
#include <cassert>

using namespace tilec;
using namespace tilec::ir;

std::unique_ptr<Operation> ir::createModuleOp(Location Loc) {
  return Operation::create(OpKind::Module, std::move(Loc), {}, {}, {}, {}, 1);
}

void Builder::setInsertionPoint(Operation *Op) {
  assert(Op->getParentBlock() && "insertion point outside a block");
  InsertBlock = Op->getParentBlock();
  InsertPt = Block::iteratorOf(Op);
}

void Builder::setInsertionPointAfter(Operation *Op) {
  assert(Op->getParentBlock() && "insertion point outside a block");
  InsertBlock = Op->getParentBlock();
  InsertPt = std::next(Block::iteratorOf(Op));
}

Operation *Builder::insert(std::unique_ptr<Operation> Op) {
  assert(InsertBlock && "builder has no insertion point");
  return InsertBlock->insert(InsertPt, std::move(Op));
}

Operation *Builder::create(OpKind Kind, llvm::ArrayRef<Value *> Operands,
                           llvm::ArrayRef<unsigned> Segments,
                           llvm::ArrayRef<Type> ResultTypes,
                           std::vector<NamedAttribute> Attrs,
                           unsigned NumRegions) {
  return create(Kind, Operands, Segments, ResultTypes, std::move(Attrs),
                NumRegions, Loc);
}

Operation *Builder::create(OpKind Kind, llvm::ArrayRef<Value *> Operands,
                           llvm::ArrayRef<unsigned> Segments,
                           llvm::ArrayRef<Type> ResultTypes,
                           std::vector<NamedAttribute> Attrs,
                           unsigned NumRegions, Location L) {
  return insert(Operation::create(Kind, std::move(L), Operands, Segments,
                                  ResultTypes, std::move(Attrs), NumRegions));
}

//===----------------------------------------------------------------------===//
// Structure
//===----------------------------------------------------------------------===//

Operation *Builder::createFunc(llvm::StringRef Name,
                               llvm::ArrayRef<std::string> Symbols,
                               llvm::ArrayRef<std::string> Params,
                               llvm::ArrayRef<Type> ParamTypes,
                               llvm::ArrayRef<int64_t> OutIdx) {
  assert(Params.size() == ParamTypes.size() && "one type per parameter");
  Operation *Func = create(OpKind::Func, {}, {}, {},
                           {{"name", Attribute::string(Name)},
                            {"symbols", Attribute::stringArray(Symbols)},
                            {"params", Attribute::stringArray(Params)},
                            {"out_idx", Attribute::intArray(OutIdx)}},
                           1);
  Block &Body = Func->getBody();
  for (const std::string &S : Symbols)
    Body.addArgument(Type::i32(), S);
  for (size_t I = 0; I != Params.size(); ++I)
    Body.addArgument(ParamTypes[I], Params[I]);
  return Func;
}

Operation *Builder::createKernel(llvm::ArrayRef<Value *> Grid,
                                 llvm::ArrayRef<int64_t> Threads,
                                 llvm::ArrayRef<std::string> BlockNames) {
  Operation *Kernel = create(OpKind::Kernel, Grid, {}, {},
                             {{"threads", Attribute::intArray(Threads)}}, 1);
  for (size_t I = 0; I != Grid.size(); ++I)
    Kernel->getBody().addArgument(Type::i32(),
                                  I < BlockNames.size() ? BlockNames[I] : "");
  return Kernel;
}

//===----------------------------------------------------------------------===//
// Scalars
//===----------------------------------------------------------------------===//

Value *Builder::createConstInt(int64_t V, DType T) {
  return create(OpKind::Const, {}, {}, {Type::scalar(T)},
                {{"value", Attribute::integer(V)}})
      ->getResult();
}

Value *Builder::createConstFloat(double V, DType T) {
  return create(OpKind::Const, {}, {}, {Type::scalar(T)},
                {{"value", Attribute::real(V)}})
      ->getResult();
}

Value *Builder::createConstBool(bool V) {
  return create(OpKind::Const, {}, {}, {Type::i1()},
                {{"value", Attribute::boolean(V)}})
      ->getResult();
}

Value *Builder::createBinary(OpKind Kind, Value *A, Value *B) {
  assert(isBinaryOp(Kind) && "not a binary op");
  return create(Kind, {A, B}, {}, {A->getType()})->getResult();
}

Value *Builder::createUnary(OpKind Kind, Value *A) {
  assert(isUnaryOp(Kind) && "not a unary op");
  return create(Kind, {A}, {}, {A->getType()})->getResult();
}

Value *Builder::createCmp(CmpPred Pred, Value *A, Value *B) {
  return create(OpKind::Cmp, {A, B}, {}, {Type::i1()},
                {{"pred", Attribute::string(cmpPredName(Pred))}})
      ->getResult();
}

Value *Builder::createSelect(Value *Cond, Value *A, Value *B) {
  return create(OpKind::Select, {Cond, A, B}, {}, {A->getType()})->getResult();
}

Value *Builder::createCast(Value *A, DType T) {
  return create(OpKind::Cast, {A}, {}, {Type::scalar(T)})->getResult();
}

Value *Builder::createMath(llvm::StringRef Fn, llvm::ArrayRef<Value *> Args) {
  assert(!Args.empty() && "math needs an argument");
  return create(OpKind::Math, Args, {}, {Args[0]->getType()},
                {{"fn", Attribute::string(Fn)}})
      ->getResult();
}

Value *Builder::createThreadId(int64_t Dim) {
  return create(OpKind::ThreadId, {}, {}, {Type::i32()},
                {{"dim", Attribute::integer(Dim)}})
      ->getResult();
}

//===----------------------------------------------------------------------===//
// Buffers
//===----------------------------------------------------------------------===//

namespace {
/// Operands and the group size of `%buf[%i, ...]`.
unsigned appendGroup(std::vector<Value *> &Operands, Value *Buffer,
                     llvm::ArrayRef<Value *> Indices) {
  Operands.push_back(Buffer);
  Operands.insert(Operands.end(), Indices.begin(), Indices.end());
  return 1 + Indices.size();
}
} // namespace

Value *Builder::createAlloc(const Type &BufferType, llvm::StringRef NameHint) {
  Value *V = create(OpKind::Alloc, {}, {}, {BufferType})->getResult();
  V->setNameHint(NameHint);
  return V;
}

Value *Builder::createView(Value *Source, const Type &ViewType,
                           llvm::StringRef NameHint) {
  Value *V = create(OpKind::View, {Source}, {}, {ViewType})->getResult();
  V->setNameHint(NameHint);
  return V;
}

Value *Builder::createSubview(Value *Source, llvm::ArrayRef<Value *> Starts,
                              const Type &RegionType,
                              llvm::StringRef NameHint) {
  std::vector<Value *> Operands;
  unsigned Seg = appendGroup(Operands, Source, Starts);
  Value *V =
      create(OpKind::Subview, Operands, {Seg}, {RegionType})->getResult();
  V->setNameHint(NameHint);
  return V;
}

Value *Builder::createLoad(Value *Buffer, llvm::ArrayRef<Value *> Indices) {
  std::vector<Value *> Operands;
  unsigned Seg = appendGroup(Operands, Buffer, Indices);
  Type Elem = Type::scalar(Buffer->getType().getDType());
  return create(OpKind::Load, Operands, {Seg}, {Elem})->getResult();
}

Operation *Builder::createStore(Value *V, Value *Buffer,
                                llvm::ArrayRef<Value *> Indices) {
  std::vector<Value *> Operands{V};
  unsigned Seg = appendGroup(Operands, Buffer, Indices);
  return create(OpKind::Store, Operands, {1, Seg}, {});
}

//===----------------------------------------------------------------------===//
// Tile operators
//===----------------------------------------------------------------------===//

Operation *Builder::createCopy(const BufferRegion &Src,
                               const BufferRegion &Dst) {
  std::vector<Value *> Operands;
  unsigned S = appendGroup(Operands, Src.Buffer, Src.Indices);
  unsigned D = appendGroup(Operands, Dst.Buffer, Dst.Indices);
  return create(OpKind::Copy, Operands, {S, D}, {},
                {{"src_extent", Attribute::array(Src.Extent)},
                 {"dst_extent", Attribute::array(Dst.Extent)}});
}

Operation *Builder::createFill(const BufferRegion &Dst, Value *V) {
  std::vector<Value *> Operands;
  unsigned D = appendGroup(Operands, Dst.Buffer, Dst.Indices);
  Operands.push_back(V);
  return create(OpKind::Fill, Operands, {D, 1}, {},
                {{"extent", Attribute::array(Dst.Extent)}});
}

Operation *Builder::createGemm(Value *A, Value *B, Value *C, bool TransposeA,
                               bool TransposeB, llvm::StringRef Policy,
                               bool ClearAccum, int64_t KPack) {
  return create(OpKind::Gemm, {A, B, C}, {}, {},
                {{"transpose_a", Attribute::boolean(TransposeA)},
                 {"transpose_b", Attribute::boolean(TransposeB)},
                 {"policy", Attribute::string(Policy)},
                 {"clear_accum", Attribute::boolean(ClearAccum)},
                 {"k_pack", Attribute::integer(KPack)}});
}

Operation *Builder::createReduce(llvm::StringRef Kind, Value *Src, Value *Dst,
                                 int64_t Dim, bool Clear) {
  return create(OpKind::Reduce, {Src, Dst}, {}, {},
                {{"kind", Attribute::string(Kind)},
                 {"dim", Attribute::integer(Dim)},
                 {"clear", Attribute::boolean(Clear)}});
}

Operation *Builder::createCumsum(Value *Src, Value *Dst, int64_t Dim,
                                 bool Reverse) {
  return create(OpKind::Cumsum, {Src, Dst}, {}, {},
                {{"dim", Attribute::integer(Dim)},
                 {"reverse", Attribute::boolean(Reverse)}});
}

Operation *Builder::createAtomic(llvm::StringRef Kind, Value *Dst,
                                 llvm::ArrayRef<Value *> Indices, Value *V,
                                 bool ReturnPrev) {
  std::vector<Value *> Operands;
  unsigned D = appendGroup(Operands, Dst, Indices);
  Operands.push_back(V);
  std::vector<Type> Results;
  if (ReturnPrev)
    Results.push_back(Type::scalar(Dst->getType().getDType()));
  return create(OpKind::Atomic, Operands, {D, 1}, Results,
                {{"kind", Attribute::string(Kind)}});
}

Operation *Builder::createAtomic(llvm::StringRef Kind, const BufferRegion &Dst,
                                 const BufferRegion &Src) {
  std::vector<Value *> Operands;
  unsigned D = appendGroup(Operands, Dst.Buffer, Dst.Indices);
  unsigned S = appendGroup(Operands, Src.Buffer, Src.Indices);
  // The destination's own extent says which of its dims the source's rows
  // and columns run along (O[b, s0:s1, h, d0:d1] takes a 2-D tile).
  return create(OpKind::Atomic, Operands, {D, S}, {},
                {{"kind", Attribute::string(Kind)},
                 {"extent", Attribute::array(Src.Extent)},
                 {"dst_extent", Attribute::array(Dst.Extent)}});
}

Operation *Builder::createUseSwizzle(int64_t PanelSize, llvm::StringRef Order,
                                     bool Enable) {
  return create(OpKind::UseSwizzle, {}, {}, {},
                {{"panel_size", Attribute::integer(PanelSize)},
                 {"order", Attribute::string(Order)},
                 {"enable", Attribute::boolean(Enable)}});
}

Operation *Builder::createAnnotateLayout(Value *Buffer,
                                         llvm::StringRef Layout) {
  return create(OpKind::AnnotateLayout, {Buffer}, {}, {},
                {{"layout", Attribute::string(Layout)}});
}

//===----------------------------------------------------------------------===//
// Control flow
//===----------------------------------------------------------------------===//

Operation *Builder::createFor(Value *Lo, Value *Hi, Value *Step,
                              llvm::StringRef Kind, llvm::StringRef IVName) {
  Operation *For = create(OpKind::For, {Lo, Hi, Step}, {}, {},
                          {{"kind", Attribute::string(Kind)}}, 1);
  For->getBody().addArgument(Type::i32(), IVName);
  return For;
}

Operation *Builder::createParallel(llvm::ArrayRef<int64_t> Extents,
                                   llvm::ArrayRef<std::string> IVNames) {
  Operation *Par = create(OpKind::Parallel, {}, {}, {},
                          {{"extents", Attribute::intArray(Extents)}}, 1);
  for (size_t I = 0; I != Extents.size(); ++I)
    Par->getBody().addArgument(Type::i32(),
                               I < IVNames.size() ? IVNames[I] : "");
  return Par;
}

Operation *Builder::createIf(Value *Cond, bool WithElse) {
  return create(OpKind::If, {Cond}, {}, {}, {}, WithElse ? 2 : 1);
}

Operation *Builder::createWhile() {
  return create(OpKind::While, {}, {}, {}, {}, 2);
}

Operation *Builder::createCondition(Value *Cond) {
  return create(OpKind::Condition, {Cond}, {}, {});
}

Operation *Builder::createBreak() { return create(OpKind::Break, {}, {}, {}); }

Operation *Builder::createContinue() {
  return create(OpKind::Continue, {}, {}, {});
}
