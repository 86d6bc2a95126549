//===- BankConflicts.cpp - Shared-memory bank conflicts of lowered code ---===//

#include "BankConflicts.h"
#include "IndexInterpreter.h"
#include "tilec/IR/Operation.h"
#include "tilec/Support/Diagnostics.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>
#include <array>
#include <fmt/format.h>

using namespace tilec;
using namespace tilec::ir;
using namespace tilec::banks;

//===----------------------------------------------------------------------===//
// Wavefront model
//===----------------------------------------------------------------------===//

unsigned banks::lanesPerPhase(int64_t Bytes) {
  if (Bytes <= 4)
    return 32;
  return Bytes <= 8 ? 16 : 8;
}

const BankModel &banks::nvidiaBanks() {
  static const BankModel M{32, 4, 32, false};
  return M;
}

const BankModel &banks::amdBanks() {
  static const BankModel M{32, 4, 64, true};
  return M;
}

/// ds_read_b128's phases on CDNA: four lanes of one quarter-wavefront with
/// four of the next, in this order, in each half-wavefront.
static constexpr std::array<std::array<unsigned, 2>, 4> AmdRead128Groups = {
    {{0, 20}, {4, 16}, {8, 28}, {12, 24}}};

std::vector<std::vector<unsigned>> BankModel::phases(int64_t Bytes, bool Read,
                                                     unsigned Lanes) const {
  std::vector<std::vector<unsigned>> Out;
  if (Amd && Bytes > 8 && Read) {
    for (unsigned Half = 0; Half < Lanes; Half += 32)
      for (const auto &G : AmdRead128Groups) {
        Out.emplace_back();
        for (unsigned First : G)
          for (unsigned L = Half + First; L != Half + First + 4; ++L)
            if (L < Lanes)
              Out.back().push_back(L);
      }
    return Out;
  }
  unsigned Phase = lanesPerPhase(Bytes);
  for (unsigned First = 0; First < Lanes; First += Phase) {
    Out.emplace_back();
    for (unsigned L = First; L != std::min(First + Phase, Lanes); ++L)
      Out.back().push_back(L);
  }
  return Out;
}

Wavefronts &Wavefronts::operator+=(const Wavefronts &O) {
  Ideal += O.Ideal;
  Actual += O.Actual;
  Ways = std::max(Ways, O.Ways);
  return *this;
}

Wavefronts banks::countPhase(llvm::ArrayRef<int64_t> Addresses, int64_t Bytes,
                             const BankModel &M) {
  // No instruction moves more than 16 bytes per lane; the cap keeps an
  // absurd attribute from making the word list huge.
  int64_t Span = std::clamp<int64_t>(Bytes, 1, 128);
  std::vector<int64_t> Words;
  for (int64_t A : Addresses) {
    if (A < 0)
      continue;
    for (int64_t W = A / M.BankBytes; W <= (A + Span - 1) / M.BankBytes; ++W)
      Words.push_back(W);
  }
  if (Words.empty())
    return {};
  llvm::sort(Words);
  Words.erase(std::unique(Words.begin(), Words.end()), Words.end());
  std::vector<int64_t> PerBank(M.NumBanks, 0);
  for (int64_t W : Words)
    ++PerBank[W % M.NumBanks];
  Wavefronts R;
  R.Actual = *std::max_element(PerBank.begin(), PerBank.end());
  R.Ideal = (int64_t(Words.size()) + M.NumBanks - 1) / M.NumBanks;
  R.Ways = (R.Actual + R.Ideal - 1) / R.Ideal;
  return R;
}

Wavefronts banks::countWavefronts(llvm::ArrayRef<int64_t> Addresses,
                                  int64_t Bytes, const BankModel &M,
                                  bool Read) {
  Wavefronts R;
  for (const auto &Phase : M.phases(Bytes, Read, Addresses.size())) {
    std::vector<int64_t> In;
    for (unsigned L : Phase)
      In.push_back(Addresses[L]);
    R += countPhase(In, Bytes, M);
  }
  return R;
}

//===----------------------------------------------------------------------===//
// Which operands of which ops access shared memory
//===----------------------------------------------------------------------===//

static bool isSharedGroup(const Operation &Op, unsigned G) {
  if (G >= Op.getNumGroups())
    return false;
  const Type &T = Op.getGroup(G).front()->getType();
  return T.isBufferIn(Scope::Shared);
}

static int64_t elementBytes(const Operation &Op, unsigned G) {
  return std::max<int64_t>(
      bitWidth(Op.getGroup(G).front()->getType().getDType()) / 8, 1);
}

std::vector<SharedAccess> banks::sharedAccessesOf(const Operation &Op,
                                                  unsigned WarpSize) {
  std::vector<SharedAccess> Out;
  auto Add = [&](unsigned G, int64_t Bytes, unsigned Lanes, const char *Dir) {
    if (isSharedGroup(Op, G))
      Out.push_back({G, Bytes, Lanes, Dir});
  };
  switch (Op.getKind()) {
  case OpKind::Load:
    Add(0, elementBytes(Op, 0), WarpSize, "read");
    break;
  case OpKind::Store:
    Add(1, elementBytes(Op, 1), WarpSize, "write");
    break;
  case OpKind::Atomic:
    // The element and vector forms; the region form is a tile operator.
    if (auto Lanes = Op.getIntAttr("lanes")) {
      Add(0, elementBytes(Op, 0) * *Lanes, WarpSize, "atomic");
      Add(1, elementBytes(Op, 1) * *Lanes, WarpSize, "read");
    } else if (Op.getNumGroups() == 2 &&
               !Op.getGroup(1).front()->getType().isBuffer()) {
      Add(0, elementBytes(Op, 0), WarpSize, "atomic");
    }
    break;
  case OpKind::VCopy:
    for (unsigned G : {0u, 1u})
      if (isSharedGroup(Op, G))
        Add(G, elementBytes(Op, G) * Op.getIntAttr("lanes").value_or(1),
            WarpSize, G == 0 ? "write" : "read");
    break;
  case OpKind::CpAsync:
    Add(0, Op.getIntAttr("bytes").value_or(16), WarpSize, "write");
    break;
  case OpKind::Stmatrix:
    Add(0, 16,
        8 * unsigned(
                std::clamp<int64_t>(Op.getIntAttr("count").value_or(4), 1, 4)),
        "write");
    break;
  case OpKind::Ldmatrix:
    Add(1, 16,
        8 * unsigned(
                std::clamp<int64_t>(Op.getIntAttr("count").value_or(4), 1, 4)),
        "read");
    break;
  default:
    break;
  }
  return Out;
}

//===----------------------------------------------------------------------===//
// Simulating the warps of a kernel
//===----------------------------------------------------------------------===//

namespace {

constexpr int64_t MaxLoopIterations = 64;
constexpr int64_t RuntimeLoopIterations = 2;
constexpr int64_t MaxPointsPerAccess = 1 << 12;
constexpr int64_t SimulatedWarps = 4;
/// Larger `threads` entries (invalid anyway) are clamped so that thread
/// counts cannot overflow.
constexpr int64_t MaxThreadsPerDim = 1 << 16;

/// What simulating one shared access found.
struct Row {
  const Operation *Op = nullptr;
  SharedAccess Access{};
  Wavefronts W;
  /// Warp-wide accesses measured / whose addresses could not be evaluated.
  int64_t WarpAccesses = 0;
  int64_t Unevaluated = 0;
  bool Truncated = false;
};

/// An enclosing control-flow op and the region the access is in.
struct Enclosing {
  const Operation *Op;
  unsigned Region;
};

using LaneMask = std::vector<bool>;

class AccessSimulator {
public:
  AccessSimulator(const Operation &Kernel, std::array<int64_t, 3> Threads,
                  const BankModel &Model);
  Row simulate(const Operation &Op, const SharedAccess &A);

private:
  void collectDeps(const Value *V, llvm::DenseSet<const Value *> &Seen);
  void enumerate(unsigned Level, const LaneMask &Active);
  void enumerateFor(unsigned Level, const Operation &Loop,
                    const LaneMask &Active);
  void enumerateParallel(unsigned Level, const Operation &Loop,
                         const LaneMask &Active);
  void enumerateIf(unsigned Level, const Enclosing &If, const LaneMask &Active);
  void bindAll(const Value *V, int64_t X);
  void measure(const LaneMask &Active);
  std::optional<int64_t> address(IndexInterpreter &Lane) const;

  const Operation &Kernel;
  const BankModel &Model;
  std::vector<IndexInterpreter> Lanes;
  std::vector<Enclosing> Chain;
  /// Block arguments the address, the guards or the loop bounds use.
  llvm::DenseSet<const Value *> Deps;
  std::vector<int64_t> Shape;
  Row Cur;
  int64_t Points = 0;
};

AccessSimulator::AccessSimulator(const Operation &Kernel,
                                 std::array<int64_t, 3> Threads,
                                 const BankModel &Model)
    : Kernel(Kernel), Model(Model) {
  int64_t Total = Threads[0] * Threads[1] * Threads[2];
  for (int64_t T = 0; T < std::min(Total, SimulatedWarps * Model.WarpSize);
       ++T) {
    Lanes.emplace_back(Threads);
    Lanes.back().setThread(T);
  }
}

void AccessSimulator::collectDeps(const Value *Root,
                                  llvm::DenseSet<const Value *> &Seen) {
  // A worklist, not recursion: operand chains may be arbitrarily long.
  std::vector<const Value *> Work = {Root};
  while (!Work.empty()) {
    const Value *V = Work.back();
    Work.pop_back();
    if (!Seen.insert(V).second)
      continue;
    if (V->isBlockArgument())
      Deps.insert(V);
    else if (const Operation *Def = V->getDefiningOp())
      Work.insert(Work.end(), Def->getOperands().begin(),
                  Def->getOperands().end());
  }
}

Row AccessSimulator::simulate(const Operation &Op, const SharedAccess &A) {
  Cur = Row();
  Cur.Op = &Op;
  Cur.Access = A;
  Points = 0;
  Chain.clear();
  Deps.clear();
  llvm::DenseSet<const Value *> Seen;
  for (const Value *Index : Op.getGroup(A.Group).drop_front())
    collectDeps(Index, Seen);
  for (const Operation *Child = &Op; Child->getParentOp() != &Kernel;
       Child = Child->getParentOp()) {
    const Operation *P = Child->getParentOp();
    Chain.push_back({P, Child->getParentBlock()->getParent()->getIndex()});
    if (P->is(OpKind::If) || P->is(OpKind::For))
      for (const Value *Operand : P->getOperands())
        collectDeps(Operand, Seen);
  }
  std::reverse(Chain.begin(), Chain.end());
  Shape = Op.getGroup(A.Group).front()->getType().getStaticShape().value_or(
      std::vector<int64_t>());

  // Block indices the access depends on take 0 and 1, the others 0.
  std::vector<const Value *> Blocks;
  for (const Value *B : Kernel.getBody().getArguments()) {
    bindAll(B, 0);
    if (Deps.count(B))
      Blocks.push_back(B);
  }
  for (unsigned Combo = 0; Combo != 1u << Blocks.size(); ++Combo) {
    for (unsigned I = 0; I != Blocks.size(); ++I)
      bindAll(Blocks[I], (Combo >> I) & 1);
    enumerate(0, LaneMask(Lanes.size(), true));
  }
  return Cur;
}

void AccessSimulator::bindAll(const Value *V, int64_t X) {
  for (IndexInterpreter &L : Lanes)
    L.bind(V, X);
}

void AccessSimulator::enumerate(unsigned Level, const LaneMask &Active) {
  if (Points >= MaxPointsPerAccess) {
    Cur.Truncated = true;
    return;
  }
  if (Level == Chain.size()) {
    ++Points;
    return measure(Active);
  }
  const Operation &Op = *Chain[Level].Op;
  if (Op.is(OpKind::For))
    return enumerateFor(Level, Op, Active);
  if (Op.is(OpKind::Parallel))
    return enumerateParallel(Level, Op, Active);
  if (Op.is(OpKind::If))
    return enumerateIf(Level, Chain[Level], Active);
  // `while` and anything else: the body runs once.
  enumerate(Level + 1, Active);
}

/// Iterations of `for (i = Lo; i < Hi; i += Step)`.
static int64_t tripCount(int64_t Lo, int64_t Hi, int64_t Step) {
  int64_t Span = 0;
  if (Step <= 0 || Hi <= Lo || __builtin_sub_overflow(Hi, Lo, &Span))
    return 0;
  return Span / Step + (Span % Step != 0);
}

void AccessSimulator::enumerateFor(unsigned Level, const Operation &Loop,
                                   const LaneMask &Active) {
  const Value *Var = Loop.getBody().getArgument(0);
  std::vector<std::optional<int64_t>> Lo(Lanes.size()), Step(Lanes.size());
  std::vector<int64_t> Count(Lanes.size(), 0);
  int64_t Iterations = 0;
  for (size_t L = 0; L != Lanes.size(); ++L) {
    if (!Active[L])
      continue;
    Lo[L] = Lanes[L].eval(Loop.getOperand(0));
    std::optional<int64_t> Hi = Lanes[L].eval(Loop.getOperand(1));
    Step[L] = Lanes[L].eval(Loop.getOperand(2));
    Count[L] = Lo[L] && Hi && Step[L] ? tripCount(*Lo[L], *Hi, *Step[L])
                                      : RuntimeLoopIterations;
    Iterations = std::max(Iterations, Count[L]);
  }
  Iterations =
      std::min(Iterations, Deps.count(Var) ? MaxLoopIterations : int64_t(1));
  for (int64_t K = 0; K != Iterations; ++K) {
    LaneMask Next(Active);
    for (size_t L = 0; L != Lanes.size(); ++L) {
      Next[L] = Active[L] && K < Count[L];
      int64_t Offset = 0, X = 0;
      if (Lo[L] && Step[L] && !__builtin_mul_overflow(K, *Step[L], &Offset) &&
          !__builtin_add_overflow(*Lo[L], Offset, &X))
        Lanes[L].bind(Var, X);
      else
        Lanes[L].unbind(Var);
    }
    enumerate(Level + 1, Next);
  }
  for (IndexInterpreter &L : Lanes)
    L.unbind(Var);
}

void AccessSimulator::enumerateParallel(unsigned Level, const Operation &Loop,
                                        const LaneMask &Active) {
  std::vector<int64_t> Extents =
      Loop.getIntArrayAttr("extents").value_or(std::vector<int64_t>());
  const Block &Body = Loop.getBody();
  std::vector<int64_t> Counts;
  int64_t Total = 1;
  for (unsigned D = 0; D != Body.getNumArguments(); ++D) {
    int64_t E = D < Extents.size() ? std::max<int64_t>(Extents[D], 0) : 1;
    Counts.push_back(
        std::min(E, Deps.count(Body.getArgument(D)) ? MaxLoopIterations : 1));
    Total *= Counts.back();
  }
  for (int64_t P = 0; P != Total; ++P) {
    int64_t Rest = P;
    for (unsigned D = Body.getNumArguments(); D-- > 0;) {
      bindAll(Body.getArgument(D), Rest % Counts[D]);
      Rest /= Counts[D];
    }
    enumerate(Level + 1, Active);
  }
  for (const Value *Arg : Body.getArguments())
    for (IndexInterpreter &L : Lanes)
      L.unbind(Arg);
}

void AccessSimulator::enumerateIf(unsigned Level, const Enclosing &If,
                                  const LaneMask &Active) {
  bool InThen = If.Region == 0;
  LaneMask Next(Active);
  bool Any = false;
  for (size_t L = 0; L != Lanes.size(); ++L) {
    if (!Active[L])
      continue;
    std::optional<int64_t> C = Lanes[L].eval(If.Op->getOperand(0));
    Next[L] = !C || (*C != 0) == InThen;
    Any |= Next[L];
  }
  if (Any)
    enumerate(Level + 1, Next);
}

/// Byte offset of the accessed element in its buffer; std::nullopt when an
/// index is unknown or out of the static shape.
std::optional<int64_t> AccessSimulator::address(IndexInterpreter &Lane) const {
  llvm::ArrayRef<Value *> Indices =
      Cur.Op->getGroup(Cur.Access.Group).drop_front();
  if (Shape.size() != Indices.size())
    return std::nullopt;
  int64_t Flat = 0;
  for (size_t D = 0; D != Shape.size(); ++D) {
    std::optional<int64_t> I = Lane.eval(Indices[D]);
    if (!I || *I < 0 || *I >= Shape[D] ||
        __builtin_mul_overflow(Flat, Shape[D], &Flat))
      return std::nullopt;
    Flat += *I;
  }
  DType T = Cur.Op->getGroup(Cur.Access.Group).front()->getType().getDType();
  int64_t Bits = 0;
  if (__builtin_mul_overflow(Flat, int64_t(bitWidth(T)), &Bits))
    return std::nullopt;
  return Bits / 8;
}

void AccessSimulator::measure(const LaneMask &Active) {
  int64_t WarpSize = Model.WarpSize;
  for (int64_t W = 0; W * WarpSize < int64_t(Lanes.size()); ++W) {
    std::vector<int64_t> Addresses(Cur.Access.AddressLanes, InactiveLane);
    bool Any = false, Unknown = false;
    for (unsigned L = 0; L != Cur.Access.AddressLanes && !Unknown; ++L) {
      size_t Tid = W * WarpSize + L;
      if (Tid >= Lanes.size() || !Active[Tid])
        continue;
      std::optional<int64_t> A = address(Lanes[Tid]);
      Unknown = !A;
      Addresses[L] = A.value_or(InactiveLane);
      Any = true;
    }
    if (Unknown) {
      ++Cur.Unevaluated;
      continue;
    }
    if (!Any)
      continue;
    ++Cur.WarpAccesses;
    Cur.W += countWavefronts(Addresses, Cur.Access.Bytes, Model,
                             llvm::StringRef(Cur.Access.Direction) == "read");
  }
}

//===----------------------------------------------------------------------===//
// The report
//===----------------------------------------------------------------------===//

std::array<int64_t, 3> threadsOf(const Operation &Kernel) {
  std::array<int64_t, 3> T = {1, 1, 1};
  std::vector<int64_t> Attr =
      Kernel.getIntArrayAttr("threads").value_or(std::vector<int64_t>());
  for (size_t D = 0; D != std::min<size_t>(Attr.size(), 3); ++D)
    T[D] = std::clamp<int64_t>(Attr[D], 1, MaxThreadsPerDim);
  return T;
}

std::string bufferName(const Row &R) {
  llvm::StringRef Name = R.Op->getGroup(R.Access.Group).front()->getNameHint();
  return Name.empty() ? "<unnamed>" : Name.str();
}

void printRow(llvm::raw_ostream &OS, unsigned N, const Row &R,
              DiagnosticEngine &Diags) {
  std::string Loc = R.Op->getLoc().isKnown() ? Diags.describe(R.Op->getLoc())
                                             : std::string("-");
  OS << fmt::format("{:>4}  {:<9} {:<7}{:<16}{:>5} {:>9}{}{:>8}{:>8}{:>8}"
                    "{:>6}{:>12}  {}\n",
                    N, R.Op->getName().str(), R.Access.Direction, bufferName(R),
                    R.Access.Bytes, R.WarpAccesses, R.Truncated ? "+" : " ",
                    R.W.Ideal, R.W.Actual, R.W.excess(), R.W.Ways,
                    R.Unevaluated, Loc);
}

std::string simulatedWarps(const BankModel &M, int64_t Threads) {
  int64_t Warps = std::min<int64_t>(SimulatedWarps,
                                    (Threads + M.WarpSize - 1) / M.WarpSize);
  if (!M.Amd)
    return fmt::format("warps 0-{} simulated", Warps - 1);
  return fmt::format("wavefronts 0-{} of {} lanes simulated, LDS of {} banks",
                     Warps - 1, M.WarpSize, M.NumBanks);
}

void reportKernel(const Operation &Kernel, const BankModel &M,
                  DiagnosticEngine &Diags, llvm::raw_ostream &OS) {
  std::array<int64_t, 3> Threads = threadsOf(Kernel);
  AccessSimulator Sim(Kernel, Threads, M);
  std::vector<Row> Rows;
  Kernel.walk([&](const Operation &Op) {
    for (const SharedAccess &A : sharedAccessesOf(Op, M.WarpSize))
      Rows.push_back(Sim.simulate(Op, A));
  });
  const Operation *Func = Kernel.getParentOfKind(OpKind::Func);
  std::string Name =
      Func ? Func->getStringAttr("name").value_or("").str() : std::string();
  int64_t Total = Threads[0] * Threads[1] * Threads[2];
  OS << fmt::format("bank conflicts of kernel '{}' ({} threads; {}):\n", Name,
                    Total, simulatedWarps(M, Total));
  OS << fmt::format("{:>4}  {:<9} {:<7}{:<16}{:>5} {:>9} {:>8}{:>8}{:>8}{:>6}"
                    "{:>12}  {}\n",
                    "#", "op", "access", "buffer", "bytes", "accesses", "ideal",
                    "actual", "excess", "ways", "unevaluated", "location");
  unsigned Conflicting = 0, Unevaluated = 0;
  for (size_t I = 0; I != Rows.size(); ++I) {
    printRow(OS, I + 1, Rows[I], Diags);
    Conflicting += Rows[I].W.excess() > 0;
    Unevaluated += Rows[I].Unevaluated > 0;
  }
  OS << fmt::format("summary: {} shared accesses, {} with excess wavefronts, "
                    "{} not fully evaluated\n",
                    Rows.size(), Conflicting, Unevaluated);
}

class ReportBankConflictsPass : public Pass {
public:
  llvm::StringRef name() const override { return "report-bank-conflicts"; }
  llvm::StringRef description() const override {
    return "Print the shared-memory bank conflicts of lowered code";
  }

  bool run(Operation &Module, PassContext &Ctx) override {
    const BankModel &M = Ctx.Tgt.isHIP() ? amdBanks() : nvidiaBanks();
    Module.walk([&](Operation &Op) {
      if (Op.is(OpKind::Kernel))
        reportKernel(Op, M, Ctx.Diags, llvm::errs());
    });
    llvm::errs().flush();
    return true;
  }
};

} // namespace

std::unique_ptr<Pass> tilec::createReportBankConflictsPass() {
  return std::make_unique<ReportBankConflictsPass>();
}
