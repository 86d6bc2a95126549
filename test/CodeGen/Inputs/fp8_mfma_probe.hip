// What Debian's hipcc 5.2 knows of gfx940's fp8 matrix instructions: the
// builtins of v_mfma_f32_16x16x32_fp8_fp8 and v_mfma_f32_32x32x16_bf8_bf8
// compile for gfx940 (tilec does not emit them yet: docs/targets.md).
#include <hip/hip_runtime.h>

typedef float Float4 __attribute__((ext_vector_type(4)));
typedef float Float16 __attribute__((ext_vector_type(16)));

__global__ void probe(const long *A, const long *B, float *D) {
  Float4 Acc4 = {0, 0, 0, 0};
  Acc4 = __builtin_amdgcn_mfma_f32_16x16x32_fp8_fp8(A[threadIdx.x],
                                                    B[threadIdx.x], Acc4, 0,
                                                    0, 0);
  Float16 Acc16 = {};
  Acc16 = __builtin_amdgcn_mfma_f32_32x32x16_bf8_bf8(A[threadIdx.x],
                                                     B[threadIdx.x], Acc16, 0,
                                                     0, 0);
  D[threadIdx.x] = Acc4[0] + Acc16[0];
}
