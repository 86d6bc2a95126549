//===- ConstantMatch.h - Reading constants out of the IR -------*- C++ -*-===//
//
// Small queries passes use to see through `const` ops: the integer, float or
// bool a value is known to hold, and a generic scalar Constant type that the
// folder computes with.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_IR_CONSTANTMATCH_H
#define TILEC_IR_CONSTANTMATCH_H

#include "tilec/Support/DType.h"
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

/// Wraps \p V to the two's-complement range of the integer dtype \p T.
int64_t wrapToDType(int64_t V, DType T);

} // namespace ir
} // namespace tilec

#endif
