//===- InsertBarriers.cpp - __syncthreads where shared memory needs it ----===//

#include "InsertBarriers.h"
#include "Divergence.h"
#include "PlanSharedMemory.h"
#include "SharedAccesses.h"
#include "tilec/IR/Builder.h"
#include "tilec/IR/ConstantMatch.h"
#include "tilec/Support/Diagnostics.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallPtrSet.h"
#include <algorithm>
#include <array>
#include <climits>
#include <map>
#include <set>

using namespace tilec;
using namespace tilec::ir;

namespace {

//===----------------------------------------------------------------------===//
// User synchronization
//===----------------------------------------------------------------------===//

/// Synchronization the user wrote inside thread-dependent code: named
/// barriers (`barrier {id}`) and mbarrier waits.
bool hasUserSync(Operation &Op) {
  bool Found = false;
  Op.walk([&](Operation &Inner) {
    Found |= Inner.is(OpKind::MBarrierWait) ||
             (Inner.is(OpKind::Barrier) && Inner.hasAttr("id"));
  });
  return Found;
}

/// What the user's mbarriers order: an access followed (in program order,
/// in its block or an enclosing one) by an arrive on barrier array X is
/// released to X; one preceded by a wait on X acquires it when the wait
/// comes after the release in program order or both are in one loop (the
/// next iteration). A thread that waits on Y and then arrives on X passes
/// what it acquired on to X. Only ops the same threads run count: the scans
/// do not look into other thread-dependent branches (other roles).
/// Barrier arrays are told apart by their alloc, not by the index.
class MBarrierOrder {
public:
  MBarrierOrder(Operation &Kernel, const Divergence &Div) : Div(Div) {
    std::vector<Operation *> Arrives;
    int64_t Next = 0;
    Kernel.walk([&](Operation &Op) {
      Pos[&Op] = Next++;
      if (Op.is(OpKind::MBarrierArrive))
        Arrives.push_back(&Op);
    });
    HasArrives = !Arrives.empty();
    // Y -> X for each wait on Y before an arrive on X.
    for (Operation *Arrive : Arrives)
      for (Operation *Wait : scan(*Arrive, OpKind::MBarrierWait, false))
        Edges[barrierOf(*Wait)].insert(barrierOf(*Arrive));
  }

  /// Whether a wait before \p Later acquires what an arrive after
  /// \p Earlier released: the wait follows such an arrive in program
  /// order, or, when \p Later precedes \p Earlier in their loop (so that
  /// \p Later runs after \p Earlier only in a later iteration), the
  /// wait and an arrive are in that loop too. A wait that precedes every
  /// such arrive acquires nothing for the first pass (a write before a
  /// TMA pipeline's loop is not published by the loop's arrives).
  bool ordered(const SharedAccess &EarlierAccess,
               const SharedAccess &LaterAccess) {
    Operation &Earlier = *EarlierAccess.Op, &Later = *LaterAccess.Op;
    if (!HasArrives)
      return false;
    llvm::SmallPtrSet<const Value *, 4> Released;
    std::vector<const Value *> Work;
    std::vector<Operation *> Arrives =
        scan(Earlier, OpKind::MBarrierArrive, true);
    int64_t FirstArrive = INT64_MAX;
    for (Operation *Arrive : Arrives) {
      Work.push_back(barrierOf(*Arrive));
      FirstArrive = std::min(FirstArrive, Pos.lookup(Arrive));
    }
    while (!Work.empty()) {
      const Value *X = Work.back();
      Work.pop_back();
      if (!Released.insert(X).second)
        continue;
      auto It = Edges.find(X);
      if (It != Edges.end())
        Work.insert(Work.end(), It->second.begin(), It->second.end());
    }
    bool Carried = Pos.lookup(&Later) < Pos.lookup(&Earlier);
    for (Operation *Wait : scan(Later, OpKind::MBarrierWait, false)) {
      if (!Released.count(barrierOf(*Wait)))
        continue;
      if (Pos.lookup(Wait) > FirstArrive)
        return true;
      if (Carried && sameStage(*Wait, EarlierAccess, LaterAccess) &&
          llvm::any_of(Arrives, [&](Operation *Arrive) {
            return inOneLoop(*Wait, Earlier, Later) &&
                   inOneLoop(*Wait, *Arrive, Earlier);
          }))
        return true;
    }
    return false;
  }

private:
  static const Value *barrierOf(const Operation &Op) {
    return Op.getGroup(0)[0];
  }

  /// Whether the next iteration's \p Wait observes this iteration's
  /// release: always on a one-barrier ring; on a ring of S stages only
  /// S iterations later, unless both accesses are to the stage of the
  /// buffer that the wait's barrier index selects (a staged buffer
  /// `X[s, ...]` with the wait on `full[s]`). A buffer every iteration
  /// reuses (attention backward's dS tile) is not ordered by the ring.
  static bool sameStage(const Operation &Wait, const SharedAccess &A,
                        const SharedAccess &B) {
    if (barrierOf(Wait)->getType().numElements().value_or(0) == 1)
      return true;
    llvm::ArrayRef<Value *> Bar = Wait.getGroup(0);
    llvm::ArrayRef<Value *> GA = A.Op->getGroup(A.Group);
    llvm::ArrayRef<Value *> GB = B.Op->getGroup(B.Group);
    return Bar.size() == 2 && GA.size() >= 2 && GB.size() >= 2 &&
           sameValue(GA[1], Bar[1]) && sameValue(GB[1], Bar[1]);
  }

  /// \p A and \p B are one value, or the same pure op (consts, integer
  /// arithmetic, compares) of the same values: roles compute a stage index
  /// `k % S` each for themselves.
  static bool sameValue(const Value *A, const Value *B, int Depth = 4) {
    if (A == B)
      return true;
    const Operation *DA = A->getDefiningOp(), *DB = B->getDefiningOp();
    if (!DA || !DB || Depth == 0 || DA->getKind() != DB->getKind() ||
        DA->getNumOperands() != DB->getNumOperands() || DA->getNumRegions() ||
        DB->getNumRegions())
      return false;
    OpKind K = DA->getKind();
    if (!isBinaryOp(K) && !isUnaryOp(K) && K != OpKind::Const &&
        K != OpKind::Cmp)
      return false;
    const auto &XA = DA->getAttrs(), &XB = DB->getAttrs();
    if (XA.size() != XB.size())
      return false;
    for (size_t I = 0; I != XA.size(); ++I)
      if (XA[I].Name != XB[I].Name || !(XA[I].Value == XB[I].Value))
        return false;
    for (unsigned I = 0; I != DA->getNumOperands(); ++I)
      if (!sameValue(DA->getOperand(I), DB->getOperand(I), Depth - 1))
        return false;
    return true;
  }

  /// A loop around all three ops: the wait may follow the release in the
  /// next iteration.
  static bool inOneLoop(const Operation &Wait, const Operation &A,
                        const Operation &B) {
    for (Operation *L = Wait.getParentOp(); L; L = L->getParentOp())
      if ((L->is(OpKind::For) || L->is(OpKind::While)) && L->isAncestorOf(&A) &&
          L->isAncestorOf(&B))
        return true;
    return false;
  }

  /// The \p Kind ops after (\p Forward) or before \p Op in its block and
  /// the enclosing blocks, nested ones included except inside
  /// thread-dependent branches (run by other threads).
  std::vector<Operation *> scan(Operation &Op, OpKind Kind, bool Forward) {
    std::vector<Operation *> Found;
    for (Operation *At = &Op; At && !At->is(OpKind::Kernel);
         At = At->getParentOp())
      for (Operation *N = Forward ? At->getNextNode() : At->getPrevNode(); N;
           N = Forward ? N->getNextNode() : N->getPrevNode())
        collect(*N, Kind, Found);
    return Found;
  }

  void collect(Operation &Op, OpKind Kind, std::vector<Operation *> &Found) {
    if (Op.is(Kind))
      Found.push_back(&Op);
    if (Op.is(OpKind::If) && Div.isDivergent(Op.getOperand(0)))
      return;
    for (unsigned R = 0; R != Op.getNumRegions(); ++R)
      for (Operation &Inner : Op.getBody(R))
        collect(Inner, Kind, Found);
  }

  const Divergence &Div;
  llvm::DenseMap<const Operation *, int64_t> Pos;
  llvm::DenseMap<const Value *, llvm::SmallPtrSet<const Value *, 4>> Edges;
  bool HasArrives = false;
};

//===----------------------------------------------------------------------===//
// Placement
//===----------------------------------------------------------------------===//

/// Whether \p B (a loop body) holds a break or continue of its own loop,
/// and whether one of them sits under a divergent `if`.
void findLoopExits(Block &B, const Divergence &Div, bool UnderDivergentIf,
                   bool &Any, bool &Divergent) {
  for (Operation &Op : B) {
    if (Op.is(OpKind::Break) || Op.is(OpKind::Continue)) {
      Any = true;
      Divergent |= UnderDivergentIf;
      continue;
    }
    if (Op.is(OpKind::For) || Op.is(OpKind::While) || Op.is(OpKind::Parallel))
      continue; // their exits are their own
    bool Under = UnderDivergentIf ||
                 (Op.is(OpKind::If) && Div.isDivergent(Op.getOperand(0)));
    for (unsigned R = 0; R != Op.getNumRegions(); ++R)
      findLoopExits(Op.getBody(R), Div, Under, Any, Divergent);
  }
}

/// The accesses that may still be pending when control reaches the end of
/// \p B: those of the ops after its last top-level barrier (all of them
/// when there is none, then \p NoBarrier is set).
AccessSet tailAccesses(Block &B, bool &NoBarrier) {
  std::vector<Operation *> Ops = B.getOps();
  auto Last = std::find_if(Ops.rbegin(), Ops.rend(), [](Operation *Op) {
    return Op->is(OpKind::Barrier);
  });
  NoBarrier = Last == Ops.rend();
  AccessSet Result;
  for (auto It = Ops.rbegin(); It != Last; ++It)
    addAll(Result, nestedAccesses(**It));
  return Result;
}

AccessSet blockAccesses(Block &B) {
  AccessSet Result;
  for (Operation &Op : B)
    addAll(Result, nestedAccesses(Op));
  return Result;
}

class BarrierPlacer {
public:
  BarrierPlacer(Operation &Kernel, DiagnosticEngine &Diags)
      : Div(Kernel), Owners(threadsOf(Kernel)), MBarriers(Kernel, Div),
        Diags(Diags) {
    Kernel.walk([&](Operation &Op) {
      if (Op.is(OpKind::Barrier))
        if (auto Id = Op.getIntAttr("id"))
          UsedIds.insert(*Id);
    });
  }

  bool run(Block &Body) {
    AccessSet Pending;
    visitBlock(Body, Pending);
    return !Failed;
  }

private:
  static std::array<int64_t, 3> threadsOf(const Operation &Kernel) {
    std::array<int64_t, 3> T = {1, 1, 1};
    std::vector<int64_t> Attr =
        Kernel.getIntArrayAttr("threads").value_or(std::vector<int64_t>{1});
    // Clamped so that their product cannot overflow; a block that large
    // is never enumerated anyway.
    for (size_t I = 0; I != Attr.size() && I != 3; ++I)
      T[I] = std::clamp<int64_t>(Attr[I], 1, 1 << 20);
    return T;
  }

  /// Whether \p A and \p B may touch one element from two threads, one of
  /// them writing, unordered: \p A runs first or, with \p EitherFirst,
  /// either may. Both run in the same iteration of \p SameIteration.
  bool conflict(const SharedAccess &A, const SharedAccess &B,
                const llvm::SmallPtrSetImpl<Operation *> &SameIteration,
                bool EitherFirst) {
    // Buffers plan-shared-memory put in the same bytes are one memory
    // whose element indices cannot be compared.
    if (A.buffer() != B.buffer())
      return (A.Write || B.Write) && shareBytes(A.buffer(), B.buffer());
    if (!(A.Write || B.Write) || (A.Atomic && B.Atomic))
      return false;
    // Barriers do not order asynchronous copies (cp_async_wait does); the
    // copies of one pipeline schedule write distinct elements or stages.
    if (A.Op->is(OpKind::CpAsync) && B.Op->is(OpKind::CpAsync))
      return false;
    // The user's mbarriers order them. Only in the order they run: a TMA
    // pipeline's barriers order a wgmma's read of a tile before the next
    // iteration's store into it, not that store before the read.
    if (MBarriers.ordered(A, B) || (EitherFirst && MBarriers.ordered(B, A)))
      return false;
    return !Owners.sameThreadsOnly(A, B, SameIteration);
  }

  static bool shareBytes(const Value *X, const Value *Y) {
    auto RX = plannedSharedRange(X), RY = plannedSharedRange(Y);
    return RX && RY && RX->first < RY->first + RY->second &&
           RY->first < RX->first + RX->second;
  }

  bool conflict(const SharedAccess &A, const SharedAccess &B) {
    return conflict(A, B, llvm::SmallPtrSet<Operation *, 1>(),
                    /*EitherFirst=*/false);
  }

  /// The first access of \p New conflicting with one of \p Pending.
  const SharedAccess *findConflict(const AccessSet &Pending,
                                   const AccessSet &New) {
    for (const SharedAccess &B : New)
      for (const SharedAccess &A : Pending)
        if (conflict(A, B))
          return &B;
    return nullptr;
  }

  /// A barrier of the threads that run \p Op: the block's, or inside a
  /// role block a named barrier of the role's threads.
  Operation *barrierBefore(Operation &Op, AccessSet &Pending) {
    Builder B;
    B.setInsertionPoint(&Op);
    B.setLoc(Op.getLoc());
    Pending.clear();
    Operation *Barrier = B.create(OpKind::Barrier, {}, {}, {});
    if (CurRole)
      nameForRole(*Barrier);
    return Barrier;
  }

  /// Makes \p Barrier the named barrier of the current role's threads.
  void nameForRole(Operation &Barrier) {
    std::vector<int64_t> Range = *CurRole->getIntArrayAttr("thread_range");
    Barrier.setAttr("id", Attribute::integer(roleBarrierId(*CurRole)));
    Barrier.setAttr("count", Attribute::integer(Range[1]));
  }

  /// One named barrier id per thread range, none the program uses itself
  /// (id 0 is __syncthreads).
  int64_t roleBarrierId(const Operation &Role) {
    std::vector<int64_t> Range = *Role.getIntArrayAttr("thread_range");
    auto [It, New] = RoleIds.insert({{Range[0], Range[1]}, 0});
    if (!New)
      return It->second;
    int64_t Id = 1;
    while (Id <= MaxBarrierId && UsedIds.count(Id))
      ++Id;
    if (Id > MaxBarrierId) {
      Diags.report(Role.getLoc(), diag::err_lowering_unsupported)
          << "this T.ws role block"
          << "its tile operators need a named barrier, and the kernel uses "
             "all 15";
      Failed = true;
      Id = MaxBarrierId;
    }
    UsedIds.insert(Id);
    It->second = Id;
    return Id;
  }

  /// A barrier right before \p Loop is redundant when the loop runs at
  /// least once and its body reaches a barrier before any shared access.
  static bool coveredByFirstIteration(Operation &Loop) {
    if (!Loop.is(OpKind::For))
      return false;
    auto Lo = matchConstantInt(Loop.getOperand(0));
    auto Hi = matchConstantInt(Loop.getOperand(1));
    auto Step = matchConstantInt(Loop.getOperand(2));
    if (!Lo || !Hi || !Step || *Step <= 0 || *Lo >= *Hi)
      return false;
    for (Operation &Op : Loop.getBody()) {
      if (Op.is(OpKind::Barrier))
        return true;
      if (!nestedAccesses(Op).empty() || Op.is(OpKind::Break) ||
          Op.is(OpKind::Continue) || Op.getNumRegions() != 0)
        return false;
    }
    return false;
  }

  /// Program order through \p B, with \p Pending the accesses since the
  /// last barrier; barriers may be inserted into \p B (all threads reach
  /// it together).
  void visitBlock(Block &B, AccessSet &Pending) {
    for (Operation *Op : B.getOps()) {
      if (Op->is(OpKind::Barrier)) {
        // A block barrier inside a role block can only wait for the role's
        // threads (the others never reach it); a named barrier where every
        // thread runs it is trusted as one for the block (the user chose
        // its count).
        if (CurRole && !Op->hasAttr("id"))
          nameForRole(*Op);
        Pending.clear();
      } else if (Op->is(OpKind::CpAsyncWait)) {
        // The copies land by the wait (all of them, conservatively); a
        // barrier after it publishes them to the other threads.
        addAll(Pending, InFlight);
        InFlight.clear();
      } else if (Op->getNumRegions() == 0) {
        AccessSet New = accessesOf(*Op);
        if (findConflict(Pending, New))
          barrierBefore(*Op, Pending);
        // A cp_async writes at some point before its wait: it conflicts
        // with what precedes it, and with what follows only after the wait.
        addAll(Op->is(OpKind::CpAsync) ? InFlight : Pending, New);
      } else if (isUniformIf(*Op) || isUniformLoop(*Op)) {
        // A conflict with what is pending before the op is settled before
        // it, not inside (where it would run once per iteration).
        Operation *Hoisted = nullptr;
        if (findConflict(Pending, nestedAccesses(*Op)))
          Hoisted = barrierBefore(*Op, Pending);
        if (Op->is(OpKind::If)) {
          visitIf(*Op, Pending);
        } else {
          visitLoop(*Op, Pending);
          if (Hoisted && coveredByFirstIteration(*Op))
            Hoisted->erase();
        }
      } else if (Op->is(OpKind::If) && Op->hasAttr("thread_range")) {
        visitRole(*Op, Pending);
      } else {
        visitOpaque(*Op, Pending);
      }
    }
  }

  /// A role block (`with T.ws(g)`): to the other threads one access of all
  /// it touches, as divergent code; inside, the role's threads run
  /// together, so conflicts among them get named barriers of the role.
  void visitRole(Operation &Role, AccessSet &Pending) {
    AccessSet Inner = nestedAccesses(Role);
    // The two halves of one `if tx < K: ... else: ...` (Sema marks the
    // else half `split_else`) run at once on disjoint threads, as in the
    // source: what either conflicts with is settled before the first, and
    // nothing between them (a block barrier there would wait for threads
    // that may wait on the other half's mbarriers).
    Operation *Else = splitElseOf(Role);
    if (Else)
      addAll(Inner, nestedAccesses(*Else));
    // What conflicts with the accesses before the block is settled by a
    // block barrier before it; what remains pending orders itself.
    if (&Role != SettledElse && findConflict(Pending, Inner))
      barrierBefore(Role, Pending);
    SettledElse = Else;
    Operation *Outer = CurRole;
    CurRole = &Role;
    AccessSet RolePending;
    visitBlock(Role.getBody(0), RolePending);
    CurRole = Outer;
    addNested(Pending, Inner);
  }

  /// The else half of the thread split whose then half is \p Role: the
  /// next role block, past the scalar ops computing its condition.
  static Operation *splitElseOf(Operation &Role) {
    for (Operation *N = Role.getNextNode(); N; N = N->getNextNode()) {
      if (N->is(OpKind::If))
        return N->getBoolAttr("split_else").value_or(false) ? N : nullptr;
      if (N->getNumRegions() != 0 || !N->getNumResults())
        return nullptr;
    }
    return nullptr;
  }

  bool isUniformIf(Operation &Op) const {
    return Op.is(OpKind::If) && !Div.isDivergent(Op.getOperand(0));
  }

  bool isUniformLoop(Operation &Op) const {
    Block *Body = nullptr;
    if (Op.is(OpKind::For)) {
      if (Div.anyDivergent(Op.getOperands()))
        return false;
      Body = &Op.getBody();
    } else if (Op.is(OpKind::While)) {
      Block &Cond = Op.getBody(0);
      if (Cond.empty() || !Cond.back().is(OpKind::Condition) ||
          Div.isDivergent(Cond.back().getOperand(0)))
        return false;
      Body = &Op.getBody(1);
    } else {
      return false;
    }
    bool Any = false, Divergent = false;
    findLoopExits(*Body, Div, false, Any, Divergent);
    return !Divergent;
  }

  void visitIf(Operation &If, AccessSet &Pending) {
    AccessSet Else = Pending;
    visitBlock(If.getBody(0), Pending);
    if (If.getNumRegions() > 1)
      visitBlock(If.getBody(1), Else);
    addAll(Pending, Else);
  }

  /// A loop whose iterations all threads run together. An iteration starts
  /// with what was pending before the loop or at the end of the previous
  /// iteration (everything, when break/continue may cut it short).
  void visitLoop(Operation &Loop, AccessSet &Pending) {
    bool IsWhile = Loop.is(OpKind::While);
    Block &Body = Loop.getBody(IsWhile ? 1 : 0);
    bool Exits = false, Divergent = false;
    findLoopExits(Body, Div, false, Exits, Divergent);
    if (!Exits)
      placeFirstIteration(Loop, Pending);
    bool NoBarrier = false;
    AccessSet Carried =
        Exits ? blockAccesses(Body) : tailAccesses(Body, NoBarrier);
    if (IsWhile && (Exits || NoBarrier)) {
      bool CondNoBarrier = false;
      addAll(Carried, tailAccesses(Loop.getBody(0), CondNoBarrier));
    }
    AccessSet Before = Pending;
    addNested(Pending, Carried);
    if (IsWhile)
      visitBlock(Loop.getBody(0), Pending);
    visitBlock(Body, Pending);
    // Zero iterations leave Before; a while evaluates its condition once
    // more before leaving.
    addAll(Pending, Before);
    if (IsWhile)
      addNested(Pending, blockAccesses(Loop.getBody(0)));
    if (Exits)
      addNested(Pending, blockAccesses(Body));
  }

  /// Places the barriers that the first iteration of \p Loop needs, with
  /// \p Pending before it: every iteration needs them, so what an iteration
  /// leaves pending is only what follows the last of them (tailAccesses).
  /// Found before the loop-carried accesses are known, they keep that tail
  /// from holding the whole body: attention backward's dS tile, written
  /// early in a step and read by a wgmma late in it, needs no barrier
  /// before the next step's write when the dQ staging's barriers follow the
  /// read. The visit with the carried accesses then only adds barriers,
  /// which can only shorten the tail. Quiet: warnings come from that visit.
  void placeFirstIteration(Operation &Loop, AccessSet Pending) {
    bool WasQuiet = Quiet;
    AccessSet OuterInFlight = InFlight;
    Operation *OuterSettled = SettledElse;
    Quiet = true;
    if (Loop.is(OpKind::While))
      visitBlock(Loop.getBody(0), Pending);
    visitBlock(Loop.getBody(Loop.is(OpKind::While) ? 1 : 0), Pending);
    InFlight = std::move(OuterInFlight);
    SettledElse = OuterSettled;
    Quiet = WasQuiet;
  }

  /// An op that not every thread runs the same way (divergent branch or
  /// loop, parallel loop): it counts as one access of all it touches.
  void visitOpaque(Operation &Op, AccessSet &Pending) {
    AccessSet Inner = nestedAccesses(Op);
    if (findConflict(Pending, Inner))
      barrierBefore(Op, Pending);
    // Named barriers and mbarrier waits inside make its inner ordering the
    // user's responsibility, as in TileLang.
    if (!Op.is(OpKind::Parallel) && !hasUserSync(Op))
      checkInside(Op, Inner);
    addNested(Pending, Inner);
  }

  /// Conflicts between accesses inside a divergent op (or of one access
  /// with itself, in a loop there) have no legal barrier: warn about one.
  void checkInside(Operation &Op, const AccessSet &Inner) {
    llvm::SmallPtrSet<Operation *, 4> Enclosing;
    for (Operation *P = Op.getParentOp(); P; P = P->getParentOp())
      Enclosing.insert(P);
    for (size_t I = 0; I != Inner.size(); ++I) {
      for (size_t J = I; J != Inner.size(); ++J) {
        if (I == J && !inLoopWithin(*Inner[I].Op, Op))
          continue;
        if (!conflict(Inner[I], Inner[J], Enclosing, /*EitherFirst=*/true))
          continue;
        if (Quiet)
          return;
        Diags.report(Op.getLoc(), diag::warn_barrier_in_divergent_code)
            << Inner[I].buffer()->getNameHint().str();
        return;
      }
    }
  }

  static bool inLoopWithin(const Operation &Inner, const Operation &Outer) {
    for (Operation *P = Inner.getParentOp(); P; P = P->getParentOp()) {
      if (P->is(OpKind::For) || P->is(OpKind::While))
        return true;
      if (P == &Outer)
        return false;
    }
    return false;
  }

  Divergence Div;
  ThreadOwnership Owners;
  MBarrierOrder MBarriers;
  DiagnosticEngine &Diags;
  /// cp_async writes issued and not yet waited for.
  AccessSet InFlight;
  /// The role block being visited, whose barriers are named ones.
  Operation *CurRole = nullptr;
  /// The else half of a thread split whose conflicts its then half settled.
  Operation *SettledElse = nullptr;
  /// Inside placeFirstIteration: warnings wait for the final visit.
  bool Quiet = false;
  static constexpr int64_t MaxBarrierId = 15;
  std::set<int64_t> UsedIds;
  std::map<std::pair<int64_t, int64_t>, int64_t> RoleIds;
  bool Failed = false;

  /// Adds the accesses of code summarized as a whole; its cp_async writes
  /// stay in flight until the next wait.
  void addNested(AccessSet &Pending, const AccessSet &New) {
    for (const SharedAccess &A : New)
      addUnique(A.Op->is(OpKind::CpAsync) ? InFlight : Pending, A);
  }
};

bool usesSharedMemory(Operation &Kernel) {
  bool Found = false;
  Kernel.walk([&](Operation &Op) {
    Found |= Op.is(OpKind::Alloc) && Op.getResult()->isBufferIn(Scope::Shared);
  });
  return Found;
}

class InsertBarriersPass : public Pass {
public:
  llvm::StringRef name() const override { return "insert-barriers"; }
  llvm::StringRef description() const override {
    return "Insert __syncthreads between conflicting shared-memory accesses";
  }

  bool run(Operation &Module, PassContext &Ctx) override {
    std::vector<Operation *> Kernels = Module.collect(OpKind::Kernel);
    bool OK = true;
    for (Operation *Kernel : Kernels)
      if (usesSharedMemory(*Kernel))
        OK &= BarrierPlacer(*Kernel, Ctx.Diags).run(Kernel->getBody());
    return OK;
  }
};

} // namespace

std::unique_ptr<Pass> tilec::createInsertBarriersPass() {
  return std::make_unique<InsertBarriersPass>();
}
