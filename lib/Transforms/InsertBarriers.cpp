//===- InsertBarriers.cpp - __syncthreads where shared memory needs it ----===//

#include "InsertBarriers.h"
#include "Divergence.h"
#include "PlanSharedMemory.h"
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
// Shared accesses
//===----------------------------------------------------------------------===//

/// One access of a shared buffer by one op.
struct Access {
  Operation *Op;
  unsigned Group; // operand group: the buffer and, when Exact, its indices
  bool Write;
  bool Atomic;
  bool Exact; // one element (Lanes for vcopy) per thread at the indices
  int64_t Lanes;

  Value *buffer() const { return Op->getGroup(Group)[0]; }
  bool operator==(const Access &O) const {
    return Op == O.Op && Group == O.Group;
  }
};

using AccessSet = std::vector<Access>;

bool isShared(const Value *V) {
  return V->getType().isBuffer() && V->getType().getScope() == Scope::Shared;
}

bool isMBarrierOp(const Operation &Op) {
  return Op.is(OpKind::MBarrierInit) || Op.is(OpKind::MBarrierArrive) ||
         Op.is(OpKind::MBarrierWait) || Op.is(OpKind::MBarrierExpectTx);
}

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
  bool ordered(const Access &EarlierAccess, const Access &LaterAccess) {
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
  static bool sameStage(const Operation &Wait, const Access &A,
                        const Access &B) {
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

void addUnique(AccessSet &S, const Access &A) {
  if (llvm::find(S, A) == S.end())
    S.push_back(A);
}

void addAll(AccessSet &S, const AccessSet &New) {
  for (const Access &A : New)
    addUnique(S, A);
}

/// Whether operand group \p G of \p Op is read, written or both: tile
/// operators read their sources and write their destinations; anything
/// unknown counts as a write.
bool groupIsWritten(const Operation &Op, unsigned G) {
  switch (Op.getKind()) {
  case OpKind::Load:
    return false;
  case OpKind::Copy:
  case OpKind::Reduce:
  case OpKind::Cumsum:
    return G == 1;
  case OpKind::VCopy:
  case OpKind::CpAsync:
  case OpKind::Ldmatrix:
  case OpKind::Stmatrix:
  case OpKind::Atomic:
    return G == 0;
  case OpKind::Gemm:
    return G == 2;
  case OpKind::Wgmma:
    // The accumulator; its shared operands are read.
    return G == 0;
  default:
    return true;
  }
}

/// The shared accesses \p Op makes itself (not those of nested ops).
AccessSet accessesOf(Operation &Op) {
  AccessSet Result;
  // A layout annotation names the buffer without touching its elements;
  // mbarrier operations synchronize through their own atomics; a TMA load
  // is ordered by the mbarriers its pipeline waits on (lower-pipelined).
  if (Op.is(OpKind::AnnotateLayout) || isMBarrierOp(Op) ||
      Op.is(OpKind::TmaLoad))
    return Result;
  // A stmatrix counts as the 16-byte row write of the lane that addresses
  // the row: the instruction is one warp's, and the rows of different
  // lanes (and of different stmatrix) do not overlap.
  bool ElementOp = Op.is(OpKind::Load) || Op.is(OpKind::Store) ||
                   Op.is(OpKind::VCopy) || Op.is(OpKind::CpAsync) ||
                   Op.is(OpKind::Stmatrix) ||
                   (Op.is(OpKind::Atomic) && !Op.hasAttr("extent"));
  int64_t Lanes = Op.is(OpKind::VCopy) || Op.is(OpKind::Atomic)
                      ? Op.getIntAttr("lanes").value_or(1)
                      : 1;
  if (Op.is(OpKind::CpAsync))
    Lanes = Op.getIntAttr("bytes").value_or(1) * 8 /
            std::max(1u, bitWidth(Op.getGroup(0)[0]->getType().getDType()));
  if (Op.is(OpKind::Stmatrix))
    Lanes = 8;
  for (unsigned G = 0; G != Op.getNumGroups(); ++G) {
    llvm::ArrayRef<Value *> Group = Op.getGroup(G);
    if (!isShared(Group[0]))
      continue;
    bool Write = groupIsWritten(Op, G);
    bool Exact = ElementOp && Group.size() > 1;
    Result.push_back(
        {&Op, G, Write, Op.is(OpKind::Atomic) && Write, Exact, Lanes});
  }
  return Result;
}

/// Every shared access made by \p Op or the ops nested in it.
AccessSet nestedAccesses(Operation &Op) {
  AccessSet Result;
  Op.walk([&](Operation &Inner) { addAll(Result, accessesOf(Inner)); });
  return Result;
}

//===----------------------------------------------------------------------===//
// Accesses that stay within one thread, by enumeration
//===----------------------------------------------------------------------===//

/// Flat element -> the thread touching it, or -1 when several do.
using OwnerMap = llvm::DenseMap<int64_t, int64_t>;
/// Values given to variables (loop variables, then memoized results).
using ValueEnv = llvm::DenseMap<const Value *, int64_t>;

/// A loop variable to enumerate and its values.
struct Range {
  const Value *Var;
  int64_t Lo, Step, Count;
};

/// The condition of an enclosing `if` and the branch the access is in.
struct Guard {
  const Value *Cond;
  bool Taken;
};

/// What enumerating an exact access needs.
struct AccessSpace {
  std::vector<Range> Ranges;
  std::vector<Guard> Guards;
  std::vector<int64_t> Shape;
};

/// Decides whether two exact accesses of one buffer can touch one element
/// from two different threads, by evaluating their indices for every
/// thread and every value of the loop variables they use, skipping points
/// where an enclosing `if` whose condition can be evaluated is not taken.
/// Indices built from anything else (block indices, loaded values, loops
/// with unknown bounds) are not analysed: such accesses always conflict.
class ThreadOwnership {
public:
  explicit ThreadOwnership(std::array<int64_t, 3> Threads) : Threads(Threads) {}

  /// True when no element is touched by \p A on one thread and by \p B on
  /// another. The variables of the loops in \p SameIteration take the same
  /// value for both accesses (both happen in one iteration of those).
  bool sameThreadsOnly(const Access &A, const Access &B,
                       const llvm::SmallPtrSetImpl<Operation *> &SameIteration);

private:
  static constexpr int64_t MaxPoints = 1 << 18;

  const std::optional<AccessSpace> &spaceOf(const Access &A);
  std::optional<AccessSpace> computeSpace(const Access &A);
  std::optional<OwnerMap> owners(const Access &A, const AccessSpace &S,
                                 const ValueEnv &Fixed);
  /// Owner maps without fixed variables, cached.
  const std::optional<OwnerMap> &freeOwners(const Access &A,
                                            const AccessSpace &S);
  bool disjoint(const OwnerMap &A, const OwnerMap &B) const;
  /// Evaluations enumerating \p A takes (capped just above MaxPoints).
  int64_t points(const Access &A, const AccessSpace &S) const;
  bool collectRanges(const Value *V, std::vector<Range> &Ranges,
                     llvm::SmallPtrSetImpl<const Value *> &Seen,
                     unsigned Depth = 0);
  std::optional<int64_t> eval(const Value *V, int64_t Tx, ValueEnv &Env,
                              unsigned Depth = 0);

  std::array<int64_t, 3> Threads;
  std::map<std::pair<Operation *, unsigned>, std::optional<AccessSpace>> Spaces;
  std::map<std::pair<Operation *, unsigned>, std::optional<OwnerMap>> Owners;
};

/// Loops longer than this are not enumerated.
constexpr int64_t MaxLoopCount = 1 << 18;
/// Index expressions deeper than this are not analysed.
constexpr unsigned MaxDepth = 64;

/// Whether \p Op, nested in \p If, is in its then-region.
bool inThenRegion(const Operation &If, const Operation &Op) {
  const Operation *Cur = &Op;
  while (Cur->getParentOp() != &If)
    Cur = Cur->getParentOp();
  return Cur->getParentBlock() == &If.getBody(0);
}

/// The range of a loop variable, if its loop has constant bounds.
std::optional<Range> loopVarRange(const Value *V) {
  Operation *Loop =
      V->isBlockArgument() ? V->getOwnerBlock()->getParentOp() : nullptr;
  if (!Loop)
    return std::nullopt;
  if (Loop->is(OpKind::Parallel)) {
    auto Extents = Loop->getIntArrayAttr("extents");
    if (!Extents || V->getIndex() >= Extents->size())
      return std::nullopt;
    return Range{V, 0, 1, (*Extents)[V->getIndex()]};
  }
  if (!Loop->is(OpKind::For))
    return std::nullopt;
  auto Lo = matchConstantInt(Loop->getOperand(0));
  auto Hi = matchConstantInt(Loop->getOperand(1));
  auto St = matchConstantInt(Loop->getOperand(2));
  if (!Lo || !Hi || !St || *St <= 0 || *Hi - *Lo > MaxLoopCount)
    return std::nullopt;
  int64_t Count = *Hi > *Lo ? (*Hi - *Lo + *St - 1) / *St : 0;
  return Range{V, *Lo, *St, Count};
}

bool ThreadOwnership::collectRanges(const Value *V, std::vector<Range> &Ranges,
                                    llvm::SmallPtrSetImpl<const Value *> &Seen,
                                    unsigned Depth) {
  // Deep index expressions are not analysed (and eval, which follows the
  // same operands, stays shallow).
  if (Depth > MaxDepth)
    return false;
  if (!Seen.insert(V).second)
    return true;
  if (V->isBlockArgument()) {
    std::optional<Range> R = loopVarRange(V);
    if (R)
      Ranges.push_back(*R);
    return R.has_value();
  }
  Operation *Def = V->getDefiningOp();
  if (!Def || Def->getNumRegions() != 0 || Def->is(OpKind::Load) ||
      Def->is(OpKind::Shfl) || Def->is(OpKind::Math) ||
      Def->is(OpKind::CallExtern) || Def->is(OpKind::Bitcast) ||
      !V->getType().isScalar() || V->getType().isFloat())
    return false;
  for (Value *Operand : Def->getOperands())
    if (!collectRanges(Operand, Ranges, Seen, Depth + 1))
      return false;
  return true;
}

const std::optional<AccessSpace> &ThreadOwnership::spaceOf(const Access &A) {
  auto Key = std::make_pair(A.Op, A.Group);
  auto It = Spaces.find(Key);
  if (It != Spaces.end())
    return It->second;
  return Spaces[Key] = computeSpace(A);
}

std::optional<AccessSpace> ThreadOwnership::computeSpace(const Access &A) {
  if (!A.Exact)
    return std::nullopt;
  llvm::ArrayRef<Value *> Group = A.Op->getGroup(A.Group);
  auto Shape = Group[0]->getType().getStaticShape();
  if (!Shape || Shape->size() != Group.size() - 1)
    return std::nullopt;
  AccessSpace S;
  S.Shape = *Shape;
  llvm::SmallPtrSet<const Value *, 16> Seen;
  for (Value *Index : Group.drop_front())
    if (!collectRanges(Index, S.Ranges, Seen))
      return std::nullopt;
  // Conditions that cannot be evaluated are left out: the access is then
  // assumed to happen at more points, which only adds conflicts.
  for (Operation *P = A.Op->getParentOp(); P && !P->is(OpKind::Kernel);
       P = P->getParentOp()) {
    if (!P->is(OpKind::If))
      continue;
    std::vector<Range> More;
    llvm::SmallPtrSet<const Value *, 16> MoreSeen(Seen.begin(), Seen.end());
    if (!collectRanges(P->getOperand(0), More, MoreSeen))
      continue;
    S.Guards.push_back({P->getOperand(0), inThenRegion(*P, *A.Op)});
    S.Ranges.insert(S.Ranges.end(), More.begin(), More.end());
    Seen.insert(MoreSeen.begin(), MoreSeen.end());
  }
  return S;
}

std::optional<OwnerMap> ThreadOwnership::owners(const Access &A,
                                                const AccessSpace &S,
                                                const ValueEnv &Fixed) {
  std::vector<Range> Free;
  for (const Range &R : S.Ranges)
    if (!Fixed.count(R.Var))
      Free.push_back(R);
  int64_t T = Threads[0] * Threads[1] * Threads[2];
  int64_t Iterations = 1;
  for (const Range &R : Free) {
    if (R.Count == 0)
      return OwnerMap();
    if (T * A.Lanes * Iterations > MaxPoints / R.Count)
      return std::nullopt;
    Iterations *= R.Count;
  }
  if (T * A.Lanes > MaxPoints)
    return std::nullopt;
  llvm::ArrayRef<Value *> Indices = A.Op->getGroup(A.Group).drop_front();
  OwnerMap Result;
  ValueEnv Env;
  for (int64_t P = 0; P != Iterations; ++P) {
    for (int64_t Tx = 0; Tx != T; ++Tx) {
      Env = Fixed;
      int64_t Rest = P; // mixed-radix counter over the free variables
      for (const Range &R : Free) {
        Env[R.Var] = R.Lo + Rest % R.Count * R.Step;
        Rest /= R.Count;
      }
      bool Happens = true;
      for (const Guard &G : S.Guards) {
        std::optional<int64_t> C = eval(G.Cond, Tx, Env);
        if (!C)
          return std::nullopt;
        Happens &= (*C != 0) == G.Taken;
      }
      if (!Happens)
        continue;
      int64_t Flat = 0;
      for (size_t D = 0; D != S.Shape.size(); ++D) {
        std::optional<int64_t> Index = eval(Indices[D], Tx, Env);
        if (!Index || __builtin_mul_overflow(Flat, S.Shape[D], &Flat) ||
            __builtin_add_overflow(Flat, *Index, &Flat))
          return std::nullopt;
      }
      for (int64_t L = 0; L != A.Lanes; ++L) {
        auto [It, New] = Result.try_emplace(Flat + L, Tx);
        if (!New && It->second != Tx)
          It->second = -1;
      }
    }
  }
  return Result;
}

const std::optional<OwnerMap> &
ThreadOwnership::freeOwners(const Access &A, const AccessSpace &S) {
  auto Key = std::make_pair(A.Op, A.Group);
  auto It = Owners.find(Key);
  if (It != Owners.end())
    return It->second;
  return Owners[Key] = owners(A, S, ValueEnv());
}

int64_t ThreadOwnership::points(const Access &A, const AccessSpace &S) const {
  int64_t N = Threads[0] * Threads[1] * Threads[2] * A.Lanes;
  for (const Range &R : S.Ranges) {
    if (R.Count > 0 && N > MaxPoints / R.Count)
      return MaxPoints + 1;
    N *= std::max<int64_t>(R.Count, 1);
  }
  return N;
}

bool ThreadOwnership::disjoint(const OwnerMap &A, const OwnerMap &B) const {
  for (const auto &[Elem, Thread] : B) {
    auto It = A.find(Elem);
    if (It != A.end() && (Thread < 0 || It->second != Thread))
      return false;
  }
  return true;
}

bool ThreadOwnership::sameThreadsOnly(
    const Access &A, const Access &B,
    const llvm::SmallPtrSetImpl<Operation *> &SameIteration) {
  const std::optional<AccessSpace> &SA = spaceOf(A);
  const std::optional<AccessSpace> &SB = spaceOf(B);
  if (!SA || !SB)
    return false;
  std::vector<Range> Shared;
  for (const AccessSpace *S : {&*SA, &*SB})
    for (const Range &R : S->Ranges)
      if (SameIteration.count(R.Var->getOwnerBlock()->getParentOp()) &&
          llvm::none_of(Shared, [&](const Range &O) { return O.Var == R.Var; }))
        Shared.push_back(R);
  if (points(A, *SA) > MaxPoints || points(B, *SB) > MaxPoints)
    return false;
  if (Shared.empty()) {
    const std::optional<OwnerMap> &OA = freeOwners(A, *SA);
    const std::optional<OwnerMap> &OB = freeOwners(B, *SB);
    return OA && OB && disjoint(*OA, *OB);
  }
  int64_t Assignments = 1;
  for (const Range &R : Shared) {
    if (R.Count == 0)
      return true;
    if (Assignments > MaxPoints / R.Count)
      return false;
    Assignments *= R.Count;
  }
  for (int64_t P = 0; P != Assignments; ++P) {
    ValueEnv Fixed;
    int64_t Rest = P;
    for (const Range &R : Shared) {
      Fixed[R.Var] = R.Lo + Rest % R.Count * R.Step;
      Rest /= R.Count;
    }
    std::optional<OwnerMap> OA = owners(A, *SA, Fixed);
    std::optional<OwnerMap> OB = owners(B, *SB, Fixed);
    if (!OA || !OB || !disjoint(*OA, *OB))
      return false;
  }
  return true;
}

/// Value of \p V at thread \p Tx and the loop variables in \p Env.
std::optional<int64_t> ThreadOwnership::eval(const Value *V, int64_t Tx,
                                             ValueEnv &Env, unsigned Depth) {
  auto Known = Env.find(V);
  if (Known != Env.end())
    return Known->second;
  const Operation *Def = V->getDefiningOp();
  if (!Def || Depth > MaxDepth)
    return std::nullopt;
  std::optional<int64_t> R;
  if (Def->is(OpKind::Const)) {
    R = matchConstantInt(V);
  } else if (Def->is(OpKind::ThreadId)) {
    int64_t Dim = Def->getIntAttr("dim").value_or(0);
    int64_t Ids[3] = {Tx % Threads[0], Tx / Threads[0] % Threads[1],
                      Tx / (Threads[0] * Threads[1])};
    R = Dim >= 0 && Dim < 3 ? std::optional<int64_t>(Ids[Dim]) : std::nullopt;
  } else {
    std::vector<int64_t> Args;
    for (Value *Operand : Def->getOperands()) {
      std::optional<int64_t> A = eval(Operand, Tx, Env, Depth + 1);
      if (!A)
        return std::nullopt;
      Args.push_back(*A);
    }
    R = evalIntOp(*Def, Args);
  }
  if (R)
    Env[V] = *R;
  return R;
}

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
  bool conflict(const Access &A, const Access &B,
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

  bool conflict(const Access &A, const Access &B) {
    return conflict(A, B, llvm::SmallPtrSet<Operation *, 1>(),
                    /*EitherFirst=*/false);
  }

  /// The first access of \p New conflicting with one of \p Pending.
  const Access *findConflict(const AccessSet &Pending, const AccessSet &New) {
    for (const Access &B : New)
      for (const Access &A : Pending)
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
    if (!CurRole)
      return B.create(OpKind::Barrier, {}, {}, {});
    std::vector<int64_t> Range = *CurRole->getIntArrayAttr("thread_range");
    return B.create(OpKind::Barrier, {}, {}, {},
                    {{"id", Attribute::integer(roleBarrierId(*CurRole))},
                     {"count", Attribute::integer(Range[1])}});
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
        // A named barrier where every thread runs it is trusted as one for
        // the block (the user chose its count).
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
  static constexpr int64_t MaxBarrierId = 15;
  std::set<int64_t> UsedIds;
  std::map<std::pair<int64_t, int64_t>, int64_t> RoleIds;
  bool Failed = false;

  /// Adds the accesses of code summarized as a whole; its cp_async writes
  /// stay in flight until the next wait.
  void addNested(AccessSet &Pending, const AccessSet &New) {
    for (const Access &A : New)
      addUnique(A.Op->is(OpKind::CpAsync) ? InFlight : Pending, A);
  }
};

bool usesSharedMemory(Operation &Kernel) {
  bool Found = false;
  Kernel.walk([&](Operation &Op) {
    Found |= Op.is(OpKind::Alloc) && isShared(Op.getResult());
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
