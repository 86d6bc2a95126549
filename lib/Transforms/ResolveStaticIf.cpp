//===- ResolveStaticIf.cpp - Remove control flow decided at compile time --===//

#include "ResolveStaticIf.h"
#include "tilec/IR/ConstantMatch.h"
#include "tilec/IR/Operation.h"

using namespace tilec;
using namespace tilec::ir;

namespace {

/// Moves the ops of \p Body right before \p Anchor, which is then erased.
void inlineRegionAndErase(Operation &Anchor, Block *Body) {
  if (Body) {
    for (Operation *Op : Body->getOps())
      Op->moveBefore(&Anchor);
  }
  Anchor.erase();
}

/// The constant value of the `condition` op ending a while's first region.
std::optional<int64_t> whileCondition(Operation &While) {
  Block &Cond = While.getBody(0);
  if (Cond.empty() || !Cond.back().is(OpKind::Condition))
    return std::nullopt;
  return matchConstantInt(Cond.back().getOperand(0));
}

bool forHasNoIteration(Operation &For) {
  std::optional<int64_t> Lo = matchConstantInt(For.getOperand(0));
  std::optional<int64_t> Hi = matchConstantInt(For.getOperand(1));
  std::optional<int64_t> Step = matchConstantInt(For.getOperand(2));
  if (!Lo || !Hi || !Step || *Step == 0)
    return false;
  return *Step > 0 ? *Lo >= *Hi : *Lo <= *Hi;
}

class ResolveStaticIfPass : public Pass {
public:
  llvm::StringRef name() const override { return "resolve-static-if"; }
  llvm::StringRef description() const override {
    return "Remove if/while/for whose outcome is known at compile time";
  }

  bool run(Operation &Module, PassContext &) override {
    resolveBlock(Module.getBody());
    return true;
  }

private:
  void resolveBlock(Block &B) {
    for (Operation *Op : B.getOps()) {
      for (unsigned I = 0; I != Op->getNumRegions(); ++I)
        resolveBlock(Op->getBody(I));
      resolveOp(*Op);
    }
  }

  void resolveOp(Operation &Op) {
    if (Op.is(OpKind::If)) {
      std::optional<int64_t> C = matchConstantInt(Op.getOperand(0));
      if (!C)
        return;
      Block *Taken = *C ? &Op.getBody(0)
                        : (Op.getNumRegions() > 1 ? &Op.getBody(1) : nullptr);
      return inlineRegionAndErase(Op, Taken);
    }
    if (Op.is(OpKind::While)) {
      std::optional<int64_t> C = whileCondition(Op);
      if (C && *C == 0 && onlyPureCondition(Op.getBody(0)))
        Op.erase();
      return;
    }
    if (Op.is(OpKind::For) && forHasNoIteration(Op))
      Op.erase();
  }

  /// A while's condition region runs once even when false; it can only be
  /// dropped when it has no effects.
  static bool onlyPureCondition(Block &Cond) {
    for (Operation &Op : Cond) {
      if (Op.is(OpKind::Store) || Op.getNumRegions() != 0 ||
          Op.is(OpKind::Atomic) || Op.is(OpKind::Copy) || Op.is(OpKind::Fill))
        return false;
    }
    return true;
  }
};

} // namespace

std::unique_ptr<Pass> tilec::createResolveStaticIfPass() {
  return std::make_unique<ResolveStaticIfPass>();
}
