//===- ParseDef.cpp - Function and class definitions ----------------------===//
//
// Decorators, `def` with its parameter list, and `class`. Parameter lists
// follow Python 3.8+: positional-only `/`, keyword-only after `*` or
// `*args`, annotations and defaults.
//
//===----------------------------------------------------------------------===//

#include "StmtNodes.h"
#include "tilec/Parse/Parser.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"

using namespace tilec;
using namespace tilec::ast;
using llvm::SMLoc;
using llvm::SMRange;

using tilec::parse::make;

// decorated -> ('@' test NEWLINE)+ (funcdef | classdef | async_funcdef)
StmtPtr Parser::parseDecorated() {
  ExprList Decorators;
  while (at(tok::At)) {
    consume();
    ExprPtr D = parseTest();
    if (!D || !consumeIf(tok::Newline)) {
      if (D)
        errorExpected("end of line after decorator");
      recover();
      return nullptr;
    }
    Decorators.push_back(std::move(D));
  }
  if (at(tok::kw_class))
    return parseClassDef(std::move(Decorators));
  if (at(tok::kw_async) && peek().is(tok::kw_def)) {
    consume();
    StmtPtr S = parseFunctionDef(std::move(Decorators));
    if (auto *F = llvm::dyn_cast_or_null<FunctionDefStmt>(S.get()))
      F->IsAsync = true;
    return S;
  }
  if (!at(tok::kw_def)) {
    errorExpected("function or class definition after decorator");
    return nullptr;
  }
  return parseFunctionDef(std::move(Decorators));
}

// funcdef -> 'def' NAME '(' [params] ')' ['->' test] ':' block
StmtPtr Parser::parseFunctionDef(ExprList Decorators) {
  SMLoc Start = consume().getLoc();
  if (!at(tok::Name)) {
    errorExpected("function name");
    return failCompound();
  }
  const Token &Name = consume();
  if (!at(tok::LPar)) {
    errorExpected("'('");
    return failCompound();
  }
  const Token &Open = consume();
  std::vector<Param> Params;
  if (!parseParams(Params, tok::RPar, /*AllowAnnotations=*/true, &Open))
    return failCompound();
  ExprPtr Returns;
  if (consumeIf(tok::RArrow) && !(Returns = parseTest()))
    return failCompound();
  if (!expect(tok::Colon))
    return failCompound();
  StmtList Body;
  parseBlock("function definition", Body);
  return make<FunctionDefStmt>(
      rangeFrom(Start), Name.Text.str(), Name.getRange(), std::move(Params),
      std::move(Decorators), std::move(Returns), std::move(Body));
}

// params -> [param (',' param)* [',']] Closer
bool Parser::parseParams(std::vector<Param> &Params, tok::Kind Closer,
                         bool AllowAnnotations, const Token *Open) {
  while (!at(Closer)) {
    if (!parseParam(Params, AllowAnnotations))
      return false;
    if (!consumeIf(tok::Comma))
      break;
  }
  bool Closed =
      Open ? expectCloser(Closer, *Open, "',' or ')'") : expect(Closer);
  if (Closed)
    checkParams(Params);
  return Closed;
}

// param -> NAME [':' test] ['=' test] | '*' [NAME [':' test]]
//        | '**' NAME [':' test] | '/'
// (annotations only in `def`, defaults only on plain parameters; a bare `*`
// is kept as a VarArgs parameter named "*" that binds nothing)
bool Parser::parseParam(std::vector<Param> &Params, bool AllowAnnotations) {
  Param P;
  SMLoc Start = tok().getLoc();
  // `/` ends the positional-only parameters; tilec binds them as ordinary
  // ones, which accepts every call Python accepts.
  if (consumeIf(tok::Slash))
    return true;
  bool KwOnly = llvm::any_of(Params, [](const Param &Q) {
    return Q.KwOnly || Q.K == Param::Kind::VarArgs;
  });
  if (consumeIf(tok::Star)) {
    P.K = Param::Kind::VarArgs;
    // A bare `*`: what follows is keyword-only; no parameter of its own.
    if (at(tok::Comma) || at(tok::RPar) || at(tok::Colon)) {
      if (KwOnly)
        Diags.report(Start, diag::err_unexpected_token)
            << "second '*' parameter";
      P.Name = "*";
      P.Range = rangeFrom(Start);
      P.KwOnly = true;
      Params.push_back(std::move(P));
      return true;
    }
  } else if (consumeIf(tok::DoubleStar)) {
    P.K = Param::Kind::KwArgs;
  }
  P.KwOnly = KwOnly && P.K == Param::Kind::Normal;
  if (!at(tok::Name)) {
    errorExpected("parameter name");
    return false;
  }
  P.Name = consume().Text.str();
  if (AllowAnnotations && consumeIf(tok::Colon) &&
      !(P.Annotation = parseTest()))
    return false;
  if (P.K == Param::Kind::Normal && consumeIf(tok::Equal) &&
      !(P.Default = parseTest()))
    return false;
  P.Range = rangeFrom(Start);
  Params.push_back(std::move(P));
  return true;
}

/// Python's rules on parameter lists: unique names, defaults last among
/// positional parameters, nothing after `**kwargs`, one `*`.
void Parser::checkParams(const std::vector<Param> &Params) {
  llvm::StringSet<> Seen;
  bool SawDefault = false, SawVarArgs = false, SawKwArgs = false;
  for (const Param &P : Params) {
    if (P.Name != "*" && !Seen.insert(P.Name).second)
      Diags.report(P.Range, diag::err_duplicate_param) << P.Name;
    if (SawKwArgs) {
      Diags.report(P.Range, diag::err_unexpected_token)
          << "parameter after '**' parameter";
    } else if (P.K == Param::Kind::KwArgs) {
      SawKwArgs = true;
    } else if (P.K == Param::Kind::VarArgs) {
      if (SawVarArgs)
        Diags.report(P.Range, diag::err_unexpected_token)
            << "second '*' parameter";
      SawVarArgs = true;
    } else if (P.KwOnly) {
      continue;
    } else if (P.Default) {
      SawDefault = true;
    } else if (SawDefault) {
      Diags.report(P.Range, diag::err_default_param_order);
    }
  }
}

// classdef -> 'class' NAME ['(' [arglist] ')'] ':' block
StmtPtr Parser::parseClassDef(ExprList Decorators) {
  SMLoc Start = consume().getLoc();
  if (!at(tok::Name)) {
    errorExpected("class name");
    return failCompound();
  }
  const Token &Name = consume();
  ExprList Bases;
  std::vector<Keyword> Keywords;
  if (at(tok::LPar)) {
    const Token &Open = consume();
    while (!at(tok::RPar)) {
      if (!parseArgument(Bases, Keywords))
        return failCompound();
      if (!consumeIf(tok::Comma))
        break;
    }
    if (!expectCloser(tok::RPar, Open, "',' or ')'"))
      return failCompound();
  }
  if (!expect(tok::Colon))
    return failCompound();
  StmtList Body;
  parseBlock("class definition", Body);
  return make<ClassDefStmt>(rangeFrom(Start), Name.Text.str(), Name.getRange(),
                            std::move(Bases), std::move(Keywords),
                            std::move(Decorators), std::move(Body));
}
