//===- MmaGemm.cpp - How a T.gemm maps onto mma.sync ----------------------===//

#include "MmaGemm.h"
#include "AMD/MfmaGemm.h"
#include "GemmLayout.h"

using namespace tilec;
using namespace tilec::ir;
using layout::floorDiv;
using layout::floorMod;
using layout::Fragment;
using layout::IndexExpr;

llvm::StringRef MmaPlan::shape() const {
  switch (inBits()) {
  case 4:
    return "m16n8k64";
  case 8:
    return "m16n8k32";
  case 16:
    return "m16n8k16";
  default:
    return "m16n8k8";
  }
}

Fragment MmaPlan::fragmentC() const {
  if (Mfma)
    return layout::makeMfmaFragmentC(M, N, warpM(), warpN(), *Mfma);
  return layout::makeGemmFragmentC(M, N, warpM(), warpN(), bitWidth(Acc));
}
Fragment MmaPlan::fragmentA() const {
  if (Mfma)
    return layout::makeMfmaFragmentA(M, N, K, warpM(), warpN(), *Mfma, TransA);
  return layout::makeGemmFragmentA(M, N, K, warpM(), warpN(), inBits(), TransA);
}
Fragment MmaPlan::fragmentB() const {
  if (Mfma)
    return layout::makeMfmaFragmentB(M, N, K, warpM(), warpN(), *Mfma, TransB);
  return layout::makeGemmFragmentB(M, N, K, warpM(), warpN(), inBits(), TransB);
}

/// The accumulator types mma.sync offers for an input type.
static bool mmaTypesSupported(DType In, DType Acc) {
  switch (In) {
  case DType::Float16:
    return Acc == DType::Float32 || Acc == DType::Float16;
  case DType::BFloat16:
  case DType::Float32:
    return Acc == DType::Float32;
  case DType::Int8:
  case DType::UInt8:
  case DType::Int4:
  case DType::UInt4:
    return Acc == DType::Int32;
  default:
    return false;
  }
}

/// Dtypes and transposes of a gemm; M, N, K from \p MNK.
std::optional<MmaPlan> tilec::readGemm(const Operation &Gemm,
                                       llvm::ArrayRef<int64_t> MNK) {
  Value *A = Gemm.getOperand(0), *B = Gemm.getOperand(1),
        *C = Gemm.getOperand(2);
  MmaPlan P{};
  P.TransA = Gemm.getBoolAttr("transpose_a").value_or(false);
  P.TransB = Gemm.getBoolAttr("transpose_b").value_or(false);
  P.M = MNK[0];
  P.N = MNK[1];
  P.K = MNK[2];
  P.In = A->getType().getDType();
  P.Acc = C->getType().getDType();
  if (B->getType().getDType() != P.In)
    return std::nullopt;
  return P;
}

/// M, N, K and the transposes of a gemm with static rank-2 shapes.
std::optional<MmaPlan> tilec::readShape(const Operation &Gemm) {
  auto SA = Gemm.getOperand(0)->getType().getStaticShape();
  auto SC = Gemm.getOperand(2)->getType().getStaticShape();
  if (!SA || !SC || SA->size() != 2 || SC->size() != 2)
    return std::nullopt;
  bool TransA = Gemm.getBoolAttr("transpose_a").value_or(false);
  int64_t MNK[] = {(*SC)[0], (*SC)[1], TransA ? (*SA)[0] : (*SA)[1]};
  return readGemm(Gemm, MNK);
}

std::optional<MmaPlan> tilec::planMmaGemm(const Operation &Gemm,
                                          const Target &Tgt, int64_t Threads) {
  if (Tgt.TensorCores && Tgt.Matrix == Target::MatrixCore::Mfma)
    return planMfmaGemm(Gemm, Tgt, Threads);
  if (!Tgt.isCUDA() || !Tgt.TensorCores || Tgt.SmVersion < 80 ||
      Threads % 32 != 0)
    return std::nullopt;
  auto P = readShape(Gemm);
  auto Policy =
      parseGemmPolicy(Gemm.getStringAttr("policy").value_or("Square"));
  if (!P || !Policy || !mmaTypesSupported(P->In, P->Acc) ||
      P->K % P->stepK() != 0)
    return std::nullopt;
  auto W = layout::computeWarpPartition(P->M, P->N, Threads / 32, *Policy);
  if (!W)
    return std::nullopt;
  P->MWarps = W->MWarps;
  P->NWarps = W->NWarps;
  return P;
}

std::optional<MmaPlan> tilec::readMmaPlan(const Operation &Gemm) {
  auto Warps = Gemm.getIntArrayAttr("mma_warps");
  auto Shape = Gemm.getIntArrayAttr("mma_shape");
  if (!Warps || Warps->size() != 2 || !Shape || Shape->size() != 3)
    return std::nullopt;
  auto P = readGemm(Gemm, *Shape);
  if (!P)
    return std::nullopt;
  if (auto Mfma = Gemm.getIntArrayAttr("mfma")) {
    if (Mfma->size() != 2)
      return std::nullopt;
    layout::MfmaShape S{(*Mfma)[0], (*Mfma)[1],
                        Gemm.getIntAttr("k_pack").value_or(1)};
    if (!mfmaShapeSupported(*P, S))
      return std::nullopt;
    P->Mfma = S;
  } else if (!mmaTypesSupported(P->In, P->Acc)) {
    return std::nullopt;
  }
  P->MWarps = (*Warps)[0];
  P->NWarps = (*Warps)[1];
  if (P->M < 1 || P->N < 1 || P->K < 1 || P->MWarps < 1 || P->NWarps < 1 ||
      P->M % (P->tileM() * P->MWarps) != 0 ||
      P->N % (P->tileN() * P->NWarps) != 0 || P->K % P->stepK() != 0)
    return std::nullopt;
  return P;
}

void tilec::recordMmaPlan(Operation &Gemm, const MmaPlan &P) {
  Gemm.setAttr("mma_warps", Attribute::intArray({P.MWarps, P.NWarps}));
  Gemm.setAttr("mma_shape", Attribute::intArray({P.M, P.N, P.K}));
  if (P.Mfma)
    Gemm.setAttr("mfma", Attribute::intArray({P.Mfma->Tile, P.Mfma->K}));
}

//===----------------------------------------------------------------------===//
// PTX fragment tables
//===----------------------------------------------------------------------===//
// Lane l is (group g = l / 4, thread-in-group t = l % 4). Rows and
// columns below are within the warp's instruction tile. C: element e is
// row g + 8 * (e / 2), column 2t + e % 2. A (rows m, columns k), element e
// of register r = e / V (V elements per register): row g + 8 * (r % 2),
// k = V t + e % V + (k/2) * (r / 2). B (k x n): column g, k = V t + e % V
// + (k/2) * r.

/// First row / column of instruction tile Mi / Ni of warp (wm, wn): the
/// warps interleave at instruction-tile granularity (makeGemmFragmentC
/// repeats the warp grid first, then the tiles).
static IndexExpr tileRow(const MmaPlan &P, IndexExpr Mi) {
  return Mi * (16 * P.MWarps) + IndexExpr::var("wm") * 16;
}
static IndexExpr tileCol(const MmaPlan &P, IndexExpr Ni) {
  return Ni * (8 * P.NWarps) + IndexExpr::var("wn") * 8;
}

static IndexExpr laneGroup() { return floorDiv(IndexExpr::var("lane"), 4); }
static IndexExpr laneInGroup() { return floorMod(IndexExpr::var("lane"), 4); }

TileCoords tilec::mmaCoordC(const MmaPlan &P, IndexExpr Mi, IndexExpr Ni,
                            int64_t E) {
  IndexExpr Row = tileRow(P, Mi) + laneGroup() + IndexExpr(8 * (E / 2));
  IndexExpr Col = tileCol(P, Ni) + laneInGroup() * 2 + IndexExpr(E % 2);
  return {Row, Col};
}

/// k of element E within a k step, for an operand holding Regs registers.
static IndexExpr operandK(const MmaPlan &P, IndexExpr Ks, int64_t E,
                          int64_t RegStep) {
  int64_t V = P.perRegister();
  int64_t Reg = E / V;
  return Ks * P.stepK() + laneInGroup() * V +
         IndexExpr(E % V + (P.stepK() / 2) * (Reg / RegStep));
}

TileCoords tilec::mmaCoordA(const MmaPlan &P, IndexExpr Mi, IndexExpr Ks,
                            int64_t E) {
  int64_t Reg = E / P.perRegister();
  IndexExpr Row = tileRow(P, Mi) + laneGroup() + IndexExpr(8 * (Reg % 2));
  IndexExpr K = operandK(P, Ks, E, 2);
  if (P.TransA)
    return {K, Row};
  return {Row, K};
}

TileCoords tilec::mmaCoordB(const MmaPlan &P, IndexExpr Ni, IndexExpr Ks,
                            int64_t E) {
  IndexExpr Col = tileCol(P, Ni) + laneGroup();
  IndexExpr K = operandK(P, Ks, E, 1);
  if (P.TransB)
    return {Col, K};
  return {K, Col};
}

//===----------------------------------------------------------------------===//
// Register maps of fragment operands
//===----------------------------------------------------------------------===//

/// The register of element E of tile (T1, T2) for thread (Warp, Lane), or
/// -1 when F does not give that element to that thread.
static int64_t registerOf(const MmaPlan &P, const Fragment &F,
                          const CoordFn &Coords, int64_t T1, int64_t T2,
                          int64_t E, int64_t Warp, int64_t Lane) {
  layout::Env Env;
  Env["lane"] = Lane;
  Env["wm"] = Warp % P.MWarps;
  Env["wn"] = Warp / P.MWarps;
  TileCoords TC = Coords(IndexExpr(T1), IndexExpr(T2), E);
  auto Row = layout::evaluate(TC.Row, Env), Col = layout::evaluate(TC.Col, Env);
  if (!Row || !Col)
    return -1;
  int64_t Idx[] = {*Row, *Col};
  bool Owned = false;
  for (int64_t Rep = 0; Rep != F.getReplicateSize() && !Owned; ++Rep)
    Owned = F.forwardThread(Idx, Rep) == Warp * P.warpSize() + Lane;
  auto Reg = F.forward(Idx);
  return Owned && Reg ? (*Reg)[0] : -1;
}

std::optional<TileMap> tilec::mapFragmentTiles(const MmaPlan &P,
                                               const Fragment &F,
                                               const CoordFn &Coords,
                                               int64_t N1, int64_t N2,
                                               int64_t Elems) {
  auto Reg = [&](int64_t T1, int64_t T2, int64_t E, int64_t W, int64_t L) {
    return registerOf(P, F, Coords, T1, T2, E, W, L);
  };
  TileMap Map;
  Map.Base = Reg(0, 0, 0, 0, 0);
  Map.S1 = N1 > 1 ? Reg(1, 0, 0, 0, 0) - Map.Base : 0;
  Map.S2 = N2 > 1 ? Reg(0, 1, 0, 0, 0) - Map.Base : 0;
  int64_t Warps = P.MWarps * P.NWarps;
  for (int64_t W = 0; W != Warps; ++W)
    for (int64_t L = 0; L != P.warpSize(); ++L)
      for (int64_t T1 = 0; T1 != N1; ++T1)
        for (int64_t T2 = 0; T2 != N2; ++T2)
          for (int64_t E = 0; E != Elems; ++E)
            if (Reg(T1, T2, E, W, L) !=
                Map.Base + Map.S1 * T1 + Map.S2 * T2 + E)
              return std::nullopt;
  return Map;
}
