//===- NameTable.h - Unique C identifiers for emitted code -----*- C++ -*-===//
//
// Hands out C identifiers for one scope of generated code (a kernel or a
// launcher): a hint is sanitized to [A-Za-z_][A-Za-z0-9_]*, kept away from
// C/C++/CUDA keywords and names the generated code itself uses, and made
// unique with a `_N` suffix. Names depend only on the order of requests, so
// output is deterministic.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_LIB_CODEGEN_NAMETABLE_H
#define TILEC_LIB_CODEGEN_NAMETABLE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/StringSet.h"
#include <string>

namespace tilec {
namespace codegen {

/// \p Hint as a C identifier that is not a reserved word; "v" when empty.
std::string sanitizeIdentifier(llvm::StringRef Hint);

class NameTable {
public:
  /// A fresh identifier based on \p Hint.
  std::string get(llvm::StringRef Hint);
  /// Marks \p Name as taken (names the emitter writes literally).
  void reserve(llvm::StringRef Name) { Used.insert(Name); }

private:
  llvm::StringSet<> Used;
};

} // namespace codegen
} // namespace tilec

#endif
