//===- tilec_ir_fuzz.cpp - libFuzzer entry point for tile IR text ---------===//
//
// Feeds arbitrary bytes to the IR parser as a .tir file, then runs the
// verifier on what parsed. Diagnostics go to a null stream; bad input must
// never crash, hang or exhaust memory. IR that parses and verifies must
// survive print -> parse -> print (FuzzChecks.h).
//
//===----------------------------------------------------------------------===//

#include "FuzzChecks.h"
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  llvm::StringRef Text(reinterpret_cast<const char *>(Data), Size);
  llvm::SourceMgr SM;
  unsigned BufferID = SM.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(Text, "fuzz.tir"), llvm::SMLoc());
  tilec::DiagnosticEngine Diags(SM, &llvm::nulls());

  std::unique_ptr<tilec::ir::Operation> IR =
      tilec::ir::parseIR(SM, BufferID, Diags);
  if (!IR || !tilec::ir::verify(*IR, Diags))
    return 0;
  tilec::fuzz::checkRoundTrip(*IR);
  return 0;
}
