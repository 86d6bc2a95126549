//===- Dialect.h - The GPU API spellings the emitter writes ----*- C++ -*-===//
//
// Everything that differs between CUDA and HIP source is looked up here, so
// that a HIP emitter is another Dialect instance (hip_runtime.h,
// hipStream_t, __shfl_xor without a mask, ...) rather than a second
// emitter. Only the CUDA instance exists today.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_LIB_CODEGEN_DIALECT_H
#define TILEC_LIB_CODEGEN_DIALECT_H

namespace tilec {
namespace codegen {

struct Dialect {
  /// Header of the device runtime, included by the .cu.
  const char *RuntimeHeader;
  /// C-compatible host API header, included by the generated .h.
  const char *HostApiHeader;
  const char *StreamType;
  const char *ErrorType;
  const char *Success;
  const char *GetLastError;
  const char *FuncSetAttribute;
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
};

inline const Dialect &cudaDialect() {
  static const Dialect D = {"<cuda_runtime.h>",
                            "<cuda_runtime_api.h>",
                            "cudaStream_t",
                            "cudaError_t",
                            "cudaSuccess",
                            "cudaGetLastError",
                            "cudaFuncSetAttribute",
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
                            "0xffffffffu, "};
  return D;
}

} // namespace codegen
} // namespace tilec

#endif
