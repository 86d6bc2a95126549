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
  T.NumSMs = NumSMs;
  T.Name = Name;
  T.Kind = Kind;
  T.SmVersion = Sm;
  T.MaxSharedMemoryBytes = Smem;
  T.WarpSize = WarpSize;
  return T;
}

std::vector<Target> knownTargets() {
  using B = Target::Backend;
  // Multiprocessor counts of the parts each target is built for: A100,
  // H100/H200 SXM, MI250X (per GCD), MI300X.
  return {make("sm_80", B::CUDA, 80, 163 * 1024, 32, 108),
          make("sm_90", B::CUDA, 90, 227 * 1024, 32, 132, /*Wgmma=*/true),
          make("gfx90a", B::HIP, 0, 64 * 1024, 64, 110),
          make("gfx940", B::HIP, 0, 64 * 1024, 64, 304)};
}
} // namespace

std::optional<Target> tilec::parseTarget(llvm::StringRef Name) {
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
