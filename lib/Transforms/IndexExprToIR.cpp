//===- IndexExprToIR.cpp - Between layout expressions and IR ops ----------===//

#include "IndexExprToIR.h"
#include "tilec/IR/ConstantMatch.h"
#include "tilec/Layout/Simplify.h"

using namespace tilec;
using namespace tilec::ir;
using layout::ExprNode;
using layout::IndexExpr;

static OpKind opKindOf(ExprNode::Kind K) {
  switch (K) {
  case ExprNode::Kind::Add:
    return OpKind::Add;
  case ExprNode::Kind::Sub:
    return OpKind::Sub;
  case ExprNode::Kind::Mul:
    return OpKind::Mul;
  case ExprNode::Kind::FloorDiv:
    return OpKind::FloorDiv;
  case ExprNode::Kind::FloorMod:
    return OpKind::FloorMod;
  case ExprNode::Kind::Min:
    return OpKind::Min;
  case ExprNode::Kind::Max:
    return OpKind::Max;
  case ExprNode::Kind::Xor:
    return OpKind::Xor;
  default:
    return OpKind::And;
  }
}

Value *tilec::emitIndexExpr(Builder &B, const IndexExpr &E,
                            const AtomValues &Vars) {
  if (auto C = E.getConstant())
    return B.createConstInt(*C);
  if (llvm::StringRef Name = E.getVarName(); !Name.empty()) {
    auto It = Vars.find(Name);
    assert(It != Vars.end() && "unbound variable in an index expression");
    return It->second;
  }
  const auto *Bin = llvm::cast<layout::BinaryNode>(E.get());
  Value *L = emitIndexExpr(B, Bin->getLHS(), Vars);
  Value *R = emitIndexExpr(B, Bin->getRHS(), Vars);
  return B.createBinary(opKindOf(Bin->getKind()), L, R);
}

int64_t tilec::kernelThreadCount(const Operation &Kernel) {
  int64_t N = 1;
  for (int64_t T :
       Kernel.getIntArrayAttr("threads").value_or(std::vector<int64_t>{1}))
    N *= T;
  return N;
}

Value *tilec::emitLinearThreadId(Builder &B, const Operation &Kernel) {
  std::vector<int64_t> Threads =
      Kernel.getIntArrayAttr("threads").value_or(std::vector<int64_t>{1});
  Value *Linear = nullptr;
  int64_t Stride = 1;
  for (size_t D = 0; D < Threads.size(); ++D) {
    if (Threads[D] == 1)
      continue;
    Value *Tid = B.createThreadId(D);
    if (Stride != 1)
      Tid = B.createBinary(OpKind::Mul, Tid, B.createConstInt(Stride));
    Linear = Linear ? B.createBinary(OpKind::Add, Linear, Tid) : Tid;
    Stride *= Threads[D];
  }
  if (!Linear)
    return B.createConstInt(0);
  Linear->setNameHint("tx");
  return Linear;
}

Operation *tilec::enclosingRole(const Operation &Op) {
  for (Operation *P = Op.getParentOp(); P; P = P->getParentOp())
    if (P->is(OpKind::If) && P->hasAttr("thread_range"))
      return P;
  return nullptr;
}

ThreadRange tilec::threadRangeOf(const Operation &Op) {
  if (const Operation *Role = enclosingRole(Op)) {
    std::vector<int64_t> R = *Role->getIntArrayAttr("thread_range");
    assert(R.size() == 2 && "the verifier checks thread_range");
    return {R[0], R[1]};
  }
  const Operation *Kernel =
      Op.is(OpKind::Kernel) ? &Op : Op.getParentOfKind(OpKind::Kernel);
  assert(Kernel && "thread range of an op outside a kernel");
  return {0, kernelThreadCount(*Kernel)};
}

Value *tilec::emitRangeThreadId(Builder &B, const Operation &At) {
  const Operation *Kernel =
      At.is(OpKind::Kernel) ? &At : At.getParentOfKind(OpKind::Kernel);
  assert(Kernel && "thread index outside a kernel");
  Value *Tx = emitLinearThreadId(B, *Kernel);
  ThreadRange R = threadRangeOf(At);
  if (R.Offset == 0)
    return Tx;
  Value *Local = B.createBinary(OpKind::Sub, Tx, B.createConstInt(R.Offset));
  Local->setNameHint("tx");
  return Local;
}

void tilec::remapThroughLayout(Operation &User, unsigned Group,
                               const layout::Layout &L) {
  unsigned OperandIdx = User.getGroupStart(Group);
  llvm::ArrayRef<Value *> Old = User.getGroup(Group).drop_front();
  IndexAtoms Atoms;
  std::vector<IndexExpr> Idx;
  for (Value *I : Old)
    Idx.push_back(Atoms.toExpr(I));
  IndexExpr Flat = 0;
  llvm::ArrayRef<int64_t> OutShape = L.getOutputShape();
  auto Parts = L.forwardExprs(Idx, Atoms.getExtents());
  for (unsigned D = 0; D != Parts.size(); ++D)
    Flat = Flat * OutShape[D] + Parts[D];
  Builder B;
  B.setInsertionPoint(&User);
  B.setLoc(User.getLoc());
  Value *NewIdx = emitIndexExpr(B, layout::simplify(Flat, Atoms.getExtents()),
                                Atoms.getValues());
  std::vector<Value *> Operands(User.getOperands().begin(),
                                User.getOperands().end());
  std::vector<unsigned> Segments(User.getSegments().begin(),
                                 User.getSegments().end());
  Operands.erase(Operands.begin() + OperandIdx + 1,
                 Operands.begin() + OperandIdx + 1 + Old.size());
  Operands.insert(Operands.begin() + OperandIdx + 1, NewIdx);
  Segments[Group] = 2;
  User.setOperands(Operands, Segments);
}

void IndexScope::bind(llvm::StringRef Name, Value *V, int64_t Extent) {
  Vars[Name] = V;
  Extents[Name] = Extent;
}

Value *IndexScope::emit(const IndexExpr &E) {
  return emitIndexExpr(B, layout::simplify(E, Extents), Vars);
}

void IndexScope::forLoop(int64_t N, llvm::StringRef Kind, llvm::StringRef Name,
                         llvm::function_ref<void(IndexExpr)> Body) {
  if (N < 1)
    return;
  if (N == 1)
    return Body(IndexExpr(0));
  Builder::InsertionGuard Guard(B);
  Operation *For = B.createFor(B.createConstInt(0), B.createConstInt(N),
                               B.createConstInt(1), Kind, Name);
  B.setInsertionPointToEnd(For->getBody());
  std::string Var = Name.str() + "_" + std::to_string(LoopCount++);
  bind(Var, For->getBody().getArgument(0), N);
  Body(IndexExpr::var(Var));
}
