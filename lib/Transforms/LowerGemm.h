//===- LowerGemm.h - T.gemm on CUDA cores ----------------------*- C++ -*-===//
//
// Expects: layout-inference output; every `gemm` carries `fma_grid = [TM,
//   TN, VN]` (gemm-layout) and its fragment operands have exactly the
//   layouts gemm-layout derived from that grid (GemmLayout.h). A and B are
//   shared or fragment buffers; C is a fragment.
// Does: replaces each gemm by the work of one thread tx, in C's dtype (the
//   accumulate dtype; operands are cast to it), with tm = tx // TN, tn = tx
//   % TN, RM = M / TM rows and RN = N / TN columns per thread:
//     [if tx < TM * TN]
//       [clear_accum: C[row(i), col(j)] = 0 for all i, j]
//       for %k in [0, K) {serial; unroll when A or B is a fragment}
//         a[i] = cast(A[row(i), k])      (A[k, row(i)] when transpose_a)
//         b[j] = cast(B[k, col(j)])      (B[col(j), k] when transpose_b)
//         C[row(i), col(j)] += a[i] * b[j]
//   with row(i) = tm + TM * i, col(jg * VN + jv) = (jg * TN + tn) * VN + jv
//   and every i/j loop unrolled. a and b are `local` register arrays; a
//   shared B read along its rows is loaded VN elements at a time (`vcopy`)
//   when that is a 2-8-16 byte access. Fragment elements keep their
//   logical indices; lower-fragments maps them to registers (i * RN + j
//   for C, i * K + k for A, j * K + k for B).
// Guarantees: no `gemm` remains. Each thread touches only the elements of
//   C, A and B its fragments hold. No barrier is emitted: the shared
//   operands must be complete before the gemm and must not be overwritten
//   while it runs (synchronization is the job of a later pass).
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_TRANSFORMS_LOWERGEMM_H
#define TILEC_TRANSFORMS_LOWERGEMM_H

#include "tilec/Transforms/Pass.h"

namespace tilec {
std::unique_ptr<Pass> createLowerGemmPass();
} // namespace tilec

#endif
