//===- LowerStmatrix.cpp - Accumulator stores to shared as stmatrix -------===//

#include "LowerStmatrix.h"
#include "IndexInterpreter.h"
#include "PipelineSchedule.h"
#include "tilec/IR/Builder.h"
#include "tilec/IR/Operation.h"
#include "tilec/Support/DType.h"

using namespace tilec;
using namespace tilec::ir;

namespace {

std::optional<int64_t> constValue(const Value *V) {
  const Operation *Def = V->getDefiningOp();
  if (!Def || !Def->is(OpKind::Const))
    return std::nullopt;
  return Def->getIntAttr("value");
}

/// A loop of pair stores from registers into a shared tile.
struct PairLoop {
  Operation *Loop = nullptr;
  Operation *Copy = nullptr;
  int64_t Trip = 0;
  int64_t Threads = 0;
};

/// The vcopy ending \p Loop's body when everything before it is a pure
/// scalar op and it stores register pairs into a 16-bit shared tile.
Operation *pairCopy(Operation &Loop) {
  Block &Body = Loop.getBody();
  if (Body.empty())
    return nullptr;
  Operation &Last = Body.back();
  if (!Last.is(OpKind::VCopy) || Last.getIntAttr("lanes") != int64_t(2))
    return nullptr;
  for (Operation &Op : Body)
    if (&Op != &Last && !isPureScalarOp(Op))
      return nullptr;
  const Value *Dst = Last.getGroup(0)[0], *Src = Last.getGroup(1)[0];
  if (!Dst->isBufferIn(Scope::Shared) || Dst->getType().rank() != 2 ||
      !Dst->getType().hasStaticShape() ||
      bitWidth(Dst->getType().getDType()) != 16 ||
      !Src->isBufferIn(Scope::Local) || Src->getType().rank() != 1)
    return nullptr;
  return &Last;
}

/// Whether every scalar the body uses from outside is a constant or the
/// thread index.
bool usesOnlyThreadIndex(const Operation &Loop) {
  bool OK = true;
  Loop.walk([&](const Operation &Op) {
    for (const Value *V : Op.getOperands()) {
      const Operation *Def = V->getDefiningOp();
      const Operation *Holder = Def ? Def : V->getOwnerBlock()->getParentOp();
      if (V->getType().isBuffer() ||
          (Holder && (Holder == &Loop || Loop.isAncestorOf(Holder))))
        continue;
      OK &= Def &&
            (Def->is(OpKind::Const) || (Def->is(OpKind::ThreadId) &&
                                        Def->getIntAttr("dim") == int64_t(0)));
    }
  });
  return OK;
}

std::optional<PairLoop> matchLoop(Operation &Loop, int64_t Threads) {
  if (Loop.getStringAttr("kind") != llvm::StringRef("unroll") ||
      constValue(Loop.getOperand(0)) != int64_t(0) ||
      constValue(Loop.getOperand(2)) != int64_t(1))
    return std::nullopt;
  std::optional<int64_t> Trip = constValue(Loop.getOperand(1));
  Operation *Copy = pairCopy(Loop);
  if (!Trip || *Trip % 2 != 0 || !Copy || !usesOnlyThreadIndex(Loop))
    return std::nullopt;
  return PairLoop{&Loop, Copy, *Trip, Threads};
}

/// The instructions' matrix count: 4 when the trip count allows.
int64_t matrixCount(const PairLoop &P) { return P.Trip % 4 == 0 ? 4 : 2; }

/// Whether, for every warp and group of matrixCount iterations, the lanes'
/// pairs form 8x8 matrices with 16-byte-aligned rows (by enumeration).
bool formsMatrices(const PairLoop &P) {
  IndexInterpreter I({P.Threads, 1, 1});
  const Value *Iv = P.Loop->getBody().getArgument(0);
  llvm::ArrayRef<Value *> Dst = P.Copy->getGroup(0);
  const int64_t Cols = (*Dst[0]->getType().getStaticShape())[1];
  auto Flat = [&](int64_t Tid, int64_t R) -> std::optional<int64_t> {
    I.setThread(Tid);
    I.bind(Iv, R);
    std::optional<int64_t> Row = I.eval(Dst[1]), Col = I.eval(Dst[2]);
    if (!Row || !Col || *Col < 0 || *Col >= Cols)
      return std::nullopt;
    return *Row * Cols + *Col;
  };
  for (int64_t W = 0; W < P.Threads; W += 32)
    for (int64_t R = 0; R < P.Trip; ++R)
      for (int64_t L = 0; L < 32; ++L) {
        std::optional<int64_t> At = Flat(W + L, R);
        std::optional<int64_t> Start = Flat(W + L / 4 * 4, R);
        if (!At || !Start || *Start % 8 != 0 || *At != *Start + 2 * (L % 4))
          return false;
      }
  return true;
}

/// Clones \p Body's ops but its last at \p B's insertion point, with the
/// loop variable and thread indices replaced as \p Map says.
void cloneIndexOps(Builder &B, const Block &Body, ValueMap &Map) {
  for (const Operation &Op : Body)
    if (&Op != &Body.back())
      B.insert(Op.clone(Map));
}

/// Every thread_id the loop body reads, mapped to \p To.
void mapThreadIds(const Operation &Loop, Value *To, ValueMap &Map) {
  Loop.walk([&](const Operation &Op) {
    for (Value *V : Op.getOperands())
      if (V->getDefiningOp() && V->getDefiningOp()->is(OpKind::ThreadId))
        Map[V] = To;
  });
}

/// The register array of one group: Count converted pairs.
void convertPairs(Builder &B, const PairLoop &P, Value *Group, Value *Regs) {
  const int64_t Count = matrixCount(P);
  const Block &Body = P.Loop->getBody();
  Value *Src = P.Copy->getGroup(1)[0];
  DType Elem = Regs->getType().getDType();
  for (int64_t M = 0; M != Count; ++M) {
    ValueMap Map;
    Map[Body.getArgument(0)] = B.createBinary(
        OpKind::Add,
        B.createBinary(OpKind::Mul, Group, B.createConstInt(Count)),
        B.createConstInt(M));
    cloneIndexOps(B, Body, Map);
    Value *Off = Map.lookup(P.Copy->getGroup(1)[1]);
    if (!Off)
      Off = P.Copy->getGroup(1)[1];
    for (int64_t E = 0; E != 2; ++E) {
      Value *X = B.createLoad(
          Src, {B.createBinary(OpKind::Add, Off, B.createConstInt(E))});
      if (X->getType().getDType() != Elem)
        X = B.createCast(X, Elem);
      B.createStore(X, Regs, {B.createConstInt(2 * M + E)});
    }
  }
}

void rewrite(const PairLoop &P) {
  const int64_t Count = matrixCount(P);
  Operation *Loop = P.Loop;
  Builder B;
  B.setInsertionPoint(Loop);
  B.setLoc(Loop->getLoc());
  Value *Regs =
      B.createAlloc(Type::buffer(Scope::Local, {Dim(2 * Count)},
                                 P.Copy->getGroup(0)[0]->getType().getDType()),
                    "stmatrix_regs");
  Value *Tid = B.createThreadId(0);
  Value *C32 = B.createConstInt(32), *C8 = B.createConstInt(8);
  Value *Lane = B.createBinary(OpKind::FloorMod, Tid, C32);
  // Lane l addresses row l % 8 of matrix l / 8: the row lane 4 (l % 8)
  // stores the start of.
  Value *RowThread = B.createBinary(
      OpKind::Add, B.createBinary(OpKind::Sub, Tid, Lane),
      B.createBinary(OpKind::Mul, B.createBinary(OpKind::FloorMod, Lane, C8),
                     B.createConstInt(4)));
  Value *Matrix = B.createBinary(OpKind::FloorMod,
                                 B.createBinary(OpKind::FloorDiv, Lane, C8),
                                 B.createConstInt(Count));
  Operation *Groups =
      B.createFor(B.createConstInt(0), B.createConstInt(P.Trip / Count),
                  B.createConstInt(1), "unroll", "q");
  B.setInsertionPointToEnd(Groups->getBody());
  Value *Q = Groups->getBody().getArgument(0);
  convertPairs(B, P, Q, Regs);
  ValueMap Map;
  Map[Loop->getBody().getArgument(0)] = B.createBinary(
      OpKind::Add, B.createBinary(OpKind::Mul, Q, B.createConstInt(Count)),
      Matrix);
  mapThreadIds(*Loop, RowThread, Map);
  cloneIndexOps(B, Loop->getBody(), Map);
  llvm::ArrayRef<Value *> Dst = P.Copy->getGroup(0);
  auto Mapped = [&](Value *V) {
    Value *New = Map.lookup(V);
    return New ? New : V;
  };
  std::vector<Value *> Operands = {Dst[0], Mapped(Dst[1]), Mapped(Dst[2]), Regs,
                                   B.createConstInt(0)};
  B.create(OpKind::Stmatrix, Operands, {3, 2}, {},
           {{"count", Attribute::integer(Count)}});
  Loop->erase();
}

void lowerKernel(Operation &Kernel) {
  // Lanes are consecutive thread indices: x only, in whole warps.
  auto Threads = Kernel.getIntArrayAttr("threads");
  if (!Threads || Threads->empty() || (*Threads)[0] % 32 != 0 ||
      llvm::any_of(llvm::drop_begin(*Threads),
                   [](int64_t T) { return T != 1; }))
    return;
  std::vector<PairLoop> Loops;
  for (Operation &Op : Kernel.getBody())
    if (Op.is(OpKind::For))
      if (auto P = matchLoop(Op, (*Threads)[0]); P && formsMatrices(*P))
        Loops.push_back(*P);
  for (const PairLoop &P : Loops)
    rewrite(P);
}

class LowerStmatrixPass : public Pass {
public:
  llvm::StringRef name() const override { return "lower-stmatrix"; }
  llvm::StringRef description() const override {
    return "sm_90: loops storing accumulator pairs into a 16-bit shared tile "
           "become stmatrix";
  }

  bool run(Operation &Module, PassContext &) override {
    for (Operation *Kernel : Module.collect(OpKind::Kernel))
      lowerKernel(*Kernel);
    return true;
  }
};

} // namespace

std::unique_ptr<Pass> tilec::createLowerStmatrixPass() {
  return std::make_unique<LowerStmatrixPass>();
}
