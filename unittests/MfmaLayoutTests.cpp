//===- MfmaLayoutTests.cpp - MFMA layouts against AMD's tables ------------===//
//
// The references are written in the direction AMD's matrix instruction
// calculator and the CDNA3 ISA (section 7.1, "Dependent arithmetic /
// matrix fused multiply-add") list them, independently of the library:
// for each matrix element, the lane and the register item holding it.
//   A (M x K) and B (K x N): item k % KL of lane i + M * (k / KL), with
//     KL = M * K / 64 the items per lane (i the row of A, the column of B);
//   C/D (M x N): lane j + M * ((i / 4) % (64 / M)), item
//     4 * (i / (4 * (64 / M))) + i % 4 (so in 32x32 tiles lanes 0-31 hold
//     rows 0-3, 8-11, 16-19, 24-27 and lanes 32-63 the four rows after
//     each of those; in 16x16 tiles lane l holds rows 4 * (l / 16) .. +4).
// Every element of every instruction tile is checked, for every shape
// T.gemm uses: 16x16x16 (f16, bf16_1k, gfx90a i8), 32x32x8 (f16,
// bf16_1k), 16x16x32 (gfx940 i8, fp8_fp8, bf8_bf8) and 32x32x16 (gfx940
// fp8_fp8, bf8_bf8: eight 8-bit items per lane, lanes 32-63 on k 8-15).
//
//===----------------------------------------------------------------------===//

#include "tilec/Layout/MfmaLayouts.h"
#include <catch2/catch.hpp>
#include <set>

using namespace tilec::layout;

namespace {

struct LaneItem {
  int64_t Lane, Item;
};

LaneItem refOperand(MfmaShape S, int64_t RowOrCol, int64_t K) {
  int64_t KL = S.Tile * S.K / 64;
  return {RowOrCol + S.Tile * (K / KL), K % KL};
}

/// k_pack (TileLang's definition): a lane reads KPack times the
/// instruction's items as one run, i.e. the table of an instruction KPack
/// times as deep; instruction kp takes the items kp * KL .. + KL of it.
LaneItem refPack(MfmaShape S, int64_t RowOrCol, int64_t K) {
  return refOperand({S.Tile, S.K * S.KPack}, RowOrCol, K);
}

LaneItem refAccumulator(MfmaShape S, int64_t I, int64_t J) {
  int64_t Groups = 64 / S.Tile;
  return {J + S.Tile * ((I / 4) % Groups), 4 * (I / (4 * Groups)) + I % 4};
}

const MfmaShape Shapes[] = {{16, 16}, {32, 8}, {16, 32}, {32, 16}};

/// (lane, item) -> (row, col) of \p L, through its forward map.
std::pair<int64_t, int64_t> at(const Layout &L, int64_t Lane, int64_t Item) {
  auto Out = L.forward({Lane, Item});
  REQUIRE(Out);
  REQUIRE(Out->size() == 2);
  return {(*Out)[0], (*Out)[1]};
}

} // namespace

TEST_CASE("MFMA A, B and C lane layouts match AMD's tables", "[mfma]") {
  for (MfmaShape S : Shapes) {
    INFO("tile " << S.Tile << " k " << S.K);
    Layout A = makeMfmaLaneLayoutA(S), B = makeMfmaLaneLayoutB(S),
           C = makeMfmaLaneLayoutC(S);
    CHECK(A.isBijective() == true);
    CHECK(B.isBijective() == true);
    CHECK(C.isBijective() == true);
    for (int64_t I = 0; I != S.Tile; ++I)
      for (int64_t K = 0; K != S.K; ++K) {
        LaneItem R = refOperand(S, I, K);
        CHECK(at(A, R.Lane, R.Item) == std::make_pair(I, K));
        CHECK(at(B, R.Lane, R.Item) == std::make_pair(K, I));
      }
    for (int64_t I = 0; I != S.Tile; ++I)
      for (int64_t J = 0; J != S.Tile; ++J) {
        LaneItem R = refAccumulator(S, I, J);
        CHECK(at(C, R.Lane, R.Item) == std::make_pair(I, J));
      }
  }
}

TEST_CASE("MFMA 32x32 accumulator rows per lane", "[mfma]") {
  // The calculator's listing for v_mfma_f32_32x32x8f16, lanes 0 and 32.
  Layout C = makeMfmaLaneLayoutC({32, 8});
  std::vector<int64_t> Lane0, Lane32;
  for (int64_t E = 0; E != 16; ++E) {
    Lane0.push_back(at(C, 0, E).first);
    Lane32.push_back(at(C, 32, E).first);
  }
  CHECK(Lane0 == std::vector<int64_t>{0, 1, 2, 3, 8, 9, 10, 11, 16, 17, 18, 19,
                                      24, 25, 26, 27});
  CHECK(Lane32 == std::vector<int64_t>{4, 5, 6, 7, 12, 13, 14, 15, 20, 21, 22,
                                       23, 28, 29, 30, 31});
}

namespace {

/// Checks a block fragment of C against the lane layout: element (i, j)
/// belongs to wavefront wm + MW * wn of the tile grid and, in its
/// instruction tile, to the lane and item the reference gives; the tile's
/// items are consecutive registers.
void checkFragmentC(int64_t M, int64_t N, int64_t WM, int64_t WN, MfmaShape S) {
  Fragment F = makeMfmaFragmentC(M, N, WM, WN, S);
  CHECK(F.isBijective() == true);
  int64_t MW = M / WM, NW = N / WN, T = S.Tile;
  forEachIndex({M, N}, [&](llvm::ArrayRef<int64_t> X) {
    int64_t I = X[0], J = X[1];
    int64_t Wm = I / T % MW, Wn = J / T % NW;
    LaneItem R = refAccumulator(S, I % T, J % T);
    CHECK(*F.forwardThread(X) == (Wm + MW * Wn) * 64 + R.Lane);
    int64_t Tile = I / (T * MW) * (WN / T) + J / (T * NW);
    CHECK((*F.forward(X))[0] == Tile * S.accElems() + R.Item);
  });
}

/// The same for an A fragment ([M, K]): replicated over the NW wavefronts
/// of a tile row.
void checkFragmentA(int64_t M, int64_t N, int64_t K, int64_t WM, int64_t WN,
                    MfmaShape S) {
  Fragment F = makeMfmaFragmentA(M, N, K, WM, WN, S);
  CHECK(F.isBijective() == true);
  int64_t MW = M / WM, NW = N / WN, T = S.Tile;
  CHECK(F.getReplicateSize() == NW);
  forEachIndex({M, K}, [&](llvm::ArrayRef<int64_t> X) {
    LaneItem R = refPack(S, X[0] % T, X[1] % S.packK());
    std::set<int64_t> Threads;
    for (int64_t Rep = 0; Rep != NW; ++Rep)
      Threads.insert(*F.forwardThread(X, Rep));
    std::set<int64_t> Expected;
    for (int64_t Wn = 0; Wn != NW; ++Wn)
      Expected.insert((X[0] / T % MW + MW * Wn) * 64 + R.Lane);
    CHECK(Threads == Expected);
    int64_t Tile = X[0] / (T * MW) * (K / S.packK()) + X[1] / S.packK();
    CHECK((*F.forward(X))[0] == Tile * S.packElems() + R.Item);
  });
}

} // namespace

TEST_CASE("MFMA block fragments of C", "[mfma]") {
  checkFragmentC(64, 64, 32, 32, {16, 16});
  checkFragmentC(128, 64, 64, 32, {32, 8});
  checkFragmentC(32, 128, 32, 32, {16, 32});
  checkFragmentC(64, 128, 32, 64, {32, 16});
}

TEST_CASE("MFMA block fragments of A and B", "[mfma]") {
  checkFragmentA(64, 64, 32, 32, 32, {16, 16});
  checkFragmentA(64, 128, 16, 64, 32, {32, 8});
  checkFragmentA(32, 32, 64, 16, 32, {16, 32});
  checkFragmentA(64, 64, 64, 32, 64, {32, 16});
  // B ([K, N]) is A's construction on the columns: its transpose ([N, K])
  // equals A's fragment of the transposed problem with the roles of the
  // wavefront grid's axes exchanged.
  Fragment B = makeMfmaFragmentB(64, 64, 32, 32, 32, {16, 16});
  CHECK(B.isBijective() == true);
  forEachIndex({32, 64}, [&](llvm::ArrayRef<int64_t> X) {
    int64_t K = X[0], J = X[1];
    LaneItem R = refOperand({16, 16}, J % 16, K % 16);
    for (int64_t Rep = 0; Rep != 2; ++Rep)
      CHECK(*B.forwardThread(X, Rep) == (Rep + 2 * (J / 16 % 2)) * 64 + R.Lane);
    CHECK((*B.forward(X))[0] == (J / 32 * 2 + K / 16) * 4 + R.Item);
  });
  Fragment BT = makeMfmaFragmentB(64, 64, 32, 32, 32, {16, 16}, true);
  CHECK(BT.getInputShape()[0] == 64);
  CHECK(*BT.forwardThread({5, 20}) == *B.forwardThread({20, 5}));
}

TEST_CASE("MFMA packs (k_pack): each instruction of a pack is AMD's "
          "layout over its own k, A and B alike",
          "[mfma]") {
  const MfmaShape Packed[] = {
      {16, 16, 2}, {32, 8, 2}, {16, 32, 2}, {16, 16, 4}, {32, 16, 2}};
  for (MfmaShape S : Packed) {
    INFO("tile " << S.Tile << " k " << S.K << " k_pack " << S.KPack);
    Layout A = makeMfmaLaneLayoutA(S), B = makeMfmaLaneLayoutB(S);
    CHECK(A.isBijective() == true);
    CHECK(B.isBijective() == true);
    int64_t E = S.operandElems();
    for (int64_t I = 0; I != S.Tile; ++I) {
      // Instruction kp's k index q (AMD's table) stands for one pack k;
      // A and B agree on it, and the pack's k are covered once each.
      std::set<int64_t> Covered;
      for (int64_t Kp = 0; Kp != S.KPack; ++Kp)
        for (int64_t Q = 0; Q != S.K; ++Q) {
          LaneItem R = refOperand({S.Tile, S.K}, I, Q);
          auto [ARow, AK] = at(A, R.Lane, Kp * E + R.Item);
          auto [BK, BCol] = at(B, R.Lane, Kp * E + R.Item);
          CHECK(ARow == I);
          CHECK(BCol == I);
          CHECK(AK == BK);
          Covered.insert(AK);
        }
      CHECK(int64_t(Covered.size()) == S.packK());
      CHECK(*Covered.rbegin() == S.packK() - 1);
    }
    // A lane's items are one run of consecutive k (one vcopy).
    for (int64_t L = 0; L != 64; ++L)
      for (int64_t Item = 0; Item != S.packElems(); ++Item) {
        CHECK(at(A, L, Item).second == at(A, L, 0).second + Item);
        LaneItem R = refPack(S, L % S.Tile, at(A, L, Item).second);
        CHECK(R.Lane == L);
        CHECK(R.Item == Item);
      }
  }
}

TEST_CASE("MFMA block fragments of packed A", "[mfma]") {
  checkFragmentA(64, 64, 64, 32, 32, {16, 16, 2});
  checkFragmentA(64, 128, 32, 64, 32, {32, 8, 2});
  checkFragmentA(32, 32, 128, 16, 32, {16, 32, 2});
  checkFragmentA(64, 64, 64, 32, 32, {32, 16, 2});
}
