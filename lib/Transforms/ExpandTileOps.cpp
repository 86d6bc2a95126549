//===- ExpandTileOps.cpp - Tile copies, fills, atomics as loops -----------===//

#include "ExpandTileOps.h"
#include "LoopAccess.h"
#include "tilec/IR/Builder.h"
#include "tilec/IR/ConstantMatch.h"
#include "tilec/Support/Diagnostics.h"

using namespace tilec;
using namespace tilec::ir;

namespace {

/// One side of a tile operator: `%buf[start..]` with a static extent.
struct Region {
  Value *Buffer = nullptr;
  std::vector<Value *> Starts; ///< empty: all zero
  std::vector<int64_t> Extent;
};

/// Extent \p E aligned to \p Rank dims by dropping or adding leading 1s.
std::optional<std::vector<int64_t>> alignToRank(std::vector<int64_t> E,
                                                unsigned Rank) {
  while (E.size() > Rank && E.front() == 1)
    E.erase(E.begin());
  if (E.size() > Rank)
    return std::nullopt;
  E.insert(E.begin(), Rank - E.size(), 1);
  return E;
}

std::vector<int64_t> nonUnit(llvm::ArrayRef<int64_t> E) {
  std::vector<int64_t> Out;
  for (int64_t X : E)
    if (X != 1)
      Out.push_back(X);
  return Out;
}

class Expander {
public:
  Expander(Operation &Op, DiagnosticEngine &Diags) : Op(Op), Diags(Diags) {
    B.setInsertionPoint(&Op);
    B.setLoc(Op.getLoc());
  }

  bool expandCopy() {
    auto Src = regionOf(0, "src_extent"), Dst = regionOf(1, "dst_extent");
    if (!Src || !Dst)
      return false;
    auto [Loop, Ivs] = makeLoop(*Src);
    if (Op.getBoolAttr("disable_tma").value_or(false))
      Loop->setAttr("disable_tma", Attribute::boolean(true));
    Builder::InsertionGuard G(B);
    B.setInsertionPointToEnd(Loop->getBody());
    auto SrcIdx = indices(*Src, Ivs), DstIdx = indices(*Dst, Ivs);
    Value *SrcOK = guardOf(*Src, SrcIdx), *DstOK = guardOf(*Dst, DstIdx);
    auto Move = [&] {
      Value *V = B.createLoad(Src->Buffer, SrcIdx);
      B.createStore(convert(V, elemType(*Dst)), Dst->Buffer, DstIdx);
    };
    if (SrcOK && isOnChip(*Dst))
      return emitIfElse(SrcOK, Move, [&] {
        B.createStore(zeroOf(elemType(*Dst)), Dst->Buffer, DstIdx);
      });
    emitIf(conjunction(SrcOK, DstOK), Move);
    return true;
  }

  bool expandFill() {
    auto Dst = regionOf(0, "extent");
    if (!Dst)
      return false;
    Value *X = Op.getGroup(1).front();
    auto [Loop, Ivs] = makeLoop(*Dst);
    Builder::InsertionGuard G(B);
    B.setInsertionPointToEnd(Loop->getBody());
    auto Idx = indices(*Dst, Ivs);
    emitIf(guardOf(*Dst, Idx), [&] { B.createStore(X, Dst->Buffer, Idx); });
    return true;
  }

  bool expandAtomic() {
    auto Src = regionOf(1, "extent");
    if (!Src)
      return false;
    Region Dst = startsOf(0);
    auto Own = constExtent("dst_extent");
    auto Aligned = Own && nonUnit(*Own) == nonUnit(Src->Extent)
                       ? Own
                       : alignToRank(Src->Extent, Dst.Buffer->getType().rank());
    if (!Aligned || nonUnit(*Aligned) != nonUnit(Src->Extent))
      return unsupported("an atomic whose source region does not fit the "
                         "destination's rank");
    Dst.Extent = *Aligned;
    llvm::StringRef Kind = Op.getStringAttr("kind").value_or("add");
    llvm::StringRef Order = Op.getStringAttr("memory_order").value_or("");
    auto [Loop, Ivs] = makeLoop(*Src);
    Builder::InsertionGuard G(B);
    B.setInsertionPointToEnd(Loop->getBody());
    auto SrcIdx = indices(*Src, Ivs), DstIdx = indices(Dst, Ivs);
    Value *OK = conjunction(guardOf(*Src, SrcIdx), guardOf(Dst, DstIdx));
    emitIf(OK, [&] {
      Value *V = B.createLoad(Src->Buffer, SrcIdx);
      Operation *Atomic =
          B.createAtomic(Kind, Dst.Buffer, DstIdx, convert(V, elemType(Dst)));
      if (!Order.empty())
        Atomic->setAttr("memory_order", Attribute::string(Order));
    });
    return true;
  }

private:
  Operation &Op;
  DiagnosticEngine &Diags;
  Builder B;

  bool unsupported(const std::string &What) {
    Diags.report(Op.getLoc(), diag::err_lowering_unsupported)
        << ("'" + Op.getName() + "'").str() << What;
    return false;
  }

  /// The attribute's extent when every entry is a positive constant (a
  /// whole-buffer destination of symbolic shape has none).
  std::optional<std::vector<int64_t>> constExtent(llvm::StringRef Attr) {
    const Attribute *A = Op.getAttr(Attr);
    if (!A || !A->isArray())
      return std::nullopt;
    std::vector<int64_t> E;
    for (const Attribute &X : A->getArray()) {
      if (!X.isInt() || X.getInt() < 1)
        return std::nullopt;
      E.push_back(X.getInt());
    }
    return E;
  }

  Region startsOf(unsigned Group) {
    llvm::ArrayRef<Value *> G = Op.getGroup(Group);
    return Region{G.front(), {G.begin() + 1, G.end()}, {}};
  }

  std::optional<Region> regionOf(unsigned Group, llvm::StringRef ExtentAttr) {
    Region R = startsOf(Group);
    const Attribute *A = Op.getAttr(ExtentAttr);
    if (!A || !A->isArray())
      return unsupported("a region without an extent"), std::nullopt;
    for (const Attribute &E : A->getArray()) {
      if (!E.isInt() || E.getInt() < 1) {
        std::string What =
            E.isString() ? "'" + E.getString().str() + "'" : E.str();
        unsupported("a region of symbolic or unknown extent " + What);
        return std::nullopt;
      }
      R.Extent.push_back(E.getInt());
    }
    if (R.Extent.size() != R.Buffer->getType().rank())
      return unsupported("a region whose extent does not match its buffer"),
             std::nullopt;
    return R;
  }

  static DType elemType(const Region &R) {
    return R.Buffer->getType().getDType();
  }
  static bool isOnChip(const Region &R) {
    return R.Buffer->getType().getScope() != Scope::Global;
  }

  Value *zeroOf(DType T) {
    if (T == DType::Bool)
      return B.createConstBool(false);
    return isFloat(T) ? B.createConstFloat(0.0, T) : B.createConstInt(0, T);
  }

  Value *convert(Value *V, DType T) {
    return V->getType().getDType() == T ? V : B.createCast(V, T);
  }

  /// The loop over the non-1 extents of R (one iteration over the last dim
  /// when every extent is 1).
  std::pair<Operation *, std::vector<Value *>> makeLoop(const Region &R) {
    std::vector<int64_t> Extents = nonUnit(R.Extent);
    if (Extents.empty())
      Extents.push_back(1);
    static const char *const Names[] = {"i", "j", "k", "l", "m", "n"};
    std::vector<std::string> IVNames;
    for (size_t D = 0; D != Extents.size(); ++D)
      IVNames.push_back(D < 6 ? Names[D] : "i" + std::to_string(D));
    Operation *Loop = B.createParallel(Extents, IVNames);
    return {Loop, Loop->getBody().getArguments()};
  }

  /// Start + loop variable per non-1 dim, start alone per size-1 dim; the
  /// loop variables are matched to the non-1 dims in order.
  std::vector<Value *> indices(const Region &R, llvm::ArrayRef<Value *> Ivs) {
    unsigned NonUnit = nonUnit(R.Extent).size(), Next = 0;
    std::vector<Value *> Idx;
    for (unsigned D = 0; D != R.Extent.size(); ++D) {
      Value *Start = R.Starts.empty() ? nullptr : R.Starts[D];
      bool Iterates =
          R.Extent[D] != 1 || (NonUnit == 0 && D + 1 == R.Extent.size());
      Value *Iv = Iterates ? Ivs[Next++] : nullptr;
      if (!Start || isConstantInt(Start, 0))
        Idx.push_back(Iv ? Iv : B.createConstInt(0));
      else
        Idx.push_back(Iv ? B.createBinary(OpKind::Add, Start, Iv) : Start);
    }
    return Idx;
  }

  /// The i1 "all indices of R are inside its buffer", or null when the
  /// bounds are provably fine (on-chip buffers are never guarded).
  Value *guardOf(const Region &R, llvm::ArrayRef<Value *> Idx) {
    if (isOnChip(R))
      return nullptr;
    Value *Cond = nullptr;
    llvm::ArrayRef<Dim> Dims = R.Buffer->getType().getDims();
    for (unsigned D = 0; D != Dims.size(); ++D) {
      if (provablyInside(R, D))
        continue;
      Value *Size = Dims[D].isStatic() ? B.createConstInt(Dims[D].getValue())
                                       : symbolValue(Dims[D].getSymbol());
      if (!Size)
        continue;
      Cond = conjunction(Cond, B.createCmp(CmpPred::Lt, Idx[D], Size));
    }
    return Cond;
  }

  bool provablyInside(const Region &R, unsigned D) {
    const Dim &Size = R.Buffer->getType().getDims()[D];
    if (!Size.isStatic())
      return false;
    Value *Start = R.Starts.empty() ? nullptr : R.Starts[D];
    if (!Start || matchConstantInt(Start))
      return true; // copy-extent checked constant regions
    int64_t E = R.Extent[D];
    return Size.getValue() % E == 0 && knownMultiple(Start) % E == 0;
  }

  Value *symbolValue(llvm::StringRef Name) {
    Operation *Func = Op.getParentOfKind(OpKind::Func);
    auto Symbols = Func ? Func->getAttr("symbols") : nullptr;
    auto Names = Symbols ? Symbols->getStringArray() : std::nullopt;
    if (!Names)
      return nullptr;
    for (unsigned I = 0; I != Names->size(); ++I)
      if ((*Names)[I] == Name && I < Func->getBody().getNumArguments())
        return Func->getBody().getArgument(I);
    return nullptr;
  }

  Value *conjunction(Value *A, Value *C) {
    if (!A || !C)
      return A ? A : C;
    return B.createBinary(OpKind::And, A, C);
  }

  void emitIf(Value *Cond, llvm::function_ref<void()> Body) {
    if (!Cond)
      return Body();
    Operation *If = B.createIf(Cond);
    Builder::InsertionGuard G(B);
    B.setInsertionPointToEnd(If->getBody(0));
    Body();
  }

  bool emitIfElse(Value *Cond, llvm::function_ref<void()> Then,
                  llvm::function_ref<void()> Else) {
    Operation *If = B.createIf(Cond, /*WithElse=*/true);
    Builder::InsertionGuard G(B);
    B.setInsertionPointToEnd(If->getBody(0));
    Then();
    B.setInsertionPointToEnd(If->getBody(1));
    Else();
    return true;
  }
};

bool isRegionAtomic(const Operation &Op) {
  return Op.is(OpKind::Atomic) && Op.getNumGroups() == 2 &&
         Op.getGroup(1).front()->getType().isBuffer() && !Op.hasAttr("lanes");
}

class ExpandTileOpsPass : public Pass {
public:
  llvm::StringRef name() const override { return "expand-tile-ops"; }
  llvm::StringRef description() const override {
    return "Rewrite T.copy, T.fill and region atomics as parallel loops";
  }

  bool run(Operation &Module, PassContext &Ctx) override {
    std::vector<Operation *> Work = Module.collect([](const Operation &Op) {
      return Op.is(OpKind::Copy) || Op.is(OpKind::Fill) || isRegionAtomic(Op);
    });
    bool OK = true;
    for (Operation *Op : Work) {
      Expander E(*Op, Ctx.Diags);
      bool Done = Op->is(OpKind::Copy)   ? E.expandCopy()
                  : Op->is(OpKind::Fill) ? E.expandFill()
                                         : E.expandAtomic();
      if (Done)
        Op->erase();
      OK &= Done;
    }
    return OK;
  }
};

} // namespace

std::unique_ptr<Pass> tilec::createExpandTileOpsPass() {
  return std::make_unique<ExpandTileOpsPass>();
}
