//===- LayoutInference.cpp - Fragment and loop layouts --------------------===//

#include "LayoutInference.h"
#include "ApplySharedLayouts.h"
#include "FragmentDerive.h"
#include "FragmentStage.h"
#include "IndexExprToIR.h"
#include "LoopAccess.h"
#include "tilec/IR/Operation.h"
#include "tilec/Layout/LayoutParser.h"
#include "tilec/Layout/Simplify.h"
#include "tilec/Layout/ThreadLayouts.h"
#include "tilec/Support/Diagnostics.h"
#include <deque>
#include <map>

using namespace tilec;
using namespace tilec::ir;
using layout::Fragment;
using layout::IndexExpr;

static std::vector<int64_t> staticShape(const Value *Buf) {
  return Buf->getType().getStaticShape().value_or(std::vector<int64_t>{});
}

/// The default fragment of the library when \p L is one (V recovered).
static std::optional<int64_t> defaultVectorWidth(const Fragment &L,
                                                 int64_t Threads) {
  int64_t N = layout::shapeSize(L.getInputShape());
  for (int64_t V : {1, 2, 4, 8, 16})
    if (N % V == 0 && L.getReplicateSize() == 1 &&
        layout::makeDefaultFragment(L.getInputShape(), Threads, V).toString() ==
            L.toString())
      return V;
  return std::nullopt;
}

/// Row broadcast of a default layout: kept variables are a prefix.
static std::optional<Fragment> rowBroadcast(const Fragment &Loop,
                                            llvm::ArrayRef<unsigned> Kept,
                                            int64_t Threads) {
  auto V = defaultVectorWidth(Loop, Threads);
  llvm::ArrayRef<int64_t> Shape = Loop.getInputShape();
  for (unsigned K = 0; K != Kept.size(); ++K)
    if (Kept[K] != K)
      return std::nullopt;
  int64_t Rows = 1, Cols = 1;
  for (unsigned K = 0; K != Shape.size(); ++K)
    (K < Kept.size() ? Rows : Cols) *= Shape[K];
  if (!V || Cols % *V != 0)
    return std::nullopt;
  int64_t PerRow = Cols / *V;
  if (PerRow < Threads && Threads % PerRow != 0)
    return std::nullopt;
  return layout::makeBroadcastRowFragment(Rows, Cols, Threads, *V);
}

/// The widest vector (<= 32 elements, more than 16 only for 4-bit types:
/// chooseVectorWidth) the user layouts (`Layout(...)`
/// annotations) of the shared buffers \p Loop accesses, and of the global
/// buffers its kernel lays out, keep contiguous, so that
/// apply-shared-layouts can remap every vector copy as a whole.
static int64_t sharedLayoutRunCap(Operation &Loop) {
  int64_t Cap = 32;
  Operation *Kernel = Loop.getParentOfKind(OpKind::Kernel);
  for (const BufferAccess &A : collectAccesses(Loop)) {
    const Type &T = A.Buffer->getType();
    auto Shape = T.getStaticShape();
    if (!T.isBuffer() ||
        (T.getScope() != Scope::Shared && T.getScope() != Scope::Global) ||
        !Shape)
      continue;
    for (const Use &U : A.Buffer->getUses()) {
      if (!U.User->is(OpKind::AnnotateLayout) ||
          U.User->getParentOfKind(OpKind::Kernel) != Kernel)
        continue;
      std::string Why;
      llvm::StringRef Text = U.User->getStringAttr("layout").value_or("");
      // A global layout is checked whole when applied; widestKeptRun gives
      // 1 where the tensor is too large to enumerate.
      auto L = T.getScope() == Scope::Global
                   ? layout::parseLayout(Text, Why)
                   : userSharedLayout(Text, *Shape, Why);
      if (L)
        Cap = std::min(Cap, widestKeptRun(*L, Cap));
    }
  }
  return Cap;
}

/// TileLang's CompleteBufferFragment: the dropped variables are decoded
/// from the replica number; registers are the flat element index. Used when
/// the image has no condensed form (replicas may share a thread).
static Fragment projectWithFlatRegisters(const Fragment &Loop,
                                         llvm::ArrayRef<unsigned> Kept) {
  llvm::ArrayRef<int64_t> LoopShape = Loop.getInputShape();
  layout::Shape KeptShape;
  layout::VarMap Map;
  IndexExpr Flat = 0;
  for (unsigned D = 0; D != Kept.size(); ++D) {
    KeptShape.push_back(LoopShape[Kept[D]]);
    Map[Fragment::inputVarName(Kept[D])] = Fragment::inputVar(D);
    Flat = Flat * LoopShape[Kept[D]] + Fragment::inputVar(D);
  }
  IndexExpr Rep = Fragment::replicateVar();
  int64_t Dropped = 1;
  for (int K = LoopShape.size() - 1; K >= 0; --K) {
    if (llvm::is_contained(Kept, unsigned(K)))
      continue;
    Map[Fragment::inputVarName(K)] =
        layout::floorMod(layout::floorDiv(Rep, Dropped), LoopShape[K]);
    Dropped *= LoopShape[K];
  }
  Map["rep"] = layout::floorDiv(Rep, Dropped);
  IndexExpr Thread = layout::substitute(Loop.getForwardThread(), Map);
  return Fragment(KeptShape, {Flat}, Thread, Dropped * Loop.getReplicateSize());
}

std::optional<Fragment>
tilec::deriveProjectedFragment(const Fragment &Loop,
                               llvm::ArrayRef<unsigned> Kept,
                               llvm::ArrayRef<int64_t> Shape, int64_t Threads) {
  if (auto Row = rowBroadcast(Loop, Kept, Threads))
    return Row->reshape(Shape);
  layout::Shape KeptShape;
  std::vector<IndexExpr> Index;
  for (unsigned K : Kept) {
    KeptShape.push_back(Loop.getInputShape()[K]);
    Index.push_back(Fragment::inputVar(K));
  }
  if (auto F = deriveAccessFragment(Loop, Index, KeptShape))
    return F->reshape(Shape);
  return projectWithFlatRegisters(Loop, Kept).reshape(Shape);
}

namespace {

struct FragState {
  std::optional<Fragment> Layout;
  Operation *Source = nullptr; ///< the op whose rule gave the layout
  /// The threads its layout is spread over: those of its uses.
  int64_t Threads = 0;
  /// An element load or store outside any `parallel` loop: every thread of
  /// the range runs it, so each must hold the elements it touches.
  Operation *ScalarUse = nullptr;
};

/// A fragment access in a loop: its kind, the loop variable of each dim
/// (Identity and Broadcast) and each index as an expression of the loop
/// variables i, j, ... followed by the variables of constant-bound `for`
/// loops around or inside the loop body (Extra: their extents, Fors:
/// their ops).
struct FragAccess {
  BufferAccess A;
  AccessKind Kind;
  std::vector<int> Pos;
  std::vector<IndexExpr> Index;
  std::vector<int64_t> Extra;
  std::vector<Operation *> Fors;
};

struct LoopState {
  Operation *Op;
  /// The threads the loop is split over (threadRangeOf).
  int64_t Threads;
  std::optional<Fragment> Layout;
  int64_t Vector = 1;
  std::vector<FragAccess> Frags;
};

void collectVarNames(const IndexExpr &E, std::set<std::string> &Names) {
  if (llvm::StringRef N = E.getVarName(); !N.empty())
    Names.insert(N.str());
  else if (const auto *Bin = llvm::dyn_cast<layout::BinaryNode>(E.get())) {
    collectVarNames(Bin->getLHS(), Names);
    collectVarNames(Bin->getRHS(), Names);
  }
}

/// The `for` op whose variable is \p V, when it has constant bounds.
Operation *constantBoundFor(Value *V, const layout::VarExtents &Ranges,
                            llvm::StringRef Name) {
  if (!V || !V->isBlockArgument() || !Ranges.count(Name))
    return nullptr;
  Operation *Owner = V->getOwnerBlock()->getParentOp();
  return Owner && Owner->is(OpKind::For) ? Owner : nullptr;
}

/// The indices of fragment access \p FA.A in \p Loop as expressions of the
/// loop variables and of constant-bound `for` variables (renamed to the
/// input variables after the loop's own); false, with \p Why, when one
/// depends on anything else.
bool loopIndexExprs(Operation &Loop, FragAccess &FA, std::string &Why) {
  auto Extents =
      Loop.getIntArrayAttr("extents").value_or(std::vector<int64_t>{});
  IndexAtoms Atoms;
  layout::VarExtents Vars;
  for (unsigned K = 0; K != Extents.size(); ++K) {
    Atoms.bind(Fragment::inputVarName(K), Loop.getBody().getArgument(K),
               Extents[K]);
    Vars[Fragment::inputVarName(K)] = Extents[K];
  }
  std::vector<IndexExpr> Raw;
  std::set<std::string> Names;
  for (Value *I : FA.A.indices()) {
    Raw.push_back(Atoms.toExpr(I));
    collectVarNames(Raw.back(), Names);
  }
  layout::VarMap Rename;
  for (const std::string &N : Names) {
    if (Vars.count(N))
      continue;
    Operation *For =
        constantBoundFor(Atoms.getValues().lookup(N), Atoms.getExtents(), N);
    if (!For) {
      Why = "inside a T.Parallel loop a fragment must be indexed by "
            "expressions of the loop variables and of the variables of "
            "loops with constant bounds (a register index must be known at "
            "compile time)";
      return false;
    }
    std::string Var = Fragment::inputVarName(Extents.size() + FA.Extra.size());
    Rename[N] = IndexExpr::var(Var);
    Vars[Var] = Atoms.getExtents().lookup(N);
    FA.Extra.push_back(Vars[Var]);
    FA.Fors.push_back(For);
  }
  for (const IndexExpr &E : Raw)
    FA.Index.push_back(layout::simplify(layout::substitute(E, Rename), Vars));
  return true;
}

/// \p Loop with \p Extra dims appended to its iteration space, on
/// registers: every thread that runs an iteration runs it for every value
/// of the extra variables (they are loops the thread runs itself).
Fragment extendOnRegisters(const Fragment &Loop,
                           llvm::ArrayRef<int64_t> Extra) {
  if (Extra.empty())
    return Loop;
  layout::Shape Shape(Loop.getInputShape().begin(), Loop.getInputShape().end());
  IndexExpr Reg = 0;
  llvm::ArrayRef<int64_t> Out = Loop.getOutputShape();
  for (unsigned D = 0; D != Out.size(); ++D)
    Reg = Reg * Out[D] + Loop.getForwardIndex()[D];
  for (int64_t E : Extra) {
    Reg = Reg * E + Fragment::inputVar(Shape.size());
    Shape.push_back(E);
  }
  return Fragment(Shape, {Reg}, Loop.getForwardThread(),
                  Loop.getReplicateSize());
}

/// A `T.Pipelined` loop that copies nothing from global into shared memory
/// has no producer to issue ahead: lower-pipelined runs it as a plain
/// serial loop (flash decoding's combine step, `for k in
/// T.Pipelined(num_split)` over a fragment row). Such a loop may be
/// unrolled like a serial one. A loop with a user schedule (`order`,
/// `stage`) is left for lower-pipelined to check.
bool pipelinedWithoutProducers(Operation &For) {
  if (For.getAttr("order") || For.getAttr("stage"))
    return false;
  bool ReadsGlobal = false, WritesShared = false;
  for (const BufferAccess &A : collectAccesses(For)) {
    Scope S = A.Buffer->getType().getScope();
    bool Load = A.User->is(OpKind::Load);
    ReadsGlobal |= Load && S == Scope::Global;
    WritesShared |= !Load && S == Scope::Shared;
  }
  return !ReadsGlobal || !WritesShared;
}

/// A register index must be known at compile time (a register array
/// indexed at run time lives in local memory): the `for` loops whose
/// variables index fragments are unrolled. False for a loop that cannot
/// be (pipelined, with copies to issue ahead).
bool unrollForRegisters(Operation &For) {
  llvm::StringRef Kind = For.getStringAttr("kind").value_or("serial");
  if (Kind == "unroll" || Kind == "vectorized")
    return true;
  if (Kind != "serial" &&
      (Kind != "pipelined" || !pipelinedWithoutProducers(For)))
    return false;
  For.setAttr("kind", Attribute::string("unroll"));
  return true;
}

class KernelInference {
public:
  KernelInference(Operation &Kernel, DiagnosticEngine &Diags,
                  std::set<std::string> &Assumes)
      : Kernel(Kernel), Diags(Diags), Assumes(Assumes) {}

  bool run() {
    if (!collect() || !inferStrict())
      return false;
    while (!Failed) {
      if (inferCommon() || inferFree())
        continue;
      if (!replicateDeferred() && !replicateScalarUsed() && !pickDefault())
        break;
    }
    if (Failed)
      return false;
    finish();
    return true;
  }

private:
  Operation &Kernel;
  DiagnosticEngine &Diags;
  std::set<std::string> &Assumes;
  bool Failed = false;
  /// Registers per thread a fully replicated fallback layout may take.
  static constexpr int64_t MaxReplicatedElements = 256;
  std::vector<Value *> FragOrder;
  std::map<const Value *, FragState> Frags;
  /// A deque: staging appends loops while a LoopState is in use.
  std::deque<LoopState> Loops;
  std::vector<Operation *> Commons, Annotations;

  bool isFragment(const Value *V) {
    return V->getType().isBuffer() &&
           V->getType().getScope() == Scope::Fragment && Frags.count(V);
  }

  bool unsupported(const Operation &Op, const std::string &What,
                   const std::string &Why) {
    Diags.report(Op.getLoc(), diag::err_lowering_unsupported) << What << Why;
    Failed = true;
    return false;
  }

  bool collect() {
    Kernel.walk([&](Operation &Op) {
      if ((Op.is(OpKind::Alloc) || Op.is(OpKind::View)) &&
          Op.getResult()->getType().getScope() == Scope::Fragment) {
        FragOrder.push_back(Op.getResult());
        Frags[Op.getResult()] = {};
        Failed |= !collectThreads(Op.getResult());
      } else if (Op.is(OpKind::Reduce) || Op.is(OpKind::Cumsum)) {
        Commons.push_back(&Op);
      } else if (Op.is(OpKind::AnnotateLayout)) {
        Annotations.push_back(&Op);
      }
    });
    Kernel.walk([&](Operation &Op) {
      if (Op.is(OpKind::Parallel) && !Failed)
        collectLoop(Op);
    });
    return !Failed;
  }

  /// A fragment's layout spreads it over the threads that use it: all its
  /// uses must be in one thread range (the kernel's, or one role block's).
  bool collectThreads(Value *Buf) {
    const Operation *First = nullptr;
    ThreadRange Range = threadRangeOf(Kernel);
    for (const Use &U : Buf->getUses()) {
      if (U.User->is(OpKind::AnnotateLayout))
        continue;
      ThreadRange R = threadRangeOf(*U.User);
      if (First && R != Range) {
        Diags.report(U.User->getLoc(), diag::err_lowering_unsupported)
            << "fragment '" + name(Buf) + "'"
            << "it is used by threads " + describe(R) +
                   " here and by threads " + describe(Range) +
                   " elsewhere; a fragment lives on the threads of one "
                   "role (copy it through shared memory)";
        Diags.report(First->getLoc(), diag::note_layout_use)
            << name(Buf) << "is used by threads " + describe(Range);
        return false;
      }
      if (!First) {
        First = U.User;
        Range = R;
      }
      if ((U.User->is(OpKind::Load) || U.User->is(OpKind::Store)) &&
          !U.User->getParentOfKind(OpKind::Parallel))
        Frags[Buf].ScalarUse = U.User;
    }
    Frags[Buf].Threads = Range.Count;
    return true;
  }

  static std::string describe(ThreadRange R) {
    return "[" + std::to_string(R.Offset) + ", " +
           std::to_string(R.Offset + R.Count) + ")";
  }

  void collectLoop(Operation &Loop) {
    if (Loop.getParentOfKind(OpKind::Parallel)) {
      unsupported(Loop, "a nested T.Parallel loop",
                  "merge it into the enclosing one");
      return;
    }
    LoopState S{&Loop, threadRangeOf(Loop).Count, std::nullopt, 1, {}};
    for (const BufferAccess &A : collectAccesses(Loop)) {
      if (!isFragment(A.Buffer))
        continue;
      auto Pos = fragmentVarPositions(Loop, A);
      AccessKind Kind =
          Pos ? classifyFragmentAccess(Loop, A, *Pos) : AccessKind::Other;
      FragAccess FA{A, Kind, Pos.value_or(std::vector<int>{}), {}, {}, {}};
      std::string Why;
      if (!loopIndexExprs(Loop, FA, Why) || !unrollAll(FA.Fors, Why)) {
        unsupported(*A.User, "fragment '" + name(A.Buffer) + "'", Why);
        return;
      }
      S.Frags.push_back(std::move(FA));
    }
    Loops.push_back(std::move(S));
  }

  bool unrollAll(llvm::ArrayRef<Operation *> Fors, std::string &Why) {
    for (Operation *For : Fors)
      if (!unrollForRegisters(*For)) {
        Why = "it is indexed by the variable of a pipelined loop, but a "
              "register index must be known at compile time; copy the "
              "row into a fragment of its own first";
        return false;
      }
    return true;
  }

  //===--- Levels ---------------------------------------------------------===//

  bool inferStrict() {
    for (Operation *Op : Annotations) {
      Value *Buf = Op->getOperand(0);
      if (!isFragment(Buf))
        continue;
      std::string Error;
      llvm::StringRef Text = Op->getStringAttr("layout").value_or("");
      auto F = layout::parseFragment(Text, Error);
      if (F && F->getInputShape() != llvm::ArrayRef<int64_t>(staticShape(Buf)))
        Error = "its shape does not match the buffer";
      else if (F)
        Error = checkThreads(*F, Frags[Buf].Threads);
      if (!F || !Error.empty()) {
        Diags.report(Op->getLoc(), diag::err_bad_layout_annotation)
            << "cannot use '" + Text.str() + "' as the layout of fragment '" +
                   Buf->getNameHint().str() + "': " + Error;
        return false;
      }
      if (!assign(Buf, *F, Op))
        return false;
    }
    return true;
  }

  /// Why a pinned fragment cannot be used in this kernel, or "".
  std::string checkThreads(const Fragment &F, int64_t Threads) const {
    if (F.getThreadExtent() != Threads)
      return "it is spread over " + std::to_string(F.getThreadExtent()) +
             " threads, but " +
             (Threads == kernelThreadCount(Kernel) ? "the kernel has "
                                                   : "its role block has ") +
             std::to_string(Threads);
    if (!F.asThreadLayout().isInjective().value_or(true))
      return "two elements would share a thread and register";
    return "";
  }

  /// reduce: dst from src; cumsum: src and dst share a layout.
  bool inferCommon() {
    bool Changed = false;
    for (Operation *Op : Commons) {
      Value *Src = Op->getOperand(0), *Dst = Op->getOperand(1);
      if (!isFragment(Src) || !isFragment(Dst))
        continue;
      FragState &S = Frags[Src], &D = Frags[Dst];
      if (Op->is(OpKind::Cumsum)) {
        if (S.Layout && !D.Layout)
          Changed |= assign(Dst, *S.Layout, Op);
        else if (D.Layout && !S.Layout)
          Changed |= assign(Src, *D.Layout, Op);
        continue;
      }
      if (!S.Layout || D.Layout)
        continue;
      unsigned Dim = Op->getIntAttr("dim").value_or(0);
      std::vector<unsigned> Kept;
      for (unsigned K = 0; K != S.Layout->getInputDim(); ++K)
        if (K != Dim)
          Kept.push_back(K);
      auto F = deriveProjectedFragment(*S.Layout, Kept, staticShape(Dst),
                                       threadRangeOf(*Op).Count);
      if (!F)
        return unsupported(*Op, "this reduction",
                           "no layout for its destination");
      Changed |= assign(Dst, *F, Op);
    }
    return Changed;
  }

  /// Loop <-> fragment propagation.
  bool inferFree() {
    bool Changed = false;
    for (size_t I = 0; I != Loops.size(); ++I) {
      LoopState &L = Loops[I];
      if (!L.Layout)
        Changed |= adoptFragmentLayout(L);
      if (L.Layout)
        Changed |= propagateToFragments(L);
      if (Failed)
        return false;
    }
    return Changed;
  }

  bool adoptFragmentLayout(LoopState &L) {
    for (const FragAccess &FA : L.Frags) {
      const FragState &F = Frags[FA.A.Buffer];
      if (!F.Layout || FA.Kind != AccessKind::Identity)
        continue;
      auto Shape =
          L.Op->getIntArrayAttr("extents").value_or(std::vector<int64_t>{});
      auto Mine = F.Layout->reshape(Shape);
      if (!Mine)
        continue;
      setLoopLayout(L, *Mine, runLength(*Mine));
      return true;
    }
    return false;
  }

  bool propagateToFragments(LoopState &L) {
    bool Changed = false;
    for (const FragAccess &FA : L.Frags) {
      const BufferAccess &A = FA.A;
      FragState &F = Frags[A.Buffer];
      std::vector<int64_t> Shape = staticShape(A.Buffer);
      if (F.Layout) {
        if (fits(L, FA, Shape, *F.Layout))
          continue;
        if (stage(L, A.Buffer))
          return true; // L.Frags changed under this loop
        return conflict(A.Buffer, *A.User, F.Source);
      }
      auto Need = requiredLayout(L, FA, Shape);
      if (Need)
        Changed |= assign(A.Buffer, *Need, A.User);
      else if (FA.Kind != AccessKind::Other) // Other: see replicateDeferred
        return unsupported(*A.User, "fragment '" + name(A.Buffer) + "'",
                           "no layout fits this access");
    }
    return Changed;
  }

  /// The layout \p FA needs for the fragment, from the loop's layout.
  std::optional<Fragment> requiredLayout(const LoopState &L,
                                         const FragAccess &FA,
                                         llvm::ArrayRef<int64_t> Shape) {
    switch (FA.Kind) {
    case AccessKind::Identity:
      return L.Layout->reshape(Shape);
    case AccessKind::Broadcast:
      return deriveProjectedFragment(*L.Layout, keptVars(FA.Pos), Shape,
                                     L.Threads);
    case AccessKind::Other:
      return deriveAccessFragment(extendOnRegisters(*L.Layout, FA.Extra),
                                  FA.Index, Shape);
    }
    return std::nullopt;
  }

  bool fits(const LoopState &L, const FragAccess &FA,
            llvm::ArrayRef<int64_t> Shape, const Fragment &Have) {
    switch (FA.Kind) {
    case AccessKind::Identity:
      return sameThreads(*L.Layout->reshape(Shape), Have);
    case AccessKind::Broadcast:
      return holdsBroadcast(*L.Layout, Have, keptVars(FA.Pos));
    case AccessKind::Other:
      return holdsAccess(extendOnRegisters(*L.Layout, FA.Extra), Have,
                         FA.Index);
    }
    return false;
  }

  /// A loop that writes \p Frag, or copies it into another fragment, in a
  /// layout that cannot hold it goes through shared memory
  /// (FragmentStage.h): the loop's accesses of \p Frag move to a shared
  /// buffer, and a new loop, which takes \p Frag's layout, copies between
  /// them. False when that is not possible (a real conflict).
  bool stage(LoopState &L, Value *Frag) {
    StageKind Kind = stageKindOf(*L.Op, Frag);
    if (Kind == StageKind::None)
      return false;
    Operation *Copy = stageThroughShared(*L.Op, Frag, Kind);
    llvm::erase_if(L.Frags,
                   [&](const FragAccess &FA) { return FA.A.Buffer == Frag; });
    if (L.Layout) // the shared accesses may allow a narrower vector only
      setLoopLayout(L, *L.Layout, runLength(*L.Layout));
    collectLoop(*Copy);
    return true;
  }

  /// A fragment whose only constraints are accesses without a derivable
  /// layout is replicated on every thread (small fragments only).
  bool replicateDeferred() {
    for (LoopState &L : Loops)
      for (const FragAccess &FA : L.Frags) {
        FragState &F = Frags[FA.A.Buffer];
        if (F.Layout || !L.Layout)
          continue;
        std::vector<int64_t> Shape = staticShape(FA.A.Buffer);
        if (layout::shapeSize(Shape) > MaxReplicatedElements)
          return unsupported(*FA.A.User, "fragment '" + name(FA.A.Buffer) + "'",
                             "no layout gives every thread the elements this "
                             "access reads");
        return assign(FA.A.Buffer,
                      makeFullyReplicatedFragment(Shape, F.Threads), FA.A.User);
      }
    return false;
  }

  /// A fragment that every thread reads or writes outside `parallel` loops
  /// (a mask tested by a serial loop, say) and that nothing else has laid
  /// out yet is replicated on every thread, before a default layout would
  /// spread its elements over the threads (small fragments only).
  bool replicateScalarUsed() {
    for (Value *Buf : FragOrder) {
      FragState &F = Frags[Buf];
      if (F.Layout || !F.ScalarUse)
        continue;
      std::vector<int64_t> Shape = staticShape(Buf);
      if (layout::shapeSize(Shape) > MaxReplicatedElements)
        return unsupported(*F.ScalarUse, "fragment '" + name(Buf) + "'",
                           "every thread accesses it here, outside a "
                           "T.Parallel loop, but it is too large to hold "
                           "on every thread");
      return assign(Buf, makeFullyReplicatedFragment(Shape, F.Threads),
                    F.ScalarUse);
    }
    return false;
  }

  /// A loop that indexes a fragment with the variable of a `for` loop
  /// needs all values of that variable on each of its threads, a stronger
  /// demand on the fragment than any loop over the fragment's own shape
  /// can meet by default; such loops pick first.
  static bool runsForOnRegisters(const LoopState &L) {
    return llvm::any_of(L.Frags,
                        [](const FragAccess &FA) { return !FA.Extra.empty(); });
  }

  /// A loop that reads no buffer (`T.fill`, `T.clear`) places values
  /// where the fragment's layout wants them: as in TileLang, where a fill
  /// adapts to the layout the fragment's other uses infer, it chooses
  /// nothing while another loop can. Choosing first would pin a row
  /// vector to one thread before a reduction that wants it on every
  /// thread of its row (online softmax's `T.fill(lse, -inf)`).
  static bool isFill(const LoopState &L) {
    return llvm::none_of(collectAccesses(*L.Op), [](const BufferAccess &A) {
      return A.User->is(OpKind::Load);
    });
  }

  /// Which loops pick a default layout first: those running a `for`
  /// variable on registers, then all but fills, then fills.
  static int pickRank(const LoopState &L) {
    return runsForOnRegisters(L) ? 0 : isFill(L) ? 2 : 1;
  }

  /// The first loop without a layout of the lowest rank gets the default
  /// fragment.
  bool pickDefault() {
    for (int Rank : {0, 1, 2})
      for (LoopState &L : Loops)
        if (!L.Layout && pickRank(L) <= Rank)
          return pickDefault(L);
    return false;
  }

  /// A loop that touches only thread-private buffers (`T.clear` of an
  /// `alloc_local` array) runs whole on every thread: each thread has its
  /// own copy, so splitting the iterations would leave the other threads'
  /// copies unwritten.
  static bool onlyThreadPrivate(const LoopState &L) {
    std::vector<BufferAccess> Accesses = collectAccesses(*L.Op);
    return !Accesses.empty() &&
           llvm::all_of(Accesses, [](const BufferAccess &A) {
             Scope S = A.Buffer->getType().getScope();
             return S == Scope::Local || S == Scope::Var;
           });
  }

  bool pickDefault(LoopState &L) {
    auto Shape =
        L.Op->getIntArrayAttr("extents").value_or(std::vector<int64_t>{});
    if (onlyThreadPrivate(L)) {
      setLoopLayout(L, makeFullyReplicatedFragment(Shape, L.Threads), 1);
      return true;
    }
    std::set<std::string> Unused;
    int64_t V = chooseVectorWidth(*L.Op, Unused);
    setLoopLayout(L, layout::makeDefaultFragment(Shape, L.Threads, V), V);
    return true;
  }

  //===--- Helpers --------------------------------------------------------===//

  static std::string name(const Value *V) { return V->getNameHint().str(); }

  void setLoopLayout(LoopState &L, const Fragment &F, int64_t Run) {
    L.Layout = F;
    L.Vector = chooseVectorWidth(*L.Op, Assumes,
                                 std::min(Run, sharedLayoutRunCap(*L.Op)));
  }

  bool assign(Value *Buf, const Fragment &F, Operation *Source) {
    FragState &S = Frags[Buf];
    if (!S.Layout) {
      S.Layout = F;
      S.Source = Source;
      assignAliases(Buf, F, Source);
      return true;
    }
    if (!sameFragment(*S.Layout, F))
      return conflict(Buf, *Source, S.Source);
    return false;
  }

  /// A view and its source hold the same registers: each element keeps its
  /// thread and register under the other shape (the row-major reshape of
  /// the layout's index space).
  void assignAliases(Value *Buf, const Fragment &F, Operation *Source) {
    std::vector<Value *> Aliases;
    Operation *Def = Buf->getDefiningOp();
    if (Def && Def->is(OpKind::View))
      Aliases.push_back(Def->getOperand(0));
    Value *Root = Aliases.empty() ? Buf : Aliases.front();
    for (const Use &U : Root->getUses())
      if (U.User->is(OpKind::View) && U.User->getResult() != Buf)
        Aliases.push_back(U.User->getResult());
    for (Value *Alias : Aliases) {
      if (!isFragment(Alias))
        continue;
      auto Reshaped = F.reshape(staticShape(Alias));
      assert(Reshaped && "the verifier keeps a view's element count");
      assign(Alias, *Reshaped, Source);
    }
  }

  bool conflict(Value *Buf, const Operation &Use, const Operation *Prev) {
    Diags.report(Use.getLoc(), diag::err_layout_conflict)
        << name(Buf)
        << "this use needs a different layout than the one it already has";
    if (Prev)
      Diags.report(Prev->getLoc(), diag::note_layout_use)
          << name(Buf) << "got its layout";
    Failed = true;
    return false;
  }

  /// Fragments no loop constrained get a default layout; attributes out.
  void finish() {
    for (Value *Buf : FragOrder) {
      FragState &S = Frags[Buf];
      std::vector<int64_t> Shape = staticShape(Buf);
      if (!S.Layout)
        S.Layout = layout::makeDefaultFragment(Shape, S.Threads, 1);
      Buf->getDefiningOp()->setAttr("layout",
                                    Attribute::string(S.Layout->toString()));
    }
    for (LoopState &L : Loops) {
      L.Op->setAttr("loop_layout", Attribute::string(L.Layout->toString()));
      L.Op->setAttr("vector_size", Attribute::integer(L.Vector));
    }
    for (Operation *Op : Annotations)
      if (isFragment(Op->getOperand(0)))
        Op->erase();
  }
};

class LayoutInferencePass : public Pass {
public:
  llvm::StringRef name() const override { return "layout-inference"; }
  llvm::StringRef description() const override {
    return "Infer fragment layouts and parallel-loop layouts";
  }

  bool run(Operation &Module, PassContext &Ctx) override {
    bool OK = true;
    for (Operation &Func : Module.getBody()) {
      std::set<std::string> Assumes = readAssumes(Func);
      for (Operation &Op : Func.getBody())
        if (Op.is(OpKind::Kernel))
          OK &= KernelInference(Op, Ctx.Diags, Assumes).run();
      writeAssumes(Func, Assumes);
    }
    return OK;
  }
};

} // namespace

std::unique_ptr<Pass> tilec::createLayoutInferencePass() {
  return std::make_unique<LayoutInferencePass>();
}
