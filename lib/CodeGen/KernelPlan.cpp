//===- KernelPlan.cpp - What the emitter needs to know up front -----------===//

#include "KernelPlan.h"
#include "NameTable.h"
#include "tilec/IR/ConstantMatch.h"
#include "tilec/Support/Diagnostics.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringExtras.h"
#include <fmt/format.h>

using namespace tilec;
using namespace tilec::codegen;
using namespace tilec::ir;
using llvm::StringRef;

namespace {

bool isTileOp(const Operation &Op) {
  switch (Op.getKind()) {
  case OpKind::Copy:
  case OpKind::Fill:
  case OpKind::Gemm:
  case OpKind::Reduce:
  case OpKind::Cumsum:
  case OpKind::UseSwizzle:
  case OpKind::AnnotateLayout:
  case OpKind::Parallel:
    return true;
  case OpKind::Atomic:
    // The region form; the vector form (lanes) is lowered code.
    return !Op.getGroup(1)[0]->getType().isScalar() && !Op.hasAttr("lanes");
  default:
    return false;
  }
}

/// Scalar ops the launcher can evaluate on the host, and the workspaces it
/// allocates.
bool isHostOp(const Operation &Op) {
  return isBinaryOp(Op.getKind()) || isUnaryOp(Op.getKind()) ||
         Op.is(OpKind::Const) || Op.is(OpKind::Cmp) || Op.is(OpKind::Select) ||
         Op.is(OpKind::Cast) || Op.is(OpKind::Math) || Op.is(OpKind::Kernel) ||
         Op.is(OpKind::Check) || isWorkspace(Op);
}

std::string valueName(const Value *V) {
  return V->getNameHint().empty() ? "<unnamed>" : V->getNameHint().str();
}

/// Reports what lowering left behind: tile ops, fragment buffers, device
/// ops at func level.
bool checkLowered(const Operation &Func, DiagnosticEngine &Diags) {
  bool Ok = true;
  for (const Operation &Op : Func.getBody())
    if (!isHostOp(Op)) {
      Diags.report(Op.getLoc(), diag::err_codegen_host_op) << Op.getName();
      Ok = false;
    }
  for (const Value *Arg : Func.getBody().getArguments())
    if (Arg->getType().isBuffer() &&
        Arg->getType().getScope() != Scope::Global) {
      Diags.report(Func.getLoc(), diag::err_codegen_unsupported) << fmt::format(
          "a {} buffer parameter ('{}')",
          scopeName(Arg->getType().getScope()).str(), valueName(Arg));
      Ok = false;
    }
  Func.walk([&](const Operation &Op) {
    // A tma_load completes only on the mbarrier lower-pipelined gives it.
    if (isTileOp(Op) || (Op.is(OpKind::TmaLoad) && Op.getNumGroups() != 3)) {
      Diags.report(Op.getLoc(), diag::err_codegen_op_not_lowered)
          << Op.getName();
      Ok = false;
    }
    if (Op.is(OpKind::Alloc) &&
        Op.getResult()->getType().getScope() == Scope::Fragment) {
      Diags.report(Op.getLoc(), diag::err_codegen_fragment_not_lowered)
          << valueName(Op.getResult());
      Ok = false;
    }
  });
  return Ok;
}

/// The launcher name: the func name when it is a usable C identifier,
/// else `tilec_<name>` (a prim_func called `main` must not become main()).
std::string launcherName(StringRef FuncName) {
  std::string S = sanitizeIdentifier(FuncName);
  return S == FuncName ? S : sanitizeIdentifier("tilec_" + FuncName.str());
}

/// An assumption is a C condition over symbol names and integer literals.
bool checkAssume(const FuncPlan &Plan, const std::string &Text,
                 DiagnosticEngine &Diags) {
  auto Bad = [&](const std::string &Why) {
    Diags.report(Plan.Func->getLoc(), diag::err_codegen_bad_assume)
        << Text << Why;
    return false;
  };
  StringRef Rest = Text;
  while (!Rest.empty()) {
    char C = Rest.front();
    if (llvm::isAlpha(C) || C == '_') {
      StringRef Id =
          Rest.take_while([](char X) { return llvm::isAlnum(X) || X == '_'; });
      if (!llvm::is_contained(Plan.Symbols, Id))
        return Bad(fmt::format("'{}' is not a symbol of the kernel", Id.str()));
      Rest = Rest.drop_front(Id.size());
      continue;
    }
    if (!llvm::isDigit(C) && !StringRef(" %*+-/()<>=!&|").contains(C))
      return Bad(fmt::format("unexpected character '{}'", C));
    Rest = Rest.drop_front();
  }
  return !Text.empty() || Bad("empty condition");
}

std::vector<std::string> stringArray(const Operation &Op, StringRef Name) {
  const Attribute *A = Op.getAttr(Name);
  if (!A)
    return {};
  return A->getStringArray().value_or(std::vector<std::string>());
}

int64_t alignUp(int64_t V, int64_t A) { return (V + A - 1) / A * A; }

/// 128 bytes when some dim spans a multiple of 128 bytes (swizzle-friendly
/// rows), else 16 (the widest vector access).
int64_t sharedAlignment(const Type &T) {
  int64_t Bits = bitWidth(T.getDType());
  for (const Dim &D : T.getDims())
    if (D.isStatic() && (D.getValue() * Bits / 8) % 128 == 0 &&
        D.getValue() * Bits % 8 == 0)
      return 128;
  return 16;
}

/// The buffer whose memory \p Buf is: a global view's source (a
/// T.make_tensor view of an address is its own).
const Value *storageOf(const Value *Buf) {
  const Operation *Def = Buf->getDefiningOp();
  if (Def && Def->is(OpKind::View) &&
      Buf->getType().getScope() == Scope::Global &&
      Def->getOperand(0)->getType().isBuffer())
    return Def->getOperand(0);
  return Buf;
}

/// Gives a TMA load the index of its tensor map, adding the map the first
/// time a (tensor, box, swizzle, row dimension) combination is seen.
void recordTmaMap(KernelPlan &K, const Operation &Op) {
  std::vector<int64_t> Box = *Op.getIntArrayAttr("box");
  const Value *Src = Op.getGroup(1)[0];
  TmaMap Map = {Src, Box[0], Box[1], *Op.getIntAttr("swizzle"),
                Op.getIntAttr("row_dim").value_or(Src->getType().rank() - 2)};
  auto Same = [&](const TmaMap &M) {
    return M.Global == Map.Global && M.BoxRows == Map.BoxRows &&
           M.BoxCols == Map.BoxCols && M.Swizzle == Map.Swizzle &&
           M.RowDim == Map.RowDim;
  };
  auto It = llvm::find_if(K.TmaMaps, Same);
  K.TmaMapOf[&Op] = It - K.TmaMaps.begin();
  if (It == K.TmaMaps.end())
    K.TmaMaps.push_back(Map);
}

void recordAccess(KernelPlan &K, const Operation &Op) {
  auto Mark = [&](const Value *Buf, bool Read, bool Write, unsigned Bytes) {
    BufferAccess &A = K.Access[storageOf(Buf)];
    A.Read |= Read;
    A.Written |= Write;
    A.VectorBytes = std::max(A.VectorBytes, Bytes);
  };
  switch (Op.getKind()) {
  case OpKind::Load:
    return Mark(Op.getOperand(0), true, false, 0);
  case OpKind::Store:
    return Mark(Op.getGroup(1)[0], false, true, 0);
  case OpKind::Atomic:
    return Mark(Op.getOperand(0), true, true, 0);
  case OpKind::CallExtern:
    // The callee may read and write through any address it gets, and
    // plugins reinterpret register arrays as uint4: align those.
    for (unsigned G = 0; G != Op.getNumGroups(); ++G) {
      const Value *Buf = Op.getGroup(G)[0];
      if (Buf->getType().isBuffer())
        Mark(Buf, true, true,
             Buf->getType().getScope() == Scope::Local ? 16 : 0);
    }
    return;
  case OpKind::VCopy: {
    // A converting vcopy has a different width on each side.
    auto Bytes = [&](unsigned G) {
      return unsigned(*Op.getIntAttr("lanes") *
                      bitWidth(Op.getGroup(G)[0]->getType().getDType()) / 8);
    };
    Mark(Op.getOperand(0), false, true, Bytes(0));
    return Mark(Op.getGroup(1)[0], true, false, Bytes(1));
  }
  case OpKind::BulkReduce:
    // The engine's 16-byte alignment.
    Mark(Op.getOperand(0), true, true, 16);
    return Mark(Op.getGroup(1)[0], true, false, 16);
  case OpKind::CpAsync: {
    unsigned Bytes = *Op.getIntAttr("bytes");
    Mark(Op.getOperand(0), false, true, Bytes);
    return Mark(Op.getGroup(1)[0], true, false, Bytes);
  }
  case OpKind::TmaLoad:
    Mark(Op.getOperand(0), false, true, 16);
    Mark(Op.getGroup(1)[0], true, false, 16);
    return recordTmaMap(K, Op);
  case OpKind::Ldmatrix:
  case OpKind::Stmatrix:
    Mark(Op.getOperand(0), false, true, 16);
    return Mark(Op.getGroup(1)[0], true, false, 16);
  case OpKind::Wgmma:
    K.Wgmma = true;
    // The accumulators (and an A fragment) are passed as 32-bit words.
    for (unsigned G = 0; G != 3; ++G)
      Mark(Op.getGroup(G)[0], true, G == 0, 16);
    return;
  case OpKind::WgmmaFence:
  case OpKind::WgmmaWait:
    for (unsigned G = 0; G != Op.getNumGroups(); ++G)
      Mark(Op.getGroup(G)[0], true, true, 16);
    return;
  case OpKind::Mma:
  case OpKind::Mfma:
    Mark(Op.getOperand(0), true, true, 16);
    Mark(Op.getGroup(1)[0], true, false, 16);
    return Mark(Op.getGroup(2)[0], true, false, 16);
  default:
    return;
  }
}

bool definedInside(const Operation &Kernel, const Value *V) {
  const Operation *Def = V->getDefiningOp() ? V->getDefiningOp()
                                            : V->getOwnerBlock()->getParentOp();
  return Def && Kernel.isAncestorOf(Def) && Def != &Kernel;
}

/// Captures in parameter order: buffers, scalar params, symbols, then
/// func-level results; constants are emitted as literals instead.
void orderCaptures(const FuncPlan &Plan, KernelPlan &K,
                   const llvm::DenseSet<const Value *> &Used) {
  auto Take = [&](const Value *V) {
    if (Used.count(V))
      K.Captures.push_back(V);
  };
  for (const Value *V : Plan.ParamArgs)
    if (V->getType().isBuffer())
      Take(V);
  for (const Value *V : Plan.ParamArgs)
    if (V->getType().isScalar())
      Take(V);
  for (const Value *V : Plan.SymbolArgs)
    Take(V);
  for (const Operation &Op : Plan.Func->getBody())
    if (Op.getNumResults() == 1 && !Op.is(OpKind::Const))
      Take(Op.getResult());
}

} // namespace

std::string codegen::checkStatus(const Operation &Check) {
  return Check.getStringAttr("status") == "shape"
             ? "TILEC_ERROR_SHAPE_MISMATCH"
             : "TILEC_ERROR_ASSERTION_FAILED";
}

bool codegen::isGridBarrier(const Operation &Op) {
  return Op.is(OpKind::Barrier) && Op.getStringAttr("scope") == "grid";
}

namespace {

void planCaptures(const FuncPlan &Plan, KernelPlan &K) {
  llvm::DenseSet<const Value *> Used;
  K.Op->walk([&](const Operation &Op) {
    if (&Op == K.Op)
      return;
    K.Cooperative |= isGridBarrier(Op);
    K.DependentLaunch |=
        Op.is(OpKind::GridDependency) && Op.getStringAttr("action") == "wait";
    recordAccess(K, Op);
    for (const Value *V : Op.getOperands())
      if (!definedInside(*K.Op, V))
        Used.insert(V);
  });
  std::vector<const Value *> Buffers(Used.begin(), Used.end());
  for (const Value *V : Buffers)
    if (V->getType().isBuffer())
      for (const Dim &D : V->getType().getDims().drop_front())
        if (D.isSymbolic())
          if (const Value *S = Plan.symbolArg(D.getSymbol()))
            Used.insert(S);
  orderCaptures(Plan, K, Used);
}

/// The slot plan-shared-memory chose for \p Alloc (its bytes must fit the
/// reservation); nullopt when it chose none.
std::optional<int64_t> plannedOffset(const Operation &Alloc, int64_t Bytes) {
  auto Offset = Alloc.getIntAttr("shared_offset");
  auto Reserved = Alloc.getIntAttr("shared_bytes");
  if (!Offset || !Reserved || *Reserved < Bytes)
    return std::nullopt;
  return Offset;
}

/// Offsets from plan-shared-memory where it chose them (buffers with
/// disjoint lifetimes share bytes); any other buffer goes after everything
/// planned, in declaration order.
void planShared(KernelPlan &K) {
  std::vector<std::pair<const Operation *, int64_t>> Unplanned;
  K.Op->walk([&](const Operation &Op) {
    if (!Op.is(OpKind::Alloc))
      return;
    const Type &T = Op.getResult()->getType();
    if (T.getScope() != Scope::Shared || Op.getResult()->use_empty())
      return;
    int64_t Bytes = T.sizeInBytes().value_or(0);
    if (auto Offset = plannedOffset(Op, Bytes)) {
      K.Shared.push_back({Op.getResult(), *Offset, Bytes});
      K.SharedBytes = std::max(K.SharedBytes, *Offset + Bytes);
    } else {
      Unplanned.push_back({&Op, Bytes});
    }
  });
  for (auto &[Op, Bytes] : Unplanned) {
    int64_t Offset =
        alignUp(K.SharedBytes, sharedAlignment(Op->getResult()->getType()));
    K.Shared.push_back({Op->getResult(), Offset, Bytes});
    K.SharedBytes = Offset + Bytes;
  }
  K.SharedBytes = alignUp(K.SharedBytes, 16);
}

/// Launch configurations CUDA would reject. Sema reports them at the
/// T.Kernel line; this catches IR input and grids that became constant in
/// the passes. Symbolic grid extents are checked by the launcher.
bool checkLaunchLimits(const KernelPlan &K, const Target &Tgt,
                       DiagnosticEngine &Diags) {
  // Each dim is at most 1024 below, so the product cannot overflow.
  for (size_t D = 0; D != 3; ++D)
    if (K.Threads[D] > Tgt.MaxBlockDims[D]) {
      Diags.report(K.Op->getLoc(), diag::err_launch_limit)
          << "threads in dimension " + std::to_string(D) << K.Threads[D]
          << Tgt.MaxBlockDims[D];
      return false;
    }
  if (K.numThreads() > Tgt.MaxThreadsPerBlock) {
    Diags.report(K.Op->getLoc(), diag::err_too_many_threads)
        << K.numThreads() << Tgt.MaxThreadsPerBlock;
    return false;
  }
  bool Ok = true;
  for (unsigned D = 0; D != K.Op->getNumOperands(); ++D) {
    std::optional<int64_t> N = matchConstantInt(K.Op->getOperand(D));
    std::string What = "grid extent " + std::to_string(D);
    if (N && *N <= 0) {
      Diags.report(K.Op->getLoc(), diag::err_non_positive_extent) << What << *N;
      Ok = false;
    } else if (N && *N > Tgt.MaxGridDims[D]) {
      Diags.report(K.Op->getLoc(), diag::err_launch_limit)
          << What << *N << Tgt.MaxGridDims[D];
      Ok = false;
    }
  }
  return Ok;
}

bool planKernel(const FuncPlan &Plan, KernelPlan &K, const Target &Tgt,
                DiagnosticEngine &Diags) {
  std::vector<int64_t> Threads = *K.Op->getIntArrayAttr("threads");
  for (size_t I = 0; I != Threads.size(); ++I)
    K.Threads[I] = Threads[I];
  if (!checkLaunchLimits(K, Tgt, Diags))
    return false;
  planCaptures(Plan, K);
  planShared(K);
  if (K.SharedBytes <= Tgt.MaxSharedMemoryBytes)
    return true;
  Diags.report(K.Op->getLoc(), diag::err_shared_memory_limit)
      << K.SharedBytes << Tgt.MaxSharedMemoryBytes << Tgt.Name;
  return false;
}

void mergeAccess(FuncPlan &Plan, const KernelPlan &K) {
  for (const auto &[V, Access] : K.Access) {
    if (V->getType().getScope() != Scope::Global)
      continue;
    BufferAccess &A = Plan.Access[V];
    A.Read |= Access.Read;
    A.Written |= Access.Written;
    A.VectorBytes = std::max(A.VectorBytes, Access.VectorBytes);
  }
}

void planSignature(const Operation &Func, FuncPlan &Plan) {
  Plan.Func = &Func;
  Plan.Name = launcherName(*Func.getStringAttr("name"));
  Plan.Symbols = stringArray(Func, "symbols");
  Plan.Params = stringArray(Func, "params");
  Plan.Assumes = stringArray(Func, "assumes");
  const Block &Body = Func.getBody();
  for (const Operation &Op : Body)
    if (Op.is(OpKind::Check))
      Plan.Checks.push_back(
          {checkStatus(Op), Op.getStringAttr("message").value_or("").str()});
  for (unsigned I = 0; I != Body.getNumArguments(); ++I)
    (I < Plan.Symbols.size() ? Plan.SymbolArgs : Plan.ParamArgs)
        .push_back(Body.getArgument(I));
  int64_t N = Plan.Params.size();
  for (int64_t I :
       Func.getIntArrayAttr("out_idx").value_or(std::vector<int64_t>()))
    Plan.OutIdx.push_back(I < 0 ? I + N : I);
}

} // namespace

bool codegen::isWorkspace(const Operation &Op) {
  return Op.is(OpKind::Alloc) &&
         Op.getResult()->getType().getScope() == Scope::Global;
}

const Value *FuncPlan::symbolArg(StringRef Name) const {
  for (size_t I = 0; I != Symbols.size(); ++I)
    if (Symbols[I] == Name)
      return SymbolArgs[I];
  return nullptr;
}

bool FuncPlan::isOutput(unsigned ParamIndex) const {
  return llvm::is_contained(OutIdx, int64_t(ParamIndex));
}

const char *codegen::paramRole(const FuncPlan &Plan, unsigned I) {
  if (Plan.isOutput(I))
    return "output";
  auto It = Plan.Access.find(Plan.ParamArgs[I]);
  if (It == Plan.Access.end() || !It->second.Written)
    return "input";
  return It->second.Read ? "inout" : "output";
}

bool codegen::planFunc(const Operation &Func, const CodeGenOptions &Opts,
                       FuncPlan &Plan, DiagnosticEngine &Diags) {
  Plan.Dial = &dialectFor(Opts.Tgt);
  planSignature(Func, Plan);
  bool Ok = checkLowered(Func, Diags);
  for (const std::string &A : Plan.Assumes)
    Ok &= checkAssume(Plan, A, Diags);
  if (!Ok)
    return false;
  for (const Operation &Op : Func.getBody())
    if (Op.is(OpKind::Kernel)) {
      Plan.Kernels.emplace_back();
      Plan.Kernels.back().Op = &Op;
    }
  bool Several = Plan.Kernels.size() > 1;
  for (size_t I = 0; I != Plan.Kernels.size(); ++I) {
    KernelPlan &K = Plan.Kernels[I];
    K.Entry = Plan.Name + "_kernel" + (Several ? std::to_string(I) : "");
    Ok &= planKernel(Plan, K, Opts.Tgt, Diags);
    mergeAccess(Plan, K);
  }
  return Ok;
}
