//===- ResolveStaticIf.h - Compile-time control flow ------------*- C++ -*-===//
//
// Expects: a module after fold-constants, so that conditions known at
//   compile time are `const` ops.
// Does: replaces an `if` whose condition is constant by the ops of the taken
//   region (or nothing); erases a `while` whose condition region yields a
//   constant false, and a `for` whose constant bounds give no iteration.
//   Sema already folds `if` on compile-time Python values; this pass catches
//   conditions that become constant only after folding in the IR.
// Guarantees: ops keep their order and locations; nested regions move
//   intact; the module still verifies.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_TRANSFORMS_RESOLVESTATICIF_H
#define TILEC_TRANSFORMS_RESOLVESTATICIF_H

#include "tilec/Transforms/Pass.h"

namespace tilec {
std::unique_ptr<Pass> createResolveStaticIfPass();
} // namespace tilec

#endif
