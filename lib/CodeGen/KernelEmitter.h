//===- KernelEmitter.h - One kernel op as a __global__ function -*- C++ -*-===//
//
// Writes the device function of one `kernel` op:
//
//   extern "C" __global__ void __launch_bounds__(128)
//   gemm_kernel(const half* __restrict__ A, ..., int M) {
//     extern __shared__ __align__(128) unsigned char tilec_smem[];
//     const int bx = blockIdx.x;
//     ... statements ...
//   }
//
// Captured buffers become `T* __restrict__` parameters (`const` when the
// kernel only reads them), captured scalars and symbols by-value
// parameters. Statements follow the IR order; values are inlined or named
// as Inlining decides; `#line` directives point back at the op locations
// when enabled.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_LIB_CODEGEN_KERNELEMITTER_H
#define TILEC_LIB_CODEGEN_KERNELEMITTER_H

#include "CodeWriter.h"
#include "KernelPlan.h"
#include <set>

namespace tilec {
namespace codegen {

/// Name of kernel parameter / launcher argument for captured value \p V.
std::string captureName(const FuncPlan &Plan, const ir::Value *V);

/// Writes the kernel \p K of \p Plan to \p W. Returns false after
/// reporting errors.
bool emitKernel(const FuncPlan &Plan, const KernelPlan &K,
                const CodeGenOptions &Opts, DiagnosticEngine &Diags,
                std::set<DType> &UsedTypes, CodeWriter &W);

} // namespace codegen
} // namespace tilec

#endif
