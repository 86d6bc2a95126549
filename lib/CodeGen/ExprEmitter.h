//===- ExprEmitter.h - Scalar IR ops as C expressions ----------*- C++ -*-===//
//
// Translates the scalar ops of the tile IR (const, add..shr, not, neg, cmp,
// select, cast, math, thread_id, load) into C/CUDA expressions, and buffer
// accesses into lvalues. Values are looked up in a binding table that the
// statement emitter fills: a named value binds to its variable, an inlined
// value to its expression text. Each Expr carries its C precedence so that
// operands are parenthesized only when needed.
//
// Semantics follow the tile language (Python): floordiv/floormod round
// toward negative infinity (tilec::floordiv from tilec_runtime.h, or plain
// `/` and `%` when both operands are provably non-negative); math and
// unsupported arithmetic on f16/bf16/fp8 is computed in float, as TileLang
// does. Errors (a dtype without a CUDA form, an op the host cannot run) are
// reported once and make failed() true; the returned text is then a
// placeholder.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_LIB_CODEGEN_EXPREMITTER_H
#define TILEC_LIB_CODEGEN_EXPREMITTER_H

#include "Dialect.h"
#include "tilec/IR/Operation.h"
#include "tilec/Support/Diagnostics.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include <optional>
#include <set>
#include <string>

namespace tilec {
namespace codegen {

/// C operator precedence, higher binds tighter.
enum Prec : int {
  PrecTernary = 3,
  PrecLOr = 4,
  PrecLAnd = 5,
  PrecBitOr = 6,
  PrecBitXor = 7,
  PrecBitAnd = 8,
  PrecEquality = 9,
  PrecRelational = 10,
  PrecShift = 11,
  PrecAdditive = 12,
  PrecMultiplicative = 13,
  PrecUnary = 15,
  PrecPostfix = 16,
};

struct Expr {
  std::string Text;
  int P = PrecPostfix;
};

/// The C spelling of \p T in \p D, or null for dtypes without one (4-bit
/// types, fp8 on HIP).
const char *cTypeOf(DType T, const Dialect &D);
/// True for f16, bf16 and the fp8 types (computed in float when needed).
bool isNarrowFloat(DType T);
/// 4-bit types, stored two per byte.
bool isPacked(DType T);
/// A buffer of pairs of 4-bit elements (a `var` holds one code).
bool isPackedBuffer(const ir::Type &T);
/// True when \p V is provably >= 0 (constants, thread/block indices,
/// symbols, loop variables of non-negative ranges, and sums, products,
/// quotients of those).
bool isNonNegative(const ir::Value *V);

class ExprEmitter {
public:
  /// \p Device selects device code (thread_id and loads allowed).
  /// Every dtype the emitted text uses is added to \p UsedTypes. \p Dial
  /// spells the types and conversions (CUDA or HIP).
  ExprEmitter(DiagnosticEngine &Diags, bool Device, std::set<DType> &UsedTypes,
              const Dialect &Dial)
      : Diags(Diags), Device(Device), UsedTypes(UsedTypes), Dial(Dial) {}

  void bind(const ir::Value *V, Expr E) { Bound[V] = std::move(E); }
  bool isBound(const ir::Value *V) const { return Bound.count(V); }
  /// The expression of \p V: its binding, or the literal of a `const`.
  Expr get(const ir::Value *V);
  /// The value of \p Op (which has one result) as an expression.
  Expr emit(const ir::Operation &Op);
  /// The lvalue `buf[flat index]` (or `name` for a var buffer). A buffer
  /// of 4-bit elements is an array of bytes holding two each (the lower
  /// nibble first): its lvalue is the byte `buf[flat index >> 1]`, which
  /// vector accesses, cp.async, ldmatrix and mma read from even indices.
  Expr element(const ir::Operation &Ctx, llvm::ArrayRef<ir::Value *> Group);
  /// The C type of \p T; reports and returns "int" when there is none.
  /// A 4-bit type is uint8_t: a buffer's element holds a pair, a value
  /// one element's code in its low nibble.
  std::string typeName(DType T, const ir::Operation &Ctx);
  /// The C type of a scalar value of dtype \p T: typeName, except that
  /// i32 is int64_t under setWideIntegers.
  std::string valueTypeName(DType T, const ir::Operation &Ctx);
  /// Host code: i32 arithmetic is done in int64_t, so that a value that
  /// overflows 32 bits (a grid extent computed from large arguments) is
  /// seen, and rejected by the launcher, instead of wrapping into range.
  /// Callers bind the i32 arguments to int64_t expressions.
  void setWideIntegers(bool On) { WideIntegers = On; }
  /// Device code of a func with fast_math: float T.exp, T.exp2, T.log and
  /// T.log2 call the hardware approximations (denormals flushed to zero).
  void setFastMath(bool On) { FastMath = On; }
  const Dialect &dialect() const { return Dial; }
  /// Expression of symbolic dim \p Name (for the strides of buffers).
  void bindSymbol(llvm::StringRef Name, Expr E) { Symbols[Name] = E; }

  /// Reports \p ID with one argument at \p Op and marks failure.
  Expr fail(const ir::Operation &Op, diag::ID ID, const std::string &Arg);
  /// `tilec::setNibble(buf, i, v);` for a store of one 4-bit element into
  /// registers; elsewhere an error (and "").
  std::string storePacked(const ir::Operation &Op);
  bool failed() const { return Failed; }

  /// Conversions between \p T and float (identity for f32).
  Expr toFloat(Expr E, DType T);
  Expr fromFloat(Expr E, DType T, const ir::Operation &Ctx);
  /// \p E of type \p From converted to \p To as `cast` does.
  Expr cast(Expr E, DType From, DType To, const ir::Operation &Ctx);

private:
  Expr loadPacked(const ir::Operation &Op);
  bool checkPackedUse(const ir::Operation &Op);
  Expr toPacked(Expr E, DType From, DType To, const ir::Operation &Ctx);
  Expr fromPacked(Expr E, DType From);
  Expr literal(const ir::Operation &Const);
  Expr binary(const ir::Operation &Op);
  Expr binaryViaFloat(const ir::Operation &Op);
  Expr integerOrFloatBinary(const ir::Operation &Op, const Expr &A,
                            const Expr &B, DType T);
  std::optional<Expr> wideIntegerBinary(const ir::Operation &Op, const Expr &A,
                                        const Expr &B);
  /// `(T)E`: an 8- or 16-bit integer result wrapped to its type.
  Expr wrapToType(const Expr &E, DType T, const ir::Operation &Op);
  Expr unary(const ir::Operation &Op);
  Expr compare(const ir::Operation &Op);
  Expr select(const ir::Operation &Op);
  Expr cast(const ir::Operation &Op);
  Expr bitcast(const ir::Operation &Op);
  Expr math(const ir::Operation &Op);
  const char *fastMathFunction(llvm::StringRef Fn) const;
  Expr threadId(const ir::Operation &Op);
  std::string flatIndex(const ir::Type &Buffer,
                        llvm::ArrayRef<ir::Value *> Indices);
  std::string dimText(const ir::Dim &D);

  DiagnosticEngine &Diags;
  bool Device;
  bool WideIntegers = false;
  bool FastMath = false;
  std::set<DType> &UsedTypes;
  const Dialect &Dial;
  bool Failed = false;
  llvm::DenseMap<const ir::Value *, Expr> Bound;
  llvm::StringMap<Expr> Symbols;
};

/// \p E as an operand of an operator of precedence \p Min (parenthesized
/// when it binds more loosely).
std::string operand(const Expr &E, int Min);
/// "F(a, b, ...)" as a postfix expression.
Expr call(llvm::StringRef F, llvm::ArrayRef<Expr> Args);
/// "A op B" for a left-associative binary operator of precedence \p P.
Expr infix(const Expr &A, llvm::StringRef Op, const Expr &B, int P);

} // namespace codegen
} // namespace tilec

#endif
