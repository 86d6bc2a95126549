//===- Rasterize.cpp - Block rasterization (T.use_swizzle) ----------------===//

#include "Rasterize.h"
#include "tilec/IR/Builder.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace tilec;
using namespace tilec::ir;

namespace {

/// rasterize2D's arithmetic as i32 ops at a builder's insertion point. The
/// operands are block indices and grid sizes, so every value is
/// non-negative and floordiv/floormod are plain C division.
struct IRArith {
  Builder &B;
  Value *constant(int64_t V) { return B.createConstInt(V); }
  Value *add(Value *X, Value *Y) { return B.createBinary(OpKind::Add, X, Y); }
  Value *sub(Value *X, Value *Y) { return B.createBinary(OpKind::Sub, X, Y); }
  Value *mul(Value *X, Value *Y) { return B.createBinary(OpKind::Mul, X, Y); }
  Value *div(Value *X, Value *Y) {
    return B.createBinary(OpKind::FloorDiv, X, Y);
  }
  Value *rem(Value *X, Value *Y) {
    return B.createBinary(OpKind::FloorMod, X, Y);
  }
  Value *min(Value *X, Value *Y) { return B.createBinary(OpKind::Min, X, Y); }
  Value *isOdd(Value *X) {
    Value *One = constant(1);
    return B.createCmp(CmpPred::Eq, B.createBinary(OpKind::And, X, One), One);
  }
  Value *select(Value *C, Value *X, Value *Y) {
    return B.createSelect(C, X, Y);
  }
};

/// Points every current use of \p Old at \p New.
void redirectUses(llvm::ArrayRef<Use> Uses, Value *New) {
  for (const Use &U : Uses)
    U.User->setOperand(U.Index, New);
}

void rasterizeKernel(Operation &Kernel, const Operation &Swizzle) {
  Block &Body = Kernel.getBody();
  if (!Swizzle.getBoolAttr("enable").value_or(true) ||
      Kernel.getNumOperands() < 2)
    return;
  Value *Bx = Body.getArgument(0), *By = Body.getArgument(1);
  // The uses to redirect are the ones that exist before the new ops (which
  // read the old indices themselves).
  std::vector<Use> BxUses(Bx->getUses().begin(), Bx->getUses().end());
  std::vector<Use> ByUses(By->getUses().begin(), By->getUses().end());
  Builder B;
  B.setInsertionPointToStart(Body);
  B.setLoc(Swizzle.getLoc());
  IRArith Ar{B};
  bool Column = Swizzle.getStringAttr("order") == llvm::StringRef("col");
  auto [NewBx, NewBy] =
      rasterize2D(Ar, Bx, By, Kernel.getOperand(0), Kernel.getOperand(1),
                  *Swizzle.getIntAttr("panel_size"), Column);
  NewBx->setNameHint("bx_swizzled");
  NewBy->setNameHint("by_swizzled");
  redirectUses(BxUses, NewBx);
  redirectUses(ByUses, NewBy);
}

class RasterizePass : public Pass {
public:
  llvm::StringRef name() const override { return "rasterize"; }
  llvm::StringRef description() const override {
    return "Remap block indices for T.use_swizzle (L2 rasterization)";
  }

  bool run(Operation &Module, PassContext &) override {
    std::vector<Operation *> Swizzles = Module.collect(OpKind::UseSwizzle);
    llvm::SmallPtrSet<Operation *, 4> Done;
    for (Operation *Swizzle : Swizzles) {
      Operation *Kernel = Swizzle->getParentOfKind(OpKind::Kernel);
      if (Kernel && Done.insert(Kernel).second)
        rasterizeKernel(*Kernel, *Swizzle);
      Swizzle->erase();
    }
    return true;
  }
};

} // namespace

std::unique_ptr<Pass> tilec::createRasterizePass() {
  return std::make_unique<RasterizePass>();
}
