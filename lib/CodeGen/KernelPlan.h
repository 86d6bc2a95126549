//===- KernelPlan.h - What the emitter needs to know up front --*- C++ -*-===//
//
// Analyses one func before any text is written:
//   - that it is low-level IR: no tile operators, no fragment buffers, and
//     only scalar ops and kernels at func level (reported as internal
//     errors otherwise, never emitted as wrong code);
//   - per kernel: the entry name, the values it captures from the func
//     (buffers, scalar params, symbols, host-computed scalars) in parameter
//     order, and the shared memory plan (one dynamic buffer; the offsets
//     plan-shared-memory chose, where buffers with disjoint lifetimes share
//     bytes; buffers it did not plan, e.g. in hand-written lowered IR, go
//     after them in 16-byte aligned slots, 128-byte aligned for buffers
//     with a dim of a multiple of 128 bytes; unused buffers get no slot);
//   - per global buffer: whether kernels read it, write it, and the widest
//     vector access (for launcher alignment checks and manifest roles);
//   - whether a kernel needs a cooperative launch (a grid barrier).
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_LIB_CODEGEN_KERNELPLAN_H
#define TILEC_LIB_CODEGEN_KERNELPLAN_H

#include "Dialect.h"
#include "tilec/CodeGen/CUDAEmitter.h"
#include "tilec/IR/Operation.h"
#include "llvm/ADT/DenseMap.h"
#include <array>
#include <string>
#include <vector>

namespace tilec {
namespace codegen {

struct BufferAccess {
  bool Read = false;
  bool Written = false;
  /// Widest vcopy access in bytes (0 when none).
  unsigned VectorBytes = 0;
};

struct SharedSlot {
  const ir::Value *Buffer;
  int64_t Offset;
  int64_t Bytes;
};

/// A TMA tensor map over a global buffer: the launcher encodes it (dims
/// from the buffer's type, row-major) and passes it to the kernel.
struct TmaMap {
  const ir::Value *Global;
  int64_t BoxRows, BoxCols, Swizzle;
  /// The dim the box's rows run along (the others but the last are 1).
  int64_t RowDim;
};

struct KernelPlan {
  const ir::Operation *Op = nullptr;
  /// `<func>_kernel`, or `<func>_kernel<N>` when the func has several.
  std::string Entry;
  std::array<int64_t, 3> Threads = {1, 1, 1};
  /// Values defined outside the kernel and used inside (or needed for the
  /// strides of captured buffers), in kernel parameter order.
  std::vector<const ir::Value *> Captures;
  std::vector<SharedSlot> Shared;
  int64_t SharedBytes = 0;
  /// The kernel runs wgmma: its shared memory starts on a 1024-byte
  /// boundary (the largest swizzle atom).
  bool Wgmma = false;
  /// The tensor maps of its tma_loads, passed after the captures; each
  /// tma_load's index into it.
  std::vector<TmaMap> TmaMaps;
  llvm::DenseMap<const ir::Operation *, unsigned> TmaMapOf;
  /// Accesses of buffers inside this kernel.
  llvm::DenseMap<const ir::Value *, BufferAccess> Access;
  /// The kernel has a grid barrier (T.sync_grid): it is launched
  /// cooperatively, with every block resident at once.
  bool Cooperative = false;
  /// The kernel starts with a grid_dependency wait (dependent-launch): it
  /// is launched with programmatic stream serialization.
  bool DependentLaunch = false;

  int64_t numThreads() const { return Threads[0] * Threads[1] * Threads[2]; }
};

struct FuncPlan {
  const ir::Operation *Func = nullptr;
  /// The API spellings of the target (CUDA or HIP).
  const Dialect *Dial = &cudaDialect();
  /// The launcher name (the func name, `tilec_` prefixed when reserved).
  std::string Name;
  std::vector<std::string> Symbols;
  std::vector<std::string> Params;
  /// Block arguments of the func for Symbols and Params.
  std::vector<const ir::Value *> SymbolArgs;
  std::vector<const ir::Value *> ParamArgs;
  std::vector<std::string> Assumes;
  /// The func's `check` ops, in order: the status code a failure returns
  /// (TILEC_ERROR_SHAPE_MISMATCH, TILEC_ERROR_ASSERTION_FAILED) and the
  /// condition's text.
  std::vector<std::pair<std::string, std::string>> Checks;
  /// Normalized (non-negative) out_idx entries.
  std::vector<int64_t> OutIdx;
  std::vector<KernelPlan> Kernels;
  /// Accesses of the func's global buffers over all kernels.
  llvm::DenseMap<const ir::Value *, BufferAccess> Access;

  /// The func argument of symbol \p Name (null when unknown).
  const ir::Value *symbolArg(llvm::StringRef Name) const;
  bool isOutput(unsigned ParamIndex) const;
};

/// A func-level `alloc` of a global buffer (T.alloc_global): a workspace
/// the launcher allocates.
bool isWorkspace(const ir::Operation &Op);

/// The tilecStatus a failed `check` op returns.
std::string checkStatus(const ir::Operation &Check);

/// Fills \p Plan for \p Func. Returns false after reporting errors.
bool planFunc(const ir::Operation &Func, const CodeGenOptions &Opts,
              FuncPlan &Plan, DiagnosticEngine &Diags);

/// `barrier {scope = "grid"}` (T.sync_grid).
bool isGridBarrier(const ir::Operation &Op);

/// "input", "output" or "inout" for parameter \p I of \p Plan.
const char *paramRole(const FuncPlan &Plan, unsigned I);

} // namespace codegen
} // namespace tilec

#endif
