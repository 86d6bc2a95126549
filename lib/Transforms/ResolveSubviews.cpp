//===- ResolveSubviews.cpp - Gemm operand regions become accesses ---------===//

#include "ResolveSubviews.h"
#include "tilec/IR/Builder.h"
#include "tilec/Support/Diagnostics.h"

using namespace tilec;
using namespace tilec::ir;

namespace {

/// Rewrites group \p G of \p User, an access of \p Sub, onto its source.
void resolveGroup(Operation &User, unsigned G, Operation &Sub) {
  llvm::ArrayRef<Value *> Group = User.getGroup(G);
  std::vector<Value *> Starts(Sub.getOperands().begin() + 1,
                              Sub.getOperands().end());
  Builder B;
  B.setInsertionPoint(&User);
  B.setLoc(User.getLoc());
  size_t N = Starts.size();
  for (unsigned D = 0; D != 2; ++D)
    Starts[N - 2 + D] =
        B.createBinary(OpKind::Add, Starts[N - 2 + D], Group[1 + D]);
  std::vector<Value *> Operands(User.getOperands().begin(),
                                User.getOperands().end());
  std::vector<unsigned> Segments(User.getSegments().begin(),
                                 User.getSegments().end());
  unsigned First = User.getGroupStart(G);
  Operands.erase(Operands.begin() + First,
                 Operands.begin() + First + Group.size());
  Starts.insert(Starts.begin(), Sub.getOperand(0));
  Operands.insert(Operands.begin() + First, Starts.begin(), Starts.end());
  Segments[G] = Starts.size();
  User.setOperands(Operands, Segments);
}

bool resolve(Operation &Sub, DiagnosticEngine &Diags) {
  Value *Region = Sub.getResult();
  while (!Region->use_empty()) {
    Operation &User = *Region->getUses().front().User;
    unsigned G = 0;
    while (User.getGroup(G).front() != Region)
      ++G;
    if (User.getGroup(G).size() != 3) {
      Diags.report(User.getLoc(), diag::err_lowering_unsupported)
          << "'" + User.getName().str() + "' of the region '" +
                 Region->getNameHint().str() + "'"
          << "only element accesses of a T.gemm operand's region are "
             "supported";
      return false;
    }
    resolveGroup(User, G, Sub);
  }
  Sub.erase();
  return true;
}

class ResolveSubviewsPass : public Pass {
public:
  llvm::StringRef name() const override { return "resolve-subviews"; }
  llvm::StringRef description() const override {
    return "Turn accesses of T.gemm operand regions into accesses of their "
           "shared buffers";
  }

  bool run(Operation &Module, PassContext &Ctx) override {
    return lowerEach(
        Module, [](Operation &Op) { return Op.is(OpKind::Subview); },
        [&](Operation &Sub) { return resolve(Sub, Ctx.Diags); });
  }
};

} // namespace

std::unique_ptr<Pass> tilec::createResolveSubviewsPass() {
  return std::make_unique<ResolveSubviewsPass>();
}
