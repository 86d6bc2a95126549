//===- WgmmaGemm.h - How a T.gemm maps onto wgmma (sm_90a) ------*- C++ -*-===//
//
// Shared by wgmma-layout (which decides) and lower-wgmma (which emits).
//
// Expects: a `gemm %A, %B, %C` whose operands have static rank-2 shapes.
// Does: planWgmmaGemm() decides whether the gemm can run as
//   wgmma.mma_async on the target and, if so, how:
//   - the instruction: m64nNk16 for f16 (into f32 or f16) and bf16 (into
//     f32), k32 for fp8 e4m3/e5m2 (into f32) and int8/uint8 (into int32),
//     k8 for float32 as tf32 (into f32); k is always 32 bytes;
//   - the split of the C tile over the block's warpgroups (MW x NW, each
//     owning a multiple of 64 rows and 8 columns; TileLang's policies:
//     FullRow puts the most warpgroups along M, FullCol along N; Square
//     reads the least shared memory per flop: the widest instruction
//     first, then the squarest warpgroup tile) and the instruction's N
//     (the largest valid one dividing the warpgroup's columns);
//   - per operand: B from shared memory, A from shared memory or from a
//     fragment (registers); each shared operand's canonical layout (K- or
//     MN-major from the transposes, the swizzle by chooseWgmmaSwizzle).
//     Only 16-bit operands may be MN-major (A stored [K, M], B [K, N]).
//   The plan is recorded on the gemm as `wgmma = [MW, NW, N_instr]`,
//   `wgmma_swizzle = [A swizzle, B swizzle]` (bytes; -1 for A in
//   registers) and `mma_shape = [M, N, K]`, and read back by
//   readWgmmaPlan().
// Guarantees: a plan only when everything splits evenly; otherwise the
//   reason, for a remark.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_TRANSFORMS_HOPPER_WGMMAGEMM_H
#define TILEC_TRANSFORMS_HOPPER_WGMMAGEMM_H

#include "tilec/IR/Operation.h"
#include "tilec/Layout/WgmmaLayouts.h"
#include "tilec/Support/Target.h"
#include <optional>
#include <string>

namespace tilec {

struct WgmmaPlan {
  int64_t M, N, K;
  int64_t MWarpgroups, NWarpgroups, InstrN;
  bool TransA, TransB;
  /// A is a fragment (registers), not a shared buffer.
  bool ARegisters;
  DType In, Acc;
  /// Swizzle bytes (128, 64, 32, 0) of the shared operands' layouts.
  int64_t ASwizzle = 0, BSwizzle = 0;

  int64_t warpgroups() const { return MWarpgroups * NWarpgroups; }
  int64_t wgM() const { return M / MWarpgroups; }
  int64_t wgN() const { return N / NWarpgroups; }
  int64_t inBits() const { return bitWidth(In); }
  int64_t instrK() const { return layout::wgmmaInstructionK(inBits()); }
  /// Instruction tiles per warpgroup along M and N, and k steps.
  int64_t mTiles() const { return wgM() / 64; }
  int64_t nTiles() const { return wgN() / InstrN; }
  int64_t kSteps() const { return K / instrK(); }
  /// Accumulator elements of one instruction per thread.
  int64_t cElems() const { return InstrN / 2; }
  /// A elements of one instruction per thread (four 32-bit registers).
  int64_t aElems() const { return 128 / inBits(); }
  /// "m64n128k16".
  std::string shape() const;

  /// The stored shapes and majors of the shared operands.
  layout::WgmmaSharedLayout sharedA() const;
  layout::WgmmaSharedLayout sharedB() const;
  /// Columns of the stored tile one instruction reads: the whole k
  /// extent (K-major) or the instruction's M or N (MN-major).
  int64_t instrCols(bool OperandA) const;
  /// Whether the shared layout with \p SwizzleBytes serves the operand.
  bool swizzleFits(bool OperandA, int64_t SwizzleBytes) const;
  layout::Fragment fragmentC() const;
  layout::Fragment fragmentA() const;
};

/// The wgmma plan of \p Gemm for \p Tgt with \p Threads threads, or nullopt
/// with the reason in \p Why.
std::optional<WgmmaPlan> planWgmmaGemm(const ir::Operation &Gemm,
                                       const Target &Tgt, int64_t Threads,
                                       std::string &Why);
/// The same plan with the warpgroup split \p MW x \p NW, or nullopt when
/// the tile does not split so.
std::optional<WgmmaPlan> withWarpgroupSplit(const WgmmaPlan &P, int64_t MW,
                                            int64_t NW);
void recordWgmmaPlan(ir::Operation &Gemm, const WgmmaPlan &P);
/// nullopt when absent or inconsistent with the operands.
std::optional<WgmmaPlan> readWgmmaPlan(const ir::Operation &Gemm);

} // namespace tilec

#endif // TILEC_TRANSFORMS_HOPPER_WGMMAGEMM_H
