//===- ReducerUpdates.cpp - The uses of T.alloc_reducer buffers -----------===//

#include "ReducerUpdates.h"
#include "IndexExprToIR.h"
#include "tilec/IR/Builder.h"
#include "tilec/IR/ConstantMatch.h"
#include "tilec/Layout/LayoutParser.h"
#include "tilec/Layout/Simplify.h"
#include "tilec/Support/Diagnostics.h"
#include <map>

using namespace tilec;
using namespace tilec::ir;

namespace {

enum class Phase { Init, Updating, Finalized };

struct ReducerState {
  OpKind Combine;
  bool IsSum;
  Phase P = Phase::Init;
};

/// The reducer an access (load or store) addresses, if any.
Value *accessedBuffer(const Operation &Op) {
  if (Op.is(OpKind::Load))
    return Op.getGroup(0)[0];
  if (Op.is(OpKind::Store))
    return Op.getGroup(1)[0];
  return nullptr;
}

/// The index operands of a load or store.
llvm::ArrayRef<Value *> accessIndices(const Operation &Op) {
  return Op.getGroup(Op.is(OpKind::Load) ? 0 : 1).drop_front();
}

bool sameIndex(Value *A, Value *B) {
  if (A == B)
    return true;
  auto CA = matchConstantInt(A), CB = matchConstantInt(B);
  return CA && CB && *CA == *CB;
}

class KernelChecker {
public:
  KernelChecker(Operation &Kernel, DiagnosticEngine &Diags)
      : Kernel(Kernel), Diags(Diags) {}

  bool run() {
    Kernel.walk([&](Operation &Op) {
      if (Op.is(OpKind::Alloc) && Op.getAttr("reducer"))
        addReducer(Op);
      else if (!Reducers.empty())
        visit(Op);
    });
    if (!OK)
      return false;
    for (Operation *Store : Guarded)
      guardReplicas(*Store);
    return true;
  }

private:
  Operation &Kernel;
  DiagnosticEngine &Diags;
  std::map<Value *, ReducerState> Reducers;
  /// Updates in replicated loops: they must run on replica 0 only.
  std::vector<Operation *> Guarded;
  bool OK = true;

  void addReducer(Operation &Alloc) {
    llvm::StringRef K = Alloc.getStringAttr("reducer").value_or("sum");
    OpKind Combine = K == "max"   ? OpKind::Max
                     : K == "min" ? OpKind::Min
                                  : OpKind::Add;
    Reducers[Alloc.getResult()] = {Combine, K == "sum"};
  }

  void visit(Operation &Op) {
    if (Value *Buf = accessedBuffer(Op)) {
      auto It = Reducers.find(Buf);
      if (It == Reducers.end())
        return;
      if (Op.is(OpKind::Load))
        checkLoad(Op, It->second);
      else
        checkStore(Op, It->second);
      return;
    }
    for (Value *V : Op.getOperands()) {
      auto It = Reducers.find(V);
      if (It == Reducers.end())
        continue;
      if (Op.is(OpKind::FinalizeReducer) && It->second.P != Phase::Finalized) {
        It->second.P = Phase::Finalized;
        continue;
      }
      if (It->second.P != Phase::Finalized)
        fail(Op, V, "it is used before T.finalize_reducer");
      else if (Op.is(OpKind::FinalizeReducer))
        fail(Op, V, "T.finalize_reducer runs twice");
    }
  }

  /// The update store `%c = K(load %r[idx], x); store %c, %r[idx]` that
  /// \p Store is, or false.
  bool isUpdate(const Operation &Store, const ReducerState &S) {
    const Operation *C = Store.getGroup(0)[0]->getDefiningOp();
    if (!C || !C->is(S.Combine))
      return false;
    Value *R = accessedBuffer(Store);
    return llvm::any_of(C->getOperands(), [&](Value *V) {
      const Operation *L = V->getDefiningOp();
      if (!L || !L->is(OpKind::Load) || accessedBuffer(*L) != R)
        return false;
      auto LI = accessIndices(*L), SI = accessIndices(Store);
      if (LI.size() != SI.size())
        return false;
      for (unsigned K = 0; K != LI.size(); ++K)
        if (!sameIndex(LI[K], SI[K]))
          return false;
      return true;
    });
  }

  void checkLoad(Operation &Load, const ReducerState &S) {
    if (S.P == Phase::Finalized)
      return;
    bool OwnRead = llvm::all_of(Load.getResult()->getUses(), [&](Use U) {
      return U.User->getNumResults() == 1 &&
             llvm::all_of(U.User->getResult()->getUses(), [&](Use W) {
               return W.User->is(OpKind::Store) && W.Index == 0 &&
                      isUpdate(*W.User, S);
             });
    });
    if (!OwnRead)
      fail(Load, accessedBuffer(Load),
           "it is read before T.finalize_reducer (its registers hold "
           "per-thread partial results until then)");
  }

  void checkStore(Operation &Store, ReducerState &S) {
    Value *R = accessedBuffer(Store);
    if (S.P == Phase::Finalized)
      return fail(Store, R, "it is written after T.finalize_reducer");
    if (isUpdate(Store, S))
      return checkUpdate(Store, S);
    if (S.P == Phase::Updating)
      return fail(Store, R,
                  "a plain store after its updates would discard "
                  "partial results; update it with its combining op");
    auto C = matchConstant(Store.getGroup(0)[0]);
    if (!C)
      return fail(Store, R,
                  "it can only be initialized with a constant (T.clear, "
                  "T.fill) before its updates");
    bool Zero = C->isInt() ? C->Int == 0 : C->Float == 0.0;
    if (S.IsSum && !Zero)
      fail(Store, R,
           "a sum reducer starts at 0 (each thread holding a copy would "
           "add a non-zero start value once per copy)");
  }

  void checkUpdate(Operation &Store, ReducerState &S) {
    Operation *Loop = Store.getParentOfKind(OpKind::Parallel);
    if (!Loop)
      return fail(Store, accessedBuffer(Store),
                  "it is updated outside a T.Parallel loop, where every "
                  "thread would add the contribution");
    S.P = Phase::Updating;
    std::string Error;
    auto L = layout::parseFragment(
        Loop->getStringAttr("loop_layout").value_or(""), Error);
    if (!L)
      return fail(Store, accessedBuffer(Store),
                  "its loop has no layout; run layout-inference first");
    if (L->getReplicateSize() > 1)
      Guarded.push_back(&Store);
  }

  /// Wraps an update in `if loop.thread(vars, rep = 0) == tx`.
  void guardReplicas(Operation &Store) {
    Operation *Loop = Store.getParentOfKind(OpKind::Parallel);
    std::string Error;
    auto L = layout::parseFragment(
        Loop->getStringAttr("loop_layout").value_or(""), Error);
    layout::VarMap Rep0;
    Rep0["rep"] = layout::IndexExpr(0);
    AtomValues Atoms;
    std::vector<Value *> Vars = Loop->getBody().getArguments();
    for (unsigned K = 0; K != Vars.size(); ++K)
      Atoms[layout::Fragment::inputVarName(K)] = Vars[K];
    Builder B;
    B.setInsertionPoint(&Store);
    B.setLoc(Store.getLoc());
    layout::IndexExpr Owner =
        layout::simplify(layout::substitute(L->getForwardThread(), Rep0));
    Value *Cond = B.createCmp(CmpPred::Eq, emitIndexExpr(B, Owner, Atoms),
                              emitRangeThreadId(B, *Loop));
    Store.moveToEnd(B.createIf(Cond)->getBody(0));
  }

  void fail(Operation &Op, Value *R, const std::string &Why) {
    Diags.report(Op.getLoc(), diag::err_reducer_use)
        << R->getNameHint().str() << Why;
    OK = false;
  }
};

class ReducerUpdatesPass : public Pass {
public:
  llvm::StringRef name() const override { return "reducer-updates"; }
  llvm::StringRef description() const override {
    return "Check the uses of T.alloc_reducer buffers and run each update "
           "once per loop iteration";
  }

  bool run(Operation &Module, PassContext &Ctx) override {
    std::vector<Operation *> Kernels = Module.collect(OpKind::Kernel);
    bool OK = true;
    for (Operation *K : Kernels)
      OK &= KernelChecker(*K, Ctx.Diags).run();
    return OK;
  }
};

} // namespace

std::unique_ptr<Pass> tilec::createReducerUpdatesPass() {
  return std::make_unique<ReducerUpdatesPass>();
}
