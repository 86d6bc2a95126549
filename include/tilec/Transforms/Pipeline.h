//===- Pipeline.h - The tilec pass pipeline --------------------*- C++ -*-===//
//
// The one place that says which passes run, and in which order, between
// Sema and the emitters (lib/Transforms/Pipeline.cpp). Like Halide's
// Lower.cpp it is a plain list: read it top to bottom to know what the
// compiler does.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_TRANSFORMS_PIPELINE_H
#define TILEC_TRANSFORMS_PIPELINE_H

namespace tilec {
class PassManager;
struct Target;

/// Registers every pass of lib/Transforms by name (for --passes and
/// --print-ir-after). Idempotent.
void registerAllPasses();

/// Where the default pipeline stops.
enum class PipelineEnd {
  /// Checked tile IR: what `--emit=ir` shows (tile operators, fragments).
  TileIR,
  /// Low-level IR ready for an emitter (`--emit=lowered-ir`, `--emit=cuda`).
  LoweredIR
};

/// Appends the default pipeline for \p Tgt, up to \p End, to \p PM.
void buildDefaultPipeline(PassManager &PM, const Target &Tgt, PipelineEnd End);

} // namespace tilec

#endif
