//===- Scheduler.cpp - Thread groups of one interpreted block -------------===//
//
// See Scheduler.h. The turn passes through the scheduler (the caller's
// thread): a group that waits or finishes hands it back, and the scheduler
// gives it to the next group, in round-robin order, that has not finished
// and whose wait is over.
//
//===----------------------------------------------------------------------===//
#include "Scheduler.h"
#include <thread>

using namespace tilec;
using namespace tilec::interp;

void Scheduler::run(int64_t NumGroups, const std::function<void(int64_t)> &Body,
                    const std::string &Block) {
  Where = Block;
  Groups.assign(NumGroups, {});
  Error.reset();
  Aborting = false;
  Inline = NumGroups == 1;
  if (Inline) {
    Current = 0;
    Body(0);
    return;
  }
  Current = -1;
  std::vector<std::thread> Threads;
  for (int64_t G = 0; G < NumGroups; ++G)
    Threads.emplace_back([this, G, &Body] { runGroup(G, Body); });
  schedule();
  for (std::thread &T : Threads)
    T.join();
  if (Error)
    throw *Error;
}

void Scheduler::schedule() {
  std::unique_lock<std::mutex> Lock(Mu);
  int64_t Last = int64_t(Groups.size()) - 1;
  for (;;) {
    CV.wait(Lock, [this] { return Current == -1; });
    if (Error)
      break;
    int64_t Next = pickNext(Last);
    if (Next < 0) {
      bool AllDone = true;
      for (const GroupState &S : Groups)
        AllDone &= S.Done;
      if (!AllDone)
        Error = deadlock();
      break;
    }
    Last = Next;
    handOver(Next);
  }
  // Unwinds the groups still waiting (none after a clean run).
  Aborting = true;
  CV.notify_all();
}

void Scheduler::runGroup(int64_t G, const std::function<void(int64_t)> &Body) {
  std::unique_lock<std::mutex> Lock(Mu);
  CV.wait(Lock, [this, G] { return Current == G || Aborting; });
  if (!Aborting) {
    Lock.unlock();
    try {
      Body(G);
    } catch (const InterpError &E) {
      Lock.lock();
      if (!Error)
        Error = E;
      Lock.unlock();
    } catch (const Abort &) {
    }
    Lock.lock();
  }
  Groups[G].Done = true;
  handOver(-1);
}

void Scheduler::handOver(int64_t To) {
  Current = To;
  CV.notify_all();
}

int64_t Scheduler::pickNext(int64_t Last) const {
  int64_t N = int64_t(Groups.size());
  for (int64_t I = 1; I <= N; ++I) {
    int64_t G = (Last + I) % N;
    const GroupState &S = Groups[G];
    if (!S.Done && (!S.Ready || S.Ready()))
      return G;
  }
  return -1;
}

void Scheduler::wait(const std::function<bool()> &Ready,
                     const ir::Operation &Op,
                     const std::function<std::string()> &What) {
  if (Ready())
    return;
  if (Inline)
    throw InterpError{&Op,
                      "deadlock: " + What() +
                          ", and no other thread group runs" + Where,
                      {}};
  int64_t G = Current;
  std::unique_lock<std::mutex> Lock(Mu);
  Groups[G].Ready = Ready;
  Groups[G].Op = &Op;
  Groups[G].What = What;
  handOver(-1);
  CV.wait(Lock, [this, G] { return Current == G || Aborting; });
  if (Aborting)
    throw Abort{};
  Groups[G].Ready = nullptr;
}

/// Runs on the scheduler while every group is parked.
InterpError Scheduler::deadlock() {
  InterpError E{nullptr, "deadlock: no thread group can continue:", {}};
  for (const GroupState &S : Groups) {
    if (S.Done)
      continue;
    std::string What = S.What();
    E.Message += (E.Op ? "; " : " ") + What;
    if (E.Op)
      E.Notes.push_back({S.Op, What});
    else
      E.Op = S.Op;
  }
  E.Message += Where;
  return E;
}
