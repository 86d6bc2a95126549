//===- ParseFString.cpp - String literals and f-strings -------------------===//
//
// Adjacent string literals are joined; when any of them has an `f` prefix
// the result is a JoinedStrExpr. The lexer has already split each f-string
// into literal pieces and replacement fields; a field's expression is
// lexed and parsed again here from its range of the source buffer, so its
// nodes and diagnostics point into the f-string.
//
//===----------------------------------------------------------------------===//

#include "tilec/Parse/Parser.h"

using namespace tilec;
using namespace tilec::ast;
using llvm::SMLoc;
using llvm::SMRange;

namespace {
void appendLiteral(std::vector<FStringPart> &Parts, llvm::StringRef Text) {
  if (Text.empty())
    return;
  if (Parts.empty() || Parts.back().Value)
    Parts.emplace_back();
  Parts.back().Literal += Text.str();
}
} // namespace

// strings -> STRING+   (adjacent literals are joined)
ExprPtr Parser::parseStrings() {
  SMLoc Start = tok().getLoc();
  std::vector<FStringPart> Parts;
  bool AnyF = false, OK = true;
  while (at(tok::String)) {
    const Token &T = consume();
    if (!T.FString) {
      appendLiteral(Parts, T.StrValue);
      continue;
    }
    AnyF = true;
    OK &= convertFString(*T.FString, Parts);
  }
  if (!OK)
    return nullptr;
  SMRange R = rangeFrom(Start);
  if (AnyF)
    return std::make_unique<JoinedStrExpr>(R, std::move(Parts));
  return std::make_unique<StringLitExpr>(
      R, Parts.empty() ? std::string() : std::move(Parts.front().Literal));
}

/// Appends the parts of one f-string (or format spec) to \p Parts.
bool Parser::convertFString(const std::vector<FStringPiece> &Pieces,
                            std::vector<FStringPart> &Parts) {
  for (const FStringPiece &P : Pieces) {
    if (!P.IsField) {
      appendLiteral(Parts, P.Literal);
      continue;
    }
    FStringPart Part;
    if (!(Part.Value = parseFieldExpr(P.ExprBegin, P.ExprEnd)))
      return false;
    Part.Conversion = P.Conversion;
    if (P.Debug) {
      // `{x=}` prints the expression's text, '=', then repr(x) unless a
      // conversion or format spec says otherwise.
      appendLiteral(Parts,
                    llvm::StringRef(P.ExprBegin, P.DebugEnd - P.ExprBegin));
      if (!Part.Conversion && P.Spec.empty())
        Part.Conversion = 'r';
    }
    if (!P.Spec.empty()) {
      std::vector<FStringPart> Spec;
      if (!convertFString(P.Spec, Spec))
        return false;
      SMRange SR(SMLoc::getFromPointer(P.ExprEnd),
                 SMLoc::getFromPointer(P.ExprEnd));
      Part.FormatSpec = std::make_unique<JoinedStrExpr>(SR, std::move(Spec));
    }
    Parts.push_back(std::move(Part));
  }
  return true;
}

/// The expression of a replacement field, [Begin, End) of the buffer.
ExprPtr Parser::parseFieldExpr(const char *Begin, const char *End) {
  Lexer Sub(Lex.getSourceMgr(), Lex.getBufferID(), Diags, Begin, End);
  Parser P(Sub, Diags);
  P.Nesting = Nesting;
  P.TreeDepth = TreeDepth;
  ExprPtr E = P.at(tok::kw_yield) ? P.parseYield() : P.parseTestList(true);
  if (E && !P.at(tok::Eof)) {
    P.errorExpected("'}' after the replacement field's expression");
    return nullptr;
  }
  return E;
}
