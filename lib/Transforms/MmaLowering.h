//===- MmaLowering.h - What lower-mma and lower-mfma share -----*- C++ -*-===//
//
// The common half of the two register-tile gemm lowerings: lower-mma
// (mma.sync, LowerMma.h) and lower-mfma (AMD matrix cores,
// AMD/LowerMfma.h). Both replace one planned T.gemm (MmaGemm.h) by the work
// of one warp or wave, and both need the same scaffolding:
//   - the gemm's operands A, B, C and the register arrays of shared ones;
//   - the index variables lane = tx % W, wm = warp % MW and
//     wn = (warp / MW) % NW, where W is the plan's warp size;
//   - the register offsets of each instruction tile of C and of fragment
//     operands (TileMap), found from the fragments by evaluation;
//   - unrolled loops, register allocation and clearing C.
// A lowering derives from MmaLowering, supplies the instruction's
// per-lane coordinates and emits its own operand loads and instructions.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_TRANSFORMS_MMALOWERING_H
#define TILEC_TRANSFORMS_MMALOWERING_H

#include "IndexExprToIR.h"
#include "MmaGemm.h"
#include "tilec/IR/Builder.h"
#include "tilec/Support/Diagnostics.h"

namespace tilec {

/// The per-lane element coordinates of an instruction's C, A and B under a
/// plan (mmaCoordC/A/B of MmaGemm.h, mfmaCoordC/A/B of MfmaGemm.h).
using PlanCoordFn = TileCoords (*)(const MmaPlan &, layout::IndexExpr,
                                   layout::IndexExpr, int64_t);
struct InstrCoords {
  PlanCoordFn C, A, B;
};

class MmaLowering {
protected:
  /// \p What names the gemm in diagnostics ("this MFMA T.gemm").
  MmaLowering(ir::Operation &Gemm, const MmaPlan &P, DiagnosticEngine &Diags,
              llvm::StringRef What);

  /// Reports that the gemm cannot be lowered because \p Why.
  bool fail(const std::string &Why);
  /// Fills CMap, and AMap / BMap for operands in registers; \p Instr names
  /// the instruction in the diagnostic when a layout does not match.
  bool mapOperands(const InstrCoords &Coords, llvm::StringRef Instr);
  /// Binds lane, wm and wn at the gemm (the builder's insertion point).
  void bindLanes();

  ir::Value *emit(const layout::IndexExpr &E) { return Idx.emit(E); }
  /// An unrolled loop over instruction tiles or k steps.
  void forLoop(int64_t N, llvm::StringRef Name,
               llvm::function_ref<void(layout::IndexExpr)> Body) {
    Idx.forLoop(N, "unroll", Name, Body);
  }
  ir::Value *allocRegs(int64_t Count, llvm::StringRef Name);
  /// Every C register = 0 (`clear_accum`).
  void emitClear();

  ir::Operation &Gemm;
  const MmaPlan &P;
  DiagnosticEngine &Diags;
  std::string What;
  ir::Value *A, *Bm, *C;
  /// Register copies of shared A and B; null for fragment operands, which
  /// are used in place through AMap / BMap.
  ir::Value *ARegs = nullptr, *BRegs = nullptr;
  TileMap CMap, AMap, BMap;
  ir::Builder B;
  IndexScope Idx{B};
};

} // namespace tilec

#endif // TILEC_TRANSFORMS_MMALOWERING_H
