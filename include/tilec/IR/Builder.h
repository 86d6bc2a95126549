//===- Builder.h - Creating tile IR ----------------------------*- C++ -*-===//
//
// A Builder inserts new ops at an insertion point (before an op, or at the
// end of a block) and stamps them with its current Location (setLoc). Sema
// sets the location per statement/expression, then calls the typed creators
// below; each one documents the op it makes in IR text (docs/ir.md has the
// full reference). Ops with regions come back with their (empty) body
// blocks; fill them with a second Builder or an InsertionGuard:
//
//   Operation *Loop = B.createFor(Lo, Hi, Step, "pipelined", "k");
//   Loop->setAttr("num_stages", Attribute::integer(3));
//   {
//     Builder::InsertionGuard G(B);
//     B.setInsertionPointToEnd(Loop->getBody());
//     Value *K = Loop->getBody().getArgument(0);
//     ...
//   }
//
// Creators do not check types; run the verifier (Verifier.h) on the result.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_IR_BUILDER_H
#define TILEC_IR_BUILDER_H

#include "tilec/IR/Operation.h"
#include <string>

namespace tilec {
namespace ir {

/// `%buf[%i, %j]` plus the extent of the tile starting there, as used by
/// copy, fill and the region form of atomic. An empty Indices means "the
/// whole buffer from offset 0". Extent entries are Attribute::integer (-1 =
/// unknown, to be inferred) or Attribute::string (a symbolic full dim).
struct BufferRegion {
  Value *Buffer = nullptr;
  std::vector<Value *> Indices;
  std::vector<Attribute> Extent;
};

/// A detached `module {}` op with an empty body.
std::unique_ptr<Operation> createModuleOp(Location Loc = {});

class Builder {
public:
  Builder() = default;
  explicit Builder(Block &InsertAtEnd) { setInsertionPointToEnd(InsertAtEnd); }

  //===--- Insertion point and location -----------------------------------===//
  void setInsertionPointToEnd(Block &B) {
    InsertBlock = &B;
    InsertPt = B.end();
  }
  void setInsertionPointToStart(Block &B) {
    InsertBlock = &B;
    InsertPt = B.begin();
  }
  /// New ops go right before Op.
  void setInsertionPoint(Operation *Op);
  /// New ops go right after Op.
  void setInsertionPointAfter(Operation *Op);
  Block *getInsertionBlock() const { return InsertBlock; }

  void setLoc(Location L) { Loc = std::move(L); }
  const Location &getLoc() const { return Loc; }

  /// Saves the insertion point and location; restores them on destruction.
  class InsertionGuard {
  public:
    explicit InsertionGuard(Builder &B)
        : B(B), SavedBlock(B.InsertBlock), SavedPt(B.InsertPt),
          SavedLoc(B.Loc) {}
    ~InsertionGuard() {
      B.InsertBlock = SavedBlock;
      B.InsertPt = SavedPt;
      B.Loc = SavedLoc;
    }

  private:
    Builder &B;
    Block *SavedBlock;
    Block::iterator SavedPt;
    Location SavedLoc;
  };

  //===--- Generic creation -----------------------------------------------===//
  /// Inserts a new op at the insertion point with the current location.
  Operation *create(OpKind Kind, llvm::ArrayRef<Value *> Operands,
                    llvm::ArrayRef<unsigned> Segments,
                    llvm::ArrayRef<Type> ResultTypes,
                    std::vector<NamedAttribute> Attrs = {},
                    unsigned NumRegions = 0);
  /// Same, with an explicit location.
  Operation *create(OpKind Kind, llvm::ArrayRef<Value *> Operands,
                    llvm::ArrayRef<unsigned> Segments,
                    llvm::ArrayRef<Type> ResultTypes,
                    std::vector<NamedAttribute> Attrs, unsigned NumRegions,
                    Location Loc);
  /// Inserts an existing detached op at the insertion point.
  Operation *insert(std::unique_ptr<Operation> Op);

  //===--- Structure ------------------------------------------------------===//
  /// func {name, symbols, params, out_idx} (%M: i32, ..., %A: T, ...) {}
  /// Block arguments: one i32 per symbol (named after it), then one per
  /// param with ParamTypes[i] (named Params[i]).
  Operation *createFunc(llvm::StringRef Name,
                        llvm::ArrayRef<std::string> Symbols,
                        llvm::ArrayRef<std::string> Params,
                        llvm::ArrayRef<Type> ParamTypes,
                        llvm::ArrayRef<int64_t> OutIdx = {});
  /// kernel %gx[, %gy[, %gz]] {threads = [..]} (%bx: i32, ...) {}
  /// One i32 block argument per grid extent, named BlockNames[i] when
  /// given. Threads has 1 to 3 entries.
  Operation *createKernel(llvm::ArrayRef<Value *> Grid,
                          llvm::ArrayRef<int64_t> Threads,
                          llvm::ArrayRef<std::string> BlockNames = {});

  //===--- Scalars --------------------------------------------------------===//
  /// %c = const {value = V} : T
  Value *createConstInt(int64_t V, DType T = DType::Int32);
  Value *createConstFloat(double V, DType T = DType::Float32);
  Value *createConstBool(bool V);
  /// add ... shr (isBinaryOp(Kind)); result type = type of A.
  Value *createBinary(OpKind Kind, Value *A, Value *B);
  /// not / neg; result type = type of A.
  Value *createUnary(OpKind Kind, Value *A);
  /// %r = cmp %a, %b {pred = ".."} : i1
  Value *createCmp(CmpPred Pred, Value *A, Value *B);
  /// %r = select %c, %a, %b : type of A
  Value *createSelect(Value *Cond, Value *A, Value *B);
  /// %r = cast %a : T
  Value *createCast(Value *A, DType T);
  /// %r = math %a[, %b] {fn = ".."} : type of Args[0]
  Value *createMath(llvm::StringRef Fn, llvm::ArrayRef<Value *> Args);
  /// %t = thread_id {dim = D} : i32
  Value *createThreadId(int64_t Dim);

  //===--- Buffers --------------------------------------------------------===//
  /// %b = alloc : T  (T is a buffer type; the scope says where)
  Value *createAlloc(const Type &BufferType, llvm::StringRef NameHint = "");
  /// `view %Source`: \p Source's storage as a buffer of \p ViewType.
  Value *createView(Value *Source, const Type &ViewType,
                    llvm::StringRef NameHint = "");
  /// `subview %Source[Starts...]`: the region of \p Source starting at
  /// \p Starts with the extents of \p RegionType on its last two dims.
  Value *createSubview(Value *Source, llvm::ArrayRef<Value *> Starts,
                       const Type &RegionType, llvm::StringRef NameHint = "");
  /// %v = load %buf[%i, ...] : element type
  Value *createLoad(Value *Buffer, llvm::ArrayRef<Value *> Indices);
  /// store %v, %buf[%i, ...]
  Operation *createStore(Value *V, Value *Buffer,
                         llvm::ArrayRef<Value *> Indices);

  //===--- Tile operators -------------------------------------------------===//
  /// copy %src[..], %dst[..] {src_extent = [..], dst_extent = [..]}
  Operation *createCopy(const BufferRegion &Src, const BufferRegion &Dst);
  /// fill %buf[..], %v {extent = [..]}
  Operation *createFill(const BufferRegion &Dst, Value *V);
  /// gemm %A, %B, %C {transpose_a, transpose_b, policy, clear_accum, k_pack}
  Operation *createGemm(Value *A, Value *B, Value *C, bool TransposeA = false,
                        bool TransposeB = false,
                        llvm::StringRef Policy = "Square",
                        bool ClearAccum = false, int64_t KPack = 1);
  /// reduce %src, %dst {kind = "max", dim = 1, clear = true}
  Operation *createReduce(llvm::StringRef Kind, Value *Src, Value *Dst,
                          int64_t Dim, bool Clear = true);
  /// cumsum %src, %dst {dim = 0, reverse = false}
  Operation *createCumsum(Value *Src, Value *Dst, int64_t Dim,
                          bool Reverse = false);
  /// [%prev =] atomic %dst[..], %value {kind = "add"} [: T] (element form;
  /// with \p ReturnPrev its result is the element's previous value)
  Operation *createAtomic(llvm::StringRef Kind, Value *Dst,
                          llvm::ArrayRef<Value *> Indices, Value *V,
                          bool ReturnPrev = false);
  /// atomic %dst[..], %src[..] {kind = "add", extent = [..]} (region form;
  /// the extent is Src.Extent)
  Operation *createAtomic(llvm::StringRef Kind, const BufferRegion &Dst,
                          const BufferRegion &Src);
  /// use_swizzle {panel_size = 10, order = "row", enable = true}
  Operation *createUseSwizzle(int64_t PanelSize, llvm::StringRef Order = "row",
                              bool Enable = true);
  /// annotate_layout %buf {layout = ".."}
  Operation *createAnnotateLayout(Value *Buffer, llvm::StringRef Layout);

  //===--- Control flow ---------------------------------------------------===//
  /// for %lo, %hi, %step {kind = ".."} (%iv: i32) {}
  /// Kind: serial, pipelined, unroll, vectorized. Add num_stages etc. with
  /// setAttr.
  Operation *createFor(Value *Lo, Value *Hi, Value *Step,
                       llvm::StringRef Kind = "serial",
                       llvm::StringRef IVName = "");
  /// parallel {extents = [..]} (%i: i32, ...) {}
  Operation *createParallel(llvm::ArrayRef<int64_t> Extents,
                            llvm::ArrayRef<std::string> IVNames = {});
  /// if %c {} [{}]
  Operation *createIf(Value *Cond, bool WithElse = false);
  /// while {} {}: fill region 0 with the condition computation ending in
  /// `condition %c`, region 1 with the body.
  Operation *createWhile();
  Operation *createCondition(Value *Cond);
  Operation *createBreak();
  Operation *createContinue();

private:
  Block *InsertBlock = nullptr;
  Block::iterator InsertPt;
  Location Loc;
};

} // namespace ir
} // namespace tilec

#endif
