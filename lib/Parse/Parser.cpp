//===- Parser.cpp - Parser driver, tokens and error handling --------------===//
//
// The grammar lives in ParseStmt.cpp and ParseExpr.cpp. This file holds the
// token cursor, the depth limits and the error reporting they share.
//
//===----------------------------------------------------------------------===//

#include "tilec/Parse/Parser.h"

using namespace tilec;
using namespace tilec::ast;

std::unique_ptr<Module> tilec::parseFile(llvm::SourceMgr &SM, unsigned BufferID,
                                         DiagnosticEngine &Diags) {
  Lexer Lex(SM, BufferID, Diags);
  Parser P(Lex, Diags);
  return P.parseModule();
}

/// The whole file is lexed first: lexer diagnostics come before parser ones,
/// and the parser may look ahead freely.
Parser::Parser(Lexer &Lex, DiagnosticEngine &Diags)
    : Lex(Lex), Diags(Diags), ErrorsAtStart(Diags.numErrors()) {
  do
    Toks.push_back(Lex.next());
  while (Toks.back().isNot(tok::Eof));
  PrevEnd = Toks.front().getLoc();
}

// file_input -> (NEWLINE | stmt)* ENDMARKER
std::unique_ptr<Module> Parser::parseModule() {
  auto M = std::make_unique<Module>();
  const llvm::MemoryBuffer *Buf =
      Lex.getSourceMgr().getMemoryBuffer(Lex.getBufferID());
  M->FileName = Buf->getBufferIdentifier().str();
  M->BufferID = Lex.getBufferID();
  while (!at(tok::Eof) && !stopped()) {
    if (consumeIf(tok::Newline))
      continue;
    parseStatement(M->Body);
  }
  return M;
}

//===----------------------------------------------------------------------===//
// Tokens
//===----------------------------------------------------------------------===//

const Token &Parser::peek(unsigned N) const {
  return Toks[std::min(Pos + N, Toks.size() - 1)];
}

const Token &Parser::consume() {
  const Token &T = Toks[Pos];
  if (T.isNot(tok::Newline) && T.isNot(tok::Indent) && T.isNot(tok::Dedent) &&
      T.isNot(tok::Eof))
    PrevEnd = T.getEndLoc();
  if (Pos + 1 < Toks.size())
    ++Pos;
  return T;
}

bool Parser::consumeIf(tok::Kind K) {
  if (!at(K))
    return false;
  consume();
  return true;
}

bool Parser::expect(tok::Kind K) {
  if (consumeIf(K))
    return true;
  errorExpected(tok::describe(K));
  return false;
}

/// Like expect(), plus a note at the bracket \p K would close. \p What
/// overrides what the message says was expected.
bool Parser::expectCloser(tok::Kind K, const Token &Open,
                          llvm::StringRef What) {
  if (consumeIf(K))
    return true;
  if (inSwallowedTail())
    return false;
  errorExpected(What.empty() ? tok::describe(K) : What);
  Diags.report(Open.getLoc(), diag::note_to_match) << Open.Text;
  return false;
}

/// True when the current token lies in the part of the file an unclosed
/// bracket or string swallowed: errors there are noise.
bool Parser::inSwallowedTail() const {
  const char *From = Lex.getSwallowedFrom();
  return From && tok().Text.data() >= From;
}

/// Reports `expected <What>` at the current token, unless the lexer already
/// reported why the rest of the file is garbled.
void Parser::errorExpected(llvm::StringRef What) {
  if (inSwallowedTail())
    return;
  Diags.report(tok().getRange(), diag::err_expected) << What;
}

/// The limit counts this file's errors only: a driver may share one engine
/// across several inputs (--split-input-file).
bool Parser::stopped() const {
  return Diags.numErrors() - ErrorsAtStart >= ErrorLimit;
}

//===----------------------------------------------------------------------===//
// Depth limits and ranges
//===----------------------------------------------------------------------===//

bool Parser::enterNesting() {
  ++Nesting;
  ++TreeDepth;
  return checkDepth();
}

bool Parser::checkDepth() {
  if (Nesting <= MaxNesting && TreeDepth <= MaxTreeDepth)
    return true;
  if (!ReportedTooDeep)
    Diags.report(tok().getLoc(), diag::err_nesting_too_deep)
        << (Nesting > MaxNesting ? MaxNesting : MaxTreeDepth);
  ReportedTooDeep = true;
  return false;
}

llvm::SMRange Parser::rangeOf(const Expr &E) const {
  auto It = ParenRanges.find(&E);
  return It == ParenRanges.end() ? E.getRange() : It->second;
}
