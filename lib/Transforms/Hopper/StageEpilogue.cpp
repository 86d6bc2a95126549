//===- StageEpilogue.cpp - Accumulator epilogues through shared ----------===//

#include "StageEpilogue.h"
#include "tilec/IR/Builder.h"
#include "tilec/IR/Operation.h"
#include "tilec/Support/DType.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"

using namespace tilec;
using namespace tilec::ir;

namespace {

/// The op of the kernel's body that holds \p Op.
const Operation *topLevelOf(const Operation *Op, const Operation &Kernel) {
  while (Op->getParentOp() != &Kernel)
    Op = Op->getParentOp();
  return Op;
}

/// Position of each op of the kernel's body, in program order.
using Order = llvm::DenseMap<const Operation *, unsigned>;

/// Bytes of shared buffer \p Buf, times the stages of the pipelined loop
/// it is used in (lower-pipelined gives it one copy per stage).
int64_t stagedBytes(const Value *Buf) {
  int64_t Stages = 1;
  for (const Use &U : Buf->getUses())
    for (Operation *P = U.User->getParentOp(); P; P = P->getParentOp())
      if (P->is(OpKind::For) &&
          P->getStringAttr("kind") == llvm::StringRef("pipelined"))
        Stages = std::max(Stages, P->getIntAttr("num_stages").value_or(1));
  return Buf->getType().sizeInBytes().value_or(0) * Stages;
}

/// Whether a staging tile of \p Bytes fits beside the kernel's other shared
/// buffers when it is used at \p Copy.
bool tileFits(const Operation &Kernel, const Operation &Copy, int64_t Bytes,
              int64_t Limit) {
  Order Pos;
  unsigned N = 0;
  for (const Operation &Op : Kernel.getBody())
    Pos[&Op] = N++;
  const unsigned At = Pos[&Copy];
  int64_t Dead = 0, Total = 0;
  for (const Operation &Op : Kernel.getBody()) {
    if (!Op.is(OpKind::Alloc) || !Op.getResult()->isBufferIn(Scope::Shared))
      continue;
    const Value *Buf = Op.getResult();
    int64_t B = stagedBytes(Buf);
    Total += B;
    if (llvm::none_of(Buf->getUses(), [&](const Use &U) {
          return Pos[topLevelOf(U.User, Kernel)] > At;
        }))
      Dead += B;
  }
  return Bytes <= Dead || Total + Bytes <= Limit;
}

/// Whether \p Frag is the accumulator of a gemm.
bool isAccumulator(const Value *Frag) {
  return llvm::any_of(Frag->getUses(), [&](const Use &U) {
    return U.User->is(OpKind::Gemm) && U.User->getOperand(2) == Frag;
  });
}

/// The fragment a stageable copy reads: a whole accumulator copied into a
/// 16-bit global buffer; null otherwise.
Value *stageableSource(const Operation &Copy) {
  Value *Src = Copy.getGroup(0).front(), *Dst = Copy.getGroup(1).front();
  if (!Src->isBufferIn(Scope::Fragment) || !Dst->isBufferIn(Scope::Global) ||
      bitWidth(Dst->getType().getDType()) != 16 || !isAccumulator(Src))
    return nullptr;
  auto Shape = Src->getType().getStaticShape();
  auto Extent = Copy.getIntArrayAttr("src_extent");
  if (!Shape || Shape->size() != 2 || !Extent || *Extent != *Shape ||
      llvm::any_of(Copy.getGroup(0).drop_front(), [](const Value *I) {
        const Operation *Def = I->getDefiningOp();
        return !Def || !Def->is(OpKind::Const) ||
               Def->getIntAttr("value") != int64_t(0);
      }))
    return nullptr;
  return Src;
}

void stageCopy(Operation &Copy, Value *Frag) {
  Value *Dst = Copy.getGroup(1).front();
  Type TileTy = Type::buffer(Scope::Shared, Frag->getType().getDims().vec(),
                             Dst->getType().getDType());
  Builder B;
  B.setInsertionPointAfter(Frag->getDefiningOp());
  B.setLoc(Copy.getLoc());
  Value *Tile = B.createAlloc(TileTy, Frag->getNameHint().str() + "_stage");
  const std::vector<int64_t> Shape = *Frag->getType().getStaticShape();
  std::vector<Attribute> Extent;
  for (int64_t E : Shape)
    Extent.push_back(Attribute::integer(E));
  BufferRegion Whole{Tile, {}, Extent};
  BufferRegion From{Frag, {}, Extent};
  BufferRegion To{Dst, Copy.getGroup(1).drop_front().vec(),
                  Copy.getAttr("dst_extent")->getArray()};
  B.setInsertionPoint(&Copy);
  B.createCopy(From, Whole);
  B.createCopy(Whole, To);
  Copy.erase();
}

void stageKernel(Operation &Kernel, int64_t Limit) {
  for (Operation *Copy : Kernel.collect(OpKind::Copy)) {
    if (Copy->getParentOp() != &Kernel)
      continue;
    Value *Frag = stageableSource(*Copy);
    if (!Frag || !Frag->getDefiningOp() ||
        Frag->getDefiningOp()->getParentOp() != &Kernel)
      continue;
    int64_t Bytes = *Frag->getType().numElements() * 2;
    if (tileFits(Kernel, *Copy, Bytes, Limit))
      stageCopy(*Copy, Frag);
  }
}

class StageEpiloguePass : public Pass {
public:
  llvm::StringRef name() const override { return "stage-epilogue"; }
  llvm::StringRef description() const override {
    return "Copy tensor-core accumulators to global memory through a shared "
           "tile (16-byte stores of whole rows)";
  }

  bool run(Operation &Module, PassContext &Ctx) override {
    for (Operation *Kernel : Module.collect(OpKind::Kernel))
      stageKernel(*Kernel, Ctx.Tgt.MaxSharedMemoryBytes);
    return true;
  }
};

} // namespace

std::unique_ptr<Pass> tilec::createStageEpiloguePass() {
  return std::make_unique<StageEpiloguePass>();
}
