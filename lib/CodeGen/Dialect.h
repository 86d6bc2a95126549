//===- Dialect.h - The GPU API spellings the emitter writes ----*- C++ -*-===//
//
// Everything that differs between CUDA and HIP source is looked up here, so
// that the HIP output is another Dialect instance (hip_runtime.h,
// hipStream_t, __shfl_xor without a mask, hip_bfloat16, ...) rather than a
// second emitter. What differs in the code itself (wavefront width, no
// cp.async, MFMA) is a fact of the Target that the passes read.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_LIB_CODEGEN_DIALECT_H
#define TILEC_LIB_CODEGEN_DIALECT_H

#include "tilec/Support/Target.h"

namespace tilec {
namespace codegen {

struct Dialect {
  /// Suffix of the source file: "cu" or "hip".
  const char *SourceExt;
  /// Header of the device runtime, included by the source.
  const char *RuntimeHeader;
  /// C-compatible host API header, included by the generated .h.
  const char *HostApiHeader;
  /// Headers of the 16-bit and 8-bit float types (null: none exists).
  const char *Fp16Header;
  const char *Bf16Header;
  const char *Fp8Header;
  const char *StreamType;
  const char *ErrorType;
  const char *Success;
  const char *GetLastError;
  const char *GetDevice;
  const char *FuncSetAttribute;
  /// How FuncSetAttribute takes the kernel: CUDA has a template for
  /// kernel pointers, HIP only `const void *`.
  const char *KernelPtrCast;
  const char *MaxDynamicSharedAttr;
  /// Stream-ordered allocation of the T.alloc_global workspace.
  const char *MallocAsync;
  const char *FreeAsync;
  const char *SyncThreads;
  /// The grid barrier of a cooperative launch, and the header declaring it.
  const char *GridSync;
  const char *GridSyncHeader;
  /// Launches a kernel cooperatively: (func, grid, block, args, shared
  /// bytes, stream).
  const char *LaunchCooperative;
  const char *DeviceGetAttribute;
  const char *CooperativeLaunchAttr;
  const char *MultiProcessorCountAttr;
  const char *MaxActiveBlocksPerSM;
  /// Prefix of the warp shuffles: __shfl_xor_sync, __shfl_down_sync, ...
  const char *ShflPrefix;
  const char *ShflSuffix;
  /// First argument of every shuffle ("0xffffffffu, "), or "" for HIP.
  const char *ShflMask;
  /// The shuffles take half/bf16 values (CUDA); otherwise they move them
  /// as float, which represents every such value exactly.
  bool ShflNarrowFloat;
  /// __hmin/__hmax exist for half and bf16; otherwise min/max of those
  /// are computed in float.
  bool HalfMinMax;
  /// bfloat16: its type, the conversions from and to float (rounding to
  /// nearest even), and the packed pair a converting store writes.
  const char *BFloat16Type;
  const char *BFloat16ToFloat;
  const char *FloatToBFloat16;
  const char *BFloat16Pair;
  const char *FloatsToBFloat16Pair;
  /// The fp8 types (null: none on this toolchain).
  const char *Float8E4M3Type;
  const char *Float8E5M2Type;
};

inline const Dialect &cudaDialect() {
  static const Dialect D = {"cu",
                            "<cuda_runtime.h>",
                            "<cuda_runtime_api.h>",
                            "<cuda_fp16.h>",
                            "<cuda_bf16.h>",
                            "<cuda_fp8.h>",
                            "cudaStream_t",
                            "cudaError_t",
                            "cudaSuccess",
                            "cudaGetLastError",
                            "cudaGetDevice",
                            "cudaFuncSetAttribute",
                            "",
                            "cudaFuncAttributeMaxDynamicSharedMemorySize",
                            "cudaMallocAsync",
                            "cudaFreeAsync",
                            "__syncthreads",
                            "cooperative_groups::this_grid().sync",
                            "<cooperative_groups.h>",
                            "cudaLaunchCooperativeKernel",
                            "cudaDeviceGetAttribute",
                            "cudaDevAttrCooperativeLaunch",
                            "cudaDevAttrMultiProcessorCount",
                            "cudaOccupancyMaxActiveBlocksPerMultiprocessor",
                            "__shfl",
                            "_sync",
                            "0xffffffffu, ",
                            /*ShflNarrowFloat=*/true,
                            /*HalfMinMax=*/true,
                            "__nv_bfloat16",
                            "__bfloat162float",
                            "__float2bfloat16_rn",
                            "__nv_bfloat162",
                            "__floats2bfloat162_rn",
                            "__nv_fp8_e4m3",
                            "__nv_fp8_e5m2"};
  return D;
}

/// ROCm's HIP (Debian's hipcc 5.2: hip_bfloat16, no fp8 types; the
/// runtime header adds the packed bf16 pair).
inline const Dialect &hipDialect() {
  static const Dialect D = {"hip",
                            "<hip/hip_runtime.h>",
                            "<hip/hip_runtime_api.h>",
                            "<hip/hip_fp16.h>",
                            "<hip/hip_bfloat16.h>",
                            nullptr,
                            "hipStream_t",
                            "hipError_t",
                            "hipSuccess",
                            "hipGetLastError",
                            "hipGetDevice",
                            "hipFuncSetAttribute",
                            "(const void *)",
                            "hipFuncAttributeMaxDynamicSharedMemorySize",
                            "hipMallocAsync",
                            "hipFreeAsync",
                            "__syncthreads",
                            "cooperative_groups::this_grid().sync",
                            "<hip/hip_cooperative_groups.h>",
                            "hipLaunchCooperativeKernel",
                            "hipDeviceGetAttribute",
                            "hipDeviceAttributeCooperativeLaunch",
                            "hipDeviceAttributeMultiprocessorCount",
                            "hipOccupancyMaxActiveBlocksPerMultiprocessor",
                            "__shfl",
                            "",
                            "",
                            /*ShflNarrowFloat=*/false,
                            /*HalfMinMax=*/false,
                            "hip_bfloat16",
                            "static_cast<float>",
                            "hip_bfloat16",
                            "tilec::bfloat162",
                            "tilec::floats2bfloat162",
                            nullptr,
                            nullptr};
  return D;
}

inline const Dialect &dialectFor(const Target &Tgt) {
  return Tgt.isHIP() ? hipDialect() : cudaDialect();
}

} // namespace codegen
} // namespace tilec

#endif
