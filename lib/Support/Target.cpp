//===- Target.cpp - GPU targets tilec can compile for ---------------------===//

#include "tilec/Support/Target.h"

using namespace tilec;

namespace {
Target make(const char *Name, Target::Backend Kind, int Sm, int64_t Smem,
            int WarpSize) {
  Target T;
  T.Name = Name;
  T.Kind = Kind;
  T.SmVersion = Sm;
  T.MaxSharedMemoryBytes = Smem;
  T.WarpSize = WarpSize;
  return T;
}

std::vector<Target> knownTargets() {
  using B = Target::Backend;
  return {make("sm_80", B::CUDA, 80, 163 * 1024, 32),
          make("sm_90", B::CUDA, 90, 227 * 1024, 32),
          make("gfx90a", B::HIP, 0, 64 * 1024, 64),
          make("gfx940", B::HIP, 0, 64 * 1024, 64)};
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
