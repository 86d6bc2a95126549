//===- Token.h - Tokens of a .tile file ------------------------*- C++ -*-===//
//
// A Token is one lexeme of the Python subset .tile files are written in, as
// produced by the Lexer: its kind, its spelling in the source buffer and, for
// literals, its decoded value. Token kinds follow Python's `tokenize` names
// (NAME, INT, NEWLINE, INDENT, LPAR, PLUSEQUAL, ...); each keyword has its own
// kind so the parser can switch on it.
//
// Tokens point into the SourceMgr buffer they were lexed from; they stay
// valid as long as that buffer does.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_PARSE_TOKEN_H
#define TILEC_PARSE_TOKEN_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SMLoc.h"
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tilec {
namespace tok {

// TOK(Kind, DumpName): tokens without a fixed spelling.
// PUNCT(Kind, DumpName, Spelling): operators and delimiters.
// KEYWORD(Kind, Spelling): reserved words; the spelling is a string because
// `and`, `or` and `not` are C++ alternative tokens.
#define TILEC_TOKENS(TOK, PUNCT, KEYWORD)                                      \
  TOK(Eof, "ENDMARKER")                                                        \
  TOK(Newline, "NEWLINE")                                                      \
  TOK(Indent, "INDENT")                                                        \
  TOK(Dedent, "DEDENT")                                                        \
  TOK(Name, "NAME")                                                            \
  TOK(Int, "INT")                                                              \
  TOK(Float, "FLOAT")                                                          \
  TOK(String, "STRING")                                                        \
  PUNCT(LPar, "LPAR", "(")                                                     \
  PUNCT(RPar, "RPAR", ")")                                                     \
  PUNCT(LSqb, "LSQB", "[")                                                     \
  PUNCT(RSqb, "RSQB", "]")                                                     \
  PUNCT(LBrace, "LBRACE", "{")                                                 \
  PUNCT(RBrace, "RBRACE", "}")                                                 \
  PUNCT(Colon, "COLON", ":")                                                   \
  PUNCT(Comma, "COMMA", ",")                                                   \
  PUNCT(Semi, "SEMI", ";")                                                     \
  PUNCT(Dot, "DOT", ".")                                                       \
  PUNCT(Ellipsis, "ELLIPSIS", "...")                                           \
  PUNCT(At, "AT", "@")                                                         \
  PUNCT(Equal, "EQUAL", "=")                                                   \
  PUNCT(RArrow, "RARROW", "->")                                                \
  PUNCT(ColonEqual, "COLONEQUAL", ":=")                                        \
  PUNCT(Plus, "PLUS", "+")                                                     \
  PUNCT(Minus, "MINUS", "-")                                                   \
  PUNCT(Star, "STAR", "*")                                                     \
  PUNCT(Slash, "SLASH", "/")                                                   \
  PUNCT(DoubleSlash, "DOUBLESLASH", "//")                                      \
  PUNCT(Percent, "PERCENT", "%")                                               \
  PUNCT(DoubleStar, "DOUBLESTAR", "**")                                        \
  PUNCT(LeftShift, "LEFTSHIFT", "<<")                                          \
  PUNCT(RightShift, "RIGHTSHIFT", ">>")                                        \
  PUNCT(Amper, "AMPER", "&")                                                   \
  PUNCT(VBar, "VBAR", "|")                                                     \
  PUNCT(Circumflex, "CIRCUMFLEX", "^")                                         \
  PUNCT(Tilde, "TILDE", "~")                                                   \
  PUNCT(Less, "LESS", "<")                                                     \
  PUNCT(Greater, "GREATER", ">")                                               \
  PUNCT(LessEqual, "LESSEQUAL", "<=")                                          \
  PUNCT(GreaterEqual, "GREATEREQUAL", ">=")                                    \
  PUNCT(EqEqual, "EQEQUAL", "==")                                              \
  PUNCT(NotEqual, "NOTEQUAL", "!=")                                            \
  PUNCT(PlusEqual, "PLUSEQUAL", "+=")                                          \
  PUNCT(MinEqual, "MINEQUAL", "-=")                                            \
  PUNCT(StarEqual, "STAREQUAL", "*=")                                          \
  PUNCT(SlashEqual, "SLASHEQUAL", "/=")                                        \
  PUNCT(DoubleSlashEqual, "DOUBLESLASHEQUAL", "//=")                           \
  PUNCT(PercentEqual, "PERCENTEQUAL", "%=")                                    \
  PUNCT(DoubleStarEqual, "DOUBLESTAREQUAL", "**=")                             \
  PUNCT(AtEqual, "ATEQUAL", "@=")                                              \
  PUNCT(AmperEqual, "AMPEREQUAL", "&=")                                        \
  PUNCT(VBarEqual, "VBAREQUAL", "|=")                                          \
  PUNCT(CircumflexEqual, "CIRCUMFLEXEQUAL", "^=")                              \
  PUNCT(LeftShiftEqual, "LEFTSHIFTEQUAL", "<<=")                               \
  PUNCT(RightShiftEqual, "RIGHTSHIFTEQUAL", ">>=")                             \
  KEYWORD(kw_False, "False")                                                   \
  KEYWORD(kw_None, "None")                                                     \
  KEYWORD(kw_True, "True")                                                     \
  KEYWORD(kw_and, "and")                                                       \
  KEYWORD(kw_as, "as")                                                         \
  KEYWORD(kw_assert, "assert")                                                 \
  KEYWORD(kw_async, "async")                                                   \
  KEYWORD(kw_await, "await")                                                   \
  KEYWORD(kw_break, "break")                                                   \
  KEYWORD(kw_class, "class")                                                   \
  KEYWORD(kw_continue, "continue")                                             \
  KEYWORD(kw_def, "def")                                                       \
  KEYWORD(kw_del, "del")                                                       \
  KEYWORD(kw_elif, "elif")                                                     \
  KEYWORD(kw_else, "else")                                                     \
  KEYWORD(kw_except, "except")                                                 \
  KEYWORD(kw_finally, "finally")                                               \
  KEYWORD(kw_for, "for")                                                       \
  KEYWORD(kw_from, "from")                                                     \
  KEYWORD(kw_global, "global")                                                 \
  KEYWORD(kw_if, "if")                                                         \
  KEYWORD(kw_import, "import")                                                 \
  KEYWORD(kw_in, "in")                                                         \
  KEYWORD(kw_is, "is")                                                         \
  KEYWORD(kw_lambda, "lambda")                                                 \
  KEYWORD(kw_nonlocal, "nonlocal")                                             \
  KEYWORD(kw_not, "not")                                                       \
  KEYWORD(kw_or, "or")                                                         \
  KEYWORD(kw_pass, "pass")                                                     \
  KEYWORD(kw_raise, "raise")                                                   \
  KEYWORD(kw_return, "return")                                                 \
  KEYWORD(kw_try, "try")                                                       \
  KEYWORD(kw_while, "while")                                                   \
  KEYWORD(kw_with, "with")                                                     \
  KEYWORD(kw_yield, "yield")

enum Kind : unsigned char {
#define TILEC_TOK(K, N) K,
#define TILEC_PUNCT(K, N, S) K,
#define TILEC_KEYWORD(K, S) K,
  TILEC_TOKENS(TILEC_TOK, TILEC_PUNCT, TILEC_KEYWORD)
#undef TILEC_TOK
#undef TILEC_PUNCT
#undef TILEC_KEYWORD
      NumKinds
};

/// The name `--emit=tokens` prints: "NAME", "LPAR", "DEF", ...
llvm::StringRef dumpName(Kind K);

/// How a diagnostic names the kind: "'('", "'def'", "newline", "name".
llvm::StringRef describe(Kind K);

/// The keyword kind spelled \p Word, or Name when it is not a keyword.
Kind keywordKind(llvm::StringRef Word);

} // namespace tok

/// A piece of an f-string as the lexer splits it: decoded literal text, or a
/// replacement field `{expr!c:spec}` whose expression the parser lexes and
/// parses again from the source buffer.
struct FStringPiece {
  std::string Literal; ///< Literal text (when !IsField).
  bool IsField = false;
  const char *ExprBegin = nullptr, *ExprEnd = nullptr;
  char Conversion = 0;            ///< 's', 'r', 'a' or 0.
  bool Debug = false;             ///< `{expr=}`: the text, '=', then the value.
  const char *DebugEnd = nullptr; ///< End of the debug label (past '=').
  std::vector<FStringPiece> Spec; ///< The format spec's own pieces.
};

struct Token {
  tok::Kind Kind = tok::Eof;
  /// The exact source spelling; empty for DEDENT and ENDMARKER (but it still
  /// points at the place the token belongs to).
  llvm::StringRef Text;
  /// STRING: the value with escapes decoded.
  std::string StrValue;
  /// STRING with an `f` prefix: its pieces (StrValue is unused).
  std::shared_ptr<const std::vector<FStringPiece>> FString;
  /// INT: the value (literals that do not fit in int64_t are diagnosed).
  int64_t IntValue = 0;
  /// FLOAT: the value.
  double FloatValue = 0;

  bool is(tok::Kind K) const { return Kind == K; }
  bool isNot(tok::Kind K) const { return Kind != K; }
  llvm::SMLoc getLoc() const {
    return llvm::SMLoc::getFromPointer(Text.data());
  }
  llvm::SMLoc getEndLoc() const {
    return llvm::SMLoc::getFromPointer(Text.data() + Text.size());
  }
  /// Half-open: End points just past the last character.
  llvm::SMRange getRange() const { return {getLoc(), getEndLoc()}; }
};

} // namespace tilec

#endif
