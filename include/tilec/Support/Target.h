//===- Target.h - GPU targets tilec can compile for ------------*- C++ -*-===//
//
// The few facts about a GPU that Sema, passes and emitters need. Known
// targets: sm_80 (A100), sm_90 (H100), gfx90a (MI200), gfx940 (MI300;
// gfx942 is accepted as its alias). MaxSharedMemoryBytes is the dynamic
// shared memory one block may use (sm_80: 163 KiB, sm_90: 227 KiB, AMD:
// 64 KiB LDS). Everything the AMD targets do differently is one of these
// facts, read by the shared passes and the emitter's Dialect: a wavefront
// of 64 lanes (WarpSize), no asynchronous copies (AsyncCopy), MFMA instead
// of mma.sync (MatrixCore). The launch limits of both vendors agree on
// what tilec checks (1024 threads per block).
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_SUPPORT_TARGET_H
#define TILEC_SUPPORT_TARGET_H

#include "llvm/ADT/StringRef.h"
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tilec {

struct Target {
  enum class Backend { CUDA, HIP };
  /// The tensor-core instructions T.gemm lowers to (when TensorCores).
  enum class MatrixCore { MmaSync, Mfma };

  std::string Name;
  Backend Kind = Backend::CUDA;
  /// 80, 90 for CUDA; 0 for HIP.
  int SmVersion = 0;
  int64_t MaxSharedMemoryBytes = 0;
  int WarpSize = 32;
  /// What device queries such as `driver.get_num_sms()` evaluate to
  /// (--num-sms overrides it for other parts).
  int NumSMs = 0;
  /// T.gemm may use mma.sync (sm_80+); off: CUDA-core FMA everywhere.
  bool TensorCores = true;
  /// T.gemm may use wgmma (sm_90, compiled for sm_90a); off (--no-wgmma):
  /// the sm_80 lowering (mma.sync).
  bool Wgmma = false;
  MatrixCore Matrix = MatrixCore::MmaSync;
  /// K of the int8 MFMA: 32 on gfx940 (v_mfma_i32_16x16x32_i8), 16 on
  /// gfx90a (v_mfma_i32_16x16x16i8).
  int MfmaInt8K = 0;
  /// The target has fp8/bf8 MFMA instructions (gfx940; they read the FNUZ
  /// fp8 encodings, which tilec's OCP fp8 dtypes are not).
  bool MfmaFp8 = false;
  /// Global->shared copies can be asynchronous (cp.async, sm_80+); without
  /// it T.Pipelined stages plain vectorized loads.
  bool AsyncCopy = true;
  /// With AsyncCopy: the global->shared copies right before a cp.async
  /// pipeline's loop whose tiles only the loop reads (attention's Q) are
  /// issued asynchronously, joining the first group of its prologue
  /// (lower-pipelined); off (--no-async-prologue-copies): they complete
  /// before the prologue is issued.
  bool AsyncPrologueCopies = true;
  /// T.Pipelined copies of global tiles into shared memory may use TMA
  /// (cp.async.bulk.tensor) and mbarrier pipelines (sm_90 with wgmma);
  /// off (--no-tma): cp.async.
  bool Tma = false;
  /// A TMA pipeline's ring also issues, ahead of its first stages, the
  /// global->shared tile copies before its loop whose tiles only the loop
  /// reads (attention's Q; lower-tma, lower-pipelined); off
  /// (--no-tma-prologue-loads): the block copies them itself.
  bool TmaPrologueLoads = true;
  /// TMA pipelines may get a producer warpgroup of their own (automatic
  /// warp specialization); off (--no-warp-specialize): the consumers'
  /// first thread issues the loads.
  bool WarpSpecialize = false;
  /// The two consumer warpgroups of an attention loop take turns to issue
  /// their wgmmas (pingpong-warpgroups; --pingpong). Off by default: with
  /// the softmax overlapped inside each warpgroup (overlap-wgmma-pair), the
  /// forced alternation cost 1.6-7.2% on five of six shapes on the H200
  /// (bench/results/2026-11-26-h200-attnfwd2-ab.txt).
  bool PingPong = false;
  /// The shared tiles a tensor-core accumulator is copied into get the XOR
  /// swizzle (swizzle-staging); off: --no-staging-swizzle.
  bool StagingSwizzle = true;
  /// sm_90: accumulators copied to 16-bit global tensors go through a
  /// shared tile (stage-epilogue); off: --no-epilogue-staging.
  bool EpilogueStaging = false;
  /// sm_90: accumulator pairs stored into 16-bit shared tiles go as
  /// stmatrix (lower-stmatrix); off: --no-stmatrix.
  bool Stmatrix = false;
  /// A wgmma group's wait moves down to the group's first use, so that the
  /// independent gemms in between are issued while it runs
  /// (defer-wgmma-waits); off: --no-defer-wgmma-waits.
  bool DeferWgmmaWaits = false;
  /// Kernels are launched with programmatic stream serialization and
  /// wait for the grids before them at their start (dependent-launch; sm_90;
  /// off: --no-dependent-launch), so that a kernel's launch and block
  /// scheduling overlap the tail of the one before it.
  bool DependentLaunch = false;
  /// Warp-specialized TMA kernels run one block per SM (NumSMs) over their
  /// tiles, the producer's ring running on across tiles (persistent-tiles;
  /// --persistent). Off by default: it cost 5-10% on the paper's M6 GEMM
  /// on the H200 (bench/results/2026-11-26-h200-gemm9-persistent.txt).
  bool Persistent = false;
  /// Persistent blocks walk at most this many tiles each when the grid then
  /// has more than one wave of blocks (0: one wave, min(tiles, NumSMs));
  /// --persistent-walk.
  int64_t PersistentWalk = 0;

  /// Largest grid extent per dimension (x, y, z).
  int64_t MaxGridDims[3] = {2147483647, 65535, 65535};
  /// Largest block extent per dimension, and threads per block.
  int64_t MaxBlockDims[3] = {1024, 1024, 64};
  int64_t MaxThreadsPerBlock = 1024;
  /// Local memory one thread can address: fragments and local arrays
  /// larger than this cannot exist.
  int64_t MaxLocalBytesPerThread = 512 * 1024;
  /// 32-bit registers one thread can have: more words of fragments and
  /// local arrays than this certainly spill to local memory.
  int64_t MaxRegistersPerThread = 255;

  bool isCUDA() const { return Kind == Backend::CUDA; }
  bool isHIP() const { return Kind == Backend::HIP; }
};

/// tilec's own bound on the elements of one fragment: 2^18 (1 MiB of f32,
/// 4 times what the registers of a whole SM hold). Layout inference and
/// thread binding check layouts by enumerating elements; at this bound
/// that takes about a second.
constexpr int64_t MaxFragmentElements = int64_t(1) << 18;

/// "sm_80", "sm_90", "gfx90a", "gfx940" (or its alias "gfx942", which
/// gives the gfx940 target); std::nullopt otherwise.
std::optional<Target> parseTarget(llvm::StringRef Name);
/// The default target (sm_80).
Target defaultTarget();
/// Names parseTarget accepts, in a stable order.
std::vector<std::string> knownTargetNames();

} // namespace tilec

#endif
