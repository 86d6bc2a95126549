//===- CodeWriter.h - Indented text output ---------------------*- C++ -*-===//
//
// Accumulates generated source line by line with two spaces of indentation
// per level. Preprocessor directives are written at column 0.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_LIB_CODEGEN_CODEWRITER_H
#define TILEC_LIB_CODEGEN_CODEWRITER_H

#include "llvm/ADT/StringRef.h"
#include <algorithm>
#include <string>

namespace tilec {
namespace codegen {

class CodeWriter {
public:
  void line(llvm::StringRef Text) {
    if (!Text.empty())
      Out.append(2 * Indent, ' ');
    Out += Text.str();
    Out += '\n';
  }
  void directive(llvm::StringRef Text) { Out += Text.str() + "\n"; }
  void indent() { ++Indent; }
  void dedent() { --Indent; }
  /// Opens a `{` block after \p Head (a bare block when empty) and
  /// indents.
  void open(llvm::StringRef Head) {
    line(Head.empty() ? "{" : Head.str() + " {");
    indent();
  }
  void close(llvm::StringRef Tail = "}") {
    dedent();
    line(Tail);
  }
  /// Lines written so far (the next line has number lineCount() + 1).
  unsigned lineCount() const {
    return unsigned(std::count(Out.begin(), Out.end(), '\n'));
  }
  const std::string &str() const { return Out; }

private:
  std::string Out;
  unsigned Indent = 0;
};

} // namespace codegen
} // namespace tilec

#endif
