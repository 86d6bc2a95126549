//===- Simplify.h - Range analysis and canonicalizing simplifier -*- C++ -*-=//
//
// Expects: expressions from IndexExpr.h and the extents of their
// variables (a variable missing from the map is unbounded).
// Does: computeBounds() gives an inclusive integer interval for an
// expression; simplify() rewrites an expression into a canonical form:
//   - constants are folded;
//   - +, - and multiplication by constants become a linear form
//     sum(coeff * atom) + const, whose atoms are sorted by descending
//     coefficient, then structurally, so equal sums print identically;
//   - (x // c) * c + x % c and ((x // c) % d) * c + x % c are merged;
//   - x // c and x % c split off the terms of x whose coefficient c
//     divides ((a*c + b) // c -> a + b // c, (a*c + b) % c -> b % c),
//     divide out a common factor of the rest, and drop to 0 / x when the
//     range analysis proves the rest lies in [0, c);
//   - nested (x // a) // b -> x // (a*b), (x % (a*b)) // a ->
//     (x // a) % b, (x % m) % c -> x % c when c divides m;
//   - x & (2^k - 1) -> x % 2^k for non-negative x; min/max decided by
//     ranges; any expression whose range is one value becomes constant.
// Guarantees: simplify(E) evaluates equal to E wherever E is defined and
// the variables lie in their ranges; it is idempotent.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_LAYOUT_SIMPLIFY_H
#define TILEC_LAYOUT_SIMPLIFY_H

#include "tilec/Layout/IndexExpr.h"

namespace tilec {
namespace layout {

/// An inclusive interval [Min, Max].
struct Bounds {
  int64_t Min;
  int64_t Max;
  bool isSingleValue() const { return Min == Max; }
};

/// Bounds of E with each variable v in [0, Extents[v]); nullopt when
/// unbounded (unknown variable, division by a non-constant, overflow).
std::optional<Bounds> computeBounds(const IndexExpr &E,
                                    const VarExtents &Extents);

IndexExpr simplify(const IndexExpr &E, const VarExtents &Extents = {});

/// True when simplify(A - B) is the constant 0 (sound, not complete).
bool proveEqual(const IndexExpr &A, const IndexExpr &B,
                const VarExtents &Extents);

} // namespace layout
} // namespace tilec

#endif // TILEC_LAYOUT_SIMPLIFY_H
