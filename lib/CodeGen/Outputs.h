//===- Outputs.h - The header and the manifest of a module -----*- C++ -*-===//
//
// NAME.h: a C/C++ header (extern "C" guards, <cuda_runtime_api.h>,
// <stdint.h>, "tilec_runtime.h") with one prototype per launcher and
// `#define <FUNC>_THREADS` / `<FUNC>_SHARED_MEMORY_BYTES` constants
// (`<FUNC>_KERNEL<N>_...` when a func launches several kernels).
//
// NAME.json: the manifest of docs/launch-api.md, written with
// nlohmann::ordered_json so that keys keep a fixed order.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_LIB_CODEGEN_OUTPUTS_H
#define TILEC_LIB_CODEGEN_OUTPUTS_H

#include "KernelPlan.h"
#include <string>
#include <vector>

namespace tilec {
namespace codegen {

std::string emitHeader(const std::vector<FuncPlan> &Plans,
                       const CodeGenOptions &Opts);
std::string emitManifest(const std::vector<FuncPlan> &Plans,
                         const CodeGenOptions &Opts, DiagnosticEngine &Diags);

/// "float16[M, 1024]" for a buffer type.
std::string shapeText(const ir::Type &T);
/// \p Text made safe inside a C comment (no `*/`).
std::string commentText(llvm::StringRef Text);
/// The first line of every generated file (without comment markers).
std::string bannerText(const std::string &File, const CodeGenOptions &Opts);

} // namespace codegen
} // namespace tilec

#endif
