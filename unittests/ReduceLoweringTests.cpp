//===- ReduceLoweringTests.cpp - The thread plan of lower-reduce ----------===//
//
// planFragmentReduce decides which xor masks combine the partials of a
// fragment reduction. Besides the expected masks for the layouts the
// examples use, a simulation runs the plan on integers (per-thread partials,
// the shfl butterfly, the shared-memory exchange) and compares every
// replica of every dst element with the row sums.
//
//===----------------------------------------------------------------------===//

#include "LoopAccess.h"
#include "LowerReduce.h"
#include "tilec/Layout/LayoutParser.h"
#include "tilec/Layout/ThreadLayouts.h"
#include <catch2/catch.hpp>
#include <map>

using namespace tilec;
using layout::Fragment;

namespace {

Fragment parse(const std::string &Text) {
  std::string Error;
  auto F = layout::parseFragment(Text, Error);
  INFO(Error);
  REQUIRE(F);
  return *F;
}

int64_t flat(llvm::ArrayRef<int64_t> Idx, llvm::ArrayRef<int64_t> Shape) {
  int64_t F = 0;
  for (unsigned D = 0; D != Shape.size(); ++D)
    F = F * Shape[D] + Idx[D];
  return F;
}

/// Runs the plan on integer data; true when every (dst element, replica)
/// slot ends with its row sum.
bool simulateSum(const Fragment &S, const Fragment &D, unsigned Dim,
                 const ReduceThreadPlan &Plan, int64_t Threads) {
  int64_t P = 1;
  while (P < Threads)
    P *= 2;
  int64_t R = D.getRegisterCount();
  std::vector<std::vector<int64_t>> Part(P, std::vector<int64_t>(R, 0));
  std::map<int64_t, int64_t> RowSum;
  llvm::ArrayRef<int64_t> DShape = D.getInputShape();
  int64_t Seed = 7;
  layout::forEachIndex(S.getInputShape(), [&](llvm::ArrayRef<int64_t> X) {
    Seed = (Seed * 1103515245 + 12345) % 1000003;
    layout::Indices E = reducedIndex(X, Dim, DShape.size());
    RowSum[flat(E, DShape)] += Seed;
    int64_t T = *S.forwardThread(X, 0);
    Part[T][flatRegister(D, E)] += Seed;
  });
  for (int64_t M : Plan.LaneMasks) {
    auto Next = Part;
    for (int64_t T = 0; T != P; ++T)
      for (int64_t Reg = 0; Reg != R; ++Reg)
        Next[T][Reg] = Part[T][Reg] + Part[T ^ M][Reg];
    Part = Next;
  }
  auto Final = Part;
  for (int64_t T = 0; T != P; ++T)
    for (int64_t Reg = 0; Reg != R; ++Reg)
      for (int64_t Off : Plan.WarpOffsets)
        Final[T][Reg] += Part[T ^ Off][Reg];
  bool OK = true;
  layout::forEachIndex(DShape, [&](llvm::ArrayRef<int64_t> E) {
    for (int64_t Rep = 0; Rep != D.getReplicateSize(); ++Rep) {
      int64_t T = *D.forwardThread(E, Rep);
      OK &= Final[T][flatRegister(D, E)] == RowSum[flat(E, DShape)];
    }
  });
  return OK;
}

} // namespace

TEST_CASE("softmax rows span four warps", "[reduce]") {
  Fragment S = layout::makeDefaultFragment({4, 1024}, 128, 4);
  Fragment D = parse("Fragment([4] -> [4], replicate: 128, thread: 128, "
                     "forward_thread: rep, forward_index: [i])");
  std::string Why;
  auto Plan = planFragmentReduce(S, D, 1, 32, Why);
  INFO(Why);
  REQUIRE(Plan);
  CHECK(Plan->LaneMasks == std::vector<int64_t>{16, 8, 4, 2, 1});
  CHECK(Plan->WarpOffsets == std::vector<int64_t>{32, 64, 96});
  CHECK(Plan->RegisterElement.size() == 4);
  CHECK(simulateSum(S, D, 1, *Plan, 128));
}

TEST_CASE("a wavefront of 64 shuffles one more lane mask", "[reduce]") {
  // The same rows on an AMD target: lanes 32 apart are in one wavefront,
  // so only the two wavefronts exchange through shared memory.
  Fragment S = layout::makeDefaultFragment({4, 1024}, 128, 4);
  Fragment D = parse("Fragment([4] -> [4], replicate: 128, thread: 128, "
                     "forward_thread: rep, forward_index: [i])");
  std::string Why;
  auto Plan = planFragmentReduce(S, D, 1, 64, Why);
  INFO(Why);
  REQUIRE(Plan);
  CHECK(Plan->LaneMasks == std::vector<int64_t>{32, 16, 8, 4, 2, 1});
  CHECK(Plan->WarpOffsets == std::vector<int64_t>{64});
  CHECK(simulateSum(S, D, 1, *Plan, 128));
}

TEST_CASE("broadcast rows of default fragments", "[reduce]") {
  struct Case {
    int64_t Rows, Cols, Threads, V;
    std::vector<int64_t> Lanes;
    size_t Offsets;
  };
  std::vector<Case> Cases = {
      {64, 128, 128, 4, {16, 8, 4, 2, 1}, 0}, // 32 threads per row
      {64, 32, 128, 4, {4, 2, 1}, 0},         // 8 threads per row
      {8, 512, 256, 4, {16, 8, 4, 2, 1}, 3},  // 128 threads per row
      {2, 2048, 256, 8, {16, 8, 4, 2, 1}, 7}, // all 256 threads
      {128, 4, 128, 4, {}, 0},                // a row on one thread
  };
  for (const Case &C : Cases) {
    Fragment S = layout::makeDefaultFragment({C.Rows, C.Cols}, C.Threads, C.V);
    Fragment D =
        layout::makeBroadcastRowFragment(C.Rows, C.Cols, C.Threads, C.V);
    std::string Why;
    auto Plan = planFragmentReduce(S, D, 1, 32, Why);
    INFO(S.toString() << " / " << D.toString() << ": " << Why);
    REQUIRE(Plan);
    CHECK(Plan->LaneMasks == C.Lanes);
    CHECK(Plan->WarpOffsets.size() == C.Offsets);
    CHECK(simulateSum(S, D, 1, *Plan, C.Threads));
  }
}

TEST_CASE("columns and replicated sources", "[reduce]") {
  // Column reduction of a default fragment into the derived projection.
  Fragment S = layout::makeDefaultFragment({64, 128}, 128, 4);
  Fragment D = parse("Fragment([128] -> [128], replicate: 64, thread: 128, "
                     "forward_thread: rep % 4 * 32 + i // 4, "
                     "forward_index: [i])");
  std::string Why;
  auto Plan = planFragmentReduce(S, D, 0, 32, Why);
  INFO(Why);
  REQUIRE(Plan);
  CHECK(Plan->LaneMasks.empty());
  CHECK(Plan->WarpOffsets == std::vector<int64_t>{32, 64, 96});
  CHECK(simulateSum(S, D, 0, *Plan, 128));

  // A row vector replicated 8 times, summed into one value on all threads.
  Fragment R = layout::makeBroadcastRowFragment(64, 64, 128, 4);
  Fragment One = layout::Fragment::fullyReplicated({1}, 128);
  auto Plan2 = planFragmentReduce(R, One, 0, 32, Why);
  INFO(Why);
  REQUIRE(Plan2);
  CHECK(Plan2->LaneMasks.size() == 5);
  CHECK(Plan2->WarpOffsets.size() == 3);
  CHECK(simulateSum(R, One, 0, *Plan2, 128));
}

TEST_CASE("dst keeps the reduced dim as size 1", "[reduce]") {
  Fragment S = layout::makeDefaultFragment({16, 64}, 64, 2);
  auto D = layout::makeBroadcastRowFragment(16, 64, 64, 2).reshape({16, 1});
  REQUIRE(D);
  std::string Why;
  auto Plan = planFragmentReduce(S, *D, 1, 32, Why);
  INFO(Why);
  REQUIRE(Plan);
  CHECK(Plan->LaneMasks == std::vector<int64_t>{16, 8, 4, 2, 1});
  CHECK(simulateSum(S, *D, 1, *Plan, 64));
}

TEST_CASE("layouts outside the scheme are refused", "[reduce]") {
  std::string Why;
  // Three threads per row: not an xor group.
  Fragment S3 = parse("Fragment([2, 3] -> [2], replicate: 1, thread: 3, "
                      "forward_thread: j, forward_index: [i])");
  Fragment D3 = parse("Fragment([2] -> [2], replicate: 3, thread: 3, "
                      "forward_thread: rep, forward_index: [i])");
  CHECK_FALSE(planFragmentReduce(S3, D3, 1, 32, Why));
  CHECK_THAT(Why, Catch::Contains("xor group"));

  // dst is not held where the row's elements are.
  Fragment S = layout::makeDefaultFragment({64, 128}, 128, 4);
  Fragment D = layout::makeDefaultFragment({64}, 128, 4);
  CHECK_FALSE(planFragmentReduce(S, D, 1, 32, Why));
  CHECK_THAT(Why, Catch::Contains("does not hold destination element"));

  // Shapes that do not fit the reduction.
  CHECK_FALSE(planFragmentReduce(S, D, 0, 32, Why));
}
