//===- Target.cpp - GPU targets tilec can compile for ---------------------===//

#include "tilec/Support/Target.h"

using namespace tilec;

namespace {
Target make(const char *Name, Target::Backend Kind, int Sm, int64_t Smem,
            int WarpSize, int NumSMs, bool Wgmma = false) {
  Target T;
  T.Wgmma = Wgmma;
  T.Tma = Wgmma;
  T.WarpSpecialize = Wgmma;
  T.DependentLaunch = Kind == Target::Backend::CUDA && Sm >= 90;
  T.NumSMs = NumSMs;
  T.Name = Name;
  T.Kind = Kind;
  T.SmVersion = Sm;
  T.MaxSharedMemoryBytes = Smem;
  T.WarpSize = WarpSize;
  return T;
}

/// CDNA: a wavefront of 64, 64 KiB of LDS, MFMA, no asynchronous copies,
/// 512 registers per lane (architectural and accumulation VGPRs).
Target amd(const char *Name, int NumSMs, int MfmaInt8K, bool MfmaFp8) {
  Target T = make(Name, Target::Backend::HIP, 0, 64 * 1024, 64, NumSMs);
  T.MaxRegistersPerThread = 512;
  T.Matrix = Target::MatrixCore::Mfma;
  T.MfmaInt8K = MfmaInt8K;
  T.MfmaFp8 = MfmaFp8;
  T.AsyncCopy = false;
  return T;
}

std::vector<Target> knownTargets() {
  using B = Target::Backend;
  // Multiprocessor counts of the parts each target is built for: A100,
  // H100/H200 SXM, MI250X (per GCD), MI300X.
  return {make("sm_80", B::CUDA, 80, 163 * 1024, 32, 108),
          make("sm_90", B::CUDA, 90, 227 * 1024, 32, 132, /*Wgmma=*/true),
          amd("gfx90a", 110, /*MfmaInt8K=*/16, /*MfmaFp8=*/false),
          amd("gfx940", 304, /*MfmaInt8K=*/32, /*MfmaFp8=*/true)};
}
} // namespace

std::optional<Target> tilec::parseTarget(llvm::StringRef Name) {
  // MI300X is gfx942; clang 15 (Debian's hipcc) knows only gfx940, whose
  // MFMA set is the same.
  if (Name == "gfx942")
    Name = "gfx940";
  for (Target &T : knownTargets())
    if (T.Name == Name)
      return T;
  return std::nullopt;
}

Target tilec::defaultTarget() { return *parseTarget("sm_80"); }

std::vector<std::string> tilec::knownTargetNames() {
  std::vector<std::string> Names;
  for (const Target &T : knownTargets())
    Names.push_back(T.Name);
  return Names;
}
