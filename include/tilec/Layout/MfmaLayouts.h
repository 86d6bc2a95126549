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
// k_pack (T.gemm's argument): KPack instructions of one tile are issued
// back to back on one "pack" of KPack * k, and a lane reads its
// KPack * E elements of the pack as one run (16 bytes for f16 with
// KPack = 2: one ds_read_b128 instead of two ds_read_b64). The operand
// lane layouts below describe the pack: A element (r, k) of a pack is
// item k % (KPack E) of lane r + T * (k / (KPack E)); instruction kp of the
// pack takes items [kp E, (kp + 1) E) of every lane. So instruction kp's
// k index q (item q % E of lane group q / E) stands for pack k
// (q / E) * KPack * E + kp * E + q % E, the same for A and B: the KPack
// instructions together sum over every k of the pack exactly once, in a
// different order than KPack = 1. With KPack = 1 the layouts are AMD's.
//
// Block fragments follow GemmLayouts.h: each wavefront owns WarpM x WarpN
// of the BlockM x BlockN tile of C, wavefront w = wm + (BlockM / WarpM) *
// wn; instruction tiles of one wavefront interleave with the other
// wavefronts' (tile mi covers rows mi * T * MW + wm * T ..). Registers of
// one instruction tile (of A and B: one pack) are consecutive, tiles
// numbered (mi, ni) for C, (mi, ks) for A and (ni, ks) for B, the second
// fastest (ks counts packs).
//
// Expects (asserted): T 16 or 32, k a multiple of 64 / T, KPack >= 1,
// BlockM % WarpM == 0, WarpM % T == 0 (likewise N), BlockK % (KPack k) ==
// 0.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_LAYOUT_MFMALAYOUTS_H
#define TILEC_LAYOUT_MFMALAYOUTS_H

#include "tilec/Layout/Layout.h"

namespace tilec {
namespace layout {

/// Lanes of a CDNA wavefront.
constexpr int64_t MfmaWaveSize = 64;

/// One MFMA instruction: a Tile x Tile block of C, K deep, issued KPack
/// times per pack (k_pack).
struct MfmaShape {
  int64_t Tile;
  int64_t K;
  int64_t KPack = 1;

  /// Operand elements per lane (of A and of B) of one instruction, and
  /// accumulator elements.
  int64_t operandElems() const { return Tile * K / MfmaWaveSize; }
  int64_t accElems() const { return Tile * Tile / MfmaWaveSize; }
  /// k of one pack, and a lane's operand elements of one pack.
  int64_t packK() const { return K * KPack; }
  int64_t packElems() const { return operandElems() * KPack; }
};

/// Maps [64 lanes, items] -> [row, col] of one tile: A is [Tile, packK],
/// B is [packK, Tile] (one pack, see above), C is [Tile, Tile].
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
