//===- Interpreter.cpp - CPU interpreter of lowered tile IR ---------------===//
//
// Control flow, scalar ops, memory, barriers and asynchronous copies; the
// warp-collective ops are in Collectives.cpp. See Interpreter.h.
//
//===----------------------------------------------------------------------===//
#include "tilec/Interp/Interpreter.h"
#include "Machine.h"
#include "tilec/IR/ConstantMatch.h"
#include "tilec/Interp/Numerics.h"
#include "tilec/Support/Diagnostics.h"
#include "llvm/Support/raw_ostream.h"
#include <cmath>
#include <limits>
#include <set>

using namespace tilec;
using namespace tilec::interp;
using namespace tilec::ir;

//===----------------------------------------------------------------------===//
// State access
//===----------------------------------------------------------------------===//

void Machine::fail(const Operation &Op, const std::string &Msg,
                   int64_t Thread) const {
  std::string Where;
  llvm::raw_string_ostream OS(Where);
  OS << Msg << " (block (" << BlockIdx[0] << ", " << BlockIdx[1] << ", "
     << BlockIdx[2] << ")";
  if (Thread >= 0)
    OS << ", thread " << Thread;
  OS << ")";
  throw InterpError{&Op, OS.str(), {}};
}

uint64_t Machine::get(const Value *V, int64_t T) const {
  auto It = Vals.find(V);
  assert(It != Vals.end() && "value used before its definition ran");
  return It->second.size() == 1 ? It->second[0] : It->second[T];
}

std::vector<uint64_t> &Machine::def(const Value *V) {
  std::vector<uint64_t> &Lanes = Vals[V];
  Lanes.resize(NumThreads);
  return Lanes;
}

Buffer &Machine::buffer(const Operation &Op, const Value *V) {
  auto It = Bufs.find(V);
  if (It == Bufs.end())
    fail(Op, "buffer '" + V->getNameHint().str() + "' is not allocated");
  return *It->second;
}

ElemRef Machine::elem(const Operation &Op, unsigned G, int64_t T,
                      int64_t Offset) {
  llvm::ArrayRef<Value *> Group = Op.getGroup(G);
  Buffer &B = buffer(Op, Group[0]);
  int64_t Flat = 0;
  for (unsigned D = 0; D < B.Shape.size(); ++D) {
    int64_t I = D + 1 < Group.size() ? asInt(get(Group[D + 1], T)) : 0;
    if (Group.size() > 1 && (I < 0 || I >= B.Shape[D]))
      fail(Op,
           "out-of-bounds access of '" + B.Name + "': index " +
               std::to_string(I) + " of dimension " + std::to_string(D) +
               " (extent " + std::to_string(B.Shape[D]) + ")",
           T);
    Flat = Flat * B.Shape[D] + I;
  }
  Flat += Offset;
  if (Flat < 0 || Flat >= B.NumElems)
    fail(Op,
         "out-of-bounds access of '" + B.Name + "': element " +
             std::to_string(Flat) + " of " + std::to_string(B.NumElems),
         T);
  if (B.Alias)
    return {B.Alias, Flat};
  if (B.PerThread)
    Flat += T * B.NumElems;
  return {&B, Flat};
}

void Machine::requireWholeWarps(const Operation &Op, const Mask &M,
                                int64_t Width) const {
  for (int64_t Base = 0; Base < NumThreads; Base += Width) {
    int64_t Active = 0;
    for (int64_t L = Base; L < std::min(Base + Width, NumThreads); ++L)
      Active += M[L];
    int64_t Lanes = std::min(Width, NumThreads - Base);
    if (Active != 0 && Active != Lanes)
      fail(Op,
           "'" + Op.getName().str() + "' executed by " +
               std::to_string(Active) + " of the " + std::to_string(Width) +
               " lanes of a warp; all lanes must execute it",
           Base);
  }
}

void Machine::noteWrite(ElemRef E, int64_t T) {
  if (E.Buf->Writer.empty())
    return;
  E.Buf->Writer[E.Flat] = int32_t(T);
  E.Buf->WriteEpoch[E.Flat] = Epoch;
}

void Machine::checkRead(const Operation &Op, ElemRef E, int64_t T) {
  if (E.Buf->Writer.empty())
    return;
  int32_t W = E.Buf->Writer[E.Flat];
  if (W < 0 || W == T || E.Buf->WriteEpoch[E.Flat] != Epoch)
    return;
  fail(Op,
       "race on shared buffer '" + E.Buf->Name + "': element " +
           std::to_string(E.Flat) + " was written by thread " +
           std::to_string(W) + " with no barrier before this read",
       T);
}

//===----------------------------------------------------------------------===//
// Scalar ops
//===----------------------------------------------------------------------===//

namespace {

int64_t floorDiv(int64_t A, int64_t B) {
  int64_t Q = A / B;
  return (A % B != 0 && ((A < 0) != (B < 0))) ? Q - 1 : Q;
}

double applyMath(llvm::StringRef Fn, double A, double B) {
  static const std::unordered_map<std::string, double (*)(double)> Unary = {
      {"exp", [](double X) { return std::exp(X); }},
      {"exp2", [](double X) { return std::exp2(X); }},
      {"exp10", [](double X) { return std::pow(10.0, X); }},
      {"log", [](double X) { return std::log(X); }},
      {"log2", [](double X) { return std::log2(X); }},
      {"log10", [](double X) { return std::log10(X); }},
      {"log1p", [](double X) { return std::log1p(X); }},
      {"sqrt", [](double X) { return std::sqrt(X); }},
      {"rsqrt", [](double X) { return 1.0 / std::sqrt(X); }},
      {"abs", [](double X) { return std::fabs(X); }},
      {"sin", [](double X) { return std::sin(X); }},
      {"cos", [](double X) { return std::cos(X); }},
      {"tan", [](double X) { return std::tan(X); }},
      {"asin", [](double X) { return std::asin(X); }},
      {"acos", [](double X) { return std::acos(X); }},
      {"atan", [](double X) { return std::atan(X); }},
      {"sinh", [](double X) { return std::sinh(X); }},
      {"cosh", [](double X) { return std::cosh(X); }},
      {"tanh", [](double X) { return std::tanh(X); }},
      {"sigmoid", [](double X) { return 1.0 / (1.0 + std::exp(-X)); }},
      {"floor", [](double X) { return std::floor(X); }},
      {"ceil", [](double X) { return std::ceil(X); }},
      {"round", [](double X) { return std::nearbyint(X); }},
      {"trunc", [](double X) { return std::trunc(X); }},
      {"erf", [](double X) { return std::erf(X); }},
      {"rcp", [](double X) { return 1.0 / X; }}};
  auto It = Unary.find(Fn.str());
  if (It != Unary.end())
    return It->second(A);
  if (Fn == "atan2")
    return std::atan2(A, B);
  if (Fn == "fmod")
    return std::fmod(A, B);
  if (Fn == "hypot")
    return std::hypot(A, B);
  return std::copysign(A, B);
}

double floatBinary(OpKind K, double A, double B) {
  switch (K) {
  case OpKind::Add:
    return A + B;
  case OpKind::Sub:
    return A - B;
  case OpKind::Mul:
    return A * B;
  case OpKind::Div:
    return A / B;
  case OpKind::FloorDiv:
    return std::floor(A / B);
  case OpKind::FloorMod:
    return A - std::floor(A / B) * B;
  case OpKind::Min:
    return std::fmin(A, B);
  case OpKind::Max:
    return std::fmax(A, B);
  default:
    return std::pow(A, B);
  }
}

} // namespace

int64_t Machine::intBinary(const Operation &Op, int64_t A, int64_t B,
                           int64_t T) const {
  switch (Op.getKind()) {
  case OpKind::Add:
    return int64_t(uint64_t(A) + uint64_t(B));
  case OpKind::Sub:
    return int64_t(uint64_t(A) - uint64_t(B));
  case OpKind::Mul:
    return int64_t(uint64_t(A) * uint64_t(B));
  case OpKind::Min:
    return std::min(A, B);
  case OpKind::Max:
    return std::max(A, B);
  case OpKind::And:
    return A & B;
  case OpKind::Or:
    return A | B;
  case OpKind::Xor:
    return A ^ B;
  case OpKind::Shl:
    return B >= 64 ? 0 : int64_t(uint64_t(A) << B);
  case OpKind::Shr:
    return B >= 64 ? (A < 0 ? -1 : 0) : A >> B;
  case OpKind::Pow: {
    int64_t R = 1;
    for (int64_t I = 0; I < B; ++I)
      R *= A;
    return R;
  }
  default:
    break;
  }
  if (B == 0)
    fail(Op, "integer division by zero", T);
  if (Op.is(OpKind::Div))
    return A / B;
  if (Op.is(OpKind::FloorDiv))
    return floorDiv(A, B);
  return A - floorDiv(A, B) * B;
}

void Machine::execScalar(const Operation &Op, const Mask &M) {
  const Value *R = Op.getResult();
  DType Ty = R->getType().getDType();
  std::vector<uint64_t> &Out = def(R);
  for (int64_t T = 0; T < NumThreads; ++T) {
    if (!M[T])
      continue;
    Out[T] = scalarLane(Op, Ty, T);
  }
}

uint64_t Machine::scalarLane(const Operation &Op, DType Ty, int64_t T) const {
  auto Arg = [&](unsigned I) { return get(Op.getOperand(I), T); };
  OpKind K = Op.getKind();
  if (K == OpKind::Const) {
    const Attribute *A = Op.getAttr("value");
    if (A->isFloat())
      return fromDouble(Ty, A->getFloat());
    if (A->isBool())
      return A->getBool();
    return isFloat(Ty) ? fromDouble(Ty, double(A->getInt()))
                       : fromInt(wrapInt(Ty, A->getInt()));
  }
  if (K == OpKind::ThreadId) {
    int64_t D = *Op.getIntAttr("dim");
    int64_t X = T % ThreadDims[0], Y = T / ThreadDims[0] % ThreadDims[1];
    return fromInt(D == 0   ? X
                   : D == 1 ? Y
                            : T / (ThreadDims[0] * ThreadDims[1]));
  }
  if (K == OpKind::Select)
    return Arg(0) ? Arg(1) : Arg(2);
  if (K == OpKind::Cast)
    return convert(Op.getOperand(0)->getType().getDType(), Ty, Arg(0));
  if (K == OpKind::Bitcast)
    return fromBits(Ty, toBits(Op.getOperand(0)->getType().getDType(), Arg(0)));
  if (K == OpKind::Cmp) {
    DType OT = Op.getOperand(0)->getType().getDType();
    CmpPred P = *parseCmpPred(*Op.getStringAttr("pred"));
    if (isFloat(OT))
      return evalCmp(P, asFloat(Arg(0)), asFloat(Arg(1)));
    if (isUnsigned(OT))
      return evalCmp<uint64_t>(P, Arg(0), Arg(1));
    return evalCmp(P, asInt(Arg(0)), asInt(Arg(1)));
  }
  if (K == OpKind::Math) {
    double A = toDouble(Ty, Arg(0));
    double B = Op.getNumOperands() > 1 ? toDouble(Ty, Arg(1)) : 0.0;
    return fromDouble(Ty, applyMath(*Op.getStringAttr("fn"), A, B));
  }
  if (K == OpKind::Not)
    return Ty == DType::Bool ? !Arg(0) : fromInt(wrapInt(Ty, ~asInt(Arg(0))));
  if (K == OpKind::Neg)
    return isFloat(Ty) ? fromFloat(-asFloat(Arg(0)))
                       : fromInt(wrapInt(Ty, -asInt(Arg(0))));
  if (isFloat(Ty))
    return fromDouble(Ty, floatBinary(K, asFloat(Arg(0)), asFloat(Arg(1))));
  if (isUnsigned(Ty) &&
      (K == OpKind::Div || K == OpKind::FloorDiv || K == OpKind::FloorMod ||
       K == OpKind::Shr || K == OpKind::Min || K == OpKind::Max)) {
    uint64_t A = Arg(0), B = Arg(1);
    if ((K == OpKind::Div || K == OpKind::FloorDiv || K == OpKind::FloorMod) &&
        B == 0)
      fail(Op, "integer division by zero", T);
    uint64_t R = K == OpKind::Shr        ? (B >= 64 ? 0 : A >> B)
                 : K == OpKind::Min      ? std::min(A, B)
                 : K == OpKind::Max      ? std::max(A, B)
                 : K == OpKind::FloorMod ? A % B
                                         : A / B;
    return fromInt(wrapInt(Ty, int64_t(R)));
  }
  return fromInt(wrapInt(Ty, intBinary(Op, asInt(Arg(0)), asInt(Arg(1)), T)));
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

Buffer *Machine::allocate(const Type &Ty, llvm::StringRef Name,
                          bool PerThread) {
  auto B = std::make_unique<Buffer>();
  B->Name = Name.str();
  B->Elem = Ty.getDType();
  B->Scope = Ty.getScope();
  B->NumElems = 1;
  for (const Dim &D : Ty.getDims()) {
    int64_t E =
        D.isStatic() ? D.getValue() : SymbolValues.at(D.getSymbol().str());
    B->Shape.push_back(E);
    B->NumElems *= E;
  }
  B->PerThread = PerThread;
  uint64_t Fill = isFloat(B->Elem)
                      ? fromFloat(std::numeric_limits<double>::quiet_NaN())
                      : 0;
  B->Data.assign(B->NumElems * (PerThread ? NumThreads : 1), Fill);
  Owned.push_back(std::move(B));
  return Owned.back().get();
}

void Machine::execAlloc(const Operation &Op) {
  const Value *R = Op.getResult();
  if (Bufs.count(R))
    return;
  Scope S = R->getType().getScope();
  Buffer *B = allocate(R->getType(), R->getNameHint(),
                       S == Scope::Local || S == Scope::Var);
  B->SharedOffset = Op.getIntAttr("shared_offset").value_or(0);
  if (S == Scope::Shared) {
    B->Writer.assign(B->NumElems, -1);
    B->WriteEpoch.assign(B->NumElems, 0);
  }
  if (Op.getBoolAttr("mbarrier").value_or(false)) {
    B->BarCount.assign(B->NumElems, 0);
    B->BarArrived.assign(B->NumElems, 0);
    B->BarPhase.assign(B->NumElems, 0);
    B->BarTx.assign(B->NumElems, 0);
  }
  Bufs[R] = B;
}

/// A view reads its source's elements row-major in its own shape: a
/// global one aliases the pointer, a shared one starts at the source's
/// first byte (docs/ir.md). Only views that keep the element type are
/// modelled: the interpreter holds elements, not bytes.
void Machine::execView(const Operation &Op) {
  const Value *R = Op.getResult();
  if (Bufs.count(R))
    return;
  const Value *Src = Op.getOperand(0);
  if (!Src->getType().isBuffer())
    fail(Op, "a view of an address (T.make_tensor) is not supported by the "
             "interpreter");
  Buffer &S = buffer(Op, Src);
  Buffer *Root = S.Alias ? S.Alias : &S;
  if (R->getType().getDType() != Root->Elem)
    fail(Op, "a view of '" + Root->Name + "' (" +
                 std::string(irName(Root->Elem)) + ") as " +
                 std::string(irName(R->getType().getDType())) +
                 " is not supported by the interpreter, which holds "
                 "elements, not bytes");
  auto B = std::make_unique<Buffer>();
  B->Name = R->getNameHint().str();
  B->Elem = Root->Elem;
  B->Scope = Root->Scope;
  B->NumElems = 1;
  for (const Dim &D : R->getType().getDims()) {
    B->Shape.push_back(D.isStatic() ? D.getValue()
                                    : SymbolValues.at(D.getSymbol().str()));
    B->NumElems *= B->Shape.back();
  }
  if (B->NumElems > Root->NumElems)
    fail(Op, "a view of " + std::to_string(B->NumElems) + " elements of '" +
                 Root->Name + "', which has " + std::to_string(Root->NumElems));
  B->SharedOffset = Root->SharedOffset;
  B->Alias = Root;
  Owned.push_back(std::move(B));
  Bufs[R] = Owned.back().get();
}

void Machine::execLoadStore(const Operation &Op, const Mask &M) {
  bool IsLoad = Op.is(OpKind::Load);
  std::vector<uint64_t> *Out = IsLoad ? &def(Op.getResult()) : nullptr;
  for (int64_t T = 0; T < NumThreads; ++T) {
    if (!M[T])
      continue;
    ElemRef E = elem(Op, IsLoad ? 0 : 1, T);
    if (IsLoad) {
      checkRead(Op, E, T);
      (*Out)[T] = E.Buf->Data[E.Flat];
      continue;
    }
    E.Buf->Data[E.Flat] = get(Op.getOperand(0), T);
    noteWrite(E, T);
  }
}

void Machine::execVCopy(const Operation &Op, const Mask &M) {
  int64_t Lanes = *Op.getIntAttr("lanes");
  for (int64_t T = 0; T < NumThreads; ++T) {
    if (!M[T])
      continue;
    for (int64_t L = 0; L < Lanes; ++L) {
      ElemRef D = elem(Op, 0, T, L), S = elem(Op, 1, T, L);
      checkRead(Op, S, T);
      noteWrite(D, T);
      D.Buf->Data[D.Flat] =
          convert(S.Buf->Elem, D.Buf->Elem, S.Buf->Data[S.Flat]);
    }
  }
}

void Machine::execAtomic(const Operation &Op, const Mask &M) {
  auto Lanes = Op.getIntAttr("lanes");
  if (Op.getNumGroups() != 2 || (Op.getGroup(1).size() != 1 && !Lanes))
    fail(Op, "the region form of 'atomic' should have been lowered");
  llvm::StringRef Kind = *Op.getStringAttr("kind");
  std::vector<uint64_t> *Prev =
      Op.getNumResults() ? &def(Op.getResult()) : nullptr;
  for (int64_t T = 0; T < NumThreads; ++T) {
    if (!M[T])
      continue;
    // The vector form adds lane L of the source into lane L of the
    // destination, each element atomically.
    for (int64_t L = 0; L < Lanes.value_or(1); ++L) {
      ElemRef E = elem(Op, 0, T, L);
      DType Ty = E.Buf->Elem;
      double Old = toDouble(Ty, E.Buf->Data[E.Flat]);
      double V = 0;
      if (Lanes) {
        ElemRef S = elem(Op, 1, T, L);
        checkRead(Op, S, T);
        V = toDouble(S.Buf->Elem, S.Buf->Data[S.Flat]);
      } else {
        V = toDouble(Ty, get(Op.getOperand(Op.getGroupStart(1)), T));
      }
      double New = Kind == "add"   ? Old + V
                   : Kind == "max" ? std::max(Old, V)
                                   : std::min(Old, V);
      if (Prev)
        (*Prev)[T] = E.Buf->Data[E.Flat];
      noteWrite(E, T);
      E.Buf->Data[E.Flat] = fromDouble(Ty, New);
    }
  }
}

/// cp.async reads its source when issued and writes shared memory when a
/// cp_async_wait covers its group, so a missing wait shows as NaN data.
void Machine::execCpAsync(const Operation &Op, const Mask &M) {
  for (int64_t T = 0; T < NumThreads; ++T) {
    if (!M[T])
      continue;
    ElemRef D = elem(Op, 0, T);
    int64_t N = *Op.getIntAttr("bytes") * 8 / memoryBits(D.Buf->Elem);
    bool Pred =
        Op.getNumGroups() < 3 || get(Op.getOperand(Op.getGroupStart(2)), T);
    for (int64_t L = 0; L < N; ++L) {
      ElemRef DL = elem(Op, 0, T, L);
      uint64_t V = isFloat(DL.Buf->Elem) ? fromFloat(0.0) : 0;
      if (Pred) {
        ElemRef S = elem(Op, 1, T, L);
        V = S.Buf->Data[S.Flat];
      }
      CpOpen[T].push_back({DL, {V}});
    }
  }
}

void Machine::execCpAsyncSync(const Operation &Op, const Mask &M) {
  for (int64_t T = 0; T < NumThreads; ++T) {
    if (!M[T])
      continue;
    if (Op.is(OpKind::CpAsyncCommit)) {
      CpGroups[T].push_back(std::move(CpOpen[T]));
      CpOpen[T].clear();
      continue;
    }
    landCopies(T, *Op.getIntAttr("pending"));
  }
}

void Machine::landCopies(int64_t T, size_t Pending) {
  while (CpGroups[T].size() > Pending) {
    for (PendingCopy &C : CpGroups[T].front()) {
      C.Dst.Buf->Data[C.Dst.Flat] = C.Values[0];
      noteWrite(C.Dst, T);
    }
    CpGroups[T].erase(CpGroups[T].begin());
  }
}

//===----------------------------------------------------------------------===//
// Synchronization
//===----------------------------------------------------------------------===//

static int64_t countActive(const Mask &M) {
  int64_t N = 0;
  for (char C : M)
    N += C;
  return N;
}

std::string Machine::groupName() const {
  int64_t G = Sched.current();
  if (GroupSize == NumThreads)
    return "the block";
  return "warpgroup " + std::to_string(G) + " (threads " +
         std::to_string(G * GroupSize) + "-" +
         std::to_string((G + 1) * GroupSize - 1) + ")";
}

/// A block barrier needs the whole running group; a named one counts the
/// arrivals of every group and completes at `count`. Threads that only
/// arrive (`arrive = true`) go on; the others wait for the completion.
void Machine::execBarrier(const Operation &Op, const Mask &M) {
  if (Op.getStringAttr("scope").value_or("block") == "grid")
    fail(Op, "grid barriers (T.sync_grid) are not supported by the "
             "interpreter, which runs one block at a time");
  int64_t Active = countActive(M);
  std::optional<int64_t> Count = Op.getIntAttr("count");
  if (!Count && Active != GroupSize)
    fail(Op, "barrier reached by " + std::to_string(Active) + " of " +
                 std::to_string(GroupSize) + " threads" +
                 (GroupSize == NumThreads ? "" : " of " + groupName()) +
                 ": the others never arrive (a deadlock on a GPU)");
  int64_t Id = Op.getIntAttr("id").value_or(0);
  int64_t Expected = Count.value_or(NumThreads);
  NamedBarrier &B = Barriers[Id];
  B.Arrived += Active;
  if (B.Arrived >= Expected) {
    B.Arrived = 0;
    ++B.Generation;
    ++Epoch;
    return;
  }
  if (Op.getBoolAttr("arrive").value_or(false))
    return;
  int64_t Gen = B.Generation;
  Sched.wait([this, Id, Gen] { return Barriers[Id].Generation != Gen; }, Op,
             [this, Id, Expected, Who = groupName()] {
               return Who + " waits at barrier " + std::to_string(Id) + " (" +
                      std::to_string(Barriers[Id].Arrived) + " of " +
                      std::to_string(Expected) + " threads arrived)";
             });
}

void Machine::tryCompletePhase(Buffer &B, int64_t I) {
  if (B.BarArrived[I] != B.BarCount[I] || B.BarTx[I] != 0)
    return;
  B.BarArrived[I] = 0;
  ++B.BarPhase[I];
}

void Machine::execMBarrier(const Operation &Op, const Mask &M) {
  Buffer &B = buffer(Op, Op.getOperand(0));
  if (Op.is(OpKind::MBarrierInit)) {
    std::vector<int64_t> Counts = *Op.getIntArrayAttr("counts");
    for (size_t I = 0; I < Counts.size() && I < B.BarCount.size(); ++I) {
      B.BarCount[I] = Counts[I];
      B.BarArrived[I] = 0;
      B.BarTx[I] = 0;
    }
    return;
  }
  for (int64_t T = 0; T < NumThreads; ++T) {
    if (!M[T])
      continue;
    int64_t I = elem(Op, 0, T).Flat;
    if (Op.is(OpKind::MBarrierExpectTx)) {
      B.BarTx[I] += asInt(get(Op.getOperand(Op.getGroupStart(1)), T));
      continue;
    }
    // cp.async.mbarrier.arrive.noinc: the arrival waits for the thread's
    // earlier cp.asyncs, committed or not, so their data lands first.
    if (Op.getBoolAttr("cp_async").value_or(false)) {
      CpGroups[T].push_back(std::move(CpOpen[T]));
      CpOpen[T].clear();
      landCopies(T, 0);
    }
    ++B.BarArrived[I];
    tryCompletePhase(B, I);
  }
}

std::string Machine::mbarrierName(const Buffer &B, int64_t I) const {
  return "mbarrier '" + B.Name + "'[" + std::to_string(I) + "] (" +
         std::to_string(B.BarArrived[I]) + " of " +
         std::to_string(B.BarCount[I]) + " arrivals, " +
         std::to_string(B.BarTx[I]) + " transaction bytes outstanding)";
}

/// mbarrier.try_wait.parity P returns once the phase of parity P has
/// completed, i.e. the current phase's parity differs from P. The running
/// group waits until that holds for each of its active threads.
void Machine::execMBarrierWait(const Operation &Op, const Mask &M) {
  Buffer &B = buffer(Op, Op.getOperand(0));
  std::set<std::pair<int64_t, int64_t>> Waits; // (barrier, parity)
  for (int64_t T = 0; T < NumThreads; ++T)
    if (M[T])
      Waits.insert({elem(Op, 0, T).Flat,
                    asInt(get(Op.getOperand(Op.getGroupStart(1)), T)) & 1});
  for (const std::pair<int64_t, int64_t> &W : Waits) {
    int64_t Bar = W.first, P = W.second;
    Sched.wait([&B, Bar, P] { return (B.BarPhase[Bar] & 1) != P; }, Op,
               [this, &B, Bar, P, Who = groupName()] {
                 return Who + " waits on " + mbarrierName(B, Bar) +
                        " for the phase of parity " + std::to_string(P);
               });
  }
  ++Epoch; // a completed phase orders the arrivers' writes before us
}

//===----------------------------------------------------------------------===//
// Control flow
//===----------------------------------------------------------------------===//

void Machine::runBlock(const Block &B, Mask &M) {
  for (const Operation &Op : B) {
    if (!countActive(M))
      return;
    exec(Op, M);
    for (int64_t T = 0; T < NumThreads; ++T)
      if (M[T] && ExitState[T])
        M[T] = 0;
  }
}

void Machine::execFor(const Operation &Op, const Mask &M) {
  Mask Live = M;
  std::vector<int64_t> Iv(NumThreads), Hi(NumThreads), Step(NumThreads);
  for (int64_t T = 0; T < NumThreads; ++T) {
    if (!M[T])
      continue;
    Iv[T] = asInt(get(Op.getOperand(0), T));
    Hi[T] = asInt(get(Op.getOperand(1), T));
    Step[T] = asInt(get(Op.getOperand(2), T));
  }
  const Value *Arg = Op.getBody().getArgument(0);
  for (;;) {
    Mask Iter(NumThreads, 0);
    for (int64_t T = 0; T < NumThreads; ++T)
      Iter[T] = Live[T] && Iv[T] < Hi[T];
    if (!countActive(Iter))
      return;
    std::vector<uint64_t> &Lanes = def(Arg);
    for (int64_t T = 0; T < NumThreads; ++T)
      if (Iter[T])
        Lanes[T] = fromInt(Iv[T]);
    runBlock(Op.getBody(), Iter);
    finishIteration(Live);
    for (int64_t T = 0; T < NumThreads; ++T)
      Iv[T] += Step[T];
  }
}

/// Drops the threads that broke out of the loop and resumes the rest.
void Machine::finishIteration(Mask &Live) {
  for (int64_t T = 0; T < NumThreads; ++T) {
    if (!Live[T])
      continue;
    if (ExitState[T] == 2)
      Live[T] = 0;
    ExitState[T] = 0;
  }
}

void Machine::execWhile(const Operation &Op, const Mask &M) {
  Mask Live = M;
  const Operation &Cond = Op.getBody(0).back();
  for (;;) {
    Mask Iter = Live;
    runBlock(Op.getBody(0), Iter);
    for (int64_t T = 0; T < NumThreads; ++T)
      Live[T] = Live[T] && get(Cond.getOperand(0), T);
    if (!countActive(Live))
      return;
    Iter = Live;
    runBlock(Op.getBody(1), Iter);
    finishIteration(Live);
  }
}

void Machine::execIf(const Operation &Op, const Mask &M) {
  Mask Then(NumThreads, 0), Else(NumThreads, 0);
  for (int64_t T = 0; T < NumThreads; ++T) {
    if (!M[T])
      continue;
    bool C = get(Op.getOperand(0), T);
    Then[T] = C;
    Else[T] = !C;
  }
  runBlock(Op.getBody(0), Then);
  if (Op.getNumRegions() > 1)
    runBlock(Op.getBody(1), Else);
}

void Machine::exec(const Operation &Op, Mask &M) {
  switch (Op.getKind()) {
  case OpKind::Alloc:
    return execAlloc(Op);
  case OpKind::View:
    return execView(Op);
  case OpKind::Load:
  case OpKind::Store:
    return execLoadStore(Op, M);
  case OpKind::VCopy:
    return execVCopy(Op, M);
  case OpKind::Atomic:
    return execAtomic(Op, M);
  case OpKind::CpAsync:
    return execCpAsync(Op, M);
  case OpKind::CpAsyncCommit:
  case OpKind::CpAsyncWait:
    return execCpAsyncSync(Op, M);
  case OpKind::Barrier:
    return execBarrier(Op, M);
  case OpKind::MBarrierInit:
  case OpKind::MBarrierArrive:
  case OpKind::MBarrierExpectTx:
    return execMBarrier(Op, M);
  case OpKind::MBarrierWait:
    return execMBarrierWait(Op, M);
  case OpKind::SetMaxNReg:
    // Register counts do not change what a thread computes; setmaxnreg
    // must be executed by whole warpgroups.
    return requireWholeWarps(Op, M, 128);
  case OpKind::TmaLoad:
    return execTmaLoad(Op, M);
  case OpKind::BulkReduce:
    return execBulkReduce(Op, M);
  case OpKind::BulkWait:
    return;
  case OpKind::FenceProxyAsync:
    return;
  case OpKind::GridDependency:
    // The interpreter runs a func's kernels one after the other.
    return;
  case OpKind::Shfl:
    return execShfl(Op, M);
  case OpKind::Ldmatrix:
    return execLdmatrix(Op, M);
  case OpKind::Stmatrix:
    return execStmatrix(Op, M);
  case OpKind::Mma:
    return execMma(Op, M);
  case OpKind::Mfma:
    return execMfma(Op, M);
  case OpKind::Wgmma:
    return execWgmma(Op, M);
  case OpKind::WgmmaFence:
  case OpKind::WgmmaCommit:
  case OpKind::WgmmaWait:
  case OpKind::ScheduleAfter:
    return;
  case OpKind::For:
    return execFor(Op, M);
  case OpKind::While:
    return execWhile(Op, M);
  case OpKind::If:
    return execIf(Op, M);
  case OpKind::Condition:
    return;
  case OpKind::Break:
  case OpKind::Continue:
    for (int64_t T = 0; T < NumThreads; ++T)
      if (M[T])
        ExitState[T] = Op.is(OpKind::Break) ? 2 : 1;
    return;
  default:
    break;
  }
  if (Op.getNumResults() == 1 && Op.getNumRegions() == 0 &&
      Op.getResult()->getType().isScalar() && !Op.is(OpKind::CallExtern))
    return execScalar(Op, M);
  fail(Op, "'" + Op.getName().str() + "' is not supported by the interpreter");
}

//===----------------------------------------------------------------------===//
// Host side and kernels
//===----------------------------------------------------------------------===//

void Machine::runKernel(const Operation &Kernel) {
  std::vector<int64_t> Grid;
  for (const Value *V : Kernel.getOperands())
    Grid.push_back(asInt(get(V, 0)));
  Grid.resize(3, 1);
  std::vector<int64_t> Threads = *Kernel.getIntArrayAttr("threads");
  Threads.resize(3, 1);
  ThreadDims = {Threads[0], Threads[1], Threads[2]};
  int64_t HostThreads = NumThreads;
  NumThreads = Threads[0] * Threads[1] * Threads[2];
  const Block &Body = Kernel.getBody();
  for (BlockIdx[2] = 0; BlockIdx[2] < Grid[2]; ++BlockIdx[2])
    for (BlockIdx[1] = 0; BlockIdx[1] < Grid[1]; ++BlockIdx[1])
      for (BlockIdx[0] = 0; BlockIdx[0] < Grid[0]; ++BlockIdx[0])
        runKernelBlock(Body);
  NumThreads = HostThreads;
}

void Machine::runKernelBlock(const Block &Body) {
  for (unsigned I = 0; I < Body.getNumArguments(); ++I)
    Vals[Body.getArgument(I)] = {fromInt(BlockIdx[I])};
  // Shared and per-thread buffers are fresh in every block.
  for (auto It = Bufs.begin(); It != Bufs.end();)
    It = It->second->Scope == Scope::Global ? std::next(It) : Bufs.erase(It);
  ExitState.assign(NumThreads, 0);
  CpGroups.assign(NumThreads, {});
  CpOpen.assign(NumThreads, {});
  Barriers.clear();
  // Warpgroups run as separate groups, so that a warp-specialized
  // kernel's roles can wait on each other.
  GroupSize = NumThreads > 128 && NumThreads % 128 == 0 ? 128 : NumThreads;
  std::string Where = " (block (" + std::to_string(BlockIdx[0]) + ", " +
                      std::to_string(BlockIdx[1]) + ", " +
                      std::to_string(BlockIdx[2]) + "))";
  Sched.run(
      NumThreads / GroupSize,
      [this, &Body](int64_t G) {
        Mask M(NumThreads, 0);
        std::fill(M.begin() + G * GroupSize, M.begin() + (G + 1) * GroupSize,
                  1);
        runBlock(Body, M);
      },
      Where);
}

void Machine::runHost(const Operation &Func, llvm::ArrayRef<int64_t> Symbols,
                      std::vector<Buffer *> Params) {
  const Block &Body = Func.getBody();
  std::vector<std::string> Names;
  if (const Attribute *A = Func.getAttr("symbols"))
    for (const Attribute &S : A->getArray())
      Names.push_back(S.getString().str());
  for (size_t I = 0; I < Names.size(); ++I) {
    SymbolValues[Names[I]] = Symbols[I];
    Vals[Body.getArgument(I)] = {fromInt(Symbols[I])};
  }
  // A scalar parameter (a T.float32 argument, say) is one uniform value.
  for (size_t I = 0; I < Params.size(); ++I) {
    const Value *Arg = Body.getArgument(Names.size() + I);
    if (Arg->getType().isScalar())
      Vals[Arg] = {Params[I]->Data[0]};
    else
      Bufs[Arg] = Params[I];
  }
  NumThreads = 1;
  Mask M(1, 1);
  ExitState.assign(1, 0);
  for (const Operation &Op : Body) {
    if (Op.is(OpKind::Kernel)) {
      runKernel(Op);
      continue;
    }
    if (Op.is(OpKind::Alloc)) {
      Bufs[Op.getResult()] = allocate(Op.getResult()->getType(),
                                      Op.getResult()->getNameHint(), false);
      continue;
    }
    if (Op.is(OpKind::View)) {
      execView(Op);
      continue;
    }
    // The launcher's checks: a failed one stops before any kernel runs.
    if (Op.is(OpKind::Check)) {
      if (!get(Op.getOperand(0), 0))
        fail(Op, "launcher check failed (" +
                     Op.getStringAttr("status").value_or("").str() +
                     "): " + Op.getStringAttr("message").value_or("").str());
      continue;
    }
    exec(Op, M);
  }
}

bool tilec::interp::runFunc(const Operation &Func,
                            llvm::ArrayRef<int64_t> SymbolValues,
                            std::vector<HostBuffer> &Params, const Target &Tgt,
                            DiagnosticEngine &Diags) {
  Machine Mach(Tgt);
  std::vector<Buffer *> Bufs;
  for (HostBuffer &H : Params) {
    auto B = std::make_unique<Buffer>();
    B->Name = H.Name;
    B->Elem = H.Elem;
    B->Shape = H.Shape;
    B->NumElems = int64_t(H.Data.size());
    B->Data = std::move(H.Data);
    Bufs.push_back(B.get());
    Mach.Owned.push_back(std::move(B));
  }
  try {
    Mach.runHost(Func, SymbolValues, Bufs);
  } catch (const InterpError &E) {
    Diags.report(E.Op->getLoc(), diag::err_interp) << E.Message;
    for (const auto &[Op, What] : E.Notes)
      Diags.report(Op->getLoc(), diag::note_interp) << What;
    return false;
  }
  for (size_t I = 0; I < Params.size(); ++I)
    Params[I].Data = std::move(Bufs[I]->Data);
  return true;
}
