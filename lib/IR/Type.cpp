//===- Type.cpp - Types of tile IR values ---------------------------------===//

#include "tilec/IR/Type.h"
#include "llvm/Support/raw_ostream.h"

using namespace tilec;
using namespace tilec::ir;

namespace {
const char *const ScopeNames[] = {"global", "shared", "fragment", "local",
                                  "var"};
} // namespace

llvm::StringRef ir::scopeName(Scope S) { return ScopeNames[unsigned(S)]; }

std::optional<Scope> ir::parseScope(llvm::StringRef Name) {
  for (unsigned I = 0; I != std::size(ScopeNames); ++I)
    if (Name == ScopeNames[I])
      return Scope(I);
  return std::nullopt;
}

bool Type::hasStaticShape() const {
  for (const Dim &D : Dims)
    if (D.isSymbolic())
      return false;
  return true;
}

std::optional<std::vector<int64_t>> Type::getStaticShape() const {
  if (!hasStaticShape())
    return std::nullopt;
  std::vector<int64_t> Shape;
  for (const Dim &D : Dims)
    Shape.push_back(D.getValue());
  return Shape;
}

std::optional<int64_t> Type::numElements() const {
  if (!hasStaticShape())
    return std::nullopt;
  int64_t N = 1;
  for (const Dim &D : Dims)
    N *= D.getValue();
  return N;
}

std::optional<int64_t> Type::sizeInBytes() const {
  std::optional<int64_t> N = numElements();
  if (!N)
    return std::nullopt;
  if (Elem == DType::Bool)
    return *N;
  return (*N * bitWidth(Elem) + 7) / 8;
}

Type Type::withDType(DType T) const {
  Type Result = *this;
  Result.Elem = T;
  return Result;
}

void Type::print(llvm::raw_ostream &OS) const {
  if (!isValid()) {
    OS << "<invalid>";
    return;
  }
  if (isScalar()) {
    OS << irName(Elem);
    return;
  }
  OS << scopeName(S) << "<[";
  for (unsigned I = 0; I != Dims.size(); ++I) {
    if (I)
      OS << ", ";
    if (Dims[I].isSymbolic())
      OS << Dims[I].getSymbol();
    else
      OS << Dims[I].getValue();
  }
  OS << "] " << irName(Elem) << ">";
}

std::string Type::str() const {
  std::string S;
  llvm::raw_string_ostream OS(S);
  print(OS);
  return OS.str();
}

llvm::raw_ostream &ir::operator<<(llvm::raw_ostream &OS, const Type &T) {
  T.print(OS);
  return OS;
}
