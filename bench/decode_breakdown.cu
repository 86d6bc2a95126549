// decode_breakdown.cu: where a flash_decoding call's time goes, without
// torch (so that ncu can profile it quickly). Built with the tilec-generated
// flash_decoding .cu of one shape (bench/decode_breakdown.sh), it times, per
// call, over CUDA graph replays of back-to-back calls on 8 rotating input
// sets (the kernels read DRAM, not L2):
//   launcher  the generated launcher (split kernel + combine kernel, PDL)
//   split     the split kernel alone (plain launches)
//   combine   the combine kernel alone (plain launches)
//   empty     an empty kernel with the split kernel's grid (the launch floor)
// and prints the bytes of K and V the cached lengths cover over the
// launcher's time. LENGTHS (a braced list of BATCH cached lengths, e.g.
// bench/refs.py's decode_lengths) makes the batch ragged; by default every
// entry is full. SPLIT_GRID and COMBINE_GRID are the kernels' grids (the
// manifest's).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(x)                                                               \
  do {                                                                         \
    cudaError_t E = (x);                                                       \
    if (E != cudaSuccess) {                                                    \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,                  \
                   cudaGetErrorString(E));                                     \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

__global__ void emptyKernel() {}

namespace {

constexpr int NumSets = 8;
#ifndef CALLS_PER_GRAPH
#define CALLS_PER_GRAPH 400
#endif
constexpr int CallsPerGraph = CALLS_PER_GRAPH;

struct Set {
  void *Q, *K, *V, *Lens, *Lse, *Partial, *Out;
};

void *zeroed(size_t Bytes) {
  void *P = nullptr;
  CHECK(cudaMalloc(&P, Bytes));
  CHECK(cudaMemset(P, 0, Bytes));
  return P;
}

std::vector<int> cachedLengths() {
#ifdef LENGTHS
  std::vector<int> Lens = LENGTHS;
#else
  std::vector<int> Lens(BATCH, SEQLEN);
#endif
  if (Lens.size() != BATCH) {
    std::fprintf(stderr, "LENGTHS has %zu entries, not %d\n", Lens.size(),
                 BATCH);
    std::exit(1);
  }
  return Lens;
}

Set makeSet() {
  Set S;
  size_t Kv = size_t(BATCH) * SEQLEN * HEAD_KV * DIM * 2;
  S.Q = zeroed(size_t(BATCH) * HEADS * DIM * 2);
  S.K = zeroed(Kv);
  S.V = zeroed(Kv);
  std::vector<int> Lens = cachedLengths();
  S.Lens = zeroed(BATCH * sizeof(int));
  CHECK(cudaMemcpy(S.Lens, Lens.data(), BATCH * sizeof(int),
                   cudaMemcpyHostToDevice));
  S.Lse = zeroed(size_t(BATCH) * HEADS * SPLIT * 4);
  S.Partial = zeroed(size_t(BATCH) * HEADS * SPLIT * DIM * 4);
  S.Out = zeroed(size_t(BATCH) * HEADS * DIM * 2);
  return S;
}

/// Microseconds per call of Call(set index), median of 9 graph replays.
template <typename F> double timeCalls(cudaStream_t Stream, F Call) {
  cudaGraph_t Graph;
  cudaGraphExec_t Exec;
  CHECK(cudaStreamBeginCapture(Stream, cudaStreamCaptureModeThreadLocal));
  for (int I = 0; I < CallsPerGraph; ++I)
    Call(I % NumSets);
  CHECK(cudaStreamEndCapture(Stream, &Graph));
  CHECK(cudaGraphInstantiate(&Exec, Graph, 0));
  cudaEvent_t Start, End;
  CHECK(cudaEventCreate(&Start));
  CHECK(cudaEventCreate(&End));
  CHECK(cudaGraphLaunch(Exec, Stream));
  std::vector<float> Times;
  for (int Rep = 0; Rep < 9; ++Rep) {
    CHECK(cudaEventRecord(Start, Stream));
    CHECK(cudaGraphLaunch(Exec, Stream));
    CHECK(cudaEventRecord(End, Stream));
    CHECK(cudaEventSynchronize(End));
    float Ms;
    CHECK(cudaEventElapsedTime(&Ms, Start, End));
    Times.push_back(Ms);
  }
  std::sort(Times.begin(), Times.end());
  CHECK(cudaGraphExecDestroy(Exec));
  CHECK(cudaGraphDestroy(Graph));
  return 1e3 * Times[Times.size() / 2] / CallsPerGraph;
}

} // namespace

int main(int Argc, char **Argv) {
  bool ProfileOnly = Argc > 1;
  cudaStream_t Stream;
  CHECK(cudaStreamCreate(&Stream));
  std::vector<Set> Sets;
  for (int I = 0; I < NumSets; ++I)
    Sets.push_back(makeSet());
  auto Launcher = [&](int I) {
    Set &S = Sets[I];
    if (flash_decoding(S.Q, S.K, S.V, S.Lens, S.Lse, S.Partial, S.Out,
                       Stream) != 0)
      std::exit(2);
  };
  if (ProfileOnly) { // one call for ncu
    Launcher(0);
    CHECK(cudaStreamSynchronize(Stream));
    return 0;
  }
  dim3 SplitGrid SPLIT_GRID, CombineGrid COMBINE_GRID;
  int SplitSmem = FLASH_DECODING_KERNEL0_SHARED_MEMORY_BYTES;
  int CombineSmem = FLASH_DECODING_KERNEL1_SHARED_MEMORY_BYTES;
  CHECK(cudaFuncSetAttribute(flash_decoding_kernel0,
                             cudaFuncAttributeMaxDynamicSharedMemorySize,
                             SplitSmem));
  CHECK(cudaFuncSetAttribute(flash_decoding_kernel1,
                             cudaFuncAttributeMaxDynamicSharedMemorySize,
                             CombineSmem));
  auto Split = [&](int I) {
    Set &S = Sets[I];
    flash_decoding_kernel0<<<SplitGrid, FLASH_DECODING_KERNEL0_THREADS,
                             SplitSmem, Stream>>>(
        (half *)S.Q, (half *)S.K, (half *)S.V, (int *)S.Lens, (float *)S.Lse,
        (float *)S.Partial);
  };
  auto Combine = [&](int I) {
    Set &S = Sets[I];
    flash_decoding_kernel1<<<CombineGrid, FLASH_DECODING_KERNEL1_THREADS,
                             CombineSmem, Stream>>>(
        (float *)S.Lse, (float *)S.Partial, (half *)S.Out);
  };
  auto Empty = [&](int) { emptyKernel<<<SplitGrid, 128, 0, Stream>>>(); };
  double Cached = 0;
  for (int Len : cachedLengths())
    Cached += Len;
  double Bytes = 2.0 * Cached * HEAD_KV * DIM * 2;
  double T = timeCalls(Stream, Launcher);
  std::printf("b%d s%d split%d: launcher %.2f us (%.0f GB/s of K and V), split "
              "%.2f us, "
              "combine %.2f us, empty %.2f us\n",
              BATCH, SEQLEN, SPLIT, T, Bytes / T / 1e3,
              timeCalls(Stream, Split), timeCalls(Stream, Combine),
              timeCalls(Stream, Empty));
  return 0;
}
