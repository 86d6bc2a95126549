//===- CallSites.cpp - Arguments a file's driver gives its kernels --------===//
//
// Runs a file's host driver in a quiet interpreter of its own and records
// the arguments of the first call of each kernel function (CallSites.h).
// The driver runs with __name__ == "__main__"; a call of a recorded
// function does not run it (it yields a host-only value), and the driver is
// stopped at the first Python call after every function has a complete
// call.
//
//===----------------------------------------------------------------------===//

#include "CallSites.h"
#include "HostModel.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace tilec;
using namespace tilec::sema;
using namespace tilec::ast;

const Value *CallSite::find(llvm::StringRef Name) const {
  for (const auto &[N, V] : Args)
    if (N == Name)
      return &V;
  return nullptr;
}

bool sema::isHostData(const Value &V) {
  if (V.isPoison())
    return true;
  if (V.isSequence())
    return llvm::any_of(V.elts(), isHostData);
  auto *O = V.getAs<OpaqueObj>();
  return O && !O->Model && !namedDType(V);
}

namespace {

/// Args of a call of F by parameter name; positionals past the named
/// parameters (into *args) are dropped.
CallSite bindByName(const FunctionObj &F, const CallArgs &Args,
                    llvm::SMRange R) {
  CallSite S;
  S.Range = R;
  size_t Pos = 0;
  for (const Param &P : *F.Params) {
    if (P.K != Param::Kind::Normal || P.KwOnly || Pos == Args.Pos.size())
      continue;
    S.Args.emplace_back(P.Name, Args.Pos[Pos++]);
  }
  for (const auto &KV : Args.Kw)
    S.Args.push_back(KV);
  S.Complete = llvm::none_of(
      S.Args, [](const auto &KV) { return isHostData(KV.second); });
  return S;
}

class Recorder {
public:
  Recorder(Interp &I, llvm::ArrayRef<WantedKernel> Kernels) : I(I) {
    for (const WantedKernel &K : Kernels)
      Wanted.insert(K.Def);
  }

  std::optional<Value> onCall(FunctionObj &F, CallArgs &Args, llvm::SMRange R) {
    // Unwind the driver once nothing more is to be learnt from it: at the
    // next call after the last recorded one, so that the statement that
    // made it still runs (`AutoTuner.from_kernel(kernel=f(), ...)`).
    if (done()) {
      I.Aborting = true;
      return Value::poison();
    }
    if (!F.Def || !Wanted.count(F.Def))
      return std::nullopt;
    CallSite S = bindByName(F, Args, R);
    auto It = Sites.find(F.Def);
    if (It == Sites.end() || (!It->second.Complete && S.Complete))
      Sites[F.Def] = std::move(S);
    auto Result = std::make_shared<OpaqueObj>(F.Name + "(...)");
    Results[Result.get()] = F.Def;
    return Value::object(std::move(Result));
  }

  /// `AutoTuner.from_kernel(kernel=f(...), configs=C)` of a recorded call's
  /// result: C configures what f returns.
  void onTuner(const Value &Kernel, const Value &Configs) {
    auto *O = Kernel.getAs<OpaqueObj>();
    auto It = O ? Results.find(O) : Results.end();
    if (It != Results.end())
      Sites[It->second].TunerConfigs = Configs;
  }

  bool done() const {
    return llvm::all_of(Wanted, [&](const FunctionDefStmt *D) {
      auto It = Sites.find(D);
      return It != Sites.end() && It->second.Complete;
    });
  }

  CallSiteMap Sites;

private:
  Interp &I;
  llvm::SmallPtrSet<const FunctionDefStmt *, 4> Wanted;
  /// The values recorded calls returned, and the function called.
  llvm::DenseMap<const OpaqueObj *, const FunctionDefStmt *> Results;
};

/// `if __name__ == "__main__":`
bool isMainGuard(const Stmt *S) {
  auto *If = llvm::dyn_cast<IfStmt>(S);
  auto *C = If ? llvm::dyn_cast<CompareExpr>(If->Cond.get()) : nullptr;
  auto *N = C ? llvm::dyn_cast<NameExpr>(C->Left.get()) : nullptr;
  return N && N->Id == "__name__";
}

/// Runs the driver statements of the module.
void runDriver(Interp &I, const Module &M) {
  for (const StmtPtr &S : M.Body) {
    if (!isMainGuard(S.get()) && !llvm::isa<ExprStmt>(S.get()))
      continue;
    I.exec(S.get());
    if (I.Aborting)
      return;
  }
}

/// Runs eager kernel F's declarations as the call S would and reads the
/// extents of the tensors S passes into S.ConstHints.
void probeConstHints(Interp &I, FunctionObj &F, CallSite &S) {
  CallArgs Args;
  for (const auto &[Name, V] : S.Args) {
    const std::string &Arg = Name; // lambdas cannot capture bindings (C++17)
    if (llvm::none_of(*F.Params,
                      [&](const Param &P) { return P.Name == Arg; })) {
      S.ConstHints.try_emplace(Name, V);
      continue;
    }
    bool Known = !isHostData(V) && !hostModelOf<TensorModel>(V);
    Args.Kw.emplace_back(Name, Known ? V : Value::none());
    Args.KwRanges.push_back(F.NameRange);
  }
  I.OnTensorParam = [&](llvm::StringRef Name, llvm::ArrayRef<ir::Dim> Dims) {
    const Value *V = S.find(Name);
    auto *T = V ? hostModelOf<TensorModel>(*V) : nullptr;
    if (!T || T->Shape.size() != Dims.size())
      return;
    for (size_t K = 0; K < Dims.size(); ++K)
      if (Dims[K].isSymbolic() && T->Shape[K].isInt())
        S.ConstHints.try_emplace(Dims[K].getSymbol(), T->Shape[K]);
  };
  I.Aborting = false;
  I.buildEagerFunc(F, Args, F.NameRange);
  I.OnTensorParam = nullptr;
}

/// Calls the module-level function D when it needs no arguments.
void runEntry(Interp &I, const FunctionDefStmt *D) {
  Value *V = I.ModuleScope->lookupLocal(D->Name);
  auto *F = V ? V->getAs<FunctionObj>() : nullptr;
  if (!F || F->Def != D || F->Traits.IsPrimFunc || F->Traits.IsJit)
    return;
  for (size_t K = 0; K < F->Params->size(); ++K)
    if ((*F->Params)[K].K == Param::Kind::Normal && !F->HasDefault[K])
      return;
  CallArgs None;
  I.Aborting = false;
  I.callFunction(*F, None, F->NameRange);
}

/// Entry points for files whose driver reaches no kernel: `main()`, then
/// pytest's `test*` functions, in source order.
void runEntries(Interp &I, const Module &M, const Recorder &Rec) {
  for (llvm::StringRef Prefix : {"main", "test"})
    for (const StmtPtr &S : M.Body) {
      auto *D = llvm::dyn_cast<FunctionDefStmt>(S.get());
      if (!D || Rec.done() ||
          !(Prefix == "main" ? D->Name == "main"
                             : llvm::StringRef(D->Name).startswith(Prefix)))
        continue;
      runEntry(I, D);
    }
}

} // namespace

CallSiteMap sema::findCallSites(const Module &M, llvm::SourceMgr &SM,
                                const SemaOptions &Opts,
                                llvm::ArrayRef<WantedKernel> Wanted,
                                ImportedFiles *Files) {
  DiagnosticEngine Quiet(SM, Opts.ShowDriverErrors ? &llvm::errs()
                                                   : &llvm::nulls());
  Interp I(SM, Quiet, Opts);
  I.Files = Files;
  std::unique_ptr<ir::Operation> Scratch = ir::createModuleOp();
  I.ModuleOp = Scratch.get();
  Recorder Rec(I, Wanted);
  I.OnCall = [&](FunctionObj &F, CallArgs &Args, llvm::SMRange R) {
    return Rec.onCall(F, Args, R);
  };
  I.OnTuner = [&](const Value &Kernel, const Value &Configs) {
    Rec.onTuner(Kernel, Configs);
  };
  if (!I.runModule(M) && !Rec.done())
    return std::move(Rec.Sites);
  I.Aborting = false;
  I.ModuleScope->set("__name__", Value::str("__main__"));
  runDriver(I, M);
  runEntries(I, M, Rec);
  I.OnCall = nullptr;
  I.OnTuner = nullptr;
  for (const WantedKernel &K : Wanted) {
    auto It = Rec.Sites.find(K.Def);
    Value *F = I.ModuleScope->lookupLocal(K.Def->Name);
    if (K.Eager && It != Rec.Sites.end() && F && F->getAs<FunctionObj>())
      probeConstHints(I, *F->getAs<FunctionObj>(), It->second);
  }
  return std::move(Rec.Sites);
}
