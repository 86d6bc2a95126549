//===- Pipeline.cpp - The tilec pass pipeline -----------------------------===//
//
// Read buildDefaultPipeline top to bottom: it is the whole compiler between
// Sema and the emitters. --print-ir-after-all shows the module after each
// line; --verify-each runs the verifier between them.
//
//===----------------------------------------------------------------------===//

#include "tilec/Transforms/Pipeline.h"
#include "AMD/LowerMfma.h"
#include "ApplySharedLayouts.h"
#include "BankConflicts.h"
#include "CheckTarget.h"
#include "ExpandTileOps.h"
#include "FoldConstants.h"
#include "FuseParallel.h"
#include "GemmLayout.h"
#include "HeavyBlocksFirst.h"
#include "Hopper/DeferWgmmaWaits.h"
#include "Hopper/DependentLaunch.h"
#include "Hopper/InsertProxyFences.h"
#include "Hopper/LowerBulkReduce.h"
#include "Hopper/LowerStmatrix.h"
#include "Hopper/LowerTma.h"
#include "Hopper/LowerWgmma.h"
#include "Hopper/OverlapWgmma.h"
#include "Hopper/OverlapWgmmaPair.h"
#include "Hopper/PersistentTiles.h"
#include "Hopper/PingPongWarpgroups.h"
#include "Hopper/StageEpilogue.h"
#include "Hopper/WgmmaLayout.h"
#include "InferCopyExtents.h"
#include "InsertBarriers.h"
#include "LayoutInference.h"
#include "LowerCumsum.h"
#include "LowerFragments.h"
#include "LowerGemm.h"
#include "LowerMma.h"
#include "LowerParallel.h"
#include "LowerPipelined.h"
#include "LowerReduce.h"
#include "PlanSharedMemory.h"
#include "Rasterize.h"
#include "ReducerUpdates.h"
#include "ResolveStaticIf.h"
#include "ResolveSubviews.h"
#include "SwizzleStaging.h"
#include "UnswitchMasks.h"
#include "VectorizeLoops.h"
#include "tilec/Transforms/PassManager.h"

using namespace tilec;

void tilec::registerAllPasses() {
  registerPass("fold-constants", createFoldConstantsPass);
  registerPass("resolve-static-if", createResolveStaticIfPass);
  registerPass("fuse-parallel", createFuseParallelPass);
  registerPass("copy-extent", createInferCopyExtentsPass);
  registerPass("check-target", createCheckTargetPass);
  registerPass("stage-epilogue", createStageEpiloguePass);
  registerPass("expand-tile-ops", createExpandTileOpsPass);
  registerPass("gemm-layout", createGemmLayoutPass);
  registerPass("swizzle-staging", createSwizzleStagingPass);
  registerPass("layout-inference", createLayoutInferencePass);
  registerPass("lower-gemm", createLowerGemmPass);
  registerPass("reducer-updates", createReducerUpdatesPass);
  registerPass("lower-reduce", createLowerReducePass);
  registerPass("lower-cumsum", createLowerCumsumPass);
  registerPass("lower-parallel", createLowerParallelPass);
  registerPass("lower-fragments", createLowerFragmentsPass);
  registerPass("lower-mma", createLowerMmaPass);
  registerPass("lower-mfma", createLowerMfmaPass);
  registerPass("resolve-subviews", createResolveSubviewsPass);
  registerPass("heavy-blocks-first", createHeavyBlocksFirstPass);
  registerPass("rasterize", createRasterizePass);
  registerPass("unswitch-masks", createUnswitchMasksPass);
  registerPass("lower-stmatrix", createLowerStmatrixPass);
  registerPass("lower-pipelined", createLowerPipelinedPass);
  registerPass("plan-shared-memory", createPlanSharedMemoryPass);
  registerPass("insert-barriers", createInsertBarriersPass);
  registerPass("apply-shared-layouts", createApplySharedLayoutsPass);
  registerPass("vectorize-loops", createVectorizeLoopsPass);
  registerPass("report-bank-conflicts", createReportBankConflictsPass);
  registerPass("wgmma-layout", createWgmmaLayoutPass);
  registerPass("lower-wgmma", createLowerWgmmaPass);
  registerPass("lower-tma", createLowerTmaPass);
  registerPass("lower-bulk-reduce", createLowerBulkReducePass);
  registerPass("overlap-wgmma", createOverlapWgmmaPass);
  registerPass("overlap-wgmma-pair", createOverlapWgmmaPairPass);
  registerPass("defer-wgmma-waits", createDeferWgmmaWaitsPass);
  registerPass("pingpong-warpgroups", createPingPongWarpgroupsPass);
  registerPass("persistent-tiles", createPersistentTilesPass);
  registerPass("insert-proxy-fences", createInsertProxyFencesPass);
  registerPass("dependent-launch", createDependentLaunchPass);
}

void tilec::buildDefaultPipeline(PassManager &PM, const Target &Tgt,
                                 PipelineEnd End) {
  // The targets part ways here: with wgmma (sm_90, compiled for sm_90a;
  // --no-wgmma turns it off) seven Hopper passes join the pipeline, marked
  // "Hopper:" below; on AMD (gfx90a, gfx940) tensor-core gemms are MFMA
  // and lower-mfma replaces lower-mma, marked "AMD:". Everything else is
  // shared and reads the target's facts (warp width, asynchronous copies).
  const bool Hopper = Tgt.Wgmma;
  const bool AMD = Tgt.Matrix == Target::MatrixCore::Mfma;
  // Front-end cleanup: constants Sema could not see through fold in the IR,
  // and control flow they decide disappears.
  PM.addPass(createFoldConstantsPass());
  PM.addPass(createResolveStaticIfPass());
  // Nested T.Parallel loops (what is left of them once static ifs are
  // gone) become one loop nest, as TileLang treats them.
  PM.addPass(createFuseParallelPass());
  // Tile-operator regions and the checks that need the target.
  PM.addPass(createInferCopyExtentsPass());
  PM.addPass(createCheckTargetPass());
  PM.addPass(createFoldConstantsPass());
  if (End == PipelineEnd::TileIR)
    return;
  // Blocks whose loops run longer for larger block indices (causal
  // attention) start first; then block rasterization (T.use_swizzle) remaps
  // the block indices, so that everything below sees the final bx/by.
  PM.addPass(createHeavyBlocksFirstPass());
  PM.addPass(createRasterizePass());
  // A mask preloaded by a parallel loop inside a loop (attention's causal
  // or ragged-key mask) is skipped on the blocks where it holds everywhere.
  PM.addPass(createUnswitchMasksPass());
  // Hopper: atomic additions of shared float32 tiles into global tensors
  // become the bulk copy engine's reductions, one per row.
  if (Hopper && Tgt.Tma)
    PM.addPass(createLowerBulkReducePass());
  // Hopper: an accumulator copied to a 16-bit global tensor goes through
  // a shared tile, so that the stores to global memory are 16-byte runs.
  // Not with --persistent: persistent-tiles needs consumers that touch
  // shared memory only in their loop.
  if (Hopper && Tgt.EpilogueStaging && !Tgt.Persistent)
    PM.addPass(createStageEpiloguePass());
  // CUDA-core lowering: tile copies become parallel loops, every fragment
  // and loop gets a layout, loops are bound to threads (and vectorized),
  // fragments become per-thread registers.
  PM.addPass(createExpandTileOpsPass());
  // Hopper: the T.gemms that fit wgmma take it (all of a kernel's or none);
  // their fragments and shared operand layouts are pinned first.
  if (Hopper)
    PM.addPass(createWgmmaLayoutPass());
  // Hopper: T.Pipelined tile copies into those layouts become TMA loads
  // (lower-pipelined gives them an mbarrier ring).
  if (Hopper && Tgt.Tma)
    PM.addPass(createLowerTmaPass());
  // T.gemm on tensor cores (mma.sync) or CUDA cores: its operands' register
  // layouts are pinned before inference so that the other loops adapt.
  PM.addPass(createGemmLayoutPass());
  // Epilogue tiles the accumulators are copied into: swizzled against the
  // 8-way bank conflict of the fragment's stores.
  if (Tgt.StagingSwizzle)
    PM.addPass(createSwizzleStagingPass());
  PM.addPass(createLayoutInferencePass());
  PM.addPass(createLowerGemmPass());
  // T.alloc_reducer buffers: their accesses are checked and each update
  // runs on one replica of its loop iteration, before the reductions.
  PM.addPass(createReducerUpdatesPass());
  // Reductions and scans become parallel loops over their sources (warp
  // shuffles and shared memory between threads), lowered below, as do
  // T.finalize_reducer and T.tvm_thread_allreduce.
  PM.addPass(createLowerReducePass());
  PM.addPass(createLowerCumsumPass());
  PM.addPass(createLowerParallelPass());
  PM.addPass(createLowerFragmentsPass());
  // Tensor-core gemms: ldmatrix from shared memory, mma.sync on the
  // register arrays lower-fragments just produced.
  // AMD: register loads from LDS and MFMA instructions instead.
  if (AMD)
    PM.addPass(createLowerMfmaPass());
  else
    PM.addPass(createLowerMmaPass());
  // Hopper: wgmma gemms become wgmma.mma_async on descriptors of their
  // shared operands, accumulators in the same register arrays.
  if (Hopper)
    PM.addPass(createLowerWgmmaPass());
  // T.gemm operands written as regions of shared buffers were buffers of
  // their own for the gemm lowerings; from here on their accesses address
  // the shared buffer itself.
  PM.addPass(createResolveSubviewsPass());
  // User-written vectorized/unrolled loops of element moves become 16-byte
  // vcopies where contiguity and alignment allow.
  PM.addPass(createVectorizeLoopsPass());
  // Hopper: accumulator pairs stored into a 16-bit shared tile (an
  // epilogue's staging tile) go four 8x8 matrices per stmatrix.
  if (Hopper && Tgt.Stmatrix)
    PM.addPass(createLowerStmatrixPass());
  // T.Pipelined: global->shared copies are issued num_stages - 1
  // iterations ahead (cp.async) into num_stages shared buffers.
  PM.addPass(createLowerPipelinedPass());
  // Hopper: a pipelined loop's wgmmas run on into the next iteration (wait
  // for all but the last group; its stage is refilled one step later).
  if (Hopper)
    PM.addPass(createOverlapWgmmaPass());
  // Hopper: a loop of two dependent wgmma groups (attention: S = Q K^T, the
  // softmax, O += P V) issues the first group of iteration k with the
  // second of k - 1, so that the softmax runs while the tensor cores work.
  if (Hopper)
    PM.addPass(createOverlapWgmmaPairPass());
  // Hopper, with --pingpong: two consumer warpgroups of such a loop take
  // turns to issue their wgmmas (named barriers), one's softmax running
  // with the other's.
  if (Hopper && Tgt.PingPong)
    PM.addPass(createPingPongWarpgroupsPass());
  // Hopper, with --persistent: a warp-specialized kernel runs one block
  // per SM over its tiles, the TMA ring running on across them, so that
  // the next tile's loads overlap this one's epilogue.
  if (Hopper && Tgt.Persistent)
    PM.addPass(createPersistentTilesPass());
  // Hopper: each remaining gemm's wait moves down to the first use of its
  // results; the independent gemms in between are issued meanwhile.
  if (Hopper && Tgt.DeferWgmmaWaits)
    PM.addPass(createDeferWgmmaWaitsPass());
  PM.addPass(createFoldConstantsPass());
  // Shared buffers whose lifetimes do not overlap share bytes; the plan is
  // checked against the target's limit. Before insert-barriers, which
  // treats buffers sharing bytes as one memory.
  PM.addPass(createPlanSharedMemoryPass());
  // Last: barriers between conflicting shared accesses of the final code.
  PM.addPass(createInsertBarriersPass());
  // Hopper: wgmma reads shared memory through the async proxy; the
  // generic writes of its operands get fence.proxy.async before the
  // barriers that publish them.
  if (Hopper)
    PM.addPass(createInsertProxyFencesPass());
  // Swizzled shared buffers (T.annotate_layout): each access goes to its
  // element's swizzled address. A bijection of addresses keeps the
  // barriers placed above valid.
  PM.addPass(createApplySharedLayoutsPass());
  // The swizzled indices replace the logical ones, which die here.
  PM.addPass(createFoldConstantsPass());
  // sm_90: every kernel waits for the grids before it at its start, so its
  // launch may overlap their tail (programmatic dependent launch).
  if (Tgt.DependentLaunch)
    PM.addPass(createDependentLaunchPass());
}
