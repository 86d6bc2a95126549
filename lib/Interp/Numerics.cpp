//===- Numerics.cpp - Scalar formats of the interpreter -------------------===//
#include "tilec/Interp/Numerics.h"
#include <cassert>
#include <cmath>
#include <limits>

namespace tilec {
namespace interp {
namespace {

/// A binary float format narrower than double.
struct FloatFormat {
  int ExpBits;
  int MantBits;
  bool HasInf;     // false: fp8 e4m3 (all-ones exponent is finite but 0x7f)
  bool Saturating; // overflow gives the largest finite value, not inf
  /// AMD's FNUZ fp8: bias one higher, every exponent finite, no negative
  /// zero, and the pattern of negative zero (sign bit alone) is the NaN.
  bool Fnuz = false;
  int bias() const { return (1 << (ExpBits - 1)) - 1 + (Fnuz ? 1 : 0); }
  int minExp() const { return 1 - bias(); }
  uint64_t nanBits() const { return uint64_t(1) << (ExpBits + MantBits); }
  double maxFinite() const {
    int MaxExp = (1 << ExpBits) - 1 - bias() - (HasInf ? 1 : 0);
    double MaxMant = HasInf || Fnuz ? 2.0 - std::ldexp(1.0, -MantBits)
                                    : 2.0 - std::ldexp(1.0, 1 - MantBits);
    return std::ldexp(MaxMant, MaxExp);
  }
};

FloatFormat formatOf(DType T) {
  switch (T) {
  case DType::Float16:
    return {5, 10, true, false};
  case DType::BFloat16:
    return {8, 7, true, false};
  case DType::Float32:
    return {8, 23, true, false};
  case DType::Float8E4M3:
    return {4, 3, false, true};
  case DType::Float8E5M2:
    return {5, 2, true, true};
  case DType::Float4E2M1:
    return {2, 1, false, true};
  case DType::Float8E4M3FNUZ:
    return {4, 3, false, true, true};
  case DType::Float8E5M2FNUZ:
    return {5, 2, false, true, true};
  default:
    assert(false && "not a narrow float type");
    return {11, 52, true, false};
  }
}

double roundToFormat(const FloatFormat &F, double D) {
  if (F.Fnuz && std::isinf(D))
    return std::copysign(F.maxFinite(), D);
  if (std::isnan(D) || std::isinf(D) || D == 0.0)
    return F.Fnuz && D == 0.0 ? 0.0 : D;
  int E;
  std::frexp(D, &E); // |D| = m * 2^E, m in [0.5, 1)
  int Exp = std::max(E - 1, F.minExp());
  double Ulp = std::ldexp(1.0, Exp - F.MantBits);
  double R = std::nearbyint(D / Ulp) * Ulp;
  double Max = F.maxFinite();
  if (F.Fnuz && R == 0.0)
    return 0.0;
  if (std::fabs(R) <= Max)
    return R;
  if (F.Saturating || !F.HasInf)
    return std::copysign(Max, D);
  return std::copysign(std::numeric_limits<double>::infinity(), D);
}

uint64_t encode(const FloatFormat &F, double D) {
  uint64_t Sign = std::signbit(D) ? 1 : 0;
  uint64_t SignBit = Sign << (F.ExpBits + F.MantBits);
  uint64_t ExpOnes = (uint64_t(1) << F.ExpBits) - 1;
  if (std::isnan(D) && F.Fnuz)
    return F.nanBits();
  if (std::isnan(D))
    return SignBit | (ExpOnes << F.MantBits) | ((1u << F.MantBits) - 1);
  if (std::isinf(D))
    return SignBit | (ExpOnes << F.MantBits);
  double A = std::fabs(D);
  if (A == 0.0)
    return F.Fnuz ? 0 : SignBit;
  int E;
  std::frexp(A, &E);
  int Exp = E - 1;
  if (Exp < F.minExp()) {
    double Mant = A / std::ldexp(1.0, F.minExp() - F.MantBits);
    return SignBit | uint64_t(Mant);
  }
  double Mant = (A / std::ldexp(1.0, Exp) - 1.0) * std::ldexp(1.0, F.MantBits);
  return SignBit | (uint64_t(Exp + F.bias()) << F.MantBits) | uint64_t(Mant);
}

double decode(const FloatFormat &F, uint64_t Bits) {
  uint64_t MantMask = (uint64_t(1) << F.MantBits) - 1;
  uint64_t ExpOnes = (uint64_t(1) << F.ExpBits) - 1;
  uint64_t Mant = Bits & MantMask;
  uint64_t Exp = (Bits >> F.MantBits) & ExpOnes;
  bool Neg = (Bits >> (F.ExpBits + F.MantBits)) & 1;
  double V;
  if (F.Fnuz && Bits == F.nanBits())
    return std::numeric_limits<double>::quiet_NaN();
  if (Exp == ExpOnes && F.HasInf)
    V = Mant ? std::numeric_limits<double>::quiet_NaN()
             : std::numeric_limits<double>::infinity();
  else if (Exp == ExpOnes && Mant == MantMask && F.ExpBits == 4 && !F.Fnuz)
    V = std::numeric_limits<double>::quiet_NaN();
  else if (Exp == 0)
    V = std::ldexp(double(Mant), F.minExp() - F.MantBits);
  else
    V = std::ldexp(1.0 + std::ldexp(double(Mant), -F.MantBits),
                   int(Exp) - F.bias());
  return Neg ? -V : V;
}

} // namespace

double roundToFloat(DType T, double D) {
  if (T == DType::Float64)
    return D;
  if (T == DType::Float32)
    return double(float(D));
  return roundToFormat(formatOf(T), D);
}

int64_t wrapInt(DType T, int64_t I) {
  if (T == DType::Bool)
    return I != 0;
  unsigned Bits = bitWidth(T);
  if (Bits >= 64)
    return I;
  uint64_t Mask = (uint64_t(1) << Bits) - 1;
  uint64_t U = uint64_t(I) & Mask;
  if (isSigned(T) && (U >> (Bits - 1)))
    U |= ~Mask;
  return int64_t(U);
}

uint64_t fromDouble(DType T, double D) {
  if (isFloat(T))
    return fromFloat(roundToFloat(T, D));
  if (T == DType::Bool)
    return D != 0.0;
  if (std::isnan(D))
    return 0;
  unsigned Bits = bitWidth(T);
  double Lo = isSigned(T) ? -std::ldexp(1.0, Bits - 1) : 0.0;
  double Hi =
      isSigned(T) ? std::ldexp(1.0, Bits - 1) - 1 : std::ldexp(1.0, Bits) - 1;
  double C = std::trunc(std::min(std::max(D, Lo), Hi));
  if (!isSigned(T) && C >= std::ldexp(1.0, 63))
    return uint64_t(C);
  return fromInt(int64_t(C));
}

double toDouble(DType T, uint64_t Raw) {
  if (isFloat(T))
    return asFloat(Raw);
  if (T == DType::UInt64)
    return double(Raw);
  return double(asInt(Raw));
}

uint64_t convert(DType From, DType To, uint64_t Raw) {
  if (!isFloat(From) && !isFloat(To))
    return fromInt(wrapInt(To, asInt(Raw)));
  return fromDouble(To, toDouble(From, Raw));
}

uint64_t toBits(DType T, uint64_t Raw) {
  if (!isFloat(T)) {
    unsigned Bits = bitWidth(T);
    return Bits >= 64 ? Raw : Raw & ((uint64_t(1) << Bits) - 1);
  }
  if (T == DType::Float64)
    return Raw;
  if (T == DType::Float32) {
    float F = float(asFloat(Raw));
    uint32_t B;
    std::memcpy(&B, &F, 4);
    return B;
  }
  return encode(formatOf(T), asFloat(Raw));
}

uint64_t fromBits(DType T, uint64_t Bits) {
  if (!isFloat(T))
    return fromInt(wrapInt(T, asInt(Bits)));
  if (T == DType::Float64)
    return Bits;
  if (T == DType::Float32) {
    uint32_t B = uint32_t(Bits);
    float F;
    std::memcpy(&F, &B, 4);
    return fromFloat(F);
  }
  return fromFloat(decode(formatOf(T), Bits));
}

} // namespace interp
} // namespace tilec
