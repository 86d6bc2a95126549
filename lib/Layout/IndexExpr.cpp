//===- IndexExpr.cpp - Symbolic integer index expressions -----------------===//

#include "tilec/Layout/IndexExpr.h"
#include "tilec/Layout/Simplify.h"
#include <cassert>

using namespace tilec::layout;
using llvm::cast;
using llvm::dyn_cast;
using Kind = ExprNode::Kind;

IndexExpr::IndexExpr(int64_t Value)
    : Node(std::make_shared<ConstNode>(Value)) {}

IndexExpr IndexExpr::var(llvm::StringRef Name) {
  return IndexExpr(std::make_shared<VarNode>(Name));
}

std::optional<int64_t> IndexExpr::getConstant() const {
  if (auto *C = dyn_cast<ConstNode>(get()))
    return C->getValue();
  return std::nullopt;
}

bool IndexExpr::isConstant(int64_t Value) const {
  auto C = getConstant();
  return C && *C == Value;
}

llvm::StringRef IndexExpr::getVarName() const {
  if (auto *V = dyn_cast<VarNode>(get()))
    return V->getName();
  return {};
}

IndexExpr tilec::layout::makeBinary(Kind K, IndexExpr L, IndexExpr R) {
  assert(L && R && "binary expression needs two operands");
  return IndexExpr(std::make_shared<BinaryNode>(K, std::move(L), std::move(R)));
}

int64_t tilec::layout::floorDivInt(int64_t A, int64_t B) {
  assert(B != 0 && "floor division by zero");
  int64_t Q = A / B;
  if ((A % B != 0) && ((A < 0) != (B < 0)))
    --Q;
  return Q;
}

int64_t tilec::layout::floorModInt(int64_t A, int64_t B) {
  assert(B != 0 && "floor modulo by zero");
  int64_t R = A % B;
  if (R != 0 && ((R < 0) != (B < 0)))
    R += B;
  return R;
}

std::optional<int64_t> tilec::layout::foldBinary(Kind K, int64_t A,
                                                 int64_t B) {
  int64_t R;
  switch (K) {
  case Kind::Add:
    return __builtin_add_overflow(A, B, &R) ? std::nullopt
                                            : std::optional<int64_t>(R);
  case Kind::Sub:
    return __builtin_sub_overflow(A, B, &R) ? std::nullopt
                                            : std::optional<int64_t>(R);
  case Kind::Mul:
    return __builtin_mul_overflow(A, B, &R) ? std::nullopt
                                            : std::optional<int64_t>(R);
  case Kind::FloorDiv:
    if (B == 0 || (A == INT64_MIN && B == -1))
      return std::nullopt;
    return floorDivInt(A, B);
  case Kind::FloorMod:
    if (B == 0)
      return std::nullopt;
    return B == -1 ? 0 : floorModInt(A, B);
  case Kind::Xor:
    return A ^ B;
  case Kind::And:
    return A & B;
  case Kind::Min:
    return std::min(A, B);
  case Kind::Max:
    return std::max(A, B);
  default:
    return std::nullopt;
  }
}

std::optional<int64_t> tilec::layout::evaluate(const IndexExpr &E,
                                               const Env &Values) {
  if (auto C = E.getConstant())
    return C;
  if (auto *V = dyn_cast<VarNode>(E.get())) {
    auto It = Values.find(V->getName());
    if (It == Values.end())
      return std::nullopt;
    return It->second;
  }
  auto *B = cast<BinaryNode>(E.get());
  auto L = evaluate(B->getLHS(), Values);
  if (!L)
    return std::nullopt;
  auto R = evaluate(B->getRHS(), Values);
  if (!R)
    return std::nullopt;
  return foldBinary(B->getKind(), *L, *R);
}

IndexExpr tilec::layout::substitute(const IndexExpr &E, const VarMap &Map) {
  if (auto *V = dyn_cast<VarNode>(E.get())) {
    auto It = Map.find(V->getName());
    return It == Map.end() ? E : It->second;
  }
  auto *B = dyn_cast<BinaryNode>(E.get());
  if (!B)
    return E;
  IndexExpr L = substitute(B->getLHS(), Map);
  IndexExpr R = substitute(B->getRHS(), Map);
  if (L.get() == B->getLHS().get() && R.get() == B->getRHS().get())
    return E;
  return makeBinary(B->getKind(), std::move(L), std::move(R));
}

int tilec::layout::compareExpr(const IndexExpr &A, const IndexExpr &B) {
  if (A.get() == B.get())
    return 0;
  if (A->getKind() != B->getKind())
    return A->getKind() < B->getKind() ? -1 : 1;
  if (auto *CA = dyn_cast<ConstNode>(A.get())) {
    int64_t X = CA->getValue(), Y = cast<ConstNode>(B.get())->getValue();
    return X == Y ? 0 : (X < Y ? -1 : 1);
  }
  if (auto *VA = dyn_cast<VarNode>(A.get()))
    return VA->getName().compare(cast<VarNode>(B.get())->getName());
  auto *BA = cast<BinaryNode>(A.get());
  auto *BB = cast<BinaryNode>(B.get());
  if (int C = compareExpr(BA->getLHS(), BB->getLHS()))
    return C;
  return compareExpr(BA->getRHS(), BB->getRHS());
}

//===----------------------------------------------------------------------===//
// Printing
//===----------------------------------------------------------------------===//

namespace {

/// Binding strength, shared by Python and C for these operators.
int precedence(Kind K) {
  switch (K) {
  case Kind::Xor:
    return 2;
  case Kind::And:
    return 3;
  case Kind::Add:
  case Kind::Sub:
    return 4;
  case Kind::Mul:
  case Kind::FloorDiv:
  case Kind::FloorMod:
    return 5;
  default:
    return 10;
  }
}

class ExprPrinter {
public:
  ExprPrinter(bool AsC, const VarExtents *Extents)
      : AsC(AsC), Extents(Extents) {}

  std::string print(const IndexExpr &E) {
    if (auto C = E.getConstant())
      return std::to_string(*C);
    if (auto *V = dyn_cast<VarNode>(E.get()))
      return V->getName().str();
    return printBinary(*cast<BinaryNode>(E.get()));
  }

private:
  bool AsC;
  const VarExtents *Extents;

  std::string printBinary(const BinaryNode &B) {
    Kind K = B.getKind();
    if (K == Kind::Min || K == Kind::Max)
      return call(K == Kind::Min ? "min" : "max", B);
    if (AsC && (K == Kind::FloorDiv || K == Kind::FloorMod) &&
        !isPlainCDivision(B))
      return call(K == Kind::FloorDiv ? "tilec_floordiv" : "tilec_floormod",
                  B);
    return operand(B.getLHS(), K, false) + " " + opText(K) + " " +
           operand(B.getRHS(), K, true);
  }

  std::string call(const char *Fn, const BinaryNode &B) {
    return std::string(Fn) + "(" + print(B.getLHS()) + ", " +
           print(B.getRHS()) + ")";
  }

  /// C's truncating `/` and `%` agree with floor semantics here.
  bool isPlainCDivision(const BinaryNode &B) {
    auto Divisor = B.getRHS().getConstant();
    if (!Divisor || *Divisor <= 0)
      return false;
    auto LB = computeBounds(B.getLHS(), *Extents);
    return LB && LB->Min >= 0;
  }

  const char *opText(Kind K) {
    switch (K) {
    case Kind::Add:
      return "+";
    case Kind::Sub:
      return "-";
    case Kind::Mul:
      return "*";
    case Kind::FloorDiv:
      return AsC ? "/" : "//";
    case Kind::FloorMod:
      return "%";
    case Kind::Xor:
      return "^";
    default:
      return "&";
    }
  }

  std::string operand(const IndexExpr &E, Kind Parent, bool IsRight) {
    std::string S = print(E);
    int P = precedence(Parent);
    int C = precedence(E->getKind());
    if (auto V = E.getConstant(); V && *V < 0)
      C = 1;
    bool SameAssoc = E->getKind() == Parent &&
                     (Parent == Kind::Add || Parent == Kind::Mul ||
                      Parent == Kind::Xor || Parent == Kind::And);
    bool Wrap = C < P || (IsRight && C == P && !SameAssoc);
    return Wrap ? "(" + S + ")" : S;
  }
};

} // namespace

std::string tilec::layout::toString(const IndexExpr &E) {
  return ExprPrinter(false, nullptr).print(E);
}

std::string tilec::layout::toCString(const IndexExpr &E,
                                     const VarExtents &Extents) {
  return ExprPrinter(true, &Extents).print(E);
}
