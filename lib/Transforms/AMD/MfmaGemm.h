//===- MfmaGemm.h - How a T.gemm maps onto AMD MFMA ------------*- C++ -*-===//
//
// The AMD half of MmaGemm.h, shared by gemm-layout (planMmaGemm calls
// planMfmaGemm on targets whose matrix cores are MFMA) and lower-mfma.
//
// Expects: a `gemm %A, %B, %C` whose operands have static rank-2 shapes.
// Does: planMfmaGemm() decides whether the gemm runs on MFMA and with which
//   instruction:
//     f16 -> f32      v_mfma_f32_32x32x8f16 when every wavefront tile is
//                     a multiple of 32 x 32, else v_mfma_f32_16x16x16f16
//     bf16 -> f32     the same shapes, _bf16_1k forms
//     int8 -> int32   v_mfma_i32_16x16x32_i8 (gfx940) or
//                     v_mfma_i32_16x16x16i8 (gfx90a): Target::MfmaInt8K
//     fp8 FNUZ -> f32 (gfx940, Target::MfmaFp8) v_mfma_f32_32x32x16_fp8_fp8
//                     or _16x16x32_, the bf8_bf8 forms for e5m2fnuz
//   and splits the C tile over the block's wavefronts of 64 lanes
//   (computeWarpPartition with the instruction tile). The gemm's `k_pack`
//   groups k_pack instructions into one pack (MfmaLayouts.h): K must be a
//   multiple of k_pack * k and a lane's run of one pack a power of two up
//   to 16 bytes (k_pack = 2 for f16/bf16 and gfx940 int8: 16 bytes, one
//   ds_read_b128). Other dtypes (OCP
//   fp8, which CheckTarget refuses, tf32, uint8, f16 accumulators) run on
//   the vector ALUs (FMA).
//   mfmaCoordA/B/C give the per-lane element coordinates of one
//   instruction tile (MfmaLayouts.h) as IndexExprs over "lane", "wm", "wn".
// Guarantees: a plan only when the wavefront tiles are multiples of the
//   instruction tile and K of the pack's k.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_TRANSFORMS_AMD_MFMAGEMM_H
#define TILEC_TRANSFORMS_AMD_MFMAGEMM_H

#include "MmaGemm.h"

namespace tilec {

/// Whether an MFMA of shape \p S exists for the dtypes of \p P and its
/// packs are read with one vcopy (a power of two up to 16 bytes).
bool mfmaShapeSupported(const MmaPlan &P, layout::MfmaShape S);
/// The MFMA plan of \p Gemm (with its `k_pack`), or nullopt (see above).
std::optional<MmaPlan> planMfmaGemm(const ir::Operation &Gemm,
                                    const Target &Tgt, int64_t Threads);
/// Why \p Gemm's k_pack > 1 cannot be honoured, when the gemm would run on
/// MFMA with k_pack = 1 (gemm-layout reports it as an error rather than
/// dropping k_pack or the matrix cores); nullopt otherwise.
std::optional<std::string> mfmaKPackProblem(const ir::Operation &Gemm,
                                            const Target &Tgt, int64_t Threads);
/// The instruction's name without `v_mfma_`, e.g. "f32_16x16x16f16"; the
/// `mfma` op's `instr` attribute and the runtime wrapper's suffix.
std::string mfmaInstruction(DType In, int64_t Tile, int64_t K);

TileCoords mfmaCoordC(const MmaPlan &P, layout::IndexExpr Mi,
                      layout::IndexExpr Ni, int64_t E);
TileCoords mfmaCoordA(const MmaPlan &P, layout::IndexExpr Mi,
                      layout::IndexExpr Ks, int64_t E);
TileCoords mfmaCoordB(const MmaPlan &P, layout::IndexExpr Ni,
                      layout::IndexExpr Ks, int64_t E);

} // namespace tilec

#endif // TILEC_TRANSFORMS_AMD_MFMAGEMM_H
