//===- DependentLaunch.h - Launch a kernel during the last -----*- C++ -*-===//
//
// A func's kernels run one after the other on one stream (flash decoding's
// split kernel and its combine), and so do the funcs a program calls. In
// plain stream order a kernel is launched only when the one before it has
// finished: its launch and the scheduling of its blocks add a few
// microseconds to every kernel, which short kernels (decode steps) feel.
// sm_90's programmatic dependent launch lets the next kernel be scheduled
// while the last one still runs; the next kernel then waits for it
// (griddepcontrol.wait) before it touches memory.
//
// Expects: kernels in their final form (run last, after insert-barriers).
// Does: puts `grid_dependency {action = "wait"}` and then
//   `grid_dependency {action = "launch_dependents"}` at the start of every
//   kernel body, except kernels with a grid barrier (they are launched
//   cooperatively). The launcher launches a kernel that starts with the wait
//   with programmatic stream serialization (cudaLaunchKernelEx).
// Guarantees: no op of a kernel runs before the grids launched before it on
//   the stream have completed and their memory is visible, as in plain
//   stream order: only the launch and the blocks' scheduling overlap. The
//   next kernel is let in as soon as every block of this one has started
//   (launch_dependents); its blocks take only the resources this kernel's
//   last wave leaves free.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_TRANSFORMS_HOPPER_DEPENDENTLAUNCH_H
#define TILEC_TRANSFORMS_HOPPER_DEPENDENTLAUNCH_H

#include "tilec/Transforms/Pass.h"

namespace tilec {
std::unique_ptr<Pass> createDependentLaunchPass();
} // namespace tilec

#endif // TILEC_TRANSFORMS_HOPPER_DEPENDENTLAUNCH_H
