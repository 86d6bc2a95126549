//===- RandomOps.cpp - T.rng_init, T.rng_rand, T.rng_rand_float -----------===//
//
// TileLang's per-thread random numbers, which it takes from curand's
// Philox4x32-10 generator. tilec keeps the generator's state in a register
// array of the kernel, `rng_state : local<[11] u32>` (allocated at the
// kernel's start, so that every T.rng_rand after a T.rng_init sees it), and
// calls the Philox implementation of tilec_runtime.h on it through
// `call_extern` ops: tilec::philoxInit, tilec::philoxNext, ...
// The calls are side effects, so passes keep them in program order; the
// numbers a thread draws are the Philox stream of its (seed, seq, off) in
// the order the thread runs the calls (docs/language.md).
//
//===----------------------------------------------------------------------===//

#include "Builtins.h"
#include "Interp.h"
#include "tilec/IR/Value.h"

using namespace tilec;
using namespace tilec::sema;

namespace {

/// Words of the state: counter (4), key (2), current output (4), index of
/// the next output word (1); tilec_runtime.h reads the same layout.
constexpr int64_t RngStateWords = 11;

/// The state array of the current kernel, allocated at its start by the
/// first T.rng_init; null when \p Create is false and there is none.
ir::Value *rngState(Interp &I, bool Create) {
  ir::Value *&State = I.RngStates[I.CurFunc->Kernel];
  if (State || !Create)
    return State;
  ir::Builder::InsertionGuard G(I.B);
  I.B.setInsertionPointToStart(I.CurFunc->Kernel->getBody());
  State =
      I.B.createAlloc(ir::Type::buffer(ir::Scope::Local,
                                       {ir::Dim(RngStateWords)}, DType::UInt32),
                      "rng_state");
  return State;
}

/// `%r = call_extern %rng_state, args... {callee = Callee} : Ret`.
Value callRuntime(Interp &I, llvm::StringRef Callee, ir::Value *State,
                  llvm::ArrayRef<ir::Value *> Args, std::optional<DType> Ret) {
  std::vector<ir::Value *> Ops = {State};
  Ops.insert(Ops.end(), Args.begin(), Args.end());
  std::vector<unsigned> Segments(Ops.size(), 1);
  std::vector<ir::Type> Results;
  if (Ret)
    Results.push_back(ir::Type::scalar(*Ret));
  ir::Operation *Op = I.B.create(ir::OpKind::CallExtern, Ops, Segments, Results,
                                 {{"callee", ir::Attribute::string(Callee)}});
  return Ret ? Value::runtime(Op->getResult()) : Value::none();
}

/// The state for a draw; an error at \p R when no T.rng_init came before.
ir::Value *stateForDraw(Interp &I, llvm::SMRange R, llvm::StringRef What) {
  ir::Value *State = rngState(I, /*Create=*/false);
  if (!State)
    I.error(R, diag::err_rng_without_init) << What;
  return State;
}

/// TileLang's default subsequence: the thread's linear index in the grid's
/// x dimension, threadIdx.x + blockIdx.x * blockDim.x.
ir::Value *defaultSequence(Interp &I) {
  int64_t BlockDimX = I.CurFunc->Kernel->getIntArrayAttr("threads")
                          .value_or(std::vector<int64_t>{1})
                          .front();
  ir::Value *Bx = I.CurFunc->Kernel->getBody().getArgument(0);
  return I.B.createBinary(
      ir::OpKind::Add, I.B.createThreadId(0),
      I.B.createBinary(ir::OpKind::Mul, Bx, I.B.createConstInt(BlockDimX)));
}

} // namespace

/// T.rng_init(seed, seq=None, off=0, generator=...): curand_init(seed, seq,
/// off) of a Philox4x32-10 state; seed, seq and off are 64-bit unsigned
/// (the int32 values of a program are converted as C converts them).
Value sema::tRngInit(Interp &I, BoundArgs &A) {
  if (!A[3].isStr() || A[3].getStr() != "curandStatePhilox4_32_10_t") {
    I.error(A.range(3), diag::err_feature_unsupported)
        << "T.rng_init with generator " + repr(A[3]) +
               " (only curandStatePhilox4_32_10_t)";
    return Value::poison();
  }
  ir::Value *Seed = I.toRuntimeAs(A[0], DType::UInt64, A.range(0));
  ir::Value *Seq = A[1].isNone()
                       ? defaultSequence(I)
                       : I.toRuntimeAs(A[1], DType::UInt64, A.range(1));
  ir::Value *Off = I.toRuntimeAs(A[2], DType::UInt64, A.range(2));
  if (!Seed || !Seq || !Off)
    return Value::poison();
  Seq = I.castTo(Seq, DType::UInt64);
  return callRuntime(I, "tilec::philoxInit", rngState(I, /*Create=*/true),
                     {Seed, Seq, Off}, std::nullopt);
}

/// T.rng_rand(): the next 32-bit word of the thread's Philox stream.
Value sema::tRngRand(Interp &I, BoundArgs &A) {
  ir::Value *State = stateForDraw(I, A.CallRange, "T.rng_rand");
  if (!State)
    return Value::poison();
  return callRuntime(I, "tilec::philoxNext", State, {}, DType::UInt32);
}

/// T.rng_rand_float(bit=32, dist="uniform"): a uniform float (bit=32,
/// curand_uniform) or double (bit=64, curand_uniform_double) in (0, 1],
/// each from one word. The normal distribution is not supported yet.
Value sema::tRngRandFloat(Interp &I, BoundArgs &A) {
  auto Bits = I.constInt(A[0], A.range(0), "bit");
  if (!Bits)
    return Value::poison();
  if (*Bits != 32 && *Bits != 64) {
    I.error(A.range(0), diag::err_rng_float_bits) << *Bits;
    return Value::poison();
  }
  if (!A[1].isStr() || A[1].getStr() != "uniform") {
    I.error(A.range(1), diag::err_feature_unsupported)
        << "T.rng_rand_float with dist=" + repr(A[1]) + " (only \"uniform\")";
    return Value::poison();
  }
  ir::Value *State = stateForDraw(I, A.CallRange, "T.rng_rand_float");
  if (!State)
    return Value::poison();
  if (*Bits == 64)
    return callRuntime(I, "tilec::philoxUniformDouble", State, {},
                       DType::Float64);
  return callRuntime(I, "tilec::philoxUniform", State, {}, DType::Float32);
}
