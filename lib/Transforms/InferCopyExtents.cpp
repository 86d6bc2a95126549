//===- InferCopyExtents.cpp - Complete the regions of T.copy --------------===//

#include "InferCopyExtents.h"
#include "tilec/IR/ConstantMatch.h"
#include "tilec/IR/Operation.h"
#include "tilec/Support/Diagnostics.h"

using namespace tilec;
using namespace tilec::ir;

namespace {

using Extent = std::vector<Attribute>;

bool isUnknown(const Attribute &A) { return A.isInt() && A.getInt() == -1; }
bool isOne(const Attribute &A) { return A.isInt() && A.getInt() == 1; }

bool isComplete(const Extent &E) {
  return llvm::none_of(E, [](const Attribute &A) { return isUnknown(A); });
}

std::string join(const Extent &E) {
  std::string S;
  for (size_t I = 0; I != E.size(); ++I) {
    S += I ? ", " : "";
    S += E[I].isString() ? E[I].getString().str()
                         : std::to_string(E[I].getInt());
  }
  return S;
}

std::string describe(const Extent &E) { return "[" + join(E) + "]"; }

/// \p From aligned to \p Rank dims: leading 1s dropped or added. Empty when
/// that is impossible.
std::optional<Extent> alignToRank(const Extent &From, unsigned Rank) {
  Extent E = From;
  while (E.size() > Rank && isOne(E.front()))
    E.erase(E.begin());
  if (E.size() > Rank)
    return std::nullopt;
  E.insert(E.begin(), Rank - E.size(), Attribute::integer(1));
  return E;
}

Extent withoutOnes(const Extent &E) {
  Extent Out;
  for (const Attribute &A : E)
    if (!isOne(A))
      Out.push_back(A);
  return Out;
}

class InferCopyExtentsPass : public Pass {
public:
  llvm::StringRef name() const override { return "copy-extent"; }
  llvm::StringRef description() const override {
    return "Infer the extents of T.copy regions and check their shapes";
  }

  bool run(Operation &Module, PassContext &Ctx) override {
    bool OK = true;
    Module.walk([&](Operation &Op) {
      if (Op.is(OpKind::Copy))
        OK &= inferCopy(Op, Ctx.Diags);
    });
    return OK;
  }

private:
  static Extent extentOf(const Operation &Op, llvm::StringRef Name) {
    const Attribute *A = Op.getAttr(Name);
    return A && A->isArray() ? A->getArray() : Extent();
  }

  bool inferCopy(Operation &Op, DiagnosticEngine &Diags) {
    Extent Src = extentOf(Op, "src_extent"), Dst = extentOf(Op, "dst_extent");
    unsigned SrcRank = Op.getGroup(0).front()->getType().rank();
    unsigned DstRank = Op.getGroup(1).front()->getType().rank();
    if (!isComplete(Src) && !isComplete(Dst)) {
      Diags.report(Op.getLoc(), diag::err_copy_unknown_extent);
      return false;
    }
    std::optional<Extent> NewSrc =
        isComplete(Src) ? Src : alignToRank(Dst, SrcRank);
    std::optional<Extent> NewDst =
        isComplete(Dst) ? Dst : alignToRank(Src, DstRank);
    if (!NewSrc || !NewDst || withoutOnes(*NewSrc) != withoutOnes(*NewDst)) {
      Diags.report(Op.getLoc(), diag::err_copy_shape_mismatch)
          << describe(Src) << describe(Dst);
      return false;
    }
    Op.setAttr("src_extent", Attribute::array(*NewSrc));
    Op.setAttr("dst_extent", Attribute::array(*NewDst));
    return checkInBounds(Op, 0, *NewSrc, Diags) &&
           checkInBounds(Op, 1, *NewDst, Diags);
  }

  /// A region of a statically shaped on-chip buffer must fit: each extent
  /// within its dim, and constant starts leave room for the extent. A
  /// global region may run past the end of its buffer (a partial tile: M =
  /// 16 rows under block_M = 128), as in TileLang, which clamps:
  /// expand-tile-ops guards those elements (zero-filled reads, skipped
  /// writes). It is an error only when a constant start is negative or
  /// past the end, so that no element is inside.
  bool checkInBounds(const Operation &Op, unsigned Group, const Extent &E,
                     DiagnosticEngine &Diags) {
    llvm::ArrayRef<Value *> G = Op.getGroup(Group);
    const Type &BufTy = G.front()->getType();
    bool Clamped = BufTy.getScope() == Scope::Global;
    for (unsigned D = 0; D != BufTy.rank() && D < E.size(); ++D) {
      const Dim &Size = BufTy.getDims()[D];
      if (!Size.isStatic() || !E[D].isInt())
        continue;
      std::optional<int64_t> Start = D + 1 < G.size()
                                         ? matchConstantInt(G[D + 1])
                                         : std::optional<int64_t>(0);
      int64_t Lo = Start.value_or(0);
      if (Clamped && Lo >= 0 && Lo < Size.getValue())
        continue;
      if (E[D].getInt() <= Size.getValue() && Lo >= 0 &&
          (!Start || Lo + E[D].getInt() <= Size.getValue()))
        continue;
      Diags.report(Op.getLoc(), diag::err_region_out_of_bounds)
          << join(E) << G.front()->getNameHint() << shapeOf(BufTy);
      return false;
    }
    return true;
  }

  static std::string shapeOf(const Type &T) {
    std::string S;
    for (const Dim &D : T.getDims()) {
      S += S.empty() ? "" : ", ";
      S += D.isStatic() ? std::to_string(D.getValue()) : D.getSymbol().str();
    }
    return S;
  }
};

} // namespace

std::unique_ptr<Pass> tilec::createInferCopyExtentsPass() {
  return std::make_unique<InferCopyExtentsPass>();
}
