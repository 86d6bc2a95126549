//===- LayoutTests.cpp - Unit tests of the layout algebra -----------------===//
//
// Layout properties are checked by enumeration. The mma and ldmatrix
// references below are written from the PTX ISA tables ("Matrix Fragments
// for mma.m16n8k16 / m16n8k32 / m16n8k64 / m16n8k8", "ldmatrix"),
// independently of the library's repeat-based construction.
//
//===----------------------------------------------------------------------===//

#include "tilec/Layout/GemmLayouts.h"
#include "tilec/Layout/Simplify.h"
#include "tilec/Layout/Swizzle.h"
#include "tilec/Layout/ThreadLayouts.h"
#include <catch2/catch.hpp>
#include <random>
#include <set>

using namespace tilec::layout;

namespace {

IndexExpr v(const char *Name) { return IndexExpr::var(Name); }

std::string simp(const IndexExpr &E, const VarExtents &Ext) {
  return toString(simplify(E, Ext));
}

VarExtents extents(std::initializer_list<std::pair<const char *, int64_t>> L) {
  VarExtents E;
  for (auto &[Name, N] : L)
    E[Name] = N;
  return E;
}

} // namespace

//===----------------------------------------------------------------------===//
// IndexExpr and the simplifier
//===----------------------------------------------------------------------===//

TEST_CASE("printing keeps precedence", "[layout][expr]") {
  IndexExpr I = v("i"), J = v("j");
  CHECK(toString(floorMod(I * 8 + J, 32)) == "(i * 8 + j) % 32");
  CHECK(toString(I - (J - 1)) == "i - (j - 1)");
  CHECK(toString(floorDiv(I, J * 2)) == "i // (j * 2)");
  CHECK(toString(bitXor(I, J) + 1) == "(i ^ j) + 1");
  CHECK(toString(minExpr(I, J)) == "min(i, j)");
  VarExtents Ext = extents({{"i", 8}, {"j", 8}});
  CHECK(toCString(floorMod(I * 8 + J, 32), Ext) == "(i * 8 + j) % 32");
  CHECK(toCString(floorDiv(v("y"), 2), Ext) == "tilec_floordiv(y, 2)");
  CHECK(toCString(floorMod(I - 4, 2), Ext) == "tilec_floormod(i - 4, 2)");
}

TEST_CASE("evaluate follows Python floor semantics", "[layout][expr]") {
  Env Vals;
  Vals["x"] = -7;
  CHECK(*evaluate(floorDiv(v("x"), 2), Vals) == -4);
  CHECK(*evaluate(floorMod(v("x"), 2), Vals) == 1);
  CHECK(*evaluate(floorMod(v("x"), -2), Vals) == -1);
  CHECK_FALSE(evaluate(floorDiv(v("x"), 0), Vals));
  CHECK_FALSE(evaluate(v("unbound"), Vals));
  CHECK(*evaluate(bitXor(v("x"), 3) + bitAnd(6, 3), Vals) == ((-7 ^ 3) + 2));
}

TEST_CASE("simplifier rewrites to canonical forms", "[layout][simplify]") {
  IndexExpr I = v("i"), J = v("j"), X = v("x");
  VarExtents E8 = extents({{"i", 8}, {"j", 8}, {"x", 1024}});
  VarExtents J4 = extents({{"i", 8}, {"j", 4}});
  VarExtents Big = extents({{"i", 64}, {"j", 128}});
  struct Case {
    IndexExpr In;
    const VarExtents &Ext;
    const char *Out;
  } Cases[] = {
      {floorMod(I * 8 + J, 32), E8, "i % 4 * 8 + j"},
      {floorMod(I * 8 + J, 32), Big, "(i * 8 + j) % 32"},
      {floorDiv(I * 8 + J, 8), E8, "i"},
      {floorMod(I * 8 + J, 8), E8, "j"},
      {floorDiv(I * 16 + J, 8), E8, "i * 2"},
      {floorDiv(I * 8 + J + 3, 8), J4, "i"},
      {floorDiv(I * 8 + J + 3, 8), E8, "i + (j + 3) // 8"},
      {floorMod(I * 8 + J + 3, 8), J4, "j + 3"},
      {floorDiv(floorDiv(X, 4), 8), E8, "x // 32"},
      {floorDiv(floorMod(X, 32), 4), E8, "x // 4 % 8"},
      {floorMod(floorMod(X, 64), 8), E8, "x % 8"},
      {floorDiv(X, 4) * 4 + floorMod(X, 4), E8, "x"},
      {floorMod(floorDiv(X, 4), 8) * 4 + floorMod(X, 4), E8, "x % 32"},
      {(IndexExpr(3) + 4) * 2, E8, "14"},
      {floorDiv(-7, 2) + floorMod(-7, 2), E8, "-3"},
      {I + J - I, E8, "j"},
      {I * 2 + I * 3, E8, "i * 5"},
      {I - J, E8, "i - j"},
      {floorMod(J * 2, 4), E8, "j % 2 * 2"},
      {floorDiv(J * 2, 4), E8, "j // 2"},
      {floorMod(J, 16), E8, "j"},
      {floorDiv(J, 16), E8, "0"},
      {bitAnd(X, 7), E8, "x % 8"},
      {minExpr(I, I + 1), E8, "i"},
      {maxExpr(I, 8), E8, "8"},
      {bitXor(X, 0), E8, "x"},
      {bitXor(X, X), E8, "0"},
      {floorDiv(J, 2) + I * 4, E8, "i * 4 + j // 2"},
      {(I + 1) * 8 - 8, E8, "i * 8"},
      {floorMod(I * 9 + 8, 8), E8, "i"},
      {floorMod(I * 9 + 8, 16), E8, "(i * 9 + 8) % 16"},
      {floorDiv(I * 128 + J, 1024), Big, "i // 8"},
      {floorMod(I * 32 + floorDiv(J, 4), 256), Big, "i % 8 * 32 + j // 4"},
  };
  for (auto &C : Cases) {
    INFO(toString(C.In));
    CHECK(simp(C.In, C.Ext) == C.Out);
  }
}

namespace {

/// A random expression over a, b, c (extents 1..40) with small constants.
class ExprGen {
public:
  explicit ExprGen(unsigned Seed) : Rng(Seed) {}

  IndexExpr gen(int Depth) {
    if (Depth == 0 || pick(4) == 0)
      return leaf();
    int Op = pick(9);
    IndexExpr L = gen(Depth - 1);
    IndexExpr R = Op >= 3 && Op <= 4 && pick(4) ? IndexExpr(pick(16) + 1)
                                                : gen(Depth - 1);
    static const ExprNode::Kind Kinds[] = {
        ExprNode::Kind::Add, ExprNode::Kind::Sub, ExprNode::Kind::Mul,
        ExprNode::Kind::FloorDiv, ExprNode::Kind::FloorMod,
        ExprNode::Kind::Xor, ExprNode::Kind::And, ExprNode::Kind::Min,
        ExprNode::Kind::Max};
    return makeBinary(Kinds[Op], L, R);
  }

  int64_t pick(int64_t N) {
    return std::uniform_int_distribution<int64_t>(0, N - 1)(Rng);
  }

private:
  std::mt19937 Rng;

  IndexExpr leaf() {
    static const char *Names[] = {"a", "b", "c"};
    if (pick(3) == 0)
      return IndexExpr(pick(33) - 8);
    return IndexExpr::var(Names[pick(3)]);
  }
};

} // namespace

TEST_CASE("simplify preserves values on random inputs", "[layout][simplify]") {
  unsigned Seed = GENERATE(12345u, 777u, 2024u);
  ExprGen G(Seed);
  int Checked = 0;
  for (int N = 0; N < 3000; ++N) {
    VarExtents Ext;
    Ext["a"] = G.pick(40) + 1;
    Ext["b"] = G.pick(40) + 1;
    Ext["c"] = G.pick(8) + 1;
    IndexExpr E = G.gen(4);
    IndexExpr S = simplify(E, Ext);
    INFO(toString(E) << "  ==>  " << toString(S));
    CHECK(structurallyEqual(simplify(S, Ext), S));
    for (int P = 0; P < 20; ++P) {
      Env Vals;
      for (const char *Name : {"a", "b", "c"})
        Vals[Name] = G.pick(Ext[Name]);
      auto Want = evaluate(E, Vals);
      if (!Want)
        continue;
      auto Got = evaluate(S, Vals);
      REQUIRE(Got);
      REQUIRE(*Got == *Want);
      ++Checked;
    }
  }
  CHECK(Checked > 20000);
}

TEST_CASE("range analysis", "[layout][simplify]") {
  VarExtents Ext = extents({{"i", 8}, {"j", 4}});
  auto B = computeBounds(v("i") * 4 + v("j") - 3, Ext);
  REQUIRE(B);
  CHECK(B->Min == -3);
  CHECK(B->Max == 28);
  auto M = computeBounds(floorMod(v("i") + 8, 16), Ext);
  REQUIRE(M);
  CHECK(M->Min == 8);
  CHECK(M->Max == 15);
  CHECK_FALSE(computeBounds(v("unknown") + 1, Ext));
  CHECK(proveEqual(floorDiv(v("i") * 4 + v("j"), 4), v("i"), Ext));
}

//===----------------------------------------------------------------------===//
// Layout
//===----------------------------------------------------------------------===//

TEST_CASE("linear layout basics", "[layout]") {
  Layout L = makeLinearLayout({8, 16});
  CHECK(L.toString() == "Layout([8, 16] -> [128], transform: [i, j] -> "
                        "[i * 16 + j])");
  CHECK(*L.forward({3, 5}) == Indices{53});
  CHECK_FALSE(L.forward({8, 0}));
  CHECK(*L.isBijective());
  auto R = L.reshape({128});
  REQUIRE(R);
  CHECK(toString(R->getForwardIndex()[0]) == "i");
  CHECK_FALSE(L.reshape({7}));
}

TEST_CASE("repeat, expand, reshape and compose", "[layout]") {
  Layout Sw = makeFullBankSwizzleLayout(8, 64, 16);
  Layout Rep = Sw.repeat(0, 4);
  CHECK(Rep.getInputShape()[0] == 32);
  CHECK(Rep.getOutputDim() == 4);
  CHECK(*Rep.isBijective());
  Layout Ex = Sw.expand({3});
  CHECK(*Ex.forward({2, 5, 17}) ==
        Indices{2, (*Sw.forward({5, 17}))[0], (*Sw.forward({5, 17}))[1],
                (*Sw.forward({5, 17}))[2]});
  // Reshape keeps the row-major order of the elements.
  auto Flat = Sw.reshape({512});
  REQUIRE(Flat);
  for (int64_t F = 0; F < 512; ++F)
    REQUIRE(*Flat->forward({F}) == *Sw.forward({F / 64, F % 64}));
  // Compose with the row-major linearization of its own output.
  auto Lin = makeLinearLayout(Sw.getOutputShape());
  auto Phys = Lin.compose(Sw);
  REQUIRE(Phys);
  CHECK(*Phys->isBijective());
  CHECK_FALSE(Sw.compose(Lin));
  CHECK(*Sw.isEquivalent(Sw));
  CHECK_FALSE(*Sw.isEquivalent(makeHalfBankSwizzleLayout(8, 64, 16)));
}

TEST_CASE("inverse undoes forward", "[layout][inverse]") {
  std::vector<Layout> Layouts = {
      makeLinearLayout({16, 32}), makeFullBankSwizzleLayout(32, 64, 16),
      makeHalfBankSwizzleLayout(16, 32, 16),
      makeQuarterBankSwizzleLayout(8, 16, 16), makeLdmatrixX4Layout(false),
      makeLdmatrixX4Layout(true),
      makeGemmFragmentC(128, 128, 64, 64, 32).asThreadLayout()};
  for (const Layout &L : Layouts) {
    INFO(L.toString());
    auto Inv = L.inverse();
    REQUIRE(Inv);
    forEachIndex(L.getInputShape(), [&](llvm::ArrayRef<int64_t> X) {
      REQUIRE(*Inv->forward(*L.forward(X)) == Indices(X.begin(), X.end()));
    });
  }
  // Not a power of two: only the table inverse.
  Layout T({3, 5}, {Layout::inputVar(1) * 3 + Layout::inputVar(0)});
  CHECK_FALSE(T.inverse());
  auto Table = T.inverseTable();
  REQUIRE(Table);
  CHECK(Table->Table[(*T.forward({2, 4}))[0]] == 2 * 5 + 4);
  CHECK_FALSE(makeGemmABLayoutPadded(8, 64, 16).inverseTable());
}

TEST_CASE("mma C inverse prints readably", "[layout][inverse]") {
  auto Inv = makeGemmFragmentC(16, 8, 16, 8, 32).inverse();
  REQUIRE(Inv);
  // (register, thread) -> (row, col)
  CHECK(Inv->toString() == "Layout([4, 32] -> [16, 8], transform: [i, j] -> "
                           "[i // 2 * 8 + j // 4, j % 4 * 2 + i % 2])");
}

//===----------------------------------------------------------------------===//
// Fragments
//===----------------------------------------------------------------------===//

TEST_CASE("fragment primitives", "[layout][fragment]") {
  Fragment Base = makeGemmFragment8x8();
  CHECK(Base.toString() ==
        "Fragment([8, 8] -> [2], replicate: 1, thread: 32, forward_thread: "
        "i * 4 + j // 2, forward_index: [j % 2])");
  Fragment OnRegs = Base.repeat({2, 1}, false);
  CHECK(OnRegs.getRegisterCount() == 4);
  CHECK(OnRegs.getThreadExtent() == 32);
  Fragment OnThreads = Base.repeat({1, 2}, true);
  CHECK(OnThreads.getThreadExtent() == 64);
  CHECK(*OnThreads.isBijective());
  Fragment Rep = Base.replicate(4);
  CHECK(Rep.getReplicateSize() == 4);
  CHECK(Rep.getThreadExtent() == 128);
  CHECK(*Rep.forwardThread({1, 3}, 2) == 4 + 1 + 64);
  CHECK(*Rep.isBijective());
  Fragment Full = Fragment::fullyReplicated({4, 4}, 64);
  CHECK(Full.isFullyReplicated());
  CHECK_FALSE(Base.isFullyReplicated());
  CHECK(Full.toString().find("thread_range: [0, 64)") != std::string::npos);
  auto Flat = OnThreads.reshape({128});
  REQUIRE(Flat);
  for (int64_t F = 0; F < 128; ++F)
    REQUIRE(*Flat->forwardThread({F}) == *OnThreads.forwardThread({F / 16,
                                                                  F % 16}));
}

namespace {

struct Coord {
  int64_t Row, Col;
};
using PtxMap = Coord (*)(int64_t Lane, int64_t I);

// The PTX ISA formulas, with groupID = lane >> 2, threadID_in_group = lane % 4.
Coord ptxA16(int64_t Lane, int64_t I) { // m16n8k16 .f16 A, a0..a7
  int64_t G = Lane >> 2, T = Lane % 4;
  int64_t Row = (I < 2 || (I >= 4 && I < 6)) ? G : G + 8;
  int64_t Col = I < 4 ? T * 2 + (I & 1) : T * 2 + (I & 1) + 8;
  return {Row, Col};
}
Coord ptxB16(int64_t Lane, int64_t I) { // m16n8k16 .f16 B, b0..b3
  int64_t G = Lane >> 2, T = Lane % 4;
  return {I < 2 ? T * 2 + (I & 1) : T * 2 + (I & 1) + 8, G};
}
Coord ptxC(int64_t Lane, int64_t I) { // m16n8k{8,16,32} C/D, c0..c3
  int64_t G = Lane >> 2, T = Lane % 4;
  return {I < 2 ? G : G + 8, T * 2 + (I & 1)};
}
Coord ptxA8(int64_t Lane, int64_t I) { // m16n8k32 .s8 A, a0..a15
  int64_t G = Lane >> 2, T = Lane % 4;
  int64_t Row = (I < 4 || (I >= 8 && I < 12)) ? G : G + 8;
  int64_t Col = I < 8 ? T * 4 + (I & 3) : T * 4 + (I & 3) + 16;
  return {Row, Col};
}
Coord ptxB8(int64_t Lane, int64_t I) { // m16n8k32 .s8 B, b0..b7
  int64_t G = Lane >> 2, T = Lane % 4;
  return {I < 4 ? T * 4 + (I & 3) : T * 4 + (I & 3) + 16, G};
}
Coord ptxA4(int64_t Lane, int64_t I) { // m16n8k64 .s4 A, a0..a31
  int64_t G = Lane >> 2, T = Lane % 4;
  int64_t Row = (I < 8 || (I >= 16 && I < 24)) ? G : G + 8;
  int64_t Col = I < 16 ? T * 8 + (I & 7) : T * 8 + (I & 7) + 32;
  return {Row, Col};
}
Coord ptxB4(int64_t Lane, int64_t I) { // m16n8k64 .s4 B, b0..b15
  int64_t G = Lane >> 2, T = Lane % 4;
  return {I < 8 ? T * 8 + (I & 7) : T * 8 + (I & 7) + 32, G};
}
Coord ptxATf32(int64_t Lane, int64_t I) { // m16n8k8 .tf32 A, a0..a3
  int64_t G = Lane >> 2, T = Lane % 4;
  return {(I == 0 || I == 2) ? G : G + 8, I < 2 ? T : T + 4};
}
Coord ptxBTf32(int64_t Lane, int64_t I) { // m16n8k8 .tf32 B, b0..b1
  int64_t G = Lane >> 2, T = Lane % 4;
  return {I == 0 ? T : T + 4, G};
}

/// One warp's fragment: a bijection onto 32 threads x Regs registers that
/// puts register I of each lane where the PTX table says.
void checkWarpFragment(const Fragment &F, int64_t Regs, PtxMap Ref,
                       bool Transposed = false) {
  INFO(F.toString());
  CHECK(*F.isBijective());
  CHECK(F.getThreadExtent() == 32);
  CHECK(F.getRegisterCount() == Regs);
  for (int64_t Lane = 0; Lane < 32; ++Lane)
    for (int64_t I = 0; I < Regs; ++I) {
      Coord C = Ref(Lane, I);
      Indices Idx = Transposed ? Indices{C.Col, C.Row} : Indices{C.Row, C.Col};
      REQUIRE(*F.forwardThread(Idx) == Lane);
      REQUIRE((*F.forward(Idx))[0] == I);
    }
}

} // namespace

TEST_CASE("mma m16n8k16 fragments match the PTX ISA", "[layout][mma]") {
  checkWarpFragment(makeGemmFragmentA(16, 8, 16, 16, 8, 16), 8, ptxA16);
  checkWarpFragment(makeGemmFragmentA(16, 8, 16, 16, 8, 16, true), 8, ptxA16,
                    true);
  checkWarpFragment(makeGemmFragmentB(16, 8, 16, 16, 8, 16), 4, ptxB16);
  checkWarpFragment(makeGemmFragmentB(16, 8, 16, 16, 8, 16, true), 4, ptxB16,
                    true);
  checkWarpFragment(makeGemmFragmentC(16, 8, 16, 8, 32), 4, ptxC);
}

TEST_CASE("mma int8 and tf32 fragments match the PTX ISA", "[layout][mma]") {
  checkWarpFragment(makeGemmFragmentA(16, 8, 32, 16, 8, 8), 16, ptxA8);
  checkWarpFragment(makeGemmFragmentB(16, 8, 32, 16, 8, 8), 8, ptxB8);
  checkWarpFragment(makeGemmFragmentB(16, 8, 32, 16, 8, 8, true), 8, ptxB8,
                    true);
  checkWarpFragment(makeGemmFragmentA(16, 8, 8, 16, 8, 32), 4, ptxATf32);
  checkWarpFragment(makeGemmFragmentB(16, 8, 8, 16, 8, 32), 2, ptxBTf32);
}

TEST_CASE("mma int4 fragments match the PTX ISA", "[layout][mma]") {
  CHECK(mmaInstructionK(4) == 64);
  checkWarpFragment(makeGemmFragmentA(16, 8, 64, 16, 8, 4), 32, ptxA4);
  checkWarpFragment(makeGemmFragmentA(16, 8, 64, 16, 8, 4, true), 32, ptxA4,
                    true);
  checkWarpFragment(makeGemmFragmentB(16, 8, 64, 16, 8, 4), 16, ptxB4);
  checkWarpFragment(makeGemmFragmentB(16, 8, 64, 16, 8, 4, true), 16, ptxB4,
                    true);
  // Two k steps: the second step's registers follow the first's.
  Fragment A2 = makeGemmFragmentA(16, 8, 128, 16, 8, 4);
  for (int64_t Lane = 0; Lane < 32; ++Lane)
    for (int64_t I = 0; I < 32; ++I) {
      Coord C = ptxA4(Lane, I);
      Indices Idx{C.Row, C.Col + 64};
      REQUIRE(*A2.forwardThread(Idx) == Lane);
      REQUIRE((*A2.forward(Idx))[0] == 32 + I);
    }
}

TEST_CASE("block-level gemm fragments over several warps", "[layout][mma]") {
  auto P = computeWarpPartition(128, 128, 4, GemmWarpPolicy::Square);
  REQUIRE(P);
  int64_t WM = 128 / P->MWarps, WN = 128 / P->NWarps;
  Fragment C = makeGemmFragmentC(128, 128, WM, WN, 32);
  CHECK(*C.isBijective());
  CHECK(C.getThreadExtent() == 128);
  CHECK(C.getRegisterCount() == 128);
  CHECK(C.toString().rfind("Fragment([128, 128] -> [128], replicate: 1, "
                           "thread: 128, forward_thread: ",
                           0) == 0);
  // Each 16x8 tile of C is one mma: in it, thread % 32 and the register
  // modulo 4 follow the PTX table, and all of it belongs to one warp.
  forEachIndex({128, 128}, [&](llvm::ArrayRef<int64_t> X) {
    int64_t T = *C.forwardThread(X), R = (*C.forward(X))[0];
    Coord Want = ptxC(T % 32, R % 4);
    REQUIRE(Want.Row == X[0] % 16);
    REQUIRE(Want.Col == X[1] % 8);
  });
  Fragment A = makeGemmFragmentA(128, 128, 32, WM, WN, 16);
  CHECK(A.getReplicateSize() == P->NWarps);
  CHECK(*A.isBijective());
  CHECK(A.getThreadExtent() == 128);
  Fragment B = makeGemmFragmentB(128, 128, 32, WM, WN, 16, true);
  CHECK(B.getReplicateSize() == P->MWarps);
  CHECK(*B.isBijective());
}

TEST_CASE("warp partition policies", "[layout][mma]") {
  auto Check = [](int64_t M, int64_t N, int64_t W, GemmWarpPolicy Pol,
                  int64_t WantM, int64_t WantN) {
    auto P = computeWarpPartition(M, N, W, Pol);
    REQUIRE(P);
    CHECK(P->MWarps == WantM);
    CHECK(P->NWarps == WantN);
  };
  Check(128, 128, 4, GemmWarpPolicy::Square, 2, 2);
  Check(128, 128, 4, GemmWarpPolicy::FullRow, 4, 1);
  Check(128, 128, 4, GemmWarpPolicy::FullCol, 1, 4);
  Check(128, 256, 8, GemmWarpPolicy::Square, 2, 4);
  Check(32, 256, 4, GemmWarpPolicy::FullRow, 2, 2);
  CHECK_FALSE(computeWarpPartition(16, 8, 4, GemmWarpPolicy::Square));
  CHECK_FALSE(computeWarpPartition(0, 8, 4, GemmWarpPolicy::Square));
}

TEST_CASE("ldmatrix x4 layouts", "[layout][ldmatrix]") {
  Layout Addr = makeLdmatrixX4AddressLayout();
  // PTX: lanes 8m..8m+7 give the row addresses of matrix m.
  for (int64_t Lane = 0; Lane < 32; ++Lane) {
    int64_t M = Lane / 8;
    CHECK(*Addr.forward({Lane}) == Indices{8 * (M % 2) + Lane % 8, 8 * (M / 2)});
  }
  for (bool Trans : {false, true}) {
    Layout L = makeLdmatrixX4Layout(Trans);
    CHECK(*L.isBijective());
    for (int64_t T = 0; T < 32; ++T)
      for (int64_t E = 0; E < 8; ++E) {
        // PTX: register m holds matrix m; lane t gets row t / 4 (with
        // .trans: column t / 4), elements 2 * (t % 4) + {0, 1}.
        int64_t M = E / 2, Row = T / 4, Col = 2 * (T % 4) + E % 2;
        if (Trans)
          std::swap(Row, Col);
        Indices Start = *Addr.forward({8 * M + Row});
        REQUIRE(*L.forward({T, E}) == Indices{Start[0], Start[1] + Col});
      }
  }
  // ldmatrix.x4 delivers the mma A fragment; .trans on [K, N] gives B.
  Fragment A = makeGemmFragmentA(16, 8, 16, 16, 8, 16);
  Fragment B = makeGemmFragmentB(16, 16, 16, 16, 16, 16);
  Layout NonTrans = makeLdmatrixX4Layout(false), Trans = makeLdmatrixX4Layout(true);
  forEachIndex({32, 8}, [&](llvm::ArrayRef<int64_t> X) {
    Indices PA = *NonTrans.forward(X), PB = *Trans.forward(X);
    REQUIRE(*A.forwardThread(PA) == X[0]);
    REQUIRE((*A.forward(PA))[0] == X[1]);
    REQUIRE(*B.forwardThread(PB) == X[0]);
    REQUIRE((*B.forward(PB))[0] == X[1]);
  });
}

//===----------------------------------------------------------------------===//
// Shared-memory swizzles
//===----------------------------------------------------------------------===//

namespace {

/// 16-byte bank group (0..7) of element (Row, Col) under L.
int64_t bankGroup(const Layout &L, int64_t Row, int64_t Col, int64_t Bits) {
  Layout Lin = makeLinearLayout(L.getOutputShape());
  int64_t Offset = (*Lin.forward(*L.forward({Row, Col})))[0];
  return (Offset * Bits / 8 / 16) % 8;
}

/// Eight rows of a row block reading the same 16-byte column vector hit
/// eight different bank groups.
bool conflictFree(const Layout &L, int64_t Bits) {
  int64_t Rows = L.getInputShape()[0], Cols = L.getInputShape()[1];
  int64_t Vec = 128 / Bits;
  for (int64_t R0 = 0; R0 < Rows; R0 += 8)
    for (int64_t C = 0; C < Cols; C += Vec) {
      std::set<int64_t> Groups;
      for (int64_t R = R0; R < R0 + 8; ++R)
        Groups.insert(bankGroup(L, R, C, Bits));
      if (Groups.size() != 8)
        return false;
    }
  return true;
}

} // namespace

TEST_CASE("bank swizzles are conflict-free bijections", "[layout][swizzle]") {
  for (int64_t Bits : {8, 16, 32}) {
    int64_t Vec = 128 / Bits;
    std::vector<Layout> Swizzles = {
        makeFullBankSwizzleLayout(64, Vec * 8, Bits),
        makeFullBankSwizzleLayout(32, Vec * 16, Bits),
        makeHalfBankSwizzleLayout(64, Vec * 4, Bits),
        makeQuarterBankSwizzleLayout(64, Vec * 2, Bits)};
    for (const Layout &L : Swizzles) {
      INFO(L.toString());
      CHECK(*L.isBijective());
      CHECK(conflictFree(L, Bits));
      // Within one 8-row block the index is a permutation of 8 rows.
      int64_t Cols = L.getInputShape()[1];
      for (int64_t R0 = 0; R0 < 16; R0 += 8) {
        std::set<std::pair<int64_t, int64_t>> Seen;
        forEachIndex({8, Cols}, [&](llvm::ArrayRef<int64_t> X) {
          Indices O = *L.forward({R0 + X[0], X[1]});
          CHECK(O[1] == R0 / 8);
          Seen.insert({O[0], O[2]});
        });
        CHECK(int64_t(Seen.size()) == 8 * Cols);
      }
    }
  }
  // The checker does see conflicts: a plain 128-byte row-major tile.
  CHECK_FALSE(conflictFree(makeLinearLayout({8, 64}), 16));
  CHECK(conflictFree(makeGemmABLayoutPadded(32, 64, 16), 16));
  CHECK(*makeGemmABLayoutPadded(32, 64, 16).isInjective());
}

TEST_CASE("gemm operand layout choice", "[layout][swizzle]") {
  CHECK(chooseSwizzle(128, 64, 16) == SwizzleKind::Full128B);
  CHECK(chooseSwizzle(128, 32, 16) == SwizzleKind::Half64B);
  CHECK(chooseSwizzle(128, 16, 16) == SwizzleKind::Quarter32B);
  CHECK(chooseSwizzle(128, 8, 16) == SwizzleKind::None);
  CHECK(chooseSwizzle(12, 64, 16) == SwizzleKind::None);
  CHECK(makeGemmABLayout(128, 32, 16, true)
            .isEquivalent(makeHalfBankSwizzleLayout(128, 32, 16))
            .value());
  CHECK(makeGemmABLayout(32, 64, 8, false)
            .isEquivalent(makeGemmABLayoutPadded(32, 64, 8))
            .value());
  Layout Pad = makeGemmABLayout(16, 8, 16, true);
  CHECK(toString(Pad.getForwardIndex()[0]) == "i * 8 + j");
  CHECK(toString(makeGemmABLayoutPadded(16, 64, 16).getForwardIndex()[0]) ==
        "i * 72 + j");
  CHECK(makeFullBankSwizzleLayout(8, 64, 16).toString() ==
        "Layout([8, 64] -> [1, 1, 512], transform: [i, j] -> "
        "[0, 0, i * 64 + (i ^ j // 8) * 8 + j % 8])");
}

//===----------------------------------------------------------------------===//
// Default CUDA-core fragments
//===----------------------------------------------------------------------===//

TEST_CASE("default parallel fragment", "[layout][fragment]") {
  Fragment F = makeDefaultFragment({64, 128}, 256, 4);
  CHECK(F.toString() ==
        "Fragment([64, 128] -> [32], replicate: 1, thread: 256, "
        "forward_thread: i % 8 * 32 + j // 4, forward_index: "
        "[i // 8 * 4 + j % 4])");
  CHECK(*F.isBijective());
  forEachIndex({64, 128}, [&](llvm::ArrayRef<int64_t> X) {
    int64_t Flat = X[0] * 128 + X[1];
    REQUIRE(*F.forwardThread(X) == (Flat / 4) % 256);
    REQUIRE((*F.forward(X))[0] == (Flat / 1024) * 4 + Flat % 4);
  });
  auto Inv = F.inverse();
  REQUIRE(Inv);
  forEachIndex({64, 128}, [&](llvm::ArrayRef<int64_t> X) {
    Indices Out = *F.asThreadLayout().forward(X);
    REQUIRE(*Inv->forward(Out) == Indices(X.begin(), X.end()));
  });
}

TEST_CASE("broadcast row vector fragment", "[layout][fragment]") {
  struct Config {
    int64_t Rows, Cols, Threads, Vec;
  } Configs[] = {{64, 32, 128, 4}, {16, 512, 128, 2}, {128, 8, 64, 1}};
  for (const Config &C : Configs) {
    Fragment Full = makeDefaultFragment({C.Rows, C.Cols}, C.Threads, C.Vec);
    Fragment Row = makeBroadcastRowFragment(C.Rows, C.Cols, C.Threads, C.Vec);
    INFO(Row.toString());
    CHECK(*Row.isBijective());
    for (int64_t I = 0; I < C.Rows; ++I) {
      std::set<int64_t> Holders, Owners;
      for (int64_t R = 0; R < Row.getReplicateSize(); ++R)
        Holders.insert(*Row.forwardThread({I}, R));
      for (int64_t J = 0; J < C.Cols; ++J)
        Owners.insert(*Full.forwardThread({I, J}));
      REQUIRE(Holders == Owners);
    }
  }
}
