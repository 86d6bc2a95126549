//===- Launcher.h - The extern "C" host launcher of a func -----*- C++ -*-===//
//
// One launcher per func:
//
//   extern "C" int gemm(void *A, void *B, void *C, int64_t M,
//                       cudaStream_t stream);
//
// Arguments: the prim_func parameters in order (buffers as `void *`,
// scalars as C types: narrow floats as float, bool as int), then the
// symbolic dims as int64_t, then the stream. The launcher checks that
// buffers are non-null and aligned for the vector accesses the kernels
// make, that every symbol is in [1, INT32_MAX] and that the func's
// `assumes` hold, computes the func-level scalars (grid sizes) on the host,
// raises the dynamic shared memory limit when a kernel needs more than
// 48 KiB (once per device), launches the kernels in order and checks
// cudaGetLastError. It returns a tilecStatus and never exits. A func with
// T.alloc_global buffers gets one stream-ordered allocation for all of them
// (cudaMallocAsync after the checks, each buffer 256-byte aligned, freed
// with cudaFreeAsync after the last kernel or on any error).
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_LIB_CODEGEN_LAUNCHER_H
#define TILEC_LIB_CODEGEN_LAUNCHER_H

#include "CodeWriter.h"
#include "KernelPlan.h"
#include <set>

namespace tilec {
namespace codegen {

struct LauncherArg {
  enum class Kind { Buffer, Scalar, Symbol } K;
  const ir::Value *V;
  std::string Name;
  std::string CType;
};

/// The launcher arguments of \p Plan in order, without the stream.
std::vector<LauncherArg> launcherArgs(const FuncPlan &Plan);
/// One T.alloc_global buffer of a func, in allocation order.
struct Workspace {
  const ir::Value *V;
  std::string Name;
  /// Size rounded up to 256 bytes: a decimal literal, or a size_t C
  /// expression over the symbol arguments.
  std::string Bytes;
};

std::vector<Workspace> workspaces(const FuncPlan &Plan);
/// The total workspace size of \p Plan as a C expression ("0" when none).
std::string workspaceBytes(const FuncPlan &Plan);

/// "int gemm(void *A, ..., cudaStream_t stream)".
std::string launcherPrototype(const FuncPlan &Plan);

/// The grid extents of \p K as C expressions over the symbol and scalar
/// parameter names (for the manifest).
std::vector<std::string> gridExpressions(const FuncPlan &Plan,
                                         const KernelPlan &K,
                                         DiagnosticEngine &Diags);

/// Writes the launcher definition. Returns false after reporting errors.
bool emitLauncher(const FuncPlan &Plan, DiagnosticEngine &Diags,
                  std::set<DType> &UsedTypes, CodeWriter &W);

} // namespace codegen
} // namespace tilec

#endif
