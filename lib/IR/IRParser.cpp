//===- IRParser.cpp - Reading tile IR text --------------------------------===//
//
// Grammar (tokens: IDENT, VALUE = '%'[A-Za-z0-9_]+, INT, FLOAT, STRING):
//
//   top       ::= op EOF
//   op        ::= [VALUE (',' VALUE)* '='] IDENT [groups] [attr-dict]
//                 [':' type (',' type)*] region* [loc]
//   groups    ::= group (',' group)*        (first VALUE on the op's line)
//   group     ::= VALUE ['[' VALUE (',' VALUE)* ']']
//   attr-dict ::= '{' IDENT '=' attr (',' IDENT '=' attr)* '}'
//   attr      ::= INT | FLOAT | STRING | 'true' | 'false' | 'inf' | '-inf'
//               | 'nan' | dtype | '[' [attr (',' attr)*] ']'
//   type      ::= dtype | scope '<' '[' [dim (',' dim)*] ']' dtype '>'
//   dim       ::= INT | IDENT
//   region    ::= ['(' VALUE ':' type (',' VALUE ':' type)* ')'] '{' op* '}'
//   loc       ::= 'loc' '(' STRING ':' INT ':' INT ')'
//
// `{` after an op starts an attr-dict when followed by `IDENT =`, a region
// otherwise. `//` starts a comment that runs to the end of the line.
//
//===----------------------------------------------------------------------===//

#include "tilec/IR/IRParser.h"
#include "tilec/Support/Diagnostics.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include <cmath>
#include <limits>

using namespace tilec;
using namespace tilec::ir;
using llvm::SMLoc;
using llvm::StringRef;

namespace {

//===----------------------------------------------------------------------===//
// Lexer
//===----------------------------------------------------------------------===//

enum class TokKind {
  Eof,
  Error,
  Ident,
  ValueId,
  Int,
  Float,
  String,
  Equal,
  Comma,
  Colon,
  LParen,
  RParen,
  LBrace,
  RBrace,
  LSquare,
  RSquare,
  Less,
  Greater
};

struct Token {
  TokKind Kind = TokKind::Eof;
  StringRef Text;
  /// First token on its line (operands must share the op's line).
  bool AtLineStart = false;

  bool is(TokKind K) const { return Kind == K; }
  bool isIdent(StringRef S) const {
    return Kind == TokKind::Ident && Text == S;
  }
  SMLoc loc() const { return SMLoc::getFromPointer(Text.data()); }
};

bool isIdentChar(char C) { return llvm::isAlnum(C) || C == '_'; }

class Lexer {
public:
  Lexer(StringRef Buffer, DiagnosticEngine &Diags)
      : Cur(Buffer.begin()), End(Buffer.end()), Diags(Diags) {}

  Token next();
  /// A lexer for looking ahead: same position, reports nothing.
  Lexer quietCopy() const {
    Lexer Copy = *this;
    Copy.Quiet = true;
    return Copy;
  }

private:
  void skipSpaceAndComments();
  Token make(TokKind K, const char *Start) {
    Token T{K, StringRef(Start, Cur - Start), AtLineStart};
    AtLineStart = false;
    return T;
  }
  Token error(const char *Start, diag::ID ID, StringRef Arg);
  Token lexNumber(const char *Start);
  Token lexString(const char *Start);

  const char *Cur;
  const char *End;
  DiagnosticEngine &Diags;
  bool AtLineStart = true;
  bool Quiet = false;
};

void Lexer::skipSpaceAndComments() {
  while (Cur != End) {
    if (*Cur == '\n') {
      AtLineStart = true;
      ++Cur;
    } else if (*Cur == ' ' || *Cur == '\t' || *Cur == '\r') {
      ++Cur;
    } else if (*Cur == '/' && Cur + 1 != End && Cur[1] == '/') {
      while (Cur != End && *Cur != '\n')
        ++Cur;
    } else {
      return;
    }
  }
}

Token Lexer::error(const char *Start, diag::ID ID, StringRef Arg) {
  if (!Quiet)
    Diags.report(SMLoc::getFromPointer(Start), ID) << Arg;
  Cur = End;
  return Token{TokKind::Error, StringRef(Start, 0), false};
}

Token Lexer::next() {
  skipSpaceAndComments();
  const char *Start = Cur;
  if (Cur == End)
    return make(TokKind::Eof, Start);
  char C = *Cur++;
  switch (C) {
  case '=':
    return make(TokKind::Equal, Start);
  case ',':
    return make(TokKind::Comma, Start);
  case ':':
    return make(TokKind::Colon, Start);
  case '(':
    return make(TokKind::LParen, Start);
  case ')':
    return make(TokKind::RParen, Start);
  case '{':
    return make(TokKind::LBrace, Start);
  case '}':
    return make(TokKind::RBrace, Start);
  case '[':
    return make(TokKind::LSquare, Start);
  case ']':
    return make(TokKind::RSquare, Start);
  case '<':
    return make(TokKind::Less, Start);
  case '>':
    return make(TokKind::Greater, Start);
  case '"':
    return lexString(Start);
  case '%':
    while (Cur != End && isIdentChar(*Cur))
      ++Cur;
    if (Cur == Start + 1)
      return error(Start, diag::err_ir_expected, "a value name after '%'");
    return make(TokKind::ValueId, Start);
  default:
    break;
  }
  if (llvm::isDigit(C) || C == '-')
    return lexNumber(Start);
  if (llvm::isAlpha(C) || C == '_') {
    while (Cur != End && isIdentChar(*Cur))
      ++Cur;
    return make(TokKind::Ident, Start);
  }
  return error(Start, diag::err_lex_stray_char,
               llvm::isPrint(C) ? std::string(1, C)
                                : "\\x" + llvm::utohexstr(uint8_t(C)));
}

/// INT ::= '-'? digits; FLOAT ::= '-'? digits ('.' digits)? (e [+-]? digits)?
/// with a '.' or an exponent, or '-inf'.
Token Lexer::lexNumber(const char *Start) {
  if (*Start == '-' && StringRef(Cur, End - Cur).startswith("inf") &&
      (Cur + 3 == End || !isIdentChar(Cur[3]))) {
    Cur += 3;
    return make(TokKind::Float, Start);
  }
  auto Digits = [&] {
    const char *From = Cur;
    while (Cur != End && llvm::isDigit(*Cur))
      ++Cur;
    return Cur != From;
  };
  bool Ok = *Start != '-' || Digits();
  if (*Start != '-')
    Digits();
  bool IsFloat = false;
  if (Ok && Cur != End && *Cur == '.') {
    ++Cur;
    IsFloat = true;
    Ok = Digits();
  }
  if (Ok && Cur != End && (*Cur == 'e' || *Cur == 'E')) {
    ++Cur;
    IsFloat = true;
    if (Cur != End && (*Cur == '+' || *Cur == '-'))
      ++Cur;
    Ok = Digits();
  }
  while (Cur != End && (isIdentChar(*Cur) || *Cur == '.')) {
    Ok = false;
    ++Cur;
  }
  if (!Ok) {
    if (!Quiet)
      Diags.report(SMLoc::getFromPointer(Start), diag::err_ir_bad_literal)
          << "numeric" << StringRef(Start, Cur - Start);
    Cur = End;
    return Token{TokKind::Error, StringRef(Start, 0), false};
  }
  return make(IsFloat ? TokKind::Float : TokKind::Int, Start);
}

Token Lexer::lexString(const char *Start) {
  while (Cur != End && *Cur != '"' && *Cur != '\n') {
    if (*Cur == '\\') {
      ++Cur;
      if (Cur == End || !StringRef("\"\\ntx").contains(*Cur))
        return error(Cur - 1, diag::err_lex_bad_escape,
                     Cur == End ? "" : std::string(1, *Cur));
      if (*Cur == 'x') {
        if (End - Cur < 3 || !llvm::isHexDigit(Cur[1]) ||
            !llvm::isHexDigit(Cur[2]))
          return error(Cur - 1, diag::err_lex_bad_escape, "x");
        Cur += 2;
      }
    }
    ++Cur;
  }
  if (Cur == End || *Cur != '"') {
    if (!Quiet)
      Diags.report(SMLoc::getFromPointer(Start),
                   diag::err_lex_unterminated_string);
    Cur = End;
    return Token{TokKind::Error, StringRef(Start, 0), false};
  }
  ++Cur;
  return make(TokKind::String, Start);
}

/// The contents of a STRING token (quotes stripped, escapes decoded; the
/// lexer has validated them).
std::string unescape(StringRef Quoted) {
  StringRef S = Quoted.drop_front().drop_back();
  std::string Result;
  for (size_t I = 0; I < S.size(); ++I) {
    if (S[I] != '\\') {
      Result += S[I];
      continue;
    }
    char E = S[++I];
    if (E == 'n')
      Result += '\n';
    else if (E == 't')
      Result += '\t';
    else if (E == 'x') {
      Result += char(llvm::hexFromNibbles(S[I + 1], S[I + 2]));
      I += 2;
    } else
      Result += E;
  }
  return Result;
}

//===----------------------------------------------------------------------===//
// Parser
//===----------------------------------------------------------------------===//

constexpr unsigned MaxDepth = 200;

class IRParser {
public:
  IRParser(StringRef Buffer, DiagnosticEngine &Diags)
      : Lex(Buffer, Diags), Diags(Diags) {
    Tok = Lex.next();
  }

  std::unique_ptr<Operation> parseTopLevel();
  bool parseTypeOnly(Type &Result);

private:
  // Tokens.
  void consume() { Tok = Lex.next(); }
  bool consumeIf(TokKind K) {
    if (!Tok.is(K))
      return false;
    consume();
    return true;
  }
  bool expect(TokKind K, StringRef What);
  bool errorExpected(StringRef What);
  /// The N-th token after the current one (N >= 1).
  Token peek(unsigned N = 1) const {
    Lexer Ahead = Lex.quietCopy();
    Token T;
    for (unsigned I = 0; I != N; ++I)
      T = Ahead.next();
    return T;
  }
  /// `{` IDENT `=` starts an attribute dictionary; any other `{` a region.
  bool atAttrDict() const {
    return Tok.is(TokKind::LBrace) && peek(1).is(TokKind::Ident) &&
           peek(2).is(TokKind::Equal);
  }

  // Productions.
  std::unique_ptr<Operation> parseOp();
  bool parseResultNames(std::vector<Token> &Names);
  bool parseOperandGroups(std::vector<Value *> &Operands,
                          std::vector<unsigned> &Segments);
  bool parseValueUse(std::vector<Value *> &Operands);
  bool parseAttrDict(std::vector<NamedAttribute> &Attrs);
  bool parseAttr(Attribute &Result, unsigned Depth);
  bool parseIdentAttr(Attribute &Result);
  bool parseNumberAttr(Attribute &Result);
  bool parseType(Type &Result);
  bool parseBufferType(Scope S, Type &Result);
  bool parseDim(std::vector<Dim> &Dims);
  bool parseRegion(Operation &Op);
  bool parseRegionArgs(Block &B);
  bool parseLoc(Location &Loc);
  bool checkCounts(const Operation &Op, SMLoc At);

  // Names.
  bool defineValue(const Token &Name, Value *V);
  Value *lookup(StringRef Name) const;

  Lexer Lex;
  DiagnosticEngine &Diags;
  Token Tok;
  unsigned Depth = 0;
  std::vector<llvm::StringMap<Value *>> Scopes;
  llvm::StringMap<SMLoc> DefinedAt;
};

bool IRParser::errorExpected(StringRef What) {
  if (Tok.is(TokKind::Error))
    return false; // The lexer has reported it.
  Diags.report(Tok.loc(), diag::err_ir_expected) << What;
  return false;
}

bool IRParser::expect(TokKind K, StringRef What) {
  if (consumeIf(K))
    return true;
  return errorExpected(What);
}

std::unique_ptr<Operation> IRParser::parseTopLevel() {
  Scopes.emplace_back();
  std::unique_ptr<Operation> Op = parseOp();
  if (!Op)
    return nullptr;
  if (!Tok.is(TokKind::Eof)) {
    errorExpected("end of input after the top-level operation");
    return nullptr;
  }
  return Op;
}

bool IRParser::parseTypeOnly(Type &Result) {
  return parseType(Result) && expect(TokKind::Eof, "end of type");
}

/// op ::= [results '='] IDENT [groups] [attr-dict] [':' types] region* [loc]
std::unique_ptr<Operation> IRParser::parseOp() {
  if (++Depth > MaxDepth) {
    Diags.report(Tok.loc(), diag::err_ir_too_deep);
    return nullptr;
  }
  SMLoc Start = Tok.loc();
  std::vector<Token> ResultNames;
  if (Tok.is(TokKind::ValueId) && !parseResultNames(ResultNames))
    return nullptr;
  if (!Tok.is(TokKind::Ident)) {
    errorExpected("an operation name");
    return nullptr;
  }
  std::optional<OpKind> Kind = parseOpKind(Tok.Text);
  if (!Kind) {
    Diags.report(Tok.loc(), diag::err_ir_unknown_op) << Tok.Text;
    return nullptr;
  }
  consume();

  std::vector<Value *> Operands;
  std::vector<unsigned> Segments;
  if (Tok.is(TokKind::ValueId) && !Tok.AtLineStart &&
      !parseOperandGroups(Operands, Segments))
    return nullptr;
  std::vector<NamedAttribute> Attrs;
  if (atAttrDict() && !parseAttrDict(Attrs))
    return nullptr;
  std::vector<Type> Types;
  if (consumeIf(TokKind::Colon)) {
    do {
      Types.emplace_back();
      if (!parseType(Types.back()))
        return nullptr;
    } while (consumeIf(TokKind::Comma));
  }
  if (ResultNames.size() != Types.size()) {
    Diags.report(Start, diag::err_ir_result_types)
        << ResultNames.size() << Types.size();
    return nullptr;
  }

  std::unique_ptr<Operation> Op = Operation::create(
      *Kind, Location(Start), Operands, Segments, Types, std::move(Attrs), 0);
  while (Tok.is(TokKind::LParen) || Tok.is(TokKind::LBrace))
    if (!parseRegion(*Op))
      return nullptr;
  if (Tok.isIdent("loc") && peek().is(TokKind::LParen)) {
    Location Loc;
    if (!parseLoc(Loc))
      return nullptr;
    Op->setLoc(std::move(Loc));
  }
  if (!checkCounts(*Op, Start))
    return nullptr;
  for (unsigned I = 0; I != ResultNames.size(); ++I)
    if (!defineValue(ResultNames[I], Op->getResult(I)))
      return nullptr;
  --Depth;
  return Op;
}

bool IRParser::parseResultNames(std::vector<Token> &Names) {
  do {
    if (!Tok.is(TokKind::ValueId))
      return errorExpected("a result name");
    Names.push_back(Tok);
    consume();
  } while (consumeIf(TokKind::Comma));
  return expect(TokKind::Equal, "'=' after the result names");
}

/// groups ::= group (',' group)*; group ::= VALUE ['[' VALUE (',' VALUE)* ']']
bool IRParser::parseOperandGroups(std::vector<Value *> &Operands,
                                  std::vector<unsigned> &Segments) {
  do {
    size_t Before = Operands.size();
    if (!parseValueUse(Operands))
      return false;
    if (consumeIf(TokKind::LSquare)) {
      do {
        if (!parseValueUse(Operands))
          return false;
      } while (consumeIf(TokKind::Comma));
      if (!expect(TokKind::RSquare, "']' after the indices"))
        return false;
    }
    Segments.push_back(Operands.size() - Before);
  } while (consumeIf(TokKind::Comma));
  return true;
}

bool IRParser::parseValueUse(std::vector<Value *> &Operands) {
  if (!Tok.is(TokKind::ValueId))
    return errorExpected("a value");
  StringRef Name = Tok.Text.drop_front();
  Value *V = lookup(Name);
  if (!V) {
    Diags.report(Tok.loc(), diag::err_ir_undefined_value) << Name;
    return false;
  }
  Operands.push_back(V);
  consume();
  return true;
}

/// attr-dict ::= '{' IDENT '=' attr (',' IDENT '=' attr)* '}'
bool IRParser::parseAttrDict(std::vector<NamedAttribute> &Attrs) {
  consume();
  llvm::StringSet<> Seen;
  do {
    if (!Tok.is(TokKind::Ident))
      return errorExpected("an attribute name");
    if (!Seen.insert(Tok.Text).second) {
      Diags.report(Tok.loc(), diag::err_ir_duplicate_attr) << Tok.Text;
      return false;
    }
    std::string Name = Tok.Text.str();
    consume();
    Attribute Value;
    if (!expect(TokKind::Equal, "'=' after the attribute name") ||
        !parseAttr(Value, 0))
      return false;
    Attrs.push_back({std::move(Name), std::move(Value)});
  } while (consumeIf(TokKind::Comma));
  return expect(TokKind::RBrace, "'}' to end the attributes");
}

bool IRParser::parseAttr(Attribute &Result, unsigned Depth) {
  if (Depth > MaxDepth) {
    Diags.report(Tok.loc(), diag::err_ir_too_deep);
    return false;
  }
  switch (Tok.Kind) {
  case TokKind::Int:
  case TokKind::Float:
    return parseNumberAttr(Result);
  case TokKind::String:
    Result = Attribute::string(unescape(Tok.Text));
    consume();
    return true;
  case TokKind::Ident:
    return parseIdentAttr(Result);
  case TokKind::LSquare:
    break;
  default:
    return errorExpected("an attribute value");
  }
  consume();
  std::vector<Attribute> Elems;
  if (!consumeIf(TokKind::RSquare)) {
    do {
      Elems.emplace_back();
      if (!parseAttr(Elems.back(), Depth + 1))
        return false;
    } while (consumeIf(TokKind::Comma));
    if (!expect(TokKind::RSquare, "']' to end the array"))
      return false;
  }
  Result = Attribute::array(std::move(Elems));
  return true;
}

bool IRParser::parseNumberAttr(Attribute &Result) {
  StringRef Text = Tok.Text;
  if (Tok.is(TokKind::Int)) {
    int64_t V;
    if (Text.getAsInteger(10, V)) {
      Diags.report(Tok.loc(), diag::err_ir_bad_literal) << "integer" << Text;
      return false;
    }
    Result = Attribute::integer(V);
  } else if (Text == "-inf") {
    Result = Attribute::real(-HUGE_VAL);
  } else {
    double V;
    if (Text.getAsDouble(V)) {
      Diags.report(Tok.loc(), diag::err_ir_bad_literal) << "float" << Text;
      return false;
    }
    Result = Attribute::real(V);
  }
  consume();
  return true;
}

/// true, false, inf, nan or a dtype.
bool IRParser::parseIdentAttr(Attribute &Result) {
  StringRef Text = Tok.Text;
  if (Text == "true" || Text == "false")
    Result = Attribute::boolean(Text == "true");
  else if (Text == "inf")
    Result = Attribute::real(HUGE_VAL);
  else if (Text == "nan")
    Result = Attribute::real(std::numeric_limits<double>::quiet_NaN());
  else if (std::optional<DType> T = parseIRDType(Text))
    Result = Attribute::dtype(*T);
  else
    return errorExpected("an attribute value");
  consume();
  return true;
}

/// type ::= dtype | scope '<' '[' [dim (',' dim)*] ']' dtype '>'
bool IRParser::parseType(Type &Result) {
  if (!Tok.is(TokKind::Ident))
    return errorExpected("a type");
  if (std::optional<DType> T = parseIRDType(Tok.Text)) {
    Result = Type::scalar(*T);
    consume();
    return true;
  }
  std::optional<Scope> S = parseScope(Tok.Text);
  if (!S) {
    Diags.report(Tok.loc(), diag::err_ir_bad_type)
        << "unknown type '" + Tok.Text.str() + "'";
    return false;
  }
  consume();
  return parseBufferType(*S, Result);
}

bool IRParser::parseBufferType(Scope S, Type &Result) {
  if (!expect(TokKind::Less, "'<' after the buffer scope") ||
      !expect(TokKind::LSquare, "'[' to start the shape"))
    return false;
  std::vector<Dim> Dims;
  if (!Tok.is(TokKind::RSquare)) {
    do {
      if (!parseDim(Dims))
        return false;
    } while (consumeIf(TokKind::Comma));
  }
  if (!expect(TokKind::RSquare, "']' to end the shape"))
    return false;
  if (!Tok.is(TokKind::Ident))
    return errorExpected("an element type");
  std::optional<DType> T = parseIRDType(Tok.Text);
  if (!T) {
    Diags.report(Tok.loc(), diag::err_ir_bad_type)
        << "unknown element type '" + Tok.Text.str() + "'";
    return false;
  }
  consume();
  Result = Type::buffer(S, std::move(Dims), *T);
  return expect(TokKind::Greater, "'>' to end the buffer type");
}

bool IRParser::parseDim(std::vector<Dim> &Dims) {
  if (Tok.is(TokKind::Ident)) {
    Dims.push_back(Dim::symbol(Tok.Text));
    consume();
    return true;
  }
  int64_t V;
  if (!Tok.is(TokKind::Int))
    return errorExpected("a dimension (a positive integer or a symbol)");
  if (Tok.Text.getAsInteger(10, V) || V <= 0) {
    Diags.report(Tok.loc(), diag::err_ir_bad_type)
        << "dimension must be a positive integer, got " + Tok.Text.str();
    return false;
  }
  Dims.push_back(Dim(V));
  consume();
  return true;
}

/// region ::= ['(' VALUE ':' type (',' VALUE ':' type)* ')'] '{' op* '}'
bool IRParser::parseRegion(Operation &Op) {
  Block &B = Op.addRegion().getBlock();
  Scopes.emplace_back();
  if (Tok.is(TokKind::LParen) && !parseRegionArgs(B))
    return false;
  if (!expect(TokKind::LBrace, "'{' to start a region"))
    return false;
  while (!Tok.is(TokKind::RBrace)) {
    if (Tok.is(TokKind::Eof))
      return errorExpected("'}' to end the region");
    std::unique_ptr<Operation> Nested = parseOp();
    if (!Nested)
      return false;
    B.push_back(std::move(Nested));
  }
  consume();
  Scopes.pop_back();
  return true;
}

bool IRParser::parseRegionArgs(Block &B) {
  consume();
  do {
    Token Name = Tok;
    Type Ty;
    if (!Tok.is(TokKind::ValueId))
      return errorExpected("a region argument");
    consume();
    if (!expect(TokKind::Colon, "':' after the argument name") ||
        !parseType(Ty))
      return false;
    if (!defineValue(Name, B.addArgument(Ty)))
      return false;
  } while (consumeIf(TokKind::Comma));
  return expect(TokKind::RParen, "')' after the region arguments");
}

/// loc ::= 'loc' '(' STRING ':' INT ':' INT ')'
bool IRParser::parseLoc(Location &Loc) {
  consume();
  consume();
  if (!Tok.is(TokKind::String))
    return errorExpected("a file name string in loc(...)");
  std::string File = unescape(Tok.Text);
  consume();
  unsigned LineCol[2];
  for (unsigned &N : LineCol) {
    if (!expect(TokKind::Colon, "':' in loc(...)"))
      return false;
    if (!Tok.is(TokKind::Int) || Tok.Text.getAsInteger(10, N))
      return errorExpected("a line/column number in loc(...)");
    consume();
  }
  Loc = Location(std::move(File), LineCol[0], LineCol[1]);
  return expect(TokKind::RParen, "')' to end loc(...)");
}

bool IRParser::checkCounts(const Operation &Op, SMLoc At) {
  auto Check = [&](int Fixed, unsigned Got, StringRef What) {
    if (Fixed < 0 || unsigned(Fixed) == Got)
      return true;
    Diags.report(At, diag::err_ir_count)
        << Op.getName() << Fixed << What << Got;
    return false;
  };
  return Check(fixedNumOperands(Op.getKind()), Op.getNumOperands(),
               "operand(s)") &&
         Check(fixedNumResults(Op.getKind()), Op.getNumResults(),
               "result(s)") &&
         Check(fixedNumRegions(Op.getKind()), Op.getNumRegions(), "region(s)");
}

bool IRParser::defineValue(const Token &Name, Value *V) {
  StringRef Id = Name.Text.drop_front();
  auto [It, Inserted] = DefinedAt.try_emplace(Id, Name.loc());
  if (!Inserted) {
    Diags.report(Name.loc(), diag::err_ir_redefined_value) << Id;
    Diags.report(It->second, diag::note_ir_defined_here);
    return false;
  }
  if (!llvm::all_of(Id, llvm::isDigit))
    V->setNameHint(Id);
  Scopes.back()[Id] = V;
  return true;
}

Value *IRParser::lookup(StringRef Name) const {
  for (auto It = Scopes.rbegin(); It != Scopes.rend(); ++It) {
    auto Found = It->find(Name);
    if (Found != It->end())
      return Found->second;
  }
  return nullptr;
}

} // namespace

std::unique_ptr<Operation> ir::parseIR(llvm::SourceMgr &SM, unsigned BufferID,
                                       DiagnosticEngine &Diags) {
  IRParser P(SM.getMemoryBuffer(BufferID)->getBuffer(), Diags);
  return P.parseTopLevel();
}

std::optional<Type> ir::parseType(StringRef Text) {
  llvm::SourceMgr SM;
  SM.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(Text), SMLoc());
  DiagnosticEngine Diags(SM, &llvm::nulls());
  IRParser P(SM.getMemoryBuffer(1)->getBuffer(), Diags);
  Type Result;
  if (!P.parseTypeOnly(Result))
    return std::nullopt;
  return Result;
}
