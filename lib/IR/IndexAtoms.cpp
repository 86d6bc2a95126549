//===- IndexAtoms.cpp - Reading i32 IR values as index expressions --------===//

#include "tilec/IR/IndexAtoms.h"
#include "tilec/IR/ConstantMatch.h"

using namespace tilec;
using namespace tilec::ir;
using layout::ExprNode;
using layout::IndexExpr;

static std::optional<ExprNode::Kind> exprKindOf(OpKind K) {
  switch (K) {
  case OpKind::Add:
    return ExprNode::Kind::Add;
  case OpKind::Sub:
    return ExprNode::Kind::Sub;
  case OpKind::Mul:
    return ExprNode::Kind::Mul;
  case OpKind::FloorDiv:
    return ExprNode::Kind::FloorDiv;
  case OpKind::FloorMod:
    return ExprNode::Kind::FloorMod;
  case OpKind::Min:
    return ExprNode::Kind::Min;
  case OpKind::Max:
    return ExprNode::Kind::Max;
  case OpKind::Xor:
    return ExprNode::Kind::Xor;
  case OpKind::And:
    return ExprNode::Kind::And;
  default:
    return std::nullopt;
  }
}

IndexExpr IndexAtoms::toExpr(Value *V) {
  if (auto C = matchConstantInt(V))
    return IndexExpr(*C);
  Operation *Def = V->getDefiningOp();
  if (!Def || !V->getType().isInteger())
    return atom(V);
  if (roleThreadRange(V))
    return atom(V);
  std::optional<ExprNode::Kind> K = exprKindOf(Def->getKind());
  // A divisor that is not a positive constant would leave the simplifier
  // without ranges; such values stay opaque.
  bool Divides = K == ExprNode::Kind::FloorDiv || K == ExprNode::Kind::FloorMod;
  if (!K || (Divides && matchConstantInt(Def->getOperand(1)).value_or(0) <= 0))
    return atom(V);
  return layout::makeBinary(*K, toExpr(Def->getOperand(0)),
                            toExpr(Def->getOperand(1)));
}

IndexExpr IndexAtoms::atom(Value *V) {
  auto It = Names.find(V);
  if (It != Names.end())
    return IndexExpr::var(It->second);
  std::string Name = "v" + std::to_string(Names.size());
  return bind(Name, V, rangeOf(V).value_or(0));
}

IndexExpr IndexAtoms::bind(llvm::StringRef Name, Value *V, int64_t Extent) {
  Names[V] = Name.str();
  Values[Name] = V;
  if (Extent > 0)
    Extents[Name] = Extent;
  return IndexExpr::var(Name);
}

std::optional<int64_t> IndexAtoms::roleThreadRange(const Value *V) {
  Operation *Def = V->getDefiningOp();
  if (!Def)
    return std::nullopt;
  // The thread id itself inside a role at offset 0.
  Operation *Tid = Def;
  std::optional<int64_t> Offset = 0;
  if (Def->is(OpKind::Sub)) {
    Tid = Def->getOperand(0)->getDefiningOp();
    Offset = matchConstantInt(Def->getOperand(1));
  }
  if (!Tid || !Tid->is(OpKind::ThreadId) || Tid->getIntAttr("dim") != 0 ||
      !Offset)
    return std::nullopt;
  Operation *Kernel = Def->getParentOfKind(OpKind::Kernel);
  auto Threads = Kernel ? Kernel->getIntArrayAttr("threads") : std::nullopt;
  if (!Threads || llvm::any_of(llvm::drop_begin(*Threads),
                               [](int64_t T) { return T != 1; }))
    return std::nullopt;
  for (Operation *P = Def->getParentOp(); P != Kernel; P = P->getParentOp()) {
    if (!P->is(OpKind::If) || !P->hasAttr("thread_range"))
      continue;
    auto Range = P->getIntArrayAttr("thread_range");
    if (Range && Range->size() == 2 && (*Range)[0] == *Offset)
      return (*Range)[1];
    return std::nullopt;
  }
  return std::nullopt;
}

std::optional<int64_t> IndexAtoms::rangeOf(Value *V) const {
  if (auto N = roleThreadRange(V))
    return N;
  if (Operation *Def = V->getDefiningOp()) {
    if (!Def->is(OpKind::ThreadId))
      return std::nullopt;
    Operation *Kernel = Def->getParentOfKind(OpKind::Kernel);
    auto Threads = Kernel ? Kernel->getIntArrayAttr("threads") : std::nullopt;
    size_t Dim = Def->getIntAttr("dim").value_or(0);
    if (!Threads || Dim >= Threads->size())
      return std::nullopt;
    return (*Threads)[Dim];
  }
  Operation *Owner = V->getOwnerBlock()->getParentOp();
  if (!Owner)
    return std::nullopt;
  if (Owner->is(OpKind::Parallel)) {
    auto Extents = Owner->getIntArrayAttr("extents");
    if (Extents && V->getIndex() < Extents->size())
      return (*Extents)[V->getIndex()];
    return std::nullopt;
  }
  if (Owner->is(OpKind::For) && isConstantInt(Owner->getOperand(0), 0) &&
      isConstantInt(Owner->getOperand(2), 1))
    return matchConstantInt(Owner->getOperand(1));
  return std::nullopt;
}
