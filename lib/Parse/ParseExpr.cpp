//===- ParseExpr.cpp - Expressions ----------------------------------------===//
//
// Python 3's expression grammar, loosest binding first. A parse function
// returns null only after reporting an error; the statement parser then
// recovers at the end of the line.
//
//===----------------------------------------------------------------------===//

#include "tilec/Parse/Parser.h"

using namespace tilec;
using namespace tilec::ast;
using llvm::SMLoc;
using llvm::SMRange;

namespace {
template <typename T, typename... Args> ExprPtr make(Args &&...A) {
  return std::make_unique<T>(std::forward<Args>(A)...);
}

/// Precedence of a binary operator token (0: not one), loosest first.
unsigned binaryPrec(tok::Kind K, BinaryOp &Op) {
  switch (K) {
  case tok::VBar:
    return Op = BinaryOp::BitOr, 1;
  case tok::Circumflex:
    return Op = BinaryOp::BitXor, 2;
  case tok::Amper:
    return Op = BinaryOp::BitAnd, 3;
  case tok::LeftShift:
    return Op = BinaryOp::LShift, 4;
  case tok::RightShift:
    return Op = BinaryOp::RShift, 4;
  case tok::Plus:
    return Op = BinaryOp::Add, 5;
  case tok::Minus:
    return Op = BinaryOp::Sub, 5;
  case tok::Star:
    return Op = BinaryOp::Mul, 6;
  case tok::Slash:
    return Op = BinaryOp::Div, 6;
  case tok::DoubleSlash:
    return Op = BinaryOp::FloorDiv, 6;
  case tok::Percent:
    return Op = BinaryOp::Mod, 6;
  case tok::At:
    return Op = BinaryOp::MatMul, 6;
  default:
    return 0;
  }
}

bool unaryOp(tok::Kind K, UnaryOp &Op) {
  switch (K) {
  case tok::Minus:
    return Op = UnaryOp::Neg, true;
  case tok::Plus:
    return Op = UnaryOp::Pos, true;
  case tok::Tilde:
    return Op = UnaryOp::Invert, true;
  default:
    return false;
  }
}

/// The comparison operator starting at \p T (\p Next disambiguates
/// `is not` and `not in`).
bool compareOp(const Token &T, const Token &Next, CompareOp &Op) {
  switch (T.Kind) {
  case tok::Less:
    return Op = CompareOp::Lt, true;
  case tok::Greater:
    return Op = CompareOp::Gt, true;
  case tok::EqEqual:
    return Op = CompareOp::Eq, true;
  case tok::GreaterEqual:
    return Op = CompareOp::GtE, true;
  case tok::LessEqual:
    return Op = CompareOp::LtE, true;
  case tok::NotEqual:
    return Op = CompareOp::NotEq, true;
  case tok::kw_in:
    return Op = CompareOp::In, true;
  case tok::kw_is:
    Op = Next.is(tok::kw_not) ? CompareOp::IsNot : CompareOp::Is;
    return true;
  case tok::kw_not:
    return Next.is(tok::kw_in) && (Op = CompareOp::NotIn, true);
  default:
    return false;
  }
}
} // namespace

bool Parser::startsExpression(const Token &T) {
  switch (T.Kind) {
  case tok::Name:
  case tok::Int:
  case tok::Float:
  case tok::String:
  case tok::LPar:
  case tok::LSqb:
  case tok::LBrace:
  case tok::Minus:
  case tok::Plus:
  case tok::Tilde:
  case tok::Star:
  case tok::Ellipsis:
  case tok::kw_not:
  case tok::kw_lambda:
  case tok::kw_None:
  case tok::kw_True:
  case tok::kw_False:
  case tok::kw_await:
  case tok::kw_yield:
    return true;
  default:
    return false;
  }
}

// comp_for -> ['async'] 'for' exprlist 'in' or_test comp_iter?
// comp_iter -> comp_for | 'if' or_test comp_iter?
bool Parser::parseComprehensionFors(std::vector<ComprehensionFor> &Fors) {
  while (at(tok::kw_for) || (at(tok::kw_async) && peek().is(tok::kw_for))) {
    consumeIf(tok::kw_async);
    consume();
    ComprehensionFor F;
    F.Target = parseExprList();
    if (!F.Target || !checkTarget(*F.Target, /*AllowUnpacking=*/true) ||
        !expect(tok::kw_in))
      return false;
    if (!(F.Iter = parseOrTest()))
      return false;
    while (consumeIf(tok::kw_if)) {
      ExprPtr Cond = parseOrTest();
      if (!Cond)
        return false;
      F.Ifs.push_back(std::move(Cond));
    }
    Fors.push_back(std::move(F));
  }
  return true;
}

/// The comprehension whose element \p Elt has been parsed, up to and
/// including \p Closer.
ExprPtr Parser::parseComprehension(ComprehensionExpr::CompKind K, SMLoc Start,
                                   ExprPtr Elt, ExprPtr Value,
                                   const Token &Open, tok::Kind Closer) {
  if (llvm::isa<StarredExpr>(*Elt)) {
    Diags.report(rangeOf(*Elt), diag::err_unexpected_token)
        << "starred expression in comprehension";
    return nullptr;
  }
  std::vector<ComprehensionFor> Fors;
  if (!parseComprehensionFors(Fors) || !expectCloser(Closer, Open))
    return nullptr;
  return make<ComprehensionExpr>(rangeFrom(Start), K, std::move(Elt),
                                 std::move(Value), std::move(Fors));
}

// testlist_star_expr -> (test|star_expr) (',' (test|star_expr))* [',']
// testlist           -> test (',' test)* [',']
ExprPtr Parser::parseTestList(bool AllowStar) {
  return parseCommaList(
      [&] { return AllowStar ? parseTestOrStar() : parseTest(); });
}

// exprlist -> (expr|star_expr) (',' (expr|star_expr))* [',']
ExprPtr Parser::parseExprList() {
  return parseCommaList([&]() -> ExprPtr {
    if (!at(tok::Star))
      return parseBinary(1);
    SMLoc StarLoc = consume().getLoc();
    ExprPtr V = parseBinary(1);
    return V ? make<StarredExpr>(rangeFrom(StarLoc), std::move(V)) : nullptr;
  });
}

/// One element, or a tuple when a comma follows it (a trailing comma
/// included).
ExprPtr Parser::parseCommaList(llvm::function_ref<ExprPtr()> ParseOne) {
  SMLoc Start = tok().getLoc();
  ExprPtr First = ParseOne();
  if (!First || !at(tok::Comma))
    return rejectLoneStar(std::move(First));
  ExprList Elts;
  Elts.push_back(std::move(First));
  while (consumeIf(tok::Comma) && startsExpression(tok())) {
    ExprPtr E = ParseOne();
    if (!E)
      return nullptr;
    Elts.push_back(std::move(E));
  }
  return make<TupleExpr>(rangeFrom(Start), std::move(Elts));
}

/// `*x` is only valid as an element of a tuple, list or argument list.
ExprPtr Parser::rejectLoneStar(ExprPtr E) {
  if (!E || !llvm::isa<StarredExpr>(*E))
    return E;
  Diags.report(rangeOf(*E), diag::err_unexpected_token) << "starred expression";
  return nullptr;
}

// star_expr -> '*' expr
ExprPtr Parser::parseTestOrStar() {
  if (!at(tok::Star))
    return parseTest();
  SMLoc Start = consume().getLoc();
  ExprPtr V = parseBinary(1);
  return V ? make<StarredExpr>(rangeFrom(Start), std::move(V)) : nullptr;
}

// test -> or_test ['if' or_test 'else' test] | lambdef
ExprPtr Parser::parseTest() {
  NestingGuard G(*this);
  if (!G)
    return nullptr;
  if (at(tok::kw_lambda))
    return parseLambda();
  SMLoc Start = tok().getLoc();
  ExprPtr Then = parseOrTest();
  if (!Then)
    return nullptr;
  if (at(tok::ColonEqual))
    return parseNamedExpr(std::move(Then));
  if (!consumeIf(tok::kw_if))
    return Then;
  ExprPtr Cond = parseOrTest();
  if (!Cond)
    return nullptr;
  if (!consumeIf(tok::kw_else)) {
    errorExpected("'else' in conditional expression");
    return nullptr;
  }
  ExprPtr Else = parseTest();
  if (!Else)
    return nullptr;
  return make<IfExpExpr>(rangeFrom(Start), std::move(Cond), std::move(Then),
                         std::move(Else));
}

// namedexpr -> NAME ':=' test
ExprPtr Parser::parseNamedExpr(ExprPtr Target) {
  if (!llvm::isa<NameExpr>(*Target) || isParenthesized(*Target)) {
    Diags.report(rangeOf(*Target), diag::err_invalid_assign_target)
        << describeForAssign(*Target);
    return nullptr;
  }
  SMLoc Start = startOf(*Target);
  consume();
  ExprPtr Value = parseTest();
  if (!Value)
    return nullptr;
  return make<NamedExpr>(rangeFrom(Start), std::move(Target), std::move(Value));
}

// lambdef -> 'lambda' [params] ':' test
ExprPtr Parser::parseLambda() {
  SMLoc Start = consume().getLoc();
  std::vector<Param> Params;
  if (!parseParams(Params, tok::Colon, /*AllowAnnotations=*/false, nullptr))
    return nullptr;
  ExprPtr Body = parseTest();
  if (!Body)
    return nullptr;
  return make<LambdaExpr>(rangeFrom(Start), std::move(Params), std::move(Body));
}

// or_test  -> and_test ('or' and_test)*
ExprPtr Parser::parseOrTest() {
  return parseBoolChain(tok::kw_or, BoolOpKind::Or, &Parser::parseAndTest);
}

// and_test -> not_test ('and' not_test)*
ExprPtr Parser::parseAndTest() {
  return parseBoolChain(tok::kw_and, BoolOpKind::And, &Parser::parseNotTest);
}

/// operand (Keyword operand)*: one BoolOpExpr for the whole chain, or the
/// operand itself when there is no Keyword.
ExprPtr Parser::parseBoolChain(tok::Kind Keyword, BoolOpKind Op,
                               ExprPtr (Parser::*Operand)()) {
  SMLoc Start = tok().getLoc();
  ExprPtr First = (this->*Operand)();
  if (!First || !at(Keyword))
    return First;
  ExprList Values;
  Values.push_back(std::move(First));
  while (consumeIf(Keyword)) {
    ExprPtr E = (this->*Operand)();
    if (!E)
      return nullptr;
    Values.push_back(std::move(E));
  }
  return make<BoolOpExpr>(rangeFrom(Start), Op, std::move(Values));
}

// not_test -> 'not' not_test | comparison
ExprPtr Parser::parseNotTest() {
  if (!at(tok::kw_not))
    return parseComparison();
  NestingGuard G(*this);
  if (!G)
    return nullptr;
  SMLoc Start = consume().getLoc();
  ExprPtr Operand = parseNotTest();
  if (!Operand)
    return nullptr;
  return make<UnaryExpr>(rangeFrom(Start), UnaryOp::Not, std::move(Operand));
}

// comparison -> expr (comp_op expr)*
// comp_op    -> '<' | '>' | '==' | '>=' | '<=' | '!=' | 'in' | 'not' 'in'
//             | 'is' | 'is' 'not'
ExprPtr Parser::parseComparison() {
  SMLoc Start = tok().getLoc();
  ExprPtr Left = parseBinary(1);
  if (!Left)
    return nullptr;
  std::vector<CompareOp> Ops;
  ExprList Comparators;
  CompareOp Op;
  while (compareOp(tok(), peek(), Op)) {
    consume();
    if (Op == CompareOp::IsNot || Op == CompareOp::NotIn)
      consume();
    ExprPtr Right = parseBinary(1);
    if (!Right)
      return nullptr;
    Ops.push_back(Op);
    Comparators.push_back(std::move(Right));
  }
  if (Ops.empty())
    return Left;
  return make<CompareExpr>(rangeFrom(Start), std::move(Left), std::move(Ops),
                           std::move(Comparators));
}

// expr       -> xor_expr ('|' xor_expr)*
// xor_expr   -> and_expr ('^' and_expr)*
// and_expr   -> shift_expr ('&' shift_expr)*
// shift_expr -> arith_expr (('<<'|'>>') arith_expr)*
// arith_expr -> term (('+'|'-') term)*
// term       -> factor (('*'|'@'|'/'|'%'|'//') factor)*
//
// Precedence climbing over those six rules; MinPrec 1 parses `expr`.
ExprPtr Parser::parseBinary(unsigned MinPrec) {
  SMLoc Start = tok().getLoc();
  ExprPtr LHS = parseFactor();
  ChainGuard Chain(*this);
  while (LHS) {
    BinaryOp Op;
    unsigned Prec = binaryPrec(tok().Kind, Op);
    if (Prec == 0 || Prec < MinPrec)
      break;
    if (!Chain.add())
      return nullptr;
    SMLoc OpLoc = consume().getLoc();
    ExprPtr RHS = parseBinary(Prec + 1);
    if (!RHS)
      return nullptr;
    LHS = make<BinaryExpr>(rangeFrom(Start), Op, std::move(LHS), std::move(RHS),
                           OpLoc);
  }
  return LHS;
}

// factor -> ('+'|'-'|'~') factor | power
ExprPtr Parser::parseFactor() {
  UnaryOp Op;
  if (!unaryOp(tok().Kind, Op))
    return parsePower();
  NestingGuard G(*this);
  if (!G)
    return nullptr;
  SMLoc Start = consume().getLoc();
  ExprPtr Operand = parseFactor();
  if (!Operand)
    return nullptr;
  return make<UnaryExpr>(rangeFrom(Start), Op, std::move(Operand));
}

// power -> primary ['**' factor]
ExprPtr Parser::parsePower() {
  SMLoc Start = tok().getLoc();
  if (consumeIf(tok::kw_await)) {
    ExprPtr V = parsePrimary();
    if (!V)
      return nullptr;
    return make<AwaitExpr>(rangeFrom(Start), std::move(V));
  }
  ExprPtr Base = parsePrimary();
  if (!Base || !at(tok::DoubleStar))
    return Base;
  NestingGuard G(*this);
  if (!G)
    return nullptr;
  SMLoc OpLoc = consume().getLoc();
  ExprPtr Exp = parseFactor();
  if (!Exp)
    return nullptr;
  return make<BinaryExpr>(rangeFrom(Start), BinaryOp::Pow, std::move(Base),
                          std::move(Exp), OpLoc);
}

// primary -> atom trailer*
// trailer -> '(' [arglist] ')' | '[' subscriptlist ']' | '.' NAME
ExprPtr Parser::parsePrimary() {
  SMLoc Start = tok().getLoc();
  ExprPtr E = parseAtom();
  ChainGuard Chain(*this);
  while (E) {
    if (!at(tok::LPar) && !at(tok::LSqb) && !at(tok::Dot))
      break;
    if (!Chain.add())
      return nullptr;
    if (at(tok::LPar)) {
      E = parseCall(std::move(E));
      continue;
    }
    if (at(tok::LSqb)) {
      E = parseSubscript(std::move(E));
      continue;
    }
    consume();
    if (!at(tok::Name)) {
      errorExpected("attribute name after '.'");
      return nullptr;
    }
    const Token &Attr = consume();
    E = make<AttributeExpr>(rangeFrom(Start), std::move(E), Attr.Text.str(),
                            Attr.getRange());
  }
  return E;
}

// call    -> primary '(' [arglist] ')'
// arglist -> argument (',' argument)* [',']
ExprPtr Parser::parseCall(ExprPtr Callee) {
  SMLoc Start = startOf(*Callee);
  const Token &Open = consume();
  ExprList Args;
  std::vector<Keyword> Keywords;
  while (!at(tok::RPar)) {
    if (!parseArgument(Args, Keywords))
      return nullptr;
    if (!consumeIf(tok::Comma))
      break;
  }
  if (!expectCloser(tok::RPar, Open, "',' or ')'"))
    return nullptr;
  return make<CallExpr>(rangeFrom(Start), std::move(Callee), std::move(Args),
                        std::move(Keywords));
}

// argument -> test | NAME '=' test | '*' test | '**' test
bool Parser::parseArgument(ExprList &Args, std::vector<Keyword> &Keywords) {
  bool SawDoubleStar = false;
  for (const Keyword &K : Keywords)
    SawDoubleStar |= K.Name.empty();
  SMLoc Start = tok().getLoc();
  if (at(tok::DoubleStar)) {
    SMRange StarRange = consume().getRange();
    ExprPtr V = parseTest();
    if (!V)
      return false;
    Keywords.push_back({"", StarRange, std::move(V)});
    return true;
  }
  bool Star = consumeIf(tok::Star);
  ExprPtr E = parseTest();
  if (!E)
    return false;
  if (Star) {
    E = make<StarredExpr>(rangeFrom(Start), std::move(E));
  } else if (at(tok::kw_for) || at(tok::kw_async)) {
    std::vector<ComprehensionFor> Fors;
    if (!parseComprehensionFors(Fors))
      return false;
    E = make<ComprehensionExpr>(rangeFrom(Start),
                                ComprehensionExpr::CompKind::Generator,
                                std::move(E), nullptr, std::move(Fors));
  } else if (at(tok::Equal)) {
    auto *Name = llvm::dyn_cast<NameExpr>(E.get());
    if (!Name || isParenthesized(*E)) {
      Diags.report(rangeOf(*E), diag::err_bad_keyword_arg);
      return false;
    }
    consume();
    ExprPtr V = parseTest();
    if (!V)
      return false;
    Keywords.push_back({Name->Id, Name->getRange(), std::move(V)});
    return true;
  }
  if (!Keywords.empty() && (!Star || SawDoubleStar))
    Diags.report(rangeOf(*E), diag::err_positional_after_keyword);
  Args.push_back(std::move(E));
  return true;
}

// subscription  -> primary '[' subscriptlist ']'
// subscriptlist -> subscript (',' subscript)* [',']
ExprPtr Parser::parseSubscript(ExprPtr Value) {
  SMLoc Start = startOf(*Value);
  const Token &Open = consume();
  SMLoc IndexStart = tok().getLoc();
  ExprList Items;
  bool SawComma = false;
  while (true) {
    ExprPtr Item = parseSubscriptItem();
    if (!Item)
      return nullptr;
    Items.push_back(std::move(Item));
    if (!consumeIf(tok::Comma))
      break;
    SawComma = true;
    if (at(tok::RSqb))
      break;
  }
  SMRange IndexRange(IndexStart, PrevEnd);
  if (!expectCloser(tok::RSqb, Open, "',' or ']'"))
    return nullptr;
  ExprPtr Index = Items.size() == 1 && !SawComma
                      ? std::move(Items.front())
                      : make<TupleExpr>(IndexRange, std::move(Items));
  return make<SubscriptExpr>(rangeFrom(Start), std::move(Value),
                             std::move(Index));
}

// subscript -> test | star_expr | [test] ':' [test] [':' [test]]
ExprPtr Parser::parseSubscriptItem() {
  SMLoc Start = tok().getLoc();
  ExprPtr Lower;
  if (!at(tok::Colon)) {
    Lower = parseTestOrStar();
    if (!Lower || !at(tok::Colon))
      return Lower;
  }
  consume();
  ExprPtr Upper, Step;
  if (startsExpression(tok()) && !(Upper = parseTest()))
    return nullptr;
  if (consumeIf(tok::Colon) && startsExpression(tok()) && !(Step = parseTest()))
    return nullptr;
  return make<SliceExpr>(rangeFrom(Start), std::move(Lower), std::move(Upper),
                         std::move(Step));
}

// atom -> '(' [testlist_comp] ')' | '[' [testlist_comp] ']'
//       | '{' [dict_items] '}' | NAME | NUMBER | STRING+
//       | '...' | 'None' | 'True' | 'False'
ExprPtr Parser::parseAtom() {
  const Token &T = tok();
  switch (T.Kind) {
  case tok::LPar:
    return parseParenAtom();
  case tok::LSqb:
    return parseListAtom();
  case tok::LBrace:
    return parseDictAtom();
  case tok::Name:
    consume();
    return make<NameExpr>(T.getRange(), T.Text.str());
  case tok::Int:
  case tok::Float:
    return parseNumber();
  case tok::String:
    return parseStrings();
  case tok::Ellipsis:
    return make<EllipsisExpr>(consume().getRange());
  case tok::kw_None:
    return make<NoneLitExpr>(consume().getRange());
  case tok::kw_True:
  case tok::kw_False:
    consume();
    return make<BoolLitExpr>(T.getRange(), T.is(tok::kw_True));
  case tok::kw_yield:
    return parseYield();
  default:
    errorExpected("expression");
    return nullptr;
  }
}

// testlist_comp -> (test|star_expr) (',' (test|star_expr))* [',']
// Parses the elements and the closing bracket.
bool Parser::parseSequence(ExprList &Elts, const Token &Open, tok::Kind Closer,
                           bool &SawComma) {
  while (!at(Closer)) {
    ExprPtr E = parseTestOrStar();
    if (!E)
      return false;
    Elts.push_back(std::move(E));
    if (!consumeIf(tok::Comma))
      break;
    SawComma = true;
  }
  return expectCloser(Closer, Open,
                      Closer == tok::RPar   ? "',' or ')'"
                      : Closer == tok::RSqb ? "',' or ']'"
                                            : "',' or '}'");
}

/// True at the `for` of a comprehension after its first element.
bool Parser::atComprehension() const {
  return at(tok::kw_for) || (at(tok::kw_async) && peek().is(tok::kw_for));
}

// paren -> '(' [yield_expr | testlist_comp | test comp_for] ')'
ExprPtr Parser::parseParenAtom() {
  const Token &Open = consume();
  if (at(tok::kw_yield)) {
    ExprPtr Y = parseYield();
    return Y && expectCloser(tok::RPar, Open) ? std::move(Y) : nullptr;
  }
  ExprList Elts;
  if (!at(tok::RPar)) {
    ExprPtr First = parseTestOrStar();
    if (!First)
      return nullptr;
    if (atComprehension())
      return parseComprehension(ComprehensionExpr::CompKind::Generator,
                                Open.getLoc(), std::move(First), nullptr, Open,
                                tok::RPar);
    Elts.push_back(std::move(First));
  }
  bool SawComma = consumeIf(tok::Comma);
  if (SawComma || Elts.empty()) {
    if (!parseSequence(Elts, Open, tok::RPar, SawComma))
      return nullptr;
  } else if (!expectCloser(tok::RPar, Open, "',' or ')'")) {
    return nullptr;
  }
  SMRange R = rangeFrom(Open.getLoc());
  if (Elts.size() != 1 || SawComma)
    return make<TupleExpr>(R, std::move(Elts));
  ParenRanges[Elts.front().get()] = R;
  return rejectLoneStar(std::move(Elts.front()));
}

// list -> '[' [testlist_comp | test comp_for] ']'
ExprPtr Parser::parseListAtom() {
  const Token &Open = consume();
  ExprList Elts;
  if (!at(tok::RSqb)) {
    ExprPtr First = parseTestOrStar();
    if (!First)
      return nullptr;
    if (atComprehension())
      return parseComprehension(ComprehensionExpr::CompKind::List,
                                Open.getLoc(), std::move(First), nullptr, Open,
                                tok::RSqb);
    Elts.push_back(std::move(First));
  }
  bool SawComma = false;
  if (!Elts.empty() && !consumeIf(tok::Comma)) {
    if (!expectCloser(tok::RSqb, Open, "',' or ']'"))
      return nullptr;
  } else if (!parseSequence(Elts, Open, tok::RSqb, SawComma)) {
    return nullptr;
  }
  return make<ListExpr>(rangeFrom(Open.getLoc()), std::move(Elts));
}

// dict_or_set -> '{' '}'
//              | '{' (test ':' test | '**' expr) comp_for '}'
//              | '{' (test ':' test | '**' expr) (',' ...)* [','] '}'
//              | '{' (test | star_expr) comp_for '}'
//              | '{' (test | star_expr) (',' ...)* [','] '}'
ExprPtr Parser::parseDictAtom() {
  const Token &Open = consume();
  if (consumeIf(tok::RBrace))
    return make<DictExpr>(rangeFrom(Open.getLoc()), ExprList(), ExprList());
  if (at(tok::DoubleStar))
    return parseDictRest(Open, nullptr);
  ExprPtr First = parseTestOrStar();
  if (!First)
    return nullptr;
  if (at(tok::Colon))
    return parseDictRest(Open, std::move(First));
  if (atComprehension())
    return parseComprehension(ComprehensionExpr::CompKind::Set, Open.getLoc(),
                              std::move(First), nullptr, Open, tok::RBrace);
  ExprList Elts;
  Elts.push_back(std::move(First));
  bool SawComma = false;
  if (!consumeIf(tok::Comma)) {
    if (!expectCloser(tok::RBrace, Open, "',' or '}'"))
      return nullptr;
  } else if (!parseSequence(Elts, Open, tok::RBrace, SawComma)) {
    return nullptr;
  }
  return make<SetExpr>(rangeFrom(Open.getLoc()), std::move(Elts));
}

/// A dict display or comprehension after its first key (null when it
/// starts with `**`). A `**mapping` item has a null key.
ExprPtr Parser::parseDictRest(const Token &Open, ExprPtr FirstKey) {
  ExprList Keys, Values;
  bool First = true;
  while (First || !at(tok::RBrace)) {
    ExprPtr Key = First ? std::move(FirstKey) : nullptr;
    ExprPtr Value;
    if ((First && !Key) || (!First && at(tok::DoubleStar))) {
      consume();
      Value = parseBinary(1);
    } else {
      if (!First && !(Key = parseTest()))
        return nullptr;
      if (!expect(tok::Colon))
        return nullptr;
      Value = parseTest();
    }
    if (!Value)
      return nullptr;
    if (First && Key && atComprehension())
      return parseComprehension(ComprehensionExpr::CompKind::Dict,
                                Open.getLoc(), std::move(Key), std::move(Value),
                                Open, tok::RBrace);
    First = false;
    Keys.push_back(std::move(Key));
    Values.push_back(std::move(Value));
    if (!consumeIf(tok::Comma))
      break;
  }
  if (!expectCloser(tok::RBrace, Open, "',' or '}'"))
    return nullptr;
  return make<DictExpr>(rangeFrom(Open.getLoc()), std::move(Keys),
                        std::move(Values));
}

// yield_expr -> 'yield' ['from' test | testlist_star_expr]
ExprPtr Parser::parseYield() {
  SMLoc Start = consume().getLoc();
  bool From = consumeIf(tok::kw_from);
  ExprPtr Value;
  if (From && !(Value = parseTest()))
    return nullptr;
  if (!From && startsExpression(tok()) && !(Value = parseTestList(true)))
    return nullptr;
  return make<YieldExpr>(rangeFrom(Start), std::move(Value), From);
}

ExprPtr Parser::parseNumber() {
  const Token &T = consume();
  if (T.is(tok::Int))
    return make<IntLitExpr>(T.getRange(), T.IntValue);
  return make<FloatLitExpr>(T.getRange(), T.FloatValue);
}

//===----------------------------------------------------------------------===//
// Assignment targets
//===----------------------------------------------------------------------===//

/// Names, attributes and subscripts; with \p AllowUnpacking also (nested)
/// tuples and lists of targets and starred targets inside them.
bool Parser::checkTarget(const Expr &E, bool AllowUnpacking) {
  switch (E.getKind()) {
  case Expr::Kind::Name:
  case Expr::Kind::Attribute:
  case Expr::Kind::Subscript:
    return true;
  case Expr::Kind::Tuple:
  case Expr::Kind::List:
    if (!AllowUnpacking)
      break;
    for (const ExprPtr &Elt : llvm::isa<TupleExpr>(E)
                                  ? llvm::cast<TupleExpr>(E).Elts
                                  : llvm::cast<ListExpr>(E).Elts)
      if (!checkTarget(*Elt, true))
        return false;
    return true;
  case Expr::Kind::Starred:
    if (!AllowUnpacking)
      break;
    return checkTarget(*llvm::cast<StarredExpr>(E).Value, false);
  default:
    break;
  }
  Diags.report(rangeOf(E), diag::err_invalid_assign_target)
      << describeForAssign(E);
  return false;
}

llvm::StringRef Parser::describeForAssign(const Expr &E) {
  switch (E.getKind()) {
  case Expr::Kind::Call:
    return "function call";
  case Expr::Kind::IntLit:
  case Expr::Kind::FloatLit:
  case Expr::Kind::StringLit:
    return "literal";
  case Expr::Kind::BoolLit:
    return llvm::cast<BoolLitExpr>(E).Value ? "True" : "False";
  case Expr::Kind::NoneLit:
    return "None";
  case Expr::Kind::Ellipsis:
    return "ellipsis";
  case Expr::Kind::Compare:
    return "comparison";
  case Expr::Kind::IfExp:
    return "conditional expression";
  case Expr::Kind::Lambda:
    return "lambda";
  case Expr::Kind::Dict:
    return "dict literal";
  case Expr::Kind::Tuple:
    return "tuple";
  case Expr::Kind::List:
    return "list";
  case Expr::Kind::Starred:
    return "starred expression";
  default:
    return "expression";
  }
}
