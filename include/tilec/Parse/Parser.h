//===- Parser.h - Recursive-descent parser for .tile files -----*- C++ -*-===//
//
// Builds the syntax tree (AST.h) of one .tile file from the Lexer's tokens.
// No name resolution or evaluation happens here.
//
// Expects: a SourceMgr buffer holding any bytes.
// Does: Python 3's grammar (3.8 to 3.11, as TileLang's source files use
//   it), kernels and host code alike: every parse function states its rule.
//   Sema decides what of it compile-time evaluation can run.
// Guarantees: a Module is always returned, holding what could be parsed;
//   callers check Diags.hasErrors(). After a syntax error the parser skips
//   to the end of the logical line (and past the block it opens) and goes
//   on, so one run reports several errors; it stops after ErrorLimit errors.
//   Nesting deeper than MaxNesting (brackets, unary operators, blocks) or
//   trees deeper than MaxTreeDepth (long operator chains, elif chains) is an
//   error, so neither parsing nor later tree walks can exhaust the stack.
//
// Source ranges: every node's range runs from the start of its first token
// to the end of its last token (half-open). A parenthesized expression's
// node does not include the parentheses, as in Python; the enclosing node's
// range does. A FunctionDef starts at `def`, not at its first decorator.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_PARSE_PARSER_H
#define TILEC_PARSE_PARSER_H

#include "tilec/Parse/AST.h"
#include "tilec/Parse/Lexer.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include <memory>
#include <vector>

namespace tilec {

/// Parses buffer \p BufferID of \p SM.
std::unique_ptr<ast::Module> parseFile(llvm::SourceMgr &SM, unsigned BufferID,
                                       DiagnosticEngine &Diags);

class Parser {
public:
  static constexpr unsigned MaxNesting = 200;
  static constexpr unsigned MaxTreeDepth = 1000;
  static constexpr unsigned ErrorLimit = 20;

  Parser(Lexer &Lex, DiagnosticEngine &Diags);
  std::unique_ptr<ast::Module> parseModule();

private:
  using ExprPtr = ast::ExprPtr;
  using StmtPtr = ast::StmtPtr;

  /// One level of recursion; converts to false when nesting is too deep
  /// (reported once per file).
  class NestingGuard {
  public:
    explicit NestingGuard(Parser &P) : P(P), OK(P.enterNesting()) {}
    ~NestingGuard() {
      --P.Nesting;
      --P.TreeDepth;
    }
    explicit operator bool() const { return OK; }

  private:
    Parser &P;
    bool OK;
  };

  /// Counts the tree depth a left-associative chain (a + b + c, a.b.c)
  /// adds without recursing.
  class ChainGuard {
  public:
    explicit ChainGuard(Parser &P) : P(P) {}
    ~ChainGuard() { P.TreeDepth -= Count; }
    bool add() {
      ++Count;
      ++P.TreeDepth;
      return P.checkDepth();
    }

  private:
    Parser &P;
    unsigned Count = 0;
  };

  // Statements (ParseStmt.cpp).
  void parseStatement(ast::StmtList &Out);
  void parseSimpleStatements(ast::StmtList &Out);
  StmtPtr parseSimpleStatement();
  StmtPtr parseExprStatement();
  StmtPtr parseAssignRest(ExprPtr First);
  StmtPtr parseAugAssign(ExprPtr Target, ast::BinaryOp Op);
  StmtPtr parseAnnAssign(ExprPtr Target);
  StmtPtr parseReturn();
  StmtPtr parseRaise();
  StmtPtr parseAssert();
  StmtPtr parseImport();
  StmtPtr parseFromImport();
  bool parseDottedName(std::string &Name, llvm::SMRange &Range);
  bool parseImportAlias(ast::ImportAlias &Alias, bool Dotted);
  StmtPtr parseIf();
  StmtPtr parseWhile();
  StmtPtr parseFor();
  StmtPtr parseWith();
  bool parseWithItem(std::vector<ast::WithItem> &Items);
  StmtPtr parseTry();
  bool parseExceptClause(ast::ExceptHandler &H);
  StmtPtr parseAsync();
  StmtPtr parseScopeDecl();
  StmtPtr parseDel();

  // Definitions (ParseDef.cpp).
  StmtPtr parseDecorated();
  StmtPtr parseFunctionDef(ast::ExprList Decorators);
  StmtPtr parseClassDef(ast::ExprList Decorators);
  bool parseParams(std::vector<ast::Param> &Params, tok::Kind Closer,
                   bool AllowAnnotations, const Token *Open);
  bool parseParam(std::vector<ast::Param> &Params, bool AllowAnnotations);
  void checkParams(const std::vector<ast::Param> &Params);
  void parseBlock(llvm::StringRef Context, ast::StmtList &Body);
  void parseElse(ast::StmtList &Body);
  StmtPtr failCompound();
  void parseIndentedBlock(ast::StmtList &Body);
  void recover();
  void skipLine();
  void skipIndentedBlock();

  // Expressions (ParseExpr.cpp).
  ExprPtr parseTestList(bool AllowStar);
  ExprPtr parseExprList();
  ExprPtr parseCommaList(llvm::function_ref<ExprPtr()> ParseOne);
  ExprPtr parseTest();
  ExprPtr parseTestOrStar();
  ExprPtr rejectLoneStar(ExprPtr E);
  ExprPtr parseLambda();
  ExprPtr parseOrTest();
  ExprPtr parseAndTest();
  ExprPtr parseBoolChain(tok::Kind Keyword, ast::BoolOpKind Op,
                         ExprPtr (Parser::*Operand)());
  ExprPtr parseNotTest();
  ExprPtr parseComparison();
  ExprPtr parseBinary(unsigned MinPrec);
  ExprPtr parseFactor();
  ExprPtr parsePower();
  ExprPtr parsePrimary();
  ExprPtr parseCall(ExprPtr Callee);
  bool parseArgument(ast::ExprList &Args, std::vector<ast::Keyword> &Keywords);
  ExprPtr parseSubscript(ExprPtr Value);
  ExprPtr parseSubscriptItem();
  ExprPtr parseAtom();
  ExprPtr parseParenAtom();
  ExprPtr parseListAtom();
  ExprPtr parseDictAtom();
  ExprPtr parseDictRest(const Token &Open, ExprPtr FirstKey);
  ExprPtr parseYield();
  ExprPtr parseNamedExpr(ExprPtr Target);
  ExprPtr parseNumber();
  bool parseSequence(ast::ExprList &Elts, const Token &Open, tok::Kind Closer,
                     bool &SawComma);
  bool atComprehension() const;
  bool parseComprehensionFors(std::vector<ast::ComprehensionFor> &Fors);
  ExprPtr parseComprehension(ast::ComprehensionExpr::CompKind K,
                             llvm::SMLoc Start, ExprPtr Elt, ExprPtr Value,
                             const Token &Open, tok::Kind Closer);

  // Strings (ParseFString.cpp).
  ExprPtr parseStrings();
  bool convertFString(const std::vector<FStringPiece> &Pieces,
                      std::vector<ast::FStringPart> &Parts);
  ExprPtr parseFieldExpr(const char *Begin, const char *End);
  static bool startsExpression(const Token &T);

  // Targets.
  bool checkTarget(const ast::Expr &E, bool AllowUnpacking);
  static llvm::StringRef describeForAssign(const ast::Expr &E);

  // Tokens.
  const Token &tok() const { return Toks[Pos]; }
  const Token &peek(unsigned N = 1) const;
  bool at(tok::Kind K) const { return tok().is(K); }
  const Token &consume();
  bool consumeIf(tok::Kind K);
  bool expect(tok::Kind K);
  bool expectCloser(tok::Kind K, const Token &Open, llvm::StringRef What = "");
  void errorExpected(llvm::StringRef What);
  bool stopped() const;
  bool inSwallowedTail() const;

  // Ranges.
  llvm::SMRange rangeOf(const ast::Expr &E) const;
  llvm::SMLoc startOf(const ast::Expr &E) const { return rangeOf(E).Start; }
  llvm::SMLoc endOf(const ast::Expr &E) const { return rangeOf(E).End; }
  llvm::SMRange rangeFrom(llvm::SMLoc Start) const { return {Start, PrevEnd}; }
  bool isParenthesized(const ast::Expr &E) const {
    return ParenRanges.count(&E);
  }

  bool enterNesting();
  bool checkDepth();

  Lexer &Lex;
  DiagnosticEngine &Diags;
  unsigned ErrorsAtStart;
  std::vector<Token> Toks;
  size_t Pos = 0;
  /// End of the last consumed token other than NEWLINE/INDENT/DEDENT.
  llvm::SMLoc PrevEnd;
  /// Ranges including parentheses of parenthesized expressions.
  llvm::DenseMap<const ast::Expr *, llvm::SMRange> ParenRanges;
  unsigned Nesting = 0;
  unsigned TreeDepth = 0;
  bool ReportedTooDeep = false;
};

} // namespace tilec

#endif
