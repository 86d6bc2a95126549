//===- DType.h - Scalar element types --------------------------*- C++ -*-===//
//
// The scalar element types of the tile language, shared by Sema, the IR and
// the code generators. Every DType has three spellings:
//   - the TileLang name, used in user-facing messages ("float16"),
//   - the IR name, used in .tir text ("f16"),
//   - the C/CUDA type name, used by the emitters ("half").
// parseTileLangDType accepts the aliases TileLang accepts ("half", "float",
// "int", "float8_e4m3fn", ...); parseIRDType accepts only IR names.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_SUPPORT_DTYPE_H
#define TILEC_SUPPORT_DTYPE_H

#include "llvm/ADT/StringRef.h"
#include <cstdint>
#include <optional>

namespace tilec {

enum class DType : uint8_t {
  Bool,
  Int8,
  Int16,
  Int32,
  Int64,
  UInt8,
  UInt16,
  UInt32,
  UInt64,
  Float16,
  BFloat16,
  Float32,
  Float64,
  Float8E4M3,
  Float8E5M2,
  Int4,
  UInt4,
  Float4E2M1,
  /// AMD's fp8 encodings (gfx940's MFMA reads them): exponent bias 8 and
  /// 16, no infinities, no negative zero, NaN the one pattern 0x80.
  Float8E4M3FNUZ,
  Float8E5M2FNUZ,
};

/// Number of DType enumerators (for tables and exhaustive tests).
constexpr unsigned NumDTypes = unsigned(DType::Float8E5M2FNUZ) + 1;

/// TileLang spelling and its aliases ("float16", "half", "fp16", "float",
/// "int", "bool", "float8_e4m3fn", ...). Also accepts the IR spellings.
std::optional<DType> parseTileLangDType(llvm::StringRef Name);
/// Canonical TileLang name: "float16", "bfloat16", "int32", "bool", ...
llvm::StringRef tileLangName(DType T);

/// IR spelling: i1 i8 i16 i32 i64 u8 u16 u32 u64 f16 bf16 f32 f64 f8e4m3
/// f8e5m2 i4 u4 f4e2m1 f8e4m3fnuz f8e5m2fnuz.
llvm::StringRef irName(DType T);
std::optional<DType> parseIRDType(llvm::StringRef Name);

/// C/CUDA/HIP type name: "half", "__nv_bfloat16", "float", "int",
/// "signed char", "fp8_e4_t", ...
llvm::StringRef cTypeName(DType T);

/// Bits per element (4 for the packed 4-bit types, 1 for bool; a bool is
/// stored in one byte, see storageBytes).
unsigned bitWidth(DType T);
/// Bytes one element occupies in memory, rounded up (bool: 1, int4: 1).
/// Buffer sizes use bitWidth instead so that 4-bit types pack two per byte.
unsigned storageBytes(DType T);
/// Bits one element adds to a run of consecutive elements in memory (a
/// vector access): bitWidth, but 8 for bool, which is stored in a byte.
unsigned memoryBits(DType T);
bool isFloat(DType T);
/// Integer types, signed or unsigned; bool is NOT an integer here.
bool isInteger(DType T);
/// Signed integer types (bool and unsigned excluded).
bool isSigned(DType T);
bool isUnsigned(DType T);
bool isBool(DType T);
/// The 8-bit float types, OCP (e4m3, e5m2) and FNUZ.
bool isFloat8(DType T);
/// The FNUZ fp8 types.
bool isFnuz(DType T);

} // namespace tilec

#endif
