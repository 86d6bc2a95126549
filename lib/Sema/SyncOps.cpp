//===- SyncOps.cpp - mbarriers, named barriers and warp-group roles -------===//
//
// TileLang's manual synchronization for hand-written warp-specialized
// programs: T.alloc_barrier makes an array of mbarriers in shared memory,
// T.barrier_arrive / T.barrier_wait (and their mbarrier_* spellings) use
// one of them, and `with T.ws(g):` runs a block on warp group g only.
// insert-barriers trusts the mbarriers for the shared memory they order
// (InsertBarriers.h).
//
//===----------------------------------------------------------------------===//

#include "Builtins.h"
#include "Interp.h"
#include "tilec/IR/ConstantMatch.h"
#include "tilec/IR/Value.h"
#include "tilec/Support/Target.h"

using namespace tilec;
using namespace tilec::sema;

namespace {

constexpr int64_t WarpGroupThreads = 128;
constexpr int64_t MaxArriveCount = (1 << 20) - 1;

/// The arrival counts of T.alloc_barrier(arrive_count): an int or a
/// non-empty list/tuple of ints.
std::optional<std::vector<int64_t>> arriveCounts(Interp &I, const Value &V,
                                                 llvm::SMRange R) {
  std::vector<Value> Items = V.isSequence() ? V.elts() : std::vector<Value>{V};
  std::vector<int64_t> Counts;
  for (const Value &Item : Items) {
    if (!Item.isIntLike() || Item.getInt() < 1 ||
        Item.getInt() > MaxArriveCount)
      break;
    Counts.push_back(Item.getInt());
  }
  if (Counts.empty() || Counts.size() != Items.size()) {
    I.error(R, diag::err_alloc_barrier_count) << repr(V);
    return std::nullopt;
  }
  return Counts;
}

/// The block's thread count.
int64_t kernelThreads(Interp &I) {
  int64_t N = 1;
  for (int64_t T : I.CurFunc->Kernel->getIntArrayAttr("threads").value_or(
           std::vector<int64_t>{1}))
    N *= T;
  return N;
}

/// `tx == 0 [&& ty == 0 && tz == 0]`: the one thread that initializes.
ir::Value *isFirstThread(Interp &I) {
  size_t Dims = I.CurFunc->Kernel->getIntArrayAttr("threads")
                    .value_or(std::vector<int64_t>{1})
                    .size();
  ir::Value *Zero = I.B.createConstInt(0);
  ir::Value *Cond = nullptr;
  for (size_t D = 0; D != std::min<size_t>(Dims, 3); ++D) {
    ir::Value *Eq =
        I.B.createCmp(ir::CmpPred::Eq, I.B.createThreadId(int64_t(D)), Zero);
    Cond = Cond ? I.B.createBinary(ir::OpKind::And, Cond, Eq) : Eq;
  }
  return Cond ? Cond
              : I.B.createCmp(ir::CmpPred::Eq, I.B.createThreadId(0), Zero);
}

/// The mbarrier alloc behind \p Buf, when it is one.
bool isBarrierBuffer(const BufferObj &Buf) {
  const ir::Operation *Def = Buf.IR ? Buf.IR->getDefiningOp() : nullptr;
  return Def && Def->getBoolAttr("mbarrier").value_or(false);
}

/// One mbarrier operand: `bars[i]`, or a barrier array of one.
struct BarrierRef {
  ir::Value *Buf = nullptr;
  ir::Value *Index = nullptr;
};

std::optional<BarrierRef> barrierOf(Interp &I, const Value &V, llvm::SMRange R,
                                    llvm::StringRef What) {
  if (auto *Ref = V.getAs<BufferRefObj>()) {
    if (isBarrierBuffer(*Ref->Buf) && Ref->Indices.size() == 1 &&
        !Ref->Indices[0].IsSlice) {
      ir::Value *Index = I.toIndex(Ref->Indices[0].Index, R);
      if (!Index)
        return std::nullopt;
      return BarrierRef{Ref->Buf->IR, Index};
    }
  } else if (auto *Buf = V.getAs<BufferObj>()) {
    if (isBarrierBuffer(*Buf) && Buf->Dims.size() == 1 &&
        Buf->Dims[0].isStatic() && Buf->Dims[0].getValue() == 1)
      return BarrierRef{Buf->IR, I.B.createConstInt(0)};
  }
  if (!V.isPoison())
    I.error(R, diag::err_not_a_barrier) << What.str() << typeName(V);
  return std::nullopt;
}

/// Creates `Kind %bar[%i] [, %Extra]` at the call.
Value barrierOp(Interp &I, ir::OpKind Kind, const BarrierRef &B,
                ir::Value *Extra) {
  std::vector<ir::Value *> Ops = {B.Buf, B.Index};
  std::vector<unsigned> Segments = {2};
  if (Extra) {
    Ops.push_back(Extra);
    Segments.push_back(1);
  }
  I.B.create(Kind, Ops, Segments, {});
  return Value::none();
}

/// The role's threads as one range of the linear thread index, when the
/// groups are consecutive and the block is one-dimensional (T.ws groups
/// threadIdx.x alone).
void setThreadRange(RoleObj &Role, std::vector<int64_t> Ids,
                    const std::vector<int64_t> &Threads) {
  for (size_t D = 1; D < Threads.size(); ++D)
    if (Threads[D] != 1) {
      Role.NoRangeWhy = "the block has more than one thread dimension";
      return;
    }
  llvm::sort(Ids);
  Ids.erase(std::unique(Ids.begin(), Ids.end()), Ids.end());
  if (Ids.back() - Ids.front() + 1 != int64_t(Ids.size())) {
    Role.NoRangeWhy = "its warp groups are not consecutive";
    return;
  }
  Role.Offset = Ids.front() * WarpGroupThreads;
  Role.Count = int64_t(Ids.size()) * WarpGroupThreads;
}

} // namespace

/// What keeps some threads of the grid from reaching an op inserted at
/// \p Here ("" when every thread does, as far as the kernel's structure
/// goes): any enclosing op but a `for` (whose trip count must then be the
/// same in every block: the program's responsibility, as in CUDA; a
/// T.Pipelined loop would issue the next iteration's loads before it).
static std::string gridSyncObstacle(Interp &I, ir::Block *Here) {
  for (ir::Operation *Op = Here ? Here->getParentOp() : nullptr;
       Op && Op != I.CurFunc->Kernel; Op = Op->getParentOp()) {
    if (Op->is(ir::OpKind::For) && Op->getStringAttr("kind") == "pipelined")
      return "a T.Pipelined loop";
    if (Op->is(ir::OpKind::For))
      continue;
    if (Op->is(ir::OpKind::If))
      return Op->hasAttr("thread_range") ? "a T.ws role block or a branch on "
                                           "the thread index"
                                         : "a runtime 'if'";
    if (Op->is(ir::OpKind::Parallel))
      return "T.Parallel";
    return "a '" + Op->getName().str() + "' loop";
  }
  return "";
}

/// T.sync_grid(): every thread of every block of the grid waits here; the
/// global memory writes before it are visible to every thread after it.
/// The IR is `barrier {scope = "grid"}`; the emitter makes the kernel
/// cooperative (launched with every block co-resident).
Value sema::tSyncGrid(Interp &I, BoundArgs &A) {
  std::string Obstacle = gridSyncObstacle(I, I.B.getInsertionBlock());
  if (!Obstacle.empty()) {
    I.error(A.CallRange, diag::err_sync_grid_placement) << Obstacle;
    return Value::poison();
  }
  I.B.create(ir::OpKind::Barrier, {}, {}, {},
             {{"scope", ir::Attribute::string("grid")}});
  return Value::none();
}

/// T.alloc_barrier(arrive_count): shared u64 mbarriers, one per count,
/// initialized by one thread and published by a block barrier before any
/// thread can use them. Only at the kernel's top level, which every thread
/// runs (the barrier after the init needs all of them).
Value sema::tAllocBarrier(Interp &I, BoundArgs &A) {
  auto Counts = arriveCounts(I, A[0], A.range(0));
  if (!Counts)
    return Value::poison();
  ir::Block *Here = I.B.getInsertionBlock();
  if (!Here || Here->getParentOp() != I.CurFunc->Kernel) {
    I.error(A.CallRange, diag::err_alloc_barrier_not_top);
    return Value::poison();
  }
  Value Bars =
      allocBuffer(I, ir::Scope::Shared, {ir::Dim(int64_t(Counts->size()))},
                  DType::UInt64, A.CallRange);
  ir::Value *Buf = Bars.getAs<BufferObj>()->IR;
  Buf->getDefiningOp()->setAttr("mbarrier", ir::Attribute::boolean(true));
  ir::Operation *If = I.B.createIf(isFirstThread(I));
  {
    ir::Builder::InsertionGuard G(I.B);
    I.B.setInsertionPointToEnd(If->getBody(0));
    I.B.create(ir::OpKind::MBarrierInit, {Buf}, {1}, {},
               {{"counts", ir::Attribute::intArray(*Counts)}});
  }
  I.B.create(ir::OpKind::Barrier, {}, {}, {});
  return Bars;
}

/// T.barrier_arrive(bar) / T.mbarrier_arrive(mbarrier): one arrival by
/// each thread that runs it.
Value sema::tBarrierArrive(Interp &I, BoundArgs &A) {
  if (A.id() == BuiltinID::TMBarrierArrive && !A[1].isNone()) {
    I.error(A.range(1), diag::err_feature_unsupported)
        << "T.mbarrier_arrive on another block of a cluster (cta_id)";
    return Value::poison();
  }
  auto B = barrierOf(I, A[0], A.range(0), A.name());
  if (!B)
    return Value::poison();
  return barrierOp(I, ir::OpKind::MBarrierArrive, *B, nullptr);
}

/// T.cp_async_barrier_noinc(bar): an arrival on `bar` once the thread's
/// earlier cp.asyncs have completed (an mbarrier_arrive marked cp_async).
Value sema::tCpAsyncBarrierNoinc(Interp &I, BoundArgs &A) {
  auto B = barrierOf(I, A[0], A.range(0), A.name());
  if (!B)
    return Value::poison();
  ir::Operation *Arrive =
      I.B.create(ir::OpKind::MBarrierArrive, {B->Buf, B->Index}, {2}, {});
  Arrive->setAttr("cp_async", ir::Attribute::boolean(true));
  return Value::none();
}

/// T.fence_proxy_async(): orders the thread's generic shared-memory writes
/// before later async-proxy reads (a no-op before sm_90).
Value sema::tFenceProxyAsync(Interp &I, BoundArgs &) {
  I.B.create(ir::OpKind::FenceProxyAsync, {}, {}, {});
  return Value::none();
}

/// T.set_max_nreg(reg_count, is_inc): the executing warpgroup's registers
/// per thread grow (is_inc true) or shrink to reg_count, a multiple of 8 in
/// [24, 256]; a warp-specialized program moves the registers its producer
/// does not need to its consumers. The instruction exists on sm_90a only:
/// on other targets, which compile the same program, it is a hint and
/// dropped.
Value sema::tSetMaxNReg(Interp &I, BoundArgs &A) {
  auto Regs = I.constInt(A[0], A.range(0), "the register count");
  auto Inc = I.constInt(A[1], A.range(1), "is_inc");
  if (!Regs || !Inc)
    return Value::poison();
  if (*Regs < 24 || *Regs > 256 || *Regs % 8) {
    I.error(A.range(0), diag::err_type_mismatch)
        << "T.set_max_nreg"
        << "a multiple of 8 in [24, 256]" << std::to_string(*Regs);
    return Value::poison();
  }
  if (!I.Opts.Tgt || !I.Opts.Tgt->Wgmma)
    return Value::none();
  I.B.create(ir::OpKind::SetMaxNReg, {}, {}, {},
             {{"regs", ir::Attribute::integer(*Regs)},
              {"inc", ir::Attribute::boolean(*Inc != 0)}});
  return Value::none();
}

/// T.barrier_wait(bar, parity) / T.mbarrier_wait_parity(mbarrier, parity):
/// waits until the phase of that parity has completed.
Value sema::tBarrierWait(Interp &I, BoundArgs &A) {
  if (A[1].isNone()) {
    I.error(A.CallRange, diag::err_feature_unsupported)
        << A.name() + " without a parity";
    return Value::poison();
  }
  auto B = barrierOf(I, A[0], A.range(0), A.name());
  if (!B)
    return Value::poison();
  ir::Value *Parity = I.toRuntimeAs(A[1], DType::Int32, A.range(1));
  if (!Parity)
    return Value::poison();
  return barrierOp(I, ir::OpKind::MBarrierWait, *B, Parity);
}

/// T.mbarrier_expect_tx(mbarrier, tx): adds tx bytes to the current phase
/// (sm_90; check-target rejects it for older targets).
Value sema::tMBarrierExpectTx(Interp &I, BoundArgs &A) {
  auto B = barrierOf(I, A[0], A.range(0), A.name());
  if (!B)
    return Value::poison();
  ir::Value *Bytes = I.toRuntimeAs(A[1], DType::Int32, A.range(1));
  if (!Bytes)
    return Value::poison();
  return barrierOp(I, ir::OpKind::MBarrierExpectTx, *B, Bytes);
}

/// The arrival counts an mbarrier operand may have: its own for a constant
/// index, every count of the array otherwise.
static std::vector<int64_t> possibleCounts(const BarrierRef &B) {
  std::vector<int64_t> Counts;
  for (const ir::Use &U : B.Buf->getUses())
    if (U.User->is(ir::OpKind::MBarrierInit))
      Counts = *U.User->getIntArrayAttr("counts");
  assert(!Counts.empty() && "T.alloc_barrier initializes every array");
  if (auto K = ir::matchConstantInt(B.Index);
      K && *K >= 0 && size_t(*K) < Counts.size())
    return {Counts[*K]};
  return Counts;
}

/// T.tma_copy(src, dst, barrier=bar): TileLang's split-phase TMA load,
/// whose completion the barrier's phase includes. Without TMA the threads
/// running it copy the tile themselves, synchronously: each thread's part
/// is then published by that thread's own later T.barrier_arrive (a
/// release), which is how TileLang's programs use it. That is only the
/// same when the barrier waits for one arrival per copying thread, so the
/// count is checked. Stores (shared -> global) need no barrier.
Value sema::tTmaCopy(Interp &I, BoundArgs &A) {
  if (!A.Rest.empty()) {
    I.error(A.RestRanges[0], diag::err_feature_unsupported)
        << "T.tma_copy with more than two positional arguments";
    return Value::poison();
  }
  if (!A[3].isNone()) {
    I.error(A.range(3), diag::err_feature_unsupported)
        << "T.tma_copy multicast in a cluster (cluster_mask)";
    return Value::poison();
  }
  BufferObj *Dst = nullptr;
  if (auto *Ref = A[1].getAs<BufferRefObj>())
    Dst = Ref->Buf.get();
  else
    Dst = A[1].getAs<BufferObj>();
  bool Load = Dst && Dst->Scope == ir::Scope::Shared;
  if (Load) {
    if (A[2].isNone()) {
      I.error(A.CallRange, diag::err_tma_copy)
          << "a load into shared memory needs barrier=, the mbarrier whose "
             "phase includes it";
      return Value::poison();
    }
    auto B = barrierOf(I, A[2], A.range(2), A.name());
    if (!B)
      return Value::poison();
    int64_t Threads = I.RoleThreadCounts.empty() ? kernelThreads(I)
                                                 : I.RoleThreadCounts.back();
    for (int64_t Count : possibleCounts(*B))
      if (Count != Threads) {
        I.error(A.range(2), diag::err_tma_copy)
            << "tilec copies without TMA (yet): the " +
                   std::to_string(Threads) +
                   " threads running it copy the tile, and each publishes "
                   "its part with its own T.barrier_arrive, so the barrier "
                   "must expect " +
                   std::to_string(Threads) + " arrivals, not " +
                   std::to_string(Count);
        return Value::poison();
      }
  }
  return tCopy(I, A);
}

/// T.ws(g, ...): the condition `threadIdx.x / 128 in (g, ...)` for a
/// `with` role block; each group must exist in the block.
Value sema::tWs(Interp &I, BoundArgs &A) {
  std::vector<int64_t> Threads =
      I.CurFunc->Kernel->getIntArrayAttr("threads").value_or(
          std::vector<int64_t>{1});
  int64_t Groups = Threads[0] / WarpGroupThreads;
  if (A.Rest.empty()) {
    I.error(A.CallRange, diag::err_ws_groups) << "expected a warp group";
    return Value::poison();
  }
  ir::Value *Group =
      I.B.createBinary(ir::OpKind::FloorDiv, I.B.createThreadId(0),
                       I.B.createConstInt(WarpGroupThreads));
  ir::Value *Cond = nullptr;
  std::vector<int64_t> Ids;
  for (size_t K = 0; K != A.Rest.size(); ++K) {
    auto G = I.constInt(A.Rest[K], A.RestRanges[K], "a warp group index");
    if (!G)
      return Value::poison();
    if (*G < 0 || *G >= Groups) {
      I.error(A.RestRanges[K], diag::err_ws_groups)
          << "warp group " + std::to_string(*G) +
                 " does not exist in a "
                 "block of " +
                 std::to_string(Threads[0]) + " threads";
      return Value::poison();
    }
    ir::Value *Eq =
        I.B.createCmp(ir::CmpPred::Eq, Group, I.B.createConstInt(*G));
    Cond = Cond ? I.B.createBinary(ir::OpKind::Or, Cond, Eq) : Eq;
    Ids.push_back(*G);
  }
  auto Role = std::make_shared<RoleObj>();
  Role->Cond = Cond;
  setThreadRange(*Role, Ids, Threads);
  return Value::object(std::move(Role));
}
