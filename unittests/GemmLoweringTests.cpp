//===- GemmLoweringTests.cpp - CUDA-core gemm layouts, by enumeration -----===//
//
// The layouts gemm-layout pins (lib/Transforms/GemmLayout.h) checked point
// by point: C covers every element exactly once over the grid's threads
// and registers; fragment A/B operands hold, on every thread, exactly the
// rows/columns (all of K) that thread's part of C needs, each element
// once per replica; the register numbers are the ones lower-gemm assumes.
//
//===----------------------------------------------------------------------===//

#include "GemmLayout.h"
#include <catch2/catch.hpp>
#include <set>

using namespace tilec;
using layout::GemmWarpPolicy;

namespace {

int64_t rowOf(const FmaGemmGrid &G, int64_t Tx, int64_t I) {
  return Tx / G.TN + G.TM * I;
}
int64_t colOf(const FmaGemmGrid &G, int64_t Tx, int64_t J) {
  return (J / G.VN * G.TN + Tx % G.TN) * G.VN + J % G.VN;
}

void checkC(const FmaGemmGrid &G) {
  layout::Fragment F = makeFmaFragmentC(G);
  REQUIRE(F.getRegisterCount() == G.rowsPerThread() * G.colsPerThread());
  REQUIRE(F.getThreadExtent() == G.threads());
  std::set<std::pair<int64_t, int64_t>> Seen;
  for (int64_t Tx = 0; Tx != G.threads(); ++Tx)
    for (int64_t I = 0; I != G.rowsPerThread(); ++I)
      for (int64_t J = 0; J != G.colsPerThread(); ++J) {
        int64_t R = rowOf(G, Tx, I), C = colOf(G, Tx, J);
        REQUIRE(F.forwardThread({R, C}) == Tx);
        REQUIRE((*F.forward({R, C}))[0] == I * G.colsPerThread() + J);
        REQUIRE(Seen.insert({R, C}).second);
      }
  REQUIRE(int64_t(Seen.size()) == G.M * G.N);
  REQUIRE(F.isBijective() == true);
}

/// Element (row, k) of A on thread Tx in register i * K + k, for every
/// thread of the grid, and each (element, replica) on exactly one thread.
void checkA(const FmaGemmGrid &G, int64_t K, bool Trans) {
  layout::Fragment F = makeFmaFragmentA(G, K, Trans);
  REQUIRE(F.getReplicateSize() == G.TN);
  REQUIRE(F.getRegisterCount() == G.rowsPerThread() * K);
  for (int64_t Tx = 0; Tx != G.threads(); ++Tx)
    for (int64_t I = 0; I != G.rowsPerThread(); ++I)
      for (int64_t Kv = 0; Kv != K; ++Kv) {
        int64_t R = rowOf(G, Tx, I);
        layout::Indices Idx = Trans ? layout::Indices{Kv, R}
                                    : layout::Indices{R, Kv};
        REQUIRE((*F.forward(Idx))[0] == I * K + Kv);
        REQUIRE(F.forwardThread(Idx, Tx % G.TN) == Tx);
      }
  REQUIRE(F.isBijective() == true);
}

void checkB(const FmaGemmGrid &G, int64_t K, bool Trans) {
  layout::Fragment F = makeFmaFragmentB(G, K, Trans);
  REQUIRE(F.getReplicateSize() == G.TM);
  REQUIRE(F.getRegisterCount() == G.colsPerThread() * K);
  for (int64_t Tx = 0; Tx != G.threads(); ++Tx)
    for (int64_t J = 0; J != G.colsPerThread(); ++J)
      for (int64_t Kv = 0; Kv != K; ++Kv) {
        int64_t C = colOf(G, Tx, J);
        layout::Indices Idx = Trans ? layout::Indices{C, Kv}
                                    : layout::Indices{Kv, C};
        REQUIRE((*F.forward(Idx))[0] == J * K + Kv);
        REQUIRE(F.forwardThread(Idx, Tx / G.TN) == Tx);
      }
  REQUIRE(F.isBijective() == true);
}

FmaGemmGrid best(int64_t M, int64_t N, int64_t T, GemmWarpPolicy P) {
  auto Grids = rankFmaGrids(M, N, T, P);
  REQUIRE(!Grids.empty());
  return Grids.front();
}

} // namespace

TEST_CASE("FMA gemm grids follow the warp policy", "[gemm]") {
  FmaGemmGrid Sq = best(128, 128, 128, GemmWarpPolicy::Square);
  CHECK(Sq.TM == 8);
  CHECK(Sq.TN == 16);
  CHECK(Sq.VN == 4);
  FmaGemmGrid Row = best(128, 128, 128, GemmWarpPolicy::FullRow);
  CHECK(Row.TM == 128);
  CHECK(Row.TN == 1);
  FmaGemmGrid Col = best(128, 128, 128, GemmWarpPolicy::FullCol);
  CHECK(Col.TM == 1);
  CHECK(Col.TN == 128);
  // Fewer elements than threads: every element on its own thread.
  FmaGemmGrid Small = best(4, 8, 128, GemmWarpPolicy::Square);
  CHECK(Small.threads() == 32);
  // A grid must divide the tile.
  FmaGemmGrid Odd = best(96, 64, 128, GemmWarpPolicy::Square);
  CHECK(96 % Odd.TM == 0);
  CHECK(64 % Odd.TN == 0);
  CHECK(Odd.threads() <= 128);
}

TEST_CASE("FMA gemm C layouts cover every element once", "[gemm]") {
  for (GemmWarpPolicy P : {GemmWarpPolicy::Square, GemmWarpPolicy::FullRow,
                           GemmWarpPolicy::FullCol}) {
    checkC(best(128, 128, 128, P));
    checkC(best(64, 32, 256, P));
    checkC(best(128, 64, 128, P));
    checkC(best(16, 8, 128, P));
    checkC(best(96, 64, 128, P));
  }
}

TEST_CASE("FMA gemm operand fragments feed each thread's C block", "[gemm]") {
  for (GemmWarpPolicy P : {GemmWarpPolicy::Square, GemmWarpPolicy::FullRow}) {
    FmaGemmGrid G = best(64, 64, 128, P);
    for (bool Trans : {false, true}) {
      checkA(G, 16, Trans);
      checkB(G, 16, Trans);
    }
  }
  checkA(best(96, 64, 128, GemmWarpPolicy::Square), 8, false);
  checkB(best(96, 64, 128, GemmWarpPolicy::Square), 8, true);
}

TEST_CASE("Attention: scores as C and as the next A agree", "[gemm]") {
  // FullRow over 128 query rows: one row per thread; the scores fragment
  // (C of S = Q K^T) then has the layout the P V gemm needs for A.
  FmaGemmGrid S = best(128, 64, 128, GemmWarpPolicy::FullRow);
  FmaGemmGrid O = *makeFmaGrid(128, 128, S.TM, S.TN, 4);
  layout::Fragment AsC = makeFmaFragmentC(S);
  layout::Fragment AsA = makeFmaFragmentA(O, 64, false);
  CHECK(AsC.isEquivalent(AsA) == true);
  CHECK(AsC.forwardThread({5, 7}) == AsA.forwardThread({5, 7}));
}
