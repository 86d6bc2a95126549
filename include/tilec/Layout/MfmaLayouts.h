//===- MfmaLayouts.h - AMD MFMA operand and fragment layouts ---*- C++ -*-===//
//
// Register layouts of the CDNA matrix instructions T.gemm uses (gfx90a,
// gfx940), for a wavefront of 64 lanes:
//
//   v_mfma_f32_16x16x16f16 / _16x16x16bf16_1k   tile 16 x 16, k 16
//   v_mfma_f32_32x32x8f16  / _32x32x8bf16_1k    tile 32 x 32, k 8
//   v_mfma_i32_16x16x16i8 (gfx90a)              tile 16 x 16, k 16
//   v_mfma_i32_16x16x32_i8 (gfx940)             tile 16 x 16, k 32
//
// In every one of them a lane holds E = T * k / 64 consecutive k of one
// row of A (and of one column of B), and lane groups of T lanes step
// through k: A element (r, k) is element k % E of lane r + T * (k / E); B
// element (k, c) is element k % E of lane c + T * (k / E). The
// accumulator holds T * T / 64 elements per lane in groups of four rows:
// C element (r, c) is element 4 * (r / (4 * G)) + r % 4 of lane
// c + T * ((r / 4) % G), G = 64 / T lane groups (the "AMD matrix
// instruction calculator" tables and the CDNA3 ISA, section 7.1).
//
// Block fragments follow GemmLayouts.h: each wavefront owns WarpM x WarpN
// of the BlockM x BlockN tile of C, wavefront w = wm + (BlockM / WarpM) *
// wn; instruction tiles of one wavefront interleave with the other
// wavefronts' (tile mi covers rows mi * T * MW + wm * T ..). Registers of
// one instruction tile are consecutive, tiles numbered (mi, ni) for C,
// (mi, ks) for A and (ni, ks) for B, the second fastest.
//
// Expects (asserted): T 16 or 32, k a multiple of 64 / T, BlockM % WarpM ==
// 0, WarpM % T == 0 (likewise N), BlockK % k == 0.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_LAYOUT_MFMALAYOUTS_H
#define TILEC_LAYOUT_MFMALAYOUTS_H

#include "tilec/Layout/Layout.h"

namespace tilec {
namespace layout {

/// Lanes of a CDNA wavefront.
constexpr int64_t MfmaWaveSize = 64;

/// One MFMA instruction: a Tile x Tile block of C, K deep.
struct MfmaShape {
  int64_t Tile;
  int64_t K;

  /// Operand elements per lane (of A and of B), and accumulator elements.
  int64_t operandElems() const { return Tile * K / MfmaWaveSize; }
  int64_t accElems() const { return Tile * Tile / MfmaWaveSize; }
};

/// Instruction maps [64 lanes, elements] -> [row, col] of one tile: A is
/// [Tile, K], B is [K, Tile], C is [Tile, Tile].
Layout makeMfmaLaneLayoutA(MfmaShape S);
Layout makeMfmaLaneLayoutB(MfmaShape S);
Layout makeMfmaLaneLayoutC(MfmaShape S);

/// Block fragments (threads 64 * wavefront + lane).
Fragment makeMfmaFragmentC(int64_t BlockM, int64_t BlockN, int64_t WarpM,
                           int64_t WarpN, MfmaShape S);
Fragment makeMfmaFragmentA(int64_t BlockM, int64_t BlockN, int64_t BlockK,
                           int64_t WarpM, int64_t WarpN, MfmaShape S,
                           bool Transposed = false);
Fragment makeMfmaFragmentB(int64_t BlockM, int64_t BlockN, int64_t BlockK,
                           int64_t WarpM, int64_t WarpN, MfmaShape S,
                           bool Transposed = false);

} // namespace layout
} // namespace tilec

#endif // TILEC_LAYOUT_MFMALAYOUTS_H
