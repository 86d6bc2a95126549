//===- VectorizeLoops.cpp - Wide element moves in small loops -------------===//

#include "VectorizeLoops.h"
#include "LoopAccess.h"
#include "tilec/IR/Builder.h"
#include "tilec/IR/ConstantMatch.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringExtras.h"
#include <numeric>
#include <set>

using namespace tilec;
using namespace tilec::ir;

namespace {

/// Only powers of two up to 16 matter for alignment; keeping multiples
/// below this bound avoids overflow in products.
constexpr int64_t MultipleCap = int64_t(1) << 20;

int64_t capMultiple(int64_t M) { return M == 0 ? 0 : std::gcd(M, MultipleCap); }

/// Pure integer ops that may compute indices inside a vectorized body, and
/// the comparisons and logic of a guard's condition.
bool isIndexOp(const Operation &Op) {
  if (Op.getNumRegions() || Op.getNumResults() != 1)
    return false;
  const Type &T = Op.getResult()->getType();
  if (T.isBool())
    return Op.is(OpKind::Cmp) || Op.is(OpKind::And) || Op.is(OpKind::Or) ||
           Op.is(OpKind::Xor) || Op.is(OpKind::Const);
  if (!T.isInteger())
    return false;
  switch (Op.getKind()) {
  case OpKind::Const:
  case OpKind::Add:
  case OpKind::Sub:
  case OpKind::Mul:
  case OpKind::Div:
  case OpKind::FloorDiv:
  case OpKind::FloorMod:
  case OpKind::Min:
  case OpKind::Max:
  case OpKind::And:
  case OpKind::Or:
  case OpKind::Xor:
  case OpKind::Shl:
  case OpKind::Shr:
    return true;
  default:
    return false;
  }
}

/// One element move of the loop body (load, optional cast, store; or load,
/// atomic add of the loaded value), and the width chosen for it.
struct Move {
  Operation *Load;
  /// The store, or the element atomic.
  Operation *Store;
  int64_t Lanes = 1;

  bool isAtomic() const { return Store->is(OpKind::Atomic); }
  /// The destination group: %dst[...].
  llvm::ArrayRef<Value *> dst() const {
    return Store->getGroup(isAtomic() ? 0 : 1);
  }
  DType srcType() const { return Load->getResult()->getType().getDType(); }
  DType dstType() const { return dst().front()->getType().getDType(); }
};

/// The single use of \p Op's result when its user is in \p Body, else null.
const Use *soleUseIn(const Operation &Op, const Block &Body) {
  const Value *X = Op.getResult();
  if (!X->hasOneUse() || X->getUses()[0].User->getParentBlock() != &Body)
    return nullptr;
  return &X->getUses()[0];
}

/// Whether \p Op is inside a pipelined loop, whose global -> shared
/// vcopies lower-pipelined turns into (non-converting) cp.async copies.
bool inPipelinedLoop(const Operation &Op) {
  for (const Operation *P = Op.getParentOp(); P; P = P->getParentOp())
    if (P->is(OpKind::For) &&
        P->getStringAttr("kind") == llvm::StringRef("pipelined"))
      return true;
  return false;
}

/// Whether \p Buf has a layout annotation apply-shared-layouts has yet to
/// apply (it may not keep a run of elements contiguous).
bool hasPendingLayout(const Value *Buf) {
  return llvm::any_of(Buf->getUses(), [](const Use &U) {
    return U.User->is(OpKind::AnnotateLayout);
  });
}

class LoopVectorizer {
public:
  LoopVectorizer(Operation &Loop, const Target &Tgt) : Loop(Loop), Tgt(Tgt) {}

  /// Checks the loop and picks the lanes of every move; adds the
  /// assumptions they need to \p Assumes only when the loop qualifies.
  bool analyze(std::set<std::string> &Assumes) {
    if (!hasConstantBounds() || !collectMoves() || !independentMoves())
      return false;
    std::set<std::string> Needed;
    for (Move &M : Moves)
      if ((M.Lanes = chooseLanes(M, Needed)) == 1)
        return false;
    Assumes.insert(Needed.begin(), Needed.end());
    return true;
  }

  void rewrite();

private:
  Operation &Loop;
  const Target &Tgt;
  Value *Var = nullptr;
  int64_t Trip = 0;
  std::vector<Move> Moves;
  /// The `if` (no else) around the moves, whose condition does not depend
  /// on v (a bounds guard on other dims); null when the moves are at the
  /// top of the body.
  Operation *Guard = nullptr;
  llvm::DenseMap<const Value *, bool> Depends;

  bool hasConstantBounds();
  bool collectMoves();
  bool collectMovesIn(Block &Body);
  bool isGuard(Operation &Op);
  bool collectMove(Operation &Load);
  bool isVectorizableAtomic(const Operation &Atomic,
                            const Operation &Load) const;
  bool independentMoves() const;
  bool dependsOnVar(const Value *V);
  std::optional<int64_t> coefficientOfVar(const Value *V);
  int64_t multipleAtZero(const Value *V);
  bool alignedAccess(Value *Buffer, llvm::ArrayRef<Value *> Idx, int64_t L,
                     std::set<std::string> &Needed);
  bool fitsWidth(const Move &M, int64_t L) const;
  int64_t chooseLanes(const Move &M, std::set<std::string> &Needed);
};

bool LoopVectorizer::hasConstantBounds() {
  auto Kind = Loop.getStringAttr("kind");
  if (!Kind || (*Kind != "vectorized" && *Kind != "unroll"))
    return false;
  auto Hi = matchConstantInt(Loop.getOperand(1));
  if (!isConstantInt(Loop.getOperand(0), 0) ||
      !isConstantInt(Loop.getOperand(2), 1) || !Hi || *Hi < 2)
    return false;
  Trip = *Hi;
  Var = Loop.getBody().getArgument(0);
  return true;
}

/// The body is index ops plus loads whose only use is a store of the same
/// body, directly or through one `cast` used by that store alone (load,
/// cast, store in this order); or index ops and, last, a guard holding such
/// a body.
bool LoopVectorizer::collectMoves() {
  Block &Body = Loop.getBody();
  if (!Body.empty() && isGuard(Body.back())) {
    Guard = &Body.back();
    for (Operation &Op : Body)
      if (&Op != Guard && !isIndexOp(Op))
        return false;
    return collectMovesIn(Guard->getBody(0));
  }
  return collectMovesIn(Body);
}

/// An `if` without else whose condition is the same for every v.
bool LoopVectorizer::isGuard(Operation &Op) {
  return Op.is(OpKind::If) &&
         (Op.getNumRegions() == 1 || Op.getBody(1).empty()) &&
         !dependsOnVar(Op.getOperand(0));
}

bool LoopVectorizer::collectMovesIn(Block &Body) {
  for (Operation &Op : Body) {
    if (Op.is(OpKind::Load)) {
      if (!collectMove(Op))
        return false;
      continue;
    }
    if (Op.is(OpKind::Store) || Op.is(OpKind::Cast)) {
      const Operation *Def = Op.getOperand(0)->getDefiningOp();
      if (!Def || Def->getParentBlock() != &Body ||
          !(Def->is(OpKind::Load) ||
            (Op.is(OpKind::Store) && Def->is(OpKind::Cast))))
        return false;
      continue;
    }
    // Atomics are taken with their loads (collectMove).
    if (Op.is(OpKind::Atomic) &&
        llvm::any_of(Moves, [&](const Move &M) { return M.Store == &Op; }))
      continue;
    if (!isIndexOp(Op))
      return false;
  }
  return !Moves.empty();
}

bool LoopVectorizer::collectMove(Operation &Load) {
  const Block &Body = *Load.getParentBlock();
  const Use *U = soleUseIn(Load, Body);
  if (U && U->User->is(OpKind::Atomic) && isVectorizableAtomic(*U->User, Load))
    return Moves.push_back({&Load, U->User}), true;
  if (U && U->User->is(OpKind::Cast))
    U = soleUseIn(*U->User, Body);
  if (!U || !U->User->is(OpKind::Store) || U->Index != 0)
    return false;
  Moves.push_back({&Load, U->User});
  return true;
}

/// An element atomic add of the loaded value into global memory, with no
/// previous value used, where the target adds several lanes at once
/// (float2/float4 atomicAdd on sm_90 and later), on buffers without a
/// pending layout.
bool LoopVectorizer::isVectorizableAtomic(const Operation &Atomic,
                                          const Operation &Load) const {
  const Value *Dst = Atomic.getOperand(0);
  return Tgt.isCUDA() && Tgt.SmVersion >= 90 && !hasPendingLayout(Dst) &&
         !hasPendingLayout(Load.getOperand(0)) &&
         Atomic.getStringAttr("kind") == llvm::StringRef("add") &&
         !Atomic.hasAttr("lanes") && !Atomic.hasAttr("memory_order") &&
         Atomic.getGroup(1).size() == 1 &&
         (Atomic.getNumResults() == 0 || Atomic.getResult()->use_empty()) &&
         Dst->getType().getScope() == Scope::Global &&
         Dst->getType().getDType() == DType::Float32;
}

/// Moving all of one move before the next must not change what is read or
/// written: no buffer that a move writes is touched by another move, and
/// no move reads what it writes.
bool LoopVectorizer::independentMoves() const {
  std::set<const Value *> Written;
  for (const Move &M : Moves)
    if (!Written.insert(M.dst().front()).second)
      return false;
  return llvm::none_of(Moves, [&](const Move &M) {
    return Written.count(M.Load->getOperand(0));
  });
}

bool LoopVectorizer::dependsOnVar(const Value *V) {
  if (V == Var)
    return true;
  const Operation *Def = V->getDefiningOp();
  if (!Def || !Loop.isAncestorOf(Def))
    return false;
  auto It = Depends.find(V);
  if (It != Depends.end())
    return It->second;
  bool D = llvm::any_of(Def->getOperands(),
                        [&](const Value *O) { return dependsOnVar(O); });
  Depends[V] = D;
  return D;
}

/// c when V = c * v + (something independent of v); nullopt when V is not
/// affine in v.
std::optional<int64_t> LoopVectorizer::coefficientOfVar(const Value *V) {
  if (!dependsOnVar(V))
    return 0;
  if (V == Var)
    return 1;
  const Operation *Def = V->getDefiningOp();
  auto L = coefficientOfVar(Def->getOperand(0));
  auto R = coefficientOfVar(Def->getOperand(1));
  if (!L || !R)
    return std::nullopt;
  switch (Def->getKind()) {
  case OpKind::Add:
    return *L + *R;
  case OpKind::Sub:
    return *L - *R;
  case OpKind::Mul: {
    auto CL = matchConstantInt(Def->getOperand(0));
    auto CR = matchConstantInt(Def->getOperand(1));
    if (CR)
      return *L * *CR;
    if (CL)
      return *CL * *R;
    return std::nullopt;
  }
  default:
    return std::nullopt;
  }
}

/// A divisor of V's value at v = 0 (0: the value is 0). Exact for powers of
/// two under i32 wrap-around, which is all alignment needs.
int64_t LoopVectorizer::multipleAtZero(const Value *V) {
  if (V == Var)
    return 0;
  if (!dependsOnVar(V))
    return capMultiple(knownMultiple(V));
  const Operation *Def = V->getDefiningOp();
  int64_t L = multipleAtZero(Def->getOperand(0));
  int64_t R = multipleAtZero(Def->getOperand(1));
  switch (Def->getKind()) {
  case OpKind::Add:
  case OpKind::Sub:
    return std::gcd(L, R);
  case OpKind::Mul:
    return capMultiple(L * R);
  default:
    return 1;
  }
}

/// Whether the L elements at Buffer[Idx] (v = 0) and the following ones
/// are consecutive in memory and start at a multiple of L elements.
bool LoopVectorizer::alignedAccess(Value *Buffer, llvm::ArrayRef<Value *> Idx,
                                   int64_t L, std::set<std::string> &Needed) {
  const Type &T = Buffer->getType();
  Scope S = T.getScope();
  if (S != Scope::Global && S != Scope::Shared && S != Scope::Local)
    return false;
  if (Idx.empty() || coefficientOfVar(Idx.back()) != 1 ||
      multipleAtZero(Idx.back()) % L != 0)
    return false;
  for (unsigned D = 0; D + 1 < Idx.size(); ++D) {
    if (dependsOnVar(Idx[D]))
      return false;
    int64_t M = multipleAtZero(Idx[D]);
    if (M == 0)
      continue;
    int64_t Rest = L / std::gcd(L, M);
    std::vector<std::string> Symbols;
    for (unsigned E = D + 1; E < T.rank(); ++E) {
      const Dim &X = T.getDims()[E];
      if (X.isStatic())
        Rest /= std::gcd(Rest, X.getValue());
      else
        Symbols.push_back(X.getSymbol().str());
    }
    if (Rest == 1)
      continue;
    if (Symbols.empty())
      return false;
    Needed.insert(llvm::join(Symbols, " * ") + " % " + std::to_string(Rest) +
                  " == 0");
  }
  return true;
}

/// Every memory side of an L-lane vcopy is one access of at most 16
/// bytes; a converting vcopy reads and writes registers (local) element by
/// element, so its local side has no byte limit.
bool LoopVectorizer::fitsWidth(const Move &M, int64_t L) const {
  bool Converting = M.srcType() != M.dstType();
  auto Fits = [&](const Value *Buffer) {
    const Type &T = Buffer->getType();
    return (Converting && T.getScope() == Scope::Local) ||
           L * memoryBits(T.getDType()) <= 128;
  };
  return Fits(M.Load->getOperand(0)) && Fits(M.dst().front());
}

/// Whole-byte, non-bool element types, or a plain move of packed 4-bit
/// elements (whole bytes at even lane counts); a converting move from
/// global into shared memory inside a pipelined loop stays scalar (it
/// would be taken for a cp.async copy).
bool vectorizableTypes(const Move &M, const Operation &Loop) {
  if (M.srcType() == M.dstType() && bitWidth(M.srcType()) == 4)
    return true;
  for (DType T : {M.srcType(), M.dstType()})
    if (isBool(T) || bitWidth(T) < 8 || bitWidth(T) % 8 != 0)
      return false;
  if (M.srcType() == M.dstType())
    return true;
  return M.Load->getOperand(0)->getType().getScope() != Scope::Global ||
         M.dst().front()->getType().getScope() != Scope::Shared ||
         !inPipelinedLoop(Loop);
}

/// The widest L in {32, 16, 8, 4, 2} dividing the trip count that fits
/// the access widths (32 only for 4-bit elements) and that both sides
/// allow; 1 when none does.
int64_t LoopVectorizer::chooseLanes(const Move &M,
                                    std::set<std::string> &Needed) {
  if (!vectorizableTypes(M, Loop))
    return 1;
  bool Packed = bitWidth(M.srcType()) == 4;
  for (int64_t L : {32, 16, 8, 4, 2}) {
    if (Trip % L != 0 || !fitsWidth(M, L) || (L == 32 && !Packed))
      continue;
    std::set<std::string> N;
    if (alignedAccess(M.Load->getOperand(0), M.Load->getGroup(0).drop_front(),
                      L, N) &&
        alignedAccess(M.dst().front(), M.dst().drop_front(), L, N)) {
      Needed.insert(N.begin(), N.end());
      return L;
    }
  }
  return 1;
}

/// Index ops move before the loop with v = 0, and so does the guard; each
/// move becomes Trip / L vcopies at offsets k * L of the last index, where
/// the loop was (inside the guard: where its store was).
void LoopVectorizer::rewrite() {
  Builder B;
  B.setInsertionPoint(&Loop);
  B.setLoc(Loop.getLoc());
  Var->replaceAllUsesWith(B.createConstInt(0, Var->getType().getDType()));
  for (Operation *Op : Loop.getBody().getOps())
    if (isIndexOp(*Op) || Op == Guard)
      Op->moveBefore(&Loop);
  for (const Move &M : Moves) {
    if (Guard)
      B.setInsertionPoint(M.Store);
    B.setLoc(M.Store->getLoc());
    std::vector<Value *> Dst = M.dst();
    std::vector<Value *> Src = M.Load->getGroup(0);
    Value *DstBase = Dst.back(), *SrcBase = Src.back();
    for (int64_t K = 0; K != Trip / M.Lanes; ++K) {
      if (K) {
        Value *Off =
            B.createConstInt(K * M.Lanes, DstBase->getType().getDType());
        Dst.back() = B.createBinary(OpKind::Add, DstBase, Off);
        Src.back() = B.createBinary(OpKind::Add, SrcBase, Off);
      }
      std::vector<Value *> Ops = Dst;
      Ops.insert(Ops.end(), Src.begin(), Src.end());
      std::vector<unsigned> Segments = {unsigned(Dst.size()),
                                        unsigned(Src.size())};
      if (M.isAtomic())
        B.create(OpKind::Atomic, Ops, Segments, {},
                 {{"kind", Attribute::string("add")},
                  {"lanes", Attribute::integer(M.Lanes)}});
      else
        B.create(OpKind::VCopy, Ops, Segments, {},
                 {{"lanes", Attribute::integer(M.Lanes)}});
    }
    if (!Guard)
      continue;
    Value *Stored =
        M.isAtomic() ? M.Store->getGroup(1)[0] : M.Store->getOperand(0);
    Operation *Cast = Stored->getDefiningOp();
    M.Store->erase();
    if (Cast != M.Load)
      Cast->erase();
    M.Load->erase();
  }
  Loop.erase();
}

class VectorizeLoopsPass : public Pass {
public:
  llvm::StringRef name() const override { return "vectorize-loops"; }
  llvm::StringRef description() const override {
    return "Turn small loops of element moves into aligned wide vcopies";
  }

  bool run(Operation &Module, PassContext &Ctx) override {
    for (Operation &Func : Module.getBody())
      if (Func.is(OpKind::Func))
        runOnFunc(Func, Ctx.Tgt);
    return true;
  }

private:
  static void runOnFunc(Operation &Func, const Target &Tgt) {
    std::vector<Operation *> Loops = Func.collect(OpKind::For);
    std::set<std::string> Assumes = readAssumes(Func);
    // A loop that qualifies has no nested loops (at most a guard), so
    // rewriting it never removes another collected loop.
    for (Operation *Loop : Loops) {
      LoopVectorizer LV(*Loop, Tgt);
      if (LV.analyze(Assumes))
        LV.rewrite();
    }
    writeAssumes(Func, Assumes);
  }
};

} // namespace

std::unique_ptr<Pass> tilec::createVectorizeLoopsPass() {
  return std::make_unique<VectorizeLoopsPass>();
}
