//===- UnswitchMasks.cpp - Masks that hold on a whole loop box ------------===//

#include "UnswitchMasks.h"
#include "tilec/IR/Builder.h"
#include "tilec/IR/ConstantMatch.h"
#include "tilec/IR/Operation.h"
#include "llvm/ADT/MapVector.h"

using namespace tilec;
using namespace tilec::ir;

namespace {

/// sum(Terms[v] * v) + Const over i32 values: parallel variables and values
/// defined outside the loop.
struct Affine {
  llvm::MapVector<Value *, int64_t> Terms;
  int64_t Const = 0;

  void add(const Affine &O, int64_t Scale) {
    for (auto &[V, C] : O.Terms)
      Terms[V] += C * Scale;
    Const += O.Const * Scale;
  }
};

bool definedOutside(const Value *V, const Operation &Loop) {
  if (const Operation *Def = V->getDefiningOp())
    return !Loop.isAncestorOf(Def);
  const Operation *Owner = V->getOwnerBlock()->getParentOp();
  return Owner != &Loop && !Loop.isAncestorOf(Owner);
}

bool isLoopVariable(const Value *V, const Operation &Loop) {
  return V->isBlockArgument() && V->getOwnerBlock() == &Loop.getBody();
}

/// \p V as an Affine over \p Loop's variables and outside values; nullopt
/// for anything else (loads, divisions, products of two variables...).
std::optional<Affine> readAffine(Value *V, const Operation &Loop) {
  if (!V->getType().isScalar() || V->getType().getDType() != DType::Int32)
    return std::nullopt;
  Affine A;
  if (std::optional<int64_t> C = matchConstantInt(V)) {
    A.Const = *C;
    return A;
  }
  if (isLoopVariable(V, Loop) || definedOutside(V, Loop)) {
    A.Terms[V] = 1;
    return A;
  }
  Operation *Def = V->getDefiningOp();
  if (!Def ||
      !(Def->is(OpKind::Add) || Def->is(OpKind::Sub) || Def->is(OpKind::Mul)))
    return std::nullopt;
  std::optional<Affine> L = readAffine(Def->getOperand(0), Loop);
  std::optional<Affine> R = readAffine(Def->getOperand(1), Loop);
  if (!L || !R)
    return std::nullopt;
  if (Def->is(OpKind::Mul)) {
    if (!L->Terms.empty() && !R->Terms.empty())
      return std::nullopt;
    const Affine &Var = L->Terms.empty() ? *R : *L;
    A.add(Var, L->Terms.empty() ? L->Const : R->Const);
    return A;
  }
  A.add(*L, 1);
  A.add(*R, Def->is(OpKind::Sub) ? -1 : 1);
  return A;
}

/// A select of \p Loop's body that unswitching can remove, with the
/// affine difference lhs - rhs of its condition.
struct MaskSelect {
  Operation *Select = nullptr;
  CmpPred Pred = CmpPred::Eq;
  Affine Diff;
};

std::optional<MaskSelect> findMaskSelect(Operation &Loop) {
  for (Operation &Op : Loop.getBody()) {
    if (!Op.is(OpKind::Select))
      continue;
    Operation *Cmp = Op.getOperand(0)->getDefiningOp();
    if (!Cmp || !Cmp->is(OpKind::Cmp) || !Loop.isAncestorOf(Cmp))
      continue;
    std::optional<CmpPred> Pred = parseCmpPred(*Cmp->getStringAttr("pred"));
    if (!Pred || *Pred == CmpPred::Eq || *Pred == CmpPred::Ne)
      continue;
    std::optional<Affine> L = readAffine(Cmp->getOperand(0), Loop);
    std::optional<Affine> R = readAffine(Cmp->getOperand(1), Loop);
    if (!L || !R)
      continue;
    MaskSelect M{&Op, *Pred, *L};
    M.Diff.add(*R, -1);
    bool UsesVariable = llvm::any_of(M.Diff.Terms, [&](const auto &T) {
      return T.second != 0 && isLoopVariable(T.first, Loop);
    });
    if (UsesVariable)
      return M;
  }
  return std::nullopt;
}

/// Sum + C * V (Sum null: nothing yet), with sub for negative C.
Value *addTerm(Builder &B, Value *Sum, Value *V, int64_t C) {
  if (!Sum && C < 0)
    Sum = B.createConstInt(0);
  int64_t Abs = C < 0 ? -C : C;
  Value *Term =
      Abs == 1 ? V : B.createBinary(OpKind::Mul, V, B.createConstInt(Abs));
  if (!Sum)
    return Term;
  return B.createBinary(C < 0 ? OpKind::Sub : OpKind::Add, Sum, Term);
}

/// lhs - rhs at the corner of the box where `lhs pred rhs` is hardest to
/// satisfy: its minimum for gt/ge, its maximum for lt/le.
Value *emitHardestDifference(Builder &B, const Operation &Loop,
                             const MaskSelect &M) {
  std::vector<int64_t> Extents = *Loop.getIntArrayAttr("extents");
  bool Minimize = M.Pred == CmpPred::Gt || M.Pred == CmpPred::Ge;
  int64_t Const = M.Diff.Const;
  Value *Sum = nullptr;
  for (auto &[V, C] : M.Diff.Terms) {
    if (C == 0)
      continue;
    if (!isLoopVariable(V, Loop)) {
      Sum = addTerm(B, Sum, V, C);
      continue;
    }
    bool AtZero = (C > 0) == Minimize;
    Const += AtZero ? 0 : C * (Extents[V->getIndex()] - 1);
  }
  if (Const == 0 && Sum)
    return Sum;
  if (!Sum)
    return B.createConstInt(Const);
  Value *K = B.createConstInt(Const < 0 ? -Const : Const);
  return B.createBinary(Const < 0 ? OpKind::Sub : OpKind::Add, Sum, K);
}

void unswitch(Operation &Loop, const MaskSelect &M) {
  Builder B;
  B.setInsertionPoint(&Loop);
  B.setLoc(M.Select->getLoc());
  Value *Diff = emitHardestDifference(B, Loop, M);
  Value *Holds = B.createCmp(M.Pred, Diff, B.createConstInt(0));
  Operation *If = B.createIf(Holds, /*WithElse=*/true);
  ValueMap Map;
  B.setInsertionPointToEnd(If->getBody(0));
  B.insert(Loop.clone(Map));
  auto *Select = Map.lookup(M.Select->getResult())->getDefiningOp();
  Operation *Cmp = Select->getOperand(0)->getDefiningOp();
  Select->getResult()->replaceAllUsesWith(Select->getOperand(1));
  Select->erase();
  if (Cmp->use_empty())
    Cmp->erase();
  Loop.moveToEnd(If->getBody(1));
}

class UnswitchMasksPass : public Pass {
public:
  llvm::StringRef name() const override { return "unswitch-masks"; }
  llvm::StringRef description() const override {
    return "Skip a parallel loop's mask select where it holds on the whole box";
  }

  bool run(Operation &Module, PassContext &) override {
    std::vector<Operation *> Loops = Module.collect([](const Operation &Op) {
      return Op.is(OpKind::Parallel) && Op.getParentOfKind(OpKind::For);
    });
    for (Operation *Loop : Loops)
      if (std::optional<MaskSelect> M = findMaskSelect(*Loop))
        unswitch(*Loop, *M);
    return true;
  }
};

} // namespace

std::unique_ptr<Pass> tilec::createUnswitchMasksPass() {
  return std::make_unique<UnswitchMasksPass>();
}
