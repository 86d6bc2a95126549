//===- InterpNumericsTests.cpp - The interpreter's scalar formats ---------===//
//
// Rounding to f16, bf16 and fp8 against values worked out by hand from the
// IEEE 754 / OCP FP8 formats: round to nearest even at the mantissa's last
// bit, subnormals, overflow (inf for f16 and bf16, saturation for fp8), and
// the bit patterns bitcast sees.
//
//===----------------------------------------------------------------------===//
#include "tilec/Interp/Numerics.h"
#include <catch2/catch.hpp>
#include <cmath>

using namespace tilec;
using namespace tilec::interp;

TEST_CASE("f16 rounds to nearest even", "[interp]") {
  // 1 + 2^-11 is halfway between 1 and 1 + 2^-10: ties to even (1).
  CHECK(roundToFloat(DType::Float16, 1.0 + std::ldexp(1.0, -11)) == 1.0);
  // 1 + 3 * 2^-11 is halfway between 1 + 2^-10 and 1 + 2^-9: even is 2^-9.
  CHECK(roundToFloat(DType::Float16, 1.0 + 3 * std::ldexp(1.0, -11)) ==
        1.0 + std::ldexp(1.0, -9));
  CHECK(roundToFloat(DType::Float16, 65504.0) == 65504.0);
  CHECK(std::isinf(roundToFloat(DType::Float16, 65520.0)));
  CHECK(roundToFloat(DType::Float16, 65519.0) == 65504.0);
  // The smallest subnormal, 2^-24, and half of it (ties to even: 0).
  CHECK(roundToFloat(DType::Float16, std::ldexp(1.0, -24)) ==
        std::ldexp(1.0, -24));
  CHECK(roundToFloat(DType::Float16, std::ldexp(1.0, -25)) == 0.0);
  CHECK(roundToFloat(DType::Float16, 0.1) == 0.0999755859375);
}

TEST_CASE("bf16 and fp8 round and saturate", "[interp]") {
  CHECK(roundToFloat(DType::BFloat16, 1.0 + std::ldexp(1.0, -8)) == 1.0);
  CHECK(roundToFloat(DType::BFloat16, 1.0 + 3 * std::ldexp(1.0, -8)) ==
        1.0 + std::ldexp(1.0, -6));
  CHECK(roundToFloat(DType::Float8E4M3, 448.0) == 448.0);
  CHECK(roundToFloat(DType::Float8E4M3, 1000.0) == 448.0);
  CHECK(roundToFloat(DType::Float8E4M3, 1.0625) == 1.0);  // tie to even
  CHECK(roundToFloat(DType::Float8E4M3, 1.1875) == 1.25); // tie to even
  CHECK(roundToFloat(DType::Float8E5M2, 57344.0) == 57344.0);
  CHECK(roundToFloat(DType::Float8E5M2, -1e6) == -57344.0);
}

TEST_CASE("bit patterns of the narrow formats", "[interp]") {
  CHECK(toBits(DType::Float16, fromFloat(1.0)) == 0x3c00);
  CHECK(toBits(DType::Float16, fromFloat(-2.0)) == 0xc000);
  CHECK(toBits(DType::Float16, fromFloat(std::ldexp(1.0, -24))) == 0x0001);
  CHECK(toBits(DType::BFloat16, fromFloat(1.0)) == 0x3f80);
  CHECK(toBits(DType::Float8E4M3, fromFloat(448.0)) == 0x7e);
  CHECK(toBits(DType::Float8E5M2, fromFloat(1.0)) == 0x3c);
  for (uint64_t Bits = 0; Bits < 0x7c00; ++Bits)
    REQUIRE(toBits(DType::Float16, fromBits(DType::Float16, Bits)) == Bits);
  for (uint64_t Bits = 0; Bits < 0x7f; ++Bits)
    REQUIRE(toBits(DType::Float8E4M3, fromBits(DType::Float8E4M3, Bits)) ==
            Bits);
  CHECK(std::isnan(asFloat(fromBits(DType::Float8E4M3, 0x7f))));
}

// AMD's FNUZ fp8 (the formats gfx940's MFMA reads): e4m3fnuz has bias 8,
// its largest value 0x7f = 1.875 * 2^7 = 240 and its smallest subnormal
// 0x01 = 2^-10; e5m2fnuz bias 16, 0x7f = 1.75 * 2^15 = 57344. 0x80 is
// the one NaN, and there is no negative zero.
TEST_CASE("FNUZ fp8 formats", "[interp]") {
  CHECK(toBits(DType::Float8E4M3FNUZ, fromFloat(1.0)) == 0x40);
  CHECK(toBits(DType::Float8E5M2FNUZ, fromFloat(1.0)) == 0x40);
  CHECK(toBits(DType::Float8E4M3FNUZ, fromFloat(-2.0)) == 0xc8);
  CHECK(roundToFloat(DType::Float8E4M3FNUZ, 240.0) == 240.0);
  CHECK(roundToFloat(DType::Float8E4M3FNUZ, 1000.0) == 240.0);
  CHECK(roundToFloat(DType::Float8E5M2FNUZ, -1e9) == -57344.0);
  CHECK(roundToFloat(DType::Float8E4M3FNUZ, 1.0625) == 1.0); // tie to even
  CHECK(toBits(DType::Float8E4M3FNUZ, fromFloat(240.0)) == 0x7f);
  CHECK(toBits(DType::Float8E5M2FNUZ, fromFloat(57344.0)) == 0x7f);
  CHECK(asFloat(fromBits(DType::Float8E4M3FNUZ, 0x01)) == std::ldexp(1.0, -10));
  CHECK(toBits(DType::Float8E4M3FNUZ, fromFloat(-0.0)) == 0x00);
  CHECK(toBits(DType::Float8E4M3FNUZ,
               fromDouble(DType::Float8E4M3FNUZ, -1e-9)) == 0x00);
  CHECK(toBits(DType::Float8E4M3FNUZ, fromFloat(NAN)) == 0x80);
  CHECK(std::isnan(asFloat(fromBits(DType::Float8E5M2FNUZ, 0x80))));
  for (DType T : {DType::Float8E4M3FNUZ, DType::Float8E5M2FNUZ})
    for (uint64_t Bits = 0; Bits < 0x100; ++Bits)
      if (Bits != 0x80)
        REQUIRE(toBits(T, fromBits(T, Bits)) == Bits);
}

TEST_CASE("integer wrapping and conversions", "[interp]") {
  CHECK(wrapInt(DType::Int8, 130) == -126);
  CHECK(wrapInt(DType::UInt8, -1) == 255);
  CHECK(wrapInt(DType::Int32, int64_t(1) << 31) == INT32_MIN);
  CHECK(asInt(convert(DType::Float32, DType::Int8, fromFloat(300.0))) == 127);
  CHECK(asInt(convert(DType::Float32, DType::Int32, fromFloat(-2.7))) == -2);
  CHECK(asFloat(convert(DType::Int32, DType::Float16, fromInt(2049))) ==
        2048.0);
}
