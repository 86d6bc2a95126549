//===- FoldConstants.cpp - Constant folding, simplification, CSE, DCE -----===//

#include "FoldConstants.h"
#include "tilec/IR/Builder.h"
#include "tilec/IR/ConstantMatch.h"
#include "tilec/IR/Operation.h"
#include <cmath>
#include <map>

using namespace tilec;
using namespace tilec::ir;

namespace {

/// Ops without side effects: safe to merge, erase when unused.
bool isPure(const Operation &Op) {
  OpKind K = Op.getKind();
  return isBinaryOp(K) || isUnaryOp(K) || K == OpKind::Const ||
         K == OpKind::Cmp || K == OpKind::Select || K == OpKind::Cast ||
         K == OpKind::Bitcast || K == OpKind::Math || K == OpKind::ThreadId;
}

/// Pure and also free to delete when unused (loads and allocations read or
/// reserve memory but change nothing).
bool isRemovableWhenUnused(const Operation &Op) {
  return isPure(Op) || Op.is(OpKind::Load) || Op.is(OpKind::Alloc) ||
         Op.is(OpKind::View);
}

bool foldsFloat(DType T) { return T == DType::Float32 || T == DType::Float64; }

std::optional<double> foldFloatBinary(OpKind K, double A, double B) {
  switch (K) {
  case OpKind::Add:
    return A + B;
  case OpKind::Sub:
    return A - B;
  case OpKind::Mul:
    return A * B;
  case OpKind::Div:
    return A / B;
  case OpKind::Min:
    return std::fmin(A, B);
  case OpKind::Max:
    return std::fmax(A, B);
  case OpKind::Pow:
    return std::pow(A, B);
  default:
    return std::nullopt;
  }
}

double asDouble(const Constant &C) {
  return C.isInt() ? double(C.Int) : C.Float;
}

/// Folds one op to a constant, built right before it. Null when it doesn't
/// fold.
class Folder {
public:
  explicit Folder(Operation &Op) : Op(Op), B() { B.setInsertionPoint(&Op); }

  Value *fold() {
    B.setLoc(Op.getLoc());
    if (isBinaryOp(Op.getKind()))
      return foldBinary();
    switch (Op.getKind()) {
    case OpKind::Not:
    case OpKind::Neg:
      return foldUnary();
    case OpKind::Cmp:
      return foldCmp();
    case OpKind::Select:
      return foldSelect();
    case OpKind::Cast:
      return foldCast();
    default:
      return nullptr;
    }
  }

private:
  DType resultDType() const { return Op.getResult()->getType().getDType(); }

  Value *makeConst(const Constant &C, DType T) {
    if (isFloat(T))
      return B.createConstFloat(
          T == DType::Float32 ? double(float(C.Float)) : C.Float, T);
    if (T == DType::Bool)
      return B.createConstBool(C.Int != 0);
    return B.createConstInt(wrapToDType(C.Int, T), T);
  }

  Value *foldBinary() {
    DType T = resultDType();
    std::optional<Constant> L = matchConstant(Op.getOperand(0));
    std::optional<Constant> R = matchConstant(Op.getOperand(1));
    if (!L || !R)
      return simplifyIdentity(L, R);
    if (isFloat(T)) {
      if (!foldsFloat(T))
        return nullptr;
      std::optional<double> V =
          foldFloatBinary(Op.getKind(), asDouble(*L), asDouble(*R));
      return V ? makeConst(Constant::ofFloat(*V), T) : nullptr;
    }
    std::optional<int64_t> V = evalIntBinary(Op.getKind(), L->Int, R->Int);
    return V ? makeConst(Constant::ofInt(*V), T) : nullptr;
  }

  /// x+0, x-0, x*1, x//1, x*0, x%1, b and/or constant, min/max(x, x).
  Value *simplifyIdentity(const std::optional<Constant> &L,
                          const std::optional<Constant> &R) {
    DType T = resultDType();
    Value *X = Op.getOperand(0), *Y = Op.getOperand(1);
    if (!isInteger(T) && T != DType::Bool)
      return nullptr;
    bool RZero = R && R->Int == 0, ROne = R && R->Int == 1;
    bool LZero = L && L->Int == 0, LOne = L && L->Int == 1;
    switch (Op.getKind()) {
    case OpKind::Add:
      return RZero ? X : LZero ? Y : nullptr;
    case OpKind::Sub:
      return RZero ? X : nullptr;
    case OpKind::Mul:
      if (RZero || LZero)
        return makeConst(Constant::ofInt(0), T);
      return ROne ? X : LOne ? Y : nullptr;
    case OpKind::Div:
    case OpKind::FloorDiv:
      return ROne ? X : nullptr;
    case OpKind::FloorMod:
      return ROne ? makeConst(Constant::ofInt(0), T) : nullptr;
    case OpKind::Min:
    case OpKind::Max:
      return X == Y ? X : nullptr;
    default:
      break;
    }
    if (T != DType::Bool)
      return nullptr;
    if (Op.is(OpKind::And))
      return (ROne               ? X
              : LOne             ? Y
              : (RZero || LZero) ? makeConst(Constant::ofInt(0), T)
                                 : nullptr);
    if (Op.is(OpKind::Or))
      return (RZero            ? X
              : LZero          ? Y
              : (ROne || LOne) ? makeConst(Constant::ofInt(1), T)
                               : nullptr);
    return nullptr;
  }

  Value *foldUnary() {
    DType T = resultDType();
    std::optional<Constant> A = matchConstant(Op.getOperand(0));
    if (!A)
      return nullptr;
    if (isFloat(T)) {
      if (!foldsFloat(T) || !Op.is(OpKind::Neg))
        return nullptr;
      return makeConst(Constant::ofFloat(-A->Float), T);
    }
    if (Op.is(OpKind::Neg))
      return makeConst(Constant::ofInt(-A->Int), T);
    if (T == DType::Bool)
      return makeConst(Constant::ofInt(A->Int == 0), T);
    return makeConst(Constant::ofInt(~A->Int), T);
  }

  Value *foldCmp() {
    std::optional<Constant> L = matchConstant(Op.getOperand(0));
    std::optional<Constant> R = matchConstant(Op.getOperand(1));
    if (!L || !R)
      return nullptr;
    std::optional<llvm::StringRef> PredName = Op.getStringAttr("pred");
    if (!PredName)
      return nullptr;
    std::optional<CmpPred> P = parseCmpPred(*PredName);
    if (!P)
      return nullptr;
    CmpPred Pred = *P;
    bool V = (L->isInt() && R->isInt())
                 ? evalCmp(Pred, L->Int, R->Int)
                 : evalCmp(Pred, asDouble(*L), asDouble(*R));
    return B.createConstBool(V);
  }

  Value *foldSelect() {
    std::optional<int64_t> C = matchConstantInt(Op.getOperand(0));
    if (C)
      return *C ? Op.getOperand(1) : Op.getOperand(2);
    return Op.getOperand(1) == Op.getOperand(2) ? Op.getOperand(1) : nullptr;
  }

  Value *foldCast() {
    DType To = resultDType();
    Value *In = Op.getOperand(0);
    if (In->getType() == Op.getResult()->getType())
      return In;
    std::optional<Constant> A = matchConstant(In);
    if (!A)
      return nullptr;
    if (isFloat(To)) {
      if (!foldsFloat(To))
        return nullptr;
      return makeConst(Constant::ofFloat(asDouble(*A)), To);
    }
    if (A->isFloat()) {
      if (!std::isfinite(A->Float) || std::fabs(A->Float) > 9.0e18)
        return nullptr;
      return makeConst(Constant::ofInt(int64_t(A->Float)), To);
    }
    return makeConst(Constant::ofInt(A->Int), To);
  }

  Operation &Op;
  Builder B;
};

/// Structural key of a pure op, for CSE.
std::string cseKey(const Operation &Op) {
  std::string Key = Op.getName().str();
  for (Value *V : Op.getOperands())
    Key += "|" + std::to_string(reinterpret_cast<uintptr_t>(V));
  for (const NamedAttribute &A : Op.getAttrs())
    Key += "|" + A.Name + "=" + A.Value.str();
  Key += "|" + Op.getResult()->getType().str();
  return Key;
}

class FoldConstantsPass : public Pass {
public:
  llvm::StringRef name() const override { return "fold-constants"; }
  llvm::StringRef description() const override {
    return "Fold constants, simplify identities, CSE and DCE";
  }

  bool run(Operation &Module, PassContext &) override {
    foldBlock(Module.getBody());
    std::map<std::string, Value *> Available;
    cseBlock(Module.getBody(), Available);
    eraseDeadOps(Module.getBody());
    return true;
  }

private:
  void foldBlock(Block &B) {
    for (Operation *Op : B.getOps()) {
      for (unsigned I = 0; I != Op->getNumRegions(); ++I)
        foldBlock(Op->getBody(I));
      if (Op->getNumResults() != 1 || !isPure(*Op))
        continue;
      if (Value *Folded = Folder(*Op).fold())
        Op->getResult()->replaceAllUsesWith(Folded);
    }
  }

  /// Values computed in an enclosing block stay available in nested
  /// regions; a nested region's values do not leak out.
  void cseBlock(Block &B, std::map<std::string, Value *> Available) {
    for (Operation *Op : B.getOps()) {
      for (unsigned I = 0; I != Op->getNumRegions(); ++I)
        cseBlock(Op->getBody(I), Available);
      if (Op->getNumResults() != 1 || !isPure(*Op))
        continue;
      auto [It, Inserted] = Available.emplace(cseKey(*Op), Op->getResult());
      if (!Inserted)
        Op->getResult()->replaceAllUsesWith(It->second);
    }
  }

  /// Erases unused removable ops, last first so chains die in one sweep.
  void eraseDeadOps(Block &B) {
    std::vector<Operation *> Ops = B.getOps();
    for (auto It = Ops.rbegin(); It != Ops.rend(); ++It) {
      Operation *Op = *It;
      for (unsigned I = 0; I != Op->getNumRegions(); ++I)
        eraseDeadOps(Op->getBody(I));
      if (isRemovableWhenUnused(*Op) && Op->use_empty())
        Op->erase();
    }
  }
};

} // namespace

std::unique_ptr<Pass> tilec::createFoldConstantsPass() {
  return std::make_unique<FoldConstantsPass>();
}
