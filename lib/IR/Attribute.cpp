//===- Attribute.cpp - Compile-time data attached to operations -----------===//

#include "tilec/IR/Attribute.h"
#include "llvm/Support/raw_ostream.h"
#include <cmath>
#include <cstring>
#include <fmt/format.h>

using namespace tilec;
using namespace tilec::ir;

Attribute Attribute::intArray(llvm::ArrayRef<int64_t> V) {
  std::vector<Attribute> Elems;
  for (int64_t X : V)
    Elems.push_back(integer(X));
  return array(std::move(Elems));
}

Attribute Attribute::stringArray(llvm::ArrayRef<std::string> V) {
  std::vector<Attribute> Elems;
  for (const std::string &X : V)
    Elems.push_back(string(X));
  return array(std::move(Elems));
}

std::optional<std::vector<int64_t>> Attribute::getIntArray() const {
  if (!isArray())
    return std::nullopt;
  std::vector<int64_t> Result;
  for (const Attribute &A : getArray()) {
    if (!A.isInt())
      return std::nullopt;
    Result.push_back(A.getInt());
  }
  return Result;
}

std::optional<std::vector<std::string>> Attribute::getStringArray() const {
  if (!isArray())
    return std::nullopt;
  std::vector<std::string> Result;
  for (const Attribute &A : getArray()) {
    if (!A.isString())
      return std::nullopt;
    Result.push_back(A.getString().str());
  }
  return Result;
}

bool Attribute::operator==(const Attribute &O) const {
  // Compare floats bitwise so that nan == nan and the comparison agrees
  // with "prints the same".
  if (isFloat() && O.isFloat())
    return std::memcmp(&std::get<double>(Data), &std::get<double>(O.Data),
                       sizeof(double)) == 0;
  return Data == O.Data;
}

namespace {
void printFloat(llvm::raw_ostream &OS, double V) {
  if (std::isnan(V)) {
    OS << "nan";
    return;
  }
  if (std::isinf(V)) {
    OS << (V < 0 ? "-inf" : "inf");
    return;
  }
  // fmt's default is the shortest text that reads back to the same double.
  std::string S = fmt::format("{}", V);
  if (S.find_first_of(".e") == std::string::npos)
    S += ".0";
  OS << S;
}

void printString(llvm::raw_ostream &OS, llvm::StringRef S) {
  OS << '"';
  for (char C : S) {
    if (C == '"' || C == '\\')
      OS << '\\' << C;
    else if (C == '\n')
      OS << "\\n";
    else if (C == '\t')
      OS << "\\t";
    else if (static_cast<unsigned char>(C) < 0x20 || C == 0x7f)
      OS << fmt::format("\\x{:02x}", static_cast<unsigned char>(C));
    else
      OS << C;
  }
  OS << '"';
}
} // namespace

void Attribute::print(llvm::raw_ostream &OS) const {
  switch (getKind()) {
  case Kind::None:
    OS << "none";
    return;
  case Kind::Int:
    OS << getInt();
    return;
  case Kind::Float:
    printFloat(OS, getFloat());
    return;
  case Kind::String:
    printString(OS, getString());
    return;
  case Kind::Bool:
    OS << (getBool() ? "true" : "false");
    return;
  case Kind::DType:
    OS << irName(getDType());
    return;
  case Kind::Array:
    OS << '[';
    for (size_t I = 0, E = getArray().size(); I != E; ++I) {
      if (I)
        OS << ", ";
      getArray()[I].print(OS);
    }
    OS << ']';
    return;
  }
}

std::string Attribute::str() const {
  std::string S;
  llvm::raw_string_ostream OS(S);
  print(OS);
  return OS.str();
}

llvm::raw_ostream &ir::operator<<(llvm::raw_ostream &OS, const Attribute &A) {
  A.print(OS);
  return OS;
}
