//===- Loops.cpp - T.Parallel, T.Pipelined, T.Persistent, serial loops ----===//
//
// The loop primitives (range, T.serial, T.unroll, T.vectorized,
// T.Parallel, T.Pipelined with its order/stage arguments, T.Persistent)
// become loop objects, and a `for` over one of them in kernel code becomes
// a `for` or `parallel` op (split out of KernelGen.cpp).
//
//===----------------------------------------------------------------------===//

#include "Builtins.h"
#include "Interp.h"
#include "tilec/IR/Value.h"

using namespace tilec;
using namespace tilec::sema;
using namespace tilec::ast;

/// Fills Start/Stop/Step from (start, stop=None[, step=None]).
static bool loopBounds(Interp &I, BoundArgs &A, LoopObj &L, int StepArg) {
  L.Range = A.CallRange;
  if (A[1].isNone()) {
    L.Start = Value::integer(0);
    L.Stop = A[0];
    L.StartRange = L.StopRange = A.range(0);
  } else {
    L.Start = A[0];
    L.Stop = A[1];
    L.StartRange = A.range(0);
    L.StopRange = A.range(1);
  }
  L.Step =
      StepArg >= 0 && !A[StepArg].isNone() ? A[StepArg] : Value::integer(1);
  L.StepRange = StepArg >= 0 ? A.range(StepArg) : A.CallRange;
  for (const Value *V : {&L.Start, &L.Stop, &L.Step}) {
    if (V->isFloat() || V->isStr() || V->isSequence()) {
      I.error(V == &L.Start  ? L.StartRange
              : V == &L.Stop ? L.StopRange
                             : L.StepRange,
              diag::err_type_mismatch)
          << "loop bound"
          << "an integer" << typeName(*V);
      return false;
    }
  }
  if (L.Step.isIntLike() && L.Step.getInt() == 0) {
    I.error(L.StepRange, diag::err_non_positive_extent) << "loop step" << 0;
    return false;
  }
  return true;
}

static Value makeLoop(Interp &I, BoundArgs &A, LoopObj::LoopKind K,
                      int StepArg) {
  auto L = std::make_shared<LoopObj>(K);
  if (!loopBounds(I, A, *L, StepArg))
    return Value::poison();
  return Value::object(std::move(L));
}

Value sema::pyRange(Interp &I, BoundArgs &A) {
  return makeLoop(I, A, LoopObj::LoopKind::Range, 2);
}
Value sema::tSerial(Interp &I, BoundArgs &A) {
  return makeLoop(I, A, LoopObj::LoopKind::Serial, 2);
}
Value sema::tUnroll(Interp &I, BoundArgs &A) {
  return makeLoop(I, A, LoopObj::LoopKind::Unroll, 2);
}
Value sema::tVectorized(Interp &I, BoundArgs &A) {
  return makeLoop(I, A, LoopObj::LoopKind::Vectorized, -1);
}

Value sema::tParallel(Interp &I, BoundArgs &A) {
  auto L = std::make_shared<LoopObj>(LoopObj::LoopKind::Parallel);
  L->Range = A.CallRange;
  if (A.Rest.empty()) {
    I.error(A.CallRange, diag::err_missing_argument) << A.name() << "extents";
    return Value::poison();
  }
  for (size_t K = 0; K < A.Rest.size(); ++K) {
    const Value &E = A.Rest[K];
    if (E.isRuntime() || E.getAs<BufferRefObj>() || isSymbolic(E)) {
      I.error(A.RestRanges[K], diag::err_parallel_nested_runtime);
      return Value::poison();
    }
    auto N = I.constInt(E, A.RestRanges[K], "T.Parallel extent");
    if (!N)
      return Value::poison();
    if (*N <= 0) {
      I.error(A.RestRanges[K], diag::err_non_positive_extent)
          << "T.Parallel extent" << *N;
      return Value::poison();
    }
    L->Extents.push_back(*N);
  }
  // Thread binding numbers the iterations with one 32-bit index.
  int64_t Total = 1;
  for (int64_t N : L->Extents)
    Total = N > (int64_t(1) << 56) / Total ? int64_t(1) << 56 : Total * N;
  if (Total > INT32_MAX) {
    I.error(A.CallRange, diag::err_parallel_too_large)
        << Total << int64_t(INT32_MAX);
    return Value::poison();
  }
  return Value::object(std::move(L));
}

/// TVM's T.parallel(start, stop=None): a one-dimensional T.Parallel over
/// range(start, stop) with start 0; nested ones fuse (FuseParallel.h).
Value sema::tParallelTir(Interp &I, BoundArgs &A) {
  BoundArgs Loop = A;
  Loop.Rest = {A[0]};
  Loop.RestRanges = {A.range(0)};
  if (A.given(1)) {
    auto Start = I.constInt(A[0], A.range(0), "T.parallel start");
    if (!Start)
      return Value::poison();
    if (*Start != 0) {
      I.error(A.range(0), diag::err_feature_unsupported)
          << "T.parallel with a start other than 0 (write T.Parallel(stop "
             "- start) and add start to the index)";
      return Value::poison();
    }
    Loop.Rest = {A[1]};
    Loop.RestRanges = {A.range(1)};
  }
  return tParallel(I, Loop);
}

static std::optional<std::vector<int64_t>>
intList(Interp &I, const Value &V, llvm::SMRange R, llvm::StringRef What) {
  if (!V.isSequence()) {
    I.error(R, diag::err_type_mismatch)
        << What << "a list of ints" << typeName(V);
    return std::nullopt;
  }
  std::vector<int64_t> Out;
  for (const Value &E : V.elts()) {
    auto N = I.constInt(E, R, What);
    if (!N)
      return std::nullopt;
    Out.push_back(*N);
  }
  return Out;
}

static bool pipelineError(Interp &I, llvm::SMRange R, const std::string &M) {
  I.error(R, diag::err_bad_pipeline) << M;
  return false;
}

/// `order`, `stage` and `group` have one entry per group of statements (per
/// statement without `group`). -1 in both lists leaves a copy to the
/// compiler; the other orders are a permutation of 0..n-1, the other stages
/// lie in 0..max(num_stages, 1).
static bool checkPipelineOrder(Interp &I, LoopObj &L, llvm::SMRange R,
                               size_t NumGroups) {
  if (L.HasOrder && L.HasStage && L.Order.size() != L.Stage.size())
    return pipelineError(I, R,
                         "'order' has " + std::to_string(L.Order.size()) +
                             " entries but 'stage' has " +
                             std::to_string(L.Stage.size()));
  size_t N = L.HasOrder ? L.Order.size() : L.Stage.size();
  if (NumGroups && (L.HasOrder || L.HasStage) && N != NumGroups)
    return pipelineError(I, R,
                         "'group' has " + std::to_string(NumGroups) +
                             " entries but 'order'/'stage' have " +
                             std::to_string(N));
  for (size_t K = 0; L.HasOrder && L.HasStage && K != N; ++K)
    if ((L.Order[K] == -1) != (L.Stage[K] == -1))
      return pipelineError(
          I, R,
          "entry " + std::to_string(K) + " has order " +
              std::to_string(L.Order[K]) + " but stage " +
              std::to_string(L.Stage[K]) +
              ": -1 (a copy placed by the compiler) must be in both lists");
  std::vector<int64_t> Sorted;
  for (int64_t O : L.Order)
    if (O != -1)
      Sorted.push_back(O);
  std::sort(Sorted.begin(), Sorted.end());
  for (size_t K = 0; K < Sorted.size(); ++K)
    if (Sorted[K] != int64_t(K))
      return pipelineError(I, R,
                           "'order' must be a permutation of 0.." +
                               std::to_string(int64_t(Sorted.size()) - 1) +
                               " (and -1 for copies placed by the compiler)");
  int64_t MaxStage = std::max<int64_t>(L.NumStages, 1);
  for (int64_t S : L.Stage)
    if (S != -1 && (S < 0 || S > MaxStage))
      return pipelineError(I, R,
                           "stage " + std::to_string(S) + " is outside 0.." +
                               std::to_string(MaxStage));
  return true;
}

/// `group` lists the loop body's statements 0..m-1 in order, each once, in
/// consecutive runs; returns the runs' sizes.
static std::optional<std::vector<size_t>> groupSizes(Interp &I, const Value &V,
                                                     llvm::SMRange R) {
  if (!V.isSequence()) {
    I.error(R, diag::err_type_mismatch)
        << "group"
        << "a list of lists of ints" << typeName(V);
    return std::nullopt;
  }
  std::vector<size_t> Sizes;
  int64_t Next = 0;
  for (const Value &G : V.elts()) {
    auto List = intList(I, G, R, "group");
    if (!List)
      return std::nullopt;
    for (int64_t S : *List)
      if (S != Next++) {
        pipelineError(I, R,
                      "'group' must list the statements 0, 1, 2, ... in "
                      "order, each once: group " +
                          std::to_string(Sizes.size()) + " has " +
                          std::to_string(S) + " where " +
                          std::to_string(Next - 1) + " is due");
        return std::nullopt;
      }
    if (List->empty()) {
      pipelineError(I, R,
                    "group " + std::to_string(Sizes.size()) + " is empty");
      return std::nullopt;
    }
    Sizes.push_back(List->size());
  }
  return Sizes;
}

/// Gives every statement of a group its group's stage, and orders the
/// statements of a group consecutively, in body order: the IR has one
/// entry per statement.
static void expandGroups(LoopObj &L, const std::vector<size_t> &Sizes) {
  std::vector<int64_t> Order, Stage;
  std::vector<size_t> First;
  for (size_t G = 0, Pos = 0; G != Sizes.size(); Pos += Sizes[G++])
    First.push_back(Pos);
  std::vector<size_t> ByOrder;
  for (size_t G = 0; G != Sizes.size(); ++G)
    if (L.HasOrder && L.Order[G] != -1)
      ByOrder.push_back(G);
  std::sort(ByOrder.begin(), ByOrder.end(),
            [&](size_t A, size_t B) { return L.Order[A] < L.Order[B]; });
  std::vector<int64_t> GroupStart(Sizes.size(), -1);
  for (size_t K = 0, Next = 0; K != ByOrder.size(); Next += Sizes[ByOrder[K++]])
    GroupStart[ByOrder[K]] = int64_t(Next);
  for (size_t G = 0; G != Sizes.size(); ++G)
    for (size_t S = 0; S != Sizes[G]; ++S) {
      if (L.HasOrder)
        Order.push_back(GroupStart[G] < 0 ? -1 : GroupStart[G] + int64_t(S));
      if (L.HasStage)
        Stage.push_back(L.Stage[G]);
    }
  L.Order = std::move(Order);
  L.Stage = std::move(Stage);
}

Value sema::tPipelined(Interp &I, BoundArgs &A) {
  auto L = std::make_shared<LoopObj>(LoopObj::LoopKind::Pipelined);
  if (!loopBounds(I, A, *L, -1))
    return Value::poison();
  auto Stages = I.constInt(A[2], A.range(2), "num_stages");
  if (!Stages)
    return Value::poison();
  if (*Stages < 0) {
    I.error(A.range(2), diag::err_bad_pipeline)
        << "num_stages must be non-negative, got " + std::to_string(*Stages);
    return Value::poison();
  }
  L->NumStages = *Stages;
  for (unsigned K : {3u, 4u}) {
    if (A[K].isNone())
      continue;
    auto List = intList(I, A[K], A.range(K), K == 3 ? "order" : "stage");
    if (!List)
      return Value::poison();
    (K == 3 ? L->Order : L->Stage) = *List;
    (K == 3 ? L->HasOrder : L->HasStage) = true;
  }
  std::vector<size_t> Sizes;
  if (!A[6].isNone()) {
    auto Got = groupSizes(I, A[6], A.range(6));
    if (!Got)
      return Value::poison();
    Sizes = std::move(*Got);
  }
  if (!checkPipelineOrder(I, *L, A.CallRange, Sizes.size()))
    return Value::poison();
  if (!Sizes.empty())
    expandGroups(*L, Sizes);
  return Value::object(std::move(L));
}

/// T.Persistent(domain, wave_size, index, group_size=8): the tiles of
/// `domain` visited by persistent blocks, `wave_size` of them at a time,
/// this block being number `index` of each wave (see persistentCoords).
Value sema::tPersistent(Interp &I, BoundArgs &A) {
  auto L = std::make_shared<LoopObj>(LoopObj::LoopKind::Persistent);
  if (!A[0].isSequence() || A[0].elts().empty()) {
    I.error(A.range(0), diag::err_persistent)
        << "the domain must be a non-empty list of tile counts, got " +
               typeName(A[0]);
    return Value::poison();
  }
  L->Domain = A[0].elts();
  L->DomainRanges.assign(L->Domain.size(), A.range(0));
  L->WaveSize = A[1];
  L->WaveRange = A.range(1);
  L->Index = A[2];
  L->IndexRange = A.range(2);
  L->GroupSize = A[3];
  L->GroupRange = A.range(3);
  L->Range = A.CallRange;
  return Value::object(std::move(L));
}

namespace {
/// The i32 values of a T.Persistent loop, as TileLang lays the tiles out:
/// the last dim of the domain is cut into groups of G = clamp(group_size,
/// 1, last) tiles, and tile numbers w * wave_size + index run fastest over
/// the group, then over the other dims in order, then over the groups.
struct PersistentPlan {
  std::vector<ir::Value *> Domain;
  ir::Value *Wave = nullptr, *Index = nullptr, *Group = nullptr;
  /// [ceildiv(last, G), d0, ..., d(n-2), G] and its product.
  std::vector<ir::Value *> Grouped;
  ir::Value *Padded = nullptr;
};

ir::Value *ceilDiv(Interp &I, ir::Value *A, ir::Value *B) {
  ir::Value *One = I.B.createConstInt(1);
  return I.B.createBinary(
      ir::OpKind::FloorDiv,
      I.B.createBinary(ir::OpKind::Sub, I.B.createBinary(ir::OpKind::Add, A, B),
                       One),
      B);
}

std::optional<PersistentPlan> planPersistent(Interp &I, LoopObj &L) {
  PersistentPlan P;
  for (size_t K = 0; K != L.Domain.size(); ++K) {
    P.Domain.push_back(I.toIndex(L.Domain[K], L.DomainRanges[K]));
    if (!P.Domain.back())
      return std::nullopt;
  }
  P.Wave = I.toIndex(L.WaveSize, L.WaveRange);
  P.Index = I.toIndex(L.Index, L.IndexRange);
  P.Group = I.toIndex(L.GroupSize, L.GroupRange);
  if (!P.Wave || !P.Index || !P.Group)
    return std::nullopt;
  ir::Value *Last = P.Domain.back();
  P.Group = I.B.createBinary(ir::OpKind::Max, I.B.createConstInt(1),
                             I.B.createBinary(ir::OpKind::Min, P.Group, Last));
  P.Grouped.push_back(ceilDiv(I, Last, P.Group));
  P.Grouped.insert(P.Grouped.end(), P.Domain.begin(), P.Domain.end() - 1);
  P.Grouped.push_back(P.Group);
  P.Padded = P.Grouped.front();
  for (size_t K = 1; K != P.Grouped.size(); ++K)
    P.Padded = I.B.createBinary(ir::OpKind::Mul, P.Padded, P.Grouped[K]);
  return P;
}

/// Inside the wave loop (variable \p W): the tile coordinates, under an
/// `if` that skips tile numbers past the padded domain and the padding of
/// the last group, where the body is then emitted.
std::vector<ir::Value *> persistentCoords(Interp &I, const PersistentPlan &P,
                                          ir::Value *W) {
  ir::Value *Tile = I.B.createBinary(
      ir::OpKind::Add, I.B.createBinary(ir::OpKind::Mul, W, P.Wave), P.Index);
  std::vector<ir::Value *> Idx(P.Grouped.size());
  ir::Value *Rem = Tile;
  for (size_t K = P.Grouped.size(); K-- > 1;) {
    Idx[K] = I.B.createBinary(ir::OpKind::FloorMod, Rem, P.Grouped[K]);
    Rem = I.B.createBinary(ir::OpKind::FloorDiv, Rem, P.Grouped[K]);
  }
  Idx[0] = Rem;
  ir::Value *LastCoord = I.B.createBinary(
      ir::OpKind::Add, I.B.createBinary(ir::OpKind::Mul, Idx[0], P.Group),
      Idx.back());
  ir::Value *InRange = I.B.createBinary(
      ir::OpKind::And, I.B.createCmp(ir::CmpPred::Lt, Tile, P.Padded),
      I.B.createCmp(ir::CmpPred::Lt, LastCoord, P.Domain.back()));
  ir::Operation *If = I.B.createIf(InRange);
  I.B.setInsertionPointToEnd(If->getBody(0));
  std::vector<ir::Value *> Coords(Idx.begin() + 1, Idx.end() - 1);
  Coords.push_back(LastCoord);
  return Coords;
}
} // namespace

static llvm::StringRef loopKindName(LoopObj::LoopKind K) {
  switch (K) {
  case LoopObj::LoopKind::Pipelined:
    return "pipelined";
  case LoopObj::LoopKind::Unroll:
    return "unroll";
  case LoopObj::LoopKind::Vectorized:
    return "vectorized";
  default:
    return "serial";
  }
}

/// Names of the loop variables; nullopt (reported) on a count mismatch.
static std::optional<std::vector<const NameExpr *>>
loopTargets(Interp &I, const Expr *Target, size_t Count) {
  std::vector<const NameExpr *> Out;
  if (auto *N = llvm::dyn_cast<NameExpr>(Target))
    Out.push_back(N);
  else if (auto *T = llvm::dyn_cast<TupleExpr>(Target))
    for (const ExprPtr &E : T->Elts)
      Out.push_back(llvm::dyn_cast<NameExpr>(E.get()));
  if (llvm::is_contained(Out, nullptr) || Out.empty()) {
    I.error(Target->getRange(), diag::err_invalid_assign_target)
        << "'" + exprText(Target->getRange()) + "' in a kernel loop";
    return std::nullopt;
  }
  if (Out.size() != Count) {
    I.error(Target->getRange(), diag::err_unpack_count) << Count << Out.size();
    return std::nullopt;
  }
  return Out;
}

static ir::Operation *createLoopOp(Interp &I, LoopObj &L, size_t NumIVs,
                                   const std::vector<const NameExpr *> &IVs,
                                   std::optional<PersistentPlan> &Plan) {
  if (L.LK == LoopObj::LoopKind::Persistent) {
    Plan = planPersistent(I, L);
    if (!Plan)
      return nullptr;
    return I.B.createFor(I.B.createConstInt(0),
                         ceilDiv(I, Plan->Padded, Plan->Wave),
                         I.B.createConstInt(1), "serial", "w");
  }
  if (L.LK == LoopObj::LoopKind::Parallel) {
    std::vector<std::string> Names;
    for (const NameExpr *N : IVs)
      Names.push_back(N->Id);
    return I.B.createParallel(L.Extents, Names);
  }
  ir::Value *Lo = I.toIndex(L.Start, L.StartRange);
  ir::Value *Hi = I.toIndex(L.Stop, L.StopRange);
  ir::Value *Step = I.toIndex(L.Step, L.StepRange);
  if (!Lo || !Hi || !Step)
    return nullptr;
  ir::Operation *Op =
      I.B.createFor(Lo, Hi, Step, loopKindName(L.LK), IVs[0]->Id);
  if (L.LK != LoopObj::LoopKind::Pipelined)
    return Op;
  Op->setAttr("num_stages", ir::Attribute::integer(L.NumStages));
  if (L.HasOrder)
    Op->setAttr("order", ir::Attribute::intArray(L.Order));
  if (L.HasStage)
    Op->setAttr("stage", ir::Attribute::intArray(L.Stage));
  return Op;
}

Flow Interp::execRuntimeFor(const ForStmt *S, LoopObj &L) {
  size_t NumIVs = L.LK == LoopObj::LoopKind::Parallel     ? L.Extents.size()
                  : L.LK == LoopObj::LoopKind::Persistent ? L.Domain.size()
                                                          : size_t(1);
  auto IVs = loopTargets(*this, S->Target.get(), NumIVs);
  if (!IVs)
    return Flow::Normal;
  B.setLoc(Location(L.Range));
  std::optional<PersistentPlan> Plan;
  ir::Operation *Op = createLoopOp(*this, L, NumIVs, *IVs, Plan);
  if (!Op)
    return Aborting ? Flow::Abort : Flow::Normal;
  ir::Builder::InsertionGuard G(B);
  B.setInsertionPointToEnd(Op->getBody());
  std::vector<ir::Value *> IVValues;
  if (Plan)
    IVValues = persistentCoords(*this, *Plan, Op->getBody().getArgument(0));
  else
    for (size_t K = 0; K < NumIVs; ++K)
      IVValues.push_back(Op->getBody().getArgument(K));
  frame().Loops.push_back({true, frame().Regions.size()});
  openRegion();
  for (size_t K = 0; K < NumIVs; ++K) {
    IVValues[K]->setNameHint((*IVs)[K]->Id);
    bindName((*IVs)[K]->Id, Value::runtime(IVValues[K]), (*IVs)[K]->getRange());
    frame().LoopVars.push_back((*IVs)[K]->Id);
  }
  Flow F = exec(S->Body);
  frame().LoopVars.resize(frame().LoopVars.size() - NumIVs);
  closeRegion();
  frame().Loops.pop_back();
  return F == Flow::Abort ? Flow::Abort : Flow::Normal;
}
