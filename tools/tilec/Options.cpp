//===- Options.cpp - Command-line options of the tilec driver -------------===//

#include "Options.h"
#include <CLI/CLI.hpp>
#include <iostream>

using namespace tilec;

#ifndef TILEC_VERSION
#define TILEC_VERSION "0.0.0"
#endif

const char *tilec::emitKindName(EmitKind K) {
  switch (K) {
  case EmitKind::Tokens:
    return "tokens";
  case EmitKind::AST:
    return "ast";
  case EmitKind::IR:
    return "ir";
  case EmitKind::LoweredIR:
    return "lowered-ir";
  case EmitKind::CUDA:
    return "cuda";
  case EmitKind::HIP:
    return "hip";
  }
  return "ir";
}

namespace {

const std::map<std::string, EmitKind> EmitNames = {
    {"tokens", EmitKind::Tokens}, {"ast", EmitKind::AST},
    {"ir", EmitKind::IR},         {"lowered-ir", EmitKind::LoweredIR},
    {"cuda", EmitKind::CUDA},     {"hip", EmitKind::HIP}};

const std::map<std::string, InputFormat> FormatNames = {
    {"auto", InputFormat::Auto},
    {"tile", InputFormat::Tile},
    {"tir", InputFormat::TIR}};

/// Splits "-D name=value" entries; false on a malformed one.
bool parseDefines(const std::vector<std::string> &Raw, DriverOptions &Opts) {
  for (const std::string &D : Raw) {
    size_t Eq = D.find('=');
    if (Eq == 0 || Eq == std::string::npos) {
      std::cerr << "tilec: error: invalid -D option '" << D
                << "': expected name=value\n";
      return false;
    }
    Opts.Defines[D.substr(0, Eq)] = D.substr(Eq + 1);
  }
  return true;
}

/// Splits comma-separated lists given to --passes / --print-ir-after.
std::vector<std::string> splitCommas(const std::vector<std::string> &Items) {
  std::vector<std::string> Out;
  for (const std::string &Item : Items) {
    size_t Start = 0;
    while (Start <= Item.size()) {
      size_t Comma = Item.find(',', Start);
      if (Comma == std::string::npos)
        Comma = Item.size();
      if (Comma > Start)
        Out.push_back(Item.substr(Start, Comma - Start));
      Start = Comma + 1;
    }
  }
  return Out;
}

/// Option values that need converting after parsing.
struct RawOptions {
  std::vector<std::string> Defines, Passes, PrintAfter;
  std::string Emit = "cuda";
  std::string Format = "auto";
  bool NoLineDirectives = false;
};

template <typename T>
std::vector<std::string> keysOf(const std::map<std::string, T> &M) {
  std::vector<std::string> Keys;
  for (const auto &KV : M)
    Keys.push_back(KV.first);
  return Keys;
}

void addOptions(CLI::App &App, DriverOptions &Opts, RawOptions &Raw) {
  App.add_option("input", Opts.Input, "Input .tile file, tile IR (.tir), or -")
      ->required();
  App.add_option("-o,--output", Opts.Output,
                 "Output file (for --emit=cuda: NAME.cu; NAME.h and NAME.json "
                 "are written beside it)");
  App.add_option("-D", Raw.Defines, "Set a kernel parameter: -D name=value")
      ->allow_extra_args(false);
  App.add_option("--kernel", Opts.Kernel, "Compile only the kernel NAME");
  App.add_option("--config", Opts.ConfigIndex,
                 "Take parameters without a -D value or default from autotune "
                 "configuration N (0-based; default 0)");
  App.add_flag("--list-configs", Opts.ListConfigs,
               "Print each kernel's autotune configurations and exit");
  App.add_flag("--show-driver-errors", Opts.ShowDriverErrors,
               "Print what the run of the file's driver (which finds the "
               "arguments kernels are called with) could not evaluate");
  App.add_option("--target", Opts.TargetName,
                 "Target GPU: sm_80 (default), sm_90, gfx90a, gfx940 (alias "
                 "gfx942); gfx targets emit HIP");
  App.add_option("--num-sms", Opts.NumSMs,
                 "Multiprocessor count that device queries in the program "
                 "(driver.get_num_sms()) return; default: the target's part "
                 "(sm_90: 132, sm_80: 108)")
      ->check(CLI::Range(1, 4096));
  App.add_flag("!--no-tensor-cores", Opts.TensorCores,
               "Run every T.gemm on CUDA cores (FMA), even where mma fits");
  App.add_flag("!--no-wgmma", Opts.Wgmma,
               "sm_90: lower T.gemm as for sm_80 (mma.sync), not with wgmma");
  App.add_flag("!--no-tma", Opts.Tma,
               "sm_90: copy T.Pipelined tiles with cp.async and barriers, "
               "not with TMA and mbarrier pipelines");
  App.add_flag("!--no-async-prologue-copies", Opts.AsyncPrologueCopies,
               "copy the tiles loaded right before a cp.async pipeline's "
               "loop (attention's Q) synchronously, not as cp.async joining "
               "the first group of its prologue");
  App.add_flag("!--no-tma-prologue-loads", Opts.TmaPrologueLoads,
               "sm_90: copy the tiles loaded before a TMA pipeline's loop "
               "(attention's Q) with the block's threads, not with TMA "
               "issued ahead of the ring's first stages");
  App.add_flag("!--no-warp-specialize", Opts.WarpSpecialize,
               "sm_90: no producer warpgroup for TMA pipelines (the "
               "consumers' first thread issues the loads)");
  App.add_flag("!--no-dependent-launch", Opts.DependentLaunch,
               "sm_90: launch kernels in plain stream order, without "
               "programmatic dependent launch");
  App.add_flag("--persistent", Opts.Persistent,
               "sm_90: warp-specialized TMA kernels run one block per SM "
               "over their output tiles, the TMA ring running on across "
               "tiles (persistent-tiles)");
  App.add_option("--persistent-walk", Opts.PersistentWalk,
                 "sm_90 with --persistent: tiles per persistent block at most "
                 "(more blocks than SMs then; default 0: one wave of blocks)")
      ->check(CLI::Range(0, 1 << 20));
  App.add_flag("--pingpong", Opts.PingPong,
               "sm_90: the two consumer warpgroups of an attention loop take "
               "turns to issue their wgmmas (FlashAttention-3's ping-pong)");
  App.add_flag("!--no-staging-swizzle", Opts.StagingSwizzle,
               "Keep the plain row-major layout of the shared tiles a "
               "tensor-core accumulator is copied into (no swizzle-staging)");
  App.add_flag("!--no-epilogue-staging", Opts.EpilogueStaging,
               "sm_90: copy accumulators to global memory straight from "
               "registers, not through a shared tile (no stage-epilogue)");
  App.add_flag("!--no-stmatrix", Opts.Stmatrix,
               "sm_90: store accumulators into shared tiles pair by pair, "
               "not with stmatrix (no lower-stmatrix)");
  App.add_flag("!--no-defer-wgmma-waits", Opts.DeferWgmmaWaits,
               "sm_90: wait for each gemm's wgmmas right after issuing them, "
               "not at the first use of their results");
  App.add_flag("--remarks", Opts.Remarks,
               "Print remarks: what the compiler chose and why (e.g. a "
               "T.gemm that cannot use wgmma)");
  App.add_option(
         "--emit", Raw.Emit,
         "What to write: tokens, ast, ir (checked tile IR), lowered-ir, "
         "cuda (default; .cu/.h/.json), hip (default for gfx targets; "
         ".hip/.h/.json)")
      ->check(CLI::IsMember(keysOf(EmitNames)));
  App.add_option("--input-format", Raw.Format,
                 "Input language: auto (default: by suffix, .tir is IR), tile, "
                 "tir")
      ->check(CLI::IsMember(keysOf(FormatNames)));
  App.add_option("--passes", Raw.Passes,
                 "Run these passes (comma-separated) instead of the default "
                 "pipeline; IR input runs none by default");
  App.add_flag("--print-ir-after-all", Opts.PrintIRAfterAll,
               "Print the IR to stderr after every pass");
  App.add_option("--print-ir-after", Raw.PrintAfter,
                 "Print the IR to stderr after the named passes");
  App.add_flag("--verify-each", Opts.VerifyEach,
               "Run the IR verifier after every pass");
  App.add_flag("--time-passes", Opts.TimePasses,
               "Print the time each pass took to stderr");
  App.add_flag("--verify-diagnostics", Opts.VerifyDiagnostics,
               "Check diagnostics against expected-error comments");
  App.add_flag("--split-input-file", Opts.SplitInputFile,
               "Compile each '# -----' ('// -----' in IR) chunk separately");
  App.add_flag("--print-locs", Opts.PrintLocs,
               "Print source locations in IR output");
  App.add_flag("--no-line-directives", Raw.NoLineDirectives,
               "Do not write #line directives into generated code");
  App.add_flag("--report-bank-conflicts", Opts.ReportBankConflicts,
               "After the passes, print a table of the shared-memory bank "
               "conflicts (wavefronts per warp access, ideal vs actual) of "
               "every shared access to stderr");
  App.set_version_flag("--version", "tilec " TILEC_VERSION);
}

} // namespace

std::optional<int> tilec::parseCommandLine(int Argc, char **Argv,
                                           DriverOptions &Opts) {
  CLI::App App{"tilec: ahead-of-time compiler for TileLang tile kernels",
               "tilec"};
  RawOptions Raw;
  addOptions(App, Opts, Raw);
  try {
    App.parse(Argc, Argv);
  } catch (const CLI::ParseError &E) {
    if (E.get_exit_code() == 0) {
      App.exit(E);
      return 0;
    }
    std::cerr << "tilec: error: " << E.what() << "\n"
              << "Run with --help for more information.\n";
    return 1;
  }
  if (!parseDefines(Raw.Defines, Opts))
    return 1;
  Opts.Passes = splitCommas(Raw.Passes);
  Opts.PrintIRAfter = splitCommas(Raw.PrintAfter);
  Opts.Emit = EmitNames.at(Raw.Emit);
  Opts.Format = FormatNames.at(Raw.Format);
  Opts.LineDirectives = !Raw.NoLineDirectives;
  Opts.EmitGiven = App.count("--emit") != 0;
  if (!Opts.EmitGiven && Opts.TargetName.rfind("gfx", 0) == 0)
    Opts.Emit = EmitKind::HIP;
  return std::nullopt;
}
