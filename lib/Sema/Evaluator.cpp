//===- Evaluator.cpp - Expressions of the Sema interpreter ----------------===//
//
// Evaluates AST expressions to Values: literals, names, attribute access,
// subscripts (buffer references stay lazy, see BufferRefObj), displays,
// lambdas and calls of Python functions with Python's binding rules. The
// conversions to compile-time values are in Conversions.cpp.
//
//===----------------------------------------------------------------------===//

#include "Builtins.h"
#include "HostModel.h"
#include "Interp.h"
#include "tilec/IR/Value.h"
#include "tilec/Support/Target.h"

using namespace tilec;
using namespace tilec::sema;
using namespace tilec::ast;

//===----------------------------------------------------------------------===//
// Diagnostics
//===----------------------------------------------------------------------===//

ErrorReport::ErrorReport(Interp &I, DiagnosticBuilder DB) : I(&I) {
  B.emplace(std::move(DB));
}

ErrorReport::~ErrorReport() {
  if (!B)
    return;
  B.reset();
  // One note per distinct call site, innermost first; deep recursion is
  // cut short after a few.
  const char *Last = nullptr;
  unsigned Notes = 0;
  for (auto It = I->Frames.rbegin(); It != I->Frames.rend() && Notes < 4;
       ++It) {
    const Frame &F = **It;
    if (!F.CallSite.Start.isValid() || F.CallSite.Start.getPointer() == Last)
      continue;
    Last = F.CallSite.Start.getPointer();
    I->Diags.report(F.CallSite, diag::note_called_from) << F.FuncName;
    ++Notes;
  }
}

ErrorReport Interp::error(llvm::SMRange R, diag::ID ID) {
  return ErrorReport(*this, Diags.report(R, ID));
}

ErrorReport Interp::fatal(llvm::SMRange R, diag::ID ID) {
  Aborting = true;
  return error(R, ID);
}

std::string sema::exprText(llvm::SMRange R) {
  if (!R.Start.isValid() || !R.End.isValid() ||
      R.End.getPointer() < R.Start.getPointer())
    return "";
  return std::string(R.Start.getPointer(), R.End.getPointer());
}

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

namespace {
/// Stamps ops created while evaluating one expression with its range.
class LocScope {
public:
  LocScope(ir::Builder &B, llvm::SMRange R) : B(B), Saved(B.getLoc()) {
    B.setLoc(Location(R));
  }
  ~LocScope() { B.setLoc(Saved); }

private:
  ir::Builder &B;
  Location Saved;
};
} // namespace

static Value evalSequence(Interp &I, const ExprList &Elts, bool IsTuple) {
  std::vector<Value> Out;
  for (const ExprPtr &E : Elts) {
    auto *S = llvm::dyn_cast<StarredExpr>(E.get());
    if (!S) {
      Out.push_back(I.eval(E.get()));
      continue;
    }
    Value V = I.eval(S->Value.get());
    auto Items = I.iterate(V, S->Value->getRange());
    if (!Items)
      return Value::poison();
    Out.insert(Out.end(), Items->begin(), Items->end());
  }
  return IsTuple ? Value::tuple(std::move(Out)) : Value::list(std::move(Out));
}

/// and/or on i1 of two runtime-like operands.
static Value runtimeBoolOp(Interp &I, bool IsAnd, const Value &LV,
                           const Value &RV, llvm::SMRange LR,
                           llvm::SMRange RR) {
  ir::Value *L = I.toRuntime(LV, LR);
  ir::Value *R = I.toRuntime(RV, RR);
  if (!L || !R)
    return Value::poison();
  return Value::runtime(
      I.B.createBinary(IsAnd ? ir::OpKind::And : ir::OpKind::Or,
                       I.toCondition(L), I.toCondition(R)));
}

/// A symbolic left operand of and/or (before any IR): a logical and/or
/// replayed where it is used; a poison right operand stays poison.
static Value symbolicBoolOp(Interp &I, bool IsAnd, const Value &L,
                            const Value &R, llvm::SMRange LR,
                            llvm::SMRange RR) {
  if (R.isPoison())
    return R;
  int Prec = IsAnd ? SymPrec::And : SymPrec::Or;
  auto D =
      I.deferSymbolic({L, R}, symbolicInfix(L, IsAnd ? "and" : "or", R, Prec),
                      Prec, [=](Interp &I, const std::vector<Value> &V) {
                        return runtimeBoolOp(I, IsAnd, V[0], V[1], LR, RR);
                      });
  if (D)
    return *D;
  I.error(llvm::SMRange(LR.Start, RR.End), diag::err_bad_operand_types)
      << (IsAnd ? "and" : "or") << typeName(L) << typeName(R);
  return Value::poison();
}

/// `a and b`, `a or b`: Python short-circuit while operands are
/// compile-time; and/or on i1 once one is a runtime value.
static Value evalBoolOp(Interp &I, const BoolOpExpr *E) {
  bool IsAnd = E->Op == BoolOpKind::And;
  Value Acc = I.eval(E->Values[0].get());
  llvm::SMRange AccRange = E->Values[0]->getRange();
  for (size_t K = 1; K < E->Values.size(); ++K) {
    if (Acc.isPoison())
      return Acc;
    const Expr *Next = E->Values[K].get();
    if (isSymbolic(Acc) && !I.hasIR()) {
      Acc = symbolicBoolOp(I, IsAnd, Acc, I.eval(Next), AccRange,
                           Next->getRange());
      continue;
    }
    if (!isRuntimeLike(Acc)) {
      auto T = I.truthy(Acc, AccRange);
      if (!T)
        return Value::poison();
      if (*T != IsAnd)
        return Acc;
      Acc = I.eval(Next);
      AccRange = Next->getRange();
      continue;
    }
    ir::Value *L = I.toRuntime(Acc, AccRange);
    Value RV = I.eval(Next);
    ir::Value *R = I.toRuntime(RV, Next->getRange());
    if (!L || !R)
      return Value::poison();
    Acc = Value::runtime(
        I.B.createBinary(IsAnd ? ir::OpKind::And : ir::OpKind::Or,
                         I.toCondition(L), I.toCondition(R)));
  }
  return Acc;
}

/// `a < b <= c` is `a < b and b <= c`, evaluating b once.
static Value evalCompare(Interp &I, const CompareExpr *E) {
  Value L = I.eval(E->Left.get());
  llvm::SMRange LR = E->Left->getRange();
  Value Result;
  for (size_t K = 0; K < E->Ops.size(); ++K) {
    const Expr *RE = E->Comparators[K].get();
    Value R = I.eval(RE);
    Value C = I.compare(E->Ops[K], L, R, LR, RE->getRange(), E->getRange());
    if (C.isPoison())
      return C;
    if (K == 0) {
      Result = C;
    } else if (!Result.isRuntime() && !C.isRuntime()) {
      Result = C;
    } else {
      ir::Value *A = I.toRuntime(Result, E->getRange());
      ir::Value *B = I.toRuntime(C, E->getRange());
      if (!A || !B)
        return Value::poison();
      Result = Value::runtime(I.B.createBinary(ir::OpKind::And, A, B));
    }
    if (!Result.isRuntime() && !Result.getBool())
      return Result;
    L = R;
    LR = RE->getRange();
  }
  return Result;
}

static Value evalIfExp(Interp &I, const IfExpExpr *E) {
  Value C = I.eval(E->Cond.get());
  if (isRuntimeLike(C) && I.hasIR()) {
    ir::Value *Cond = I.toRuntime(C, E->Cond->getRange());
    Value T = I.eval(E->Then.get()), F = I.eval(E->Else.get());
    auto P = I.promote(T, F, E->Then->getRange(), E->Else->getRange());
    if (!Cond || !P)
      return Value::poison();
    return Value::runtime(
        I.B.createSelect(I.toCondition(Cond), P->first, P->second));
  }
  auto Taken = I.truthy(C, E->Cond->getRange());
  if (!Taken)
    return Value::poison();
  return I.eval(*Taken ? E->Then.get() : E->Else.get());
}

static Value evalLambda(Interp &I, const LambdaExpr *E) {
  auto F = std::make_shared<FunctionObj>();
  F->Name = "<lambda>";
  F->Lambda = E;
  F->Params = &E->Params;
  for (const Param &P : E->Params) {
    F->HasDefault.push_back(P.Default != nullptr);
    F->Defaults.push_back(P.Default ? I.eval(P.Default.get()) : Value());
  }
  F->Closure = I.frame().Locals;
  return Value::object(std::move(F));
}

static Value evalCall(Interp &I, const CallExpr *E) {
  Value Callee = I.eval(E->Callee.get());
  CallArgs Args;
  if (!I.evalArgs(E->Args, E->Keywords, Args) || Callee.isPoison())
    return Value::poison();
  return I.call(Callee, Args, E->getRange(), E->Callee->getRange());
}

Value Interp::eval(const Expr *E) {
  if (Aborting)
    return Value::poison();
  bool Outer = HostUndecided;
  HostUndecided = false;
  Value V = evalKind(E);
  bool Undecided = HostUndecided;
  HostUndecided = Outer || Undecided;
  if (!V.isPoison() || !Undecided || hasIR() || Aborting)
    return V;
  return Value::object(std::make_shared<OpaqueObj>(exprText(E->getRange())));
}

Value Interp::evalKind(const Expr *E) {
  LocScope L(B, E->getRange());
  switch (E->getKind()) {
  case Expr::Kind::Name:
    return evalName(llvm::cast<NameExpr>(E));
  case Expr::Kind::IntLit:
    return Value::integer(llvm::cast<IntLitExpr>(E)->Value);
  case Expr::Kind::FloatLit:
    return Value::real(llvm::cast<FloatLitExpr>(E)->Value);
  case Expr::Kind::StringLit:
    return Value::str(llvm::cast<StringLitExpr>(E)->Value);
  case Expr::Kind::BoolLit:
    return Value::boolean(llvm::cast<BoolLitExpr>(E)->Value);
  case Expr::Kind::NoneLit:
    return Value::none();
  case Expr::Kind::Binary: {
    auto *BE = llvm::cast<BinaryExpr>(E);
    Value L = eval(BE->LHS.get()), R = eval(BE->RHS.get());
    return binary(BE->Op, L, R, BE->LHS->getRange(), BE->RHS->getRange(),
                  E->getRange());
  }
  case Expr::Kind::Unary: {
    auto *UE = llvm::cast<UnaryExpr>(E);
    return unary(UE->Op, eval(UE->Operand.get()), UE->Operand->getRange(),
                 E->getRange());
  }
  case Expr::Kind::BoolOp:
    return evalBoolOp(*this, llvm::cast<BoolOpExpr>(E));
  case Expr::Kind::Compare:
    return evalCompare(*this, llvm::cast<CompareExpr>(E));
  case Expr::Kind::Call:
    return evalCall(*this, llvm::cast<CallExpr>(E));
  case Expr::Kind::Attribute: {
    auto *AE = llvm::cast<AttributeExpr>(E);
    return getAttribute(eval(AE->Value.get()), AE->Attr, AE->Value->getRange(),
                        AE->AttrRange);
  }
  case Expr::Kind::Subscript: {
    auto *SE = llvm::cast<SubscriptExpr>(E);
    return subscript(eval(SE->Value.get()), SE->Index.get(),
                     SE->Value->getRange());
  }
  case Expr::Kind::Tuple:
    return evalSequence(*this, llvm::cast<TupleExpr>(E)->Elts, true);
  case Expr::Kind::List:
    return evalSequence(*this, llvm::cast<ListExpr>(E)->Elts, false);
  case Expr::Kind::Dict:
    return evalDict(llvm::cast<DictExpr>(E));
  case Expr::Kind::Set:
    return evalSet(llvm::cast<SetExpr>(E));
  case Expr::Kind::JoinedStr:
    return evalJoinedStr(llvm::cast<JoinedStrExpr>(E));
  case Expr::Kind::Comprehension:
    return evalComprehension(llvm::cast<ComprehensionExpr>(E));
  case Expr::Kind::NamedExpr:
    return evalNamed(llvm::cast<NamedExpr>(E));
  case Expr::Kind::Await:
    return evalHostOnly(E, "'await'");
  case Expr::Kind::Yield:
    return evalHostOnly(E, "'yield'");
  case Expr::Kind::IfExp:
    return evalIfExp(*this, llvm::cast<IfExpExpr>(E));
  case Expr::Kind::Lambda:
    return evalLambda(*this, llvm::cast<LambdaExpr>(E));
  case Expr::Kind::Ellipsis:
  case Expr::Kind::Slice:
  case Expr::Kind::Starred:
    break;
  }
  error(E->getRange(), diag::err_feature_unsupported)
      << "'" + exprText(E->getRange()) + "' here";
  return Value::poison();
}

//===----------------------------------------------------------------------===//
// Names and attributes
//===----------------------------------------------------------------------===//

Value Interp::evalName(const NameExpr *E) {
  return lookupName(E->Id, E->getRange());
}

Value Interp::lookupName(llvm::StringRef Name, llvm::SMRange R) {
  if (Value *V = scope().lookup(Name)) {
    if (V->getAs<StaleObj>()) {
      error(R, diag::err_use_after_runtime_if) << Name;
      return Value::poison();
    }
    return *V;
  }
  if (auto ID = findBuiltin(BuiltinNS::Py, Name))
    return makeBuiltin(*ID);
  error(R, diag::err_undefined_name) << Name;
  return Value::poison();
}

static Value symbolByName(Interp &I, llvm::StringRef Name) {
  for (const auto &S : I.AllSymbols)
    if (S->Name == Name)
      return Value::object(S);
  return Value::str(Name.str());
}

static Value bufferAttribute(Interp &I, BufferObj &Buf, llvm::StringRef Attr) {
  if (Attr == "shape") {
    std::vector<Value> Dims;
    for (const ir::Dim &D : Buf.Dims)
      Dims.push_back(D.isStatic() ? Value::integer(D.getValue())
                                  : symbolByName(I, D.getSymbol()));
    return Value::tuple(std::move(Dims));
  }
  if (Attr == "dtype")
    return Value::dtype(Buf.Ty);
  if (Attr == "name")
    return Value::str(Buf.Name);
  if (Attr == "ndim")
    return Value::integer(int64_t(Buf.Dims.size()));
  return Value::poison();
}

static Value scalarAttribute(Interp &I, const Value &Base, llvm::StringRef Attr,
                             llvm::SMRange R) {
  if (Attr == "dtype") {
    ir::Value *V = I.toRuntime(Base, R);
    return V ? Value::dtype(V->getType().getDType()) : Value::poison();
  }
  if (Attr == "astype")
    return makeBuiltin(BuiltinID::MAsType, Base);
  return Value::poison();
}

/// `buf.data`: the address of the buffer's start (T.Tensor(shape, dtype,
/// buf.data) views it with another shape).
static Value bufferData(const Value &Base) {
  auto Addr = std::make_shared<AddressObj>();
  Addr->Buf = std::static_pointer_cast<BufferObj>(Base.getObjectPtr());
  return Value::object(std::move(Addr));
}

static Value valueAttribute(Interp &I, const Value &Base, llvm::StringRef Attr,
                            llvm::SMRange BaseRange) {
  if (Base.getAs<BufferObj>() && Attr == "data")
    return bufferData(Base);
  if (auto *Buf = Base.getAs<BufferObj>())
    return bufferAttribute(I, *Buf, Attr);
  if (Base.isRuntime() || Base.getAs<BufferRefObj>())
    return scalarAttribute(I, Base, Attr, BaseRange);
  if (auto *S = Base.getAs<SymbolObj>()) {
    if (Attr == "name")
      return Value::str(S->Name);
    if (Attr == "dtype")
      return Value::dtype(S->Ty);
  }
  if (auto *F = Base.getAs<FunctionObj>(); F && Attr == "__name__")
    return Value::str(F->Name);
  // `kernel.compile(...)`, `kernel.get_profiler()`: the JIT object's host
  // API; a host-only value, an error only where a kernel uses it.
  if (auto *F = Base.getAs<FunctionObj>(); F && !I.hasIR())
    return makeHostValue(F->Name + "." + Attr.str(),
                         std::make_shared<MethodModel>(Base, Attr.str()));
  if (Base.isDType() && Attr == "bits")
    return Value::integer(bitWidth(Base.getDType()));
  if (Base.isDType() && Attr == "name")
    return Value::str(tileLangName(Base.getDType()).str());
  if (Base.isDType() && Attr == "as_torch" && !I.hasIR())
    return makeHostValue("as_torch",
                         std::make_shared<MethodModel>(Base, Attr.str()));
  if (auto ID = findBuiltin(BuiltinNS::Method, Attr);
      ID && !Base.getAs<BufferObj>() && !Base.isObject())
    return makeBuiltin(*ID, Base);
  return Value::poison();
}

/// `tvm.tir` / `tvm.tirx` functions that mean the same as their T.
/// namesakes (same argument conventions), torch's dtypes; anything else
/// stays opaque.
static Value opaqueMember(llvm::StringRef Path, llvm::StringRef Attr) {
  // torch.float16, torch.bfloat16, ...: the dtypes of the same names.
  if (Path == "torch")
    if (auto T = parseTileLangDType(Attr))
      return Value::dtype(*T);
  bool Tir = Path == "tvm.tir" || Path == "tvm.tirx";
  if (Tir)
    if (auto ID = findBuiltin(BuiltinNS::Tir, Attr))
      return makeBuiltin(*ID);
  if (Tir && (Attr == "reinterpret" || Attr == "call_extern"))
    return makeBuiltin(*findBuiltin(BuiltinNS::T, Attr));
  if (Tir && Attr == "Cast")
    return makeBuiltin(BuiltinID::TCastTIR);
  if (Tir && (Attr == "Select" || Attr == "Min" || Attr == "Max"))
    return makeBuiltin(Attr == "Select" ? BuiltinID::TSelect
                       : Attr == "Min"  ? BuiltinID::TMin
                                        : BuiltinID::TMax);
  return Value::object(
      std::make_shared<OpaqueObj>(Path.str() + "." + Attr.str()));
}

Value Interp::getAttribute(const Value &Base, llvm::StringRef Attr,
                           llvm::SMRange BaseRange, llvm::SMRange AttrRange) {
  if (Base.isPoison())
    return Base;
  if (auto *NS = Base.getAs<NamespaceObj>())
    return namespaceMember(*NS, Attr, AttrRange);
  if (auto *O = Base.getAs<OpaqueObj>()) {
    if (auto V = hostAttribute(Base, Attr))
      return *V;
    return opaqueMember(O->Path, Attr);
  }
  Value V = valueAttribute(*this, Base, Attr, BaseRange);
  if (V.isPoison() && !Aborting)
    error(AttrRange, diag::err_unknown_attribute)
        << exprText(BaseRange) << Attr;
  return V;
}

//===----------------------------------------------------------------------===//
// Subscripts
//===----------------------------------------------------------------------===//

static std::vector<const Expr *> indexExprs(const Expr *Index) {
  std::vector<const Expr *> Out;
  if (auto *T = llvm::dyn_cast<TupleExpr>(Index)) {
    for (const ExprPtr &E : T->Elts)
      Out.push_back(E.get());
    return Out;
  }
  Out.push_back(Index);
  return Out;
}

static bool evalIndexItem(Interp &I, const Expr *E,
                          std::vector<IndexItem> &Out) {
  IndexItem Item;
  Item.Range = E->getRange();
  if (auto *S = llvm::dyn_cast<SliceExpr>(E)) {
    Item.IsSlice = true;
    if (S->Lower)
      Item.Index = I.eval(S->Lower.get());
    if (S->Upper)
      Item.Upper = I.eval(S->Upper.get());
    Item.HasStep = S->Step != nullptr;
    Out.push_back(std::move(Item));
    return !Item.Index.isPoison() && !Item.Upper.isPoison();
  }
  Value V = I.eval(E);
  if (V.isSequence()) {
    for (const Value &Elt : V.elts())
      Out.push_back({false, Elt, Value(), false, Item.Range});
    return true;
  }
  Item.Index = V;
  Out.push_back(std::move(Item));
  return !V.isPoison();
}

/// Checks a compile-time element index against a static dim; negative
/// indices count from the end as in Python.
static bool checkConstIndex(Interp &I, BufferObj &Buf, unsigned Dim,
                            IndexItem &Item) {
  if (Item.IsSlice || !Item.Index.isIntLike() || !Buf.Dims[Dim].isStatic())
    return true;
  int64_t Extent = Buf.Dims[Dim].getValue(), Idx = Item.Index.getInt();
  if (Idx >= -Extent && Idx < Extent) {
    if (Idx < 0)
      Item.Index = Value::integer(Idx + Extent);
    return true;
  }
  I.error(Item.Range, diag::err_index_out_of_range)
      << Idx << "dimension " + std::to_string(Dim) + " of '" + Buf.Name + "'"
      << Extent;
  return false;
}

static Value subscriptBuffer(Interp &I, const Value &Base, const Expr *Index) {
  auto Buf = std::static_pointer_cast<BufferObj>(Base.getObjectPtr());
  auto Ref = std::make_shared<BufferRefObj>();
  Ref->Buf = Buf;
  Ref->Range = llvm::SMRange(Index->getRange().Start, Index->getRange().End);
  bool OK = true;
  for (const Expr *E : indexExprs(Index))
    OK &= evalIndexItem(I, E, Ref->Indices);
  if (!OK)
    return Value::poison();
  if (Ref->Indices.size() != Buf->Dims.size()) {
    I.error(Index->getRange(), diag::err_rank_mismatch)
        << Buf->Name << Buf->Dims.size() << Ref->Indices.size();
    return Value::poison();
  }
  for (unsigned D = 0; D < Ref->Indices.size(); ++D)
    if (!checkConstIndex(I, *Buf, D, Ref->Indices[D]))
      return Value::poison();
  return Value::object(std::move(Ref));
}

static std::optional<int64_t> sequenceIndex(Interp &I, const Value &Idx,
                                            size_t Len, llvm::SMRange R,
                                            llvm::StringRef What) {
  auto N = I.constInt(Idx, R, "index");
  if (!N)
    return std::nullopt;
  int64_t K = *N < 0 ? *N + int64_t(Len) : *N;
  if (K < 0 || K >= int64_t(Len)) {
    I.error(R, diag::err_index_out_of_range) << *N << What << Len;
    return std::nullopt;
  }
  return K;
}

static Value sliceSequence(Interp &I, const Value &Base, const SliceExpr *S) {
  int64_t Len = Base.isStr() ? Base.getStr().size() : Base.elts().size();
  auto Bound = [&](const ExprPtr &E,
                   int64_t Default) -> std::optional<int64_t> {
    if (!E)
      return Default;
    Value V = I.eval(E.get());
    if (V.isNone())
      return Default;
    auto N = I.constInt(V, E->getRange(), "slice bound");
    if (!N)
      return std::nullopt;
    int64_t K = *N < 0 ? *N + Len : *N;
    return std::min(std::max<int64_t>(K, 0), Len);
  };
  if (S->Step) {
    I.error(S->Step->getRange(), diag::err_slice_step);
    return Value::poison();
  }
  auto Lo = Bound(S->Lower, 0), Hi = Bound(S->Upper, Len);
  if (!Lo || !Hi)
    return Value::poison();
  if (Base.isStr())
    return Value::str(*Hi > *Lo ? Base.getStr().substr(*Lo, *Hi - *Lo) : "");
  std::vector<Value> Out;
  for (int64_t K = *Lo; K < *Hi; ++K)
    Out.push_back(Base.elts()[K]);
  return Base.isTuple() ? Value::tuple(Out) : Value::list(Out);
}

static Value subscriptDict(Interp &I, const Value &Base, const Expr *Index) {
  Value Key = I.eval(Index);
  if (Key.isPoison())
    return Key;
  for (auto &Item : Base.getDict().Items)
    if (equals(Item.first, Key))
      return Item.second;
  I.error(Index->getRange(), diag::err_key_error) << repr(Key);
  return Value::poison();
}

static Value subscriptTensorType(Interp &I, const Value &Base,
                                 const Expr *Index) {
  CallArgs Args;
  for (const Expr *E : indexExprs(Index)) {
    Args.Pos.push_back(I.eval(E));
    Args.PosRanges.push_back(E->getRange());
  }
  return I.call(Base, Args, Index->getRange(), Index->getRange());
}

Value Interp::subscript(const Value &Base, const Expr *Index,
                        llvm::SMRange BaseRange) {
  if (Base.isPoison())
    return Base;
  if (Base.getAs<BufferObj>())
    return subscriptBuffer(*this, Base, Index);
  if (auto *O = Base.getAs<OpaqueObj>()) {
    if (auto V = hostSubscript(*this, Base, Index))
      return *V;
    return Value::object(std::make_shared<OpaqueObj>(O->Path + "[...]"));
  }
  if (Base.isDict())
    return subscriptDict(*this, Base, Index);
  if (auto *BO = Base.getAs<BuiltinObj>();
      BO && (BO->ID == unsigned(BuiltinID::TTensor) ||
             BO->ID == unsigned(BuiltinID::TBuffer)))
    return subscriptTensorType(*this, Base, Index);
  if (!Base.isSequence() && !Base.isStr()) {
    error(BaseRange, diag::err_not_subscriptable) << typeName(Base);
    return Value::poison();
  }
  if (auto *S = llvm::dyn_cast<SliceExpr>(Index))
    return sliceSequence(*this, Base, S);
  Value Idx = eval(Index);
  if (Idx.isPoison())
    return Idx;
  size_t Len = Base.isStr() ? Base.getStr().size() : Base.elts().size();
  auto K = sequenceIndex(*this, Idx, Len, Index->getRange(), typeName(Base));
  if (!K)
    return Value::poison();
  if (Base.isStr())
    return Value::str(Base.getStr().substr(*K, 1));
  return Base.elts()[*K];
}

//===----------------------------------------------------------------------===//
// Calls
//===----------------------------------------------------------------------===//

static bool expandStarArgs(Interp &I, const StarredExpr *S, CallArgs &Out) {
  Value V = I.eval(S->Value.get());
  auto Items = I.iterate(V, S->Value->getRange());
  if (!Items)
    return false;
  for (Value &Item : *Items) {
    Out.Pos.push_back(std::move(Item));
    Out.PosRanges.push_back(S->getRange());
  }
  return true;
}

static bool expandKwArgs(Interp &I, const Keyword &K, CallArgs &Out) {
  Value V = I.eval(K.Value.get());
  if (V.isPoison())
    return false;
  if (!V.isDict()) {
    if (V.getAs<OpaqueObj>())
      return true;
    I.error(K.Value->getRange(), diag::err_type_mismatch)
        << "'**' argument"
        << "a dict" << typeName(V);
    return false;
  }
  for (auto &[Key, Val] : V.getDict().Items) {
    if (!Key.isStr())
      continue;
    Out.Kw.emplace_back(Key.getStr(), Val);
    Out.KwRanges.push_back(K.Value->getRange());
  }
  return true;
}

bool Interp::evalArgs(const ExprList &Args, const std::vector<Keyword> &Kws,
                      CallArgs &Out) {
  bool OK = true;
  for (const ExprPtr &A : Args) {
    if (auto *S = llvm::dyn_cast<StarredExpr>(A.get())) {
      OK &= expandStarArgs(*this, S, Out);
      continue;
    }
    Out.Pos.push_back(eval(A.get()));
    Out.PosRanges.push_back(A->getRange());
  }
  for (const Keyword &K : Kws) {
    if (K.Name.empty()) {
      OK &= expandKwArgs(*this, K, Out);
      continue;
    }
    Out.Kw.emplace_back(K.Name, eval(K.Value.get()));
    Out.KwRanges.push_back(
        llvm::SMRange(K.NameRange.Start, K.Value->getRange().End));
  }
  return OK && !Aborting;
}

/// `T.float32(0)`: a constant or a cast to the dtype.
static Value callDType(Interp &I, DType T, CallArgs &Args,
                       llvm::SMRange CallRange) {
  if (Args.Pos.size() != 1 || !Args.Kw.empty()) {
    I.error(CallRange, diag::err_too_many_args)
        << tileLangName(T).str() << 1 << Args.Pos.size() + Args.Kw.size();
    return Value::poison();
  }
  const Value &V = Args.Pos[0];
  if (V.isPoison())
    return V;
  if (!I.hasIR()) {
    if (!V.isNumber()) {
      I.error(Args.PosRanges[0], diag::err_type_mismatch)
          << tileLangName(T).str() + "(...)"
          << "a number" << typeName(V);
      return Value::poison();
    }
    return isFloat(T) ? Value::real(V.getNumber())
                      : Value::integer(int64_t(V.getNumber()));
  }
  ir::Value *R = I.toRuntimeAs(V, T, Args.PosRanges[0]);
  return R ? Value::runtime(R) : Value::poison();
}

/// A call of host code: modelled objects and device queries answer
/// (HostModel.h), TVM's DataType(x) and T.dtype(x) are the dtype x,
/// anything else stays a host-only value.
static Value callOpaque(Interp &I, const Value &Callee, const OpaqueObj &O,
                        CallArgs &Args, llvm::SMRange CallRange) {
  if (auto V = hostCall(I, Callee, Args, CallRange))
    return *V;
  llvm::StringRef Path = O.Path;
  if (Path.endswith("get_num_sms") && I.Opts.Tgt)
    return Value::integer(I.Opts.Tgt->NumSMs);
  if ((Path.endswith("DataType") || Path == "T.dtype") &&
      Args.Pos.size() == 1 && Args.Kw.empty()) {
    auto T = I.dtypeOf(Args.Pos[0], Args.PosRanges[0], Path.str() + "()");
    return T ? Value::dtype(*T) : Value::poison();
  }
  return Value::object(std::make_shared<OpaqueObj>(O.Path + "(...)"));
}

Value Interp::call(const Value &Callee, CallArgs &Args, llvm::SMRange CallRange,
                   llvm::SMRange CalleeRange) {
  if (Callee.isPoison() || Aborting)
    return Value::poison();
  if (auto *F = Callee.getAs<FunctionObj>()) {
    if (OnCall)
      if (auto V = OnCall(*F, Args, CallRange))
        return *V;
    if (F->Traits.IsPrimFunc || F->Traits.IsJit)
      return Value::object(std::make_shared<OpaqueObj>(F->Name + "(...)"));
    return callFunction(*F, Args, CallRange);
  }
  if (auto *BO = Callee.getAs<BuiltinObj>())
    return callBuiltin(*BO, Args, CallRange);
  if (Callee.isDType())
    return callDType(*this, Callee.getDType(), Args, CallRange);
  if (auto *O = Callee.getAs<OpaqueObj>())
    return callOpaque(*this, Callee, *O, Args, CallRange);
  error(CalleeRange, diag::err_not_callable) << exprText(CalleeRange);
  return Value::poison();
}

namespace {
/// Python's rules for binding call arguments to a def's parameters.
class ParamBinder {
public:
  ParamBinder(Interp &I, FunctionObj &F, CallArgs &Args, llvm::SMRange At)
      : I(I), F(F), Args(Args), At(At), Params(*F.Params) {}

  bool bind(Scope &S) {
    Vals.assign(Params.size(), Value());
    Set.assign(Params.size(), false);
    return bindPositional() && bindKeywords() && finish(S);
  }

private:
  int varArgs() const {
    for (size_t P = 0; P < Params.size(); ++P)
      if (Params[P].K == Param::Kind::VarArgs)
        return int(P);
    return -1;
  }
  int kwArgs() const {
    for (size_t P = 0; P < Params.size(); ++P)
      if (Params[P].K == Param::Kind::KwArgs)
        return int(P);
    return -1;
  }

  bool bindPositional() {
    int VA = varArgs();
    size_t NumPositional = VA >= 0 ? size_t(VA) : Params.size();
    if (kwArgs() >= 0 && VA < 0)
      NumPositional = std::min(NumPositional, size_t(kwArgs()));
    std::vector<Value> Extra;
    for (size_t A = 0; A < Args.Pos.size(); ++A) {
      if (A < NumPositional) {
        Vals[A] = Args.Pos[A];
        Set[A] = true;
        continue;
      }
      // A bare `*` takes no extra positional arguments.
      if (VA < 0 || Params[VA].Name == "*") {
        I.error(Args.PosRanges[A], diag::err_too_many_args)
            << F.Name << NumPositional << Args.Pos.size();
        return false;
      }
      Extra.push_back(Args.Pos[A]);
    }
    if (VA >= 0) {
      Vals[VA] = Value::tuple(std::move(Extra));
      Set[VA] = true;
    }
    return true;
  }

  bool bindKeywords() {
    int KA = kwArgs();
    auto Rest = std::make_shared<DictData>();
    for (size_t K = 0; K < Args.Kw.size(); ++K) {
      const std::string &Name = Args.Kw[K].first;
      int P = findNormal(Name);
      if (P < 0 && KA < 0) {
        I.error(Args.KwRanges[K], diag::err_unknown_keyword) << F.Name << Name;
        return false;
      }
      if (P < 0) {
        Rest->Items.emplace_back(Value::str(Name), Args.Kw[K].second);
        continue;
      }
      if (Set[P]) {
        I.error(Args.KwRanges[K], diag::err_duplicate_argument)
            << F.Name << Name;
        return false;
      }
      Vals[P] = Args.Kw[K].second;
      Set[P] = true;
    }
    if (KA >= 0) {
      Vals[KA] = Value::dict(std::move(Rest));
      Set[KA] = true;
    }
    return true;
  }

  int findNormal(llvm::StringRef Name) const {
    for (size_t P = 0; P < Params.size(); ++P)
      if (Params[P].K == Param::Kind::Normal && Params[P].Name == Name)
        return int(P);
    return -1;
  }

  bool finish(Scope &S) {
    bool OK = true;
    for (size_t P = 0; P < Params.size(); ++P) {
      if (!Set[P] && F.HasDefault[P]) {
        Vals[P] = F.Defaults[P];
        Set[P] = true;
      }
      if (!Set[P]) {
        I.error(At, diag::err_missing_argument) << F.Name << Params[P].Name;
        OK = false;
        continue;
      }
      S.set(Params[P].Name, Vals[P]);
    }
    return OK;
  }

  Interp &I;
  FunctionObj &F;
  CallArgs &Args;
  llvm::SMRange At;
  const std::vector<Param> &Params;
  std::vector<Value> Vals;
  std::vector<bool> Set;
};
} // namespace

Value Interp::callFunction(FunctionObj &F, CallArgs &Args,
                           llvm::SMRange CallRange, bool KernelBody) {
  if (Frames.size() > MaxCallDepth) {
    fatal(CallRange, diag::err_recursion_limit);
    return Value::poison();
  }
  auto Locals = std::make_shared<Scope>(F.Closure);
  if (!ParamBinder(*this, F, Args, CallRange).bind(*Locals))
    return Value::poison();
  auto Fr = std::make_unique<Frame>();
  Fr->Locals = Locals;
  Fr->FuncName = F.Name;
  Fr->CallSite = KernelBody ? llvm::SMRange() : CallRange;
  Fr->IsKernelBody = KernelBody;
  Frames.push_back(std::move(Fr));
  Value Result;
  if (F.Lambda) {
    Result = eval(F.Lambda->Body.get());
  } else {
    Flow Fl = exec(F.Def->Body);
    Result = Fl == Flow::Abort ? Value::poison() : frame().ReturnValue;
  }
  Frames.pop_back();
  return Aborting ? Value::poison() : Result;
}

std::shared_ptr<FunctionObj> Interp::makeFunction(const FunctionDefStmt *D) {
  auto F = std::make_shared<FunctionObj>();
  F->Name = D->Name;
  F->Def = D;
  F->Params = &D->Params;
  F->NameRange = D->NameRange;
  for (const Param &P : D->Params) {
    F->HasDefault.push_back(P.Default != nullptr);
    F->Defaults.push_back(P.Default ? eval(P.Default.get()) : Value());
  }
  F->Closure = frame().Locals;
  return F;
}
