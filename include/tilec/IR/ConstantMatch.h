//===- ConstantMatch.h - Reading constants out of the IR -------*- C++ -*-===//
//
// Small queries passes use to see through `const` ops: the integer, float or
// bool a value is known to hold, and a generic scalar Constant type that the
// folder computes with.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_IR_CONSTANTMATCH_H
#define TILEC_IR_CONSTANTMATCH_H

#include "tilec/IR/Operation.h"
#include "tilec/Support/DType.h"
#include "llvm/ADT/ArrayRef.h"
#include <cstdint>
#include <optional>

namespace tilec {
namespace ir {

class Value;

/// The value of a `const` op: integers and bools as Int, floats as Float.
struct Constant {
  enum class Kind { Int, Float } K = Kind::Int;
  int64_t Int = 0;
  double Float = 0;

  static Constant ofInt(int64_t V) { return {Kind::Int, V, 0}; }
  static Constant ofFloat(double V) { return {Kind::Float, 0, V}; }
  bool isInt() const { return K == Kind::Int; }
  bool isFloat() const { return K == Kind::Float; }
};

/// The constant \p V holds, when it is the result of a `const` op.
std::optional<Constant> matchConstant(const Value *V);
/// The integer (or bool) constant \p V holds.
std::optional<int64_t> matchConstantInt(const Value *V);
/// True when \p V is the integer constant \p C.
bool isConstantInt(const Value *V, int64_t C);

/// A divisor every value of \p V is known to have (read from consts, mul,
/// add, sub); 0 for the constant 0.
int64_t knownMultiple(const Value *V);

/// Wraps \p V to the two's-complement range of the integer dtype \p T.
int64_t wrapToDType(int64_t V, DType T);

/// Python's `a // b` and `a % b`; std::nullopt for b == 0 and overflow.
std::optional<int64_t> floorDivInt(int64_t A, int64_t B);
std::optional<int64_t> floorModInt(int64_t A, int64_t B);

/// The result of the binary op \p K on 64-bit integers, with the IR's
/// semantics (div truncates; floordiv/floormod floor; pow needs a
/// non-negative exponent); std::nullopt on division by zero, overflow or a
/// shift out of range. Callers wrap the result to the op's dtype.
std::optional<int64_t> evalIntBinary(OpKind K, int64_t A, int64_t B);

/// `A pred B`.
template <typename T> bool evalCmp(CmpPred P, T A, T B) {
  switch (P) {
  case CmpPred::Eq:
    return A == B;
  case CmpPred::Ne:
    return A != B;
  case CmpPred::Lt:
    return A < B;
  case CmpPred::Le:
    return A <= B;
  case CmpPred::Gt:
    return A > B;
  case CmpPred::Ge:
    return A >= B;
  }
  return false;
}

/// Integer value of a scalar op (binary ops, cmp, select, cast between
/// integer types) given the values of its operands.
std::optional<int64_t> evalIntOp(const Operation &Op,
                                 llvm::ArrayRef<int64_t> Operands);

} // namespace ir
} // namespace tilec

#endif
