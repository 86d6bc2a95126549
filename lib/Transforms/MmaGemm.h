//===- MmaGemm.h - How a T.gemm maps onto mma.sync --------------*- C++ -*-===//
//
// Shared by gemm-layout (which decides) and lower-mma (which emits).
//
// Expects: a `gemm %A, %B, %C` whose operands have static rank-2 shapes.
// Does: planMmaGemm() decides whether the gemm runs on tensor cores with
//   mma.sync for the target and, if so, how: the instruction (m16n8k16 for
//   f16/bf16, m16n8k32 for int8/uint8, m16n8k8 for float32 as tf32), the
//   split of the C tile over the block's warps (computeWarpPartition), and
//   the resulting register fragments of C and of
//   fragment operands. The plan is recorded on the gemm as
//   `mma_warps = [MW, NW], mma_shape = [M, N, K]` (the shape survives
//   lower-fragments turning the operands into register arrays) and read
//   back by readMmaPlan().
//   The per-lane element coordinates of the instruction operands (the PTX
//   ISA's fragment tables) are given as IndexExprs over the variable
//   "lane", so that lower-mma emits them and checks fragment registers
//   against them by evaluation.
// Guarantees: a plan only when every dimension splits evenly: warp tiles
//   are multiples of 16 x 8 and K is a multiple of the instruction's k.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_TRANSFORMS_MMAGEMM_H
#define TILEC_TRANSFORMS_MMAGEMM_H

#include "tilec/IR/Operation.h"
#include "tilec/Layout/GemmLayouts.h"
#include "tilec/Support/Target.h"
#include <optional>

namespace tilec {

struct MmaPlan {
  int64_t M, N, K;
  int64_t MWarps, NWarps;
  bool TransA, TransB;
  DType In, Acc;

  int64_t warpM() const { return M / MWarps; }
  int64_t warpN() const { return N / NWarps; }
  int64_t inBits() const { return bitWidth(In); }
  int64_t instrK() const { return layout::mmaInstructionK(inBits()); }
  /// Instruction tiles per warp along M and N, and k steps.
  int64_t mTiles() const { return warpM() / 16; }
  int64_t nTiles() const { return warpN() / 8; }
  int64_t kSteps() const { return K / instrK(); }
  /// Elements of one instruction operand per lane.
  int64_t aElems() const { return 16 * instrK() / 32; }
  int64_t bElems() const { return 8 * instrK() / 32; }
  /// Operand elements per 32-bit register.
  int64_t perRegister() const { return 32 / inBits(); }
  llvm::StringRef shape() const;

  layout::Fragment fragmentC() const;
  layout::Fragment fragmentA() const;
  layout::Fragment fragmentB() const;
};

/// The tensor-core plan of \p Gemm for \p Tgt with \p Threads threads, or
/// nullopt when it must run on CUDA cores.
std::optional<MmaPlan> planMmaGemm(const ir::Operation &Gemm, const Target &Tgt,
                                   int64_t Threads);
/// Records \p P on \p Gemm; readMmaPlan() reads it back (nullopt when
/// absent or inconsistent with the operand types).
void recordMmaPlan(ir::Operation &Gemm, const MmaPlan &P);
std::optional<MmaPlan> readMmaPlan(const ir::Operation &Gemm);

/// Storage coordinates [row, col] of element E of lane "lane" in an
/// instruction tile: C at tile (Mi, Ni); A at (Mi, Ks); B at (Ni, Ks).
/// Mi, Ni and Ks may be expressions; warp offsets are variables "wm" and
/// "wn" (the warp's index along M and N).
struct TileCoords {
  layout::IndexExpr Row, Col;
};
TileCoords mmaCoordC(const MmaPlan &P, layout::IndexExpr Mi,
                     layout::IndexExpr Ni, int64_t E);
TileCoords mmaCoordA(const MmaPlan &P, layout::IndexExpr Mi,
                     layout::IndexExpr Ks, int64_t E);
TileCoords mmaCoordB(const MmaPlan &P, layout::IndexExpr Ni,
                     layout::IndexExpr Ks, int64_t E);

} // namespace tilec

#endif // TILEC_TRANSFORMS_MMAGEMM_H
