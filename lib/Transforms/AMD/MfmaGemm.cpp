//===- MfmaGemm.cpp - How a T.gemm maps onto AMD MFMA ---------------------===//

#include "MfmaGemm.h"
#include "GemmLayout.h"
#include <fmt/format.h>

using namespace tilec;
using namespace tilec::ir;
using layout::IndexExpr;
using layout::MfmaShape;

static bool instructionExists(const MmaPlan &P, int64_t Tile, int64_t K) {
  switch (P.In) {
  case DType::Float16:
  case DType::BFloat16:
    return P.Acc == DType::Float32 &&
           ((Tile == 16 && K == 16) || (Tile == 32 && K == 8));
  case DType::Int8:
    return P.Acc == DType::Int32 && Tile == 16 && (K == 16 || K == 32);
  case DType::Float8E4M3FNUZ:
  case DType::Float8E5M2FNUZ:
    return P.Acc == DType::Float32 &&
           ((Tile == 16 && K == 32) || (Tile == 32 && K == 16));
  default:
    return false;
  }
}

/// Every instruction reads at least a byte per lane, so a pack of more
/// than 16 instructions never fits; the cap also keeps absurd k_pack
/// values from overflowing the arithmetic below.
constexpr int64_t MaxKPack = 16;

/// A lane's run of one pack must be one vcopy: 1 to 16 bytes, a power of
/// two.
static bool packFits(const MmaPlan &P, MfmaShape S) {
  if (S.KPack < 1 || S.KPack > MaxKPack)
    return false;
  int64_t Bytes = S.packElems() * bitWidth(P.In) / 8;
  return Bytes <= 16 && (Bytes & (Bytes - 1)) == 0;
}

bool tilec::mfmaShapeSupported(const MmaPlan &P, MfmaShape S) {
  return instructionExists(P, S.Tile, S.K) && packFits(P, S);
}

std::string tilec::mfmaInstruction(DType In, int64_t Tile, int64_t K) {
  if (In == DType::Int8)
    return K == 32 ? "i32_16x16x32_i8" : "i32_16x16x16i8";
  if (isFnuz(In))
    return fmt::format("f32_{0}x{0}x{1}_{2}", Tile, K,
                       In == DType::Float8E4M3FNUZ ? "fp8_fp8" : "bf8_bf8");
  return fmt::format("f32_{0}x{0}x{1}{2}", Tile, K,
                     In == DType::BFloat16 ? "bf16_1k" : "f16");
}

/// The instruction shapes for the gemm's dtypes on \p Tgt, preferred first.
static std::vector<MfmaShape> candidateShapes(const MmaPlan &P,
                                              const Target &Tgt) {
  if (P.In == DType::Int8)
    return {{16, Tgt.MfmaInt8K}};
  if (isFnuz(P.In))
    return Tgt.MfmaFp8 ? std::vector<MfmaShape>{{32, 16}, {16, 32}}
                       : std::vector<MfmaShape>{};
  return {{32, 8}, {16, 16}};
}

/// The plan of \p Gemm with \p KPack instructions per pack, or nullopt.
static std::optional<MmaPlan> planWithPack(const Operation &Gemm,
                                           const Target &Tgt, int64_t Threads,
                                           int64_t KPack) {
  auto P = readShape(Gemm);
  auto Policy =
      parseGemmPolicy(Gemm.getStringAttr("policy").value_or("Square"));
  if (!P || !Policy || Threads % layout::MfmaWaveSize != 0)
    return std::nullopt;
  for (MfmaShape S : candidateShapes(*P, Tgt)) {
    S.KPack = KPack;
    if (!mfmaShapeSupported(*P, S) || P->K % S.packK() != 0)
      continue;
    auto W = layout::computeWarpPartition(
        P->M, P->N, Threads / layout::MfmaWaveSize, *Policy, S.Tile, S.Tile);
    if (!W)
      continue;
    P->Mfma = S;
    P->MWarps = W->MWarps;
    P->NWarps = W->NWarps;
    return P;
  }
  return std::nullopt;
}

static int64_t kPackOf(const Operation &Gemm) {
  return Gemm.getIntAttr("k_pack").value_or(1);
}

std::optional<MmaPlan> tilec::planMfmaGemm(const Operation &Gemm,
                                           const Target &Tgt, int64_t Threads) {
  return planWithPack(Gemm, Tgt, Threads, kPackOf(Gemm));
}

std::optional<std::string> tilec::mfmaKPackProblem(const Operation &Gemm,
                                                   const Target &Tgt,
                                                   int64_t Threads) {
  int64_t KPack = kPackOf(Gemm);
  if (KPack == 1 || planWithPack(Gemm, Tgt, Threads, KPack))
    return std::nullopt;
  auto Plain = planWithPack(Gemm, Tgt, Threads, 1);
  if (!Plain)
    return std::nullopt;
  MfmaShape S = *Plain->Mfma;
  S.KPack = KPack;
  std::string Bytes =
      KPack > MaxKPack
          ? std::string("more than 16")
          : std::to_string(S.packElems() * bitWidth(Plain->In) / 8);
  if (!packFits(*Plain, S))
    return fmt::format("k_pack={0} makes a lane read {1} bytes of each "
                       "operand per pack of v_mfma_{2}; MFMA operands are "
                       "read with one load of at most 16 bytes "
                       "(ds_read_b128), so k_pack must keep it a power of "
                       "two up to 16",
                       KPack, Bytes, mfmaInstruction(Plain->In, S.Tile, S.K));
  return fmt::format("k_pack={0} needs K ({1}) to be a multiple of k_pack "
                     "times the k of v_mfma_{2} ({3})",
                     KPack, Plain->K, mfmaInstruction(Plain->In, S.Tile, S.K),
                     S.packK());
}

//===----------------------------------------------------------------------===//
// Instruction tiles
//===----------------------------------------------------------------------===//
// The lane layouts of MfmaLayouts.h evaluated at lane "lane" and element
// E, offset by the tile's place in the block: wavefronts interleave at
// instruction-tile granularity, as in the block fragments.

/// Coordinates of (lane, E) in layout \p L, plus the tile origin.
static TileCoords laneCoords(const layout::Layout &L, int64_t E, IndexExpr Row0,
                             IndexExpr Col0) {
  layout::VarMap Map;
  Map["i"] = IndexExpr::var("lane");
  Map["j"] = IndexExpr(E);
  llvm::ArrayRef<IndexExpr> F = L.getForwardIndex();
  return {Row0 + layout::substitute(F[0], Map),
          Col0 + layout::substitute(F[1], Map)};
}

static IndexExpr tileRow(const MmaPlan &P, IndexExpr Mi) {
  return Mi * (P.tileM() * P.MWarps) + IndexExpr::var("wm") * P.tileM();
}
static IndexExpr tileCol(const MmaPlan &P, IndexExpr Ni) {
  return Ni * (P.tileN() * P.NWarps) + IndexExpr::var("wn") * P.tileN();
}

TileCoords tilec::mfmaCoordC(const MmaPlan &P, IndexExpr Mi, IndexExpr Ni,
                             int64_t E) {
  return laneCoords(layout::makeMfmaLaneLayoutC(*P.Mfma), E, tileRow(P, Mi),
                    tileCol(P, Ni));
}

TileCoords tilec::mfmaCoordA(const MmaPlan &P, IndexExpr Mi, IndexExpr Ks,
                             int64_t E) {
  TileCoords C = laneCoords(layout::makeMfmaLaneLayoutA(*P.Mfma), E,
                            tileRow(P, Mi), Ks * P.stepK());
  if (P.TransA)
    return {C.Col, C.Row};
  return C;
}

TileCoords tilec::mfmaCoordB(const MmaPlan &P, IndexExpr Ni, IndexExpr Ks,
                             int64_t E) {
  TileCoords C = laneCoords(layout::makeMfmaLaneLayoutB(*P.Mfma), E,
                            Ks * P.stepK(), tileCol(P, Ni));
  if (P.TransB)
    return {C.Col, C.Row};
  return C;
}
