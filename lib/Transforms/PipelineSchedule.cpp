//===- PipelineSchedule.cpp - What a T.Pipelined body is made of ----------===//

#include "PipelineSchedule.h"
#include "Divergence.h"
#include "tilec/IR/ConstantMatch.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"

using namespace tilec;
using namespace tilec::ir;

bool tilec::isPureScalarOp(const Operation &Op) {
  if (Op.getNumRegions() != 0 || Op.getNumResults() != 1 ||
      !Op.getResult()->getType().isScalar())
    return false;
  OpKind K = Op.getKind();
  return isBinaryOp(K) || isUnaryOp(K) || K == OpKind::Const ||
         K == OpKind::Cmp || K == OpKind::Select || K == OpKind::Cast ||
         K == OpKind::Bitcast || K == OpKind::Math || K == OpKind::ThreadId;
}

bool tilec::hasStageableUses(const Operation &Loop, const Value *Buf) {
  unsigned Rank = Buf->getType().rank();
  for (const Use &U : Buf->getUses()) {
    if (U.User->is(OpKind::View))
      return false;
    if (!Loop.isAncestorOf(U.User)) {
      if (!U.User->is(OpKind::AnnotateLayout))
        return false;
      continue;
    }
    for (unsigned G = 0; G != U.User->getNumGroups(); ++G)
      if (U.User->getGroup(G).front() == Buf &&
          U.User->getGroup(G).size() != Rank + 1)
        return false;
  }
  return true;
}

bool tilec::groupIsWritten(const Operation &Op, unsigned G) {
  switch (Op.getKind()) {
  case OpKind::Load:
  case OpKind::AnnotateLayout:
  case OpKind::BulkWait:
    return false;
  case OpKind::Store:
  case OpKind::Copy:
  case OpKind::Reduce:
  case OpKind::Cumsum:
    return G == 1;
  case OpKind::Gemm:
    return G == 2;
  case OpKind::VCopy:
  case OpKind::CpAsync:
  case OpKind::Atomic:
  case OpKind::Ldmatrix:
  case OpKind::Stmatrix:
  case OpKind::Mma:
  case OpKind::Mfma:
  case OpKind::Wgmma:
  case OpKind::TmaLoad:
  case OpKind::BulkReduce:
    return G == 0;
  default:
    return true;
  }
}

void tilec::prependIndex(Operation &Op, const Value *Buf, Value *Idx) {
  std::vector<Value *> Operands;
  std::vector<unsigned> Segments;
  for (unsigned G = 0; G != Op.getNumGroups(); ++G) {
    llvm::ArrayRef<Value *> Group = Op.getGroup(G);
    bool Staged = Group.front() == Buf && Group.size() > 1;
    Operands.push_back(Group.front());
    if (Staged)
      Operands.push_back(Idx);
    Operands.insert(Operands.end(), Group.begin() + 1, Group.end());
    Segments.push_back(Group.size() + (Staged ? 1 : 0));
  }
  Op.setOperands(Operands, Segments);
}

namespace {

bool writesBuffer(Operation &Root, const Value *Buf) {
  bool Found = false;
  Root.walk([&](Operation &Op) {
    for (unsigned G = 0; G != Op.getNumGroups(); ++G)
      Found |= Op.getGroup(G).front() == Buf && groupIsWritten(Op, G);
  });
  return Found;
}

bool usesBuffer(Operation &Root, const Value *Buf) {
  bool Found = false;
  Root.walk([&](Operation &Op) {
    Found |= llvm::is_contained(Op.getOperands(), Buf);
  });
  return Found;
}

bool sameLocation(const Location &A, const Location &B) {
  if (A.hasRange() || B.hasRange())
    return A.hasRange() && B.hasRange() && A.start() == B.start();
  return A.Line != 0 && A.File == B.File && A.Line == B.Line && A.Col == B.Col;
}

class BodyAnalysis {
public:
  explicit BodyAnalysis(Operation &Loop)
      : Loop(Loop), Body(Loop.getBody()), IV(Body.getArgument(0)) {}

  PipelineBody run() {
    PipelineBody R;
    for (Operation &Op : Body) {
      if (isFree(Op)) {
        Free.insert(&Op);
        R.FreeOps.push_back(&Op);
        continue;
      }
      bool Attach =
          isPureScalarOp(Op) && !R.Items.empty() && !R.Items.back().Prod;
      if (Attach) {
        R.Items.back().Ops.push_back(&Op);
        continue;
      }
      R.Items.push_back({{&Op}, std::nullopt});
      R.Items.back().Prod = analyzeProducer(Op);
    }
    groupStatements(R);
    return R;
  }

private:
  Operation &Loop;
  Block &Body;
  Value *IV;
  llvm::DenseSet<const Operation *> Free;

  /// Whether \p V is computed before the loop starts.
  bool definedOutside(const Value *V) const {
    const Operation *Def = V->isBlockArgument()
                               ? V->getOwnerBlock()->getParentOp()
                               : V->getDefiningOp();
    return !Def || !Loop.isAncestorOf(Def);
  }

  bool isFree(const Operation &Op) const {
    if (!isPureScalarOp(Op))
      return false;
    return llvm::all_of(Op.getOperands(), [&](const Value *V) {
      return V == IV || definedOutside(V) ||
             (V->getDefiningOp() && Free.count(V->getDefiningOp()));
    });
  }

  /// Ops a copy may contain: index arithmetic, loops, guards, and element
  /// or vector moves from global into shared memory.
  static bool isCopyOp(Operation &Op, llvm::SmallSetVector<Value *, 2> &Dsts,
                       llvm::SmallSetVector<Value *, 2> &Srcs) {
    if (isPureScalarOp(Op) || Op.is(OpKind::If))
      return true;
    if (Op.is(OpKind::For))
      return Op.getStringAttr("kind") != llvm::StringRef("pipelined");
    if (Op.is(OpKind::Load)) {
      Srcs.insert(Op.getOperand(0));
      return Op.getOperand(0)->isBufferIn(Scope::Global);
    }
    if (Op.is(OpKind::Store)) {
      Dsts.insert(Op.getGroup(1).front());
      return Op.getGroup(1).front()->isBufferIn(Scope::Shared);
    }
    if (Op.is(OpKind::VCopy) || Op.is(OpKind::TmaLoad)) {
      Dsts.insert(Op.getGroup(0).front());
      Srcs.insert(Op.getGroup(1).front());
      return Op.getGroup(0).front()->isBufferIn(Scope::Shared) &&
             Op.getGroup(1).front()->isBufferIn(Scope::Global);
    }
    return false;
  }

  /// Adds the free ops \p V needs to \p Slice; false when \p V is computed
  /// in the loop by anything else.
  bool collectSlice(Value *V, llvm::SetVector<Operation *> &Slice) {
    if (V == IV || definedOutside(V))
      return true;
    Operation *Def = V->getDefiningOp();
    return Def && Free.count(Def) && (Slice.insert(Def), true);
  }

  std::optional<Producer> analyzeProducer(Operation &Top) {
    if (!Top.is(OpKind::For) && !Top.is(OpKind::If) && !Top.is(OpKind::VCopy) &&
        !Top.is(OpKind::TmaLoad))
      return std::nullopt;
    llvm::SmallSetVector<Value *, 2> Dsts, Srcs;
    llvm::SetVector<Operation *> Slice;
    bool OK = true;
    Top.walk([&](Operation &Op) {
      OK = OK && isCopyOp(Op, Dsts, Srcs);
      for (Value *V : Op.getOperands()) {
        const Operation *Def = V->isBlockArgument()
                                   ? V->getOwnerBlock()->getParentOp()
                                   : V->getDefiningOp();
        if (OK && !(Def && Top.isAncestorOf(Def)))
          OK = collectSlice(V, Slice);
      }
    });
    if (!OK || Dsts.empty() || Srcs.empty())
      return std::nullopt;
    for (Value *Src : Srcs)
      if (writesBuffer(Loop, Src))
        return std::nullopt;
    for (Value *Dst : Dsts)
      if (!canMultiBuffer(Top, Dst))
        return std::nullopt;
    // The free ops those use in turn belong to the slice too.
    for (size_t I = 0; I != Slice.size(); ++I)
      for (Value *V : Slice[I]->getOperands())
        if (V->getDefiningOp() && Free.count(V->getDefiningOp()))
          Slice.insert(V->getDefiningOp());
    Producer P;
    for (Operation &Op : Body)
      if (Slice.count(&Op))
        P.Slice.push_back(&Op);
    P.Dsts.assign(Dsts.begin(), Dsts.end());
    return P;
  }

  bool canMultiBuffer(Operation &Top, Value *Dst) {
    Operation *Alloc = Dst->getDefiningOp();
    if (!Alloc || !Alloc->is(OpKind::Alloc) || !definedOutside(Dst) ||
        !Dst->getType().getStaticShape())
      return false;
    bool Before = true;
    for (Operation &Other : Body) {
      if (&Other == &Top) {
        Before = false;
        continue;
      }
      if (writesBuffer(Other, Dst) || (Before && usesBuffer(Other, Dst)))
        return false;
    }
    return hasStageableUses(Loop, Dst);
  }

  void groupStatements(PipelineBody &R) const {
    for (unsigned I = 0; I != R.Items.size(); ++I) {
      if (!R.Statements.empty() &&
          sameLocation(R.Items[R.Statements.back().back()].head()->getLoc(),
                       R.Items[I].head()->getLoc()))
        R.Statements.back().push_back(I);
      else
        R.Statements.push_back({I});
    }
  }
};

} // namespace

PipelineBody tilec::analyzePipelineBody(Operation &Loop) {
  return BodyAnalysis(Loop).run();
}

bool tilec::canSoftwarePipeline(Operation &Loop, int64_t &Step) {
  auto S = matchConstantInt(Loop.getOperand(2));
  Operation *Kernel = Loop.getParentOfKind(OpKind::Kernel);
  if (!S || *S <= 0 || !Kernel)
    return false;
  Step = *S;
  bool Exits = false, UserSync = false;
  Loop.walk([&](Operation &Op) {
    // The user synchronizes this loop's roles with mbarriers: issuing
    // copies early would bypass them.
    UserSync |= Op.is(OpKind::MBarrierWait) || Op.is(OpKind::MBarrierArrive) ||
                (Op.is(OpKind::If) && Op.hasAttr("thread_range"));
    if (!Op.is(OpKind::Break) && !Op.is(OpKind::Continue))
      return;
    Operation *P = Op.getParentOp();
    while (P != &Loop && !P->is(OpKind::For) && !P->is(OpKind::While))
      P = P->getParentOp();
    Exits |= P == &Loop;
  });
  if (Exits || UserSync)
    return false;
  // The schedule puts barriers in the loop: every thread must reach them.
  Divergence Div(*Kernel);
  for (Operation *P = &Loop; P != Kernel; P = P->getParentOp()) {
    bool Uniform = (P->is(OpKind::For) || P->is(OpKind::If)) &&
                   !Div.anyDivergent(P->getOperands());
    if (!Uniform)
      return false;
  }
  return true;
}
