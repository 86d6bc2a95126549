//===- Interp.h - The compile-time Python interpreter of Sema --*- C++ -*-===//
//
// Interp evaluates the AST of a .tile file. Host code (module level, kernel
// factories, helper functions) runs entirely at compile time. Inside a
// prim_func body an IR insertion point exists (CurFunc): expressions that
// depend on runtime values (thread-block indices, buffer elements, symbolic
// dims) emit IR through the Builder, compile-time ones still fold.
//
// The implementation is split by responsibility:
//   Evaluator.cpp   expressions, names, calls of Python functions
//   Conversions.cpp demands for compile-time ints, dtypes, shapes, buffers
//   HostExprs.cpp   f-strings, comprehensions, sets, :=, dict displays
//   Statements.cpp  statements, host and runtime control flow
//   Definitions.cpp def (decorators), class, try, del, import statements
//   Arith.cpp       operators: folding, runtime promotion, affine forms
//   Builtins.cpp    the builtin table, argument binder, namespaces
//   PyBuiltins.cpp  len/min/range/..., methods of lists, dicts, strings
//   TBuiltins.cpp   T.* scalars, math, dtypes, types, symbols
//   KernelGen.cpp   prim_func -> func, T.Kernel, allocations
//   Loops.cpp       T.Parallel, T.Pipelined, T.Persistent, serial loops
//   TileOps.cpp     copy, fill, gemm, reduce, cumsum, atomics
//   LayoutOps.cpp   annotate_layout, use_swizzle, kernel hints, views
//   SyncOps.cpp     mbarriers, named and grid barriers, T.ws roles
//   RandomOps.cpp   T.rng_init, T.rng_rand, T.rng_rand_float (Philox)
//   Module.cpp      module level, kernel discovery, buildModule
//   Imports.cpp     Python files imported from the compiled file's directory
//   HostModel.cpp   argparse, classes, device queries of host drivers
//   HostTensors.cpp torch tensor shapes in host drivers
//   HostTensorData.cpp  elements of small torch tensors in host drivers
//   HostEinops.cpp  einops patterns on torch tensors in host drivers
//   CallSites.cpp   the arguments a file's driver passes to its kernels
//
// Error handling: a failed expression reports once and yields Poison; the
// statement carries on. Fatal conditions (raise, failed assert, recursion
// or loop limits) set Aborting, which unwinds to the kernel being built.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_LIB_SEMA_INTERP_H
#define TILEC_LIB_SEMA_INTERP_H

#include "Value.h"
#include "tilec/IR/Builder.h"
#include "tilec/Parse/AST.h"
#include "tilec/Sema/Sema.h"
#include "tilec/Support/Diagnostics.h"
#include "llvm/ADT/DenseMap.h"
#include <functional>
#include <optional>

namespace tilec {
namespace sema {

/// Python files a program imports from its own directory, parsed once per
/// buildModule and shared by its interpreters (their functions point into
/// these ASTs, so the files outlive both).
struct ImportedFiles {
  /// The directory of the file being compiled; empty: imports find no file.
  std::string Dir;
  /// Directories the files' `sys.path.append(...)` statements add, searched
  /// after Dir in order (Imports.cpp).
  std::vector<std::string> SearchPath;
  /// By module name; null when the file is missing or does not parse.
  llvm::StringMap<std::unique_ptr<ast::Module>> ASTs;
};

/// A module as a host value whose attributes are the names \p Globals
/// binds (a snapshot).
Value moduleValueOf(llvm::StringRef Name, const Scope &Globals);

/// Adds to Files.SearchPath the directories that the module-level
/// `sys.path.append(P)` / `sys.path.insert(i, P)` statements of \p M (the
/// file \p FileName) name, where P is built from string literals,
/// `__file__` and `os.path.join`/`dirname`/`abspath`/`realpath`/`normpath`.
void addSearchPaths(ImportedFiles &Files, const ast::Module &M,
                    llvm::StringRef FileName);

/// How a statement finished.
enum class Flow { Normal, Break, Continue, Return, Abort };

/// Evaluated arguments of a call, with the range of each.
struct CallArgs {
  std::vector<Value> Pos;
  std::vector<llvm::SMRange> PosRanges;
  std::vector<std::pair<std::string, Value>> Kw;
  std::vector<llvm::SMRange> KwRanges;
};

/// An error report that, once emitted, adds a note_called_from for every
/// Python call the error happened in.
class ErrorReport {
public:
  ErrorReport(class Interp &I, DiagnosticBuilder B);
  ErrorReport(ErrorReport &&O) : I(O.I), B(std::move(O.B)) { O.B.reset(); }
  ~ErrorReport();
  template <typename T> ErrorReport &operator<<(T &&V) {
    *B << std::forward<T>(V);
    return *this;
  }

private:
  class Interp *I;
  std::optional<DiagnosticBuilder> B;
};

/// A loop being executed in the current Python frame.
struct LoopInfo {
  bool Runtime;
  /// Number of runtime regions open when the loop started (a host loop
  /// cannot be left from inside a runtime if).
  size_t RegionDepth;
};

/// Names bound while a runtime region (if branch, loop body, kernel) is
/// open; they become stale when it closes.
struct RegionLog {
  std::vector<std::pair<std::string, llvm::SMRange>> Assigned;
};

/// One Python call (or the module body, or a prim_func body).
struct Frame {
  std::shared_ptr<Scope> Locals;
  std::string FuncName;
  llvm::SMRange CallSite;
  Value ReturnValue;
  std::vector<LoopInfo> Loops;
  std::vector<RegionLog> Regions;
  /// Variables of the runtime loops being emitted (they cannot be
  /// assigned).
  std::vector<std::string> LoopVars;
  /// The body of the prim_func being built.
  bool IsKernelBody = false;
  /// Names declared `global` or `nonlocal`, and the scope they bind in.
  llvm::StringMap<Scope *> Declared;
};

/// The func op being built and what belongs to it.
struct FuncState {
  ir::Operation *Func = nullptr;
  llvm::DenseMap<const SymbolObj *, ir::Value *> SymbolArgs;
  ir::Operation *Kernel = nullptr;
  /// Buffers allocated in the current kernel.
  std::vector<BufferObj *> KernelBuffers;
};

/// An assert of factory code on symbolic dims, checked by the launchers
/// of the prim_funcs the factory builds.
struct PendingCheck {
  Value Cond;
  std::string Message;
  llvm::SMRange Range;
};

/// c0 + sum(coef * atom) over IR values; used to fold slice extents such
/// as (bx + 1) * 64 - bx * 64.
struct Affine {
  int64_t Const = 0;
  llvm::SmallVector<std::pair<ir::Value *, int64_t>, 2> Terms;
};

class Interp {
public:
  Interp(llvm::SourceMgr &SM, DiagnosticEngine &Diags, const SemaOptions &Opts);

  static constexpr unsigned MaxCallDepth = 100;

  /// Runs a module's body: imports, constants (a -D value replaces the
  /// assignment of a module-level name), definitions; bare expression
  /// statements (driver code) are skipped. False when it aborted.
  bool runModule(const ast::Module &M);

  //===--- Diagnostics ----------------------------------------------------===//
  ErrorReport error(llvm::SMRange R, diag::ID ID);
  DiagnosticBuilder warning(llvm::SMRange R, diag::ID ID) {
    return Diags.report(R, ID);
  }
  /// Reports a fatal error and starts unwinding.
  ErrorReport fatal(llvm::SMRange R, diag::ID ID);

  //===--- Expressions (Evaluator.cpp) ------------------------------------===//
  /// The value of \p E. In host code, an expression that comes out Poison
  /// because a truth test or an iteration met a host-only value (skipped
  /// without an error) is a host-only value itself, so that kernel code
  /// using it reports it instead of silently building nothing.
  Value eval(const ast::Expr *E);
  Value evalName(const ast::NameExpr *E);
  Value lookupName(llvm::StringRef Name, llvm::SMRange R);
  Value getAttribute(const Value &Base, llvm::StringRef Attr,
                     llvm::SMRange BaseRange, llvm::SMRange AttrRange);
  Value subscript(const Value &Base, const ast::Expr *Index,
                  llvm::SMRange BaseRange);
  Value call(const Value &Callee, CallArgs &Args, llvm::SMRange CallRange,
             llvm::SMRange CalleeRange);
  /// Calls a def or lambda; KernelBody marks the frame as the body of the
  /// kernel being built (eager @tilelang.jit functions).
  Value callFunction(FunctionObj &F, CallArgs &Args, llvm::SMRange CallRange,
                     bool KernelBody = false);
  bool evalArgs(const ast::ExprList &Args, const std::vector<ast::Keyword> &Kws,
                CallArgs &Out);
  std::shared_ptr<FunctionObj> makeFunction(const ast::FunctionDefStmt *D);

  //===--- Host expressions (HostExprs.cpp) -------------------------------===//
  Value evalJoinedStr(const ast::JoinedStrExpr *E);
  Value evalComprehension(const ast::ComprehensionExpr *E);
  Value evalSet(const ast::SetExpr *E);
  Value evalNamed(const ast::NamedExpr *E);
  Value evalDict(const ast::DictExpr *D);
  /// Reports a construct compile-time evaluation cannot run (await, yield,
  /// a class body's use, ...), naming it.
  Value evalHostOnly(const ast::Expr *E, llvm::StringRef What);
  Value evalKind(const ast::Expr *E);

  //===--- Statements (Statements.cpp) ------------------------------------===//
  Flow exec(const ast::StmtList &Body);
  Flow exec(const ast::Stmt *S);
  /// Binds Target (a name, tuple/list of targets, subscript) to V.
  void assign(const ast::Expr *Target, const Value &V,
              llvm::SMRange ValueRange);
  /// Binds a name in the current frame, logging it in open runtime regions.
  void bindName(llvm::StringRef Name, Value V, llvm::SMRange R);
  /// Opens/closes a runtime region in the current frame.
  void openRegion();
  void closeRegion();

  //===--- Imports (Imports.cpp) ------------------------------------------===//
  /// The names module \p Name defines when it is a Python file beside the
  /// file being compiled (Python puts a script's directory first on
  /// sys.path), after running its top level once; null otherwise.
  std::shared_ptr<Scope> importSibling(llvm::StringRef Name);
  /// The absolute name of \p Module (`.lop3`, `..utils`) for the running
  /// module's `__package__`; Module itself when absolute, "" when it
  /// reaches above the top package.
  std::string resolveRelativeModule(llvm::StringRef Module);

  //===--- Conversions (Evaluator.cpp) ------------------------------------===//
  /// Python truthiness; nullopt when it cannot be decided (reported, or a
  /// host-only value in host code, skipped silently).
  std::optional<bool> truthy(const Value &V, llvm::SMRange R);
  /// Elements of a compile-time iterable; nullopt as for truthy.
  std::optional<std::vector<Value>> iterate(const Value &V, llvm::SMRange R);
  /// A compile-time int (bool accepted); What names it in messages.
  std::optional<int64_t> constInt(const Value &V, llvm::SMRange R,
                                  llvm::StringRef What);
  std::optional<bool> constBool(const Value &V, llvm::SMRange R,
                                llvm::StringRef What);
  std::optional<DType> dtypeOf(const Value &V, llvm::SMRange R,
                               llvm::StringRef What);
  /// A shape: an int or a sequence of ints and symbols (when allowed).
  /// ScopeName names the memory scope in err_runtime_shape.
  std::optional<std::vector<ir::Dim>> shapeOf(const Value &V, llvm::SMRange R,
                                              llvm::StringRef What,
                                              bool AllowSymbols,
                                              llvm::StringRef ScopeName);
  /// Reports that V must be compile-time but is runtime.
  void reportNotCompileTime(const Value &V, llvm::SMRange R,
                            llvm::StringRef What);
  /// Reports that a host-only value reached code that needs a real one.
  void reportHostValue(const Value &V, llvm::SMRange R);
  /// Reports why V (poison: nothing more to say) is not a compile-time
  /// constant of the Expected kind.
  void reportNotConstant(const Value &V, llvm::SMRange R, llvm::StringRef What,
                         llvm::StringRef Expected);
  BufferObj *bufferOf(const Value &V, llvm::SMRange R, llvm::StringRef What);

  //===--- Runtime values (Arith.cpp) -------------------------------------===//
  bool hasIR() const { return CurFunc != nullptr; }
  bool inKernel() const { return CurFunc && CurFunc->Kernel; }
  /// The value as an IR scalar (constants are materialized, buffer
  /// references loaded, symbols read from the func); null after an error.
  ir::Value *toRuntime(const Value &V, llvm::SMRange R);
  /// Same, then cast to T when needed.
  ir::Value *toRuntimeAs(const Value &V, DType T, llvm::SMRange R);
  /// An i32 index (ints are cast).
  ir::Value *toIndex(const Value &V, llvm::SMRange R);
  ir::Value *castTo(ir::Value *V, DType T);
  /// An i1 condition from a bool or a number (x != 0).
  ir::Value *toCondition(ir::Value *V);
  ir::Value *constant(const Value &V, DType T);
  Value binary(ast::BinaryOp Op, const Value &L, const Value &R,
               llvm::SMRange LR, llvm::SMRange RR, llvm::SMRange Whole);
  Value compare(ast::CompareOp Op, const Value &L, const Value &R,
                llvm::SMRange LR, llvm::SMRange RR, llvm::SMRange Whole);
  Value unary(ast::UnaryOp Op, const Value &V, llvm::SMRange R,
              llvm::SMRange Whole);
  /// Binary op on runtime values after TVM-style promotion.
  ir::Value *emitBinary(ir::OpKind K, ir::Value *A, ir::Value *B);
  /// Promotes runtime/compile-time operands to a common dtype (a
  /// compile-time number adopts the runtime operand's dtype).
  std::optional<std::pair<ir::Value *, ir::Value *>>
  promote(const Value &L, const Value &R, llvm::SMRange LR, llvm::SMRange RR,
          bool FloatOnly = false);
  /// Hi - Lo when it folds to a constant.
  std::optional<int64_t> constDifference(ir::Value *Hi, ir::Value *Lo);
  std::optional<Affine> affineOf(ir::Value *V);
  /// Drops the cached affine forms of \p Scratch's arguments and results:
  /// a scratch block's values die with it, and the cache is keyed by value.
  void forgetAffines(ir::Block &Scratch);
  void recordAffine(ir::Value *Result, ir::OpKind K, ir::Value *A,
                    ir::Value *B);

  //===--- Symbolic expressions (SymExprs.cpp) ----------------------------===//
  /// Before any IR exists, an operator with a symbolic operand (and only
  /// numbers besides) gives a SymExprObj that calls Apply again when it is
  /// replayed; nullopt otherwise (the caller goes on as usual).
  std::optional<Value> deferSymbolic(std::vector<Value> Operands,
                                     std::string Text, int Prec,
                                     SymExprObj::ApplyFn Apply);
  /// The expression's value where IR is being built.
  Value replay(const SymExprObj &E);
  /// err_symbol_needs_value for the first symbol V depends on.
  void reportNeedsValue(const Value &V, llvm::SMRange R);
  /// The dim of a tensor shape that is an expression of symbols: a symbol
  /// of its own, checked by the launcher.
  ir::Dim compositeDim(const Value &V, llvm::SMRange R);
  /// Records `assert Cond` on symbolic values for the launchers.
  void deferAssert(const Value &Cond, std::string Message, llvm::SMRange R);
  /// Emits the launcher checks of a new func: its composite dims and the
  /// pending asserts over its symbols.
  void emitLauncherChecks(FuncState &FS, llvm::ArrayRef<std::string> Symbols);

  //===--- Builtins (Builtins.cpp) ----------------------------------------===//
  Value callBuiltin(const BuiltinObj &B, CallArgs &Args,
                    llvm::SMRange CallRange);
  /// A member of T, tilelang, math, ...; Silent makes unknown members
  /// host-only values instead of errors (for imports and decorators).
  Value namespaceMember(const NamespaceObj &NS, llvm::StringRef Name,
                        llvm::SMRange R, bool Silent = false);

  //===--- Kernels (KernelGen.cpp; execRuntimeFor in Loops.cpp) -----------===//
  /// Builds a func op for the prim_func F into the module.
  void buildPrimFunc(FunctionObj &F, llvm::StringRef Name,
                     const FunctionTraits &Traits);
  /// Runs an eager `@tilelang.jit` function body as a kernel.
  void buildEagerFunc(FunctionObj &F, CallArgs &Args, llvm::SMRange At);
  Flow execKernel(const ast::WithStmt *S, KernelSpecObj &Spec);
  Flow execRuntimeFor(const ast::ForStmt *S, LoopObj &L);
  Value makeSymbol(llvm::StringRef Name, DType T, llvm::SMRange R);
  /// Emits the func op once the signature is known (eager mode seals it at
  /// the first statement that needs IR).
  bool sealEagerSignature(llvm::SMRange At);
  /// `A: T.Tensor(shape, dtype)` in an eager kernel declares parameter A.
  void declareEagerParam(const ast::NameExpr *Name, const ast::Expr *Annot);

  //===--- State ----------------------------------------------------------===//
  llvm::SourceMgr &SM;
  DiagnosticEngine &Diags;
  const SemaOptions &Opts;
  ir::Builder B;
  ir::Operation *ModuleOp = nullptr;
  FuncState *CurFunc = nullptr;
  std::vector<std::unique_ptr<Frame>> Frames;
  std::shared_ptr<Scope> ModuleScope;
  llvm::DenseMap<ir::Value *, Affine> Affines;
  bool Aborting = false;
  /// Set when truthy or iterate skipped a host-only value in host code
  /// (see eval).
  bool HostUndecided = false;
  uint64_t Steps = 0;
  /// The name a single-name assignment is about to bind (buffer names).
  std::string PendingName;
  /// How many `with T.ws(...)` role blocks enclose the code being generated.
  unsigned RoleDepth = 0;
  /// Why each enclosing role block whose threads are not one contiguous
  /// range has none (tile operators cannot be split over its threads).
  std::vector<std::string> RolesWithoutRange;
  /// The reducers of the enclosing `with T.attr(r, "reduce_scope", ...)`
  /// blocks, innermost last (T.tvm_thread_allreduce uses it).
  std::vector<std::shared_ptr<CommReducerObj>> ReduceScopes;
  /// The thread count of each enclosing role block that has a range.
  std::vector<int64_t> RoleThreadCounts;
  /// The Philox state array of each kernel that calls T.rng_init.
  llvm::DenseMap<const ir::Operation *, ir::Value *> RngStates;
  /// Files importable beside the compiled one (shared; may be null).
  ImportedFiles *Files = nullptr;
  /// The modules imported so far by this interpreter, by name.
  llvm::StringMap<std::shared_ptr<Scope>> Imported;
  /// `from tilelang.language import *` was seen.
  bool StarImportT = false;

  /// State of an eager `@tilelang.jit` kernel before its func is emitted.
  struct EagerState {
    std::string Name;
    const FunctionObj *Fn = nullptr;
    /// Declared tensors: (position among the function's parameters, or a
    /// large number for T.empty outputs in creation order, buffer).
    std::vector<std::pair<size_t, std::shared_ptr<BufferObj>>> Params;
    size_t NumOutputs = 0;
    FuncState Func;
    bool Sealed = false;
  };
  EagerState *Eager = nullptr;
  /// Symbols created so far (T.dynamic/T.const), in creation order.
  std::vector<std::shared_ptr<SymbolObj>> AllSymbols;
  /// The first of AllSymbols created for the kernel being built.
  size_t FirstBuildSymbol = 0;
  /// Asserts on symbolic values since the kernel being built started.
  std::vector<PendingCheck> PendingChecks;
  /// Values of T.const names read off the tensors a call site passes
  /// (used when no -D value is given).
  llvm::StringMap<Value> ConstHints;
  /// Called before each call of a Python function; a value it returns is
  /// the call's result, the function does not run (call-site discovery).
  std::function<std::optional<Value>(FunctionObj &, CallArgs &, llvm::SMRange)>
      OnCall;
  /// Called when an eager kernel declares tensor parameter Name with Dims.
  std::function<void(llvm::StringRef Name, llvm::ArrayRef<ir::Dim> Dims)>
      OnTensorParam;
  /// Called when host code builds TileLang's AutoTuner from a kernel
  /// function and its configurations (call-site discovery).
  std::function<void(const Value &Kernel, const Value &Configs)> OnTuner;

  Frame &frame() { return *Frames.back(); }
  Scope &scope() { return *frame().Locals; }
};

/// Python's operator precedence, weakest first, for SymExprObj::Text.
namespace SymPrec {
enum : int {
  Or = 1,
  And,
  Not,
  Compare,
  BitOr,
  BitXor,
  BitAnd,
  Shift,
  Sum,
  Product,
  Unary,
  Power,
  Atom
};
} // namespace SymPrec
/// The precedence of a binary operator.
int symPrec(ast::BinaryOp Op);
/// An operand in Python syntax, parenthesized when it binds less than
/// \p MinPrec.
std::string symbolicText(const Value &V, int MinPrec = SymPrec::Atom);
/// `L op R` with the operands parenthesized as Python needs; Prec is op's
/// precedence, RightAssoc for `**`.
std::string symbolicInfix(const Value &L, llvm::StringRef Op, const Value &R,
                          int Prec, bool RightAssoc = false);
/// The symbols V depends on, in first-use order, without duplicates.
void symbolsIn(const Value &V, std::vector<const SymbolObj *> &Out);
/// The source text of a range, for messages: `A_shared`, `T.copy`.
std::string exprText(llvm::SMRange R);

// Statements that bind names (Definitions.cpp), run by Interp::exec.
Flow execFunctionDef(Interp &I, const ast::FunctionDefStmt *D);
Flow execClassDef(Interp &I, const ast::ClassDefStmt *C);
Flow execTry(Interp &I, const ast::TryStmt *S);
Flow execScopeDecl(Interp &I, const ast::ScopeDeclStmt *S);
Flow execDelete(Interp &I, const ast::DeleteStmt *S);
Flow execImport(Interp &I, const ast::ImportStmt *S);
Flow execImportFrom(Interp &I, const ast::ImportFromStmt *S);

/// `A[i, j] = v`: a store, with an implicit cast to the buffer's dtype
/// (Statements.cpp).
void storeRef(Interp &I, BufferRefObj &Ref, const Value &V,
              llvm::SMRange ValueRange);
/// Python's format(V, Spec) for ints, floats and strings; nullopt when the
/// spec is invalid or does not apply to V's type.
std::optional<std::string> formatWithSpec(const Value &V, llvm::StringRef Spec);
/// A -D value: an int, a float, True/False, None, or else a string.
Value parseDefineValue(const std::string &Text);

} // namespace sema
} // namespace tilec

#endif
