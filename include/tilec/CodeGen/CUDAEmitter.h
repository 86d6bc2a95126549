//===- CUDAEmitter.h - CUDA/HIP source, header and manifest ----*- C++ -*-===//
//
// Turns a verified module of LOW-LEVEL tile IR (after lowering: no tile
// operators, no fragment buffers; see docs/ir.md "Low-level ops") into three
// texts (HIP targets: NAME.hip, the same contract with hip* spellings; see
// lib/CodeGen/Dialect.h):
//
//   NAME.cu    one `__global__` function per `kernel` op, plus one
//              `extern "C" int <func>(...)` launcher per func that checks
//              its arguments, computes the grid on the host and launches the
//              kernels of the func in order on the given stream;
//   NAME.h     C/C++ header with the launcher prototypes and constants;
//   NAME.json  manifest describing params, symbols and launches.
//
// docs/launch-api.md documents the generated API. Anything the emitter
// cannot translate (a tile op or fragment buffer left by lowering, a dtype
// with no CUDA form) is reported through the DiagnosticEngine and makes
// emitSource return false; the output strings are then unspecified. The
// output is deterministic: the same module and options give byte-identical
// texts.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_CODEGEN_CUDAEMITTER_H
#define TILEC_CODEGEN_CUDAEMITTER_H

#include "tilec/Support/Target.h"
#include <string>

namespace tilec {
class DiagnosticEngine;

namespace ir {
class Operation;
}

struct CodeGenOptions {
  /// The GPU target (its name goes to the manifest, its shared memory limit
  /// is checked).
  Target Tgt = defaultTarget();
  /// Stem of the output files: the .cu includes "<BaseName>.h" and the
  /// header guard is derived from it.
  std::string BaseName = "kernel";
  /// The input file name as the user gave it (manifest "source").
  std::string SourceName;
  /// tilec version string for the manifest.
  std::string Version = "0.0.0";
  /// Emit `#line N "file"` before device statements (--no-line-directives
  /// turns this off).
  bool LineDirectives = true;
};

struct EmittedFiles {
  std::string Source;   // NAME.cu or NAME.hip
  std::string Header;   // NAME.h
  std::string Manifest; // NAME.json
};

/// Emits CUDA (or HIP, for a HIP target) for every func of \p Module (a
/// `module` op). Returns false after reporting diagnostics.
bool emitSource(const ir::Operation &Module, const CodeGenOptions &Opts,
                EmittedFiles &Out, DiagnosticEngine &Diags);

} // namespace tilec

#endif
