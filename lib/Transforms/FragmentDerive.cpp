//===- FragmentDerive.cpp - Fragment layouts from loop accesses -----------===//

#include "FragmentDerive.h"
#include "tilec/Layout/Simplify.h"
#include "llvm/ADT/StringMap.h"
#include <numeric>
#include <unordered_map>

using namespace tilec;
using layout::Fragment;
using layout::IndexExpr;

/// Enumeration-based derivations and checks give up above this size.
static constexpr int64_t Limit = int64_t(1) << 21;

static IndexExpr flatIndex(llvm::ArrayRef<int64_t> Shape) {
  IndexExpr Flat = 0;
  for (unsigned D = 0; D != Shape.size(); ++D)
    Flat = Flat * Shape[D] + Fragment::inputVar(D);
  return Flat;
}

Fragment tilec::makeFullyReplicatedFragment(llvm::ArrayRef<int64_t> Shape,
                                            int64_t Threads) {
  return Fragment(Shape, {flatIndex(Shape)}, Fragment::replicateVar(), Threads);
}

namespace {

/// How the index map uses one loop variable x: x itself in dim Ident, or
/// x // DivC in dim Div and/or x % ModC in dim Mod (-1: not used).
struct VarUse {
  int Ident = -1, Div = -1, Mod = -1;
  int64_t DivC = 0, ModC = 0;
  bool used() const { return Ident >= 0 || Div >= 0 || Mod >= 0; }
};

/// A replica digit of the preimage: a variable ranging over [0, Range).
struct Digit {
  std::string Name;
  int64_t Range;
};

/// The iterations reaching fragment element p: the loop variables (and the
/// loop's "rep") as expressions of p's variables and the digits.
struct Preimage {
  layout::VarMap LoopVars;
  std::vector<Digit> Digits;
};

class ImageDerivation {
public:
  ImageDerivation(const Fragment &Loop, llvm::ArrayRef<IndexExpr> Index,
                  llvm::ArrayRef<int64_t> Shape)
      : Loop(Loop), Index(Index), Shape(Shape) {}

  std::optional<Fragment> run() {
    if (Index.size() != Shape.size() || !buildPreimage() || !buildTable())
      return std::nullopt;
    condenseDigits();
    if (!distinctReplicas())
      return std::nullopt;
    IndexExpr Thread = layout::substitute(
        layout::substitute(Loop.getForwardThread(), Pre.LoopVars), DigitMap);
    return Fragment(Shape, {chooseRegister()}, Thread, Replicas);
  }

private:
  const Fragment &Loop;
  llvm::ArrayRef<IndexExpr> Index;
  llvm::ArrayRef<int64_t> Shape;
  Preimage Pre;
  /// Thread of (element, digits), row-major over Shape ++ digit ranges.
  std::vector<int64_t> Table;
  int64_t DigitSpace = 1;
  /// A kept part of a digit: r in [0, Radix) contributes r * Mult.
  struct Position {
    int64_t Radix, Mult;
  };
  /// Per digit: the positions its replica value is made of.
  std::vector<std::vector<Position>> Condensed;
  layout::VarMap DigitMap;
  int64_t Replicas = 1;

  bool matchDim(unsigned D, std::vector<VarUse> &Uses) {
    llvm::ArrayRef<int64_t> LoopShape = Loop.getInputShape();
    const IndexExpr &E = Index[D];
    if (E.isConstant(0) && Shape[D] == 1)
      return true;
    auto VarOf = [&](const IndexExpr &X) -> int {
      for (unsigned K = 0; K != LoopShape.size(); ++K)
        if (X.getVarName() == Fragment::inputVarName(K))
          return K;
      return -1;
    };
    if (int V = VarOf(E); V >= 0) {
      if (Uses[V].used() || Shape[D] != LoopShape[V])
        return false;
      Uses[V].Ident = D;
      return true;
    }
    const auto *Bin = llvm::dyn_cast<layout::BinaryNode>(E.get());
    if (!Bin)
      return false;
    int V = VarOf(Bin->getLHS());
    int64_t C = Bin->getRHS().getConstant().value_or(0);
    if (V < 0 || C <= 0 || LoopShape[V] % C != 0 || Uses[V].Ident >= 0)
      return false;
    VarUse &U = Uses[V];
    if (Bin->getKind() == layout::ExprNode::Kind::FloorDiv && U.Div < 0 &&
        Shape[D] == LoopShape[V] / C) {
      U.Div = D;
      U.DivC = C;
      return U.Mod < 0 || U.ModC == C;
    }
    if (Bin->getKind() == layout::ExprNode::Kind::FloorMod && U.Mod < 0 &&
        Shape[D] == C) {
      U.Mod = D;
      U.ModC = C;
      return U.Div < 0 || U.DivC == C;
    }
    return false;
  }

  IndexExpr newDigit(int64_t Range) {
    std::string Name = "d" + std::to_string(Pre.Digits.size());
    Pre.Digits.push_back({Name, Range});
    return IndexExpr::var(Name);
  }

  bool buildPreimage() {
    llvm::ArrayRef<int64_t> LoopShape = Loop.getInputShape();
    std::vector<VarUse> Uses(LoopShape.size());
    for (unsigned D = 0; D != Shape.size(); ++D)
      if (!matchDim(D, Uses))
        return false;
    for (unsigned K = 0; K != LoopShape.size(); ++K) {
      const VarUse &U = Uses[K];
      int64_t N = LoopShape[K];
      IndexExpr X;
      if (U.Ident >= 0)
        X = Fragment::inputVar(U.Ident);
      else if (U.Div >= 0)
        X = Fragment::inputVar(U.Div) * U.DivC +
            (U.Mod >= 0 ? Fragment::inputVar(U.Mod) : newDigit(U.DivC));
      else if (U.Mod >= 0)
        X = newDigit(N / U.ModC) * U.ModC + Fragment::inputVar(U.Mod);
      else
        X = N == 1 ? IndexExpr(0) : newDigit(N);
      Pre.LoopVars[Fragment::inputVarName(K)] = X;
    }
    Pre.LoopVars["rep"] = Loop.getReplicateSize() > 1
                              ? newDigit(Loop.getReplicateSize())
                              : IndexExpr(0);
    return true;
  }

  bool buildTable() {
    layout::Shape Full(Shape.begin(), Shape.end());
    for (const Digit &D : Pre.Digits) {
      Full.push_back(D.Range);
      DigitSpace *= D.Range;
    }
    if (layout::shapeSize(Full) > Limit)
      return false;
    IndexExpr Thread =
        layout::substitute(Loop.getForwardThread(), Pre.LoopVars);
    bool Ok = true;
    layout::forEachIndex(Full, [&](llvm::ArrayRef<int64_t> Idx) {
      layout::Env Values;
      for (unsigned D = 0; D != Shape.size(); ++D)
        Values[Fragment::inputVarName(D)] = Idx[D];
      for (unsigned K = 0; K != Pre.Digits.size(); ++K)
        Values[Pre.Digits[K].Name] = Idx[Shape.size() + K];
      auto T = layout::evaluate(Thread, Values);
      Ok &= T.has_value();
      Table.push_back(T.value_or(-1));
    });
    return Ok;
  }

  int64_t strideOf(unsigned K) const {
    int64_t S = 1;
    for (unsigned M = K + 1; M < Pre.Digits.size(); ++M)
      S *= Pre.Digits[M].Range;
    return S;
  }

  /// The thread never changes when digit K's value d becomes G(d).
  template <typename Fn> bool independent(unsigned K, Fn G) const {
    int64_t Stride = strideOf(K), Range = Pre.Digits[K].Range;
    for (int64_t Idx = 0, E = Table.size(); Idx != E; ++Idx) {
      int64_t D = Idx / Stride % Range;
      if (Table[Idx] != Table[Idx + (G(D) - D) * Stride])
        return false;
    }
    return true;
  }

  /// Per digit, the largest A whose low part d % A is irrelevant and the
  /// smallest period P of d // A: the digit becomes r * A, r in [0, P).
  /// When r still has mixed-radix positions the thread ignores (a middle
  /// part, as the row half of an mma tile for a column vector), they are
  /// dropped too, so that no element keeps two replicas on one thread.
  void condenseDigits() {
    for (unsigned K = 0; K != Pre.Digits.size(); ++K) {
      int64_t N = Pre.Digits[K].Range, A = N;
      while (!independent(K, [&](int64_t D) { return D - D % A; }))
        do
          --A;
        while (N % A != 0);
      int64_t P = 1;
      while (!independent(K, [&](int64_t D) { return D / A % P * A; }))
        do
          ++P;
        while ((N / A) % P != 0);
      Condensed.push_back(relevantPositions(K, A, P));
    }
    IndexExpr Rep = Fragment::replicateVar();
    for (int K = Pre.Digits.size() - 1; K >= 0; --K) {
      IndexExpr Value = 0;
      for (const Position &Pos : Condensed[K]) {
        IndexExpr R =
            layout::floorMod(layout::floorDiv(Rep, Replicas), Pos.Radix);
        Value = Value.getConstant() == 0 ? R * Pos.Mult : Value + R * Pos.Mult;
        Replicas *= Pos.Radix;
      }
      DigitMap[Pre.Digits[K].Name] = Value;
    }
  }

  /// The positions of r (value r * A, r in [0, P)) that the thread depends
  /// on: P split into prime radices, low first; a position is dropped when
  /// zeroing it never changes the thread (then zeroing any set of such
  /// positions does not either). Adjacent kept positions are merged, so a
  /// digit without irrelevant positions stays one position (P, A).
  std::vector<Position> relevantPositions(unsigned K, int64_t A, int64_t P) {
    std::vector<Position> Out;
    int64_t Stride = 1;
    for (int64_t Radix : primeFactors(P)) {
      int64_t Mult = Stride * A;
      bool Kept = !independent(
          K, [&](int64_t D) { return D - (D / Mult % Radix) * Mult; });
      if (Kept && !Out.empty() && Out.back().Mult * Out.back().Radix == Mult)
        Out.back().Radix *= Radix;
      else if (Kept)
        Out.push_back({Radix, Mult});
      Stride *= Radix;
    }
    return Out;
  }

  static std::vector<int64_t> primeFactors(int64_t N) {
    std::vector<int64_t> Out;
    for (int64_t F = 2; F * F <= N; ++F)
      for (; N % F == 0; N /= F)
        Out.push_back(F);
    if (N > 1)
      Out.push_back(N);
    return Out;
  }

  /// The table entry of element \p P (flat) as replica \p R.
  int64_t entry(int64_t P, int64_t R) const {
    int64_t Idx = P * DigitSpace, Below = 1;
    for (int K = Pre.Digits.size() - 1; K >= 0; --K)
      for (const Position &Pos : Condensed[K]) {
        Idx += (R / Below % Pos.Radix) * Pos.Mult * strideOf(K);
        Below *= Pos.Radix;
      }
    return Idx;
  }

  bool distinctReplicas() const {
    int64_t N = layout::shapeSize(Shape);
    for (int64_t P = 0; P != N; ++P) {
      std::vector<int64_t> Ts;
      for (int64_t R = 0; R != Replicas; ++R)
        Ts.push_back(Table[entry(P, R)]);
      llvm::sort(Ts);
      if (std::adjacent_find(Ts.begin(), Ts.end()) != Ts.end())
        return false;
    }
    return true;
  }

  /// Values of \p Reg per element (row-major); nullopt if undefined or < 0.
  std::optional<std::vector<int64_t>> registerValues(const IndexExpr &Reg) {
    std::vector<int64_t> Values;
    bool Ok = true;
    layout::forEachIndex(Shape, [&](llvm::ArrayRef<int64_t> Idx) {
      layout::Env Env;
      for (unsigned D = 0; D != Shape.size(); ++D)
        Env[Fragment::inputVarName(D)] = Idx[D];
      auto V = layout::evaluate(Reg, Env);
      Ok &= V && *V >= 0;
      Values.push_back(V.value_or(0));
    });
    if (!Ok)
      return std::nullopt;
    return Values;
  }

  bool injectivePerThread(llvm::ArrayRef<int64_t> Regs) const {
    int64_t Span = *std::max_element(Regs.begin(), Regs.end()) + 1;
    std::unordered_map<int64_t, int64_t> Owner;
    for (int64_t P = 0, N = Regs.size(); P != N; ++P)
      for (int64_t R = 0; R != Replicas; ++R) {
        auto [It, New] = Owner.emplace(Table[entry(P, R)] * Span + Regs[P], P);
        if (!New && It->second != P)
          return false;
      }
    return true;
  }

  /// \p Reg without the bits that are zero in all its \p Values (updated):
  /// the registers a projection keeps of a loop's registers leave gaps
  /// (a column vector of an mma accumulator keeps the column bits, not the
  /// row bits between them).
  static IndexExpr squeezeZeroBits(IndexExpr Reg,
                                   std::vector<int64_t> &Values) {
    int64_t Used = 0;
    for (int64_t V : Values)
      Used |= V;
    for (int Bit = 62; Bit >= 0; --Bit) {
      int64_t Low = int64_t(1) << Bit;
      if ((Used & Low) || Used < Low)
        continue;
      Reg = layout::floorDiv(Reg, 2 * Low) * Low + layout::floorMod(Reg, Low);
      for (int64_t &V : Values)
        V = V / (2 * Low) * Low + V % Low;
      Used = Used / (2 * Low) * Low + Used % Low;
    }
    return Reg;
  }

  /// The loop's register of the replica-0 preimage, compacted by the gcd
  /// of its values, when it separates the elements of every thread.
  IndexExpr chooseRegister() {
    IndexExpr Reg = 0;
    llvm::ArrayRef<int64_t> Out = Loop.getOutputShape();
    for (unsigned D = 0; D != Out.size(); ++D)
      Reg = Reg * Out[D] + Loop.getForwardIndex()[D];
    layout::VarMap Zero;
    for (const Digit &D : Pre.Digits)
      Zero[D.Name] = 0;
    Reg = layout::substitute(layout::substitute(Reg, Pre.LoopVars), Zero);
    IndexExpr Flat = flatIndex(Shape);
    auto Values = registerValues(Reg);
    if (!Values)
      return Flat;
    int64_t G = 0;
    for (int64_t V : *Values)
      G = std::gcd(G, V);
    if (G > 1) {
      Reg = layout::floorDiv(Reg, G);
      for (int64_t &V : *Values)
        V /= G;
    }
    Reg = squeezeZeroBits(Reg, *Values);
    int64_t Max = *std::max_element(Values->begin(), Values->end());
    if (Max >= layout::shapeSize(Shape) || !injectivePerThread(*Values))
      return Flat;
    layout::VarExtents Extents;
    for (unsigned D = 0; D != Shape.size(); ++D)
      Extents[Fragment::inputVarName(D)] = Shape[D];
    return layout::simplify(Reg, Extents);
  }
};

} // namespace

std::optional<Fragment>
tilec::deriveAccessFragment(const Fragment &Loop,
                            llvm::ArrayRef<IndexExpr> Index,
                            llvm::ArrayRef<int64_t> Shape) {
  return ImageDerivation(Loop, Index, Shape).run();
}

static std::vector<int64_t> holdersOf(const Fragment &F,
                                      llvm::ArrayRef<int64_t> Idx) {
  std::vector<int64_t> Ts;
  for (int64_t R = 0; R != F.getReplicateSize(); ++R)
    Ts.push_back(F.forwardThread(Idx, R).value_or(-1));
  llvm::sort(Ts);
  return Ts;
}

static bool tooLarge(const Fragment &F) {
  return layout::shapeSize(F.getInputShape()) * F.getReplicateSize() > Limit;
}

bool tilec::replicasOnDistinctThreads(const Fragment &F) {
  if (tooLarge(F))
    return false;
  bool Ok = true;
  layout::forEachIndex(F.getInputShape(), [&](llvm::ArrayRef<int64_t> Idx) {
    std::vector<int64_t> Ts = holdersOf(F, Idx);
    Ok &= std::adjacent_find(Ts.begin(), Ts.end()) == Ts.end();
  });
  return Ok;
}

/// The flat element of \p Shape that \p Index reaches at loop index \p X;
/// -1 outside the shape or where an expression is undefined.
static int64_t accessedElement(llvm::ArrayRef<IndexExpr> Index,
                               llvm::ArrayRef<int64_t> Shape,
                               llvm::ArrayRef<int64_t> X) {
  layout::Env Env;
  for (unsigned K = 0; K != X.size(); ++K)
    Env[Fragment::inputVarName(K)] = X[K];
  int64_t Flat = 0;
  for (unsigned D = 0; D != Shape.size(); ++D) {
    auto V = layout::evaluate(Index[D], Env);
    if (!V || *V < 0 || *V >= Shape[D])
      return -1;
    Flat = Flat * Shape[D] + *V;
  }
  return Flat;
}

bool tilec::holdsAccess(const Fragment &Loop, const Fragment &F,
                        llvm::ArrayRef<IndexExpr> Index) {
  llvm::ArrayRef<int64_t> Shape = F.getInputShape();
  if (tooLarge(Loop) || tooLarge(F) || Index.size() != Shape.size())
    return false;
  std::vector<std::vector<int64_t>> Holders;
  layout::forEachIndex(Shape, [&](llvm::ArrayRef<int64_t> Idx) {
    Holders.push_back(holdersOf(F, Idx));
  });
  bool Ok = true;
  layout::forEachIndex(Loop.getInputShape(), [&](llvm::ArrayRef<int64_t> X) {
    int64_t P = Ok ? accessedElement(Index, Shape, X) : -1;
    Ok &= P >= 0;
    for (int64_t R = 0; Ok && R != Loop.getReplicateSize(); ++R)
      Ok &= std::binary_search(Holders[P].begin(), Holders[P].end(),
                               Loop.forwardThread(X, R).value_or(-1));
  });
  return Ok;
}
