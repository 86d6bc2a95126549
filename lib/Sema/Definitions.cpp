//===- Definitions.cpp - def, class, import and scope statements ---------===//
//
// Statements that bind names rather than compute: function definitions with
// their decorators (TileLang's @tilelang.jit with out_idx and pass_configs,
// @T.prim_func, @autotune), classes, try blocks, global/nonlocal, del, and
// import statements (modules of the compiled file's directory through
// Imports.cpp; other modules are host-only values).
//
//===----------------------------------------------------------------------===//

#include "Builtins.h"
#include "HostModel.h"
#include "Interp.h"

using namespace tilec;
using namespace tilec::sema;
using namespace tilec::ast;

/// Resolves a decorator's callee without reporting: unknown names give a
/// host-only value.
static Value resolveQuietly(Interp &I, const Expr *E) {
  if (auto *N = llvm::dyn_cast<NameExpr>(E)) {
    if (Value *V = I.scope().lookup(N->Id))
      return *V;
    return Value::object(std::make_shared<OpaqueObj>(N->Id));
  }
  if (auto *A = llvm::dyn_cast<AttributeExpr>(E)) {
    Value Base = resolveQuietly(I, A->Value.get());
    if (auto *NS = Base.getAs<NamespaceObj>())
      return I.namespaceMember(*NS, A->Attr, A->AttrRange, /*Silent=*/true);
  }
  return Value::object(std::make_shared<OpaqueObj>(exprText(E->getRange())));
}

static void readOutIdx(Interp &I, const CallExpr *C, FunctionTraits &T) {
  for (const Keyword &K : C->Keywords) {
    if (K.Name != "out_idx")
      continue;
    Value V = I.eval(K.Value.get());
    if (V.isNone() || V.isPoison())
      return;
    std::vector<Value> Items =
        V.isSequence() ? V.elts() : std::vector<Value>{V};
    for (const Value &Item : Items)
      if (auto N = I.constInt(Item, K.Value->getRange(), "out_idx"))
        T.OutIdx.push_back(*N);
    T.HasOutIdx = true;
  }
}

/// `pass_configs=` of a jit decorator: the switches tilec follows that are
/// set true; the others (and values not known at compile time) are ignored.
static void readPassConfigs(Interp &I, const CallExpr *C, FunctionTraits &T) {
  for (const Keyword &K : C->Keywords) {
    if (K.Name != "pass_configs")
      continue;
    Value V = I.eval(K.Value.get());
    if (!V.isDict())
      return;
    for (const auto &[Key, Val] : V.getDict().Items) {
      bool Known =
          Key.isStr() && (Key.getStr() == "tl.disable_tma_lower" ||
                          Key.getStr() == "tl.disable_warp_specialized" ||
                          Key.getStr() == "tl.enable_fast_math");
      if (Known && I.truthy(Val, K.Value->getRange()).value_or(false))
        T.PassConfigs.push_back(Key.getStr());
    }
  }
}

/// `configs=` of an autotune decorator: a list of dicts, or of tuples
/// matched to the factory's parameters by position (TileLang accepts
/// both). Kept as written; the binder picks one (--config N).
static void readConfigs(Interp &I, const CallExpr *C, FunctionTraits &T) {
  for (const Keyword &K : C->Keywords) {
    if (K.Name != "configs")
      continue;
    Value V = I.eval(K.Value.get());
    if (V.isPoison())
      return;
    auto Items = I.iterate(V, K.Value->getRange());
    if (Items)
      T.Configs = std::make_shared<std::vector<Value>>(std::move(*Items));
  }
}

static bool isAutotune(const Expr *Callee) {
  if (auto *A = llvm::dyn_cast<AttributeExpr>(Callee))
    return A->Attr == "autotune";
  auto *N = llvm::dyn_cast<NameExpr>(Callee);
  return N && N->Id == "autotune";
}

static void applyDecorators(Interp &I, const FunctionDefStmt *D,
                            FunctionTraits &T) {
  for (const ExprPtr &Dec : D->Decorators) {
    auto *Call = llvm::dyn_cast<CallExpr>(Dec.get());
    Value Callee = resolveQuietly(I, Call ? Call->Callee.get() : Dec.get());
    auto *BO = Callee.getAs<BuiltinObj>();
    BuiltinID ID = BO ? BuiltinID(BO->ID) : BuiltinID::NumBuiltins;
    if (ID == BuiltinID::TPrimFunc) {
      T.IsPrimFunc = true;
    } else if (ID == BuiltinID::TLJit) {
      T.IsJit = true;
      if (Call) {
        readOutIdx(I, Call, T);
        readPassConfigs(I, Call, T);
      }
    } else if (Call && isAutotune(Call->Callee.get())) {
      readConfigs(I, Call, T);
    } else if (ID != BuiltinID::TMacro) {
      I.warning(Dec->getRange(), diag::warn_ignored_decorator)
          << exprText(Dec->getRange());
    }
  }
}

Flow sema::execFunctionDef(Interp &I, const FunctionDefStmt *D) {
  auto F = I.makeFunction(D);
  applyDecorators(I, D, F->Traits);
  I.bindName(D->Name, Value::object(std::move(F)), D->NameRange);
  return I.Aborting ? Flow::Abort : Flow::Normal;
}

/// A class is host code: its name is bound to a host-only value (with the
/// functions its body defines, for host drivers; HostModel.h), so a kernel
/// that uses it gets err_host_value at the use.
Flow sema::execClassDef(Interp &I, const ClassDefStmt *C) {
  I.bindName(C->Name, makeClass(I, C), C->NameRange);
  return I.Aborting ? Flow::Abort : Flow::Normal;
}

/// tilec has no exceptions: a compile-time error inside `try` is reported
/// like anywhere else, so the handlers never run; else and finally do.
Flow sema::execTry(Interp &I, const TryStmt *S) {
  Flow F = I.exec(S->Body);
  if (F == Flow::Normal)
    F = I.exec(S->Else);
  if (F == Flow::Abort)
    return F;
  Flow Fin = I.exec(S->Finally);
  return Fin != Flow::Normal ? Fin : F;
}

/// `global x` binds x in the module scope; `nonlocal x` in the nearest
/// enclosing function scope that has it.
Flow sema::execScopeDecl(Interp &I, const ScopeDeclStmt *S) {
  for (const std::string &Name : S->Names) {
    Scope *Target = I.ModuleScope.get();
    if (!S->isGlobal()) {
      Target =
          I.scope().getParent() ? I.scope().getParent()->owner(Name) : nullptr;
      if (!Target || Target == I.ModuleScope.get()) {
        I.error(S->getRange(), diag::err_nonlocal_not_found) << Name;
        continue;
      }
    }
    I.frame().Declared[Name] = Target;
  }
  return Flow::Normal;
}

Flow sema::execDelete(Interp &I, const DeleteStmt *S) {
  for (const ExprPtr &T : S->Targets) {
    auto *N = llvm::dyn_cast<NameExpr>(T.get());
    if (!N) {
      I.error(T->getRange(), diag::err_feature_unsupported)
          << "'del' of anything but a name";
      continue;
    }
    if (!I.scope().erase(N->Id))
      I.error(T->getRange(), diag::err_undefined_name) << N->Id;
  }
  return Flow::Normal;
}

static Value moduleValue(llvm::StringRef Dotted) {
  using NS = NamespaceObj::NS;
  if (Dotted == "tilelang")
    return Value::object(
        std::make_shared<NamespaceObj>(NS::TileLang, "tilelang"));
  if (Dotted == "tilelang.language")
    return Value::object(std::make_shared<NamespaceObj>(NS::Language, "T"));
  if (Dotted == "tilelang.layout")
    return Value::object(
        std::make_shared<NamespaceObj>(NS::Layout, "tilelang.layout"));
  if (Dotted == "math")
    return Value::object(std::make_shared<NamespaceObj>(NS::Math, "math"));
  if (Dotted == "itertools")
    return Value::object(
        std::make_shared<NamespaceObj>(NS::Itertools, "itertools"));
  return Value::object(std::make_shared<OpaqueObj>(Dotted.str()));
}

/// `import X` of a Python file beside the compiled one: a host value whose
/// attributes are the names X defines.
static std::optional<Value> siblingModule(Interp &I, llvm::StringRef Name) {
  std::shared_ptr<Scope> Globals = I.importSibling(Name);
  if (!Globals)
    return std::nullopt;
  return moduleValueOf(Name, *Globals);
}

Flow sema::execImport(Interp &I, const ImportStmt *S) {
  for (const ImportAlias &A : S->Names) {
    llvm::StringRef Name = A.Name;
    // `import a.b` binds the package a (which runs first), `import a.b as c`
    // the module a.b.
    llvm::StringRef Bound = A.AsName.empty() ? Name.split('.').first : Name;
    std::optional<Value> M = siblingModule(I, Name);
    if (M && Bound != Name)
      M = siblingModule(I, Bound);
    if (M)
      I.bindName(A.AsName.empty() ? Bound : llvm::StringRef(A.AsName), *M,
                 A.Range);
    else if (!A.AsName.empty())
      I.bindName(A.AsName, moduleValue(Name), A.Range);
    else
      I.bindName(Name.split('.').first, moduleValue(Name.split('.').first),
                 A.Range);
  }
  return Flow::Normal;
}

/// `from X import a, *` of a Python file beside the compiled one; a name X
/// does not define may be a module of package X.
static void importFromSibling(Interp &I, const ImportFromStmt *S,
                              llvm::StringRef Module, Scope &Globals) {
  for (const ImportAlias &A : S->Names) {
    if (A.Name == "*") {
      for (const auto &KV : Globals.vars())
        if (!KV.getKey().startswith("_"))
          I.bindName(KV.getKey(), KV.getValue(), A.Range);
      continue;
    }
    std::string Sub = (Module + "." + A.Name).str();
    Value *V = Globals.lookupLocal(A.Name);
    std::optional<Value> M = V ? std::nullopt : siblingModule(I, Sub);
    I.bindName(A.AsName.empty() ? A.Name : A.AsName,
               V ? *V : (M ? *M : moduleValue(Sub)), A.Range);
  }
}

Flow sema::execImportFrom(Interp &I, const ImportFromStmt *S) {
  std::string Module = I.resolveRelativeModule(S->Module);
  if (Module.empty())
    Module = S->Module;
  if (std::shared_ptr<Scope> Globals = I.importSibling(Module)) {
    importFromSibling(I, S, Module, *Globals);
    return Flow::Normal;
  }
  Value M = moduleValue(Module);
  for (const ImportAlias &A : S->Names) {
    if (A.Name == "*") {
      if (auto *NS = M.getAs<NamespaceObj>();
          NS && NS->Which == NamespaceObj::NS::Language)
        I.StarImportT = true;
      continue;
    }
    Value V;
    if (auto *NS = M.getAs<NamespaceObj>())
      V = I.namespaceMember(*NS, A.Name, A.Range, /*Silent=*/true);
    else
      V = moduleValue(Module + "." + A.Name);
    I.bindName(A.AsName.empty() ? A.Name : A.AsName, V, A.Range);
  }
  return Flow::Normal;
}
