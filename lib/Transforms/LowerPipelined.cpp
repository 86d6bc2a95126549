//===- LowerPipelined.cpp - T.Pipelined loops, CUDA-core version ----------===//

#include "LowerPipelined.h"
#include "tilec/IR/Operation.h"

using namespace tilec;
using namespace tilec::ir;

namespace {

class LowerPipelinedPass : public Pass {
public:
  llvm::StringRef name() const override { return "lower-pipelined"; }
  llvm::StringRef description() const override {
    return "Run T.Pipelined loops as serial loops (no stage overlap yet)";
  }

  bool run(Operation &Module, PassContext &) override {
    Module.walk([](Operation &Op) {
      if (!Op.is(OpKind::For) ||
          Op.getStringAttr("kind") != llvm::StringRef("pipelined"))
        return;
      Op.setAttr("kind", Attribute::string("serial"));
      for (llvm::StringRef Name : {"num_stages", "order", "stage"})
        Op.removeAttr(Name);
    });
    return true;
  }
};

} // namespace

std::unique_ptr<Pass> tilec::createLowerPipelinedPass() {
  return std::make_unique<LowerPipelinedPass>();
}
