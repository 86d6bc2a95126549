//===- ASTPrinter.cpp - Text dumps of tokens and syntax trees -------------===//

#include "tilec/Parse/ASTPrinter.h"
#include "llvm/ADT/StringExtras.h"
#include <fmt/format.h>

using namespace tilec;
using namespace tilec::ast;
using llvm::raw_ostream;
using llvm::StringRef;

namespace {
void printEscaped(StringRef S, char Quote, raw_ostream &OS) {
  OS << Quote;
  for (char C : S) {
    unsigned char U = static_cast<unsigned char>(C);
    if (C == Quote || C == '\\')
      OS << '\\' << C;
    else if (C == '\n')
      OS << "\\n";
    else if (C == '\t')
      OS << "\\t";
    else if (C == '\r')
      OS << "\\r";
    else if (U < 0x20 || U == 0x7F)
      OS << fmt::format("\\x{:02x}", U);
    else
      OS << C;
  }
  OS << Quote;
}

/// Shortest text that reads back as the same double, always with a '.' or
/// exponent so it cannot be mistaken for an int.
std::string formatFloat(double V) {
  std::string S = fmt::format("{}", V);
  if (S.find_first_of(".eEn") == std::string::npos)
    S += ".0";
  return S;
}

class ExprPrinter {
public:
  explicit ExprPrinter(raw_ostream &OS) : OS(OS) {}

  void print(const Expr *E) {
    if (!E) {
      OS << '_';
      return;
    }
    print(*E);
  }
  void print(const Expr &E);
  void printParam(const Param &P);

private:
  void printList(StringRef Head, const ExprList &Elts);
  void printCall(const CallExpr &C);
  void printCompare(const CompareExpr &C);
  void printDict(const DictExpr &D);
  void printJoinedStr(const JoinedStrExpr &J);
  void printComprehension(const ComprehensionExpr &C);
  void printTagged(StringRef Head, const Expr *E);

  raw_ostream &OS;
};

void ExprPrinter::printList(StringRef Head, const ExprList &Elts) {
  OS << '(' << Head;
  for (const ExprPtr &E : Elts) {
    OS << ' ';
    print(*E);
  }
  OS << ')';
}

void ExprPrinter::printCall(const CallExpr &C) {
  OS << "(Call ";
  print(*C.Callee);
  for (const ExprPtr &A : C.Args) {
    OS << ' ';
    print(*A);
  }
  for (const Keyword &K : C.Keywords) {
    OS << (K.Name.empty() ? " (** " : " (" + K.Name + " = ");
    print(*K.Value);
    OS << ')';
  }
  OS << ')';
}

void ExprPrinter::printCompare(const CompareExpr &C) {
  OS << "(Compare ";
  print(*C.Left);
  for (size_t I = 0; I < C.Ops.size(); ++I) {
    OS << ' ' << spelling(C.Ops[I]) << ' ';
    print(*C.Comparators[I]);
  }
  OS << ')';
}

void ExprPrinter::printParam(const Param &P) {
  OS << '(';
  if (P.K == Param::Kind::VarArgs && P.Name != "*")
    OS << '*';
  else if (P.K == Param::Kind::KwArgs)
    OS << "**";
  if (P.KwOnly && P.K == Param::Kind::Normal)
    OS << "kw ";
  OS << P.Name;
  if (P.Annotation) {
    OS << " : ";
    print(*P.Annotation);
  }
  if (P.Default) {
    OS << " = ";
    print(*P.Default);
  }
  OS << ')';
}

void ExprPrinter::print(const Expr &E) {
  using K = Expr::Kind;
  switch (E.getKind()) {
  case K::Name:
    OS << llvm::cast<NameExpr>(E).Id;
    return;
  case K::IntLit:
    OS << llvm::cast<IntLitExpr>(E).Value;
    return;
  case K::FloatLit:
    OS << formatFloat(llvm::cast<FloatLitExpr>(E).Value);
    return;
  case K::StringLit:
    printEscaped(llvm::cast<StringLitExpr>(E).Value, '"', OS);
    return;
  case K::BoolLit:
    OS << (llvm::cast<BoolLitExpr>(E).Value ? "True" : "False");
    return;
  case K::NoneLit:
    OS << "None";
    return;
  case K::Ellipsis:
    OS << "...";
    return;
  case K::Binary: {
    const auto &B = llvm::cast<BinaryExpr>(E);
    OS << '(' << spelling(B.Op) << ' ';
    print(*B.LHS);
    OS << ' ';
    print(*B.RHS);
    OS << ')';
    return;
  }
  case K::Unary: {
    const auto &U = llvm::cast<UnaryExpr>(E);
    OS << '(' << spelling(U.Op) << ' ';
    print(*U.Operand);
    OS << ')';
    return;
  }
  case K::BoolOp: {
    const auto &B = llvm::cast<BoolOpExpr>(E);
    return printList(spelling(B.Op), B.Values);
  }
  case K::Compare:
    return printCompare(llvm::cast<CompareExpr>(E));
  case K::Call:
    return printCall(llvm::cast<CallExpr>(E));
  case K::Attribute: {
    const auto &A = llvm::cast<AttributeExpr>(E);
    OS << "(. ";
    print(*A.Value);
    OS << ' ' << A.Attr << ')';
    return;
  }
  case K::Subscript: {
    const auto &S = llvm::cast<SubscriptExpr>(E);
    OS << "(Subscript ";
    print(*S.Value);
    OS << ' ';
    print(*S.Index);
    OS << ')';
    return;
  }
  case K::Slice: {
    const auto &S = llvm::cast<SliceExpr>(E);
    OS << "(Slice ";
    print(S.Lower.get());
    OS << ' ';
    print(S.Upper.get());
    OS << ' ';
    print(S.Step.get());
    OS << ')';
    return;
  }
  case K::Tuple:
    return printList("Tuple", llvm::cast<TupleExpr>(E).Elts);
  case K::List:
    return printList("List", llvm::cast<ListExpr>(E).Elts);
  case K::Dict:
    return printDict(llvm::cast<DictExpr>(E));
  case K::IfExp: {
    const auto &I = llvm::cast<IfExpExpr>(E);
    OS << "(IfExp ";
    print(*I.Then);
    OS << " if ";
    print(*I.Cond);
    OS << " else ";
    print(*I.Else);
    OS << ')';
    return;
  }
  case K::Lambda: {
    const auto &L = llvm::cast<LambdaExpr>(E);
    OS << "(Lambda (params";
    for (const Param &P : L.Params) {
      OS << ' ';
      printParam(P);
    }
    OS << ") ";
    print(*L.Body);
    OS << ')';
    return;
  }
  case K::Starred:
    return printTagged("*", llvm::cast<StarredExpr>(E).Value.get());
  case K::JoinedStr:
    return printJoinedStr(llvm::cast<JoinedStrExpr>(E));
  case K::Comprehension:
    return printComprehension(llvm::cast<ComprehensionExpr>(E));
  case K::NamedExpr: {
    const auto &N = llvm::cast<NamedExpr>(E);
    OS << "(:= ";
    print(*N.Target);
    OS << ' ';
    print(*N.Value);
    OS << ')';
    return;
  }
  case K::Await:
    return printTagged("Await", llvm::cast<AwaitExpr>(E).Value.get());
  case K::Yield: {
    const auto &Y = llvm::cast<YieldExpr>(E);
    return printTagged(Y.From ? "YieldFrom" : "Yield", Y.Value.get());
  }
  case K::Set:
    return printList("Set", llvm::cast<SetExpr>(E).Elts);
  }
}

void ExprPrinter::printTagged(StringRef Head, const Expr *E) {
  OS << '(' << Head << ' ';
  print(E);
  OS << ')';
}

void ExprPrinter::printDict(const DictExpr &D) {
  OS << "(Dict";
  for (size_t I = 0; I < D.Keys.size(); ++I) {
    OS << " (";
    if (D.Keys[I]) {
      print(*D.Keys[I]);
      OS << " : ";
    } else {
      OS << "** ";
    }
    print(*D.Values[I]);
    OS << ')';
  }
  OS << ')';
}

void ExprPrinter::printJoinedStr(const JoinedStrExpr &J) {
  OS << "(JoinedStr";
  for (const FStringPart &P : J.Parts) {
    OS << ' ';
    if (!P.Value) {
      printEscaped(P.Literal, '"', OS);
      continue;
    }
    OS << "{";
    print(*P.Value);
    if (P.Conversion)
      OS << " !" << P.Conversion;
    if (P.FormatSpec) {
      OS << " : ";
      print(*P.FormatSpec);
    }
    OS << "}";
  }
  OS << ')';
}

void ExprPrinter::printComprehension(const ComprehensionExpr &C) {
  static const char *Heads[] = {"ListComp", "SetComp", "DictComp",
                                "GeneratorExp"};
  OS << '(' << Heads[unsigned(C.CK)] << ' ';
  print(*C.Elt);
  if (C.DictValue) {
    OS << " : ";
    print(*C.DictValue);
  }
  for (const ComprehensionFor &F : C.Fors) {
    OS << " (for ";
    print(*F.Target);
    OS << " in ";
    print(*F.Iter);
    for (const ExprPtr &Cond : F.Ifs) {
      OS << " if ";
      print(*Cond);
    }
    OS << ')';
  }
  OS << ')';
}

class StmtPrinter {
public:
  StmtPrinter(llvm::SourceMgr &SM, raw_ostream &OS)
      : SM(SM), OS(OS), Exprs(OS) {}
  void print(const Stmt &S, unsigned Indent);

private:
  void open(StringRef Kind, const Stmt &S, unsigned Indent);
  void body(const StmtList &Body, unsigned Indent);
  void elseBody(const StmtList &Else, unsigned Indent);
  void printIf(const IfStmt &S, unsigned Indent);
  void printFunction(const FunctionDefStmt &F, unsigned Indent);
  void printClass(const ClassDefStmt &C, unsigned Indent);
  void printTry(const TryStmt &T, unsigned Indent);
  void printDecorators(const ExprList &Decorators, unsigned Indent);
  void printSimple(const Stmt &S, unsigned Indent);
  void printImportNames(const std::vector<ImportAlias> &Names);
  void newline(unsigned Indent) { OS << '\n' << std::string(2 * Indent, ' '); }

  llvm::SourceMgr &SM;
  raw_ostream &OS;
  ExprPrinter Exprs;
};

void StmtPrinter::open(StringRef Kind, const Stmt &S, unsigned Indent) {
  newline(Indent);
  auto [Line, Col] = SM.getLineAndColumn(S.getLoc());
  OS << '(' << Kind << " @" << Line << ':' << Col;
}

void StmtPrinter::body(const StmtList &Body, unsigned Indent) {
  for (const StmtPtr &S : Body)
    print(*S, Indent);
}

void StmtPrinter::elseBody(const StmtList &Else, unsigned Indent) {
  if (Else.empty())
    return;
  newline(Indent);
  OS << "(else";
  body(Else, Indent + 1);
  OS << ')';
}

void StmtPrinter::printIf(const IfStmt &S, unsigned Indent) {
  open(S.IsElif ? "Elif" : "If", S, Indent);
  OS << ' ';
  Exprs.print(*S.Cond);
  body(S.Then, Indent + 1);
  auto *Elif = S.Else.size() == 1 ? llvm::dyn_cast<IfStmt>(S.Else.front().get())
                                  : nullptr;
  if (Elif && Elif->IsElif)
    printIf(*Elif, Indent + 1);
  else
    elseBody(S.Else, Indent + 1);
  OS << ')';
}

void StmtPrinter::printDecorators(const ExprList &Decorators, unsigned Indent) {
  if (Decorators.empty())
    return;
  newline(Indent);
  OS << "(decorators";
  for (const ExprPtr &D : Decorators) {
    OS << ' ';
    Exprs.print(*D);
  }
  OS << ')';
}

void StmtPrinter::printClass(const ClassDefStmt &C, unsigned Indent) {
  open("ClassDef " + C.Name, C, Indent);
  printDecorators(C.Decorators, Indent + 1);
  for (const ExprPtr &B : C.Bases) {
    OS << ' ';
    Exprs.print(*B);
  }
  for (const Keyword &K : C.Keywords) {
    OS << " (" << (K.Name.empty() ? "**" : K.Name + "=");
    Exprs.print(*K.Value);
    OS << ')';
  }
  body(C.Body, Indent + 1);
  OS << ')';
}

void StmtPrinter::printTry(const TryStmt &T, unsigned Indent) {
  open("Try", T, Indent);
  body(T.Body, Indent + 1);
  for (const ExceptHandler &H : T.Handlers) {
    newline(Indent + 1);
    OS << "(except";
    if (H.Type) {
      OS << ' ';
      Exprs.print(*H.Type);
    }
    if (!H.Name.empty())
      OS << " as " << H.Name;
    body(H.Body, Indent + 2);
    OS << ')';
  }
  elseBody(T.Else, Indent + 1);
  if (!T.Finally.empty()) {
    newline(Indent + 1);
    OS << "(finally";
    body(T.Finally, Indent + 2);
    OS << ')';
  }
  OS << ')';
}

void StmtPrinter::printFunction(const FunctionDefStmt &F, unsigned Indent) {
  open(std::string(F.IsAsync ? "AsyncFunctionDef " : "FunctionDef ") + F.Name,
       F, Indent);
  printDecorators(F.Decorators, Indent + 1);
  newline(Indent + 1);
  OS << "(params";
  for (const Param &P : F.Params) {
    OS << ' ';
    Exprs.printParam(P);
  }
  OS << ')';
  if (F.Returns) {
    newline(Indent + 1);
    OS << "(returns ";
    Exprs.print(*F.Returns);
    OS << ')';
  }
  body(F.Body, Indent + 1);
  OS << ')';
}

void StmtPrinter::printImportNames(const std::vector<ImportAlias> &Names) {
  for (const ImportAlias &A : Names) {
    if (A.AsName.empty())
      OS << ' ' << A.Name;
    else
      OS << " (" << A.Name << " as " << A.AsName << ')';
  }
}

void StmtPrinter::print(const Stmt &S, unsigned Indent) {
  using K = Stmt::Kind;
  switch (S.getKind()) {
  case K::If:
    return printIf(llvm::cast<IfStmt>(S), Indent);
  case K::FunctionDef:
    return printFunction(llvm::cast<FunctionDefStmt>(S), Indent);
  case K::ClassDef:
    return printClass(llvm::cast<ClassDefStmt>(S), Indent);
  case K::Try:
    return printTry(llvm::cast<TryStmt>(S), Indent);
  case K::For: {
    const auto &F = llvm::cast<ForStmt>(S);
    open("For", S, Indent);
    OS << ' ';
    Exprs.print(*F.Target);
    OS << " in ";
    Exprs.print(*F.Iter);
    body(F.Body, Indent + 1);
    elseBody(F.Else, Indent + 1);
    OS << ')';
    return;
  }
  case K::While: {
    const auto &W = llvm::cast<WhileStmt>(S);
    open("While", S, Indent);
    OS << ' ';
    Exprs.print(*W.Cond);
    body(W.Body, Indent + 1);
    elseBody(W.Else, Indent + 1);
    OS << ')';
    return;
  }
  case K::With: {
    const auto &W = llvm::cast<WithStmt>(S);
    open("With", S, Indent);
    for (const WithItem &I : W.Items) {
      OS << " (";
      Exprs.print(*I.Context);
      if (I.Target) {
        OS << " as ";
        Exprs.print(*I.Target);
      }
      OS << ')';
    }
    body(W.Body, Indent + 1);
    OS << ')';
    return;
  }
  default:
    return printSimple(S, Indent);
  }
}

void StmtPrinter::printSimple(const Stmt &S, unsigned Indent) {
  using K = Stmt::Kind;
  auto Space = [&](const Expr &E) {
    OS << ' ';
    Exprs.print(E);
  };
  switch (S.getKind()) {
  case K::Expr:
    open("Expr", S, Indent);
    Space(*llvm::cast<ExprStmt>(S).Value);
    break;
  case K::Assign: {
    const auto &A = llvm::cast<AssignStmt>(S);
    open("Assign", S, Indent);
    for (const ExprPtr &T : A.Targets) {
      Space(*T);
      OS << " =";
    }
    Space(*A.Value);
    break;
  }
  case K::AugAssign: {
    const auto &A = llvm::cast<AugAssignStmt>(S);
    open("AugAssign", S, Indent);
    Space(*A.Target);
    OS << ' ' << spelling(A.Op) << '=';
    Space(*A.Value);
    break;
  }
  case K::AnnAssign: {
    const auto &A = llvm::cast<AnnAssignStmt>(S);
    open("AnnAssign", S, Indent);
    Space(*A.Target);
    OS << " :";
    Space(*A.Annotation);
    if (A.Value) {
      OS << " =";
      Space(*A.Value);
    }
    break;
  }
  case K::Break:
    open("Break", S, Indent);
    break;
  case K::Continue:
    open("Continue", S, Indent);
    break;
  case K::Pass:
    open("Pass", S, Indent);
    break;
  case K::Return: {
    open("Return", S, Indent);
    if (const Expr *V = llvm::cast<ReturnStmt>(S).Value.get())
      Space(*V);
    break;
  }
  case K::Import:
    open("Import", S, Indent);
    printImportNames(llvm::cast<ImportStmt>(S).Names);
    break;
  case K::ImportFrom: {
    const auto &I = llvm::cast<ImportFromStmt>(S);
    open("ImportFrom", S, Indent);
    OS << ' ' << I.Module;
    printImportNames(I.Names);
    break;
  }
  case K::Assert: {
    const auto &A = llvm::cast<AssertStmt>(S);
    open("Assert", S, Indent);
    Space(*A.Test);
    if (A.Msg)
      Space(*A.Msg);
    break;
  }
  case K::Raise: {
    const auto &R = llvm::cast<RaiseStmt>(S);
    open("Raise", S, Indent);
    if (R.Exc)
      Space(*R.Exc);
    if (R.Cause) {
      OS << " from";
      Space(*R.Cause);
    }
    break;
  }
  case K::Global:
  case K::Nonlocal: {
    const auto &D = llvm::cast<ScopeDeclStmt>(S);
    open(D.isGlobal() ? "Global" : "Nonlocal", S, Indent);
    for (const std::string &N : D.Names)
      OS << ' ' << N;
    break;
  }
  case K::Delete:
    open("Delete", S, Indent);
    for (const ExprPtr &T : llvm::cast<DeleteStmt>(S).Targets)
      Space(*T);
    break;
  default:
    assert(false && "compound statements are printed by print()");
    break;
  }
  OS << ')';
}
} // namespace

void tilec::printExpr(const Expr &E, raw_ostream &OS) {
  ExprPrinter(OS).print(E);
}

void tilec::printAST(const Module &M, llvm::SourceMgr &SM, raw_ostream &OS) {
  OS << "(Module ";
  printEscaped(M.FileName, '"', OS);
  StmtPrinter P(SM, OS);
  for (const StmtPtr &S : M.Body)
    P.print(*S, 1);
  OS << ")\n";
}

void tilec::printTokens(Lexer &Lex, raw_ostream &OS) {
  llvm::SourceMgr &SM = Lex.getSourceMgr();
  while (true) {
    Token T = Lex.next();
    auto [Line, Col] = SM.getLineAndColumn(T.getLoc(), Lex.getBufferID());
    OS << Line << ':' << Col << ' ' << tok::dumpName(T.Kind) << ' ';
    printEscaped(T.Text, '\'', OS);
    OS << '\n';
    if (T.is(tok::Eof))
      return;
  }
}
