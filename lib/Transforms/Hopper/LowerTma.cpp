//===- LowerTma.cpp - T.Pipelined tile copies as TMA loads ----------------===//

#include "LowerTma.h"
#include "../PipelineSchedule.h"
#include "tilec/IR/Builder.h"
#include "tilec/IR/ConstantMatch.h"
#include "tilec/Layout/WgmmaLayouts.h"
#include "tilec/Support/Diagnostics.h"
#include <functional>

using namespace tilec;
using namespace tilec::ir;

namespace {

/// How the TMA unit fills one shared tile: boxes of BoxRows x BoxCols
/// elements with a swizzle, box n at element DstOffsets[n] of the tile and
/// at (row, col) = SrcOffsets[2n, 2n+1] of the global tile.
struct BoxPlan {
  int64_t Swizzle = 0, BoxRows = 0, BoxCols = 0;
  std::vector<int64_t> DstOffsets, SrcOffsets;
};

/// The byte the TMA unit writes for byte \p Rel of a box that starts on a
/// swizzle atom: 16-byte chunk bits [4, 4+b) XOR row bits [7, 7+b).
int64_t swizzled(int64_t Rel, int64_t Swizzle) {
  if (!Swizzle)
    return Rel;
  int64_t Mask = Swizzle / 16 - 1;
  return Rel ^ (((Rel >> 7) & Mask) << 4);
}

/// Checks by enumeration that boxes with W's swizzle lay out the [R, C]
/// tile exactly as W does.
std::optional<BoxPlan> planBoxes(const layout::WgmmaSharedLayout &W) {
  int64_t R = W.Rows, C = W.Cols, E = W.ElemBits / 8;
  BoxPlan P;
  P.Swizzle = W.SwizzleBytes;
  P.BoxCols = (P.Swizzle ? P.Swizzle : 16) / E;
  P.BoxRows = std::min<int64_t>(R, 256);
  int64_t Atom = P.Swizzle ? 8 * P.Swizzle : 128;
  if (C % P.BoxCols || R % P.BoxRows || R * C * E % Atom)
    return std::nullopt;
  layout::Layout L = W.layout();
  auto Phys = [&](int64_t I, int64_t J) {
    auto Out = L.forward({I, J});
    int64_t Flat = 0;
    for (unsigned D = 0; D != Out->size(); ++D)
      Flat = Flat * L.getOutputShape()[D] + (*Out)[D];
    return Flat;
  };
  if (Phys(0, 0) != 0)
    return std::nullopt;
  for (int64_t BR = 0; BR < R; BR += P.BoxRows)
    for (int64_t BC = 0; BC < C; BC += P.BoxCols) {
      int64_t Base = Phys(BR, BC);
      if (Base * E % Atom)
        return std::nullopt;
      for (int64_t I = 0; I != P.BoxRows; ++I)
        for (int64_t J = 0; J != P.BoxCols; ++J) {
          int64_t Rel = (I * P.BoxCols + J) * E;
          if (Phys(BR + I, BC + J) * E != Base * E + swizzled(Rel, P.Swizzle))
            return std::nullopt;
        }
      P.DstOffsets.push_back(Base);
      P.SrcOffsets.push_back(BR);
      P.SrcOffsets.push_back(BC);
    }
  return P;
}

/// Whether operand group \p G of \p Op accesses buffer \p Buf.
bool isGroupOf(const Operation &Op, unsigned G, const Value *Buf) {
  llvm::ArrayRef<Value *> Group = Op.getGroup(G);
  return !Group.empty() && Group.front() == Buf;
}

/// A parallel loop that moves global elements into shared memory.
bool isGlobalToShared(Operation &Par) {
  bool Load = false, Store = false;
  Par.walk([&](Operation &Op) {
    Load |= Op.is(OpKind::Load) && Op.getOperand(0)->isBufferIn(Scope::Global);
    Store |= Op.is(OpKind::Store) &&
             Op.getGroup(1).front()->isBufferIn(Scope::Shared);
  });
  return Load && Store;
}

/// Matches one copy loop (LowerTma.h) and builds its tma_load.
class CopyMatch {
public:
  explicit CopyMatch(Operation &Par) : Par(Par) {}

  /// Empty when the copy takes TMA, else why not.
  std::string match() {
    if (Par.getBoolAttr("disable_tma").value_or(false))
      return "a copy is marked T.copy(..., disable_tma=True)";
    auto Extents = Par.getIntArrayAttr("extents");
    if (!Extents || Extents->empty() || Extents->size() > 2)
      return "a copy is not of a rank-1 or rank-2 tile";
    Block &Body = Par.getBody();
    Vector = Extents->size() == 1;
    // A vector is the columns of a one-row tile.
    I = Vector ? nullptr : Body.getArgument(0);
    J = Body.getArgument(Vector ? 0 : 1);
    if (std::string Why = findMove(Body); !Why.empty())
      return Why;
    Dst = Store->getGroup(1).front();
    Src = Load->getOperand(0);
    if (const Operation *Def = Src->getDefiningOp();
        Def && Def->is(OpKind::View))
      return "a copy reads a view of a global tensor (T.Tensor over "
             "another's .data), which has no tensor map";
    auto Shape = Dst->getType().getStaticShape();
    llvm::ArrayRef<Value *> StoreIdx = Store->getGroup(1).drop_front();
    if (!Shape || *Shape != *Extents || StoreIdx.back() != J ||
        StoreIdx.size() != Extents->size() || (I && StoreIdx[0] != I))
      return "a copy does not fill its whole shared tile";
    if (Dst->getType().getDType() != Src->getType().getDType())
      return "a copy converts its elements";
    if (std::string Why = matchIndices(); !Why.empty())
      return Why;
    if (Guard && !isBoundsCheck(Guard))
      return "a copy is guarded by more than the tensor's bounds";
    return planLayout();
  }

  /// Empty when lower-pipelined can issue the copy ahead of its iteration
  /// (PipelineSchedule.h's producer rules), else why not.
  std::string checkIssuable(Operation &Loop) const {
    Value *IV = Loop.getBody().getArgument(0);
    // The loop variable, values from before the loop, and pure ops of them.
    std::function<bool(Value *)> Free = [&](Value *V) {
      if (V == IV)
        return true;
      Operation *Def = V->isBlockArgument() ? V->getOwnerBlock()->getParentOp()
                                            : V->getDefiningOp();
      if (!Loop.isAncestorOf(Def))
        return true;
      return !V->isBlockArgument() && isPureScalarOp(*Def) &&
             llvm::all_of(Def->getOperands(), Free);
    };
    if (!llvm::all_of(Bases, [&](Value *V) { return !V || Free(V); }))
      return "a copy's position is not computed from the loop variable alone";
    bool SrcWritten = false, DstReadBefore = false, DstWritten = false;
    bool Before = true;
    for (Operation &Op : Loop.getBody()) {
      if (&Op == &Par) {
        Before = false;
        continue;
      }
      Op.walk([&](Operation &Inner) {
        for (unsigned G = 0; G != Inner.getNumGroups(); ++G) {
          Value *Buf = Inner.getGroup(G).front();
          SrcWritten |= Buf == Src && groupIsWritten(Inner, G);
          DstWritten |= Buf == Dst && groupIsWritten(Inner, G);
          DstReadBefore |= Buf == Dst && Before;
        }
      });
    }
    if (SrcWritten || DstWritten || DstReadBefore)
      return "a copy's tensor or tile is also written in the loop, or its "
             "tile is read before it";
    for (const Use &U : Dst->getUses())
      if (!Loop.isAncestorOf(U.User) && !U.User->is(OpKind::AnnotateLayout))
        return "a copy's tile is used outside the loop";
    Operation *Alloc = Dst->getDefiningOp();
    if (!Alloc || !Alloc->is(OpKind::Alloc) || Loop.isAncestorOf(Alloc))
      return "a copy's tile is allocated in the loop";
    return "";
  }

  /// Empty when the copy, before \p Loop in its block, may be issued by
  /// the loop's ring instead (a prologue load: its tile is read only in
  /// the loop, its tensor written nowhere in the kernel), else why not.
  std::string checkPrologue(Operation &Loop) const {
    bool Read = false;
    for (const Use &U : Dst->getUses()) {
      Operation &User = *U.User;
      if (&User == Store || User.is(OpKind::AnnotateLayout))
        continue;
      if (!Loop.isAncestorOf(&User))
        return "its tile is used outside the loop after it";
      for (unsigned G = 0; G != User.getNumGroups(); ++G)
        if (isGroupOf(User, G, Dst) && groupIsWritten(User, G))
          return "its tile is written in the loop";
      Read = true;
    }
    if (!Read)
      return "the loop does not read its tile";
    bool SrcWritten = false;
    Loop.getParentOfKind(OpKind::Kernel)->walk([&](Operation &Op) {
      for (unsigned G = 0; G != Op.getNumGroups(); ++G)
        SrcWritten |= isGroupOf(Op, G, Src) && groupIsWritten(Op, G);
    });
    return SrcWritten ? "its tensor is written in the kernel" : "";
  }

  /// Replaces the copy loop by its tma_load.
  void rewrite() {
    Builder B;
    B.setInsertionPoint(&Par);
    B.setLoc(Par.getLoc());
    Value *Zero = B.createConstInt(0);
    unsigned DstRank = Dst->getType().rank();
    std::vector<Value *> Operands = {Dst};
    Operands.insert(Operands.end(), DstRank, Zero);
    Operands.push_back(Src);
    for (Value *V : Bases)
      Operands.push_back(V ? V : Zero);
    Operation *Tma =
        B.create(OpKind::TmaLoad, Operands,
                 {DstRank + 1, unsigned(Bases.size() + 1)}, {},
                 {{"box", Attribute::intArray({Plan.BoxRows, Plan.BoxCols})},
                  {"swizzle", Attribute::integer(Plan.Swizzle)},
                  {"dst_offsets", Attribute::intArray(Plan.DstOffsets)},
                  {"src_offsets", Attribute::intArray(Plan.SrcOffsets)}});
    if (RowDim + 2 != int(Bases.size()))
      Tma->setAttr("row_dim", Attribute::integer(RowDim));
    Par.erase();
  }

private:
  Operation &Par;
  /// A rank-1 tile: no row variable, one row of boxes.
  bool Vector = false;
  Value *I = nullptr, *J = nullptr, *Dst = nullptr, *Src = nullptr;
  Operation *Load = nullptr, *Store = nullptr;
  Value *Guard = nullptr;
  /// The global dim the tile's rows run along.
  int RowDim = -1;
  /// Per global dim: the value its index adds to the tile's row/column
  /// (null: 0), or the index itself for the other dims.
  std::vector<Value *> Bases;
  BoxPlan Plan;

  bool definedOutside(const Value *V) const {
    const Operation *Def = V->isBlockArgument()
                               ? V->getOwnerBlock()->getParentOp()
                               : V->getDefiningOp();
    return !Def || !Par.isAncestorOf(Def);
  }

  /// `[pure ops] %v = load; store %v` in \p B; Store/Load set.
  bool isMove(Block &B) {
    Operation *L = nullptr, *S = nullptr;
    for (Operation &Op : B) {
      if (isPureScalarOp(Op))
        continue;
      if (Op.is(OpKind::Load) && !L)
        L = &Op;
      else if (Op.is(OpKind::Store) && L && !S)
        S = &Op;
      else
        return false;
    }
    if (!S || S->getOperand(0) != L->getResult() ||
        !L->getOperand(0)->isBufferIn(Scope::Global) ||
        !S->getGroup(1).front()->isBufferIn(Scope::Shared))
      return false;
    Load = L;
    Store = S;
    return true;
  }

  /// `[pure ops] store 0, %S[%i, %j]` (the else of a bounds check).
  bool storesZero(Block &B) const {
    Operation *S = nullptr;
    for (Operation &Op : B) {
      if (isPureScalarOp(Op))
        continue;
      if (S || !Op.is(OpKind::Store))
        return false;
      S = &Op;
    }
    auto C = S ? matchConstant(S->getOperand(0)) : std::nullopt;
    return C && S->getGroup(1) == Store->getGroup(1) &&
           (C->isInt() ? C->Int == 0 : C->Float == 0.0);
  }

  std::string findMove(Block &Body) {
    std::vector<Operation *> Other;
    for (Operation &Op : Body)
      if (!isPureScalarOp(Op))
        Other.push_back(&Op);
    if (Other.size() == 2 && isMove(Body))
      return "";
    if (Other.size() != 1 || !Other[0]->is(OpKind::If))
      return "a copy is not a plain element move";
    Operation &If = *Other[0];
    if (If.getNumRegions() != 2 || !isMove(If.getBody(0)) ||
        !storesZero(If.getBody(1)))
      return "a copy is guarded by other than bounds checks";
    Guard = If.getOperand(0);
    return "";
  }

  /// `%i`, or `b + %i` / `%i + b` with b computed outside the copy.
  bool affineIn(Value *V, Value *Var, Value *&Base) const {
    Base = nullptr;
    if (V == Var)
      return true;
    Operation *Def = V->getDefiningOp();
    if (!Def || !Def->is(OpKind::Add))
      return false;
    for (unsigned K : {0u, 1u})
      if (Def->getOperand(K) == Var && definedOutside(Def->getOperand(1 - K)))
        return Base = Def->getOperand(1 - K), true;
    return false;
  }

  std::string matchIndices() {
    llvm::ArrayRef<Value *> Idx = Load->getGroup(0).drop_front();
    unsigned Rank = Idx.size();
    if (Rank < 2 || Rank > 5)
      return "the global tensor's rank is not 2 to 5";
    const char *NotBox = "a copy's tile is not rows of one dim by the "
                         "tensor's contiguous dim at affine offsets (a "
                         "transposing copy or a gather)";
    // A vector's boxes are one row of the dim before the contiguous one.
    if (Vector)
      RowDim = Rank - 2;
    for (unsigned D = 0; D + 1 < Rank; ++D) {
      Value *Base;
      if (!Vector && RowDim < 0 && affineIn(Idx[D], I, Base)) {
        RowDim = D;
        Bases.push_back(Base);
        continue;
      }
      if (!definedOutside(Idx[D]))
        return NotBox;
      Bases.push_back(Idx[D]);
    }
    Value *ColBase;
    if (RowDim < 0 || !affineIn(Idx[Rank - 1], J, ColBase))
      return NotBox;
    Bases.push_back(ColBase);
    const Dim &Inner = Src->getType().getDims().back();
    DType T = Src->getType().getDType();
    if (bitWidth(T) < 8)
      return "its " + tileLangName(T).str() +
             " elements are packed two per byte, and the tensor maps tilec "
             "builds take whole-byte elements";
    int64_t Bytes = bitWidth(T) / 8;
    if (!Inner.isStatic() || Inner.getValue() * Bytes % 16 != 0)
      return "the tensor's row stride is not a static multiple of 16 bytes";
    return "";
  }

  /// Whether \p V is the extent of global dim \p D.
  bool isExtent(const Value *V, unsigned D) const {
    const Dim &Ext = Src->getType().getDims()[D];
    if (Ext.isStatic())
      return isConstantInt(V, Ext.getValue());
    return V->isBlockArgument() &&
           V->getOwnerBlock()->getParentOp()->is(OpKind::Func) &&
           V->getNameHint() == Ext.getSymbol();
  }

  /// A conjunction of `index < extent` on the tile's global dims.
  bool isBoundsCheck(const Value *C) const {
    const Operation *Def = C->getDefiningOp();
    if (!Def)
      return false;
    if (Def->is(OpKind::And))
      return isBoundsCheck(Def->getOperand(0)) &&
             isBoundsCheck(Def->getOperand(1));
    if (!Def->is(OpKind::Cmp) || Def->getStringAttr("pred") != "lt")
      return false;
    llvm::ArrayRef<Value *> Idx = Load->getGroup(0).drop_front();
    for (unsigned D : {unsigned(RowDim), unsigned(Idx.size() - 1)})
      if (Def->getOperand(0) == Idx[D] && isExtent(Def->getOperand(1), D))
        return true;
    return false;
  }

  /// A vector is copied in boxes of one row and up to 256 elements,
  /// unswizzled.
  std::string planVector() {
    int64_t N = Dst->getType().getDims()[0].getValue();
    int64_t E = bitWidth(Dst->getType().getDType()) / 8;
    Plan = BoxPlan();
    Plan.BoxRows = 1;
    Plan.BoxCols = std::min<int64_t>(N, 256);
    if (N % Plan.BoxCols || Plan.BoxCols * E % 16)
      return "vector tile '" + Dst->getNameHint().str() +
             "' is not boxes of a multiple of 16 bytes";
    for (int64_t C = 0; C < N; C += Plan.BoxCols) {
      Plan.DstOffsets.push_back(C);
      Plan.SrcOffsets.push_back(0);
      Plan.SrcOffsets.push_back(C);
    }
    return "";
  }

  std::string planLayout() {
    if (Vector)
      return planVector();
    std::optional<layout::WgmmaSharedLayout> W;
    const Type &T = Dst->getType();
    for (const Use &U : Dst->getUses())
      if (U.User->is(OpKind::AnnotateLayout))
        W = layout::parseWgmmaLayoutText(
            U.User->getStringAttr("layout").value_or(""),
            T.getDims()[0].getValue(), T.getDims()[1].getValue(),
            bitWidth(T.getDType()));
    if (!W)
      return "shared tile '" + Dst->getNameHint().str() +
             "' has no wgmma layout for the TMA unit to write";
    auto P = planBoxes(*W);
    if (!P)
      return "the TMA unit's boxes cannot write the layout of '" +
             Dst->getNameHint().str() + "'";
    Plan = *P;
    return "";
  }
};

class LowerTmaPass : public Pass {
public:
  llvm::StringRef name() const override { return "lower-tma"; }
  llvm::StringRef description() const override {
    return "Turn the global->shared tile copies of T.Pipelined loops into "
           "TMA loads (sm_90)";
  }

  bool run(Operation &Module, PassContext &Ctx) override {
    auto IsPipelined = [](const Operation &Op) {
      return Op.is(OpKind::For) &&
             Op.getStringAttr("kind") == llvm::StringRef("pipelined") &&
             Op.getIntAttr("num_stages").value_or(0) >= 1;
    };
    for (Operation *Loop : Module.collect(IsPipelined))
      lowerLoop(*Loop, Ctx);
    return true;
  }

private:
  void lowerLoop(Operation &Loop, PassContext &Ctx) {
    int64_t Step;
    Operation *Func = Loop.getParentOfKind(OpKind::Func);
    if (!canSoftwarePipeline(Loop, Step) ||
        (Func && Func->getBoolAttr("no_tma").value_or(false)))
      return;
    std::vector<CopyMatch> Copies;
    for (Operation &Op : Loop.getBody()) {
      if (!Op.is(OpKind::Parallel) || !isGlobalToShared(Op))
        continue;
      Copies.emplace_back(Op);
      if (std::string Why = Copies.back().match(); !Why.empty()) {
        Ctx.Diags.report(Op.getLoc(), diag::remark_copy_not_tma) << Why;
        return;
      }
    }
    if (Copies.empty())
      return;
    for (CopyMatch &C : Copies)
      if (std::string Why = C.checkIssuable(Loop); !Why.empty()) {
        Ctx.Diags.report(Loop.getLoc(), diag::remark_copy_not_tma) << Why;
        return;
      }
    for (CopyMatch &C : Copies)
      C.rewrite();
    if (Ctx.Tgt.TmaPrologueLoads && !Loop.hasAttr("order") &&
        !Loop.hasAttr("stage"))
      lowerPrologueCopies(Loop);
  }

  /// The copies before \p Loop in its block whose tiles only the loop
  /// reads become tma_loads too, which lower-pipelined issues ahead of the
  /// ring's first stages.
  void lowerPrologueCopies(Operation &Loop) {
    std::vector<CopyMatch> Copies;
    for (Operation *Op = Loop.getPrevNode(); Op; Op = Op->getPrevNode()) {
      if (!Op->is(OpKind::Parallel) || !isGlobalToShared(*Op))
        continue;
      CopyMatch C(*Op);
      if (C.match().empty() && C.checkPrologue(Loop).empty())
        Copies.push_back(std::move(C));
    }
    for (CopyMatch &C : Copies)
      C.rewrite();
  }
};

} // namespace

std::unique_ptr<Pass> tilec::createLowerTmaPass() {
  return std::make_unique<LowerTmaPass>();
}
