//===- Pass.h - A transformation over a tile IR module ---------*- C++ -*-===//
//
// A Pass rewrites a `module` op in place. It reports user-facing problems
// through Ctx.Diags and returns false when it failed (the PassManager stops
// then). Passes are registered by name so that the driver can build a
// pipeline from --passes=a,b and print IR after a named pass.
//
// Registration is explicit: static initializers in a static library are
// dropped by the linker when nothing references their object file, so each
// pass file exposes a factory and lib/Transforms registers all of them in
// one function that the driver calls.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_TRANSFORMS_PASS_H
#define TILEC_TRANSFORMS_PASS_H

#include "tilec/Support/Target.h"
#include "llvm/ADT/StringRef.h"
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace tilec {
class DiagnosticEngine;

namespace ir {
class Operation;
}

/// What every pass may consult.
struct PassContext {
  DiagnosticEngine &Diags;
  const Target &Tgt;
};

class Pass {
public:
  virtual ~Pass() = default;
  /// The name used by --passes and --print-ir-after ("copy-extent").
  virtual llvm::StringRef name() const = 0;
  virtual llvm::StringRef description() const { return ""; }
  /// Transforms \p Module in place; returns false on failure (after
  /// reporting a diagnostic).
  virtual bool run(ir::Operation &Module, PassContext &Ctx) = 0;
};

/// The common shape of a lowering pass: collects the ops under \p Root that
/// \p Select accepts (all of them first, since lowering erases and inserts
/// ops), then runs \p Lower on each in program order. Every op is lowered
/// even after a failure, so that one run reports every error; true when
/// all succeeded.
bool lowerEach(ir::Operation &Root,
               const std::function<bool(ir::Operation &)> &Select,
               const std::function<bool(ir::Operation &)> &Lower);

using PassFactory = std::function<std::unique_ptr<Pass>()>;

/// Adds a pass to the global registry; re-registering a name replaces it.
void registerPass(llvm::StringRef Name, PassFactory Factory);
/// A new instance of the registered pass; null for an unknown name.
std::unique_ptr<Pass> createPass(llvm::StringRef Name);
bool isPassRegistered(llvm::StringRef Name);
/// Registered names, sorted.
std::vector<std::string> registeredPassNames();

} // namespace tilec

#endif
