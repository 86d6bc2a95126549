//===- FoldConstants.h - Folding, CSE and DCE -------------------*- C++ -*-===//
//
// Expects: any verified module.
// Does: folds scalar ops whose operands are constants (integers wrap to
//   their dtype; only f32/f64 floats fold, since f16/bf16 rounding belongs
//   to the device), applies integer/bool identities (x+0, x*1, x*0,
//   x//1, x%1, b and true, ...), replaces a select on a constant condition
//   by the chosen operand, merges identical pure ops where the first
//   dominates the second (CSE), and erases pure ops whose results are unused.
// Guarantees: the module still verifies; no op with side effects (stores,
//   tile operators, control flow) is removed or reordered; integer division
//   or remainder by zero is left for run time rather than folded.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_TRANSFORMS_FOLDCONSTANTS_H
#define TILEC_TRANSFORMS_FOLDCONSTANTS_H

#include "tilec/Transforms/Pass.h"

namespace tilec {
std::unique_ptr<Pass> createFoldConstantsPass();
} // namespace tilec

#endif
