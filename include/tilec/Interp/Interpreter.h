//===- Interpreter.h - CPU interpreter of lowered tile IR ------*- C++ -*-===//
//
// Runs a func of low-level IR (docs/ir.md, "Low-level ops": what the whole
// pipeline leaves for the emitter) on the CPU, the way a GPU of the given
// target would: the func body's scalar ops on the host, then each kernel
// block by block. A block's threads run in groups (its warpgroups when it
// has more than one, else the whole block), each in lock-step: every op
// executes for all active threads of the group before the next one; `if`,
// loops, `break` and `continue` narrow the set of active threads. A group
// runs until it waits for another (a barrier, an mbarrier phase), then the
// next group that can continue runs (Scheduler.h). That order is one legal
// schedule of a kernel synchronized by barriers and mbarriers, warp-
// specialized ones included, and it lets the collective ops (shfl,
// ldmatrix, mma, mfma; wgmma per warpgroup) see all lanes of a warp (of
// Target::WarpSize lanes) at once.
//
// Expects: IR that passes the verifier and has no tile operators left.
// Does: the scalar semantics of docs/ir.md with each element type's
// rounding (Numerics.h); mma.sync, ldmatrix, wgmma (shared operands
// addressed through their descriptors' swizzle, LBO and SBO) and MFMA from
// the vendors' register tables, written here independently of lib/Layout;
// wgmma completes when issued (fence, commit and wait do nothing); cp.async as
// a copy whose data lands at the cp_async_wait that covers its group;
// mbarriers with phases and transaction bytes; named barriers (bar.sync,
// bar.arrive); set_max_nreg as nothing; shuffles of the target's width;
// atomics in thread order; views of the same element type as aliases.
// Guarantees: an out-of-bounds access, a barrier or collective op reached
// by part of a block or warp (a deadlock or undefined result on a GPU), an
// integer division by zero, a read of a shared element that another thread
// wrote since the last barrier (a race), a deadlock (every unfinished group
// waits: the error says what each waits for), or an op it cannot run
// (call_extern, a grid barrier, a view as another element type or of an
// address) stops the run with an error at the op,
// naming the block and thread. Shared,
// local and workspace memory start as NaN (floats) so that reading data nobody
// wrote shows up in the results.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_INTERP_INTERPRETER_H
#define TILEC_INTERP_INTERPRETER_H

#include "tilec/IR/Operation.h"
#include "tilec/Support/Target.h"
#include <cstdint>
#include <string>
#include <vector>

namespace tilec {
class DiagnosticEngine;
namespace interp {

/// A buffer argument of the func: its elements held as Numerics.h says.
struct HostBuffer {
  std::string Name;
  DType Elem = DType::Float32;
  std::vector<int64_t> Shape;
  std::vector<uint64_t> Data;
};

/// Runs \p Func with \p SymbolValues (one per entry of its `symbols`) and
/// \p Params (one per entry of its `params`, already sized and filled).
/// Returns false after reporting an error through \p Diags.
bool runFunc(const ir::Operation &Func, llvm::ArrayRef<int64_t> SymbolValues,
             std::vector<HostBuffer> &Params, const Target &Tgt,
             DiagnosticEngine &Diags);

} // namespace interp
} // namespace tilec

#endif // TILEC_INTERP_INTERPRETER_H
