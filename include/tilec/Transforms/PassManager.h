//===- PassManager.h - Running a pipeline of passes ------------*- C++ -*-===//
//
// Runs passes in order over one module, with the debugging aids of the
// driver: --print-ir-after-all / --print-ir-after=NAME print
//   // -----// IR Dump After <name> //----- //
// and the module after the pass; --verify-each runs the verifier after
// every pass and blames the pass on failure; --time-passes prints a table of
// wall times to the timing stream. The pipeline stops at the first pass
// that fails or leaves errors in the diagnostic engine.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_TRANSFORMS_PASSMANAGER_H
#define TILEC_TRANSFORMS_PASSMANAGER_H

#include "tilec/IR/Printer.h"
#include "tilec/Transforms/Pass.h"
#include <memory>
#include <string>
#include <vector>

namespace llvm {
class raw_ostream;
}

namespace tilec {

struct PassManagerOptions {
  bool PrintIRAfterAll = false;
  /// Pass names to print the IR after.
  std::vector<std::string> PrintIRAfter;
  bool VerifyEach = false;
  bool TimePasses = false;
  /// How dumps are printed (locations, source manager).
  ir::PrintOptions Print;
  /// Where IR dumps go; null means stderr.
  llvm::raw_ostream *DumpStream = nullptr;
  /// Where the timing table goes; null means stderr.
  llvm::raw_ostream *TimingStream = nullptr;
};

class PassManager {
public:
  explicit PassManager(PassManagerOptions Opts = {}) : Opts(std::move(Opts)) {}

  void addPass(std::unique_ptr<Pass> P) { Passes.push_back(std::move(P)); }
  /// Adds the registered pass \p Name; false when there is none.
  bool addPass(llvm::StringRef Name);
  size_t size() const { return Passes.size(); }
  /// Names of the added passes, in order.
  std::vector<std::string> getPassNames() const;

  /// Runs the passes in order; returns false when one failed (or the
  /// verifier rejected its output under VerifyEach).
  bool run(ir::Operation &Module, PassContext &Ctx);

private:
  bool shouldPrintAfter(llvm::StringRef Name) const;

  PassManagerOptions Opts;
  std::vector<std::unique_ptr<Pass>> Passes;
};

} // namespace tilec

#endif
