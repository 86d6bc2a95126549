//===- LowerParallel.cpp - Thread binding and vectorization ---------------===//

#include "LowerParallel.h"
#include "FragmentDerive.h"
#include "IndexExprToIR.h"
#include "LoopAccess.h"
#include "tilec/IR/Builder.h"
#include "tilec/Layout/LayoutParser.h"
#include "tilec/Layout/Simplify.h"
#include "tilec/Support/Diagnostics.h"

using namespace tilec;
using namespace tilec::ir;
using layout::Fragment;
using layout::IndexExpr;

namespace {

/// Enumeration limit for verifying an inverse candidate.
constexpr int64_t VerifyLimit = int64_t(1) << 21;

/// `Lhs Pred Rhs` over the variables r and tx.
struct Guard {
  IndexExpr Lhs, Rhs;
  CmpPred Pred;
};

/// What a thread runs in its register slot r: the loop coordinates as
/// expressions of r (in [0, Count)) and tx, valid where the guards hold.
struct IterationMap {
  int64_t Count = 0;
  std::vector<IndexExpr> Coords;
  std::vector<Guard> Guards;
  /// The replica a slot runs, when the layout has several.
  std::optional<IndexExpr> Replica;
};

IndexExpr varR() { return IndexExpr::var("r"); }
IndexExpr varTx() { return IndexExpr::var("tx"); }

template <typename T>
std::vector<T> unflatten(T Flat, llvm::ArrayRef<int64_t> Shape, T (*Div)(T, T),
                         T (*Mod)(T, T)) {
  std::vector<T> Coords(Shape.size());
  for (int D = Shape.size() - 1; D >= 0; --D) {
    Coords[D] = D ? Mod(Flat, T(Shape[D])) : Flat;
    Flat = Div(Flat, T(Shape[D]));
  }
  return Coords;
}

IndexExpr exprDiv(IndexExpr A, IndexExpr B) { return layout::floorDiv(A, B); }
IndexExpr exprMod(IndexExpr A, IndexExpr B) { return layout::floorMod(A, B); }
int64_t intDiv(int64_t A, int64_t B) { return A / B; }
int64_t intMod(int64_t A, int64_t B) { return A % B; }

/// The mixed-radix candidate of default and broadcast fragments: slot
/// (r, tx) holds element e = (r // V) * (V * G) + g * V + r % V, with Q
/// the replicate size, G = threads / Q and the thread split into a group g
/// and a replica: g = tx // Q, replica tx % Q (ReplicaLow), or g = tx % G,
/// replica tx // G. Checked against the layout by enumeration.
std::optional<IterationMap> mixedRadix(const Fragment &L, int64_t V,
                                       bool ReplicaLow) {
  llvm::ArrayRef<int64_t> Shape = L.getInputShape();
  int64_t N = layout::shapeSize(Shape), R = L.getRegisterCount();
  int64_t Q = L.getReplicateSize(), Lt = L.getThreadExtent();
  if (R % V != 0 || Lt % Q != 0 || Lt * R > VerifyLimit)
    return std::nullopt;
  int64_t G = Lt / Q, Used = 0;
  for (int64_t T = 0; T != Lt; ++T)
    for (int64_t Reg = 0; Reg != R; ++Reg) {
      int64_t Group = ReplicaLow ? T / Q : T % G;
      int64_t E = (Reg / V) * (V * G) + Group * V + Reg % V;
      if (E >= N)
        continue;
      auto Idx = unflatten<int64_t>(E, Shape, intDiv, intMod);
      int64_t Replica = ReplicaLow ? T % Q : T / G;
      if (flatRegister(L, Idx) != Reg || L.forwardThread(Idx, Replica) != T)
        return std::nullopt;
      ++Used;
    }
  if (Used != N * Q)
    return std::nullopt;
  IterationMap M;
  M.Count = R;
  IndexExpr Group =
      ReplicaLow ? layout::floorDiv(varTx(), Q) : layout::floorMod(varTx(), G);
  IndexExpr E = layout::floorDiv(varR(), V) * (V * G) + Group * V +
                layout::floorMod(varR(), V);
  M.Coords = unflatten<IndexExpr>(E, Shape, exprDiv, exprMod);
  if (Q > 1)
    M.Replica = ReplicaLow ? layout::floorMod(varTx(), Q)
                           : layout::floorDiv(varTx(), G);
  if (((R - 1) / V) * V * G + (G - 1) * V + V - 1 >= N)
    M.Guards.push_back({E, N, CmpPred::Lt});
  return M;
}

/// The symbolic inverse of a bijective bit-linear layout.
std::optional<IterationMap> symbolicInverse(const Fragment &L) {
  auto Inv = L.inverse();
  if (!Inv)
    return std::nullopt;
  llvm::ArrayRef<int64_t> Regs = L.getOutputShape();
  layout::VarMap Map;
  std::vector<IndexExpr> RegCoords =
      unflatten<IndexExpr>(varR(), Regs, exprDiv, exprMod);
  for (unsigned D = 0; D != Regs.size(); ++D)
    Map[layout::Layout::inputVarName(D)] = RegCoords[D];
  Map[layout::Layout::inputVarName(Regs.size())] = varTx();
  IterationMap M;
  M.Count = L.getRegisterCount();
  for (unsigned D = 0; D != L.getInputDim(); ++D)
    M.Coords.push_back(layout::substitute(Inv->getForwardIndex()[D], Map));
  if (L.getReplicateSize() > 1)
    M.Replica =
        layout::substitute(Inv->getForwardIndex()[L.getInputDim()], Map);
  return M;
}

/// Every iteration and replica, run by the thread that holds it: slot r
/// is replica r // N of element r % N. Sound only when no element has two
/// replicas on one thread (each thread then runs an iteration once).
std::optional<IterationMap> scan(const Fragment &L) {
  if (L.getReplicateSize() > 1 && !replicasOnDistinctThreads(L))
    return std::nullopt;
  IterationMap M;
  int64_t N = layout::shapeSize(L.getInputShape());
  M.Count = N * L.getReplicateSize();
  IndexExpr Elem =
      L.getReplicateSize() > 1 ? layout::floorMod(varR(), N) : varR();
  M.Coords = unflatten<IndexExpr>(Elem, L.getInputShape(), exprDiv, exprMod);
  layout::VarMap Map;
  for (unsigned D = 0; D != M.Coords.size(); ++D)
    Map[layout::Layout::inputVarName(D)] = M.Coords[D];
  Map["rep"] = layout::floorDiv(varR(), N);
  M.Guards.push_back(
      {layout::substitute(L.getForwardThread(), Map), varTx(), CmpPred::Eq});
  if (L.getReplicateSize() > 1)
    M.Replica = Map["rep"];
  return M;
}

std::optional<IterationMap> iterationMap(const Fragment &L) {
  for (bool ReplicaLow : {true, false}) {
    if (!ReplicaLow && L.getReplicateSize() == 1)
      break;
    for (int64_t V : {16, 8, 4, 2, 1})
      if (auto M = mixedRadix(L, V, ReplicaLow))
        return M;
  }
  if (auto M = symbolicInverse(L))
    return M;
  return scan(L);
}

/// A body that loads one element and stores it unchanged elsewhere, with
/// only integer index arithmetic besides: the load and the store.
std::optional<std::pair<Operation *, Operation *>> plainCopy(Block &Body) {
  Operation *Load = nullptr, *Store = nullptr;
  for (Operation &Op : Body) {
    if (Op.is(OpKind::Load) && !Load)
      Load = &Op;
    else if (Op.is(OpKind::Store) && !Store)
      Store = &Op;
    else if (Op.getNumRegions() || Op.getNumResults() != 1 ||
             !Op.getResult()->getType().isInteger())
      return std::nullopt;
  }
  if (!Load || !Store || Store->getOperand(0) != Load->getResult() ||
      !Load->getResult()->hasOneUse())
    return std::nullopt;
  return std::make_pair(Load, Store);
}

class LoopLowering {
public:
  LoopLowering(Operation &Loop, DiagnosticEngine &Diags)
      : Loop(Loop), Diags(Diags) {}

  bool run() {
    Operation *Kernel = Loop.getParentOfKind(OpKind::Kernel);
    std::string Error;
    llvm::StringRef Text = Loop.getStringAttr("loop_layout").value_or("");
    auto L = layout::parseFragment(Text, Error);
    if (!Kernel || !L)
      return fail("the loop has no valid 'loop_layout' (" + Error +
                  "); run layout-inference first");
    int64_t Threads = threadRangeOf(Loop).Count;
    if (L->getThreadExtent() > Threads || L->getThreadExtent() < 1)
      return fail("its layout uses " + std::to_string(L->getThreadExtent()) +
                  " threads, but only " + std::to_string(Threads) + " run it");
    auto Map = iterationMap(*L);
    if (!Map)
      return fail("no thread mapping found for the layout " + Text.str());
    int64_t V = Loop.getIntAttr("vector_size").value_or(1);
    if (V < 1 || Map->Count % V != 0)
      V = 1;
    B.setInsertionPoint(&Loop);
    B.setLoc(Loop.getLoc());
    Value *Tx = emitRangeThreadId(B, Loop);
    Extents["tx"] = L->getThreadExtent();
    if (L->getThreadExtent() < Threads)
      enterIf(
          B.createCmp(CmpPred::Lt, Tx, B.createConstInt(L->getThreadExtent())));
    emitRuns(*Map, V, Tx);
    Loop.erase();
    return true;
  }

private:
  Operation &Loop;
  DiagnosticEngine &Diags;
  Builder B;
  layout::VarExtents Extents;

  bool fail(const std::string &Why) {
    Diags.report(Loop.getLoc(), diag::err_lowering_unsupported)
        << "this T.Parallel loop" << Why;
    return false;
  }

  void enterIf(Value *Cond) {
    Operation *If = B.createIf(Cond);
    B.setInsertionPointToEnd(If->getBody(0));
  }

  /// A `for` over [0, Count) entered by B; null when Count is 1.
  Value *enterFor(int64_t Count, llvm::StringRef Kind, llvm::StringRef Name) {
    if (Count == 1)
      return nullptr;
    Operation *For = B.createFor(B.createConstInt(0), B.createConstInt(Count),
                                 B.createConstInt(1), Kind, Name);
    B.setInsertionPointToEnd(For->getBody());
    return For->getBody().getArgument(0);
  }

  /// True when the body's only effects are plain stores to shared or
  /// global memory: then every replica stores the same values, and one of
  /// them is enough (the others would only race with it, harmlessly but
  /// with a barrier per iteration where the stores are to shared memory).
  bool onlySharedOrGlobalStores() {
    bool Only = true;
    Loop.walk([&](Operation &Op) {
      if (&Op == &Loop || Op.is(OpKind::Load) || Op.is(OpKind::If) ||
          Op.is(OpKind::For))
        return;
      if (Op.is(OpKind::Store)) {
        Scope S = Op.getGroup(1).front()->getType().getScope();
        Only &= S == Scope::Shared || S == Scope::Global;
        return;
      }
      // Scalar arithmetic; not a shuffle, which needs every lane.
      Only &= Op.getNumRegions() == 0 && Op.getNumResults() == 1 &&
              !Op.getResult()->getType().isBuffer() && !Op.is(OpKind::Shfl) &&
              !Op.is(OpKind::CallExtern) && !Op.is(OpKind::Atomic);
    });
    return Only;
  }

  bool touchesFragment() {
    return llvm::any_of(collectAccesses(Loop), [](const BufferAccess &A) {
      return A.Buffer->getType().getScope() == Scope::Fragment;
    });
  }

  void emitRuns(const IterationMap &M, int64_t V, Value *Tx) {
    auto Copy = plainCopy(Loop.getBody());
    bool Wide = V > 1 && Copy;
    int64_t Outer = M.Count / V;
    bool Unroll = Outer <= 16 || touchesFragment();
    AtomValues Vars{{"tx", Tx}};
    Vars["ro"] = enterFor(Outer, Unroll ? "unroll" : "serial", "r");
    Vars["vi"] = Wide ? nullptr : enterFor(V, "vectorized", "v");
    Extents["ro"] = Outer;
    Extents["vi"] = Wide ? 1 : V;
    layout::VarMap Subst;
    Subst["r"] = (Outer > 1 ? IndexExpr::var("ro") * V : IndexExpr(0)) +
                 (Wide || V == 1 ? IndexExpr(0) : IndexExpr::var("vi"));
    std::vector<Value *> Coords;
    for (const IndexExpr &C : M.Coords)
      Coords.push_back(emit(layout::substitute(C, Subst), Vars));
    std::vector<Guard> Guards = M.Guards;
    if (M.Replica && onlySharedOrGlobalStores())
      Guards.push_back({*M.Replica, IndexExpr(0), CmpPred::Eq});
    for (const Guard &G : Guards)
      enterIf(B.createCmp(G.Pred, emit(layout::substitute(G.Lhs, Subst), Vars),
                          emit(layout::substitute(G.Rhs, Subst), Vars)));
    moveBody(Coords);
    if (Wide)
      makeVCopy(*Copy, V);
  }

  Value *emit(const IndexExpr &E, const AtomValues &Vars) {
    return emitIndexExpr(B, layout::simplify(E, Extents), Vars);
  }

  void moveBody(llvm::ArrayRef<Value *> Coords) {
    Block &Body = Loop.getBody();
    for (unsigned K = 0; K != Coords.size(); ++K)
      Body.getArgument(K)->replaceAllUsesWith(Coords[K]);
    for (Operation *Op : Body.getOps())
      B.insert(Op->remove());
  }

  void makeVCopy(std::pair<Operation *, Operation *> Copy, int64_t V) {
    auto [Load, Store] = Copy;
    std::vector<Value *> Ops = Store->getGroup(1);
    llvm::ArrayRef<Value *> Src = Load->getGroup(0);
    Ops.insert(Ops.end(), Src.begin(), Src.end());
    B.setInsertionPoint(Store);
    B.setLoc(Store->getLoc());
    B.create(OpKind::VCopy, Ops,
             {unsigned(Store->getGroup(1).size()), unsigned(Src.size())}, {},
             {{"lanes", Attribute::integer(V)}});
    Store->erase();
    Load->erase();
  }
};

class LowerParallelPass : public Pass {
public:
  llvm::StringRef name() const override { return "lower-parallel"; }
  llvm::StringRef description() const override {
    return "Bind parallel loops to threads by their layouts and vectorize";
  }

  bool run(Operation &Module, PassContext &Ctx) override {
    // Innermost first would be needed for nesting, which inference rejects.
    return lowerEach(
        Module, [](Operation &Op) { return Op.is(OpKind::Parallel); },
        [&](Operation &Loop) { return LoopLowering(Loop, Ctx.Diags).run(); });
  }
};

} // namespace

std::unique_ptr<Pass> tilec::createLowerParallelPass() {
  return std::make_unique<LowerParallelPass>();
}
