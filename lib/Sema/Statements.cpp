//===- Statements.cpp - Statements of the Sema interpreter ----------------===//
//
// Executes statements. Control flow on compile-time values runs in the
// interpreter (only the taken branch of an `if`, unrolled host loops);
// control flow on runtime values becomes `if` / `for` / `while` ops whose
// bodies are emitted once. Names bound inside such a runtime region are
// logged and become stale when it closes: reading them afterwards is
// err_use_after_runtime_if (their IR values do not dominate the use).
//
//===----------------------------------------------------------------------===//

#include "Builtins.h"
#include "HostModel.h"
#include "Interp.h"
#include "tilec/IR/ConstantMatch.h"
#include "tilec/IR/Value.h"

using namespace tilec;
using namespace tilec::sema;
using namespace tilec::ast;

namespace {
/// Stamps ops created by one statement with its range.
class StmtLoc {
public:
  StmtLoc(ir::Builder &B, llvm::SMRange R) : B(B), Saved(B.getLoc()) {
    B.setLoc(Location(R));
  }
  ~StmtLoc() { B.setLoc(Saved); }

private:
  ir::Builder &B;
  Location Saved;
};

} // namespace

//===----------------------------------------------------------------------===//
// Names and runtime regions
//===----------------------------------------------------------------------===//

void Interp::bindName(llvm::StringRef Name, Value V, llvm::SMRange R) {
  auto Declared = frame().Declared.find(Name);
  if (Declared != frame().Declared.end())
    return Declared->second->set(Name, std::move(V));
  if (!frame().Regions.empty())
    frame().Regions.back().Assigned.emplace_back(Name.str(), R);
  scope().set(Name, std::move(V));
}

void Interp::openRegion() { frame().Regions.emplace_back(); }

void Interp::closeRegion() {
  RegionLog Log = std::move(frame().Regions.back());
  frame().Regions.pop_back();
  for (auto &[Name, R] : Log.Assigned) {
    bindName(Name, Value::object(std::make_shared<StaleObj>(Name, R)), R);
  }
}

//===----------------------------------------------------------------------===//
// Assignment
//===----------------------------------------------------------------------===//

void sema::storeRef(Interp &I, BufferRefObj &Ref, const Value &V,
                    llvm::SMRange ValueRange) {
  if (Ref.hasSlice()) {
    I.error(Ref.Range, diag::err_feature_unsupported)
        << "assigning to a buffer slice (use T.fill or T.copy)";
    return;
  }
  if (!I.inKernel() && Ref.Buf->Scope != ir::Scope::Global) {
    I.error(Ref.Range, diag::err_tile_op_outside_kernel) << "store";
    return;
  }
  std::vector<ir::Value *> Idx;
  for (IndexItem &Item : Ref.Indices) {
    ir::Value *X = I.toIndex(Item.Index, Item.Range);
    if (!X)
      return;
    Idx.push_back(X);
  }
  ir::Value *X = I.toRuntimeAs(V, Ref.Buf->Ty, ValueRange);
  if (X)
    I.B.createStore(X, Ref.Buf->IR, Idx);
}

static void storeVar(Interp &I, BufferObj &Buf, const Value &V,
                     llvm::SMRange ValueRange) {
  ir::Value *X = I.toRuntimeAs(V, Buf.Ty, ValueRange);
  if (X)
    I.B.createStore(X, Buf.IR, {I.B.createConstInt(0)});
}

static void assignName(Interp &I, const NameExpr *N, Value V,
                       llvm::SMRange ValueRange) {
  if (V.isPoison()) {
    I.bindName(N->Id, V, N->getRange());
    return;
  }
  Value *Old = I.scope().lookupLocal(N->Id);
  BufferObj *Var = Old ? Old->getAs<BufferObj>() : nullptr;
  if (Var && Var->isVar() && !V.getAs<BufferObj>()) {
    storeVar(I, *Var, V, ValueRange);
    return;
  }
  if (Var && !V.getAs<BufferObj>()) {
    I.error(N->getRange(), diag::err_reassign_buffer) << N->Id;
    return;
  }
  if (llvm::is_contained(I.frame().LoopVars, N->Id)) {
    I.error(N->getRange(), diag::err_assign_to_loop_var) << N->Id;
    return;
  }
  if (auto *Ref = V.getAs<BufferRefObj>();
      Ref && !Ref->hasSlice() && I.hasIR()) {
    ir::Value *X = I.toRuntime(V, ValueRange);
    V = X ? Value::runtime(X) : Value::poison();
  }
  if (V.isRuntime() && V.getRuntime()->getNameHint().empty() &&
      !V.getRuntime()->isBlockArgument())
    V.getRuntime()->setNameHint(N->Id);
  if (auto *Buf = V.getAs<BufferObj>(); Buf && Buf->Name.empty()) {
    Buf->Name = N->Id;
    Buf->IR->setNameHint(N->Id);
  }
  I.bindName(N->Id, std::move(V), N->getRange());
}

static void assignSequence(Interp &I, const ExprList &Targets, const Value &V,
                           llvm::SMRange ValueRange,
                           llvm::SMRange TargetRange) {
  auto Items = I.iterate(V, ValueRange);
  // Host code unpacking a host-only value (`o, lse = kernel(q, k, v)`):
  // each part is host-only too, and the driver carries on with them.
  auto *Host = V.getAs<OpaqueObj>();
  if (!Items && Host && !I.hasIR()) {
    for (size_t K = 0; K < Targets.size(); ++K) {
      const Expr *T = Targets[K].get();
      if (auto *S = llvm::dyn_cast<StarredExpr>(T))
        T = S->Value.get();
      std::string Part = Host->Path + "[" + std::to_string(K) + "]";
      I.assign(T, makeHostValue(std::move(Part), nullptr), ValueRange);
    }
    return;
  }
  if (!Items) {
    for (const ExprPtr &T : Targets)
      I.assign(T.get(), Value::poison(), ValueRange);
    return;
  }
  size_t Star = Targets.size();
  for (size_t K = 0; K < Targets.size(); ++K)
    if (llvm::isa<StarredExpr>(Targets[K].get()))
      Star = K;
  size_t Fixed = Targets.size() - (Star < Targets.size() ? 1 : 0);
  if (Star == Targets.size() ? Items->size() != Fixed : Items->size() < Fixed) {
    I.error(TargetRange, diag::err_unpack_count)
        << Items->size() << Targets.size();
    for (const ExprPtr &T : Targets)
      I.assign(T.get(), Value::poison(), ValueRange);
    return;
  }
  size_t After = Targets.size() - Star - 1, Pos = 0;
  for (size_t K = 0; K < Targets.size(); ++K) {
    if (K != Star) {
      I.assign(Targets[K].get(), (*Items)[Pos++], ValueRange);
      continue;
    }
    std::vector<Value> Rest((*Items).begin() + Pos, (*Items).end() - After);
    Pos += Rest.size();
    I.assign(llvm::cast<StarredExpr>(Targets[K].get())->Value.get(),
             Value::list(std::move(Rest)), ValueRange);
  }
}

static void assignSubscript(Interp &I, const SubscriptExpr *S, const Value &V,
                            llvm::SMRange ValueRange) {
  Value Base = I.eval(S->Value.get());
  if (Base.isPoison() || V.isPoison())
    return;
  if (Base.getAs<BufferObj>()) {
    Value Ref = I.subscript(Base, S->Index.get(), S->Value->getRange());
    if (auto *R = Ref.getAs<BufferRefObj>())
      storeRef(I, *R, V, ValueRange);
    return;
  }
  if (Base.isDict()) {
    Base.getDict().set(I.eval(S->Index.get()), V);
    return;
  }
  if (Base.isList()) {
    Value Idx = I.eval(S->Index.get());
    auto K = I.constInt(Idx, S->Index->getRange(), "list index");
    int64_t Len = Base.elts().size();
    if (!K)
      return;
    int64_t At = *K < 0 ? *K + Len : *K;
    if (At < 0 || At >= Len) {
      I.error(S->Index->getRange(), diag::err_index_out_of_range)
          << *K << "list" << Len;
      return;
    }
    Base.elts()[At] = V;
    return;
  }
  if (Base.getAs<OpaqueObj>())
    return;
  I.error(S->getRange(), diag::err_invalid_assign_target)
      << "an element of a " + typeName(Base);
}

void Interp::assign(const Expr *Target, const Value &V,
                    llvm::SMRange ValueRange) {
  if (auto *N = llvm::dyn_cast<NameExpr>(Target))
    return assignName(*this, N, V, ValueRange);
  if (auto *T = llvm::dyn_cast<TupleExpr>(Target))
    return assignSequence(*this, T->Elts, V, ValueRange, Target->getRange());
  if (auto *L = llvm::dyn_cast<ListExpr>(Target))
    return assignSequence(*this, L->Elts, V, ValueRange, Target->getRange());
  if (auto *S = llvm::dyn_cast<SubscriptExpr>(Target))
    return assignSubscript(*this, S, V, ValueRange);
  if (auto *A = llvm::dyn_cast<AttributeExpr>(Target)) {
    Value Base = eval(A->Value.get());
    if (auto *R = hostModelOf<RecordModel>(Base))
      R->Attrs[A->Attr] = V;
    else if (!Base.isPoison() && !Base.getAs<OpaqueObj>())
      error(Target->getRange(), diag::err_invalid_assign_target)
          << "attribute '" + A->Attr + "'";
    return;
  }
  error(Target->getRange(), diag::err_invalid_assign_target)
      << "'" + exprText(Target->getRange()) + "'";
}

static Flow execAssign(Interp &I, const AssignStmt *S) {
  I.PendingName.clear();
  if (S->Targets.size() == 1)
    if (auto *N = llvm::dyn_cast<NameExpr>(S->Targets[0].get()))
      I.PendingName = N->Id;
  Value V = I.eval(S->Value.get());
  I.PendingName.clear();
  for (const ExprPtr &T : S->Targets)
    I.assign(T.get(), V, S->Value->getRange());
  return I.Aborting ? Flow::Abort : Flow::Normal;
}

static Flow execAugAssign(Interp &I, const AugAssignStmt *S) {
  llvm::SMRange TR = S->Target->getRange(), VR = S->Value->getRange();
  llvm::SMRange Whole = S->getRange();
  if (auto *N = llvm::dyn_cast<NameExpr>(S->Target.get())) {
    Value Old = I.lookupName(N->Id, TR);
    Value Rhs = I.eval(S->Value.get());
    Value New = I.binary(S->Op, Old, Rhs, TR, VR, Whole);
    if (Old.isList() && S->Op == BinaryOp::Add && New.isList()) {
      Old.elts() = New.elts();
      return Flow::Normal;
    }
    I.assign(N, New, Whole);
    return I.Aborting ? Flow::Abort : Flow::Normal;
  }
  auto *Sub = llvm::dyn_cast<SubscriptExpr>(S->Target.get());
  if (!Sub) {
    I.error(TR, diag::err_invalid_assign_target) << "'" + exprText(TR) + "'";
    return Flow::Normal;
  }
  Value Base = I.eval(Sub->Value.get());
  Value Old = I.subscript(Base, Sub->Index.get(), Sub->Value->getRange());
  if (auto *Ref = Old.getAs<BufferRefObj>()) {
    // Python reads the element before evaluating the right-hand side.
    ir::Value *Cur = Ref->hasSlice() ? nullptr : I.toRuntime(Old, TR);
    Value Rhs = I.eval(S->Value.get());
    Value New = Cur ? I.binary(S->Op, Value::runtime(Cur), Rhs, TR, VR, Whole)
                    : I.binary(S->Op, Old, Rhs, TR, VR, Whole);
    if (!New.isPoison())
      storeRef(I, *Ref, New, Whole);
    return Flow::Normal;
  }
  Value Rhs = I.eval(S->Value.get());
  Value New = I.binary(S->Op, Old, Rhs, TR, VR, Whole);
  I.assign(Sub, New, Whole);
  return I.Aborting ? Flow::Abort : Flow::Normal;
}

//===----------------------------------------------------------------------===//
// Control flow
//===----------------------------------------------------------------------===//

/// Runs one branch of a runtime `if` into Body.
static Flow execRegion(Interp &I, ir::Block &Body, const StmtList &Stmts) {
  ir::Builder::InsertionGuard G(I.B);
  I.B.setInsertionPointToEnd(Body);
  I.openRegion();
  Flow F = I.exec(Stmts);
  I.closeRegion();
  return F == Flow::Abort ? Flow::Abort : Flow::Normal;
}

/// Names a statement list binds (not inside nested defs).
static void assignedNames(const StmtList &Body, std::vector<const Expr *> &Out);

static void targetNames(const Expr *T, std::vector<const Expr *> &Out) {
  if (llvm::isa<NameExpr>(T))
    return Out.push_back(T);
  if (auto *Tu = llvm::dyn_cast<TupleExpr>(T))
    for (const ExprPtr &E : Tu->Elts)
      targetNames(E.get(), Out);
  if (auto *L = llvm::dyn_cast<ListExpr>(T))
    for (const ExprPtr &E : L->Elts)
      targetNames(E.get(), Out);
  if (auto *St = llvm::dyn_cast<StarredExpr>(T))
    targetNames(St->Value.get(), Out);
}

static void assignedNames(const StmtList &Body,
                          std::vector<const Expr *> &Out) {
  for (const StmtPtr &S : Body) {
    if (auto *A = llvm::dyn_cast<AssignStmt>(S.get()))
      for (const ExprPtr &T : A->Targets)
        targetNames(T.get(), Out);
    else if (auto *AA = llvm::dyn_cast<AugAssignStmt>(S.get()))
      targetNames(AA->Target.get(), Out);
    else if (auto *AN = llvm::dyn_cast<AnnAssignStmt>(S.get()); AN && AN->Value)
      targetNames(AN->Target.get(), Out);
    else if (auto *F = llvm::dyn_cast<ForStmt>(S.get())) {
      targetNames(F->Target.get(), Out);
      assignedNames(F->Body, Out);
      assignedNames(F->Else, Out);
    } else if (auto *If = llvm::dyn_cast<IfStmt>(S.get())) {
      assignedNames(If->Then, Out);
      assignedNames(If->Else, Out);
    } else if (auto *W = llvm::dyn_cast<WhileStmt>(S.get())) {
      assignedNames(W->Body, Out);
    } else if (auto *T = llvm::dyn_cast<TryStmt>(S.get())) {
      assignedNames(T->Body, Out);
      assignedNames(T->Else, Out);
      assignedNames(T->Finally, Out);
    }
  }
}

/// An `if` on host-only data (the GPU's compute capability, a torch
/// tensor) cannot be decided: every name either branch binds becomes a
/// host-only value, so a kernel that uses one is an error at the use
/// rather than silently seeing the value from before the `if`.
static void bindUndecided(Interp &I, const IfStmt *S) {
  std::vector<const Expr *> Names;
  assignedNames(S->Then, Names);
  assignedNames(S->Else, Names);
  std::string Why =
      "set under host-side condition '" + exprText(S->Cond->getRange()) + "'";
  for (const Expr *N : Names)
    I.bindName(llvm::cast<NameExpr>(N)->Id,
               Value::object(std::make_shared<OpaqueObj>(
                   llvm::cast<NameExpr>(N)->Id + " (" + Why + ")")),
               N->getRange());
}

/// An `if` whose body runs on threads [Lo, Lo + N) only (a T.ws role, one
/// side of a thread split), so that tile operators in it split their work
/// over those threads.
static Flow execThreadRange(Interp &I, ir::Value *Cond, int64_t Lo, int64_t N,
                            const StmtList &Body, bool SplitElse = false) {
  ir::Operation *If = I.B.createIf(Cond);
  If->setAttr("thread_range", ir::Attribute::intArray({Lo, N}));
  // The else half of a thread split runs beside its then half
  // (insert-barriers puts nothing between them).
  if (SplitElse)
    If->setAttr("split_else", ir::Attribute::boolean(true));
  I.RoleThreadCounts.push_back(N);
  ++I.RoleDepth;
  Flow F = execRegion(I, If->getBody(0), Body);
  --I.RoleDepth;
  I.RoleThreadCounts.pop_back();
  return F;
}

/// `with T.ws(g, ...):` - the body runs only on the threads of those warp
/// groups: a runtime `if` on the thread index, which the passes treat as
/// thread-dependent control flow (no block barrier inside).
static Flow execRole(Interp &I, const WithStmt *S, const RoleObj &R) {
  if (S->Items[0].Target || S->Items.size() != 1) {
    I.error(S->Items[0].Context->getRange(), diag::err_ws_groups)
        << "a role block binds no name and takes no other context";
    return Flow::Normal;
  }
  if (R.NoRangeWhy.empty())
    return execThreadRange(I, R.Cond, R.Offset, R.Count, S->Body);
  ir::Operation *If = I.B.createIf(R.Cond);
  I.RolesWithoutRange.push_back(R.NoRangeWhy);
  ++I.RoleDepth;
  Flow F = execRegion(I, If->getBody(0), S->Body);
  --I.RoleDepth;
  I.RolesWithoutRange.pop_back();
  return F;
}

/// Whether V is computed from the thread index (a bounded search).
static bool dependsOnThread(const ir::Value *V, unsigned &Budget) {
  const ir::Operation *Op = V->getDefiningOp();
  if (!Op || Budget == 0)
    return false;
  --Budget;
  if (Op->is(ir::OpKind::ThreadId))
    return true;
  return llvm::any_of(Op->getOperands(), [&](const ir::Value *O) {
    return dependsOnThread(O, Budget);
  });
}

/// A condition on the thread index of a one-dimensional block that holds
/// on one range of it: `tx < K` (`<=`, `>`, `>=`, either operand order)
/// or a conjunction of such bounds (`tx >= 128 and tx < 256`), within the
/// enclosing thread range (a role or a branch of a split). The threads
/// that take the branch must be whole warps, and some; those that do not,
/// when they are one range and some, run the else branch as a range too.
struct ThreadSplit {
  ir::Value *Tid;
  int64_t Lo, Hi;           ///< The branch runs on [Lo, Hi).
  int64_t OuterLo, OuterHi; ///< The enclosing range.
  /// The other threads of the enclosing range as one range (else branch).
  std::optional<std::pair<int64_t, int64_t>> rest() const {
    if (Lo == OuterLo && Hi == OuterHi)
      return std::nullopt;
    if (Lo == OuterLo)
      return std::make_pair(Hi, OuterHi);
    if (Hi == OuterHi)
      return std::make_pair(OuterLo, Lo);
    return std::nullopt;
  }
};

/// Narrows [Lo, Hi) by the bound `Cond` on the thread index (a `cmp` of
/// `thread_id {dim = 0}` with a constant, or an `and` of such); false when
/// Cond is anything else.
static bool narrowByBound(ir::Value *Cond, ir::Value *&Tid, int64_t &Lo,
                          int64_t &Hi) {
  ir::Operation *Op = Cond->getDefiningOp();
  if (Op && Op->is(ir::OpKind::And))
    return narrowByBound(Op->getOperand(0), Tid, Lo, Hi) &&
           narrowByBound(Op->getOperand(1), Tid, Lo, Hi);
  if (!Op || !Op->is(ir::OpKind::Cmp))
    return false;
  auto Pred = ir::parseCmpPred(Op->getStringAttr("pred").value_or(""));
  ir::Value *A = Op->getOperand(0), *B = Op->getOperand(1);
  bool Swapped = !ir::matchConstantInt(B);
  if (Swapped)
    std::swap(A, B);
  auto K = ir::matchConstantInt(B);
  ir::Operation *T = A->getDefiningOp();
  if (!Pred || !K || !T || !T->is(ir::OpKind::ThreadId) ||
      T->getIntAttr("dim").value_or(-1) != 0)
    return false;
  Tid = A;
  ir::CmpPred P = *Pred;
  if (Swapped)
    P = P == ir::CmpPred::Lt   ? ir::CmpPred::Gt
        : P == ir::CmpPred::Le ? ir::CmpPred::Ge
        : P == ir::CmpPred::Gt ? ir::CmpPred::Lt
        : P == ir::CmpPred::Ge ? ir::CmpPred::Le
                               : P;
  if (P == ir::CmpPred::Lt || P == ir::CmpPred::Le)
    Hi = std::min(Hi, *K + (P == ir::CmpPred::Le));
  else if (P == ir::CmpPred::Gt || P == ir::CmpPred::Ge)
    Lo = std::max(Lo, *K + (P == ir::CmpPred::Gt));
  else
    return false;
  return true;
}

/// The threads the innermost enclosing thread-range `if` runs on, or the
/// whole block.
static std::pair<int64_t, int64_t> enclosingRange(Interp &I, int64_t Threads) {
  for (ir::Operation *P = I.B.getInsertionBlock()->getParentOp();
       P && !P->is(ir::OpKind::Kernel); P = P->getParentOp())
    if (auto R = P->getIntArrayAttr("thread_range"); R && R->size() == 2)
      return {(*R)[0], (*R)[0] + (*R)[1]};
  return {0, Threads};
}

static std::optional<ThreadSplit> threadSplit(Interp &I, ir::Value *Cond) {
  std::vector<int64_t> Dims =
      I.CurFunc->Kernel->getIntArrayAttr("threads").value_or(
          std::vector<int64_t>{1});
  if (llvm::any_of(llvm::drop_begin(Dims), [](int64_t D) { return D != 1; }))
    return std::nullopt;
  auto [OuterLo, OuterHi] = enclosingRange(I, Dims[0]);
  ThreadSplit Sp{nullptr, OuterLo, OuterHi, OuterLo, OuterHi};
  if (!narrowByBound(Cond, Sp.Tid, Sp.Lo, Sp.Hi) || Sp.Lo >= Sp.Hi ||
      Sp.Lo % 32 || Sp.Hi % 32)
    return std::nullopt;
  return Sp;
}

/// `if tx < 128: ... else: ...` becomes one ranged `if` per branch; an
/// else whose threads are not one range is a runtime `if` on the thread
/// index, as any other.
static Flow execThreadSplit(Interp &I, const IfStmt *S, ir::Value *Cond,
                            const ThreadSplit &Sp) {
  Flow F = execThreadRange(I, Cond, Sp.Lo, Sp.Hi - Sp.Lo, S->Then);
  if (F == Flow::Abort || S->Else.empty())
    return F;
  // Inside the enclosing range, the rest is one bound away.
  if (auto Rest = Sp.rest()) {
    bool Above = Rest->first == Sp.Hi;
    ir::Value *Other =
        I.B.createCmp(Above ? ir::CmpPred::Ge : ir::CmpPred::Lt, Sp.Tid,
                      I.B.createConstInt(Above ? Sp.Hi : Sp.Lo));
    return execThreadRange(I, Other, Rest->first, Rest->second - Rest->first,
                           S->Else, /*SplitElse=*/true);
  }
  I.RolesWithoutRange.push_back(
      "the threads of this else branch are not one range of the block");
  ir::Operation *Op = I.B.createIf(I.B.createUnary(ir::OpKind::Not, Cond));
  F = execRegion(I, Op->getBody(0), S->Else);
  I.RolesWithoutRange.pop_back();
  return F == Flow::Abort ? Flow::Abort : Flow::Normal;
}

static Flow execRuntimeIf(Interp &I, const IfStmt *S, ir::Value *Cond) {
  if (I.inKernel())
    if (auto Sp = threadSplit(I, Cond))
      return execThreadSplit(I, S, Cond, *Sp);
  // Tile operators under another condition on the thread index would split
  // their work over threads that do not run them.
  unsigned Budget = 64;
  bool Divergent = I.inKernel() && dependsOnThread(Cond, Budget);
  if (Divergent)
    I.RolesWithoutRange.push_back(
        "this branch's condition on the thread index is not 'tx < K' or "
        "'tx >= K' for a multiple K of 32 in a one-dimensional block");
  ir::Operation *Op = I.B.createIf(Cond, !S->Else.empty());
  Flow F = execRegion(I, Op->getBody(0), S->Then);
  if (F != Flow::Abort && !S->Else.empty())
    F = execRegion(I, Op->getBody(1), S->Else);
  if (Divergent)
    I.RolesWithoutRange.pop_back();
  return F == Flow::Abort ? Flow::Abort : Flow::Normal;
}

static Flow execIf(Interp &I, const IfStmt *S) {
  Value C = I.eval(S->Cond.get());
  if (C.isPoison())
    return I.Aborting ? Flow::Abort : Flow::Normal;
  if (isRuntimeLike(C) && I.hasIR()) {
    ir::Value *Cond = I.toRuntime(C, S->Cond->getRange());
    if (!Cond)
      return Flow::Normal;
    return execRuntimeIf(I, S, I.toCondition(Cond));
  }
  auto Taken = I.truthy(C, S->Cond->getRange());
  if (!Taken && C.getAs<OpaqueObj>())
    bindUndecided(I, S);
  if (!Taken)
    return I.Aborting ? Flow::Abort : Flow::Normal;
  return I.exec(*Taken ? S->Then : S->Else);
}

/// Runs a host loop body; returns true when the loop must stop, with the
/// flow to propagate in Out.
static bool hostLoopStep(Interp &I, const StmtList &Body, Flow &Out,
                         bool &Broke) {
  Flow F = I.exec(Body);
  if (F == Flow::Break) {
    Broke = true;
    Out = Flow::Normal;
    return true;
  }
  if (F == Flow::Return || F == Flow::Abort) {
    Out = F;
    return true;
  }
  return false;
}

static Flow execHostFor(Interp &I, const ForStmt *S, const Value &Iter) {
  auto Items = I.iterate(Iter, S->Iter->getRange());
  if (!Items)
    return I.Aborting ? Flow::Abort : Flow::Normal;
  I.frame().Loops.push_back({false, I.frame().Regions.size()});
  Flow Out = Flow::Normal;
  bool Broke = false;
  for (const Value &Item : *Items) {
    I.assign(S->Target.get(), Item, S->Iter->getRange());
    if (hostLoopStep(I, S->Body, Out, Broke))
      break;
  }
  I.frame().Loops.pop_back();
  if (Out == Flow::Normal && !Broke && !S->Else.empty())
    return I.exec(S->Else);
  return Out;
}

static Flow execFor(Interp &I, const ForStmt *S) {
  Value Iter = I.eval(S->Iter.get());
  if (Iter.isPoison())
    return I.Aborting ? Flow::Abort : Flow::Normal;
  auto *L = Iter.getAs<LoopObj>();
  if (L && (L->LK != LoopObj::LoopKind::Range || I.inKernel())) {
    if (!S->Else.empty())
      I.error(S->Else.front()->getRange(), diag::err_feature_unsupported)
          << "'else' on a kernel loop";
    return I.execRuntimeFor(S, *L);
  }
  return execHostFor(I, S, Iter);
}

static Flow execHostWhile(Interp &I, const WhileStmt *S) {
  I.frame().Loops.push_back({false, I.frame().Regions.size()});
  Flow Out = Flow::Normal;
  bool Broke = false;
  for (uint64_t N = 0;; ++N) {
    if (N > I.Opts.MaxLoopIterations) {
      I.fatal(S->Cond->getRange(), diag::err_loop_limit)
          << I.Opts.MaxLoopIterations;
      Out = Flow::Abort;
      break;
    }
    auto C = I.truthy(I.eval(S->Cond.get()), S->Cond->getRange());
    if (!C || !*C || hostLoopStep(I, S->Body, Out, Broke))
      break;
  }
  I.frame().Loops.pop_back();
  if (I.Aborting)
    return Flow::Abort;
  if (Out == Flow::Normal && !Broke && !S->Else.empty())
    return I.exec(S->Else);
  return Out;
}

/// A `while` in kernel code: a while op when the condition is runtime.
static Flow execWhile(Interp &I, const WhileStmt *S) {
  if (!I.inKernel())
    return execHostWhile(I, S);
  ir::Operation *Op = I.B.createWhile();
  Value C;
  {
    ir::Builder::InsertionGuard G(I.B);
    I.B.setInsertionPointToEnd(Op->getBody(0));
    C = I.eval(S->Cond.get());
    if (isRuntimeLike(C)) {
      ir::Value *Cond = I.toRuntime(C, S->Cond->getRange());
      if (Cond)
        I.B.createCondition(I.toCondition(Cond));
    }
  }
  if (!isRuntimeLike(C)) {
    Op->erase();
    return execHostWhile(I, S);
  }
  ir::Builder::InsertionGuard G(I.B);
  I.B.setInsertionPointToEnd(Op->getBody(1));
  I.frame().Loops.push_back({true, I.frame().Regions.size()});
  I.openRegion();
  Flow F = I.exec(S->Body);
  I.closeRegion();
  I.frame().Loops.pop_back();
  return F == Flow::Abort ? Flow::Abort : Flow::Normal;
}

static Flow execLoopExit(Interp &I, const Stmt *S, bool IsBreak) {
  Frame &F = I.frame();
  if (F.Loops.empty()) {
    I.error(S->getRange(), IsBreak ? diag::err_break_outside_loop
                                   : diag::err_continue_outside_loop);
    return Flow::Normal;
  }
  const LoopInfo &L = F.Loops.back();
  if (L.Runtime) {
    if (IsBreak)
      I.B.createBreak();
    else
      I.B.createContinue();
  } else if (F.Regions.size() > L.RegionDepth) {
    I.error(S->getRange(), diag::err_feature_unsupported)
        << std::string(IsBreak ? "'break'" : "'continue'") +
               " out of a compile-time loop under a runtime condition";
    return Flow::Normal;
  }
  return IsBreak ? Flow::Break : Flow::Continue;
}

static Flow execReturn(Interp &I, const ReturnStmt *S) {
  Frame &F = I.frame();
  if (F.IsKernelBody && I.inKernel()) {
    I.error(S->getRange(), diag::err_return_in_kernel);
    return Flow::Normal;
  }
  if (!F.Regions.empty()) {
    I.error(S->getRange(), diag::err_feature_unsupported)
        << "'return' under a runtime condition";
    return Flow::Normal;
  }
  F.ReturnValue = S->Value ? I.eval(S->Value.get()) : Value::none();
  return I.Aborting ? Flow::Abort : Flow::Return;
}

static std::string assertMessage(Interp &I, const AssertStmt *S) {
  Value M = I.eval(S->Msg.get());
  return M.isStr() ? M.getStr() : repr(M);
}

/// An assert on symbolic dims in factory code: the launcher checks it.
/// Its message is the condition over the launcher's symbol arguments
/// (`S % 64 == 0`), then the assert's own message.
static Flow deferAssert(Interp &I, const AssertStmt *S, const Value &Cond) {
  auto *E = Cond.getAs<SymExprObj>();
  std::string Msg = E ? E->Text : symbolicText(Cond);
  if (S->Msg)
    Msg += ": " + assertMessage(I, S);
  I.deferAssert(Cond, Msg, S->Test->getRange());
  return Flow::Normal;
}

static Flow execAssert(Interp &I, const AssertStmt *S) {
  Value V = I.eval(S->Test.get());
  if (V.isPoison())
    return I.Aborting ? Flow::Abort : Flow::Normal;
  if (isSymbolic(V) && !I.hasIR())
    return deferAssert(I, S, V);
  if (isRuntimeLike(V)) {
    I.reportNotCompileTime(V, S->Test->getRange(), "an assert condition");
    return Flow::Normal;
  }
  auto T = I.truthy(V, S->Test->getRange());
  if (!T || *T)
    return Flow::Normal;
  // The message is evaluated before fatal() starts unwinding.
  std::string Msg = S->Msg ? ": " + assertMessage(I, S) : "";
  I.fatal(S->Test->getRange(), diag::err_assert_failed) << Msg;
  return Flow::Abort;
}

static Flow execRaise(Interp &I, const RaiseStmt *S) {
  std::string Msg = "exception";
  if (S->Exc) {
    Value V = I.eval(S->Exc.get());
    if (V.getAs<OpaqueObj>() && !I.hasIR())
      return Flow::Normal;
    Msg = V.isStr() ? V.getStr() : exprText(S->Exc->getRange());
  }
  I.fatal(S->getRange(), diag::err_raise) << Msg;
  return Flow::Abort;
}

/// An expression run for its effect. Inside a kernel, one whose value is
/// host-only (a call of a library object tilec does not model, such as
/// TileLang's MMA emitter macros) would emit nothing: an error, not a
/// kernel silently missing the statement. TileLang's tools
/// (`tilelang.tools.*`: profiling markers such as iket.mark) only observe
/// a kernel, so dropping their calls leaves what it computes unchanged.
static Flow execExprStmt(Interp &I, const ExprStmt *S) {
  Value V = I.eval(S->Value.get());
  auto *Host = V.getAs<OpaqueObj>();
  if (I.inKernel() && Host && !I.Aborting &&
      !llvm::StringRef(Host->Path).startswith("tilelang.tools."))
    I.reportHostValue(V, S->Value->getRange());
  return I.Aborting ? Flow::Abort : Flow::Normal;
}

//===----------------------------------------------------------------------===//
// Dispatch
//===----------------------------------------------------------------------===//

/// True for `T.Kernel(...)` (any spelling of the callee ending in Kernel).
static bool isKernelCall(const Expr *E) {
  auto *C = llvm::dyn_cast<CallExpr>(E);
  if (!C)
    return false;
  if (auto *A = llvm::dyn_cast<AttributeExpr>(C->Callee.get()))
    return A->Attr == "Kernel";
  auto *N = llvm::dyn_cast<NameExpr>(C->Callee.get());
  return N && N->Id == "Kernel";
}

/// `with T.Kernel(...) as bx, probe.range("k"):` - the items after the
/// kernel may only be host-side context managers (profiling ranges), which
/// have no effect on the generated code.
static bool ignoreExtraItems(Interp &I, const WithStmt *S) {
  for (size_t K = 1; K < S->Items.size(); ++K) {
    const Expr *E = S->Items[K].Context.get();
    Value V = I.eval(E);
    if (V.isPoison())
      return false;
    if (!V.getAs<OpaqueObj>()) {
      I.error(E->getRange(), diag::err_feature_unsupported)
          << "a second tile-language context in one 'with'";
      return false;
    }
    I.warning(E->getRange(), diag::warn_ignored_context)
        << exprText(E->getRange());
  }
  return true;
}

/// `with torch.no_grad(), open(p) as f:` in host code: host context
/// managers are not modelled; the body runs with each target bound to a
/// host-only value.
static Flow execHostWith(Interp &I, const WithStmt *S) {
  for (const WithItem &It : S->Items) {
    Value V = I.eval(It.Context.get());
    if (V.isPoison())
      return I.Aborting ? Flow::Abort : Flow::Normal;
    if (!V.getAs<OpaqueObj>()) {
      I.error(It.Context->getRange(), diag::err_feature_unsupported)
          << "this 'with' statement (only 'with T.Kernel(...)' is)";
      return Flow::Normal;
    }
    if (It.Target)
      I.assign(It.Target.get(),
               Value::object(std::make_shared<OpaqueObj>(
                   exprText(It.Context->getRange()) + ".__enter__()")),
               It.Context->getRange());
  }
  return I.exec(S->Body);
}

/// `with T.attr(T.comm_reducer(...), "reduce_scope", ...)`: the body's
/// T.tvm_thread_allreduce calls combine with that reducer. No other
/// attribute has a meaning here.
static Flow execAttrScope(Interp &I, const WithStmt *S, const AttrScopeObj &A) {
  auto R = A.Node.getAs<CommReducerObj>();
  if (A.Key != "reduce_scope" || !R) {
    I.error(S->Items[0].Context->getRange(), diag::err_feature_unsupported)
        << "T.attr with key '" + A.Key +
               "' (only a T.comm_reducer's \"reduce_scope\" is)";
    return Flow::Normal;
  }
  I.ReduceScopes.push_back(
      std::static_pointer_cast<CommReducerObj>(A.Node.getObjectPtr()));
  Flow F = I.exec(S->Body);
  I.ReduceScopes.pop_back();
  return F;
}

static Flow execWith(Interp &I, const WithStmt *S) {
  if (!I.hasIR() && !isKernelCall(S->Items[0].Context.get()))
    return execHostWith(I, S);
  // An eager kernel's signature is complete once its first kernel starts;
  // the grid may already read symbolic dims.
  if (I.Eager && !I.hasIR() && isKernelCall(S->Items[0].Context.get()))
    I.sealEagerSignature(S->getRange());
  if (S->Items.size() == 1 || isKernelCall(S->Items[0].Context.get())) {
    if (!ignoreExtraItems(I, S))
      return Flow::Normal;
    Value Ctx = I.eval(S->Items[0].Context.get());
    if (Ctx.isPoison())
      return I.Aborting ? Flow::Abort : Flow::Normal;
    if (auto *K = Ctx.getAs<KernelSpecObj>())
      return I.execKernel(S, *K);
    if (auto *R = Ctx.getAs<RoleObj>())
      return execRole(I, S, *R);
    if (auto *A = Ctx.getAs<AttrScopeObj>())
      return execAttrScope(I, S, *A);
  }
  I.error(S->Items[0].Context->getRange(), diag::err_feature_unsupported)
      << "this 'with' statement (only 'with T.Kernel(...)' is)";
  return Flow::Normal;
}

static Flow execAnnAssign(Interp &I, const AnnAssignStmt *S) {
  auto *N = llvm::dyn_cast<NameExpr>(S->Target.get());
  if (N && I.Eager && !S->Value) {
    I.declareEagerParam(N, S->Annotation.get());
    return I.Aborting ? Flow::Abort : Flow::Normal;
  }
  if (!S->Value)
    return Flow::Normal;
  Value V = I.eval(S->Value.get());
  I.assign(S->Target.get(), V, S->Value->getRange());
  return I.Aborting ? Flow::Abort : Flow::Normal;
}

static Flow dispatch(Interp &I, const Stmt *S) {
  switch (S->getKind()) {
  case Stmt::Kind::Expr:
    return execExprStmt(I, llvm::cast<ExprStmt>(S));
  case Stmt::Kind::Assign:
    return execAssign(I, llvm::cast<AssignStmt>(S));
  case Stmt::Kind::AugAssign:
    return execAugAssign(I, llvm::cast<AugAssignStmt>(S));
  case Stmt::Kind::AnnAssign:
    return execAnnAssign(I, llvm::cast<AnnAssignStmt>(S));
  case Stmt::Kind::If:
    return execIf(I, llvm::cast<IfStmt>(S));
  case Stmt::Kind::For:
    return execFor(I, llvm::cast<ForStmt>(S));
  case Stmt::Kind::While:
    return execWhile(I, llvm::cast<WhileStmt>(S));
  case Stmt::Kind::With:
    return execWith(I, llvm::cast<WithStmt>(S));
  case Stmt::Kind::Break:
    return execLoopExit(I, S, true);
  case Stmt::Kind::Continue:
    return execLoopExit(I, S, false);
  case Stmt::Kind::Pass:
    return Flow::Normal;
  case Stmt::Kind::Return:
    return execReturn(I, llvm::cast<ReturnStmt>(S));
  case Stmt::Kind::FunctionDef:
    return execFunctionDef(I, llvm::cast<FunctionDefStmt>(S));
  case Stmt::Kind::Import:
    return execImport(I, llvm::cast<ImportStmt>(S));
  case Stmt::Kind::ImportFrom:
    return execImportFrom(I, llvm::cast<ImportFromStmt>(S));
  case Stmt::Kind::Assert:
    return execAssert(I, llvm::cast<AssertStmt>(S));
  case Stmt::Kind::Raise:
    return execRaise(I, llvm::cast<RaiseStmt>(S));
  case Stmt::Kind::Try:
    return execTry(I, llvm::cast<TryStmt>(S));
  case Stmt::Kind::ClassDef:
    return execClassDef(I, llvm::cast<ClassDefStmt>(S));
  case Stmt::Kind::Global:
  case Stmt::Kind::Nonlocal:
    return execScopeDecl(I, llvm::cast<ScopeDeclStmt>(S));
  case Stmt::Kind::Delete:
    return execDelete(I, llvm::cast<DeleteStmt>(S));
  }
  return Flow::Normal;
}

Flow Interp::exec(const Stmt *S) {
  if (Aborting)
    return Flow::Abort;
  if (++Steps > Opts.MaxSteps) {
    fatal(S->getRange(), diag::err_loop_limit) << Opts.MaxSteps;
    return Flow::Abort;
  }
  StmtLoc L(B, S->getRange());
  return dispatch(*this, S);
}

Flow Interp::exec(const StmtList &Body) {
  for (const StmtPtr &S : Body) {
    Flow F = exec(S.get());
    if (F != Flow::Normal)
      return F;
  }
  return Flow::Normal;
}
