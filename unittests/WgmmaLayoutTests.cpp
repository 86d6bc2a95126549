//===- WgmmaLayoutTests.cpp - wgmma layouts against the PTX ISA -----------===//
//
// The references here are written from the PTX ISA's definitions
// ("Asynchronous Warpgroup Level Matrix Shared Memory Layout", "Matrix
// Descriptor", "Register Fragments"), independently of the library:
// - a shared-memory operand is read at the addresses the hardware computes
//   from the descriptor (start address, LBO, SBO, swizzle mode), with the
//   swizzle applied to the absolute address bits: address bits [4, 4+b) are
//   xored with bits [7, 7+b) (b = 3, 2, 1 for 128, 64, 32 bytes);
// - the accumulator and A register fragments follow the per-lane tables.
// Every element of every instruction tile of a tile is checked.
//
//===----------------------------------------------------------------------===//

#include "tilec/Layout/WgmmaLayouts.h"
#include <catch2/catch.hpp>
#include <set>

using namespace tilec::layout;

namespace {

/// Where the layouts place the buffer: any atom-aligned address.
constexpr int64_t Base = 4096;

int64_t flatOffset(const Layout &L, int64_t I, int64_t J) {
  auto Out = L.forward({I, J});
  REQUIRE(Out);
  int64_t Flat = 0;
  for (unsigned D = 0; D != Out->size(); ++D)
    Flat = Flat * L.getOutputShape()[D] + (*Out)[D];
  return Flat;
}

/// The hardware's swizzle of an absolute shared-memory address.
int64_t swizzleAddress(int64_t Addr, int64_t SwizzleBytes) {
  int64_t Bits = SwizzleBytes == 128  ? 3
                 : SwizzleBytes == 64 ? 2
                 : SwizzleBytes == 32 ? 1
                                      : 0;
  int64_t Mask = (int64_t(1) << Bits) - 1;
  return Addr ^ (((Addr >> 7) & Mask) << 4);
}

struct Descriptor {
  int64_t Start, LBO, SBO, Swizzle;
};

/// Decodes the 64-bit descriptor (start address from \p Start).
Descriptor decode(uint64_t Fields, int64_t Start) {
  int64_t Mode = int64_t(Fields >> 62);
  int64_t Swizzle = Mode == 1 ? 128 : Mode == 2 ? 64 : Mode == 3 ? 32 : 0;
  return {Start, int64_t((Fields >> 16) & 0x3FFF) << 4,
          int64_t((Fields >> 32) & 0x3FFF) << 4, Swizzle};
}

/// Byte address the hardware reads for element (mn, k) of the instruction
/// tile (K-major: the 16-byte chunk of k; MN-major: of M or N).
int64_t hardwareAddress(const Descriptor &D, bool KMajor, int64_t MN, int64_t K,
                        int64_t ElemBytes) {
  int64_t Addr;
  if (KMajor) {
    int64_t KByte = K * ElemBytes;
    if (D.Swizzle)
      Addr = D.Start + MN / 8 * D.SBO + MN % 8 * D.Swizzle + KByte;
    else
      Addr = D.Start + MN / 8 * D.SBO + MN % 8 * 16 + KByte / 16 * D.LBO +
             KByte % 16;
  } else {
    int64_t MNByte = MN * ElemBytes;
    if (D.Swizzle)
      Addr = D.Start + MNByte / D.Swizzle * D.LBO + K / 8 * D.SBO +
             K % 8 * D.Swizzle + MNByte % D.Swizzle;
    else
      Addr = D.Start + MNByte / 16 * D.SBO + K / 8 * D.LBO + K % 8 * 16 +
             MNByte % 16;
  }
  return swizzleAddress(Addr, D.Swizzle);
}

/// Checks every element of every instruction tile (InstrMN x k) of a
/// [Rows, Cols] tile stored with \p L.
void checkAgainstDescriptor(const WgmmaSharedLayout &W, int64_t InstrMN) {
  CAPTURE(W.Major == WgmmaMajor::K, W.SwizzleBytes, W.Rows, W.Cols, W.ElemBits,
          InstrMN);
  Layout L = W.layout();
  REQUIRE(*L.isBijective());
  bool KMajor = W.Major == WgmmaMajor::K;
  int64_t Eb = W.ElemBits / 8, InstrK = wgmmaInstructionK(W.ElemBits);
  int64_t MNExtent = KMajor ? W.Rows : W.Cols;
  int64_t KExtent = KMajor ? W.Cols : W.Rows;
  auto Stored = [&](int64_t MN, int64_t K) {
    return KMajor ? std::pair{MN, K} : std::pair{K, MN};
  };
  int64_t Mismatches = 0;
  for (int64_t MN0 = 0; MN0 < MNExtent; MN0 += InstrMN)
    for (int64_t K0 = 0; K0 < KExtent; K0 += InstrK) {
      auto [I0, J0] = Stored(MN0, K0);
      Descriptor D =
          decode(W.descriptorFields(), Base + flatOffset(L, I0, J0) * Eb);
      for (int64_t MN = 0; MN != InstrMN; ++MN)
        for (int64_t K = 0; K != InstrK; ++K) {
          auto [I, J] = Stored(MN0 + MN, K0 + K);
          int64_t Expected = Base + flatOffset(L, I, J) * Eb;
          // The element's first byte, and its last (a whole element moves).
          Mismatches += hardwareAddress(D, KMajor, MN, K, Eb) != Expected;
        }
    }
  CHECK(Mismatches == 0);
}

} // namespace

TEST_CASE("wgmma K-major layouts match the descriptor", "[layout][wgmma]") {
  for (int64_t Bits : {16, 8, 32})
    for (int64_t S : {128, 64, 32, 0}) {
      int64_t KBytes = S ? S * 2 : 64; // two atom columns
      int64_t Cols = KBytes * 8 / Bits;
      for (int64_t Rows : {64, 128})
        checkAgainstDescriptor({WgmmaMajor::K, S, Rows, Cols, Bits}, 64);
      // B [N, K] with instruction tiles of N = 8 and 24 rows.
      checkAgainstDescriptor({WgmmaMajor::K, S, 48, Cols, Bits}, 8);
      checkAgainstDescriptor({WgmmaMajor::K, S, 48, Cols, Bits}, 24);
    }
}

TEST_CASE("wgmma MN-major layouts match the descriptor", "[layout][wgmma]") {
  // MN-major exists for 16-bit types only.
  for (int64_t S : {128, 64, 32, 0}) {
    int64_t AtomCols = S ? S / 2 : 8;
    for (int64_t K : {16, 32, 64}) {
      // A [K, M]: instruction M = 64, two of them.
      if (S == 128 || S == 0)
        checkAgainstDescriptor({WgmmaMajor::MN, S, K, 128, 16}, 64);
      // B [K, N]: instruction N of one, two and three atoms.
      for (int64_t Atoms : {1, 2, 3})
        checkAgainstDescriptor({WgmmaMajor::MN, S, K, AtomCols * Atoms * 2, 16},
                               AtomCols * Atoms);
    }
  }
}

TEST_CASE("wgmma swizzle choice", "[layout][wgmma]") {
  // K-major: by the k extent in bytes.
  CHECK(chooseWgmmaSwizzle(128, 64, 64, 16) == 128);
  CHECK(chooseWgmmaSwizzle(128, 32, 32, 16) == 64);
  CHECK(chooseWgmmaSwizzle(128, 16, 16, 16) == 32);
  CHECK(chooseWgmmaSwizzle(128, 96, 96, 16) == 64);
  CHECK(chooseWgmmaSwizzle(128, 32, 32, 8) == 32);
  CHECK(chooseWgmmaSwizzle(128, 64, 64, 32) == 128);
  // MN-major: by the instruction's extent.
  CHECK(chooseWgmmaSwizzle(32, 256, 128, 16) == 128);
  CHECK(chooseWgmmaSwizzle(32, 96, 96, 16) == 64);
  CHECK(chooseWgmmaSwizzle(32, 96, 48, 16) == 32);
  CHECK(chooseWgmmaSwizzle(32, 16, 8, 16) == 0);
  CHECK_FALSE(chooseWgmmaSwizzle(12, 64, 64, 16));
  CHECK_FALSE(chooseWgmmaSwizzle(32, 64, 48, 16));
}

TEST_CASE("wgmma layout annotations read back", "[layout][wgmma]") {
  WgmmaSharedLayout W{WgmmaMajor::MN, 64, 32, 96, 16};
  std::string Text = W.annotation("B_shared");
  CHECK(Text == "make_wgmma_layout(B_shared, k_major=0, swizzle=64)");
  auto Back = parseWgmmaLayoutText(Text, 32, 96, 16);
  REQUIRE(Back);
  CHECK(Back->Major == WgmmaMajor::MN);
  CHECK(Back->SwizzleBytes == 64);
  CHECK(*Back->layout().isEquivalent(W.layout()));
  CHECK_FALSE(parseWgmmaLayoutText(Text, 32, 80, 16));
  CHECK_FALSE(parseWgmmaLayoutText("make_swizzled_layout(B)", 32, 96, 16));
  // Descriptor fields: SW128 K-major tile of 128 rows.
  WgmmaSharedLayout A{WgmmaMajor::K, 128, 128, 64, 16};
  CHECK(A.strideByteOffset() == 1024);
  CHECK(A.descriptorFields() ==
        ((uint64_t(1) << 62) | (uint64_t(64) << 32) | (uint64_t(1) << 16)));
}

namespace {

/// Element (row, col) of register R of thread T per the PTX table of the
/// m64nN accumulator, for the block-level split (warpgroups interleaved as
/// the header says, instruction tiles numbered along N first).
std::pair<int64_t, int64_t> ptxAccumulator(int64_t T, int64_t R, int64_t M,
                                           int64_t N, int64_t MW, int64_t NW,
                                           int64_t InstrN) {
  int64_t Wg = T / 128, Warp = T / 32 % 4, Lane = T % 32;
  int64_t WgM = M / MW, WgN = N / NW;
  int64_t Tile = R / (InstrN / 2), InTile = R % (InstrN / 2);
  int64_t Mi = Tile / (WgN / InstrN), Ni = Tile % (WgN / InstrN);
  int64_t Row =
      Wg % MW * WgM + Mi * 64 + Warp * 16 + Lane / 4 + 8 * (InTile % 4 / 2);
  int64_t Col =
      Wg / MW * WgN + Ni * InstrN + InTile / 4 * 8 + Lane % 4 * 2 + InTile % 2;
  return {Row, Col};
}

/// The A fragment's (row, k) of register element R of thread T.
std::pair<int64_t, int64_t> ptxA(int64_t T, int64_t R, int64_t M, int64_t K,
                                 int64_t MW, int64_t Bits) {
  int64_t V = 32 / Bits, InstrK = 256 / Bits;
  int64_t Wg = T / 128 % MW, Warp = T / 32 % 4, Lane = T % 32;
  int64_t Tile = R / (4 * V), InTile = R % (4 * V);
  int64_t Mi = Tile / (K / InstrK), Ks = Tile % (K / InstrK);
  int64_t Reg = InTile / V, E = InTile % V;
  int64_t Row = Wg * (M / MW) + Mi * 64 + Warp * 16 + Lane / 4 + 8 * (Reg % 2);
  int64_t Kv = Ks * InstrK + (Reg / 2) * (InstrK / 2) + Lane % 4 * V + E;
  return {Row, Kv};
}

} // namespace

TEST_CASE("wgmma accumulator fragment matches the PTX ISA", "[layout][wgmma]") {
  struct Case {
    int64_t M, N, MW, NW, InstrN;
  };
  for (Case C : {Case{64, 8, 1, 1, 8}, Case{128, 128, 1, 1, 128},
                 Case{128, 256, 2, 1, 256}, Case{128, 256, 1, 2, 128},
                 Case{256, 128, 2, 1, 64}, Case{192, 96, 3, 1, 96}}) {
    CAPTURE(C.M, C.N, C.MW, C.NW, C.InstrN);
    Fragment F = makeWgmmaFragmentC(C.M, C.N, C.MW, C.NW, C.InstrN);
    int64_t Threads = 128 * C.MW * C.NW, Regs = C.M * C.N / Threads;
    CHECK(F.getThreadExtent() == Threads);
    CHECK(F.getRegisterCount() == Regs);
    CHECK(*F.isBijective());
    int64_t Mismatches = 0;
    for (int64_t T = 0; T != Threads; ++T)
      for (int64_t R = 0; R != Regs; ++R) {
        auto [Row, Col] = ptxAccumulator(T, R, C.M, C.N, C.MW, C.NW, C.InstrN);
        Mismatches += F.forwardThread({Row, Col}) != T ||
                      (*F.forward({Row, Col}))[0] != R;
      }
    CHECK(Mismatches == 0);
  }
}

TEST_CASE("wgmma A register fragment matches the PTX ISA", "[layout][wgmma]") {
  for (int64_t Bits : {16, 8, 32})
    for (auto [M, MW, NW] : {std::tuple{64, 1, 1}, std::tuple{128, 2, 1},
                             std::tuple{128, 1, 2}, std::tuple{128, 1, 1}}) {
      int64_t K = 2 * wgmmaInstructionK(Bits);
      CAPTURE(Bits, M, MW, NW);
      Fragment F = makeWgmmaFragmentA(M, K, MW, NW, Bits);
      int64_t Threads = 128 * MW * NW, Regs = M * K * NW / Threads;
      CHECK(F.getRegisterCount() == Regs);
      CHECK(*F.isBijective());
      int64_t Mismatches = 0;
      for (int64_t T = 0; T != Threads; ++T)
        for (int64_t R = 0; R != Regs; ++R) {
          auto [Row, Kv] = ptxA(T, R, M, K, MW, Bits);
          bool Held = false;
          for (int64_t Rep = 0; Rep != NW; ++Rep)
            Held |= F.forwardThread({Row, Kv}, Rep) == T;
          Mismatches += !Held || (*F.forward({Row, Kv}))[0] != R;
        }
      CHECK(Mismatches == 0);
    }
}
