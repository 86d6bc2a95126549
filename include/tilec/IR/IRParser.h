//===- IRParser.h - Reading tile IR text -----------------------*- C++ -*-===//
//
// Parses exactly what the printer writes (docs/ir.md has the grammar), plus
// `//` line comments. Every op gets a Location: the `loc(...)` written after
// it, or else its position in the parsed buffer. Errors are reported through
// the DiagnosticEngine (err_ir_*) and parsing stops at the first one. The
// parser only checks syntax, name scoping (a value is visible in its own
// block after its definition and in regions nested there) and the fixed
// counts of Ops.def; run the verifier for the rest. Never crashes on bad
// input.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_IR_IRPARSER_H
#define TILEC_IR_IRPARSER_H

#include "tilec/IR/Operation.h"
#include <memory>

namespace llvm {
class SourceMgr;
}

namespace tilec {
class DiagnosticEngine;

namespace ir {

/// Parses buffer \p BufferID of \p SM as one top-level op (normally a
/// `module`). Returns null after reporting an error.
std::unique_ptr<Operation> parseIR(llvm::SourceMgr &SM, unsigned BufferID,
                                   DiagnosticEngine &Diags);

/// Parses a type such as "shared<[128, 32] f16>" (no diagnostics).
std::optional<Type> parseType(llvm::StringRef Text);

} // namespace ir
} // namespace tilec

#endif
