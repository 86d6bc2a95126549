//===- ApplySharedLayouts.cpp - Swizzled shared-memory buffers ------------===//

#include "ApplySharedLayouts.h"
#include "IndexExprToIR.h"
#include "tilec/IR/Builder.h"
#include "tilec/Layout/LayoutParser.h"
#include "tilec/Layout/Simplify.h"
#include "tilec/Layout/Swizzle.h"
#include "tilec/Layout/WgmmaLayouts.h"
#include "tilec/Support/Diagnostics.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringSwitch.h"
#include <map>

using namespace tilec;
using namespace tilec::ir;
using layout::Layout;

/// Enumeration limit of the vcopy check.
static constexpr int64_t CheckLimit = int64_t(1) << 21;

std::optional<Layout> tilec::sharedLayoutFromText(llvm::StringRef Text,
                                                  int64_t Rows, int64_t Cols,
                                                  int64_t ElemBits) {
  llvm::StringRef Name = Text.split('(').first;
  if (!Text.endswith(")") || ElemBits < 4 || 128 % ElemBits != 0)
    return std::nullopt;
  if (Name == "make_swizzled_layout" || Name == "make_wgmma_swizzled_layout")
    return layout::makeGemmABLayout(Rows, Cols, ElemBits, /*KInner=*/true);
  if (Name == "make_padded_layout")
    return layout::makeGemmABLayoutPadded(Rows, Cols, ElemBits);
  if (Name == "make_wgmma_layout") {
    auto W = layout::parseWgmmaLayoutText(Text, Rows, Cols, ElemBits);
    return W ? std::optional<Layout>(W->layout()) : std::nullopt;
  }
  int64_t W = llvm::StringSwitch<int64_t>(Name)
                  .Case("make_full_bank_swizzled_layout", 8)
                  .Case("make_half_bank_swizzled_layout", 4)
                  .Case("make_quarter_bank_swizzled_layout", 2)
                  .Default(0);
  int64_t Vec = 128 / ElemBits;
  if (!W || (Rows % 8 != 0 && Rows != 4) || Cols % (Vec * W) != 0)
    return std::nullopt;
  if (W == 8)
    return layout::makeFullBankSwizzleLayout(Rows, Cols, ElemBits);
  if (W == 4)
    return layout::makeHalfBankSwizzleLayout(Rows, Cols, ElemBits);
  return layout::makeQuarterBankSwizzleLayout(Rows, Cols, ElemBits);
}

std::optional<Layout> tilec::userSharedLayout(llvm::StringRef Text,
                                              llvm::ArrayRef<int64_t> Shape,
                                              std::string &Why) {
  auto L = layout::parseLayout(Text, Why);
  if (!L)
    return std::nullopt;
  llvm::ArrayRef<int64_t> In = L->getInputShape();
  if (In.size() > Shape.size() || Shape.take_back(In.size()) != In) {
    Why = "its input shape does not match the buffer";
    return std::nullopt;
  }
  auto Injective = L->isInjective();
  if (!Injective) {
    Why = "it is too large to check that it is injective";
    return std::nullopt;
  }
  if (!*Injective) {
    Why = "it is not injective: two elements would share an address";
    return std::nullopt;
  }
  if (In.size() == Shape.size())
    return L;
  return L->expand(Shape.drop_back(In.size()));
}

static int64_t flatOutput(const Layout &L, llvm::ArrayRef<int64_t> Idx) {
  auto Out = L.forward(Idx);
  if (!Out)
    return -1;
  int64_t Flat = 0;
  for (unsigned D = 0; D != Out->size(); ++D)
    Flat = Flat * L.getOutputShape()[D] + (*Out)[D];
  return Flat;
}

bool tilec::keepsRuns(const Layout &L, int64_t V) {
  llvm::ArrayRef<int64_t> Shape = L.getInputShape();
  if (Shape.back() % V != 0 || layout::shapeSize(Shape) > CheckLimit)
    return false;
  bool Ok = true;
  layout::forEachIndex(Shape, [&](llvm::ArrayRef<int64_t> Idx) {
    if (!Ok || Idx.back() % V != 0)
      return;
    int64_t Base = flatOutput(L, Idx);
    layout::Indices Next(Idx.begin(), Idx.end());
    Ok = Base >= 0 && Base % V == 0;
    for (int64_t K = 1; Ok && K < V; ++K) {
      Next.back() = Idx.back() + K;
      Ok = flatOutput(L, Next) == Base + K;
    }
  });
  return Ok;
}

int64_t tilec::widestKeptRun(const Layout &L, int64_t MaxV) {
  int64_t V = 1;
  while (V * 2 <= MaxV && keepsRuns(L, V * 2))
    V *= 2;
  return V;
}

namespace {

bool isElementAccess(const Operation &Op) {
  return Op.is(OpKind::Load) || Op.is(OpKind::Store) || Op.is(OpKind::VCopy) ||
         Op.is(OpKind::CpAsync) || Op.is(OpKind::Ldmatrix) ||
         Op.is(OpKind::Stmatrix) || Op.is(OpKind::Wgmma) ||
         Op.is(OpKind::TmaLoad) ||
         (Op.is(OpKind::Atomic) &&
          (!Op.getGroup(1).front()->getType().isBuffer() ||
           Op.hasAttr("lanes")));
}

/// Elements one vcopy, cp_async or ldmatrix row (16 bytes) moves.
int64_t copiedElements(const Operation &Op, const Value *Buf) {
  unsigned Bits = bitWidth(Buf->getType().getDType());
  if (Op.is(OpKind::Ldmatrix) || Op.is(OpKind::Stmatrix))
    return std::max<int64_t>(1, 128 / Bits);
  if (!Op.is(OpKind::CpAsync))
    return Op.getIntAttr("lanes").value_or(1);
  return std::max<int64_t>(1, Op.getIntAttr("bytes").value_or(1) * 8 / Bits);
}

bool isUserLayoutText(llvm::StringRef Text) {
  return Text.startswith("Layout(") || Text.startswith("Fragment(");
}

/// A T.Layout written by the user (a T.Fragment is a register layout).
std::optional<Layout> userLayout(const Value *Buf, llvm::StringRef Text,
                                 std::string &Why) {
  auto Shape = Buf->getType().getStaticShape();
  if (Text.startswith("Fragment("))
    Why = "a T.Fragment lays out registers; a shared buffer takes a "
          "T.Layout";
  else if (!Shape)
    Why = "the buffer has no static shape";
  else
    return userSharedLayout(Text, *Shape, Why);
  return std::nullopt;
}

/// A swizzle constructor, e.g. `make_swizzled_layout(S)`.
std::optional<Layout> constructorLayout(const Value *Buf, llvm::StringRef Text,
                                        std::string &Why) {
  const Type &T = Buf->getType();
  auto Shape = T.getStaticShape();
  if (!Shape || Shape->size() < 2) {
    Why = "the layout needs a static shape of rank 2 or more";
    return std::nullopt;
  }
  int64_t Rows = (*Shape)[Shape->size() - 2], Cols = Shape->back();
  auto L = sharedLayoutFromText(Text, Rows, Cols, bitWidth(T.getDType()));
  if (!L) {
    Why = "'" + Text.str() + "' is not a swizzle the compiler can apply to " +
          "a [" + std::to_string(Rows) + ", " + std::to_string(Cols) +
          "] tile of " + tileLangName(T.getDType()).str();
    return std::nullopt;
  }
  if (Shape->size() == 2)
    return L;
  return L->expand(llvm::ArrayRef<int64_t>(*Shape).drop_back(2));
}

class SharedLayoutApplier {
public:
  SharedLayoutApplier(Operation &Annot, DiagnosticEngine &Diags)
      : Annot(Annot), Buf(Annot.getOperand(0)), Diags(Diags) {}

  bool run() {
    std::string Why;
    llvm::StringRef Text = Annot.getStringAttr("layout").value_or("");
    bool User = isUserLayoutText(Text);
    auto L = annotatedSharedLayout(Buf, Text, Why);
    if (!L && User) {
      Diags.report(Annot.getLoc(), diag::err_bad_layout_annotation)
          << "cannot use '" + Text.str() +
                 "' as the layout of shared buffer '" +
                 Buf->getNameHint().str() + "': " + Why;
      return false;
    }
    if (!L) {
      Diags.report(Annot.getLoc(), diag::warn_shared_layout_not_applied)
          << Buf->getNameHint() << Why;
      Annot.erase();
      return true;
    }
    Annot.erase();
    // A view (T.view / T.reshape) reads the bytes in its own shape, not
    // through the source's layout.
    for (const Use &U : Buf->getUses())
      if (!isElementAccess(*U.User) && !U.User->is(OpKind::View)) {
        Diags.report(U.User->getLoc(), diag::err_lowering_unsupported)
            << "the swizzled shared buffer '" + Buf->getNameHint().str() + "'"
            << "'" + U.User->getName().str() +
                   "' is still a tile operator here; lower it first";
        return false;
      }
    if (!vcopiesStayContiguous(*L))
      return false;
    llvm::SetVector<Operation *> Users;
    for (const Use &U : Buf->getUses())
      if (!U.User->is(OpKind::View))
        Users.insert(U.User);
    for (Operation *User : Users)
      // Last group first: rewriting a group shifts only the later ones.
      for (unsigned G = User->getNumGroups(); G-- > 0;)
        if (User->getGroup(G).front() == Buf)
          remapThroughLayout(*User, G, *L);
    Buf->setType(Type::buffer(Scope::Shared,
                              {Dim(layout::shapeSize(L->getOutputShape()))},
                              Buf->getType().getDType()));
    return true;
  }

private:
  Operation &Annot;
  Value *Buf;
  DiagnosticEngine &Diags;

  /// The library's swizzles permute whole 16-byte chunks and pad by 16
  /// bytes, so an aligned vcopy (at most 16 bytes) stays contiguous; a user
  /// layout may not (layout-inference narrows the vector copies of T.copy
  /// to what it keeps, see widestKeptRun).
  /// keepsRuns enumerates the whole buffer; a tensor-core operand has
  /// dozens of ldmatrix uses of one width, so each width is checked once.
  bool vcopiesStayContiguous(const Layout &L) {
    std::map<int64_t, bool> Kept;
    auto KeepsRuns = [&](int64_t V) {
      auto [It, New] = Kept.try_emplace(V, false);
      if (New)
        It->second = keepsRuns(L, V);
      return It->second;
    };
    for (const Use &U : Buf->getUses())
      if ((U.User->is(OpKind::VCopy) || U.User->is(OpKind::CpAsync) ||
           U.User->is(OpKind::Ldmatrix) || U.User->is(OpKind::Stmatrix) ||
           U.User->hasAttr("lanes")) &&
          !KeepsRuns(copiedElements(*U.User, Buf))) {
        Diags.report(U.User->getLoc(), diag::err_lowering_unsupported)
            << "this vector copy of '" + Buf->getNameHint().str() + "'"
            << "its layout splits the copied run of elements";
        return false;
      }
    return true;
  }
};

/// `annotate_layout %G {layout = "Layout(...)"}` of a global buffer (a
/// parameter or workspace): every access of the annotating kernel goes to
/// the element's place under the layout, the same buffer reindexed. The
/// layout must permute the tensor's elements (its output is as large as
/// the tensor, so no access leaves it).
class GlobalLayoutApplier {
public:
  GlobalLayoutApplier(Operation &Annot, DiagnosticEngine &Diags)
      : Annot(Annot), Buf(Annot.getOperand(0)),
        Kernel(Annot.getParentOfKind(OpKind::Kernel)), Diags(Diags) {}

  bool run() {
    std::string Why;
    llvm::StringRef Text = Annot.getStringAttr("layout").value_or("");
    auto L = permutation(Text, Why);
    if (!L) {
      Diags.report(Annot.getLoc(), diag::err_bad_layout_annotation)
          << "cannot use '" + Text.str() +
                 "' as the layout of global buffer '" +
                 Buf->getNameHint().str() + "': " + Why;
      return false;
    }
    Annot.erase();
    llvm::SetVector<Operation *> Users;
    for (const Use &U : Buf->getUses())
      if (U.User->getParentOfKind(OpKind::Kernel) == Kernel)
        Users.insert(U.User);
    for (Operation *User : Users)
      if (!checkUser(*User, *L))
        return false;
    for (Operation *User : Users)
      for (unsigned G = User->getNumGroups(); G-- > 0;)
        if (User->getGroup(G).front() == Buf)
          remap(*User, G, *L);
    return true;
  }

private:
  Operation &Annot;
  Value *Buf;
  Operation *Kernel;
  DiagnosticEngine &Diags;

  std::optional<Layout> permutation(llvm::StringRef Text, std::string &Why) {
    auto Shape = Buf->getType().getStaticShape();
    if (!Kernel) {
      Why = "it is outside a kernel";
      return std::nullopt;
    }
    if (!Shape) {
      Why = "the buffer has no static shape";
      return std::nullopt;
    }
    auto L = layout::parseLayout(Text, Why);
    if (!L)
      return std::nullopt;
    if (L->getInputShape() != llvm::ArrayRef<int64_t>(*Shape)) {
      Why = "its input shape does not match the buffer";
      return std::nullopt;
    }
    if (layout::shapeSize(L->getOutputShape()) != layout::shapeSize(*Shape)) {
      Why = "it must permute the tensor's elements, but its output has " +
            std::to_string(layout::shapeSize(L->getOutputShape())) +
            " places for " + std::to_string(layout::shapeSize(*Shape)) +
            " elements";
      return std::nullopt;
    }
    // Checked where the tensor is small enough to enumerate; a larger one
    // is the program's responsibility, as in TileLang.
    if (!L->isInjective().value_or(true)) {
      Why = "it is not injective: two elements would share an address";
      return std::nullopt;
    }
    return L;
  }

  bool checkUser(Operation &User, const Layout &L) {
    if (!isElementAccess(User)) {
      Diags.report(User.getLoc(), diag::err_lowering_unsupported)
          << "the laid-out global buffer '" + Buf->getNameHint().str() + "'"
          << "'" + User.getName().str() +
                 "' is still a tile operator here; lower it first";
      return false;
    }
    int64_t V = copiedElements(User, Buf);
    if ((User.is(OpKind::VCopy) || User.is(OpKind::CpAsync) ||
         User.is(OpKind::Atomic)) &&
        V > 1 && !keepsRuns(L, V)) {
      Diags.report(User.getLoc(), diag::err_lowering_unsupported)
          << "this vector copy of '" + Buf->getNameHint().str() + "'"
          << "its layout splits the copied run of elements";
      return false;
    }
    return true;
  }

  /// The indices of group \p Group of \p User become those of the
  /// element's place: the layout's flat output, split over the buffer's
  /// dims.
  void remap(Operation &User, unsigned Group, const Layout &L) {
    IndexAtoms Atoms;
    std::vector<layout::IndexExpr> Idx;
    for (Value *I : User.getGroup(Group).drop_front())
      Idx.push_back(Atoms.toExpr(I));
    llvm::ArrayRef<int64_t> Out = L.getOutputShape();
    auto Parts = L.forwardExprs(Idx, Atoms.getExtents());
    layout::IndexExpr Flat = 0;
    for (unsigned D = 0; D != Parts.size(); ++D)
      Flat = Flat * Out[D] + Parts[D];
    std::vector<int64_t> Shape = *Buf->getType().getStaticShape();
    Builder B;
    B.setInsertionPoint(&User);
    B.setLoc(User.getLoc());
    std::vector<Value *> NewIdx(Shape.size());
    int64_t Stride = 1;
    for (unsigned D = Shape.size(); D-- > 0;) {
      layout::IndexExpr E = layout::floorDiv(Flat, Stride);
      if (D != 0)
        E = layout::floorMod(E, Shape[D]);
      NewIdx[D] = emitIndexExpr(B, layout::simplify(E, Atoms.getExtents()),
                                Atoms.getValues());
      Stride *= Shape[D];
    }
    unsigned Start = User.getGroupStart(Group) + 1;
    for (unsigned D = 0; D != NewIdx.size(); ++D)
      User.setOperand(Start + D, NewIdx[D]);
  }
};

/// `annotate_layout %G {layout = "permute_dims(p0, p1, ...)"}` (T.Layout
/// of a symbolic shape that reorders its dims) of a global buffer: the
/// annotating kernel's accesses go to a `view` of %G whose dim k is dim pk
/// of %G, at the indices reordered the same way; the memory holds the
/// tensor in the permuted dim order.
class DimPermutationApplier {
public:
  DimPermutationApplier(Operation &Annot, DiagnosticEngine &Diags)
      : Annot(Annot), Buf(Annot.getOperand(0)),
        Kernel(Annot.getParentOfKind(OpKind::Kernel)), Diags(Diags) {}

  static bool isPermutation(llvm::StringRef Text) {
    return Text.startswith("permute_dims(");
  }

  bool run() {
    std::string Why = parse();
    if (Why.empty() && !Kernel)
      Why = "it is outside a kernel";
    if (!Why.empty()) {
      Diags.report(Annot.getLoc(), diag::err_bad_layout_annotation)
          << "cannot use '" + Annot.getStringAttr("layout")->str() +
                 "' as the layout of global buffer '" +
                 Buf->getNameHint().str() + "': " + Why;
      return false;
    }
    Annot.erase();
    std::vector<Operation *> Users;
    for (const Use &U : Buf->getUses())
      if (U.User->getParentOfKind(OpKind::Kernel) == Kernel &&
          !llvm::is_contained(Users, U.User))
        Users.push_back(U.User);
    for (Operation *User : Users)
      if (!checkUser(*User))
        return false;
    Value *View = createView();
    for (Operation *User : Users)
      for (unsigned G = User->getNumGroups(); G-- > 0;)
        if (User->getGroup(G).front() == Buf)
          remap(*User, G, View);
    return true;
  }

private:
  Operation &Annot;
  Value *Buf;
  Operation *Kernel;
  DiagnosticEngine &Diags;
  std::vector<unsigned> Perm;

  /// Reads Perm; why it is not a permutation of the buffer's dims, or "".
  std::string parse() {
    llvm::StringRef Text = *Annot.getStringAttr("layout");
    Text = Text.drop_front(strlen("permute_dims(")).drop_back();
    llvm::SmallVector<llvm::StringRef, 4> Parts;
    Text.split(Parts, ", ");
    unsigned Rank = Buf->getType().rank();
    std::vector<bool> Seen(Rank, false);
    for (llvm::StringRef P : Parts) {
      unsigned D;
      if (P.getAsInteger(10, D) || D >= Rank || Seen[D])
        return "it is not a permutation of the buffer's " +
               std::to_string(Rank) + " dims";
      Seen[D] = true;
      Perm.push_back(D);
    }
    return Perm.size() == Rank
               ? ""
               : "it permutes " + std::to_string(Perm.size()) +
                     " dims, but the buffer has " + std::to_string(Rank);
  }

  /// Element accesses only (a TMA load's tensor map has the buffer's own
  /// dims); a run of several elements (vcopy, cp_async) stays contiguous
  /// only when the last dim stays last.
  bool checkUser(Operation &User) {
    if (!isElementAccess(User) || User.is(OpKind::TmaLoad)) {
      Diags.report(User.getLoc(), diag::err_lowering_unsupported)
          << "the laid-out global buffer '" + Buf->getNameHint().str() + "'"
          << "'" + User.getName().str() +
                 "' is still a tile operator here; lower it first";
      return false;
    }
    if (copiedElements(User, Buf) > 1 && Perm.back() != Perm.size() - 1) {
      Diags.report(User.getLoc(), diag::err_lowering_unsupported)
          << "this vector copy of '" + Buf->getNameHint().str() + "'"
          << "its layout moves the last dim, splitting the copied run";
      return false;
    }
    return true;
  }

  Value *createView() {
    llvm::ArrayRef<Dim> Dims = Buf->getType().getDims();
    std::vector<Dim> Permuted;
    for (unsigned D : Perm)
      Permuted.push_back(Dims[D]);
    Builder B;
    B.setInsertionPointToStart(Kernel->getBody());
    B.setLoc(Kernel->getLoc());
    return B.createView(
        Buf, Type::buffer(Scope::Global, Permuted, Buf->getType().getDType()),
        Buf->getNameHint().str() + "_permuted");
  }

  void remap(Operation &User, unsigned Group, Value *View) {
    llvm::ArrayRef<Value *> Idx = User.getGroup(Group).drop_front();
    std::vector<Value *> NewIdx;
    for (unsigned D : Perm)
      NewIdx.push_back(Idx[D]);
    unsigned Start = User.getGroupStart(Group);
    User.setOperand(Start, View);
    for (unsigned D = 0; D != NewIdx.size(); ++D)
      User.setOperand(Start + 1 + D, NewIdx[D]);
  }
};

class ApplySharedLayoutsPass : public Pass {
public:
  llvm::StringRef name() const override { return "apply-shared-layouts"; }
  llvm::StringRef description() const override {
    return "Apply the layout annotations of shared and global buffers to "
           "their accesses";
  }

  bool run(Operation &Module, PassContext &Ctx) override {
    return lowerEach(
        Module,
        [](Operation &Op) {
          if (!Op.is(OpKind::AnnotateLayout) ||
              !Op.getOperand(0)->getType().isBuffer())
            return false;
          Scope S = Op.getOperand(0)->getType().getScope();
          return S == Scope::Shared || S == Scope::Global;
        },
        [&](Operation &Op) {
          if (Op.getOperand(0)->getType().getScope() == Scope::Global &&
              DimPermutationApplier::isPermutation(
                  Op.getStringAttr("layout").value_or("")))
            return DimPermutationApplier(Op, Ctx.Diags).run();
          if (Op.getOperand(0)->getType().getScope() == Scope::Global)
            return GlobalLayoutApplier(Op, Ctx.Diags).run();
          return SharedLayoutApplier(Op, Ctx.Diags).run();
        });
  }
};

} // namespace

std::optional<Layout> tilec::annotatedSharedLayout(const Value *Buf,
                                                   llvm::StringRef Text,
                                                   std::string &Why) {
  return isUserLayoutText(Text) ? userLayout(Buf, Text, Why)
                                : constructorLayout(Buf, Text, Why);
}

std::unique_ptr<Pass> tilec::createApplySharedLayoutsPass() {
  return std::make_unique<ApplySharedLayoutsPass>();
}
