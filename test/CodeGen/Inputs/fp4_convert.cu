// Host check of the runtime's 4-bit helpers (tilec_runtime.h), built by
// nvcc and run on the CPU: every bfloat16 bit pattern is rounded by
// fp4e2m1FromFloat and compared with the nearest of the 16 codes by
// distance (ties to the code with an even mantissa bit, magnitudes above
// 6 saturate, NaN gives +6); every code converts back exactly; pairs of
// nibbles pack and unpack.
#include "tilec_runtime.h"
#include <cmath>
#include <cstdio>
#include <cstring>

static float bf16ToFloat(unsigned Bits) {
  unsigned Word = Bits << 16;
  float F;
  memcpy(&F, &Word, 4);
  return F;
}

static unsigned nearestCode(float X) {
  if (std::isnan(X))
    return 0x7;
  static const float Mag[8] = {0, 0.5f, 1, 1.5f, 2, 3, 4, 6};
  float A = std::fabs(X) > 6 ? 6 : std::fabs(X);
  unsigned Best = 0;
  for (unsigned C = 1; C < 8; ++C) {
    float D = std::fabs(Mag[C] - A), DB = std::fabs(Mag[Best] - A);
    if (D < DB || (D == DB && (C & 1) == 0))
      Best = C;
  }
  return std::signbit(X) ? Best | 8 : Best;
}

int main() {
  int Bad = 0;
  for (unsigned Bits = 0; Bits < 65536; ++Bits) {
    float X = bf16ToFloat(Bits);
    unsigned Got = tilec::fp4e2m1FromFloat(X), Want = nearestCode(X);
    if (Got != Want && Bad++ < 10)
      printf("FAIL %a: got %u, want %u\n", X, Got, Want);
  }
  for (unsigned C = 0; C < 16; ++C)
    if (tilec::fp4e2m1FromFloat(tilec::fp4e2m1ToFloat(uint8_t(C))) != C) {
      printf("FAIL round trip of code %u\n", C);
      ++Bad;
    }
  uint8_t Pair[2] = {0, 0};
  for (int I = 0; I < 4; ++I)
    tilec::setNibble(Pair, I, uint8_t(I * 4 - 7));
  for (int I = 0; I < 4; ++I)
    if (tilec::int4ToInt(tilec::nibbleAt(Pair, I)) != I * 4 - 7) {
      printf("FAIL int4 element %d\n", I);
      ++Bad;
    }
  if (Pair[0] != 0xD9 || Pair[1] != 0x51) {
    printf("FAIL packing: %02x %02x\n", Pair[0], Pair[1]);
    ++Bad;
  }
  printf(Bad ? "FAILED\n" : "PASSED\n");
  return Bad != 0;
}
