//===- ReduceEmit.cpp - IR pieces shared by lower-reduce/lower-cumsum -----===//

#include "ReduceEmit.h"
#include "llvm/ADT/StringSwitch.h"
#include <limits>

using namespace tilec;
using namespace tilec::ir;

ReduceKind tilec::parseReduceKind(llvm::StringRef Kind) {
  return llvm::StringSwitch<ReduceKind>(Kind)
      .Case("max", ReduceKind::Max)
      .Case("min", ReduceKind::Min)
      .Case("abssum", ReduceKind::AbsSum)
      .Case("absmax", ReduceKind::AbsMax)
      .Default(ReduceKind::Sum);
}

/// The lowest (Highest = false) or highest value of an integer dtype.
static int64_t integerExtreme(DType T, bool Highest) {
  unsigned Bits = bitWidth(T);
  if (isUnsigned(T))
    return Highest ? (Bits >= 63 ? std::numeric_limits<int64_t>::max()
                                 : (int64_t(1) << Bits) - 1)
                   : 0;
  if (Bits >= 64)
    return Highest ? std::numeric_limits<int64_t>::max()
                   : std::numeric_limits<int64_t>::min();
  int64_t Half = int64_t(1) << (Bits - 1);
  return Highest ? Half - 1 : -Half;
}

Value *tilec::identityValue(Builder &B, ReduceKind K, DType T) {
  bool Lowest = K == ReduceKind::Max;
  if (K != ReduceKind::Max && K != ReduceKind::Min)
    return isFloat(T) ? B.createConstFloat(0.0, T) : B.createConstInt(0, T);
  if (isFloat(T))
    return B.createConstFloat(Lowest ? -std::numeric_limits<double>::infinity()
                                     : std::numeric_limits<double>::infinity(),
                              T);
  return B.createConstInt(integerExtreme(T, !Lowest), T);
}

Value *tilec::prepareValue(Builder &B, ReduceKind K, Value *X, DType T) {
  if (X->getType().getDType() != T)
    X = B.createCast(X, T);
  bool Abs = K == ReduceKind::AbsSum || K == ReduceKind::AbsMax;
  if (Abs && !isUnsigned(T))
    X = B.createMath("abs", {X});
  return X;
}

Value *tilec::combineValues(Builder &B, ReduceKind K, Value *A, Value *X) {
  switch (K) {
  case ReduceKind::Max:
  case ReduceKind::AbsMax:
    return B.createBinary(OpKind::Max, A, X);
  case ReduceKind::Min:
    return B.createBinary(OpKind::Min, A, X);
  default:
    return B.createBinary(OpKind::Add, A, X);
  }
}

Value *tilec::emitShflXor(Builder &B, Value *V, int64_t Mask, int64_t Width) {
  Value *Lane = B.createConstInt(Mask);
  return B
      .create(OpKind::Shfl, {V, Lane}, {}, {V->getType()},
              {{"mode", Attribute::string("xor")},
               {"width", Attribute::integer(Width)}})
      ->getResult();
}

void tilec::emitBarrier(Builder &B) { B.create(OpKind::Barrier, {}, {}, {}); }

Operation *tilec::createLayoutLoop(Builder &B, llvm::ArrayRef<int64_t> Extents,
                                   const std::string &Layout) {
  std::vector<std::string> Names;
  for (unsigned K = 0; K != Extents.size(); ++K)
    Names.push_back(std::string(1, char('i' + K % 18)));
  Operation *Par = B.createParallel(Extents, Names);
  Par->setAttr("loop_layout", Attribute::string(Layout));
  Par->setAttr("vector_size", Attribute::integer(1));
  return Par;
}

Value *tilec::allocAtStart(Operation &Kernel, const Type &T,
                           llvm::StringRef Name) {
  Builder KB;
  KB.setInsertionPointToStart(Kernel.getBody());
  return KB.createAlloc(T, Name);
}
