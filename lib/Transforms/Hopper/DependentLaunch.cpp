//===- DependentLaunch.cpp - Launch a kernel during the last ------------===//

#include "DependentLaunch.h"
#include "tilec/IR/Builder.h"

using namespace tilec;
using namespace tilec::ir;

namespace {

bool hasGridBarrier(const Operation &Kernel) {
  bool Found = false;
  Kernel.walk([&](const Operation &Op) {
    Found |= Op.is(OpKind::Barrier) && Op.getStringAttr("scope") == "grid";
  });
  return Found;
}

class DependentLaunchPass : public Pass {
public:
  llvm::StringRef name() const override { return "dependent-launch"; }
  llvm::StringRef description() const override {
    return "sm_90: each kernel waits for the grids before it at its start, "
           "so that it can be launched while they run";
  }

  bool run(Operation &Module, PassContext &) override {
    std::vector<Operation *> Kernels = Module.collect([](const Operation &Op) {
      return Op.is(OpKind::Kernel) && !hasGridBarrier(Op);
    });
    for (Operation *Kernel : Kernels) {
      Builder B(Kernel->getBody());
      B.setInsertionPointToStart(Kernel->getBody());
      B.setLoc(Kernel->getLoc());
      B.create(OpKind::GridDependency, {}, {}, {},
               {{"action", Attribute::string("wait")}});
      B.create(OpKind::GridDependency, {}, {}, {},
               {{"action", Attribute::string("launch_dependents")}});
    }
    return true;
  }
};

} // namespace

std::unique_ptr<Pass> tilec::createDependentLaunchPass() {
  return std::make_unique<DependentLaunchPass>();
}
