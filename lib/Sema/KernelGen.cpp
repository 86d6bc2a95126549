//===- KernelGen.cpp - prim_funcs, kernels, buffers and loops -------------===//
//
// Turns a prim_func value into a `func` op: parameter annotations become
// the signature (symbolic dims first, then the parameters), the body runs
// with an insertion point in the func. `with T.Kernel(...)` opens a
// `kernel` op, T.alloc_* make `alloc` ops, and kernel loops (T.Parallel,
// T.Pipelined, T.serial, T.unroll, T.vectorized, range) become `parallel`
// and `for` ops.
//
// Eager `@tilelang.jit` functions declare their tensors in the body
// (`A: T.Tensor(...)`, `C = T.empty(...)`); their func op is emitted
// ("sealed") at the first statement that needs IR.
//
//===----------------------------------------------------------------------===//

#include "Builtins.h"
#include "Interp.h"
#include "tilec/IR/Value.h"
#include "tilec/Support/Target.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"

using namespace tilec;
using namespace tilec::sema;
using namespace tilec::ast;

//===----------------------------------------------------------------------===//
// Symbols and parameter types
//===----------------------------------------------------------------------===//

/// Symbol names become IR value names and C parameter names: they must be
/// identifiers.
static bool isIdentifier(llvm::StringRef Name) {
  if (Name.empty() || !(llvm::isAlpha(Name[0]) || Name[0] == '_'))
    return false;
  return llvm::all_of(Name,
                      [](char C) { return llvm::isAlnum(C) || C == '_'; });
}

Value Interp::makeSymbol(llvm::StringRef Name, DType T, llvm::SMRange R) {
  if (!isIdentifier(Name)) {
    error(R, diag::err_bad_symbol_name) << Name;
    return Value::poison();
  }
  auto S = std::make_shared<SymbolObj>(Name.str(), T);
  AllSymbols.push_back(S);
  return Value::object(std::move(S));
}

Value sema::tDynamic(Interp &I, BoundArgs &A) {
  if (!A[0].isStr()) {
    I.error(A.range(0), diag::err_type_mismatch)
        << "name of a symbolic dimension"
        << "a str" << typeName(A[0]);
    return Value::poison();
  }
  auto T = I.dtypeOf(A[1], A.range(1), "dtype");
  if (!T)
    return Value::poison();
  // T.dynamic("M, N") declares several, as T.const does.
  llvm::SmallVector<llvm::StringRef, 4> Names;
  llvm::StringRef(A[0].getStr()).split(Names, ',', -1, false);
  if (Names.size() <= 1)
    return I.makeSymbol(llvm::StringRef(A[0].getStr()).trim(), *T, A.range(0));
  std::vector<Value> Out;
  for (llvm::StringRef N : Names)
    Out.push_back(I.makeSymbol(N.trim(), *T, A.range(0)));
  return Value::tuple(std::move(Out));
}

/// T.const("M, N"): shape names inferred from tensors at call time; here a
/// -D value makes one a constant, else the extent of the tensor the file's
/// call site passes (ConstHints), otherwise it is a symbolic dim.
Value sema::tConst(Interp &I, BoundArgs &A) {
  if (!A[0].isStr()) {
    I.error(A.range(0), diag::err_type_mismatch) << "T.const names"
                                                 << "a str" << typeName(A[0]);
    return Value::poison();
  }
  llvm::SmallVector<llvm::StringRef, 4> Names;
  llvm::StringRef(A[0].getStr()).split(Names, ',', -1, false);
  std::vector<Value> Out;
  for (llvm::StringRef N : Names) {
    N = N.trim();
    auto It = I.Opts.Defines.find(N.str());
    auto Hint = I.ConstHints.find(N);
    if (It != I.Opts.Defines.end())
      Out.push_back(parseDefineValue(It->second));
    else if (Hint != I.ConstHints.end())
      Out.push_back(Hint->second);
    else
      Out.push_back(I.makeSymbol(N, DType::Int32, A.range(0)));
  }
  if (Out.size() == 1)
    return Out[0];
  return Value::tuple(std::move(Out));
}

/// The target whose launch limits Sema checks (sm_80 when none is given).
static const Target &targetOf(Interp &I) {
  static const Target Default = defaultTarget();
  return I.Opts.Tgt ? *I.Opts.Tgt : Default;
}

/// Static dims must fit the 32-bit index arithmetic of the kernels.
static bool checkIndexableDims(Interp &I, llvm::ArrayRef<ir::Dim> Dims,
                               llvm::SMRange R, llvm::StringRef What) {
  for (size_t D = 0; D != Dims.size(); ++D) {
    if (Dims[D].isSymbolic() || Dims[D].getValue() <= INT32_MAX)
      continue;
    I.error(R, diag::err_dim_too_large)
        << D << What.str() << Dims[D].getValue() << int64_t(INT32_MAX);
    return false;
  }
  return true;
}

/// Elements of the static shape \p T, saturated at 2^56 (a product of
/// dims up to 2^31 each may overflow int64).
static int64_t saturatedElements(const ir::Type &T) {
  const int64_t Cap = int64_t(1) << 56;
  int64_t N = 1;
  for (const ir::Dim &D : T.getDims())
    N = D.getValue() > Cap / N ? Cap : N * D.getValue();
  return N;
}

/// Fragments and local arrays live in each thread's registers or local
/// memory. One that cannot fit there is reported at its allocation, before
/// layout inference enumerates its elements (which, for absurd sizes,
/// would not finish): a fragment is spread over the block's threads, so it
/// needs at least its size / threads per thread.
static bool checkPerThreadSize(Interp &I, ir::Scope Scope, const ir::Type &T,
                               llvm::SMRange R, llvm::StringRef What) {
  if (Scope != ir::Scope::Fragment && Scope != ir::Scope::Local)
    return true;
  int64_t Threads = 1;
  if (Scope == ir::Scope::Fragment && I.CurFunc && I.CurFunc->Kernel)
    for (int64_t N : I.CurFunc->Kernel->getIntArrayAttr("threads").value_or(
             std::vector<int64_t>{1}))
      Threads *= N;
  int64_t Elements = saturatedElements(T);
  int64_t Bits = T.getDType() == DType::Bool ? 8 : bitWidth(T.getDType());
  int64_t Bytes = (Elements * Bits + 7) / 8;
  int64_t PerThread = (Bytes + Threads - 1) / Threads;
  const Target &Tgt = targetOf(I);
  if (PerThread > Tgt.MaxLocalBytesPerThread) {
    I.error(R, diag::err_thread_memory_limit)
        << ir::scopeName(Scope).str() << What.str() << PerThread
        << Tgt.MaxLocalBytesPerThread;
    return false;
  }
  if (Scope == ir::Scope::Fragment && Elements > MaxFragmentElements) {
    I.error(R, diag::err_fragment_too_large)
        << What.str() << Elements << MaxFragmentElements;
    return false;
  }
  return true;
}

Value sema::tTensor(Interp &I, BoundArgs &A) {
  auto Dims = I.shapeOf(A[0], A.range(0), "the tensor", /*AllowSymbols=*/true,
                        "global");
  auto T = I.dtypeOf(A[1], A.range(1), "dtype");
  if (!Dims || !T || !checkIndexableDims(I, *Dims, A.range(0), "the tensor"))
    return Value::poison();
  if (!A[2].isNone())
    return tensorOverData(I, A, std::move(*Dims), *T);
  auto TT = std::make_shared<TensorTypeObj>();
  TT->Dims = std::move(*Dims);
  TT->Ty = *T;
  return Value::object(std::move(TT));
}

/// The IR type of a prim_func parameter annotation; nullopt after an error.
static std::optional<ir::Type> paramType(Interp &I, const Value &V,
                                         const Param &P) {
  if (auto *TT = V.getAs<TensorTypeObj>())
    return ir::Type::buffer(ir::Scope::Global, TT->Dims, TT->Ty);
  if (V.isDType())
    return ir::Type::scalar(V.getDType());
  if (V.isPoison())
    return std::nullopt;
  if (V.isStr())
    if (auto T = I.dtypeOf(V, P.Annotation->getRange(), "annotation"))
      return ir::Type::scalar(*T);
  I.error(P.Range, diag::err_tensor_annotation) << P.Name;
  return std::nullopt;
}

/// Symbols used by the types, in creation order.
/// The symbols of a func: those its parameters' shapes use, and those the
/// kernel being built takes from the driver's call (a factory argument
/// computed from run-time data, such as a maximum sequence length used
/// only in the grid): the launcher takes each as an argument.
static std::vector<std::string> symbolsOf(Interp &I,
                                          const std::vector<ir::Type> &Types) {
  std::vector<std::string> Names;
  for (size_t K = 0; K < I.AllSymbols.size(); ++K) {
    const auto &S = I.AllSymbols[K];
    bool Used = K >= I.FirstBuildSymbol && S->DriverCall.isValid();
    for (const ir::Type &T : Types)
      if (T.isBuffer())
        for (const ir::Dim &D : T.getDims())
          Used |= D.isSymbolic() && D.getSymbol() == S->Name;
    if (Used && llvm::find(Names, S->Name) == Names.end())
      Names.push_back(S->Name);
  }
  return Names;
}

/// The func attribute that records one of the pass configs tilec follows.
static const char *funcAttrOfPassConfig(llvm::StringRef Config) {
  return llvm::StringSwitch<const char *>(Config)
      .Case("tl.disable_tma_lower", "no_tma")
      .Case("tl.disable_warp_specialized", "no_warp_specialize")
      .Case("tl.enable_fast_math", "fast_math")
      .Default(nullptr);
}

static std::vector<int64_t> normalizeOutIdx(Interp &I,
                                            const FunctionTraits &Traits,
                                            size_t NumParams, llvm::SMRange R) {
  std::vector<int64_t> Out;
  for (int64_t K : Traits.OutIdx) {
    int64_t N = K < 0 ? K + int64_t(NumParams) : K;
    if (N < 0 || N >= int64_t(NumParams)) {
      I.error(R, diag::err_bad_out_idx) << K << NumParams;
      continue;
    }
    Out.push_back(N);
  }
  return Out;
}

/// Creates the func op and maps each symbol to its block argument.
static ir::Operation *createFuncOp(Interp &I, FuncState &FS,
                                   llvm::StringRef Name,
                                   const std::vector<std::string> &Params,
                                   const std::vector<ir::Type> &Types,
                                   const std::vector<int64_t> &OutIdx,
                                   llvm::SMRange Loc) {
  std::vector<std::string> Symbols = symbolsOf(I, Types);
  ir::Builder::InsertionGuard G(I.B);
  I.B.setInsertionPointToEnd(I.ModuleOp->getBody());
  I.B.setLoc(Location(Loc));
  ir::Operation *F = I.B.createFunc(Name, Symbols, Params, Types, OutIdx);
  // Symbols are matched by name: each T.const / T.dynamic call makes a new
  // object, and every kernel names its own.
  for (const auto &S : I.AllSymbols) {
    auto It = llvm::find(Symbols, S->Name);
    if (It != Symbols.end())
      FS.SymbolArgs[S.get()] = F->getBody().getArgument(It - Symbols.begin());
  }
  FS.Func = F;
  I.emitLauncherChecks(FS, Symbols);
  return F;
}

static Value bindParam(ir::Value *Arg, const std::string &Name,
                       const ir::Type &T, llvm::SMRange R) {
  if (T.isScalar())
    return Value::runtime(Arg);
  auto Buf = std::make_shared<BufferObj>();
  Buf->IR = Arg;
  Buf->Name = Name;
  Buf->Scope = T.getScope();
  Buf->Dims = T.getDims();
  Buf->Ty = T.getDType();
  Buf->DeclRange = R;
  return Value::object(std::move(Buf));
}

void Interp::buildPrimFunc(FunctionObj &F, llvm::StringRef Name,
                           const FunctionTraits &Traits) {
  auto Fr = std::make_unique<Frame>();
  Fr->Locals = F.Closure;
  Fr->FuncName = F.Name;
  Frames.push_back(std::move(Fr));
  std::vector<std::string> Names;
  std::vector<ir::Type> Types;
  bool OK = true;
  for (const Param &P : *F.Params) {
    if (!P.Annotation) {
      error(P.Range, diag::err_tensor_annotation) << P.Name;
      OK = false;
      continue;
    }
    auto T = paramType(*this, eval(P.Annotation.get()), P);
    OK &= T.has_value();
    Names.push_back(P.Name);
    Types.push_back(T ? *T : ir::Type::i32());
  }
  Frames.pop_back();
  if (!OK || Aborting)
    return;
  FuncState FS;
  auto OutIdx = normalizeOutIdx(*this, Traits, Names.size(), F.NameRange);
  ir::Operation *Func =
      createFuncOp(*this, FS, Name, Names, Types, OutIdx, F.Def->getRange());
  // TileLang's pass configs that tilec follows, as func attributes.
  for (const std::string &Config : Traits.PassConfigs) {
    const char *Attr = funcAttrOfPassConfig(Config);
    assert(Attr && "readPassConfigs keeps the configs tilec follows");
    Func->setAttr(Attr, ir::Attribute::boolean(true));
  }
  auto Body = std::make_unique<Frame>();
  Body->Locals = std::make_shared<Scope>(F.Closure);
  Body->FuncName = F.Name;
  Body->IsKernelBody = true;
  unsigned NumSyms = Func->getBody().getNumArguments() - Names.size();
  for (size_t K = 0; K < Names.size(); ++K)
    Body->Locals->set(Names[K],
                      bindParam(Func->getBody().getArgument(NumSyms + K),
                                Names[K], Types[K], (*F.Params)[K].Range));
  Frames.push_back(std::move(Body));
  CurFunc = &FS;
  ir::Builder::InsertionGuard G(B);
  B.setInsertionPointToEnd(Func->getBody());
  exec(F.Def->Body);
  CurFunc = nullptr;
  Frames.pop_back();
}

//===----------------------------------------------------------------------===//
// Eager @tilelang.jit kernels
//===----------------------------------------------------------------------===//

static size_t paramPosition(const FunctionObj &F, llvm::StringRef Name) {
  for (size_t K = 0; K < F.Params->size(); ++K)
    if ((*F.Params)[K].Name == Name)
      return K;
  return F.Params->size();
}

void Interp::declareEagerParam(const NameExpr *N, const Expr *Annot) {
  size_t Pos = paramPosition(*Eager->Fn, N->Id);
  if (Pos == Eager->Fn->Params->size())
    return;
  Value V = eval(Annot);
  auto *TT = V.getAs<TensorTypeObj>();
  if (!TT) {
    if (!V.isPoison())
      error(Annot->getRange(), diag::err_tensor_annotation) << N->Id;
    bindName(N->Id, Value::poison(), N->getRange());
    return;
  }
  if (Eager->Sealed) {
    error(N->getRange(), diag::err_feature_unsupported)
        << "declaring a tensor after the first kernel";
    return;
  }
  auto Buf = std::make_shared<BufferObj>();
  Buf->Name = N->Id;
  Buf->Dims = TT->Dims;
  Buf->Ty = TT->Ty;
  Buf->DeclRange = N->getRange();
  Eager->Params.emplace_back(Pos, Buf);
  bindName(N->Id, Value::object(Buf), N->getRange());
  if (OnTensorParam)
    OnTensorParam(N->Id, Buf->Dims);
}

Value sema::tEmpty(Interp &I, BoundArgs &A) {
  if (!I.Eager || I.Eager->Sealed) {
    I.error(A.CallRange, diag::err_feature_unsupported)
        << "T.empty outside the declarations of a @tilelang.jit kernel";
    return Value::poison();
  }
  auto Dims = I.shapeOf(A[0], A.range(0), "the output", true, "global");
  auto T = I.dtypeOf(A[1], A.range(1), "dtype");
  if (!Dims || !T || !checkIndexableDims(I, *Dims, A.range(0), "the output"))
    return Value::poison();
  auto Buf = std::make_shared<BufferObj>();
  Buf->Name = I.PendingName.empty()
                  ? "out" + std::to_string(I.Eager->NumOutputs)
                  : I.PendingName;
  Buf->Dims = std::move(*Dims);
  Buf->Ty = *T;
  Buf->DeclRange = A.CallRange;
  size_t Pos = size_t(1) << 30;
  I.Eager->Params.emplace_back(Pos + I.Eager->NumOutputs++, Buf);
  return Value::object(std::move(Buf));
}

bool Interp::sealEagerSignature(llvm::SMRange At) {
  if (!Eager || Eager->Sealed)
    return Eager != nullptr;
  Eager->Sealed = true;
  auto &Params = Eager->Params;
  std::stable_sort(Params.begin(), Params.end(),
                   [](auto &L, auto &R) { return L.first < R.first; });
  std::vector<std::string> Names;
  std::vector<ir::Type> Types;
  std::vector<int64_t> OutIdx;
  for (size_t K = 0; K < Params.size(); ++K) {
    BufferObj &Buf = *Params[K].second;
    Names.push_back(Buf.Name);
    Types.push_back(ir::Type::buffer(ir::Scope::Global, Buf.Dims, Buf.Ty));
    if (Params[K].first >= (size_t(1) << 30))
      OutIdx.push_back(int64_t(K));
  }
  ir::Operation *Func = createFuncOp(*this, Eager->Func, Eager->Name, Names,
                                     Types, OutIdx, Eager->Fn->Def->getRange());
  unsigned NumSyms = Func->getBody().getNumArguments() - Params.size();
  for (size_t K = 0; K < Params.size(); ++K) {
    Params[K].second->IR = Func->getBody().getArgument(NumSyms + K);
    Params[K].second->IR->setNameHint(Names[K]);
  }
  CurFunc = &Eager->Func;
  B.setInsertionPointToEnd(Func->getBody());
  return true;
}

void Interp::buildEagerFunc(FunctionObj &F, CallArgs &Args, llvm::SMRange At) {
  EagerState ES;
  ES.Name = F.Name;
  ES.Fn = &F;
  Eager = &ES;
  ir::Builder::InsertionGuard G(B);
  callFunction(F, Args, At, /*KernelBody=*/true);
  if (!Aborting)
    sealEagerSignature(At);
  CurFunc = nullptr;
  Eager = nullptr;
}

//===----------------------------------------------------------------------===//
// T.Kernel
//===----------------------------------------------------------------------===//

static std::optional<std::vector<int64_t>> threadsOf(Interp &I, const Value &V,
                                                     llvm::SMRange R) {
  if (V.isNone())
    return std::vector<int64_t>{128, 1, 1};
  std::vector<Value> Items = V.isSequence() ? V.elts() : std::vector<Value>{V};
  if (Items.empty() || Items.size() > 3) {
    I.error(R, diag::err_bad_threads);
    return std::nullopt;
  }
  std::vector<int64_t> Out;
  int64_t Total = 1;
  for (const Value &Item : Items) {
    if (!Item.isIntLike()) {
      if (Item.isRuntime() || isSymbolic(Item))
        I.reportNotCompileTime(Item, R, "'threads'");
      else if (!Item.isPoison())
        I.error(R, diag::err_bad_threads);
      return std::nullopt;
    }
    if (Item.getInt() <= 0) {
      I.error(R, diag::err_bad_threads);
      return std::nullopt;
    }
    Out.push_back(Item.getInt());
    Total = std::min<int64_t>(Total * Item.getInt(), int64_t(1) << 40);
  }
  const Target &Tgt = targetOf(I);
  if (Total > Tgt.MaxThreadsPerBlock) {
    I.error(R, diag::err_too_many_threads) << Total << Tgt.MaxThreadsPerBlock;
    return std::nullopt;
  }
  // Within the total, only z has a smaller limit (64), but check each dim.
  for (size_t D = 0; D != Out.size(); ++D)
    if (Out[D] > Tgt.MaxBlockDims[D]) {
      I.error(R, diag::err_launch_limit)
          << "threads in dimension " + std::to_string(D) << Out[D]
          << Tgt.MaxBlockDims[D];
      return std::nullopt;
    }
  Out.resize(3, 1);
  return Out;
}

/// The blocks of a grid whose y or z extent passes the target's limit (a
/// convolution's N * OH * OW / block_M), when every extent is a constant
/// and the blocks fit in x: such a grid is launched folded into x (see
/// foldedBlockIndices); nullopt when it is not folded.
static std::optional<int64_t> foldedGridSize(Interp &I,
                                             llvm::ArrayRef<Value> Grid) {
  const Target &Tgt = targetOf(I);
  bool Over = false;
  int64_t Total = 1;
  for (size_t K = 0; K != Grid.size(); ++K) {
    if (!Grid[K].isIntLike() || Grid[K].getInt() <= 0)
      return std::nullopt;
    Over |= K != 0 && Grid[K].getInt() > Tgt.MaxGridDims[K];
    Total = std::min<int64_t>(Total * Grid[K].getInt(), int64_t(1) << 40);
  }
  if (!Over || Total > Tgt.MaxGridDims[0])
    return std::nullopt;
  return Total;
}

/// The block indices of a folded grid (foldedGridSize) from the one x
/// index \p Id: bx = Id % gx, by = Id / gx % gy, bz = Id / (gx * gy).
static std::vector<ir::Value *> foldedBlockIndices(Interp &I, ir::Value *Id,
                                                   llvm::ArrayRef<Value> Grid) {
  std::vector<ir::Value *> Out;
  ir::Value *Rest = Id;
  for (size_t K = 0; K != Grid.size(); ++K) {
    ir::Value *Extent = I.B.createConstInt(Grid[K].getInt());
    Out.push_back(K + 1 == Grid.size()
                      ? Rest
                      : I.B.createBinary(ir::OpKind::FloorMod, Rest, Extent));
    if (K + 1 != Grid.size())
      Rest = I.B.createBinary(ir::OpKind::FloorDiv, Rest, Extent);
  }
  return Out;
}

Value sema::tKernel(Interp &I, BoundArgs &A) {
  if (A.Rest.size() > 3) {
    I.error(A.CallRange, diag::err_kernel_grid_rank) << A.Rest.size();
    return Value::poison();
  }
  auto Spec = std::make_shared<KernelSpecObj>();
  Spec->Range = A.CallRange;
  // TileLang binds no block index then: the grid is one block.
  if (A.Rest.empty()) {
    Spec->Grid.push_back(Value::integer(1));
    Spec->GridRanges.push_back(A.CallRange);
  }
  for (size_t K = 0; K < A.Rest.size(); ++K) {
    const Value &G = A.Rest[K];
    if (G.isIntLike() && G.getInt() <= 0) {
      I.error(A.RestRanges[K], diag::err_non_positive_extent)
          << "grid extent " + std::to_string(K) << G.getInt();
      return Value::poison();
    }
    // A larger extent would be truncated by dim3 (or rejected at launch);
    // a constant grid too tall in y or z is folded into x instead.
    if (G.isIntLike() && G.getInt() > targetOf(I).MaxGridDims[K] &&
        !foldedGridSize(I, A.Rest)) {
      I.error(A.RestRanges[K], diag::err_launch_limit)
          << "grid extent " + std::to_string(K) << G.getInt()
          << targetOf(I).MaxGridDims[K];
      return Value::poison();
    }
    Spec->Grid.push_back(G);
    Spec->GridRanges.push_back(A.RestRanges[K]);
  }
  auto Threads = threadsOf(I, A[0], A.range(0));
  if (!Threads)
    return Value::poison();
  Spec->Threads = std::move(*Threads);
  return Value::object(std::move(Spec));
}

/// Names of the `as` target, one per grid dim; nullopt on a count mismatch.
static std::optional<std::vector<std::string>>
kernelBindNames(Interp &I, const Expr *Target, size_t Rank) {
  std::vector<std::string> Names;
  if (!Target)
    return Names;
  if (auto *N = llvm::dyn_cast<NameExpr>(Target)) {
    if (Rank == 1)
      Names.push_back(N->Id);
    return Names;
  }
  const ExprList *Elts = nullptr;
  if (auto *T = llvm::dyn_cast<TupleExpr>(Target))
    Elts = &T->Elts;
  else if (auto *L = llvm::dyn_cast<ListExpr>(Target))
    Elts = &L->Elts;
  if (!Elts) {
    I.error(Target->getRange(), diag::err_invalid_assign_target)
        << "'" + exprText(Target->getRange()) + "'";
    return std::nullopt;
  }
  if (Elts->size() != Rank) {
    I.error(Target->getRange(), diag::err_kernel_bind_count)
        << Rank << Elts->size();
    return std::nullopt;
  }
  for (const ExprPtr &E : *Elts)
    Names.push_back(llvm::isa<NameExpr>(E.get())
                        ? llvm::cast<NameExpr>(E.get())->Id
                        : std::string());
  return Names;
}

static void bindKernelTarget(Interp &I, const Expr *Target,
                             llvm::ArrayRef<ir::Value *> BlockIndices) {
  if (!Target)
    return;
  std::vector<Value> Args;
  for (ir::Value *A : BlockIndices)
    Args.push_back(Value::runtime(A));
  Value V = Args.size() == 1 && llvm::isa<NameExpr>(Target)
                ? Args[0]
                : Value::tuple(std::move(Args));
  I.assign(Target, V, Target->getRange());
}

Flow Interp::execKernel(const WithStmt *S, KernelSpecObj &Spec) {
  if (!hasIR() && Eager)
    sealEagerSignature(Spec.Range);
  if (!hasIR()) {
    error(Spec.Range, diag::err_kernel_outside_func);
    return Flow::Normal;
  }
  if (inKernel()) {
    error(Spec.Range, diag::err_nested_kernel);
    return Flow::Normal;
  }
  const Expr *Target = S->Items[0].Target.get();
  auto Names = kernelBindNames(*this, Target, Spec.Grid.size());
  std::vector<ir::Value *> Grid;
  for (size_t K = 0; K < Spec.Grid.size(); ++K)
    Grid.push_back(toIndex(Spec.Grid[K], Spec.GridRanges[K]));
  if (!Names || llvm::is_contained(Grid, nullptr))
    return Aborting ? Flow::Abort : Flow::Normal;
  B.setLoc(Location(Spec.Range));
  auto Folded = foldedGridSize(*this, Spec.Grid);
  if (Folded)
    Grid = {B.createConstInt(*Folded)};
  ir::Operation *K = B.createKernel(
      Grid, Spec.Threads, Folded ? std::vector<std::string>{"block"} : *Names);
  CurFunc->Kernel = K;
  CurFunc->KernelBuffers.clear();
  Flow F;
  {
    ir::Builder::InsertionGuard G(B);
    B.setInsertionPointToEnd(K->getBody());
    openRegion();
    std::vector<ir::Value *> Blocks = K->getBody().getArguments();
    if (Folded) {
      Blocks = foldedBlockIndices(*this, Blocks[0], Spec.Grid);
      for (size_t D = 0; D != Blocks.size() && D != Names->size(); ++D)
        Blocks[D]->setNameHint((*Names)[D]);
    }
    bindKernelTarget(*this, Target, Blocks);
    F = exec(S->Body);
    closeRegion();
  }
  CurFunc->Kernel = nullptr;
  return F == Flow::Abort ? Flow::Abort : Flow::Normal;
}

//===----------------------------------------------------------------------===//
// Allocation
//===----------------------------------------------------------------------===//

static std::optional<ir::Scope> parseScopeName(llvm::StringRef S) {
  return llvm::StringSwitch<std::optional<ir::Scope>>(S)
      .Cases("shared", "shared.dyn", ir::Scope::Shared)
      .Cases("local.fragment", "fragment", ir::Scope::Fragment)
      .Case("local", ir::Scope::Local)
      .Cases("local.var", "var", ir::Scope::Var)
      .Case("global", ir::Scope::Global)
      .Default(std::nullopt);
}

static std::string pendingBufferName(Interp &I) {
  return I.PendingName.empty() ? "the buffer" : "'" + I.PendingName + "'";
}

Value sema::allocBuffer(Interp &I, ir::Scope Scope,
                        const std::vector<ir::Dim> &Dims, DType T,
                        llvm::SMRange R) {
  auto Buf = std::make_shared<BufferObj>();
  Buf->Name = I.PendingName;
  Buf->Scope = Scope;
  Buf->Dims = Dims;
  Buf->Ty = T;
  Buf->DeclRange = R;
  Buf->Kernel = I.CurFunc->Kernel;
  Buf->IR = I.B.createAlloc(ir::Type::buffer(Scope, Dims, T), I.PendingName);
  if (I.CurFunc->Kernel)
    I.CurFunc->KernelBuffers.push_back(Buf.get());
  return Value::object(std::move(Buf));
}

/// T.alloc_shared / alloc_fragment / alloc_local (shape, dtype, scope).
static Value allocTile(Interp &I, BoundArgs &A) {
  if (!A[2].isStr()) {
    I.error(A.range(2), diag::err_type_mismatch) << "scope"
                                                 << "a str" << typeName(A[2]);
    return Value::poison();
  }
  auto Scope = parseScopeName(A[2].getStr());
  if (!Scope) {
    I.error(A.range(2), diag::err_bad_scope) << A[2].getStr();
    return Value::poison();
  }
  std::string What = pendingBufferName(I);
  auto Dims = I.shapeOf(A[0], A.range(0), What,
                        /*AllowSymbols=*/false, ir::scopeName(*Scope));
  auto T = I.dtypeOf(A[1], A.range(1), "dtype");
  if (!Dims || !T || !checkIndexableDims(I, *Dims, A.range(0), What) ||
      !checkPerThreadSize(I, *Scope, ir::Type::buffer(*Scope, *Dims, *T),
                          A.CallRange, What))
    return Value::poison();
  return allocBuffer(I, *Scope, *Dims, *T, A.CallRange);
}

Value sema::tAllocShared(Interp &I, BoundArgs &A) { return allocTile(I, A); }
Value sema::tAllocFragment(Interp &I, BoundArgs &A) { return allocTile(I, A); }
Value sema::tAllocLocal(Interp &I, BoundArgs &A) { return allocTile(I, A); }

/// True when the func declares symbol \p Name (some parameter uses it).
static bool funcHasSymbol(Interp &I, llvm::StringRef Name) {
  const ir::Attribute *Syms = I.CurFunc->Func->getAttr("symbols");
  auto List = Syms ? Syms->getStringArray() : std::nullopt;
  return List && llvm::is_contained(*List, Name);
}

/// T.alloc_global(shape, dtype): a workspace in global memory that the
/// launcher allocates (stream-ordered) before the func's first kernel and
/// frees after its last, so it is visible to every kernel of the func.
Value sema::tAllocGlobal(Interp &I, BoundArgs &A) {
  if (I.inKernel()) {
    I.error(A.CallRange, diag::err_alloc_global_in_kernel);
    return Value::poison();
  }
  std::string What = pendingBufferName(I);
  auto Dims =
      I.shapeOf(A[0], A.range(0), What, /*AllowSymbols=*/true, "global");
  auto T = I.dtypeOf(A[1], A.range(1), "dtype");
  if (!Dims || !T)
    return Value::poison();
  for (const ir::Dim &D : *Dims)
    if (D.isSymbolic() && !funcHasSymbol(I, D.getSymbol())) {
      I.error(A.range(0), diag::err_alloc_global_symbol)
          << What << D.getSymbol().str();
      return Value::poison();
    }
  return allocBuffer(I, ir::Scope::Global, *Dims, *T, A.CallRange);
}

Value sema::tAllocVar(Interp &I, BoundArgs &A) {
  auto T = I.dtypeOf(A[0], A.range(0), "dtype");
  if (!T)
    return Value::poison();
  Value V = allocBuffer(I, ir::Scope::Var, {ir::Dim(1)}, *T, A.CallRange);
  if (!A[1].isNone()) {
    ir::Value *Init = I.toRuntimeAs(A[1], *T, A.range(1));
    if (!Init)
      return Value::poison();
    I.B.createStore(Init, V.getAs<BufferObj>()->IR, {I.B.createConstInt(0)});
  }
  return V;
}

Value sema::tGetThreadBinding(Interp &I, BoundArgs &A) {
  auto D = I.constInt(A[0], A.range(0), "the thread dimension");
  if (!D)
    return Value::poison();
  if (*D < 0 || *D > 2) {
    I.error(A.range(0), diag::err_thread_binding_dim) << *D;
    return Value::poison();
  }
  return Value::runtime(I.B.createThreadId(*D));
}

/// `T.get_block_binding(dim)`: the block index along dim, the kernel's
/// block variable; 0 past the grid's dimensions (their extent is 1).
Value sema::tGetBlockBinding(Interp &I, BoundArgs &A) {
  auto D = I.constInt(A[0], A.range(0), "the block dimension");
  if (!D)
    return Value::poison();
  if (*D < 0 || *D > 2) {
    I.error(A.range(0), diag::err_block_binding_dim) << *D;
    return Value::poison();
  }
  ir::Block &Body = I.CurFunc->Kernel->getBody();
  if (*D >= int64_t(Body.getNumArguments()))
    return Value::runtime(I.B.createConstInt(0));
  return Value::runtime(Body.getArgument(*D));
}

/// `tx = T.thread_binding(0, threads, thread="threadIdx.x")`: the thread
/// index of that dimension, offset by start.
Value sema::tThreadBinding(Interp &I, BoundArgs &A) {
  static const char *Names[] = {"threadIdx.x", "threadIdx.y", "threadIdx.z"};
  int Dim = -1;
  for (int D = 0; D < 3; ++D)
    if (A[2].isStr() && A[2].getStr() == Names[D])
      Dim = D;
  auto Start = I.constInt(A[0], A.range(0), "the start of T.thread_binding");
  if (!Start)
    return Value::poison();
  if (Dim < 0) {
    I.error(A.range(2), diag::err_feature_unsupported)
        << "T.thread_binding to " + repr(A[2]) + " (only threadIdx.x/y/z)";
    return Value::poison();
  }
  ir::Value *Tid = I.B.createThreadId(Dim);
  if (*Start == 0)
    return Value::runtime(Tid);
  return Value::runtime(I.emitBinary(
      ir::OpKind::Add, Tid, I.constant(Value::integer(*Start), DType::Int32)));
}

/// T.sync_threads(): a barrier of the whole block. Named barriers over a
/// subset of the threads (barrier_id, arrive_count) need per-warp roles the
/// pipeline does not model yet.
/// T.sync_threads(): __syncthreads. T.sync_threads(id, count): the named
/// barrier `bar.sync id, count` among count threads (a multiple of the warp
/// size), which may run inside thread-dependent code.
Value sema::tSyncThreads(Interp &I, BoundArgs &A) {
  if (A[0].isNone() && A[1].isNone()) {
    I.B.create(ir::OpKind::Barrier, {}, {}, {});
    return Value::none();
  }
  if (A[0].isNone() || A[1].isNone()) {
    I.error(A.CallRange, diag::err_named_barrier)
        << "a named barrier needs both barrier_id and arrive_count";
    return Value::poison();
  }
  auto Id = I.constInt(A[0], A.range(0), "the barrier id");
  auto Count = I.constInt(A[1], A.range(1), "the arrive count");
  if (!Id || !Count)
    return Value::poison();
  if (*Id < 0 || *Id > 15) {
    I.error(A.range(0), diag::err_named_barrier)
        << "barrier id " + std::to_string(*Id) + " is not in [0, 15]";
    return Value::poison();
  }
  if (*Count <= 0 || *Count % 32 != 0) {
    I.error(A.range(1), diag::err_named_barrier)
        << "arrive count " + std::to_string(*Count) +
               " is not a positive multiple of 32";
    return Value::poison();
  }
  I.B.create(ir::OpKind::Barrier, {}, {}, {},
             {{"id", ir::Attribute::integer(*Id)},
              {"count", ir::Attribute::integer(*Count)}});
  return Value::none();
}

//===----------------------------------------------------------------------===//
// Loops
//===----------------------------------------------------------------------===//

/// Fills Start/Stop/Step from (start, stop=None[, step=None]).
static bool loopBounds(Interp &I, BoundArgs &A, LoopObj &L, int StepArg) {
  L.Range = A.CallRange;
  if (A[1].isNone()) {
    L.Start = Value::integer(0);
    L.Stop = A[0];
    L.StartRange = L.StopRange = A.range(0);
  } else {
    L.Start = A[0];
    L.Stop = A[1];
    L.StartRange = A.range(0);
    L.StopRange = A.range(1);
  }
  L.Step =
      StepArg >= 0 && !A[StepArg].isNone() ? A[StepArg] : Value::integer(1);
  L.StepRange = StepArg >= 0 ? A.range(StepArg) : A.CallRange;
  for (const Value *V : {&L.Start, &L.Stop, &L.Step}) {
    if (V->isFloat() || V->isStr() || V->isSequence()) {
      I.error(V == &L.Start  ? L.StartRange
              : V == &L.Stop ? L.StopRange
                             : L.StepRange,
              diag::err_type_mismatch)
          << "loop bound"
          << "an integer" << typeName(*V);
      return false;
    }
  }
  if (L.Step.isIntLike() && L.Step.getInt() == 0) {
    I.error(L.StepRange, diag::err_non_positive_extent) << "loop step" << 0;
    return false;
  }
  return true;
}

static Value makeLoop(Interp &I, BoundArgs &A, LoopObj::LoopKind K,
                      int StepArg) {
  auto L = std::make_shared<LoopObj>(K);
  if (!loopBounds(I, A, *L, StepArg))
    return Value::poison();
  return Value::object(std::move(L));
}

Value sema::pyRange(Interp &I, BoundArgs &A) {
  return makeLoop(I, A, LoopObj::LoopKind::Range, 2);
}
Value sema::tSerial(Interp &I, BoundArgs &A) {
  return makeLoop(I, A, LoopObj::LoopKind::Serial, 2);
}
Value sema::tUnroll(Interp &I, BoundArgs &A) {
  return makeLoop(I, A, LoopObj::LoopKind::Unroll, 2);
}
Value sema::tVectorized(Interp &I, BoundArgs &A) {
  return makeLoop(I, A, LoopObj::LoopKind::Vectorized, -1);
}

Value sema::tParallel(Interp &I, BoundArgs &A) {
  auto L = std::make_shared<LoopObj>(LoopObj::LoopKind::Parallel);
  L->Range = A.CallRange;
  if (A.Rest.empty()) {
    I.error(A.CallRange, diag::err_missing_argument) << A.name() << "extents";
    return Value::poison();
  }
  for (size_t K = 0; K < A.Rest.size(); ++K) {
    const Value &E = A.Rest[K];
    if (E.isRuntime() || E.getAs<BufferRefObj>() || isSymbolic(E)) {
      I.error(A.RestRanges[K], diag::err_parallel_nested_runtime);
      return Value::poison();
    }
    auto N = I.constInt(E, A.RestRanges[K], "T.Parallel extent");
    if (!N)
      return Value::poison();
    if (*N <= 0) {
      I.error(A.RestRanges[K], diag::err_non_positive_extent)
          << "T.Parallel extent" << *N;
      return Value::poison();
    }
    L->Extents.push_back(*N);
  }
  // Thread binding numbers the iterations with one 32-bit index.
  int64_t Total = 1;
  for (int64_t N : L->Extents)
    Total = N > (int64_t(1) << 56) / Total ? int64_t(1) << 56 : Total * N;
  if (Total > INT32_MAX) {
    I.error(A.CallRange, diag::err_parallel_too_large)
        << Total << int64_t(INT32_MAX);
    return Value::poison();
  }
  return Value::object(std::move(L));
}

/// TVM's T.parallel(start, stop=None): a one-dimensional T.Parallel over
/// range(start, stop) with start 0; nested ones fuse (FuseParallel.h).
Value sema::tParallelTir(Interp &I, BoundArgs &A) {
  BoundArgs Loop = A;
  Loop.Rest = {A[0]};
  Loop.RestRanges = {A.range(0)};
  if (A.given(1)) {
    auto Start = I.constInt(A[0], A.range(0), "T.parallel start");
    if (!Start)
      return Value::poison();
    if (*Start != 0) {
      I.error(A.range(0), diag::err_feature_unsupported)
          << "T.parallel with a start other than 0 (write T.Parallel(stop "
             "- start) and add start to the index)";
      return Value::poison();
    }
    Loop.Rest = {A[1]};
    Loop.RestRanges = {A.range(1)};
  }
  return tParallel(I, Loop);
}

static std::optional<std::vector<int64_t>>
intList(Interp &I, const Value &V, llvm::SMRange R, llvm::StringRef What) {
  if (!V.isSequence()) {
    I.error(R, diag::err_type_mismatch)
        << What << "a list of ints" << typeName(V);
    return std::nullopt;
  }
  std::vector<int64_t> Out;
  for (const Value &E : V.elts()) {
    auto N = I.constInt(E, R, What);
    if (!N)
      return std::nullopt;
    Out.push_back(*N);
  }
  return Out;
}

static bool checkPipelineOrder(Interp &I, LoopObj &L, llvm::SMRange R) {
  if (L.HasOrder && L.HasStage && L.Order.size() != L.Stage.size()) {
    I.error(R, diag::err_bad_pipeline)
        << "'order' has " + std::to_string(L.Order.size()) +
               " entries but 'stage' has " + std::to_string(L.Stage.size());
    return false;
  }
  std::vector<int64_t> Sorted = L.Order;
  std::sort(Sorted.begin(), Sorted.end());
  for (size_t K = 0; K < Sorted.size(); ++K)
    if (Sorted[K] != int64_t(K)) {
      I.error(R, diag::err_bad_pipeline)
          << "'order' must be a permutation of 0.." +
                 std::to_string(int64_t(Sorted.size()) - 1);
      return false;
    }
  for (int64_t S : L.Stage)
    if (S < 0 || S > std::max<int64_t>(L.NumStages, 1)) {
      I.error(R, diag::err_bad_pipeline)
          << "stage " + std::to_string(S) + " is outside 0.." +
                 std::to_string(std::max<int64_t>(L.NumStages, 1));
      return false;
    }
  return true;
}

Value sema::tPipelined(Interp &I, BoundArgs &A) {
  auto L = std::make_shared<LoopObj>(LoopObj::LoopKind::Pipelined);
  if (!loopBounds(I, A, *L, -1))
    return Value::poison();
  auto Stages = I.constInt(A[2], A.range(2), "num_stages");
  if (!Stages)
    return Value::poison();
  if (*Stages < 0) {
    I.error(A.range(2), diag::err_bad_pipeline)
        << "num_stages must be non-negative, got " + std::to_string(*Stages);
    return Value::poison();
  }
  L->NumStages = *Stages;
  for (unsigned K : {3u, 4u}) {
    if (A[K].isNone())
      continue;
    auto List = intList(I, A[K], A.range(K), K == 3 ? "order" : "stage");
    if (!List)
      return Value::poison();
    (K == 3 ? L->Order : L->Stage) = *List;
    (K == 3 ? L->HasOrder : L->HasStage) = true;
  }
  if (!checkPipelineOrder(I, *L, A.CallRange))
    return Value::poison();
  return Value::object(std::move(L));
}

/// T.Persistent(domain, wave_size, index, group_size=8): the tiles of
/// `domain` visited by persistent blocks, `wave_size` of them at a time,
/// this block being number `index` of each wave (see persistentCoords).
Value sema::tPersistent(Interp &I, BoundArgs &A) {
  auto L = std::make_shared<LoopObj>(LoopObj::LoopKind::Persistent);
  if (!A[0].isSequence() || A[0].elts().empty()) {
    I.error(A.range(0), diag::err_persistent)
        << "the domain must be a non-empty list of tile counts, got " +
               typeName(A[0]);
    return Value::poison();
  }
  L->Domain = A[0].elts();
  L->DomainRanges.assign(L->Domain.size(), A.range(0));
  L->WaveSize = A[1];
  L->WaveRange = A.range(1);
  L->Index = A[2];
  L->IndexRange = A.range(2);
  L->GroupSize = A[3];
  L->GroupRange = A.range(3);
  L->Range = A.CallRange;
  return Value::object(std::move(L));
}

namespace {
/// The i32 values of a T.Persistent loop, as TileLang lays the tiles out:
/// the last dim of the domain is cut into groups of G = clamp(group_size,
/// 1, last) tiles, and tile numbers w * wave_size + index run fastest over
/// the group, then over the other dims in order, then over the groups.
struct PersistentPlan {
  std::vector<ir::Value *> Domain;
  ir::Value *Wave = nullptr, *Index = nullptr, *Group = nullptr;
  /// [ceildiv(last, G), d0, ..., d(n-2), G] and its product.
  std::vector<ir::Value *> Grouped;
  ir::Value *Padded = nullptr;
};

ir::Value *ceilDiv(Interp &I, ir::Value *A, ir::Value *B) {
  ir::Value *One = I.B.createConstInt(1);
  return I.B.createBinary(
      ir::OpKind::FloorDiv,
      I.B.createBinary(ir::OpKind::Sub, I.B.createBinary(ir::OpKind::Add, A, B),
                       One),
      B);
}

std::optional<PersistentPlan> planPersistent(Interp &I, LoopObj &L) {
  PersistentPlan P;
  for (size_t K = 0; K != L.Domain.size(); ++K) {
    P.Domain.push_back(I.toIndex(L.Domain[K], L.DomainRanges[K]));
    if (!P.Domain.back())
      return std::nullopt;
  }
  P.Wave = I.toIndex(L.WaveSize, L.WaveRange);
  P.Index = I.toIndex(L.Index, L.IndexRange);
  P.Group = I.toIndex(L.GroupSize, L.GroupRange);
  if (!P.Wave || !P.Index || !P.Group)
    return std::nullopt;
  ir::Value *Last = P.Domain.back();
  P.Group = I.B.createBinary(ir::OpKind::Max, I.B.createConstInt(1),
                             I.B.createBinary(ir::OpKind::Min, P.Group, Last));
  P.Grouped.push_back(ceilDiv(I, Last, P.Group));
  P.Grouped.insert(P.Grouped.end(), P.Domain.begin(), P.Domain.end() - 1);
  P.Grouped.push_back(P.Group);
  P.Padded = P.Grouped.front();
  for (size_t K = 1; K != P.Grouped.size(); ++K)
    P.Padded = I.B.createBinary(ir::OpKind::Mul, P.Padded, P.Grouped[K]);
  return P;
}

/// Inside the wave loop (variable \p W): the tile coordinates, under an
/// `if` that skips tile numbers past the padded domain and the padding of
/// the last group, where the body is then emitted.
std::vector<ir::Value *> persistentCoords(Interp &I, const PersistentPlan &P,
                                          ir::Value *W) {
  ir::Value *Tile = I.B.createBinary(
      ir::OpKind::Add, I.B.createBinary(ir::OpKind::Mul, W, P.Wave), P.Index);
  std::vector<ir::Value *> Idx(P.Grouped.size());
  ir::Value *Rem = Tile;
  for (size_t K = P.Grouped.size(); K-- > 1;) {
    Idx[K] = I.B.createBinary(ir::OpKind::FloorMod, Rem, P.Grouped[K]);
    Rem = I.B.createBinary(ir::OpKind::FloorDiv, Rem, P.Grouped[K]);
  }
  Idx[0] = Rem;
  ir::Value *LastCoord = I.B.createBinary(
      ir::OpKind::Add, I.B.createBinary(ir::OpKind::Mul, Idx[0], P.Group),
      Idx.back());
  ir::Value *InRange = I.B.createBinary(
      ir::OpKind::And, I.B.createCmp(ir::CmpPred::Lt, Tile, P.Padded),
      I.B.createCmp(ir::CmpPred::Lt, LastCoord, P.Domain.back()));
  ir::Operation *If = I.B.createIf(InRange);
  I.B.setInsertionPointToEnd(If->getBody(0));
  std::vector<ir::Value *> Coords(Idx.begin() + 1, Idx.end() - 1);
  Coords.push_back(LastCoord);
  return Coords;
}
} // namespace

static llvm::StringRef loopKindName(LoopObj::LoopKind K) {
  switch (K) {
  case LoopObj::LoopKind::Pipelined:
    return "pipelined";
  case LoopObj::LoopKind::Unroll:
    return "unroll";
  case LoopObj::LoopKind::Vectorized:
    return "vectorized";
  default:
    return "serial";
  }
}

/// Names of the loop variables; nullopt (reported) on a count mismatch.
static std::optional<std::vector<const NameExpr *>>
loopTargets(Interp &I, const Expr *Target, size_t Count) {
  std::vector<const NameExpr *> Out;
  if (auto *N = llvm::dyn_cast<NameExpr>(Target))
    Out.push_back(N);
  else if (auto *T = llvm::dyn_cast<TupleExpr>(Target))
    for (const ExprPtr &E : T->Elts)
      Out.push_back(llvm::dyn_cast<NameExpr>(E.get()));
  if (llvm::is_contained(Out, nullptr) || Out.empty()) {
    I.error(Target->getRange(), diag::err_invalid_assign_target)
        << "'" + exprText(Target->getRange()) + "' in a kernel loop";
    return std::nullopt;
  }
  if (Out.size() != Count) {
    I.error(Target->getRange(), diag::err_unpack_count) << Count << Out.size();
    return std::nullopt;
  }
  return Out;
}

static ir::Operation *createLoopOp(Interp &I, LoopObj &L, size_t NumIVs,
                                   const std::vector<const NameExpr *> &IVs,
                                   std::optional<PersistentPlan> &Plan) {
  if (L.LK == LoopObj::LoopKind::Persistent) {
    Plan = planPersistent(I, L);
    if (!Plan)
      return nullptr;
    return I.B.createFor(I.B.createConstInt(0),
                         ceilDiv(I, Plan->Padded, Plan->Wave),
                         I.B.createConstInt(1), "serial", "w");
  }
  if (L.LK == LoopObj::LoopKind::Parallel) {
    std::vector<std::string> Names;
    for (const NameExpr *N : IVs)
      Names.push_back(N->Id);
    return I.B.createParallel(L.Extents, Names);
  }
  ir::Value *Lo = I.toIndex(L.Start, L.StartRange);
  ir::Value *Hi = I.toIndex(L.Stop, L.StopRange);
  ir::Value *Step = I.toIndex(L.Step, L.StepRange);
  if (!Lo || !Hi || !Step)
    return nullptr;
  ir::Operation *Op =
      I.B.createFor(Lo, Hi, Step, loopKindName(L.LK), IVs[0]->Id);
  if (L.LK != LoopObj::LoopKind::Pipelined)
    return Op;
  Op->setAttr("num_stages", ir::Attribute::integer(L.NumStages));
  if (L.HasOrder)
    Op->setAttr("order", ir::Attribute::intArray(L.Order));
  if (L.HasStage)
    Op->setAttr("stage", ir::Attribute::intArray(L.Stage));
  return Op;
}

Flow Interp::execRuntimeFor(const ForStmt *S, LoopObj &L) {
  size_t NumIVs = L.LK == LoopObj::LoopKind::Parallel     ? L.Extents.size()
                  : L.LK == LoopObj::LoopKind::Persistent ? L.Domain.size()
                                                          : size_t(1);
  auto IVs = loopTargets(*this, S->Target.get(), NumIVs);
  if (!IVs)
    return Flow::Normal;
  B.setLoc(Location(L.Range));
  std::optional<PersistentPlan> Plan;
  ir::Operation *Op = createLoopOp(*this, L, NumIVs, *IVs, Plan);
  if (!Op)
    return Aborting ? Flow::Abort : Flow::Normal;
  ir::Builder::InsertionGuard G(B);
  B.setInsertionPointToEnd(Op->getBody());
  std::vector<ir::Value *> IVValues;
  if (Plan)
    IVValues = persistentCoords(*this, *Plan, Op->getBody().getArgument(0));
  else
    for (size_t K = 0; K < NumIVs; ++K)
      IVValues.push_back(Op->getBody().getArgument(K));
  frame().Loops.push_back({true, frame().Regions.size()});
  openRegion();
  for (size_t K = 0; K < NumIVs; ++K) {
    IVValues[K]->setNameHint((*IVs)[K]->Id);
    bindName((*IVs)[K]->Id, Value::runtime(IVValues[K]), (*IVs)[K]->getRange());
    frame().LoopVars.push_back((*IVs)[K]->Id);
  }
  Flow F = exec(S->Body);
  frame().LoopVars.resize(frame().LoopVars.size() - NumIVs);
  closeRegion();
  frame().Loops.pop_back();
  return F == Flow::Abort ? Flow::Abort : Flow::Normal;
}
