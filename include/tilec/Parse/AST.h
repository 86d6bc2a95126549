//===- AST.h - Syntax tree of a .tile file ---------------------*- C++ -*-===//
//
// The parser builds this tree and nothing more: no name resolution, no
// evaluation. It mirrors the subset of Python's `ast` module that TileLang
// kernels use. Every node owns its children and records the source range it
// was parsed from. Nodes use LLVM-style RTTI (isa/dyn_cast via classof).
//
// Ranges are half-open: Start is the first character of the node's first
// token, End points just past its last token. Parentheses around an
// expression belong to the enclosing node, as in Python's ast.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_PARSE_AST_H
#define TILEC_PARSE_AST_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Casting.h"
#include "llvm/Support/SMLoc.h"
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tilec {
namespace ast {

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

enum class BinaryOp {
  Add,
  Sub,
  Mul,
  Div,
  FloorDiv,
  Mod,
  Pow,
  MatMul,
  LShift,
  RShift,
  BitAnd,
  BitOr,
  BitXor
};
enum class UnaryOp { Neg, Pos, Not, Invert };
enum class BoolOpKind { And, Or };
enum class CompareOp { Eq, NotEq, Lt, LtE, Gt, GtE, Is, IsNot, In, NotIn };

/// Spelling of an operator as the user wrote it ("+", "//", "not in").
llvm::StringRef spelling(BinaryOp Op);
llvm::StringRef spelling(UnaryOp Op);
llvm::StringRef spelling(BoolOpKind Op);
llvm::StringRef spelling(CompareOp Op);

class Expr {
public:
  enum class Kind {
    Name,
    IntLit,
    FloatLit,
    StringLit,
    BoolLit,
    NoneLit,
    Ellipsis,
    Binary,
    Unary,
    BoolOp,
    Compare,
    Call,
    Attribute,
    Subscript,
    Slice,
    Tuple,
    List,
    Dict,
    IfExp,
    Lambda,
    Starred,
    JoinedStr,
    Comprehension,
    NamedExpr,
    Await,
    Yield,
    Set
  };
  Expr(Kind K, llvm::SMRange R) : K(K), Range(R) {}
  virtual ~Expr() = default;
  Kind getKind() const { return K; }
  llvm::SMRange getRange() const { return Range; }
  llvm::SMLoc getLoc() const { return Range.Start; }

private:
  Kind K;
  llvm::SMRange Range;
};
using ExprPtr = std::unique_ptr<Expr>;
using ExprList = std::vector<ExprPtr>;

#define TILEC_AST_EXPR_CLASSOF(KIND)                                           \
  static bool classof(const Expr *E) { return E->getKind() == Kind::KIND; }

class NameExpr : public Expr {
public:
  NameExpr(llvm::SMRange R, std::string Id)
      : Expr(Kind::Name, R), Id(std::move(Id)) {}
  TILEC_AST_EXPR_CLASSOF(Name)
  std::string Id;
};

class IntLitExpr : public Expr {
public:
  IntLitExpr(llvm::SMRange R, int64_t Value)
      : Expr(Kind::IntLit, R), Value(Value) {}
  TILEC_AST_EXPR_CLASSOF(IntLit)
  int64_t Value;
};

class FloatLitExpr : public Expr {
public:
  FloatLitExpr(llvm::SMRange R, double Value)
      : Expr(Kind::FloatLit, R), Value(Value) {}
  TILEC_AST_EXPR_CLASSOF(FloatLit)
  double Value;
};

class StringLitExpr : public Expr {
public:
  StringLitExpr(llvm::SMRange R, std::string Value)
      : Expr(Kind::StringLit, R), Value(std::move(Value)) {}
  TILEC_AST_EXPR_CLASSOF(StringLit)
  std::string Value; ///< Escapes already decoded; adjacent literals joined.
};

class BoolLitExpr : public Expr {
public:
  BoolLitExpr(llvm::SMRange R, bool Value)
      : Expr(Kind::BoolLit, R), Value(Value) {}
  TILEC_AST_EXPR_CLASSOF(BoolLit)
  bool Value;
};

class NoneLitExpr : public Expr {
public:
  explicit NoneLitExpr(llvm::SMRange R) : Expr(Kind::NoneLit, R) {}
  TILEC_AST_EXPR_CLASSOF(NoneLit)
};

class EllipsisExpr : public Expr {
public:
  explicit EllipsisExpr(llvm::SMRange R) : Expr(Kind::Ellipsis, R) {}
  TILEC_AST_EXPR_CLASSOF(Ellipsis)
};

class BinaryExpr : public Expr {
public:
  BinaryExpr(llvm::SMRange R, BinaryOp Op, ExprPtr L, ExprPtr Rhs,
             llvm::SMLoc OpLoc)
      : Expr(Kind::Binary, R), Op(Op), LHS(std::move(L)), RHS(std::move(Rhs)),
        OpLoc(OpLoc) {}
  TILEC_AST_EXPR_CLASSOF(Binary)
  BinaryOp Op;
  ExprPtr LHS, RHS;
  llvm::SMLoc OpLoc;
};

class UnaryExpr : public Expr {
public:
  UnaryExpr(llvm::SMRange R, UnaryOp Op, ExprPtr Operand)
      : Expr(Kind::Unary, R), Op(Op), Operand(std::move(Operand)) {}
  TILEC_AST_EXPR_CLASSOF(Unary)
  UnaryOp Op;
  ExprPtr Operand;
};

/// `a and b and c`: two or more values.
class BoolOpExpr : public Expr {
public:
  BoolOpExpr(llvm::SMRange R, BoolOpKind Op, ExprList Values)
      : Expr(Kind::BoolOp, R), Op(Op), Values(std::move(Values)) {}
  TILEC_AST_EXPR_CLASSOF(BoolOp)
  BoolOpKind Op;
  ExprList Values;
};

/// `a < b <= c`: Ops.size() == Comparators.size() >= 1.
class CompareExpr : public Expr {
public:
  CompareExpr(llvm::SMRange R, ExprPtr Left, std::vector<CompareOp> Ops,
              ExprList Comparators)
      : Expr(Kind::Compare, R), Left(std::move(Left)), Ops(std::move(Ops)),
        Comparators(std::move(Comparators)) {}
  TILEC_AST_EXPR_CLASSOF(Compare)
  ExprPtr Left;
  std::vector<CompareOp> Ops;
  ExprList Comparators;
};

struct Keyword {
  std::string Name; ///< Empty for `**kwargs`.
  llvm::SMRange NameRange;
  ExprPtr Value;
};

/// `f(a, *b, k=v, **d)`. A starred positional argument is a StarredExpr.
class CallExpr : public Expr {
public:
  CallExpr(llvm::SMRange R, ExprPtr Callee, ExprList Args,
           std::vector<Keyword> Keywords)
      : Expr(Kind::Call, R), Callee(std::move(Callee)), Args(std::move(Args)),
        Keywords(std::move(Keywords)) {}
  TILEC_AST_EXPR_CLASSOF(Call)
  ExprPtr Callee;
  ExprList Args;
  std::vector<Keyword> Keywords;
};

/// `value.attr`
class AttributeExpr : public Expr {
public:
  AttributeExpr(llvm::SMRange R, ExprPtr Value, std::string Attr,
                llvm::SMRange AttrRange)
      : Expr(Kind::Attribute, R), Value(std::move(Value)),
        Attr(std::move(Attr)), AttrRange(AttrRange) {}
  TILEC_AST_EXPR_CLASSOF(Attribute)
  ExprPtr Value;
  std::string Attr;
  llvm::SMRange AttrRange;
};

/// `value[index]`; `a[i, j:k]` has a TupleExpr index holding a SliceExpr.
class SubscriptExpr : public Expr {
public:
  SubscriptExpr(llvm::SMRange R, ExprPtr Value, ExprPtr Index)
      : Expr(Kind::Subscript, R), Value(std::move(Value)),
        Index(std::move(Index)) {}
  TILEC_AST_EXPR_CLASSOF(Subscript)
  ExprPtr Value;
  ExprPtr Index;
};

/// `lower:upper:step`, each part optional. Only valid as a subscript index.
class SliceExpr : public Expr {
public:
  SliceExpr(llvm::SMRange R, ExprPtr Lower, ExprPtr Upper, ExprPtr Step)
      : Expr(Kind::Slice, R), Lower(std::move(Lower)), Upper(std::move(Upper)),
        Step(std::move(Step)) {}
  TILEC_AST_EXPR_CLASSOF(Slice)
  ExprPtr Lower, Upper, Step; ///< Any may be null.
};

class TupleExpr : public Expr {
public:
  TupleExpr(llvm::SMRange R, ExprList Elts)
      : Expr(Kind::Tuple, R), Elts(std::move(Elts)) {}
  TILEC_AST_EXPR_CLASSOF(Tuple)
  ExprList Elts;
};

class ListExpr : public Expr {
public:
  ListExpr(llvm::SMRange R, ExprList Elts)
      : Expr(Kind::List, R), Elts(std::move(Elts)) {}
  TILEC_AST_EXPR_CLASSOF(List)
  ExprList Elts;
};

class DictExpr : public Expr {
public:
  DictExpr(llvm::SMRange R, ExprList Keys, ExprList Values)
      : Expr(Kind::Dict, R), Keys(std::move(Keys)), Values(std::move(Values)) {}
  TILEC_AST_EXPR_CLASSOF(Dict)
  ExprList Keys, Values;
};

/// `then if cond else otherwise`
class IfExpExpr : public Expr {
public:
  IfExpExpr(llvm::SMRange R, ExprPtr Cond, ExprPtr Then, ExprPtr Else)
      : Expr(Kind::IfExp, R), Cond(std::move(Cond)), Then(std::move(Then)),
        Else(std::move(Else)) {}
  TILEC_AST_EXPR_CLASSOF(IfExp)
  ExprPtr Cond, Then, Else;
};

struct Param {
  std::string Name;
  llvm::SMRange Range;
  ExprPtr Annotation; ///< May be null.
  ExprPtr Default;    ///< May be null.
  enum class Kind { Normal, VarArgs, KwArgs } K = Kind::Normal;
  bool KwOnly = false; ///< After `*` or `*args`: passed by keyword only.
};

/// `lambda i, j: body`
class LambdaExpr : public Expr {
public:
  LambdaExpr(llvm::SMRange R, std::vector<Param> Params, ExprPtr Body)
      : Expr(Kind::Lambda, R), Params(std::move(Params)),
        Body(std::move(Body)) {}
  TILEC_AST_EXPR_CLASSOF(Lambda)
  std::vector<Param> Params;
  ExprPtr Body;
};

/// `*value` in a call's arguments, a tuple/list display, or a target list.
class StarredExpr : public Expr {
public:
  StarredExpr(llvm::SMRange R, ExprPtr Value)
      : Expr(Kind::Starred, R), Value(std::move(Value)) {}
  TILEC_AST_EXPR_CLASSOF(Starred)
  ExprPtr Value;
};

/// One piece of an f-string: literal text, or a replacement field
/// `{value!conv:spec}`.
struct FStringPart {
  std::string Literal; ///< Used when Value is null.
  ExprPtr Value;       ///< The replacement field's expression.
  char Conversion = 0; ///< 's', 'r', 'a', or 0.
  ExprPtr FormatSpec;  ///< A JoinedStrExpr, or null.
};

/// `f"a{x}b{y:>{w}}"`: adjacent plain and f-string literals, joined.
class JoinedStrExpr : public Expr {
public:
  JoinedStrExpr(llvm::SMRange R, std::vector<FStringPart> Parts)
      : Expr(Kind::JoinedStr, R), Parts(std::move(Parts)) {}
  TILEC_AST_EXPR_CLASSOF(JoinedStr)
  std::vector<FStringPart> Parts;
};

/// One `for target in iter if cond...` clause of a comprehension.
struct ComprehensionFor {
  ExprPtr Target, Iter;
  ExprList Ifs;
};

/// `[elt for ...]`, `{elt for ...}`, `{key: value for ...}`, `(elt for ...)`.
class ComprehensionExpr : public Expr {
public:
  enum class CompKind { List, Set, Dict, Generator };
  ComprehensionExpr(llvm::SMRange R, CompKind CK, ExprPtr Elt, ExprPtr Val,
                    std::vector<ComprehensionFor> Fors)
      : Expr(Kind::Comprehension, R), CK(CK), Elt(std::move(Elt)),
        DictValue(std::move(Val)), Fors(std::move(Fors)) {}
  TILEC_AST_EXPR_CLASSOF(Comprehension)
  CompKind CK;
  ExprPtr Elt;       ///< The element, or the key of a dict comprehension.
  ExprPtr DictValue; ///< The value of a dict comprehension; else null.
  std::vector<ComprehensionFor> Fors;
};

/// `name := value`
class NamedExpr : public Expr {
public:
  NamedExpr(llvm::SMRange R, ExprPtr Target, ExprPtr Value)
      : Expr(Kind::NamedExpr, R), Target(std::move(Target)),
        Value(std::move(Value)) {}
  TILEC_AST_EXPR_CLASSOF(NamedExpr)
  ExprPtr Target, Value;
};

/// `await value` (host code only).
class AwaitExpr : public Expr {
public:
  AwaitExpr(llvm::SMRange R, ExprPtr Value)
      : Expr(Kind::Await, R), Value(std::move(Value)) {}
  TILEC_AST_EXPR_CLASSOF(Await)
  ExprPtr Value;
};

/// `yield [value]` or `yield from value` (host code only).
class YieldExpr : public Expr {
public:
  YieldExpr(llvm::SMRange R, ExprPtr Value, bool From)
      : Expr(Kind::Yield, R), Value(std::move(Value)), From(From) {}
  TILEC_AST_EXPR_CLASSOF(Yield)
  ExprPtr Value; ///< May be null.
  bool From;
};

/// `{a, b}`
class SetExpr : public Expr {
public:
  SetExpr(llvm::SMRange R, ExprList Elts)
      : Expr(Kind::Set, R), Elts(std::move(Elts)) {}
  TILEC_AST_EXPR_CLASSOF(Set)
  ExprList Elts;
};

#undef TILEC_AST_EXPR_CLASSOF

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

class Stmt;
using StmtPtr = std::unique_ptr<Stmt>;
using StmtList = std::vector<StmtPtr>;

class Stmt {
public:
  enum class Kind {
    Expr,
    Assign,
    AugAssign,
    AnnAssign,
    If,
    For,
    While,
    With,
    Break,
    Continue,
    Pass,
    Return,
    FunctionDef,
    Import,
    ImportFrom,
    Assert,
    Raise,
    Try,
    ClassDef,
    Global,
    Nonlocal,
    Delete
  };
  Stmt(Kind K, llvm::SMRange R) : K(K), Range(R) {}
  virtual ~Stmt() = default;
  Kind getKind() const { return K; }
  llvm::SMRange getRange() const { return Range; }
  llvm::SMLoc getLoc() const { return Range.Start; }

private:
  Kind K;
  llvm::SMRange Range;
};

#define TILEC_AST_STMT_CLASSOF(KIND)                                           \
  static bool classof(const Stmt *S) { return S->getKind() == Kind::KIND; }

class ExprStmt : public Stmt {
public:
  ExprStmt(llvm::SMRange R, ExprPtr Value)
      : Stmt(Kind::Expr, R), Value(std::move(Value)) {}
  TILEC_AST_STMT_CLASSOF(Expr)
  ExprPtr Value;
};

/// `a = b = value`; a target may be a Name, Tuple/List, Subscript or
/// Attribute.
class AssignStmt : public Stmt {
public:
  AssignStmt(llvm::SMRange R, ExprList Targets, ExprPtr Value)
      : Stmt(Kind::Assign, R), Targets(std::move(Targets)),
        Value(std::move(Value)) {}
  TILEC_AST_STMT_CLASSOF(Assign)
  ExprList Targets;
  ExprPtr Value;
};

/// `target op= value`
class AugAssignStmt : public Stmt {
public:
  AugAssignStmt(llvm::SMRange R, ExprPtr Target, BinaryOp Op, ExprPtr Value,
                llvm::SMLoc OpLoc)
      : Stmt(Kind::AugAssign, R), Target(std::move(Target)), Op(Op),
        Value(std::move(Value)), OpLoc(OpLoc) {}
  TILEC_AST_STMT_CLASSOF(AugAssign)
  ExprPtr Target;
  BinaryOp Op;
  ExprPtr Value;
  llvm::SMLoc OpLoc;
};

/// `target: annotation [= value]`
class AnnAssignStmt : public Stmt {
public:
  AnnAssignStmt(llvm::SMRange R, ExprPtr Target, ExprPtr Annotation,
                ExprPtr Value)
      : Stmt(Kind::AnnAssign, R), Target(std::move(Target)),
        Annotation(std::move(Annotation)), Value(std::move(Value)) {}
  TILEC_AST_STMT_CLASSOF(AnnAssign)
  ExprPtr Target, Annotation;
  ExprPtr Value; ///< May be null.
};

/// `if`/`elif`/`else`: an `elif` is an IfStmt alone in Else.
class IfStmt : public Stmt {
public:
  IfStmt(llvm::SMRange R, ExprPtr Cond, StmtList Then, StmtList Else)
      : Stmt(Kind::If, R), Cond(std::move(Cond)), Then(std::move(Then)),
        Else(std::move(Else)) {}
  TILEC_AST_STMT_CLASSOF(If)
  ExprPtr Cond;
  StmtList Then, Else;
  bool IsElif = false; ///< This node was written as `elif`.
};

class ForStmt : public Stmt {
public:
  ForStmt(llvm::SMRange R, ExprPtr Target, ExprPtr Iter, StmtList Body,
          StmtList Else)
      : Stmt(Kind::For, R), Target(std::move(Target)), Iter(std::move(Iter)),
        Body(std::move(Body)), Else(std::move(Else)) {}
  TILEC_AST_STMT_CLASSOF(For)
  ExprPtr Target, Iter;
  StmtList Body, Else;
  bool IsAsync = false;
};

class WhileStmt : public Stmt {
public:
  WhileStmt(llvm::SMRange R, ExprPtr Cond, StmtList Body, StmtList Else)
      : Stmt(Kind::While, R), Cond(std::move(Cond)), Body(std::move(Body)),
        Else(std::move(Else)) {}
  TILEC_AST_STMT_CLASSOF(While)
  ExprPtr Cond;
  StmtList Body, Else;
};

struct WithItem {
  ExprPtr Context;
  ExprPtr Target; ///< `as` target; may be null.
};

class WithStmt : public Stmt {
public:
  WithStmt(llvm::SMRange R, std::vector<WithItem> Items, StmtList Body)
      : Stmt(Kind::With, R), Items(std::move(Items)), Body(std::move(Body)) {}
  TILEC_AST_STMT_CLASSOF(With)
  std::vector<WithItem> Items;
  StmtList Body;
  bool IsAsync = false;
};

class BreakStmt : public Stmt {
public:
  explicit BreakStmt(llvm::SMRange R) : Stmt(Kind::Break, R) {}
  TILEC_AST_STMT_CLASSOF(Break)
};

class ContinueStmt : public Stmt {
public:
  explicit ContinueStmt(llvm::SMRange R) : Stmt(Kind::Continue, R) {}
  TILEC_AST_STMT_CLASSOF(Continue)
};

class PassStmt : public Stmt {
public:
  explicit PassStmt(llvm::SMRange R) : Stmt(Kind::Pass, R) {}
  TILEC_AST_STMT_CLASSOF(Pass)
};

class ReturnStmt : public Stmt {
public:
  ReturnStmt(llvm::SMRange R, ExprPtr Value)
      : Stmt(Kind::Return, R), Value(std::move(Value)) {}
  TILEC_AST_STMT_CLASSOF(Return)
  ExprPtr Value; ///< May be null.
};

class FunctionDefStmt : public Stmt {
public:
  FunctionDefStmt(llvm::SMRange R, std::string Name, llvm::SMRange NameRange,
                  std::vector<Param> Params, ExprList Decorators,
                  ExprPtr Returns, StmtList Body)
      : Stmt(Kind::FunctionDef, R), Name(std::move(Name)), NameRange(NameRange),
        Params(std::move(Params)), Decorators(std::move(Decorators)),
        Returns(std::move(Returns)), Body(std::move(Body)) {}
  TILEC_AST_STMT_CLASSOF(FunctionDef)
  std::string Name;
  llvm::SMRange NameRange;
  std::vector<Param> Params;
  ExprList Decorators; ///< In source order, without the '@'.
  ExprPtr Returns;     ///< `-> annotation`; may be null.
  StmtList Body;
  bool IsAsync = false;
};

struct ImportAlias {
  std::string Name;   ///< Dotted name, e.g. "tilelang.language".
  std::string AsName; ///< Empty when there is no `as`.
  llvm::SMRange Range;
};

/// `import a.b as c, d`
class ImportStmt : public Stmt {
public:
  ImportStmt(llvm::SMRange R, std::vector<ImportAlias> Names)
      : Stmt(Kind::Import, R), Names(std::move(Names)) {}
  TILEC_AST_STMT_CLASSOF(Import)
  std::vector<ImportAlias> Names;
};

/// `from module import a as b, c` (or `*`, recorded as the name "*").
class ImportFromStmt : public Stmt {
public:
  ImportFromStmt(llvm::SMRange R, std::string Module,
                 std::vector<ImportAlias> Names)
      : Stmt(Kind::ImportFrom, R), Module(std::move(Module)),
        Names(std::move(Names)) {}
  TILEC_AST_STMT_CLASSOF(ImportFrom)
  std::string Module; ///< May start with dots for relative imports.
  std::vector<ImportAlias> Names;
};

class AssertStmt : public Stmt {
public:
  AssertStmt(llvm::SMRange R, ExprPtr Test, ExprPtr Msg)
      : Stmt(Kind::Assert, R), Test(std::move(Test)), Msg(std::move(Msg)) {}
  TILEC_AST_STMT_CLASSOF(Assert)
  ExprPtr Test;
  ExprPtr Msg; ///< May be null.
};

class RaiseStmt : public Stmt {
public:
  RaiseStmt(llvm::SMRange R, ExprPtr Exc, ExprPtr Cause)
      : Stmt(Kind::Raise, R), Exc(std::move(Exc)), Cause(std::move(Cause)) {}
  TILEC_AST_STMT_CLASSOF(Raise)
  ExprPtr Exc;   ///< May be null.
  ExprPtr Cause; ///< `from cause`; may be null.
};

struct ExceptHandler {
  llvm::SMRange Range; ///< The `except ...:` header.
  ExprPtr Type;        ///< May be null (a bare `except:`).
  std::string Name;    ///< `as name`; may be empty.
  StmtList Body;
};

/// `try: ... except T as e: ... else: ... finally: ...`
class TryStmt : public Stmt {
public:
  TryStmt(llvm::SMRange R, StmtList Body, std::vector<ExceptHandler> Handlers,
          StmtList Else, StmtList Finally)
      : Stmt(Kind::Try, R), Body(std::move(Body)),
        Handlers(std::move(Handlers)), Else(std::move(Else)),
        Finally(std::move(Finally)) {}
  TILEC_AST_STMT_CLASSOF(Try)
  StmtList Body;
  std::vector<ExceptHandler> Handlers;
  StmtList Else, Finally;
};

/// `class Name(bases, key=value): body`
class ClassDefStmt : public Stmt {
public:
  ClassDefStmt(llvm::SMRange R, std::string Name, llvm::SMRange NameRange,
               ExprList Bases, std::vector<Keyword> Keywords,
               ExprList Decorators, StmtList Body)
      : Stmt(Kind::ClassDef, R), Name(std::move(Name)), NameRange(NameRange),
        Bases(std::move(Bases)), Keywords(std::move(Keywords)),
        Decorators(std::move(Decorators)), Body(std::move(Body)) {}
  TILEC_AST_STMT_CLASSOF(ClassDef)
  std::string Name;
  llvm::SMRange NameRange;
  ExprList Bases;
  std::vector<Keyword> Keywords;
  ExprList Decorators;
  StmtList Body;
};

/// `global a, b` or `nonlocal a, b`.
class ScopeDeclStmt : public Stmt {
public:
  ScopeDeclStmt(llvm::SMRange R, bool IsGlobal, std::vector<std::string> Names)
      : Stmt(IsGlobal ? Kind::Global : Kind::Nonlocal, R),
        Names(std::move(Names)) {}
  static bool classof(const Stmt *S) {
    return S->getKind() == Kind::Global || S->getKind() == Kind::Nonlocal;
  }
  bool isGlobal() const { return getKind() == Kind::Global; }
  std::vector<std::string> Names;
};

/// `del a, b[i]`
class DeleteStmt : public Stmt {
public:
  DeleteStmt(llvm::SMRange R, ExprList Targets)
      : Stmt(Kind::Delete, R), Targets(std::move(Targets)) {}
  TILEC_AST_STMT_CLASSOF(Delete)
  ExprList Targets;
};

#undef TILEC_AST_STMT_CLASSOF

/// A whole .tile file.
struct Module {
  std::string FileName;
  unsigned BufferID = 0;
  StmtList Body;
};

} // namespace ast
} // namespace tilec

#endif
