//===- HostTensors.cpp - Shapes of torch tensors in host drivers ---------===//
//
// The torch tensors a file's driver builds, as far as their shapes and
// dtypes go: factories, the methods that keep or regroup a shape,
// subscripts, broadcasting arithmetic and `@` (HostModel.h). Whatever else
// torch computes stays an unmodelled host-only value.
//
//===----------------------------------------------------------------------===//

#include "HostModel.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/MathExtras.h"

using namespace tilec;
using namespace tilec::sema;
using namespace tilec::sema::host;
using namespace tilec::ast;

namespace tilec {
namespace sema {
namespace host {

Value makeTensor(llvm::StringRef Path, std::vector<Value> Shape, Value DT,
                 bool Contiguous, std::vector<Value> Data) {
  auto M = std::make_shared<TensorModel>();
  M->Shape = std::move(Shape);
  M->DTypeV = std::move(DT);
  M->Contiguous = Contiguous;
  M->Data = std::move(Data);
  return makeHostValue(Path.str(), std::move(M));
}

/// A shape given as `f(M, K)`, `f((M, K))` or `f([M, K])` from position
/// First on, or as `size=`.
static std::optional<std::vector<Value>> shapeArgs(const CallArgs &A,
                                                   size_t First) {
  if (const Value *S = keyword(A, "size"))
    return S->isSequence() ? std::optional(S->elts()) : std::nullopt;
  if (A.Pos.size() == First + 1 && A.Pos[First].isSequence())
    return A.Pos[First].elts();
  if (A.Pos.size() <= First)
    return std::nullopt;
  return std::vector<Value>(A.Pos.begin() + First, A.Pos.end());
}

static Value dtypeKeyword(const CallArgs &A) {
  const Value *D = keyword(A, "dtype");
  return D ? *D : Value::none();
}

static std::optional<int64_t> dimIndex(const Value &V, size_t Rank) {
  if (!V.isInt())
    return std::nullopt;
  int64_t D = V.getInt() < 0 ? V.getInt() + int64_t(Rank) : V.getInt();
  if (D < 0 || D >= int64_t(Rank))
    return std::nullopt;
  return D;
}

/// torch.stack(tensors, dim) / torch.cat(tensors, dim) of tensors of
/// known shapes.
static std::optional<Value> joined(bool Stack, const CallArgs &A,
                                   llvm::StringRef Path) {
  if (!A.Pos[0].isSequence() || A.Pos[0].elts().empty())
    return std::nullopt;
  std::vector<const TensorModel *> Parts;
  for (const Value &V : A.Pos[0].elts())
    if (auto *T = hostModelOf<TensorModel>(V))
      Parts.push_back(T);
  if (Parts.size() != A.Pos[0].elts().size())
    return std::nullopt;
  const Value *DimV = A.Pos.size() > 1 ? &A.Pos[1] : keyword(A, "dim");
  size_t Rank = Parts[0]->Shape.size() + (Stack ? 1 : 0);
  auto D = DimV ? dimIndex(*DimV, Rank) : std::optional<int64_t>(0);
  if (!D)
    return std::nullopt;
  std::vector<Value> Shape = Parts[0]->Shape;
  if (Stack) {
    Shape.insert(Shape.begin() + *D, Value::integer(int64_t(Parts.size())));
    return makeTensor(Path, std::move(Shape), Parts[0]->DTypeV);
  }
  int64_t Total = 0;
  for (const TensorModel *T : Parts) {
    if (T->Shape.size() != Shape.size() || !T->Shape[*D].isInt())
      return std::nullopt;
    Total += T->Shape[*D].getInt();
  }
  Shape[*D] = Value::integer(Total);
  return makeTensor(Path, std::move(Shape), Parts[0]->DTypeV);
}

/// `torch.cumsum(t, dim)` (t's shape), `torch.gather(t, dim, index)`
/// (index's shape, t's dtype), `torch.nonzero(t)` ([count, t.dim()], the
/// count data tilec does not know).
static std::optional<Value> indexing(llvm::StringRef Fn, const CallArgs &A,
                                     llvm::StringRef Path) {
  auto *T = A.Pos.empty() ? nullptr : hostModelOf<TensorModel>(A.Pos[0]);
  if (!T)
    return std::nullopt;
  if (Fn == "cumsum") {
    Value DT = dtypeKeyword(A);
    return makeTensor(Path, T->Shape, DT.isNone() ? T->DTypeV : DT);
  }
  if (Fn == "nonzero")
    return makeTensor(Path,
                      {makeHostValue(Path.str() + ".shape[0]", nullptr),
                       Value::integer(int64_t(T->Shape.size()))},
                      Value::dtype(DType::Int64));
  const Value *Index = A.Pos.size() > 2 ? &A.Pos[2] : keyword(A, "index");
  auto *I = Index ? hostModelOf<TensorModel>(*Index) : nullptr;
  if (!I)
    return std::nullopt;
  return makeTensor(Path, I->Shape, T->DTypeV);
}

/// `torch.nn.functional.pad(t, (left, right, ...))`: pairs widen the last
/// dimensions, the last one first.
std::optional<Value> padded(const CallArgs &A, llvm::StringRef Path) {
  auto *T = A.Pos.empty() ? nullptr : hostModelOf<TensorModel>(A.Pos[0]);
  const Value *Pad = A.Pos.size() > 1 ? &A.Pos[1] : keyword(A, "pad");
  if (!T || !Pad || !Pad->isSequence() || Pad->elts().size() % 2 ||
      Pad->elts().size() / 2 > T->Shape.size())
    return std::nullopt;
  std::vector<Value> Shape = T->Shape;
  const std::vector<Value> &P = Pad->elts();
  for (size_t K = 0; K < P.size() / 2; ++K) {
    Value &D = Shape[Shape.size() - 1 - K];
    if (!P[2 * K].isInt() || !P[2 * K + 1].isInt())
      return std::nullopt;
    if (D.isInt())
      D = Value::integer(D.getInt() + P[2 * K].getInt() +
                         P[2 * K + 1].getInt());
  }
  return makeTensor(Path, std::move(Shape), T->DTypeV);
}

/// The extent of `torch.arange(start, end[, step])` over ints.
static std::optional<std::vector<Value>> rangeExtent(const CallArgs &A) {
  if (!llvm::all_of(A.Pos, [](const Value &V) { return V.isInt(); }))
    return std::nullopt;
  int64_t Lo = A.Pos[0].getInt(), Hi = A.Pos[1].getInt();
  int64_t Step = A.Pos.size() == 3 ? A.Pos[2].getInt() : 1;
  if (Step <= 0)
    return std::nullopt;
  int64_t Span;
  if (llvm::SubOverflow(Hi, Lo, Span))
    return std::nullopt;
  int64_t N = Span <= 0 ? 0 : (Span - 1) / Step + 1;
  return std::vector<Value>{Value::integer(N)};
}

/// torch.randn/rand/empty/zeros/ones(shape...), randint(lo, hi, size),
/// full(size, value), arange(n), arange(lo, hi[, step]), linspace(a, b,
/// steps), *_like(t).
std::optional<Value> torchFactory(llvm::StringRef Fn, const CallArgs &A,
                                  llvm::StringRef Path) {
  if (Fn.endswith("_like") && !A.Pos.empty()) {
    auto *T = hostModelOf<TensorModel>(A.Pos[0]);
    if (!T)
      return std::nullopt;
    Value DT = dtypeKeyword(A);
    return makeTensor(Path, T->Shape, DT.isNone() ? T->DTypeV : DT);
  }
  std::optional<std::vector<Value>> Shape;
  if (Fn == "randn" || Fn == "rand" || Fn == "empty" || Fn == "zeros" ||
      Fn == "ones")
    Shape = shapeArgs(A, 0);
  else if (Fn == "randint")
    Shape = shapeArgs(A, A.Pos.size() >= 3 ? 2 : 1);
  else if (Fn == "full" && !A.Pos.empty() && A.Pos[0].isSequence())
    Shape = A.Pos[0].elts();
  else if ((Fn == "arange" || Fn == "randperm") && A.Pos.size() == 1)
    Shape = std::vector<Value>{A.Pos[0]};
  else if (Fn == "arange" && A.Pos.size() <= 3)
    Shape = rangeExtent(A);
  else if (Fn == "linspace" && keyword(A, "steps"))
    Shape = std::vector<Value>{*keyword(A, "steps")};
  else if (Fn == "linspace" && A.Pos.size() >= 3)
    Shape = std::vector<Value>{A.Pos[2]};
  else if ((Fn == "stack" || Fn == "cat") && !A.Pos.empty())
    return joined(Fn == "stack", A, Path);
  else if (Fn == "tensor")
    return tensorOfData(A, Path);
  else if (Fn == "cumsum" || Fn == "gather" || Fn == "nonzero")
    return indexing(Fn, A, Path);
  if (!Shape)
    return std::nullopt;
  return makeTensor(Path, std::move(*Shape), dtypeKeyword(A));
}

/// The dtype named by a `.to(...)` argument, or None for a device.
static Value dtypeArg(const Value &V) {
  return V.isDType() || namedDType(V) ? V : Value::none();
}

/// `t.view(*shape)` / `t.reshape(*shape)`, resolving one -1.
static std::optional<Value> reshaped(const TensorModel &T, const CallArgs &A,
                                     llvm::StringRef Path) {
  auto Shape = shapeArgs(A, 0);
  if (!Shape)
    return std::nullopt;
  int64_t Known = 1, Total = 1;
  int Hole = -1;
  for (size_t K = 0; K < Shape->size(); ++K) {
    if ((*Shape)[K].isInt() && (*Shape)[K].getInt() == -1)
      Hole = int(K);
    else if ((*Shape)[K].isInt())
      Known *= (*Shape)[K].getInt();
  }
  bool AllInts =
      llvm::all_of(T.Shape, [](const Value &V) { return V.isInt(); });
  for (const Value &V : T.Shape)
    Total *= AllInts ? V.getInt() : 1;
  if (Hole >= 0)
    (*Shape)[Hole] = AllInts && Known > 0
                         ? Value::integer(Total / Known)
                         : makeHostValue(Path.str() + ".shape[-1]", nullptr);
  return makeTensor(Path, std::move(*Shape), T.DTypeV, T.Contiguous,
                    T.Contiguous ? T.Data : std::vector<Value>());
}

static std::optional<Value> permuted(const TensorModel &T, const CallArgs &A,
                                     llvm::StringRef Path) {
  auto Dims = shapeArgs(A, 0);
  if (!Dims || Dims->size() != T.Shape.size())
    return std::nullopt;
  std::vector<Value> Shape;
  for (const Value &D : *Dims) {
    auto K = dimIndex(D, T.Shape.size());
    if (!K)
      return std::nullopt;
    Shape.push_back(T.Shape[*K]);
  }
  return makeTensor(Path, std::move(Shape), T.DTypeV, false);
}

static std::optional<Value> transposed(const TensorModel &T, const CallArgs &A,
                                       llvm::StringRef Path) {
  if (A.Pos.size() != 2)
    return std::nullopt;
  auto D0 = dimIndex(A.Pos[0], T.Shape.size());
  auto D1 = dimIndex(A.Pos[1], T.Shape.size());
  if (!D0 || !D1)
    return std::nullopt;
  std::vector<Value> Shape = T.Shape;
  std::swap(Shape[*D0], Shape[*D1]);
  return makeTensor(Path, std::move(Shape), T.DTypeV, false);
}

/// `t.unsqueeze(d)`, `t.squeeze(d)`, `t.flatten(s, e)`, `t.expand(...)`.
static std::optional<Value> regrouped(const TensorModel &T,
                                      llvm::StringRef Name, const CallArgs &A,
                                      llvm::StringRef Path) {
  std::vector<Value> Shape = T.Shape;
  size_t Rank = Shape.size();
  if (Name == "unsqueeze" && A.Pos.size() == 1) {
    auto D = dimIndex(A.Pos[0], Rank + 1);
    if (!D)
      return std::nullopt;
    Shape.insert(Shape.begin() + *D, Value::integer(1));
  } else if (Name == "squeeze" && A.Pos.size() == 1) {
    auto D = dimIndex(A.Pos[0], Rank);
    if (!D || !Shape[*D].isInt())
      return std::nullopt;
    if (Shape[*D].getInt() == 1)
      Shape.erase(Shape.begin() + *D);
  } else if (Name == "flatten") {
    auto S = dimIndex(A.Pos.size() > 0 ? A.Pos[0] : Value::integer(0), Rank);
    auto E = dimIndex(A.Pos.size() > 1 ? A.Pos[1] : Value::integer(-1), Rank);
    if (!S || !E || *S > *E)
      return std::nullopt;
    int64_t N = 1;
    bool Known = true;
    for (int64_t K = *S; K <= *E; ++K) {
      Known &= Shape[K].isInt();
      if (Known && llvm::MulOverflow(N, Shape[K].getInt(), N))
        return std::nullopt;
    }
    Value Merged = Known ? Value::integer(N)
                         : makeHostValue(Path.str() + ".shape", nullptr);
    Shape.erase(Shape.begin() + *S, Shape.begin() + *E + 1);
    Shape.insert(Shape.begin() + *S, Merged);
  } else if (Name == "expand") {
    auto Sizes = shapeArgs(A, 0);
    if (!Sizes || Sizes->size() != Rank)
      return std::nullopt;
    for (size_t K = 0; K < Rank; ++K)
      if (!((*Sizes)[K].isInt() && (*Sizes)[K].getInt() == -1))
        Shape[K] = (*Sizes)[K];
  } else {
    return std::nullopt;
  }
  // unsqueeze, squeeze and flatten keep a dense layout; expand does not.
  bool Dense = T.Contiguous && Name != "expand";
  return makeTensor(Path, std::move(Shape), T.DTypeV, Dense,
                    Dense ? T.Data : std::vector<Value>());
}

static std::optional<Value> sized(const TensorModel &T, const CallArgs &A) {
  if (A.Pos.empty())
    return Value::tuple(T.Shape);
  auto D = dimIndex(A.Pos[0], T.Shape.size());
  return D ? std::optional(T.Shape[*D]) : std::nullopt;
}

/// `.half()`, `.float()`, ...: the dtype the conversion method names.
static std::optional<DType> conversionDType(llvm::StringRef Name) {
  return llvm::StringSwitch<std::optional<DType>>(Name)
      .Case("half", DType::Float16)
      .Case("float", DType::Float32)
      .Case("double", DType::Float64)
      .Case("bfloat16", DType::BFloat16)
      .Case("int", DType::Int32)
      .Case("long", DType::Int64)
      .Case("bool", DType::Bool)
      .Default(std::nullopt);
}

static bool keepsShape(llvm::StringRef Name) {
  return llvm::StringSwitch<bool>(Name)
      .Cases("cuda", "cpu", "contiguous", "clone", "detach", true)
      .Cases("requires_grad_", "normal_", "uniform_", "zero_", "fill_", true)
      .Cases("random_", "clamp", "clamp_", "abs", "exp", "sqrt", true)
      .Cases("mul", "mul_", "add", "add_", "div", "div_", "neg", true)
      .Default(false);
}

/// `t.sum(dim, keepdim=False, dtype=None)` and the like over one dimension.
static std::optional<Value> reducedOver(const TensorModel &T, const CallArgs &A,
                                        llvm::StringRef Path) {
  const Value *DimV = A.Pos.empty() ? keyword(A, "dim") : &A.Pos[0];
  auto D = DimV ? dimIndex(*DimV, T.Shape.size()) : std::nullopt;
  if (!D)
    return std::nullopt;
  const Value *Keep = keyword(A, "keepdim");
  std::vector<Value> Shape = T.Shape;
  if (Keep && Keep->isBool() && Keep->getInt())
    Shape[*D] = Value::integer(1);
  else
    Shape.erase(Shape.begin() + *D);
  Value DT = dtypeKeyword(A);
  return makeTensor(Path, std::move(Shape), DT.isNone() ? T.DTypeV : DT);
}

/// `t.sort(dim=-1)` and `t.topk(k, dim=-1)`: (values, indices).
static std::optional<Value> ordered(const TensorModel &T, llvm::StringRef Name,
                                    const CallArgs &A, llvm::StringRef Path) {
  std::vector<Value> Shape = T.Shape;
  if (Name == "topk") {
    const Value *K = A.Pos.empty() ? keyword(A, "k") : &A.Pos[0];
    const Value *DimV = A.Pos.size() > 1 ? &A.Pos[1] : keyword(A, "dim");
    auto D = dimIndex(DimV ? *DimV : Value::integer(-1), Shape.size());
    if (!K || !D)
      return std::nullopt;
    Shape[*D] = *K;
  }
  return Value::tuple(
      {makeTensor(Path.str() + "[0]", Shape, T.DTypeV),
       makeTensor(Path.str() + "[1]", Shape, Value::dtype(DType::Int64))});
}

/// The methods tensorMethod models.
static bool isTensorMethod(llvm::StringRef Name) {
  return keepsShape(Name) || conversionDType(Name) ||
         llvm::StringSwitch<bool>(Name)
             .Cases("to", "view", "reshape", "permute", "transpose", true)
             .Cases("size", "dim", "unsqueeze", "squeeze", "flatten", true)
             .Case("expand", true)
             .Cases("numel", "item", "tolist", "stride", "is_contiguous", true)
             .Cases("sum", "max", "min", "mean", "sort", "topk", true)
             .Cases("amax", "amin", true)
             .Default(false);
}

std::optional<Value> tensorMethod(const Value &Self, const TensorModel &T,
                                  llvm::StringRef Name, const CallArgs &A) {
  std::string Path = Self.getAs<OpaqueObj>()->Path + "." + Name.str() + "()";
  if (auto R = dataMethod(T, Name, A, Path))
    return R;
  if (keepsShape(Name)) {
    // Copies are dense; in-place and elementwise methods keep the layout.
    bool Dense = T.Contiguous || Name == "contiguous" || Name == "clone";
    bool SameData = llvm::StringSwitch<bool>(Name)
                        .Cases("cuda", "cpu", "contiguous", "clone", true)
                        .Cases("detach", "requires_grad_", true)
                        .Default(false);
    return makeTensor(Path, T.Shape, T.DTypeV, Dense,
                      SameData ? T.Data : std::vector<Value>());
  }
  if (auto DT = conversionDType(Name))
    return makeTensor(Path, T.Shape, Value::dtype(*DT), T.Contiguous,
                      convertData(T.Data, Value::dtype(*DT)));
  if (Name == "to") {
    Value DT = dtypeKeyword(A);
    for (const Value &V : A.Pos)
      if (DT.isNone())
        DT = dtypeArg(V);
    return makeTensor(Path, T.Shape, DT.isNone() ? T.DTypeV : DT, T.Contiguous,
                      convertData(T.Data, DT));
  }
  if (Name == "view" || Name == "reshape")
    return reshaped(T, A, Path);
  if (Name == "permute")
    return permuted(T, A, Path);
  if (Name == "transpose")
    return transposed(T, A, Path);
  if (Name == "size")
    return sized(T, A);
  if (Name == "unsqueeze" || Name == "squeeze" || Name == "flatten" ||
      Name == "expand")
    return regrouped(T, Name, A, Path);
  if (Name == "dim")
    return Value::integer(int64_t(T.Shape.size()));
  if (Name == "sort" || Name == "topk")
    return ordered(T, Name, A, Path);
  if (Name == "sum" || Name == "mean" || Name == "amax" || Name == "amin")
    return reducedOver(T, A, Path);
  return std::nullopt;
}

std::optional<Value> tensorAttribute(const Value &Self, const TensorModel &T,
                                     llvm::StringRef Attr) {
  if (Attr == "shape")
    return Value::tuple(T.Shape);
  if (Attr == "ndim")
    return Value::integer(int64_t(T.Shape.size()));
  if (Attr == "dtype" && !T.DTypeV.isNone())
    return T.DTypeV;
  if (Attr == "T" && T.Shape.size() == 2)
    return makeTensor(Self.getAs<OpaqueObj>()->Path + ".T",
                      {T.Shape[1], T.Shape[0]}, T.DTypeV, false);
  if (isTensorMethod(Attr))
    return methodOf(Self, Attr);
  return std::nullopt;
}

/// The extent of `lo:hi:step` over a dimension of extent N (Python's
/// slice.indices), for positive steps.
static std::optional<int64_t> sliceExtent(const Value &Lo, const Value &Hi,
                                          const Value &Step, int64_t N) {
  int64_t St = Step.isNone() ? 1 : Step.isInt() ? Step.getInt() : 0;
  if (St <= 0 || !(Lo.isNone() || Lo.isInt()) || !(Hi.isNone() || Hi.isInt()))
    return std::nullopt;
  auto Clamp = [&](const Value &V, int64_t Default) {
    if (V.isNone())
      return Default;
    int64_t X = V.getInt() < 0 ? V.getInt() + N : V.getInt();
    return std::clamp<int64_t>(X, 0, N);
  };
  int64_t L = Clamp(Lo, 0), H = Clamp(Hi, N);
  return H <= L ? 0 : (H - L + St - 1) / St;
}

/// One index of a tensor subscript applied at dimension *D of T into Out;
/// false when the result's shape is unknown.
static bool applyIndex(Interp &I, const TensorModel &T, const Expr *E,
                       size_t &D, std::vector<Value> &Out, bool &Gathered) {
  if (llvm::isa<NoneLitExpr>(E)) {
    Out.push_back(Value::integer(1));
    return true;
  }
  if (D >= T.Shape.size())
    return false;
  if (auto *S = llvm::dyn_cast<SliceExpr>(E)) {
    auto Bound = [&](const ExprPtr &B) {
      return B ? I.eval(B.get()) : Value();
    };
    const Value &N = T.Shape[D++];
    bool Whole = !S->Lower && !S->Upper && !S->Step;
    if (Whole || !N.isInt()) {
      Out.push_back(Whole ? N : makeHostValue("slice", nullptr));
      return true;
    }
    auto X = sliceExtent(Bound(S->Lower), Bound(S->Upper), Bound(S->Step),
                         N.getInt());
    Out.push_back(X ? Value::integer(*X) : makeHostValue("slice", nullptr));
    return true;
  }
  ++D;
  Value Idx = I.eval(E);
  if (Idx.isInt())
    return true;
  // One integer tensor index gathers along this dimension: its shape
  // takes the dimension's place. Masks and several such indices are data
  // or broadcasting tilec does not model.
  auto *T2 = hostModelOf<TensorModel>(Idx);
  std::optional<DType> DT = T2 && T2->DTypeV.isDType()
                                ? std::optional(T2->DTypeV.getDType())
                            : T2 ? namedDType(T2->DTypeV)
                                 : std::nullopt;
  if (!T2 || Gathered || (DT && isBool(*DT)))
    return false;
  Gathered = true;
  Out.insert(Out.end(), T2->Shape.begin(), T2->Shape.end());
  return true;
}

/// Numpy broadcasting of two shapes; nullopt when an extent is unknown.
static std::optional<std::vector<Value>>
broadcast(const std::vector<Value> &A, const std::vector<Value> &B) {
  size_t N = std::max(A.size(), B.size());
  std::vector<Value> Out(N);
  for (size_t K = 0; K < N; ++K) {
    const Value *X = K < N - A.size() ? nullptr : &A[K - (N - A.size())];
    const Value *Y = K < N - B.size() ? nullptr : &B[K - (N - B.size())];
    auto IsOne = [](const Value *V) {
      return !V || (V->isInt() && V->getInt() == 1);
    };
    if (IsOne(X))
      Out[K] = Y ? *Y : *X;
    else if (IsOne(Y) || equals(*X, *Y))
      Out[K] = *X;
    else
      return std::nullopt;
  }
  return Out;
}

/// `a @ b`: batch dimensions broadcast, [.., n, k] @ [.., k, m].
static std::optional<std::vector<Value>>
matmulShape(const std::vector<Value> &A, const std::vector<Value> &B) {
  if (A.size() < 2 || B.size() < 2)
    return std::nullopt;
  auto Batch = broadcast({A.begin(), A.end() - 2}, {B.begin(), B.end() - 2});
  if (!Batch)
    return std::nullopt;
  Batch->push_back(A[A.size() - 2]);
  Batch->push_back(B.back());
  return Batch;
}

} // namespace host
} // namespace sema
} // namespace tilec

std::optional<Value> sema::hostElementwise(const Value &L, const Value &R,
                                           bool MatMul, bool Compare,
                                           llvm::SMRange Whole) {
  auto *TL = hostModelOf<TensorModel>(L);
  auto *TR = hostModelOf<TensorModel>(R);
  if (!TL && !TR)
    return std::nullopt;
  if ((!TL && !L.isNumber()) || (!TR && !R.isNumber()))
    return std::nullopt;
  std::vector<Value> None;
  const std::vector<Value> &A = TL ? TL->Shape : None;
  const std::vector<Value> &B = TR ? TR->Shape : None;
  auto Shape = MatMul ? matmulShape(A, B) : broadcast(A, B);
  if (!Shape)
    return std::nullopt;
  Value DT = Compare ? Value::dtype(DType::Bool) : (TL ? TL : TR)->DTypeV;
  bool Dense = (!TL || TL->Contiguous) && (!TR || TR->Contiguous);
  return makeTensor(exprText(Whole), std::move(*Shape), DT, Dense);
}

std::optional<Value> sema::hostSubscript(Interp &I, const Value &Base,
                                         const Expr *Index) {
  auto *T = hostModelOf<TensorModel>(Base);
  if (!T)
    return std::nullopt;
  std::string Path = Base.getAs<OpaqueObj>()->Path + "[...]";
  if (auto R = dataSubscript(I, *T, Index, Path))
    return R;
  std::vector<const Expr *> Items;
  if (auto *Tup = llvm::dyn_cast<TupleExpr>(Index))
    for (const ExprPtr &E : Tup->Elts)
      Items.push_back(E.get());
  else
    Items.push_back(Index);
  std::vector<Value> Shape;
  size_t D = 0;
  bool Gathered = false;
  for (size_t K = 0; K < Items.size(); ++K) {
    if (llvm::isa<EllipsisExpr>(Items[K])) {
      size_t Rest = 0;
      for (size_t J = K + 1; J < Items.size(); ++J)
        Rest += !llvm::isa<NoneLitExpr>(Items[J]);
      for (; D + Rest < T->Shape.size(); ++D)
        Shape.push_back(T->Shape[D]);
      continue;
    }
    if (!applyIndex(I, *T, Items[K], D, Shape, Gathered))
      return std::nullopt;
  }
  Shape.insert(Shape.end(), T->Shape.begin() + std::min(D, T->Shape.size()),
               T->Shape.end());
  return makeTensor(Path, std::move(Shape), T->DTypeV, false);
}
