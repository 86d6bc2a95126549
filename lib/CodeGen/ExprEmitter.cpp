//===- ExprEmitter.cpp - Scalar IR ops as C expressions -------------------===//

#include "ExprEmitter.h"
#include "tilec/IR/ConstantMatch.h"
#include "tilec/IR/IndexAtoms.h"
#include "llvm/ADT/StringSwitch.h"
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fmt/format.h>

using namespace tilec;
using namespace tilec::codegen;
using namespace tilec::ir;
using llvm::StringRef;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

const char *codegen::cTypeOf(DType T, const Dialect &D) {
  switch (T) {
  case DType::Bool:
    return "bool";
  case DType::Int8:
    return "int8_t";
  case DType::Int16:
    return "int16_t";
  case DType::Int32:
    return "int";
  case DType::Int64:
    return "int64_t";
  case DType::UInt8:
    return "uint8_t";
  case DType::UInt16:
    return "uint16_t";
  case DType::UInt32:
    return "uint32_t";
  case DType::UInt64:
    return "uint64_t";
  case DType::Float16:
    return "half";
  case DType::BFloat16:
    return D.BFloat16Type;
  case DType::Float32:
    return "float";
  case DType::Float64:
    return "double";
  case DType::Float8E4M3:
    return D.Float8E4M3Type;
  case DType::Float8E5M2:
    return D.Float8E5M2Type;
  case DType::Float8E4M3FNUZ:
  case DType::Float8E5M2FNUZ:
    // No toolchain has them: the runtime header's software conversions.
    return cTypeName(T).data();
  case DType::Int4:
  case DType::UInt4:
  case DType::Float4E2M1:
    return "uint8_t";
  }
  return nullptr;
}

bool codegen::isPacked(DType T) { return bitWidth(T) == 4; }

bool codegen::isPackedBuffer(const Type &T) {
  return T.getScope() != Scope::Var && isPacked(T.getDType());
}

bool codegen::isNarrowFloat(DType T) {
  return T == DType::Float16 || T == DType::BFloat16 || isFloat8(T);
}

std::string codegen::operand(const Expr &E, int Min) {
  return E.P >= Min ? E.Text : "(" + E.Text + ")";
}

Expr codegen::call(llvm::StringRef F, llvm::ArrayRef<Expr> Args) {
  std::string Text = F.str() + "(";
  for (size_t I = 0; I != Args.size(); ++I)
    Text += (I ? ", " : "") + Args[I].Text;
  return {Text + ")", PrecPostfix};
}

Expr codegen::infix(const Expr &A, llvm::StringRef Op, const Expr &B, int P) {
  return {operand(A, P) + " " + Op.str() + " " + operand(B, P + 1), P};
}

namespace {

bool nonNegative(const Value *V, unsigned Depth);

/// The `for` whose variable \p V is, when its step is a positive constant
/// (V starts at the lower bound and only grows).
const Operation *ascendingLoopOf(const Value *V) {
  if (!V->isBlockArgument())
    return nullptr;
  const Operation *Owner = V->getOwnerBlock()->getParentOp();
  if (!Owner || !Owner->is(OpKind::For) ||
      matchConstantInt(Owner->getOperand(2)).value_or(0) <= 0)
    return nullptr;
  return Owner;
}

/// A loop variable of `for %lo, %hi, %step` with lo >= 0 and step > 0.
bool nonNegativeArg(const Value *V, unsigned Depth) {
  const Operation *Owner = V->getOwnerBlock()->getParentOp();
  if (!Owner)
    return false;
  if (Owner->is(OpKind::Kernel) || Owner->is(OpKind::Parallel))
    return true;
  if (Owner->is(OpKind::Func)) {
    const Attribute *Syms = Owner->getAttr("symbols");
    return Syms && Syms->isArray() && V->getIndex() < Syms->getArray().size();
  }
  const Operation *Loop = ascendingLoopOf(V);
  return Loop && nonNegative(Loop->getOperand(0), Depth + 1);
}

/// `i - lo` where i is the variable of `for %lo, %hi, %step` with a
/// positive constant step: i starts at lo and only grows (persistent-tiles'
/// tile count `(t - bx) / P`, whose ring positions then stay plain C).
bool offsetFromLowerBound(const Operation &Sub) {
  const Operation *Loop = ascendingLoopOf(Sub.getOperand(0));
  return Loop && Loop->getOperand(0) == Sub.getOperand(1);
}

bool nonNegative(const Value *V, unsigned Depth) {
  if (Depth > 16 || !V->getType().isInteger())
    return false;
  if (isUnsigned(V->getType().getDType()))
    return true;
  if (V->isBlockArgument())
    return nonNegativeArg(V, Depth);
  const Operation *Op = V->getDefiningOp();
  auto Both = [&] {
    return nonNegative(Op->getOperand(0), Depth + 1) &&
           nonNegative(Op->getOperand(1), Depth + 1);
  };
  switch (Op->getKind()) {
  case OpKind::Const:
    return matchConstantInt(V).value_or(-1) >= 0;
  case OpKind::ThreadId:
    return true;
  case OpKind::Sub:
    return ir::IndexAtoms::roleThreadRange(V).has_value() ||
           offsetFromLowerBound(*Op);
  case OpKind::Add:
  case OpKind::Mul:
  case OpKind::Div:
  case OpKind::FloorDiv:
  case OpKind::FloorMod:
  case OpKind::Min:
  case OpKind::Shr:
  case OpKind::And:
    return Both();
  case OpKind::Max:
    return nonNegative(Op->getOperand(0), Depth + 1) ||
           nonNegative(Op->getOperand(1), Depth + 1);
  default:
    return false;
  }
}

/// Shortest decimal text that reads back as \p V in float (Single) or
/// double precision.
std::string shortestReal(double V, bool Single) {
  for (int Digits = 1; Digits <= 17; ++Digits) {
    std::string S = fmt::format("{:.{}g}", V, Digits);
    double Back = std::strtod(S.c_str(), nullptr);
    if (Single ? float(Back) == float(V) : Back == V)
      return S;
  }
  return fmt::format("{:.17g}", V);
}

Expr realLiteral(double V, bool Single) {
  const char *Suffix = Single ? "f" : "";
  if (std::isnan(V))
    return {Single ? "NAN" : "(double)NAN", Single ? PrecPostfix : PrecUnary};
  if (std::isinf(V)) {
    std::string Inf = Single ? "INFINITY" : "(double)INFINITY";
    return V < 0 ? Expr{"-" + Inf, PrecUnary}
                 : Expr{Inf, Single ? PrecPostfix : PrecUnary};
  }
  std::string S = shortestReal(V, Single);
  if (S.find_first_of(".en") == std::string::npos)
    S += ".0";
  return {S + Suffix, V < 0 || std::signbit(V) ? PrecUnary : PrecPostfix};
}

Expr intLiteral(int64_t V, DType T) {
  if (T == DType::Int32 && V == INT32_MIN)
    return {"(-2147483647 - 1)", PrecPostfix};
  if (T == DType::Int64 && V == INT64_MIN)
    return {"(-9223372036854775807LL - 1)", PrecPostfix};
  const char *Suffix = T == DType::Int64    ? "LL"
                       : T == DType::UInt32 ? "u"
                       : T == DType::UInt64 ? "ull"
                                            : "";
  std::string Text =
      T == DType::UInt64 ? std::to_string(uint64_t(V)) : std::to_string(V);
  return {Text + Suffix, V < 0 ? PrecUnary : PrecPostfix};
}

} // namespace

bool codegen::isNonNegative(const Value *V) { return nonNegative(V, 0); }

//===----------------------------------------------------------------------===//
// ExprEmitter
//===----------------------------------------------------------------------===//

Expr ExprEmitter::fail(const Operation &Op, diag::ID ID,
                       const std::string &Arg) {
  Diags.report(Op.getLoc(), ID) << Arg;
  Failed = true;
  return {"0 /* error */", PrecPostfix};
}

//===----------------------------------------------------------------------===//
// 4-bit elements
//===----------------------------------------------------------------------===//
// A 4-bit value is a uint8_t holding the element's code in its low nibble
// (two's complement for int4, the e2m1 bits for float4_e2m1); buffers hold
// two codes per byte. Values only move and convert: arithmetic on them
// goes through a wider type, which Sema's casts provide.

Expr ExprEmitter::loadPacked(const Operation &Op) {
  llvm::ArrayRef<Value *> Group = Op.getGroup(0);
  return call(
      "tilec::nibbleAt",
      {get(Group[0]),
       {flatIndex(Group[0]->getType(), Group.drop_front()), PrecTernary}});
}

/// Read-modify-write of the byte: only a thread's own registers (local)
/// may be written one element at a time; in shared or global memory the
/// other element of the byte may belong to another thread.
std::string ExprEmitter::storePacked(const Operation &Op) {
  llvm::ArrayRef<Value *> Group = Op.getGroup(1);
  DType T = Op.getOperand(0)->getType().getDType();
  if (Group[0]->getType().getScope() != Scope::Local) {
    fail(Op, diag::err_codegen_unsupported,
         fmt::format("a store of one {0} element to {1} memory ({0} "
                     "elements are packed two per byte, and the other one "
                     "may be another thread's; store pairs, e.g. by "
                     "computing into a fragment and copying it)",
                     tileLangName(T),
                     scopeName(Group[0]->getType().getScope())));
    return "";
  }
  return call(
             "tilec::setNibble",
             {get(Group[0]),
              {flatIndex(Group[0]->getType(), Group.drop_front()), PrecTernary},
              get(Op.getOperand(0))})
             .Text +
         ";";
}

/// Only moves, selects and conversions take 4-bit values.
bool ExprEmitter::checkPackedUse(const Operation &Op) {
  bool Packed = llvm::any_of(Op.getOperands(), [](const Value *V) {
    return !V->getType().isBuffer() && isPacked(V->getType().getDType());
  });
  if (Op.getNumResults() && isPacked(Op.getResult()->getType().getDType()))
    Packed = true;
  if (!Packed || Op.is(OpKind::Cast) || Op.is(OpKind::Select) ||
      Op.is(OpKind::Const) || Op.is(OpKind::Load))
    return true;
  fail(Op, diag::err_codegen_unsupported,
       fmt::format("'{}' on 4-bit values (convert them to a wider type "
                   "first)",
                   Op.getName().str()));
  return false;
}

/// The code of \p E (of type From: int or float) as a 4-bit To.
Expr ExprEmitter::toPacked(Expr E, DType From, DType To, const Operation &Ctx) {
  if (To == DType::Float4E2M1)
    return call("tilec::fp4e2m1FromFloat",
                {cast(E, From, DType::Float32, Ctx)});
  return call("tilec::nibbleFromInt", {cast(E, From, DType::Int32, Ctx)});
}

/// The value of 4-bit code \p E as float (float4_e2m1) or int.
Expr ExprEmitter::fromPacked(Expr E, DType From) {
  if (From == DType::Float4E2M1)
    return call("tilec::fp4e2m1ToFloat", {E});
  if (From == DType::Int4)
    return call("tilec::int4ToInt", {E});
  return {"(int)" + operand(E, PrecUnary), PrecUnary};
}

std::string ExprEmitter::typeName(DType T, const Operation &Ctx) {
  const char *Name = cTypeOf(T, Dial);
  if (!Name) {
    fail(Ctx, diag::err_codegen_unsupported,
         fmt::format("dtype {} in element operations{}", tileLangName(T),
                     Dial.Float8E4M3Type ? "" : " on HIP"));
    return "int";
  }
  UsedTypes.insert(T);
  return Name;
}

std::string ExprEmitter::valueTypeName(DType T, const Operation &Ctx) {
  std::string Name = typeName(T, Ctx);
  return WideIntegers && T == DType::Int32 ? "int64_t" : Name;
}

Expr ExprEmitter::get(const Value *V) {
  auto It = Bound.find(V);
  if (It != Bound.end())
    return It->second;
  const Operation *Def = V->getDefiningOp();
  assert(Def && Def->is(OpKind::Const) && "value used before it is emitted");
  return literal(*Def);
}

Expr ExprEmitter::emit(const Operation &Op) {
  if (!checkPackedUse(Op))
    return {"0 /* error */", PrecPostfix};
  if (isBinaryOp(Op.getKind()))
    return binary(Op);
  if (isUnaryOp(Op.getKind()))
    return unary(Op);
  switch (Op.getKind()) {
  case OpKind::Const:
    return literal(Op);
  case OpKind::Cmp:
    return compare(Op);
  case OpKind::Select:
    return select(Op);
  case OpKind::Cast:
    return cast(Op);
  case OpKind::Bitcast:
    return bitcast(Op);
  case OpKind::Math:
    return math(Op);
  case OpKind::ThreadId:
    return threadId(Op);
  case OpKind::Load:
    if (!Device)
      return fail(Op, diag::err_codegen_host_op, "load");
    if (isPackedBuffer(Op.getOperand(0)->getType()))
      return loadPacked(Op);
    return element(Op, Op.getGroup(0));
  default:
    return fail(Op, diag::err_codegen_op_not_lowered, Op.getName().str());
  }
}

/// tilec::bitcast<To, From>(x): naming From converts the operand back to its
/// IR type, since C++ arithmetic on 8- and 16-bit ints yields an int.
Expr ExprEmitter::bitcast(const Operation &Op) {
  DType From = Op.getOperand(0)->getType().getDType();
  DType To = Op.getResult()->getType().getDType();
  return call(fmt::format("tilec::bitcast<{}, {}>", typeName(To, Op),
                          typeName(From, Op)),
              {get(Op.getOperand(0))});
}

Expr ExprEmitter::literal(const Operation &Const) {
  const Attribute &A = *Const.getAttr("value");
  DType T = Const.getResult()->getType().getDType();
  typeName(T, Const);
  if (A.isBool())
    return {A.getBool() ? "true" : "false", PrecPostfix};
  if (isPacked(T))
    return A.isInt() ? toPacked(intLiteral(A.getInt(), DType::Int32),
                                DType::Int32, T, Const)
                     : toPacked(realLiteral(A.getFloat(), true), DType::Float32,
                                T, Const);
  if (!isFloat(T))
    return intLiteral(A.getInt(), T);
  double V = A.isInt() ? double(A.getInt()) : A.getFloat();
  if (T == DType::Float64)
    return realLiteral(V, false);
  return fromFloat(realLiteral(V, true), T, Const);
}

Expr ExprEmitter::toFloat(Expr E, DType T) {
  switch (T) {
  case DType::Float32:
    return E;
  case DType::Float16:
    return call("__half2float", {E});
  case DType::BFloat16:
    return call(Dial.BFloat16ToFloat, {E});
  case DType::Float8E4M3:
  case DType::Float8E5M2:
  case DType::Float8E4M3FNUZ:
  case DType::Float8E5M2FNUZ:
    return call("static_cast<float>", {E});
  default:
    return {"(float)" + operand(E, PrecUnary), PrecUnary};
  }
}

Expr ExprEmitter::fromFloat(Expr E, DType T, const Operation &Ctx) {
  switch (T) {
  case DType::Float32:
    return E;
  case DType::Float16:
    return call("__float2half_rn", {E});
  case DType::BFloat16:
    return call(Dial.FloatToBFloat16, {E});
  case DType::Float8E4M3:
  case DType::Float8E5M2:
  case DType::Float8E4M3FNUZ:
  case DType::Float8E5M2FNUZ:
    return call(typeName(T, Ctx), {E});
  case DType::Bool:
    return {operand(E, PrecEquality) + " != 0.0f", PrecEquality};
  default:
    return {"(" + typeName(T, Ctx) + ")" + operand(E, PrecUnary), PrecUnary};
  }
}

Expr ExprEmitter::threadId(const Operation &Op) {
  if (!Device)
    return fail(Op, diag::err_codegen_host_op, "thread_id");
  static const char *const Dims[] = {"x", "y", "z"};
  return {std::string("(int)threadIdx.") + Dims[*Op.getIntAttr("dim")],
          PrecUnary};
}

std::string ExprEmitter::dimText(const Dim &D) {
  if (D.isStatic())
    return std::to_string(D.getValue());
  auto It = Symbols.find(D.getSymbol());
  assert(It != Symbols.end() && "symbol of a buffer shape is not bound");
  return operand(It->second, PrecMultiplicative + 1);
}

/// Row-major flat offset: ((i0 * d1 + i1) * d2 + i2) written as
/// i0 * (d1 * d2) + i1 * d2 + i2, with static strides folded and zero
/// indices dropped.
std::string ExprEmitter::flatIndex(const Type &Buffer,
                                   llvm::ArrayRef<Value *> Indices) {
  llvm::ArrayRef<Dim> Dims = Buffer.getDims();
  std::optional<Expr> Sum;
  for (size_t I = 0; I != Indices.size(); ++I) {
    if (isConstantInt(Indices[I], 0))
      continue;
    int64_t Static = 1;
    std::string Stride;
    for (size_t J = I + 1; J != Dims.size(); ++J) {
      if (Dims[J].isStatic())
        Static *= Dims[J].getValue();
      else
        Stride += " * " + dimText(Dims[J]);
    }
    if (Static != 1)
      Stride = " * " + std::to_string(Static) + Stride;
    Expr Term = get(Indices[I]);
    if (!Stride.empty())
      Term = {operand(Term, PrecMultiplicative) + Stride, PrecMultiplicative};
    Sum = Sum ? infix(*Sum, "+", Term, PrecAdditive) : Term;
  }
  return Sum ? Sum->Text : "0";
}

Expr ExprEmitter::element(const Operation &Ctx, llvm::ArrayRef<Value *> Group) {
  const Type &Buffer = Group[0]->getType();
  Expr Base = get(Group[0]);
  if (Buffer.getScope() == Scope::Var)
    return Base;
  typeName(Buffer.getDType(), Ctx);
  std::string Index = flatIndex(Buffer, Group.drop_front());
  if (isPacked(Buffer.getDType()))
    Index = "(" + Index + ") >> 1";
  return {operand(Base, PrecPostfix) + "[" + Index + "]", PrecPostfix};
}
