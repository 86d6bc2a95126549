//===- Arith.cpp - Operators on compile-time and runtime values -----------===//
//
// Compile-time operands fold with Python semantics (floor division and
// modulo, int/float mixing, int64 overflow is an error). Once an operand is
// a runtime value the operator becomes an IR op; operands are promoted the
// way TVM does: a Python number adopts the runtime operand's dtype (an f16
// element times 0.5 stays f16), int with float gives float, two floats or
// two ints give the wider one. Integer add/sub/mul results also get an
// affine form so slice extents like (bx + 1) * 64 - bx * 64 fold.
//
//===----------------------------------------------------------------------===//

#include "HostModel.h"
#include "Interp.h"
#include "tilec/IR/ConstantMatch.h"
#include "tilec/IR/Value.h"
#include <cmath>
#include <limits>

using namespace tilec;
using namespace tilec::sema;
using ast::BinaryOp;
using ast::CompareOp;
using ast::UnaryOp;

//===----------------------------------------------------------------------===//
// Compile-time folding
//===----------------------------------------------------------------------===//

static int64_t floorDiv(int64_t A, int64_t B) {
  int64_t Q = A / B;
  if ((A % B != 0) && ((A < 0) != (B < 0)))
    --Q;
  return Q;
}

static int64_t floorMod(int64_t A, int64_t B) {
  int64_t M = A % B;
  if (M != 0 && ((M < 0) != (B < 0)))
    M += B;
  return M;
}

static std::optional<int64_t> intPow(int64_t Base, int64_t Exp) {
  int64_t Result = 1;
  while (Exp > 0) {
    if ((Exp & 1) && __builtin_mul_overflow(Result, Base, &Result))
      return std::nullopt;
    Exp >>= 1;
    if (Exp > 0 && __builtin_mul_overflow(Base, Base, &Base))
      return std::nullopt;
  }
  return Result;
}

namespace {
/// Folds int (or bool) operands; nullopt result with Err set on failure.
struct IntFolder {
  Interp &I;
  llvm::SMRange Whole, RR;

  Value overflow() {
    I.error(Whole, diag::err_int_overflow);
    return Value::poison();
  }
  Value divZero() {
    I.error(RR, diag::err_division_by_zero);
    return Value::poison();
  }

  Value fold(BinaryOp Op, int64_t A, int64_t B, bool BothBool) {
    int64_t R = 0;
    switch (Op) {
    case BinaryOp::Add:
      return __builtin_add_overflow(A, B, &R) ? overflow() : Value::integer(R);
    case BinaryOp::Sub:
      return __builtin_sub_overflow(A, B, &R) ? overflow() : Value::integer(R);
    case BinaryOp::Mul:
      return __builtin_mul_overflow(A, B, &R) ? overflow() : Value::integer(R);
    case BinaryOp::Div:
      return B == 0 ? divZero() : Value::real(double(A) / double(B));
    case BinaryOp::FloorDiv:
      if (B == 0)
        return divZero();
      if (A == std::numeric_limits<int64_t>::min() && B == -1)
        return overflow();
      return Value::integer(floorDiv(A, B));
    case BinaryOp::Mod:
      if (B == 0)
        return divZero();
      return Value::integer(B == -1 ? 0 : floorMod(A, B));
    case BinaryOp::Pow:
      return pow(A, B);
    case BinaryOp::LShift:
    case BinaryOp::RShift:
      return shift(Op, A, B);
    case BinaryOp::BitAnd:
      return BothBool ? Value::boolean(A & B) : Value::integer(A & B);
    case BinaryOp::BitOr:
      return BothBool ? Value::boolean(A | B) : Value::integer(A | B);
    case BinaryOp::BitXor:
      return BothBool ? Value::boolean(A ^ B) : Value::integer(A ^ B);
    case BinaryOp::MatMul:
      break;
    }
    return Value::poison();
  }

  Value pow(int64_t A, int64_t B) {
    if (B < 0) {
      if (A == 0)
        return divZero();
      return Value::real(std::pow(double(A), double(B)));
    }
    auto R = intPow(A, B);
    return R ? Value::integer(*R) : overflow();
  }

  Value shift(BinaryOp Op, int64_t A, int64_t B) {
    if (B < 0) {
      I.error(RR, diag::err_non_positive_extent) << "shift count" << B;
      return Value::poison();
    }
    if (Op == BinaryOp::RShift)
      return Value::integer(B >= 64 ? (A < 0 ? -1 : 0) : A >> B);
    if (A == 0)
      return Value::integer(0);
    if (B >= 63 || (A > 0 ? A > (std::numeric_limits<int64_t>::max() >> B)
                          : A < (std::numeric_limits<int64_t>::min() >> B)))
      return overflow();
    return Value::integer(A * (int64_t(1) << B));
  }
};
} // namespace

static Value foldFloat(Interp &I, BinaryOp Op, double A, double B,
                       llvm::SMRange RR) {
  auto DivZero = [&] {
    I.error(RR, diag::err_division_by_zero);
    return Value::poison();
  };
  switch (Op) {
  case BinaryOp::Add:
    return Value::real(A + B);
  case BinaryOp::Sub:
    return Value::real(A - B);
  case BinaryOp::Mul:
    return Value::real(A * B);
  case BinaryOp::Div:
    return B == 0 ? DivZero() : Value::real(A / B);
  case BinaryOp::FloorDiv:
    return B == 0 ? DivZero() : Value::real(std::floor(A / B));
  case BinaryOp::Mod: {
    if (B == 0)
      return DivZero();
    double M = std::fmod(A, B);
    return Value::real(M != 0 && ((M < 0) != (B < 0)) ? M + B : M);
  }
  case BinaryOp::Pow:
    if (A == 0 && B < 0)
      return DivZero();
    return Value::real(std::pow(A, B));
  default:
    return Value::poison();
  }
}

static Value repeatSequence(const Value &Seq, int64_t N) {
  if (Seq.isStr()) {
    std::string S;
    for (int64_t K = 0; K < N && S.size() < (1u << 20); ++K)
      S += Seq.getStr();
    return Value::str(S);
  }
  std::vector<Value> Out;
  for (int64_t K = 0; K < N && Out.size() < (1u << 20); ++K)
    Out.insert(Out.end(), Seq.elts().begin(), Seq.elts().end());
  return Seq.isTuple() ? Value::tuple(Out) : Value::list(Out);
}

/// str/tuple/list + and * ; poison when the operands do not fit.
static Value foldSequence(BinaryOp Op, const Value &L, const Value &R) {
  if (Op == BinaryOp::Add && L.isStr() && R.isStr())
    return Value::str(L.getStr() + R.getStr());
  if (Op == BinaryOp::Add && L.kind() == R.kind() && L.isSequence()) {
    std::vector<Value> Out = L.elts();
    Out.insert(Out.end(), R.elts().begin(), R.elts().end());
    return L.isTuple() ? Value::tuple(Out) : Value::list(Out);
  }
  if (Op == BinaryOp::Mul && (L.isSequence() || L.isStr()) && R.isIntLike())
    return repeatSequence(L, R.getInt());
  if (Op == BinaryOp::Mul && (R.isSequence() || R.isStr()) && L.isIntLike())
    return repeatSequence(R, L.getInt());
  if (Op == BinaryOp::Mod && L.isStr())
    return Value::str(L.getStr());
  return Value::poison();
}

//===----------------------------------------------------------------------===//
// Runtime values
//===----------------------------------------------------------------------===//

/// A whole (non-var) buffer used as a scalar operand: reports it.
static bool isWholeBuffer(Interp &I, const Value &V, llvm::SMRange R) {
  auto *Buf = V.getAs<BufferObj>();
  if (!Buf || Buf->isVar())
    return false;
  I.error(R, diag::err_not_a_scalar) << "'" + Buf->Name + "'";
  return true;
}

ir::Value *Interp::constant(const Value &V, DType T) {
  if (T == DType::Bool)
    return B.createConstBool(V.getNumber() != 0);
  if (isFloat(T))
    return B.createConstFloat(V.getNumber(), T);
  int64_t I = V.isFloat() ? int64_t(V.getNumber()) : V.getInt();
  ir::Value *C = B.createConstInt(I, T);
  return C;
}

static ir::Value *loadRef(Interp &I, BufferRefObj &Ref, llvm::SMRange R) {
  if (Ref.hasSlice()) {
    I.error(R, diag::err_type_mismatch) << "'" + exprText(R) + "'"
                                        << "a scalar"
                                        << "buffer region";
    return nullptr;
  }
  std::vector<ir::Value *> Idx;
  for (IndexItem &Item : Ref.Indices) {
    ir::Value *V = I.toIndex(Item.Index, Item.Range);
    if (!V)
      return nullptr;
    Idx.push_back(V);
  }
  return I.B.createLoad(Ref.Buf->IR, Idx);
}

static ir::Value *symbolValue(Interp &I, const SymbolObj &S, llvm::SMRange R) {
  auto It = I.CurFunc->SymbolArgs.find(&S);
  if (It != I.CurFunc->SymbolArgs.end())
    return It->second;
  I.error(R, diag::err_unbound_symbol) << S.Name;
  return nullptr;
}

ir::Value *Interp::toRuntime(const Value &V, llvm::SMRange R) {
  if (V.isRuntime())
    return V.getRuntime();
  if (V.isPoison())
    return nullptr;
  if (!hasIR()) {
    if (isSymbolic(V))
      reportNeedsValue(V, R);
    else if (!Aborting)
      reportNotCompileTime(V, R, "this expression");
    return nullptr;
  }
  if (V.isIntLike() && !V.isBool())
    return constant(V, V.getInt() == int32_t(V.getInt()) ? DType::Int32
                                                         : DType::Int64);
  if (V.isBool())
    return B.createConstBool(V.getBool());
  if (V.isFloat())
    return B.createConstFloat(V.getNumber(), DType::Float32);
  if (auto *Ref = V.getAs<BufferRefObj>())
    return loadRef(*this, *Ref, R);
  if (auto *Buf = V.getAs<BufferObj>()) {
    if (Buf->isVar())
      return B.createLoad(Buf->IR, {B.createConstInt(0)});
    error(R, diag::err_not_a_scalar) << "'" + Buf->Name + "'";
    return nullptr;
  }
  if (auto *S = V.getAs<SymbolObj>())
    return symbolValue(*this, *S, R);
  if (auto *E = V.getAs<SymExprObj>())
    return toRuntime(replay(*E), R);
  if (V.getAs<OpaqueObj>()) {
    reportHostValue(V, R);
    return nullptr;
  }
  error(R, diag::err_type_mismatch) << "'" + exprText(R) + "'"
                                    << "a number" << typeName(V);
  return nullptr;
}

ir::Value *Interp::castTo(ir::Value *V, DType T) {
  if (V->getType().getDType() == T)
    return V;
  return B.createCast(V, T);
}

ir::Value *Interp::toRuntimeAs(const Value &V, DType T, llvm::SMRange R) {
  if (V.isNumber() && hasIR())
    return constant(V, T);
  ir::Value *RV = toRuntime(V, R);
  return RV ? castTo(RV, T) : nullptr;
}

ir::Value *Interp::toIndex(const Value &V, llvm::SMRange R) {
  if (V.isFloat() ||
      (V.isRuntime() && isFloat(V.getRuntime()->getType().getDType()))) {
    error(R, diag::err_type_mismatch) << "index"
                                      << "an integer" << typeName(V);
    return nullptr;
  }
  // The cast to i32 below would wrap it (a loop of 1 << 32 iterations
  // would run none).
  if (V.isIntLike() && V.getInt() != int32_t(V.getInt())) {
    error(R, diag::err_index_overflow) << V.getInt();
    return nullptr;
  }
  ir::Value *RV = toRuntime(V, R);
  if (!RV)
    return nullptr;
  if (isFloat(RV->getType().getDType())) {
    error(R, diag::err_type_mismatch)
        << "index"
        << "an integer" << typeName(Value::runtime(RV));
    return nullptr;
  }
  return castTo(RV, DType::Int32);
}

ir::Value *Interp::toCondition(ir::Value *V) {
  DType T = V->getType().getDType();
  if (T == DType::Bool)
    return V;
  ir::Value *Zero =
      isFloat(T) ? B.createConstFloat(0, T) : B.createConstInt(0, T);
  return B.createCmp(ir::CmpPred::Ne, V, Zero);
}

/// The common dtype of two runtime operands.
static DType promotedDType(DType A, DType B) {
  if (A == B)
    return A;
  if (isFloat(A) && isFloat(B)) {
    if (bitWidth(A) == bitWidth(B))
      return DType::Float32;
    return bitWidth(A) > bitWidth(B) ? A : B;
  }
  if (isFloat(A) != isFloat(B))
    return isFloat(A) ? A : B;
  if (A == DType::Bool || B == DType::Bool)
    return A == DType::Bool ? B : A;
  if (bitWidth(A) != bitWidth(B))
    return bitWidth(A) > bitWidth(B) ? A : B;
  return isSigned(A) ? A : B;
}

/// The dtype a Python number takes next to a runtime value of dtype T.
static DType weakDType(const Value &Num, DType T) {
  if (Num.isFloat())
    return isFloat(T) ? T : DType::Float32;
  if (T == DType::Bool)
    return Num.isBool() ? DType::Bool : DType::Int32;
  return T;
}

std::optional<std::pair<ir::Value *, ir::Value *>>
Interp::promote(const Value &L, const Value &R, llvm::SMRange LR,
                llvm::SMRange RR, bool FloatOnly) {
  if (L.isNumber() && !R.isNumber()) {
    auto P = promote(R, L, RR, LR, FloatOnly);
    if (!P)
      return std::nullopt;
    return std::make_pair(P->second, P->first);
  }
  ir::Value *A = toRuntime(L, LR);
  if (!A)
    return std::nullopt;
  DType TA = A->getType().getDType();
  if (R.isNumber()) {
    DType T = weakDType(R, TA);
    if (FloatOnly && !isFloat(T))
      T = DType::Float32;
    return std::make_pair(castTo(A, T), constant(R, T));
  }
  ir::Value *Bv = toRuntime(R, RR);
  if (!Bv)
    return std::nullopt;
  DType T = promotedDType(TA, Bv->getType().getDType());
  if (FloatOnly && !isFloat(T))
    T = DType::Float32;
  return std::make_pair(castTo(A, T), castTo(Bv, T));
}

ir::Value *Interp::emitBinary(ir::OpKind K, ir::Value *A, ir::Value *Bv) {
  ir::Value *R = B.createBinary(K, A, Bv);
  recordAffine(R, K, A, Bv);
  return R;
}

static std::optional<ir::OpKind> runtimeOpKind(BinaryOp Op) {
  switch (Op) {
  case BinaryOp::Add:
    return ir::OpKind::Add;
  case BinaryOp::Sub:
    return ir::OpKind::Sub;
  case BinaryOp::Mul:
    return ir::OpKind::Mul;
  case BinaryOp::Div:
    return ir::OpKind::Div;
  case BinaryOp::FloorDiv:
    return ir::OpKind::FloorDiv;
  case BinaryOp::Mod:
    return ir::OpKind::FloorMod;
  case BinaryOp::Pow:
    return ir::OpKind::Pow;
  case BinaryOp::LShift:
    return ir::OpKind::Shl;
  case BinaryOp::RShift:
    return ir::OpKind::Shr;
  case BinaryOp::BitAnd:
    return ir::OpKind::And;
  case BinaryOp::BitOr:
    return ir::OpKind::Or;
  case BinaryOp::BitXor:
    return ir::OpKind::Xor;
  case BinaryOp::MatMul:
    break;
  }
  return std::nullopt;
}

static bool isBitwise(BinaryOp Op) {
  return Op == BinaryOp::LShift || Op == BinaryOp::RShift ||
         Op == BinaryOp::BitAnd || Op == BinaryOp::BitOr ||
         Op == BinaryOp::BitXor;
}

static Value badOperands(Interp &I, BinaryOp Op, const Value &L, const Value &R,
                         llvm::SMRange Whole) {
  I.error(Whole, diag::err_bad_operand_types)
      << ast::spelling(Op) << typeName(L) << typeName(R);
  return Value::poison();
}

static Value runtimeBinary(Interp &I, BinaryOp Op, const Value &L,
                           const Value &R, llvm::SMRange LR, llvm::SMRange RR,
                           llvm::SMRange Whole) {
  auto K = runtimeOpKind(Op);
  if (!K)
    return badOperands(I, Op, L, R, Whole);
  auto P = I.promote(L, R, LR, RR, Op == BinaryOp::Pow);
  if (!P)
    return Value::poison();
  if (isBitwise(Op) && isFloat(P->first->getType().getDType()))
    return badOperands(I, Op, L, R, Whole);
  return Value::runtime(I.emitBinary(*K, P->first, P->second));
}

Value Interp::binary(BinaryOp Op, const Value &L, const Value &R,
                     llvm::SMRange LR, llvm::SMRange RR, llvm::SMRange Whole) {
  if (L.isPoison() || R.isPoison())
    return Value::poison();
  if (L.getAs<OpaqueObj>() || R.getAs<OpaqueObj>()) {
    if (auto T = hostDataBinary(Op, L, R, Whole))
      return *T;
    if (auto T = hostElementwise(L, R, Op == BinaryOp::MatMul, false, Whole))
      return *T;
    return Value::object(std::make_shared<OpaqueObj>(exprText(Whole)));
  }
  if (auto D = deferSymbolic({L, R},
                             symbolicInfix(L, ast::spelling(Op), R, symPrec(Op),
                                           Op == BinaryOp::Pow),
                             symPrec(Op),
                             [=](Interp &I, const std::vector<Value> &V) {
                               return I.binary(Op, V[0], V[1], LR, RR, Whole);
                             }))
    return *D;
  if (isWholeBuffer(*this, L, LR) || isWholeBuffer(*this, R, RR))
    return Value::poison();
  if (L.isIntLike() && R.isIntLike())
    return IntFolder{*this, Whole, RR}.fold(Op, L.getInt(), R.getInt(),
                                            L.isBool() && R.isBool());
  if (L.isNumber() && R.isNumber()) {
    Value V = foldFloat(*this, Op, L.getNumber(), R.getNumber(), RR);
    if (V.isPoison() && !isBitwise(Op) && Op != BinaryOp::MatMul)
      return V;
    return V.isPoison() ? badOperands(*this, Op, L, R, Whole) : V;
  }
  if ((isRuntimeLike(L) || L.isNumber()) && (isRuntimeLike(R) || R.isNumber()))
    return runtimeBinary(*this, Op, L, R, LR, RR, Whole);
  Value S = foldSequence(Op, L, R);
  return S.isPoison() ? badOperands(*this, Op, L, R, Whole) : S;
}

//===----------------------------------------------------------------------===//
// Comparisons and unary operators
//===----------------------------------------------------------------------===//

static ir::CmpPred cmpPred(CompareOp Op) {
  switch (Op) {
  case CompareOp::Eq:
    return ir::CmpPred::Eq;
  case CompareOp::NotEq:
    return ir::CmpPred::Ne;
  case CompareOp::Lt:
    return ir::CmpPred::Lt;
  case CompareOp::LtE:
    return ir::CmpPred::Le;
  case CompareOp::Gt:
    return ir::CmpPred::Gt;
  default:
    return ir::CmpPred::Ge;
  }
}

static std::optional<bool> orderResult(CompareOp Op, int C) {
  switch (Op) {
  case CompareOp::Lt:
    return C < 0;
  case CompareOp::LtE:
    return C <= 0;
  case CompareOp::Gt:
    return C > 0;
  case CompareOp::GtE:
    return C >= 0;
  default:
    return std::nullopt;
  }
}

static std::optional<bool> membership(Interp &I, const Value &L, const Value &R,
                                      llvm::SMRange RR) {
  if (R.isStr() && L.isStr())
    return R.getStr().find(L.getStr()) != std::string::npos;
  auto Items = I.iterate(R, RR);
  if (!Items)
    return std::nullopt;
  for (const Value &V : *Items)
    if (equals(V, L))
      return true;
  return false;
}

/// Compile-time comparison; nullopt when the operands are not comparable.
static std::optional<bool> foldCompare(Interp &I, CompareOp Op, const Value &L,
                                       const Value &R, llvm::SMRange RR) {
  switch (Op) {
  case CompareOp::Eq:
    return equals(L, R);
  case CompareOp::NotEq:
    return !equals(L, R);
  case CompareOp::Is:
    return equals(L, R) && L.kind() == R.kind();
  case CompareOp::IsNot:
    return !(equals(L, R) && L.kind() == R.kind());
  case CompareOp::In:
  case CompareOp::NotIn: {
    auto M = membership(I, L, R, RR);
    if (!M)
      return std::nullopt;
    return Op == CompareOp::In ? *M : !*M;
  }
  default:
    break;
  }
  if (L.isNumber() && R.isNumber()) {
    double A = L.getNumber(), B = R.getNumber();
    if (!L.isFloat() && !R.isFloat())
      return orderResult(Op, L.getInt() < R.getInt()   ? -1
                             : L.getInt() > R.getInt() ? 1
                                                       : 0);
    return orderResult(Op, A < B ? -1 : A > B ? 1 : 0);
  }
  if (L.isStr() && R.isStr())
    return orderResult(Op, L.getStr().compare(R.getStr()));
  return std::nullopt;
}

/// `x is None` / `x is not None` for a modelled host object x (a torch
/// tensor, an argparse namespace, ...): such an object is never None. An
/// unmodelled host value (the result of an unknown call) may be.
static std::optional<bool> modelledIsNone(CompareOp Op, const Value &L,
                                          const Value &R) {
  if ((Op != CompareOp::Is && Op != CompareOp::IsNot) ||
      (!L.isNone() && !R.isNone()))
    return std::nullopt;
  auto *O = (L.isNone() ? R : L).getAs<OpaqueObj>();
  if (!O || !O->Model)
    return std::nullopt;
  return Op == CompareOp::IsNot;
}

Value Interp::compare(CompareOp Op, const Value &L, const Value &R,
                      llvm::SMRange LR, llvm::SMRange RR, llvm::SMRange Whole) {
  if (L.isPoison() || R.isPoison())
    return Value::poison();
  if (auto IsNone = modelledIsNone(Op, L, R))
    return Value::boolean(*IsNone);
  bool Ordered = Op != CompareOp::Is && Op != CompareOp::IsNot &&
                 Op != CompareOp::In && Op != CompareOp::NotIn;
  if (L.getAs<OpaqueObj>() || R.getAs<OpaqueObj>()) {
    if (auto T =
            Ordered ? hostElementwise(L, R, false, true, Whole) : std::nullopt)
      return *T;
    return Value::object(std::make_shared<OpaqueObj>(exprText(Whole)));
  }
  if (Ordered && (isWholeBuffer(*this, L, LR) || isWholeBuffer(*this, R, RR)))
    return Value::poison();
  // Comparisons chain in Python: both operands bind tighter.
  if (auto D = Ordered ? deferSymbolic(
                             {L, R},
                             symbolicText(L, SymPrec::Compare + 1) + " " +
                                 ast::spelling(Op).str() + " " +
                                 symbolicText(R, SymPrec::Compare + 1),
                             SymPrec::Compare,
                             [=](Interp &I, const std::vector<Value> &V) {
                               return I.compare(Op, V[0], V[1], LR, RR, Whole);
                             })
                       : std::nullopt)
    return *D;
  bool Runtime = isRuntimeLike(L) || isRuntimeLike(R);
  if (Runtime && Ordered && (isRuntimeLike(L) || L.isNumber()) &&
      (isRuntimeLike(R) || R.isNumber())) {
    auto P = promote(L, R, LR, RR);
    if (!P)
      return Value::poison();
    return Value::runtime(B.createCmp(cmpPred(Op), P->first, P->second));
  }
  if (Runtime && (Op == CompareOp::Is || Op == CompareOp::IsNot))
    return Value::boolean(Op == CompareOp::IsNot);
  if (Runtime && isRuntimeLike(L) && !Ordered) {
    reportNotCompileTime(L, LR,
                         "the operand of '" + ast::spelling(Op).str() + "'");
    return Value::poison();
  }
  auto C = foldCompare(*this, Op, L, R, RR);
  if (C)
    return Value::boolean(*C);
  if (!Aborting)
    error(Whole, diag::err_bad_operand_types)
        << ast::spelling(Op) << typeName(L) << typeName(R);
  return Value::poison();
}

static Value foldUnary(Interp &I, UnaryOp Op, const Value &V, llvm::SMRange R,
                       llvm::SMRange Whole) {
  switch (Op) {
  case UnaryOp::Not: {
    auto T = I.truthy(V, R);
    return T ? Value::boolean(!*T) : Value::poison();
  }
  case UnaryOp::Pos:
    if (V.isNumber())
      return V.isBool() ? Value::integer(V.getInt()) : V;
    break;
  case UnaryOp::Neg:
    if (V.isFloat())
      return Value::real(-V.getNumber());
    if (V.isIntLike()) {
      if (V.getInt() == std::numeric_limits<int64_t>::min()) {
        I.error(Whole, diag::err_int_overflow);
        return Value::poison();
      }
      return Value::integer(-V.getInt());
    }
    break;
  case UnaryOp::Invert:
    if (V.isIntLike())
      return Value::integer(~V.getInt());
    break;
  }
  I.error(Whole, diag::err_bad_operand_types)
      << ast::spelling(Op) << typeName(V) << "nothing";
  return Value::poison();
}

Value Interp::unary(UnaryOp Op, const Value &V, llvm::SMRange R,
                    llvm::SMRange Whole) {
  if (V.isPoison())
    return V;
  if (V.getAs<OpaqueObj>()) {
    if (auto T = Op != UnaryOp::Not ? hostElementwise(V, Value::integer(0),
                                                      false, false, Whole)
                                    : std::nullopt)
      return *T;
    return Value::object(std::make_shared<OpaqueObj>(exprText(Whole)));
  }
  if (Op != UnaryOp::Not && isWholeBuffer(*this, V, R))
    return Value::poison();
  bool Not = Op == UnaryOp::Not;
  int Prec = Not ? SymPrec::Not : SymPrec::Unary;
  if (auto D = deferSymbolic({V},
                             ast::spelling(Op).str() + (Not ? " " : "") +
                                 symbolicText(V, Prec),
                             Prec, [=](Interp &I, const std::vector<Value> &X) {
                               return I.unary(Op, X[0], R, Whole);
                             }))
    return *D;
  if (!isRuntimeLike(V))
    return foldUnary(*this, Op, V, R, Whole);
  ir::Value *X = toRuntime(V, R);
  if (!X)
    return Value::poison();
  DType T = X->getType().getDType();
  switch (Op) {
  case UnaryOp::Pos:
    return Value::runtime(X);
  case UnaryOp::Neg:
    return Value::runtime(B.createUnary(ir::OpKind::Neg, X));
  case UnaryOp::Not:
    return Value::runtime(B.createUnary(ir::OpKind::Not, toCondition(X)));
  case UnaryOp::Invert:
    if (isFloat(T))
      break;
    return Value::runtime(
        B.createBinary(ir::OpKind::Xor, X, constant(Value::integer(-1), T)));
  }
  error(Whole, diag::err_bad_operand_types)
      << ast::spelling(Op) << typeName(V) << "nothing";
  return Value::poison();
}

//===----------------------------------------------------------------------===//
// Affine forms
//===----------------------------------------------------------------------===//

void Interp::forgetAffines(ir::Block &Scratch) {
  for (ir::Value *Arg : Scratch.getArguments())
    Affines.erase(Arg);
  for (ir::Operation &Op : Scratch)
    Op.walk([&](ir::Operation &Inner) {
      for (unsigned R = 0; R != Inner.getNumResults(); ++R)
        Affines.erase(Inner.getResult(R));
    });
}

std::optional<Affine> Interp::affineOf(ir::Value *V) {
  auto It = Affines.find(V);
  if (It != Affines.end())
    return It->second;
  if (!V->getType().isInteger())
    return std::nullopt;
  Affine A;
  ir::Operation *Def = V->getDefiningOp();
  if (Def && Def->is(ir::OpKind::Const)) {
    if (auto C = Def->getIntAttr("value")) {
      A.Const = *C;
      return A;
    }
  }
  A.Terms.push_back({V, 1});
  return A;
}

static std::optional<Affine> combine(const Affine &A, const Affine &B,
                                     int64_t Scale) {
  Affine R = A;
  if (__builtin_mul_overflow(B.Const, Scale, &R.Const) ||
      __builtin_add_overflow(R.Const, A.Const, &R.Const))
    return std::nullopt;
  for (const auto &Term : B.Terms) {
    int64_t Add;
    if (__builtin_mul_overflow(Term.second, Scale, &Add))
      return std::nullopt;
    auto It = llvm::find_if(
        R.Terms, [&](const auto &T) { return T.first == Term.first; });
    if (It == R.Terms.end())
      R.Terms.push_back({Term.first, Add});
    else if (__builtin_add_overflow(It->second, Add, &It->second))
      return std::nullopt;
  }
  llvm::erase_if(R.Terms, [](auto &T) { return T.second == 0; });
  return R;
}

static std::optional<Affine> scale(const Affine &A, int64_t K) {
  Affine Zero;
  return combine(Zero, A, K);
}

void Interp::recordAffine(ir::Value *Result, ir::OpKind K, ir::Value *A,
                          ir::Value *Bv) {
  if (!Result->getType().isInteger())
    return;
  auto FA = affineOf(A), FB = affineOf(Bv);
  if (!FA || !FB)
    return;
  std::optional<Affine> R;
  if (K == ir::OpKind::Add)
    R = combine(*FA, *FB, 1);
  else if (K == ir::OpKind::Sub)
    R = combine(*FA, *FB, -1);
  else if (K == ir::OpKind::Mul && FB->Terms.empty())
    R = scale(*FA, FB->Const);
  else if (K == ir::OpKind::Mul && FA->Terms.empty())
    R = scale(*FB, FA->Const);
  if (R && R->Terms.size() <= 8)
    Affines[Result] = *R;
}

/// True when \p Op may change the contents of \p Buf: it names the buffer
/// other than by loading it, or holds nested code.
static bool mayWrite(const ir::Operation &Op, const ir::Value *Buf) {
  if (Op.getNumRegions() != 0)
    return true;
  return !Op.is(ir::OpKind::Load) && llvm::is_contained(Op.getOperands(), Buf);
}

/// True when two load indices are the same value or equal constants.
static bool sameIndex(const ir::Value *A, const ir::Value *B) {
  if (A == B)
    return true;
  auto CA = ir::matchConstantInt(A), CB = ir::matchConstantInt(B);
  return CA && CB && *CA == *CB;
}

/// True when \p A and \p B are loads of the same element of a T.alloc_var
/// scalar in one block with no write to it in between: they read the same
/// value. Only per-thread vars qualify (no other thread writes them).
static bool sameVarLoad(ir::Value *A, ir::Value *B) {
  ir::Operation *LA = A->getDefiningOp(), *LB = B->getDefiningOp();
  if (!LA || !LB || !LA->is(ir::OpKind::Load) || !LB->is(ir::OpKind::Load) ||
      LA->getParentBlock() != LB->getParentBlock() ||
      LA->getOperand(0) != LB->getOperand(0) ||
      LA->getNumOperands() != LB->getNumOperands())
    return false;
  for (unsigned K = 1; K < LA->getNumOperands(); ++K)
    if (!sameIndex(LA->getOperand(K), LB->getOperand(K)))
      return false;
  ir::Value *Buf = LA->getOperand(0);
  if (Buf->getType().getScope() != ir::Scope::Var)
    return false;
  for (int Pass = 0; Pass != 2; ++Pass, std::swap(LA, LB))
    for (ir::Operation *Op = LA->getNextNode(); Op; Op = Op->getNextNode()) {
      if (Op == LB)
        return true;
      if (mayWrite(*Op, Buf))
        break;
    }
  return false;
}

/// Cancels one pair of terms c * a and -c * b of \p D where a and b load
/// the same var value (`v + 8 - v` with two reads of `v`); false when none.
static bool cancelEqualLoads(Affine &D) {
  for (size_t I = 0; I < D.Terms.size(); ++I)
    for (size_t J = I + 1; J < D.Terms.size(); ++J) {
      if (D.Terms[I].second != -D.Terms[J].second ||
          !sameVarLoad(D.Terms[I].first, D.Terms[J].first))
        continue;
      D.Terms.erase(D.Terms.begin() + J);
      D.Terms.erase(D.Terms.begin() + I);
      return true;
    }
  return false;
}

std::optional<int64_t> Interp::constDifference(ir::Value *Hi, ir::Value *Lo) {
  auto FH = affineOf(Hi), FL = affineOf(Lo);
  if (!FH || !FL)
    return std::nullopt;
  auto D = combine(*FH, *FL, -1);
  while (D && cancelEqualLoads(*D))
    ;
  if (!D || !D->Terms.empty())
    return std::nullopt;
  return D->Const;
}
