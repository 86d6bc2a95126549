//===- Printer.h - Writing tile IR as text ---------------------*- C++ -*-===//
//
// Prints ops in the generic syntax of docs/ir.md:
//
//   [%r =] mnemonic operand-groups [{attrs}] [: result-types] [regions] [loc]
//
// Output is deterministic: 2 spaces of indentation per region level,
// attributes in stored order, values named from their hints (uniquified with
// a `_N` suffix in print order; values without a hint, or with a purely
// numeric one, print as %0, %1, ...). Parsing the output and printing again
// gives the same text.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_IR_PRINTER_H
#define TILEC_IR_PRINTER_H

namespace llvm {
class raw_ostream;
class SourceMgr;
} // namespace llvm

namespace tilec {
namespace ir {

class Operation;

struct PrintOptions {
  /// Print `loc("file":line:col)` after each op with a known location.
  bool PrintLocs = false;
  /// Resolves SMRange locations to file/line/col; without it only
  /// file/line/col locations (from parsed IR) are printed.
  const llvm::SourceMgr *SM = nullptr;
};

/// Prints \p Module (normally a `module` op; any op works) and a newline.
void printModule(const Operation &Module, llvm::raw_ostream &OS,
                 const PrintOptions &Opts = {});
/// Prints one op (with its regions) at indentation 0. Values are named as
/// printModule would name them in the enclosing top-level op.
void printOp(const Operation &Op, llvm::raw_ostream &OS,
             const PrintOptions &Opts = {});

} // namespace ir
} // namespace tilec

#endif
