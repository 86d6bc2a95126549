//===- LayoutParser.h - Reading printed layouts back -----------*- C++ -*-===//
//
// Expects: text in exactly the form the library prints (toString of an
// IndexExpr, a Layout or a Fragment); the lowering passes keep layouts in
// string attributes of the IR (`layout = "Fragment(...)"`) and read them
// back with these functions.
// Does: recursive-descent parsing with the printer's precedences (Python's:
// `^` < `&` < `+ -` < `* // %`, all left-associative):
//
//   expr     ::= xor
//   xor      ::= and {'^' and}
//   and      ::= sum {'&' sum}
//   sum      ::= product {('+' | '-') product}
//   product  ::= unary {('*' | '//' | '%') unary}
//   unary    ::= '-' unary | primary
//   primary  ::= INT | IDENT | ('min' | 'max') '(' expr ',' expr ')'
//              | '(' expr ')'
//   shape    ::= '[' [INT {',' INT}] ']'
//   list     ::= '[' [expr {',' expr}] ']'
//   layout   ::= 'Layout(' shape '->' shape ',' 'transform:' list '->' list ')'
//   fragment ::= 'Fragment(' shape '->' shape ',' 'replicate:' INT ','
//                'thread:' INT ',' 'forward_thread:' expr ','
//                'forward_index:' list [',' 'thread_range:' '[' INT ',' INT ')'] ')'
//
// Guarantees: never crashes on bad input; on failure returns std::nullopt
// and sets Error to a one-line reason. The derived parts of the printed form
// (output shape, thread extent) are recomputed by the constructors and
// checked against the text, so a parsed layout prints back identically.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_LAYOUT_LAYOUTPARSER_H
#define TILEC_LAYOUT_LAYOUTPARSER_H

#include "tilec/Layout/Layout.h"
#include <optional>
#include <string>

namespace tilec {
namespace layout {

std::optional<IndexExpr> parseIndexExpr(llvm::StringRef Text,
                                        std::string &Error);
std::optional<Layout> parseLayout(llvm::StringRef Text, std::string &Error);
std::optional<Fragment> parseFragment(llvm::StringRef Text,
                                      std::string &Error);

} // namespace layout
} // namespace tilec

#endif // TILEC_LAYOUT_LAYOUTPARSER_H
