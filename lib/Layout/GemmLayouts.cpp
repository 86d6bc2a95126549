//===- GemmLayouts.cpp - Tensor-core fragment layouts ---------------------===//

#include "tilec/Layout/GemmLayouts.h"
#include <cassert>
#include <cmath>
#include <limits>

using namespace tilec::layout;

static constexpr int64_t MPerWarp = 16;

std::optional<WarpPartition>
tilec::layout::computeWarpPartition(int64_t M, int64_t N, int64_t NumWarps,
                                    GemmWarpPolicy Policy, int64_t NPerWarp,
                                    int64_t RowsPerWarp) {
  if (M <= 0 || N <= 0 || NumWarps <= 0 || NPerWarp <= 0 || RowsPerWarp <= 0)
    return std::nullopt;
  std::optional<WarpPartition> Best;
  double BestScore = std::numeric_limits<double>::max();
  for (int64_t MW = 1; MW <= NumWarps; ++MW) {
    int64_t NW = NumWarps / MW;
    if (MW * NW != NumWarps || M % (MW * RowsPerWarp) != 0 ||
        N % (NW * NPerWarp) != 0)
      continue;
    double Score;
    if (Policy == GemmWarpPolicy::FullRow)
      Score = -double(MW);
    else if (Policy == GemmWarpPolicy::FullCol)
      Score = -double(NW);
    else // Square: the warp tile with the fewest operand rows + columns.
      Score = double(M / MW + N / NW);
    if (Score < BestScore) {
      BestScore = Score;
      Best = WarpPartition{MW, NW};
    }
  }
  return Best;
}

int64_t tilec::layout::mmaInstructionK(int64_t ElemBits) {
  assert((ElemBits == 4 || ElemBits == 8 || ElemBits == 16 ||
          ElemBits == 32) &&
         "mma operands are 4, 8, 16 or 32 bits wide");
  // Every shape's A row is 32 bytes of k.
  return 256 / ElemBits;
}

Fragment tilec::layout::makeGemmFragmentRowBase(int64_t KElems) {
  assert(KElems % 4 == 0 && "four threads share a row");
  int64_t PerThread = KElems / 4;
  IndexExpr I = Layout::inputVar(0), J = Layout::inputVar(1);
  return Fragment({8, KElems}, {floorMod(J, PerThread)},
                  I * 4 + floorDiv(J, PerThread));
}

Fragment tilec::layout::makeGemmFragment8x8() {
  return makeGemmFragmentRowBase(8);
}

Fragment tilec::layout::transposeFragment(const Fragment &F) {
  assert(F.getInputDim() == 2 && "transpose needs a 2-D fragment");
  VarMap Swap;
  Swap["i"] = Layout::inputVar(1);
  Swap["j"] = Layout::inputVar(0);
  llvm::SmallVector<IndexExpr, 4> Forward;
  for (const IndexExpr &E : F.getForwardIndex())
    Forward.push_back(substitute(E, Swap));
  Shape In = {F.getInputShape()[1], F.getInputShape()[0]};
  Fragment T(In, Forward, substitute(F.getForwardThread(), Swap),
             F.getReplicateSize());
  if (auto R = F.getThreadRange())
    return T.bindThreadRange(R->Begin, R->Extent);
  return T;
}

Fragment tilec::layout::makeGemmFragment8x8Transposed() {
  return transposeFragment(makeGemmFragment8x8());
}

static void checkWarpTiling(int64_t BlockM, int64_t BlockN, int64_t WarpM,
                            int64_t WarpN) {
  assert(WarpM > 0 && WarpN > 0 && BlockM % WarpM == 0 &&
         BlockN % WarpN == 0 && WarpM % MPerWarp == 0 && WarpN % 8 == 0 &&
         "block tile must split evenly into warp tiles");
  (void)BlockM, (void)BlockN, (void)WarpM, (void)WarpN;
}

Fragment tilec::layout::makeGemmFragmentC(int64_t BlockM, int64_t BlockN,
                                          int64_t WarpM, int64_t WarpN,
                                          int64_t ElemBits) {
  checkWarpTiling(BlockM, BlockN, WarpM, WarpN);
  // fp64 accumulates in 8x8 tiles (m8n8k4); other types in 16x8 tiles.
  int64_t TileM = ElemBits == 64 ? 8 : 16;
  Fragment Warp = makeGemmFragment8x8().repeat({TileM / 8, 1}, false);
  Fragment Block =
      Warp.repeat({BlockM / WarpM, BlockN / WarpN}, true, false);
  return Block.repeat({WarpM / TileM, WarpN / 8}, false, false);
}

Fragment tilec::layout::makeGemmFragmentA(int64_t BlockM, int64_t BlockN,
                                          int64_t BlockK, int64_t WarpM,
                                          int64_t WarpN, int64_t ElemBits,
                                          bool Transposed) {
  checkWarpTiling(BlockM, BlockN, WarpM, WarpN);
  int64_t K = mmaInstructionK(ElemBits);
  assert(BlockK % K == 0 && "BlockK must be a multiple of the mma k");
  Fragment Tile = makeGemmFragmentRowBase(K / 2).repeat({2, 2}, false, false);
  Fragment Warps = Tile.repeat({BlockM / WarpM, 1}, true)
                       .replicate(BlockN / WarpN);
  Fragment Block = Warps.repeat({WarpM / MPerWarp, BlockK / K}, false, false);
  return Transposed ? transposeFragment(Block) : Block;
}

Fragment tilec::layout::makeGemmFragmentB(int64_t BlockM, int64_t BlockN,
                                          int64_t BlockK, int64_t WarpM,
                                          int64_t WarpN, int64_t ElemBits,
                                          bool Transposed) {
  checkWarpTiling(BlockM, BlockN, WarpM, WarpN);
  int64_t K = mmaInstructionK(ElemBits);
  assert(BlockK % K == 0 && "BlockK must be a multiple of the mma k");
  // Built k-inner ([N, K]); the [K, N] form is its transpose.
  Fragment Tile = makeGemmFragmentRowBase(K / 2).repeat({1, 2}, false, false);
  Fragment Warps = Tile.replicate(BlockM / WarpM)
                       .repeat({BlockN / WarpN, 1}, true, false);
  Fragment Block = Warps.repeat({WarpN / 8, BlockK / K}, false, false);
  return Transposed ? Block : transposeFragment(Block);
}

Layout tilec::layout::makeLdmatrixX4AddressLayout() {
  IndexExpr Lane = Layout::inputVar(0);
  return Layout({32}, {floorMod(Lane, 16), floorDiv(Lane, 16) * 8});
}

Layout tilec::layout::makeLdmatrixX4Layout(bool Trans) {
  IndexExpr Lane = Layout::inputVar(0), Elem = Layout::inputVar(1);
  IndexExpr Matrix = floorDiv(Elem, 2);
  IndexExpr RowBase = floorMod(Matrix, 2) * 8;
  IndexExpr ColBase = floorDiv(Matrix, 2) * 8;
  IndexExpr Major = floorDiv(Lane, 4);
  IndexExpr Minor = floorMod(Lane, 4) * 2 + floorMod(Elem, 2);
  if (Trans)
    return Layout({32, 8}, {RowBase + Minor, ColBase + Major});
  return Layout({32, 8}, {RowBase + Major, ColBase + Minor});
}
