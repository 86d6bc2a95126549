//===- Simplify.cpp - Range analysis and canonicalizing simplifier --------===//
//
// The simplifier works bottom-up. Sums are flattened into a LinearForm
// (coefficient per atom plus a constant); every non-linear node (floordiv,
// floormod, xor, ...) is an atom, simplified before it enters a sum. The
// division rules recurse only on strictly smaller problems (fewer terms or
// a smaller divisor), so the rewriting terminates.
//
//===----------------------------------------------------------------------===//

#include "tilec/Layout/Simplify.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include <numeric>

using namespace tilec::layout;
using llvm::cast;
using llvm::dyn_cast;
using llvm::isa;
using Kind = ExprNode::Kind;

//===----------------------------------------------------------------------===//
// Range analysis
//===----------------------------------------------------------------------===//

namespace {

std::optional<Bounds> cornerBounds(Kind K, const Bounds &L, const Bounds &R) {
  int64_t Vals[4];
  int64_t Ls[2] = {L.Min, L.Max}, Rs[2] = {R.Min, R.Max};
  for (int I = 0; I < 2; ++I)
    for (int J = 0; J < 2; ++J) {
      auto V = foldBinary(K, Ls[I], Rs[J]);
      if (!V)
        return std::nullopt;
      Vals[I * 2 + J] = *V;
    }
  return Bounds{*std::min_element(Vals, Vals + 4),
                *std::max_element(Vals, Vals + 4)};
}

std::optional<Bounds> modBounds(const Bounds &L, const Bounds &R) {
  if (R.isSingleValue() && R.Min > 0) {
    int64_t C = R.Min;
    if (floorDivInt(L.Min, C) == floorDivInt(L.Max, C))
      return Bounds{floorModInt(L.Min, C), floorModInt(L.Max, C)};
    return Bounds{0, C - 1};
  }
  if (R.Min > 0)
    return Bounds{0, L.Min >= 0 ? std::min(L.Max, R.Max - 1) : R.Max - 1};
  return std::nullopt;
}

std::optional<Bounds> bitBounds(Kind K, const Bounds &L, const Bounds &R) {
  if (K == Kind::And) {
    if (L.Min >= 0 && R.Min >= 0)
      return Bounds{0, std::min(L.Max, R.Max)};
    if (L.Min >= 0 || R.Min >= 0)
      return Bounds{0, L.Min >= 0 ? L.Max : R.Max};
    return std::nullopt;
  }
  if (L.Min < 0 || R.Min < 0)
    return std::nullopt;
  int64_t Top = std::max(L.Max, R.Max), Mask = 0;
  while (Mask < Top)
    Mask = Mask * 2 + 1;
  return Bounds{0, Mask};
}

std::optional<Bounds> binaryBounds(Kind K, const Bounds &L, const Bounds &R) {
  switch (K) {
  case Kind::Add:
  case Kind::Sub: {
    auto Lo = foldBinary(K, L.Min, K == Kind::Add ? R.Min : R.Max);
    auto Hi = foldBinary(K, L.Max, K == Kind::Add ? R.Max : R.Min);
    if (!Lo || !Hi)
      return std::nullopt;
    return Bounds{*Lo, *Hi};
  }
  case Kind::Mul:
    return cornerBounds(K, L, R);
  case Kind::FloorDiv:
    if (R.Min > 0 || R.Max < 0)
      return cornerBounds(K, L, R);
    return std::nullopt;
  case Kind::FloorMod:
    return modBounds(L, R);
  case Kind::Xor:
  case Kind::And:
    return bitBounds(K, L, R);
  case Kind::Min:
  case Kind::Max:
    return Bounds{*foldBinary(K, L.Min, R.Min), *foldBinary(K, L.Max, R.Max)};
  default:
    return std::nullopt;
  }
}

} // namespace

std::optional<Bounds> tilec::layout::computeBounds(const IndexExpr &E,
                                                   const VarExtents &Extents) {
  if (auto C = E.getConstant())
    return Bounds{*C, *C};
  if (auto *V = dyn_cast<VarNode>(E.get())) {
    auto It = Extents.find(V->getName());
    if (It == Extents.end() || It->second <= 0)
      return std::nullopt;
    return Bounds{0, It->second - 1};
  }
  auto *B = cast<BinaryNode>(E.get());
  auto L = computeBounds(B->getLHS(), Extents);
  if (!L)
    return std::nullopt;
  auto R = computeBounds(B->getRHS(), Extents);
  if (!R)
    return std::nullopt;
  return binaryBounds(B->getKind(), *L, *R);
}

//===----------------------------------------------------------------------===//
// Linear forms
//===----------------------------------------------------------------------===//

namespace {

struct Term {
  IndexExpr Atom;
  int64_t Coeff;
};

struct LinearForm {
  llvm::SmallVector<Term, 4> Terms;
  int64_t Constant = 0;
  bool Overflow = false;

  void addConstant(int64_t V) {
    if (__builtin_add_overflow(Constant, V, &Constant))
      Overflow = true;
  }
  void addAtom(const IndexExpr &Atom, int64_t Coeff) {
    for (Term &T : Terms)
      if (structurallyEqual(T.Atom, Atom)) {
        Overflow |= __builtin_add_overflow(T.Coeff, Coeff, &T.Coeff);
        return;
      }
    Terms.push_back({Atom, Coeff});
  }
  void dropZeroTerms() {
    llvm::erase_if(Terms, [](const Term &T) { return T.Coeff == 0; });
  }
};

int64_t scaleOrFlag(int64_t A, int64_t B, bool &Overflow) {
  int64_t R = 0;
  Overflow |= __builtin_mul_overflow(A, B, &R);
  return R;
}

/// Builds `sum(coeff * atom) + const` in canonical order.
IndexExpr buildLinear(LinearForm LF) {
  LF.dropZeroTerms();
  llvm::stable_sort(LF.Terms, [](const Term &A, const Term &B) {
    if (A.Coeff != B.Coeff)
      return A.Coeff > B.Coeff;
    return compareExpr(A.Atom, B.Atom) < 0;
  });
  IndexExpr Acc;
  for (const Term &T : LF.Terms) {
    bool Negate = Acc && T.Coeff < 0 && T.Coeff != INT64_MIN;
    int64_t C = Negate ? -T.Coeff : T.Coeff;
    IndexExpr Piece = C == 1 ? T.Atom : T.Atom * C;
    if (!Acc)
      Acc = Piece;
    else
      Acc = Negate ? Acc - Piece : Acc + Piece;
  }
  int64_t K = LF.Constant;
  if (!Acc)
    return K;
  if (K == 0)
    return Acc;
  return K < 0 && K != INT64_MIN ? Acc - (-K) : Acc + K;
}

int64_t gcdOfForm(const LinearForm &LF) {
  int64_t G = LF.Constant < 0 ? -LF.Constant : LF.Constant;
  for (const Term &T : LF.Terms)
    G = std::gcd(G, T.Coeff < 0 ? -T.Coeff : T.Coeff);
  return G;
}

LinearForm divideForm(LinearForm LF, int64_t G) {
  for (Term &T : LF.Terms)
    T.Coeff /= G;
  LF.Constant /= G;
  return LF;
}

std::optional<int64_t> constDivisor(const IndexExpr &E, Kind K,
                                    IndexExpr *Dividend) {
  auto *B = dyn_cast<BinaryNode>(E.get());
  if (!B || B->getKind() != K)
    return std::nullopt;
  auto C = B->getRHS().getConstant();
  if (!C || *C <= 0)
    return std::nullopt;
  *Dividend = B->getLHS();
  return C;
}

//===----------------------------------------------------------------------===//
// The simplifier
//===----------------------------------------------------------------------===//

class Simplifier {
public:
  explicit Simplifier(const VarExtents &Extents) : Extents(Extents) {}

  IndexExpr visit(const IndexExpr &E) {
    if (E.getConstant() || isa<VarNode>(E.get()))
      return E;
    auto It = Cache.find(E.get());
    if (It != Cache.end())
      return It->second;
    IndexExpr R = foldByBounds(visitBinary(*cast<BinaryNode>(E.get()), E));
    Cache[E.get()] = R;
    Cache[R.get()] = R;
    Keep.push_back(E);
    return R;
  }

private:
  const VarExtents &Extents;
  /// Memo of simplified nodes; Keep holds the keys alive.
  llvm::DenseMap<const ExprNode *, IndexExpr> Cache;
  llvm::SmallVector<IndexExpr, 16> Keep;

  IndexExpr foldByBounds(const IndexExpr &E) {
    if (E.getConstant())
      return E;
    auto B = computeBounds(E, Extents);
    return B && B->isSingleValue() ? IndexExpr(B->Min) : E;
  }

  IndexExpr visitBinary(const BinaryNode &B, const IndexExpr &E) {
    Kind K = B.getKind();
    if (K == Kind::Add || K == Kind::Sub || K == Kind::Mul)
      return simplifyLinear(E);
    IndexExpr L = visit(B.getLHS()), R = visit(B.getRHS());
    auto LC = L.getConstant(), RC = R.getConstant();
    if (LC && RC)
      if (auto V = foldBinary(K, *LC, *RC))
        return *V;
    if ((K == Kind::FloorDiv || K == Kind::FloorMod) && RC && *RC > 0)
      return K == Kind::FloorDiv ? simplifyDiv(L, *RC) : simplifyMod(L, *RC);
    if (K == Kind::Xor)
      return simplifyXor(L, R);
    if (K == Kind::And)
      return simplifyAnd(L, R);
    if (K == Kind::Min || K == Kind::Max)
      return simplifyMinMax(K, L, R);
    return makeBinary(K, L, R);
  }

  IndexExpr simplifyLinear(const IndexExpr &E) {
    LinearForm LF;
    addTo(LF, E, 1);
    if (LF.Overflow) {
      auto *B = cast<BinaryNode>(E.get());
      return makeBinary(B->getKind(), visit(B->getLHS()), visit(B->getRHS()));
    }
    return finish(std::move(LF));
  }

  IndexExpr finish(LinearForm LF) {
    mergeDivMod(LF);
    return foldByBounds(buildLinear(std::move(LF)));
  }

  /// Adds Scale * E (E not necessarily simplified) to LF.
  void addTo(LinearForm &LF, const IndexExpr &E, int64_t Scale) {
    if (auto C = E.getConstant())
      return LF.addConstant(scaleOrFlag(*C, Scale, LF.Overflow));
    auto *B = dyn_cast<BinaryNode>(E.get());
    if (!B)
      return LF.addAtom(E, Scale);
    switch (B->getKind()) {
    case Kind::Add:
      addTo(LF, B->getLHS(), Scale);
      return addTo(LF, B->getRHS(), Scale);
    case Kind::Sub:
      addTo(LF, B->getLHS(), Scale);
      return addTo(LF, B->getRHS(), scaleOrFlag(Scale, -1, LF.Overflow));
    case Kind::Mul:
      return addProduct(LF, visit(B->getLHS()), visit(B->getRHS()), Scale);
    default:
      return addSimplified(LF, visit(E), Scale);
    }
  }

  void addProduct(LinearForm &LF, const IndexExpr &A, const IndexExpr &B,
                  int64_t Scale) {
    if (auto C = B.getConstant())
      return addSimplified(LF, A, scaleOrFlag(*C, Scale, LF.Overflow));
    if (auto C = A.getConstant())
      return addSimplified(LF, B, scaleOrFlag(*C, Scale, LF.Overflow));
    bool Ordered = compareExpr(A, B) <= 0;
    LF.addAtom(Ordered ? A * B : B * A, Scale);
  }

  /// Adds Scale * S for an already simplified S.
  void addSimplified(LinearForm &LF, const IndexExpr &S, int64_t Scale) {
    Kind K = S->getKind();
    if (K == Kind::Const || K == Kind::Add || K == Kind::Sub)
      return addTo(LF, S, Scale);
    if (K == Kind::Mul) {
      auto *B = cast<BinaryNode>(S.get());
      return addProduct(LF, B->getLHS(), B->getRHS(), Scale);
    }
    LF.addAtom(S, Scale);
  }

  LinearForm linearize(const IndexExpr &S) {
    LinearForm LF;
    addSimplified(LF, S, 1);
    return LF;
  }

  /// (x // c) * k*c + (x % c) * k -> x * k, and
  /// ((x // c) % d) * k*c + (x % c) * k -> (x % (c*d)) * k.
  void mergeDivMod(LinearForm &LF) {
    bool Changed = true;
    while (Changed && !LF.Overflow) {
      Changed = false;
      LF.dropZeroTerms();
      for (size_t I = 0; I < LF.Terms.size() && !Changed; ++I)
        Changed = mergeAt(LF, I);
    }
  }

  bool mergeAt(LinearForm &LF, size_t ModIdx) {
    IndexExpr X;
    auto C = constDivisor(LF.Terms[ModIdx].Atom, Kind::FloorMod, &X);
    if (!C)
      return false;
    int64_t K = LF.Terms[ModIdx].Coeff, KC;
    if (__builtin_mul_overflow(K, *C, &KC))
      return false;
    for (size_t J = 0; J < LF.Terms.size(); ++J) {
      if (J == ModIdx || LF.Terms[J].Coeff != KC)
        continue;
      IndexExpr Merged = mergedAtom(LF.Terms[J].Atom, X, *C);
      if (!Merged)
        continue;
      LF.Terms[ModIdx].Coeff = 0;
      LF.Terms[J].Coeff = 0;
      addSimplified(LF, Merged, K);
      return true;
    }
    return false;
  }

  /// The merged value when Other is x // c or (x // c) % d.
  IndexExpr mergedAtom(const IndexExpr &Other, const IndexExpr &X,
                       int64_t C) {
    IndexExpr Y;
    if (auto C2 = constDivisor(Other, Kind::FloorDiv, &Y))
      return *C2 == C && structurallyEqual(Y, X) ? X : IndexExpr();
    auto D = constDivisor(Other, Kind::FloorMod, &Y);
    IndexExpr Z;
    if (!D || constDivisor(Y, Kind::FloorDiv, &Z) != C ||
        !structurallyEqual(Z, X))
      return IndexExpr();
    int64_t CD;
    if (__builtin_mul_overflow(C, *D, &CD))
      return IndexExpr();
    return simplifyMod(X, CD);
  }

  IndexExpr simplifyDiv(const IndexExpr &A, int64_t C) {
    if (C == 1)
      return A;
    if (auto V = A.getConstant())
      return floorDivInt(*V, C);
    IndexExpr X;
    int64_t Prod;
    if (auto C1 = constDivisor(A, Kind::FloorDiv, &X))
      if (!__builtin_mul_overflow(*C1, C, &Prod))
        return simplifyDiv(X, Prod);
    if (auto M = constDivisor(A, Kind::FloorMod, &X); M && *M % C == 0)
      return simplifyMod(simplifyDiv(X, C), *M / C);
    LinearForm LF = linearize(A), Q, R;
    for (const Term &T : LF.Terms) {
      if (T.Coeff % C == 0)
        Q.Terms.push_back({T.Atom, T.Coeff / C});
      else
        R.Terms.push_back(T);
    }
    Q.Constant = floorDivInt(LF.Constant, C);
    R.Constant = floorModInt(LF.Constant, C);
    if (Q.Terms.empty() && Q.Constant == 0)
      return divideRest(A, R, C);
    addSimplified(Q, simplifyDiv(buildLinear(R), C), 1);
    return finish(std::move(Q));
  }

  /// x // c where no term of x has a coefficient divisible by c.
  IndexExpr divideRest(const IndexExpr &A, const LinearForm &R, int64_t C) {
    int64_t G = gcdOfForm(R);
    if (G > 1 && C % G == 0)
      return simplifyDiv(buildLinear(divideForm(R, G)), C / G);
    // (h*d + l) // C -> h // (C/d) when d divides C and 0 <= l < d.
    if (auto Split = splitBelow(R, C))
      return simplifyDiv(buildLinear(Split->High), C / Split->D);
    auto B = computeBounds(A, Extents);
    if (B && floorDivInt(B->Min, C) == floorDivInt(B->Max, C))
      return floorDivInt(B->Min, C);
    return floorDiv(A, C);
  }

  IndexExpr simplifyMod(const IndexExpr &A, int64_t C) {
    if (C == 1)
      return 0;
    if (auto V = A.getConstant())
      return floorModInt(*V, C);
    IndexExpr X;
    if (auto M = constDivisor(A, Kind::FloorMod, &X); M && *M % C == 0)
      return simplifyMod(X, C);
    LinearForm LF = linearize(A), R;
    bool Changed = false;
    for (const Term &T : LF.Terms) {
      int64_t Reduced = floorModInt(T.Coeff, C);
      Changed |= Reduced != T.Coeff;
      if (Reduced != 0)
        R.Terms.push_back({T.Atom, Reduced});
    }
    R.Constant = floorModInt(LF.Constant, C);
    Changed |= R.Constant != LF.Constant;
    int64_t G = gcdOfForm(R);
    if (G > 1 && C % G == 0) {
      LinearForm Scaled;
      addSimplified(Scaled,
                    simplifyMod(buildLinear(divideForm(R, G)), C / G), G);
      return finish(std::move(Scaled));
    }
    if (Changed)
      return simplifyMod(buildLinear(std::move(R)), C);
    // (h*d + l) % C -> (h % (C/d)) * d + l when d divides C, 0 <= l < d.
    if (auto Split = splitBelow(R, C)) {
      LinearForm Out = Split->Low;
      addSimplified(Out, simplifyMod(buildLinear(Split->High), C / Split->D),
                    Split->D);
      return finish(std::move(Out));
    }
    return modByBounds(A, LF, C);
  }

  struct DigitSplit {
    int64_t D;
    LinearForm High; ///< the terms divisible by D, divided by D
    LinearForm Low;  ///< the rest, proven to lie in [0, D)
  };

  /// Finds the largest coefficient D (1 < D < C, D | C) such that the
  /// terms of R not divisible by D lie in [0, D).
  std::optional<DigitSplit> splitBelow(const LinearForm &R, int64_t C) {
    llvm::SmallVector<int64_t, 4> Candidates;
    for (const Term &T : R.Terms)
      if (T.Coeff > 1 && T.Coeff < C && C % T.Coeff == 0)
        Candidates.push_back(T.Coeff);
    llvm::sort(Candidates, std::greater<int64_t>());
    for (int64_t D : Candidates) {
      DigitSplit S{D, {}, {}};
      for (const Term &T : R.Terms)
        (T.Coeff % D == 0 ? S.High : S.Low).Terms.push_back(T);
      S.High = divideForm(S.High, D);
      S.High.Constant = floorDivInt(R.Constant, D);
      S.Low.Constant = floorModInt(R.Constant, D);
      auto B = computeBounds(buildLinear(S.Low), Extents);
      if (B && B->Min >= 0 && B->Max < D)
        return S;
    }
    return std::nullopt;
  }

  IndexExpr modByBounds(const IndexExpr &A, LinearForm LF, int64_t C) {
    auto B = computeBounds(A, Extents);
    if (!B || floorDivInt(B->Min, C) != floorDivInt(B->Max, C))
      return floorMod(A, C);
    LF.addConstant(-floorDivInt(B->Min, C) * C);
    return finish(std::move(LF));
  }

  static IndexExpr ordered(Kind K, const IndexExpr &L, const IndexExpr &R) {
    return compareExpr(L, R) <= 0 ? makeBinary(K, L, R) : makeBinary(K, R, L);
  }

  IndexExpr simplifyXor(const IndexExpr &L, const IndexExpr &R) {
    if (L.isConstant(0))
      return R;
    if (R.isConstant(0))
      return L;
    if (structurallyEqual(L, R))
      return 0;
    return ordered(Kind::Xor, L, R);
  }

  IndexExpr simplifyAnd(const IndexExpr &L, const IndexExpr &R) {
    if (L.isConstant(0) || R.isConstant(0))
      return 0;
    if (structurallyEqual(L, R))
      return L;
    for (auto [Val, Mask] : {std::pair(L, R), std::pair(R, L)}) {
      auto M = Mask.getConstant();
      auto B = computeBounds(Val, Extents);
      if (M && *M > 0 && (*M & (*M + 1)) == 0 && B && B->Min >= 0)
        return simplifyMod(Val, *M + 1);
    }
    return ordered(Kind::And, L, R);
  }

  IndexExpr simplifyMinMax(Kind K, const IndexExpr &L, const IndexExpr &R) {
    if (structurallyEqual(L, R))
      return L;
    // Decide by the sign of R - L, which cancels shared terms.
    auto DB = computeBounds(simplifyLinear(R - L), Extents);
    if (DB && (DB->Min >= 0 || DB->Max <= 0)) {
      bool LeftSmaller = DB->Min >= 0;
      return (K == Kind::Min) == LeftSmaller ? L : R;
    }
    return ordered(K, L, R);
  }
};

} // namespace

IndexExpr tilec::layout::simplify(const IndexExpr &E,
                                  const VarExtents &Extents) {
  return Simplifier(Extents).visit(E);
}

bool tilec::layout::proveEqual(const IndexExpr &A, const IndexExpr &B,
                               const VarExtents &Extents) {
  return simplify(A - B, Extents).isConstant(0);
}
