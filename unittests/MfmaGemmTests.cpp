//===- MfmaGemmTests.cpp - lower-mfma's index math, by simulation ---------===//
//
// Runs a block gemm the way lower-mfma lowers it, on integers: every
// wavefront and lane reads its operand elements at mfmaCoordA/B (or, for a
// register operand, from the fragment's registers through the tile map),
// each MFMA multiplies the tiles its lanes hold as the instruction's lane
// layouts define them (MfmaLayouts.h, checked against AMD's tables in
// MfmaLayoutTests.cpp), and accumulates into the registers the C tile map
// names. The result, read back through C's fragment, must equal the
// reference product for every shape, transpose and placement below. Where
// k is an operand's inner dimension, lower-mfma reads a lane's elements
// with one vcopy from the first one's coordinates: they must be one run.
//
//===----------------------------------------------------------------------===//

#include "AMD/MfmaGemm.h"
#include <catch2/catch.hpp>
#include <vector>

using namespace tilec;
using layout::IndexExpr;

namespace {

using Matrix = std::vector<std::vector<int64_t>>;
/// Registers of every thread of the block.
using Registers = std::vector<std::vector<int64_t>>;

Matrix randomMatrix(int64_t Rows, int64_t Cols, int64_t &Seed) {
  Matrix X(Rows, std::vector<int64_t>(Cols));
  for (auto &Row : X)
    for (int64_t &V : Row) {
      Seed = (Seed * 1103515245 + 12345) % 2147483648;
      V = Seed % 7 - 3;
    }
  return X;
}

struct Sim {
  const MmaPlan &P;
  int64_t Wave = 0, Lane = 0;

  std::pair<int64_t, int64_t> at(const TileCoords &TC) const {
    layout::Env Env;
    Env["lane"] = Lane;
    Env["wm"] = Wave % P.MWarps;
    Env["wn"] = Wave / P.MWarps;
    return {*layout::evaluate(TC.Row, Env), *layout::evaluate(TC.Col, Env)};
  }
  int64_t thread() const { return Wave * 64 + Lane; }
};

/// Registers of fragment F holding matrix X (stored as F's input shape).
Registers fill(const layout::Fragment &F, const Matrix &X, int64_t Threads) {
  Registers R(Threads, std::vector<int64_t>(F.getRegisterCount(), 0));
  layout::forEachIndex(F.getInputShape(), [&](llvm::ArrayRef<int64_t> Idx) {
    for (int64_t Rep = 0; Rep != F.getReplicateSize(); ++Rep)
      R[*F.forwardThread(Idx, Rep)][(*F.forward(Idx))[0]] = X[Idx[0]][Idx[1]];
  });
  return R;
}

Matrix transpose(const Matrix &X) {
  Matrix T(X[0].size(), std::vector<int64_t>(X.size()));
  for (size_t I = 0; I != X.size(); ++I)
    for (size_t J = 0; J != X[0].size(); ++J)
      T[J][I] = X[I][J];
  return T;
}

/// Where k is a shared operand's inner dimension, lower-mfma reads a lane's
/// pack with one vcopy from its first element: the pack must be one run.
void checkRuns(const MmaPlan &P, const Sim &Lane, int64_t Mi, int64_t Ni,
               int64_t Ks) {
  auto A0 = Lane.at(mfmaCoordA(P, Mi, Ks, 0));
  auto B0 = Lane.at(mfmaCoordB(P, Ni, Ks, 0));
  for (int64_t E = 0; E != P.aElems(); ++E) {
    auto A = Lane.at(mfmaCoordA(P, Mi, Ks, E));
    auto B = Lane.at(mfmaCoordB(P, Ni, Ks, E));
    if (!P.TransA)
      REQUIRE(A == std::make_pair(A0.first, A0.second + E));
    if (P.TransB)
      REQUIRE(B == std::make_pair(B0.first, B0.second + E));
  }
}

/// One gemm lowered as lower-mfma does; ARegs: A is a register fragment.
void simulate(const MmaPlan &P, bool ARegs) {
  int64_t Seed = 11, Threads = P.MWarps * P.NWarps * 64;
  Matrix A = randomMatrix(P.M, P.K, Seed), B = randomMatrix(P.K, P.N, Seed);
  Matrix AStored = P.TransA ? transpose(A) : A;
  Matrix BStored = P.TransB ? transpose(B) : B;
  layout::MfmaShape S = *P.Mfma;
  CoordFn CC = [&](IndexExpr Mi, IndexExpr Ni, int64_t E) {
    return mfmaCoordC(P, Mi, Ni, E);
  };
  CoordFn CA = [&](IndexExpr Mi, IndexExpr Ks, int64_t E) {
    return mfmaCoordA(P, Mi, Ks, E);
  };
  auto CMap = mapFragmentTiles(P, P.fragmentC(), CC, P.mTiles(), P.nTiles(),
                               P.cElems());
  REQUIRE(CMap);
  auto AMap = mapFragmentTiles(P, P.fragmentA(), CA, P.mTiles(), P.kSteps(),
                               P.aElems());
  REQUIRE(AMap);
  Registers C(Threads, std::vector<int64_t>(P.fragmentC().getRegisterCount()));
  Registers AFrag = fill(P.fragmentA(), AStored, Threads);
  // The hardware's view: AMD's lane layouts of one instruction (KPack 1).
  layout::MfmaShape I{S.Tile, S.K};
  layout::Layout LA = layout::makeMfmaLaneLayoutA(I),
                 LB = layout::makeMfmaLaneLayoutB(I),
                 LC = layout::makeMfmaLaneLayoutC(I);
  auto Eval = [](const IndexExpr &E) { return *layout::evaluate(E, {}); };
  int64_t E1 = S.operandElems();
  for (int64_t W = 0; W != P.MWarps * P.NWarps; ++W)
    for (int64_t Ks = 0; Ks != P.kSteps(); ++Ks)
      for (int64_t Kp = 0; Kp != S.KPack; ++Kp)
        for (int64_t Mi = 0; Mi != P.mTiles(); ++Mi)
          for (int64_t Ni = 0; Ni != P.nTiles(); ++Ni) {
            Matrix TA(S.Tile, std::vector<int64_t>(S.K)),
                TB(S.K, std::vector<int64_t>(S.Tile));
            for (int64_t L = 0; L != 64; ++L) {
              Sim Lane{P, W, L};
              checkRuns(P, Lane, Mi, Ni, Ks);
              int64_t AOff = Eval(AMap->at(IndexExpr(Mi), IndexExpr(Ks)));
              // Instruction Kp reads items [Kp E, (Kp + 1) E) of the pack.
              for (int64_t E = 0; E != E1; ++E) {
                int64_t Item = Kp * E1 + E;
                layout::Indices InA = *LA.forward({L, E});
                layout::Indices InB = *LB.forward({L, E});
                auto [AR, AC] = Lane.at(mfmaCoordA(P, Mi, Ks, Item));
                auto [BR, BC] = Lane.at(mfmaCoordB(P, Ni, Ks, Item));
                TA[InA[0]][InA[1]] =
                    ARegs ? AFrag[Lane.thread()][AOff + Item] : AStored[AR][AC];
                TB[InB[0]][InB[1]] = BStored[BR][BC];
              }
            }
            int64_t COff = Eval(CMap->at(IndexExpr(Mi), IndexExpr(Ni)));
            for (int64_t L = 0; L != 64; ++L)
              for (int64_t E = 0; E != S.accElems(); ++E) {
                layout::Indices RC = *LC.forward({L, E});
                for (int64_t K = 0; K != S.K; ++K)
                  C[W * 64 + L][COff + E] += TA[RC[0]][K] * TB[K][RC[1]];
              }
          }
  layout::Fragment FC = P.fragmentC();
  for (int64_t I = 0; I != P.M; ++I)
    for (int64_t J = 0; J != P.N; ++J) {
      int64_t Ref = 0;
      for (int64_t K = 0; K != P.K; ++K)
        Ref += A[I][K] * B[K][J];
      REQUIRE(C[*FC.forwardThread({I, J})][(*FC.forward({I, J}))[0]] == Ref);
    }
}

MmaPlan plan(int64_t M, int64_t N, int64_t K, int64_t MW, int64_t NW,
             layout::MfmaShape S, bool TransA, bool TransB, int64_t KPack = 1) {
  S.KPack = KPack;
  MmaPlan P{};
  P.M = M, P.N = N, P.K = K, P.MWarps = MW, P.NWarps = NW;
  P.TransA = TransA, P.TransB = TransB;
  // Eight items per lane: gfx940's int8 (16x16x32) or fp8 (both shapes).
  bool EightBit = S.operandElems() == 8;
  P.In = !EightBit      ? DType::Float16
         : S.Tile == 16 ? DType::Int8
                        : DType::Float8E4M3FNUZ;
  P.Acc = P.In == DType::Int8 ? DType::Int32 : DType::Float32;
  P.Mfma = S;
  return P;
}

} // namespace

TEST_CASE("lower-mfma computes the block product", "[mfma]") {
  for (bool TA : {false, true})
    for (bool TB : {false, true}) {
      INFO("transpose_a " << TA << " transpose_b " << TB);
      simulate(plan(64, 64, 32, 2, 2, {16, 16}, TA, TB), false);
      simulate(plan(64, 128, 16, 1, 2, {32, 8}, TA, TB), false);
      simulate(plan(32, 32, 64, 2, 1, {16, 32}, TA, TB), false);
      simulate(plan(64, 64, 32, 1, 2, {32, 16}, TA, TB), false);
    }
}

TEST_CASE("lower-mfma uses A in registers in place", "[mfma]") {
  simulate(plan(64, 64, 32, 2, 2, {16, 16}, false, true), true);
  simulate(plan(32, 64, 16, 1, 2, {32, 8}, false, false), true);
}

TEST_CASE("lower-mfma with k_pack computes the block product", "[mfma]") {
  // k_pack = 2: 16-byte packs of f16 and gfx940 int8; k_pack = 4 is what
  // gfx90a int8 (4 bytes per instruction) allows besides (the index math
  // does not depend on the dtype).
  for (bool TA : {false, true})
    for (bool TB : {false, true}) {
      INFO("transpose_a " << TA << " transpose_b " << TB);
      simulate(plan(64, 64, 64, 2, 2, {16, 16}, TA, TB, 2), false);
      simulate(plan(64, 128, 32, 1, 2, {32, 8}, TA, TB, 2), false);
      simulate(plan(32, 32, 128, 2, 1, {16, 32}, TA, TB, 2), false);
      simulate(plan(32, 32, 64, 1, 1, {16, 16}, TA, TB, 4), false);
      simulate(plan(64, 64, 64, 1, 2, {32, 16}, TA, TB, 2), false);
    }
  simulate(plan(64, 64, 64, 2, 2, {16, 16}, false, true, 2), true);
  simulate(plan(32, 64, 32, 1, 2, {32, 8}, false, false, 2), true);
}
