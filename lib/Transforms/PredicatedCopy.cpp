//===- PredicatedCopy.cpp - Guarded copy loops as predicated cp_async -----===//

#include "PredicatedCopy.h"
#include "LoopAccess.h"
#include "PipelineSchedule.h"
#include "tilec/IR/Builder.h"
#include "tilec/IR/ConstantMatch.h"
#include "llvm/ADT/StringExtras.h"
#include <cmath>
#include <numeric>

using namespace tilec;
using namespace tilec::ir;

namespace {

/// Divisibility is tracked as a power of 2 up to this (runs are at most 16
/// elements).
constexpr int64_t MaxDivisor = 64;

int64_t capDivisor(int64_t D) { return std::min(D, MaxDivisor); }

/// The parts of a guarded copy loop (see the header).
struct GuardedCopy {
  const Operation *Loop = nullptr;
  Value *Var = nullptr;
  int64_t Extent = 0;
  const Operation *If = nullptr;
  const Operation *Load = nullptr;
  const Operation *Store = nullptr;
};

/// A store of the constant +0 (integer 0 or float +0.0).
bool storesZero(const Operation &Store) {
  auto C = matchConstant(Store.getOperand(0));
  if (!C)
    return false;
  return C->isInt() ? C->Int == 0 : C->Float == 0 && !std::signbit(C->Float);
}

bool sameAttrs(const Operation &A, const Operation &B) {
  const auto &X = A.getAttrs(), &Y = B.getAttrs();
  if (X.size() != Y.size())
    return false;
  for (size_t I = 0; I != X.size(); ++I)
    if (X[I].Name != Y[I].Name || !(X[I].Value == Y[I].Value))
      return false;
  return true;
}

/// \p A and \p B compute the same value: the same value, or pure ops of
/// the same kind and attributes on operands that do.
bool sameValue(const Value *A, const Value *B, unsigned Depth = 0) {
  if (A == B)
    return true;
  const Operation *DA = A->getDefiningOp(), *DB = B->getDefiningOp();
  if (!DA || !DB || Depth > 32 || DA->getKind() != DB->getKind() ||
      !isPureScalarOp(*DA) || DA->is(OpKind::ThreadId) ||
      !sameAttrs(*DA, *DB) || A->getType() != B->getType() ||
      DA->getNumOperands() != DB->getNumOperands())
    return false;
  for (unsigned I = 0; I != DA->getNumOperands(); ++I)
    if (!sameValue(DA->getOperand(I), DB->getOperand(I), Depth + 1))
      return false;
  return true;
}

/// Pure ops followed by the ops of \p Kinds, in that order, each once
/// (pure ops may also sit between them).
std::optional<std::vector<const Operation *>>
matchBranch(const Block &B, llvm::ArrayRef<OpKind> Kinds) {
  std::vector<const Operation *> Found;
  for (const Operation &Op : B) {
    if (isPureScalarOp(Op))
      continue;
    if (Found.size() == Kinds.size() || !Op.is(Kinds[Found.size()]))
      return std::nullopt;
    Found.push_back(&Op);
  }
  if (Found.size() != Kinds.size())
    return std::nullopt;
  return Found;
}

std::optional<GuardedCopy> matchGuardedCopy(const Operation &Loop) {
  auto Kind = Loop.getStringAttr("kind");
  if (!Loop.is(OpKind::For) || !Kind ||
      (*Kind != "vectorized" && *Kind != "unroll"))
    return std::nullopt;
  auto Hi = matchConstantInt(Loop.getOperand(1));
  if (!isConstantInt(Loop.getOperand(0), 0) ||
      !isConstantInt(Loop.getOperand(2), 1) || !Hi || *Hi < 2 ||
      *Hi > MaxDivisor)
    return std::nullopt;
  const Block &Body = Loop.getBody();
  if (Body.empty() || !Body.back().is(OpKind::If) ||
      Body.back().getNumRegions() != 2)
    return std::nullopt;
  for (const Operation &Op : Body)
    if (&Op != &Body.back() && !isPureScalarOp(Op))
      return std::nullopt;
  const Operation &If = Body.back();
  auto Then = matchBranch(If.getBody(0), {OpKind::Load, OpKind::Store});
  auto Else = matchBranch(If.getBody(1), {OpKind::Store});
  if (!Then || !Else)
    return std::nullopt;
  const Operation *Load = (*Then)[0], *Store = (*Then)[1];
  const Operation *Zero = (*Else)[0];
  Value *Src = Load->getOperand(0), *Dst = Store->getGroup(1).front();
  DType T = Src->getType().getDType();
  if (!Src->isBufferIn(Scope::Global) || !Dst->isBufferIn(Scope::Shared) ||
      Dst->getType().getDType() != T || T == DType::Bool || bitWidth(T) < 8 ||
      Store->getOperand(0) != Load->getResult() ||
      !Load->getResult()->hasOneUse() || Zero->getGroup(1).front() != Dst ||
      !storesZero(*Zero))
    return std::nullopt;
  llvm::ArrayRef<Value *> S = Store->getGroup(1), Z = Zero->getGroup(1);
  if (S.size() != Z.size())
    return std::nullopt;
  for (unsigned I = 1; I != S.size(); ++I)
    if (!sameValue(S[I], Z[I]))
      return std::nullopt;
  return GuardedCopy{&Loop, Body.getArgument(0), *Hi, &If, Load, Store};
}

/// An index as Coef * v + (a multiple of Div).
struct Affine {
  int64_t Coef = 0;
  int64_t Div = MaxDivisor;
  bool Ok = true;
};

/// Reads indices and the guard of one guarded copy loop relative to its
/// variable v.
class RunAnalysis {
public:
  explicit RunAnalysis(const GuardedCopy &C) : C(C) {
    Func = C.Loop->getParentOfKind(OpKind::Func);
    if (Func)
      Assumes = readAssumes(*Func);
  }

  /// Whether runs of \p L elements are aligned, contiguous and uniformly
  /// guarded.
  bool allows(int64_t L) {
    return aligned(C.Load->getGroup(0), L) &&
           aligned(C.Store->getGroup(1), L) && uniform(C.If->getOperand(0), L);
  }

private:
  const GuardedCopy &C;
  const Operation *Func = nullptr;
  std::set<std::string> Assumes;

  bool dependsOnVar(const Value *V, unsigned Depth = 0) const {
    if (V == C.Var)
      return true;
    const Operation *Def = V->getDefiningOp();
    if (!Def || !C.Loop->isAncestorOf(Def))
      return false;
    return Depth > 32 || llvm::any_of(Def->getOperands(), [&](const Value *O) {
             return dependsOnVar(O, Depth + 1);
           });
  }

  /// The largest power-of-2 divisor (up to MaxDivisor) the func's
  /// assumptions give \p Expr (`Expr % n == 0`).
  int64_t assumedDivisor(llvm::StringRef Expr) const {
    int64_t Best = 1;
    for (llvm::StringRef A : Assumes) {
      auto [Lhs, Rest] = A.split(" % ");
      int64_t N = 0;
      if (Lhs != Expr || !Rest.consume_back(" == 0") ||
          Rest.getAsInteger(10, N) || N <= 0)
        continue;
      Best = std::max(Best, std::gcd(N, MaxDivisor));
    }
    return Best;
  }

  /// The name of \p V when it is a symbolic dim of the func.
  std::optional<std::string> symbolName(const Value *V) const {
    if (!Func || !V->isBlockArgument() ||
        V->getOwnerBlock() != &Func->getBody())
      return std::nullopt;
    const Attribute *A = Func->getAttr("symbols");
    auto Symbols = A ? A->getStringArray() : std::nullopt;
    if (!Symbols || V->getIndex() >= Symbols->size())
      return std::nullopt;
    return (*Symbols)[V->getIndex()];
  }

  /// A power-of-2 divisor of \p V (MaxDivisor for 0).
  int64_t divisor(const Value *V, unsigned Depth = 0) const {
    if (auto K = matchConstantInt(V))
      return *K == 0 ? MaxDivisor : std::gcd(*K, MaxDivisor);
    if (auto Name = symbolName(V))
      return assumedDivisor(*Name);
    const Operation *Def = V->getDefiningOp();
    if (!Def || Depth > 32)
      return 1;
    if (Def->is(OpKind::Mul))
      return capDivisor(divisor(Def->getOperand(0), Depth + 1) *
                        divisor(Def->getOperand(1), Depth + 1));
    if (Def->is(OpKind::Add) || Def->is(OpKind::Sub))
      return std::min(divisor(Def->getOperand(0), Depth + 1),
                      divisor(Def->getOperand(1), Depth + 1));
    return 1;
  }

  Affine affine(const Value *V, unsigned Depth = 0) const {
    if (!dependsOnVar(V))
      return {0, divisor(V), true};
    if (V == C.Var)
      return {1, MaxDivisor, true};
    const Operation *Def = V->getDefiningOp();
    if (!Def || Depth > 32)
      return {0, 1, false};
    if (Def->is(OpKind::Add) || Def->is(OpKind::Sub)) {
      Affine L = affine(Def->getOperand(0), Depth + 1);
      Affine R = affine(Def->getOperand(1), Depth + 1);
      int64_t Sign = Def->is(OpKind::Sub) ? -1 : 1;
      return {L.Coef + Sign * R.Coef, std::min(L.Div, R.Div), L.Ok && R.Ok};
    }
    if (Def->is(OpKind::Mul)) {
      Value *X = Def->getOperand(0);
      auto K = matchConstantInt(Def->getOperand(1));
      if (!K) {
        X = Def->getOperand(1);
        K = matchConstantInt(Def->getOperand(0));
      }
      if (!K)
        return {0, 1, false};
      Affine A = affine(X, Depth + 1);
      int64_t KDiv = *K == 0 ? MaxDivisor : std::gcd(*K, MaxDivisor);
      return {A.Coef * *K, capDivisor(A.Div * KDiv), A.Ok};
    }
    return {0, 1, false};
  }

  /// A power-of-2 divisor of the row stride of dim \p D of \p T.
  int64_t strideDivisor(const Type &T, unsigned D) const {
    int64_t Static = 1, Symbolic = 1;
    std::vector<std::string> Symbols;
    for (unsigned E = D + 1; E < T.rank(); ++E) {
      const Dim &X = T.getDims()[E];
      if (X.isStatic()) {
        Static = capDivisor(Static * std::gcd(X.getValue(), MaxDivisor));
        continue;
      }
      Symbols.push_back(X.getSymbol().str());
      Symbolic = capDivisor(Symbolic * assumedDivisor(Symbols.back()));
    }
    if (Symbols.size() > 1)
      Symbolic = std::max(Symbolic, assumedDivisor(llvm::join(Symbols, " * ")));
    return capDivisor(Static * Symbolic);
  }

  /// The access \p Group (buffer, indices) at v = j*L covers L contiguous
  /// elements starting at a multiple of L.
  bool aligned(llvm::ArrayRef<Value *> Group, int64_t L) const {
    const Type &T = Group.front()->getType();
    llvm::ArrayRef<Value *> Idx = Group.drop_front();
    if (Idx.size() != T.rank() || Idx.empty())
      return false;
    for (unsigned D = 0; D != Idx.size(); ++D) {
      Affine A = affine(Idx[D]);
      bool Last = D + 1 == Idx.size();
      if (!A.Ok || A.Coef != (Last ? 1 : 0))
        return false;
      int64_t Div = Last ? A.Div : capDivisor(A.Div * strideDivisor(T, D));
      if (Div % L != 0)
        return false;
    }
    return true;
  }

  /// \p Cond has one value over each run of L elements.
  bool uniform(const Value *Cond, int64_t L, unsigned Depth = 0) const {
    if (!dependsOnVar(Cond))
      return true;
    const Operation *Def = Cond->getDefiningOp();
    if (!Def || Depth > 32 || !Cond->getType().isBool())
      return false;
    if (Def->is(OpKind::And) || Def->is(OpKind::Or) || Def->is(OpKind::Xor))
      return uniform(Def->getOperand(0), L, Depth + 1) &&
             uniform(Def->getOperand(1), L, Depth + 1);
    if (Def->is(OpKind::Not))
      return uniform(Def->getOperand(0), L, Depth + 1);
    return Def->is(OpKind::Cmp) && uniformCmp(*Def, L);
  }

  /// `base + v < b` (or >=, or mirrored) with base and b multiples of L:
  /// b - base is a multiple of L, so it is never inside (0, L).
  bool uniformCmp(const Operation &Cmp, int64_t L) const {
    auto P = parseCmpPred(Cmp.getStringAttr("pred").value_or(""));
    Affine A = affine(Cmp.getOperand(0)), B = affine(Cmp.getOperand(1));
    if (!P || !A.Ok || !B.Ok)
      return false;
    if (A.Coef == 0 && B.Coef == 0)
      return true;
    if (A.Coef == 0) {
      std::swap(A, B);
      P = *P == CmpPred::Gt   ? CmpPred::Lt
          : *P == CmpPred::Le ? CmpPred::Ge
                              : CmpPred::Eq; // others stay unsupported
    }
    return A.Coef == 1 && B.Coef == 0 &&
           (*P == CmpPred::Lt || *P == CmpPred::Ge) && A.Div % L == 0 &&
           B.Div % L == 0;
  }
};

/// The run length the loop allows, 0 when none.
int64_t runLength(const GuardedCopy &C) {
  unsigned Bits = bitWidth(C.Load->getResult()->getType().getDType());
  RunAnalysis RA(C);
  for (int64_t L = 16; L >= 1; L /= 2) {
    int64_t Bytes = L * Bits / 8;
    if (C.Extent % L == 0 && (Bytes == 4 || Bytes == 8 || Bytes == 16) &&
        RA.allows(L))
      return L;
  }
  return 0;
}

Value *mapped(const ValueMap &Map, Value *V) {
  auto It = Map.find(V);
  return It == Map.end() ? V : It->second;
}

} // namespace

int64_t tilec::predicatedCopyBytes(const Operation &Loop) {
  auto C = matchGuardedCopy(Loop);
  if (!C)
    return 0;
  int64_t L = runLength(*C);
  return L * bitWidth(C->Load->getResult()->getType().getDType()) / 8;
}

void tilec::makePredicatedCopy(Operation &Loop) {
  auto C = matchGuardedCopy(Loop);
  int64_t L = C ? runLength(*C) : 0;
  assert(L && "not a guarded copy predicated cp_async can do");
  Builder B;
  B.setInsertionPoint(&Loop);
  B.setLoc(Loop.getLoc());
  int64_t Bytes = L * bitWidth(C->Load->getResult()->getType().getDType()) / 8;
  for (int64_t J = 0; J < C->Extent; J += L) {
    ValueMap Map;
    Map[C->Var] = B.createConstInt(J);
    for (const Block *Region : {&Loop.getBody(), &C->If->getBody(0)})
      for (const Operation &Op : *Region)
        if (isPureScalarOp(Op))
          B.insert(Op.clone(Map));
    Value *Pred = mapped(Map, C->If->getOperand(0));
    std::vector<Value *> Operands;
    for (Value *V : C->Store->getGroup(1))
      Operands.push_back(mapped(Map, V));
    llvm::ArrayRef<Value *> Src = C->Load->getGroup(0);
    Operands.push_back(Src.front());
    for (Value *Idx : Src.drop_front())
      Operands.push_back(
          B.createSelect(Pred, mapped(Map, Idx),
                         B.createConstInt(0, Idx->getType().getDType())));
    Operands.push_back(Pred);
    unsigned DstSize = C->Store->getGroup(1).size();
    B.create(OpKind::CpAsync, Operands, {DstSize, unsigned(Src.size()), 1u}, {},
             {{"bytes", Attribute::integer(Bytes)}});
  }
  Loop.erase();
}
