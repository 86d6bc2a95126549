//===- WgmmaLayout.cpp - Which T.gemms run as wgmma (sm_90a) --------------===//

#include "WgmmaLayout.h"
#include "ApplySharedLayouts.h"
#include "IndexExprToIR.h"
#include "WgmmaGemm.h"
#include "tilec/IR/Builder.h"
#include "tilec/IR/ConstantMatch.h"
#include "tilec/Support/Diagnostics.h"
#include "llvm/ADT/EquivalenceClasses.h"

using namespace tilec;
using namespace tilec::ir;
using layout::Fragment;
using layout::WgmmaSharedLayout;

namespace {

std::string name(const Value *V) { return V->getNameHint().str(); }

/// The annotate_layout op of shared buffer \p Buf, if any.
Operation *userAnnotation(const Value *Buf) {
  for (const Use &U : Buf->getUses())
    if (U.User->is(OpKind::AnnotateLayout))
      return U.User;
  return nullptr;
}

/// The element offset of \p Idx under \p L (its output flattened).
std::optional<int64_t> flatOffset(const layout::Layout &L,
                                  llvm::ArrayRef<int64_t> Idx) {
  auto Out = L.forward(Idx);
  if (!Out)
    return std::nullopt;
  int64_t Flat = 0;
  for (size_t D = 0; D != Out->size(); ++D)
    Flat = Flat * L.getOutputShape()[D] + (*Out)[D];
  return Flat;
}

/// Whether the region of \p Parent starting at row \p R0 and column \p C0
/// (of the last two dims; N dims in all), laid out as \p Tile wants, is
/// its buffer under the same constructor: each element at the region's
/// start plus its own offset in \p Tile, the start (of every stage) on the
/// swizzle atom.
bool regionFitsAt(size_t N, int64_t R0, int64_t C0,
                  const WgmmaSharedLayout &Tile, const layout::Layout &Parent) {
  layout::Indices Base(N, 0), Next(N, 0);
  Base[N - 2] = R0;
  Base[N - 1] = C0;
  if (N > 2)
    Next[N - 3] = 1;
  int64_t AtomElems = Tile.alignment() * 8 / Tile.ElemBits;
  auto Start = flatOffset(Parent, Base), Stage = flatOffset(Parent, Next);
  if (!Start || !Stage || *Start % AtomElems || *Stage % AtomElems)
    return false;
  layout::Layout Own = Tile.layout();
  for (int64_t R = 0; R != Tile.Rows; ++R)
    for (int64_t C = 0; C != Tile.Cols; ++C) {
      layout::Indices At = Base;
      At[N - 2] += R;
      At[N - 1] += C;
      auto P = flatOffset(Parent, At), T = flatOffset(Own, {R, C});
      if (!P || !T || *P - *Start != *T)
        return false;
    }
  return true;
}

/// Whether the region `subview` \p Sub fits (regionFitsAt). Its row start
/// must be constant; its column start constant or a known multiple m of
/// the elements (FlashMLA's `j * k_tile`), when it fits at every multiple
/// of m whose columns lie in the buffer. Leading starts (stages) may vary.
bool regionFits(const Operation &Sub, const WgmmaSharedLayout &Tile,
                const layout::Layout &Parent) {
  size_t N = Sub.getNumOperands() - 1;
  auto R0 = matchConstantInt(Sub.getOperand(N - 1));
  if (!R0)
    return false;
  if (auto C0 = matchConstantInt(Sub.getOperand(N)))
    return regionFitsAt(N, *R0, *C0, Tile, Parent);
  int64_t M = knownMultiple(Sub.getOperand(N));
  int64_t Cols = Parent.getInputShape().back();
  if (M <= 0 || Cols / M > 64)
    return false;
  for (int64_t C0 = 0; C0 + Tile.Cols <= Cols; C0 += M)
    if (!regionFitsAt(N, *R0, C0, Tile, Parent))
      return false;
  return true;
}

class KernelWgmmaLayout {
public:
  KernelWgmmaLayout(Operation &Kernel, const Target &Tgt,
                    DiagnosticEngine &Diags)
      : Kernel(Kernel), Tgt(Tgt), Diags(Diags) {}

  void run() {
    std::vector<Operation *> Ops = Kernel.collect(OpKind::Gemm);
    for (Operation *Op : Ops) {
      // A gemm in a role block (T.ws, `if tx < K`) runs on the role's
      // threads, which must be whole, aligned warpgroups.
      ThreadRange Range = threadRangeOf(*Op);
      if (Range.Offset % 128)
        return fallBack(*Op, "its threads start at thread " +
                                 std::to_string(Range.Offset) +
                                 ", not on a warpgroup");
      std::string Why;
      auto P = planWgmmaGemm(*Op, Tgt, Range.Count, Why);
      if (!P)
        return fallBack(*Op, Why);
      Gemms.push_back({Op, *P, Range});
    }
    if (Gemms.empty())
      return;
    unifyWarpgroupSplit();
    for (Planned &G : Gemms)
      if (!requireLayouts(G))
        return;
    if (!resolveShared())
      return;
    apply();
  }

private:
  struct Planned {
    Operation *Op;
    WgmmaPlan Plan;
    ThreadRange Range;
  };

  Operation &Kernel;
  const Target &Tgt;
  DiagnosticEngine &Diags;
  std::vector<Planned> Gemms;
  std::vector<std::pair<Value *, Fragment>> Fragments;
  struct SharedUse {
    Planned *G;
    bool OperandA;
    /// The `subview` the gemm reads, when its operand is a region of Buf.
    const Operation *Sub;
  };
  struct SharedUses {
    Value *Buf;
    std::vector<SharedUse> Uses;
  };
  std::vector<SharedUses> Shared;

  void fallBack(const Operation &Gemm, const std::string &Why) {
    Diags.report(Gemm.getLoc(), diag::remark_gemm_not_wgmma)
        << Why + "; this kernel's T.gemms use the sm_80 lowering";
    // T.wgmma_gemm has no mma.sync fallback.
    Kernel.walk([&](Operation &Op) {
      if (Op.getBoolAttr("wgmma_async").value_or(false))
        Diags.report(Op.getLoc(), diag::err_lowering_unsupported)
            << "T.wgmma_gemm"
            << "this kernel's T.gemms cannot use wgmma (" + Why + ")";
    });
  }

  /// One warpgroup split for the gemms of each group that fragments
  /// connect (fragmentGroups) when one fits them all: row statistics of one
  /// accumulator then live on the threads holding the same rows of the next
  /// (as gemm-layout does for warps). Gemms that share no fragment keep
  /// their own splits: attention backward's dQ = dS K (64 query rows, read
  /// from shared memory) cannot split its rows over two warpgroups, and a
  /// column split forced on dK and dV would replicate their A fragments.
  void unifyWarpgroupSplit() {
    std::vector<std::vector<Planned *>> Groups = fragmentGroups();
    for (std::vector<Planned *> &Group : Groups)
      unifyGroup(Group);
  }

  /// The planned gemms grouped by the fragments a parallel loop or tile
  /// operator touches together (or a view shares), closed transitively.
  std::vector<std::vector<Planned *>> fragmentGroups() {
    llvm::EquivalenceClasses<const Value *> Classes;
    auto IsFragment = [](const Value *V) {
      return V->getType().isBuffer() &&
             V->getType().getScope() == Scope::Fragment;
    };
    llvm::DenseMap<const Operation *, const Value *> First;
    auto Join = [&](const Operation *Anchor, const Value *V) {
      Classes.insert(V);
      auto [It, New] = First.try_emplace(Anchor, V);
      if (!New)
        Classes.unionSets(It->second, V);
    };
    Kernel.walk([&](Operation &Op) {
      const Operation *Anchor = &Op;
      for (const Operation *P = Op.getParentOp(); P && P != &Kernel;
           P = P->getParentOp())
        if (P->is(OpKind::Parallel))
          Anchor = P;
      for (const Value *V : Op.getOperands())
        if (IsFragment(V))
          Join(Anchor, V);
      if (Op.is(OpKind::View) && IsFragment(Op.getResult()))
        Join(Anchor, Op.getResult());
    });
    std::vector<std::vector<Planned *>> Groups;
    std::vector<const Value *> Leaders;
    for (Planned &G : Gemms) {
      const Value *Leader = Classes.getLeaderValue(G.Op->getOperand(2));
      auto It = llvm::find(Leaders, Leader);
      if (It != Leaders.end()) {
        Groups[It - Leaders.begin()].push_back(&G);
        continue;
      }
      Leaders.push_back(Leader);
      Groups.push_back({&G});
    }
    return Groups;
  }

  /// The first gemm's split for all of \p Group, else the first that fits.
  void unifyGroup(std::vector<Planned *> &Group) {
    ThreadRange Range = Group.front()->Range;
    if (llvm::any_of(Group,
                     [&](const Planned *G) { return G->Range != Range; }))
      return;
    int64_t Warpgroups = Range.Count / 128;
    std::vector<int64_t> Order = {Group.front()->Plan.MWarpgroups};
    for (int64_t MW = 1; MW <= Warpgroups; ++MW)
      if (Warpgroups % MW == 0)
        Order.push_back(MW);
    for (int64_t MW : Order) {
      std::vector<WgmmaPlan> Split;
      for (const Planned *G : Group)
        if (auto P = withWarpgroupSplit(G->Plan, MW, Warpgroups / MW))
          Split.push_back(*P);
      if (Split.size() != Group.size())
        continue;
      for (size_t I = 0; I != Group.size(); ++I)
        Group[I]->Plan = Split[I];
      return;
    }
  }

  bool requireLayouts(Planned &G) {
    Operation &Op = *G.Op;
    WgmmaPlan &P = G.Plan;
    if (!requireFragment(Op.getOperand(2), P.fragmentC(), Op))
      return false;
    Value *A = Op.getOperand(0);
    if (P.ARegisters) {
      if (!requireFragment(A, P.fragmentA(), Op))
        return false;
    } else {
      useShared(A, G, true);
    }
    useShared(Op.getOperand(1), G, false);
    return true;
  }

  bool requireFragment(Value *Buf, const Fragment &F, const Operation &Gemm) {
    for (auto &[Other, Layout] : Fragments)
      if (Other == Buf) {
        if (Layout.toString() == F.toString())
          return true;
        fallBack(Gemm, "fragment '" + name(Buf) +
                           "' would need two register layouts");
        return false;
      }
    Fragments.push_back({Buf, F});
    return true;
  }

  /// A region (`subview`) is a use of its buffer, which gets the layout.
  void useShared(Value *Buf, Planned &G, bool OperandA) {
    const Operation *Sub = Buf->getDefiningOp();
    if (Sub && Sub->is(OpKind::Subview))
      Buf = Sub->getOperand(0);
    else
      Sub = nullptr;
    for (SharedUses &S : Shared)
      if (S.Buf == Buf)
        return S.Uses.push_back({&G, OperandA, Sub});
    Shared.push_back({Buf, {{&G, OperandA, Sub}}});
  }

  /// Whether \p Swizzle serves \p U's instructions and, for a region, its
  /// buffer under that layout holds the region as the gemm reads it.
  bool fits(const SharedUse &U, Value *Buf, int64_t Swizzle) {
    if (!U.G->Plan.swizzleFits(U.OperandA, Swizzle))
      return false;
    if (!U.Sub)
      return true;
    WgmmaSharedLayout L =
        U.OperandA ? U.G->Plan.sharedA() : U.G->Plan.sharedB();
    L.SwizzleBytes = Swizzle;
    std::string Why;
    auto Whole = annotatedSharedLayout(Buf, L.annotation(name(Buf)), Why);
    return Whole && regionFits(*U.Sub, L, *Whole);
  }

  /// One swizzle per shared buffer (its layout does not depend on the
  /// major-ness, only the descriptors do): the largest every use's
  /// instructions can read, or the user's annotation when it is canonical.
  bool resolveShared() {
    for (SharedUses &S : Shared) {
      auto Fits = [&](int64_t Swizzle) {
        return llvm::all_of(S.Uses, [&](const SharedUse &U) {
          return fits(U, S.Buf, Swizzle);
        });
      };
      std::optional<int64_t> Chosen;
      Operation *Annot = userAnnotation(S.Buf);
      for (int64_t Swizzle : {128, 64, 32, 0})
        if (!Chosen && Fits(Swizzle) &&
            (!Annot || matchesUserLayout(*Annot, S.Uses.front(), Swizzle)))
          Chosen = Swizzle;
      if (!Chosen) {
        fallBack(*S.Uses.front().G->Op,
                 Annot ? "the layout annotated on shared buffer '" +
                             name(S.Buf) + "' is not one wgmma can read"
                       : "no wgmma layout of shared buffer '" + name(S.Buf) +
                             "' serves all its T.gemms (and regions)");
        return false;
      }
      for (SharedUse &U : S.Uses)
        (U.OperandA ? U.G->Plan.ASwizzle : U.G->Plan.BSwizzle) = *Chosen;
    }
    return true;
  }

  /// Whether the user's annotation is the canonical layout with \p Swizzle.
  bool matchesUserLayout(Operation &Annot, const SharedUse &U,
                         int64_t Swizzle) {
    std::string Why;
    auto User = annotatedSharedLayout(
        Annot.getOperand(0), Annot.getStringAttr("layout").value_or(""), Why);
    WgmmaSharedLayout L =
        U.OperandA ? U.G->Plan.sharedA() : U.G->Plan.sharedB();
    L.SwizzleBytes = Swizzle;
    return User && L.layout().isEquivalent(*User).value_or(false);
  }

  void apply() {
    for (Planned &G : Gemms)
      recordWgmmaPlan(*G.Op, G.Plan);
    Builder B;
    for (auto &[Buf, F] : Fragments)
      annotateAfterAlloc(B, Buf, F.toString());
    for (SharedUses &S : Shared) {
      if (Operation *Annot = userAnnotation(S.Buf))
        Annot->erase();
      const SharedUse &U = S.Uses.front();
      WgmmaSharedLayout L =
          U.OperandA ? U.G->Plan.sharedA() : U.G->Plan.sharedB();
      annotateAfterAlloc(B, S.Buf, L.annotation(name(S.Buf)));
    }
  }

  void annotateAfterAlloc(Builder &B, Value *Buf, const std::string &Text) {
    Operation *Alloc = Buf->getDefiningOp();
    if (Alloc)
      B.setInsertionPointAfter(Alloc);
    else
      B.setInsertionPointToStart(Kernel.getBody());
    B.setLoc(Alloc ? Alloc->getLoc() : Kernel.getLoc());
    B.createAnnotateLayout(Buf, Text);
  }
};

class WgmmaLayoutPass : public Pass {
public:
  llvm::StringRef name() const override { return "wgmma-layout"; }
  llvm::StringRef description() const override {
    return "Plan T.gemms as Hopper wgmma and pin their operand layouts";
  }

  bool run(Operation &Module, PassContext &Ctx) override {
    std::vector<Operation *> Kernels = Module.collect(OpKind::Kernel);
    for (Operation *Kernel : Kernels)
      KernelWgmmaLayout(*Kernel, Ctx.Tgt, Ctx.Diags).run();
    return true;
  }
};

} // namespace

std::unique_ptr<Pass> tilec::createWgmmaLayoutPass() {
  return std::make_unique<WgmmaLayoutPass>();
}
