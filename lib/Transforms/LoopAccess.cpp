//===- LoopAccess.cpp - What a parallel loop touches, and how -------------===//

#include "LoopAccess.h"
#include "tilec/IR/ConstantMatch.h"
#include "llvm/ADT/StringExtras.h"
#include <numeric>

using namespace tilec;
using namespace tilec::ir;
using layout::Fragment;

/// Enumeration-based checks give up (conservatively) above this size.
static constexpr int64_t CheckLimit = int64_t(1) << 21;

std::vector<BufferAccess> tilec::collectAccesses(Operation &Loop) {
  std::vector<BufferAccess> Out;
  Loop.walk([&](Operation &Op) {
    if (&Op == &Loop)
      return;
    for (unsigned G = 0; G != Op.getNumGroups(); ++G)
      if (Op.getGroup(G).front()->getType().isBuffer())
        Out.push_back({&Op, G, Op.getGroup(G).front()});
  });
  return Out;
}

static std::vector<int64_t> extentsOf(const Operation &Loop) {
  return Loop.getIntArrayAttr("extents").value_or(std::vector<int64_t>{});
}

static int loopVarPosition(const Operation &Loop, const Value *V) {
  if (!V->isBlockArgument() || V->getOwnerBlock() != &Loop.getBody())
    return -2;
  return V->getIndex();
}

std::optional<std::vector<int>>
tilec::fragmentVarPositions(const Operation &Loop, const BufferAccess &A) {
  std::vector<int64_t> Extents = extentsOf(Loop);
  llvm::ArrayRef<Dim> Dims = A.Buffer->getType().getDims();
  std::vector<int> Pos;
  for (unsigned D = 0; D != Dims.size(); ++D) {
    Value *I = A.indices()[D];
    int P = loopVarPosition(Loop, I);
    bool UnitDim = Dims[D].isStatic() && Dims[D].getValue() == 1;
    if (UnitDim && (isConstantInt(I, 0) || (P >= 0 && Extents[P] == 1)))
      Pos.push_back(-1);
    else if (P >= 0 && Extents[P] != 1)
      Pos.push_back(P);
    else
      return std::nullopt;
  }
  return Pos;
}

std::vector<unsigned> tilec::keptVars(llvm::ArrayRef<int> VarPos) {
  std::vector<unsigned> Kept;
  for (int P : VarPos)
    if (P >= 0)
      Kept.push_back(P);
  return Kept;
}

AccessKind tilec::classifyFragmentAccess(const Operation &Loop,
                                         const BufferAccess &A,
                                         llvm::ArrayRef<int> VarPos) {
  std::vector<int64_t> Extents = extentsOf(Loop);
  llvm::ArrayRef<Dim> Dims = A.Buffer->getType().getDims();
  std::vector<unsigned> NonUnit;
  for (unsigned K = 0; K != Extents.size(); ++K)
    if (Extents[K] != 1)
      NonUnit.push_back(K);
  std::vector<unsigned> Kept = keptVars(VarPos);
  for (unsigned D = 0, N = 0; D != Dims.size(); ++D) {
    if (VarPos[D] < 0)
      continue;
    if (Dims[D].getValue() != Extents[VarPos[D]] ||
        (N && Kept[N - 1] >= Kept[N]))
      return AccessKind::Other;
    ++N;
  }
  return Kept == NonUnit ? AccessKind::Identity : AccessKind::Broadcast;
}

namespace {

/// An index as sum(Coef[k] * var_k) + (something known to be a multiple of
/// Mult; Mult == 0: the constant 0).
struct Affine {
  std::vector<int64_t> Coef;
  int64_t Mult = 0;
  bool Ok = true;
};

bool definedInside(const Operation &Loop, const Value *V) {
  if (const Operation *Def = V->getDefiningOp())
    return Loop.isAncestorOf(Def);
  const Operation *Owner = V->getOwnerBlock()->getParentOp();
  return Owner && Loop.isAncestorOf(Owner);
}

Affine affineOf(const Operation &Loop, const Value *V) {
  Affine A;
  A.Coef.assign(extentsOf(Loop).size(), 0);
  if (auto C = matchConstantInt(V)) {
    A.Mult = std::abs(*C);
    return A;
  }
  if (int P = loopVarPosition(Loop, V); P >= 0) {
    A.Coef[P] = 1;
    return A;
  }
  if (!definedInside(Loop, V)) {
    A.Mult = knownMultiple(V);
    return A;
  }
  const Operation *Def = V->getDefiningOp();
  if (!Def ||
      !(Def->is(OpKind::Add) || Def->is(OpKind::Sub) || Def->is(OpKind::Mul))) {
    A.Ok = false;
    return A;
  }
  Affine L = affineOf(Loop, Def->getOperand(0));
  Affine R = affineOf(Loop, Def->getOperand(1));
  if (Def->is(OpKind::Mul)) {
    auto C = matchConstantInt(Def->getOperand(1));
    if (!C) {
      std::swap(L, R);
      C = matchConstantInt(Def->getOperand(0));
    }
    auto IsInvariant = [](const Affine &X) {
      return llvm::all_of(X.Coef, [](int64_t C) { return C == 0; });
    };
    if (!C && !(IsInvariant(L) && IsInvariant(R)))
      A.Ok = false;
    for (unsigned K = 0; K != A.Coef.size(); ++K)
      A.Coef[K] = L.Coef[K] * C.value_or(0);
    A.Mult = L.Mult * R.Mult;
    A.Ok &= L.Ok && R.Ok;
    return A;
  }
  int64_t Sign = Def->is(OpKind::Sub) ? -1 : 1;
  for (unsigned K = 0; K != A.Coef.size(); ++K)
    A.Coef[K] = L.Coef[K] + Sign * R.Coef[K];
  A.Mult = std::gcd(L.Mult, R.Mult);
  A.Ok = L.Ok && R.Ok;
  return A;
}

/// The row stride of dim D: static part and symbolic factors.
std::pair<int64_t, std::vector<std::string>> strideOf(const Type &T,
                                                      unsigned D) {
  int64_t Static = 1;
  std::vector<std::string> Symbols;
  for (unsigned E = D + 1; E < T.rank(); ++E) {
    const Dim &X = T.getDims()[E];
    if (X.isStatic())
      Static *= X.getValue();
    else
      Symbols.push_back(X.getSymbol().str());
  }
  return {Static, Symbols};
}

/// Whether access A can move V consecutive elements along the last loop
/// variable in one aligned access; adds the assumptions it needs. With
/// MemoryBound, a fragment access takes any V: registers have no access
/// width, so a loop that loads 16 bytes of fp16 into a float fragment moves
/// 8 elements per run, not the 4 of a 16-byte float access.
bool allows(const Operation &Loop, const BufferAccess &A, int64_t V,
            bool MemoryBound, std::set<std::string> &Assumes) {
  const Type &T = A.Buffer->getType();
  bool TooWide = V * memoryBits(T.getDType()) > 128;
  if (T.getScope() == Scope::Fragment)
    return MemoryBound || !TooWide;
  if (TooWide)
    return false;
  unsigned Last = extentsOf(Loop).size() - 1, Rank = T.rank();
  std::vector<Affine> Idx;
  for (Value *I : A.indices())
    Idx.push_back(affineOf(Loop, I));
  if (llvm::any_of(Idx, [](const Affine &X) { return !X.Ok; }))
    return false;
  if (llvm::none_of(Idx, [&](const Affine &X) { return X.Coef[Last] != 0; }))
    return true; // the same element for the whole run
  const Affine &Inner = Idx[Rank - 1];
  if (Inner.Coef[Last] != 1 || Inner.Mult % V != 0)
    return false;
  for (unsigned K = 0; K != Last; ++K)
    if (Inner.Coef[K] % V != 0)
      return false;
  for (unsigned D = 0; D + 1 < Rank; ++D) {
    bool IsZero = Idx[D].Mult == 0 &&
                  llvm::all_of(Idx[D].Coef, [](int64_t X) { return X == 0; });
    if (Idx[D].Coef[Last] != 0)
      return false;
    if (IsZero)
      continue;
    auto [Static, Symbols] = strideOf(T, D);
    int64_t Need = V / std::gcd(V, Static);
    if (Need == 1)
      continue;
    if (Symbols.empty())
      return false;
    std::string Cond = llvm::join(Symbols, " * ");
    Assumes.insert(Cond + " % " + std::to_string(Need) + " == 0");
  }
  return true;
}

} // namespace

int64_t tilec::chooseVectorWidth(Operation &Loop,
                                 std::set<std::string> &Assumes, int64_t MaxV) {
  std::vector<int64_t> Extents = extentsOf(Loop);
  std::vector<BufferAccess> Accesses = collectAccesses(Loop);
  // 32 lanes fill 16 bytes only with 4-bit elements (packed two per byte).
  bool Packed = llvm::any_of(Accesses, [](const BufferAccess &A) {
    return bitWidth(A.Buffer->getType().getDType()) == 4;
  });
  bool MemoryBound = llvm::any_of(Accesses, [](const BufferAccess &A) {
    return A.Buffer->getType().getScope() != Scope::Fragment;
  });
  for (int64_t V : {32, 16, 8, 4, 2}) {
    if (V > MaxV || Extents.empty() || Extents.back() % V != 0 ||
        (V == 32 && !Packed))
      continue;
    std::set<std::string> Needed;
    if (llvm::all_of(Accesses, [&](const BufferAccess &A) {
          return allows(Loop, A, V, MemoryBound, Needed);
        })) {
      Assumes.insert(Needed.begin(), Needed.end());
      return V;
    }
  }
  return 1;
}

//===----------------------------------------------------------------------===//
// Layout predicates by enumeration
//===----------------------------------------------------------------------===//

int64_t tilec::flatRegister(const Fragment &F, llvm::ArrayRef<int64_t> Idx) {
  auto Regs = F.forward(Idx);
  if (!Regs)
    return -1;
  int64_t Flat = 0;
  for (unsigned D = 0; D != Regs->size(); ++D)
    Flat = Flat * F.getOutputShape()[D] + (*Regs)[D];
  return Flat;
}

static std::vector<int64_t> threadsOf(const Fragment &F,
                                      llvm::ArrayRef<int64_t> Idx) {
  std::vector<int64_t> Ts;
  for (int64_t R = 0; R != F.getReplicateSize(); ++R)
    Ts.push_back(F.forwardThread(Idx, R).value_or(-1));
  return Ts;
}

static bool tooLarge(const Fragment &F) {
  return layout::shapeSize(F.getInputShape()) * F.getReplicateSize() >
         CheckLimit;
}

/// Same input shape and replication, and for every element the same
/// threads (and, with Registers, the same register).
static bool sameMapping(const Fragment &A, const Fragment &B, bool Registers) {
  if (A.getInputShape() != B.getInputShape() ||
      A.getReplicateSize() != B.getReplicateSize())
    return false;
  if (A.toString() == B.toString())
    return true;
  if (tooLarge(A))
    return false;
  bool Same = true;
  layout::forEachIndex(A.getInputShape(), [&](llvm::ArrayRef<int64_t> Idx) {
    if (!Same)
      return;
    std::vector<int64_t> TA = threadsOf(A, Idx), TB = threadsOf(B, Idx);
    llvm::sort(TA);
    llvm::sort(TB);
    Same = TA == TB &&
           (!Registers || flatRegister(A, Idx) == flatRegister(B, Idx));
  });
  return Same;
}

bool tilec::sameFragment(const Fragment &A, const Fragment &B) {
  return sameMapping(A, B, /*Registers=*/true);
}

bool tilec::sameThreads(const Fragment &A, const Fragment &B) {
  return sameMapping(A, B, /*Registers=*/false);
}

static bool hasRunLength(const Fragment &L, int64_t V) {
  llvm::ArrayRef<int64_t> Shape = L.getInputShape();
  if (Shape.empty() || Shape.back() % V != 0)
    return false;
  bool Ok = true;
  layout::forEachIndex(Shape, [&](llvm::ArrayRef<int64_t> Idx) {
    if (!Ok || Idx.back() % V != 0)
      return;
    int64_t Reg = flatRegister(L, Idx);
    std::vector<int64_t> Ts = threadsOf(L, Idx);
    layout::Indices Next(Idx.begin(), Idx.end());
    Ok = Reg >= 0 && Reg % V == 0;
    for (int64_t K = 1; Ok && K < V; ++K) {
      Next.back() = Idx.back() + K;
      Ok = flatRegister(L, Next) == Reg + K && threadsOf(L, Next) == Ts;
    }
  });
  return Ok;
}

int64_t tilec::runLength(const Fragment &L) {
  if (tooLarge(L))
    return 1;
  for (int64_t V : {16, 8, 4, 2})
    if (hasRunLength(L, V))
      return V;
  return 1;
}

bool tilec::holdsBroadcast(const Fragment &Loop, const Fragment &F,
                           llvm::ArrayRef<unsigned> Kept) {
  if (tooLarge(Loop) || tooLarge(F))
    return false;
  std::vector<std::vector<int64_t>> Holders;
  layout::forEachIndex(F.getInputShape(), [&](llvm::ArrayRef<int64_t> Idx) {
    std::vector<int64_t> Ts = threadsOf(F, Idx);
    llvm::sort(Ts);
    Holders.push_back(std::move(Ts));
  });
  llvm::ArrayRef<int64_t> Shape = Loop.getInputShape();
  bool Ok = true;
  layout::forEachIndex(Shape, [&](llvm::ArrayRef<int64_t> Idx) {
    if (!Ok)
      return;
    int64_t P = 0;
    for (unsigned K : Kept)
      P = P * Shape[K] + Idx[K];
    for (int64_t T : threadsOf(Loop, Idx))
      Ok &= std::binary_search(Holders[P].begin(), Holders[P].end(), T);
  });
  return Ok;
}

std::set<std::string> tilec::readAssumes(const ir::Operation &Func) {
  const ir::Attribute *A = Func.getAttr("assumes");
  auto List = A ? A->getStringArray() : std::nullopt;
  return List ? std::set<std::string>(List->begin(), List->end())
              : std::set<std::string>();
}

void tilec::writeAssumes(ir::Operation &Func,
                         const std::set<std::string> &Assumes) {
  if (Assumes.empty())
    return;
  Func.setAttr("assumes", ir::Attribute::stringArray(std::vector<std::string>(
                              Assumes.begin(), Assumes.end())));
}
