/*===- tilec_runtime.h - Host-side runtime for tilec kernels ------*- C -*-===*\
 *
 * Included by the host code tilec generates (NAME.h / NAME.cu) and by the
 * programs that call it. Header-only, C and C++, no dependency besides the
 * C library; installed as <prefix>/include/tilec/tilec_runtime.h.
 *
 * Every generated launcher returns a tilecStatus; tilecGetErrorString turns
 * any int (also values outside the enum) into a printable, static string.
 *
 * When compiled as CUDA C++ (__CUDACC__) or HIP C++ (__HIPCC__), it also
 * provides the helpers the generated kernels call, in namespace tilec
 * (the PTX wrappers, marked sm_*, under CUDA only; the gfx* ones under HIP
 * only):
 *   floordiv, floormod   Python `//` and `%` (round toward -inf) for
 *                        integers, float and double; host and device.
 *   ipow                 integer power (Python `**` on ints).
 *   atomicMaxFloat, atomicMinFloat
 *                        atomic max/min on float and double through a
 *                        compare-and-swap loop; return the old value.
 *   fastExp2             T.exp2 on float under fast math (ex2.approx.ftz).
 *   warpReduceSum, warpReduceMax
 *                        butterfly reductions over a full warp (32 lanes,
 *                        or the wavefront of 64 under HIP).
 *   bitcast<To, From>(x) the bits of x (converted to From) as a To of the
 *                        same size (T.reinterpret); host and device.
 *   fp8_e4m3fnuz, fp8_e5m2fnuz
 *                        AMD's FNUZ fp8 types and their conversions from
 *                        and to float; host and device, CUDA and HIP.
 *   mbarrierInit, mbarrierArrive, mbarrierWait, mbarrierExpectTx,
 *   mbarrierArriveCpAsync
 *                        mbarrier objects in shared memory (T.alloc_barrier,
 *                        T.barrier_arrive, T.barrier_wait,
 *                        T.cp_async_barrier_noinc); sm_80+, expect_tx
 *                        sm_90+.
 *   namedBarrierSync     bar.sync id, count (T.sync_threads(id, count)).
 *   namedBarrierArrive   bar.arrive id, count (barrier {arrive = true}).
 *   tmaLoad, tmaEncodeTiled
 *                        TMA box loads (sm_90) and the host-side encoding of
 *                        their tensor maps.
 *   bulkReduceAdd, bulkWaitRead
 *                        bulk reductions of shared float32 rows into global
 *                        memory (sm_90) and the wait for their reads.
 *   stmatrix             stmatrix .x1/.x2/.x4 (sm_90): a warp's 8x8 matrices
 *                        of 16-bit pairs from registers to shared rows.
 *   wgmmaDescriptor, wgmmaFence, wgmmaCommit, wgmmaWait,
 *   wgmmaFenceOperands, fenceProxyAsync, setMaxNRegInc, setMaxNRegDec,
 *   scheduleAfter
 *                        Hopper warpgroup MMA (sm_90a; the wgmma itself is
 *                        inline PTX in the generated kernel).
 *   gridDependencyWait, launchDependentGrids
 *                        programmatic dependent launch (griddepcontrol;
 *                        sm_90, no-ops below).
 *   philoxInit, philoxNext, philoxUniform, philoxUniformDouble
 *                        the Philox4x32-10 generator of T.rng_init and
 *                        T.rng_rand*, producing curand's Philox sequence.
 *   bfloat162, floats2bfloat162
 *                        a packed pair of hip_bfloat16 and its rounding
 *                        constructor from two floats (gfx*).
 *   mfma*                the MFMA matrix instructions T.gemm lowers to
 *                        (gfx90a, gfx940), through clang's builtins.
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
  TILEC_ERROR_SHAPE_MISMATCH = 5,
  TILEC_ERROR_INVALID_GRID = 6,
  TILEC_ERROR_COOPERATIVE_GRID = 7,
  TILEC_ERROR_ASSERTION_FAILED = 8
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
  case TILEC_ERROR_INVALID_GRID:
    return "grid extent computed from the arguments is out of range";
  case TILEC_ERROR_COOPERATIVE_GRID:
    return "grid of a kernel using T.sync_grid has more blocks than the "
           "device can hold at once";
  case TILEC_ERROR_ASSERTION_FAILED:
    return "an assert of the program failed on the arguments";
  }
  return "unknown tilec error";
}

#ifdef __cplusplus
}
#endif

#if (defined(__CUDACC__) || defined(__HIPCC__)) && defined(__cplusplus)
#if defined(__CUDACC__)
#include <cuda.h>
#endif
#include <math.h>
#include <string.h>
#if defined(__HIPCC__)
#include <hip/hip_bfloat16.h>
#endif

namespace tilec {

/* memcpy rather than a union or reinterpret_cast: it is the one bit cast
 * C++ defines for every trivially copyable pair (half, bf16, fp8, ints),
 * and nvcc turns it into a register move. */
template <typename To, typename From>
__host__ __device__ inline To bitcast(const From &X) {
  static_assert(sizeof(To) == sizeof(From), "bitcast between sizes");
  To Y;
  memcpy(&Y, &X, sizeof(To));
  return Y;
}

template <typename T> __host__ __device__ inline T floordiv(T A, T B) {
  T Q = A / B;
  return (A % B != 0 && ((A < 0) != (B < 0))) ? Q - 1 : Q;
}

template <typename T> __host__ __device__ inline T floormod(T A, T B) {
  T R = A % B;
  return (R != 0 && ((R < 0) != (B < 0))) ? R + B : R;
}

/* 4-bit elements: buffers hold two per byte (element 2i in the low
 * nibble of byte i); a value is its code in the low nibble of a uint8_t. */
__host__ __device__ inline uint8_t nibbleAt(const uint8_t *P, int I) {
  return uint8_t((P[I >> 1] >> ((I & 1) * 4)) & 0xF);
}

__host__ __device__ inline void setNibble(uint8_t *P, int I, uint8_t V) {
  int Shift = (I & 1) * 4;
  P[I >> 1] = uint8_t((P[I >> 1] & ~(0xF << Shift)) | ((V & 0xF) << Shift));
}

__host__ __device__ inline int int4ToInt(uint8_t V) {
  return (V & 0x8) ? int(V & 0xF) - 16 : int(V & 0xF);
}

__host__ __device__ inline uint8_t nibbleFromInt(int V) {
  return uint8_t(V & 0xF);
}

/* float4_e2m1: sign, 2 exponent bits (bias 1), 1 mantissa bit; magnitudes
 * 0, 0.5, 1, 1.5, 2, 3, 4, 6 for codes 0..7, no infinity or NaN. */
__host__ __device__ inline float fp4e2m1ToFloat(uint8_t V) {
  const float Mag[8] = {0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f};
  float M = Mag[V & 0x7];
  return (V & 0x8) ? -M : M;
}

/* Round to nearest, ties to the even code, saturating to +-6 (the
 * semantics of PTX cvt.rn.satfinite.e2m1x2.f32, which only sm_100 has);
 * NaN gives +6. The midpoints between neighbouring codes decide. */
__host__ __device__ inline uint8_t fp4e2m1FromFloat(float X) {
  if (X != X)
    return 0x7;
  float A = fabsf(X);
  uint8_t Code = A <= 0.25f   ? 0
                 : A < 0.75f  ? 1
                 : A <= 1.25f ? 2
                 : A < 1.75f  ? 3
                 : A <= 2.5f  ? 4
                 : A < 3.5f   ? 5
                 : A <= 5.0f  ? 6
                              : 7;
  return signbit(X) ? uint8_t(Code | 0x8) : Code;
}

/* AMD's FNUZ fp8 (float8_e4m3fnuz, float8_e5m2fnuz: gfx940's MFMA
 * operands): ExpBits exponent bits biased by 2^(ExpBits - 1), every
 * exponent finite, no infinity or negative zero, NaN the pattern 0x80.
 * Neither CUDA nor Debian's HIP 5.2 has the types, so the conversions are
 * computed: from float rounding to nearest even and saturating (as the OCP
 * fp8 types' __NV_SATFINITE), NaN to 0x80; to float exactly. */
template <int ExpBits> struct fp8fnuz {
  static constexpr int MantBits = 7 - ExpBits;
  static constexpr int Bias = 1 << (ExpBits - 1);
  unsigned char bits;

  fp8fnuz() = default;
  __host__ __device__ explicit fp8fnuz(float F) : bits(encode(F)) {}
  __host__ __device__ operator float() const { return decode(bits); }

  __host__ __device__ static unsigned char encode(float F) {
    if (F != F)
      return 0x80;
    unsigned char Sign = F < 0.0f ? 0x80 : 0;
    float A = fabsf(F);
    float Max =
        ldexpf(2.0f - ldexpf(1.0f, -MantBits), (1 << ExpBits) - 1 - Bias);
    if (A >= Max)
      return Sign | 0x7f;
    int E;
    frexpf(A, &E); /* A = m * 2^E, m in [0.5, 1) */
    int Exp = E - 1 < 1 - Bias ? 1 - Bias : E - 1;
    int Q = (int)rintf(ldexpf(A, MantBits - Exp));
    if (Q == 0)
      return 0;
    if (Q == 2 << MantBits) { /* rounded up to the next binade */
      Q >>= 1;
      ++Exp;
    }
    if (Q < (1 << MantBits)) /* subnormal */
      return Sign | (unsigned char)Q;
    return Sign |
           (unsigned char)(((Exp + Bias) << MantBits) | (Q - (1 << MantBits)));
  }

  __host__ __device__ static float decode(unsigned char B) {
    if (B == 0x80)
      return __builtin_nanf("");
    int Exp = (B >> MantBits) & ((1 << ExpBits) - 1);
    int Mant = B & ((1 << MantBits) - 1);
    float V = Exp == 0 ? ldexpf((float)Mant, 1 - Bias - MantBits)
                       : ldexpf((float)(Mant + (1 << MantBits)),
                                Exp - Bias - MantBits);
    return (B & 0x80) ? -V : V;
  }
};
typedef fp8fnuz<4> fp8_e4m3fnuz;
typedef fp8fnuz<5> fp8_e5m2fnuz;

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

#if defined(__HIPCC__)
/* A wavefront executes in lockstep: HIP's shuffles take no mask. */
template <typename T> __device__ inline T shflXorAll(T V, int Offset) {
  return __shfl_xor(V, Offset, warpSize);
}
#else
template <typename T> __device__ inline T shflXorAll(T V, int Offset) {
  return __shfl_xor_sync(0xffffffffu, V, Offset, warpSize);
}
#endif

/* T.exp2 under fast math (the func attribute fast_math): the hardware's
 * approximation with denormal inputs and results flushed to zero, one
 * MUFU.EX2 where exp2f also scales denormals (three more instructions per
 * call). HIP's exp2f is already the hardware instruction. */
__device__ inline float fastExp2(float X) {
#if defined(__CUDACC__)
  float Y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(Y) : "f"(X));
  return Y;
#else
  return exp2f(X);
#endif
}

/* schedule_after: ptxas schedules a wgmma.wait_group as early as the
 * registers it guards allow, above arithmetic that does not need it (the
 * softmax that should run while the P V wgmma does). A branch on V, whose
 * body the assembler cannot drop, keeps the instructions that follow after
 * V's computation. It is taken for one NaN payload only, and then only
 * sleeps; HIP has no such wait and compiles it to nothing. */
__device__ inline void scheduleAfter(unsigned V) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
  if (V == 0x7fc00001u)
    asm volatile("nanosleep.u32 1;");
#endif
}
__device__ inline void scheduleAfter(int V) { scheduleAfter(unsigned(V)); }
__device__ inline void scheduleAfter(float V) {
  scheduleAfter(__float_as_uint(V));
}

template <typename T> __device__ inline T warpReduceSum(T V) {
  for (int Offset = warpSize / 2; Offset > 0; Offset >>= 1)
    V += shflXorAll(V, Offset);
  return V;
}

template <typename T> __device__ inline T warpReduceMax(T V) {
  for (int Offset = warpSize / 2; Offset > 0; Offset >>= 1) {
    T Other = shflXorAll(V, Offset);
    V = Other > V ? Other : V;
  }
  return V;
}

#if defined(__CUDACC__)

//===--- Asynchronous copies and tensor cores (sm_80+) --------------------===//
// PTX wrappers for the ops cp_async, cp_async_commit, cp_async_wait,
// ldmatrix and mma. Register operands are the kernel's local arrays,
// reinterpreted as 32-bit registers (the emitter aligns them).

__device__ inline unsigned smemAddress(const void *Ptr) {
  return static_cast<unsigned>(__cvta_generic_to_shared(Ptr));
}

/// Copies Bytes (4, 8 or 16) from global to shared memory; 16-byte copies
/// bypass L1 (.cg) and ask L2 to fetch the whole 128-byte line (the rest of
/// a tile row follows in the next copies).
template <int Bytes>
__device__ inline void cpAsync(void *Smem, const void *Gmem) {
  if (Bytes == 16)
    asm volatile("cp.async.cg.shared.global.L2::128B [%0], [%1], 16;\n" ::"r"(
                     smemAddress(Smem)),
                 "l"(Gmem));
  else
    asm volatile(
        "cp.async.ca.shared.global [%0], [%1], %2;\n" ::"r"(smemAddress(Smem)),
        "l"(Gmem), "n"(Bytes));
}

/// As above; when Pred is false the destination is zero-filled and global
/// memory is not read (source size 0).
template <int Bytes>
__device__ inline void cpAsync(void *Smem, const void *Gmem, bool Pred) {
  int SrcBytes = Pred ? Bytes : 0;
  if (Bytes == 16)
    asm volatile(
        "cp.async.cg.shared.global.L2::128B [%0], [%1], 16, %2;\n" ::"r"(
            smemAddress(Smem)),
        "l"(Gmem), "r"(SrcBytes));
  else
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"(
                     smemAddress(Smem)),
                 "l"(Gmem), "n"(Bytes), "r"(SrcBytes));
}

__device__ inline void cpAsyncCommit() {
  asm volatile("cp.async.commit_group;\n" ::);
}

template <int Pending> __device__ inline void cpAsyncWait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(Pending));
}

/// ldmatrix .x1/.x2/.x4 (.trans): Count 32-bit registers into Dst from the
/// 16-byte row this lane addresses.
template <int Count, bool Trans>
__device__ inline void ldmatrix(void *Dst, const void *Smem) {
  unsigned *R = reinterpret_cast<unsigned *>(Dst);
  unsigned Addr = smemAddress(Smem);
  if (Count == 4 && Trans)
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 "
                 "{%0, %1, %2, %3}, [%4];\n"
                 : "=r"(R[0]), "=r"(R[1]), "=r"(R[2]), "=r"(R[3])
                 : "r"(Addr));
  else if (Count == 4)
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 "
                 "{%0, %1, %2, %3}, [%4];\n"
                 : "=r"(R[0]), "=r"(R[1]), "=r"(R[2]), "=r"(R[3])
                 : "r"(Addr));
  else if (Count == 2 && Trans)
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 "
                 "{%0, %1}, [%2];\n"
                 : "=r"(R[0]), "=r"(R[1])
                 : "r"(Addr));
  else if (Count == 2)
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];\n"
                 : "=r"(R[0]), "=r"(R[1])
                 : "r"(Addr));
  else if (Trans)
    asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];\n"
                 : "=r"(R[0])
                 : "r"(Addr));
  else
    asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];\n"
                 : "=r"(R[0])
                 : "r"(Addr));
}

/// stmatrix .x1/.x2/.x4 (sm_90): Count 32-bit registers of 16-bit pairs
/// from Src; this lane addresses row Lane % 8 of matrix Lane / 8.
template <int Count>
__device__ inline void stmatrix(void *Smem, const void *Src) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  const unsigned *R = reinterpret_cast<const unsigned *>(Src);
  unsigned Addr = smemAddress(Smem);
  if (Count == 4)
    asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 "
                 "[%0], {%1, %2, %3, %4};\n" ::"r"(Addr),
                 "r"(R[0]), "r"(R[1]), "r"(R[2]), "r"(R[3])
                 : "memory");
  else if (Count == 2)
    asm volatile("stmatrix.sync.aligned.m8n8.x2.shared.b16 "
                 "[%0], {%1, %2};\n" ::"r"(Addr),
                 "r"(R[0]), "r"(R[1])
                 : "memory");
  else
    asm volatile(
        "stmatrix.sync.aligned.m8n8.x1.shared.b16 [%0], {%1};\n" ::"r"(Addr),
        "r"(R[0])
        : "memory");
#else
  __trap();
#endif
}

/// The A and B operand list of an mma: four and two 32-bit registers.
#define TILEC_MMA_AB4                                                          \
  "r"(RA[0]), "r"(RA[1]), "r"(RA[2]), "r"(RA[3]), "r"(RB[0]), "r"(RB[1])

/// mma.sync m16n8k16 (f16 or bf16 inputs, f32 accumulators), m16n8k32
/// (8-bit integers into s32), m16n8k8 (tf32 into f32); D += A * B. Not
/// volatile: a pure function of registers, which the compiler may
/// interleave with the loads of the next operands.
#define TILEC_DEFINE_MMA(Name, DT, Shape, Types, DCons)                        \
  __device__ inline void Name(DT *D, const void *A, const void *B) {           \
    const unsigned *RA = reinterpret_cast<const unsigned *>(A);                \
    const unsigned *RB = reinterpret_cast<const unsigned *>(B);                \
    asm("mma.sync.aligned." Shape ".row.col." Types                            \
        " {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "                      \
        "{%0, %1, %2, %3};\n"                                                  \
        : DCons(D)                                                             \
        : TILEC_MMA_AB4);                                                      \
  }
#define TILEC_MMA_F32(D) "+f"(D[0]), "+f"(D[1]), "+f"(D[2]), "+f"(D[3])
#define TILEC_MMA_S32(D) "+r"(D[0]), "+r"(D[1]), "+r"(D[2]), "+r"(D[3])

TILEC_DEFINE_MMA(mmaM16N8K16F32F16, float, "m16n8k16", "f32.f16.f16.f32",
                 TILEC_MMA_F32)
TILEC_DEFINE_MMA(mmaM16N8K16F32BF16, float, "m16n8k16", "f32.bf16.bf16.f32",
                 TILEC_MMA_F32)
TILEC_DEFINE_MMA(mmaM16N8K32S32S8, int, "m16n8k32", "s32.s8.s8.s32",
                 TILEC_MMA_S32)
TILEC_DEFINE_MMA(mmaM16N8K32S32U8, int, "m16n8k32", "s32.u8.u8.s32",
                 TILEC_MMA_S32)
// 4-bit operands: each register holds eight elements, the lower nibble of
// each byte first (the packed storage of int4 buffers).
TILEC_DEFINE_MMA(mmaM16N8K64S32S4, int, "m16n8k64", "s32.s4.s4.s32",
                 TILEC_MMA_S32)
TILEC_DEFINE_MMA(mmaM16N8K64S32U4, int, "m16n8k64", "s32.u4.u4.s32",
                 TILEC_MMA_S32)
TILEC_DEFINE_MMA(mmaM16N8K8F32TF32, float, "m16n8k8", "f32.tf32.tf32.f32",
                 TILEC_MMA_F32)

/// m16n8k16 with f16 accumulators: D is two registers of half2.
__device__ inline void mmaM16N8K16F16F16(void *D, const void *A,
                                         const void *B) {
  unsigned *RD = reinterpret_cast<unsigned *>(D);
  const unsigned *RA = reinterpret_cast<const unsigned *>(A);
  const unsigned *RB = reinterpret_cast<const unsigned *>(B);
  asm("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 "
      "{%0, %1}, {%2, %3, %4, %5}, {%6, %7}, {%0, %1};\n"
      : "+r"(RD[0]), "+r"(RD[1])
      : TILEC_MMA_AB4);
}

//===--- Warpgroup MMA (sm_90a) -------------------------------------------===//
// wgmma.mma_async itself is inline PTX in the kernel (its register list
// depends on the shape). These helpers build the shared-memory matrix
// descriptors and order the asynchronous operations.

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 &&                          \
    defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define TILEC_WGMMA_ASM(...) asm volatile(__VA_ARGS__)
#else
#define TILEC_WGMMA_ASM(...) __trap()
#endif

/// A matrix descriptor: Fields (LBO, SBO, swizzle mode, computed by the
/// compiler) with the start address of the operand tile at Smem in bits
/// 0-13 (address bits 4-17).
__device__ inline unsigned long long
wgmmaDescriptor(const void *Smem, unsigned long long Fields) {
  return Fields | ((smemAddress(Smem) & 0x3FFFFu) >> 4);
}

/// Orders the warpgroup's earlier register and shared-memory accesses
/// before the wgmma.mma_async that follow.
__device__ inline void wgmmaFence() {
  TILEC_WGMMA_ASM("wgmma.fence.sync.aligned;\n" ::: "memory");
}

/// Closes a group of the wgmma.mma_async issued since the last commit.
__device__ inline void wgmmaCommit() {
  TILEC_WGMMA_ASM("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}

/// Waits until at most Pending of the warpgroup's groups are in flight.
template <int Pending> __device__ inline void wgmmaWait() {
  TILEC_WGMMA_ASM("wgmma.wait_group.sync.aligned %0;\n" ::"n"(Pending)
                  : "memory");
}

__device__ inline void wgmmaFenceRegister(float &R) {
  asm volatile("" : "+f"(R)::"memory");
}
__device__ inline void wgmmaFenceRegister(unsigned &R) {
  asm volatile("" : "+r"(R)::"memory");
}
__device__ inline void wgmmaFenceRegister(int &R) {
  asm volatile("" : "+r"(R)::"memory");
}

/// Keeps the compiler from moving accesses of the N-element register array
/// R across this point: wgmma reads and writes it behind the compiler's
/// back between wgmmaFence and wgmmaWait. 16- and 8-bit arrays are fenced
/// as 32-bit words.
template <int N, typename T> __device__ inline void wgmmaFenceOperands(T *R) {
  if constexpr (sizeof(T) == 4) {
#pragma unroll
    for (int I = 0; I < N; ++I)
      wgmmaFenceRegister(R[I]);
  } else {
    unsigned *Words = reinterpret_cast<unsigned *>(R);
#pragma unroll
    for (int I = 0; I < N * int(sizeof(T)) / 4; ++I)
      wgmmaFenceRegister(Words[I]);
  }
}

/// setmaxnreg: the executing warpgroup's registers per thread grow to (Inc;
/// waits until the block's pool has them) or shrink to (Dec; returns them
/// to the pool) N, a multiple of 8 in [24, 256]. Every thread of the
/// warpgroup runs it.
template <int N> __device__ inline void setMaxNRegInc() {
  TILEC_WGMMA_ASM("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(N));
}
template <int N> __device__ inline void setMaxNRegDec() {
  TILEC_WGMMA_ASM("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(N));
}

/// Orders this thread's completed generic-proxy shared-memory writes
/// before later async-proxy accesses (wgmma operand reads) that a barrier
/// publishes them to.
__device__ inline void fenceProxyAsync() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
#endif
}

/// Programmatic dependent launch (sm_90): waits until the grids this one
/// was launched after have completed and their memory is visible. A no-op
/// for a kernel launched without the attribute.
__device__ inline void gridDependencyWait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;\n" ::: "memory");
#endif
}

/// Lets the next kernel of the stream, launched with programmatic stream
/// serialization, be scheduled once every block of this grid has run this
/// (or exited); it still waits for this grid in gridDependencyWait.
__device__ inline void launchDependentGrids() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
#endif
}

/// mbarrier.init with the number of arrivals that complete a phase. The
/// caller (one thread) makes it visible with a block barrier; on sm_90 the
/// fence also orders it for the asynchronous proxy and the cluster.
__device__ inline void mbarrierInit(void *Bar, unsigned Count) {
  asm volatile("mbarrier.init.shared.b64 [%0], %1;\n" ::"r"(smemAddress(Bar)),
               "r"(Count)
               : "memory");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
#endif
}

/// One arrival, with release semantics at CTA scope (the PTX default): the
/// thread's earlier memory accesses happen before a wait that observes the
/// completed phase. Returns the phase state (callers may ignore it).
__device__ inline unsigned long long mbarrierArrive(void *Bar) {
  unsigned long long State;
  asm volatile("mbarrier.arrive.shared.b64 %0, [%1];\n"
               : "=l"(State)
               : "r"(smemAddress(Bar))
               : "memory");
  return State;
}

/// One arrival once all of the thread's earlier cp.async copies have
/// completed (cp.async.mbarrier.arrive.noinc: the arrival is one of those
/// the barrier was initialized to expect); their data is then visible to
/// a wait that observes the phase.
__device__ inline void mbarrierArriveCpAsync(void *Bar) {
  asm volatile("cp.async.mbarrier.arrive.noinc.shared.b64 [%0];\n" ::"r"(
                   smemAddress(Bar))
               : "memory");
}

/// Blocks until the phase with parity Parity (0 or 1) has completed; the
/// wait has acquire semantics at CTA scope (the PTX default). sm_90 uses
/// try_wait, which suspends the thread for a while; sm_80 spins on
/// test_wait.
__device__ inline void mbarrierWait(void *Bar, unsigned Parity) {
  unsigned Addr = smemAddress(Bar);
  unsigned Done = 0;
  Parity &= 1u;
  while (!Done) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("{\n.reg .pred P;\n"
                 "mbarrier.try_wait.parity.shared.b64 P, [%1], %2;\n"
                 "selp.u32 %0, 1, 0, P;\n}\n"
                 : "=r"(Done)
                 : "r"(Addr), "r"(Parity)
                 : "memory");
#else
    asm volatile("{\n.reg .pred P;\n"
                 "mbarrier.test_wait.parity.shared.b64 P, [%1], %2;\n"
                 "selp.u32 %0, 1, 0, P;\n}\n"
                 : "=r"(Done)
                 : "r"(Addr), "r"(Parity)
                 : "memory");
#endif
  }
}

/// Adds Bytes to the transaction count of the current phase (sm_90+;
/// tilec rejects T.mbarrier_expect_tx for older targets).
__device__ inline void mbarrierExpectTx(void *Bar, unsigned Bytes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile(
      "mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%0], %1;\n" ::"r"(
          smemAddress(Bar)),
      "r"(Bytes)
      : "memory");
#else
  (void)Bar;
  (void)Bytes;
  __trap();
#endif
}

//===--- Tensor memory access (TMA, sm_90) --------------------------------===//
// The launcher encodes one CUtensorMap per (tensor, box, swizzle) a kernel
// loads with TMA (tmaEncodeTiled) and passes it by value as a
// `const __grid_constant__ CUtensorMap` parameter; one thread issues each
// box with tmaLoad, which completes on an mbarrier (its expected
// transaction bytes set with mbarrierExpectTx). Out-of-bounds elements of
// a box are filled with zeros.

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define TILEC_TMA_ASM(...) asm volatile(__VA_ARGS__)
#else
#define TILEC_TMA_ASM(...) __trap()
#endif

/// One box of the tensor Map at coordinates (C0 innermost, C1, ...) into
/// shared memory at Dst (128-byte aligned; the swizzle's atom when
/// swizzled), completing Bar's transaction bytes.
__device__ inline void tmaLoad(void *Dst, const CUtensorMap *Map, void *Bar,
                               int C0, int C1) {
  TILEC_TMA_ASM("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::"
                "complete_tx::bytes [%0], [%1, {%3, %4}], [%2];\n" ::"r"(
                    smemAddress(Dst)),
                "l"(Map), "r"(smemAddress(Bar)), "r"(C0), "r"(C1)
                : "memory");
}
__device__ inline void tmaLoad(void *Dst, const CUtensorMap *Map, void *Bar,
                               int C0, int C1, int C2) {
  TILEC_TMA_ASM("cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::"
                "complete_tx::bytes [%0], [%1, {%3, %4, %5}], [%2];\n" ::"r"(
                    smemAddress(Dst)),
                "l"(Map), "r"(smemAddress(Bar)), "r"(C0), "r"(C1), "r"(C2)
                : "memory");
}
__device__ inline void tmaLoad(void *Dst, const CUtensorMap *Map, void *Bar,
                               int C0, int C1, int C2, int C3) {
  TILEC_TMA_ASM(
      "cp.async.bulk.tensor.4d.shared::cluster.global.mbarrier::"
      "complete_tx::bytes [%0], [%1, {%3, %4, %5, %6}], [%2];\n" ::"r"(
          smemAddress(Dst)),
      "l"(Map), "r"(smemAddress(Bar)), "r"(C0), "r"(C1), "r"(C2), "r"(C3)
      : "memory");
}
__device__ inline void tmaLoad(void *Dst, const CUtensorMap *Map, void *Bar,
                               int C0, int C1, int C2, int C3, int C4) {
  TILEC_TMA_ASM(
      "cp.async.bulk.tensor.5d.shared::cluster.global.mbarrier::"
      "complete_tx::bytes [%0], [%1, {%3, %4, %5, %6, %7}], [%2];\n" ::"r"(
          smemAddress(Dst)),
      "l"(Map), "r"(smemAddress(Bar)), "r"(C0), "r"(C1), "r"(C2), "r"(C3),
      "r"(C4)
      : "memory");
}

/// Adds Bytes bytes of float32 values at shared Src to those at global Dst
/// with the bulk copy engine, as one bulk group of the executing thread:
/// the thread goes on at once, and Src may be written again only after
/// bulkWaitRead. Both addresses 16-byte aligned, Bytes a multiple of 16.
__device__ inline void bulkReduceAdd(float *Dst, const float *Src,
                                     unsigned Bytes) {
  TILEC_TMA_ASM("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 "
                "[%0], [%1], %2;\n"
                "cp.async.bulk.commit_group;\n" ::"l"(Dst),
                "r"(smemAddress(Src)), "r"(Bytes)
                : "memory");
}

/// Waits until the bulk groups of the executing thread have read their
/// shared sources (their global writes may still be in flight).
__device__ inline void bulkWaitRead() {
  TILEC_TMA_ASM("cp.async.bulk.wait_group.read 0;\n" ::: "memory");
}

/// Encodes a tiled tensor map of a row-major tensor at Base: Rank dims
/// (Dims innermost first), byte strides of dims 1.. (Strides), a box of
/// Box elements per dim, zero fill out of bounds. The driver function is
/// reached through the runtime, so programs link only cudart. Returns
/// false when the driver refuses the map.
inline bool tmaEncodeTiled(CUtensorMap *Map, CUtensorMapDataType Type,
                           unsigned Rank, const void *Base,
                           const cuuint64_t *Dims, const cuuint64_t *Strides,
                           const cuuint32_t *Box, CUtensorMapSwizzle Swizzle) {
  typedef CUresult (*EncodeFn)(CUtensorMap *, CUtensorMapDataType, cuuint32_t,
                               void *, const cuuint64_t *, const cuuint64_t *,
                               const cuuint32_t *, const cuuint32_t *,
                               CUtensorMapInterleave, CUtensorMapSwizzle,
                               CUtensorMapL2promotion, CUtensorMapFloatOOBfill);
  static EncodeFn Encode = NULL;
  if (!Encode) {
    void *Fn = NULL;
    cudaDriverEntryPointQueryResult Found;
#if CUDART_VERSION >= 12050
    cudaError_t Err = cudaGetDriverEntryPointByVersion(
        "cuTensorMapEncodeTiled", &Fn, 12000, cudaEnableDefault, &Found);
#else
    cudaError_t Err = cudaGetDriverEntryPoint("cuTensorMapEncodeTiled", &Fn,
                                              cudaEnableDefault, &Found);
#endif
    if (Err != cudaSuccess || Found != cudaDriverEntryPointSuccess || !Fn)
      return false;
    Encode = (EncodeFn)Fn;
  }
  const cuuint32_t ElementStrides[5] = {1, 1, 1, 1, 1};
  return Encode(Map, Type, Rank, const_cast<void *>(Base), Dims, Strides, Box,
                ElementStrides, CU_TENSOR_MAP_INTERLEAVE_NONE, Swizzle,
                CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

/// bar.sync on named barrier Id (0-15) among Count threads (a multiple of
/// 32); like __syncthreads, it orders shared-memory accesses among them.
__device__ inline void namedBarrierSync(unsigned Id, unsigned Count) {
  asm volatile("bar.sync %0, %1;\n" ::"r"(Id), "r"(Count) : "memory");
}

/// bar.arrive on named barrier Id: counts the executing threads towards
/// Count without waiting (the other side waits with bar.sync).
__device__ inline void namedBarrierArrive(unsigned Id, unsigned Count) {
  asm volatile("bar.arrive %0, %1;\n" ::"r"(Id), "r"(Count) : "memory");
}

#undef TILEC_DEFINE_MMA
#undef TILEC_MMA_F32
#undef TILEC_MMA_S32
#undef TILEC_MMA_AB4

#else /* HIP */

//===--- bfloat16 pairs and MFMA (gfx90a, gfx940) -------------------------===//

/// Two bfloat16 values, the unit of a converting store of bf16 pairs.
struct bfloat162 {
  hip_bfloat16 x, y;
};

__device__ inline bfloat162 floats2bfloat162(float X, float Y) {
  return {hip_bfloat16(X), hip_bfloat16(Y)};
}

/* MFMA: D += A * B for one wavefront. Every lane passes its elements of
 * the instruction's A and B tiles and of its accumulator (the layouts of
 * lib/Layout/MfmaLayouts.h) as consecutive registers of the kernel's
 * arrays; they are copied into the builtins' vector types (memcpy: the
 * arrays need not have the vectors' alignment) and the copies vanish. */
typedef _Float16 mfmaHalf4 __attribute__((ext_vector_type(4)));
typedef short mfmaBf16x4 __attribute__((ext_vector_type(4)));
typedef float mfmaFloat4 __attribute__((ext_vector_type(4)));
typedef float mfmaFloat16 __attribute__((ext_vector_type(16)));
typedef int mfmaInt4 __attribute__((ext_vector_type(4)));

template <typename T> __device__ inline T mfmaLoad(const void *P) {
  T V;
  __builtin_memcpy(&V, P, sizeof(T));
  return V;
}

#define TILEC_DEFINE_MFMA(Name, DT, AccT, OpT)                                 \
  __device__ inline void mfma_##Name(DT *D, const void *A, const void *B) {    \
    AccT Acc = mfmaLoad<AccT>(D);                                              \
    Acc = __builtin_amdgcn_mfma_##Name(mfmaLoad<OpT>(A), mfmaLoad<OpT>(B),     \
                                       Acc, 0, 0, 0);                          \
    __builtin_memcpy(D, &Acc, sizeof(AccT));                                   \
  }

TILEC_DEFINE_MFMA(f32_16x16x16f16, float, mfmaFloat4, mfmaHalf4)
TILEC_DEFINE_MFMA(f32_32x32x8f16, float, mfmaFloat16, mfmaHalf4)
TILEC_DEFINE_MFMA(f32_16x16x16bf16_1k, float, mfmaFloat4, mfmaBf16x4)
TILEC_DEFINE_MFMA(f32_32x32x8bf16_1k, float, mfmaFloat16, mfmaBf16x4)
/* gfx90a: four int8 per lane; gfx940: eight. */
TILEC_DEFINE_MFMA(i32_16x16x16i8, int, mfmaInt4, int)
TILEC_DEFINE_MFMA(i32_16x16x32_i8, int, mfmaInt4, long)
/* gfx940: eight FNUZ fp8 (fp8: e4m3fnuz, bf8: e5m2fnuz) per lane. */
TILEC_DEFINE_MFMA(f32_16x16x32_fp8_fp8, float, mfmaFloat4, long)
TILEC_DEFINE_MFMA(f32_32x32x16_fp8_fp8, float, mfmaFloat16, long)
TILEC_DEFINE_MFMA(f32_16x16x32_bf8_bf8, float, mfmaFloat4, long)
TILEC_DEFINE_MFMA(f32_32x32x16_bf8_bf8, float, mfmaFloat16, long)

#undef TILEC_DEFINE_MFMA

#endif /* __CUDACC__ */

/* Philox4x32-10 (Salmon, Moraes, Dror, Shaw: "Parallel random numbers: as
 * easy as 1, 2, 3", SC'11), with the stream layout of curand's
 * curandStatePhilox4_32_10_t, so that T.rng_* draw what TileLang's curand
 * calls draw. A 128-bit counter (words 0-3, least significant first) is
 * encrypted under a 64-bit key (the seed) into four output words; the
 * stream of (seed, seq, off) is word (off % 4) of the block of counter
 * seq * 2^64 + off / 4, then the following words, four per counter value.
 *
 * State (11 unsigned words, the rng_state array Sema allocates): counter
 * [0, 4), key [4, 6), the current counter's output [6, 10), the index of
 * the next output word [10]. */
namespace philox {
constexpr unsigned Ctr = 0, Key = 4, Out = 6, Next = 10;
constexpr unsigned Mul0 = 0xD2511F53u, Mul1 = 0xCD9E8D57u;
constexpr unsigned Weyl0 = 0x9E3779B9u, Weyl1 = 0xBB67AE85u;

/* The ten rounds on S's counter and key, into S's output. */
__device__ inline void encrypt(unsigned *S) {
  unsigned C0 = S[Ctr], C1 = S[Ctr + 1], C2 = S[Ctr + 2], C3 = S[Ctr + 3];
  unsigned K0 = S[Key], K1 = S[Key + 1];
#pragma unroll
  for (int Round = 0; Round != 10; ++Round) {
    unsigned Hi0 = __umulhi(Mul0, C0), Lo0 = Mul0 * C0;
    unsigned Hi1 = __umulhi(Mul1, C2), Lo1 = Mul1 * C2;
    C0 = Hi1 ^ C1 ^ K0;
    C1 = Lo1;
    C2 = Hi0 ^ C3 ^ K1;
    C3 = Lo0;
    K0 += Weyl0;
    K1 += Weyl1;
  }
  S[Out] = C0;
  S[Out + 1] = C1;
  S[Out + 2] = C2;
  S[Out + 3] = C3;
}

/* Adds N to the 128-bit counter words [First, 4) (First 0: the whole
 * counter; First 2: its upper half, the subsequence). */
__device__ inline void addToCounter(unsigned *S, unsigned First,
                                    unsigned long long N) {
  unsigned long long Carry = 0;
  for (unsigned W = First; W != 4; ++W) {
    unsigned long long Sum =
        (unsigned long long)S[Ctr + W] + (N & 0xFFFFFFFFull) + Carry;
    S[Ctr + W] = (unsigned)Sum;
    Carry = Sum >> 32;
    N >>= 32;
  }
}
} // namespace philox

/* curand_init(Seed, Seq, Off): counter Seq * 2^64 + Off / 4, next word
 * Off % 4. */
__device__ inline void philoxInit(unsigned *S, unsigned long long Seed,
                                  unsigned long long Seq,
                                  unsigned long long Off) {
  for (unsigned W = 0; W != 4; ++W)
    S[philox::Ctr + W] = 0;
  S[philox::Key] = (unsigned)Seed;
  S[philox::Key + 1] = (unsigned)(Seed >> 32);
  philox::addToCounter(S, 2, Seq);
  philox::addToCounter(S, 0, Off / 4);
  S[philox::Next] = (unsigned)(Off % 4);
  philox::encrypt(S);
}

/* curand(): the next word; the counter advances after every fourth. */
__device__ inline unsigned philoxNext(unsigned *S) {
  unsigned I = S[philox::Next];
  unsigned Word = I == 0   ? S[philox::Out]
                  : I == 1 ? S[philox::Out + 1]
                  : I == 2 ? S[philox::Out + 2]
                           : S[philox::Out + 3];
  if (I == 3) {
    philox::addToCounter(S, 0, 1);
    philox::encrypt(S);
  }
  S[philox::Next] = (I + 1) & 3u;
  return Word;
}

/* curand_uniform(): Word * 2^-32 + 2^-33, in (0, 1]. */
__device__ inline float philoxUniform(unsigned *S) {
  return __fmaf_rn((float)philoxNext(S), 2.3283064365386963e-10f,
                   1.1641532182693481e-10f);
}

/* curand_uniform_double() of the Philox generator: one word W,
 * W * 2^-32 + 2^-32, in (0, 1]. */
__device__ inline double philoxUniformDouble(unsigned *S) {
  return __fma_rn((double)philoxNext(S), 2.3283064365386963e-10,
                  2.3283064365386963e-10);
}

} // namespace tilec
#endif /* (__CUDACC__ || __HIPCC__) && __cplusplus */

#endif /* TILEC_RUNTIME_H */
