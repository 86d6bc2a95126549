//===- HostModel.cpp - Models of argparse, classes and device queries ----===//
//
// Evaluates the host code a file's driver runs before it calls a kernel:
// argparse defaults, classes whose methods it calls, autograd Functions,
// TileLang's AutoTuner, device queries and callbacks (tensor shapes are in
// HostTensors.cpp). Anything else stays an unmodelled host-only value (see
// HostModel.h).
//
//===----------------------------------------------------------------------===//

#include "HostModel.h"
#include "tilec/Support/Target.h"
#include "llvm/ADT/StringSwitch.h"

using namespace tilec;
using namespace tilec::sema;
using namespace tilec::sema::host;
using namespace tilec::ast;

Value sema::makeHostValue(std::string Path, std::shared_ptr<HostModel> M) {
  return Value::object(
      std::make_shared<OpaqueObj>(std::move(Path), std::move(M)));
}

std::optional<DType> sema::namedDType(const Value &V) {
  auto *O = V.getAs<OpaqueObj>();
  if (!O || O->Model)
    return std::nullopt;
  return parseTileLangDType(llvm::StringRef(O->Path).rsplit('.').second);
}

const Value *host::keyword(const CallArgs &A, llvm::StringRef Name) {
  for (const auto &[K, V] : A.Kw)
    if (K == Name)
      return &V;
  return nullptr;
}

Value host::methodOf(const Value &Self, llvm::StringRef Name) {
  auto *O = Self.getAs<OpaqueObj>();
  return makeHostValue(O->Path + "." + Name.str(),
                       std::make_shared<MethodModel>(Self, Name.str()));
}

namespace {

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

/// PyTorch's `get_device_capability()` on ROCm: the gfx architecture's
/// major and minor version (gfx90a: (9, 0); gfx940, gfx942: (9, 4)), the
/// digits before the last character (the stepping).
std::optional<Value> gfxCapability(llvm::StringRef Name) {
  if (!Name.consume_front("gfx") || Name.size() < 3)
    return std::nullopt;
  unsigned Major = 0, Minor = 0;
  if (Name.drop_back(2).getAsInteger(10, Major) ||
      Name.drop_back().take_back().getAsInteger(10, Minor))
    return std::nullopt;
  return Value::tuple({Value::integer(Major), Value::integer(Minor)});
}

/// Device queries answer with the target's figures: the program is
/// compiled for it, so that is the GPU it will run on.
std::optional<Value> deviceQuery(Interp &I, llvm::StringRef Fn) {
  const Target *T = I.Opts.Tgt;
  if (Fn == "is_available")
    return Value::boolean(true);
  if (Fn != "get_device_capability" || !T)
    return std::nullopt;
  if (!T->isCUDA())
    return gfxCapability(T->Name);
  return Value::tuple(
      {Value::integer(T->SmVersion / 10), Value::integer(T->SmVersion % 10)});
}

/// TileLang's `determine_fp8_type(kind="e4m3")`: the CUDA fp8 dtype name.
Value fp8Type(const CallArgs &A) {
  bool E5M2 = !A.Pos.empty() && A.Pos[0].isStr() && A.Pos[0].getStr() == "e5m2";
  return Value::str(E5M2 ? "float8_e5m2" : "float8_e4m3");
}

/// `AutoTuner.from_kernel(kernel=F, configs=C)`.
std::optional<Value> makeTuner(Interp &I, const CallArgs &A) {
  const Value *K = keyword(A, "kernel");
  const Value *C = keyword(A, "configs");
  if (!K && !A.Pos.empty())
    K = &A.Pos[0];
  if (!C && A.Pos.size() > 1)
    C = &A.Pos[1];
  if (!K || !C)
    return std::nullopt;
  if (I.OnTuner)
    I.OnTuner(*K, *C);
  auto T = std::make_shared<TunerModel>();
  T->Kernel = *K;
  T->Configs = *C;
  return makeHostValue("AutoTuner", std::move(T));
}

std::optional<Value> callPath(Interp &I, llvm::StringRef Path,
                              const CallArgs &A) {
  if (Path.endswith("AutoTuner.from_kernel"))
    return makeTuner(I, A);
  auto [Module, Fn] = Path.rsplit('.');
  if (Module == "torch")
    return torchFactory(Fn, A, Path.str() + "(...)");
  if (Module == "torch.cuda")
    return deviceQuery(I, Fn);
  if (Path == "torch.nn.functional.pad")
    return padded(A, Path.str() + "(...)");
  if (Module == "einops")
    return einopsCall(Fn, A, Path.str() + "(...)");
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

/// While the driver runs for call sites, functions handed to host code
/// (`do_bench(fn)`, `profiler.run(lambda: kernel(x))`) are called once, as
/// such code does, when they need no arguments.
static void runCallbacks(Interp &I, const CallArgs &Args,
                         llvm::SMRange CallRange) {
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
