//===- LayoutParser.cpp - Reading printed layouts back --------------------===//

#include "tilec/Layout/LayoutParser.h"
#include "llvm/ADT/StringExtras.h"
#include <cctype>

using namespace tilec::layout;

namespace {

/// Expression nesting limit, so that hostile input cannot overflow the stack.
constexpr unsigned MaxDepth = 200;

class LayoutTextParser {
public:
  LayoutTextParser(llvm::StringRef Text, std::string &Error)
      : Text(Text), Error(Error) {}

  std::optional<IndexExpr> parseWholeExpr() {
    auto E = parseExpr();
    if (E && !atEnd())
      return fail("unexpected '" + Text.substr(Pos, 10).str() + "'");
    return E;
  }

  std::optional<Layout> parseWholeLayout() {
    Shape In, Out;
    llvm::SmallVector<IndexExpr, 4> Vars, Forward;
    if (!expect("Layout(") || !parseShape(In) || !expect("->") ||
        !parseShape(Out) || !expect(",") || !expect("transform:") ||
        !parseList(Vars) || !expect("->") || !parseList(Forward) ||
        !expect(")") || !expectEnd())
      return std::nullopt;
    if (!checkInputVars(Vars, In.size()))
      return std::nullopt;
    if (llvm::any_of(In, [](int64_t D) { return D < 1; }))
      return fail("shapes must be positive");
    Layout L(In, Forward);
    if (!checkOutputShape(L, Out))
      return std::nullopt;
    return L;
  }

  std::optional<Fragment> parseWholeFragment() {
    Shape In, Out;
    int64_t Rep = 0, Threads = 0;
    llvm::SmallVector<IndexExpr, 4> Forward;
    if (!expect("Fragment(") || !parseShape(In) || !expect("->") ||
        !parseShape(Out) || !expect(",") || !expect("replicate:") ||
        !parseInt(Rep) || !expect(",") || !expect("thread:") ||
        !parseInt(Threads) || !expect(",") || !expect("forward_thread:"))
      return std::nullopt;
    auto Thread = parseExpr();
    if (!Thread || !expect(",") || !expect("forward_index:") ||
        !parseList(Forward))
      return std::nullopt;
    std::optional<ThreadRange> Range;
    if (consume(",")) {
      int64_t Begin = 0, End = 0;
      if (!expect("thread_range:") || !expect("[") || !parseInt(Begin) ||
          !expect(",") || !parseInt(End) || !expect(")"))
        return std::nullopt;
      Range = ThreadRange{Begin, End - Begin};
    }
    if (!expect(")") || !expectEnd())
      return std::nullopt;
    if (Rep < 1 || llvm::any_of(In, [](int64_t D) { return D < 1; }))
      return fail("shapes and the replicate size must be positive");
    Fragment F(In, Forward, *Thread, Rep);
    if (!checkOutputShape(F, Out))
      return std::nullopt;
    if (F.getThreadExtent() != Threads)
      return fail("thread extent " + std::to_string(Threads) +
                  " does not match forward_thread (" +
                  std::to_string(F.getThreadExtent()) + ")");
    if (Range)
      F = F.bindThreadRange(Range->Begin, Range->Extent);
    return F;
  }

private:
  llvm::StringRef Text;
  std::string &Error;
  size_t Pos = 0;
  unsigned Depth = 0;

  std::nullopt_t fail(const std::string &Msg) {
    if (Error.empty())
      Error = Msg;
    return std::nullopt;
  }

  void skipSpace() {
    while (Pos < Text.size() && std::isspace(static_cast<unsigned char>(Text[Pos])))
      ++Pos;
  }
  bool atEnd() {
    skipSpace();
    return Pos >= Text.size();
  }
  bool peek(llvm::StringRef Tok) {
    skipSpace();
    return Text.substr(Pos).startswith(Tok);
  }
  bool consume(llvm::StringRef Tok) {
    if (!peek(Tok))
      return false;
    Pos += Tok.size();
    return true;
  }
  bool expect(llvm::StringRef Tok) {
    if (consume(Tok))
      return true;
    fail("expected '" + Tok.str() + "' at offset " + std::to_string(Pos));
    return false;
  }
  bool expectEnd() {
    if (atEnd())
      return true;
    fail("unexpected text after the layout at offset " + std::to_string(Pos));
    return false;
  }

  bool parseInt(int64_t &V) {
    skipSpace();
    bool Neg = consume("-");
    size_t Start = Pos;
    while (Pos < Text.size() && std::isdigit(static_cast<unsigned char>(Text[Pos])))
      ++Pos;
    if (Start == Pos || Text.substr(Start, Pos - Start).getAsInteger(10, V)) {
      fail("expected an integer at offset " + std::to_string(Start));
      return false;
    }
    V = Neg ? -V : V;
    return true;
  }

  bool parseShape(Shape &S) {
    if (!expect("["))
      return false;
    if (consume("]"))
      return true;
    do {
      int64_t V = 0;
      if (!parseInt(V))
        return false;
      S.push_back(V);
    } while (consume(","));
    return expect("]");
  }

  bool parseList(llvm::SmallVector<IndexExpr, 4> &L) {
    if (!expect("["))
      return false;
    if (consume("]"))
      return true;
    do {
      auto E = parseExpr();
      if (!E)
        return false;
      L.push_back(*E);
    } while (consume(","));
    return expect("]");
  }

  bool checkInputVars(llvm::ArrayRef<IndexExpr> Vars, size_t Rank) {
    if (Vars.size() != Rank) {
      fail("transform names " + std::to_string(Vars.size()) +
           " variables for an input of rank " + std::to_string(Rank));
      return false;
    }
    for (size_t D = 0; D < Rank; ++D)
      if (Vars[D].getVarName() != Layout::inputVarName(D)) {
        fail("input variable " + std::to_string(D) + " must be named '" +
             Layout::inputVarName(D) + "'");
        return false;
      }
    return true;
  }

  bool checkOutputShape(const Layout &L, llvm::ArrayRef<int64_t> Out) {
    if (L.getOutputShape() == Out)
      return true;
    fail("output shape does not match the forward index");
    return false;
  }

  // Binary levels, loosest first: ^, &, + -, * // %.
  std::optional<IndexExpr> parseExpr() {
    if (++Depth > MaxDepth)
      return fail("expression is nested too deeply");
    auto E = parseLevel(0);
    --Depth;
    return E;
  }

  std::optional<IndexExpr> parseLevel(unsigned Level) {
    if (Level == 4)
      return parseUnary();
    auto LHS = parseLevel(Level + 1);
    while (LHS) {
      std::optional<ExprNode::Kind> K = binaryAt(Level);
      if (!K)
        return LHS;
      auto RHS = parseLevel(Level + 1);
      if (!RHS)
        return std::nullopt;
      bool Divides = *K == ExprNode::Kind::FloorDiv || *K == ExprNode::Kind::FloorMod;
      if (Divides && !RHS->getConstant().value_or(0))
        return fail("division by zero or by a non-constant");
      LHS = makeBinary(*K, *LHS, *RHS);
    }
    return std::nullopt;
  }

  /// Consumes the operator of Level at the cursor, if any.
  std::optional<ExprNode::Kind> binaryAt(unsigned Level) {
    using K = ExprNode::Kind;
    switch (Level) {
    case 0:
      return consume("^") ? std::optional<K>(K::Xor) : std::nullopt;
    case 1:
      return consume("&") ? std::optional<K>(K::And) : std::nullopt;
    case 2:
      if (consume("+"))
        return K::Add;
      if (peek("->"))
        return std::nullopt;
      return consume("-") ? std::optional<K>(K::Sub) : std::nullopt;
    default:
      if (consume("//"))
        return K::FloorDiv;
      if (consume("*"))
        return K::Mul;
      return consume("%") ? std::optional<K>(K::FloorMod) : std::nullopt;
    }
  }

  std::optional<IndexExpr> parseUnary() {
    if (!consume("-"))
      return parsePrimary();
    if (++Depth > MaxDepth)
      return fail("expression is nested too deeply");
    auto E = parseUnary();
    --Depth;
    if (!E)
      return std::nullopt;
    if (auto C = E->getConstant())
      return IndexExpr(-*C);
    return IndexExpr(0) - *E;
  }

  std::optional<IndexExpr> parsePrimary() {
    skipSpace();
    if (consume("(")) {
      auto E = parseExpr();
      if (!E || !expect(")"))
        return std::nullopt;
      return E;
    }
    if (Pos < Text.size() && std::isdigit(static_cast<unsigned char>(Text[Pos]))) {
      int64_t V = 0;
      if (!parseInt(V))
        return std::nullopt;
      return IndexExpr(V);
    }
    size_t Start = Pos;
    while (Pos < Text.size() &&
           (std::isalnum(static_cast<unsigned char>(Text[Pos])) || Text[Pos] == '_'))
      ++Pos;
    llvm::StringRef Name = Text.substr(Start, Pos - Start);
    if (Name.empty())
      return fail("expected an expression at offset " + std::to_string(Start));
    if ((Name == "min" || Name == "max") && peek("("))
      return parseMinMax(Name == "min");
    return IndexExpr::var(Name);
  }

  std::optional<IndexExpr> parseMinMax(bool IsMin) {
    if (!expect("("))
      return std::nullopt;
    auto A = parseExpr();
    if (!A || !expect(","))
      return std::nullopt;
    auto B = parseExpr();
    if (!B || !expect(")"))
      return std::nullopt;
    return IsMin ? minExpr(*A, *B) : maxExpr(*A, *B);
  }
};

} // namespace

std::optional<IndexExpr> tilec::layout::parseIndexExpr(llvm::StringRef Text,
                                                       std::string &Error) {
  return LayoutTextParser(Text, Error).parseWholeExpr();
}

std::optional<Layout> tilec::layout::parseLayout(llvm::StringRef Text,
                                                 std::string &Error) {
  return LayoutTextParser(Text, Error).parseWholeLayout();
}

std::optional<Fragment> tilec::layout::parseFragment(llvm::StringRef Text,
                                                     std::string &Error) {
  return LayoutTextParser(Text, Error).parseWholeFragment();
}
