//===- DType.cpp - Scalar element types -----------------------------------===//

#include "tilec/Support/DType.h"
#include "llvm/ADT/StringSwitch.h"

using namespace tilec;

namespace {
struct DTypeInfo {
  const char *TileLang;
  const char *IR;
  const char *C;
  unsigned Bits;
};

// Indexed by DType; keep in enum order.
const DTypeInfo Table[NumDTypes] = {
    {"bool", "i1", "bool", 1},
    {"int8", "i8", "signed char", 8},
    {"int16", "i16", "short", 16},
    {"int32", "i32", "int", 32},
    {"int64", "i64", "int64_t", 64},
    {"uint8", "u8", "unsigned char", 8},
    {"uint16", "u16", "unsigned short", 16},
    {"uint32", "u32", "unsigned int", 32},
    {"uint64", "u64", "uint64_t", 64},
    {"float16", "f16", "half", 16},
    {"bfloat16", "bf16", "__nv_bfloat16", 16},
    {"float32", "f32", "float", 32},
    {"float64", "f64", "double", 64},
    {"float8_e4m3", "f8e4m3", "fp8_e4_t", 8},
    {"float8_e5m2", "f8e5m2", "fp8_e5_t", 8},
    {"int4", "i4", "int4_t", 4},
    {"uint4", "u4", "uint4_t", 4},
    {"float4_e2m1", "f4e2m1", "fp4_e2_t", 4},
    {"float8_e4m3fnuz", "f8e4m3fnuz", "tilec::fp8_e4m3fnuz", 8},
    {"float8_e5m2fnuz", "f8e5m2fnuz", "tilec::fp8_e5m2fnuz", 8},
};

const DTypeInfo &info(DType T) { return Table[unsigned(T)]; }
} // namespace

std::optional<DType> tilec::parseIRDType(llvm::StringRef Name) {
  for (unsigned I = 0; I != NumDTypes; ++I)
    if (Name == Table[I].IR)
      return DType(I);
  return std::nullopt;
}

std::optional<DType> tilec::parseTileLangDType(llvm::StringRef Name) {
  for (unsigned I = 0; I != NumDTypes; ++I)
    if (Name == Table[I].TileLang)
      return DType(I);
  auto Alias = llvm::StringSwitch<std::optional<DType>>(Name)
                   .Cases("half", "fp16", DType::Float16)
                   .Cases("float", "fp32", DType::Float32)
                   .Cases("double", "fp64", DType::Float64)
                   .Case("bf16", DType::BFloat16)
                   // tf32 values live in 32-bit floats; tensor-core gemms
                   // on float32 operands run in tf32 already.
                   .Case("tfloat32", DType::Float32)
                   .Case("int", DType::Int32)
                   .Case("uint", DType::UInt32)
                   .Cases("float8_e4m3fn", "e4m3_float8", DType::Float8E4M3)
                   .Case("e5m2_float8", DType::Float8E5M2)
                   .Case("float4_e2m1fn", DType::Float4E2M1)
                   .Default(std::nullopt);
  if (Alias)
    return Alias;
  return parseIRDType(Name);
}

llvm::StringRef tilec::tileLangName(DType T) { return info(T).TileLang; }
llvm::StringRef tilec::irName(DType T) { return info(T).IR; }
llvm::StringRef tilec::cTypeName(DType T) { return info(T).C; }
unsigned tilec::bitWidth(DType T) { return info(T).Bits; }
unsigned tilec::storageBytes(DType T) { return (info(T).Bits + 7) / 8; }
unsigned tilec::memoryBits(DType T) { return isBool(T) ? 8 : bitWidth(T); }

bool tilec::isFloat(DType T) {
  switch (T) {
  case DType::Float16:
  case DType::BFloat16:
  case DType::Float32:
  case DType::Float64:
  case DType::Float8E4M3:
  case DType::Float8E5M2:
  case DType::Float4E2M1:
  case DType::Float8E4M3FNUZ:
  case DType::Float8E5M2FNUZ:
    return true;
  default:
    return false;
  }
}

bool tilec::isFloat8(DType T) {
  return T == DType::Float8E4M3 || T == DType::Float8E5M2 || isFnuz(T);
}

bool tilec::isFnuz(DType T) {
  return T == DType::Float8E4M3FNUZ || T == DType::Float8E5M2FNUZ;
}

bool tilec::isSigned(DType T) {
  switch (T) {
  case DType::Int8:
  case DType::Int16:
  case DType::Int32:
  case DType::Int64:
  case DType::Int4:
    return true;
  default:
    return false;
  }
}

bool tilec::isUnsigned(DType T) {
  switch (T) {
  case DType::UInt8:
  case DType::UInt16:
  case DType::UInt32:
  case DType::UInt64:
  case DType::UInt4:
    return true;
  default:
    return false;
  }
}

bool tilec::isInteger(DType T) { return isSigned(T) || isUnsigned(T); }
bool tilec::isBool(DType T) { return T == DType::Bool; }
