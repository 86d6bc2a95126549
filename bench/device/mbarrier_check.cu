// Device check of tilec's mbarrier and named-barrier lowering (not built by
// CMake). test/CodeGen/Inputs/mbarrier_ws.tile has two kernels:
// producer_consumer (warp group 1 fills a two-stage shared ring, group 0
// reads it reversed, ordered only by full/empty mbarriers; no
// __syncthreads in the loop) and named_scan (a prefix sum among the first
// 256 of 512 threads, ordered by bar.sync 3, 256 inside `if tx < 256`).
// Each runs 200 times against a host reference; prints PASS or FAIL.
//
//   tilec test/CodeGen/Inputs/mbarrier_ws.tile --target=sm_90 -o
//   /tmp/mb90/mb.cu
//   nvcc -std=c++17 -O2 -gencode=arch=compute_90a,code=sm_90a -I runtime \
//     -I /tmp/mb90 /tmp/mb90/mb.cu bench/device/mbarrier_check.cu -o
//     /tmp/mb90/check
//   /tmp/mb90/check
//   # the sm_80 code (test_wait) on the same GPU, through PTX JIT:
//   tilec test/CodeGen/Inputs/mbarrier_ws.tile --target=sm_80 -o
//   /tmp/mb80/mb.cu
//   nvcc -std=c++17 -O2 -gencode=arch=compute_80,code=compute_80 -I runtime \
//     -I /tmp/mb80 /tmp/mb80/mb.cu bench/device/mbarrier_check.cu -o
//     /tmp/mb80/check
//   /tmp/mb80/check
#include "mb.h"
#include <cstdio>
#include <cuda_runtime.h>
#include <vector>
int main() {
  const int N = 1024;
  std::vector<float> A(N), B(N), Ref(N);
  for (int i = 0; i < N; ++i) {
    A[i] = float(i % 97) - 40.f;
    B[i] = float(i % 13);
  }
  for (int b = 0; b < N / 128; ++b)
    for (int t = 0; t < 128; ++t)
      Ref[b * 128 + t] = B[b * 128 + t] + 10.f * A[b * 128 + 127 - t];
  float *dA, *dB;
  int *dX;
  cudaMalloc(&dA, N * 4);
  cudaMalloc(&dB, N * 4);
  cudaMalloc(&dX, 256 * 4);
  cudaMemcpy(dA, A.data(), N * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(dB, B.data(), N * 4, cudaMemcpyHostToDevice);
  int bad = 0;
  for (int rep = 0; rep < 200; ++rep) {
    cudaMemcpy(dB, B.data(), N * 4, cudaMemcpyHostToDevice);
    int st = producer_consumer(dA, dB, 0);
    if (st) {
      printf("launch status %d\n", st);
      return 1;
    }
    std::vector<float> Out(N);
    cudaMemcpy(Out.data(), dB, N * 4, cudaMemcpyDeviceToHost);
    for (int i = 0; i < N; ++i)
      if (Out[i] != Ref[i]) {
        if (bad < 5)
          printf("pc mismatch rep %d i %d got %f want %f\n", rep, i, Out[i],
                 Ref[i]);
        ++bad;
      }
  }
  std::vector<int> X(256), XR(256);
  int acc = 0;
  for (int i = 0; i < 256; ++i) {
    X[i] = (i * 7) % 11 - 3;
    acc += X[i];
    XR[i] = acc;
  }
  for (int rep = 0; rep < 200; ++rep) {
    cudaMemcpy(dX, X.data(), 256 * 4, cudaMemcpyHostToDevice);
    int st = named_scan(dX, 0);
    if (st) {
      printf("launch status %d\n", st);
      return 1;
    }
    std::vector<int> Out(256);
    cudaMemcpy(Out.data(), dX, 256 * 4, cudaMemcpyDeviceToHost);
    for (int i = 0; i < 256; ++i)
      if (Out[i] != XR[i]) {
        if (bad < 10)
          printf("scan mismatch rep %d i %d got %d want %d\n", rep, i, Out[i],
                 XR[i]);
        ++bad;
      }
  }
  cudaError_t e = cudaDeviceSynchronize();
  printf("%s: %d mismatches, %s\n", bad ? "FAIL" : "PASS", bad,
         cudaGetErrorString(e));
  return bad != 0;
}
