//===- HostModel.cpp - Models of torch, argparse and classes --------------===//
//
// Evaluates the host code a file's driver runs before it calls a kernel:
// tensor factories and the tensor methods that keep or reshape a shape,
// argparse defaults, and classes whose methods it calls. Anything else
// stays an unmodelled host-only value (see HostModel.h).
//
//===----------------------------------------------------------------------===//

#include "HostModel.h"
#include "tilec/Support/Target.h"
#include "llvm/ADT/StringSwitch.h"

using namespace tilec;
using namespace tilec::sema;
using namespace tilec::ast;

Value sema::makeHostValue(std::string Path, std::shared_ptr<HostModel> M) {
  return Value::object(
      std::make_shared<OpaqueObj>(std::move(Path), std::move(M)));
}

namespace {

const Value *keyword(const CallArgs &A, llvm::StringRef Name) {
  for (const auto &[K, V] : A.Kw)
    if (K == Name)
      return &V;
  return nullptr;
}

Value methodOf(const Value &Self, llvm::StringRef Name) {
  auto *O = Self.getAs<OpaqueObj>();
  return makeHostValue(O->Path + "." + Name.str(),
                       std::make_shared<MethodModel>(Self, Name.str()));
}

//===----------------------------------------------------------------------===//
// Tensors
//===----------------------------------------------------------------------===//

Value makeTensor(llvm::StringRef Path, std::vector<Value> Shape, Value DT) {
  auto M = std::make_shared<TensorModel>();
  M->Shape = std::move(Shape);
  M->DTypeV = std::move(DT);
  return makeHostValue(Path.str(), std::move(M));
}

/// A shape given as `f(M, K)`, `f((M, K))` or `f([M, K])` from position
/// First on, or as `size=`.
std::optional<std::vector<Value>> shapeArgs(const CallArgs &A, size_t First) {
  if (const Value *S = keyword(A, "size"))
    return S->isSequence() ? std::optional(S->elts()) : std::nullopt;
  if (A.Pos.size() == First + 1 && A.Pos[First].isSequence())
    return A.Pos[First].elts();
  if (A.Pos.size() <= First)
    return std::nullopt;
  return std::vector<Value>(A.Pos.begin() + First, A.Pos.end());
}

Value dtypeKeyword(const CallArgs &A) {
  const Value *D = keyword(A, "dtype");
  return D ? *D : Value::none();
}

std::optional<int64_t> dimIndex(const Value &V, size_t Rank) {
  if (!V.isInt())
    return std::nullopt;
  int64_t D = V.getInt() < 0 ? V.getInt() + int64_t(Rank) : V.getInt();
  if (D < 0 || D >= int64_t(Rank))
    return std::nullopt;
  return D;
}

/// torch.stack(tensors, dim) / torch.cat(tensors, dim) of tensors of
/// known shapes.
std::optional<Value> joined(bool Stack, const CallArgs &A,
                            llvm::StringRef Path) {
  if (!A.Pos[0].isSequence() || A.Pos[0].elts().empty())
    return std::nullopt;
  std::vector<const TensorModel *> Parts;
  for (const Value &V : A.Pos[0].elts())
    if (auto *T = hostModelOf<TensorModel>(V))
      Parts.push_back(T);
  if (Parts.size() != A.Pos[0].elts().size())
    return std::nullopt;
  const Value *DimV = A.Pos.size() > 1 ? &A.Pos[1] : keyword(A, "dim");
  size_t Rank = Parts[0]->Shape.size() + (Stack ? 1 : 0);
  auto D = DimV ? dimIndex(*DimV, Rank) : std::optional<int64_t>(0);
  if (!D)
    return std::nullopt;
  std::vector<Value> Shape = Parts[0]->Shape;
  if (Stack) {
    Shape.insert(Shape.begin() + *D, Value::integer(int64_t(Parts.size())));
    return makeTensor(Path, std::move(Shape), Parts[0]->DTypeV);
  }
  int64_t Total = 0;
  for (const TensorModel *T : Parts) {
    if (T->Shape.size() != Shape.size() || !T->Shape[*D].isInt())
      return std::nullopt;
    Total += T->Shape[*D].getInt();
  }
  Shape[*D] = Value::integer(Total);
  return makeTensor(Path, std::move(Shape), Parts[0]->DTypeV);
}

/// torch.randn/rand/empty/zeros/ones(shape...), randint(lo, hi, size),
/// full(size, value), arange(n), *_like(t).
std::optional<Value> torchFactory(llvm::StringRef Fn, const CallArgs &A,
                                  llvm::StringRef Path) {
  if (Fn.endswith("_like") && !A.Pos.empty()) {
    auto *T = hostModelOf<TensorModel>(A.Pos[0]);
    if (!T)
      return std::nullopt;
    Value DT = dtypeKeyword(A);
    return makeTensor(Path, T->Shape, DT.isNone() ? T->DTypeV : DT);
  }
  std::optional<std::vector<Value>> Shape;
  if (Fn == "randn" || Fn == "rand" || Fn == "empty" || Fn == "zeros" ||
      Fn == "ones")
    Shape = shapeArgs(A, 0);
  else if (Fn == "randint")
    Shape = shapeArgs(A, A.Pos.size() >= 3 ? 2 : 1);
  else if (Fn == "full" && !A.Pos.empty() && A.Pos[0].isSequence())
    Shape = A.Pos[0].elts();
  else if ((Fn == "arange" || Fn == "randperm") && A.Pos.size() == 1)
    Shape = std::vector<Value>{A.Pos[0]};
  else if ((Fn == "stack" || Fn == "cat") && !A.Pos.empty())
    return joined(Fn == "stack", A, Path);
  if (!Shape)
    return std::nullopt;
  return makeTensor(Path, std::move(*Shape), dtypeKeyword(A));
}

/// The dtype named by a `.to(...)` argument, or None for a device.
Value dtypeArg(const Value &V) {
  if (V.isDType())
    return V;
  auto *O = V.getAs<OpaqueObj>();
  if (O && !O->Model &&
      parseTileLangDType(llvm::StringRef(O->Path).rsplit('.').second))
    return V;
  return Value::none();
}

/// `t.view(*shape)` / `t.reshape(*shape)`, resolving one -1.
std::optional<Value> reshaped(const TensorModel &T, const CallArgs &A,
                              llvm::StringRef Path) {
  auto Shape = shapeArgs(A, 0);
  if (!Shape)
    return std::nullopt;
  int64_t Known = 1, Total = 1;
  int Hole = -1;
  for (size_t K = 0; K < Shape->size(); ++K) {
    if ((*Shape)[K].isInt() && (*Shape)[K].getInt() == -1)
      Hole = int(K);
    else if ((*Shape)[K].isInt())
      Known *= (*Shape)[K].getInt();
  }
  bool AllInts =
      llvm::all_of(T.Shape, [](const Value &V) { return V.isInt(); });
  for (const Value &V : T.Shape)
    Total *= AllInts ? V.getInt() : 1;
  if (Hole >= 0)
    (*Shape)[Hole] = AllInts && Known > 0
                         ? Value::integer(Total / Known)
                         : makeHostValue(Path.str() + ".shape[-1]", nullptr);
  return makeTensor(Path, std::move(*Shape), T.DTypeV);
}

std::optional<Value> permuted(const TensorModel &T, const CallArgs &A,
                              llvm::StringRef Path) {
  auto Dims = shapeArgs(A, 0);
  if (!Dims || Dims->size() != T.Shape.size())
    return std::nullopt;
  std::vector<Value> Shape;
  for (const Value &D : *Dims) {
    auto K = dimIndex(D, T.Shape.size());
    if (!K)
      return std::nullopt;
    Shape.push_back(T.Shape[*K]);
  }
  return makeTensor(Path, std::move(Shape), T.DTypeV);
}

std::optional<Value> transposed(const TensorModel &T, const CallArgs &A,
                                llvm::StringRef Path) {
  if (A.Pos.size() != 2)
    return std::nullopt;
  auto D0 = dimIndex(A.Pos[0], T.Shape.size());
  auto D1 = dimIndex(A.Pos[1], T.Shape.size());
  if (!D0 || !D1)
    return std::nullopt;
  std::vector<Value> Shape = T.Shape;
  std::swap(Shape[*D0], Shape[*D1]);
  return makeTensor(Path, std::move(Shape), T.DTypeV);
}

/// `t.unsqueeze(d)`, `t.squeeze(d)`, `t.flatten(s, e)`, `t.expand(...)`.
std::optional<Value> regrouped(const TensorModel &T, llvm::StringRef Name,
                               const CallArgs &A, llvm::StringRef Path) {
  std::vector<Value> Shape = T.Shape;
  size_t Rank = Shape.size();
  if (Name == "unsqueeze" && A.Pos.size() == 1) {
    auto D = dimIndex(A.Pos[0], Rank + 1);
    if (!D)
      return std::nullopt;
    Shape.insert(Shape.begin() + *D, Value::integer(1));
  } else if (Name == "squeeze" && A.Pos.size() == 1) {
    auto D = dimIndex(A.Pos[0], Rank);
    if (!D || !Shape[*D].isInt())
      return std::nullopt;
    if (Shape[*D].getInt() == 1)
      Shape.erase(Shape.begin() + *D);
  } else if (Name == "flatten") {
    auto S = dimIndex(A.Pos.size() > 0 ? A.Pos[0] : Value::integer(0), Rank);
    auto E = dimIndex(A.Pos.size() > 1 ? A.Pos[1] : Value::integer(-1), Rank);
    if (!S || !E || *S > *E)
      return std::nullopt;
    int64_t N = 1;
    for (int64_t K = *S; K <= *E; ++K) {
      if (!Shape[K].isInt())
        return std::nullopt;
      N *= Shape[K].getInt();
    }
    Shape.erase(Shape.begin() + *S, Shape.begin() + *E + 1);
    Shape.insert(Shape.begin() + *S, Value::integer(N));
  } else if (Name == "expand") {
    auto Sizes = shapeArgs(A, 0);
    if (!Sizes || Sizes->size() != Rank)
      return std::nullopt;
    for (size_t K = 0; K < Rank; ++K)
      if (!((*Sizes)[K].isInt() && (*Sizes)[K].getInt() == -1))
        Shape[K] = (*Sizes)[K];
  } else {
    return std::nullopt;
  }
  return makeTensor(Path, std::move(Shape), T.DTypeV);
}

std::optional<Value> sized(const TensorModel &T, const CallArgs &A) {
  if (A.Pos.empty())
    return Value::tuple(T.Shape);
  auto D = dimIndex(A.Pos[0], T.Shape.size());
  return D ? std::optional(T.Shape[*D]) : std::nullopt;
}

/// `.half()`, `.float()`, ...: the dtype the conversion method names.
std::optional<DType> conversionDType(llvm::StringRef Name) {
  return llvm::StringSwitch<std::optional<DType>>(Name)
      .Case("half", DType::Float16)
      .Case("float", DType::Float32)
      .Case("double", DType::Float64)
      .Case("bfloat16", DType::BFloat16)
      .Case("int", DType::Int32)
      .Case("long", DType::Int64)
      .Case("bool", DType::Bool)
      .Default(std::nullopt);
}

bool keepsShape(llvm::StringRef Name) {
  return llvm::StringSwitch<bool>(Name)
      .Cases("cuda", "cpu", "contiguous", "clone", "detach", true)
      .Cases("requires_grad_", "normal_", "uniform_", "zero_", "fill_", true)
      .Cases("random_", "clamp", "clamp_", "abs", "exp", "sqrt", true)
      .Cases("mul", "mul_", "add", "add_", "div", "div_", "neg", true)
      .Default(false);
}

std::optional<Value> tensorMethod(const Value &Self, const TensorModel &T,
                                  llvm::StringRef Name, const CallArgs &A) {
  std::string Path = Self.getAs<OpaqueObj>()->Path + "." + Name.str() + "()";
  if (keepsShape(Name))
    return makeTensor(Path, T.Shape, T.DTypeV);
  if (auto DT = conversionDType(Name))
    return makeTensor(Path, T.Shape, Value::dtype(*DT));
  if (Name == "to") {
    Value DT = dtypeKeyword(A);
    for (const Value &V : A.Pos)
      if (DT.isNone())
        DT = dtypeArg(V);
    return makeTensor(Path, T.Shape, DT.isNone() ? T.DTypeV : DT);
  }
  if (Name == "view" || Name == "reshape")
    return reshaped(T, A, Path);
  if (Name == "permute")
    return permuted(T, A, Path);
  if (Name == "transpose")
    return transposed(T, A, Path);
  if (Name == "size")
    return sized(T, A);
  if (Name == "unsqueeze" || Name == "squeeze" || Name == "flatten" ||
      Name == "expand")
    return regrouped(T, Name, A, Path);
  if (Name == "dim")
    return Value::integer(int64_t(T.Shape.size()));
  return std::nullopt;
}

std::optional<Value> tensorAttribute(const Value &Self, const TensorModel &T,
                                     llvm::StringRef Attr) {
  if (Attr == "shape")
    return Value::tuple(T.Shape);
  if (Attr == "ndim")
    return Value::integer(int64_t(T.Shape.size()));
  if (Attr == "dtype" && !T.DTypeV.isNone())
    return T.DTypeV;
  if (Attr == "T" && T.Shape.size() == 2)
    return makeTensor(Self.getAs<OpaqueObj>()->Path + ".T",
                      {T.Shape[1], T.Shape[0]}, T.DTypeV);
  if (keepsShape(Attr) || conversionDType(Attr) || Attr == "to" ||
      Attr == "view" || Attr == "reshape" || Attr == "permute" ||
      Attr == "transpose" || Attr == "size" || Attr == "dim" ||
      Attr == "unsqueeze" || Attr == "squeeze" || Attr == "flatten" ||
      Attr == "expand")
    return methodOf(Self, Attr);
  return std::nullopt;
}

/// The extent of `lo:hi:step` over a dimension of extent N (Python's
/// slice.indices), for positive steps.
std::optional<int64_t> sliceExtent(const Value &Lo, const Value &Hi,
                                   const Value &Step, int64_t N) {
  int64_t St = Step.isNone() ? 1 : Step.isInt() ? Step.getInt() : 0;
  if (St <= 0 || !(Lo.isNone() || Lo.isInt()) || !(Hi.isNone() || Hi.isInt()))
    return std::nullopt;
  auto Clamp = [&](const Value &V, int64_t Default) {
    if (V.isNone())
      return Default;
    int64_t X = V.getInt() < 0 ? V.getInt() + N : V.getInt();
    return std::clamp<int64_t>(X, 0, N);
  };
  int64_t L = Clamp(Lo, 0), H = Clamp(Hi, N);
  return H <= L ? 0 : (H - L + St - 1) / St;
}

/// One index of a tensor subscript applied at dimension *D of T into Out;
/// false when the result's shape is unknown.
bool applyIndex(Interp &I, const TensorModel &T, const Expr *E, size_t &D,
                std::vector<Value> &Out) {
  if (llvm::isa<NoneLitExpr>(E)) {
    Out.push_back(Value::integer(1));
    return true;
  }
  if (D >= T.Shape.size())
    return false;
  if (auto *S = llvm::dyn_cast<SliceExpr>(E)) {
    auto Bound = [&](const ExprPtr &B) {
      return B ? I.eval(B.get()) : Value();
    };
    const Value &N = T.Shape[D++];
    bool Whole = !S->Lower && !S->Upper && !S->Step;
    if (Whole || !N.isInt()) {
      Out.push_back(Whole ? N : makeHostValue("slice", nullptr));
      return true;
    }
    auto X = sliceExtent(Bound(S->Lower), Bound(S->Upper), Bound(S->Step),
                         N.getInt());
    Out.push_back(X ? Value::integer(*X) : makeHostValue("slice", nullptr));
    return true;
  }
  ++D;
  return I.eval(E).isInt();
}

/// Numpy broadcasting of two shapes; nullopt when an extent is unknown.
std::optional<std::vector<Value>> broadcast(const std::vector<Value> &A,
                                            const std::vector<Value> &B) {
  size_t N = std::max(A.size(), B.size());
  std::vector<Value> Out(N);
  for (size_t K = 0; K < N; ++K) {
    const Value *X = K < N - A.size() ? nullptr : &A[K - (N - A.size())];
    const Value *Y = K < N - B.size() ? nullptr : &B[K - (N - B.size())];
    auto IsOne = [](const Value *V) {
      return !V || (V->isInt() && V->getInt() == 1);
    };
    if (IsOne(X))
      Out[K] = Y ? *Y : *X;
    else if (IsOne(Y) || equals(*X, *Y))
      Out[K] = *X;
    else
      return std::nullopt;
  }
  return Out;
}

/// `a @ b`: batch dimensions broadcast, [.., n, k] @ [.., k, m].
std::optional<std::vector<Value>> matmulShape(const std::vector<Value> &A,
                                              const std::vector<Value> &B) {
  if (A.size() < 2 || B.size() < 2)
    return std::nullopt;
  auto Batch = broadcast({A.begin(), A.end() - 2}, {B.begin(), B.end() - 2});
  if (!Batch)
    return std::nullopt;
  Batch->push_back(A[A.size() - 2]);
  Batch->push_back(B.back());
  return Batch;
}

//===----------------------------------------------------------------------===//
// argparse
//===----------------------------------------------------------------------===//

/// The destination of `add_argument("-b", "--batch-size", ...)`.
std::string optionDest(const CallArgs &A) {
  if (const Value *D = keyword(A, "dest"); D && D->isStr())
    return D->getStr();
  std::string Best;
  for (const Value &F : A.Pos) {
    if (!F.isStr())
      continue;
    llvm::StringRef S = F.getStr();
    bool Long = S.startswith("--");
    if (Best.empty() || Long)
      Best = S.ltrim('-').str();
    if (Long)
      break;
  }
  std::replace(Best.begin(), Best.end(), '-', '_');
  return Best;
}

Value optionDefault(const CallArgs &A) {
  if (const Value *D = keyword(A, "default"))
    return *D;
  const Value *Act = keyword(A, "action");
  if (Act && Act->isStr() && Act->getStr() == "store_true")
    return Value::boolean(false);
  if (Act && Act->isStr() && Act->getStr() == "store_false")
    return Value::boolean(true);
  return Value::none();
}

std::optional<Value> parserMethod(const Value &Self, ParserModel &P,
                                  llvm::StringRef Name, const CallArgs &A) {
  if (Name == "add_argument") {
    P.Options.emplace_back(optionDest(A), optionDefault(A));
    return Value::none();
  }
  if (Name == "set_defaults") {
    for (const auto &[K, V] : A.Kw)
      P.Options.emplace_back(K, V);
    return Value::none();
  }
  if (Name == "add_argument_group" || Name == "add_mutually_exclusive_group")
    return Self;
  if (Name != "parse_args" && Name != "parse_known_args")
    return std::nullopt;
  auto R = std::make_shared<RecordModel>();
  for (const auto &[Dest, Default] : P.Options)
    R->Attrs[Dest] = Default;
  Value NS = makeHostValue("args", std::move(R));
  if (Name == "parse_args")
    return NS;
  return Value::tuple({NS, Value::list({})});
}

Value makeRecord(llvm::StringRef Path, const CallArgs &A) {
  auto R = std::make_shared<RecordModel>();
  for (const auto &[K, V] : A.Kw)
    R->Attrs[K] = V;
  return makeHostValue(Path.str(), std::move(R));
}

//===----------------------------------------------------------------------===//
// Classes
//===----------------------------------------------------------------------===//

/// `ctx.save_for_backward(*tensors)` keeps them as ctx.saved_tensors.
std::optional<Value> recordMethod(RecordModel &R, llvm::StringRef Name,
                                  const CallArgs &A) {
  if (Name != "save_for_backward")
    return std::nullopt;
  R.Attrs["saved_tensors"] = Value::tuple(A.Pos);
  return Value::none();
}

/// Calls the class member Name with ctx and Args, if it has one.
std::optional<Value> callWithCtx(Interp &I, ClassModel &C, llvm::StringRef Name,
                                 const Value &Ctx, const CallArgs &Args,
                                 llvm::SMRange CallRange) {
  auto It = C.Members.find(Name);
  if (It == C.Members.end() || !It->second.getAs<FunctionObj>())
    return std::nullopt;
  CallArgs WithCtx = Args;
  WithCtx.Pos.insert(WithCtx.Pos.begin(), Ctx);
  WithCtx.PosRanges.insert(WithCtx.PosRanges.begin(), CallRange);
  return I.call(It->second, WithCtx, CallRange, CallRange);
}

/// The gradient backward receives for an output of forward: a tensor of
/// the output's shape, or host data.
Value gradientOf(const Value &Out) {
  if (auto *T = hostModelOf<TensorModel>(Out))
    return makeTensor("grad", T->Shape, T->DTypeV);
  return makeHostValue("grad", nullptr);
}

/// `Cls.apply(...)` of a torch.autograd.Function: forward(ctx, ...), then
/// backward(ctx, *grads) as the driver's `loss.backward()` would run it,
/// so that the kernels both call are reached.
std::optional<Value> applyFunction(Interp &I, ClassModel &C, CallArgs &Args,
                                   llvm::SMRange CallRange) {
  Value Ctx = makeHostValue("ctx", std::make_shared<RecordModel>());
  auto Out = callWithCtx(I, C, "forward", Ctx, Args, CallRange);
  if (!Out || I.Aborting)
    return Out;
  CallArgs Grads;
  for (const Value &O : Out->isTuple() ? Out->elts() : std::vector{*Out}) {
    Grads.Pos.push_back(gradientOf(O));
    Grads.PosRanges.push_back(CallRange);
  }
  callWithCtx(I, C, "backward", Ctx, Grads, CallRange);
  return I.Aborting ? Value::poison() : *Out;
}

/// `Cls(...)`: an instance, initialized by `__init__` when the class has
/// one.
Value instantiate(Interp &I, const Value &ClassV, CallArgs &Args,
                  llvm::SMRange CallRange) {
  auto *O = ClassV.getAs<OpaqueObj>();
  auto R = std::make_shared<RecordModel>();
  R->Class = std::static_pointer_cast<ClassModel>(O->Model);
  Value Self = makeHostValue(O->Path + " instance", R);
  callWithCtx(I, *R->Class, "__init__", Self, Args, CallRange);
  return Self;
}

/// `obj(...)` of an instance: `__call__`, or `forward` (torch.nn.Module).
std::optional<Value> callInstance(Interp &I, const Value &Self, RecordModel &R,
                                  CallArgs &Args, llvm::SMRange CallRange) {
  if (!R.Class)
    return std::nullopt;
  if (auto V = callWithCtx(I, *R.Class, "__call__", Self, Args, CallRange))
    return V;
  return callWithCtx(I, *R.Class, "forward", Self, Args, CallRange);
}

std::optional<Value> callMethod(Interp &I, MethodModel &M, CallArgs &Args,
                                llvm::SMRange CallRange) {
  // `T.dtype(x).as_torch()`: torch's dtypes are the dtypes themselves.
  if (M.Self.isDType() && M.Name == "as_torch")
    return M.Self;
  if (auto *R = hostModelOf<RecordModel>(M.Self); R && R->Class)
    if (auto V = callWithCtx(I, *R->Class, M.Name, M.Self, Args, CallRange))
      return V;
  if (auto *T = hostModelOf<TensorModel>(M.Self))
    return tensorMethod(M.Self, *T, M.Name, Args);
  if (auto *P = hostModelOf<ParserModel>(M.Self))
    return parserMethod(M.Self, *P, M.Name, Args);
  if (auto *R = hostModelOf<RecordModel>(M.Self))
    return recordMethod(*R, M.Name, Args);
  // set_compile_args/set_profile_args/run: the tuner stands for its result.
  if (hostModelOf<TunerModel>(M.Self))
    return M.Self;
  if (auto *C = hostModelOf<ClassModel>(M.Self); C && M.Name == "apply")
    return applyFunction(I, *C, Args, CallRange);
  // `kernel.compile(**kwargs)`, `.get_kernel_source(**kwargs)` and
  // `.get_tir(**kwargs)` of a @tilelang.jit function instantiate it as a
  // call would.
  if (M.Self.getAs<FunctionObj>() && I.OnCall &&
      (M.Name == "compile" || M.Name == "get_kernel_source" ||
       M.Name == "get_tir"))
    return I.OnCall(*M.Self.getAs<FunctionObj>(), Args, CallRange);
  return std::nullopt;
}

/// Device queries answer with the target's figures: the program is
/// compiled for it, so that is the GPU it will run on.
std::optional<Value> deviceQuery(Interp &I, llvm::StringRef Fn) {
  const Target *T = I.Opts.Tgt;
  if (Fn == "is_available")
    return Value::boolean(true);
  if (Fn == "get_device_capability" && T && T->isCUDA())
    return Value::tuple(
        {Value::integer(T->SmVersion / 10), Value::integer(T->SmVersion % 10)});
  return std::nullopt;
}

/// TileLang's `determine_fp8_type(kind="e4m3")`: the CUDA fp8 dtype name.
Value fp8Type(const CallArgs &A) {
  bool E5M2 = !A.Pos.empty() && A.Pos[0].isStr() && A.Pos[0].getStr() == "e5m2";
  return Value::str(E5M2 ? "float8_e5m2" : "float8_e4m3");
}

/// `AutoTuner.from_kernel(kernel=F, configs=C)`.
std::optional<Value> makeTuner(const CallArgs &A) {
  const Value *K = keyword(A, "kernel");
  const Value *C = keyword(A, "configs");
  if (!K && !A.Pos.empty())
    K = &A.Pos[0];
  if (!C && A.Pos.size() > 1)
    C = &A.Pos[1];
  if (!K || !C)
    return std::nullopt;
  auto T = std::make_shared<TunerModel>();
  T->Kernel = *K;
  T->Configs = *C;
  return makeHostValue("AutoTuner", std::move(T));
}

std::optional<Value> callPath(Interp &I, llvm::StringRef Path,
                              const CallArgs &A) {
  if (Path.endswith("AutoTuner.from_kernel"))
    return makeTuner(A);
  auto [Module, Fn] = Path.rsplit('.');
  if (Module == "torch")
    return torchFactory(Fn, A, Path.str() + "(...)");
  if (Module == "torch.cuda")
    return deviceQuery(I, Fn);
  if (Fn == "determine_fp8_type" || Path == "determine_fp8_type")
    return fp8Type(A);
  if (Path == "argparse.ArgumentParser")
    return makeHostValue("parser", std::make_shared<ParserModel>());
  if (Path == "argparse.Namespace" || Path == "types.SimpleNamespace")
    return makeRecord(Path, A);
  return std::nullopt;
}

} // namespace

std::optional<Value> sema::hostAttribute(const Value &Self,
                                         llvm::StringRef Attr) {
  const OpaqueObj &Base = *Self.getAs<OpaqueObj>();
  if (!Base.Model)
    return std::nullopt;
  if (auto *T = llvm::dyn_cast<TensorModel>(Base.Model.get()))
    return tensorAttribute(Self, *T, Attr);
  if (llvm::isa<ParserModel>(Base.Model.get()) ||
      llvm::isa<TunerModel>(Base.Model.get()))
    return methodOf(Self, Attr);
  if (auto *R = llvm::dyn_cast<RecordModel>(Base.Model.get())) {
    if (auto It = R->Attrs.find(Attr); It != R->Attrs.end())
      return It->second;
    if (Attr == "save_for_backward" ||
        (R->Class && R->Class->Members.count(Attr)))
      return methodOf(Self, Attr);
    return std::nullopt;
  }
  if (auto *C = llvm::dyn_cast<ClassModel>(Base.Model.get())) {
    if (auto It = C->Members.find(Attr); It != C->Members.end())
      return It->second;
    return Attr == "apply" ? std::optional(methodOf(Self, Attr)) : std::nullopt;
  }
  return std::nullopt;
}

std::optional<Value> sema::hostElementwise(const Value &L, const Value &R,
                                           bool MatMul, bool Compare,
                                           llvm::SMRange Whole) {
  auto *TL = hostModelOf<TensorModel>(L);
  auto *TR = hostModelOf<TensorModel>(R);
  if (!TL && !TR)
    return std::nullopt;
  if ((!TL && !L.isNumber()) || (!TR && !R.isNumber()))
    return std::nullopt;
  std::vector<Value> None;
  const std::vector<Value> &A = TL ? TL->Shape : None;
  const std::vector<Value> &B = TR ? TR->Shape : None;
  auto Shape = MatMul ? matmulShape(A, B) : broadcast(A, B);
  if (!Shape)
    return std::nullopt;
  Value DT = Compare ? Value::dtype(DType::Bool) : (TL ? TL : TR)->DTypeV;
  return makeTensor(exprText(Whole), std::move(*Shape), DT);
}

std::optional<Value> sema::hostSubscript(Interp &I, const Value &Base,
                                         const Expr *Index) {
  auto *T = hostModelOf<TensorModel>(Base);
  if (!T)
    return std::nullopt;
  std::vector<const Expr *> Items;
  if (auto *Tup = llvm::dyn_cast<TupleExpr>(Index))
    for (const ExprPtr &E : Tup->Elts)
      Items.push_back(E.get());
  else
    Items.push_back(Index);
  std::vector<Value> Shape;
  size_t D = 0;
  for (size_t K = 0; K < Items.size(); ++K) {
    if (llvm::isa<EllipsisExpr>(Items[K])) {
      size_t Rest = 0;
      for (size_t J = K + 1; J < Items.size(); ++J)
        Rest += !llvm::isa<NoneLitExpr>(Items[J]);
      for (; D + Rest < T->Shape.size(); ++D)
        Shape.push_back(T->Shape[D]);
      continue;
    }
    if (!applyIndex(I, *T, Items[K], D, Shape))
      return std::nullopt;
  }
  Shape.insert(Shape.end(), T->Shape.begin() + std::min(D, T->Shape.size()),
               T->Shape.end());
  return makeTensor(Base.getAs<OpaqueObj>()->Path + "[...]", std::move(Shape),
                    T->DTypeV);
}

/// While the driver runs for call sites, functions handed to host code
/// (`do_bench(fn)`, `profiler.run(lambda: kernel(x))`) are called once, as
/// such code does, when they need no arguments.
void runCallbacks(Interp &I, const CallArgs &Args, llvm::SMRange CallRange) {
  std::vector<Value> All = Args.Pos;
  for (const auto &KV : Args.Kw)
    All.push_back(KV.second);
  for (const Value &V : All) {
    auto *F = V.getAs<FunctionObj>();
    if (!F || F->Traits.IsPrimFunc || F->Traits.IsJit || I.Aborting)
      continue;
    bool NeedsArgs = false;
    for (size_t K = 0; K < F->Params->size(); ++K)
      NeedsArgs |=
          (*F->Params)[K].K == Param::Kind::Normal && !F->HasDefault[K];
    CallArgs None;
    if (!NeedsArgs)
      I.callFunction(*F, None, CallRange);
  }
}

std::optional<Value> sema::hostCall(Interp &I, const Value &CalleeV,
                                    CallArgs &Args, llvm::SMRange CallRange) {
  const OpaqueObj &Callee = *CalleeV.getAs<OpaqueObj>();
  HostModel *M = Callee.Model.get();
  if (!M && I.OnCall)
    runCallbacks(I, Args, CallRange);
  if (!M)
    return callPath(I, Callee.Path, Args);
  if (auto *Method = llvm::dyn_cast<MethodModel>(M))
    return callMethod(I, *Method, Args, CallRange);
  if (llvm::isa<ClassModel>(M))
    return instantiate(I, CalleeV, Args, CallRange);
  if (auto *R = llvm::dyn_cast<RecordModel>(M))
    return callInstance(I, CalleeV, *R, Args, CallRange);
  return std::nullopt;
}

std::optional<Value> sema::tunedKernel(Interp &I, const Value &Result,
                                       size_t Index, llvm::SMRange At) {
  auto *T = hostModelOf<TunerModel>(Result);
  if (!T || !T->Configs.isSequence() || Index >= T->Configs.elts().size())
    return std::nullopt;
  const Value &C = T->Configs.elts()[Index];
  CallArgs Args;
  if (C.isDict()) {
    // A configuration's pass_configs are compiler options, not arguments.
    for (const auto &[K, V] : C.getDict().Items)
      if (K.isStr() && K.getStr() != "pass_configs") {
        Args.Kw.emplace_back(K.getStr(), V);
        Args.KwRanges.push_back(At);
      }
  } else if (C.isSequence()) {
    Args.Pos = C.elts();
    Args.PosRanges.assign(Args.Pos.size(), At);
  }
  return I.call(T->Kernel, Args, At, At);
}

Value sema::makeClass(Interp &I, const ClassDefStmt *C) {
  auto M = std::make_shared<ClassModel>();
  M->Name = C->Name;
  for (const StmtPtr &S : C->Body)
    if (auto *D = llvm::dyn_cast<FunctionDefStmt>(S.get()))
      M->Members[D->Name] = Value::object(I.makeFunction(D));
  return makeHostValue("class " + C->Name, std::move(M));
}
