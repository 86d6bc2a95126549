//===- Lexer.cpp - Python tokenizer for .tile files -----------------------===//
//
// Python's tokenizer, minus the features .tile files do not need: no
// non-ASCII identifiers, no complex literals. f-strings are split into
// literal pieces and replacement fields (PEP 498 rules: an expression may
// not reuse the string's own quote). Every
// lexing function consumes at least one byte or pushes a token, so the lexer
// always terminates; every read checks `Cur < End`, so NUL bytes and a
// missing final newline are ordinary input.
//
//===----------------------------------------------------------------------===//

#include "tilec/Parse/Lexer.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include <cstdlib>
#include <fmt/format.h>

using namespace tilec;
using llvm::StringRef;

namespace {
bool isDigitOfBase(char C, unsigned Base) {
  switch (Base) {
  case 2:
    return C == '0' || C == '1';
  case 8:
    return C >= '0' && C <= '7';
  case 16:
    return llvm::isHexDigit(C);
  default:
    return llvm::isDigit(C);
  }
}

/// A digit group with single underscores between digits: `1_000`, `ff`.
/// \p LeadingUnderscore allows `0x_ff`.
bool isValidDigitGroup(StringRef S, unsigned Base, bool LeadingUnderscore) {
  if (S.empty() || S.back() == '_' || S.contains("__"))
    return false;
  if (S.front() == '_' && !LeadingUnderscore)
    return false;
  for (char C : S)
    if (C != '_' && !isDigitOfBase(C, Base))
      return false;
  return true;
}

/// An empty group is not bad here: '1.' and '.5' leave one part empty.
bool isBadDecimalGroup(StringRef S) {
  return !S.empty() && !isValidDigitGroup(S, 10, /*LeadingUnderscore=*/false);
}

/// Python rejects '012' (but not '0', '00' or '0_0') as an integer literal.
bool hasLeadingZero(StringRef IntPart) {
  return IntPart.size() > 1 && IntPart[0] == '0' &&
         IntPart.find_first_not_of("0_") != StringRef::npos;
}

std::string withoutUnderscores(StringRef S) {
  std::string R;
  for (char C : S)
    if (C != '_')
      R += C;
  return R;
}

/// Parses a validated digit group; false on int64 overflow.
bool parseInteger(StringRef Digits, unsigned Base, int64_t &Value) {
  uint64_t V = 0;
  for (char C : Digits) {
    if (C == '_')
      continue;
    unsigned D = llvm::hexDigitValue(C);
    if (V > (uint64_t(INT64_MAX) - D) / Base)
      return false;
    V = V * Base + D;
  }
  Value = int64_t(V);
  return true;
}

void appendUTF8(std::string &Out, uint32_t CP) {
  if (CP < 0x80) {
    Out += char(CP);
  } else if (CP < 0x800) {
    Out += char(0xC0 | (CP >> 6));
    Out += char(0x80 | (CP & 0x3F));
  } else if (CP < 0x10000) {
    Out += char(0xE0 | (CP >> 12));
    Out += char(0x80 | ((CP >> 6) & 0x3F));
    Out += char(0x80 | (CP & 0x3F));
  } else {
    Out += char(0xF0 | (CP >> 18));
    Out += char(0x80 | ((CP >> 12) & 0x3F));
    Out += char(0x80 | ((CP >> 6) & 0x3F));
    Out += char(0x80 | (CP & 0x3F));
  }
}

/// How a diagnostic shows a byte that is not a token: itself when printable,
/// otherwise `\xNN`.
std::string showByte(char C) {
  if (llvm::isPrint(C))
    return std::string(1, C);
  return fmt::format("\\x{:02x}", unsigned(static_cast<unsigned char>(C)));
}

bool isStringPrefix(StringRef S) {
  std::string L = S.lower();
  return L == "r" || L == "u" || L == "b" || L == "f" || L == "br" ||
         L == "rb" || L == "fr" || L == "rf";
}

char closerOf(char Open) { return Open == '(' ? ')' : Open == '[' ? ']' : '}'; }

tok::Kind closerKind(char Close) {
  return Close == ')' ? tok::RPar : Close == ']' ? tok::RSqb : tok::RBrace;
}
} // namespace

Lexer::Lexer(llvm::SourceMgr &SM, unsigned BufferID, DiagnosticEngine &Diags)
    : SM(SM), BufferID(BufferID), Diags(Diags) {
  const llvm::MemoryBuffer *Buf = SM.getMemoryBuffer(BufferID);
  BufStart = Cur = Buf->getBufferStart();
  End = Buf->getBufferEnd();
  Indents.push_back({0, 0});
}

Lexer::Lexer(llvm::SourceMgr &SM, unsigned BufferID, DiagnosticEngine &Diags,
             const char *Begin, const char *RangeEnd)
    : SM(SM), BufferID(BufferID), Diags(Diags), BufStart(Begin), Cur(Begin),
      End(RangeEnd), AtLineStart(false), ExprMode(true) {
  Indents.push_back({0, 0});
}

Token Lexer::next() {
  while (Pending.empty()) {
    if (Finished) {
      Token T;
      T.Text = StringRef(End, 0);
      return T;
    }
    if (AtLineStart && Brackets.empty())
      lexLogicalLineStart();
    else
      lexToken();
  }
  Token T = std::move(Pending.front());
  Pending.pop_front();
  return T;
}

Token &Lexer::push(tok::Kind K, const char *Start, const char *TokEnd) {
  Token T;
  T.Kind = K;
  T.Text = StringRef(Start, TokEnd - Start);
  if (K != tok::Newline && K != tok::Indent && K != tok::Dedent &&
      K != tok::Eof)
    LineHasTokens = SawSignificantToken = true;
  Pending.push_back(std::move(T));
  return Pending.back();
}

DiagnosticBuilder Lexer::report(const char *Start, const char *RangeEnd,
                                diag::ID ID) {
  auto L = llvm::SMLoc::getFromPointer(Start);
  auto E = llvm::SMLoc::getFromPointer(RangeEnd);
  return Diags.report(Location(llvm::SMRange(L, E)), ID);
}

bool Lexer::isNameStart(char C) { return llvm::isAlpha(C) || C == '_'; }
bool Lexer::isNameChar(char C) { return llvm::isAlnum(C) || C == '_'; }

unsigned Lexer::validUTF8Length(const char *P) const {
  auto B = [&](unsigned I) { return static_cast<unsigned char>(P[I]); };
  unsigned C = B(0);
  if (C < 0x80)
    return 1;
  unsigned N = C >= 0xC2 && C <= 0xDF   ? 2
               : C >= 0xE0 && C <= 0xEF ? 3
               : C >= 0xF0 && C <= 0xF4 ? 4
                                        : 0;
  if (N == 0 || End - P < ptrdiff_t(N))
    return 0;
  unsigned Lo = C == 0xE0 ? 0xA0 : C == 0xF0 ? 0x90 : 0x80;
  unsigned Hi = C == 0xED ? 0x9F : C == 0xF4 ? 0x8F : 0xBF;
  if (B(1) < Lo || B(1) > Hi)
    return 0;
  for (unsigned I = 2; I < N; ++I)
    if (B(I) < 0x80 || B(I) > 0xBF)
      return 0;
  return N;
}

//===----------------------------------------------------------------------===//
// Lines and indentation
//===----------------------------------------------------------------------===//

/// Measures the indentation of a new logical line. Blank and comment-only
/// lines do not take part in indentation.
void Lexer::lexLogicalLineStart() {
  AtLineStart = false;
  const char *LineStart = Cur;
  unsigned Col = 0, AltCol = 0;
  for (; Cur < End; ++Cur) {
    if (*Cur == ' ') {
      ++Col;
      ++AltCol;
    } else if (*Cur == '\t') {
      Col = (Col / 8 + 1) * 8;
      ++AltCol;
    } else if (*Cur == '\f') {
      Col = AltCol = 0;
    } else {
      break;
    }
  }
  if (Cur == End || *Cur == '#' || *Cur == '\n' || *Cur == '\r')
    return;
  IndentLevel &Top = Indents.back();
  if (Col > Top.Col) {
    // Inconsistent tabs: keep the line at the current level, the likelier
    // intent, instead of opening a block.
    if (AltCol <= Top.AltCol) {
      report(LineStart, Cur, diag::err_lex_tab_space_mix);
      return;
    }
    Indents.push_back({Col, AltCol});
    push(tok::Indent, LineStart, Cur);
    return;
  }
  while (Indents.size() > 1 && Col < Indents.back().Col) {
    Indents.pop_back();
    push(tok::Dedent, Cur, Cur);
  }
  if (Col != Indents.back().Col)
    report(Cur, diag::err_lex_bad_dedent);
  else if (AltCol != Indents.back().AltCol)
    report(LineStart, Cur, diag::err_lex_tab_space_mix);
}

void Lexer::lexEndOfBuffer() {
  if (ExprMode)
    return lexEndOfExpression();
  if (!Brackets.empty()) {
    report(Brackets.front().Loc, diag::err_lex_unclosed_bracket)
        << std::string(1, Brackets.front().Ch);
    SwallowedFrom = Brackets.front().Loc;
    Brackets.clear();
  }
  if (LineHasTokens)
    push(tok::Newline, End, End);
  LineHasTokens = false;
  while (Indents.size() > 1) {
    Indents.pop_back();
    push(tok::Dedent, End, End);
  }
  if (!SawSignificantToken) {
    // At the first comment, if any, where an expected-error can sit.
    const char *At = BufStart;
    while (At < End && llvm::isSpace(*At))
      ++At;
    report(At == End ? BufStart : At, diag::err_lex_empty_file);
  }
  push(tok::Eof, End, End);
  Finished = true;
}

/// The end of an f-string field's expression: no NEWLINE, and an open
/// bracket is reported at the field, not as swallowing the file.
void Lexer::lexEndOfExpression() {
  if (!Brackets.empty())
    report(Brackets.front().Loc, diag::err_lex_fstring)
        << fmt::format("'{0}' was never closed", Brackets.front().Ch);
  Brackets.clear();
  push(tok::Eof, End, End);
  Finished = true;
}

void Lexer::skipComment() {
  bool Reported = false;
  while (Cur < End && *Cur != '\n' && *Cur != '\r') {
    unsigned N = validUTF8Length(Cur);
    if (N == 0 && !Reported) {
      report(Cur, diag::err_lex_invalid_utf8);
      Reported = true;
    }
    Cur += N ? N : 1;
  }
}

/// `\` followed by a line break joins the two physical lines.
bool Lexer::skipContinuation() {
  const char *P = Cur + 1;
  if (P == End) {
    Cur = P;
    return true;
  }
  if (*P == '\r' && P + 1 < End && P[1] == '\n')
    ++P;
  if (*P != '\n' && *P != '\r')
    return false;
  Cur = P + 1;
  return true;
}

//===----------------------------------------------------------------------===//
// Tokens
//===----------------------------------------------------------------------===//

void Lexer::lexToken() {
  while (Cur < End && (*Cur == ' ' || *Cur == '\t' || *Cur == '\f'))
    ++Cur;
  if (Cur == End)
    return lexEndOfBuffer();
  char C = *Cur;
  if (C == '#')
    return skipComment();
  if (C == '\\') {
    if (!skipContinuation())
      report(Cur++, diag::err_lex_bad_continuation);
    return;
  }
  if (C == '\n' || C == '\r') {
    const char *Start = Cur++;
    if (C == '\r' && Cur < End && *Cur == '\n')
      ++Cur;
    if (!Brackets.empty() || ExprMode)
      return;
    if (LineHasTokens)
      push(tok::Newline, Start, Cur);
    LineHasTokens = false;
    AtLineStart = true;
    return;
  }
  if (isNameStart(C))
    return lexName();
  if (llvm::isDigit(C) || (C == '.' && Cur + 1 < End && llvm::isDigit(Cur[1])))
    return lexNumber();
  if (C == '\'' || C == '"')
    return lexString(Cur, "");
  if (static_cast<unsigned char>(C) >= 0x80)
    return lexNonAscii();
  lexPunct();
}

void Lexer::lexName() {
  const char *Start = Cur;
  while (Cur < End && isNameChar(*Cur))
    ++Cur;
  StringRef Word(Start, Cur - Start);
  if (Cur < End && (*Cur == '\'' || *Cur == '"') && isStringPrefix(Word))
    return lexString(Start, Word);
  push(tok::keywordKind(Word), Start, Cur);
}

void Lexer::lexNonAscii() {
  const char *Start = Cur;
  unsigned N = validUTF8Length(Cur);
  if (N == 0) {
    while (Cur < End && static_cast<unsigned char>(*Cur) >= 0x80 &&
           validUTF8Length(Cur) == 0)
      ++Cur;
    report(Start, diag::err_lex_invalid_utf8);
    return;
  }
  Cur += N;
  report(Start, diag::err_lex_stray_char) << StringRef(Start, N);
}

//===----------------------------------------------------------------------===//
// Numbers
//===----------------------------------------------------------------------===//

// number  -> based | decimal [imag]
// based   -> '0' ('x'|'o'|'b') ['_'] digits
// decimal -> digits ['.' [digits]] [exponent] | '.' digits [exponent]
// exponent-> ('e'|'E') ['+'|'-'] digits
// digits  -> digit (['_'] digit)*
void Lexer::lexNumber() {
  if (*Cur == '0' && Cur + 1 < End && Cur[1] && strchr("xXoObB", Cur[1]))
    return lexBasedNumber();
  lexDecimalNumber();
}

StringRef Lexer::scanDigitRun() {
  const char *S = Cur;
  while (Cur < End && (llvm::isDigit(*Cur) || *Cur == '_'))
    ++Cur;
  return StringRef(S, Cur - S);
}

// A number glued to name characters ('1abc', '0x1g') is one bad token, so
// the parser does not see a number followed by a name.
bool Lexer::skipNameChars() {
  const char *S = Cur;
  while (Cur < End && isNameChar(*Cur))
    ++Cur;
  return Cur != S;
}

void Lexer::lexBasedNumber() {
  const char *Start = Cur;
  char B = llvm::toLower(Cur[1]);
  unsigned Base = B == 'x' ? 16 : B == 'o' ? 8 : 2;
  Cur += 2;
  const char *Digits = Cur;
  skipNameChars();
  StringRef D(Digits, Cur - Digits);
  Token &T = push(tok::Int, Start, Cur);
  if (!isValidDigitGroup(D, Base, /*LeadingUnderscore=*/true))
    report(Start, Cur, diag::err_lex_bad_number) << T.Text;
  else if (!parseInteger(D, Base, T.IntValue))
    report(Start, Cur, diag::err_lex_int_too_large) << T.Text;
}

void Lexer::lexDecimalNumber() {
  const char *Start = Cur;
  StringRef IntPart = scanDigitRun(), Frac, Exp;
  bool HasDot = false, HasExp = false;
  if (Cur < End && *Cur == '.') {
    HasDot = true;
    ++Cur;
    Frac = scanDigitRun();
  }
  if (Cur < End && (*Cur == 'e' || *Cur == 'E')) {
    const char *P = Cur + 1;
    if (P < End && (*P == '+' || *P == '-'))
      ++P;
    if (P < End && llvm::isDigit(*P)) {
      HasExp = true;
      Cur = P;
      Exp = scanDigitRun();
    }
  }
  bool Imag = Cur < End && (*Cur == 'j' || *Cur == 'J');
  if (Imag)
    ++Cur;
  bool IsFloat = HasDot || HasExp;
  // skipNameChars goes first: it must consume the rest of the token.
  bool Bad = skipNameChars() || isBadDecimalGroup(IntPart) ||
             isBadDecimalGroup(Frac) || isBadDecimalGroup(Exp) ||
             (!IsFloat && hasLeadingZero(IntPart));

  Token &T = push(IsFloat || Imag ? tok::Float : tok::Int, Start, Cur);
  if (Bad) {
    report(Start, Cur, diag::err_lex_bad_number) << T.Text;
    return;
  }
  if (Imag) {
    report(Start, Cur, diag::err_python_feature) << "complex literal";
    return;
  }
  if (IsFloat) {
    T.FloatValue = std::strtod(withoutUnderscores(T.Text).c_str(), nullptr);
    return;
  }
  if (!parseInteger(IntPart, 10, T.IntValue))
    report(Start, Cur, diag::err_lex_int_too_large) << T.Text;
}

//===----------------------------------------------------------------------===//
// Strings
//===----------------------------------------------------------------------===//

// string -> [prefix] (shortstring | longstring)
// prefix -> 'r' | 'u' | 'b' | 'br' | 'rb' | 'f' | 'fr' | 'rf'  (any case)
void Lexer::lexString(const char *Start, StringRef Prefix) {
  std::string P = Prefix.lower();
  bool Raw = P.find('r') != std::string::npos;
  bool IsF = P.find('f') != std::string::npos;
  char Quote = *Cur;
  bool Triple = End - Cur >= 3 && Cur[1] == Quote && Cur[2] == Quote;
  Cur += Triple ? 3 : 1;
  const char *BodyBegin = Cur;
  std::string Value;
  bool Terminated = lexStringBody(Start, Quote, Triple, Raw, !IsF, Value);
  Token &T = push(tok::String, Start, Cur);
  T.StrValue = std::move(Value);
  if (!Terminated) {
    report(Start, diag::err_lex_unterminated_string);
    if (Cur == End && !SwallowedFrom)
      SwallowedFrom = Start;
    return;
  }
  if (IsF)
    lexFString(T, BodyBegin, Cur - (Triple ? 3 : 1), Raw);
}

/// Reads up to and including the closing quote, decoding escapes into
/// \p Value when \p Decode is set (an f-string's body is decoded piece by
/// piece later). Returns false at a line end (short strings; the line break
/// is left for the NEWLINE token) or at the end of the buffer.
bool Lexer::lexStringBody(const char *Start, char Quote, bool Triple, bool Raw,
                          bool Decode, std::string &Value) {
  bool ReportedUTF8 = false;
  while (Cur < End) {
    char C = *Cur;
    if (C == Quote) {
      if (!Triple) {
        ++Cur;
        return true;
      }
      if (End - Cur >= 3 && Cur[1] == Quote && Cur[2] == Quote) {
        Cur += 3;
        return true;
      }
    }
    if ((C == '\n' || C == '\r') && !Triple)
      return false;
    if (C == '\\' && Decode) {
      decodeEscape(Value, Raw);
      continue;
    }
    if (C == '\\') {
      // Only skipped here: the escaped character cannot close the string.
      Cur += Cur + 1 < End ? 2 : 1;
      if (Cur[-1] == '\r' && Cur < End && *Cur == '\n')
        ++Cur;
      continue;
    }
    if (C == '\r') {
      Value += '\n';
      Cur += (Cur + 1 < End && Cur[1] == '\n') ? 2 : 1;
      continue;
    }
    unsigned N = validUTF8Length(Cur);
    if (N == 0) {
      if (!ReportedUTF8)
        report(Cur, diag::err_lex_invalid_utf8);
      ReportedUTF8 = true;
      ++Cur;
      continue;
    }
    Value.append(Cur, N);
    Cur += N;
  }
  return false;
}

//===----------------------------------------------------------------------===//
// f-strings
//===----------------------------------------------------------------------===//

// fstring_body  -> (literal | '{{' | '}}' | field)*
// field         -> '{' expression ['='] ['!' NAME] [':' format_spec] '}'
// format_spec   -> (literal | field)*
//
// The lexer splits the body; the expressions stay source ranges that the
// parser lexes again, so their diagnostics point into the f-string.
void Lexer::lexFString(Token &T, const char *BodyBegin, const char *BodyEnd,
                       bool Raw) {
  const char *After = Cur;
  auto Pieces = std::make_shared<std::vector<FStringPiece>>();
  Cur = BodyBegin;
  // After an error the string keeps no fields: the parser would only
  // report the same problem again.
  if (!lexFStringPieces(BodyEnd, Raw, /*InSpec=*/false, *Pieces))
    Pieces->clear();
  Cur = After;
  T.FString = std::move(Pieces);
}

/// Pieces up to \p Stop (a format spec stops early, at its closing '}').
bool Lexer::lexFStringPieces(const char *Stop, bool Raw, bool InSpec,
                             std::vector<FStringPiece> &Out) {
  std::string Lit;
  auto Flush = [&] {
    if (Lit.empty())
      return;
    Out.emplace_back();
    Out.back().Literal = std::move(Lit);
    Lit.clear();
  };
  const char *SavedEnd = End;
  End = Stop;
  bool OK = true;
  while (Cur < Stop && OK) {
    char C = *Cur;
    bool Doubled = Cur + 1 < Stop && Cur[1] == C && !InSpec;
    if ((C == '{' || C == '}') && Doubled) {
      Lit += C;
      Cur += 2;
    } else if (C == '{') {
      Flush();
      Out.emplace_back();
      OK = lexFStringField(Stop, Raw, Out.back());
    } else if (C == '}') {
      report(Cur, Cur + 1, diag::err_lex_fstring)
          << "single '}' is not allowed";
      OK = false;
    } else if (C == '\\') {
      decodeEscape(Lit, Raw);
    } else {
      Lit += C;
      ++Cur;
    }
  }
  Flush();
  End = SavedEnd;
  return OK;
}

/// A replacement field, Cur at its '{'; leaves Cur past its '}'.
bool Lexer::lexFStringField(const char *Stop, bool Raw, FStringPiece &Field) {
  const char *Open = Cur++;
  Field.IsField = true;
  Field.ExprBegin = Cur;
  Cur = scanFieldExpr(Stop);
  Field.ExprEnd = Cur;
  if (Field.ExprBegin == Field.ExprEnd ||
      StringRef(Field.ExprBegin, Field.ExprEnd - Field.ExprBegin)
          .trim()
          .empty()) {
    report(Open, Cur, diag::err_lex_fstring) << "empty expression not allowed";
    return false;
  }
  if (Cur < Stop && *Cur == '=') {
    // `{x = }` prints "x = " and the value: the text up to and including
    // the '=' and the blanks after it is the debug label.
    Field.Debug = true;
    ++Cur;
    while (Cur < Stop && (*Cur == ' ' || *Cur == '\t'))
      ++Cur;
    Field.DebugEnd = Cur;
  }
  if (Cur + 1 < Stop && *Cur == '!') {
    Field.Conversion = Cur[1];
    Cur += 2;
    if (Field.Conversion != 's' && Field.Conversion != 'r' &&
        Field.Conversion != 'a') {
      report(Cur - 2, Cur, diag::err_lex_fstring)
          << "invalid conversion character: expected 's', 'r', or 'a'";
      return false;
    }
  }
  if (Cur < Stop && *Cur == ':') {
    const char *SpecEnd = scanFormatSpec(Stop);
    ++Cur;
    if (!lexFStringPieces(SpecEnd, Raw, /*InSpec=*/true, Field.Spec))
      return false;
    Cur = SpecEnd;
  }
  if (Cur < Stop && *Cur == '}') {
    ++Cur;
    return true;
  }
  report(Open, Cur, diag::err_lex_fstring) << "expecting '}'";
  return false;
}

/// The end of a field's expression: the first '}', '!', ':' or '=' (not
/// part of '!=', '==', '<=', '>=', ':=') outside brackets and strings.
const char *Lexer::scanFieldExpr(const char *Stop) {
  unsigned Depth = 0;
  const char *P = Cur;
  for (; P < Stop; ++P) {
    char C = *P;
    if (C == '\'' || C == '"') {
      const char *Q = P + 1;
      while (Q < Stop && *Q != C)
        Q += *Q == '\\' ? 2 : 1;
      P = std::min(Q, Stop - 1);
    } else if (C == '(' || C == '[' || C == '{') {
      ++Depth;
    } else if ((C == ')' || C == ']' || C == '}') && Depth > 0) {
      --Depth;
    } else if (Depth > 0) {
      continue;
    } else if (C == '}' || C == ':') {
      return P;
    } else if (C == '!' && !(P + 1 < Stop && P[1] == '=')) {
      return P;
    } else if (C == '=' && !(P + 1 < Stop && P[1] == '=') &&
               !(P > Cur && StringRef("=!<>").contains(P[-1]))) {
      return P;
    }
  }
  return Stop;
}

/// The '}' that closes the format spec starting at Cur (a ':'), past any
/// nested fields.
const char *Lexer::scanFormatSpec(const char *Stop) {
  unsigned Depth = 0;
  for (const char *P = Cur + 1; P < Stop; ++P) {
    if (*P == '{')
      ++Depth;
    else if (*P == '}' && Depth == 0)
      return P;
    else if (*P == '}')
      --Depth;
  }
  return Stop;
}

/// Decodes the escape sequence at Cur (a backslash) into \p Value.
void Lexer::decodeEscape(std::string &Value, bool Raw) {
  const char *Start = Cur++;
  if (Cur == End) {
    Value += '\\';
    return;
  }
  char E = *Cur;
  if (Raw) {
    Value += '\\';
    if (E == '\'' || E == '"' || E == '\\' || E == '\n') {
      Value += E;
      ++Cur;
    }
    return;
  }
  ++Cur;
  static const char Simple[] = "\\\\''\"\"a\ab\bf\fn\nr\rt\tv\v";
  for (unsigned I = 0; I + 1 < sizeof(Simple); I += 2) {
    if (Simple[I] == E) {
      Value += Simple[I + 1];
      return;
    }
  }
  if (E == '\n')
    return;
  if (E == '\r') {
    if (Cur < End && *Cur == '\n')
      ++Cur;
    return;
  }
  if (E >= '0' && E <= '7') {
    unsigned V = E - '0';
    for (int I = 0; I < 2 && Cur < End && *Cur >= '0' && *Cur <= '7'; ++I)
      V = V * 8 + (*Cur++ - '0');
    appendUTF8(Value, V);
    return;
  }
  unsigned Digits = E == 'x' ? 2 : E == 'u' ? 4 : E == 'U' ? 8 : 0;
  if (Digits == 0) {
    if (static_cast<unsigned char>(E) >= 0x80)
      --Cur; // Leave a multi-byte character for the caller to validate.
    report(Start, Cur, diag::err_lex_bad_escape) << showByte(E);
    Value += '\\';
    if (static_cast<unsigned char>(E) < 0x80)
      Value += E;
    return;
  }
  uint32_t CP = 0;
  unsigned Seen = 0;
  for (; Seen < Digits && Cur < End && llvm::isHexDigit(*Cur); ++Seen)
    CP = CP * 16 + llvm::hexDigitValue(*Cur++);
  if (Seen != Digits || CP > 0x10FFFF || (CP >= 0xD800 && CP <= 0xDFFF)) {
    report(Start, Cur, diag::err_lex_bad_escape) << std::string(1, E);
    return;
  }
  appendUTF8(Value, CP);
}

//===----------------------------------------------------------------------===//
// Operators and brackets
//===----------------------------------------------------------------------===//

namespace {
struct PunctSpelling {
  StringRef Text;
  tok::Kind Kind;
};

const PunctSpelling Puncts[] = {
#define TILEC_TOK(K, N)
#define TILEC_PUNCT(K, N, S) {S, tok::K},
#define TILEC_KEYWORD(K, S)
    TILEC_TOKENS(TILEC_TOK, TILEC_PUNCT, TILEC_KEYWORD)
#undef TILEC_TOK
#undef TILEC_PUNCT
#undef TILEC_KEYWORD
};
} // namespace

void Lexer::lexPunct() {
  StringRef Rest(Cur, End - Cur);
  const PunctSpelling *Best = nullptr;
  for (const PunctSpelling &P : Puncts)
    if (Rest.startswith(P.Text) && (!Best || P.Text.size() > Best->Text.size()))
      Best = &P;
  if (!Best) {
    const char *Start = Cur++;
    report(Start, diag::err_lex_stray_char) << showByte(*Start);
    return;
  }
  const char *Start = Cur;
  Cur += Best->Text.size();
  char C = *Start;
  if (C == '(' || C == '[' || C == '{') {
    Brackets.push_back({C, Start});
    push(Best->Kind, Start, Cur);
    return;
  }
  if (C == ')' || C == ']' || C == '}') {
    if (closeBracket(C))
      push(closerKind(C), Start, Cur);
    return;
  }
  push(Best->Kind, Start, Cur);
}

/// Pops the bracket \p Ch closes. A mismatched closer is reported and then
/// treated as the closer that was expected (\p Ch is updated), so the parser
/// sees balanced brackets; a closer with nothing open is dropped.
bool Lexer::closeBracket(char &Ch) {
  const char *At = Cur - 1;
  if (Brackets.empty() && ExprMode) {
    report(At, diag::err_lex_fstring)
        << fmt::format("unmatched '{0}' in replacement field", Ch);
    return false;
  }
  if (Brackets.empty()) {
    report(At, diag::err_lex_unbalanced_bracket) << std::string(1, Ch);
    return false;
  }
  OpenBracket Open = Brackets.pop_back_val();
  char Expected = closerOf(Open.Ch);
  if (Ch != Expected) {
    report(At, diag::err_lex_mismatched_bracket)
        << std::string(1, Ch) << std::string(1, Open.Ch);
    report(Open.Loc, diag::note_to_match) << std::string(1, Open.Ch);
    Ch = Expected;
  }
  return true;
}
