//===- StmtNodes.h - Statement node construction for the parser -*- C++ -*-===//
//
// Private to lib/Parse: the one `make<Node>(...)` that the statement and
// definition parsers (ParseStmt.cpp, ParseDef.cpp) build statements with.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_LIB_PARSE_STMTNODES_H
#define TILEC_LIB_PARSE_STMTNODES_H

#include "tilec/Parse/AST.h"
#include <memory>
#include <utility>

namespace tilec {
namespace parse {
template <typename T, typename... Args> ast::StmtPtr make(Args &&...A) {
  return std::make_unique<T>(std::forward<Args>(A)...);
}
} // namespace parse
} // namespace tilec

#endif
