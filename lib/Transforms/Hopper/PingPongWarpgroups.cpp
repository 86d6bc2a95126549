//===- PingPongWarpgroups.cpp - Alternate two warpgroups' wgmmas ----------===//

#include "PingPongWarpgroups.h"
#include "tilec/IR/Builder.h"
#include "tilec/IR/ConstantMatch.h"
#include "llvm/ADT/SmallSet.h"

using namespace tilec;
using namespace tilec::ir;

namespace {

constexpr int64_t WarpgroupThreads = 128;
constexpr int64_t MaxBarrierId = 15;

class PingPong {
public:
  PingPong(Operation &Role, int64_t IdA, int64_t IdB)
      : Role(Role), IdA(IdA), IdB(IdB) {}

  /// Adds the turns around the issue run of the role's first suitable loop.
  bool run() {
    for (Operation &Op : Role.getBody())
      if (Op.is(OpKind::For) && findIssueRun(Op)) {
        addTurns(Op);
        return true;
      }
    return false;
  }

private:
  Operation &Role;
  int64_t IdA, IdB;
  Operation *First = nullptr, *Last = nullptr;

  /// The body's wgmma issue run: first wgmma_fence to the last
  /// wgmma_commit (the second) before its only wgmma_wait {pending = 1}.
  bool findIssueRun(Operation &Loop) {
    if (!isConstantInt(Loop.getOperand(2), 1))
      return false;
    Operation *Wait = nullptr;
    int Waits = 0, Commits = 0;
    for (Operation &Op : Loop.getBody()) {
      if (Op.is(OpKind::WgmmaWait) && Op.getIntAttr("pending") == 1) {
        Wait = &Op;
        ++Waits;
      }
      if (!Wait && Op.is(OpKind::WgmmaFence) && !First)
        First = &Op;
      if (!Wait && Op.is(OpKind::WgmmaCommit)) {
        Last = &Op;
        ++Commits;
      }
    }
    // Two groups: overlap-wgmma-pair's rotation (a GEMM main loop keeps
    // one group in flight and its warpgroups in step).
    return Waits == 1 && Commits == 2 && First;
  }

  Value *inFirstWarpgroup(Builder &B) {
    std::vector<int64_t> Range = *Role.getIntArrayAttr("thread_range");
    return B.createCmp(CmpPred::Lt, B.createThreadId(0),
                       B.createConstInt(Range[0] + WarpgroupThreads));
  }

  static void barrier(Builder &B, int64_t Id, bool Arrive) {
    std::vector<NamedAttribute> Attrs = {
        {"id", Attribute::integer(Id)},
        {"count", Attribute::integer(2 * WarpgroupThreads)}};
    if (Arrive)
      Attrs.push_back({"arrive", Attribute::boolean(true)});
    B.create(OpKind::Barrier, {}, {}, {}, Attrs);
  }

  /// if wg == 0 { Then } else { Else }, each a barrier.
  Operation *split(Builder &B, Value *First0, int64_t Then, int64_t Else,
                   bool Arrive) {
    Operation *If = B.createIf(First0, /*WithElse=*/true);
    Builder T(If->getBody(0)), E(If->getBody(1));
    T.setLoc(B.getLoc());
    E.setLoc(B.getLoc());
    barrier(T, Then, Arrive);
    barrier(E, Else, Arrive);
    return If;
  }

  void addTurns(Operation &Loop) {
    Builder B;
    B.setLoc(Loop.getLoc());
    B.setInsertionPoint(&Loop);
    Value *Lo = Loop.getOperand(0), *Hi = Loop.getOperand(1);
    Value *Runs = B.createCmp(CmpPred::Lt, Lo, Hi);
    Value *Second = B.createUnary(OpKind::Not, inFirstWarpgroup(B));
    Builder Start = B;
    Start.setInsertionPointToEnd(
        B.createIf(B.createBinary(OpKind::And, Second, Runs))->getBody());
    barrier(Start, IdA, /*Arrive=*/true);

    B.setInsertionPoint(First);
    split(B, inFirstWarpgroup(B), IdA, IdB, /*Arrive=*/false);
    B.setInsertionPointAfter(Last);
    Value *IV = Loop.getBody().getArgument(0);
    Value *More = B.createCmp(
        CmpPred::Lt, B.createBinary(OpKind::Add, IV, B.createConstInt(1)), Hi);
    Operation *Pass = split(B, inFirstWarpgroup(B), IdB, IdA, /*Arrive=*/true);
    // Warpgroup 1's last arrival would find no wait.
    Operation &Arrive1 = Pass->getBody(1).front();
    Builder Guard(Pass->getBody(1));
    Guard.setLoc(Loop.getLoc());
    Arrive1.moveToEnd(Guard.createIf(More)->getBody());
  }
};

/// The lowest barrier ids the kernel leaves free (id 0 is __syncthreads).
std::vector<int64_t> freeBarrierIds(Operation &Kernel, unsigned N) {
  llvm::SmallSet<int64_t, 16> Used;
  Kernel.walk([&](Operation &Op) {
    if (Op.is(OpKind::Barrier))
      if (auto Id = Op.getIntAttr("id"))
        Used.insert(*Id);
  });
  std::vector<int64_t> Ids;
  for (int64_t Id = 1; Id <= MaxBarrierId && Ids.size() < N; ++Id)
    if (!Used.count(Id))
      Ids.push_back(Id);
  return Ids;
}

/// A role of two warpgroups without named barriers of its own.
bool isTwoWarpgroupRole(const Operation &Op) {
  if (!Op.is(OpKind::If) || Op.getNumRegions() != 1)
    return false;
  auto Range = Op.getIntArrayAttr("thread_range");
  if (!Range || Range->size() != 2 || (*Range)[1] != 2 * WarpgroupThreads ||
      (*Range)[0] % WarpgroupThreads)
    return false;
  bool Named = false;
  Op.walk([&](const Operation &Inner) {
    Named |= Inner.is(OpKind::Barrier) && Inner.hasAttr("id");
  });
  return !Named;
}

class PingPongWarpgroupsPass : public Pass {
public:
  llvm::StringRef name() const override { return "pingpong-warpgroups"; }
  llvm::StringRef description() const override {
    return "Make two consumer warpgroups take turns issuing their wgmmas "
           "(named barriers), so that one's softmax runs with the other's "
           "gemms";
  }

  bool run(Operation &Module, PassContext &) override {
    std::vector<Operation *> Roles = Module.collect(isTwoWarpgroupRole);
    for (Operation *Role : Roles) {
      std::vector<int64_t> Ids =
          freeBarrierIds(*Role->getParentOfKind(OpKind::Kernel), 3);
      // One id stays free for insert-barriers' barrier of the role.
      if (Ids.size() == 3)
        PingPong(*Role, Ids[0], Ids[1]).run();
    }
    return true;
  }
};

} // namespace

std::unique_ptr<Pass> tilec::createPingPongWarpgroupsPass() {
  return std::make_unique<PingPongWarpgroupsPass>();
}
