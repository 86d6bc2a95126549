//===- LoopAccess.h - What a parallel loop touches, and how ----*- C++ -*-===//
//
// Shared analyses of layout inference and thread binding.
//
// Expects: a `parallel` op of a verified kernel.
// Does:
//   - collects the buffer accesses in the loop body (load, store, element
//     atomic, vcopy; one entry per operand group);
//   - classifies a fragment access by which loop variable indexes each dim
//     (VarPos, -1 for the constant 0 on a size-1 dim);
//   - finds the widest vector width V (16 bytes at most) that every
//     global/shared/local access allows: contiguous, unit stride along the
//     last loop variable and V-aligned starts (affine reading of the
//     indices: consts, loop variables, add, sub, mul by constants, values
//     defined outside the loop); symbolic strides yield assumptions
//     (`N % 8 == 0`) for the launcher to check;
//   - layout predicates by enumeration: equivalence of two fragments, the
//     per-thread run length of a loop layout, and whether a fragment holds
//     each element of a broadcast access on the threads that need it.
// Guarantees: conservative: an access it cannot read limits V to 1.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_TRANSFORMS_LOOPACCESS_H
#define TILEC_TRANSFORMS_LOOPACCESS_H

#include "tilec/IR/ConstantMatch.h"
#include "tilec/IR/Operation.h"
#include "tilec/Layout/Layout.h"
#include <set>
#include <string>

namespace tilec {

struct BufferAccess {
  ir::Operation *User;
  unsigned Group;
  ir::Value *Buffer;
  llvm::ArrayRef<ir::Value *> indices() const {
    return User->getGroup(Group).drop_front();
  }
};

using ir::knownMultiple;

/// The func's `assumes` attribute (conditions the launcher checks) as a set.
std::set<std::string> readAssumes(const ir::Operation &Func);
/// Stores \p Assumes as the func's `assumes` attribute, sorted; leaves the
/// func alone when the set is empty.
void writeAssumes(ir::Operation &Func, const std::set<std::string> &Assumes);

/// Accesses of buffers in the body of \p Loop (nested regions included).
std::vector<BufferAccess> collectAccesses(ir::Operation &Loop);

/// Per dim of a fragment access: the position of the loop variable that
/// indexes it, or -1 for a constant 0 on a size-1 dim (a loop variable of
/// extent 1 there also counts as -1). nullopt for anything else.
std::optional<std::vector<int>> fragmentVarPositions(const ir::Operation &Loop,
                                                     const BufferAccess &A);

/// Kinds of fragment accesses: Identity when the variables are exactly the
/// loop's non-1 variables in order, Broadcast for an increasing strict
/// subset, Other otherwise (also when a dim does not match the extent).
enum class AccessKind { Identity, Broadcast, Other };
AccessKind classifyFragmentAccess(const ir::Operation &Loop,
                                  const BufferAccess &A,
                                  llvm::ArrayRef<int> VarPos);

/// The loop variables an access uses, in order (the -1 entries dropped).
std::vector<unsigned> keptVars(llvm::ArrayRef<int> VarPos);

/// The widest V in {32, 16, 8, 4, 2, 1}, at most \p MaxV, that every
/// access of the loop allows (at most 16 bytes per memory access; fragment
/// accesses count only in a loop without memory accesses; 32 only when an
/// access is of 4-bit elements), with the
/// assumptions it needs added to \p Assumes.
int64_t chooseVectorWidth(ir::Operation &Loop, std::set<std::string> &Assumes,
                          int64_t MaxV = 32);

/// The register of element \p Idx of \p F, flattened row-major over the
/// output shape; -1 outside the fragment.
int64_t flatRegister(const layout::Fragment &F, llvm::ArrayRef<int64_t> Idx);

/// Same elements on the same threads and registers (by enumeration).
bool sameFragment(const layout::Fragment &A, const layout::Fragment &B);
/// Every element is held by the same threads under both (the registers
/// may differ): a loop with layout A may access a fragment laid out as B
/// element for element.
bool sameThreads(const layout::Fragment &A, const layout::Fragment &B);

/// Largest V (power of 2, <= 16) such that each thread holds runs of V
/// consecutive iterations along the last dim in V-aligned consecutive
/// registers.
int64_t runLength(const layout::Fragment &L);

/// True when, for every iteration of \p Loop (every replica), fragment \p F
/// holds the element at the projection onto \p Kept on that thread.
bool holdsBroadcast(const layout::Fragment &Loop, const layout::Fragment &F,
                    llvm::ArrayRef<unsigned> Kept);

} // namespace tilec

#endif
