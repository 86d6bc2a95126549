//===- IndexInterpreter.cpp - Evaluating integer index code ---------------===//

#include "IndexInterpreter.h"
#include "tilec/IR/ConstantMatch.h"
#include "tilec/IR/Operation.h"
#include "llvm/ADT/SmallVector.h"

using namespace tilec;
using namespace tilec::ir;

void IndexInterpreter::setThread(int64_t LinearTid) {
  if (LinearTid == Tid)
    return;
  Tid = LinearTid;
  Cache.clear();
}

void IndexInterpreter::bind(const Value *V, int64_t X) {
  auto [It, New] = Bound.try_emplace(V, X);
  if (!New && It->second == X)
    return;
  It->second = X;
  Cache.clear();
}

void IndexInterpreter::unbind(const Value *V) {
  if (Bound.erase(V))
    Cache.clear();
}

std::optional<int64_t> IndexInterpreter::eval(const Value *V) {
  return evalAt(V, 0);
}

std::optional<int64_t> IndexInterpreter::evalAt(const Value *V,
                                                unsigned Depth) {
  auto B = Bound.find(V);
  if (B != Bound.end())
    return B->second;
  auto C = Cache.find(V);
  if (C != Cache.end())
    return C->second;
  std::optional<int64_t> R = evalUncached(V, Depth);
  // A failure caused by the depth limit alone may succeed from a shallower
  // start, so only results and other failures are remembered.
  if (R || Depth <= MaxDepth)
    Cache[V] = R;
  return R;
}

std::optional<int64_t> IndexInterpreter::evalUncached(const Value *V,
                                                      unsigned Depth) {
  const Operation *Def = V->getDefiningOp();
  if (!Def || Depth > MaxDepth || !V->getType().isScalar() ||
      !(V->getType().isInteger() || V->getType().isBool()))
    return std::nullopt;
  if (Def->is(OpKind::Const))
    return matchConstantInt(V);
  if (Def->is(OpKind::ThreadId)) {
    int64_t Dim = Def->getIntAttr("dim").value_or(0);
    int64_t Ids[3] = {Tid % Threads[0], Tid / Threads[0] % Threads[1],
                      Tid / (Threads[0] * Threads[1])};
    if (Dim < 0 || Dim > 2)
      return std::nullopt;
    return Ids[Dim];
  }
  if (Def->getNumRegions() != 0 || Def->is(OpKind::Load) ||
      Def->is(OpKind::Shfl) || Def->is(OpKind::Math) ||
      Def->is(OpKind::CallExtern) || Def->is(OpKind::Bitcast))
    return std::nullopt;
  llvm::SmallVector<int64_t, 3> Args;
  for (Value *Operand : Def->getOperands()) {
    std::optional<int64_t> A = evalAt(Operand, Depth + 1);
    if (!A)
      return std::nullopt;
    Args.push_back(*A);
  }
  DType T = V->getType().getDType();
  std::optional<int64_t> R;
  if (Def->is(OpKind::Neg) && Args.size() == 1 && Args[0] != INT64_MIN)
    R = -Args[0];
  else if (Def->is(OpKind::Not) && Args.size() == 1)
    R = T == DType::Bool ? int64_t(Args[0] == 0) : ~Args[0];
  else
    R = evalIntOp(*Def, Args);
  if (!R)
    return std::nullopt;
  return wrapToDType(*R, T);
}
