//===- Attribute.h - Compile-time data attached to operations --*- C++ -*-===//
//
// An Attribute is a value-semantic constant: an int64, a double, a string, a
// bool, a DType or an array of attributes. Operations keep their attributes
// as an ordered list of NamedAttribute (the printer writes them in that
// order). Construct with the static factories. The getX accessors require
// the matching kind (std::get throws otherwise): check with isX() first, or
// use Operation's typed getters (getIntAttr, ...), which return
// std::optional.
//
// Text form: ints 128, -1; floats 1.5, 1.0e-10, inf, -inf, nan (printed
// with enough digits to round-trip, always with '.', 'e' or a name so they
// never read back as ints); strings "str"; true, false; a DType by its IR
// name (f16); arrays [a, b, ...].
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_IR_ATTRIBUTE_H
#define TILEC_IR_ATTRIBUTE_H

#include "tilec/Support/DType.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace llvm {
class raw_ostream;
}

namespace tilec {
namespace ir {

class Attribute {
public:
  enum class Kind : uint8_t { None, Int, Float, String, Bool, DType, Array };

  /// A None attribute (absent value); never printed inside an op.
  Attribute() = default;
  static Attribute integer(int64_t V) { return Attribute(Storage(V)); }
  static Attribute real(double V) { return Attribute(Storage(V)); }
  static Attribute string(llvm::StringRef V) {
    return Attribute(Storage(V.str()));
  }
  static Attribute boolean(bool V) { return Attribute(Storage(V)); }
  static Attribute dtype(DType V) { return Attribute(Storage(V)); }
  static Attribute array(std::vector<Attribute> V) {
    return Attribute(Storage(std::move(V)));
  }
  static Attribute intArray(llvm::ArrayRef<int64_t> V);
  static Attribute stringArray(llvm::ArrayRef<std::string> V);

  Kind getKind() const { return Kind(Data.index()); }
  bool isNone() const { return getKind() == Kind::None; }
  bool isInt() const { return getKind() == Kind::Int; }
  bool isFloat() const { return getKind() == Kind::Float; }
  bool isString() const { return getKind() == Kind::String; }
  bool isBool() const { return getKind() == Kind::Bool; }
  bool isDType() const { return getKind() == Kind::DType; }
  bool isArray() const { return getKind() == Kind::Array; }

  int64_t getInt() const { return std::get<int64_t>(Data); }
  double getFloat() const { return std::get<double>(Data); }
  llvm::StringRef getString() const { return std::get<std::string>(Data); }
  bool getBool() const { return std::get<bool>(Data); }
  DType getDType() const { return std::get<DType>(Data); }
  const std::vector<Attribute> &getArray() const {
    return std::get<std::vector<Attribute>>(Data);
  }

  /// The elements of an array whose elements are all ints; std::nullopt
  /// otherwise.
  std::optional<std::vector<int64_t>> getIntArray() const;
  /// The elements of an array whose elements are all strings.
  std::optional<std::vector<std::string>> getStringArray() const;

  bool operator==(const Attribute &O) const;
  bool operator!=(const Attribute &O) const { return !(*this == O); }

  void print(llvm::raw_ostream &OS) const;
  std::string str() const;

private:
  using Storage = std::variant<std::monostate, int64_t, double, std::string,
                               bool, DType, std::vector<Attribute>>;
  explicit Attribute(Storage S) : Data(std::move(S)) {}
  Storage Data;
};

llvm::raw_ostream &operator<<(llvm::raw_ostream &OS, const Attribute &A);

struct NamedAttribute {
  std::string Name;
  Attribute Value;
};

} // namespace ir
} // namespace tilec

#endif
