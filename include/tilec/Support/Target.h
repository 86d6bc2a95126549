//===- Target.h - GPU targets tilec can compile for ------------*- C++ -*-===//
//
// The few facts about a GPU that Sema, passes and emitters need. Known
// targets: sm_80 (A100), sm_90 (H100), gfx90a (MI200), gfx940 (MI300).
// MaxSharedMemoryBytes is the dynamic shared memory one block may use
// (sm_80: 163 KiB, sm_90: 227 KiB, AMD: 64 KiB LDS).
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_SUPPORT_TARGET_H
#define TILEC_SUPPORT_TARGET_H

#include "llvm/ADT/StringRef.h"
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tilec {

struct Target {
  enum class Backend { CUDA, HIP };

  std::string Name;
  Backend Kind = Backend::CUDA;
  /// 80, 90 for CUDA; 0 for HIP.
  int SmVersion = 0;
  int64_t MaxSharedMemoryBytes = 0;
  int WarpSize = 32;
  /// What device queries such as `driver.get_num_sms()` evaluate to
  /// (--num-sms overrides it for other parts).
  int NumSMs = 0;
  /// T.gemm may use mma.sync (sm_80+); off: CUDA-core FMA everywhere.
  bool TensorCores = true;

  bool isCUDA() const { return Kind == Backend::CUDA; }
  bool isHIP() const { return Kind == Backend::HIP; }
};

/// "sm_80", "sm_90", "gfx90a", "gfx940"; std::nullopt otherwise.
std::optional<Target> parseTarget(llvm::StringRef Name);
/// The default target (sm_80).
Target defaultTarget();
/// Names parseTarget accepts, in a stable order.
std::vector<std::string> knownTargetNames();

} // namespace tilec

#endif
