//===- MfmaLayouts.cpp - AMD MFMA operand and fragment layouts ------------===//

#include "tilec/Layout/MfmaLayouts.h"
#include "tilec/Layout/GemmLayouts.h"
#include <cassert>

using namespace tilec::layout;

static void checkShape(MfmaShape S) {
  assert((S.Tile == 16 || S.Tile == 32) && S.K > 0 && S.KPack > 0 &&
         (S.Tile * S.K) % MfmaWaveSize == 0 && "not an MFMA shape");
  (void)S;
}

Layout tilec::layout::makeMfmaLaneLayoutA(MfmaShape S) {
  checkShape(S);
  IndexExpr Lane = Layout::inputVar(0), E = Layout::inputVar(1);
  return Layout(
      {MfmaWaveSize, S.packElems()},
      {floorMod(Lane, S.Tile), floorDiv(Lane, S.Tile) * S.packElems() + E});
}

Layout tilec::layout::makeMfmaLaneLayoutB(MfmaShape S) {
  checkShape(S);
  IndexExpr Lane = Layout::inputVar(0), E = Layout::inputVar(1);
  return Layout(
      {MfmaWaveSize, S.packElems()},
      {floorDiv(Lane, S.Tile) * S.packElems() + E, floorMod(Lane, S.Tile)});
}

Layout tilec::layout::makeMfmaLaneLayoutC(MfmaShape S) {
  checkShape(S);
  int64_t Groups = MfmaWaveSize / S.Tile;
  IndexExpr Lane = Layout::inputVar(0), E = Layout::inputVar(1);
  IndexExpr Row = floorDiv(E, 4) * (4 * Groups) + floorDiv(Lane, S.Tile) * 4 +
                  floorMod(E, 4);
  return Layout({MfmaWaveSize, S.accElems()}, {Row, floorMod(Lane, S.Tile)});
}

namespace {

/// Where row (or column) X of a block dimension lies: instruction tile
/// index, wavefront index, position inside the tile.
struct TilePos {
  IndexExpr Tile, Warp, In;
};

TilePos splitDim(const IndexExpr &X, int64_t T, int64_t Warps) {
  return {floorDiv(X, T * Warps), floorMod(floorDiv(X, T), Warps),
          floorMod(X, T)};
}

void checkTiling(int64_t Block, int64_t Warp, MfmaShape S) {
  assert(Warp > 0 && Block % Warp == 0 && Warp % S.Tile == 0 &&
         "block tile must split evenly into wavefront tiles");
  (void)Block, (void)Warp, (void)S;
}

/// The lane and item of operand element (X, k) in its pack, where X is
/// the row of A or the column of B (both layouts agree on this form).
std::pair<IndexExpr, IndexExpr> operandLane(MfmaShape S, const IndexExpr &X,
                                            const IndexExpr &KIn) {
  int64_t E = S.packElems();
  return {X + floorDiv(KIn, E) * S.Tile, floorMod(KIn, E)};
}

} // namespace

Fragment tilec::layout::makeMfmaFragmentC(int64_t BlockM, int64_t BlockN,
                                          int64_t WarpM, int64_t WarpN,
                                          MfmaShape S) {
  checkShape(S);
  checkTiling(BlockM, WarpM, S);
  checkTiling(BlockN, WarpN, S);
  int64_t MW = BlockM / WarpM, NW = BlockN / WarpN;
  int64_t Groups = MfmaWaveSize / S.Tile;
  TilePos R = splitDim(Layout::inputVar(0), S.Tile, MW);
  TilePos C = splitDim(Layout::inputVar(1), S.Tile, NW);
  IndexExpr Lane = C.In + floorMod(floorDiv(R.In, 4), Groups) * S.Tile;
  IndexExpr Elem = floorDiv(R.In, 4 * Groups) * 4 + floorMod(R.In, 4);
  IndexExpr Reg = (R.Tile * (WarpN / S.Tile) + C.Tile) * S.accElems() + Elem;
  IndexExpr Thread = (R.Warp + C.Warp * MW) * MfmaWaveSize + Lane;
  return Fragment({BlockM, BlockN}, {Reg}, Thread);
}

Fragment tilec::layout::makeMfmaFragmentA(int64_t BlockM, int64_t BlockN,
                                          int64_t BlockK, int64_t WarpM,
                                          int64_t WarpN, MfmaShape S,
                                          bool Transposed) {
  checkShape(S);
  checkTiling(BlockM, WarpM, S);
  checkTiling(BlockN, WarpN, S);
  assert(BlockK % S.packK() == 0 && "BlockK must be a multiple of the pack");
  int64_t MW = BlockM / WarpM, NW = BlockN / WarpN;
  TilePos R = splitDim(Layout::inputVar(0), S.Tile, MW);
  IndexExpr K = Layout::inputVar(1);
  auto [Lane, Elem] = operandLane(S, R.In, floorMod(K, S.packK()));
  IndexExpr Reg =
      (R.Tile * (BlockK / S.packK()) + floorDiv(K, S.packK())) * S.packElems() +
      Elem;
  IndexExpr Thread =
      (R.Warp + Fragment::replicateVar() * MW) * MfmaWaveSize + Lane;
  Fragment F({BlockM, BlockK}, {Reg}, Thread, NW);
  return Transposed ? transposeFragment(F) : F;
}

Fragment tilec::layout::makeMfmaFragmentB(int64_t BlockM, int64_t BlockN,
                                          int64_t BlockK, int64_t WarpM,
                                          int64_t WarpN, MfmaShape S,
                                          bool Transposed) {
  checkShape(S);
  checkTiling(BlockM, WarpM, S);
  checkTiling(BlockN, WarpN, S);
  assert(BlockK % S.packK() == 0 && "BlockK must be a multiple of the pack");
  int64_t MW = BlockM / WarpM;
  IndexExpr K = Layout::inputVar(0);
  TilePos C = splitDim(Layout::inputVar(1), S.Tile, BlockN / WarpN);
  auto [Lane, Elem] = operandLane(S, C.In, floorMod(K, S.packK()));
  IndexExpr Reg =
      (C.Tile * (BlockK / S.packK()) + floorDiv(K, S.packK())) * S.packElems() +
      Elem;
  IndexExpr Thread =
      (Fragment::replicateVar() + C.Warp * MW) * MfmaWaveSize + Lane;
  Fragment F({BlockK, BlockN}, {Reg}, Thread, MW);
  return Transposed ? transposeFragment(F) : F;
}
