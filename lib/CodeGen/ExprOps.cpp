//===- ExprOps.cpp - Arithmetic, comparisons, casts and math --------------===//
//
// The operator part of ExprEmitter: one function per op family. Narrow
// floats (f16, bf16, fp8) use the cuda_fp16/cuda_bf16 operators where they
// exist (+ - * / comparisons, __hmin/__hmax) and go through float
// otherwise.
//
//===----------------------------------------------------------------------===//

#include "ExprEmitter.h"
#include "llvm/ADT/StringSwitch.h"
#include <fmt/format.h>

using namespace tilec;
using namespace tilec::codegen;
using namespace tilec::ir;
using llvm::StringRef;

namespace {

/// Ops that cuda_fp16.h/cuda_bf16.h implement natively on half/bf16.
bool nativeOnHalf(OpKind K) {
  switch (K) {
  case OpKind::Add:
  case OpKind::Sub:
  case OpKind::Mul:
  case OpKind::Div:
  case OpKind::Min:
  case OpKind::Max:
    return true;
  default:
    return false;
  }
}

bool isHalfLike(DType T) { return T == DType::Float16 || T == DType::BFloat16; }

/// "A << B": sums and differences in the operands are parenthesized
/// although C does not need it, as clang (hipcc) warns about them.
Expr shift(const Expr &A, StringRef Op, const Expr &B) {
  return {operand(A, PrecMultiplicative) + " " + Op.str() + " " +
              operand(B, PrecMultiplicative),
          PrecShift};
}

/// C promotes 8- and 16-bit integers to int, where `(uint8_t)1 << 8` is
/// 256; the IR's op wraps to its type, so narrow results are cast back.
bool isNarrowInteger(DType T) {
  return isInteger(T) && !isBool(T) && bitWidth(T) < 32;
}

/// Suffix of the float math functions: "f" for float, "" for double.
const char *mathSuffix(DType T) { return T == DType::Float64 ? "" : "f"; }

} // namespace

Expr ExprEmitter::binary(const Operation &Op) {
  DType T = Op.getResult()->getType().getDType();
  typeName(T, Op);
  bool Native =
      isHalfLike(T) && nativeOnHalf(Op.getKind()) &&
      (Dial.HalfMinMax || !(Op.is(OpKind::Min) || Op.is(OpKind::Max)));
  if (isNarrowFloat(T) && !Native)
    return binaryViaFloat(Op);
  Expr A = get(Op.getOperand(0)), B = get(Op.getOperand(1));
  if (isHalfLike(T) && Op.is(OpKind::Min))
    return call("__hmin", {A, B});
  if (isHalfLike(T) && Op.is(OpKind::Max))
    return call("__hmax", {A, B});
  Expr E = integerOrFloatBinary(Op, A, B, T);
  return isNarrowInteger(T) ? wrapToType(E, T, Op) : E;
}

Expr ExprEmitter::wrapToType(const Expr &E, DType T, const Operation &Op) {
  return {"(" + typeName(T, Op) + ")" + operand(E, PrecUnary), PrecUnary};
}

/// fp8 arithmetic, and half/bf16 ops without a native form: compute in
/// float and convert back.
Expr ExprEmitter::binaryViaFloat(const Operation &Op) {
  DType T = Op.getResult()->getType().getDType();
  Expr A = toFloat(get(Op.getOperand(0)), T);
  Expr B = toFloat(get(Op.getOperand(1)), T);
  return fromFloat(integerOrFloatBinary(Op, A, B, DType::Float32), T, Op);
}

/// A binary op on operands of C type \p T (an integer, bool, float, double,
/// or half/bf16 for the native + - * /).
Expr ExprEmitter::integerOrFloatBinary(const Operation &Op, const Expr &A,
                                       const Expr &B, DType T) {
  bool Float = isFloat(T), Bool = T == DType::Bool;
  if (WideIntegers && T == DType::Int32)
    if (std::optional<Expr> E = wideIntegerBinary(Op, A, B))
      return *E;
  bool Plain = !Float && isNonNegative(Op.getOperand(0)) &&
               isNonNegative(Op.getOperand(1));
  switch (Op.getKind()) {
  case OpKind::Add:
    return infix(A, "+", B, PrecAdditive);
  case OpKind::Sub:
    return infix(A, "-", B, PrecAdditive);
  case OpKind::Mul:
    return infix(A, "*", B, PrecMultiplicative);
  case OpKind::Div:
    // Under fast math a float quotient is a reciprocal approximation and a
    // multiply, as nvcc's --use_fast_math makes it: a row of quotients by
    // one divisor (attention's O / logsum) shares one reciprocal.
    if (FastMath && Device && T == DType::Float32)
      return call("__fdividef", {A, B});
    return infix(A, "/", B, PrecMultiplicative);
  case OpKind::FloorDiv:
    return Plain ? infix(A, "/", B, PrecMultiplicative)
                 : call("tilec::floordiv", {A, B});
  case OpKind::FloorMod:
    return Plain ? infix(A, "%", B, PrecMultiplicative)
                 : call("tilec::floormod", {A, B});
  case OpKind::Min:
    return call(Float ? fmt::format("fmin{}", mathSuffix(T)) : "min", {A, B});
  case OpKind::Max:
    return call(Float ? fmt::format("fmax{}", mathSuffix(T)) : "max", {A, B});
  case OpKind::Pow:
    return call(Float ? fmt::format("pow{}", mathSuffix(T)) : "tilec::ipow",
                {A, B});
  case OpKind::And:
    return Bool ? infix(A, "&&", B, PrecLAnd) : infix(A, "&", B, PrecBitAnd);
  case OpKind::Or:
    return Bool ? infix(A, "||", B, PrecLOr) : infix(A, "|", B, PrecBitOr);
  case OpKind::Xor:
    return Bool ? infix(A, "!=", B, PrecEquality)
                : infix(A, "^", B, PrecBitXor);
  case OpKind::Shl:
    return shift(A, "<<", B);
  case OpKind::Shr:
    return shift(A, ">>", B);
  default:
    llvm_unreachable("not a binary op");
  }
}

/// The i32 ops whose plain C form would not compute in int64_t when one
/// operand is an int literal: the templates of tilec_runtime.h would see
/// two types, min/max have no mixed overload, `1 << n` shifts an int.
std::optional<Expr> ExprEmitter::wideIntegerBinary(const Operation &Op,
                                                   const Expr &A,
                                                   const Expr &B) {
  bool Plain =
      isNonNegative(Op.getOperand(0)) && isNonNegative(Op.getOperand(1));
  switch (Op.getKind()) {
  case OpKind::FloorDiv:
    if (Plain)
      return std::nullopt;
    return call("tilec::floordiv<int64_t>", {A, B});
  case OpKind::FloorMod:
    if (Plain)
      return std::nullopt;
    return call("tilec::floormod<int64_t>", {A, B});
  case OpKind::Pow:
    return call("tilec::ipow<int64_t>", {A, B});
  case OpKind::Min:
  case OpKind::Max: {
    const char *Cmp = Op.is(OpKind::Min) ? " < " : " > ";
    return Expr{operand(A, PrecRelational + 1) + Cmp +
                    operand(B, PrecRelational + 1) + " ? " +
                    operand(A, PrecLOr) + " : " + operand(B, PrecLOr),
                PrecTernary};
  }
  case OpKind::Shl:
    if (llvm::StringRef(A.Text).startswith("(int64_t)"))
      return std::nullopt;
    return shift({"(int64_t)" + operand(A, PrecUnary), PrecUnary}, "<<", B);
  default:
    return std::nullopt;
  }
}

Expr ExprEmitter::unary(const Operation &Op) {
  DType T = Op.getResult()->getType().getDType();
  Expr A = get(Op.getOperand(0));
  if (Op.is(OpKind::Not) && T == DType::Bool)
    return {"!" + operand(A, PrecUnary), PrecUnary};
  if (isNarrowInteger(T))
    return wrapToType(
        {(Op.is(OpKind::Not) ? "~" : "-") + operand(A, PrecUnary), PrecUnary},
        T, Op);
  if (Op.is(OpKind::Not))
    return {"~" + operand(A, PrecUnary), PrecUnary};
  if (isNarrowFloat(T) && !isHalfLike(T))
    return fromFloat({"-" + operand(toFloat(A, T), PrecUnary), PrecUnary}, T,
                     Op);
  return {"-" + operand(A, PrecUnary), PrecUnary};
}

Expr ExprEmitter::compare(const Operation &Op) {
  DType T = Op.getOperand(0)->getType().getDType();
  typeName(T, Op);
  Expr A = get(Op.getOperand(0)), B = get(Op.getOperand(1));
  if (isNarrowFloat(T) && !isHalfLike(T)) {
    A = toFloat(A, T);
    B = toFloat(B, T);
  }
  StringRef Pred = *Op.getStringAttr("pred");
  auto [Sym, P] = llvm::StringSwitch<std::pair<const char *, int>>(Pred)
                      .Case("eq", {"==", PrecEquality})
                      .Case("ne", {"!=", PrecEquality})
                      .Case("lt", {"<", PrecRelational})
                      .Case("le", {"<=", PrecRelational})
                      .Case("gt", {">", PrecRelational})
                      .Default({">=", PrecRelational});
  return infix(A, Sym, B, P);
}

Expr ExprEmitter::select(const Operation &Op) {
  Expr C = get(Op.getOperand(0));
  Expr A = get(Op.getOperand(1)), B = get(Op.getOperand(2));
  return {operand(C, PrecLOr) + " ? " + operand(A, PrecLOr) + " : " +
              operand(B, PrecLOr),
          PrecTernary};
}

Expr ExprEmitter::cast(const Operation &Op) {
  return cast(get(Op.getOperand(0)), Op.getOperand(0)->getType().getDType(),
              Op.getResult()->getType().getDType(), Op);
}

/// Narrow floats convert through float; bool results compare with zero;
/// everything else is a C cast.
Expr ExprEmitter::cast(Expr E, DType From, DType To, const Operation &Ctx) {
  typeName(From, Ctx);
  if (From == To)
    return E;
  if (isPacked(From))
    return cast(fromPacked(E, From),
                From == DType::Float4E2M1 ? DType::Float32 : DType::Int32, To,
                Ctx);
  if (isPacked(To))
    return toPacked(E, From, To, Ctx);
  if (isNarrowFloat(From) || isNarrowFloat(To))
    return fromFloat(toFloat(E, From), To, Ctx);
  if (To == DType::Bool)
    return {operand(E, PrecEquality) + " != 0", PrecEquality};
  return {"(" + valueTypeName(To, Ctx) + ")" + operand(E, PrecUnary),
          PrecUnary};
}

/// Float math calls the libm-style CUDA function (expf, exp2f, rsqrtf...;
/// the double versions for f64); narrow floats compute in float.
Expr ExprEmitter::math(const Operation &Op) {
  DType T = Op.getResult()->getType().getDType();
  StringRef Fn = *Op.getStringAttr("fn");
  if (!isFloat(T) && !(Fn == "abs" && isInteger(T)))
    return fail(Op, diag::err_codegen_unsupported,
                fmt::format("T.{} on {}", Fn.str(), tileLangName(T)));
  bool Double = T == DType::Float64;
  std::vector<Expr> Args;
  for (Value *V : Op.getOperands())
    Args.push_back(isFloat(T) && !Double ? toFloat(get(V), T) : get(V));
  if (!isFloat(T))
    return call(T == DType::Int64 || WideIntegers ? "llabs" : "abs", Args);
  const char *Suffix = Double ? "" : "f";
  std::string One = Double ? "1.0" : "1.0f";
  Expr R;
  if (Fn == "sigmoid") {
    const char *FastExp = Double ? nullptr : fastMathFunction("exp");
    Expr Exp =
        call(FastExp ? std::string(FastExp) : fmt::format("exp{}", Suffix),
             {{"-" + operand(Args[0], PrecUnary), PrecUnary}});
    R = {One + " / (" + One + " + " + Exp.Text + ")", PrecMultiplicative};
  } else if (Fn == "rcp") {
    R = infix({One, PrecPostfix}, "/", Args[0], PrecMultiplicative);
  } else if (auto Fast = fastMathFunction(Fn); Fast && !Double) {
    R = call(Fast, Args);
  } else {
    std::string Name = Fn == "abs" ? "fabs" : Fn.str();
    R = call(Name + Suffix, Args);
  }
  return Double ? R : fromFloat(R, T, Op);
}

/// The float approximation of \p Fn under fast math, as nvcc's
/// --use_fast_math picks them (TileLang's tl.enable_fast_math); null when
/// the function keeps its precise version.
const char *ExprEmitter::fastMathFunction(StringRef Fn) const {
  if (!FastMath || !Device)
    return nullptr;
  return llvm::StringSwitch<const char *>(Fn)
      .Case("exp2", "tilec::fastExp2")
      .Case("exp", "__expf")
      .Case("log2", "__log2f")
      .Case("log", "__logf")
      .Default(nullptr);
}
