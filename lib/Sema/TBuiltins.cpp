//===- TBuiltins.cpp - T.* scalar math, conversions and limits ------------===//
//
// T.exp/T.log2/..., T.max/T.min, T.if_then_else, T.ceildiv, T.cast,
// T.infinity and friends. Compile-time operands fold (T.ceildiv(1024, 128)
// is the int 8); runtime operands emit `math`, `min`/`max`, `select`,
// `cast` and arithmetic ops.
//
//===----------------------------------------------------------------------===//

#include "Builtins.h"
#include "Interp.h"
#include "tilec/IR/Value.h"
#include <cmath>
#include <limits>

using namespace tilec;
using namespace tilec::sema;

static std::optional<double> foldMath(llvm::StringRef Fn, double X) {
  if (Fn == "exp")
    return std::exp(X);
  if (Fn == "exp2")
    return std::exp2(X);
  if (Fn == "exp10")
    return std::pow(10.0, X);
  if (Fn == "log")
    return std::log(X);
  if (Fn == "log2")
    return std::log2(X);
  if (Fn == "log10")
    return std::log10(X);
  if (Fn == "sqrt")
    return std::sqrt(X);
  if (Fn == "rsqrt")
    return 1.0 / std::sqrt(X);
  if (Fn == "sigmoid")
    return 1.0 / (1.0 + std::exp(-X));
  if (Fn == "tanh")
    return std::tanh(X);
  if (Fn == "sin")
    return std::sin(X);
  if (Fn == "cos")
    return std::cos(X);
  if (Fn == "floor")
    return std::floor(X);
  if (Fn == "ceil")
    return std::ceil(X);
  if (Fn == "round")
    return std::nearbyint(X);
  if (Fn == "trunc")
    return std::trunc(X);
  if (Fn == "erf")
    return std::erf(X);
  return std::nullopt;
}

/// A float operand for a math function (ints are converted to float32).
static ir::Value *floatOperand(Interp &I, const Value &V, llvm::SMRange R) {
  ir::Value *X = I.toRuntime(V, R);
  if (!X)
    return nullptr;
  DType T = X->getType().getDType();
  return isFloat(T) ? X : I.castTo(X, DType::Float32);
}

static Value notANumber(Interp &I, BoundArgs &A, unsigned K) {
  if (!A[K].isPoison())
    I.error(A.range(K), diag::err_type_mismatch)
        << "argument of " + A.name() << "a number" << typeName(A[K]);
  return Value::poison();
}

Value sema::tMath(Interp &I, BoundArgs &A) {
  llvm::StringRef Fn = A.Spec->Name;
  if (A[0].isNumber())
    return Value::real(*foldMath(Fn, A[0].getNumber()));
  if (!isRuntimeLike(A[0]))
    return notANumber(I, A, 0);
  ir::Value *X = floatOperand(I, A[0], A.range(0));
  return X ? Value::runtime(I.B.createMath(Fn, {X})) : Value::poison();
}

Value sema::tAbs(Interp &I, BoundArgs &A) {
  if (A[0].isFloat())
    return Value::real(std::fabs(A[0].getNumber()));
  if (A[0].isIntLike())
    return Value::integer(A[0].getInt() < 0 ? -A[0].getInt() : A[0].getInt());
  if (!isRuntimeLike(A[0]))
    return notANumber(I, A, 0);
  ir::Value *X = I.toRuntime(A[0], A.range(0));
  return X ? Value::runtime(I.B.createMath("abs", {X})) : Value::poison();
}

Value sema::tPow(Interp &I, BoundArgs &A) {
  if (A[0].isNumber() && A[1].isNumber())
    return Value::real(std::pow(A[0].getNumber(), A[1].getNumber()));
  auto P = I.promote(A[0], A[1], A.range(0), A.range(1), /*FloatOnly=*/true);
  if (!P)
    return Value::poison();
  return Value::runtime(I.B.createBinary(ir::OpKind::Pow, P->first, P->second));
}

static Value minMax(Interp &I, bool IsMax, const Value &L, const Value &R,
                    llvm::SMRange LR, llvm::SMRange RR) {
  if (L.isNumber() && R.isNumber()) {
    bool PickL =
        IsMax ? L.getNumber() >= R.getNumber() : L.getNumber() <= R.getNumber();
    return PickL ? L : R;
  }
  return runtimeExtremum(I, IsMax, L, R, LR, RR);
}

Value sema::tMinMax(Interp &I, BoundArgs &A) {
  return minMax(I, A.id() == BuiltinID::TMax, A[0], A[1], A.range(0),
                A.range(1));
}

Value sema::tClamp(Interp &I, BoundArgs &A) {
  Value Lo = minMax(I, false, A[0], A[2], A.range(0), A.range(2));
  if (Lo.isPoison())
    return Lo;
  return minMax(I, true, Lo, A[1], A.CallRange, A.range(1));
}

Value sema::tIfThenElse(Interp &I, BoundArgs &A) {
  if (!isRuntimeLike(A[0])) {
    auto C = I.truthy(A[0], A.range(0));
    if (!C)
      return Value::poison();
    return *C ? A[1] : A[2];
  }
  ir::Value *C = I.toRuntime(A[0], A.range(0));
  auto P = I.promote(A[1], A[2], A.range(1), A.range(2));
  if (!C || !P)
    return Value::poison();
  return Value::runtime(
      I.B.createSelect(I.toCondition(C), P->first, P->second));
}

Value sema::tCeilDiv(Interp &I, BoundArgs &A) {
  if (A[0].isIntLike() && A[1].isIntLike()) {
    int64_t X = A[0].getInt(), Y = A[1].getInt();
    if (Y == 0) {
      I.error(A.range(1), diag::err_division_by_zero);
      return Value::poison();
    }
    int64_t Q = X / Y;
    return Value::integer(Q + ((X % Y != 0) && ((X < 0) == (Y < 0)) ? 1 : 0));
  }
  // (a + b - 1) // b, keeping the affine form of a + (b - 1).
  Value BMinus1 = I.binary(ast::BinaryOp::Sub, A[1], Value::integer(1),
                           A.range(1), A.range(1), A.range(1));
  Value Sum = I.binary(ast::BinaryOp::Add, A[0], BMinus1, A.range(0),
                       A.range(1), A.CallRange);
  return I.binary(ast::BinaryOp::FloorDiv, Sum, A[1], A.CallRange, A.range(1),
                  A.CallRange);
}

Value sema::tFloorDivMod(Interp &I, BoundArgs &A) {
  ast::BinaryOp Op = A.id() == BuiltinID::TFloorMod ? ast::BinaryOp::Mod
                                                    : ast::BinaryOp::FloorDiv;
  if (A.id() == BuiltinID::TTruncDiv &&
      !(A[0].isIntLike() && A[1].isIntLike())) {
    auto P = I.promote(A[0], A[1], A.range(0), A.range(1));
    if (!P)
      return Value::poison();
    return Value::runtime(I.emitBinary(ir::OpKind::Div, P->first, P->second));
  }
  if (A.id() == BuiltinID::TTruncDiv) {
    if (A[1].getInt() == 0) {
      I.error(A.range(1), diag::err_division_by_zero);
      return Value::poison();
    }
    return Value::integer(A[0].getInt() / A[1].getInt());
  }
  return I.binary(Op, A[0], A[1], A.range(0), A.range(1), A.CallRange);
}

/// T.shift_left / shift_right / bitwise_and / bitwise_or / bitwise_xor:
/// TIR's spellings of `<< >> & | ^`, with the same typing.
Value sema::tBitwise(Interp &I, BoundArgs &A) {
  ast::BinaryOp Op;
  switch (A.id()) {
  case BuiltinID::TShiftLeft:
    Op = ast::BinaryOp::LShift;
    break;
  case BuiltinID::TShiftRight:
    Op = ast::BinaryOp::RShift;
    break;
  case BuiltinID::TBitwiseAnd:
    Op = ast::BinaryOp::BitAnd;
    break;
  case BuiltinID::TBitwiseOr:
    Op = ast::BinaryOp::BitOr;
    break;
  default:
    assert(A.id() == BuiltinID::TBitwiseXor && "not a bitwise builtin");
    Op = ast::BinaryOp::BitXor;
    break;
  }
  return I.binary(Op, A[0], A[1], A.range(0), A.range(1), A.CallRange);
}

/// A float constant of dtype T: an op inside a prim_func, a Python float
/// outside.
static Value typedFloat(Interp &I, double V, DType T) {
  if (!I.hasIR())
    return Value::real(V);
  return Value::runtime(I.B.createConstFloat(V, T));
}

Value sema::tInfinity(Interp &I, BoundArgs &A) {
  auto T = I.dtypeOf(A[0], A.range(0), "dtype");
  if (!T)
    return Value::poison();
  if (!isFloat(*T)) {
    I.error(A.range(0), diag::err_type_mismatch)
        << "T.infinity dtype"
        << "a float dtype" << tileLangName(*T).str();
    return Value::poison();
  }
  return typedFloat(I, std::numeric_limits<double>::infinity(), *T);
}

static double floatMax(DType T) {
  switch (T) {
  case DType::Float16:
    return 65504.0;
  case DType::BFloat16:
    return 3.3895313892515355e38;
  case DType::Float32:
    return std::numeric_limits<float>::max();
  case DType::Float8E4M3:
    return 448.0;
  case DType::Float8E5M2:
    return 57344.0;
  case DType::Float4E2M1:
    return 6.0;
  case DType::Float8E4M3FNUZ:
    return 240.0;
  case DType::Float8E5M2FNUZ:
    return 57344.0;
  default:
    return std::numeric_limits<double>::max();
  }
}

static std::pair<int64_t, int64_t> intRange(DType T) {
  unsigned Bits = bitWidth(T);
  if (T == DType::Bool)
    return {0, 1};
  if (!isSigned(T))
    return {0, Bits >= 64 ? std::numeric_limits<int64_t>::max()
                          : (int64_t(1) << Bits) - 1};
  if (Bits >= 64)
    return {std::numeric_limits<int64_t>::min(),
            std::numeric_limits<int64_t>::max()};
  return {-(int64_t(1) << (Bits - 1)), (int64_t(1) << (Bits - 1)) - 1};
}

Value sema::tLimitValue(Interp &I, BoundArgs &A) {
  auto T = I.dtypeOf(A[0], A.range(0), "dtype");
  if (!T)
    return Value::poison();
  bool IsMax = A.id() == BuiltinID::TMaxValue;
  if (isFloat(*T))
    return typedFloat(I, IsMax ? floatMax(*T) : -floatMax(*T), *T);
  auto [Lo, Hi] = intRange(*T);
  Value V = Value::integer(IsMax ? Hi : Lo);
  if (!I.hasIR())
    return V;
  return Value::runtime(I.constant(V, *T));
}

static Value castValue(Interp &I, const Value &V, llvm::SMRange VR,
                       const Value &DT, llvm::SMRange DR) {
  auto T = I.dtypeOf(DT, DR, "dtype");
  if (!T || V.isPoison())
    return Value::poison();
  if (V.isNumber() && !I.hasIR())
    return isFloat(*T) ? Value::real(V.getNumber())
                       : Value::integer(int64_t(V.getNumber()));
  ir::Value *X = I.toRuntimeAs(V, *T, VR);
  return X ? Value::runtime(X) : Value::poison();
}

Value sema::tCast(Interp &I, BoundArgs &A) {
  return castValue(I, A[0], A.range(0), A[1], A.range(1));
}

/// TVM's spelling, T.Cast(dtype, value).
Value sema::tCastTIR(Interp &I, BoundArgs &A) {
  return castValue(I, A[1], A.range(1), A[0], A.range(0));
}

Value sema::mAsType(Interp &I, BoundArgs &A) {
  return castValue(I, A.self(), A.CallRange, A[0], A.range(0));
}

/// T.prim_func / T.macro / tilelang.jit called as plain functions: the
/// decorated function comes back unchanged (decorators are read from the
/// syntax when a function is defined).
Value sema::tlDecorator(Interp &I, BoundArgs &A) {
  if (A[0].getAs<FunctionObj>())
    return A[0];
  return makeBuiltin(A.id());
}

/// Performance hints with no meaning for correctness (register allocation,
/// occupancy, L2 policy) are accepted and dropped.
Value sema::tHint(Interp &I, BoundArgs &A) { return Value::none(); }
