//===- Inverse.cpp - Symbolic inverse of bit-linear layouts ---------------===//
//
// When every extent is a power of two, an index is a bit vector, and the
// layouts built from power-of-two strides, floordiv, floormod and xor are
// linear maps over GF(2) on those bits. We recover the matrix from the
// images of the unit vectors, confirm linearity by enumeration, invert it
// by Gauss-Jordan elimination and print each input bit run as a xor of
// output bit fields: input = sum_k ((o_d // 2^b) % 2^w ^ ...) * 2^k.
//
//===----------------------------------------------------------------------===//

#include "tilec/Layout/Layout.h"
#include "llvm/Support/MathExtras.h"

using namespace tilec::layout;

namespace {

/// Bit offsets of each dimension in the concatenated bit vector.
struct BitSpace {
  llvm::SmallVector<unsigned, 4> Offset, Width;
  unsigned Total = 0;

  static std::optional<BitSpace> of(llvm::ArrayRef<int64_t> Shape) {
    BitSpace S;
    for (int64_t E : Shape) {
      if (E <= 0 || !llvm::isPowerOf2_64(E))
        return std::nullopt;
      S.Offset.push_back(S.Total);
      S.Width.push_back(llvm::Log2_64(E));
      S.Total += S.Width.back();
    }
    if (S.Total > 62)
      return std::nullopt;
    return S;
  }

  uint64_t pack(llvm::ArrayRef<int64_t> Idx) const {
    uint64_t Bits = 0;
    for (size_t D = 0; D < Idx.size(); ++D)
      Bits |= uint64_t(Idx[D]) << Offset[D];
    return Bits;
  }

  Indices unpack(uint64_t Bits) const {
    Indices Idx;
    for (size_t D = 0; D < Offset.size(); ++D)
      Idx.push_back((Bits >> Offset[D]) & ((uint64_t(1) << Width[D]) - 1));
    return Idx;
  }

  /// The bits that are the top bit of their dimension.
  uint64_t topBits() const {
    uint64_t M = 0;
    for (size_t D = 0; D < Offset.size(); ++D)
      if (Width[D])
        M |= uint64_t(1) << (Offset[D] + Width[D] - 1);
    return M;
  }

  unsigned dimOf(unsigned Bit) const {
    unsigned D = 0;
    while (D + 1 < Offset.size() && Offset[D + 1] <= Bit)
      ++D;
    return D;
  }
};

/// Column K = image of input bit K; nullopt unless the map is linear.
std::optional<llvm::SmallVector<uint64_t, 32>>
bitMatrix(const Layout &L, const BitSpace &In, const BitSpace &Out) {
  llvm::SmallVector<uint64_t, 32> Cols;
  for (unsigned K = 0; K < In.Total; ++K) {
    auto Img = L.forward(In.unpack(uint64_t(1) << K));
    if (!Img)
      return std::nullopt;
    Cols.push_back(Out.pack(*Img));
  }
  bool Linear = true;
  forEachIndex(L.getInputShape(), [&](llvm::ArrayRef<int64_t> Idx) {
    if (!Linear)
      return;
    uint64_t Bits = In.pack(Idx), Expect = 0;
    for (unsigned K = 0; K < In.Total; ++K)
      if (Bits >> K & 1)
        Expect ^= Cols[K];
    auto Img = L.forward(Idx);
    Linear = Img && Out.pack(*Img) == Expect;
  });
  if (!Linear)
    return std::nullopt;
  return Cols;
}

/// Row K of the result = the output bits whose xor is input bit K.
std::optional<llvm::SmallVector<uint64_t, 32>>
invertBits(llvm::ArrayRef<uint64_t> Cols, unsigned N) {
  llvm::SmallVector<uint64_t, 32> Rows(N, 0), Aug(N, 0);
  for (unsigned O = 0; O < N; ++O) {
    for (unsigned K = 0; K < N; ++K)
      Rows[O] |= (Cols[K] >> O & 1) << K;
    Aug[O] = uint64_t(1) << O;
  }
  for (unsigned K = 0; K < N; ++K) {
    unsigned P = K;
    while (P < N && !(Rows[P] >> K & 1))
      ++P;
    if (P == N)
      return std::nullopt;
    std::swap(Rows[P], Rows[K]);
    std::swap(Aug[P], Aug[K]);
    for (unsigned R = 0; R < N; ++R)
      if (R != K && (Rows[R] >> K & 1)) {
        Rows[R] ^= Rows[K];
        Aug[R] ^= Aug[K];
      }
  }
  return Aug;
}

/// (o_d // 2^B) % 2^W, without the parts that are no-ops.
IndexExpr bitField(const BitSpace &Out, unsigned Bit, unsigned W) {
  unsigned D = Out.dimOf(Bit), B = Bit - Out.Offset[D];
  IndexExpr F = Layout::inputVar(D);
  if (B)
    F = floorDiv(F, int64_t(1) << B);
  if (B + W < Out.Width[D])
    F = floorMod(F, int64_t(1) << W);
  return F;
}

IndexExpr runValue(const BitSpace &Out, uint64_t Mask, unsigned W) {
  IndexExpr V;
  for (unsigned Bit = 0; Bit < Out.Total; ++Bit)
    if (Mask >> Bit & 1) {
      IndexExpr F = bitField(Out, Bit, W);
      V = V ? bitXor(V, F) : F;
    }
  return V ? V : IndexExpr(0);
}

/// Input dimension D of the forward map as a function of the outputs.
IndexExpr inputExpr(const BitSpace &In, const BitSpace &Out,
                    llvm::ArrayRef<uint64_t> Rows, unsigned D) {
  IndexExpr Sum = 0;
  uint64_t Top = Out.topBits();
  unsigned K = 0;
  while (K < In.Width[D]) {
    uint64_t Start = Rows[In.Offset[D] + K];
    unsigned W = 1;
    while (K + W < In.Width[D] && !(Rows[In.Offset[D] + K + W - 1] & Top) &&
           Rows[In.Offset[D] + K + W] == Rows[In.Offset[D] + K + W - 1] << 1)
      ++W;
    Sum = Sum + runValue(Out, Start, W) * (int64_t(1) << K);
    K += W;
  }
  return Sum;
}

} // namespace

std::optional<Layout> Layout::inverse() const {
  auto In = BitSpace::of(InputShape);
  auto Out = BitSpace::of(OutputShape);
  if (!In || !Out || In->Total != Out->Total ||
      shapeSize(InputShape) > DefaultEnumerationLimit)
    return std::nullopt;
  auto Cols = bitMatrix(*this, *In, *Out);
  if (!Cols)
    return std::nullopt;
  auto Rows = invertBits(*Cols, In->Total);
  if (!Rows)
    return std::nullopt;
  llvm::SmallVector<IndexExpr, 4> Exprs;
  for (unsigned D = 0; D < InputShape.size(); ++D)
    Exprs.push_back(inputExpr(*In, *Out, *Rows, D));
  return Layout(OutputShape, Exprs);
}
