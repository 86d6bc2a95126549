//===- ParseTests.cpp - Lexer and parser unit tests -----------------------===//

#include "tilec/Parse/ASTPrinter.h"
#include "tilec/Parse/Lexer.h"
#include "tilec/Parse/Parser.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"
#include <catch2/catch.hpp>
#include <chrono>

using namespace tilec;
using namespace tilec::ast;
using llvm::cast;
using llvm::dyn_cast;
using llvm::isa;

namespace {
/// One source buffer with a diagnostic engine printing into a string.
struct Source {
  llvm::SourceMgr SM;
  std::string Errors;
  llvm::raw_string_ostream ErrOS{Errors};
  DiagnosticEngine Diags{SM, &ErrOS};
  unsigned ID;

  explicit Source(llvm::StringRef Text) {
    ID = SM.AddNewSourceBuffer(
        llvm::MemoryBuffer::getMemBufferCopy(Text, "test.tile"), llvm::SMLoc());
  }
  std::unique_ptr<Module> parse() {
    auto M = parseFile(SM, ID, Diags);
    ErrOS.flush();
    return M;
  }
  std::vector<Token> lex() {
    Lexer Lex(SM, ID, Diags);
    std::vector<Token> Toks;
    do
      Toks.push_back(Lex.next());
    while (Toks.back().isNot(tok::Eof));
    ErrOS.flush();
    return Toks;
  }
  std::string dump() {
    auto M = parse();
    std::string S;
    llvm::raw_string_ostream OS(S);
    printAST(*M, SM, OS);
    return OS.str();
  }
};

std::string text(llvm::SMRange R) {
  return std::string(R.Start.getPointer(), R.End.getPointer());
}

std::vector<tok::Kind> kinds(const std::vector<Token> &Toks) {
  std::vector<tok::Kind> K;
  for (const Token &T : Toks)
    K.push_back(T.Kind);
  return K;
}

std::string exprText(const Expr &E) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  printExpr(E, OS);
  return OS.str();
}

const Expr &assignedValue(const Module &M, size_t I) {
  return *cast<AssignStmt>(*M.Body.at(I)).Value;
}
} // namespace

//===----------------------------------------------------------------------===//
// Lexer
//===----------------------------------------------------------------------===//

TEST_CASE("lexer produces indentation tokens", "[lexer]") {
  Source S("def f():\n    if x:\n        pass\n\n  # comment\n    y = 1\nz\n");
  auto Toks = S.lex();
  using namespace tok;
  std::vector<tok::Kind> Expected = {
      kw_def, Name,  LPar,    RPar,   Colon,   Newline, Indent, kw_if,
      Name,   Colon, Newline, Indent, kw_pass, Newline, Dedent, Name,
      Equal,  Int,   Newline, Dedent, Name,    Newline, Eof};
  CHECK(kinds(Toks) == Expected);
  CHECK(S.Errors.empty());
}

TEST_CASE("lexer handles a file without final newline and CRLF", "[lexer]") {
  Source S("if x:\r\n  y = (1,\r\n 2)\r\n  z");
  auto Toks = S.lex();
  CHECK(S.Errors.empty());
  REQUIRE(Toks.size() >= 4);
  CHECK(Toks[Toks.size() - 1].is(tok::Eof));
  CHECK(Toks[Toks.size() - 2].is(tok::Dedent));
  CHECK(Toks[Toks.size() - 3].is(tok::Newline));
}

TEST_CASE("lexer decodes literals", "[lexer]") {
  Source S("0x_ff 0o17 0b101 1_000 1. .5 1e-3 'a\\n\\x41\\u00e9' r'\\d' "
           "\"\"\"x\ny\"\"\"\n");
  auto Toks = S.lex();
  REQUIRE(S.Errors.empty());
  CHECK(Toks[0].IntValue == 255);
  CHECK(Toks[1].IntValue == 15);
  CHECK(Toks[2].IntValue == 5);
  CHECK(Toks[3].IntValue == 1000);
  CHECK(Toks[4].FloatValue == 1.0);
  CHECK(Toks[5].FloatValue == 0.5);
  CHECK(Toks[6].FloatValue == 0.001);
  CHECK(Toks[7].StrValue == "a\nA\xc3\xa9");
  CHECK(Toks[8].StrValue == "\\d");
  CHECK(Toks[9].StrValue == "x\ny");
}

TEST_CASE("lexer picks the longest operator", "[lexer]") {
  Source S("a //= b ** c -> d ... e >>= f != g @ h\n");
  auto Toks = S.lex();
  CHECK(Toks[1].is(tok::DoubleSlashEqual));
  CHECK(Toks[3].is(tok::DoubleStar));
  CHECK(Toks[5].is(tok::RArrow));
  CHECK(Toks[7].is(tok::Ellipsis));
  CHECK(Toks[9].is(tok::RightShiftEqual));
  CHECK(Toks[11].is(tok::NotEqual));
  CHECK(Toks[13].is(tok::At));
}

TEST_CASE("lexer reports errors and keeps going", "[lexer]") {
  Source S("x = $ 1\ny = 'abc\nz = 08\nw = \xff\n");
  S.lex();
  CHECK(S.Diags.numErrors() == 4);
  CHECK(S.Errors.find("stray character '$'") != std::string::npos);
  CHECK(S.Errors.find("unterminated string literal") != std::string::npos);
  CHECK(S.Errors.find("invalid numeric literal '08'") != std::string::npos);
  CHECK(S.Errors.find("invalid UTF-8") != std::string::npos);
}

TEST_CASE("lexer reports an empty file", "[lexer]") {
  Source S("# only a comment\n\n   \n");
  auto Toks = S.lex();
  CHECK(Toks.size() == 1);
  CHECK(S.Errors.find("empty file") != std::string::npos);
}

TEST_CASE("lexer survives arbitrary bytes", "[lexer]") {
  std::string Bytes;
  for (unsigned I = 0; I < 4096; ++I)
    Bytes += char((I * 7919u + I / 3) & 0xFF);
  Bytes += std::string("\0\0(\"\"\"", 6);
  Source S(Bytes);
  auto M = S.parse();
  CHECK(M != nullptr);
  CHECK(S.Diags.hasErrors());
}

//===----------------------------------------------------------------------===//
// Parser
//===----------------------------------------------------------------------===//

TEST_CASE("parser builds the GEMM kernel", "[parser]") {
  Source S(R"(import tilelang.language as T

def matmul(M, N, K, dtype="float16"):
    @T.prim_func
    def main(A: T.Tensor((M, K), dtype)):
        with T.Kernel(T.ceildiv(N, 128), threads=128) as (bx, by):
            for k in T.Pipelined(4, num_stages=3):
                T.copy(A[by * 128, k * 32], A_shared)
    return main
)");
  auto M = S.parse();
  REQUIRE(S.Errors.empty());
  REQUIRE(M->Body.size() == 2);
  auto *Import = dyn_cast<ImportStmt>(M->Body[0].get());
  REQUIRE(Import);
  CHECK(Import->Names[0].Name == "tilelang.language");
  CHECK(Import->Names[0].AsName == "T");

  auto &Factory = cast<FunctionDefStmt>(*M->Body[1]);
  CHECK(Factory.Name == "matmul");
  REQUIRE(Factory.Params.size() == 4);
  CHECK(cast<StringLitExpr>(*Factory.Params[3].Default).Value == "float16");
  CHECK(isa<ReturnStmt>(*Factory.Body.back()));

  auto &Main = cast<FunctionDefStmt>(*Factory.Body[0]);
  CHECK(exprText(*Main.Decorators.at(0)) == "(. T prim_func)");
  CHECK(exprText(*Main.Params.at(0).Annotation) ==
        "(Call (. T Tensor) (Tuple M K) dtype)");
  CHECK(text(Main.getRange()).rfind("def main", 0) == 0);

  auto &With = cast<WithStmt>(*Main.Body.at(0));
  auto &Kernel = cast<CallExpr>(*With.Items.at(0).Context);
  CHECK(Kernel.Args.size() == 1);
  CHECK(Kernel.Keywords.at(0).Name == "threads");
  CHECK(exprText(*With.Items[0].Target) == "(Tuple bx by)");
  CHECK(text(With.Items[0].Target->getRange()) == "(bx, by)");

  auto &For = cast<ForStmt>(*With.Body.at(0));
  CHECK(cast<NameExpr>(*For.Target).Id == "k");
  auto &Copy = cast<ExprStmt>(*For.Body.at(0));
  CHECK(text(Copy.getRange()) == "T.copy(A[by * 128, k * 32], A_shared)");
}

TEST_CASE("source ranges cover whole constructs", "[parser]") {
  Source S("x = (a + b) * c\ny = f(1, k=2)[i:j]\nz = -2 ** 2\n");
  auto M = S.parse();
  REQUIRE(S.Errors.empty());
  auto &Mul = cast<BinaryExpr>(assignedValue(*M, 0));
  CHECK(text(Mul.getRange()) == "(a + b) * c");
  CHECK(text(Mul.LHS->getRange()) == "a + b");
  CHECK(text(M->Body[0]->getRange()) == "x = (a + b) * c");

  auto &Sub = cast<SubscriptExpr>(assignedValue(*M, 1));
  CHECK(text(Sub.getRange()) == "f(1, k=2)[i:j]");
  CHECK(text(Sub.Index->getRange()) == "i:j");
  CHECK(text(cast<CallExpr>(*Sub.Value).Keywords[0].NameRange) == "k");

  auto &Neg = cast<UnaryExpr>(assignedValue(*M, 2));
  CHECK(Neg.Op == UnaryOp::Neg);
  CHECK(text(Neg.getRange()) == "-2 ** 2");
  CHECK(cast<BinaryExpr>(*Neg.Operand).Op == BinaryOp::Pow);
}

TEST_CASE("parser handles statements", "[parser]") {
  Source S(R"(a = b = 1
p, q = q, p
x: T.int32 = 0
x += 1
if a:
    pass
elif b:
    pass
else:
    pass
while x:
    break
from tilelang import (jit as J, language,)
assert x, "msg"
)");
  auto M = S.parse();
  REQUIRE(S.Errors.empty());
  REQUIRE(M->Body.size() == 8);
  CHECK(cast<AssignStmt>(*M->Body[0]).Targets.size() == 2);
  CHECK(isa<TupleExpr>(*cast<AssignStmt>(*M->Body[1]).Targets[0]));
  CHECK(isa<AnnAssignStmt>(*M->Body[2]));
  CHECK(cast<AugAssignStmt>(*M->Body[3]).Op == BinaryOp::Add);
  auto &If = cast<IfStmt>(*M->Body[4]);
  REQUIRE(If.Else.size() == 1);
  auto &Elif = cast<IfStmt>(*If.Else[0]);
  CHECK(Elif.IsElif);
  CHECK(Elif.Else.size() == 1);
  auto &From = cast<ImportFromStmt>(*M->Body[6]);
  CHECK(From.Names.size() == 2);
  CHECK(From.Names[0].AsName == "J");
  CHECK(cast<AssertStmt>(*M->Body[7]).Msg != nullptr);
}

TEST_CASE("parser prints a deterministic dump", "[parser]") {
  Source S("def f(a, *b, c=1 if x else 2, **d) -> int:\n    return a < b\n");
  CHECK(S.dump() == "(Module \"test.tile\"\n"
                    "  (FunctionDef f @1:1\n"
                    "    (params (a) (*b) (kw c = (IfExp 1 if x else 2)) (**d))\n"
                    "    (returns int)\n"
                    "    (Return @2:5 (Compare a < b))))\n");
  CHECK(S.Diags.numErrors() == 0); // c is keyword-only after *b
}

TEST_CASE("parser recovers after errors", "[parser]") {
  Source S("x = (1 +\ny = 2\n");
  auto M = S.parse();
  CHECK(S.Diags.numErrors() == 1);

  Source Many("a = \nb = )\nc = f(1 2)\nd = 4\nclass 1:\n    pass\ne = 5\n");
  M = Many.parse();
  // `b = )`: the lexer drops the stray ')' and the parser misses the value;
  // the broken class header is dropped with its block.
  CHECK(Many.Diags.numErrors() == 5);
  REQUIRE(M->Body.size() == 2);
  CHECK(cast<NameExpr>(*cast<AssignStmt>(*M->Body[1]).Targets[0]).Id == "e");
}

TEST_CASE("parser stops after the error limit", "[parser]") {
  std::string Src;
  for (int I = 0; I < 100; ++I)
    Src += "x = = 1\n";
  Source S(Src);
  S.parse();
  CHECK(S.Diags.numErrors() == Parser::ErrorLimit);
}

TEST_CASE("deep nesting is an error, not a crash", "[parser]") {
  for (std::string Open : {"(", "[", "-", "not ", "lambda: "}) {
    std::string Src = "x = ";
    for (int I = 0; I < 10000; ++I)
      Src += Open;
    Src += "1\n";
    Source S(Src);
    S.parse();
    CHECK(S.Errors.find("nested too deeply") != std::string::npos);
  }
  std::string Sum = "x = 1";
  for (int I = 0; I < 100000; ++I)
    Sum += " + 1";
  Source S(Sum + "\n");
  S.parse();
  CHECK(S.Errors.find("nested too deeply") != std::string::npos);
}

TEST_CASE("a 1000-line file parses in milliseconds", "[parser][perf]") {
  std::string Src = "import tilelang.language as T\n";
  for (int I = 0; I < 100; ++I)
    Src += "def f" + std::to_string(I) +
           "(M, N, dtype=\"float16\"):\n"
           "    @T.prim_func\n"
           "    def main(A: T.Tensor((M, N), dtype)):\n"
           "        with T.Kernel(T.ceildiv(N, 128), threads=128) as bx:\n"
           "            S = T.alloc_shared((128, 32), dtype)\n"
           "            for k in T.Pipelined(T.ceildiv(M, 32), num_stages=3):\n"
           "                T.copy(A[k * 32, bx * 128], S)\n"
           "                x = (k + 1) * 2 - bx // 3 % 4\n"
           "    return main\n\n";
  Source S(Src);
  auto Start = std::chrono::steady_clock::now();
  auto M = S.parse();
  auto Elapsed = std::chrono::steady_clock::now() - Start;
  CHECK(S.Errors.empty());
  CHECK(M->Body.size() == 101);
  CHECK(std::chrono::duration_cast<std::chrono::milliseconds>(Elapsed).count() <
        200);
}
