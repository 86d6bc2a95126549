//===- Numerics.h - Scalar formats of the interpreter ----------*- C++ -*-===//
//
// The interpreter holds every scalar in 64 bits: integers (and i1) as a
// sign- or zero-extended int64_t, floats as the bits of a double whose value
// is exactly representable in the element type. These helpers round a
// double to a narrower float format (round to nearest even, as the GPUs'
// conversions do; fp8 saturates to its largest finite value like CUDA's
// __NV_SATFINITE), wrap integers to their width, and convert between the
// held value and the type's bit pattern (bitcast).
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_INTERP_NUMERICS_H
#define TILEC_INTERP_NUMERICS_H

#include "tilec/Support/DType.h"
#include <cstdint>
#include <cstring>

namespace tilec {
namespace interp {

inline double asFloat(uint64_t Raw) {
  double D;
  std::memcpy(&D, &Raw, sizeof(D));
  return D;
}
inline uint64_t fromFloat(double D) {
  uint64_t Raw;
  std::memcpy(&Raw, &D, sizeof(D));
  return Raw;
}
inline int64_t asInt(uint64_t Raw) { return static_cast<int64_t>(Raw); }
inline uint64_t fromInt(int64_t I) { return static_cast<uint64_t>(I); }

/// \p D rounded to the float type \p T (round to nearest even).
double roundToFloat(DType T, double D);
/// \p I wrapped to the integer type \p T (i1: nonzero is 1).
int64_t wrapInt(DType T, int64_t I);
/// A held value of type \p T from any double (floats round, ints truncate
/// toward zero and saturate, as a GPU's cvt.rzi.sat does).
uint64_t fromDouble(DType T, double D);
/// The value of a held scalar as a double.
double toDouble(DType T, uint64_t Raw);
/// Converts a held value of type \p From to type \p To (`cast`).
uint64_t convert(DType From, DType To, uint64_t Raw);
/// The bit pattern of a held value (its low tilec::bitWidth(T) bits) and back.
uint64_t toBits(DType T, uint64_t Raw);
uint64_t fromBits(DType T, uint64_t Bits);

} // namespace interp
} // namespace tilec

#endif // TILEC_INTERP_NUMERICS_H
