// Device checks of T.sync_grid, T.rng_* and atomics with return_prev, run
// by bench/prims3_device.sh on the generated launchers of
// test/CodeGen/Inputs/{grid_sync,rng,atomic_prev}.tile and TileLang's
// rand/rand_uint.py. The random numbers are compared bit for bit with
// curand's own Philox4x32-10 (curand_kernel.h, device API, header-only).
#include "ap.h"
#include "gs.h"
#include "gs_big.h"
#include "rand_uint.h"
#include "rng.h"
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <curand_kernel.h>
#include <vector>

static int Failures = 0;
static void report(const char *What, bool Ok, const char *Detail = "") {
  std::printf("%-58s %s %s\n", What, Ok ? "PASS" : "FAIL", Detail);
  Failures += !Ok;
}

__global__ void curandWords(unsigned *Out, int M) {
  curandStatePhilox4_32_10_t S;
  curand_init(42, 0, blockIdx.x * 128, &S);
  for (int J = 0; J < 128; ++J)
    if (blockIdx.x * 128 + J < M)
      Out[blockIdx.x * 128 + J] = curand(&S);
}

__global__ void curandUniform(float *U, double *D) {
  int T = threadIdx.x + blockIdx.x * blockDim.x;
  curandStatePhilox4_32_10_t S;
  curand_init(42, T, 0, &S);
  U[T] = curand_uniform(&S);
  D[T] = curand_uniform_double(&S);
}

template <typename T> std::vector<T> fetch(const T *P, size_t N) {
  std::vector<T> H(N);
  cudaMemcpy(H.data(), P, N * sizeof(T), cudaMemcpyDeviceToHost);
  return H;
}

static void checkRng() {
  const int M = 1024;
  unsigned *A, *Ref, *A2;
  float *U, *URef;
  double *D, *DRef;
  cudaMalloc(&A, M * 4);
  cudaMalloc(&A2, M * 4);
  cudaMalloc(&Ref, M * 4);
  cudaMalloc(&U, M * 4);
  cudaMalloc(&URef, M * 4);
  cudaMalloc(&D, M * 8);
  cudaMalloc(&DRef, M * 8);
  cudaMemset(A, 0xff, M * 4);
  cudaMemset(A2, 0xff, M * 4);
  report("rng.tile launcher status", rng(A, U, D, 0) == TILEC_SUCCESS);
  report("rand_uint.py launcher status",
         tilelang_rand_1d(A2, 0) == TILEC_SUCCESS);
  curandWords<<<M / 128, 1>>>(Ref, M);
  curandUniform<<<M / 32, 32>>>(URef, DRef);
  cudaError_t E = cudaDeviceSynchronize();
  report("rng kernels ran", E == cudaSuccess, cudaGetErrorString(E));
  auto HA = fetch(A, M), HA2 = fetch(A2, M), HR = fetch(Ref, M);
  auto HU = fetch(U, M), HUR = fetch(URef, M);
  auto HD = fetch(D, M), HDR = fetch(DRef, M);
  report("T.rng_rand == curand (rng.tile, 1024 words)", HA == HR);
  report("T.rng_rand == curand (rand_uint.py, 1024 words)", HA2 == HR);
  report("T.rng_rand_float() == curand_uniform (bitwise)",
         !std::memcmp(HU.data(), HUR.data(), M * 4));
  report("T.rng_rand_float(64) == curand_uniform_double (bitwise)",
         !std::memcmp(HD.data(), HDR.data(), M * 8));
  char Buf[128];
  std::snprintf(Buf, sizeof Buf, "first words %08x %08x, u %.9g, d %.17g",
                HA[0], HA[1], HU[0], HD[0]);
  report("rng sample", true, Buf);
}

static void checkGridSync() {
  const int N = 4096, Blocks = 8;
  std::vector<float> HX(N);
  double Sum = 0;
  for (int I = 0; I < N; ++I) {
    HX[I] = float(rand() % 2001 - 1000) / 1000.0f;
    Sum += HX[I];
  }
  float *X, *Partial, *Out;
  cudaMalloc(&X, N * 4);
  cudaMalloc(&Partial, Blocks * 4);
  cudaMalloc(&Out, 4);
  cudaMemcpy(X, HX.data(), N * 4, cudaMemcpyHostToDevice);
  bool Ok = true;
  for (int Rep = 0; Rep < 20 && Ok; ++Rep) {
    cudaMemset(Partial, 0xff, Blocks * 4);
    cudaMemset(Out, 0xff, 4);
    Ok &= grid_sum(X, Partial, Out, 0.5f, 0) == TILEC_SUCCESS;
    Ok &= cudaDeviceSynchronize() == cudaSuccess;
    float HOut = fetch(Out, 1)[0];
    Ok &= std::abs(HOut - 0.5 * Sum) < 1e-3;
  }
  report("T.sync_grid: two-phase sum, 20 runs, cooperative launch", Ok);
  // 8192 blocks of 1024 threads cannot all be resident on one GPU.
  float *BigX, *BigPartial;
  cudaMalloc(&BigX, size_t(8192) * 1024 * 4);
  cudaMalloc(&BigPartial, 8192 * 4);
  int Status = grid_sum_big(BigX, BigPartial, Out, 1.0f, 0);
  char Buf[64];
  std::snprintf(Buf, sizeof Buf, "status %d (%s)", Status,
                tilecGetErrorString(Status));
  report("T.sync_grid: oversized grid refused (COOPERATIVE_GRID)",
         Status == TILEC_ERROR_COOPERATIVE_GRID, Buf);
}

static void checkAtomicPrev() {
  const int T = 128;
  std::vector<float> HX(T);
  for (int I = 0; I < T; ++I)
    HX[I] = float(rand() % 2001 - 1000) / 100.0f;
  float *X, *Max, *PrevMax;
  int *Kept, *Count;
  long long *Sum, *PrevSum;
  cudaMalloc(&X, T * 4);
  cudaMalloc(&Kept, T * 4);
  cudaMalloc(&Count, 4);
  cudaMalloc(&Max, 4);
  cudaMalloc(&PrevMax, T * 4);
  cudaMalloc(&Sum, 8);
  cudaMalloc(&PrevSum, T * 8);
  cudaMemcpy(X, HX.data(), T * 4, cudaMemcpyHostToDevice);
  float Init = -1e30f;
  long long SumInit = 1000;
  cudaMemcpy(Max, &Init, 4, cudaMemcpyHostToDevice);
  cudaMemcpy(Sum, &SumInit, 8, cudaMemcpyHostToDevice);
  cudaMemset(Kept, 0xff, T * 4);
  bool Ok = tilec_main(X, Kept, Count, Max, PrevMax, Sum, PrevSum, 0) ==
                TILEC_SUCCESS &&
            cudaDeviceSynchronize() == cudaSuccess;
  report("atomic_prev.tile launcher status", Ok);
  int HCount = fetch(Count, 1)[0];
  auto HKept = fetch(Kept, T);
  std::vector<int> Want, Got(HKept.begin(), HKept.begin() + std::max(0, std::min(HCount, T)));
  for (int I = 0; I < T; ++I)
    if (HX[I] > 0)
      Want.push_back(I);
  std::sort(Got.begin(), Got.end());
  report("return_prev: compaction through a shared counter",
         HCount == int(Want.size()) && Got == Want);
  // Previous values of a max: sorted by arrival they form a running max.
  auto HPrev = fetch(PrevMax, T);
  float HMax = fetch(Max, 1)[0];
  bool MaxOk = HMax == *std::max_element(HX.begin(), HX.end());
  for (int I = 0; I < T; ++I)
    MaxOk &= HPrev[I] == Init ||
             std::find(HX.begin(), HX.end(), HPrev[I]) != HX.end();
  report("return_prev: atomic_max on float returns earlier values", MaxOk);
  // Previous values of a 64-bit add: a chain from the initial value.
  auto HPS = fetch(PrevSum, T);
  std::vector<std::pair<long long, int>> Chain;
  for (int I = 0; I < T; ++I)
    Chain.push_back({HPS[I], I});
  std::sort(Chain.begin(), Chain.end());
  bool SumOk = Chain[0].first == SumInit;
  for (int I = 0; I + 1 < T; ++I)
    SumOk &= Chain[I + 1].first == Chain[I].first + Chain[I].second;
  SumOk &= fetch(Sum, 1)[0] == Chain[T - 1].first + Chain[T - 1].second;
  report("return_prev: int64 atomic_add values chain", SumOk);
}

int main() {
  checkRng();
  checkGridSync();
  checkAtomicPrev();
  std::printf("%d failure(s)\n", Failures);
  return Failures != 0;
}
