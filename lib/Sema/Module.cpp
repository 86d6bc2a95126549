//===- Module.cpp - Module level: kernel discovery and buildModule --------===//
//
// 1. Runs the module body: imports, constants (a -D value replaces the
//    assignment of a module-level name), function definitions. Bare
//    expression statements at module level are host driver code and are
//    skipped; `__name__` is "tilec", so `if __name__ == "__main__":` blocks
//    do not run.
// 2. Finds kernels among the top-level functions, in source order:
//      - `@T.prim_func def f(...)`: kernel `f`;
//      - a factory: a function whose body defines a `@T.prim_func`; it is
//        called with -D values or its defaults and must return a
//        prim_func, which becomes kernel <factory name>;
//      - an eager `@tilelang.jit` function whose body holds
//        `with T.Kernel(...)` directly: kernel <function name>.
// 3. Builds the selected kernels into one module op.
//
//===----------------------------------------------------------------------===//

#include "Builtins.h"
#include "CallSites.h"
#include "HostModel.h"
#include "Interp.h"
#include "tilec/IR/Verifier.h"
#include "tilec/Support/Target.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

using namespace tilec;
using namespace tilec::sema;
using namespace tilec::ast;

Interp::Interp(llvm::SourceMgr &SM, DiagnosticEngine &Diags,
               const SemaOptions &Opts)
    : SM(SM), Diags(Diags), Opts(Opts) {
  ModuleScope = std::make_shared<Scope>();
  auto F = std::make_unique<Frame>();
  F->Locals = ModuleScope;
  F->FuncName = "<module>";
  Frames.push_back(std::move(F));
  ModuleScope->set("__name__", Value::str("tilec"));
}

namespace {
enum class KernelKind { PrimFunc, Factory, Eager };

struct KernelCandidate {
  KernelKind Kind;
  const FunctionDefStmt *Def;
  std::string Name;
};

/// The last dotted component of a decorator's callee ("prim_func" for
/// `@T.prim_func`, "jit" for `@tilelang.jit(out_idx=[2])`).
std::string decoratorName(const Expr *D) {
  if (auto *C = llvm::dyn_cast<CallExpr>(D))
    D = C->Callee.get();
  if (auto *A = llvm::dyn_cast<AttributeExpr>(D))
    return A->Attr;
  if (auto *N = llvm::dyn_cast<NameExpr>(D))
    return N->Id;
  return "";
}

/// `NAME = ...` at module level with -D NAME given: bind the -D value.
bool applyDefine(Interp &I, const Stmt *S) {
  const Expr *Target = nullptr;
  if (auto *A = llvm::dyn_cast<AssignStmt>(S); A && A->Targets.size() == 1)
    Target = A->Targets[0].get();
  else if (auto *AA = llvm::dyn_cast<AnnAssignStmt>(S); AA && AA->Value)
    Target = AA->Target.get();
  auto *N = llvm::dyn_cast_or_null<NameExpr>(Target);
  if (!N)
    return false;
  auto It = I.Opts.Defines.find(N->Id);
  if (It == I.Opts.Defines.end())
    return false;
  I.bindName(N->Id, parseDefineValue(It->second), N->getRange());
  return true;
}

/// Calls Fn on every statement list nested in Body (not into defs).
void forEachBlock(const StmtList &Body,
                  llvm::function_ref<void(const StmtList &)> Fn) {
  Fn(Body);
  for (const StmtPtr &S : Body) {
    if (auto *If = llvm::dyn_cast<IfStmt>(S.get())) {
      forEachBlock(If->Then, Fn);
      forEachBlock(If->Else, Fn);
    } else if (auto *For = llvm::dyn_cast<ForStmt>(S.get())) {
      forEachBlock(For->Body, Fn);
    } else if (auto *W = llvm::dyn_cast<WhileStmt>(S.get())) {
      forEachBlock(W->Body, Fn);
    } else if (auto *With = llvm::dyn_cast<WithStmt>(S.get())) {
      forEachBlock(With->Body, Fn);
    }
  }
}

/// A `@T.prim_func` defined in D's body, or in a helper defined there
/// (`def kernel_func(block_M, ...)` returning the prim_func).
bool definesPrimFunc(const FunctionDefStmt *D, unsigned Depth = 0) {
  bool Found = false;
  forEachBlock(D->Body, [&](const StmtList &Block) {
    for (const StmtPtr &S : Block) {
      auto *F = llvm::dyn_cast<FunctionDefStmt>(S.get());
      if (!F)
        continue;
      for (const ExprPtr &Dec : F->Decorators)
        Found |= decoratorName(Dec.get()) == "prim_func";
      Found |= Depth < 4 && definesPrimFunc(F, Depth + 1);
    }
  });
  return Found;
}

bool opensKernel(const FunctionDefStmt *D) {
  bool Found = false;
  forEachBlock(D->Body, [&](const StmtList &Block) {
    for (const StmtPtr &S : Block)
      if (auto *W = llvm::dyn_cast<WithStmt>(S.get()))
        for (const WithItem &It : W->Items)
          Found |= decoratorName(It.Context.get()) == "Kernel";
  });
  return Found;
}

/// Parameters of an eager kernel annotated as tensors in its body.
std::vector<bool> tensorParams(const FunctionDefStmt *D) {
  std::vector<bool> Out(D->Params.size(), false);
  forEachBlock(D->Body, [&](const StmtList &Block) {
    for (const StmtPtr &S : Block) {
      auto *A = llvm::dyn_cast<AnnAssignStmt>(S.get());
      auto *N = A ? llvm::dyn_cast<NameExpr>(A->Target.get()) : nullptr;
      if (!N || A->Value)
        continue;
      for (size_t K = 0; K < D->Params.size(); ++K)
        if (D->Params[K].Name == N->Id)
          Out[K] = true;
    }
  });
  return Out;
}

std::vector<KernelCandidate> findKernels(Interp &I, const Module &M) {
  std::vector<KernelCandidate> Out;
  for (const StmtPtr &S : M.Body) {
    auto *D = llvm::dyn_cast<FunctionDefStmt>(S.get());
    if (!D)
      continue;
    Value *V = I.ModuleScope->lookupLocal(D->Name);
    auto *F = V ? V->getAs<FunctionObj>() : nullptr;
    if (!F || F->Def != D)
      continue;
    if (F->Traits.IsPrimFunc)
      Out.push_back({KernelKind::PrimFunc, D, D->Name});
    else if (definesPrimFunc(D))
      Out.push_back({KernelKind::Factory, D, D->Name});
    else if (F->Traits.IsJit && opensKernel(D))
      Out.push_back({KernelKind::Eager, D, D->Name});
  }
  return Out;
}

/// The value the selected autotune configuration gives parameter K (named
/// in a dict, or K-th of a tuple), if any.
std::optional<Value> configValue(Interp &I, const FunctionObj &F, size_t K) {
  if (!F.Traits.Configs || I.Opts.ConfigIndex >= F.Traits.Configs->size())
    return std::nullopt;
  const Value &C = (*F.Traits.Configs)[I.Opts.ConfigIndex];
  if (C.isDict()) {
    for (const auto &[Key, V] : C.getDict().Items)
      if (Key.isStr() && Key.getStr() == (*F.Params)[K].Name)
        return V;
    return std::nullopt;
  }
  if (C.isSequence() && K < C.elts().size())
    return C.elts()[K];
  return std::nullopt;
}

/// --config N must name one of the factory's configurations.
bool checkConfigIndex(Interp &I, const FunctionObj &F) {
  if (!F.Traits.Configs || F.Traits.Configs->empty() ||
      I.Opts.ConfigIndex < F.Traits.Configs->size())
    return true;
  I.error(F.NameRange, diag::err_bad_config_index)
      << int64_t(I.Opts.ConfigIndex) << F.Name
      << int64_t(F.Traits.Configs->size());
  return false;
}

/// A parameter the driver's call passes data tilec cannot know (an extent
/// of a tensor built from random data): a symbolic dimension, so that the
/// kernel takes it at run time; unless its default says it is not an
/// integer (a dtype, a flag), which is an error.
Value dynamicParam(Interp &I, const FunctionObj &F, size_t K,
                   const CallSite &Site) {
  const Param &P = (*F.Params)[K];
  if (!F.HasDefault[K] || F.Defaults[K].isInt()) {
    Value S = I.makeSymbol(P.Name, DType::Int32, P.Range);
    if (auto *Sym = S.getAs<SymbolObj>())
      Sym->DriverCall = Site.Range;
    return S;
  }
  I.error(P.Range, diag::err_driver_host_data) << P.Name << F.Name;
  I.Diags.report(Site.Range, diag::note_driver_call);
  return Value::poison();
}

/// Arguments for a factory or eager kernel: -D values, else the driver's
/// call (Site), else defaults (left to the binder), else the selected
/// autotune configuration, which also replaces a default of None (the
/// autotuner passes every key of its configurations); Skip marks
/// parameters that need no value.
bool factoryArgs(Interp &I, FunctionObj &F, const std::vector<bool> &Skip,
                 const CallSite *Site, CallArgs &Args) {
  bool OK = true;
  for (size_t K = 0; K < F.Params->size(); ++K) {
    const Param &P = (*F.Params)[K];
    if (P.K != Param::Kind::Normal)
      continue;
    auto It = I.Opts.Defines.find(P.Name);
    const Value *FromSite = Site ? Site->find(P.Name) : nullptr;
    Value V;
    if (K < Skip.size() && Skip[K])
      V = Value::none();
    else if (It != I.Opts.Defines.end())
      V = parseDefineValue(It->second);
    else if (FromSite)
      V = isHostData(*FromSite) ? dynamicParam(I, F, K, *Site) : *FromSite;
    else if (F.HasDefault[K] &&
             !(F.Defaults[K].isNone() && configValue(I, F, K)))
      continue;
    else if (auto C = configValue(I, F, K))
      V = *C;
    else if (!checkConfigIndex(I, F))
      return false;
    else {
      I.error(P.Range, diag::err_missing_parameter) << P.Name << F.Name;
      OK = false;
      continue;
    }
    Args.Kw.emplace_back(P.Name, V);
    Args.KwRanges.push_back(P.Range);
  }
  return OK;
}

/// The AutoTuner the driver builds from Kernel, a function the factory
/// returned, and its configurations.
Value tunerOf(const Value &Kernel, const Value &Configs) {
  auto T = std::make_shared<TunerModel>();
  T->Kernel = Kernel;
  T->Configs = Configs;
  return makeHostValue("AutoTuner", std::move(T));
}

void buildFactory(Interp &I, FunctionObj &F, const std::string &Name,
                  const CallSite *Site) {
  CallArgs Args;
  if (!factoryArgs(I, F, {}, Site, Args))
    return;
  Value R = I.callFunction(F, Args, llvm::SMRange());
  if (Site && !Site->TunerConfigs.isNone() && R.getAs<FunctionObj>() &&
      !R.getAs<FunctionObj>()->Traits.IsPrimFunc)
    R = tunerOf(R, Site->TunerConfigs);
  if (auto Tuned = tunedKernel(I, R, I.Opts.ConfigIndex, F.NameRange))
    R = *Tuned;
  if (R.isPoison() || I.Aborting)
    return;
  auto *PF = R.getAs<FunctionObj>();
  if (!PF || !PF->Traits.IsPrimFunc) {
    I.error(F.NameRange, diag::err_factory_no_prim_func) << Name << typeName(R);
    return;
  }
  FunctionTraits Traits = PF->Traits;
  if (F.Traits.HasOutIdx)
    Traits.OutIdx = F.Traits.OutIdx;
  Traits.PassConfigs.insert(Traits.PassConfigs.end(),
                            F.Traits.PassConfigs.begin(),
                            F.Traits.PassConfigs.end());
  I.buildPrimFunc(*PF, Name, Traits);
}

void buildCandidate(Interp &I, const KernelCandidate &C, const CallSite *Site) {
  auto *F = I.ModuleScope->lookupLocal(C.Name)->getAs<FunctionObj>();
  I.ConstHints.clear();
  I.FirstBuildSymbol = I.AllSymbols.size();
  I.PendingChecks.clear();
  switch (C.Kind) {
  case KernelKind::PrimFunc:
    I.buildPrimFunc(*F, C.Name, F->Traits);
    return;
  case KernelKind::Factory:
    buildFactory(I, *F, C.Name, Site);
    return;
  case KernelKind::Eager: {
    CallArgs Args;
    std::vector<bool> Tensors = tensorParams(C.Def);
    if (Site)
      I.ConstHints = Site->ConstHints;
    if (factoryArgs(I, *F, Tensors, Site, Args))
      I.buildEagerFunc(*F, Args, C.Def->NameRange);
    return;
  }
  }
}

/// Factories and eager kernels are built as the file's driver calls them.
bool wantsCallSite(const KernelCandidate &C) {
  return C.Kind != KernelKind::PrimFunc;
}

/// The first parameter of C that neither a -D value, a default nor an
/// autotune configuration gives a value (the driver's call aside).
const Param *unsetParam(Interp &I, const KernelCandidate &C) {
  if (C.Kind == KernelKind::PrimFunc)
    return nullptr;
  auto *F = I.ModuleScope->lookupLocal(C.Name)->getAs<FunctionObj>();
  std::vector<bool> Skip;
  if (C.Kind == KernelKind::Eager)
    Skip = tensorParams(C.Def);
  for (size_t K = 0; K < F->Params->size(); ++K) {
    const Param &P = (*F->Params)[K];
    if (P.K == Param::Kind::Normal && !(K < Skip.size() && Skip[K]) &&
        !I.Opts.Defines.count(P.Name) && !F->HasDefault[K] &&
        !configValue(I, *F, K))
      return &P;
  }
  return nullptr;
}

/// A kernel the driver never calls and that has a parameter without any
/// value is skipped with a warning, unless it was asked for by --kernel or
/// no kernel of the file could be built otherwise (then the missing
/// parameters are errors).
void skipUncalled(Interp &I, std::vector<KernelCandidate> &Cands,
                  const CallSiteMap &Sites) {
  if (!I.Opts.KernelFilter.empty())
    return;
  std::vector<const Param *> Unset;
  for (const KernelCandidate &C : Cands)
    Unset.push_back(Sites.count(C.Def) ? nullptr : unsetParam(I, C));
  if (llvm::all_of(Unset, [](const Param *P) { return P != nullptr; }))
    return;
  std::vector<KernelCandidate> Kept;
  for (size_t K = 0; K < Cands.size(); ++K) {
    if (!Unset[K]) {
      Kept.push_back(Cands[K]);
      continue;
    }
    I.warning(Cands[K].Def->NameRange, diag::warn_kernel_not_called)
        << Cands[K].Name << Unset[K]->Name;
  }
  Cands = std::move(Kept);
}

bool selectKernels(Interp &I, const Module &M,
                   std::vector<KernelCandidate> &Cands) {
  llvm::SMLoc FileStart;
  if (M.BufferID)
    FileStart = llvm::SMLoc::getFromPointer(
        I.SM.getMemoryBuffer(M.BufferID)->getBufferStart());
  if (Cands.empty()) {
    I.error(llvm::SMRange(FileStart, FileStart), diag::err_no_kernels);
    return false;
  }
  const std::string &Want = I.Opts.KernelFilter;
  if (Want.empty())
    return true;
  std::string Names;
  for (const KernelCandidate &C : Cands)
    Names += (Names.empty() ? "" : ", ") + C.Name;
  llvm::erase_if(Cands,
                 [&](const KernelCandidate &C) { return C.Name != Want; });
  if (!Cands.empty())
    return true;
  I.Diags.report(Location(), diag::err_unknown_kernel) << Want;
  I.Diags.report(Location(), diag::note_available_kernels) << Names;
  return false;
}
/// --list-configs: `kernel [N] config` lines, or `kernel: no autotune
/// configurations`.
void listConfigs(Interp &I, const std::vector<KernelCandidate> &Cands,
                 llvm::raw_ostream &OS) {
  for (const KernelCandidate &C : Cands) {
    auto *F = I.ModuleScope->lookupLocal(C.Name)->getAs<FunctionObj>();
    if (!F->Traits.Configs) {
      OS << C.Name << ": no autotune configurations\n";
      continue;
    }
    for (size_t K = 0; K < F->Traits.Configs->size(); ++K)
      OS << C.Name << " [" << K << "] " << repr((*F->Traits.Configs)[K])
         << "\n";
  }
}
} // namespace

bool Interp::runModule(const Module &M) {
  for (const StmtPtr &S : M.Body) {
    if (llvm::isa<ExprStmt>(S.get()) || applyDefine(*this, S.get()))
      continue;
    exec(S.get());
    if (Aborting)
      return false;
  }
  return true;
}

Value sema::parseDefineValue(const std::string &Text) {
  llvm::StringRef S = llvm::StringRef(Text).trim();
  int64_t N;
  if (!S.getAsInteger(0, N))
    return Value::integer(N);
  double D;
  if (!S.getAsDouble(D))
    return Value::real(D);
  if (S == "True" || S == "true")
    return Value::boolean(true);
  if (S == "False" || S == "false")
    return Value::boolean(false);
  if (S == "None")
    return Value::none();
  return Value::str(S.str());
}

std::unique_ptr<ir::Operation> tilec::buildModule(const ast::Module &M,
                                                  llvm::SourceMgr &SM,
                                                  DiagnosticEngine &Diags,
                                                  const SemaOptions &Opts) {
  unsigned ErrorsBefore = Diags.numErrors();
  ImportedFiles Files;
  if (llvm::sys::fs::is_regular_file(M.FileName)) {
    llvm::StringRef Dir = llvm::sys::path::parent_path(M.FileName);
    Files.Dir = Dir.empty() ? "." : Dir.str();
    addSearchPaths(Files, M, M.FileName);
  }
  Interp I(SM, Diags, Opts);
  I.Files = &Files;
  std::unique_ptr<ir::Operation> Module = ir::createModuleOp();
  I.ModuleOp = Module.get();
  if (!I.runModule(M))
    return nullptr;
  std::vector<KernelCandidate> Cands = findKernels(I, M);
  if (!selectKernels(I, M, Cands))
    return nullptr;
  if (Opts.ListConfigs) {
    listConfigs(I, Cands, *Opts.ListConfigs);
    return nullptr;
  }
  std::vector<WantedKernel> Wanted;
  for (const KernelCandidate &C : Cands)
    if (wantsCallSite(C))
      Wanted.push_back({C.Def, C.Kind == KernelKind::Eager});
  CallSiteMap Sites;
  if (!Wanted.empty())
    Sites = findCallSites(M, SM, Opts, Wanted, &Files);
  skipUncalled(I, Cands, Sites);
  for (const KernelCandidate &C : Cands) {
    I.Aborting = false;
    I.Steps = 0;
    auto It = Sites.find(C.Def);
    buildCandidate(I, C, It == Sites.end() ? nullptr : &It->second);
  }
  if (Diags.numErrors() != ErrorsBefore)
    return nullptr;
  if (!ir::verify(*Module, Diags))
    return nullptr;
  return Module;
}
