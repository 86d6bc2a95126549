//===- Layout.cpp - Layout construction, transformation and checks --------===//

#include "tilec/Layout/Layout.h"
#include "tilec/Layout/Simplify.h"
#include <cassert>

using namespace tilec::layout;

void tilec::layout::forEachIndex(
    llvm::ArrayRef<int64_t> Shape,
    const std::function<void(llvm::ArrayRef<int64_t>)> &F) {
  if (shapeSize(Shape) <= 0)
    return;
  Indices Idx(Shape.size(), 0);
  while (true) {
    F(Idx);
    int D = static_cast<int>(Shape.size()) - 1;
    for (; D >= 0; --D) {
      if (++Idx[D] < Shape[D])
        break;
      Idx[D] = 0;
    }
    if (D < 0)
      return;
  }
}

int64_t tilec::layout::shapeSize(llvm::ArrayRef<int64_t> Shape) {
  int64_t N = 1;
  for (int64_t E : Shape)
    if (E < 0 || __builtin_mul_overflow(N, E, &N))
      return -1;
  return N;
}

static std::string joinShape(llvm::ArrayRef<int64_t> Shape) {
  std::string S = "[";
  for (size_t I = 0; I < Shape.size(); ++I)
    S += (I ? ", " : "") + std::to_string(Shape[I]);
  return S + "]";
}

std::string Layout::exprListText(llvm::ArrayRef<IndexExpr> Exprs) {
  std::string S = "[";
  for (size_t I = 0; I < Exprs.size(); ++I)
    S += (I ? ", " : "") + tilec::layout::toString(Exprs[I]);
  return S + "]";
}

/// Row-major linear index of Idx in Shape.
static int64_t linearize(llvm::ArrayRef<int64_t> Idx,
                         llvm::ArrayRef<int64_t> Shape) {
  int64_t L = 0;
  for (size_t D = 0; D < Shape.size(); ++D)
    L = L * Shape[D] + Idx[D];
  return L;
}

//===----------------------------------------------------------------------===//
// Layout
//===----------------------------------------------------------------------===//

Layout::Layout(llvm::ArrayRef<int64_t> InputShape,
               llvm::ArrayRef<IndexExpr> ForwardIndex)
    : Layout(InputShape, ForwardIndex, false) {}

Layout::Layout(llvm::ArrayRef<int64_t> Shape,
               llvm::ArrayRef<IndexExpr> Forward, bool IsFragment)
    : InputShape(Shape.begin(), Shape.end()), IsFragment(IsFragment) {
  VarExtents Extents = getVarExtents();
  for (const IndexExpr &E : Forward) {
    IndexExpr S = simplify(E, Extents);
    auto B = computeBounds(S, Extents);
    ForwardIndex.push_back(S);
    OutputShape.push_back(B && B->Min >= 0 ? B->Max + 1 : -1);
  }
}

std::string Layout::inputVarName(unsigned Dim) {
  static const char Names[] = "ijklmnop";
  if (Dim < sizeof(Names) - 1)
    return std::string(1, Names[Dim]);
  return "x" + std::to_string(Dim);
}

IndexExpr Layout::inputVar(unsigned Dim) {
  return IndexExpr::var(inputVarName(Dim));
}

VarExtents Layout::getVarExtents() const {
  VarExtents Extents;
  for (unsigned D = 0; D < InputShape.size(); ++D)
    Extents[inputVarName(D)] = InputShape[D];
  return Extents;
}

Env Layout::bindInputs(llvm::ArrayRef<int64_t> Idx) const {
  Env Values;
  for (unsigned D = 0; D < Idx.size(); ++D)
    Values[inputVarName(D)] = Idx[D];
  return Values;
}

std::optional<Indices> Layout::forward(llvm::ArrayRef<int64_t> Idx) const {
  if (Idx.size() != InputShape.size())
    return std::nullopt;
  for (size_t D = 0; D < Idx.size(); ++D)
    if (Idx[D] < 0 || Idx[D] >= InputShape[D])
      return std::nullopt;
  Env Values = bindInputs(Idx);
  Indices Out;
  for (const IndexExpr &E : ForwardIndex) {
    auto V = evaluate(E, Values);
    if (!V)
      return std::nullopt;
    Out.push_back(*V);
  }
  return Out;
}

llvm::SmallVector<IndexExpr, 4>
Layout::forwardExprs(llvm::ArrayRef<IndexExpr> Idx,
                     const VarExtents &Extents) const {
  assert(Idx.size() == InputShape.size() && "forward: rank mismatch");
  VarMap Map;
  for (unsigned D = 0; D < Idx.size(); ++D)
    Map[inputVarName(D)] = Idx[D];
  llvm::SmallVector<IndexExpr, 4> Out;
  for (const IndexExpr &E : ForwardIndex)
    Out.push_back(simplify(substitute(E, Map), Extents));
  return Out;
}

Layout Layout::repeat(unsigned Dim, int64_t Factor) const {
  assert(Dim < InputShape.size() && Factor >= 1 && "bad repeat");
  IndexExpr X = inputVar(Dim);
  VarMap Map;
  Map[inputVarName(Dim)] = floorMod(X, InputShape[Dim]);
  llvm::SmallVector<IndexExpr, 4> Forward = {floorDiv(X, InputShape[Dim])};
  for (const IndexExpr &E : ForwardIndex)
    Forward.push_back(substitute(E, Map));
  Shape NewShape = InputShape;
  NewShape[Dim] *= Factor;
  return Layout(NewShape, Forward);
}

Layout Layout::expand(llvm::ArrayRef<int64_t> Leading) const {
  unsigned Offset = Leading.size();
  VarMap Map;
  for (unsigned D = 0; D < InputShape.size(); ++D)
    Map[inputVarName(D)] = inputVar(D + Offset);
  llvm::SmallVector<IndexExpr, 4> Forward;
  for (unsigned D = 0; D < Offset; ++D)
    Forward.push_back(inputVar(D));
  for (const IndexExpr &E : ForwardIndex)
    Forward.push_back(substitute(E, Map));
  Shape NewShape(Leading.begin(), Leading.end());
  NewShape.append(InputShape.begin(), InputShape.end());
  return Layout(NewShape, Forward);
}

VarMap Layout::reshapeMap(llvm::ArrayRef<int64_t> NewShape) const {
  IndexExpr Flat = 0;
  for (unsigned D = 0; D < NewShape.size(); ++D)
    Flat = Flat * NewShape[D] + inputVar(D);
  VarMap Map;
  int64_t Stride = 1;
  for (int D = static_cast<int>(InputShape.size()) - 1; D >= 0; --D) {
    IndexExpr Part = floorDiv(Flat, Stride);
    Map[inputVarName(D)] = D == 0 ? Part : floorMod(Part, InputShape[D]);
    Stride *= InputShape[D];
  }
  return Map;
}

std::optional<Layout> Layout::reshape(llvm::ArrayRef<int64_t> NewShape) const {
  if (shapeSize(NewShape) != shapeSize(InputShape) || NewShape.empty())
    return std::nullopt;
  VarMap Map = reshapeMap(NewShape);
  llvm::SmallVector<IndexExpr, 4> Forward;
  for (const IndexExpr &E : ForwardIndex)
    Forward.push_back(substitute(E, Map));
  return Layout(NewShape, Forward);
}

std::optional<Layout> Layout::compose(const Layout &Inner) const {
  if (Inner.getOutputShape() != getInputShape())
    return std::nullopt;
  VarMap Map;
  for (unsigned D = 0; D < InputShape.size(); ++D)
    Map[inputVarName(D)] = Inner.getForwardIndex()[D];
  llvm::SmallVector<IndexExpr, 4> Forward;
  for (const IndexExpr &E : ForwardIndex)
    Forward.push_back(substitute(E, Map));
  return Layout(Inner.getInputShape(), Forward);
}

std::optional<bool> Layout::isInjective(int64_t Limit) const {
  int64_t OutSize = shapeSize(OutputShape);
  if (shapeSize(InputShape) > Limit || OutSize < 0 || OutSize > 4 * Limit)
    return std::nullopt;
  std::vector<bool> Seen(OutSize, false);
  bool Ok = true;
  forEachIndex(InputShape, [&](llvm::ArrayRef<int64_t> Idx) {
    auto Out = Ok ? forward(Idx) : std::nullopt;
    if (!Out) {
      Ok = false;
      return;
    }
    for (size_t D = 0; D < Out->size(); ++D)
      Ok &= (*Out)[D] >= 0 && (*Out)[D] < OutputShape[D];
    if (!Ok)
      return;
    int64_t L = linearize(*Out, OutputShape);
    Ok = !Seen[L];
    Seen[L] = true;
  });
  return Ok;
}

std::optional<bool> Layout::isBijective(int64_t Limit) const {
  auto Injective = isInjective(Limit);
  if (!Injective || !*Injective)
    return Injective;
  return shapeSize(InputShape) == shapeSize(OutputShape);
}

std::optional<bool> Layout::isEquivalent(const Layout &Other,
                                         int64_t Limit) const {
  if (Other.getInputShape() != getInputShape() ||
      Other.getOutputDim() != getOutputDim())
    return false;
  if (shapeSize(InputShape) > Limit)
    return std::nullopt;
  bool Same = true;
  forEachIndex(InputShape, [&](llvm::ArrayRef<int64_t> Idx) {
    Same = Same && forward(Idx) == Other.forward(Idx);
  });
  return Same;
}

std::optional<InverseTable> Layout::inverseTable(int64_t Limit) const {
  auto Bijective = isBijective(Limit);
  if (!Bijective || !*Bijective)
    return std::nullopt;
  InverseTable T{InputShape, OutputShape, {}};
  T.Table.assign(shapeSize(InputShape), -1);
  forEachIndex(InputShape, [&](llvm::ArrayRef<int64_t> Idx) {
    T.Table[linearize(*forward(Idx), OutputShape)] =
        linearize(Idx, InputShape);
  });
  return T;
}

std::string Layout::shapeText() const {
  return joinShape(InputShape) + " -> " + joinShape(OutputShape);
}

std::string Layout::toString() const {
  llvm::SmallVector<IndexExpr, 4> Vars;
  for (unsigned D = 0; D < InputShape.size(); ++D)
    Vars.push_back(inputVar(D));
  return "Layout(" + shapeText() + ", transform: " + exprListText(Vars) +
         " -> " + exprListText(ForwardIndex) + ")";
}

Layout tilec::layout::makeLinearLayout(llvm::ArrayRef<int64_t> Shape) {
  IndexExpr Flat = 0;
  for (unsigned D = 0; D < Shape.size(); ++D)
    Flat = Flat * Shape[D] + Layout::inputVar(D);
  return Layout(Shape, {Flat});
}
