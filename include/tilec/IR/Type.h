//===- Type.h - Types of tile IR values ------------------------*- C++ -*-===//
//
// A Type is a value-semantic description of an IR value: either a scalar of
// some DType, or a buffer with a memory scope, a shape and an element DType.
// Dims of a buffer are positive compile-time integers or names of symbolic
// dims (T.dynamic("M")), which the enclosing func binds to i32 block
// arguments. Types compare structurally with ==.
//
// Text form (see docs/ir.md):
//   scalar:  i32, f16, bf16, ...
//   buffer:  global<[M, 1024] f16>, shared<[128, 32] f16>, var<[1] i32>
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_IR_TYPE_H
#define TILEC_IR_TYPE_H

#include "tilec/Support/DType.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace llvm {
class raw_ostream;
}

namespace tilec {
namespace ir {

/// Memory scope of a buffer: where it lives and who can see it.
enum class Scope : uint8_t { Global, Shared, Fragment, Local, Var };

llvm::StringRef scopeName(Scope S);
std::optional<Scope> parseScope(llvm::StringRef Name);

/// One buffer dimension: a positive constant or a symbolic dim name.
class Dim {
public:
  Dim(int64_t Value) : Value(Value) {}
  static Dim symbol(llvm::StringRef Name) {
    Dim D(0);
    D.Symbol = Name.str();
    return D;
  }

  bool isStatic() const { return Symbol.empty(); }
  bool isSymbolic() const { return !Symbol.empty(); }
  /// The constant extent; only for static dims.
  int64_t getValue() const { return Value; }
  /// The symbol name; only for symbolic dims.
  llvm::StringRef getSymbol() const { return Symbol; }

  bool operator==(const Dim &O) const {
    return Value == O.Value && Symbol == O.Symbol;
  }
  bool operator!=(const Dim &O) const { return !(*this == O); }

private:
  int64_t Value;
  std::string Symbol;
};

class Type {
public:
  /// A default-constructed Type is invalid (isValid() == false); it never
  /// appears on a verified IR value.
  Type() = default;
  static Type scalar(DType T) {
    return Type(KindTy::Scalar, Scope::Global, {}, T);
  }
  static Type buffer(Scope S, std::vector<Dim> Dims, DType T) {
    return Type(KindTy::Buffer, S, std::move(Dims), T);
  }
  /// Shorthands for common scalars.
  static Type i1() { return scalar(DType::Bool); }
  static Type i32() { return scalar(DType::Int32); }
  static Type f32() { return scalar(DType::Float32); }

  bool isValid() const { return K != KindTy::Invalid; }
  bool isScalar() const { return K == KindTy::Scalar; }
  bool isBuffer() const { return K == KindTy::Buffer; }
  /// Whether this is a buffer in memory scope \p Sc.
  bool isBufferIn(Scope Sc) const { return isBuffer() && S == Sc; }

  /// Element type of a buffer or the type of a scalar.
  DType getDType() const { return Elem; }
  /// Scalar predicates (false for buffers).
  bool isInteger() const { return isScalar() && tilec::isInteger(Elem); }
  bool isFloat() const { return isScalar() && tilec::isFloat(Elem); }
  bool isBool() const { return isScalar() && Elem == DType::Bool; }
  bool isI32() const { return isScalar() && Elem == DType::Int32; }

  /// Buffer accessors; only for buffers.
  Scope getScope() const { return S; }
  llvm::ArrayRef<Dim> getDims() const { return Dims; }
  unsigned rank() const { return Dims.size(); }
  bool hasStaticShape() const;
  /// The static extents; std::nullopt when some dim is symbolic.
  std::optional<std::vector<int64_t>> getStaticShape() const;
  /// Product of the dims; std::nullopt when some dim is symbolic.
  std::optional<int64_t> numElements() const;
  /// Bytes the buffer occupies (4-bit types packed two per byte, bool one
  /// byte per element); std::nullopt when some dim is symbolic.
  std::optional<int64_t> sizeInBytes() const;

  /// The same type with another element DType.
  Type withDType(DType T) const;

  bool operator==(const Type &O) const {
    return K == O.K && Elem == O.Elem &&
           (K != KindTy::Buffer || (S == O.S && Dims == O.Dims));
  }
  bool operator!=(const Type &O) const { return !(*this == O); }

  void print(llvm::raw_ostream &OS) const;
  /// The text form, e.g. "shared<[128, 32] f16>".
  std::string str() const;

private:
  enum class KindTy : uint8_t { Invalid, Scalar, Buffer };
  Type(KindTy K, Scope S, std::vector<Dim> Dims, DType T)
      : K(K), S(S), Elem(T), Dims(std::move(Dims)) {}

  KindTy K = KindTy::Invalid;
  Scope S = Scope::Global;
  DType Elem = DType::Int32;
  std::vector<Dim> Dims;
};

llvm::raw_ostream &operator<<(llvm::raw_ostream &OS, const Type &T);

} // namespace ir
} // namespace tilec

#endif
