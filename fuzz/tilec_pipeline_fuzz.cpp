//===- tilec_pipeline_fuzz.cpp - libFuzzer entry for the whole compiler ---===//
//
// Compiles arbitrary bytes as one .tile file the way `tilec` does, for
// sm_80, sm_90 and gfx90a (HIP, MFMA): Sema, every pass of the default
// pipeline with the verifier after each, then the emitter into strings (no
// files). Errors in the input must come out as diagnostics; a crash, an
// assert, a sanitizer report, a hang (-timeout), runaway memory
// (-rss_limit_mb), IR that a pass leaves invalid or an "internal:"
// diagnostic is a compiler bug.
//
// LLVMFuzzerCustomMutator mutates numbers, dtypes and line order
// (TileMutator.h) so that the examples/ seeds stay well-formed programs
// that reach the passes, and falls back to libFuzzer's byte mutations.
//
//===----------------------------------------------------------------------===//

#include "FuzzChecks.h"
#include "TileMutator.h"
#include "tilec/CodeGen/CUDAEmitter.h"
#include "tilec/Parse/Parser.h"
#include "tilec/Sema/Sema.h"
#include "tilec/Transforms/PassManager.h"
#include "tilec/Transforms/Pipeline.h"
#include <cstdint>
#include <cstring>

using namespace tilec;

extern "C" size_t LLVMFuzzerMutate(uint8_t *Data, size_t Size, size_t MaxSize);

namespace {

/// Runs the default pipeline pass by pass: false when a pass reported a
/// (user) error; aborts when a pass leaves IR the verifier rejects.
bool runPipeline(ir::Operation &Module, const Target &Tgt,
                 DiagnosticEngine &Diags) {
  PassManager Default;
  buildDefaultPipeline(Default, Tgt, PipelineEnd::LoweredIR);
  PassContext Ctx{Diags, Tgt};
  for (const std::string &Name : Default.getPassNames()) {
    std::unique_ptr<Pass> P = createPass(Name);
    unsigned Errors = Diags.numErrors();
    if (!P->run(Module, Ctx) || Diags.numErrors() != Errors)
      return false;
    std::string Why;
    llvm::raw_string_ostream OS(Why);
    DiagnosticEngine VerifyDiags(Diags.getSourceMgr(), &OS);
    if (!ir::verify(Module, VerifyDiags))
      fuzz::fail(("pass '" + Name + "' produced invalid IR").c_str(),
                 OS.str() + "\n" + fuzz::print(Module));
  }
  return true;
}

void compileFor(const ast::Module &AST, llvm::SourceMgr &SM,
                const Target &Tgt) {
  std::string Log;
  llvm::raw_string_ostream OS(Log);
  DiagnosticEngine Diags(SM, &OS);
  SemaOptions Opts = fuzz::semaOptions();
  Opts.Tgt = &Tgt;
  std::unique_ptr<ir::Operation> IR = buildModule(AST, SM, Diags, Opts);
  if (IR && runPipeline(*IR, Tgt, Diags)) {
    CodeGenOptions CG;
    CG.Tgt = Tgt;
    CG.SourceName = "fuzz.tile";
    EmittedFiles Files;
    emitSource(*IR, CG, Files, Diags);
  }
  if (OS.str().find("internal:") != std::string::npos)
    fuzz::fail("an internal error was reported", Log);
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  registerAllPasses();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  llvm::StringRef Text(reinterpret_cast<const char *>(Data), Size);
  llvm::SourceMgr SM;
  unsigned BufferID = SM.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(Text, "fuzz.tile"), llvm::SMLoc());
  DiagnosticEngine Diags(SM, &llvm::nulls());
  std::unique_ptr<ast::Module> Module = parseFile(SM, BufferID, Diags);
  if (!Module || Diags.hasErrors())
    return 0;
  // Passes rewrite the module in place: each target gets its own Sema run.
  for (const char *Name : {"sm_80", "sm_90", "gfx90a"})
    compileFor(*Module, SM, *parseTarget(Name));
  return 0;
}

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t *Data, size_t Size,
                                          size_t MaxSize, unsigned Seed) {
  std::string Text(reinterpret_cast<const char *>(Data), Size);
  // One time in four, and whenever nothing structured applies: bytes.
  if (Seed % 4 == 0 || !fuzz::mutateTile(Text, Seed / 4) ||
      Text.size() > MaxSize)
    return LLVMFuzzerMutate(Data, Size, MaxSize);
  std::memcpy(Data, Text.data(), Text.size());
  return Text.size();
}
