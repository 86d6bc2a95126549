//===- WgmmaGemm.cpp - How a T.gemm maps onto wgmma (sm_90a) --------------===//

#include "WgmmaGemm.h"
#include "GemmLayout.h"

using namespace tilec;
using namespace tilec::ir;
using layout::WgmmaMajor;
using layout::WgmmaSharedLayout;

std::string WgmmaPlan::shape() const {
  return "m64n" + std::to_string(InstrN) + "k" + std::to_string(instrK());
}

WgmmaSharedLayout WgmmaPlan::sharedA() const {
  if (TransA)
    return {WgmmaMajor::MN, ASwizzle, K, M, inBits()};
  return {WgmmaMajor::K, ASwizzle, M, K, inBits()};
}

WgmmaSharedLayout WgmmaPlan::sharedB() const {
  if (TransB)
    return {WgmmaMajor::K, BSwizzle, N, K, inBits()};
  return {WgmmaMajor::MN, BSwizzle, K, N, inBits()};
}

int64_t WgmmaPlan::instrCols(bool OperandA) const {
  WgmmaSharedLayout L = OperandA ? sharedA() : sharedB();
  if (L.Major == WgmmaMajor::K)
    return L.Cols;
  return OperandA ? 64 : InstrN;
}

bool WgmmaPlan::swizzleFits(bool OperandA, int64_t SwizzleBytes) const {
  WgmmaSharedLayout L = OperandA ? sharedA() : sharedB();
  return layout::wgmmaSwizzleFits(L.Rows, L.Cols, instrCols(OperandA), inBits(),
                                  SwizzleBytes);
}

layout::Fragment WgmmaPlan::fragmentC() const {
  return layout::makeWgmmaFragmentC(M, N, MWarpgroups, NWarpgroups, InstrN);
}

layout::Fragment WgmmaPlan::fragmentA() const {
  return layout::makeWgmmaFragmentA(M, K, MWarpgroups, NWarpgroups, inBits());
}

/// The accumulator types wgmma offers for an operand type.
static bool wgmmaTypesSupported(DType In, DType Acc) {
  switch (In) {
  case DType::Float16:
    return Acc == DType::Float32 || Acc == DType::Float16;
  case DType::BFloat16:
  case DType::Float32:
  case DType::Float8E4M3:
  case DType::Float8E5M2:
    return Acc == DType::Float32;
  case DType::Int8:
  case DType::UInt8:
    return Acc == DType::Int32;
  default:
    return false;
  }
}

/// Instruction N: a multiple of 8 up to 256; integer types skip the odd
/// multiples of 8 above 24.
static bool validInstrN(int64_t N, DType In) {
  bool Integer = In == DType::Int8 || In == DType::UInt8;
  return N >= 8 && N <= 256 && N % 8 == 0 &&
         (!Integer || N <= 24 || N % 16 == 0);
}

static int64_t chooseInstrN(int64_t WgN, DType In) {
  for (int64_t N = 256; N >= 8; N -= 8)
    if (WgN % N == 0 && validInstrN(N, In))
      return N;
  return 0;
}

/// Completes \p P for the warpgroup split in it: the instruction N and the
/// shared operands' swizzles; false with \p Why when something does not fit.
static bool completePlan(WgmmaPlan &P, std::string &Why) {
  if (P.M % (64 * P.MWarpgroups) || P.N % (8 * P.NWarpgroups)) {
    Why = "the " + std::to_string(P.M) + "x" + std::to_string(P.N) +
          " tile does not split over " + std::to_string(P.warpgroups()) +
          " warpgroup(s) into multiples of 64 rows and 8 columns";
    return false;
  }
  P.InstrN = chooseInstrN(P.wgN(), P.In);
  if (!P.InstrN) {
    Why = "no wgmma N divides the " + std::to_string(P.wgN()) +
          " columns of a warpgroup";
    return false;
  }
  auto SA = P.ARegisters
                ? std::optional<int64_t>(0)
                : layout::chooseWgmmaSwizzle(P.sharedA().Rows, P.sharedA().Cols,
                                             P.instrCols(true), P.inBits());
  auto SB = layout::chooseWgmmaSwizzle(P.sharedB().Rows, P.sharedB().Cols,
                                       P.instrCols(false), P.inBits());
  if (!SA || !SB) {
    Why = "a shared operand has no wgmma layout";
    return false;
  }
  P.ASwizzle = *SA;
  P.BSwizzle = *SB;
  return true;
}

/// Square for wgmma: every instruction reads its 64 x k of A and k x N of
/// B from shared memory, so the bytes read per flop fall with the
/// instruction's N alone (1/N + 1/64): the split with the widest
/// instruction first (warpgroups stacked along M up to N = 256), then the
/// squarest warpgroup tile, then fewer warpgroups along M.
static std::optional<layout::WarpPartition>
leastTrafficSplit(const WgmmaPlan &Base, int64_t Warpgroups) {
  std::optional<layout::WarpPartition> Best;
  int64_t BestN = 0, BestSum = 0;
  for (int64_t MW = 1; MW <= Warpgroups; ++MW) {
    if (Warpgroups % MW)
      continue;
    WgmmaPlan P = Base;
    P.MWarpgroups = MW;
    P.NWarpgroups = Warpgroups / MW;
    std::string Why;
    if (!completePlan(P, Why))
      continue;
    int64_t Sum = P.wgM() + P.wgN();
    if (!Best || P.InstrN > BestN || (P.InstrN == BestN && Sum < BestSum)) {
      Best = layout::WarpPartition{MW, P.NWarpgroups};
      BestN = P.InstrN;
      BestSum = Sum;
    }
  }
  return Best;
}

/// The operand placement and types wgmma accepts.
static bool operandsSupported(const Operation &Gemm, WgmmaPlan &P,
                              std::string &Why) {
  Value *A = Gemm.getOperand(0), *B = Gemm.getOperand(1);
  if (B->getType().getScope() != Scope::Shared) {
    Why = "wgmma reads B from shared memory only";
    return false;
  }
  // A fragment, or the register array lower-fragments made of it.
  P.ARegisters = A->getType().getScope() == Scope::Fragment ||
                 A->getType().getScope() == Scope::Local;
  if (!P.ARegisters && A->getType().getScope() != Scope::Shared) {
    Why = "A is neither a shared buffer nor a fragment";
    return false;
  }
  if (P.ARegisters && P.TransA) {
    Why = "A in registers must be stored [M, K]";
    return false;
  }
  if (P.In == DType::Int4 || P.In == DType::UInt4) {
    Why = "wgmma has no 4-bit integer operands on sm_90a; " +
          tileLangName(P.In).str() + " uses mma.sync m16n8k64";
    return false;
  }
  if (!wgmmaTypesSupported(P.In, P.Acc)) {
    Why = "wgmma has no " + tileLangName(P.In).str() + " x " +
          tileLangName(P.In).str() + " -> " + tileLangName(P.Acc).str() +
          " instruction";
    return false;
  }
  bool MNMajor = (!P.ARegisters && P.TransA) || !P.TransB;
  if (MNMajor && P.inBits() != 16) {
    Why = "wgmma reads " + tileLangName(P.In).str() +
          " operands K-major only (A [M, K], B [N, K] with transpose_B)";
    return false;
  }
  if (P.K % P.instrK()) {
    Why = "K = " + std::to_string(P.K) +
          " is not a multiple of the "
          "instruction's k = " +
          std::to_string(P.instrK());
    return false;
  }
  return true;
}

std::optional<WgmmaPlan> tilec::planWgmmaGemm(const Operation &Gemm,
                                              const Target &Tgt,
                                              int64_t Threads,
                                              std::string &Why) {
  if (!Tgt.isCUDA() || !Tgt.Wgmma || Tgt.SmVersion < 90)
    return Why = "the target has no wgmma", std::nullopt;
  if (Threads % 128 != 0) {
    Why = "the block's " + std::to_string(Threads) +
          " threads are not whole warpgroups of 128";
    return std::nullopt;
  }
  Value *A = Gemm.getOperand(0), *B = Gemm.getOperand(1),
        *C = Gemm.getOperand(2);
  auto SA = A->getType().getStaticShape();
  auto SC = C->getType().getStaticShape();
  auto Policy =
      parseGemmPolicy(Gemm.getStringAttr("policy").value_or("Square"));
  if (!SA || !SC || SA->size() != 2 || SC->size() != 2 || !Policy ||
      B->getType().getDType() != A->getType().getDType()) {
    Why = "its operands are not static 2-D tiles of one type";
    return std::nullopt;
  }
  WgmmaPlan P{};
  P.TransA = Gemm.getBoolAttr("transpose_a").value_or(false);
  P.TransB = Gemm.getBoolAttr("transpose_b").value_or(false);
  P.M = (*SC)[0];
  P.N = (*SC)[1];
  P.K = P.TransA ? (*SA)[0] : (*SA)[1];
  P.In = A->getType().getDType();
  P.Acc = C->getType().getDType();
  if (!operandsSupported(Gemm, P, Why))
    return std::nullopt;
  auto W = *Policy == layout::GemmWarpPolicy::Square
               ? leastTrafficSplit(P, Threads / 128)
               : layout::computeWarpPartition(P.M, P.N, Threads / 128, *Policy,
                                              /*NPerWarp=*/8,
                                              /*MPerWarp=*/64);
  if (!W) {
    Why = "the " + std::to_string(P.M) + "x" + std::to_string(P.N) +
          " tile does not split over " + std::to_string(Threads / 128) +
          " warpgroup(s) into multiples of 64 rows and 8 columns";
    return std::nullopt;
  }
  P.MWarpgroups = W->MWarps;
  P.NWarpgroups = W->NWarps;
  if (!completePlan(P, Why))
    return std::nullopt;
  return P;
}

std::optional<WgmmaPlan> tilec::withWarpgroupSplit(const WgmmaPlan &P,
                                                   int64_t MW, int64_t NW) {
  WgmmaPlan Q = P;
  Q.MWarpgroups = MW;
  Q.NWarpgroups = NW;
  std::string Why;
  if (MW < 1 || NW < 1 || !completePlan(Q, Why))
    return std::nullopt;
  return Q;
}

void tilec::recordWgmmaPlan(Operation &Gemm, const WgmmaPlan &P) {
  Gemm.setAttr("wgmma",
               Attribute::intArray({P.MWarpgroups, P.NWarpgroups, P.InstrN}));
  Gemm.setAttr(
      "wgmma_swizzle",
      Attribute::intArray({P.ARegisters ? -1 : P.ASwizzle, P.BSwizzle}));
  Gemm.setAttr("mma_shape", Attribute::intArray({P.M, P.N, P.K}));
}

std::optional<WgmmaPlan> tilec::readWgmmaPlan(const Operation &Gemm) {
  auto Split = Gemm.getIntArrayAttr("wgmma");
  auto Swizzle = Gemm.getIntArrayAttr("wgmma_swizzle");
  auto Shape = Gemm.getIntArrayAttr("mma_shape");
  if (!Split || Split->size() != 3 || !Swizzle || Swizzle->size() != 2 ||
      !Shape || Shape->size() != 3)
    return std::nullopt;
  WgmmaPlan P{};
  P.M = (*Shape)[0];
  P.N = (*Shape)[1];
  P.K = (*Shape)[2];
  P.MWarpgroups = (*Split)[0];
  P.NWarpgroups = (*Split)[1];
  P.TransA = Gemm.getBoolAttr("transpose_a").value_or(false);
  P.TransB = Gemm.getBoolAttr("transpose_b").value_or(false);
  P.In = Gemm.getOperand(0)->getType().getDType();
  P.Acc = Gemm.getOperand(2)->getType().getDType();
  std::string Why;
  if (!operandsSupported(Gemm, P, Why) || P.MWarpgroups < 1 ||
      P.NWarpgroups < 1 || !completePlan(P, Why) || P.InstrN != (*Split)[2])
    return std::nullopt;
  // The recorded swizzles may differ from the default choice (a user's
  // annotation that is canonical); each must still serve the instructions.
  if (!P.ARegisters) {
    P.ASwizzle = (*Swizzle)[0];
    if (!P.swizzleFits(true, P.ASwizzle))
      return std::nullopt;
  }
  P.BSwizzle = (*Swizzle)[1];
  if (!P.swizzleFits(false, P.BSwizzle))
    return std::nullopt;
  return P;
}
