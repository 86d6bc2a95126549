/*===- tilec_runtime.h - Host-side runtime for tilec kernels ------*- C -*-===*\
 *
 * Included by the host code tilec generates (NAME.h / NAME.cu) and by the
 * programs that call it. Header-only, C and C++, no dependency besides the
 * C library; installed as <prefix>/include/tilec/tilec_runtime.h.
 *
 * Every generated launcher returns a tilecStatus; tilecGetErrorString turns
 * any int (also values outside the enum) into a printable, static string.
 *
 * When compiled as CUDA C++ (__CUDACC__), it also provides the helpers the
 * generated kernels call, in namespace tilec:
 *   floordiv, floormod   Python `//` and `%` (round toward -inf) for
 *                        integers, float and double; host and device.
 *   ipow                 integer power (Python `**` on ints).
 *   atomicMaxFloat, atomicMinFloat
 *                        atomic max/min on float and double through a
 *                        compare-and-swap loop; return the old value.
 *   warpReduceSum, warpReduceMax
 *                        butterfly reductions over a full warp.
 *
\*===----------------------------------------------------------------------===*/
#ifndef TILEC_RUNTIME_H
#define TILEC_RUNTIME_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tilecStatus {
  TILEC_SUCCESS = 0,
  TILEC_ERROR_INVALID_ARGUMENT = 1,
  TILEC_ERROR_LAUNCH_FAILED = 2,
  TILEC_ERROR_UNSUPPORTED = 3,
  TILEC_ERROR_OUT_OF_MEMORY = 4,
  TILEC_ERROR_SHAPE_MISMATCH = 5
} tilecStatus;

static inline const char *tilecGetErrorString(int Status) {
  switch (Status) {
  case TILEC_SUCCESS:
    return "success";
  case TILEC_ERROR_INVALID_ARGUMENT:
    return "invalid argument";
  case TILEC_ERROR_LAUNCH_FAILED:
    return "kernel launch failed";
  case TILEC_ERROR_UNSUPPORTED:
    return "unsupported on this device";
  case TILEC_ERROR_OUT_OF_MEMORY:
    return "out of memory";
  case TILEC_ERROR_SHAPE_MISMATCH:
    return "argument shape does not match the kernel";
  }
  return "unknown tilec error";
}

#ifdef __cplusplus
}
#endif

#if defined(__CUDACC__) && defined(__cplusplus)
#include <math.h>

namespace tilec {

template <typename T> __host__ __device__ inline T floordiv(T A, T B) {
  T Q = A / B;
  return (A % B != 0 && ((A < 0) != (B < 0))) ? Q - 1 : Q;
}

template <typename T> __host__ __device__ inline T floormod(T A, T B) {
  T R = A % B;
  return (R != 0 && ((R < 0) != (B < 0))) ? R + B : R;
}

__host__ __device__ inline float floordiv(float A, float B) {
  return floorf(A / B);
}
__host__ __device__ inline double floordiv(double A, double B) {
  return floor(A / B);
}
__host__ __device__ inline float floormod(float A, float B) {
  return A - floorf(A / B) * B;
}
__host__ __device__ inline double floormod(double A, double B) {
  return A - floor(A / B) * B;
}

/* Python semantics for negative exponents: only 1 and -1 stay non-zero. */
template <typename T> __host__ __device__ inline T ipow(T Base, T Exp) {
  if (Exp < 0)
    return Base == 1 ? T(1) : Base == T(-1) ? T((Exp & 1) ? -1 : 1) : T(0);
  T Result = 1;
  for (; Exp != 0; Exp >>= 1, Base *= Base)
    if (Exp & 1)
      Result *= Base;
  return Result;
}

/* Replaces *Addr by V while Better(V, *Addr); returns the old value. */
template <typename Op>
__device__ inline float atomicUpdateFloat(float *Addr, float V, Op Better) {
  int *Bits = reinterpret_cast<int *>(Addr);
  int Old = *Bits, Assumed;
  do {
    Assumed = Old;
    if (!Better(V, __int_as_float(Assumed)))
      break;
    Old = atomicCAS(Bits, Assumed, __float_as_int(V));
  } while (Assumed != Old);
  return __int_as_float(Old);
}

template <typename Op>
__device__ inline double atomicUpdateFloat(double *Addr, double V, Op Better) {
  unsigned long long *Bits = reinterpret_cast<unsigned long long *>(Addr);
  unsigned long long Old = *Bits, Assumed;
  do {
    Assumed = Old;
    if (!Better(V, __longlong_as_double((long long)Assumed)))
      break;
    Old = atomicCAS(Bits, Assumed, (unsigned long long)__double_as_longlong(V));
  } while (Assumed != Old);
  return __longlong_as_double((long long)Old);
}

struct Greater {
  template <typename T> __device__ bool operator()(T A, T B) const {
    return A > B;
  }
};
struct Less {
  template <typename T> __device__ bool operator()(T A, T B) const {
    return A < B;
  }
};

__device__ inline float atomicMaxFloat(float *Addr, float V) {
  return atomicUpdateFloat(Addr, V, Greater());
}
__device__ inline double atomicMaxFloat(double *Addr, double V) {
  return atomicUpdateFloat(Addr, V, Greater());
}
__device__ inline float atomicMinFloat(float *Addr, float V) {
  return atomicUpdateFloat(Addr, V, Less());
}
__device__ inline double atomicMinFloat(double *Addr, double V) {
  return atomicUpdateFloat(Addr, V, Less());
}

template <typename T> __device__ inline T warpReduceSum(T V) {
  for (int Offset = 16; Offset > 0; Offset >>= 1)
    V += __shfl_xor_sync(0xffffffffu, V, Offset, 32);
  return V;
}

template <typename T> __device__ inline T warpReduceMax(T V) {
  for (int Offset = 16; Offset > 0; Offset >>= 1) {
    T Other = __shfl_xor_sync(0xffffffffu, V, Offset, 32);
    V = Other > V ? Other : V;
  }
  return V;
}

} // namespace tilec
#endif /* __CUDACC__ && __cplusplus */

#endif /* TILEC_RUNTIME_H */
