//===- AST.cpp - Operator spellings ---------------------------------------===//

#include "tilec/Parse/AST.h"

using namespace tilec;
using namespace tilec::ast;

llvm::StringRef ast::spelling(BinaryOp Op) {
  switch (Op) {
  case BinaryOp::Add:
    return "+";
  case BinaryOp::Sub:
    return "-";
  case BinaryOp::Mul:
    return "*";
  case BinaryOp::Div:
    return "/";
  case BinaryOp::FloorDiv:
    return "//";
  case BinaryOp::Mod:
    return "%";
  case BinaryOp::Pow:
    return "**";
  case BinaryOp::MatMul:
    return "@";
  case BinaryOp::LShift:
    return "<<";
  case BinaryOp::RShift:
    return ">>";
  case BinaryOp::BitAnd:
    return "&";
  case BinaryOp::BitOr:
    return "|";
  case BinaryOp::BitXor:
    return "^";
  }
  return "?";
}

llvm::StringRef ast::spelling(UnaryOp Op) {
  switch (Op) {
  case UnaryOp::Neg:
    return "-";
  case UnaryOp::Pos:
    return "+";
  case UnaryOp::Not:
    return "not";
  case UnaryOp::Invert:
    return "~";
  }
  return "?";
}

llvm::StringRef ast::spelling(BoolOpKind Op) {
  return Op == BoolOpKind::And ? "and" : "or";
}

llvm::StringRef ast::spelling(CompareOp Op) {
  switch (Op) {
  case CompareOp::Eq:
    return "==";
  case CompareOp::NotEq:
    return "!=";
  case CompareOp::Lt:
    return "<";
  case CompareOp::LtE:
    return "<=";
  case CompareOp::Gt:
    return ">";
  case CompareOp::GtE:
    return ">=";
  case CompareOp::Is:
    return "is";
  case CompareOp::IsNot:
    return "is not";
  case CompareOp::In:
    return "in";
  case CompareOp::NotIn:
    return "not in";
  }
  return "?";
}
