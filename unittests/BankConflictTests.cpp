//===- BankConflictTests.cpp - The shared-memory wavefront model ----------===//
//
// countWavefronts on hand-made lane address lists, sharedAccessesOf on
// parsed ops, and the IndexInterpreter the report-bank-conflicts pass
// evaluates addresses with (lib/Transforms/BankConflicts.h,
// IndexInterpreter.h).
//
//===----------------------------------------------------------------------===//

#include "BankConflicts.h"
#include "IndexInterpreter.h"
#include "tilec/IR/IRParser.h"
#include "tilec/IR/Operation.h"
#include "tilec/Support/Diagnostics.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include <catch2/catch.hpp>
#include <functional>
#include <set>

using namespace tilec;
using namespace tilec::banks;

namespace {

/// Byte addresses of 32 lanes (or Count): Fn(lane).
std::vector<int64_t> lanes(const std::function<int64_t(int64_t)> &Fn,
                           int64_t Count = 32) {
  std::vector<int64_t> A;
  for (int64_t L = 0; L != Count; ++L)
    A.push_back(Fn(L));
  return A;
}

void checkCount(const Wavefronts &W, int64_t Ideal, int64_t Actual,
                int64_t Ways) {
  CHECK(W.Ideal == Ideal);
  CHECK(W.Actual == Actual);
  CHECK(W.Ways == Ways);
}

} // namespace

TEST_CASE("phases follow the access width", "[banks]") {
  CHECK(lanesPerPhase(1) == 32);
  CHECK(lanesPerPhase(2) == 32);
  CHECK(lanesPerPhase(4) == 32);
  CHECK(lanesPerPhase(8) == 16);
  CHECK(lanesPerPhase(16) == 8);
}

TEST_CASE("4-byte scalar accesses", "[banks]") {
  SECTION("a broadcast of one word is 1 wavefront") {
    checkCount(countWavefronts(lanes([](int64_t) { return 64; }), 4), 1, 1, 1);
  }
  SECTION("consecutive words are 1 wavefront") {
    checkCount(countWavefronts(lanes([](int64_t L) { return 4 * L; }), 4), 1, 1,
               1);
  }
  SECTION("32 words of one bank are 32 wavefronts") {
    checkCount(countWavefronts(lanes([](int64_t L) { return 128 * L; }), 4), 1,
               32, 32);
  }
  SECTION("a stride of 2 words is a 2-way conflict") {
    checkCount(countWavefronts(lanes([](int64_t L) { return 8 * L; }), 4), 1, 2,
               2);
  }
  SECTION("an odd stride spreads over all banks") {
    checkCount(countWavefronts(lanes([](int64_t L) { return 33 * 4 * L; }), 4),
               1, 1, 1);
  }
  SECTION("lanes reading one word each of two banks: broadcast per word") {
    checkCount(countWavefronts(lanes([](int64_t L) { return 4 * (L % 2); }), 4),
               1, 1, 1);
  }
}

TEST_CASE("sub-word accesses share words", "[banks]") {
  // 32 consecutive f16: 64 bytes, 16 words.
  checkCount(countWavefronts(lanes([](int64_t L) { return 2 * L; }), 2), 1, 1,
             1);
  // f16 column of a [*, 64] f16 tile: 128-byte rows, one bank.
  checkCount(countWavefronts(lanes([](int64_t L) { return 128 * L; }), 2), 1,
             32, 32);
}

TEST_CASE("8-byte accesses are served in half-warps", "[banks]") {
  checkCount(countWavefronts(lanes([](int64_t L) { return 8 * L; }), 8), 2, 2,
             1);
  // Lanes 16 bytes apart: each half-warp spans 256 bytes, 2 words per bank.
  checkCount(countWavefronts(lanes([](int64_t L) { return 16 * L; }), 8), 2, 4,
             2);
}

TEST_CASE("16-byte accesses are served in quarter-warps", "[banks]") {
  SECTION("consecutive vectors: 4 wavefronts per 512 bytes") {
    checkCount(countWavefronts(lanes([](int64_t L) { return 16 * L; }), 16), 4,
               4, 1);
  }
  SECTION("a quarter-warp in one 16-byte bank group: 8 ways") {
    checkCount(countWavefronts(lanes([](int64_t L) { return 128 * L; }), 16), 4,
               32, 8);
  }
  SECTION("the same rows with the chunk xor-ed by row % 8: conflict-free") {
    checkCount(countWavefronts(
                   lanes([](int64_t L) { return 128 * L + 16 * (L % 8); }), 16),
               4, 4, 1);
  }
  SECTION("rows 64 bytes apart (a [*, 32] f16 tile): 4 ways") {
    checkCount(countWavefronts(lanes([](int64_t L) { return 64 * L; }), 16), 4,
               16, 4);
  }
  SECTION("ldmatrix.x1: only lanes 0-7 give addresses") {
    checkCount(countWavefronts(lanes([](int64_t L) { return 128 * L; }, 8), 16),
               1, 8, 8);
  }
}

TEST_CASE("inactive lanes take no part", "[banks]") {
  checkCount(countWavefronts(lanes([](int64_t) { return InactiveLane; }), 4), 0,
             0, 0);
  // Only even lanes at a stride of 2 words: 16 banks, no conflict.
  checkCount(
      countWavefronts(
          lanes([](int64_t L) { return L % 2 ? InactiveLane : 4 * L; }), 4),
      1, 1, 1);
  // A whole quarter-warp inactive: 3 phases remain.
  checkCount(
      countWavefronts(
          lanes([](int64_t L) { return L < 8 ? InactiveLane : 16 * L; }), 16),
      3, 3, 1);
}

TEST_CASE("AMD LDS phases", "[banks][amd]") {
  const BankModel &M = amdBanks();
  CHECK(M.NumBanks == 32);
  CHECK(M.WarpSize == 64);
  // Half-wavefronts up to 4 bytes, quarter-wavefronts for 8 bytes, 8
  // consecutive lanes for 16-byte writes.
  CHECK(M.phases(4, true, 64).size() == 2);
  CHECK(M.phases(2, false, 64)[1].front() == 32);
  CHECK(M.phases(8, true, 64).size() == 4);
  auto Write = M.phases(16, false, 64);
  REQUIRE(Write.size() == 8);
  CHECK(Write[1] == std::vector<unsigned>{8, 9, 10, 11, 12, 13, 14, 15});
  // ds_read_b128: AMD's lane groups (Composable Kernel's LDS document).
  auto Read = M.phases(16, true, 64);
  REQUIRE(Read.size() == 8);
  CHECK(Read[0] == std::vector<unsigned>{0, 1, 2, 3, 20, 21, 22, 23});
  CHECK(Read[1] == std::vector<unsigned>{4, 5, 6, 7, 16, 17, 18, 19});
  CHECK(Read[2] == std::vector<unsigned>{8, 9, 10, 11, 28, 29, 30, 31});
  CHECK(Read[3] == std::vector<unsigned>{12, 13, 14, 15, 24, 25, 26, 27});
  CHECK(Read[7] == std::vector<unsigned>{44, 45, 46, 47, 56, 57, 58, 59});
  std::set<unsigned> All;
  for (const auto &P : Read)
    All.insert(P.begin(), P.end());
  CHECK(All.size() == 64);
}

TEST_CASE("AMD ds_read_b128 of an MFMA operand", "[banks][amd]") {
  // k_pack = 2 on 16x16x16 f16: lane l reads row l % 16 of A, 16 bytes at
  // k 8 (l / 16), from rows of 128 bytes. Unswizzled, the four rows of
  // each half of a phase start in the same bank: 4 wavefronts instead of
  // 1. Xor-ing the 16-byte chunk with row % 8 pairs rows 0-3 of chunk c
  // with rows 4-7 of chunk c + 1 in distinct banks.
  const BankModel &M = amdBanks();
  auto Plain = [](int64_t L) { return (L % 16) * 128 + (L / 16) * 16; };
  auto Swizzled = [](int64_t L) {
    int64_t Row = L % 16, Chunk = L / 16;
    return Row * 128 + ((Chunk ^ (Row % 8)) * 16);
  };
  checkCount(countWavefronts(lanes(Plain, 64), 16, M, true), 8, 32, 4);
  checkCount(countWavefronts(lanes(Swizzled, 64), 16, M, true), 8, 8, 1);
  // Written in 8 consecutive lanes, the unswizzled rows 0-7 of one phase
  // all start in the same bank: 8-way, where the read's grouping is 4-way.
  checkCount(countWavefronts(lanes(Plain, 64), 16, M, false), 8, 64, 8);
}

TEST_CASE("wavefront counts add up", "[banks]") {
  Wavefronts A{1, 32, 32}, B{4, 4, 1};
  A += B;
  CHECK(A.Ideal == 5);
  CHECK(A.Actual == 36);
  CHECK(A.Ways == 32);
  CHECK(A.excess() == 31);
}

namespace {

struct Parsed {
  llvm::SourceMgr SM;
  std::unique_ptr<ir::Operation> Module;
};

std::unique_ptr<Parsed> parse(llvm::StringRef Text) {
  auto P = std::make_unique<Parsed>();
  unsigned ID = P->SM.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(Text, "test.tir"), llvm::SMLoc());
  DiagnosticEngine Diags(P->SM, &llvm::errs());
  P->Module = ir::parseIR(P->SM, ID, Diags);
  return P;
}

const char *AccessesIR = R"(module {
  func {name = "f", params = ["X"]} (%X: global<[64, 64] f16>) {
    %g = const {value = 1} : i32
    kernel %g {threads = [64, 2]} (%bx: i32) {
      %S = alloc : shared<[64, 64] f16>
      %R = alloc : local<[8] f16>
      %tx = thread_id {dim = 0} : i32
      %ty = thread_id {dim = 1} : i32
      %c3 = const {value = 3} : i32
      %a = mul %ty, %c3 : i32
      %b = add %a, %tx : i32
      %n = neg %b : i32
      vcopy %S[%tx, %a], %X[%tx, %a] {lanes = 8}
      vcopy %R[%a], %S[%tx, %a] {lanes = 4}
      ldmatrix %R[%a], %S[%tx, %a] {count = 2, trans = false}
      cp_async %S[%tx, %a], %X[%tx, %a] {bytes = 8}
      %v = load %S[%tx, %a] : f16
      store %v, %S[%tx, %n]
      store %v, %R[%a]
    }
  }
})";

} // namespace

TEST_CASE("shared accesses of each op", "[banks]") {
  auto P = parse(AccessesIR);
  REQUIRE(P->Module);
  std::vector<std::string> Seen;
  P->Module->walk([&](const ir::Operation &Op) {
    for (const SharedAccess &A : sharedAccessesOf(Op))
      Seen.push_back(Op.getName().str() + " " + std::to_string(A.Group) + " " +
                     std::to_string(A.Bytes) + " " +
                     std::to_string(A.AddressLanes) + " " + A.Direction);
  });
  CHECK(Seen == std::vector<std::string>{
                    "vcopy 0 16 32 write", "vcopy 1 8 32 read",
                    "ldmatrix 1 16 16 read", "cp_async 0 8 32 write",
                    "load 0 2 32 read", "store 1 2 32 write"});
}

TEST_CASE("the index interpreter evaluates per thread", "[banks][interp]") {
  auto P = parse(AccessesIR);
  REQUIRE(P->Module);
  const ir::Value *B = nullptr, *N = nullptr, *Bx = nullptr;
  P->Module->walk([&](const ir::Operation &Op) {
    if (Op.getNumResults() == 1 && Op.getResult()->getNameHint() == "b")
      B = Op.getResult();
    if (Op.getNumResults() == 1 && Op.getResult()->getNameHint() == "n")
      N = Op.getResult();
    if (Op.is(ir::OpKind::Kernel))
      Bx = Op.getBody().getArgument(0);
  });
  REQUIRE(B);
  REQUIRE(N);
  IndexInterpreter I({64, 2, 1});
  I.setThread(64 + 5); // tx = 5, ty = 1
  CHECK(I.eval(B) == 3 + 5);
  CHECK(I.eval(N) == -(3 + 5));
  I.setThread(7);
  CHECK(I.eval(B) == 7);
  // Block arguments are unknown until bound.
  CHECK_FALSE(I.eval(Bx));
  I.bind(Bx, 1);
  CHECK(I.eval(Bx) == 1);
  I.unbind(Bx);
  CHECK_FALSE(I.isBound(Bx));
}
