//===- Rasterize.h - Block rasterization (T.use_swizzle) -------*- C++ -*-===//
//
// Expects: kernels whose body may hold `use_swizzle {panel_size = P, order =
//   "row"|"col", enable = b}` (verified: P > 0, inside a kernel).
// Does: TileLang's rasterization2DRow / rasterization2DColumn, for L2 reuse
//   between neighbouring blocks: the block with linear number id = bx + by
//   * gx (launch order) is sent to a tile chosen so that consecutive blocks
//   sweep a panel of P rows ("row") or P columns ("col") of the grid, in a
//   serpentine over the panels. The last panel may be narrower (P does not
//   have to divide the grid), so the map stays a bijection of the grid.
//   At the top of the kernel body the new (bx, by) are computed in i32 ops
//   from the block indices and the kernel's grid operands, and every use of
//   the old indices is redirected to them; bz is unchanged. Every
//   use_swizzle op is removed; the first one of a kernel decides, and it
//   does nothing when disabled or when the grid has one dimension.
// Guarantees: no `use_swizzle` remains; a kernel reads each (bx, by) of its
//   grid exactly once over all blocks (rasterize2D is a bijection; the unit
//   test enumerates grids).
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_TRANSFORMS_RASTERIZE_H
#define TILEC_TRANSFORMS_RASTERIZE_H

#include "tilec/Transforms/Pass.h"
#include <cstdint>
#include <utility>

namespace tilec {
std::unique_ptr<Pass> createRasterizePass();

/// The rasterization formula, written once over an arithmetic \p Ar so that
/// the pass emits it as IR and the unit test evaluates it on integers. Ar
/// provides `V constant(int64_t)`, `add sub mul div rem min (V, V)` (on
/// non-negative values), `isOdd(V)` and `select(Cond, V, V)`. Returns the
/// new (bx, by) for block (Bx, By) of a Gx x Gy grid.
template <typename Arith, typename V>
std::pair<V, V> rasterize2D(Arith &Ar, V Bx, V By, V Gx, V Gy, int64_t Panel,
                            bool ColumnOrder) {
  // Column order is row order on the transposed grid, with the same launch
  // order (bx fastest).
  V Lanes = ColumnOrder ? Gy : Gx; // tiles along a panel
  V Width = ColumnOrder ? Gx : Gy; // panel rows (or columns) in total
  V P = Ar.constant(Panel);
  V Id = Ar.add(Bx, Ar.mul(By, Gx));
  V PanelBlocks = Ar.mul(P, Lanes);
  V PanelIdx = Ar.div(Id, PanelBlocks);
  V Offset = Ar.rem(Id, PanelBlocks);
  // The last panel holds what is left of the grid.
  V Done = Ar.mul(PanelIdx, P); // panel rows (or columns) before this one
  V PanelWidth = Ar.min(P, Ar.sub(Width, Done));
  V Along = Ar.div(Offset, PanelWidth);
  V Reversed = Ar.sub(Ar.sub(Lanes, Ar.constant(1)), Along);
  Along = Ar.select(Ar.isOdd(PanelIdx), Reversed, Along);
  V Across = Ar.add(Ar.rem(Offset, PanelWidth), Done);
  if (ColumnOrder)
    return {Across, Along};
  return {Along, Across};
}

} // namespace tilec

#endif
