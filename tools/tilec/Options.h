//===- Options.h - Command-line options of the tilec driver ----*- C++ -*-===//
#ifndef TILEC_TOOLS_OPTIONS_H
#define TILEC_TOOLS_OPTIONS_H

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tilec {

enum class EmitKind { Tokens, AST, IR, LoweredIR, CUDA, HIP };
enum class InputFormat { Auto, Tile, TIR };

const char *emitKindName(EmitKind K);

struct DriverOptions {
  std::string Input;
  std::string Output;
  std::map<std::string, std::string> Defines;
  std::string Kernel;
  unsigned ConfigIndex = 0;
  bool ListConfigs = false;
  bool ShowDriverErrors = false;
  /// --num-sms: 0 keeps the target's figure.
  int NumSMs = 0;
  std::string TargetName = "sm_80";
  bool TensorCores = true;
  bool Wgmma = true;
  bool Tma = true;
  bool TmaPrologueLoads = true;
  bool AsyncPrologueCopies = true;
  bool WarpSpecialize = true;
  bool PingPong = false;
  bool StagingSwizzle = true;
  bool EpilogueStaging = true;
  bool Stmatrix = true;
  bool DeferWgmmaWaits = true;
  bool DependentLaunch = true;
  bool Persistent = false;
  int PersistentWalk = 0;
  bool Remarks = false;
  EmitKind Emit = EmitKind::CUDA;
  bool EmitGiven = false;
  InputFormat Format = InputFormat::Auto;
  std::vector<std::string> Passes;
  bool PrintIRAfterAll = false;
  std::vector<std::string> PrintIRAfter;
  bool VerifyEach = false;
  bool TimePasses = false;
  bool VerifyDiagnostics = false;
  bool SplitInputFile = false;
  bool PrintLocs = false;
  bool LineDirectives = true;
  bool ReportBankConflicts = false;
};

/// Parses argv into \p Opts. Returns an exit code when the driver should
/// stop now (--help, --version, or a usage error, which exits with 1).
std::optional<int> parseCommandLine(int Argc, char **Argv, DriverOptions &Opts);

} // namespace tilec

#endif
