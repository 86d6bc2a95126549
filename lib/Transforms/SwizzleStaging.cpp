//===- SwizzleStaging.cpp - Swizzle accumulator staging tiles -------------===//

#include "SwizzleStaging.h"
#include "tilec/IR/Builder.h"
#include "tilec/IR/Operation.h"
#include "tilec/Layout/Swizzle.h"
#include "tilec/Support/DType.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"

using namespace tilec;
using namespace tilec::ir;

namespace {

/// The shared buffers that stores of \p Loaded (an element of an
/// accumulator, or its cast) write into.
void addStoredInto(const Value *Loaded, llvm::SmallVectorImpl<Value *> &Out) {
  for (const Use &U : Loaded->getUses()) {
    Operation *User = U.User;
    if (User->is(OpKind::Cast)) {
      addStoredInto(User->getResult(), Out);
      continue;
    }
    if (!User->is(OpKind::Store) || User->getOperand(0) != Loaded)
      continue;
    Value *Dst = User->getGroup(1).front();
    if (Dst->isBufferIn(Scope::Shared) && !llvm::is_contained(Out, Dst))
      Out.push_back(Dst);
  }
}

/// The shared tiles accumulator \p C is copied into.
llvm::SmallVector<Value *, 2> stagingTiles(const Value *C) {
  llvm::SmallVector<Value *, 2> Tiles;
  for (const Use &U : C->getUses())
    if (U.User->is(OpKind::Load) && U.User->getOperand(0) == C)
      addStoredInto(U.User->getResult(), Tiles);
  return Tiles;
}

/// Whether \p V (a loaded element) is only stored, directly or cast: a
/// copy, which keeps its 16-byte vectors under the swizzle. Other readers
/// (a split-K epilogue's vector atomics) keep the plain layout.
bool onlyStored(const Value *V) {
  return llvm::all_of(V->getUses(), [&](const Use &U) {
    if (U.User->is(OpKind::Cast))
      return onlyStored(U.User->getResult());
    return U.User->is(OpKind::Store) && U.User->getOperand(0) == V;
  });
}

/// Whether \p Buf is a plain tile the swizzle can take over: its own
/// alloc, rows of a whole swizzle period, element stores and copies out.
bool canSwizzle(const Value *Buf) {
  const Operation *Def = Buf->getDefiningOp();
  auto Shape = Buf->getType().getStaticShape();
  if (!Def || !Def->is(OpKind::Alloc) || !Shape || Shape->size() != 2)
    return false;
  int64_t Bits = bitWidth(Buf->getType().getDType());
  if (Bits != 8 && Bits != 16 && Bits != 32)
    return false;
  if (layout::chooseSwizzle((*Shape)[0], (*Shape)[1], Bits) ==
      layout::SwizzleKind::None)
    return false;
  return llvm::all_of(Buf->getUses(), [](const Use &U) {
    return U.User->is(OpKind::Store) ||
           (U.User->is(OpKind::Load) && onlyStored(U.User->getResult()));
  });
}

void swizzleKernel(Operation &Kernel) {
  llvm::SmallVector<Value *, 4> Tiles;
  Kernel.walk([&](Operation &Op) {
    if (!Op.is(OpKind::Gemm) || !Op.getAttr("mma_shape") || Op.getAttr("mfma"))
      return;
    for (Value *Tile : stagingTiles(Op.getOperand(2)))
      if (!llvm::is_contained(Tiles, Tile) && canSwizzle(Tile))
        Tiles.push_back(Tile);
  });
  Builder B;
  for (Value *Tile : Tiles) {
    Operation *Alloc = Tile->getDefiningOp();
    B.setInsertionPointAfter(Alloc);
    B.setLoc(Alloc->getLoc());
    B.createAnnotateLayout(Tile, "make_swizzled_layout(" +
                                     Tile->getNameHint().str() + ")");
  }
}

class SwizzleStagingPass : public Pass {
public:
  llvm::StringRef name() const override { return "swizzle-staging"; }
  llvm::StringRef description() const override {
    return "Swizzle the shared tiles a tensor-core accumulator is copied "
           "into (bank-conflict-free epilogue stores)";
  }

  bool run(Operation &Module, PassContext &) override {
    Module.walk([](Operation &Op) {
      if (Op.is(OpKind::Kernel))
        swizzleKernel(Op);
    });
    return true;
  }
};

} // namespace

std::unique_ptr<Pass> tilec::createSwizzleStagingPass() {
  return std::make_unique<SwizzleStagingPass>();
}
