//===- HostTensorData.cpp - Torch tensors of known elements --------------===//
//
// Some drivers compute kernel arguments from a small tensor they build from
// known numbers: `cache_seqlens = torch.tensor([...])` then
// `max_seqlen = cache_seqlens.max().item()`, or `cu = torch.tensor([0,
// *itertools.accumulate(lengths)])` then `cu.numel() - 1`. A TensorModel
// keeps such elements (HostModel.h) through conversions, + - *, one-index
// subscripts and slices of one-dimensional tensors, and the reductions and
// reads below; anything else drops them, and the values that depend on
// them stay host-only. Strides are answered for tensors known to be
// contiguous (`x.stride(-1) != 1` guards in drivers).
//
//===----------------------------------------------------------------------===//

#include "HostModel.h"
#include "llvm/Support/MathExtras.h"
#include <cmath>

using namespace tilec;
using namespace tilec::sema;
using namespace tilec::sema::host;
using namespace tilec::ast;

/// Tensors of known elements stay small: a driver's length tables.
static constexpr size_t MaxElements = 1 << 16;

/// Flattens nested lists of numbers into Out and their extents into Shape;
/// false for ragged or non-numeric data.
static bool flatten(const Value &V, size_t Depth, std::vector<Value> &Shape,
                    std::vector<Value> &Out) {
  if (V.isNumber()) {
    Out.push_back(V.isBool() ? Value::integer(V.getInt()) : V);
    return Depth == Shape.size();
  }
  if (!V.isSequence() || Out.size() > MaxElements)
    return false;
  int64_t N = int64_t(V.elts().size());
  if (Depth == Shape.size())
    Shape.push_back(Value::integer(N));
  else if (Shape[Depth].getInt() != N)
    return false;
  return llvm::all_of(V.elts(), [&](const Value &E) {
    return flatten(E, Depth + 1, Shape, Out);
  });
}

/// V as an int, when it fits.
static Value truncated(double V) {
  bool Fits = std::isfinite(V) && std::fabs(V) < 9.2e18;
  return Fits ? Value::integer(int64_t(V)) : Value::real(V);
}

/// True, false or unknown: whether dtype DT holds integers.
static std::optional<bool> integralDType(const Value &DT) {
  std::optional<DType> D =
      DT.isDType() ? std::optional(DT.getDType()) : namedDType(DT);
  if (!D)
    return std::nullopt;
  return isInteger(*D) || isBool(*D);
}

std::vector<Value> host::convertData(const std::vector<Value> &Data,
                                     const Value &DT) {
  std::optional<bool> Integral = integralDType(DT);
  if (!Integral)
    return Data;
  std::vector<Value> Out;
  for (const Value &V : Data)
    Out.push_back(*Integral ? truncated(V.getNumber())
                            : Value::real(V.getNumber()));
  return Out;
}

std::optional<Value> host::tensorOfData(const CallArgs &A,
                                        llvm::StringRef Path) {
  if (A.Pos.empty())
    return std::nullopt;
  std::vector<Value> Shape, Data;
  if (!flatten(A.Pos[0], 0, Shape, Data) || Data.empty())
    return std::nullopt;
  const Value *DT = keyword(A, "dtype");
  Value DType = DT ? *DT : Value::none();
  if (DT)
    Data = convertData(Data, *DT);
  return makeTensor(Path, std::move(Shape), std::move(DType), true,
                    std::move(Data));
}

/// Row-major strides of a shape of known extents.
static std::optional<std::vector<Value>> stridesOf(const TensorModel &T) {
  std::vector<Value> Out(T.Shape.size());
  int64_t S = 1;
  for (size_t K = T.Shape.size(); K-- > 0;) {
    if (!T.Shape[K].isInt())
      return std::nullopt;
    Out[K] = Value::integer(S);
    S *= std::max<int64_t>(T.Shape[K].getInt(), 1);
  }
  return Out;
}

static std::optional<int64_t> numel(const TensorModel &T) {
  int64_t N = 1;
  for (const Value &V : T.Shape) {
    if (!V.isInt())
      return std::nullopt;
    N *= V.getInt();
  }
  return N;
}

/// `t.sum()`, `t.max()`, `t.min()`, `t.mean()` over all elements: a
/// zero-dimensional tensor.
static std::optional<Value> reduced(const TensorModel &T, llvm::StringRef Name,
                                    llvm::StringRef Path) {
  if (T.Data.empty())
    return std::nullopt;
  bool Floats =
      llvm::any_of(T.Data, [](const Value &V) { return V.isFloat(); });
  double Acc = Name == "max" || Name == "min" ? T.Data[0].getNumber() : 0;
  for (const Value &V : T.Data) {
    double X = V.getNumber();
    Acc = Name == "max"   ? std::max(Acc, X)
          : Name == "min" ? std::min(Acc, X)
                          : Acc + X;
  }
  if (Name == "mean") {
    Acc /= double(T.Data.size());
    Floats = true;
  }
  Value R = Floats ? Value::real(Acc) : truncated(Acc);
  return makeTensor(Path, {}, T.DTypeV, true, {R});
}

/// `t.tolist()`: nested lists of the elements.
static Value nested(const TensorModel &T, size_t Dim, size_t &Next) {
  if (Dim == T.Shape.size())
    return T.Data[Next++];
  std::vector<Value> Items;
  for (int64_t K = 0; K < T.Shape[Dim].getInt(); ++K)
    Items.push_back(nested(T, Dim + 1, Next));
  return Value::list(std::move(Items));
}

std::optional<Value> host::dataMethod(const TensorModel &T,
                                      llvm::StringRef Name, const CallArgs &A,
                                      llvm::StringRef Path) {
  if (Name == "numel") {
    auto N = numel(T);
    return N ? std::optional(Value::integer(*N)) : std::nullopt;
  }
  if (Name == "is_contiguous")
    return T.Contiguous ? std::optional(Value::boolean(true)) : std::nullopt;
  if (Name == "stride") {
    auto S = T.Contiguous ? stridesOf(T) : std::nullopt;
    if (!S || A.Pos.empty())
      return S ? std::optional(Value::tuple(*S)) : std::nullopt;
    if (!A.Pos[0].isInt())
      return std::nullopt;
    int64_t D = A.Pos[0].getInt();
    D += D < 0 ? int64_t(S->size()) : 0;
    if (D < 0 || D >= int64_t(S->size()))
      return std::nullopt;
    return (*S)[D];
  }
  if (!A.Pos.empty() || !A.Kw.empty())
    return std::nullopt;
  if (Name == "item" && T.Data.size() == 1)
    return T.Data[0];
  if (Name == "tolist" && !T.Data.empty()) {
    size_t Next = 0;
    return nested(T, 0, Next);
  }
  if (Name == "sum" || Name == "max" || Name == "min" || Name == "mean")
    return reduced(T, Name, Path);
  return std::nullopt;
}

std::optional<Value> host::dataSubscript(Interp &I, const TensorModel &T,
                                         const Expr *Index,
                                         llvm::StringRef Path) {
  if (T.Shape.size() != 1 || T.Data.empty())
    return std::nullopt;
  int64_t N = int64_t(T.Data.size());
  if (auto *S = llvm::dyn_cast<SliceExpr>(Index)) {
    if (S->Step)
      return std::nullopt;
    auto Bound = [&](const ExprPtr &B,
                     int64_t Default) -> std::optional<int64_t> {
      if (!B)
        return Default;
      Value V = I.eval(B.get());
      if (!V.isInt())
        return std::nullopt;
      int64_t X = V.getInt() < 0 ? V.getInt() + N : V.getInt();
      return std::clamp<int64_t>(X, 0, N);
    };
    auto Lo = Bound(S->Lower, 0), Hi = Bound(S->Upper, N);
    if (!Lo || !Hi)
      return std::nullopt;
    std::vector<Value> Data;
    for (int64_t K = *Lo; K < *Hi; ++K)
      Data.push_back(T.Data[K]);
    int64_t Len = int64_t(Data.size());
    return makeTensor(Path, {Value::integer(Len)}, T.DTypeV, true,
                      std::move(Data));
  }
  Value V = I.eval(Index);
  if (!V.isInt())
    return std::nullopt;
  int64_t K = V.getInt() < 0 ? V.getInt() + N : V.getInt();
  if (K < 0 || K >= N)
    return std::nullopt;
  return makeTensor(Path, {}, T.DTypeV, true, {T.Data[K]});
}

/// The elements of a tensor operand, or a number repeated N times.
static std::optional<std::vector<Value>> operandData(const Value &V, size_t N) {
  if (V.isNumber() && !V.isBool())
    return std::vector<Value>(N, V);
  auto *T = hostModelOf<TensorModel>(V);
  if (!T || T->Data.size() != N)
    return std::nullopt;
  return T->Data;
}

std::optional<Value> sema::hostDataBinary(BinaryOp Op, const Value &L,
                                          const Value &R, llvm::SMRange Whole) {
  if (Op != BinaryOp::Add && Op != BinaryOp::Sub && Op != BinaryOp::Mul)
    return std::nullopt;
  auto *TL = hostModelOf<TensorModel>(L);
  auto *TR = hostModelOf<TensorModel>(R);
  const TensorModel *Shaped = TL ? TL : TR;
  if (!Shaped || Shaped->Data.empty() ||
      (TL && TR &&
       !std::equal(TL->Shape.begin(), TL->Shape.end(), TR->Shape.begin(),
                   TR->Shape.end(), equals)))
    return std::nullopt;
  auto A = operandData(L, Shaped->Data.size());
  auto B = operandData(R, Shaped->Data.size());
  if (!A || !B)
    return std::nullopt;
  std::vector<Value> Out;
  for (size_t K = 0; K < A->size(); ++K) {
    const Value &X = (*A)[K], &Y = (*B)[K];
    if (X.isInt() && Y.isInt()) {
      int64_t P = X.getInt(), Q = Y.getInt(), Res;
      bool Overflow = Op == BinaryOp::Add   ? llvm::AddOverflow(P, Q, Res)
                      : Op == BinaryOp::Sub ? llvm::SubOverflow(P, Q, Res)
                                            : llvm::MulOverflow(P, Q, Res);
      if (Overflow)
        return std::nullopt;
      Out.push_back(Value::integer(Res));
      continue;
    }
    double P = X.getNumber(), Q = Y.getNumber();
    Out.push_back(Value::real(Op == BinaryOp::Add   ? P + Q
                              : Op == BinaryOp::Sub ? P - Q
                                                    : P * Q));
  }
  return makeTensor(exprText(Whole), Shaped->Shape, Shaped->DTypeV, true,
                    std::move(Out));
}
