//===- HeavyBlocksFirst.cpp - Launch the longest blocks first -------------===//

#include "HeavyBlocksFirst.h"
#include "tilec/IR/Builder.h"
#include "tilec/IR/ConstantMatch.h"
#include "tilec/IR/Operation.h"

using namespace tilec;
using namespace tilec::ir;

namespace {

/// How a value moves as the block index grows.
enum class Trend { Flat, Up, Down, Unknown };

Trend negate(Trend T) {
  if (T == Trend::Up)
    return Trend::Down;
  if (T == Trend::Down)
    return Trend::Up;
  return T;
}

/// The trend of a sum (or min/max) of values with trends A and B.
Trend combine(Trend A, Trend B) {
  if (A == Trend::Flat)
    return B;
  if (B == Trend::Flat || A == B)
    return A;
  return Trend::Unknown;
}

bool isPositiveConstant(const Value *V) {
  std::optional<int64_t> C = matchConstantInt(V);
  return C && *C > 0;
}

Trend trendOf(const Value *V, const Value *Index, int Depth = 0) {
  if (V == Index)
    return Trend::Up;
  const Operation *Def = V->getDefiningOp();
  if (!Def || Def->getNumOperands() == 0)
    return Trend::Flat;
  if (Depth > 32)
    return Trend::Unknown;
  auto Of = [&](unsigned I) {
    return trendOf(Def->getOperand(I), Index, Depth + 1);
  };
  switch (Def->getKind()) {
  case OpKind::Add:
  case OpKind::Min:
  case OpKind::Max:
    return combine(Of(0), Of(1));
  case OpKind::Sub:
    return combine(Of(0), negate(Of(1)));
  case OpKind::Mul:
    if (isPositiveConstant(Def->getOperand(1)))
      return Of(0);
    if (isPositiveConstant(Def->getOperand(0)))
      return Of(1);
    break;
  case OpKind::FloorDiv:
    if (isPositiveConstant(Def->getOperand(1)))
      return Of(0);
    break;
  default:
    break;
  }
  bool Uses = false;
  for (Value *Operand : Def->getOperands())
    Uses |= Operand->getType().isScalar() &&
            trendOf(Operand, Index, Depth + 1) != Trend::Flat;
  return Uses ? Trend::Unknown : Trend::Flat;
}

/// Whether the kernel's loops do more work for larger \p Index: some trip
/// count (hi - lo) grows with it and none shrinks or moves otherwise.
bool workGrowsWith(Operation &Kernel, const Value *Index) {
  bool Grows = false, Other = false;
  Kernel.walk([&](Operation &Op) {
    if (!Op.is(OpKind::For))
      return;
    Trend T = combine(trendOf(Op.getOperand(1), Index),
                      negate(trendOf(Op.getOperand(0), Index)));
    Grows |= T == Trend::Up;
    Other |= T == Trend::Down || T == Trend::Unknown;
  });
  return Grows && !Other;
}

void reverseIndex(Operation &Kernel, unsigned Dim) {
  Value *Index = Kernel.getBody().getArgument(Dim);
  std::vector<Use> Uses(Index->getUses().begin(), Index->getUses().end());
  Builder B;
  B.setInsertionPointToStart(Kernel.getBody());
  B.setLoc(Kernel.getLoc());
  Value *Last =
      B.createBinary(OpKind::Sub, Kernel.getOperand(Dim), B.createConstInt(1));
  Value *Reversed = B.createBinary(OpKind::Sub, Last, Index);
  Reversed->setNameHint(Index->getNameHint().str() + "_heavy_first");
  for (const Use &U : Uses)
    U.User->setOperand(U.Index, Reversed);
}

/// The x index grows the work and y does not: the launch position
/// p = bx + gx * by (x fastest) is read y fastest instead, so that the
/// heaviest x of every y start before any lighter one. bx becomes
/// gx - 1 - p / gy and by becomes p % gy.
void heaviestPlaneFirst(Operation &Kernel) {
  Value *BX = Kernel.getBody().getArgument(0);
  Value *BY = Kernel.getBody().getArgument(1);
  std::vector<Use> XUses(BX->getUses().begin(), BX->getUses().end());
  std::vector<Use> YUses(BY->getUses().begin(), BY->getUses().end());
  Value *GX = Kernel.getOperand(0), *GY = Kernel.getOperand(1);
  Builder B;
  B.setInsertionPointToStart(Kernel.getBody());
  B.setLoc(Kernel.getLoc());
  Value *Pos =
      B.createBinary(OpKind::Add, BX, B.createBinary(OpKind::Mul, GX, BY));
  Value *Last = B.createBinary(OpKind::Sub, GX, B.createConstInt(1));
  Value *X = B.createBinary(OpKind::Sub, Last,
                            B.createBinary(OpKind::FloorDiv, Pos, GY));
  Value *Y = B.createBinary(OpKind::FloorMod, Pos, GY);
  X->setNameHint(BX->getNameHint().str() + "_heavy_first");
  Y->setNameHint(BY->getNameHint().str() + "_heavy_first");
  for (const Use &U : XUses)
    U.User->setOperand(U.Index, X);
  for (const Use &U : YUses)
    U.User->setOperand(U.Index, Y);
}

bool hasSwizzle(Operation &Kernel) {
  bool Found = false;
  Kernel.walk([&](Operation &Op) { Found |= Op.is(OpKind::UseSwizzle); });
  return Found;
}

class HeavyBlocksFirstPass : public Pass {
public:
  llvm::StringRef name() const override { return "heavy-blocks-first"; }
  llvm::StringRef description() const override {
    return "Reverse a block index along which the kernel's loops grow";
  }

  bool run(Operation &Module, PassContext &) override {
    std::vector<Operation *> Kernels = Module.collect(OpKind::Kernel);
    for (Operation *Kernel : Kernels) {
      if (hasSwizzle(*Kernel))
        continue;
      unsigned Dims = Kernel->getNumOperands();
      std::vector<bool> Grows;
      for (unsigned Dim = 0; Dim != Dims; ++Dim)
        Grows.push_back(
            workGrowsWith(*Kernel, Kernel->getBody().getArgument(Dim)));
      unsigned First = 0;
      if (Dims >= 2 && Grows[0] && !Grows[1]) {
        heaviestPlaneFirst(*Kernel);
        First = 1;
      }
      for (unsigned Dim = First; Dim != Dims; ++Dim)
        if (Grows[Dim])
          reverseIndex(*Kernel, Dim);
    }
    return true;
  }
};

} // namespace

std::unique_ptr<Pass> tilec::createHeavyBlocksFirstPass() {
  return std::make_unique<HeavyBlocksFirstPass>();
}
