//===- tilec_fuzz.cpp - libFuzzer entry point for the .tile front end -----===//
//
// Feeds arbitrary bytes through the whole front end as one .tile file:
// lexer, parser and, when the file parses, Sema (compile-time evaluation and
// IR generation). Diagnostics go to a null stream; bad input must produce
// diagnostics, never a crash, an assert, a sanitizer report, a hang
// (-timeout) or runaway memory (-rss_limit_mb). IR that Sema returns must
// pass the verifier and survive print -> parse -> print (FuzzChecks.h).
//
//===----------------------------------------------------------------------===//

#include "FuzzChecks.h"
#include "tilec/Parse/Parser.h"
#include "tilec/Sema/Sema.h"
#include <cstdint>

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
      tilec::buildModule(*Module, SM, Diags, tilec::fuzz::semaOptions());
  if (!IR)
    return 0;
  tilec::fuzz::checkVerifies(*IR, SM);
  tilec::fuzz::checkRoundTrip(*IR);
  return 0;
}
