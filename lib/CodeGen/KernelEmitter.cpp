//===- KernelEmitter.cpp - One kernel op as a __global__ function ---------===//

#include "KernelEmitter.h"
#include "Dialect.h"
#include "ExprEmitter.h"
#include "Inlining.h"
#include "NameTable.h"
#include "tilec/IR/ConstantMatch.h"
#include "tilec/Support/Diagnostics.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include <fmt/format.h>

using namespace tilec;
using namespace tilec::codegen;
using namespace tilec::ir;
using llvm::StringRef;

std::string codegen::captureName(const FuncPlan &Plan, const Value *V) {
  for (size_t I = 0; I != Plan.ParamArgs.size(); ++I)
    if (Plan.ParamArgs[I] == V)
      return Plan.Params[I];
  for (size_t I = 0; I != Plan.SymbolArgs.size(); ++I)
    if (Plan.SymbolArgs[I] == V)
      return Plan.Symbols[I];
  return V->getNameHint().empty() ? "arg" : V->getNameHint().str();
}

namespace {

/// "file", line of \p Loc for a #line directive; line 0 when unknown.
std::pair<std::string, unsigned> sourceLine(const Location &Loc,
                                            llvm::SourceMgr &SM) {
  if (!Loc.hasRange())
    return {Loc.File, Loc.Line};
  unsigned Buffer = SM.FindBufferContainingLoc(Loc.start());
  if (!Buffer)
    return {"", 0};
  unsigned Line = SM.getLineAndColumn(Loc.start(), Buffer).first;
  return {SM.getMemoryBuffer(Buffer)->getBufferIdentifier().str(), Line};
}

std::string quoted(llvm::StringRef S) {
  std::string Out = "\"";
  for (char C : S) {
    if (C == '"' || C == '\\')
      Out += '\\';
    Out += C;
  }
  return Out + "\"";
}

/// uint4 / uint2 / unsigned / unsigned short / unsigned char for a vector
/// access of \p Bytes.
const char *vectorType(unsigned Bytes) {
  switch (Bytes) {
  case 16:
    return "uint4";
  case 8:
    return "uint2";
  case 4:
    return "unsigned int";
  case 2:
    return "unsigned short";
  default:
    return "unsigned char";
  }
}

/// Lane \p K of the run of elements starting at the lvalue \p Elem.
Expr laneOf(const Expr &Elem, int64_t K) {
  if (K == 0)
    return Elem;
  return {fmt::format("(&{})[{}]", Elem.Text, K), PrecPostfix};
}

/// The function converting two floats into a packed pair of \p To, and
/// the pair's type; {nullptr, nullptr} when there is none.
std::pair<const char *, const char *> packedConversion(DType From, DType To,
                                                       const Dialect &D) {
  if (From != DType::Float32)
    return {nullptr, nullptr};
  if (To == DType::Float16)
    return {"__floats2half2_rn", "half2"};
  if (To == DType::BFloat16)
    return {D.FloatsToBFloat16Pair, D.BFloat16Pair};
  return {nullptr, nullptr};
}

class KernelEmitter {
public:
  KernelEmitter(const FuncPlan &Plan, const KernelPlan &K,
                const CodeGenOptions &Opts, DiagnosticEngine &Diags,
                std::set<DType> &UsedTypes, CodeWriter &W)
      : Plan(Plan), K(K), Opts(Opts), Diags(Diags), W(W),
        E(Diags, /*Device=*/true, UsedTypes, *Plan.Dial) {
    E.setFastMath(Plan.Func &&
                  Plan.Func->getBoolAttr("fast_math").value_or(false));
  }

  bool run() {
    Names.reserve(K.Entry);
    Inline.run(K.Op->getBody(), /*SkipKernels=*/false);
    emitSignature();
    W.indent();
    emitPrologue();
    emitBlock(K.Op->getBody());
    W.close();
    return !E.failed();
  }

private:
  void emitSignature();
  int64_t minResidency(int64_t MinBlocks) const;
  void emitPrologue();
  void emitBlock(const Block &B);
  void emitOp(const Operation &Op);
  void emitValue(const Operation &Op);
  void emitAlloc(const Operation &Op);
  void emitStore(const Operation &Op);
  void emitVCopy(const Operation &Op);
  void emitConvertingVCopy(const Operation &Op);
  std::vector<Expr> readLanes(const Operation &Op, int64_t Lanes);
  void convertInto(const Operation &Op, const std::vector<Expr> &In,
                   const std::string &Tmp);
  void emitCpAsync(const Operation &Op);
  void emitTmaLoad(const Operation &Op);
  void emitLdmatrix(const Operation &Op);
  void emitStmatrix(const Operation &Op);
  void emitMma(const Operation &Op);
  void emitMfma(const Operation &Op);
  void emitWgmma(const Operation &Op);
  void emitWgmmaSync(const Operation &Op);
  /// `&buf[i]` of an operand group.
  std::string address(const Operation &Op, unsigned G);
  void emitAtomic(const Operation &Op);
  void emitRelaxedAtomic(const Operation &Op);
  void emitVectorAtomic(const Operation &Op);
  void emitCallExtern(const Operation &Op);
  void emitBarrier(const Operation &Op);
  void emitMBarrierInit(const Operation &Op);
  void emitShfl(const Operation &Op);
  void emitFor(const Operation &Op);
  void emitIf(const Operation &Op);
  void emitWhile(const Operation &Op);
  void lineDirective(const Operation &Op);
  /// `const T name = Init;` for V, binding V to the name.
  void declare(const Value *V, const Expr &Init, const Operation &Op);

  const FuncPlan &Plan;
  const KernelPlan &K;
  const CodeGenOptions &Opts;
  DiagnosticEngine &Diags;
  CodeWriter &W;
  ExprEmitter E;
  NameTable Names;
  Inlining Inline;
  std::pair<std::string, unsigned> LastLine;
  /// The tensor map parameters, per entry of K.TmaMaps.
  std::vector<std::string> TmaNames;
};

void KernelEmitter::emitSignature() {
  std::vector<std::string> Params;
  for (const Value *V : K.Captures) {
    std::string Name = Names.get(captureName(Plan, V));
    E.bind(V, {Name, PrecPostfix});
    const Type &T = V->getType();
    std::string Elem = E.typeName(T.getDType(), *K.Op);
    if (T.isScalar()) {
      Params.push_back(Elem + " " + Name);
      continue;
    }
    auto It = K.Access.find(V);
    bool ReadOnly = It == K.Access.end() || !It->second.Written;
    Params.push_back(fmt::format("{}{}* __restrict__ {}",
                                 ReadOnly ? "const " : "", Elem, Name));
  }
  for (const TmaMap &Map : K.TmaMaps) {
    TmaNames.push_back(Names.get("tmap_" + captureName(Plan, Map.Global)));
    Params.push_back("const __grid_constant__ CUtensorMap " + TmaNames.back());
  }
  for (size_t I = 0; I != Plan.SymbolArgs.size(); ++I)
    if (E.isBound(Plan.SymbolArgs[I]))
      E.bindSymbol(Plan.Symbols[I], E.get(Plan.SymbolArgs[I]));
  std::string Bounds = std::to_string(K.numThreads());
  if (auto MinBlocks = K.Op->getIntAttr("min_blocks_per_sm"))
    Bounds += ", " + std::to_string(minResidency(*MinBlocks));
  W.line(fmt::format("extern \"C\" __global__ void __launch_bounds__({})",
                     Bounds));
  W.line(fmt::format("{}({}) {{", K.Entry, fmt::join(Params, ", ")));
}

/// The second argument of __launch_bounds__ for \p MinBlocks resident
/// blocks per multiprocessor. CUDA takes the blocks; HIP takes the minimum
/// waves per execution unit (SIMD), of which a CDNA compute unit has four.
int64_t KernelEmitter::minResidency(int64_t MinBlocks) const {
  if (!Opts.Tgt.isHIP())
    return MinBlocks;
  int64_t Waves = (K.numThreads() + Opts.Tgt.WarpSize - 1) / Opts.Tgt.WarpSize;
  return std::max<int64_t>(1, (MinBlocks * Waves + 3) / 4);
}

void KernelEmitter::emitPrologue() {
  if (!K.Shared.empty())
    W.line(fmt::format(
        "extern __shared__ __align__({}) unsigned char tilec_smem[];",
        K.Wgmma ? 1024 : 128));
  static const char *const Dims[] = {"x", "y", "z"};
  const Block &Body = K.Op->getBody();
  for (unsigned I = 0; I != Body.getNumArguments(); ++I) {
    const Value *Arg = Body.getArgument(I);
    if (Arg->use_empty())
      continue;
    std::string Name = Names.get(Arg->getNameHint());
    E.bind(Arg, {Name, PrecPostfix});
    W.line(fmt::format("const int {} = blockIdx.{};", Name, Dims[I]));
  }
}

void KernelEmitter::lineDirective(const Operation &Op) {
  if (!Opts.LineDirectives || !Op.getLoc().isKnown())
    return;
  auto Where = sourceLine(Op.getLoc(), Diags.getSourceMgr());
  if (Where.second == 0 || Where == LastLine)
    return;
  LastLine = Where;
  W.directive(fmt::format("#line {} {}", Where.second, quoted(Where.first)));
}

void KernelEmitter::emitBlock(const Block &B) {
  for (const Operation &Op : B)
    emitOp(Op);
}

void KernelEmitter::declare(const Value *V, const Expr &Init,
                            const Operation &Op) {
  std::string Name = Names.get(V->getNameHint());
  std::string Type = E.typeName(V->getType().getDType(), Op);
  W.line(fmt::format("const {} {} = {};", Type, Name, Init.Text));
  E.bind(V, {Name, PrecPostfix});
}

void KernelEmitter::emitValue(const Operation &Op) {
  const Value *V = Op.getResult();
  if (Inline.isDead(V))
    return;
  Expr Init = E.emit(Op);
  if (Inline.isInlined(V)) {
    E.bind(V, Init);
    return;
  }
  lineDirective(Op);
  declare(V, Init, Op);
}

void KernelEmitter::emitOp(const Operation &Op) {
  if (isPureOp(Op) || Op.is(OpKind::Load))
    return emitValue(Op);
  if (Op.is(OpKind::Condition))
    return;
  lineDirective(Op);
  switch (Op.getKind()) {
  case OpKind::Alloc:
  case OpKind::View:
    return emitAlloc(Op);
  case OpKind::Store:
    return emitStore(Op);
  case OpKind::VCopy:
    return emitVCopy(Op);
  case OpKind::Atomic:
    return emitAtomic(Op);
  case OpKind::Shfl:
    return emitShfl(Op);
  case OpKind::CallExtern:
    return emitCallExtern(Op);
  case OpKind::Barrier:
    return emitBarrier(Op);
  case OpKind::MBarrierInit:
    return emitMBarrierInit(Op);
  case OpKind::MBarrierArrive:
    return W.line(fmt::format("tilec::{}({});",
                              Op.getBoolAttr("cp_async").value_or(false)
                                  ? "mbarrierArriveCpAsync"
                                  : "mbarrierArrive",
                              address(Op, 0)));
  case OpKind::MBarrierWait:
  case OpKind::MBarrierExpectTx:
    return W.line(fmt::format("tilec::{}({}, {});",
                              Op.is(OpKind::MBarrierWait) ? "mbarrierWait"
                                                          : "mbarrierExpectTx",
                              address(Op, 0), E.get(Op.getGroup(1)[0]).Text));
  case OpKind::CpAsync:
    return emitCpAsync(Op);
  case OpKind::TmaLoad:
    return emitTmaLoad(Op);
  case OpKind::BulkReduce:
    return W.line(fmt::format("tilec::bulkReduceAdd({}, {}, {});",
                              address(Op, 0), address(Op, 1),
                              *Op.getIntAttr("bytes")));
  case OpKind::BulkWait:
    return W.line("tilec::bulkWaitRead();");
  case OpKind::CpAsyncCommit:
    return W.line("tilec::cpAsyncCommit();");
  case OpKind::CpAsyncWait:
    return W.line(
        fmt::format("tilec::cpAsyncWait<{}>();", *Op.getIntAttr("pending")));
  case OpKind::Ldmatrix:
    return emitLdmatrix(Op);
  case OpKind::Stmatrix:
    return emitStmatrix(Op);
  case OpKind::Mma:
    return emitMma(Op);
  case OpKind::Mfma:
    return emitMfma(Op);
  case OpKind::Wgmma:
    return emitWgmma(Op);
  case OpKind::WgmmaFence:
  case OpKind::WgmmaWait:
    return emitWgmmaSync(Op);
  case OpKind::WgmmaCommit:
    return W.line("tilec::wgmmaCommit();");
  case OpKind::FenceProxyAsync:
    return W.line("tilec::fenceProxyAsync();");
  case OpKind::GridDependency:
    return W.line(Op.getStringAttr("action") == "wait"
                      ? "tilec::gridDependencyWait();"
                      : "tilec::launchDependentGrids();");
  case OpKind::ScheduleAfter:
    return W.line(
        fmt::format("tilec::scheduleAfter({});", E.get(Op.getOperand(0)).Text));
  case OpKind::SetMaxNReg:
    return W.line(fmt::format("tilec::setMaxNReg{}<{}>();",
                              *Op.getBoolAttr("inc") ? "Inc" : "Dec",
                              *Op.getIntAttr("regs")));
  case OpKind::For:
    return emitFor(Op);
  case OpKind::If:
    return emitIf(Op);
  case OpKind::While:
    return emitWhile(Op);
  case OpKind::Break:
    return W.line("break;");
  case OpKind::Continue:
    return W.line("continue;");
  default:
    E.fail(Op, diag::err_codegen_op_not_lowered, Op.getName().str());
  }
}

/// `f(a, &buf[i], buf)`: scalars by value, buffer groups by address. A call
/// whose result is unused is a statement, as TVM emits it: TileLang code
/// gives plugins returning void a dtype (T.call_extern(..., dtype=T)).
/// __syncthreads, bar.sync id, count for a named barrier (bar.arrive with
/// `arrive`), or the grid
/// barrier of cooperative groups (which also orders global memory).
void KernelEmitter::emitBarrier(const Operation &Op) {
  if (isGridBarrier(Op))
    return W.line(std::string(Plan.Dial->GridSync) + "();");
  std::optional<int64_t> Id = Op.getIntAttr("id");
  if (!Id)
    return W.line(std::string(Plan.Dial->SyncThreads) + "();");
  W.line(
      fmt::format("tilec::namedBarrier{}({}, {});",
                  Op.getBoolAttr("arrive").value_or(false) ? "Arrive" : "Sync",
                  *Id, *Op.getIntAttr("count")));
}

/// One mbarrier.init per barrier of the array; Sema has put the op under
/// `thread 0` and a block barrier after it.
void KernelEmitter::emitMBarrierInit(const Operation &Op) {
  std::string Name = E.get(Op.getOperand(0)).Text;
  std::vector<int64_t> Counts = *Op.getIntArrayAttr("counts");
  for (size_t I = 0; I != Counts.size(); ++I)
    W.line(
        fmt::format("tilec::mbarrierInit(&{}[{}], {});", Name, I, Counts[I]));
}

void KernelEmitter::emitCallExtern(const Operation &Op) {
  std::vector<Expr> Args;
  for (unsigned G = 0; G != Op.getNumGroups(); ++G) {
    llvm::ArrayRef<Value *> Group = Op.getGroup(G);
    const Type &T = Group[0]->getType();
    if (!T.isBuffer())
      Args.push_back(E.get(Group[0]));
    else if (Group.size() == 1 && T.getScope() != Scope::Var)
      Args.push_back(E.get(Group[0]));
    else if (Group.size() == 1)
      Args.push_back({"&" + E.get(Group[0]).Text, PrecUnary});
    else
      Args.push_back(
          {"&" + operand(E.element(Op, Group), PrecUnary), PrecUnary});
  }
  Expr Call = call(*Op.getStringAttr("callee"), Args);
  if (Op.getNumResults() == 0 || Op.getResult()->use_empty())
    return W.line(Call.Text + ";");
  declare(Op.getResult(), Call, Op);
}

//===----------------------------------------------------------------------===//
// Memory statements
//===----------------------------------------------------------------------===//

/// shared: a typed pointer into tilec_smem at the planned offset; local: a
/// register array (16-byte aligned when used by vcopy); var: a scalar.
/// Unused buffers are not declared (and take no shared memory).
void KernelEmitter::emitAlloc(const Operation &Op) {
  const Value *V = Op.getResult();
  if (V->use_empty())
    return;
  const Type &T = V->getType();
  std::string Elem = E.typeName(T.getDType(), Op);
  std::string Name = Names.get(V->getNameHint());
  E.bind(V, {Name, PrecPostfix});
  if (T.getScope() == Scope::Global) {
    // A view of a global buffer (T.Tensor over its .data) is its pointer,
    // const where the parameter is; T.make_tensor's is its address.
    const Value *Src = Op.getOperand(0);
    W.line(Src->getType().isScalar()
               ? fmt::format("{}* {} = reinterpret_cast<{}*>({});", Elem, Name,
                             Elem, E.get(Src).Text)
               : fmt::format("auto* {} = {};", Name, E.get(Src).Text));
    return;
  }
  if (T.getScope() == Scope::Shared) {
    // A view (T.view / T.reshape) points at its source's bytes.
    const Value *Storage = Op.is(OpKind::View) ? Op.getOperand(0) : V;
    auto Slot = llvm::find_if(
        K.Shared, [&](const SharedSlot &S) { return S.Buffer == Storage; });
    assert(Slot != K.Shared.end() && "a shared buffer without a slot");
    W.line(fmt::format("{0}* {1} = reinterpret_cast<{0}*>(tilec_smem + {2});",
                       Elem, Name, Slot->Offset));
    return;
  }
  if (T.getScope() == Scope::Var) {
    W.line(fmt::format("{} {};", Elem, Name));
    return;
  }
  auto It = K.Access.find(V);
  bool Vector = It != K.Access.end() && It->second.VectorBytes > 0;
  int64_t Count = *T.numElements();
  if (isPacked(T.getDType()))
    Count = (Count + 1) / 2;
  W.line(fmt::format("{}{} {}[{}];", Vector ? "__align__(16) " : "", Elem, Name,
                     Count));
}

void KernelEmitter::emitStore(const Operation &Op) {
  if (isPackedBuffer(Op.getGroup(1)[0]->getType()))
    return W.line(E.storePacked(Op));
  Expr Value = E.get(Op.getOperand(0));
  Expr Target = E.element(Op, Op.getGroup(1));
  W.line(fmt::format("{} = {};", Target.Text, Value.Text));
}

/// One wide load and store: *(uint4*)&dst[i] = *(const uint4*)&src[j].
void KernelEmitter::emitVCopy(const Operation &Op) {
  if (Op.getOperand(0)->getType().getDType() !=
      Op.getGroup(1)[0]->getType().getDType())
    return emitConvertingVCopy(Op);
  unsigned Bytes = *Op.getIntAttr("lanes") *
                   memoryBits(Op.getOperand(0)->getType().getDType()) / 8;
  const char *VT = vectorType(Bytes);
  Expr Dst = E.element(Op, Op.getGroup(0));
  Expr Src = E.element(Op, Op.getGroup(1));
  W.line(fmt::format(
      "*reinterpret_cast<{0}*>(&{1}) = *reinterpret_cast<const {0}*>(&{2});",
      VT, Dst.Text, Src.Text));
}

/// A vcopy between element types, in a block of its own: the lanes are
/// read (one wide load from memory into an aligned temporary, or element
/// by element from registers), converted as `cast` does, and written (one
/// wide store from an aligned temporary into memory, or element by element
/// into registers).
void KernelEmitter::emitConvertingVCopy(const Operation &Op) {
  int64_t Lanes = *Op.getIntAttr("lanes");
  const Type &DstT = Op.getOperand(0)->getType();
  DType From = Op.getGroup(1)[0]->getType().getDType(), To = DstT.getDType();
  W.open("");
  std::vector<Expr> In = readLanes(Op, Lanes);
  Expr Dst = E.element(Op, Op.getGroup(0));
  if (DstT.getScope() == Scope::Local) {
    for (int64_t K = 0; K != Lanes; ++K)
      W.line(fmt::format("{} = {};", laneOf(Dst, K).Text,
                         E.cast(In[K], From, To, Op).Text));
    return W.close();
  }
  std::string Tmp = Names.get("cvt_dst");
  W.line(
      fmt::format("__align__(16) {} {}[{}];", E.typeName(To, Op), Tmp, Lanes));
  convertInto(Op, In, Tmp);
  W.line(fmt::format(
      "*reinterpret_cast<{0}*>(&{1}) = *reinterpret_cast<const {0}*>({2});",
      vectorType(unsigned(Lanes * bitWidth(To) / 8)), Dst.Text, Tmp));
  W.close();
}

/// The source lanes of a converting vcopy as expressions.
std::vector<Expr> KernelEmitter::readLanes(const Operation &Op, int64_t Lanes) {
  const Type &T = Op.getGroup(1)[0]->getType();
  Expr Src = E.element(Op, Op.getGroup(1));
  std::vector<Expr> In;
  if (T.getScope() == Scope::Local) {
    for (int64_t K = 0; K != Lanes; ++K)
      In.push_back(laneOf(Src, K));
    return In;
  }
  std::string Tmp = Names.get("cvt_src");
  W.line(fmt::format("__align__(16) {} {}[{}];", E.typeName(T.getDType(), Op),
                     Tmp, Lanes));
  W.line(fmt::format(
      "*reinterpret_cast<{0}*>({1}) = *reinterpret_cast<const {0}*>(&{2});",
      vectorType(unsigned(Lanes * bitWidth(T.getDType()) / 8)), Tmp, Src.Text));
  for (int64_t K = 0; K != Lanes; ++K)
    In.push_back({fmt::format("{}[{}]", Tmp, K), PrecPostfix});
  return In;
}

/// Tmp[k] = cast(In[k]); pairs of f32 into f16/bf16 with one packed
/// conversion (same rounding as the scalar one).
void KernelEmitter::convertInto(const Operation &Op,
                                const std::vector<Expr> &In,
                                const std::string &Tmp) {
  DType From = Op.getGroup(1)[0]->getType().getDType();
  DType To = Op.getOperand(0)->getType().getDType();
  auto [Fn, Pair] = packedConversion(From, To, *Plan.Dial);
  if (Fn && In.size() % 2 == 0) {
    for (size_t K = 0; K != In.size() / 2; ++K)
      W.line(fmt::format("reinterpret_cast<{}*>({})[{}] = {}({}, {});", Pair,
                         Tmp, K, Fn, In[2 * K].Text, In[2 * K + 1].Text));
    return;
  }
  for (size_t K = 0; K != In.size(); ++K)
    W.line(
        fmt::format("{}[{}] = {};", Tmp, K, E.cast(In[K], From, To, Op).Text));
}

std::string KernelEmitter::address(const Operation &Op, unsigned G) {
  return "&" + E.element(Op, Op.getGroup(G)).Text;
}

/// One tilec::tmaLoad per box: shared address of the tile's first element
/// plus the box's offset, coordinates innermost first.
void KernelEmitter::emitTmaLoad(const Operation &Op) {
  std::string Dst = address(Op, 0), Bar = address(Op, 2);
  const std::string &Map = TmaNames[K.TmaMapOf.lookup(&Op)];
  llvm::ArrayRef<Value *> Src = Op.getGroup(1).drop_front();
  std::vector<int64_t> DstOffsets = *Op.getIntArrayAttr("dst_offsets");
  std::vector<int64_t> SrcOffsets = *Op.getIntArrayAttr("src_offsets");
  size_t RowDim = Op.getIntAttr("row_dim").value_or(Src.size() - 2);
  for (size_t N = 0; N != DstOffsets.size(); ++N) {
    std::vector<std::string> Coords;
    for (size_t D = Src.size(); D-- > 0;) {
      std::string C = E.get(Src[D]).Text;
      int64_t Off = D == RowDim           ? SrcOffsets[2 * N]
                    : D + 1 == Src.size() ? SrcOffsets[2 * N + 1]
                                          : 0;
      if (auto Known = matchConstantInt(Src[D]))
        Coords.push_back(std::to_string(*Known + Off));
      else
        Coords.push_back(Off ? fmt::format("({}) + {}", C, Off) : C);
    }
    std::string Box =
        DstOffsets[N] ? fmt::format("({}) + {}", Dst, DstOffsets[N]) : Dst;
    W.line(fmt::format("tilec::tmaLoad({}, &{}, {}, {});", Box, Map, Bar,
                       fmt::join(Coords, ", ")));
  }
}

/// tilec::cpAsync<Bytes>(&dst, &src[, pred]).
void KernelEmitter::emitCpAsync(const Operation &Op) {
  std::string Pred;
  if (Op.getNumGroups() == 3)
    Pred = ", " + E.get(Op.getGroup(2)[0]).Text;
  W.line(fmt::format("tilec::cpAsync<{}>({}, {}{});", *Op.getIntAttr("bytes"),
                     address(Op, 0), address(Op, 1), Pred));
}

void KernelEmitter::emitLdmatrix(const Operation &Op) {
  W.line(fmt::format("tilec::ldmatrix<{}, {}>({}, {});",
                     *Op.getIntAttr("count"),
                     Op.getBoolAttr("trans").value_or(false) ? "true" : "false",
                     address(Op, 0), address(Op, 1)));
}

void KernelEmitter::emitStmatrix(const Operation &Op) {
  W.line(fmt::format("tilec::stmatrix<{}>({}, {});", *Op.getIntAttr("count"),
                     address(Op, 0), address(Op, 1)));
}

/// The runtime's wrapper for the shape and operand types (the verifier
/// accepted only these combinations).
static std::string mmaFunction(StringRef Shape, DType AB, DType D) {
  if (Shape == "m16n8k64")
    return AB == DType::Int4 ? "mmaM16N8K64S32S4" : "mmaM16N8K64S32U4";
  if (Shape == "m16n8k32")
    return AB == DType::Int8 ? "mmaM16N8K32S32S8" : "mmaM16N8K32S32U8";
  if (Shape == "m16n8k8")
    return "mmaM16N8K8F32TF32";
  if (D == DType::Float16)
    return "mmaM16N8K16F16F16";
  return AB == DType::BFloat16 ? "mmaM16N8K16F32BF16" : "mmaM16N8K16F32F16";
}

void KernelEmitter::emitMma(const Operation &Op) {
  std::string Fn = mmaFunction(*Op.getStringAttr("shape"),
                               Op.getGroup(1)[0]->getType().getDType(),
                               Op.getOperand(0)->getType().getDType());
  std::string D = address(Op, 0);
  if (Op.getOperand(0)->getType().getDType() == DType::Int32)
    D = "reinterpret_cast<int*>(" + D + ")";
  W.line(fmt::format("tilec::{}({}, {}, {});", Fn, D, address(Op, 1),
                     address(Op, 2)));
}

/// tilec::mfma_<instr>(&D, &A, &B): the runtime's wrapper of the builtin.
void KernelEmitter::emitMfma(const Operation &Op) {
  W.line(fmt::format("tilec::mfma_{}({}, {}, {});", *Op.getStringAttr("instr"),
                     address(Op, 0), address(Op, 1), address(Op, 2)));
}

/// The PTX type of a wgmma operand or accumulator (float32 operands are
/// read as tf32).
static const char *wgmmaType(DType T, bool Operand) {
  switch (T) {
  case DType::Float16:
    return "f16";
  case DType::BFloat16:
    return "bf16";
  case DType::Float32:
    return Operand ? "tf32" : "f32";
  case DType::Float8E4M3:
    return "e4m3";
  case DType::Float8E5M2:
    return "e5m2";
  case DType::Int8:
    return "s8";
  case DType::UInt8:
    return "u8";
  default:
    return "s32";
  }
}

/// The descriptor of a shared operand without its start address, from
/// `[swizzle bytes, LBO, SBO]`.
static uint64_t wgmmaDescriptorFields(llvm::ArrayRef<int64_t> L) {
  uint64_t Mode = L[0] == 128 ? 1 : L[0] == 64 ? 2 : L[0] == 32 ? 3 : 0;
  return (uint64_t(L[1]) >> 4) << 16 | (uint64_t(L[2]) >> 4) << 32 | Mode << 62;
}

/// The immediates after scale-d: imm-scale-a/b (floating-point types) and
/// imm-trans-a/b (16-bit types; a register A has no transpose).
static std::string wgmmaImmediates(const Operation &Op, DType AB, bool ARegs) {
  bool TransA = Op.getBoolAttr("a_mn_major").value_or(false);
  bool TransB = Op.getBoolAttr("b_mn_major").value_or(false);
  if (bitWidth(AB) == 16 && !ARegs)
    return fmt::format(", 1, 1, {:d}, {:d}", TransA, TransB);
  if (bitWidth(AB) == 16)
    return fmt::format(", 1, 1, {:d}", TransB);
  return isFloat(AB) ? ", 1, 1" : "";
}

/// One wgmma.mma_async as inline PTX: the accumulators are the 32-bit
/// words from &D[off] ("+f" for f32, "+r" for s32 and f16 pairs), A is a
/// descriptor or four 32-bit words, B a descriptor; scale-d is 1 (D += A *
/// B), or 0 with `zero_init` (D = A * B); imm-trans-a/b (16-bit types only)
/// select MN-major operands.
void KernelEmitter::emitWgmma(const Operation &Op) {
  StringRef Shape = *Op.getStringAttr("shape");
  int64_t N = 0;
  Shape.drop_front(4).split('k').first.getAsInteger(10, N);
  DType AB = Op.getGroup(1)[0]->getType().getDType();
  DType D = Op.getOperand(0)->getType().getDType();
  bool ARegs = Op.getGroup(1)[0]->getType().getScope() == Scope::Local;
  int64_t DWords = D == DType::Float16 ? N / 4 : N / 2;
  const char *DWord = D == DType::Float32 ? "float"
                      : D == DType::Int32 ? "int"
                                          : "unsigned";
  W.open("");
  W.line(fmt::format("{0} *tilec_d = reinterpret_cast<{0} *>({1});", DWord,
                     address(Op, 0)));
  std::vector<std::string> Outs, Ins, Regs;
  for (int64_t I = 0; I != DWords; ++I) {
    Outs.push_back(fmt::format("\"+{}\"(tilec_d[{}])",
                               D == DType::Float32 ? "f" : "r", I));
    Regs.push_back("%" + std::to_string(I));
  }
  std::string AOperand;
  if (ARegs) {
    W.line(fmt::format("const unsigned *tilec_a = reinterpret_cast<const "
                       "unsigned *>({});",
                       address(Op, 1)));
    std::vector<std::string> AWords;
    for (int64_t I = 0; I != 4; ++I) {
      Ins.push_back(fmt::format("\"r\"(tilec_a[{}])", I));
      AWords.push_back("%" + std::to_string(DWords + I));
    }
    AOperand = "{" + llvm::join(AWords, ", ") + "}";
  } else {
    Ins.push_back(fmt::format(
        "\"l\"(tilec::wgmmaDescriptor({}, {:#x}ull))", address(Op, 1),
        wgmmaDescriptorFields(*Op.getIntArrayAttr("a_layout"))));
    AOperand = "%" + std::to_string(DWords);
  }
  int64_t Next = DWords + Ins.size();
  Ins.push_back(
      fmt::format("\"l\"(tilec::wgmmaDescriptor({}, {:#x}ull))", address(Op, 2),
                  wgmmaDescriptorFields(*Op.getIntArrayAttr("b_layout"))));
  Ins.push_back(Op.getBoolAttr("zero_init").value_or(false) ? "\"r\"(0)"
                                                            : "\"r\"(1)");
  std::string Tail = wgmmaImmediates(Op, AB, ARegs);
  W.line(fmt::format(
      "asm volatile(\"{{\\n.reg .pred p;\\nsetp.ne.b32 p, %{}, 0;\\n\"",
      Next + 1));
  W.line(fmt::format("             \"wgmma.mma_async.sync.aligned.{}.{}.{}.{} "
                     "{{{}}}, {}, %{}, p{};\\n}}\\n\"",
                     Shape.str(), wgmmaType(D, false), wgmmaType(AB, true),
                     wgmmaType(AB, true), llvm::join(Regs, ", "), AOperand,
                     Next, Tail));
  W.line("             : " + llvm::join(Outs, ", "));
  W.line("             : " + llvm::join(Ins, ", ") + ");");
  W.close();
}

/// wgmma_fence: the register arrays' earlier writes stay before the
/// fence; wgmma_wait: their later uses stay after the wait (the compiler
/// sees neither the asynchronous reads nor the writes).
void KernelEmitter::emitWgmmaSync(const Operation &Op) {
  auto FenceOperands = [&] {
    for (unsigned G = 0; G != Op.getNumGroups(); ++G) {
      const Value *Buf = Op.getGroup(G)[0];
      W.line(fmt::format("tilec::wgmmaFenceOperands<{}>({});",
                         *Buf->getType().numElements(), E.get(Buf).Text));
    }
  };
  if (Op.is(OpKind::WgmmaFence)) {
    FenceOperands();
    return W.line("tilec::wgmmaFence();");
  }
  W.line(fmt::format("tilec::wgmmaWait<{}>();", *Op.getIntAttr("pending")));
  FenceOperands();
}

/// atomicAdd/Max/Min; float max/min through the CAS helpers of
/// tilec_runtime.h, 64-bit integers through (unsigned) long long. Each
/// returns the previous value, which a result (return_prev) is bound to.
/// Those atomics are relaxed; a memory_order that releases puts a device
/// fence before the atomic, one that acquires a fence after it (PTX's
/// fence-then-atomic and atomic-then-fence patterns; __threadfence is a
/// sequentially consistent fence on both vendors).
void KernelEmitter::emitAtomic(const Operation &Op) {
  StringRef Order = Op.getStringAttr("memory_order").value_or("relaxed");
  bool Release = Order == "release" || Order == "acq_rel" || Order == "seq_cst";
  bool Acquire = Order == "acquire" || Order == "acq_rel" || Order == "seq_cst";
  if (Release)
    W.line("__threadfence();");
  if (Op.hasAttr("lanes"))
    emitVectorAtomic(Op);
  else
    emitRelaxedAtomic(Op);
  if (Acquire)
    W.line("__threadfence();");
}

void KernelEmitter::emitRelaxedAtomic(const Operation &Op) {
  StringRef Kind = *Op.getStringAttr("kind");
  DType T = Op.getOperand(0)->getType().getDType();
  Expr Addr = {"&" + E.element(Op, Op.getGroup(0)).Text, PrecUnary};
  Expr Value = E.get(Op.getGroup(1)[0]);
  std::string Fn = Kind == "add"   ? "atomicAdd"
                   : Kind == "max" ? "atomicMax"
                                   : "atomicMin";
  bool Float = T == DType::Float32 || T == DType::Float64;
  bool Int = T == DType::Int32 || T == DType::UInt32 || T == DType::Int64 ||
             T == DType::UInt64;
  bool HalfAdd = (T == DType::Float16 || T == DType::BFloat16) && Kind == "add";
  if (Kind != "add" && Float)
    Fn = Kind == "max" ? "tilec::atomicMaxFloat" : "tilec::atomicMinFloat";
  if (T == DType::Int64 && Kind == "add") {
    Addr = {"reinterpret_cast<unsigned long long*>(" + Addr.Text + ")",
            PrecPostfix};
    Value = {"(unsigned long long)" + operand(Value, PrecUnary), PrecUnary};
  } else if (T == DType::UInt64 || (T == DType::Int64 && Kind != "add")) {
    const char *LL = T == DType::UInt64 ? "unsigned long long" : "long long";
    Addr = {fmt::format("reinterpret_cast<{}*>({})", LL, Addr.Text),
            PrecPostfix};
  } else if (!Float && !Int && !HalfAdd) {
    E.fail(Op, diag::err_codegen_unsupported,
           fmt::format("atomic {} on {}", Kind.str(), tileLangName(T)));
    return;
  }
  Expr Call = call(Fn, {Addr, Value});
  if (Op.getNumResults() == 0 || Op.getResult()->use_empty())
    return W.line(Call.Text + ";");
  if (T == DType::Int64 || T == DType::UInt64)
    Call = {"(" + E.typeName(T, Op) + ")" + Call.Text, PrecUnary};
  declare(Op.getResult(), Call, Op);
}

/// The vector form of atomic add: float2/float4 atomicAdd (one vector
/// reduction in L2) on sm_90 and later, else one atomicAdd per lane.
void KernelEmitter::emitVectorAtomic(const Operation &Op) {
  int64_t Lanes = *Op.getIntAttr("lanes");
  DType T = Op.getOperand(0)->getType().getDType();
  Expr Dst = E.element(Op, Op.getGroup(0));
  Expr Src = E.element(Op, Op.getGroup(1));
  if (T == DType::Float32 && (Lanes == 2 || Lanes == 4) && Opts.Tgt.isCUDA() &&
      Opts.Tgt.SmVersion >= 90) {
    W.line(fmt::format("atomicAdd(reinterpret_cast<float{0}*>(&{1}), "
                       "*reinterpret_cast<const float{0}*>(&{2}));",
                       Lanes, Dst.Text, Src.Text));
    return;
  }
  bool Supported = T == DType::Float32 || T == DType::Float64 ||
                   T == DType::Int32 || T == DType::UInt32 ||
                   T == DType::Float16 || T == DType::BFloat16;
  if (!Supported) {
    E.fail(Op, diag::err_codegen_unsupported,
           fmt::format("vector atomic add on {}", tileLangName(T)));
    return;
  }
  for (int64_t K = 0; K != Lanes; ++K)
    W.line(fmt::format("atomicAdd(&{0}, {1});", laneOf(Dst, K).Text,
                       laneOf(Src, K).Text));
}

/// __shfl_xor_sync(mask, v, lane, width) (HIP: __shfl_xor(v, lane,
/// width)); integers narrower than 32 bits go through int, and half/bf16
/// through float where the dialect has no shuffle of them.
void KernelEmitter::emitShfl(const Operation &Op) {
  DType T = Op.getResult()->getType().getDType();
  const Dialect &D = *Plan.Dial;
  StringRef Mode = *Op.getStringAttr("mode");
  std::string Fn = std::string(D.ShflPrefix) +
                   (Mode == "idx" ? "" : "_" + Mode.str()) + D.ShflSuffix;
  Expr V = E.get(Op.getOperand(0));
  bool ViaInt = isInteger(T) && bitWidth(T) < 32;
  bool ViaFloat =
      (T == DType::Float16 || T == DType::BFloat16) && !D.ShflNarrowFloat;
  if (isFloat8(T))
    E.fail(Op, diag::err_codegen_unsupported,
           fmt::format("shfl on {}", tileLangName(T)));
  if (ViaInt)
    V = {"(int)" + operand(V, PrecUnary), PrecUnary};
  if (ViaFloat)
    V = E.toFloat(V, T);
  Expr R = {fmt::format("{}({}{}, {}, {})", Fn, D.ShflMask, V.Text,
                        E.get(Op.getOperand(1)).Text,
                        Op.getIntAttr("width").value_or(32)),
            PrecPostfix};
  if (ViaInt)
    R = {"(" + E.typeName(T, Op) + ")" + R.Text, PrecUnary};
  if (ViaFloat)
    R = E.fromFloat(R, T, Op);
  declare(Op.getResult(), R, Op);
}

//===----------------------------------------------------------------------===//
// Control flow
//===----------------------------------------------------------------------===//

/// for (int k = lo; k < hi; k += step); unroll and vectorized loops get
/// `#pragma unroll`, pipelined ones run serially (same semantics).
void KernelEmitter::emitFor(const Operation &Op) {
  const Value *IV = Op.getBody().getArgument(0);
  std::string Name =
      Names.get(IV->getNameHint().empty() ? "i" : IV->getNameHint());
  Expr Lo = E.get(Op.getOperand(0)), Hi = E.get(Op.getOperand(1));
  std::optional<int64_t> Step = matchConstantInt(Op.getOperand(2));
  std::string Inc =
      Step == 1 ? "++" + Name : Name + " += " + E.get(Op.getOperand(2)).Text;
  StringRef Kind = *Op.getStringAttr("kind");
  if (Kind == "unroll" || Kind == "vectorized")
    W.line("#pragma unroll");
  const char *Cmp = Step && *Step < 0 ? ">" : "<";
  E.bind(IV, {Name, PrecPostfix});
  W.open(fmt::format("for (int {0} = {1}; {0} {2} {3}; {4})", Name, Lo.Text,
                     Cmp, operand(Hi, PrecRelational + 1), Inc));
  emitBlock(Op.getBody());
  W.close();
}

void KernelEmitter::emitIf(const Operation &Op) {
  W.open("if (" + E.get(Op.getOperand(0)).Text + ")");
  emitBlock(Op.getBody(0));
  if (Op.getNumRegions() == 2 && !Op.getBody(1).empty()) {
    W.dedent();
    W.open("} else");
    emitBlock(Op.getBody(1));
  }
  W.close();
}

/// `while (c) {...}` when the condition region is one expression, else
/// `while (true) { <cond ops> if (!(c)) break; ... }`.
void KernelEmitter::emitWhile(const Operation &Op) {
  const Block &Cond = Op.getBody(0);
  const Value *C = Cond.back().getOperand(0);
  bool Simple = llvm::all_of(Cond, [&](const Operation &X) {
    return X.is(OpKind::Condition) ||
           (X.getNumResults() == 1 &&
            (Inline.isInlined(X.getResult()) || Inline.isDead(X.getResult())));
  });
  if (Simple) {
    emitBlock(Cond);
    W.open("while (" + E.get(C).Text + ")");
  } else {
    W.open("while (true)");
    emitBlock(Cond);
    W.line("if (!" + operand(E.get(C), PrecUnary) + ")");
    W.line("  break;");
  }
  emitBlock(Op.getBody(1));
  W.close();
}

} // namespace

bool codegen::emitKernel(const FuncPlan &Plan, const KernelPlan &K,
                         const CodeGenOptions &Opts, DiagnosticEngine &Diags,
                         std::set<DType> &UsedTypes, CodeWriter &W) {
  return KernelEmitter(Plan, K, Opts, Diags, UsedTypes, W).run();
}
