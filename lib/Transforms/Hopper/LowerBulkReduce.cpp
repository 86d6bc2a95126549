//===- LowerBulkReduce.cpp - Shared tiles added to global in bulk ---------===//

#include "LowerBulkReduce.h"
#include "PipelineSchedule.h"
#include "tilec/IR/Builder.h"
#include "tilec/IR/ConstantMatch.h"
#include "tilec/Support/Diagnostics.h"

using namespace tilec;
using namespace tilec::ir;

namespace {

/// The engine reads and writes 16-byte aligned runs of 16-byte multiples.
constexpr int64_t BulkAlign = 16;
/// Bytes of padding after each row of a source tile (padRows).
constexpr int64_t RowPad = 32;

bool isRegionAtomic(const Operation &Op) {
  return Op.is(OpKind::Atomic) && Op.getNumGroups() == 2 &&
         Op.hasAttr("extent");
}

/// Whether \p Op (or an op nested in it) writes buffer \p Buf.
bool writes(Operation &Op, const Value *Buf) {
  bool Found = false;
  Op.walk([&](Operation &Inner) {
    for (unsigned G = 0; G != Inner.getNumGroups(); ++G) {
      llvm::ArrayRef<Value *> Group = Inner.getGroup(G);
      Found |= !Group.empty() && Group[0] == Buf && groupIsWritten(Inner, G);
    }
  });
  return Found;
}

/// Why the kernel's other accesses of \p G, or its synchronization, keep
/// the engine's unordered writes out; empty when nothing does.
std::string kernelObstacle(Operation &Kernel, const Value *G) {
  std::string Why;
  Kernel.walk([&](Operation &Op) {
    if (!Why.empty())
      return;
    if (Op.is(OpKind::Atomic) && Op.hasAttr("memory_order"))
      Why = "the kernel orders memory with an atomic's memory_order";
    else if (Op.is(OpKind::Barrier) && Op.getStringAttr("scope") == "grid")
      Why = "the kernel synchronizes the grid";
    else if (!Op.is(OpKind::Atomic) && llvm::is_contained(Op.getOperands(), G))
      Why = "the kernel accesses the destination other than by atomics";
  });
  return Why;
}

class BulkAtomic {
public:
  BulkAtomic(Operation &Op) : Op(Op) {}

  /// Empty when the atomic qualifies; else why not.
  std::string check() {
    Dst = Op.getGroup(0)[0];
    Src = Op.getGroup(1)[0];
    if (Op.getStringAttr("kind").value_or("add") != "add")
      return "only add has a bulk reduction here";
    if (Op.hasAttr("memory_order"))
      return "the atomic has a memory order";
    if (std::string Why = checkSource(); !Why.empty())
      return Why;
    if (std::string Why = checkDestination(); !Why.empty())
      return Why;
    Operation *Kernel = Op.getParentOfKind(OpKind::Kernel);
    auto Threads = Kernel->getIntArrayAttr("threads");
    if (!Threads || Threads->size() != 3 || (*Threads)[1] != 1 ||
        (*Threads)[2] != 1)
      return "the kernel's threads are not one-dimensional";
    NumThreads = (*Threads)[0];
    Operation *Parent = Op.getParentOp();
    if (Parent != Kernel && !Parent->is(OpKind::For))
      return "the atomic is not at the top of the kernel or of a loop";
    return kernelObstacle(*Kernel, Dst);
  }

  void rewrite() {
    padRows();
    emitRows();
    placeWaits();
    Op.erase();
  }

private:
  Operation &Op;
  Value *Dst = nullptr, *Src = nullptr;
  int64_t Rows = 0, Cols = 0, NumThreads = 0;
  unsigned RowDim = 0;
  Builder B;

  std::string checkSource() {
    const Type &T = Src->getType();
    if (T.getScope() != Scope::Shared || !Src->getDefiningOp() ||
        !Src->getDefiningOp()->is(OpKind::Alloc))
      return "the source is not a shared buffer of its own";
    if (T.getDType() != DType::Float32 || T.rank() != 2 ||
        !T.getDims()[0].isStatic() || !T.getDims()[1].isStatic())
      return "the source is not a static rank-2 float32 tile";
    if (Op.getGroup(1).size() != 1)
      return "the source is not the whole buffer";
    for (const Use &U : Src->getUses())
      if (U.User->is(OpKind::View) || U.User->is(OpKind::Subview) ||
          U.User->is(OpKind::AnnotateLayout))
        return "the source has a view or a layout annotation";
    Rows = T.getDims()[0].getValue();
    Cols = T.getDims()[1].getValue();
    if (Op.getIntArrayAttr("extent") != std::vector<int64_t>{Rows, Cols})
      return "the region is not the whole source";
    if (Cols * 4 % BulkAlign)
      return "a row is not a multiple of 16 bytes";
    return "";
  }

  std::string checkDestination() {
    const Type &T = Dst->getType();
    if (T.getScope() != Scope::Global || T.getDType() != DType::Float32)
      return "the destination is not a float32 global tensor";
    for (const Dim &D : T.getDims())
      if (!D.isStatic())
        return "the destination's shape is symbolic";
    auto Extent = Op.getIntArrayAttr("dst_extent");
    unsigned Rank = T.rank();
    if (!Extent || Extent->size() != Rank || Rank < 2 || Extent->back() != Cols)
      return "the region's rows do not run along the destination's last dim";
    RowDim = Rank;
    for (unsigned D = 0; D + 1 != Rank; ++D) {
      if ((*Extent)[D] == 1)
        continue;
      if ((*Extent)[D] != Rows || RowDim != Rank)
        return "the region is not a tile of the destination";
      RowDim = D;
    }
    if (RowDim == Rank && Rows != 1)
      return "the region is not a tile of the destination";
    if (RowDim == Rank)
      RowDim = Rank - 2;
    int64_t Last = T.getDims().back().getValue();
    auto Col0 = matchConstantInt(Op.getGroup(0).back());
    if (!Col0 || *Col0 < 0 || *Col0 + Cols > Last)
      return "the columns are not a constant range inside the destination";
    if (Last * 4 % BulkAlign || *Col0 * 4 % BulkAlign)
      return "the destination's rows are not 16-byte aligned";
    return "";
  }

  /// Rows padded by 32 bytes stay contiguous for the engine, and the
  /// eight rows a tensor-core accumulator's 8-byte stores touch at once
  /// (a quad of lanes per row) fall on different banks. Only when every
  /// use names its region (copies, fills, this atomic), so that no
  /// access sees the wider shape.
  void padRows() {
    for (const Use &U : Src->getUses()) {
      Operation *User = U.User;
      bool Region = (User->is(OpKind::Copy) && User->hasAttr("src_extent") &&
                     User->hasAttr("dst_extent")) ||
                    (User->is(OpKind::Fill) && User->hasAttr("extent")) ||
                    User == &Op;
      if (!Region)
        return;
    }
    Src->setType(
        Type::buffer(Scope::Shared, {Rows, Cols + RowPad / 4}, DType::Float32));
  }

  /// Thread t adds rows t, t + T, ...: one loop trip per T rows.
  void emitRows() {
    B.setInsertionPoint(&Op);
    B.setLoc(Op.getLoc());
    Value *Tid = B.createThreadId(0);
    if (Rows <= NumThreads)
      return emitRow(Tid);
    Value *Zero = B.createConstInt(0);
    Value *Trips = B.createConstInt((Rows + NumThreads - 1) / NumThreads);
    Value *One = B.createConstInt(1);
    Operation *Loop = B.createFor(Zero, Trips, One, "serial", "r");
    Builder::InsertionGuard G(B);
    B.setInsertionPointToEnd(Loop->getBody());
    Value *Base = B.createBinary(OpKind::Mul, Loop->getBody().getArgument(0),
                                 B.createConstInt(NumThreads));
    emitRow(B.createBinary(OpKind::Add, Base, Tid));
  }

  void emitRow(Value *Row) {
    llvm::ArrayRef<Value *> Starts = Op.getGroup(0).drop_front();
    Value *Global = B.createBinary(OpKind::Add, Starts[RowDim], Row);
    int64_t Extent = Dst->getType().getDims()[RowDim].getValue();
    Value *Size = B.createConstInt(Extent);
    Value *Inside = B.createCmp(CmpPred::Lt, Global, Size);
    if (Rows % NumThreads) {
      Value *Own = B.createCmp(CmpPred::Lt, Row, B.createConstInt(Rows));
      Inside = B.createBinary(OpKind::And, Inside, Own);
    }
    Operation *If = B.createIf(Inside);
    Builder::InsertionGuard G(B);
    B.setInsertionPointToEnd(If->getBody(0));
    std::vector<Value *> Operands{Dst};
    Operands.insert(Operands.end(), Starts.begin(), Starts.end());
    Operands[1 + RowDim] = Global;
    Operands.push_back(Src);
    Operands.push_back(Row);
    Operands.push_back(B.createConstInt(0));
    B.create(OpKind::BulkReduce, Operands,
             {static_cast<unsigned>(Starts.size() + 1), 3u}, {},
             {{"kind", Attribute::string("add")},
              {"bytes", Attribute::integer(Cols * 4)}});
  }

  /// bulk_wait %Src before the block's later writes of the source (all of
  /// them in a loop body) and after the loop, or at the block's end.
  void placeWaits() {
    Block &Body = *Op.getParentBlock();
    Operation *Parent = Op.getParentOp();
    bool InLoop = Parent->is(OpKind::For);
    bool After = false;
    for (Operation *X = &Body.front(); X; X = X->getNextNode()) {
      if (X == &Op)
        After = true;
      else if ((After || InLoop) && writes(*X, Src))
        waitBefore(X);
    }
    if (InLoop && Parent->getNextNode())
      return waitBefore(Parent->getNextNode());
    Builder::InsertionGuard G(B);
    B.setInsertionPointToEnd(InLoop ? *Parent->getParentBlock() : Body);
    B.create(OpKind::BulkWait, {Src}, {1}, {});
  }

  void waitBefore(Operation *X) {
    Builder::InsertionGuard G(B);
    B.setInsertionPoint(X);
    B.create(OpKind::BulkWait, {Src}, {1}, {});
  }
};

class LowerBulkReducePass : public Pass {
public:
  llvm::StringRef name() const override { return "lower-bulk-reduce"; }
  llvm::StringRef description() const override {
    return "sm_90: atomic additions of shared float32 tiles into global "
           "tensors by the bulk copy engine, one reduction per row";
  }

  bool run(Operation &Module, PassContext &Ctx) override {
    for (Operation *Op : Module.collect(isRegionAtomic)) {
      if (!Op->getGroup(1)[0]->isBufferIn(Scope::Shared))
        continue;
      BulkAtomic A(*Op);
      if (std::string Why = A.check(); !Why.empty()) {
        Ctx.Diags.report(Op->getLoc(), diag::remark_atomic_not_bulk) << Why;
        continue;
      }
      A.rewrite();
    }
    return true;
  }

private:
};

} // namespace

std::unique_ptr<Pass> tilec::createLowerBulkReducePass() {
  return std::make_unique<LowerBulkReducePass>();
}
