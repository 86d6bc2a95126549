// A host driver for checking a tilec GEMM under compute-sanitizer
// (bench/sanitize_gemm.sh builds it once per configuration): C = A @ op(B)
// with ELEM inputs and outputs, float accumulation, on fresh random data
// with C poisoned (all bytes 0xFF, NaN) before the launch; compared with a
// float reference on the host. Prints the max relative error and exits 1
// when it is over the tolerance.
//
//   -DGEMM_HEADER='"gemm.h"' -DGEMM_FN=matmul [-DTRANS_B] [-DDYN_M]
//   [-DELEM=__nv_bfloat16]; run as ./a.out M N K
#include GEMM_HEADER
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <vector>

#ifndef ELEM
#define ELEM half
#endif

inline float toFloat(half X) { return __half2float(X); }
inline float toFloat(__nv_bfloat16 X) { return __bfloat162float(X); }
inline ELEM fromFloat(float X) { return ELEM(X); }

int main(int Argc, char **Argv) {
  if (Argc != 4)
    return std::fprintf(stderr, "usage: %s M N K\n", Argv[0]), 2;
  const long M = std::atol(Argv[1]), N = std::atol(Argv[2]),
             K = std::atol(Argv[3]);
  std::vector<ELEM> A(M * K), B(K * N), C(M * N);
  std::srand(unsigned(M * 131 + N * 7 + K));
  for (ELEM &X : A)
    X = fromFloat(float(std::rand() % 17 - 8) / 8);
  for (ELEM &X : B)
    X = fromFloat(float(std::rand() % 17 - 8) / 8);
  ELEM *DA, *DB, *DC;
  cudaMalloc(&DA, A.size() * sizeof(ELEM));
  cudaMalloc(&DB, B.size() * sizeof(ELEM));
  cudaMalloc(&DC, C.size() * sizeof(ELEM));
  cudaMemcpy(DA, A.data(), A.size() * sizeof(ELEM), cudaMemcpyHostToDevice);
  cudaMemcpy(DB, B.data(), B.size() * sizeof(ELEM), cudaMemcpyHostToDevice);
  cudaMemset(DC, 0xFF, C.size() * sizeof(ELEM));
#ifdef DYN_M
  int Status = GEMM_FN(DA, DB, DC, (int64_t)M, 0);
#else
  int Status = GEMM_FN(DA, DB, DC, 0);
#endif
  if (Status != 0 || cudaDeviceSynchronize() != cudaSuccess)
    return std::printf("FAIL launch: %s\n", tilecGetErrorString(Status)), 1;
  cudaMemcpy(C.data(), DC, C.size() * sizeof(ELEM), cudaMemcpyDeviceToHost);
  double MaxErr = 0;
  for (long I = 0; I != M; ++I)
    for (long J = 0; J != N; ++J) {
      float Ref = 0;
      for (long P = 0; P != K; ++P) {
#ifdef TRANS_B
        float Bv = toFloat(B[J * K + P]);
#else
        float Bv = toFloat(B[P * N + J]);
#endif
        Ref += toFloat(A[I * K + P]) * Bv;
      }
      double Err = std::fabs(toFloat(C[I * N + J]) - Ref) /
                   std::max(1.0, std::fabs(double(Ref)));
      MaxErr = std::isnan(Err) ? INFINITY : std::max(MaxErr, Err);
    }
  bool Pass = MaxErr < 2e-2;
  std::printf("%s M=%ld N=%ld K=%ld max rel err %.2e\n",
              Pass ? "PASS" : "FAIL", M, N, K, MaxErr);
  return Pass ? 0 : 1;
}
