//===- FuzzChecks.h - Invariants the fuzz targets assert ------*- C++ -*-===//
//
// Properties that must hold for every op a front end accepted. A violation
// is a compiler bug: it is printed to stderr and the process aborts, which
// libFuzzer records as a crash with the input that caused it.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_FUZZ_FUZZCHECKS_H
#define TILEC_FUZZ_FUZZCHECKS_H

#include "tilec/IR/IRParser.h"
#include "tilec/IR/Operation.h"
#include "tilec/IR/Printer.h"
#include "tilec/IR/Verifier.h"
#include "tilec/Sema/Sema.h"
#include "tilec/Support/Diagnostics.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include <cstdlib>
#include <string>

namespace tilec {
namespace fuzz {

[[noreturn]] inline void fail(const char *What, const std::string &Text) {
  llvm::errs() << "fuzz check failed: " << What << "\n" << Text << "\n";
  std::abort();
}

/// Sema's options with the compile-time evaluation limits lowered: under
/// the sanitizers a host loop runs some fifty times slower, and the
/// default limits (a million iterations) would exceed libFuzzer's time
/// limit per input before their diagnostic.
inline SemaOptions semaOptions() {
  SemaOptions Opts;
  Opts.MaxLoopIterations = 1u << 12;
  Opts.MaxSteps = 1u << 16;
  return Opts;
}

inline std::string print(const ir::Operation &Op) {
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  ir::printModule(Op, OS);
  return OS.str();
}

/// Printing \p Op, parsing the text and printing again gives the same text
/// (the printer's documented guarantee, which --emit=ir relies on).
inline void checkRoundTrip(const ir::Operation &Op) {
  std::string First = print(Op);
  llvm::SourceMgr SM;
  unsigned BufferID = SM.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(First, "printed.tir"),
      llvm::SMLoc());
  DiagnosticEngine Diags(SM, &llvm::errs());
  std::unique_ptr<ir::Operation> Reparsed = ir::parseIR(SM, BufferID, Diags);
  if (!Reparsed)
    fail("printed IR does not parse", First);
  if (print(*Reparsed) != First)
    fail("print -> parse -> print changed the IR", First);
}

/// \p Op passes the verifier; used for IR that Sema produced.
inline void checkVerifies(const ir::Operation &Op, llvm::SourceMgr &SM) {
  DiagnosticEngine Diags(SM, &llvm::errs());
  if (!ir::verify(Op, Diags))
    fail("Sema produced IR that fails the verifier", print(Op));
}

} // namespace fuzz
} // namespace tilec

#endif
