//===- Machine.h - State of one interpreted block (internal) ---*- C++ -*-===//
//
// The interpreter's state, shared by Interpreter.cpp (control flow, scalar
// and memory ops) and Collectives.cpp (the ops a whole warp executes
// together). Errors unwind as InterpError to runFunc, which reports them.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_LIB_INTERP_MACHINE_H
#define TILEC_LIB_INTERP_MACHINE_H

#include "Scheduler.h"
#include "tilec/IR/Operation.h"
#include "tilec/Support/Target.h"
#include <array>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace tilec {
namespace interp {

/// A buffer: global (one copy), shared (one per block) or local/var (one
/// per thread, PerThread elements apart).
struct Buffer {
  std::string Name;
  DType Elem = DType::Float32;
  ir::Scope Scope = ir::Scope::Global;
  std::vector<int64_t> Shape;
  int64_t NumElems = 0;
  bool PerThread = false;
  /// Byte address of a shared buffer (its alloc's shared_offset).
  int64_t SharedOffset = 0;
  /// A view of another buffer of the same element type: its element at
  /// row-major position P is Alias's element at position P (Data unused).
  Buffer *Alias = nullptr;
  std::vector<uint64_t> Data;
  /// Shared buffers: the thread that last wrote each element, and the
  /// barrier epoch it wrote in (race detection; -1: nobody yet).
  std::vector<int32_t> Writer;
  std::vector<int64_t> WriteEpoch;
  /// mbarrier state: expected arrivals, arrivals so far, completed phases,
  /// transaction bytes still expected in the current phase (expect_tx
  /// adds, landed TMA boxes subtract).
  std::vector<int64_t> BarCount, BarArrived, BarPhase, BarTx;
};

/// One element of a buffer, as the executing thread sees it.
struct ElemRef {
  Buffer *Buf;
  int64_t Flat; // index into Buf->Data
};

/// A cp.async in flight: its source data, read when it was issued.
struct PendingCopy {
  ElemRef Dst;
  std::vector<uint64_t> Values;
};

using Mask = std::vector<char>;

class Machine {
public:
  Machine(const Target &Tgt) : Tgt(Tgt) {}

  // Interpreter.cpp
  void runHost(const ir::Operation &Func, llvm::ArrayRef<int64_t> Symbols,
               std::vector<Buffer *> Params);

  // Collectives.cpp
  void execShfl(const ir::Operation &Op, const Mask &M);
  void execLdmatrix(const ir::Operation &Op, const Mask &M);
  void execStmatrix(const ir::Operation &Op, const Mask &M);
  void execMma(const ir::Operation &Op, const Mask &M);
  void execMfma(const ir::Operation &Op, const Mask &M);
  void execWgmma(const ir::Operation &Op, const Mask &M);

  // Tma.cpp
  void execTmaLoad(const ir::Operation &Op, const Mask &M);
  void execBulkReduce(const ir::Operation &Op, const Mask &M);

  // Interpreter.cpp
  /// Completes the phase of mbarrier \p I of \p B when every arrival and
  /// every expected transaction byte is in.
  static void tryCompletePhase(Buffer &B, int64_t I);
  [[noreturn]] void fail(const ir::Operation &Op, const std::string &Msg,
                         int64_t Thread = -1) const;

  const Target &Tgt;
  int64_t NumThreads = 1;
  std::array<int64_t, 3> ThreadDims{1, 1, 1};
  std::array<int64_t, 3> BlockIdx{0, 0, 0};

  /// Per-lane values (one entry: uniform, e.g. a host value).
  std::unordered_map<const ir::Value *, std::vector<uint64_t>> Vals;
  std::unordered_map<const ir::Value *, Buffer *> Bufs;
  std::vector<std::unique_ptr<Buffer>> Owned;

  uint64_t get(const ir::Value *V, int64_t T) const;
  std::vector<uint64_t> &def(const ir::Value *V);
  Buffer &buffer(const ir::Operation &Op, const ir::Value *V);
  /// The element that group \p G of \p Op addresses for thread \p T,
  /// plus \p Offset elements along the row-major order (bounds-checked).
  ElemRef elem(const ir::Operation &Op, unsigned G, int64_t T,
               int64_t Offset = 0);
  /// Race detection on shared memory: thread \p T writes or reads \p E.
  /// A read of an element another thread wrote since the last barrier is
  /// a race (the lock-step schedule would hide it).
  void noteWrite(ElemRef E, int64_t T);
  void checkRead(const ir::Operation &Op, ElemRef E, int64_t T);
  /// Requires every lane of each warp with an active lane to be active.
  void requireWholeWarps(const ir::Operation &Op, const Mask &M,
                         int64_t Width) const;

private:
  void runKernel(const ir::Operation &Kernel);
  void runKernelBlock(const ir::Block &Body);
  void runBlock(const ir::Block &B, Mask &M);
  void exec(const ir::Operation &Op, Mask &M);
  void execFor(const ir::Operation &Op, const Mask &M);
  void execWhile(const ir::Operation &Op, const Mask &M);
  void execIf(const ir::Operation &Op, const Mask &M);
  void finishIteration(Mask &Live);
  void execScalar(const ir::Operation &Op, const Mask &M);
  uint64_t scalarLane(const ir::Operation &Op, DType Ty, int64_t T) const;
  int64_t intBinary(const ir::Operation &Op, int64_t A, int64_t B,
                    int64_t T) const;
  Buffer *allocate(const ir::Type &Ty, llvm::StringRef Name, bool PerThread);
  void execAlloc(const ir::Operation &Op);
  void execView(const ir::Operation &Op);
  void execLoadStore(const ir::Operation &Op, const Mask &M);
  void execVCopy(const ir::Operation &Op, const Mask &M);
  void execAtomic(const ir::Operation &Op, const Mask &M);
  void execCpAsync(const ir::Operation &Op, const Mask &M);
  void execCpAsyncSync(const ir::Operation &Op, const Mask &M);
  /// Lands thread \p T's oldest committed cp.async groups until \p Pending
  /// remain.
  void landCopies(int64_t T, size_t Pending);
  void execBarrier(const ir::Operation &Op, const Mask &M);
  void execMBarrier(const ir::Operation &Op, const Mask &M);
  void execMBarrierWait(const ir::Operation &Op, const Mask &M);

  /// The running group's name and threads, for messages.
  std::string groupName() const;
  std::string mbarrierName(const Buffer &B, int64_t I) const;

  std::unordered_map<std::string, int64_t> SymbolValues;
  /// The block's threads run in groups of GroupSize (Scheduler.h).
  Scheduler Sched;
  int64_t GroupSize = 1;
  /// Named barriers (id 0 is the block's): threads arrived in the current
  /// generation, and generations completed.
  struct NamedBarrier {
    int64_t Arrived = 0, Generation = 0;
  };
  std::map<int64_t, NamedBarrier> Barriers;
  int64_t Epoch = 0;              // barriers executed in this block
  std::vector<int64_t> ExitState; // per thread: 0 running, 1 continue, 2 break
  std::vector<std::vector<std::vector<PendingCopy>>> CpGroups; // thread, group
  std::vector<std::vector<PendingCopy>> CpOpen;                // thread
};

} // namespace interp
} // namespace tilec

#endif // TILEC_LIB_INTERP_MACHINE_H
