//===- ASTPrinter.h - Text dumps of tokens and syntax trees ----*- C++ -*-===//
//
// The --emit=tokens and --emit=ast outputs. Both are deterministic and meant
// for FileCheck: one token per line, and one statement per line with its
// expressions as inline S-expressions.
//
//   --emit=tokens:  `line:col KIND 'spelling'`, e.g. `3:5 INDENT '    '`
//   --emit=ast:     (Module "gemm.tile"
//                     (Import @1:1 (tilelang.language as T))
//                     (FunctionDef matmul @3:1
//                       (params (M) (dtype = "float16"))
//                       (Return @4:5 main)))
//
// Expression forms: names and numbers bare, strings double-quoted with C
// escapes, `(op lhs rhs)` for binary/unary/boolean operators, `(. value
// attr)` for attributes, and `(Call f arg (name = value) (* xs) (** kw))`,
// `(Subscript v index)`, `(Slice lo hi step)` (`_` for a missing part),
// `(Tuple ..)`, `(List ..)`, `(Dict (k : v) ..)`, `(Compare a < b)`,
// `(IfExp then if cond else other)`, `(Lambda (params ..) body)`.
// Statements carry `@line:col` of their first token.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_PARSE_ASTPRINTER_H
#define TILEC_PARSE_ASTPRINTER_H

#include "tilec/Parse/AST.h"
#include "tilec/Parse/Lexer.h"
#include "llvm/Support/raw_ostream.h"

namespace tilec {

/// Prints every token \p Lex produces, up to and including ENDMARKER.
void printTokens(Lexer &Lex, llvm::raw_ostream &OS);

/// Prints \p M; \p SM resolves line:col for its locations.
void printAST(const ast::Module &M, llvm::SourceMgr &SM, llvm::raw_ostream &OS);

/// Prints one expression in the inline form printAST uses.
void printExpr(const ast::Expr &E, llvm::raw_ostream &OS);

} // namespace tilec

#endif
