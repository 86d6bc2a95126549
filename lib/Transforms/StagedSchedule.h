//===- StagedSchedule.h - A user's order/stage schedule -------*- C++ -*-===//
//
// The general half of lower-pipelined: a T.Pipelined loop whose `order` and
// `stage` lists are not the default form (copies in stage 0, everything
// else in stage num_stages - 1), in TileLang's meaning.
//
// Expects: the loop's body split by PipelineSchedule.h into statements;
//   one unit per statement with its order and stage (-1 and -1: a copy the
//   compiler places), copy units being hoistable copies (all their items
//   are producers).
// Does: statement X of stage s runs, at loop iteration t, the body of
//   iteration t - s; within an iteration the statements run by order. The
//   loop becomes
//     prologue: t = 0 .. S-1       the statements with s <= t, each under
//                                  `if t - s < n` (unless known)
//     main:     for t in [S, n)    every statement, for iteration t - s
//     epilogue: t = n + e, e = 0 .. S-1, the statements with s > e, all
//               under `if n + e >= S` (the prologue ran the others)
//   (S: the largest stage, n: the trip count). Pure index ops are
//   recomputed per statement for its iteration.
//   - cp.async (no TMA): a copy placed by the compiler is issued
//     num_stages - 1 iterations before the first statement reading its
//     buffers, ahead of everything else in its iteration; a copy with a
//     stage runs where its stage and order put it. Each copy's buffers get
//     R versions (a leading dim R, version i % R for iteration i), R the
//     fewest that keep every read of iteration i before the copy of
//     iteration i + R (TileLang's count); so does a shared buffer that
//     one statement writes, without reading it, for statements of later
//     stages (when it qualifies as a copy's buffer does; on the TMA path
//     too). Every iteration commits one cp.async group per copy, also
//     where the copy is skipped, so that `cp_async_wait {pending = N}`
//     before a statement reading a copy's buffers has a static N (the
//     groups committed since); a barrier follows it.
//   - TMA ring (sm_90): the copies are the loads of the num_stages-stage
//     ring (lower-pipelined issues them: its producer warpgroup, or thread
//     0); iteration i's stage i % S is acquired (full mbarrier) before the
//     first statement reading it and released at the end of the loop
//     iteration that runs the last (so S must exceed the stages between).
//   - On the main loop, a wgmma group's wait {pending = 0} sinks past the
//     following top-level ops that touch none of its register arrays, no
//     shared memory by a write, and no synchronization; it then waits for
//     all but the groups committed after it (FlashAttention-3's overlap
//     when the user orders S = Q K^T of i before P V of i - 1).
//   Refused, with err_bad_pipeline saying why: a -1 on a statement that is
//   not such a copy; a statement running before one it depends on in the
//   same iteration (a read before the write, ...); a statement of
//   iteration i + 1 overwriting a buffer without versions (registers,
//   shared buffers that do not qualify) before the statements of
//   iteration i are done with it; a value computed by one statement and
//   used by
//   another (statements exchange data through buffers); a TMA ring too
//   short for the stages between the first and the last read of one
//   iteration; shared memory over the target's limit (err_shared_memory_
//   limit).
// Guarantees: every statement runs once per iteration of the original
//   loop, after the statements it depends on for that iteration and, for
//   unversioned buffers, before the next iteration's statements touch them
//   again; a copy's data is read only after its wait (and barrier) or its
//   ring stage's full mbarrier.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_TRANSFORMS_STAGEDSCHEDULE_H
#define TILEC_TRANSFORMS_STAGEDSCHEDULE_H

#include "PipelineSchedule.h"
#include "tilec/IR/Builder.h"
#include "tilec/Transforms/Pass.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include <functional>
#include <optional>

namespace tilec {

/// One statement of the loop body in a user's schedule.
struct ScheduleUnit {
  /// Indices into PipelineBody::Items.
  std::vector<unsigned> Items;
  /// -1 and -1: a copy the compiler places.
  int64_t Order = -1, Stage = -1;
  /// Every item is a hoistable copy (PipelineBody's producers).
  bool Copy = false;
};

/// What lower-pipelined emits for the schedule.
struct ScheduleHooks {
  /// cp.async: the copy item \p Item of the iteration at loop value \p K,
  /// into version \p Slot of its buffers (none when null).
  std::function<void(ir::Builder &, unsigned Item, ir::Value *K,
                     ir::Value *Slot)>
      EmitCopy;
  /// TMA ring: before the first read of iteration \p J's stage, and after
  /// the last (\p K: iteration J's loop value).
  std::function<void(ir::Builder &, ir::Value *J)> Acquire;
  std::function<void(ir::Builder &, ir::Value *J, ir::Value *K)> Release;
};

class StagedSchedule {
public:
  /// \p Ring: the copies are TMA loads of a ring of \p NumStages stages.
  StagedSchedule(ir::Operation &Loop, const PipelineBody &PB,
                 std::vector<ScheduleUnit> Units, int64_t NumStages,
                 int64_t Step, bool Ring, PassContext &Ctx);

  /// Resolves the stages and checks the schedule (see the file comment);
  /// false after an error was reported.
  bool check();
  /// Rebuilds the loop as prologue, main loop and epilogue, gives the
  /// copies' buffers their versions (cp.async) and erases the original
  /// body.
  void emit(const ScheduleHooks &Hooks);

private:
  struct Access {
    llvm::SmallPtrSet<ir::Value *, 8> Reads, Writes;
  };

  ir::Operation &Loop;
  const PipelineBody &PB;
  std::vector<ScheduleUnit> Units;
  /// The stages as given (-1 for copies the compiler places), for messages.
  std::vector<int64_t> UserStages;
  int64_t NumStages, Step;
  bool Ring;
  PassContext &Ctx;
  std::vector<Access> Accesses;
  /// Issue position of each unit within an iteration.
  std::vector<unsigned> Pos;
  /// Units in issue order.
  std::vector<unsigned> Sequence;
  int64_t MaxStage = 0;
  /// The loop's lower bound before emit() moves it past the prologue.
  ir::Value *Lo = nullptr;
  llvm::MapVector<ir::Value *, int64_t> Versions;
  /// TMA: the ring's buffers (staged by lower-pipelined).
  llvm::SmallPtrSet<ir::Value *, 4> RingBuffers;
  /// Per unit: the cp_async_wait pending count before it, -1 for none.
  std::vector<int64_t> WaitBefore;
  /// TMA ring: the first and last unit reading an iteration's stage.
  int FirstReader = -1, LastReader = -1;

  bool error(const std::string &Message);
  std::string describe(unsigned U) const;
  bool before(unsigned A, int64_t ShiftA, unsigned B) const;
  std::vector<unsigned> readers(unsigned C) const;
  int64_t versionsFor(ir::Value *Buf, unsigned W) const;
  bool canVersion(ir::Value *Buf, unsigned W) const;
  void collectAccesses();
  bool resolveCopies();
  bool checkDependences();
  bool checkValues();
  bool checkPair(unsigned A, unsigned B, ir::Value *Buf);
  void computeVersions();
  bool checkRing();
  void planWaits();

  struct Instance;
  /// The trip count n, and its value when known.
  struct TripCount {
    ir::Value *Value = nullptr;
    std::optional<int64_t> Known;
  };
  ir::Value *loopValue(ir::Builder &B, ir::Value *J) const;
  Instance emptyInstance() const;
  void emitPrologue(ir::Builder &B, const TripCount &N,
                    const ScheduleHooks &Hooks);
  void emitMain(ir::Builder &Before, const ScheduleHooks &Hooks);
  void emitEpilogue(ir::Builder &B, const TripCount &N,
                    const ScheduleHooks &Hooks);
  void emitIteration(ir::Builder &B, const Instance &It,
                     const ScheduleHooks &Hooks);
  void emitUnit(ir::Builder &B, unsigned U, ir::Value *J, ir::Value *K,
                const ScheduleHooks &Hooks);
};

/// Moves each wgmma_wait {pending = 0} of \p Body's top level down past
/// the ops that need none of its group's results (see the file comment).
void sinkWgmmaWaits(ir::Block &Body);

} // namespace tilec

#endif
