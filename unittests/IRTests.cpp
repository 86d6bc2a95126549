//===- IRTests.cpp - Unit tests of the tile IR and pass manager -----------===//

#include "tilec/IR/Builder.h"
#include "tilec/IR/IRParser.h"
#include "tilec/IR/Printer.h"
#include "tilec/IR/Verifier.h"
#include "tilec/Support/Diagnostics.h"
#include "tilec/Support/Target.h"
#include "tilec/Transforms/PassManager.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include <catch2/catch.hpp>
#include <cmath>

using namespace tilec;
using namespace tilec::ir;

namespace {

std::string print(const Operation &Op) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  printModule(Op, OS);
  return OS.str();
}

/// Parses Text; Errors receives the diagnostics. SM owns the buffer the
/// parsed ops' locations point into.
struct ParseResult {
  std::unique_ptr<llvm::SourceMgr> SM = std::make_unique<llvm::SourceMgr>();
  std::unique_ptr<Operation> Op;
  std::string Errors;
};

ParseResult parse(llvm::StringRef Text) {
  ParseResult R;
  unsigned ID = R.SM->AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(Text, "test.tir"), llvm::SMLoc());
  llvm::raw_string_ostream OS(R.Errors);
  DiagnosticEngine Diags(*R.SM, &OS);
  R.Op = parseIR(*R.SM, ID, Diags);
  OS.flush();
  return R;
}

/// Runs the verifier and returns its messages ("" when valid). Pass the
/// SourceMgr of parsed IR so that its locations resolve.
std::string verifyErrors(const Operation &Op, llvm::SourceMgr *SM = nullptr) {
  llvm::SourceMgr Empty;
  std::string S;
  llvm::raw_string_ostream OS(S);
  DiagnosticEngine Diags(SM ? *SM : Empty, &OS);
  bool Ok = verify(Op, Diags);
  OS.flush();
  CHECK(Ok == S.empty());
  return S;
}

/// A GEMM-like module using every structured op.
std::unique_ptr<Operation> buildGemmModule() {
  std::unique_ptr<Operation> Module = createModuleOp();
  Builder B(Module->getBody());
  Type F16A =
      Type::buffer(Scope::Global, {Dim::symbol("M"), 1024}, DType::Float16);
  Type F16B = Type::buffer(Scope::Global, {1024, 1024}, DType::Float16);
  Operation *Func =
      B.createFunc("main", {"M"}, {"A", "B", "C"}, {F16A, F16B, F16A}, {2});
  Block &FB = Func->getBody();
  Value *M = FB.getArgument(0), *A = FB.getArgument(1), *BB = FB.getArgument(2),
        *C = FB.getArgument(3);
  B.setInsertionPointToEnd(FB);
  Value *C128 = B.createConstInt(128);
  Value *C127 = B.createConstInt(127);
  Value *GX = B.createConstInt(8);
  Value *GY = B.createBinary(OpKind::FloorDiv,
                             B.createBinary(OpKind::Add, M, C127), C128);
  Operation *Kernel = B.createKernel({GX, GY}, {128, 1, 1}, {"bx", "by"});
  Block &KB = Kernel->getBody();
  B.setInsertionPointToEnd(KB);
  Value *BX = KB.getArgument(0), *BY = KB.getArgument(1);
  B.createUseSwizzle(10);
  Value *AS = B.createAlloc(
      Type::buffer(Scope::Shared, {128, 32}, DType::Float16), "A_shared");
  Value *BS = B.createAlloc(
      Type::buffer(Scope::Shared, {32, 128}, DType::Float16), "B_shared");
  Value *CL = B.createAlloc(
      Type::buffer(Scope::Fragment, {128, 128}, DType::Float32), "C_local");
  Value *Zero = B.createConstFloat(0.0, DType::Float32);
  B.createFill({CL, {}, {Attribute::integer(128), Attribute::integer(128)}},
               Zero);
  Value *C0 = B.createConstInt(0), *C32 = B.createConstInt(32),
        *C1 = B.createConstInt(1);
  Operation *Loop = B.createFor(C0, C32, C1, "pipelined", "k");
  Loop->setAttr("num_stages", Attribute::integer(3));
  {
    Builder::InsertionGuard G(B);
    B.setInsertionPointToEnd(Loop->getBody());
    Value *K = Loop->getBody().getArgument(0);
    Value *Row = B.createBinary(OpKind::Mul, BY, C128);
    Value *Col = B.createBinary(OpKind::Mul, K, C32);
    Value *BCol = B.createBinary(OpKind::Mul, BX, C128);
    std::vector<Attribute> Unknown{Attribute::integer(-1),
                                   Attribute::integer(-1)};
    B.createCopy(
        {A, {Row, Col}, {Attribute::integer(128), Attribute::integer(32)}},
        {AS, {}, Unknown});
    B.createCopy(
        {BB, {Col, BCol}, {Attribute::integer(32), Attribute::integer(128)}},
        {BS, {}, Unknown});
    B.createGemm(AS, BS, CL);
  }
  Value *Flag =
      B.createAlloc(Type::buffer(Scope::Var, {1}, DType::Int32), "flag");
  Operation *Par = B.createParallel({128, 128}, {"i", "j"});
  {
    Builder::InsertionGuard G(B);
    B.setInsertionPointToEnd(Par->getBody());
    Value *I = Par->getBody().getArgument(0),
          *J = Par->getBody().getArgument(1);
    Value *V = B.createLoad(CL, {I, J});
    Value *H = B.createCast(V, DType::Float16);
    Value *R =
        B.createBinary(OpKind::Add, B.createBinary(OpKind::Mul, BY, C128), I);
    Value *InBounds = B.createCmp(CmpPred::Lt, R, M);
    Operation *If = B.createIf(InBounds, /*WithElse=*/true);
    B.setInsertionPointToEnd(If->getBody(0));
    B.createStore(H, C, {R, J});
    B.setInsertionPointToEnd(If->getBody(1));
    B.createStore(B.createConstInt(1), Flag, {C0});
  }
  Operation *While = B.createWhile();
  {
    Builder::InsertionGuard G(B);
    B.setInsertionPointToEnd(While->getBody(0));
    Value *X = B.createLoad(Flag, {C0});
    B.createCondition(B.createCmp(CmpPred::Ne, X, C0));
    B.setInsertionPointToEnd(While->getBody(1));
    B.createStore(C0, Flag, {C0});
    B.createBreak();
  }
  return Module;
}

} // namespace

TEST_CASE("dtype spellings", "[ir]") {
  for (unsigned I = 0; I != NumDTypes; ++I) {
    DType T = DType(I);
    CHECK(parseIRDType(irName(T)) == T);
    CHECK(parseTileLangDType(tileLangName(T)) == T);
  }
  CHECK(parseTileLangDType("half") == DType::Float16);
  CHECK(parseTileLangDType("float") == DType::Float32);
  CHECK(parseTileLangDType("int") == DType::Int32);
  CHECK(parseTileLangDType("float8_e4m3fn") == DType::Float8E4M3);
  CHECK(parseTileLangDType("float4_e2m1fn") == DType::Float4E2M1);
  CHECK_FALSE(parseTileLangDType("float17"));
  CHECK(bitWidth(DType::BFloat16) == 16);
  CHECK(bitWidth(DType::Int4) == 4);
  CHECK(cTypeName(DType::Float16) == "half");
  CHECK(cTypeName(DType::BFloat16) == "__nv_bfloat16");
  CHECK(isFloat(DType::Float8E5M2));
  CHECK(isInteger(DType::UInt8));
  CHECK_FALSE(isInteger(DType::Bool));
  CHECK(isSigned(DType::Int4));
  CHECK_FALSE(isSigned(DType::UInt4));
}

TEST_CASE("types print, parse and size", "[ir]") {
  Type T = Type::buffer(Scope::Shared, {128, 32}, DType::Float16);
  CHECK(T.str() == "shared<[128, 32] f16>");
  CHECK(T.numElements() == 4096);
  CHECK(T.sizeInBytes() == 8192);
  CHECK(Type::buffer(Scope::Local, {7}, DType::Int4).sizeInBytes() == 4);
  Type Sym =
      Type::buffer(Scope::Global, {Dim::symbol("M"), 1024}, DType::Float32);
  CHECK(Sym.str() == "global<[M, 1024] f32>");
  CHECK_FALSE(Sym.numElements());
  CHECK(parseType("global<[M, 1024] f32>") == Sym);
  CHECK(parseType("bf16") == Type::scalar(DType::BFloat16));
  CHECK_FALSE(parseType("shared<[0] f16>"));
  CHECK_FALSE(parseType("shared<[4] f17>"));
  CHECK_FALSE(parseType("shared<[4 f16"));
}

TEST_CASE("float attributes round-trip", "[ir]") {
  for (double V : {0.0, 1.0, -2.5, 0.1, 1e-300, 3.4028234663852886e38,
                   double(HUGE_VAL), -double(HUGE_VAL), std::nan("")}) {
    std::unique_ptr<Operation> M = createModuleOp();
    Builder B(M->getBody());
    Operation *F = B.createFunc("f", {}, {}, {});
    B.setInsertionPointToEnd(F->getBody());
    B.createConstFloat(V, DType::Float64);
    std::string Text = print(*M);
    ParseResult R = parse(Text);
    REQUIRE(R.Op);
    CHECK(print(*R.Op) == Text);
    const Operation &C = R.Op->getBody().front().getBody().front();
    CHECK(*C.getAttr("value") == Attribute::real(V));
  }
}

TEST_CASE("builder module verifies and round-trips", "[ir]") {
  std::unique_ptr<Operation> M = buildGemmModule();
  CHECK(verifyErrors(*M).empty());
  std::string Text = print(*M);
  INFO(Text);
  CHECK(Text.find("%A_shared = alloc : shared<[128, 32] f16>") !=
        std::string::npos);
  CHECK(Text.find(
            "kernel %2, %4 {threads = [128, 1, 1]} (%bx: i32, %by: i32) {") !=
        std::string::npos);
  CHECK(Text.find("copy %A[%9, %10], %A_shared {src_extent = [128, 32], "
                  "dst_extent = [-1, -1]}") != std::string::npos);
  CHECK(Text.find("} {\n") != std::string::npos); // if/else and while
  ParseResult R = parse(Text);
  INFO(R.Errors);
  REQUIRE(R.Op);
  CHECK(verifyErrors(*R.Op, R.SM.get()).empty());
  CHECK(print(*R.Op) == Text);
}

TEST_CASE("name hints are uniquified", "[ir]") {
  std::unique_ptr<Operation> M = createModuleOp();
  Builder B(M->getBody());
  Operation *F = B.createFunc("f", {}, {}, {});
  B.setInsertionPointToEnd(F->getBody());
  Type T = Type::buffer(Scope::Local, {4}, DType::Float32);
  B.createAlloc(T, "x");
  B.createAlloc(T, "x");
  B.createAlloc(T, "x_1");
  B.createAlloc(T, "42");
  B.createAlloc(T, "a.b");
  std::string Text = print(*M);
  CHECK(Text.find("%x = alloc") != std::string::npos);
  CHECK(Text.find("%x_1 = alloc") != std::string::npos);
  CHECK(Text.find("%x_1_1 = alloc") != std::string::npos);
  CHECK(Text.find("%0 = alloc") != std::string::npos);
  CHECK(Text.find("%a_b = alloc") != std::string::npos);
  ParseResult R = parse(Text);
  REQUIRE(R.Op);
  CHECK(print(*R.Op) == Text);
}

TEST_CASE("locations print and parse", "[ir]") {
  std::unique_ptr<Operation> M = createModuleOp(Location("k.tile", 3, 7));
  PrintOptions Opts;
  Opts.PrintLocs = true;
  std::string S;
  llvm::raw_string_ostream OS(S);
  printModule(*M, OS, Opts);
  CHECK(OS.str() == "module {} loc(\"k.tile\":3:7)\n");
  ParseResult R = parse(S);
  REQUIRE(R.Op);
  CHECK(R.Op->getLoc().File == "k.tile");
  CHECK(R.Op->getLoc().Line == 3);
  CHECK(R.Op->getLoc().Col == 7);
}

TEST_CASE("parser diagnostics", "[ir]") {
  auto ErrorOf = [](llvm::StringRef Text) {
    ParseResult R = parse(Text);
    CHECK_FALSE(R.Op);
    return R.Errors;
  };
  CHECK_THAT(ErrorOf("module {\n  func {name = \"f\"} {\n    %x = add %y, %y : "
                     "i32\n  }\n}"),
             Catch::Contains("use of undefined value '%y'"));
  std::string Redef = ErrorOf(
      "module {\n func {name = \"f\"} {\n  %x = const {value = 1} : i32\n"
      "  %x = const {value = 2} : i32\n }\n}");
  CHECK_THAT(Redef, Catch::Contains("redefinition of value '%x'"));
  CHECK_THAT(Redef, Catch::Contains("note: previously defined here"));
  CHECK_THAT(ErrorOf("module {\n frob\n}"),
             Catch::Contains("unknown operation 'frob'"));
  CHECK_THAT(
      ErrorOf("module {\n func {name = \"f\"} (%a: shared<[4] q8>) {}\n}"),
      Catch::Contains("unknown element type 'q8'"));
  CHECK_THAT(ErrorOf("module {\n func {name = \"f\"} (%a: i32) {\n"
                     "  %b = add %a : i32\n }\n}"),
             Catch::Contains("'add' takes 2 operand(s), got 1"));
  CHECK_THAT(ErrorOf("module {\n func {name = \"f\"} {\n"
                     "  %b = const {value = 1, value = 2} : i32\n }\n}"),
             Catch::Contains("duplicate attribute 'value'"));
  CHECK_THAT(
      ErrorOf("module {\n func {name = \"f\"} {\n"
              "  %b = const {value = 99999999999999999999} : i32\n }\n}"),
      Catch::Contains("invalid integer literal"));
  CHECK_THAT(ErrorOf("module {\n func {name = \"f\"} {\n"
                     "  %b = const {value = 1} \n }\n}"),
             Catch::Contains("1 result name(s) but 0 result type(s)"));
  CHECK_THAT(ErrorOf("module {} module {}"),
             Catch::Contains("expected end of input"));
  // A value defined inside a region is not visible after it.
  CHECK_THAT(
      ErrorOf(
          "module {\n func {name = \"f\"} {\n  %c = const {value = true} : i1\n"
          "  if %c {\n   %x = const {value = 1} : i32\n  }\n"
          "  %y = neg %x : i32\n }\n}"),
      Catch::Contains("use of undefined value '%x'"));
}

TEST_CASE("parser survives garbage and truncation", "[ir]") {
  std::string Text = print(*buildGemmModule());
  // Every prefix must parse or fail with a diagnostic, never crash.
  for (size_t Len = 0; Len < Text.size(); Len += 7) {
    ParseResult R = parse(llvm::StringRef(Text).take_front(Len));
    CHECK((R.Op != nullptr || !R.Errors.empty()));
  }
  for (const char *Bad :
       {"", "%", "%%", "module {", "}", "module {} loc(", "\"abc",
        "module { func {name = \"\\q\"} {} }", "-", "1.", "1e", "[[[[",
        "module {\x01}", "module {} // trailing comment",
        "module { func {name = [[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]} {} }"}) {
    ParseResult R = parse(Bad);
    CHECK((R.Op != nullptr || !R.Errors.empty()));
  }
  std::string Deep =
      "module {\n func {name = \"f\"} {\n  %c = const {value = true} : i1\n";
  for (int I = 0; I != 300; ++I)
    Deep += "if %c {\n";
  CHECK_THAT(parse(Deep).Errors, Catch::Contains("nested too deeply"));
}

TEST_CASE("parser and verifier survive single-character mutations", "[ir]") {
  std::string Text = print(*buildGemmModule());
  unsigned Parsed = 0;
  for (size_t Pos = 0; Pos < Text.size(); Pos += 5) {
    for (char C : {'{', '}', '%', '"', '[', '-', 'x', '0', ',', '\n'}) {
      std::string Mutant = Text;
      Mutant[Pos] = C;
      ParseResult R = parse(Mutant);
      CHECK((R.Op != nullptr || !R.Errors.empty()));
      if (!R.Op)
        continue;
      ++Parsed;
      DiagnosticEngine Diags(*R.SM, &llvm::nulls());
      verify(*R.Op, Diags);
    }
  }
  CHECK(Parsed > 0);
}

TEST_CASE("verifier rejects bad ops", "[ir]") {
  std::unique_ptr<Operation> M = createModuleOp();
  Builder B(M->getBody());
  Type A16 = Type::buffer(Scope::Shared, {128, 32}, DType::Float16);
  Operation *F = B.createFunc(
      "f", {"N"}, {"X"},
      {Type::buffer(Scope::Global, {Dim::symbol("N")}, DType::Float32)});
  B.setInsertionPointToEnd(F->getBody());
  CHECK(verifyErrors(*M).empty());

  SECTION("binary operand types") {
    Value *I = B.createConstInt(1);
    Value *X = B.createConstFloat(1.0);
    B.create(OpKind::Add, {I, X}, {}, {Type::i32()});
    CHECK_THAT(verifyErrors(*M),
               Catch::Contains("'add' op operands must have the scalar result "
                               "type i32, got i32, f32"));
  }
  SECTION("cmp result") {
    Value *I = B.createConstInt(1);
    B.create(OpKind::Cmp, {I, I}, {}, {Type::i32()},
             {{"pred", Attribute::string("lt")}});
    CHECK_THAT(verifyErrors(*M), Catch::Contains("'cmp' op result must be i1"));
  }
  SECTION("load rank") {
    Value *Buf = B.createAlloc(A16);
    B.createLoad(Buf, {B.createConstInt(0)});
    CHECK_THAT(verifyErrors(*M),
               Catch::Contains("'load' op buffer of rank 2 has 1 indices"));
  }
  SECTION("gemm shapes") {
    Value *A = B.createAlloc(A16);
    Value *Bm =
        B.createAlloc(Type::buffer(Scope::Shared, {64, 128}, DType::Float16));
    Value *C = B.createAlloc(
        Type::buffer(Scope::Fragment, {128, 128}, DType::Float32));
    B.createGemm(A, Bm, C);
    CHECK_THAT(verifyErrors(*M),
               Catch::Contains("'gemm' op shapes do not agree"));
  }
  SECTION("gemm with transpose_b is fine") {
    Value *A = B.createAlloc(A16);
    Value *Bm =
        B.createAlloc(Type::buffer(Scope::Shared, {64, 32}, DType::Float16));
    Value *C =
        B.createAlloc(Type::buffer(Scope::Fragment, {128, 64}, DType::Float32));
    B.createGemm(A, Bm, C, false, true);
    CHECK(verifyErrors(*M).empty());
  }
  SECTION("reduce shape") {
    Value *S =
        B.createAlloc(Type::buffer(Scope::Fragment, {128, 64}, DType::Float32));
    Value *D =
        B.createAlloc(Type::buffer(Scope::Fragment, {64}, DType::Float32));
    B.createReduce("max", S, D, 1);
    CHECK_THAT(verifyErrors(*M), Catch::Contains("expected [128]"));
  }
  SECTION("dominance") {
    Value *Zero = B.createConstInt(0);
    Operation *Loop = B.createFor(Zero, Zero, Zero);
    Builder Inner(Loop->getBody());
    Value *Inside = Inner.createConstInt(5);
    B.createUnary(OpKind::Neg, Inside);
    CHECK_THAT(verifyErrors(*M),
               Catch::Contains("'neg' op operand #0 is used where its "
                               "definition is not visible"));
  }
  SECTION("undeclared symbol") {
    B.createAlloc(
        Type::buffer(Scope::Shared, {Dim::symbol("K")}, DType::Float16));
    CHECK_THAT(verifyErrors(*M),
               Catch::Contains("uses symbol 'K' that the enclosing func"));
  }
  SECTION("kernel needs i32 grid and threads") {
    Value *G = B.createConstInt(4, DType::Int64);
    B.create(OpKind::Kernel, {G}, {}, {}, {}, 1)
        ->getBody()
        .addArgument(Type::i32());
    CHECK_THAT(verifyErrors(*M),
               Catch::Contains("'kernel' op grid extent #0 must be i32"));
  }
  SECTION("break outside loop") {
    B.createBreak();
    CHECK_THAT(verifyErrors(*M), Catch::Contains("'break' op must be inside"));
  }
}

TEST_CASE("use lists, RAUW, erase and clone", "[ir]") {
  std::unique_ptr<Operation> M = createModuleOp();
  Builder B(M->getBody());
  Operation *F = B.createFunc("f", {}, {}, {});
  B.setInsertionPointToEnd(F->getBody());
  Value *A = B.createConstInt(1);
  Value *Two = B.createConstInt(2);
  Value *Sum = B.createBinary(OpKind::Add, A, A);
  CHECK(A->getUses().size() == 2);
  A->replaceAllUsesWith(Two);
  CHECK(A->use_empty());
  CHECK(Two->getUses().size() == 2);
  A->getDefiningOp()->erase();
  CHECK(F->getBody().size() == 2);
  std::unique_ptr<Operation> Copy = F->clone();
  CHECK(print(*Copy) == print(*F));
  Sum->getDefiningOp()->erase();
  CHECK(Two->use_empty());
  CHECK(verifyErrors(*M).empty());
}

namespace {
/// Renames every func to "renamed"; fails when told to.
class RenamePass : public Pass {
public:
  explicit RenamePass(bool Fail = false, bool Break = false)
      : Fail(Fail), Break(Break) {}
  llvm::StringRef name() const override { return Fail ? "fail" : "rename"; }
  bool run(Operation &Module, PassContext &) override {
    for (Operation &F : Module.getBody()) {
      F.setAttr("name", Attribute::string("renamed"));
      if (Break)
        F.removeAttr("name");
    }
    return !Fail;
  }

private:
  bool Fail, Break;
};
} // namespace

TEST_CASE("pass manager", "[ir]") {
  registerPass("rename", [] { return std::make_unique<RenamePass>(); });
  CHECK(isPassRegistered("rename"));
  CHECK_FALSE(createPass("no-such-pass"));
  llvm::SourceMgr SM;
  std::string Diag, Dump, Times;
  llvm::raw_string_ostream DiagOS(Diag), DumpOS(Dump), TimeOS(Times);
  DiagnosticEngine Diags(SM, &DiagOS);
  Target T = *parseTarget("sm_90");
  CHECK(T.MaxSharedMemoryBytes == 232448);
  CHECK(parseTarget("gfx90a")->isHIP());
  CHECK_FALSE(parseTarget("sm_70"));
  PassContext Ctx{Diags, T};
  std::unique_ptr<Operation> M = buildGemmModule();

  PassManagerOptions Opts;
  Opts.PrintIRAfter = {"rename"};
  Opts.DumpStream = &DumpOS;
  Opts.TimePasses = true;
  Opts.TimingStream = &TimeOS;
  Opts.VerifyEach = true;
  PassManager PM(Opts);
  REQUIRE(PM.addPass("rename"));
  PM.addPass(std::make_unique<RenamePass>(/*Fail=*/true));
  PM.addPass(std::make_unique<RenamePass>());
  CHECK_FALSE(PM.run(*M, Ctx));
  CHECK_THAT(DumpOS.str(),
             Catch::StartsWith(
                 "// -----// IR Dump After rename //----- //\nmodule {"));
  CHECK_THAT(DumpOS.str(), Catch::Contains("name = \"renamed\""));
  CHECK_THAT(TimeOS.str(), Catch::Contains("rename"));
  CHECK_THAT(TimeOS.str(), Catch::Contains("fail"));

  PassManager Breaking(Opts);
  Breaking.addPass(std::make_unique<RenamePass>(false, /*Break=*/true));
  CHECK_FALSE(Breaking.run(*M, Ctx));
  CHECK_THAT(DiagOS.str(), Catch::Contains("requires attribute 'name'"));
  CHECK_THAT(DiagOS.str(),
             Catch::Contains("pass 'rename' failed: the verifier"));
}
