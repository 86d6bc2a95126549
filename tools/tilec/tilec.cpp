//===- tilec.cpp - The tilec command-line driver --------------------------===//
//
// Reads a .tile file (or tile IR text), runs the front end and the pass
// pipeline, and writes what --emit asks for. Every user mistake ends as a
// diagnostic and exit code 1; the driver never exits with another code.
//
//===----------------------------------------------------------------------===//

#include "Options.h"
#include "tilec/CodeGen/CUDAEmitter.h"
#include "tilec/IR/IRParser.h"
#include "tilec/IR/Printer.h"
#include "tilec/IR/Verifier.h"
#include "tilec/Parse/ASTPrinter.h"
#include "tilec/Parse/Lexer.h"
#include "tilec/Parse/Parser.h"
#include "tilec/Sema/Sema.h"
#include "tilec/Support/Diagnostics.h"
#include "tilec/Transforms/PassManager.h"
#include "tilec/Transforms/Pipeline.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include <fmt/format.h>

using namespace tilec;

namespace {

/// The .cu/.hip path: -o as given, else the input's stem in the current
/// directory.
std::string sourceOutputPath(const DriverOptions &Opts) {
  if (!Opts.Output.empty())
    return Opts.Output;
  llvm::StringRef Stem = llvm::sys::path::stem(Opts.Input);
  return (Stem.empty() || Opts.Input == "-" ? "kernel" : Stem.str()) +
         (Opts.Emit == EmitKind::HIP ? ".hip" : ".cu");
}

/// One compilation of one input buffer (a whole file, or one chunk of it
/// under --split-input-file).
class Compilation {
public:
  Compilation(const DriverOptions &Opts, llvm::SourceMgr &SM,
              DiagnosticEngine &Diags, const Target &Tgt, llvm::raw_ostream &OS)
      : Opts(Opts), SM(SM), Diags(Diags), Tgt(Tgt), OS(OS) {}

  void run(unsigned BufferID, bool IsIR) {
    ErrorsAtStart = Diags.numErrors();
    if (IsIR)
      return runIR(BufferID);
    runTile(BufferID);
  }

private:
  void runTile(unsigned BufferID) {
    if (Opts.Emit == EmitKind::Tokens)
      return printTokensOf(BufferID);
    std::unique_ptr<ast::Module> AST = parseFile(SM, BufferID, Diags);
    if (failed())
      return;
    if (Opts.Emit == EmitKind::AST)
      return printAST(*AST, SM, OS);
    SemaOptions SemaOpts;
    SemaOpts.Defines = Opts.Defines;
    SemaOpts.KernelFilter = Opts.Kernel;
    SemaOpts.ConfigIndex = Opts.ConfigIndex;
    SemaOpts.ShowDriverErrors = Opts.ShowDriverErrors;
    if (Opts.ListConfigs)
      SemaOpts.ListConfigs = &OS;
    SemaOpts.Tgt = &Tgt;
    std::unique_ptr<ir::Operation> Module =
        buildModule(*AST, SM, Diags, SemaOpts);
    if (!Module || failed())
      return;
    lowerAndEmit(*Module, /*DefaultPipeline=*/Opts.Passes.empty());
  }

  void runIR(unsigned BufferID) {
    if (Opts.Emit == EmitKind::Tokens || Opts.Emit == EmitKind::AST) {
      Diags.report(Location(), diag::err_emit_not_supported)
          << emitKindName(Opts.Emit) << "tile IR";
      return;
    }
    std::unique_ptr<ir::Operation> Module = ir::parseIR(SM, BufferID, Diags);
    if (!Module || !ir::verify(*Module, Diags))
      return;
    lowerAndEmit(*Module, /*DefaultPipeline=*/false);
  }

  void printTokensOf(unsigned BufferID) {
    Lexer Lex(SM, BufferID, Diags);
    printTokens(Lex, OS);
  }

  /// Runs the default pipeline (or the --passes list) and then the emitter.
  void lowerAndEmit(ir::Operation &Module, bool DefaultPipeline) {
    PassManager PM(passManagerOptions());
    if (DefaultPipeline)
      buildDefaultPipeline(PM, Tgt,
                           Opts.Emit == EmitKind::IR ? PipelineEnd::TileIR
                                                     : PipelineEnd::LoweredIR);
    for (const std::string &Name : Opts.Passes) {
      if (!PM.addPass(Name)) {
        Diags.report(Location(), diag::err_unknown_pass) << Name;
        return;
      }
    }
    if (Opts.ReportBankConflicts)
      PM.addPass("report-bank-conflicts");
    PassContext Ctx{Diags, Tgt};
    if (!PM.run(Module, Ctx) || failed())
      return;
    emit(Module);
  }

  PassManagerOptions passManagerOptions() const {
    PassManagerOptions PMOpts;
    PMOpts.PrintIRAfterAll = Opts.PrintIRAfterAll;
    PMOpts.PrintIRAfter = Opts.PrintIRAfter;
    PMOpts.VerifyEach = Opts.VerifyEach;
    PMOpts.TimePasses = Opts.TimePasses;
    PMOpts.Print = printOptions();
    return PMOpts;
  }

  ir::PrintOptions printOptions() const {
    ir::PrintOptions P;
    P.PrintLocs = Opts.PrintLocs;
    P.SM = &SM;
    return P;
  }

  void emit(ir::Operation &Module) {
    if (Opts.Emit == EmitKind::IR || Opts.Emit == EmitKind::LoweredIR)
      return ir::printModule(Module, OS, printOptions());
    EmitKind Native = Tgt.isHIP() ? EmitKind::HIP : EmitKind::CUDA;
    if (Opts.Emit == Native)
      return emitSourceFiles(Module);
    Diags.report(Location(), diag::err_emit_wrong_target)
        << emitKindName(Opts.Emit) << Tgt.Name << emitKindName(Native);
  }

  /// Writes NAME.cu (NAME.hip) at the -o path and NAME.h / NAME.json
  /// beside it.
  void emitSourceFiles(ir::Operation &Module) {
    std::string CuPath = sourceOutputPath(Opts);
    CodeGenOptions CG;
    CG.Tgt = Tgt;
    CG.BaseName = llvm::sys::path::stem(CuPath).str();
    CG.SourceName = Opts.Input;
    CG.Version = TILEC_VERSION;
    CG.LineDirectives = Opts.LineDirectives;
    EmittedFiles Files;
    if (!emitSource(Module, CG, Files, Diags))
      return;
    llvm::SmallString<256> Base(CuPath);
    llvm::sys::path::replace_extension(Base, "");
    writeFile(CuPath, Files.Source);
    writeFile((Base + ".h").str(), Files.Header);
    writeFile((Base + ".json").str(), Files.Manifest);
  }

  void writeFile(const std::string &Path, const std::string &Text) {
    std::error_code EC;
    llvm::raw_fd_ostream File(Path, EC, llvm::sys::fs::OF_Text);
    if (EC) {
      Diags.report(Location(), diag::err_cannot_write_file)
          << Path << EC.message();
      return;
    }
    File << Text;
  }

  /// Errors in this buffer only: under --split-input-file the engine is
  /// shared by all chunks.
  bool failed() const { return Diags.numErrors() != ErrorsAtStart; }

  const DriverOptions &Opts;
  llvm::SourceMgr &SM;
  DiagnosticEngine &Diags;
  const Target &Tgt;
  llvm::raw_ostream &OS;
  unsigned ErrorsAtStart = 0;
};

/// Splits \p Buffer at lines equal to \p Marker. Each chunk keeps the line
/// numbers it had in the whole file (earlier lines become empty), so
/// diagnostics and expected-error directives line up.
std::vector<std::string> splitInput(llvm::StringRef Buffer,
                                    llvm::StringRef Marker) {
  std::vector<std::string> Chunks(1);
  unsigned LineNo = 0;
  while (!Buffer.empty()) {
    auto [Line, Rest] = Buffer.split('\n');
    Buffer = Rest;
    ++LineNo;
    if (Line.trim() == Marker) {
      Chunks.emplace_back(LineNo, '\n');
      continue;
    }
    Chunks.back() += Line.str();
    Chunks.back() += '\n';
  }
  return Chunks;
}

/// True when the input is tile IR rather than a .tile program.
bool isIRInput(const DriverOptions &Opts, llvm::StringRef Text) {
  if (Opts.Format == InputFormat::TIR)
    return true;
  if (Opts.Format == InputFormat::Tile)
    return false;
  if (llvm::StringRef(Opts.Input).endswith(".tir"))
    return true;
  if (llvm::StringRef(Opts.Input).endswith(".tile"))
    return false;
  // Standard input or another suffix: IR starts with `module` after
  // comments and blank lines.
  while (!Text.empty()) {
    auto [Line, Rest] = Text.split('\n');
    Text = Rest;
    Line = Line.trim();
    if (Line.empty() || Line.startswith("//") || Line.startswith("#"))
      continue;
    return Line.startswith("module");
  }
  return false;
}

bool emitsFiles(const DriverOptions &Opts) {
  return Opts.Emit == EmitKind::CUDA || Opts.Emit == EmitKind::HIP;
}

std::unique_ptr<llvm::raw_fd_ostream> openOutput(const DriverOptions &Opts,
                                                 DiagnosticEngine &Diags) {
  std::string Path =
      Opts.Output.empty() || emitsFiles(Opts) ? "-" : Opts.Output;
  std::error_code EC;
  auto OS = std::make_unique<llvm::raw_fd_ostream>(Path, EC);
  if (!EC)
    return OS;
  Diags.report(Location(), diag::err_cannot_write_file) << Path << EC.message();
  return nullptr;
}

int runDriver(const DriverOptions &Opts) {
  llvm::SourceMgr SM;
  DiagnosticEngine Diags(SM);
  Diags.setVerifyMode(Opts.VerifyDiagnostics);
  std::optional<Target> Tgt = parseTarget(Opts.TargetName);
  if (!Tgt) {
    Diags.report(Location(), diag::err_unknown_target) << Opts.TargetName;
    return 1;
  }
  Tgt->TensorCores = Opts.TensorCores;
  Tgt->Wgmma = Tgt->Wgmma && Opts.Wgmma && Opts.TensorCores;
  Tgt->Tma = Tgt->Tma && Tgt->Wgmma && Opts.Tma;
  Tgt->TmaPrologueLoads = Tgt->Tma && Opts.TmaPrologueLoads;
  Tgt->AsyncPrologueCopies = Tgt->AsyncCopy && Opts.AsyncPrologueCopies;
  Tgt->WarpSpecialize = Tgt->WarpSpecialize && Tgt->Tma && Opts.WarpSpecialize;
  Tgt->PingPong = Tgt->WarpSpecialize && Opts.PingPong;
  Tgt->StagingSwizzle = Opts.StagingSwizzle;
  Tgt->EpilogueStaging = Tgt->Wgmma && Opts.EpilogueStaging;
  Tgt->Stmatrix = Tgt->Wgmma && Opts.Stmatrix;
  Tgt->DeferWgmmaWaits = Tgt->Wgmma && Opts.DeferWgmmaWaits;
  Tgt->DependentLaunch = Tgt->DependentLaunch && Opts.DependentLaunch;
  Tgt->Persistent = Tgt->WarpSpecialize && Opts.Persistent;
  Tgt->PersistentWalk = Opts.PersistentWalk;
  Diags.setShowRemarks(Opts.Remarks);
  if (Opts.NumSMs)
    Tgt->NumSMs = Opts.NumSMs;
  auto File = llvm::MemoryBuffer::getFileOrSTDIN(Opts.Input, /*IsText=*/true);
  if (!File) {
    Diags.report(Location(), diag::err_cannot_open_file)
        << Opts.Input << File.getError().message();
    return 1;
  }
  std::string Name = Opts.Input == "-" ? "<stdin>" : Opts.Input;
  llvm::StringRef Text = (*File)->getBuffer();
  bool IsIR = isIRInput(Opts, Text);
  std::vector<std::string> Chunks;
  if (Opts.SplitInputFile)
    Chunks = splitInput(Text, IsIR ? "// -----" : "# -----");
  else
    Chunks.push_back(Text.str());

  std::unique_ptr<llvm::raw_fd_ostream> OS = openOutput(Opts, Diags);
  if (!OS)
    return 1;
  registerAllPasses();
  Compilation C(Opts, SM, Diags, *Tgt, *OS);
  bool OK = true;
  for (size_t I = 0; I != Chunks.size(); ++I) {
    if (I != 0)
      *OS << (IsIR ? "// -----\n" : "# -----\n");
    unsigned ErrorsBefore = Diags.numErrors();
    unsigned ID = SM.AddNewSourceBuffer(
        llvm::MemoryBuffer::getMemBufferCopy(Chunks[I], Name), llvm::SMLoc());
    C.run(ID, IsIR);
    if (Opts.VerifyDiagnostics)
      OK &= Diags.verifyExpected(ID);
    else
      OK &= Diags.numErrors() == ErrorsBefore;
  }
  OS->flush();
  return OK ? 0 : 1;
}

} // namespace

int main(int Argc, char **Argv) {
  try {
    DriverOptions Opts;
    std::optional<int> Exit = parseCommandLine(Argc, Argv, Opts);
    if (Exit)
      return *Exit;
    return runDriver(Opts);
  } catch (const std::bad_alloc &) {
    llvm::errs() << "tilec: error: out of memory\n";
  } catch (const std::exception &E) {
    llvm::errs() << "tilec: error: " << E.what() << "\n";
  }
  return 1;
}
