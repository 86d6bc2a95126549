//===- IndexExpr.h - Symbolic integer index expressions --------*- C++ -*-===//
//
// The expression language of layouts: integers over named iterator
// variables, built from constants, +, -, *, floor division, floor modulo,
// bitwise xor/and (for swizzles), min and max.
//
// Expects: variables are named by strings; a layout gives each variable an
// extent n meaning the range [0, n) (see VarExtents).
// Does: builds immutable, shared expression trees (building never
// simplifies; see Simplify.h), evaluates them on concrete values,
// substitutes variables, orders them structurally, and prints them as
// readable Python-like text ("(i * 8 + j) % 32") or as C code.
// Guarantees: nodes are never mutated after creation, so sharing subtrees
// between expressions is safe; floordiv/floormod follow Python semantics
// (round toward negative infinity) in evaluate() and in the simplifier.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_LAYOUT_INDEXEXPR_H
#define TILEC_LAYOUT_INDEXEXPR_H

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Casting.h"
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace tilec {
namespace layout {

class ExprNode;

/// A handle to an immutable expression node; cheap to copy.
class IndexExpr {
public:
  IndexExpr() = default;
  /// An integer constant (implicit so that `I * 8 + 3` reads naturally).
  IndexExpr(int64_t Value);
  explicit IndexExpr(std::shared_ptr<const ExprNode> N) : Node(std::move(N)) {}

  static IndexExpr var(llvm::StringRef Name);

  const ExprNode *get() const { return Node.get(); }
  const ExprNode *operator->() const { return Node.get(); }
  explicit operator bool() const { return Node != nullptr; }

  /// The value when this is a constant node.
  std::optional<int64_t> getConstant() const;
  bool isConstant(int64_t Value) const;
  /// The name when this is a variable node, else empty.
  llvm::StringRef getVarName() const;

private:
  std::shared_ptr<const ExprNode> Node;
};

class ExprNode {
public:
  enum class Kind { Const, Var, Add, Sub, Mul, FloorDiv, FloorMod, Xor, And,
                    Min, Max };
  Kind getKind() const { return K; }

protected:
  explicit ExprNode(Kind K) : K(K) {}

private:
  Kind K;
};

class ConstNode : public ExprNode {
public:
  explicit ConstNode(int64_t V) : ExprNode(Kind::Const), Value(V) {}
  int64_t getValue() const { return Value; }
  static bool classof(const ExprNode *N) { return N->getKind() == Kind::Const; }

private:
  int64_t Value;
};

class VarNode : public ExprNode {
public:
  explicit VarNode(llvm::StringRef Name) : ExprNode(Kind::Var), Name(Name) {}
  llvm::StringRef getName() const { return Name; }
  static bool classof(const ExprNode *N) { return N->getKind() == Kind::Var; }

private:
  std::string Name;
};

class BinaryNode : public ExprNode {
public:
  BinaryNode(Kind K, IndexExpr L, IndexExpr R)
      : ExprNode(K), LHS(std::move(L)), RHS(std::move(R)) {}
  const IndexExpr &getLHS() const { return LHS; }
  const IndexExpr &getRHS() const { return RHS; }
  static bool classof(const ExprNode *N) {
    return N->getKind() >= Kind::Add;
  }

private:
  IndexExpr LHS, RHS;
};

IndexExpr makeBinary(ExprNode::Kind K, IndexExpr L, IndexExpr R);

inline IndexExpr operator+(IndexExpr L, IndexExpr R) {
  return makeBinary(ExprNode::Kind::Add, std::move(L), std::move(R));
}
inline IndexExpr operator-(IndexExpr L, IndexExpr R) {
  return makeBinary(ExprNode::Kind::Sub, std::move(L), std::move(R));
}
inline IndexExpr operator*(IndexExpr L, IndexExpr R) {
  return makeBinary(ExprNode::Kind::Mul, std::move(L), std::move(R));
}
inline IndexExpr floorDiv(IndexExpr L, IndexExpr R) {
  return makeBinary(ExprNode::Kind::FloorDiv, std::move(L), std::move(R));
}
inline IndexExpr floorMod(IndexExpr L, IndexExpr R) {
  return makeBinary(ExprNode::Kind::FloorMod, std::move(L), std::move(R));
}
inline IndexExpr bitXor(IndexExpr L, IndexExpr R) {
  return makeBinary(ExprNode::Kind::Xor, std::move(L), std::move(R));
}
inline IndexExpr bitAnd(IndexExpr L, IndexExpr R) {
  return makeBinary(ExprNode::Kind::And, std::move(L), std::move(R));
}
inline IndexExpr minExpr(IndexExpr L, IndexExpr R) {
  return makeBinary(ExprNode::Kind::Min, std::move(L), std::move(R));
}
inline IndexExpr maxExpr(IndexExpr L, IndexExpr R) {
  return makeBinary(ExprNode::Kind::Max, std::move(L), std::move(R));
}

/// Python floor division and modulo on integers; B must not be zero.
int64_t floorDivInt(int64_t A, int64_t B);
int64_t floorModInt(int64_t A, int64_t B);

/// K applied to two constants; nullopt on division by zero or overflow.
std::optional<int64_t> foldBinary(ExprNode::Kind K, int64_t A, int64_t B);

/// Variable name -> extent n (the variable ranges over [0, n)).
using VarExtents = llvm::StringMap<int64_t>;
/// Variable name -> concrete value.
using Env = llvm::StringMap<int64_t>;
/// Variable name -> replacement expression.
using VarMap = llvm::StringMap<IndexExpr>;

/// The value of E under Values; nullopt when a variable is unbound, a
/// divisor is zero, or the arithmetic overflows int64.
std::optional<int64_t> evaluate(const IndexExpr &E, const Env &Values);

/// E with every variable named in Map replaced, simultaneously, by its
/// replacement (replacements are not rescanned). Not simplified.
IndexExpr substitute(const IndexExpr &E, const VarMap &Map);

/// A total structural order (kind, then payload, then children); 0 means
/// structurally equal.
int compareExpr(const IndexExpr &A, const IndexExpr &B);
inline bool structurallyEqual(const IndexExpr &A, const IndexExpr &B) {
  return compareExpr(A, B) == 0;
}

/// Readable text: `(i * 8 + j) % 32`, `j // 2`, `c ^ s`, `min(a, b)`.
std::string toString(const IndexExpr &E);

/// C source. floordiv/floormod print as `/` and `%` when the range
/// analysis over Extents proves the dividend non-negative and the divisor
/// a positive constant; otherwise as calls `tilec_floordiv(a, b)` and
/// `tilec_floormod(a, b)`, which the emitter's prelude must define.
std::string toCString(const IndexExpr &E, const VarExtents &Extents);

} // namespace layout
} // namespace tilec

#endif // TILEC_LAYOUT_INDEXEXPR_H
