//===- Sema.h - From the syntax tree of a .tile file to tile IR -*- C++ -*-===//
//
// Sema runs the host-side Python of a .tile file at compile time and turns
// every kernel it defines into a `func` op of the tile IR.
//
// Expects: an AST built by the parser (errors already reported stop before
// Sema), the SourceMgr holding its buffer, and the -D / --kernel options.
//
// Does:
//   1. Runs the module body with a small Python interpreter (constants,
//      helper functions, imports of tilelang are accepted and ignored).
//   2. Finds kernels: top-level `@T.prim_func` functions, factories (a
//      top-level function that defines a `@T.prim_func` and returns it) and
//      eager `@tilelang.jit` functions whose body holds `with T.Kernel`.
//   3. Calls each factory with -D values or defaults, then runs the
//      prim_func body, folding compile-time values and emitting IR for the
//      runtime ones, while checking shapes, dtypes and operator use.
//
// Guarantees: every error is reported through the DiagnosticEngine with the
// range of the offending expression; the result is null whenever an error
// was reported, otherwise a `module` op that passes the IR verifier. Bad
// input never crashes or hangs (recursion and loop counts are bounded).
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_SEMA_SEMA_H
#define TILEC_SEMA_SEMA_H

#include "llvm/Support/raw_ostream.h"
#include <map>
#include <memory>
#include <string>

namespace llvm {
class SourceMgr;
}

namespace tilec {
class DiagnosticEngine;
struct Target;

namespace ast {
struct Module;
}
namespace ir {
class Operation;
}

struct SemaOptions {
  /// -D name=value, raw text. A value reads as an int, a float, True/False,
  /// or otherwise as a string (dtype names are strings in TileLang too).
  std::map<std::string, std::string> Defines;
  /// --kernel NAME: build only this kernel; empty builds all.
  std::string KernelFilter;
  /// --config N: which autotune configuration supplies the parameters that
  /// have neither a -D value nor a default.
  unsigned ConfigIndex = 0;
  /// --list-configs: print each kernel's autotune configurations to this
  /// stream and build nothing.
  llvm::raw_ostream *ListConfigs = nullptr;
  /// --show-driver-errors: print the diagnostics of the driver run that
  /// finds the arguments kernels are called with (they are dropped
  /// otherwise: host code tilec cannot evaluate is expected there).
  bool ShowDriverErrors = false;
  /// The target being compiled for (thread limits); may be null.
  const Target *Tgt = nullptr;
  /// Limits of compile-time evaluation, each reported as err_loop_limit:
  /// the iterations of one host loop (the elements of one range or
  /// comprehension) and the statements run in all. The fuzzers lower them
  /// to stay within their time limit per input.
  uint64_t MaxLoopIterations = 1u << 20;
  uint64_t MaxSteps = 20000000;
};

/// Builds the IR module for \p M. Returns null after reporting errors.
std::unique_ptr<ir::Operation> buildModule(const ast::Module &M,
                                           llvm::SourceMgr &SM,
                                           DiagnosticEngine &Diags,
                                           const SemaOptions &Opts);

} // namespace tilec

#endif
