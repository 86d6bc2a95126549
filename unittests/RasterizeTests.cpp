//===- RasterizeTests.cpp - The block rasterization formula ---------------===//
//
// rasterize2D (lib/Transforms/Rasterize.h) must map every grid onto itself
// one to one, including grids that panels do not divide; the pass emits
// the same template as IR.
//
//===----------------------------------------------------------------------===//

#include "Rasterize.h"
#include <catch2/catch.hpp>
#include <set>

using namespace tilec;

namespace {

/// rasterize2D's arithmetic on non-negative integers.
struct IntArith {
  int64_t constant(int64_t V) { return V; }
  int64_t add(int64_t X, int64_t Y) { return X + Y; }
  int64_t sub(int64_t X, int64_t Y) { return X - Y; }
  int64_t mul(int64_t X, int64_t Y) { return X * Y; }
  int64_t div(int64_t X, int64_t Y) { return X / Y; }
  int64_t rem(int64_t X, int64_t Y) { return X % Y; }
  int64_t min(int64_t X, int64_t Y) { return std::min(X, Y); }
  int64_t isOdd(int64_t X) { return X & 1; }
  int64_t select(int64_t C, int64_t X, int64_t Y) { return C ? X : Y; }
};

std::pair<int64_t, int64_t> raster(int64_t Bx, int64_t By, int64_t Gx,
                                   int64_t Gy, int64_t Panel, bool Col) {
  IntArith Ar;
  return rasterize2D(Ar, Bx, By, Gx, Gy, Panel, Col);
}

} // namespace

TEST_CASE("rasterize2D is a bijection of every small grid", "[rasterize]") {
  for (bool Col : {false, true}) {
    for (int64_t Panel = 1; Panel <= 7; ++Panel) {
      for (int64_t Gx = 1; Gx <= 13; ++Gx) {
        for (int64_t Gy = 1; Gy <= 13; ++Gy) {
          std::set<std::pair<int64_t, int64_t>> Seen;
          for (int64_t By = 0; By != Gy; ++By) {
            for (int64_t Bx = 0; Bx != Gx; ++Bx) {
              auto [X, Y] = raster(Bx, By, Gx, Gy, Panel, Col);
              INFO("grid " << Gx << "x" << Gy << " panel " << Panel
                           << (Col ? " col" : " row") << " block (" << Bx
                           << ", " << By << ")");
              REQUIRE(X >= 0);
              REQUIRE(X < Gx);
              REQUIRE(Y >= 0);
              REQUIRE(Y < Gy);
              Seen.insert({X, Y});
            }
          }
          REQUIRE(Seen.size() == size_t(Gx * Gy));
        }
      }
    }
  }
}

TEST_CASE("row rasterization sweeps panels of rows in a serpentine",
          "[rasterize]") {
  // 4 x 5 grid, panels of 2 rows: launch order 0..7 walks columns 0..3 of
  // rows 0-1 top-down, 8..15 walks columns 3..0 of rows 2-3, and the last
  // (1-row) panel walks row 4 left to right again.
  std::vector<std::pair<int64_t, int64_t>> Order;
  for (int64_t Id = 0; Id != 20; ++Id)
    Order.push_back(raster(Id % 4, Id / 4, 4, 5, 2, false));
  std::vector<std::pair<int64_t, int64_t>> Expected = {
      {0, 0}, {0, 1}, {1, 0}, {1, 1}, {2, 0}, {2, 1}, {3, 0},
      {3, 1}, {3, 2}, {3, 3}, {2, 2}, {2, 3}, {1, 2}, {1, 3},
      {0, 2}, {0, 3}, {0, 4}, {1, 4}, {2, 4}, {3, 4}};
  CHECK(Order == Expected);
}

TEST_CASE("column rasterization is row rasterization transposed",
          "[rasterize]") {
  // A 3 x 2 grid with panels of 2 columns: columns 0-1 first, then column 2.
  std::vector<std::pair<int64_t, int64_t>> Order;
  for (int64_t Id = 0; Id != 6; ++Id)
    Order.push_back(raster(Id % 3, Id / 3, 3, 2, 2, true));
  std::vector<std::pair<int64_t, int64_t>> Expected = {{0, 0}, {1, 0}, {0, 1},
                                                       {1, 1}, {2, 1}, {2, 0}};
  CHECK(Order == Expected);
}

TEST_CASE("a panel as wide as the grid keeps one serpentine-free panel",
          "[rasterize]") {
  // One panel covering every row: the blocks go down the columns.
  for (int64_t Id = 0; Id != 12; ++Id) {
    auto [X, Y] = raster(Id % 4, Id / 4, 4, 3, 8, false);
    CHECK(X == Id / 3);
    CHECK(Y == Id % 3);
  }
}
