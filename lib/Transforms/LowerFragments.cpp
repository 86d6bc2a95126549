//===- LowerFragments.cpp - Fragments become per-thread registers ---------===//

#include "LowerFragments.h"
#include "IndexExprToIR.h"
#include "tilec/IR/Builder.h"
#include "tilec/Layout/LayoutParser.h"
#include "tilec/Support/Diagnostics.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace tilec;
using namespace tilec::ir;

namespace {

/// Ops whose buffer groups are single-element accesses this pass rewrites.
bool isElementAccess(const Operation &Op) {
  return Op.is(OpKind::Load) || Op.is(OpKind::Store) || Op.is(OpKind::VCopy) ||
         (Op.is(OpKind::Atomic) &&
          !Op.getGroup(1).front()->getType().isBuffer());
}

class FragmentLowering {
public:
  FragmentLowering(Operation &Alloc, DiagnosticEngine &Diags)
      : Alloc(Alloc), Buf(Alloc.getResult()), Diags(Diags) {}

  bool run() {
    if (!allUsesMappable())
      return true;
    std::string Error;
    llvm::StringRef Text = Alloc.getStringAttr("layout").value_or("");
    auto L = layout::parseFragment(Text, Error);
    auto Shape = Buf->getType().getStaticShape();
    if (!L || !Shape || L->getInputShape() != llvm::ArrayRef<int64_t>(*Shape)) {
      Diags.report(Alloc.getLoc(), diag::err_lowering_unsupported)
          << "fragment '" + Buf->getNameHint().str() + "'"
          << "it has no valid 'layout' (" + Error +
                 "); run layout-inference first";
      return false;
    }
    llvm::SmallPtrSet<Operation *, 16> Users;
    for (const Use &U : Buf->getUses())
      Users.insert(U.User);
    for (Operation *User : Users)
      // Last group first: rewriting a group shifts only the later ones.
      for (unsigned G = User->getNumGroups(); G-- > 0;)
        if (!User->is(OpKind::Gemm) && User->getGroup(G).front() == Buf)
          remapThroughLayout(*User, G, *L);
    Buf->setType(Type::buffer(Scope::Local, {Dim(L->getRegisterCount())},
                              Buf->getType().getDType()));
    Alloc.removeAttr("layout");
    return true;
  }

private:
  Operation &Alloc;
  Value *Buf;
  DiagnosticEngine &Diags;

  /// Element accesses are remapped; a tensor-core gemm takes the whole
  /// register array (lower-mma reads the layout back from its plan).
  bool allUsesMappable() {
    return llvm::all_of(Buf->getUses(), [](const Use &U) {
      return isElementAccess(*U.User) ||
             (U.User->is(OpKind::Gemm) && U.User->getAttr("mma_warps"));
    });
  }
};

class LowerFragmentsPass : public Pass {
public:
  llvm::StringRef name() const override { return "lower-fragments"; }
  llvm::StringRef description() const override {
    return "Turn fragment buffers into per-thread register arrays";
  }

  bool run(Operation &Module, PassContext &Ctx) override {
    return lowerEach(
        Module,
        [](Operation &Op) {
          return Op.is(OpKind::Alloc) &&
                 Op.getResult()->getType().getScope() == Scope::Fragment;
        },
        [&](Operation &Alloc) {
          return FragmentLowering(Alloc, Ctx.Diags).run();
        });
  }
};

} // namespace

std::unique_ptr<Pass> tilec::createLowerFragmentsPass() {
  return std::make_unique<LowerFragmentsPass>();
}
