//===- Pipeline.cpp - The tilec pass pipeline -------------------------------===//
//
// Read buildDefaultPipeline top to bottom: it is the whole compiler between
// Sema and the emitters. --print-ir-after-all shows the module after each
// line; --verify-each runs the verifier between them.
//
//===----------------------------------------------------------------------===//

#include "tilec/Transforms/Pipeline.h"
#include "CheckTarget.h"
#include "FoldConstants.h"
#include "InferCopyExtents.h"
#include "ResolveStaticIf.h"
#include "tilec/Transforms/PassManager.h"

using namespace tilec;

void tilec::registerAllPasses() {
  registerPass("fold-constants", createFoldConstantsPass);
  registerPass("resolve-static-if", createResolveStaticIfPass);
  registerPass("copy-extent", createInferCopyExtentsPass);
  registerPass("check-target", createCheckTargetPass);
}

void tilec::buildDefaultPipeline(PassManager &PM, const Target &) {
  // Front-end cleanup: constants Sema could not see through fold in the IR,
  // and control flow they decide disappears.
  PM.addPass(createFoldConstantsPass());
  PM.addPass(createResolveStaticIfPass());
  // Tile-operator regions and the checks that need the target.
  PM.addPass(createInferCopyExtentsPass());
  PM.addPass(createCheckTargetPass());
  // Final cleanup after the checks.
  PM.addPass(createFoldConstantsPass());
}
