//===- SharedAccesses.cpp - Shared-memory accesses and their threads -----===//

#include "SharedAccesses.h"
#include "PipelineSchedule.h"
#include "tilec/IR/ConstantMatch.h"
#include <algorithm>

using namespace tilec;
using namespace tilec::ir;

namespace {

bool isMBarrierOp(const Operation &Op) {
  return Op.is(OpKind::MBarrierInit) || Op.is(OpKind::MBarrierArrive) ||
         Op.is(OpKind::MBarrierWait) || Op.is(OpKind::MBarrierExpectTx);
}

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

} // namespace

void tilec::addUnique(AccessSet &S, const SharedAccess &A) {
  if (llvm::find(S, A) == S.end())
    S.push_back(A);
}

void tilec::addAll(AccessSet &S, const AccessSet &New) {
  for (const SharedAccess &A : New)
    addUnique(S, A);
}

/// The shared accesses \p Op makes itself (not those of nested ops).
AccessSet tilec::accessesOf(Operation &Op) {
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
    if (!Group[0]->isBufferIn(Scope::Shared))
      continue;
    bool Write = groupIsWritten(Op, G);
    bool Exact = ElementOp && Group.size() > 1;
    Result.push_back(
        {&Op, G, Write, Op.is(OpKind::Atomic) && Write, Exact, Lanes});
  }
  return Result;
}

/// Every shared access made by \p Op or the ops nested in it.
AccessSet tilec::nestedAccesses(Operation &Op) {
  AccessSet Result;
  Op.walk([&](Operation &Inner) { addAll(Result, accessesOf(Inner)); });
  return Result;
}

/// The range of a loop variable, if its loop has constant bounds.
std::optional<ThreadOwnership::Range>
ThreadOwnership::loopVarRange(const Value *V) {
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

const std::optional<ThreadOwnership::AccessSpace> &
ThreadOwnership::spaceOf(const SharedAccess &A) {
  auto Key = std::make_pair(A.Op, A.Group);
  auto It = Spaces.find(Key);
  if (It != Spaces.end())
    return It->second;
  return Spaces[Key] = computeSpace(A);
}

std::optional<ThreadOwnership::AccessSpace>
ThreadOwnership::computeSpace(const SharedAccess &A) {
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

std::optional<ThreadOwnership::OwnerMap>
ThreadOwnership::owners(const SharedAccess &A, const AccessSpace &S,
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

const std::optional<ThreadOwnership::OwnerMap> &
ThreadOwnership::freeOwners(const SharedAccess &A, const AccessSpace &S) {
  auto Key = std::make_pair(A.Op, A.Group);
  auto It = Owners.find(Key);
  if (It != Owners.end())
    return It->second;
  return Owners[Key] = owners(A, S, ValueEnv());
}

int64_t ThreadOwnership::points(const SharedAccess &A,
                                const AccessSpace &S) const {
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
    const SharedAccess &A, const SharedAccess &B,
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
