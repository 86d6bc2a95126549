//===- ConstantMatch.cpp - Reading constants out of the IR ------------------===//

#include "tilec/IR/ConstantMatch.h"
#include "tilec/IR/Operation.h"

using namespace tilec;
using namespace tilec::ir;

std::optional<Constant> ir::matchConstant(const Value *V) {
  const Operation *Def = V ? V->getDefiningOp() : nullptr;
  if (!Def || !Def->is(OpKind::Const))
    return std::nullopt;
  const Attribute *A = Def->getAttr("value");
  if (!A)
    return std::nullopt;
  if (A->isInt())
    return Constant::ofInt(A->getInt());
  if (A->isBool())
    return Constant::ofInt(A->getBool() ? 1 : 0);
  if (A->isFloat())
    return Constant::ofFloat(A->getFloat());
  return std::nullopt;
}

std::optional<int64_t> ir::matchConstantInt(const Value *V) {
  std::optional<Constant> C = matchConstant(V);
  if (!C || !C->isInt())
    return std::nullopt;
  return C->Int;
}

bool ir::isConstantInt(const Value *V, int64_t C) {
  std::optional<int64_t> Got = matchConstantInt(V);
  return Got && *Got == C;
}

int64_t ir::wrapToDType(int64_t V, DType T) {
  unsigned Bits = bitWidth(T);
  if (T == DType::Bool)
    return V != 0;
  if (Bits >= 64 || Bits == 0)
    return V;
  uint64_t Mask = (uint64_t(1) << Bits) - 1;
  uint64_t U = uint64_t(V) & Mask;
  if (isSigned(T) && (U >> (Bits - 1)))
    U |= ~Mask;
  return int64_t(U);
}
