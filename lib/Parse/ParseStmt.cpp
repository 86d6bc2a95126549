//===- ParseStmt.cpp - Statements -----------------------------------------===//
//
// Python 3's statement grammar. Simple statements that fail return null and
// parseSimpleStatements() recovers at the end of the line. Compound
// statements recover by themselves (their clauses span several lines) and
// return null only when nothing is left to add to the tree.
//
//===----------------------------------------------------------------------===//

#include "StmtNodes.h"
#include "tilec/Parse/Parser.h"
#include "llvm/ADT/StringSet.h"
#include <optional>

using namespace tilec;
using namespace tilec::ast;
using llvm::SMLoc;
using llvm::SMRange;

using tilec::parse::make;

namespace {

std::optional<BinaryOp> augAssignOp(tok::Kind K) {
  switch (K) {
  case tok::PlusEqual:
    return BinaryOp::Add;
  case tok::MinEqual:
    return BinaryOp::Sub;
  case tok::StarEqual:
    return BinaryOp::Mul;
  case tok::SlashEqual:
    return BinaryOp::Div;
  case tok::DoubleSlashEqual:
    return BinaryOp::FloorDiv;
  case tok::PercentEqual:
    return BinaryOp::Mod;
  case tok::DoubleStarEqual:
    return BinaryOp::Pow;
  case tok::AtEqual:
    return BinaryOp::MatMul;
  case tok::AmperEqual:
    return BinaryOp::BitAnd;
  case tok::VBarEqual:
    return BinaryOp::BitOr;
  case tok::CircumflexEqual:
    return BinaryOp::BitXor;
  case tok::LeftShiftEqual:
    return BinaryOp::LShift;
  case tok::RightShiftEqual:
    return BinaryOp::RShift;
  default:
    return std::nullopt;
  }
}
} // namespace

//===----------------------------------------------------------------------===//
// Statement lists, blocks and recovery
//===----------------------------------------------------------------------===//

// stmt          -> compound_stmt | simple_stmts
// compound_stmt -> if_stmt | while_stmt | for_stmt | with_stmt | funcdef
//                | decorated | classdef | try_stmt | async_stmt
void Parser::parseStatement(StmtList &Out) {
  NestingGuard G(*this);
  if (!G)
    return skipLine();
  StmtPtr S;
  switch (tok().Kind) {
  case tok::Indent:
    Diags.report(tok().getRange(), diag::err_lex_unexpected_indent);
    return parseIndentedBlock(Out);
  case tok::kw_if:
    S = parseIf();
    break;
  case tok::kw_while:
    S = parseWhile();
    break;
  case tok::kw_for:
    S = parseFor();
    break;
  case tok::kw_with:
    S = parseWith();
    break;
  case tok::kw_def:
    S = parseFunctionDef({});
    break;
  case tok::At:
    S = parseDecorated();
    break;
  case tok::kw_class:
    S = parseClassDef({});
    break;
  case tok::kw_try:
    S = parseTry();
    break;
  case tok::kw_async:
    S = parseAsync();
    break;
  case tok::kw_elif:
  case tok::kw_else:
  case tok::kw_except:
  case tok::kw_finally:
    Diags.report(tok().getRange(), diag::err_unexpected_token)
        << tok::describe(tok().Kind);
    return recover();
  default:
    return parseSimpleStatements(Out);
  }
  if (S)
    Out.push_back(std::move(S));
}

// simple_stmts -> simple_stmt (';' simple_stmt)* [';'] NEWLINE
void Parser::parseSimpleStatements(StmtList &Out) {
  while (true) {
    StmtPtr S = parseSimpleStatement();
    if (!S)
      return recover();
    Out.push_back(std::move(S));
    if (!consumeIf(tok::Semi) || at(tok::Newline))
      break;
  }
  if (consumeIf(tok::Newline) || at(tok::Eof))
    return;
  errorExpected("end of line");
  recover();
}

// block -> NEWLINE indented_block | simple_stmts
void Parser::parseBlock(llvm::StringRef Context, StmtList &Body) {
  if (!consumeIf(tok::Newline))
    return parseSimpleStatements(Body);
  if (at(tok::Indent))
    return parseIndentedBlock(Body);
  if (!inSwallowedTail())
    Diags.report(tok().getRange(), diag::err_expected_indent) << Context;
}

// indented_block -> INDENT stmt+ DEDENT
void Parser::parseIndentedBlock(StmtList &Body) {
  consume();
  while (!at(tok::Dedent) && !at(tok::Eof) && !stopped()) {
    if (!consumeIf(tok::Newline))
      parseStatement(Body);
  }
  consumeIf(tok::Dedent);
}

// else_clause -> 'else' ':' block
void Parser::parseElse(StmtList &Body) {
  if (!consumeIf(tok::kw_else))
    return;
  if (!expect(tok::Colon))
    return recover();
  parseBlock("'else'", Body);
}

/// Skips the rest of the logical line after an error. The block the line
/// opens, if any, is still parsed for errors, then dropped.
void Parser::recover() {
  while (!at(tok::Newline) && !at(tok::Eof))
    consume();
  consumeIf(tok::Newline);
  if (!at(tok::Indent))
    return;
  if (Nesting >= MaxNesting)
    return skipIndentedBlock();
  StmtList Dropped;
  parseIndentedBlock(Dropped);
}

/// Skips the rest of the line and the block it opens, without parsing.
void Parser::skipLine() {
  while (!at(tok::Newline) && !at(tok::Eof))
    consume();
  consumeIf(tok::Newline);
  if (at(tok::Indent))
    skipIndentedBlock();
}

void Parser::skipIndentedBlock() {
  unsigned Depth = 0;
  do {
    if (at(tok::Eof))
      return;
    if (at(tok::Indent))
      ++Depth;
    else if (at(tok::Dedent))
      --Depth;
    consume();
  } while (Depth > 0);
}

/// Recovery for a compound statement whose header is broken: its block and
/// a following `else` clause are parsed and dropped.
StmtPtr Parser::failCompound() {
  recover();
  StmtList Dropped;
  parseElse(Dropped);
  return nullptr;
}

//===----------------------------------------------------------------------===//
// Simple statements
//===----------------------------------------------------------------------===//

// simple_stmt -> expr_stmt | 'pass' | 'break' | 'continue' | return_stmt
//              | raise_stmt | import_name | import_from | assert_stmt
//              | global_stmt | nonlocal_stmt | del_stmt
StmtPtr Parser::parseSimpleStatement() {
  switch (tok().Kind) {
  case tok::kw_pass:
    return make<PassStmt>(consume().getRange());
  case tok::kw_break:
    return make<BreakStmt>(consume().getRange());
  case tok::kw_continue:
    return make<ContinueStmt>(consume().getRange());
  case tok::kw_return:
    return parseReturn();
  case tok::kw_raise:
    return parseRaise();
  case tok::kw_import:
    return parseImport();
  case tok::kw_from:
    return parseFromImport();
  case tok::kw_assert:
    return parseAssert();
  case tok::kw_global:
  case tok::kw_nonlocal:
    return parseScopeDecl();
  case tok::kw_del:
    return parseDel();
  default:
    return parseExprStatement();
  }
}

// expr_stmt -> testlist_star_expr
//              (annassign | augassign testlist | ('=' testlist_star_expr)*)
StmtPtr Parser::parseExprStatement() {
  SMLoc Start = tok().getLoc();
  ExprPtr First = parseTestList(/*AllowStar=*/true);
  if (!First)
    return nullptr;
  if (at(tok::Colon))
    return parseAnnAssign(std::move(First));
  if (std::optional<BinaryOp> Op = augAssignOp(tok().Kind))
    return parseAugAssign(std::move(First), *Op);
  if (at(tok::Equal))
    return parseAssignRest(std::move(First));
  return make<ExprStmt>(rangeFrom(Start), std::move(First));
}

// assignment -> (testlist_star_expr '=')+ testlist_star_expr
StmtPtr Parser::parseAssignRest(ExprPtr First) {
  SMLoc Start = startOf(*First);
  ExprList Targets;
  Targets.push_back(std::move(First));
  while (consumeIf(tok::Equal)) {
    ExprPtr E = parseTestList(/*AllowStar=*/true);
    if (!E)
      return nullptr;
    Targets.push_back(std::move(E));
  }
  ExprPtr Value = std::move(Targets.back());
  Targets.pop_back();
  for (const ExprPtr &T : Targets)
    if (!checkTarget(*T, /*AllowUnpacking=*/true))
      return nullptr;
  return make<AssignStmt>(rangeFrom(Start), std::move(Targets),
                          std::move(Value));
}

// augassign -> target ('+=' | '-=' | ... | '>>=') testlist
StmtPtr Parser::parseAugAssign(ExprPtr Target, BinaryOp Op) {
  SMLoc Start = startOf(*Target);
  if (!checkTarget(*Target, /*AllowUnpacking=*/false))
    return nullptr;
  SMLoc OpLoc = consume().getLoc();
  ExprPtr Value = parseTestList(/*AllowStar=*/false);
  if (!Value)
    return nullptr;
  return make<AugAssignStmt>(rangeFrom(Start), std::move(Target), Op,
                             std::move(Value), OpLoc);
}

// annassign -> target ':' test ['=' testlist_star_expr]
StmtPtr Parser::parseAnnAssign(ExprPtr Target) {
  SMLoc Start = startOf(*Target);
  if (!checkTarget(*Target, /*AllowUnpacking=*/false))
    return nullptr;
  consume();
  ExprPtr Annotation = parseTest();
  if (!Annotation)
    return nullptr;
  ExprPtr Value;
  if (consumeIf(tok::Equal) && !(Value = parseTestList(/*AllowStar=*/true)))
    return nullptr;
  return make<AnnAssignStmt>(rangeFrom(Start), std::move(Target),
                             std::move(Annotation), std::move(Value));
}

// return_stmt -> 'return' [testlist_star_expr]
StmtPtr Parser::parseReturn() {
  SMLoc Start = consume().getLoc();
  ExprPtr Value;
  if (startsExpression(tok()) && !(Value = parseTestList(true)))
    return nullptr;
  return make<ReturnStmt>(rangeFrom(Start), std::move(Value));
}

// raise_stmt -> 'raise' [test ['from' test]]
StmtPtr Parser::parseRaise() {
  SMLoc Start = consume().getLoc();
  ExprPtr Exc, Cause;
  if (startsExpression(tok()) && !(Exc = parseTest()))
    return nullptr;
  if (Exc && consumeIf(tok::kw_from) && !(Cause = parseTest()))
    return nullptr;
  return make<RaiseStmt>(rangeFrom(Start), std::move(Exc), std::move(Cause));
}

// global_stmt   -> 'global' NAME (',' NAME)*
// nonlocal_stmt -> 'nonlocal' NAME (',' NAME)*
StmtPtr Parser::parseScopeDecl() {
  bool IsGlobal = at(tok::kw_global);
  SMLoc Start = consume().getLoc();
  std::vector<std::string> Names;
  do {
    if (!at(tok::Name)) {
      errorExpected("name");
      return nullptr;
    }
    Names.push_back(consume().Text.str());
  } while (consumeIf(tok::Comma));
  return std::make_unique<ScopeDeclStmt>(rangeFrom(Start), IsGlobal,
                                         std::move(Names));
}

// del_stmt -> 'del' exprlist
StmtPtr Parser::parseDel() {
  SMLoc Start = consume().getLoc();
  ExprPtr Targets = parseExprList();
  if (!Targets || !checkTarget(*Targets, /*AllowUnpacking=*/true))
    return nullptr;
  ExprList List;
  if (auto *T = llvm::dyn_cast<TupleExpr>(Targets.get());
      T && !isParenthesized(*T))
    List = std::move(T->Elts);
  else
    List.push_back(std::move(Targets));
  return make<DeleteStmt>(rangeFrom(Start), std::move(List));
}

// assert_stmt -> 'assert' test [',' test]
StmtPtr Parser::parseAssert() {
  SMLoc Start = consume().getLoc();
  ExprPtr Test = parseTest();
  if (!Test)
    return nullptr;
  ExprPtr Msg;
  if (consumeIf(tok::Comma) && !(Msg = parseTest()))
    return nullptr;
  return make<AssertStmt>(rangeFrom(Start), std::move(Test), std::move(Msg));
}

// dotted_name -> NAME ('.' NAME)*
bool Parser::parseDottedName(std::string &Name, SMRange &Range) {
  SMLoc Start = tok().getLoc();
  do {
    if (!at(tok::Name)) {
      errorExpected("module name");
      return false;
    }
    if (!Name.empty())
      Name += '.';
    Name += consume().Text;
  } while (consumeIf(tok::Dot));
  Range = rangeFrom(Start);
  return true;
}

// dotted_as_name -> dotted_name ['as' NAME]
// import_as_name -> NAME ['as' NAME]
bool Parser::parseImportAlias(ImportAlias &Alias, bool Dotted) {
  SMLoc Start = tok().getLoc();
  if (Dotted) {
    if (!parseDottedName(Alias.Name, Alias.Range))
      return false;
  } else {
    if (!at(tok::Name)) {
      errorExpected("name to import");
      return false;
    }
    Alias.Name = consume().Text.str();
  }
  if (consumeIf(tok::kw_as)) {
    if (!at(tok::Name)) {
      errorExpected("name after 'as'");
      return false;
    }
    Alias.AsName = consume().Text.str();
  }
  Alias.Range = rangeFrom(Start);
  return true;
}

// import_name -> 'import' dotted_as_name (',' dotted_as_name)*
StmtPtr Parser::parseImport() {
  SMLoc Start = consume().getLoc();
  std::vector<ImportAlias> Names;
  do {
    ImportAlias A;
    if (!parseImportAlias(A, /*Dotted=*/true))
      return nullptr;
    Names.push_back(std::move(A));
  } while (consumeIf(tok::Comma));
  return make<ImportStmt>(rangeFrom(Start), std::move(Names));
}

// import_from -> 'from' ('.'* dotted_name | '.'+) 'import'
//                ('*' | '(' import_as_names [','] ')' | import_as_names)
// import_as_names -> import_as_name (',' import_as_name)*
StmtPtr Parser::parseFromImport() {
  SMLoc Start = consume().getLoc();
  std::string Module;
  while (at(tok::Dot) || at(tok::Ellipsis))
    Module += consume().Text;
  if (at(tok::Name) || Module.empty()) {
    std::string Dotted;
    SMRange Range;
    if (!parseDottedName(Dotted, Range))
      return nullptr;
    Module += Dotted;
  }
  if (!expect(tok::kw_import))
    return nullptr;
  std::vector<ImportAlias> Names;
  if (at(tok::Star)) {
    Names.push_back({"*", "", consume().getRange()});
    return make<ImportFromStmt>(rangeFrom(Start), std::move(Module),
                                std::move(Names));
  }
  const Token *Open = at(tok::LPar) ? &consume() : nullptr;
  do {
    if (Open && at(tok::RPar))
      break;
    ImportAlias A;
    if (!parseImportAlias(A, /*Dotted=*/false))
      return nullptr;
    Names.push_back(std::move(A));
  } while (consumeIf(tok::Comma));
  if (Open && !expectCloser(tok::RPar, *Open, "',' or ')'"))
    return nullptr;
  return make<ImportFromStmt>(rangeFrom(Start), std::move(Module),
                              std::move(Names));
}

//===----------------------------------------------------------------------===//
// Compound statements
//===----------------------------------------------------------------------===//

// if_stmt -> 'if' test ':' block ('elif' test ':' block)* ['else' ':' block]
//
// Clauses are parsed in a loop and nested afterwards, so a long elif chain
// does not recurse. A clause with a broken header is dropped.
StmtPtr Parser::parseIf() {
  struct Clause {
    SMLoc Start;
    ExprPtr Cond;
    StmtList Body;
  };
  std::vector<Clause> Clauses;
  bool FirstFailed = false;
  ChainGuard Chain(*this);
  do {
    bool IsElif = at(tok::kw_elif);
    if (IsElif && !Chain.add()) {
      while (at(tok::kw_elif) || at(tok::kw_else))
        skipLine();
      return nullptr;
    }
    Clause C;
    C.Start = consume().getLoc();
    C.Cond = parseTest();
    if (!C.Cond || !expect(tok::Colon)) {
      FirstFailed |= !IsElif;
      recover();
      continue;
    }
    parseBlock(IsElif ? "'elif' statement" : "'if' statement", C.Body);
    Clauses.push_back(std::move(C));
  } while (at(tok::kw_elif) && !stopped());
  StmtList Else;
  parseElse(Else);
  if (FirstFailed || Clauses.empty())
    return nullptr;
  SMLoc End = PrevEnd;
  for (size_t I = Clauses.size(); I-- > 0;) {
    auto If = std::make_unique<IfStmt>(
        SMRange(Clauses[I].Start, End), std::move(Clauses[I].Cond),
        std::move(Clauses[I].Body), std::move(Else));
    If->IsElif = I > 0;
    Else.clear();
    Else.push_back(std::move(If));
  }
  return std::move(Else.front());
}

// while_stmt -> 'while' test ':' block ['else' ':' block]
StmtPtr Parser::parseWhile() {
  SMLoc Start = consume().getLoc();
  ExprPtr Cond = parseTest();
  if (!Cond || !expect(tok::Colon))
    return failCompound();
  StmtList Body, Else;
  parseBlock("'while' statement", Body);
  parseElse(Else);
  return make<WhileStmt>(rangeFrom(Start), std::move(Cond), std::move(Body),
                         std::move(Else));
}

// for_stmt -> 'for' exprlist 'in' testlist ':' block ['else' ':' block]
StmtPtr Parser::parseFor() {
  SMLoc Start = consume().getLoc();
  ExprPtr Target = parseExprList();
  if (!Target || !checkTarget(*Target, /*AllowUnpacking=*/true) ||
      !expect(tok::kw_in))
    return failCompound();
  ExprPtr Iter = parseTestList(/*AllowStar=*/false);
  if (!Iter || !expect(tok::Colon))
    return failCompound();
  StmtList Body, Else;
  parseBlock("'for' statement", Body);
  parseElse(Else);
  return make<ForStmt>(rangeFrom(Start), std::move(Target), std::move(Iter),
                       std::move(Body), std::move(Else));
}

// with_stmt -> 'with' with_item (',' with_item)* ':' block
StmtPtr Parser::parseWith() {
  SMLoc Start = consume().getLoc();
  std::vector<WithItem> Items;
  do {
    if (!parseWithItem(Items))
      return failCompound();
  } while (consumeIf(tok::Comma));
  if (!expect(tok::Colon))
    return failCompound();
  StmtList Body;
  parseBlock("'with' statement", Body);
  return make<WithStmt>(rangeFrom(Start), std::move(Items), std::move(Body));
}

// with_item -> test ['as' expr]
bool Parser::parseWithItem(std::vector<WithItem> &Items) {
  WithItem Item;
  Item.Context = parseTest();
  if (!Item.Context)
    return false;
  if (consumeIf(tok::kw_as)) {
    Item.Target = parseBinary(1);
    if (!Item.Target || !checkTarget(*Item.Target, /*AllowUnpacking=*/true))
      return false;
  }
  Items.push_back(std::move(Item));
  return true;
}

// try_stmt -> 'try' ':' block (except_clause ':' block)+ ['else' ':' block]
//               ['finally' ':' block]
//           | 'try' ':' block 'finally' ':' block
StmtPtr Parser::parseTry() {
  SMLoc Start = consume().getLoc();
  if (!expect(tok::Colon))
    return failCompound();
  StmtList Body, Else, Finally;
  parseBlock("'try' statement", Body);
  std::vector<ExceptHandler> Handlers;
  while (at(tok::kw_except) && !stopped()) {
    ExceptHandler H;
    if (!parseExceptClause(H))
      return nullptr;
    Handlers.push_back(std::move(H));
  }
  if (!Handlers.empty())
    parseElse(Else);
  if (consumeIf(tok::kw_finally)) {
    if (!expect(tok::Colon))
      return failCompound();
    parseBlock("'finally'", Finally);
  } else if (Handlers.empty()) {
    errorExpected("'except' or 'finally' block");
    return nullptr;
  }
  return make<TryStmt>(rangeFrom(Start), std::move(Body), std::move(Handlers),
                       std::move(Else), std::move(Finally));
}

// except_clause -> 'except' ['*'] [test ['as' NAME]]
bool Parser::parseExceptClause(ExceptHandler &H) {
  SMLoc Start = consume().getLoc();
  consumeIf(tok::Star);
  if (!at(tok::Colon)) {
    if (!(H.Type = parseTest()))
      return failCompound(), false;
    if (consumeIf(tok::kw_as)) {
      if (!at(tok::Name)) {
        errorExpected("name after 'as'");
        return failCompound(), false;
      }
      H.Name = consume().Text.str();
    }
  }
  H.Range = rangeFrom(Start);
  if (!expect(tok::Colon))
    return failCompound(), false;
  parseBlock("'except' clause", H.Body);
  return true;
}

// async_stmt -> 'async' (funcdef | with_stmt | for_stmt)
StmtPtr Parser::parseAsync() {
  consume();
  StmtPtr S;
  if (at(tok::kw_def))
    S = parseFunctionDef({});
  else if (at(tok::kw_with))
    S = parseWith();
  else if (at(tok::kw_for))
    S = parseFor();
  else {
    errorExpected("'def', 'with' or 'for' after 'async'");
    return failCompound();
  }
  if (auto *F = llvm::dyn_cast_or_null<FunctionDefStmt>(S.get()))
    F->IsAsync = true;
  else if (auto *W = llvm::dyn_cast_or_null<WithStmt>(S.get()))
    W->IsAsync = true;
  else if (auto *Fo = llvm::dyn_cast_or_null<ForStmt>(S.get()))
    Fo->IsAsync = true;
  return S;
}
