//===- KernelGen.cpp - prim_funcs, kernels and buffers --------------------===//
//
// Turns a prim_func value into a `func` op: parameter annotations become
// the signature (symbolic dims first, then the parameters), the body runs
// with an insertion point in the func. `with T.Kernel(...)` opens a
// `kernel` op and T.alloc_* make `alloc` ops; the kernel loops are
// Loops.cpp's.
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
