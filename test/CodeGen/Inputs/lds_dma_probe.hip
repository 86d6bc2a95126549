// Probe of hipcc's direct global->LDS loads (buffer_load ... lds) for
// hipcc_lds_dma_probe.test and docs/targets.md: a two-stage ring of one
// wavefront (64 lanes, so no barrier is needed) in which each iteration
// starts the load of the next stage into one LDS buffer and then reads the
// current stage from the other.
#include <hip/hip_runtime.h>

typedef int Rsrc __attribute__((ext_vector_type(4)));
typedef __attribute__((address_space(3))) void LdsVoid;

// LLVM's intrinsic, reached through its name: clang 15 has no builtin for it.
extern "C" __device__ void
ldsDma(Rsrc Resource, LdsVoid *Lds, int Bytes, int VOffset, int SOffset,
       int Offset, int Aux) __asm("llvm.amdgcn.raw.buffer.load.lds");

#ifndef BYTES
#define BYTES 4
#endif

__global__ void __launch_bounds__(64)
    ring(const float *In, float *Out, int Steps) {
  __shared__ float Stage[2][64 * BYTES / 4];
  unsigned long long Base = reinterpret_cast<unsigned long long>(In);
  // Buffer resource: base address, no stride, 1 GiB of records, and the
  // dword-3 flags of gfx9's raw buffers (32-bit data format).
  Rsrc R = {int(Base), int(Base >> 32), 1 << 30, 0x00020000};
  int Lane = threadIdx.x * BYTES;
  ldsDma(R, (LdsVoid *)Stage[0], BYTES, Lane, 0, 0, 0);
  float Acc = 0;
  for (int I = 0; I < Steps; ++I) {
    ldsDma(R, (LdsVoid *)Stage[(I + 1) & 1], BYTES, Lane + (I + 1) * 64 * BYTES,
           0, 0, 0);
    Acc += Stage[I & 1][threadIdx.x ^ 1];
  }
  Out[threadIdx.x] = Acc;
}
