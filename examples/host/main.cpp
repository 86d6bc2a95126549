//===- main.cpp - Calling tilec kernels from C++ ---------------------------===//
//
// Runs the GEMM of examples/gemm.tile and the softmax of examples/softmax.tile
// through the launchers tilec generated for them (tile_gemm.h, tile_softmax.h,
// from add_tile_kernel in CMakeLists.txt), on fresh random fp16 data, and
// compares each result with a float64 CPU reference by relative L2 error.
// Outputs are filled with NaN before the launch, so an element the kernel
// never writes fails the check. Every CUDA call and launcher status is
// checked. Prints one PASS/FAIL line per kernel; exits with 0 when both pass,
// 1 when one fails and 77 when there is no CUDA device.
//
//===----------------------------------------------------------------------===//

#include "tile_gemm.h"
#include "tile_softmax.h"

#include <cuda_runtime_api.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

namespace {

using Half = uint16_t;

// fp16 has an 11-bit significand: outputs carry ~3e-4 relative rounding.
constexpr double Tolerance = 2e-3;
// All bits set: a NaN in fp16.
constexpr int PoisonByte = 0xFF;

/// Round-to-nearest-even float -> IEEE binary16 (no <cuda_fp16.h> needed
/// in host code).
Half floatToHalf(float F) {
  uint32_t X;
  std::memcpy(&X, &F, sizeof(X));
  uint32_t Sign = (X >> 16) & 0x8000u;
  uint32_t RawExp = (X >> 23) & 0xFFu;
  uint32_t Mant = X & 0x7FFFFFu;
  if (RawExp == 0xFF)
    return Half(Sign | 0x7C00u | (Mant ? 0x200u : 0u));
  int Exp = int(RawExp) - 127 + 15;
  if (Exp >= 31)
    return Half(Sign | 0x7C00u);
  uint32_t Shift = 13;
  uint32_t Bits = (uint32_t(Exp) << 10) | (Mant >> 13);
  if (Exp <= 0) {
    if (Exp < -10)
      return Half(Sign);
    Mant |= 0x800000u;
    Shift = uint32_t(14 - Exp);
    Bits = Mant >> Shift;
  }
  uint32_t Rem = Mant & ((1u << Shift) - 1);
  uint32_t Halfway = 1u << (Shift - 1);
  if (Rem > Halfway || (Rem == Halfway && (Bits & 1u)))
    ++Bits; // a carry into the exponent is still the right encoding
  return Half(Sign | Bits);
}

double halfToDouble(Half H) {
  int Exp = (H >> 10) & 0x1F;
  int Mant = H & 0x3FF;
  double V;
  if (Exp == 0)
    V = std::ldexp(double(Mant), -24);
  else if (Exp == 31)
    V = Mant ? NAN : INFINITY;
  else
    V = std::ldexp(double(Mant | 0x400), Exp - 25);
  return (H & 0x8000) ? -V : V;
}

bool cudaOk(cudaError_t Err, const char *What) {
  if (Err == cudaSuccess)
    return true;
  std::fprintf(stderr, "error: %s: %s\n", What, cudaGetErrorString(Err));
  return false;
}

/// A device allocation freed on scope exit.
class DeviceBuffer {
public:
  explicit DeviceBuffer(size_t Bytes) : Bytes(Bytes) {
    if (!cudaOk(cudaMalloc(&Ptr, Bytes), "cudaMalloc"))
      Ptr = nullptr;
  }
  ~DeviceBuffer() {
    if (Ptr)
      cudaFree(Ptr);
  }
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;

  void *get() const { return Ptr; }
  bool upload(const std::vector<Half> &Host) {
    return cudaOk(cudaMemcpy(Ptr, Host.data(), Bytes, cudaMemcpyHostToDevice),
                  "cudaMemcpy to device");
  }
  bool poison() { return cudaOk(cudaMemset(Ptr, PoisonByte, Bytes), "cudaMemset"); }
  bool download(std::vector<Half> &Host) {
    Host.resize(Bytes / sizeof(Half));
    return cudaOk(cudaMemcpy(Host.data(), Ptr, Bytes, cudaMemcpyDeviceToHost),
                  "cudaMemcpy to host");
  }

private:
  void *Ptr = nullptr;
  size_t Bytes;
};

std::vector<Half> randomHalves(size_t N, std::mt19937 &Rng, float Scale) {
  std::uniform_real_distribution<float> Dist(-Scale, Scale);
  std::vector<Half> Out(N);
  for (Half &H : Out)
    H = floatToHalf(Dist(Rng));
  return Out;
}

/// Launcher status, then the kernel's own errors through the stream.
bool finishLaunch(const char *Name, int Status, cudaStream_t Stream) {
  if (Status != TILEC_SUCCESS) {
    std::fprintf(stderr, "error: %s launcher: %s\n", Name, tilecGetErrorString(Status));
    return false;
  }
  return cudaOk(cudaStreamSynchronize(Stream), Name) &&
         cudaOk(cudaGetLastError(), Name);
}

bool failedEarly(const char *Name) {
  std::printf("%s: FAIL (see the error above)\n", Name);
  return false;
}

/// Prints the verdict for Out against Ref (relative L2 error; any NaN or
/// unwritten element fails).
bool report(const char *Name, const std::vector<Half> &Out, const std::vector<double> &Ref) {
  double Diff = 0, Norm = 0;
  size_t NonFinite = 0;
  for (size_t I = 0; I < Ref.size(); ++I) {
    double V = halfToDouble(Out[I]);
    if (!std::isfinite(V)) {
      ++NonFinite;
      continue;
    }
    Diff += (V - Ref[I]) * (V - Ref[I]);
    Norm += Ref[I] * Ref[I];
  }
  double RelErr = std::sqrt(Diff) / (Norm > 0 ? std::sqrt(Norm) : 1.0);
  bool Pass = NonFinite == 0 && RelErr <= Tolerance;
  std::printf("%s: %s (rel err %.2e, tolerance %.0e, %zu NaN/unwritten of %zu)\n", Name,
              Pass ? "PASS" : "FAIL", RelErr, Tolerance, NonFinite, Ref.size());
  return Pass;
}

bool checkGemm(cudaStream_t Stream, std::mt19937 &Rng) {
  const size_t M = GEMM_M, N = GEMM_N, K = GEMM_K;
  std::vector<Half> A = randomHalves(M * K, Rng, 1.0f);
  std::vector<Half> B = randomHalves(K * N, Rng, 1.0f);
  DeviceBuffer DA(A.size() * sizeof(Half)), DB(B.size() * sizeof(Half)),
      DC(M * N * sizeof(Half));
  if (!DA.get() || !DB.get() || !DC.get() || !DA.upload(A) || !DB.upload(B) ||
      !DC.poison() ||
      !finishLaunch("gemm", matmul(DA.get(), DB.get(), DC.get(), Stream), Stream))
    return failedEarly("gemm");
  std::vector<Half> C;
  if (!DC.download(C))
    return failedEarly("gemm");

  std::vector<double> Ref(M * N, 0.0);
  for (size_t I = 0; I < M; ++I)
    for (size_t P = 0; P < K; ++P) {
      double AV = halfToDouble(A[I * K + P]);
      for (size_t J = 0; J < N; ++J)
        Ref[I * N + J] += AV * halfToDouble(B[P * N + J]);
    }
  return report("gemm", C, Ref);
}

bool checkSoftmax(cudaStream_t Stream, std::mt19937 &Rng) {
  const size_t M = SOFTMAX_M, N = SOFTMAX_N;
  std::vector<Half> X = randomHalves(M * N, Rng, 4.0f);
  DeviceBuffer DX(X.size() * sizeof(Half)), DY(X.size() * sizeof(Half));
  if (!DX.get() || !DY.get() || !DX.upload(X) || !DY.poison() ||
      !finishLaunch("softmax", softmax(DX.get(), DY.get(), Stream), Stream))
    return failedEarly("softmax");
  std::vector<Half> Y;
  if (!DY.download(Y))
    return failedEarly("softmax");

  std::vector<double> Ref(M * N);
  for (size_t I = 0; I < M; ++I) {
    double Max = -INFINITY, Sum = 0;
    for (size_t J = 0; J < N; ++J)
      Max = std::fmax(Max, halfToDouble(X[I * N + J]));
    for (size_t J = 0; J < N; ++J)
      Sum += Ref[I * N + J] = std::exp(halfToDouble(X[I * N + J]) - Max);
    for (size_t J = 0; J < N; ++J)
      Ref[I * N + J] /= Sum;
  }
  return report("softmax", Y, Ref);
}

} // namespace

int main() {
  int Devices = 0;
  if (cudaGetDeviceCount(&Devices) != cudaSuccess || Devices == 0) {
    std::printf("SKIPPED: no CUDA device\n");
    return 77;
  }
  unsigned Seed = std::random_device{}();
  std::printf("seed %u\n", Seed);
  std::mt19937 Rng(Seed);
  cudaStream_t Stream;
  if (!cudaOk(cudaStreamCreate(&Stream), "cudaStreamCreate"))
    return 1;
  bool GemmOk = checkGemm(Stream, Rng);
  bool SoftmaxOk = checkSoftmax(Stream, Rng);
  cudaStreamDestroy(Stream);
  bool Pass = GemmOk && SoftmaxOk;
  std::printf("%s\n", Pass ? "PASS" : "FAIL");
  return Pass ? 0 : 1;
}
