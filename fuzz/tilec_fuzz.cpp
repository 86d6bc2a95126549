//===- tilec_fuzz.cpp - libFuzzer entry point for the .tile front end -----===//
//
// Feeds arbitrary bytes through the whole front end as one .tile file:
// lexer, parser and, when the file parses, Sema (compile-time evaluation and
// IR generation) followed by the IR verifier. Diagnostics go to a null
// stream; bad input must produce diagnostics, never a crash, an assert, a
// sanitizer report, a hang (-timeout) or runaway memory (-rss_limit_mb).
// A Sema result that fails the verifier is a compiler bug and aborts.
//
//===----------------------------------------------------------------------===//

#include "tilec/IR/Operation.h"
#include "tilec/IR/Verifier.h"
#include "tilec/Parse/Parser.h"
#include "tilec/Sema/Sema.h"
#include "tilec/Support/Diagnostics.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include <cstdint>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  llvm::StringRef Text(reinterpret_cast<const char *>(Data), Size);
  llvm::SourceMgr SM;
  unsigned BufferID = SM.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(Text, "fuzz.tile"), llvm::SMLoc());
  tilec::DiagnosticEngine Diags(SM, &llvm::nulls());

  std::unique_ptr<tilec::ast::Module> Module =
      tilec::parseFile(SM, BufferID, Diags);
  if (!Module || Diags.hasErrors())
    return 0;

  std::unique_ptr<tilec::ir::Operation> IR =
      tilec::buildModule(*Module, SM, Diags, tilec::SemaOptions());
  if (!IR)
    return 0;
  tilec::DiagnosticEngine VerifierDiags(SM, &llvm::errs());
  if (!tilec::ir::verify(*IR, VerifierDiags))
    std::abort();
  return 0;
}
