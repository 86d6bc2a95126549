//===- GemmLayout.cpp - Tensor cores or CUDA cores, and operand layouts ---===//

#include "GemmLayout.h"
#include "AMD/MfmaGemm.h"
#include "IndexExprToIR.h"
#include "LoopAccess.h"
#include "MmaGemm.h"
#include "tilec/IR/Builder.h"
#include "tilec/Support/Diagnostics.h"
#include <algorithm>
#include <map>

using namespace tilec;
using namespace tilec::ir;
using layout::floorDiv;
using layout::floorMod;
using layout::Fragment;
using layout::GemmWarpPolicy;
using layout::IndexExpr;

//===----------------------------------------------------------------------===//
// Grids and fragments
//===----------------------------------------------------------------------===//

std::optional<GemmWarpPolicy> tilec::parseGemmPolicy(llvm::StringRef Name) {
  if (Name == "Square")
    return GemmWarpPolicy::Square;
  if (Name == "FullRow")
    return GemmWarpPolicy::FullRow;
  if (Name == "FullCol")
    return GemmWarpPolicy::FullCol;
  return std::nullopt;
}

std::optional<FmaGemmGrid> tilec::makeFmaGrid(int64_t M, int64_t N, int64_t TM,
                                              int64_t TN, int64_t VN) {
  if (M < 1 || N < 1 || TM < 1 || TN < 1 || VN < 1 || M % TM || N % TN ||
      (N / TN) % VN)
    return std::nullopt;
  return FmaGemmGrid{M, N, TM, TN, VN};
}

/// 4, 2 or 1: the widest column group dividing the columns of a thread.
static int64_t columnGroup(int64_t ColsPerThread) {
  for (int64_t VN : {4, 2})
    if (ColsPerThread % VN == 0)
      return VN;
  return 1;
}

/// Policy order among grids using the same number of threads: true when
/// \p A comes before \p B.
static bool preferGrid(const FmaGemmGrid &A, const FmaGemmGrid &B,
                       GemmWarpPolicy Policy) {
  if (A.threads() != B.threads())
    return A.threads() > B.threads();
  switch (Policy) {
  case GemmWarpPolicy::FullRow:
    return A.TM > B.TM;
  case GemmWarpPolicy::FullCol:
    return A.TN > B.TN;
  case GemmWarpPolicy::Square:
    break;
  }
  int64_t LoadsA = A.rowsPerThread() + A.colsPerThread();
  int64_t LoadsB = B.rowsPerThread() + B.colsPerThread();
  if (LoadsA != LoadsB)
    return LoadsA < LoadsB;
  return A.TN > B.TN;
}

std::vector<FmaGemmGrid> tilec::rankFmaGrids(int64_t M, int64_t N,
                                             int64_t Threads,
                                             GemmWarpPolicy Policy) {
  std::vector<FmaGemmGrid> Grids;
  for (int64_t TM = 1; TM <= std::min(M, Threads); ++TM)
    for (int64_t TN = 1; TN <= N && TM * TN <= Threads; ++TN)
      if (M % TM == 0 && N % TN == 0)
        Grids.push_back({M, N, TM, TN, columnGroup(N / TN)});
  std::stable_sort(Grids.begin(), Grids.end(),
                   [&](const FmaGemmGrid &A, const FmaGemmGrid &B) {
                     return preferGrid(A, B, Policy);
                   });
  return Grids;
}

static IndexExpr rowGroup(const FmaGemmGrid &G, IndexExpr Row) {
  return floorMod(Row, G.TM);
}
static IndexExpr rowSlot(const FmaGemmGrid &G, IndexExpr Row) {
  return floorDiv(Row, G.TM);
}
static IndexExpr colGroup(const FmaGemmGrid &G, IndexExpr Col) {
  return floorMod(floorDiv(Col, G.VN), G.TN);
}
static IndexExpr colSlot(const FmaGemmGrid &G, IndexExpr Col) {
  return floorDiv(Col, G.VN * G.TN) * G.VN + floorMod(Col, G.VN);
}
/// The replica variable, or 0 without replication.
static IndexExpr replicaVar(int64_t Replicas) {
  return Replicas > 1 ? Fragment::replicateVar() : IndexExpr(0);
}

Fragment tilec::makeFmaFragmentC(const FmaGemmGrid &G) {
  IndexExpr I = Fragment::inputVar(0), J = Fragment::inputVar(1);
  IndexExpr Thread = rowGroup(G, I) * G.TN + colGroup(G, J);
  IndexExpr Reg = rowSlot(G, I) * G.colsPerThread() + colSlot(G, J);
  return Fragment({G.M, G.N}, {Reg}, Thread);
}

Fragment tilec::makeFmaFragmentA(const FmaGemmGrid &G, int64_t K,
                                 bool Transposed) {
  IndexExpr Row = Fragment::inputVar(Transposed ? 1 : 0);
  IndexExpr Kv = Fragment::inputVar(Transposed ? 0 : 1);
  IndexExpr Thread = rowGroup(G, Row) * G.TN + replicaVar(G.TN);
  IndexExpr Reg = rowSlot(G, Row) * K + Kv;
  layout::Shape Shape =
      Transposed ? layout::Shape{K, G.M} : layout::Shape{G.M, K};
  return Fragment(Shape, {Reg}, Thread, G.TN);
}

Fragment tilec::makeFmaFragmentB(const FmaGemmGrid &G, int64_t K,
                                 bool Transposed) {
  IndexExpr Col = Fragment::inputVar(Transposed ? 0 : 1);
  IndexExpr Kv = Fragment::inputVar(Transposed ? 1 : 0);
  IndexExpr Thread = replicaVar(G.TM) * G.TN + colGroup(G, Col);
  IndexExpr Reg = colSlot(G, Col) * K + Kv;
  layout::Shape Shape =
      Transposed ? layout::Shape{G.N, K} : layout::Shape{K, G.N};
  return Fragment(Shape, {Reg}, Thread, G.TM);
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

namespace {

struct GemmInfo {
  Operation *Op;
  int64_t M, N, K;
  bool TransA, TransB;
  GemmWarpPolicy Policy;
  FmaGemmGrid Grid;
  std::optional<MmaPlan> Mma;
};

/// The layout one fragment must have, and the first gemm operand asking.
struct Requirement {
  Fragment Layout;
  Operation *Gemm;
  std::string Role;
};

std::string name(const Value *V) { return V->getNameHint().str(); }

class KernelGemmLayout {
public:
  KernelGemmLayout(Operation &Kernel, const Target &Tgt,
                   DiagnosticEngine &Diags)
      : Kernel(Kernel), Tgt(Tgt), Diags(Diags) {}

  /// The gemms of each thread range (the kernel's, a role block's) share
  /// grids and warp rows among themselves.
  bool run() {
    std::vector<std::pair<ThreadRange, std::vector<Operation *>>> Groups;
    Kernel.walk([&](Operation &Op) {
      if (!Op.is(OpKind::Gemm))
        return;
      ThreadRange R = threadRangeOf(Op);
      auto It =
          llvm::find_if(Groups, [&](const auto &G) { return G.first == R; });
      if (It == Groups.end())
        It = Groups.insert(Groups.end(), {R, {}});
      It->second.push_back(&Op);
    });
    for (auto &[Range, Ops] : Groups) {
      Threads = Range.Count;
      Gemms.clear();
      for (Operation *Op : Ops)
        // wgmma-layout has planned (and pinned) these already.
        if (!Op->getAttr("wgmma") && !collect(*Op))
          return false;
      chooseGrids();
      unifyWarpRows();
      for (GemmInfo &G : Gemms)
        if (!require(G))
          return false;
    }
    annotate();
    return true;
  }

private:
  Operation &Kernel;
  const Target &Tgt;
  DiagnosticEngine &Diags;
  /// The thread count of the range whose gemms are being planned.
  int64_t Threads = 0;
  std::vector<GemmInfo> Gemms;
  /// Shared operands and the swizzle their tensor-core gemm wants.
  std::vector<std::pair<Value *, std::string>> SharedLayouts;
  std::vector<Value *> Order;
  std::map<const Value *, Requirement> Required;

  bool unsupported(const Operation &Op, const std::string &Why) {
    Diags.report(Op.getLoc(), diag::err_lowering_unsupported)
        << "this T.gemm" << Why;
    return false;
  }

  bool collect(Operation &Op) {
    Value *A = Op.getOperand(0), *B = Op.getOperand(1), *C = Op.getOperand(2);
    if (!C->isBufferIn(Scope::Fragment))
      return unsupported(Op, "the accumulator '" + name(C) +
                                 "' must be a fragment (T.alloc_fragment)");
    for (Value *V : {A, B}) {
      Scope S = V->getType().getScope();
      if (S != Scope::Shared && S != Scope::Fragment)
        return unsupported(Op, "operand '" + name(V) +
                                   "' must be a shared or fragment buffer");
    }
    auto SA = A->getType().getStaticShape();
    auto SC = C->getType().getStaticShape();
    auto Policy =
        parseGemmPolicy(Op.getStringAttr("policy").value_or("Square"));
    if (!SA || !SC || !B->getType().getStaticShape() || !Policy)
      return unsupported(Op, "its operands need static shapes and a valid "
                             "policy");
    bool TransA = Op.getBoolAttr("transpose_a").value_or(false);
    bool TransB = Op.getBoolAttr("transpose_b").value_or(false);
    int64_t K = TransA ? (*SA)[0] : (*SA)[1];
    if (Tgt.TensorCores && Tgt.Matrix == Target::MatrixCore::Mfma)
      if (auto Why = mfmaKPackProblem(Op, Tgt, Threads))
        return unsupported(Op, *Why);
    std::optional<MmaPlan> Mma = planMmaGemm(Op, Tgt, Threads);
    if (bitWidth(A->getType().getDType()) == 4)
      if (auto Why = int4Problem(Op, Mma.has_value()))
        return unsupported(Op, *Why);
    Gemms.push_back({&Op, (*SC)[0], (*SC)[1], K, TransA, TransB, *Policy,
                     FmaGemmGrid{}, Mma});
    return true;
  }

  /// 4-bit operands are packed two per byte, so they are read only as
  /// whole 32-bit words of k: mma.sync m16n8k64 with K-contiguous shared
  /// operands (ldmatrix moves bytes), never one element at a time.
  static std::optional<std::string> int4Problem(const Operation &Op,
                                                bool Planned) {
    const char *Need = "int4 operands need tensor cores (mma.sync m16n8k64)";
    for (Value *V : {Op.getOperand(0), Op.getOperand(1)})
      if (V->getType().getScope() != Scope::Shared)
        return std::string(Need) + " and shared A and B, but '" + name(V) +
               "' is a fragment";
    if (Op.getBoolAttr("transpose_a").value_or(false) ||
        !Op.getBoolAttr("transpose_b").value_or(false))
      return std::string(Need) +
             " and K-contiguous operands: A [M, K] and B [N, K] with "
             "transpose_B=True";
    if (!Planned)
      return std::string(Need) +
             ", warp tiles of 16 x 8 and K a multiple of 64 (and tensor "
             "cores not turned off)";
    return std::nullopt;
  }

  /// One grid for all CUDA-core gemms when one serves each with its best
  /// thread count; otherwise each gemm's own best.
  void chooseGrids() {
    std::vector<GemmInfo *> Fma;
    for (GemmInfo &G : Gemms)
      if (!G.Mma)
        Fma.push_back(&G);
    if (Fma.empty())
      return;
    std::vector<std::vector<FmaGemmGrid>> Ranked;
    for (GemmInfo *G : Fma)
      Ranked.push_back(rankFmaGrids(G->M, G->N, Threads, G->Policy));
    for (size_t I = 0; I != Fma.size(); ++I)
      Fma[I]->Grid = Ranked[I].front();
    for (const FmaGemmGrid &Candidate : Ranked.front()) {
      std::vector<FmaGemmGrid> Shared;
      for (size_t I = 0; I != Fma.size(); ++I) {
        auto G =
            makeFmaGrid(Fma[I]->M, Fma[I]->N, Candidate.TM, Candidate.TN, 1);
        if (!G || G->threads() != Ranked[I].front().threads())
          break;
        G->VN = columnGroup(G->colsPerThread());
        Shared.push_back(*G);
      }
      if (Shared.size() != Fma.size())
        continue;
      for (size_t I = 0; I != Fma.size(); ++I)
        Fma[I]->Grid = Shared[I];
      return;
    }
  }

  /// Tensor-core gemms of one kernel split their rows over the same number
  /// of warps when one split fits them all (the first gemm's, else the
  /// first that fits): a row statistic of one accumulator (attention's
  /// running max and sum) then lives on the threads that hold the same
  /// rows of the next one.
  void unifyWarpRows() {
    std::vector<MmaPlan *> Plans;
    for (GemmInfo &G : Gemms)
      if (G.Mma)
        Plans.push_back(&*G.Mma);
    if (Plans.size() < 2)
      return;
    int64_t Warps = Threads / Plans.front()->warpSize();
    auto FitsAll = [&](int64_t MW) {
      return llvm::all_of(Plans, [&](const MmaPlan *P) {
        return Warps % MW == 0 && P->M % (P->tileM() * MW) == 0 &&
               P->N % (P->tileN() * (Warps / MW)) == 0;
      });
    };
    std::vector<int64_t> Order = {Plans.front()->MWarps};
    for (int64_t MW = 1; MW <= Warps; ++MW)
      Order.push_back(MW);
    for (int64_t MW : Order) {
      if (!FitsAll(MW))
        continue;
      for (MmaPlan *P : Plans) {
        P->MWarps = MW;
        P->NWarps = Warps / MW;
      }
      return;
    }
  }

  /// Tensor cores: the mma fragments for C and fragment operands, a
  /// bank-conflict-free layout for shared operands.
  bool requireMma(GemmInfo &G) {
    Operation &Op = *G.Op;
    const MmaPlan &P = *G.Mma;
    recordMmaPlan(Op, P);
    if (!require(Op.getOperand(2), P.fragmentC(), Op, "C"))
      return false;
    Value *A = Op.getOperand(0), *B = Op.getOperand(1);
    if (A->isBufferIn(Scope::Fragment) && !require(A, P.fragmentA(), Op, "A"))
      return false;
    if (B->isBufferIn(Scope::Fragment) && !require(B, P.fragmentB(), Op, "B"))
      return false;
    requireSwizzle(A, /*KInner=*/!P.TransA, P.inBits());
    requireSwizzle(B, /*KInner=*/P.TransB, P.inBits());
    return true;
  }

  /// 8-bit operands with k outer are loaded element-wise: padding spreads
  /// their columns over the banks. Everything else is read with ldmatrix
  /// along 16-byte rows: the 128/64/32-byte XOR swizzles.
  void requireSwizzle(Value *Buf, bool KInner, int64_t Bits) {
    // A region's layout is its buffer's (resolve-subviews): swizzle a 2-D
    // buffer whole, leave a staged one as it is.
    if (Operation *Def = Buf->getDefiningOp();
        Def && Def->is(OpKind::Subview)) {
      Buf = Def->getOperand(0);
      if (Buf->getType().rank() != 2)
        return;
    }
    if (Buf->isBufferIn(Scope::Fragment)) {
      // A register operand filled from shared memory (the rs/sr/rr
      // placements) reads that tile along the same k rows: same layout.
      for (Value *Src : sharedCopySources(Buf))
        requireSwizzle(Src, KInner, Bits);
      return;
    }
    if (hasUserLayout(Buf) || llvm::any_of(SharedLayouts, [&](const auto &S) {
          return S.first == Buf;
        }))
      return;
    const char *Fn =
        Bits == 8 && !KInner ? "make_padded_layout" : "make_swizzled_layout";
    SharedLayouts.push_back({Buf, std::string(Fn) + "(" + name(Buf) + ")"});
  }

  /// The shared buffers whose elements are stored into fragment \p Buf
  /// (a T.copy, expanded into a loop of loads and stores by now).
  static llvm::SmallVector<Value *, 2> sharedCopySources(const Value *Buf) {
    llvm::SmallVector<Value *, 2> Sources;
    for (const Use &U : Buf->getUses()) {
      if (!U.User->is(OpKind::Store) || U.User->getGroup(1).front() != Buf)
        continue;
      Operation *Def = U.User->getOperand(0)->getDefiningOp();
      if (Def && Def->is(OpKind::Cast))
        Def = Def->getOperand(0)->getDefiningOp();
      if (!Def || !Def->is(OpKind::Load))
        continue;
      Value *Src = Def->getOperand(0);
      if (Src->getType().getScope() == Scope::Shared &&
          !llvm::is_contained(Sources, Src))
        Sources.push_back(Src);
    }
    return Sources;
  }

  static bool hasUserLayout(const Value *Buf) {
    return llvm::any_of(Buf->getUses(), [](const Use &U) {
      return U.User->is(OpKind::AnnotateLayout);
    });
  }

  bool require(GemmInfo &G) {
    if (G.Mma)
      return requireMma(G);
    Operation &Op = *G.Op;
    Op.setAttr("fma_grid",
               Attribute::intArray({G.Grid.TM, G.Grid.TN, G.Grid.VN}));
    if (!require(Op.getOperand(2), makeFmaFragmentC(G.Grid), Op, "C"))
      return false;
    Value *A = Op.getOperand(0), *B = Op.getOperand(1);
    if (A->isBufferIn(Scope::Fragment) &&
        !require(A, makeFmaFragmentA(G.Grid, G.K, G.TransA), Op, "A"))
      return false;
    if (B->isBufferIn(Scope::Fragment) &&
        !require(B, makeFmaFragmentB(G.Grid, G.K, G.TransB), Op, "B"))
      return false;
    return true;
  }

  bool require(Value *Buf, const Fragment &F, Operation &Gemm,
               llvm::StringRef Role) {
    auto It = Required.find(Buf);
    if (It == Required.end()) {
      Order.push_back(Buf);
      Required.insert({Buf, Requirement{F, &Gemm, Role.str()}});
      return true;
    }
    const Requirement &Prev = It->second;
    if (sameFragment(Prev.Layout, F))
      return true;
    Diags.report(Gemm.getLoc(), diag::err_layout_conflict)
        << name(Buf)
        << ("as the " + Role.str() +
            " operand of this T.gemm it needs a different register layout "
            "than as the " +
            Prev.Role + " operand of an earlier T.gemm (CUDA-core gemm)");
    Diags.report(Prev.Gemm->getLoc(), diag::note_layout_use)
        << name(Buf) << "is the " + Prev.Role + " operand of a T.gemm";
    return false;
  }

  void annotate() {
    Builder B;
    for (Value *Buf : Order) {
      Operation *Alloc = Buf->getDefiningOp();
      const Requirement &R = Required.at(Buf);
      if (Alloc)
        B.setInsertionPointAfter(Alloc);
      else
        B.setInsertionPointToStart(Kernel.getBody());
      B.setLoc(R.Gemm->getLoc());
      B.createAnnotateLayout(Buf, R.Layout.toString());
    }
    for (auto &[Buf, Text] : SharedLayouts) {
      if (!Buf->getDefiningOp())
        continue;
      B.setInsertionPointAfter(Buf->getDefiningOp());
      B.setLoc(Buf->getDefiningOp()->getLoc());
      B.createAnnotateLayout(Buf, Text);
    }
  }
};

class GemmLayoutPass : public Pass {
public:
  llvm::StringRef name() const override { return "gemm-layout"; }
  llvm::StringRef description() const override {
    return "Choose tensor cores or CUDA cores for each T.gemm and pin its "
           "operand layouts";
  }

  bool run(Operation &Module, PassContext &Ctx) override {
    return lowerEach(
        Module, [](Operation &Op) { return Op.is(OpKind::Kernel); },
        [&](Operation &Kernel) {
          return KernelGemmLayout(Kernel, Ctx.Tgt, Ctx.Diags).run();
        });
  }
};

} // namespace

std::unique_ptr<Pass> tilec::createGemmLayoutPass() {
  return std::make_unique<GemmLayoutPass>();
}
