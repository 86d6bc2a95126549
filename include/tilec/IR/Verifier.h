//===- Verifier.h - Checking tile IR invariants ----------------*- C++ -*-===//
//
// Checks an op tree against the rules of docs/ir.md ("Verifier rules"):
// operand/result/region counts and types per op, required attributes,
// dominance (a value is used only where its definition is visible) and that
// buffer types name only symbols of the enclosing func. Each violation is
// reported as err_ir_verify ("'<op>' op <message>") at the op's location.
// The verifier never modifies the IR and never crashes on malformed IR.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_IR_VERIFIER_H
#define TILEC_IR_VERIFIER_H

namespace tilec {
class DiagnosticEngine;

namespace ir {
class Operation;

/// Returns true when \p Root and everything nested in it is valid.
bool verify(const Operation &Root, DiagnosticEngine &Diags);

} // namespace ir
} // namespace tilec

#endif
