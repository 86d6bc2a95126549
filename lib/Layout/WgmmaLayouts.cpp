//===- WgmmaLayouts.cpp - Hopper wgmma operand and fragment layouts -------===//

#include "tilec/Layout/WgmmaLayouts.h"
#include "tilec/Layout/Swizzle.h"
#include <cassert>

using namespace tilec::layout;

static int64_t chunkElems(int64_t ElemBits) { return 128 / ElemBits; }

/// Whether the canonical layout with SwizzleBytes (0: interleaved) exists
/// for a [Rows, Cols] tile.
static bool fitsWgmmaLayout(int64_t Rows, int64_t Cols, int64_t ElemBits,
                            int64_t SwizzleBytes) {
  if (ElemBits <= 0 || 128 % ElemBits != 0 || Rows <= 0 || Rows % 8 != 0 ||
      Cols <= 0)
    return false;
  int64_t RowBytes = Cols * ElemBits / 8;
  return RowBytes % (SwizzleBytes ? SwizzleBytes : 16) == 0;
}

Layout WgmmaSharedLayout::layout() const {
  assert(fitsWgmmaLayout(Rows, Cols, ElemBits, SwizzleBytes) &&
         "tile does not fit the wgmma layout");
  switch (SwizzleBytes) {
  case 128:
    return makeFullBankSwizzleLayout(Rows, Cols, ElemBits);
  case 64:
    return makeHalfBankSwizzleLayout(Rows, Cols, ElemBits);
  case 32:
    return makeQuarterBankSwizzleLayout(Rows, Cols, ElemBits);
  default:
    break;
  }
  // Interleaved: 8 x 16-byte core matrices down the rows, then the next
  // 16 bytes of columns.
  int64_t T = chunkElems(ElemBits);
  IndexExpr I = Layout::inputVar(0), J = Layout::inputVar(1);
  return Layout({Rows, Cols}, {floorDiv(J, T), I * T + floorMod(J, T)});
}

/// Bytes between the column blocks of the layout: all rows of one atom
/// (or core-matrix) column.
static int64_t columnBlockBytes(const WgmmaSharedLayout &L) {
  return L.Rows * (L.SwizzleBytes ? L.SwizzleBytes : 16);
}

int64_t WgmmaSharedLayout::leadingByteOffset() const {
  if (Major == WgmmaMajor::K)
    // Swizzled K-major layouts do not use it ("assumed 1": 16 bytes).
    return SwizzleBytes ? 16 : columnBlockBytes(*this);
  return SwizzleBytes ? columnBlockBytes(*this) : 128;
}

int64_t WgmmaSharedLayout::strideByteOffset() const {
  if (Major == WgmmaMajor::MN && !SwizzleBytes)
    return columnBlockBytes(*this);
  return SwizzleBytes ? 8 * SwizzleBytes : 128;
}

int64_t WgmmaSharedLayout::descriptorMode() const {
  switch (SwizzleBytes) {
  case 128:
    return 1;
  case 64:
    return 2;
  case 32:
    return 3;
  default:
    return 0;
  }
}

uint64_t WgmmaSharedLayout::descriptorFields() const {
  auto Encode = [](int64_t Bytes) { return uint64_t(Bytes & 0x3FFFF) >> 4; };
  return Encode(leadingByteOffset()) << 16 | Encode(strideByteOffset()) << 32 |
         uint64_t(descriptorMode()) << 62;
}

int64_t WgmmaSharedLayout::alignment() const {
  return SwizzleBytes ? 8 * SwizzleBytes : 128;
}

std::string WgmmaSharedLayout::annotation(llvm::StringRef Name) const {
  return "make_wgmma_layout(" + Name.str() +
         ", k_major=" + (Major == WgmmaMajor::K ? "1" : "0") +
         ", swizzle=" + std::to_string(SwizzleBytes) + ")";
}

bool tilec::layout::wgmmaSwizzleFits(int64_t Rows, int64_t Cols,
                                     int64_t InstrCols, int64_t ElemBits,
                                     int64_t SwizzleBytes) {
  return InstrCols > 0 && Cols % InstrCols == 0 &&
         fitsWgmmaLayout(Rows, Cols, ElemBits, SwizzleBytes) &&
         fitsWgmmaLayout(Rows, InstrCols, ElemBits, SwizzleBytes);
}

std::optional<int64_t> tilec::layout::chooseWgmmaSwizzle(int64_t Rows,
                                                         int64_t Cols,
                                                         int64_t InstrCols,
                                                         int64_t ElemBits) {
  for (int64_t S : {128, 64, 32, 0})
    if (wgmmaSwizzleFits(Rows, Cols, InstrCols, ElemBits, S))
      return S;
  return std::nullopt;
}

/// The integer after `Key=` in \p Args, or nullopt.
static std::optional<int64_t> argument(llvm::StringRef Args,
                                       llvm::StringRef Key) {
  llvm::SmallVector<llvm::StringRef, 4> Parts;
  Args.split(Parts, ',');
  for (llvm::StringRef P : Parts) {
    auto [K, V] = P.trim().split('=');
    int64_t Value;
    if (K.trim() == Key && !V.trim().getAsInteger(10, Value))
      return Value;
  }
  return std::nullopt;
}

std::optional<WgmmaSharedLayout>
tilec::layout::parseWgmmaLayoutText(llvm::StringRef Text, int64_t Rows,
                                    int64_t Cols, int64_t ElemBits) {
  llvm::StringRef Args = Text.trim();
  if (!Args.consume_front("make_wgmma_layout(") || !Args.consume_back(")"))
    return std::nullopt;
  auto KMajor = argument(Args, "k_major");
  auto Swizzle = argument(Args, "swizzle");
  if (!KMajor || !Swizzle || (*KMajor != 0 && *KMajor != 1) ||
      (*Swizzle != 0 && *Swizzle != 32 && *Swizzle != 64 && *Swizzle != 128) ||
      !fitsWgmmaLayout(Rows, Cols, ElemBits, *Swizzle))
    return std::nullopt;
  return WgmmaSharedLayout{*KMajor ? WgmmaMajor::K : WgmmaMajor::MN, *Swizzle,
                           Rows, Cols, ElemBits};
}

int64_t tilec::layout::wgmmaInstructionK(int64_t ElemBits) {
  assert((ElemBits == 8 || ElemBits == 16 || ElemBits == 32) &&
         "wgmma operands are 8, 16 or 32 bits wide");
  return 256 / ElemBits;
}

Fragment tilec::layout::makeWgmmaFragmentC(int64_t M, int64_t N,
                                           int64_t MWarpgroups,
                                           int64_t NWarpgroups,
                                           int64_t InstrN) {
  int64_t WgM = M / MWarpgroups, WgN = N / NWarpgroups;
  assert(M % MWarpgroups == 0 && WgM % 64 == 0 && N % NWarpgroups == 0 &&
         WgN % InstrN == 0 && InstrN % 8 == 0 &&
         "the tile must split into 64 x InstrN instruction tiles");
  IndexExpr I = Layout::inputVar(0), J = Layout::inputVar(1);
  IndexExpr Row = floorMod(I, WgM), Col = floorMod(J, WgN);
  IndexExpr Warpgroup = floorDiv(J, WgN) * MWarpgroups + floorDiv(I, WgM);
  IndexExpr InTile = floorMod(Col, InstrN);
  IndexExpr Lane = floorMod(Row, 8) * 4 + floorDiv(floorMod(InTile, 8), 2);
  IndexExpr Thread =
      Warpgroup * 128 + floorDiv(floorMod(Row, 64), 16) * 32 + Lane;
  IndexExpr Tile = floorDiv(Row, 64) * (WgN / InstrN) + floorDiv(Col, InstrN);
  IndexExpr Reg = Tile * (InstrN / 2) + floorDiv(InTile, 8) * 4 +
                  floorDiv(floorMod(Row, 16), 8) * 2 + floorMod(InTile, 2);
  return Fragment({M, N}, {Reg}, Thread);
}

Fragment tilec::layout::makeWgmmaFragmentA(int64_t M, int64_t K,
                                           int64_t MWarpgroups,
                                           int64_t NWarpgroups,
                                           int64_t ElemBits) {
  int64_t WgM = M / MWarpgroups, InstrK = wgmmaInstructionK(ElemBits);
  int64_t V = 32 / ElemBits;
  assert(M % MWarpgroups == 0 && WgM % 64 == 0 && K % InstrK == 0 &&
         "A must split into 64 x k instruction tiles");
  IndexExpr I = Layout::inputVar(0), J = Layout::inputVar(1);
  IndexExpr Row = floorMod(I, WgM), InK = floorMod(J, InstrK);
  IndexExpr Rep = NWarpgroups > 1 ? Fragment::replicateVar() : IndexExpr(0);
  IndexExpr Warpgroup = Rep * MWarpgroups + floorDiv(I, WgM);
  IndexExpr Lane =
      floorMod(Row, 8) * 4 + floorDiv(floorMod(InK, InstrK / 2), V);
  IndexExpr Thread =
      Warpgroup * 128 + floorDiv(floorMod(Row, 64), 16) * 32 + Lane;
  IndexExpr Tile = floorDiv(Row, 64) * (K / InstrK) + floorDiv(J, InstrK);
  IndexExpr Reg = Tile * (4 * V) + floorDiv(InK, InstrK / 2) * (2 * V) +
                  floorDiv(floorMod(Row, 16), 8) * V + floorMod(InK, V);
  return Fragment({M, K}, {Reg}, Thread, NWarpgroups);
}
