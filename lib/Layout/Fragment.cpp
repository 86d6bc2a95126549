//===- Fragment.cpp - Register-tile layouts over threads ------------------===//

#include "tilec/Layout/Layout.h"
#include "tilec/Layout/Simplify.h"
#include <cassert>

using namespace tilec::layout;

//===----------------------------------------------------------------------===//
// Fragment
//===----------------------------------------------------------------------===//

IndexExpr Fragment::replicateVar() { return IndexExpr::var("rep"); }

Fragment::Fragment(llvm::ArrayRef<int64_t> InputShape,
                   llvm::ArrayRef<IndexExpr> ForwardIndex,
                   IndexExpr Thread, int64_t ReplicateSize)
    : Layout(InputShape, ForwardIndex, true), ReplicateSize(ReplicateSize) {
  assert(ReplicateSize >= 1 && "replicate size must be positive");
  VarExtents Extents = getVarExtents();
  Extents["rep"] = ReplicateSize;
  ForwardThread = simplify(Thread, Extents);
  auto B = computeBounds(ForwardThread, Extents);
  ThreadExtent = B && B->Min >= 0 ? B->Max + 1 : -1;
}

std::optional<int64_t> Fragment::forwardThread(llvm::ArrayRef<int64_t> Idx,
                                               int64_t Rep) const {
  if (!forward(Idx) || Rep < 0 || Rep >= ReplicateSize)
    return std::nullopt;
  Env Values = bindInputs(Idx);
  Values["rep"] = Rep;
  return evaluate(ForwardThread, Values);
}

Fragment Fragment::bindThreadRange(int64_t Begin, int64_t Extent) const {
  Fragment F = *this;
  F.Range = ThreadRange{Begin, Extent};
  return F;
}

bool Fragment::isFullyReplicated() const {
  return structurallyEqual(ForwardThread, replicateVar());
}

Fragment Fragment::fullyReplicated(llvm::ArrayRef<int64_t> Shape,
                                   int64_t Threads) {
  return Fragment(Shape, {}, replicateVar(), Threads)
      .bindThreadRange(0, Threads);
}

std::optional<Fragment>
Fragment::reshape(llvm::ArrayRef<int64_t> NewShape) const {
  if (shapeSize(NewShape) != shapeSize(InputShape) || NewShape.empty())
    return std::nullopt;
  VarMap Map = reshapeMap(NewShape);
  llvm::SmallVector<IndexExpr, 4> Forward;
  for (const IndexExpr &E : ForwardIndex)
    Forward.push_back(substitute(E, Map));
  Fragment F(NewShape, Forward, substitute(ForwardThread, Map),
             ReplicateSize);
  F.Range = Range;
  return F;
}

Layout Fragment::asThreadLayout() const {
  Shape In = InputShape;
  VarMap Map;
  Map["rep"] = 0;
  if (ReplicateSize > 1) {
    Map["rep"] = inputVar(In.size());
    In.push_back(ReplicateSize);
  }
  llvm::SmallVector<IndexExpr, 4> Out(ForwardIndex.begin(),
                                      ForwardIndex.end());
  Out.push_back(substitute(ForwardThread, Map));
  return Layout(In, Out);
}

std::optional<bool> Fragment::isBijective(int64_t Limit) const {
  return asThreadLayout().isBijective(Limit);
}

std::optional<Layout> Fragment::inverse() const {
  return asThreadLayout().inverse();
}

std::string Fragment::toString() const {
  std::string S = "Fragment(" + shapeText() +
                  ", replicate: " + std::to_string(ReplicateSize) +
                  ", thread: " + std::to_string(ThreadExtent) +
                  ", forward_thread: " + tilec::layout::toString(ForwardThread) +
                  ", forward_index: " + exprListText(ForwardIndex);
  if (Range)
    S += ", thread_range: [" + std::to_string(Range->Begin) + ", " +
         std::to_string(Range->Begin + Range->Extent) + ")";
  return S + ")";
}

Fragment Fragment::repeat(llvm::ArrayRef<int64_t> Repeats,
                          bool RepeatOnThread, bool LowerDimFirst) const {
  unsigned Rank = InputShape.size();
  assert(Repeats.size() == Rank && "one repeat count per dimension");
  assert((RepeatOnThread || getOutputDim() == 1) &&
         "register repeat needs a one-dimensional register index");
  VarMap Map;
  Shape NewShape;
  for (unsigned D = 0; D < Rank; ++D) {
    NewShape.push_back(InputShape[D] * Repeats[D]);
    Map[inputVarName(D)] = floorMod(inputVar(D), InputShape[D]);
  }
  IndexExpr Tile = 0;
  int64_t Stride = 1;
  for (unsigned K = 0; K < Rank; ++K) {
    unsigned D = LowerDimFirst ? Rank - 1 - K : K;
    Tile = Tile + floorDiv(inputVar(D), InputShape[D]) * Stride;
    Stride *= Repeats[D];
  }
  llvm::SmallVector<IndexExpr, 4> Forward;
  for (const IndexExpr &E : ForwardIndex)
    Forward.push_back(substitute(E, Map));
  IndexExpr Thread = substitute(ForwardThread, Map);
  if (RepeatOnThread)
    Thread = Thread + Tile * ThreadExtent;
  else
    Forward[0] = Forward[0] + Tile * OutputShape[0];
  return Fragment(NewShape, Forward, Thread, ReplicateSize);
}

Fragment Fragment::replicate(int64_t Factor) const {
  assert(Factor >= 1 && "replicate factor must be positive");
  VarMap Map;
  IndexExpr Rep = replicateVar();
  Map["rep"] = floorMod(Rep, ReplicateSize);
  IndexExpr Thread = substitute(ForwardThread, Map) +
                     floorDiv(Rep, ReplicateSize) * ThreadExtent;
  return Fragment(InputShape, ForwardIndex, Thread, ReplicateSize * Factor);
}
