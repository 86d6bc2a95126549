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

/// Appends the default pipeline for \p Tgt to \p PM.
void buildDefaultPipeline(PassManager &PM, const Target &Tgt);

} // namespace tilec

#endif
