//===- BankConflicts.h - Shared-memory bank conflicts ----------*- C++ -*-===//
//
// The analysis pass `report-bank-conflicts` and the wavefront model it uses.
//
// Hardware models (BankModel, picked by the target):
// - NVIDIA sm_80/sm_90: shared memory has 32 banks of 4-byte words. A
//   warp-wide access is served in phases: all 32 lanes together for
//   accesses of up to 4 bytes per lane, half-warps (lanes 0-15, 16-31) for
//   8 bytes, quarter-warps (8 lanes) for 16 bytes; ldmatrix .x{1,2,4}
//   reads one 16-byte row per lane of lanes 0..8*count-1, eight rows (one
//   matrix) per phase.
// - AMD gfx90a/gfx940 (CDNA2/CDNA3): LDS has 32 banks of 4-byte words
//   (bank = address / 4 % 32) and a wavefront of 64 lanes. Phases:
//   half-wavefronts (32 lanes) up to 4 bytes per lane, quarter-wavefronts
//   (16 lanes) for 8 bytes; for 16 bytes eight groups of 8 lanes:
//   ds_write_b128 lanes 8g .. 8g+7; ds_read_b128 the lane groups
//   {0-3, 20-23}, {4-7, 16-19}, {8-11, 28-31}, {12-15, 24-27} and the same
//   plus 32 (AMD's Composable Kernel documentation, "Understanding AMD GPU
//   LDS and Bank Conflicts"; docs/targets.md gives the sources).
// In a phase, lanes reading the same word share it (broadcast), and
// distinct words of one bank are served one per wavefront, so a phase takes
// max over banks of (distinct words in the bank) wavefronts. The ideal for
// a phase is ceil(distinct words / banks): a conflict-free access of the
// same data. `ways` is the worst ceil(actual / ideal) over the phases.
//
// Expects (pass): lowered IR (after apply-shared-layouts): shared buffers
//   have static shapes and every access index is integer code of
//   thread_id, loop variables, block indices and constants.
// Does (pass): for every shared-memory access (load, store, element atomic
//   and the source of a vector atomic,
//   vcopy, cp_async destination, ldmatrix source; one case each in
//   sharedAccessesOf) inside a kernel, simulates warps 0..3 (lane l of
//   warp w is thread W * w + l with W the target's warp or wavefront
//   width, lanes past the block size are inactive)
//   over the iteration points of the enclosing control flow: `for` loops
//   with evaluable bounds run their first MaxLoopIterations iterations,
//   loops with runtime bounds their first 2; `parallel` loops run their
//   extents (capped alike); an `if` deactivates the lanes whose condition
//   evaluates to the other branch (unknown conditions are assumed taken);
//   block indices take 0 and 1; loops and block indices the access does
//   not depend on run once. At most MaxPointsPerAccess iteration points
//   per access. Prints one table per kernel to stderr: op number,
//   mnemonic, read/write, buffer, bytes per lane, warp accesses simulated,
//   ideal and actual wavefronts (summed), excess, worst ways, warp
//   accesses whose addresses could not be evaluated, location; then a
//   summary line.
// Guarantees: the IR is not changed; the pass never fails. Func arguments
//   (symbolic dims, scalar parameters) and loaded values are unknown, so
//   accesses whose addresses depend on them count as unevaluated.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_TRANSFORMS_BANKCONFLICTS_H
#define TILEC_TRANSFORMS_BANKCONFLICTS_H

#include "tilec/Transforms/Pass.h"
#include "llvm/ADT/ArrayRef.h"
#include <cstdint>
#include <memory>
#include <vector>

namespace tilec {
namespace ir {
class Operation;
}

namespace banks {

/// Address of a lane that takes no part in an access.
constexpr int64_t InactiveLane = -1;

/// A target's shared memory banks and how a warp's access is split into
/// phases (see above).
struct BankModel {
  int64_t NumBanks;
  int64_t BankBytes;
  int64_t WarpSize;
  bool Amd;

  /// The lane lists served together when lanes [0, Lanes) move \p Bytes
  /// bytes each (\p Read: a read; AMD's 16-byte reads group lanes apart).
  std::vector<std::vector<unsigned>> phases(int64_t Bytes, bool Read,
                                            unsigned Lanes) const;
};

const BankModel &nvidiaBanks();
const BankModel &amdBanks();

/// Lanes of one NVIDIA phase for \p Bytes per lane: 32 up to 4 bytes, 16
/// for 8 bytes, 8 for 16 bytes and more.
unsigned lanesPerPhase(int64_t Bytes);

/// Wavefronts of one or more warp-wide accesses.
struct Wavefronts {
  int64_t Ideal = 0;
  int64_t Actual = 0;
  /// Worst ceil(Actual / Ideal) of one phase; 0 when no lane was active.
  int64_t Ways = 0;

  int64_t excess() const { return Actual - Ideal; }
  Wavefronts &operator+=(const Wavefronts &O);
};

/// One phase: every active lane of \p Addresses (byte addresses in shared
/// memory, InactiveLane for none) moves \p Bytes bytes from its address.
Wavefronts countPhase(llvm::ArrayRef<int64_t> Addresses, int64_t Bytes,
                      const BankModel &M = nvidiaBanks());
/// A warp-wide access: \p Addresses in lane order, cut into the phases of
/// \p M.
Wavefronts countWavefronts(llvm::ArrayRef<int64_t> Addresses, int64_t Bytes,
                           const BankModel &M = nvidiaBanks(),
                           bool Read = true);

/// One shared-memory operand of an op.
struct SharedAccess {
  /// The operand group `%buf[%i...]` of the shared buffer.
  unsigned Group;
  /// Bytes each lane moves.
  int64_t Bytes;
  /// Lanes whose addresses take part (the warp; 8 * count for ldmatrix).
  unsigned AddressLanes;
  /// "read", "write" or "atomic".
  const char *Direction;
};

/// The shared-memory accesses \p Op makes as one warp-wide instruction
/// per group (warps of \p WarpSize lanes); empty for ops that access no
/// shared memory element-wise.
std::vector<SharedAccess> sharedAccessesOf(const ir::Operation &Op,
                                           unsigned WarpSize = 32);

} // namespace banks

std::unique_ptr<Pass> createReportBankConflictsPass();

} // namespace tilec

#endif
