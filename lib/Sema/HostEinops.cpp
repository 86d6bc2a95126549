//===- HostEinops.cpp - einops patterns on modelled tensors --------------===//
//
// Drivers reshape their inputs with einops: `rearrange(q, "b (n c) h d ->
// b h n c d", c=64)`, `repeat(torch.arange(topk), "k -> s k", s=S)`,
// `reduce(x, "b h n -> b n", "sum")`. The shape of the result follows from
// the pattern, the input's shape and the axis sizes given by keyword: each
// input group's extent is the product of its axes (one unknown axis is
// solved for), each output group's extent is the product of its axes. An
// extent that depends on unknown data stays host-only; a pattern this
// reading does not cover leaves the result unmodelled.
//
//===----------------------------------------------------------------------===//

#include "HostModel.h"
#include "llvm/Support/MathExtras.h"

using namespace tilec;
using namespace tilec::sema;
using namespace tilec::sema::host;

namespace {

/// One side of a pattern: its groups, each a list of axis names ("..." is
/// the ellipsis, "(...)" the ellipsis inside a group, which merges its
/// dimensions; a number is an anonymous axis of that size).
using Side = std::vector<std::vector<std::string>>;

std::optional<Side> parseSide(llvm::StringRef S) {
  Side Out;
  bool InGroup = false;
  while (true) {
    S = S.ltrim();
    if (S.empty())
      break;
    if (S.front() == '(' || S.front() == ')') {
      if (InGroup == (S.front() == '('))
        return std::nullopt;
      InGroup = S.front() == '(';
      if (InGroup)
        Out.emplace_back();
      S = S.drop_front();
      continue;
    }
    size_t N = S.find_first_of(" ()");
    llvm::StringRef Name = S.take_front(N);
    S = S.drop_front(Name.size());
    if (InGroup)
      Out.back().push_back(Name == "..." ? "(...)" : Name.str());
    else
      Out.push_back({Name.str()});
  }
  if (InGroup)
    return std::nullopt;
  return Out;
}

/// Axis sizes: an int, or a host-only value when unknown.
using Sizes = llvm::StringMap<Value>;

std::optional<int64_t> literalSize(llvm::StringRef Axis) {
  int64_t N;
  if (Axis.getAsInteger(10, N))
    return std::nullopt;
  return N;
}

/// Binds the axes of the input side to sizes read off Shape; false when
/// the pattern does not fit the shape.
bool bindInput(const Side &In, const std::vector<Value> &Shape, Sizes &S) {
  size_t Ellipsis = In.size();
  for (size_t K = 0; K < In.size(); ++K)
    if (In[K].size() == 1 && In[K][0] == "...")
      Ellipsis = K;
  bool HasEllipsis = Ellipsis < In.size();
  if (HasEllipsis ? Shape.size() + 1 < In.size() : Shape.size() != In.size())
    return false;
  size_t Span = HasEllipsis ? Shape.size() + 1 - In.size() : 0;
  size_t D = 0;
  for (size_t K = 0; K < In.size(); ++K) {
    if (K == Ellipsis) {
      for (size_t J = 0; J < Span; ++J)
        S["..." + std::to_string(J)] = Shape[D++];
      continue;
    }
    const Value &Extent = Shape[D++];
    int64_t Known = 1;
    const std::string *Unknown = nullptr;
    for (const std::string &A : In[K]) {
      if (A == "(...)")
        return false;
      auto Lit = literalSize(A);
      auto It = S.find(A);
      if (Lit || (It != S.end() && It->second.isInt())) {
        if (llvm::MulOverflow(Known, Lit ? *Lit : It->second.getInt(), Known))
          return false;
      } else if (Unknown)
        return false;
      else
        Unknown = &A;
    }
    if (!Unknown)
      continue;
    if (Extent.isInt() && Known > 0 && Extent.getInt() % Known == 0)
      S[*Unknown] = Value::integer(Extent.getInt() / Known);
    else
      S[*Unknown] = In[K].size() == 1
                        ? Extent
                        : makeHostValue("einops axis " + *Unknown, nullptr);
  }
  S["...count"] = Value::integer(int64_t(Span));
  return true;
}

/// The output shape: each group's extent, host-only where unknown.
std::optional<std::vector<Value>> outputShape(const Side &Out, Sizes &S) {
  std::vector<Value> Shape;
  for (const auto &G : Out) {
    if (G.size() == 1 && G[0] == "...") {
      for (int64_t J = 0; J < S["...count"].getInt(); ++J)
        Shape.push_back(S["..." + std::to_string(J)]);
      continue;
    }
    int64_t N = 1;
    bool Known = true;
    std::vector<Value> Axes;
    for (const std::string &A : G) {
      if (auto Lit = literalSize(A)) {
        Axes.push_back(Value::integer(*Lit));
      } else if (A == "(...)") {
        for (int64_t J = 0; J < S["...count"].getInt(); ++J)
          Axes.push_back(S["..." + std::to_string(J)]);
      } else {
        auto It = S.find(A);
        if (It == S.end())
          return std::nullopt;
        Axes.push_back(It->second);
      }
    }
    for (const Value &V : Axes) {
      Known &= V.isInt();
      if (V.isInt() && llvm::MulOverflow(N, V.getInt(), N))
        return std::nullopt;
    }
    bool Single = G.size() == 1 && !literalSize(G[0]) && G[0] != "(...)";
    Shape.push_back(Known    ? Value::integer(N)
                    : Single ? S[G[0]]
                             : makeHostValue("einops group", nullptr));
  }
  return Shape;
}

} // namespace

std::optional<Value> host::einopsCall(llvm::StringRef Fn, const CallArgs &A,
                                      llvm::StringRef Path) {
  if ((Fn != "rearrange" && Fn != "repeat" && Fn != "reduce") ||
      A.Pos.size() < 2 || !A.Pos[1].isStr())
    return std::nullopt;
  auto *T = hostModelOf<TensorModel>(A.Pos[0]);
  llvm::StringRef Pattern = A.Pos[1].getStr();
  if (!T || !Pattern.contains("->"))
    return std::nullopt;
  auto [Lhs, Rhs] = Pattern.split("->");
  auto In = parseSide(Lhs), Out = parseSide(Rhs);
  if (!In || !Out)
    return std::nullopt;
  Sizes S;
  for (const auto &[Axis, V] : A.Kw)
    if (V.isInt())
      S[Axis] = V;
  if (!bindInput(*In, T->Shape, S))
    return std::nullopt;
  auto Shape = outputShape(*Out, S);
  if (!Shape)
    return std::nullopt;
  return makeTensor(Path, std::move(*Shape), T->DTypeV);
}
