//===- InsertProxyFences.cpp - Generic writes before wgmma reads ----------===//

#include "InsertProxyFences.h"
#include "tilec/IR/Builder.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace tilec;
using namespace tilec::ir;

namespace {

/// Generic-proxy writes whose data may be unfenced at a program point.
struct State {
  /// Complete writes not yet followed by a fence.
  bool Unfenced = false;
  /// cp.async writes issued, complete at a later cp_async_wait.
  bool InFlight = false;

  State join(const State &O) const {
    return {Unfenced || O.Unfenced, InFlight || O.InFlight};
  }
  bool operator==(const State &O) const {
    return Unfenced == O.Unfenced && InFlight == O.InFlight;
  }
};

class KernelProxyFences {
public:
  explicit KernelProxyFences(Operation &Kernel) {
    Kernel.walk([&](Operation &Op) {
      if (Op.is(OpKind::BulkReduce))
        Operands.insert(Op.getGroup(1)[0]);
      if (!Op.is(OpKind::Wgmma))
        return;
      for (unsigned G = 1; G != 3; ++G)
        if (Op.getGroup(G)[0]->getType().getScope() == Scope::Shared)
          Operands.insert(Op.getGroup(G)[0]);
    });
    if (Operands.empty())
      return;
    walk(Kernel.getBody(), State());
    keepFencesNextToWgmma(Kernel);
  }

private:
  /// The shared buffers the async proxy reads: wgmma operands and
  /// bulk_reduce sources.
  llvm::SmallPtrSet<const Value *, 8> Operands;
  llvm::SmallPtrSet<const Operation *, 8> Fenced;

  /// A generic write of a wgmma operand or bulk_reduce source (the first group
  /// of a store, vcopy, cp_async or element atomic is its destination).
  bool writesOperand(const Operation &Op) const {
    if (Op.is(OpKind::Store))
      return Operands.count(Op.getGroup(1)[0]);
    if (Op.is(OpKind::VCopy) || Op.is(OpKind::CpAsync) ||
        Op.is(OpKind::Stmatrix) || Op.is(OpKind::Atomic) ||
        Op.is(OpKind::CallExtern))
      for (unsigned G = 0; G != Op.getNumGroups(); ++G)
        if (Operands.count(Op.getGroup(G)[0]) &&
            (G == 0 || Op.is(OpKind::CallExtern)))
          return true;
    return false;
  }

  /// insert-barriers put its barrier right before the first wgmma, after
  /// lower-wgmma's wgmma_fence: the fence goes after the barrier (and the
  /// proxy fence), so that it orders everything the barrier published.
  static void keepFencesNextToWgmma(Operation &Kernel) {
    std::vector<Operation *> Fences = Kernel.collect(OpKind::WgmmaFence);
    for (Operation *Fence : Fences) {
      Operation *Next = Fence->getNextNode();
      while (Next &&
             (Next->is(OpKind::FenceProxyAsync) || Next->is(OpKind::Barrier))) {
        Fence->moveAfter(Next);
        Next = Fence->getNextNode();
      }
    }
  }

  void fenceBefore(Operation &Op) {
    if (!Fenced.insert(&Op).second)
      return;
    Builder B;
    B.setInsertionPoint(&Op);
    B.setLoc(Op.getLoc());
    B.create(OpKind::FenceProxyAsync, {}, {}, {});
  }

  State walk(Block &Body, State S) {
    std::vector<Operation *> Ops;
    for (Operation &Op : Body)
      Ops.push_back(&Op);
    for (Operation *Op : Ops)
      S = step(*Op, S);
    return S;
  }

  State step(Operation &Op, State S) {
    if (Op.is(OpKind::For) || Op.is(OpKind::While)) {
      // The state at the loop head is the join of entry and back edge.
      State Head = S;
      for (int Pass = 0; Pass != 2; ++Pass)
        for (unsigned R = 0; R != Op.getNumRegions(); ++R)
          Head = Head.join(walk(Op.getBody(R), Head));
      return Head;
    }
    if (Op.is(OpKind::If)) {
      State Out = Op.getNumRegions() == 2 ? State() : S;
      for (unsigned R = 0; R != Op.getNumRegions(); ++R)
        Out = Out.join(walk(Op.getBody(R), S));
      return Out;
    }
    if (Op.is(OpKind::CpAsyncWait))
      S.Unfenced |= S.InFlight;
    if (Op.is(OpKind::CpAsync) && writesOperand(Op))
      S.InFlight = true;
    else if (writesOperand(Op))
      S.Unfenced = true;
    // Block and named barriers, and mbarrier arrivals (a role handing its
    // tiles to another), publish the writes before them.
    bool Publishes = Op.is(OpKind::Barrier) || Op.is(OpKind::MBarrierArrive);
    bool AsyncRead = Op.is(OpKind::Wgmma) || Op.is(OpKind::BulkReduce);
    if ((Publishes || AsyncRead) && S.Unfenced) {
      fenceBefore(Op);
      S.Unfenced = false;
    }
    return S;
  }
};

class InsertProxyFencesPass : public Pass {
public:
  llvm::StringRef name() const override { return "insert-proxy-fences"; }
  llvm::StringRef description() const override {
    return "fence.proxy.async between generic writes of wgmma operands and "
           "the barriers publishing them";
  }

  bool run(Operation &Module, PassContext &) override {
    std::vector<Operation *> Kernels = Module.collect(OpKind::Kernel);
    for (Operation *Kernel : Kernels)
      KernelProxyFences{*Kernel};
    return true;
  }
};

} // namespace

std::unique_ptr<Pass> tilec::createInsertProxyFencesPass() {
  return std::make_unique<InsertProxyFencesPass>();
}
