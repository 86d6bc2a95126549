//===- Lexer.h - Python tokenizer for .tile files ---------------*- C++ -*-===//
//
// Turns one SourceMgr buffer into Python tokens, one at a time.
//
// Expects: any byte sequence (NUL bytes, invalid UTF-8, no final newline).
// Does: Python's tokenization rules: NEWLINE/INDENT/DEDENT from an
//   indentation stack, implicit line joining inside (), [] and {}, backslash
//   continuation, comments, int/float/string literals (escapes decoded;
//   adjacent literals are joined by the parser), operators and keywords.
// Guarantees: every problem is reported through the DiagnosticEngine and
//   lexing continues, so one run reports several errors. The token stream is
//   always well formed for the parser: brackets balance except at ENDMARKER,
//   INDENT/DEDENT pair up, the last logical line ends with NEWLINE, and
//   next() returns ENDMARKER forever once the buffer is exhausted.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_PARSE_LEXER_H
#define TILEC_PARSE_LEXER_H

#include "tilec/Parse/Token.h"
#include "tilec/Support/Diagnostics.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/SourceMgr.h"
#include <deque>

namespace tilec {

class Lexer {
public:
  Lexer(llvm::SourceMgr &SM, unsigned BufferID, DiagnosticEngine &Diags);
  /// Lexes [Begin, End) of the buffer as one expression, as inside
  /// brackets (no NEWLINE/INDENT/DEDENT; ENDMARKER at End): an f-string's
  /// replacement field.
  Lexer(llvm::SourceMgr &SM, unsigned BufferID, DiagnosticEngine &Diags,
        const char *Begin, const char *End);

  /// Returns the next token; ENDMARKER at (and after) the end of the buffer.
  Token next();

  llvm::SourceMgr &getSourceMgr() { return SM; }
  unsigned getBufferID() const { return BufferID; }

  /// Where an unclosed bracket or an unterminated triple-quoted string
  /// swallowed the rest of the buffer (already reported), or null. The
  /// parser stays quiet about syntax errors past this point.
  const char *getSwallowedFrom() const { return SwallowedFrom; }

private:
  struct IndentLevel {
    unsigned Col;    ///< Width with tabs to multiples of 8.
    unsigned AltCol; ///< Width with tabs counted as 1; must order the same.
  };
  struct OpenBracket {
    char Ch;
    const char *Loc;
  };

  void lexLogicalLineStart();
  void lexIndentation();
  void lexToken();
  void lexEndOfBuffer();
  void lexEndOfExpression();
  void skipComment();
  bool skipContinuation();
  void lexName();
  void lexNumber();
  void lexBasedNumber();
  void lexDecimalNumber();
  llvm::StringRef scanDigitRun();
  bool skipNameChars();
  void lexString(const char *Start, llvm::StringRef Prefix);
  bool lexStringBody(const char *Start, char Quote, bool Triple, bool Raw,
                     bool Decode, std::string &Value);
  void decodeEscape(std::string &Value, bool Raw);
  void lexFString(Token &T, const char *BodyBegin, const char *BodyEnd,
                  bool Raw);
  bool lexFStringPieces(const char *Stop, bool Raw, bool InSpec,
                        std::vector<FStringPiece> &Out);
  bool lexFStringField(const char *Stop, bool Raw, FStringPiece &Field);
  const char *scanFieldExpr(const char *Stop);
  const char *scanFormatSpec(const char *Stop);
  void lexPunct();
  void lexNonAscii();
  bool closeBracket(char &Ch);

  Token &push(tok::Kind K, const char *Start, const char *End);
  DiagnosticBuilder report(const char *Start, const char *End, diag::ID ID);
  DiagnosticBuilder report(const char *Loc, diag::ID ID) {
    return report(Loc, Loc, ID);
  }
  static bool isNameStart(char C);
  static bool isNameChar(char C);
  unsigned validUTF8Length(const char *P) const;

  llvm::SourceMgr &SM;
  unsigned BufferID;
  DiagnosticEngine &Diags;
  const char *BufStart;
  const char *Cur;
  const char *End;
  std::deque<Token> Pending;
  llvm::SmallVector<IndentLevel, 8> Indents;
  llvm::SmallVector<OpenBracket, 8> Brackets;
  bool AtLineStart = true;
  bool LineHasTokens = false;
  bool SawSignificantToken = false;
  bool Finished = false;
  bool ExprMode = false;
  const char *SwallowedFrom = nullptr;
};

} // namespace tilec

#endif
