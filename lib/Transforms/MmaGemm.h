//===- MmaGemm.h - How a T.gemm maps onto mma.sync or MFMA ------*- C++ -*-===//
//
// Shared by gemm-layout (which decides) and lower-mma / lower-mfma (which
// emit). On AMD targets (Target::MatrixCore::Mfma) the same plan describes
// a gemm on MFMA (AMD/MfmaGemm.h): wavefronts of 64 lanes, 16x16 or 32x32
// instruction tiles, the layouts of MfmaLayouts.h.
//
// Expects: a `gemm %A, %B, %C` whose operands have static rank-2 shapes.
// Does: planMmaGemm() decides whether the gemm runs on tensor cores with
//   mma.sync for the target and, if so, how: the instruction (m16n8k16 for
//   f16/bf16, m16n8k32 for int8/uint8, m16n8k64 for int4/uint4, m16n8k8 for
//   float32 as tf32; sm_90 keeps m16n8k64 for int4, which wgmma lacks), the
//   split of the C tile over the block's warps (computeWarpPartition), and
//   the resulting register fragments of C and of
//   fragment operands. The plan is recorded on the gemm as
//   `mma_warps = [MW, NW], mma_shape = [M, N, K]` (the shape survives
//   lower-fragments turning the operands into register arrays) and read
//   back by readMmaPlan().
//   The per-lane element coordinates of the instruction operands (the PTX
//   ISA's fragment tables) are given as IndexExprs over the variable
//   "lane", so that lower-mma emits them and checks fragment registers
//   against them by evaluation.
// Guarantees: a plan only when every dimension splits evenly: warp tiles
//   are multiples of 16 x 8 and K is a multiple of the instruction's k.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_TRANSFORMS_MMAGEMM_H
#define TILEC_TRANSFORMS_MMAGEMM_H

#include "tilec/IR/Operation.h"
#include "tilec/Layout/GemmLayouts.h"
#include "tilec/Layout/MfmaLayouts.h"
#include "tilec/Support/Target.h"
#include <functional>
#include <optional>

namespace tilec {

struct MmaPlan {
  int64_t M, N, K;
  int64_t MWarps, NWarps;
  bool TransA, TransB;
  DType In, Acc;
  /// MFMA (AMD) rather than mma.sync, with this instruction shape.
  std::optional<layout::MfmaShape> Mfma;

  int64_t warpSize() const { return Mfma ? layout::MfmaWaveSize : 32; }
  int64_t warpM() const { return M / MWarps; }
  int64_t warpN() const { return N / NWarps; }
  int64_t inBits() const { return bitWidth(In); }
  /// Rows and columns of C one instruction computes, and the k of one
  /// step: the instruction's, or on MFMA that of one pack of k_pack
  /// instructions (MfmaLayouts.h).
  int64_t tileM() const { return Mfma ? Mfma->Tile : 16; }
  int64_t tileN() const { return Mfma ? Mfma->Tile : 8; }
  int64_t stepK() const {
    return Mfma ? Mfma->packK() : layout::mmaInstructionK(inBits());
  }
  /// Instruction tiles per warp along M and N, and k steps.
  int64_t mTiles() const { return warpM() / tileM(); }
  int64_t nTiles() const { return warpN() / tileN(); }
  int64_t kSteps() const { return K / stepK(); }
  /// Elements of one step's operand per lane, and of the accumulator.
  int64_t aElems() const { return tileM() * stepK() / warpSize(); }
  int64_t bElems() const { return tileN() * stepK() / warpSize(); }
  int64_t cElems() const { return tileM() * tileN() / warpSize(); }
  /// Operand elements per 32-bit register.
  int64_t perRegister() const { return 32 / inBits(); }
  llvm::StringRef shape() const;

  layout::Fragment fragmentC() const;
  layout::Fragment fragmentA() const;
  layout::Fragment fragmentB() const;
};

/// Dtypes, transposes and \p MNK of a gemm (no warps, no MFMA shape);
/// nullopt when A and B differ in dtype.
std::optional<MmaPlan> readGemm(const ir::Operation &Gemm,
                                llvm::ArrayRef<int64_t> MNK);
/// The same with M, N, K from static rank-2 operand shapes.
std::optional<MmaPlan> readShape(const ir::Operation &Gemm);

/// The tensor-core plan of \p Gemm for \p Tgt with \p Threads threads, or
/// nullopt when it must run on CUDA cores.
std::optional<MmaPlan> planMmaGemm(const ir::Operation &Gemm, const Target &Tgt,
                                   int64_t Threads);
/// Records \p P on \p Gemm (an MFMA plan also as `mfma = [tile, k]`; its
/// KPack is the gemm's `k_pack`); readMmaPlan() reads it back (nullopt when
/// absent or inconsistent with the operand types).
void recordMmaPlan(ir::Operation &Gemm, const MmaPlan &P);
std::optional<MmaPlan> readMmaPlan(const ir::Operation &Gemm);

/// Storage coordinates [row, col] of element E of lane "lane" in an
/// instruction tile: C at tile (Mi, Ni); A at (Mi, Ks); B at (Ni, Ks).
/// Mi, Ni and Ks may be expressions; warp offsets are variables "wm" and
/// "wn" (the warp's index along M and N).
struct TileCoords {
  layout::IndexExpr Row, Col;
};
TileCoords mmaCoordC(const MmaPlan &P, layout::IndexExpr Mi,
                     layout::IndexExpr Ni, int64_t E);
TileCoords mmaCoordA(const MmaPlan &P, layout::IndexExpr Mi,
                     layout::IndexExpr Ks, int64_t E);
TileCoords mmaCoordB(const MmaPlan &P, layout::IndexExpr Ni,
                     layout::IndexExpr Ks, int64_t E);

/// Register offset of instruction tile (T1, T2) of an operand held in a
/// register array: Base + S1 * T1 + S2 * T2, its elements consecutive.
struct TileMap {
  int64_t Base = 0, S1 = 0, S2 = 0;
  layout::IndexExpr at(layout::IndexExpr T1, layout::IndexExpr T2) const {
    return layout::IndexExpr(Base) + T1 * S1 + T2 * S2;
  }
};

using CoordFn =
    std::function<TileCoords(layout::IndexExpr, layout::IndexExpr, int64_t)>;

/// The TileMap of fragment \p F for N1 x N2 instruction tiles of Elems
/// elements each, whose element E of tile (T1, T2) lies at Coords(T1, T2,
/// E) for lane "lane" of warp (wm, wn); derived from tiles (0,0), (1,0),
/// (0,1) of lane 0 and checked on every element of every thread. nullopt
/// when F does not have that form.
std::optional<TileMap> mapFragmentTiles(const MmaPlan &P,
                                        const layout::Fragment &F,
                                        const CoordFn &Coords, int64_t N1,
                                        int64_t N2, int64_t Elems);

} // namespace tilec

#endif // TILEC_TRANSFORMS_MMAGEMM_H
