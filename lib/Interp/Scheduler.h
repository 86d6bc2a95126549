//===- Scheduler.h - Thread groups of one interpreted block ----*- C++ -*-===//
//
// A block's threads run in groups (its warpgroups), each in lock-step. A
// group runs until it must wait for another one (an mbarrier phase, a
// named barrier) or finishes; then the next group that can continue runs.
// So a warp-specialized kernel's producer fills the stages its consumers
// wait for, and its consumers release the stages the producer waits for,
// in an order the GPU could also have chosen.
//
// Each group runs on its own host thread so that it can stop anywhere in
// the recursive walk over the IR, but only one runs at a time: the
// scheduler hands the turn over, so the interpreter's state needs no
// locks. When no waiting group can continue and some have not finished,
// the block is deadlocked: the run stops with an error at the first
// waiting group's op that says what every group waits for.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_LIB_INTERP_SCHEDULER_H
#define TILEC_LIB_INTERP_SCHEDULER_H

#include "tilec/IR/Operation.h"
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace tilec {
namespace interp {

/// Why a run stops: the op and a message that names block and thread, and
/// notes at other ops (the other groups' waits of a deadlock).
struct InterpError {
  const ir::Operation *Op;
  std::string Message;
  std::vector<std::pair<const ir::Operation *, std::string>> Notes;
};

class Scheduler {
public:
  /// Runs \p Body(G) for each of \p NumGroups groups, one at a time,
  /// switching when the running group waits. Rethrows the first group's
  /// InterpError; reports a deadlock as one, its message ending in \p
  /// Where (the block).
  void run(int64_t NumGroups, const std::function<void(int64_t)> &Body,
           const std::string &Where);

  /// Called by the running group: returns once \p Ready() holds, letting
  /// the other groups run meanwhile. \p Op is the waiting op and \p What
  /// says what it waits for, when a deadlock is reported.
  void wait(const std::function<bool()> &Ready, const ir::Operation &Op,
            const std::function<std::string()> &What);

  /// The group that runs now.
  int64_t current() const { return Current; }

private:
  struct GroupState {
    bool Done = false;
    std::function<bool()> Ready; // set while the group waits
    const ir::Operation *Op = nullptr;
    std::function<std::string()> What;
  };
  /// Thrown into waiting groups to unwind them when the run stops.
  struct Abort {};

  void runGroup(int64_t G, const std::function<void(int64_t)> &Body);
  /// Hands the turn to the groups until all have finished, one has failed
  /// or none can continue (a deadlock).
  void schedule();
  /// Gives the turn to group \p To (-1: the scheduler); Mu is held.
  void handOver(int64_t To);
  int64_t pickNext(int64_t Last) const;
  InterpError deadlock();

  std::mutex Mu;
  std::condition_variable CV;
  int64_t Current = -1; // the group that runs; -1: the scheduler
  bool Aborting = false;
  bool Inline = false; // one group, run on the caller's thread
  std::string Where;
  std::vector<GroupState> Groups;
  std::optional<InterpError> Error;
};

} // namespace interp
} // namespace tilec

#endif // TILEC_LIB_INTERP_SCHEDULER_H
