//===- SymExprs.cpp - Expressions of symbolic dims before any IR ----------===//
//
// Factory code runs before its prim_func exists, so an operator on a
// symbolic dim there (`NK = tilelang.cdiv(DK, BK)`, `scale = DK ** -0.5`,
// `assert S % 64 == 0`) has no IR to emit into. It becomes a SymExprObj
// that records the operator and its operands, and is replayed where IR is
// built:
//   - used by the prim_func (a grid extent, a kernel operand), it is
//     replayed there: the launcher computes it on the host, a kernel on the
//     device;
//   - as a dim of a parameter's shape (`[seq_len * heads, dim]`) it is a
//     composite dim: a symbol of its own (a launcher argument, the extent
//     the caller passes) that the launcher checks against the expression
//     over the symbols the other dims bind (TILEC_ERROR_SHAPE_MISMATCH);
//   - as an assert condition it is a check of the launcher of every
//     prim_func the factory then builds (TILEC_ERROR_ASSERTION_FAILED).
// A use that needs a compile-time value still reports the symbol it
// depends on (err_symbol_needs_value).
//
//===----------------------------------------------------------------------===//

#include "Interp.h"
#include "llvm/ADT/StringExtras.h"

using namespace tilec;
using namespace tilec::sema;

//===----------------------------------------------------------------------===//
// Building and replaying
//===----------------------------------------------------------------------===//

int sema::symPrec(ast::BinaryOp Op) {
  switch (Op) {
  case ast::BinaryOp::Add:
  case ast::BinaryOp::Sub:
    return SymPrec::Sum;
  case ast::BinaryOp::Pow:
    return SymPrec::Power;
  case ast::BinaryOp::LShift:
  case ast::BinaryOp::RShift:
    return SymPrec::Shift;
  case ast::BinaryOp::BitAnd:
    return SymPrec::BitAnd;
  case ast::BinaryOp::BitOr:
    return SymPrec::BitOr;
  case ast::BinaryOp::BitXor:
    return SymPrec::BitXor;
  default:
    return SymPrec::Product;
  }
}

std::string sema::symbolicText(const Value &V, int MinPrec) {
  if (auto *S = V.getAs<SymbolObj>())
    return S->Name;
  if (auto *E = V.getAs<SymExprObj>())
    return E->Prec < MinPrec ? "(" + E->Text + ")" : E->Text;
  // A negative number is a unary minus.
  std::string Text = repr(V);
  return MinPrec > SymPrec::Unary && Text[0] == '-' ? "(" + Text + ")" : Text;
}

std::string sema::symbolicInfix(const Value &L, llvm::StringRef Op,
                                const Value &R, int Prec, bool RightAssoc) {
  return symbolicText(L, RightAssoc ? Prec + 1 : Prec) + " " + Op.str() + " " +
         symbolicText(R, RightAssoc ? Prec : Prec + 1);
}

void sema::symbolsIn(const Value &V, std::vector<const SymbolObj *> &Out) {
  if (auto *S = V.getAs<SymbolObj>()) {
    if (llvm::find(Out, S) == Out.end())
      Out.push_back(S);
    return;
  }
  if (auto *E = V.getAs<SymExprObj>())
    for (const Value &Op : E->Operands)
      symbolsIn(Op, Out);
}

std::optional<Value> Interp::deferSymbolic(std::vector<Value> Operands,
                                           std::string Text, int Prec,
                                           SymExprObj::ApplyFn Apply) {
  if (hasIR() || !llvm::any_of(Operands, isSymbolic) ||
      !llvm::all_of(Operands, [](const Value &V) {
        return isSymbolic(V) || V.isNumber();
      }))
    return std::nullopt;
  auto E = std::make_shared<SymExprObj>();
  E->Operands = std::move(Operands);
  E->Text = std::move(Text);
  E->Prec = Prec;
  E->Apply = std::move(Apply);
  return Value::object(std::move(E));
}

Value Interp::replay(const SymExprObj &E) {
  std::vector<Value> Ops;
  for (const Value &Op : E.Operands) {
    auto *Inner = Op.getAs<SymExprObj>();
    Ops.push_back(Inner ? replay(*Inner) : Op);
    if (Ops.back().isPoison())
      return Ops.back();
  }
  return E.Apply(*this, Ops);
}

void Interp::reportNeedsValue(const Value &V, llvm::SMRange R) {
  std::vector<const SymbolObj *> Syms;
  symbolsIn(V, Syms);
  assert(!Syms.empty() && "a symbolic value without a symbol");
  error(R, diag::err_symbol_needs_value) << Syms[0]->Name;
  if (Syms[0]->DriverCall.isValid())
    Diags.report(Syms[0]->DriverCall, diag::note_driver_symbolic)
        << Syms[0]->Name;
}

//===----------------------------------------------------------------------===//
// Composite dims
//===----------------------------------------------------------------------===//

/// The launcher argument's name for a composite dim: its text with the
/// operators spelled out (`seq_len * 32` -> `seq_len_x_32`), `dim_` first
/// when it would start with a digit (`4 * M` -> `dim_4_x_M`).
static std::string compositeName(llvm::StringRef Text) {
  static const std::pair<llvm::StringRef, llvm::StringRef> Words[] = {
      {" // ", "_div_"}, {" ** ", "_pow_"},  {" * ", "_x_"},
      {" + ", "_plus_"}, {" - ", "_minus_"}, {" % ", "_mod_"}};
  std::string Out = llvm::isDigit(Text.ltrim("(")[0]) ? "dim_" : "";
  for (size_t K = 0; K < Text.size();) {
    auto W = llvm::find_if(Words, [&](const auto &P) {
      return Text.substr(K).startswith(P.first);
    });
    if (W != std::end(Words)) {
      Out += W->second.str();
      K += W->first.size();
      continue;
    }
    char C = Text[K++];
    if (llvm::isAlnum(C) || C == '_')
      Out += C;
    else if (C != '(' && C != ')' && (Out.empty() || Out.back() != '_'))
      Out += '_';
  }
  return Out;
}

ir::Dim Interp::compositeDim(const Value &V, llvm::SMRange R) {
  std::string Name = compositeName(V.getAs<SymExprObj>()->Text);
  auto S = std::make_shared<SymbolObj>(Name, DType::Int32);
  S->Composite = std::static_pointer_cast<SymExprObj>(V.getObjectPtr());
  S->CompositeRange = R;
  AllSymbols.push_back(S);
  return ir::Dim::symbol(Name);
}

//===----------------------------------------------------------------------===//
// Launcher checks
//===----------------------------------------------------------------------===//

void Interp::deferAssert(const Value &Cond, std::string Message,
                         llvm::SMRange R) {
  PendingChecks.push_back({Cond, std::move(Message), R});
}

/// `check %Cond {status, message}` at the builder's insertion point.
static void createCheck(Interp &I, ir::Value *Cond, llvm::StringRef Status,
                        llvm::StringRef Message, llvm::SMRange R) {
  I.B.create(ir::OpKind::Check, {I.toCondition(Cond)}, {}, {},
             {{"status", ir::Attribute::string(Status)},
              {"message", ir::Attribute::string(Message)}},
             0, Location(R));
}

static bool allIn(const Value &V, llvm::ArrayRef<std::string> Names) {
  std::vector<const SymbolObj *> Syms;
  symbolsIn(V, Syms);
  return llvm::all_of(Syms, [&](const SymbolObj *S) {
    return llvm::is_contained(Names, S->Name);
  });
}

/// Each symbol of a composite dim must be bound on its own: by a dim that
/// is just that symbol, or as a factory argument the launcher takes.
static bool checkCompositeBound(Interp &I, const SymbolObj &S,
                                llvm::ArrayRef<std::string> Symbols) {
  std::vector<const SymbolObj *> Syms;
  symbolsIn(Value::object(S.Composite), Syms);
  for (const SymbolObj *Base : Syms)
    if (!llvm::is_contained(Symbols, Base->Name)) {
      I.error(S.CompositeRange, diag::err_composite_unbound)
          << Base->Name << S.Composite->Text;
      return false;
    }
  return true;
}

static void emitCompositeCheck(Interp &I, const SymbolObj &S, ir::Value *Arg) {
  Value Expected = I.replay(*S.Composite);
  ir::Value *V = I.toRuntime(Expected, S.CompositeRange);
  if (!V)
    return;
  if (!V->getType().isInteger()) {
    I.error(S.CompositeRange, diag::err_type_mismatch)
        << "dimension '" + S.Composite->Text + "'"
        << "an int" << typeName(Expected);
    return;
  }
  ir::Value *Eq = I.B.createCmp(ir::CmpPred::Eq, I.castTo(V, DType::Int64),
                                I.castTo(Arg, DType::Int64));
  createCheck(I, Eq, "shape", S.Name + " == " + S.Composite->Text,
              S.CompositeRange);
}

void Interp::emitLauncherChecks(FuncState &FS,
                                llvm::ArrayRef<std::string> Symbols) {
  FuncState *Saved = CurFunc;
  CurFunc = &FS;
  ir::Builder::InsertionGuard G(B);
  B.setInsertionPointToEnd(FS.Func->getBody());
  std::vector<std::string> Done;
  for (const auto &S : AllSymbols) {
    if (!S->Composite || !FS.SymbolArgs.count(S.get()) ||
        llvm::is_contained(Done, S->Name))
      continue;
    Done.push_back(S->Name);
    if (checkCompositeBound(*this, *S, Symbols))
      emitCompositeCheck(*this, *S, FS.SymbolArgs[S.get()]);
  }
  for (const PendingCheck &C : PendingChecks) {
    if (!allIn(C.Cond, Symbols))
      continue;
    auto *E = C.Cond.getAs<SymExprObj>();
    ir::Value *V = toRuntime(E ? replay(*E) : C.Cond, C.Range);
    if (V)
      createCheck(*this, V, "assert", C.Message, C.Range);
  }
  CurFunc = Saved;
}
