//===- LowerReduce.cpp - T.reduce_* on CUDA cores -------------------------===//

#include "LowerReduce.h"
#include "IndexExprToIR.h"
#include "LayoutInference.h"
#include "LoopAccess.h"
#include "ReduceEmit.h"
#include "tilec/IR/Builder.h"
#include "tilec/Layout/LayoutParser.h"
#include "tilec/Layout/Simplify.h"
#include "tilec/Layout/ThreadLayouts.h"
#include "tilec/Support/Diagnostics.h"
#include <fmt/format.h>
#include <map>
#include <set>

using namespace tilec;
using namespace tilec::ir;
using layout::Fragment;
using layout::Indices;

//===----------------------------------------------------------------------===//
// The plan, by enumeration
//===----------------------------------------------------------------------===//

Indices tilec::reducedIndex(llvm::ArrayRef<int64_t> SrcIdx, unsigned Dim,
                            unsigned DstRank) {
  Indices Out(SrcIdx.begin(), SrcIdx.end());
  if (DstRank == SrcIdx.size())
    Out[Dim] = 0;
  else if (SrcIdx.size() == 1)
    Out[0] = 0;
  else
    Out.erase(Out.begin() + Dim);
  return Out;
}

namespace {

std::string indexText(llvm::ArrayRef<int64_t> Idx) {
  return fmt::format("[{}]", fmt::join(Idx, ", "));
}

int64_t flatIndex(llvm::ArrayRef<int64_t> Idx, llvm::ArrayRef<int64_t> Shape) {
  int64_t Flat = 0;
  for (unsigned D = 0; D != Shape.size(); ++D)
    Flat = Flat * Shape[D] + Idx[D];
  return Flat;
}

/// Who holds what in a fragment: the threads of each element (by flat
/// index) and an element of each register.
struct Holding {
  std::vector<std::set<int64_t>> Threads;
  std::vector<std::optional<Indices>> RegisterElement;
};

std::optional<Holding> enumerateHolders(const Fragment &F, std::string &Why) {
  llvm::ArrayRef<int64_t> Shape = F.getInputShape();
  Holding H;
  H.Threads.resize(layout::shapeSize(Shape));
  H.RegisterElement.resize(F.getRegisterCount());
  std::map<std::pair<int64_t, int64_t>, int64_t> Slots;
  bool OK = true;
  layout::forEachIndex(Shape, [&](llvm::ArrayRef<int64_t> Idx) {
    int64_t Flat = flatIndex(Idx, Shape);
    int64_t Reg = flatRegister(F, Idx);
    for (int64_t Rep = 0; OK && Rep != F.getReplicateSize(); ++Rep) {
      auto T = F.forwardThread(Idx, Rep);
      if (!T || Reg < 0 || Reg >= F.getRegisterCount()) {
        Why = "the destination layout is undefined at " + indexText(Idx);
        OK = false;
        return;
      }
      auto [It, New] = Slots.insert({{*T, Reg}, Flat});
      if (!New && It->second != Flat) {
        Why = fmt::format("thread {} keeps two destination elements in "
                          "register {}",
                          *T, Reg);
        OK = false;
        return;
      }
      H.Threads[Flat].insert(*T);
    }
    if (!H.RegisterElement[Reg])
      H.RegisterElement[Reg] = Indices(Idx.begin(), Idx.end());
  });
  if (!OK)
    return std::nullopt;
  return H;
}

/// The xor group V with holders(e) = t ⊕ V for every element e.
std::optional<std::set<int64_t>>
xorGroup(const std::vector<std::set<int64_t>> &Threads, std::string &Why) {
  const std::set<int64_t> &First = Threads.front();
  std::set<int64_t> V;
  for (int64_t T : First)
    V.insert(T ^ *First.begin());
  for (int64_t A : V)
    for (int64_t B : V)
      if (!V.count(A ^ B)) {
        Why = "the threads holding one destination element are not an xor "
              "group (a power-of-2 pattern)";
        return std::nullopt;
      }
  for (const std::set<int64_t> &H : Threads) {
    bool Same = H.size() == V.size() && llvm::all_of(H, [&](int64_t T) {
                  return V.count(T ^ *H.begin()) != 0;
                });
    if (!Same) {
      Why = "the destination elements are not replicated over the same "
            "thread pattern";
      return std::nullopt;
    }
  }
  return V;
}

/// A basis of V in echelon form (distinct leading bits), largest first.
std::vector<int64_t> xorBasis(const std::set<int64_t> &V) {
  std::vector<int64_t> Basis;
  for (int64_t X : V) {
    for (int64_t B : Basis)
      X = std::min(X, X ^ B);
    if (!X)
      continue;
    Basis.push_back(X);
    llvm::sort(Basis, std::greater<int64_t>());
  }
  return Basis;
}

/// Every src element (replica 0) lies on a thread that holds its dst element.
bool checkContributions(const Fragment &Src, const Fragment &Dst, unsigned Dim,
                        const Holding &H, std::string &Why) {
  llvm::ArrayRef<int64_t> DstShape = Dst.getInputShape();
  bool OK = true;
  layout::forEachIndex(Src.getInputShape(), [&](llvm::ArrayRef<int64_t> Idx) {
    if (!OK)
      return;
    Indices E = reducedIndex(Idx, Dim, DstShape.size());
    auto T = Src.forwardThread(Idx, 0);
    if (T && H.Threads[flatIndex(E, DstShape)].count(*T))
      return;
    Why =
        fmt::format("source element {} is on thread {}, which does not hold "
                    "destination element {}",
                    indexText(Idx), T ? std::to_string(*T) : "?", indexText(E));
    OK = false;
  });
  return OK;
}

bool shapesMatch(const Fragment &Src, const Fragment &Dst, unsigned Dim) {
  llvm::ArrayRef<int64_t> S = Src.getInputShape(), D = Dst.getInputShape();
  if (Dim >= S.size())
    return false;
  Indices Last(S.begin(), S.end());
  for (int64_t &X : Last)
    --X;
  Indices E = reducedIndex(Last, Dim, D.size());
  if (E.size() != D.size())
    return false;
  for (unsigned K = 0; K != D.size(); ++K)
    if (E[K] + 1 != D[K])
      return false;
  return true;
}

} // namespace

std::optional<ReduceThreadPlan>
tilec::planXorCombine(const std::vector<std::set<int64_t>> &Groups,
                      int64_t WarpSize, std::string &Why) {
  auto V = xorGroup(Groups, Why);
  if (!V)
    return std::nullopt;
  ReduceThreadPlan Plan;
  std::vector<int64_t> Wide;
  for (int64_t B : xorBasis(*V))
    (B < WarpSize ? Plan.LaneMasks : Wide).push_back(B);
  for (int64_t Mask = 1; Mask < (int64_t(1) << Wide.size()); ++Mask) {
    int64_t S = 0;
    for (unsigned K = 0; K != Wide.size(); ++K)
      if (Mask >> K & 1)
        S ^= Wide[K];
    Plan.WarpOffsets.push_back(S);
  }
  llvm::sort(Plan.WarpOffsets);
  return Plan;
}

std::optional<ReduceThreadPlan>
tilec::planFragmentReduce(const Fragment &Src, const Fragment &Dst,
                          unsigned Dim, int64_t WarpSize, std::string &Why) {
  int64_t Work =
      layout::shapeSize(Src.getInputShape()) +
      layout::shapeSize(Dst.getInputShape()) * Dst.getReplicateSize();
  if (Work > layout::DefaultEnumerationLimit) {
    Why = "the layouts are too large to check";
    return std::nullopt;
  }
  if (!shapesMatch(Src, Dst, Dim)) {
    Why = "the layouts do not match the source and destination shapes";
    return std::nullopt;
  }
  auto H = enumerateHolders(Dst, Why);
  if (!H || !checkContributions(Src, Dst, Dim, *H, Why))
    return std::nullopt;
  auto Plan = planXorCombine(H->Threads, WarpSize, Why);
  if (Plan)
    Plan->RegisterElement = std::move(H->RegisterElement);
  return Plan;
}

std::optional<ReduceThreadPlan> tilec::planReplicaCombine(const Fragment &F,
                                                          int64_t WarpSize,
                                                          std::string &Why) {
  if (layout::shapeSize(F.getInputShape()) * F.getReplicateSize() >
      layout::DefaultEnumerationLimit) {
    Why = "the layout is too large to check";
    return std::nullopt;
  }
  auto H = enumerateHolders(F, Why);
  if (!H)
    return std::nullopt;
  auto Plan = planXorCombine(H->Threads, WarpSize, Why);
  if (Plan)
    Plan->RegisterElement = std::move(H->RegisterElement);
  return Plan;
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

namespace {

class ReduceLowering {
public:
  ReduceLowering(Operation &Op, DiagnosticEngine &Diags, int64_t WarpSize)
      : Op(Op), Kernel(*Op.getParentOfKind(OpKind::Kernel)), Diags(Diags),
        WarpSize(WarpSize), Kind(kindOf(Op)),
        Axis(Op.getIntAttr("dim").value_or(0)),
        Clear(Op.getBoolAttr("clear").value_or(true)), Src(Op.getOperand(0)),
        Dst(Op.is(OpKind::Reduce) ? Op.getOperand(1) : Op.getOperand(0)),
        DT(Dst->getType().getDType()) {}

  bool run() {
    if (!isFloat(DT) && !isInteger(DT))
      return fail("the destination dtype " + tileLangName(DT).str() +
                  " cannot accumulate");
    // Its exchanges across warps synchronize the whole block
    // (__syncthreads); in a role of whole warps, shuffles among each warp's
    // lanes are all it may use.
    InRole = enclosingRole(Op) != nullptr;
    ThreadRange Range = threadRangeOf(Op);
    if (InRole && (Range.Count % WarpSize || Range.Offset % WarpSize))
      return fail("it is inside a T.ws role block that is not whole warps");
    B.setInsertionPoint(&Op);
    B.setLoc(Op.getLoc());
    bool OK = Op.is(OpKind::Reduce)            ? lowerReduce()
              : Op.is(OpKind::FinalizeReducer) ? lowerFinalize()
                                               : lowerAllReduce();
    if (OK)
      Op.erase();
    return OK;
  }

private:
  Operation &Op;
  Operation &Kernel;
  DiagnosticEngine &Diags;
  int64_t WarpSize;
  std::string Kind;
  unsigned Axis;
  bool Clear;
  Value *Src, *Dst;
  /// Inside a role of whole warps (see run()).
  bool InRole = false;
  DType DT;
  Builder B;

  /// The combining op: the `kind` attribute, or a reducer's own.
  static std::string kindOf(const Operation &Op) {
    if (!Op.is(OpKind::FinalizeReducer))
      return Op.getStringAttr("kind").value_or("sum").str();
    return Op.getOperand(0)
        ->getDefiningOp()
        ->getStringAttr("reducer")
        .value_or("sum")
        .str();
  }

  bool fail(const std::string &Why) {
    std::string Name = Op.is(OpKind::Reduce) ? "reduce_" + Kind
                       : Op.is(OpKind::FinalizeReducer)
                           ? "finalize_reducer"
                           : "tvm_thread_allreduce";
    Diags.report(Op.getLoc(), diag::err_reduce_layout) << Name << Why;
    return false;
  }

  std::optional<Fragment> layoutOf(Value *Buf, std::string &Why) {
    std::string Error;
    llvm::StringRef Text =
        Buf->getDefiningOp()
            ? Buf->getDefiningOp()->getStringAttr("layout").value_or("")
            : "";
    auto F = layout::parseFragment(Text, Error);
    if (!F)
      Why = "fragment '" + Buf->getNameHint().str() +
            "' has no valid layout; run layout-inference first";
    return F;
  }

  ReduceKind kind() const { return parseReduceKind(Kind); }

  bool lowerReduce() {
    if (Src == Dst)
      return fail("the source and the destination are the same buffer");
    if (InRole &&
        !(Src->isBufferIn(Scope::Fragment) && Dst->isBufferIn(Scope::Fragment)))
      return fail("inside a role only a fragment-to-fragment reduction is "
                  "supported");
    bool SrcFrag = Src->isBufferIn(Scope::Fragment),
         DstFrag = Dst->isBufferIn(Scope::Fragment);
    return !SrcFrag  ? lowerSerial()
           : DstFrag ? lowerFragments()
           : Dst->isBufferIn(Scope::Shared)
               ? lowerToShared()
               : fail("a fragment source needs a fragment or "
                      "shared destination");
  }

  //===--- Reducers and scalar all-reduces -------------------------------===//

  /// T.finalize_reducer: every register of the reducer combined across the
  /// threads holding its element (their partials), in place.
  bool lowerFinalize() {
    std::string Why;
    auto D = layoutOf(Dst, Why);
    if (!D)
      return fail(Why);
    auto Plan = planReplicaCombine(*D, WarpSize, Why);
    if (!Plan)
      return fail(Why);
    if (InRole && !Plan->WarpOffsets.empty())
      return fail("inside a role its replicas would span more than one warp");
    combineThreads(*Plan, Dst, Dst, /*ClearTarget=*/true);
    return true;
  }

  /// %r = allreduce %v {dims}: the value goes through a one-register local
  /// buffer so that the fragment exchange above applies unchanged.
  bool lowerAllReduce() {
    for (Operation *P = Op.getParentOp(); P != &Kernel; P = P->getParentOp())
      if (!P->is(OpKind::For))
        return fail("every thread of the block must reach it, so it may "
                    "only be nested in serial loops (not in an if, a while "
                    "or a T.Parallel loop)");
    std::string Why;
    auto Plan = planXorCombine(threadGroups(), WarpSize, Why);
    if (!Plan)
      return fail("the threads it combines (the block's threads that differ "
                  "only in the named thread dimensions) are not a "
                  "power-of-2 pattern of the linear thread index");
    Plan->RegisterElement = {layout::Indices{0}};
    Value *Acc = allocAtKernelStart(
        Type::buffer(Scope::Local, {ir::Dim(1)}, DT), "allreduce_acc");
    Value *Zero = B.createConstInt(0);
    B.createStore(Src, Acc, {Zero});
    combineThreads(*Plan, Acc, Acc, /*ClearTarget=*/true);
    Op.getResult()->replaceAllUsesWith(B.createLoad(Acc, {Zero}));
    return true;
  }

  /// The block's threads grouped by their indices in the dimensions that
  /// `dims` does not name.
  std::vector<std::set<int64_t>> threadGroups() {
    std::vector<int64_t> Extents =
        Kernel.getIntArrayAttr("threads").value_or(std::vector<int64_t>{1});
    Extents.resize(3, 1);
    unsigned Reduced = 0;
    for (int64_t D :
         Op.getIntArrayAttr("dims").value_or(std::vector<int64_t>{}))
      Reduced |= 1u << D;
    std::map<std::vector<int64_t>, std::set<int64_t>> Groups;
    for (int64_t T = 0; T != kernelThreadCount(Kernel); ++T) {
      std::vector<int64_t> Key;
      int64_t Rest = T;
      for (unsigned D = 0; D != 3; ++D) {
        Key.push_back(Reduced >> D & 1 ? 0 : Rest % Extents[D]);
        Rest /= Extents[D];
      }
      Groups[Key].insert(T);
    }
    std::vector<std::set<int64_t>> Out;
    for (auto &KV : Groups)
      Out.push_back(std::move(KV.second));
    return Out;
  }

  //===--- Fragment source and destination --------------------------------===//

  bool lowerFragments() {
    std::string Why;
    auto S = layoutOf(Src, Why);
    auto D = S ? layoutOf(Dst, Why) : std::nullopt;
    if (!S || !D)
      return fail(Why);
    if (auto Plan = planFragmentReduce(*S, *D, Axis, WarpSize, Why)) {
      if (InRole && !Plan->WarpOffsets.empty())
        return fail("inside a role its rows would span more than one warp");
      reduceInto(*S, *D, *Plan, Dst, Clear);
      return true;
    }
    if (InRole)
      return fail("inside a role the destination's layout must be the one "
                  "derived from the source");
    // dst got its layout elsewhere (e.g. from a loop seen first): reduce
    // into the layout derived from src, then redistribute.
    std::vector<unsigned> Kept;
    for (unsigned K = 0; K != S->getInputDim(); ++K)
      if (K != Axis)
        Kept.push_back(K);
    auto Near = deriveProjectedFragment(*S, Kept, D->getInputShape(),
                                        kernelThreadCount(Kernel));
    std::string Unused;
    auto Plan = Near ? planFragmentReduce(*S, *Near, Axis, WarpSize, Unused)
                     : std::nullopt;
    if (!Plan)
      return fail(Why);
    Value *Part = allocFragment(*Near, "red_part");
    reduceInto(*S, *Near, *Plan, Part, /*ClearTarget=*/true);
    redistribute(Part, *S, *D);
    return true;
  }

  /// The layout src reduced along the axis has: each row on the threads
  /// that hold part of it, so that the plan applies.
  std::optional<Fragment> projectedLayout(const Fragment &S,
                                          llvm::ArrayRef<int64_t> Shape) {
    std::vector<unsigned> Kept;
    for (unsigned K = 0; K != S.getInputDim(); ++K)
      if (K != Axis)
        Kept.push_back(K);
    return deriveProjectedFragment(S, Kept, Shape, kernelThreadCount(Kernel));
  }

  /// Fragment src, shared dst (TileLang allows it): reduce into a
  /// temporary fragment in the layout derived from src, then one thread
  /// per row, the replica-0 holder of the row's first src element (which
  /// holds the result), stores it; insert-barriers orders the shared
  /// accesses around. One writer per element keeps `clear = false` a
  /// single read-modify-write.
  bool lowerToShared() {
    std::string Why;
    auto S = layoutOf(Src, Why);
    auto DstShape = Dst->getType().getStaticShape();
    if (!S)
      return fail(Why);
    if (!DstShape)
      return fail("the destination needs a static shape");
    auto Near = projectedLayout(*S, *DstShape);
    auto Plan = Near ? planFragmentReduce(*S, *Near, Axis, WarpSize, Why)
                     : std::nullopt;
    if (!Plan)
      return fail(Why);
    Value *Part = allocFragment(*Near, "red_part");
    reduceInto(*S, *Near, *Plan, Part, /*ClearTarget=*/true);
    copyLoop(*S, [&](llvm::ArrayRef<Value *> X) {
      Value *First = B.createCmp(CmpPred::Eq, X[Axis], B.createConstInt(0));
      B.setInsertionPointToEnd(B.createIf(First)->getBody(0));
      if (S->getReplicateSize() > 1)
        enterFirstReplicaGuard(*S, X);
      std::vector<Value *> E = rowIndices(X);
      Value *V = B.createLoad(Part, E);
      if (!Clear)
        V = combineValues(B, kind(), B.createLoad(Dst, E), V);
      B.createStore(V, Dst, E);
    });
    return true;
  }

  /// Target (layout D) = reduce(src), or op(Target, reduce(src)).
  void reduceInto(const Fragment &S, const Fragment &D,
                  const ReduceThreadPlan &Plan, Value *Target,
                  bool ClearTarget) {
    Value *Acc = ClearTarget ? Target : allocFragment(D, "red_acc");
    forEachRegister(Plan, [&](int64_t, llvm::ArrayRef<Value *> E) {
      B.createStore(identityValue(B, kind(), DT), Acc, E);
    });
    emitLocalFold(S, Acc);
    combineThreads(Plan, Acc, Target, ClearTarget);
  }

  /// Dst (layout D) = Part through a shared staging buffer, folded into
  /// the old dst when clear = false. Part is read in a loop over src (the
  /// threads of a row hold the same sum and store the same value): a loop
  /// over Part's own, possibly degenerate, replicated layout might not be
  /// bindable.
  void redistribute(Value *Part, const Fragment &S, const Fragment &D) {
    std::vector<ir::Dim> Dims(Dst->getType().getDims().begin(),
                              Dst->getType().getDims().end());
    Value *Stage =
        allocScratch(Type::buffer(Scope::Shared, Dims, DT), "red_stage");
    copyLoop(S, [&](llvm::ArrayRef<Value *> X) {
      std::vector<Value *> E = rowIndices(X);
      B.createStore(B.createLoad(Part, E), Stage, E);
    });
    emitBarrier(B);
    copyLoop(D, [&](llvm::ArrayRef<Value *> E) {
      Value *V = B.createLoad(Stage, E);
      if (!Clear)
        V = combineValues(B, kind(), B.createLoad(Dst, E), V);
      B.createStore(V, Dst, E);
    });
    emitBarrier(B);
  }

  void copyLoop(const Fragment &L,
                llvm::function_ref<void(llvm::ArrayRef<Value *>)> Body) {
    Operation *Par = createLoop(L.getInputShape(), L.toString());
    Builder::InsertionGuard G(B);
    B.setInsertionPointToEnd(Par->getBody());
    Body(Par->getBody().getArguments());
  }

  Value *allocFragment(const Fragment &L, llvm::StringRef Name) {
    const Type &T = Dst->getType();
    std::vector<ir::Dim> Dims(T.getDims().begin(), T.getDims().end());
    Value *Buf = allocAtKernelStart(
        Type::buffer(Scope::Fragment, Dims, T.getDType()), Name);
    Buf->getDefiningOp()->setAttr("layout", Attribute::string(L.toString()));
    return Buf;
  }

  /// Calls F(r, constant indices of e_r) for each used register r.
  void forEachRegister(
      const ReduceThreadPlan &Plan,
      llvm::function_ref<void(int64_t, llvm::ArrayRef<Value *>)> F) {
    for (unsigned R = 0; R != Plan.RegisterElement.size(); ++R) {
      if (!Plan.RegisterElement[R])
        continue;
      std::vector<Value *> Idx;
      for (int64_t X : *Plan.RegisterElement[R])
        Idx.push_back(B.createConstInt(X));
      F(R, Idx);
    }
  }

  /// parallel over src with its layout: acc[row] = op(acc[row], src[x]).
  void emitLocalFold(const Fragment &S, Value *Acc) {
    Operation *Par = createLoop(S.getInputShape(), S.toString());
    Builder::InsertionGuard G(B);
    B.setInsertionPointToEnd(Par->getBody());
    std::vector<Value *> Vars = Par->getBody().getArguments();
    if (S.getReplicateSize() > 1)
      enterFirstReplicaGuard(S, Vars);
    Value *X = prepareValue(B, kind(), B.createLoad(Src, Vars), DT);
    std::vector<Value *> Row = rowIndices(Vars);
    Value *Old = B.createLoad(Acc, Row);
    B.createStore(combineValues(B, kind(), Old, X), Acc, Row);
  }

  /// `if S.thread(vars, rep = 0) == tx`: replicas do not count twice.
  void enterFirstReplicaGuard(const Fragment &S, llvm::ArrayRef<Value *> Vars) {
    layout::VarMap Map;
    Map["rep"] = layout::IndexExpr(0);
    AtomValues Atoms;
    for (unsigned K = 0; K != Vars.size(); ++K)
      Atoms[Fragment::inputVarName(K)] = Vars[K];
    layout::IndexExpr Owner =
        layout::simplify(layout::substitute(S.getForwardThread(), Map));
    Value *Tx = emitLinearThreadId(B, Kernel);
    Value *Cond = B.createCmp(CmpPred::Eq, emitIndexExpr(B, Owner, Atoms), Tx);
    B.setInsertionPointToEnd(B.createIf(Cond)->getBody(0));
  }

  /// The dst indices of the src element at loop variables Vars.
  std::vector<Value *> rowIndices(llvm::ArrayRef<Value *> Vars) {
    unsigned DstRank = Dst->getType().getDims().size();
    std::vector<Value *> Row(Vars.begin(), Vars.end());
    if (DstRank == Vars.size())
      Row[Axis] = B.createConstInt(0);
    else if (Vars.size() == 1)
      Row[0] = B.createConstInt(0);
    else
      Row.erase(Row.begin() + Axis);
    return Row;
  }

  /// Shuffle butterfly, then the cross-warp exchange, then the old dst.
  void combineThreads(const ReduceThreadPlan &Plan, Value *Acc, Value *Target,
                      bool ClearTarget) {
    bool Wide = !Plan.WarpOffsets.empty();
    Value *Scratch = nullptr, *Tx = nullptr;
    if (Wide) {
      Scratch = allocScratch(scratchType(Plan), "red_buf");
      Tx = emitLinearThreadId(B, Kernel);
    }
    forEachRegister(Plan, [&](int64_t R, llvm::ArrayRef<Value *> E) {
      Value *V = B.createLoad(Acc, E);
      for (int64_t M : Plan.LaneMasks)
        V = combineValues(B, kind(), V, emitShflXor(B, V, M, WarpSize));
      if (Wide)
        B.createStore(V, Scratch, {B.createConstInt(R), Tx});
      else
        finish(V, Target, ClearTarget, E);
    });
    if (!Wide)
      return;
    emitBarrier(B);
    forEachRegister(Plan, [&](int64_t R, llvm::ArrayRef<Value *> E) {
      Value *Reg = B.createConstInt(R);
      Value *V = B.createLoad(Scratch, {Reg, Tx});
      for (int64_t S : Plan.WarpOffsets) {
        Value *Peer = B.createBinary(OpKind::Xor, Tx, B.createConstInt(S));
        V = combineValues(B, kind(), V, B.createLoad(Scratch, {Reg, Peer}));
      }
      finish(V, Target, ClearTarget, E);
    });
    emitBarrier(B);
  }

  /// [R, P]: P is the thread count rounded up to a power of 2, so that
  /// tx ^ s stays inside for every thread.
  Type scratchType(const ReduceThreadPlan &Plan) {
    int64_t P = 1;
    while (P < kernelThreadCount(Kernel))
      P *= 2;
    return Type::buffer(
        Scope::Shared,
        {ir::Dim(int64_t(Plan.RegisterElement.size())), ir::Dim(P)}, DT);
  }

  void finish(Value *V, Value *Target, bool ClearTarget,
              llvm::ArrayRef<Value *> E) {
    if (!ClearTarget)
      V = combineValues(B, kind(), B.createLoad(Target, E), V);
    B.createStore(V, Target, E);
  }

  //===--- Shared (or global) source: a serial fold per dst element -------===//

  bool lowerSerial() {
    auto DstShape = Dst->getType().getStaticShape();
    auto SrcShape = Src->getType().getStaticShape();
    if (!DstShape || !SrcShape)
      return fail("the buffers need static shapes");
    std::string LoopLayout;
    if (Dst->isBufferIn(Scope::Fragment)) {
      std::string Why;
      auto D = layoutOf(Dst, Why);
      if (!D)
        return fail(Why);
      LoopLayout = D->toString();
    } else {
      LoopLayout =
          layout::makeDefaultFragment(*DstShape, kernelThreadCount(Kernel), 1)
              .toString();
    }
    Value *Acc = allocAtKernelStart(
        Type::buffer(Scope::Local, {ir::Dim(1)}, DT), "red_acc");
    emitBarrier(B);
    Operation *Par = createLoop(*DstShape, LoopLayout);
    {
      Builder::InsertionGuard G(B);
      B.setInsertionPointToEnd(Par->getBody());
      emitSerialFold(Par->getBody().getArguments(), (*SrcShape)[Axis], Acc);
    }
    emitBarrier(B);
    return true;
  }

  void emitSerialFold(llvm::ArrayRef<Value *> Vars, int64_t Extent,
                      Value *Acc) {
    Value *Zero = B.createConstInt(0);
    B.createStore(Clear ? identityValue(B, kind(), DT)
                        : B.createLoad(Dst, Vars),
                  Acc, {Zero});
    Operation *For = B.createFor(Zero, B.createConstInt(Extent),
                                 B.createConstInt(1), "serial", "k");
    {
      Builder::InsertionGuard G(B);
      B.setInsertionPointToEnd(For->getBody());
      Value *K = For->getBody().getArgument(0);
      Value *X =
          prepareValue(B, kind(), B.createLoad(Src, srcIndices(Vars, K)), DT);
      Value *Old = B.createLoad(Acc, {Zero});
      B.createStore(combineValues(B, kind(), Old, X), Acc, {Zero});
    }
    B.createStore(B.createLoad(Acc, {Zero}), Dst, Vars);
  }

  /// The src indices for dst element Vars at position K of the reduced dim.
  std::vector<Value *> srcIndices(llvm::ArrayRef<Value *> Vars, Value *K) {
    unsigned SrcRank = Src->getType().getDims().size();
    std::vector<Value *> Idx(Vars.begin(), Vars.end());
    if (Idx.size() == SrcRank)
      Idx[Axis] = K;
    else if (SrcRank == 1)
      Idx[0] = K;
    else
      Idx.insert(Idx.begin() + Axis, K);
    return Idx;
  }

  //===--- Helpers --------------------------------------------------------===//

  Operation *createLoop(llvm::ArrayRef<int64_t> Extents,
                        const std::string &Layout) {
    return createLayoutLoop(B, Extents, Layout);
  }

  /// A shared buffer this reduce writes before reading, reading nothing
  /// it did not write itself: `scratch` tells plan-shared-memory that it
  /// holds no value across the loops around the reduce.
  Value *allocScratch(const Type &T, llvm::StringRef Name) {
    Value *Buf = allocAtKernelStart(T, Name);
    Buf->getDefiningOp()->setAttr("scratch", Attribute::boolean(true));
    return Buf;
  }

  Value *allocAtKernelStart(const Type &T, llvm::StringRef Name) {
    return allocAtStart(Kernel, T, Name);
  }
};

class LowerReducePass : public Pass {
public:
  llvm::StringRef name() const override { return "lower-reduce"; }
  llvm::StringRef description() const override {
    return "Lower T.reduce_* to thread-local folds, warp shuffles and "
           "shared-memory exchanges";
  }

  bool run(Operation &Module, PassContext &Ctx) override {
    bool OK = lowerEach(
        Module,
        [](Operation &Op) {
          return (Op.is(OpKind::Reduce) || Op.is(OpKind::FinalizeReducer) ||
                  Op.is(OpKind::AllReduce)) &&
                 Op.getParentOfKind(OpKind::Kernel);
        },
        [&](Operation &Op) {
          return ReduceLowering(Op, Ctx.Diags, Ctx.Tgt.WarpSize).run();
        });
    forgetReducers(Module);
    return OK;
  }

private:
  /// Once their finalizes are lowered, reducers are plain fragments (which
  /// lower-fragments turns into local arrays).
  static void forgetReducers(Operation &Module) {
    Module.walk([](Operation &Op) {
      if (Op.is(OpKind::Alloc))
        Op.removeAttr("reducer");
    });
  }
};

} // namespace

std::unique_ptr<Pass> tilec::createLowerReducePass() {
  return std::make_unique<LowerReducePass>();
}
