//===- NameTable.cpp - Unique C identifiers for emitted code --------------===//

#include "NameTable.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"

using namespace tilec;
using namespace tilec::codegen;

namespace {

/// Words a generated identifier must not be: C/C++ keywords, CUDA builtins
/// and the names the emitter writes itself.
bool isReserved(llvm::StringRef Name) {
  static const char *const Words[] = {
      "alignas",  "alignof",    "asm",      "auto",     "bool",
      "break",    "case",       "catch",    "char",     "class",
      "const",    "constexpr",  "continue", "default",  "delete",
      "do",       "double",     "else",     "enum",     "explicit",
      "extern",   "false",      "float",    "for",      "friend",
      "goto",     "if",         "inline",   "int",      "long",
      "main",     "namespace",  "new",      "nullptr",  "operator",
      "private",  "protected",  "public",   "register", "return",
      "short",    "signed",     "sizeof",   "static",   "struct",
      "switch",   "template",   "this",     "throw",    "true",
      "try",      "typedef",    "typename", "union",    "unsigned",
      "using",    "virtual",    "void",     "volatile", "while",
      "half",     "dim3",       "uint2",    "uint4",    "threadIdx",
      "blockIdx", "blockDim",   "gridDim",  "warpSize", "stream",
      "tilec",    "tilec_smem", "min",      "max",      "abs",
      "NULL",     "INFINITY",   "NAN",      "std"};
  for (const char *W : Words)
    if (Name == W)
      return true;
  // Leading double underscores and _Upper are reserved for the
  // implementation (__syncthreads, __half, ...).
  return Name.startswith("__") || (Name.size() > 1 && Name[0] == '_' &&
                                   Name[1] >= 'A' && Name[1] <= 'Z');
}

} // namespace

std::string codegen::sanitizeIdentifier(llvm::StringRef Hint) {
  std::string Out;
  for (char C : Hint)
    Out += (llvm::isAlnum(C) || C == '_') ? C : '_';
  if (Out.empty() || llvm::isDigit(Out[0]))
    Out = "v" + Out;
  if (isReserved(Out))
    Out += "_";
  return Out;
}

std::string NameTable::get(llvm::StringRef Hint) {
  std::string Base = sanitizeIdentifier(Hint);
  if (Used.insert(Base).second)
    return Base;
  for (unsigned N = 1;; ++N) {
    std::string Candidate = Base + "_" + std::to_string(N);
    if (Used.insert(Candidate).second)
      return Candidate;
  }
}
