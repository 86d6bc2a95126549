//===- ConstantMatch.cpp - Reading constants out of the IR ----------------===//

#include "tilec/IR/ConstantMatch.h"
#include "tilec/IR/Operation.h"
#include <cstdlib>
#include <numeric>

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

std::optional<int64_t> ir::floorDivInt(int64_t A, int64_t B) {
  if (B == 0 || (A == INT64_MIN && B == -1))
    return std::nullopt;
  int64_t Q = A / B;
  return (A % B != 0 && ((A < 0) != (B < 0))) ? Q - 1 : Q;
}

std::optional<int64_t> ir::floorModInt(int64_t A, int64_t B) {
  std::optional<int64_t> Q = floorDivInt(A, B);
  if (!Q)
    return std::nullopt;
  return A - *Q * B;
}

static std::optional<int64_t> powInt(int64_t Base, int64_t Exp) {
  if (Exp < 0)
    return std::nullopt;
  int64_t R = 1;
  for (int64_t I = 0; I < Exp; ++I) {
    if (__builtin_mul_overflow(R, Base, &R))
      return std::nullopt;
    if (R == 0 || R == 1)
      break;
  }
  return R;
}

/// A + B, A - B or A * B, or std::nullopt when it overflows.
template <typename Fn> static std::optional<int64_t> checked(Fn Op) {
  int64_t R = 0;
  if (Op(&R))
    return std::nullopt;
  return R;
}

std::optional<int64_t> ir::evalIntBinary(OpKind K, int64_t A, int64_t B) {
  switch (K) {
  case OpKind::Add:
    return checked([&](int64_t *R) { return __builtin_add_overflow(A, B, R); });
  case OpKind::Sub:
    return checked([&](int64_t *R) { return __builtin_sub_overflow(A, B, R); });
  case OpKind::Mul:
    return checked([&](int64_t *R) { return __builtin_mul_overflow(A, B, R); });
  case OpKind::Div:
    if (B == 0 || (A == INT64_MIN && B == -1))
      return std::nullopt;
    return A / B;
  case OpKind::FloorDiv:
    return floorDivInt(A, B);
  case OpKind::FloorMod:
    return floorModInt(A, B);
  case OpKind::Min:
    return std::min(A, B);
  case OpKind::Max:
    return std::max(A, B);
  case OpKind::Pow:
    return powInt(A, B);
  case OpKind::And:
    return A & B;
  case OpKind::Or:
    return A | B;
  case OpKind::Xor:
    return A ^ B;
  case OpKind::Shl:
    if (B < 0 || B > 62 || A < 0 || A > (INT64_MAX >> B))
      return std::nullopt;
    return A << B;
  case OpKind::Shr:
    return (B < 0 || B > 63) ? std::nullopt : std::optional<int64_t>(A >> B);
  default:
    return std::nullopt;
  }
}

std::optional<int64_t> ir::evalIntOp(const Operation &Op,
                                     llvm::ArrayRef<int64_t> X) {
  if (isBinaryOp(Op.getKind()))
    return evalIntBinary(Op.getKind(), X[0], X[1]);
  switch (Op.getKind()) {
  case OpKind::Select:
    return X[0] ? X[1] : X[2];
  case OpKind::Cast:
    if (!Op.getResult()->getType().isInteger())
      return std::nullopt;
    return wrapToDType(X[0], Op.getResult()->getType().getDType());
  case OpKind::Cmp: {
    std::optional<CmpPred> P =
        parseCmpPred(Op.getStringAttr("pred").value_or(""));
    if (!P)
      return std::nullopt;
    return int64_t(evalCmp(*P, X[0], X[1]));
  }
  default:
    return std::nullopt;
  }
}

int64_t ir::knownMultiple(const Value *V) {
  if (auto C = matchConstantInt(V))
    return std::abs(*C);
  const Operation *Def = V->getDefiningOp();
  if (!Def)
    return 1;
  switch (Def->getKind()) {
  case OpKind::Mul:
    return knownMultiple(Def->getOperand(0)) *
           knownMultiple(Def->getOperand(1));
  case OpKind::Add:
  case OpKind::Sub:
    return std::gcd(knownMultiple(Def->getOperand(0)),
                    knownMultiple(Def->getOperand(1)));
  default:
    return 1;
  }
}
