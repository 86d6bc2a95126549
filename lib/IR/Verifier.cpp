//===- Verifier.cpp - Checking tile IR invariants -------------------------===//
//
// One recursive walk in program order. It keeps the set of values visible
// at the current point (block arguments and results of earlier ops of the
// enclosing blocks), which gives the dominance check for free in an IR
// without CFG, and the symbols of the enclosing func for buffer types. Each
// op is checked by a per-kind function; a failure is reported and the walk
// goes on, so one run reports every broken op.
//
//===----------------------------------------------------------------------===//

#include "tilec/IR/Verifier.h"
#include "VerifierImpl.h"
#include <algorithm>
#include <fmt/format.h>

using namespace tilec;
using namespace tilec::ir;
using namespace tilec::ir::detail;

std::string detail::join(llvm::ArrayRef<std::string> Parts) {
  return fmt::format("{}", fmt::join(Parts, ", "));
}

std::string detail::typesOf(llvm::ArrayRef<Value *> Values) {
  std::vector<std::string> Parts;
  for (Value *V : Values)
    Parts.push_back(V->getType().str());
  return join(Parts);
}

std::string detail::shapeStr(llvm::ArrayRef<Dim> Dims) {
  std::vector<std::string> Parts;
  for (const Dim &D : Dims)
    Parts.push_back(D.isSymbolic() ? D.getSymbol().str()
                                   : std::to_string(D.getValue()));
  return "[" + join(Parts) + "]";
}

//===----------------------------------------------------------------------===//
// Walk, structure, dominance, types
//===----------------------------------------------------------------------===//

void Verifier::visit(const Operation &Op) {
  bool Sound = checkStructure(Op) && checkDominance(Op);
  llvm::StringSet<> SavedSymbols;
  if (Op.is(OpKind::Func)) {
    SavedSymbols = std::move(Symbols);
    Symbols.clear();
    if (auto Names = Op.getAttr("symbols")
                         ? Op.getAttr("symbols")->getStringArray()
                         : std::nullopt)
      for (const std::string &S : *Names)
        Symbols.insert(S);
  }
  for (unsigned I = 0; I != Op.getNumResults(); ++I)
    Sound &=
        checkType(Op, Op.getResult(I)->getType(), "result #" + llvm::Twine(I));
  if (Sound)
    checkOp(Op);

  for (unsigned R = 0; R != Op.getNumRegions(); ++R) {
    const Block &B = Op.getBody(R);
    std::vector<const Value *> Added;
    for (unsigned A = 0; A != B.getNumArguments(); ++A) {
      const Value *Arg = B.getArgument(A);
      checkType(Op, Arg->getType(),
                "region #" + llvm::Twine(R) + " argument #" + llvm::Twine(A));
      Visible.insert(Arg);
      Added.push_back(Arg);
    }
    for (const Operation &Nested : B) {
      visit(Nested);
      for (unsigned I = 0; I != Nested.getNumResults(); ++I) {
        Visible.insert(Nested.getResult(I));
        Added.push_back(Nested.getResult(I));
      }
    }
    for (const Value *V : Added)
      Visible.erase(V);
  }
  if (Op.is(OpKind::Func))
    Symbols = std::move(SavedSymbols);
}

/// Counts from Ops.def and well-formed operand groups.
bool Verifier::checkStructure(const Operation &Op) {
  auto Check = [&](int Fixed, unsigned Got, StringRef What) {
    if (Fixed < 0 || unsigned(Fixed) == Got)
      return true;
    return fail(Op, "expects " + llvm::Twine(Fixed) + " " + What + ", got " +
                        llvm::Twine(Got));
  };
  if (!Check(fixedNumOperands(Op.getKind()), Op.getNumOperands(),
             "operand(s)") ||
      !Check(fixedNumResults(Op.getKind()), Op.getNumResults(), "result(s)") ||
      !Check(fixedNumRegions(Op.getKind()), Op.getNumRegions(), "region(s)"))
    return false;
  for (unsigned G = 0; G != Op.getNumGroups(); ++G)
    if (Op.getSegments()[G] == 0)
      return fail(Op, "has an empty operand group");
  return true;
}

bool Verifier::checkDominance(const Operation &Op) {
  for (unsigned I = 0; I != Op.getNumOperands(); ++I)
    if (!Visible.count(Op.getOperand(I)))
      return fail(Op, "operand #" + llvm::Twine(I) +
                          " is used where its definition is not visible "
                          "(it must be defined earlier in this block or in "
                          "an enclosing one)");
  return true;
}

bool Verifier::checkType(const Operation &Op, const Type &T,
                         const llvm::Twine &What) {
  if (!T.isValid())
    return fail(Op, What + " has no type");
  if (!T.isBuffer())
    return true;
  for (const Dim &D : T.getDims()) {
    if (D.isStatic() && D.getValue() <= 0)
      return fail(Op, What + " has a non-positive dimension in " + T.str());
    if (D.isSymbolic() && !Symbols.count(D.getSymbol()))
      return fail(Op, What + " uses symbol '" + D.getSymbol() +
                          "' that the enclosing func does not declare");
  }
  return true;
}

//===----------------------------------------------------------------------===//
// Shared helpers
//===----------------------------------------------------------------------===//

bool Verifier::requireAttr(const Operation &Op, StringRef Name,
                           Attribute::Kind K, StringRef KindName) {
  const Attribute *A = Op.getAttr(Name);
  if (!A)
    return fail(Op, "requires attribute '" + Name + "'");
  if (A->getKind() != K)
    return fail(Op, "attribute '" + Name + "' must be " + KindName);
  return true;
}

bool Verifier::checkStringChoice(const Operation &Op, StringRef Name,
                                 llvm::ArrayRef<StringRef> Choices,
                                 bool Required) {
  if (!Op.getAttr(Name) && !Required)
    return true;
  if (!requireAttr(Op, Name, Attribute::Kind::String, "a string"))
    return false;
  StringRef V = *Op.getStringAttr(Name);
  if (llvm::is_contained(Choices, V))
    return true;
  std::vector<std::string> Names(Choices.begin(), Choices.end());
  return fail(Op, "attribute '" + Name + "' is \"" + V +
                      "\"; expected one of " + join(Names));
}

bool Verifier::checkScalarOperand(const Operation &Op, unsigned I,
                                  const llvm::Twine &What) {
  if (Op.getOperand(I)->getType().isScalar())
    return true;
  return fail(Op, What + " must be a scalar, got " +
                      Op.getOperand(I)->getType().str());
}

/// Group G is `%buf[%i...]`: a buffer with rank integer indices (or none,
/// meaning the whole buffer, when AllowWhole).
bool Verifier::checkAccess(const Operation &Op, unsigned G, bool AllowWhole,
                           const llvm::Twine &What) {
  llvm::ArrayRef<Value *> Group = Op.getGroup(G);
  const Type &Buf = Group[0]->getType();
  if (!Buf.isBuffer())
    return fail(Op, What + " must be a buffer, got " + Buf.str());
  unsigned NumIndices = Group.size() - 1;
  if (NumIndices != Buf.rank() && !(AllowWhole && NumIndices == 0))
    return fail(Op, What + " of rank " + llvm::Twine(Buf.rank()) + " has " +
                        llvm::Twine(NumIndices) + " indices");
  for (unsigned I = 1; I != Group.size(); ++I)
    if (!Group[I]->getType().isInteger())
      return fail(Op, What + " index #" + llvm::Twine(I - 1) +
                          " must be an integer, got " +
                          Group[I]->getType().str());
  return true;
}

/// Attribute Name is an array with one entry per dim of Buffer: a positive
/// int, -1 (unknown) or a symbol name.
bool Verifier::checkExtent(const Operation &Op, StringRef Name,
                           const Type &Buffer) {
  if (!requireAttr(Op, Name, Attribute::Kind::Array, "an array"))
    return false;
  const std::vector<Attribute> &Elems = Op.getAttr(Name)->getArray();
  if (Elems.size() != Buffer.rank())
    return fail(
        Op, "attribute '" + Name + "' has " + llvm::Twine(Elems.size()) +
                " entries for a buffer of rank " + llvm::Twine(Buffer.rank()));
  for (const Attribute &E : Elems) {
    bool Good = (E.isInt() && (E.getInt() > 0 || E.getInt() == -1)) ||
                (E.isString() && Symbols.count(E.getString()));
    if (!Good)
      return fail(Op, "attribute '" + Name + "' entry " + E.str() +
                          " must be a positive integer, -1 or a declared "
                          "symbol");
  }
  return true;
}

bool Verifier::checkRegionArgs(const Operation &Op, unsigned R, unsigned Count,
                               const llvm::Twine &What) {
  const Block &B = Op.getBody(R);
  if (B.getNumArguments() != Count)
    return fail(Op, "expects " + llvm::Twine(Count) + " " + What + ", got " +
                        llvm::Twine(B.getNumArguments()));
  for (unsigned A = 0; A != Count; ++A)
    if (!B.getArgument(A)->getType().isI32())
      return fail(Op, What + " #" + llvm::Twine(A) + " must be i32, got " +
                          B.getArgument(A)->getType().str());
  return true;
}

//===----------------------------------------------------------------------===//
// Per-kind checks
//===----------------------------------------------------------------------===//

bool Verifier::checkOp(const Operation &Op) {
  if (isBinaryOp(Op.getKind()))
    return checkBinary(Op);
  if (isUnaryOp(Op.getKind()))
    return checkUnary(Op);
  switch (Op.getKind()) {
  case OpKind::Module:
    return checkModule(Op);
  case OpKind::Func:
    return checkFunc(Op);
  case OpKind::Kernel:
    return checkKernel(Op);
  case OpKind::Check:
    return checkCheck(Op);
  case OpKind::Const:
    return checkConst(Op);
  case OpKind::Cmp:
    return checkCmp(Op);
  case OpKind::Select:
    return checkSelect(Op);
  case OpKind::Cast:
    return checkCast(Op);
  case OpKind::Bitcast:
    return checkBitcast(Op);
  case OpKind::CallExtern:
    return checkCallExtern(Op);
  case OpKind::Math:
    return checkMath(Op);
  case OpKind::ThreadId:
    return checkThreadId(Op);
  case OpKind::Alloc:
    return checkAlloc(Op);
  case OpKind::View:
    return checkView(Op);
  case OpKind::Subview:
    return checkSubview(Op);
  case OpKind::Load:
  case OpKind::Store:
    return checkLoadStore(Op);
  case OpKind::Copy:
    return checkCopy(Op);
  case OpKind::Fill:
    return checkFill(Op);
  case OpKind::Gemm:
    return checkGemm(Op);
  case OpKind::Reduce:
    return checkReduce(Op);
  case OpKind::Cumsum:
    return checkCumsum(Op);
  case OpKind::AllReduce:
    return checkAllReduce(Op);
  case OpKind::FinalizeReducer:
    return checkFinalizeReducer(Op);
  case OpKind::Atomic:
    return checkAtomic(Op);
  case OpKind::UseSwizzle:
    return checkUseSwizzle(Op);
  case OpKind::AnnotateLayout:
    return checkAnnotateLayout(Op);
  case OpKind::For:
    return checkFor(Op);
  case OpKind::Parallel:
    return checkParallel(Op);
  case OpKind::If:
    return checkIf(Op);
  case OpKind::While:
    return checkWhile(Op);
  case OpKind::Condition:
    return checkCondition(Op);
  case OpKind::Break:
  case OpKind::Continue:
    return checkLoopExit(Op);
  case OpKind::Barrier:
    return checkBarrier(Op);
  case OpKind::Shfl:
    return checkShfl(Op);
  case OpKind::VCopy:
    return checkVCopy(Op);
  case OpKind::CpAsync:
    return checkCpAsync(Op);
  case OpKind::CpAsyncCommit:
    return checkInKernel(Op);
  case OpKind::CpAsyncWait:
    return checkCpAsyncWait(Op);
  case OpKind::Ldmatrix:
    return checkLdmatrix(Op);
  case OpKind::Stmatrix:
    return checkStmatrix(Op);
  case OpKind::Mma:
    return checkMma(Op);
  case OpKind::Mfma:
    return checkMfma(Op);
  case OpKind::Wgmma:
    return checkWgmma(Op);
  case OpKind::WgmmaFence:
  case OpKind::WgmmaWait:
    return checkWgmmaSync(Op);
  case OpKind::WgmmaCommit:
  case OpKind::FenceProxyAsync:
    return checkInKernel(Op);
  case OpKind::MBarrierInit:
    return checkMBarrierInit(Op);
  case OpKind::MBarrierArrive:
  case OpKind::MBarrierWait:
  case OpKind::MBarrierExpectTx:
    return checkMBarrierUse(Op);
  case OpKind::TmaLoad:
    return checkTmaLoad(Op);
  case OpKind::BulkReduce:
    return checkBulkReduce(Op);
  case OpKind::BulkWait:
    return checkBulkWait(Op);
  case OpKind::SetMaxNReg:
    return checkSetMaxNReg(Op);
  case OpKind::GridDependency:
    return checkGridDependency(Op);
  case OpKind::ScheduleAfter:
    return checkScheduleAfter(Op);
  default:
    return true;
  }
}

bool Verifier::checkModule(const Operation &Op) {
  if (Op.getParentOp())
    return fail(Op, "must be the top-level operation");
  if (!checkRegionArgs(Op, 0, 0, "region argument(s)"))
    return false;
  for (const Operation &Nested : Op.getBody())
    if (!Nested.is(OpKind::Func))
      return fail(Op, "may contain only 'func' ops, found '" +
                          Nested.getName() + "'");
  return true;
}

bool Verifier::checkFunc(const Operation &Op) {
  if (!Op.getParentOp() || !Op.getParentOp()->is(OpKind::Module))
    return fail(Op, "must be directly inside a 'module'");
  if (!requireAttr(Op, "name", Attribute::Kind::String, "a string"))
    return false;
  std::vector<std::string> Syms, Params;
  for (auto [Name, Out] : {std::pair{"symbols", &Syms}, {"params", &Params}}) {
    const Attribute *A = Op.getAttr(Name);
    if (!A)
      continue;
    std::optional<std::vector<std::string>> List = A->getStringArray();
    if (!List)
      return fail(Op, llvm::Twine("attribute '") + Name +
                          "' must be an array of strings");
    *Out = *List;
  }
  const Block &Body = Op.getBody();
  if (Body.getNumArguments() != Syms.size() + Params.size())
    return fail(Op, "has " + llvm::Twine(Body.getNumArguments()) +
                        " region arguments for " + llvm::Twine(Syms.size()) +
                        " symbol(s) and " + llvm::Twine(Params.size()) +
                        " parameter(s)");
  for (unsigned I = 0; I != Syms.size(); ++I)
    if (!Body.getArgument(I)->getType().isI32())
      return fail(Op, "symbol argument '" + Syms[I] + "' must be i32");
  if (!Op.getAttr("out_idx"))
    return true;
  std::optional<std::vector<int64_t>> Out = Op.getIntArrayAttr("out_idx");
  if (!Out)
    return fail(Op, "attribute 'out_idx' must be an array of integers");
  int64_t N = Params.size();
  for (int64_t I : *Out)
    if (I < -N || I >= N)
      return fail(Op, "out_idx entry " + llvm::Twine(I) +
                          " is out of range for " + llvm::Twine(N) +
                          " parameter(s)");
  return true;
}

bool Verifier::checkKernel(const Operation &Op) {
  unsigned N = Op.getNumOperands();
  if (N < 1 || N > 3)
    return fail(Op, "expects 1 to 3 grid extents, got " + llvm::Twine(N));
  for (unsigned I = 0; I != N; ++I)
    if (!Op.getOperand(I)->getType().isI32())
      return fail(Op, "grid extent #" + llvm::Twine(I) + " must be i32, got " +
                          Op.getOperand(I)->getType().str());
  if (!checkRegionArgs(Op, 0, N, "block index argument(s)"))
    return false;
  if (!Op.getParentOfKind(OpKind::Func))
    return fail(Op, "must be inside a 'func'");
  if (Op.getParentOfKind(OpKind::Kernel))
    return fail(Op, "cannot be nested in another kernel");
  std::optional<std::vector<int64_t>> Threads = Op.getIntArrayAttr("threads");
  if (!Threads || Threads->empty() || Threads->size() > 3 ||
      llvm::any_of(*Threads, [](int64_t T) { return T <= 0; }))
    return fail(Op, "requires attribute 'threads': 1 to 3 positive integers");
  if (Op.getAttr("min_blocks_per_sm") &&
      Op.getIntAttr("min_blocks_per_sm").value_or(0) <= 0)
    return fail(Op, "attribute 'min_blocks_per_sm' must be a positive integer");
  return true;
}

/// check %cond {status = "assert" | "shape", message = "..."}: the
/// launcher returns the status's error code when %cond (i1) is false.
bool Verifier::checkCheck(const Operation &Op) {
  const Operation *Parent = Op.getParentOp();
  if (!Parent || !Parent->is(OpKind::Func))
    return fail(Op, "must be directly inside a 'func'");
  if (!Op.getOperand(0)->getType().isBool())
    return fail(Op, "condition must be i1, got " +
                        Op.getOperand(0)->getType().str());
  std::optional<llvm::StringRef> Status = Op.getStringAttr("status");
  if (!Status || (*Status != "assert" && *Status != "shape"))
    return fail(Op, "requires attribute 'status': \"assert\" or \"shape\"");
  if (!Op.getStringAttr("message"))
    return fail(Op, "requires attribute 'message' (a string)");
  return true;
}

bool Verifier::checkConst(const Operation &Op) {
  const Attribute *V = Op.getAttr("value");
  const Type &T = Op.getResult()->getType();
  if (!V)
    return fail(Op, "requires attribute 'value'");
  if (!T.isScalar())
    return fail(Op, "result must be a scalar, got " + T.str());
  bool Good = (V->isInt() && (T.isInteger() || T.isFloat())) ||
              (V->isFloat() && T.isFloat()) || (V->isBool() && T.isBool());
  if (!Good)
    return fail(Op, "value " + V->str() + " cannot have type " + T.str());
  return true;
}

bool Verifier::checkBinary(const Operation &Op) {
  const Type &T = Op.getResult()->getType();
  Value *A = Op.getOperand(0), *B = Op.getOperand(1);
  if (!T.isScalar() || A->getType() != T || B->getType() != T)
    return fail(Op, "operands must have the scalar result type " + T.str() +
                        ", got " + typesOf(Op.getOperands()));
  switch (Op.getKind()) {
  case OpKind::And:
  case OpKind::Or:
  case OpKind::Xor:
    if (!T.isInteger() && !T.isBool())
      return fail(Op, "requires integer or i1 operands, got " + T.str());
    return true;
  case OpKind::Shl:
  case OpKind::Shr:
    if (!T.isInteger())
      return fail(Op, "requires integer operands, got " + T.str());
    return true;
  default:
    if (T.isBool())
      return fail(Op, "does not take i1 operands");
    return true;
  }
}

bool Verifier::checkUnary(const Operation &Op) {
  const Type &T = Op.getResult()->getType();
  if (!T.isScalar() || Op.getOperand(0)->getType() != T)
    return fail(Op, "operand must have the scalar result type " + T.str() +
                        ", got " + typesOf(Op.getOperands()));
  if (Op.is(OpKind::Not) && !T.isInteger() && !T.isBool())
    return fail(Op, "requires an integer or i1 operand, got " + T.str());
  if (Op.is(OpKind::Neg) && T.isBool())
    return fail(Op, "does not take an i1 operand");
  return true;
}

bool Verifier::checkCmp(const Operation &Op) {
  if (!Op.getResult()->getType().isBool())
    return fail(Op,
                "result must be i1, got " + Op.getResult()->getType().str());
  const Type &A = Op.getOperand(0)->getType();
  if (!A.isScalar() || Op.getOperand(1)->getType() != A)
    return fail(Op, "operands must be scalars of one type, got " +
                        typesOf(Op.getOperands()));
  return checkStringChoice(Op, "pred", {"eq", "ne", "lt", "le", "gt", "ge"},
                           true);
}

bool Verifier::checkSelect(const Operation &Op) {
  if (!Op.getOperand(0)->getType().isBool())
    return fail(Op, "condition must be i1, got " +
                        Op.getOperand(0)->getType().str());
  const Type &T = Op.getResult()->getType();
  if (!T.isScalar() || Op.getOperand(1)->getType() != T ||
      Op.getOperand(2)->getType() != T)
    return fail(Op, "both choices must have the scalar result type " + T.str() +
                        ", got " + typesOf(Op.getOperands()));
  return true;
}

bool Verifier::checkCast(const Operation &Op) {
  if (!Op.getResult()->getType().isScalar())
    return fail(Op, "result must be a scalar, got " +
                        Op.getResult()->getType().str());
  return checkScalarOperand(Op, 0, "operand");
}

/// Same-width reinterpretation of the bits (T.reinterpret).
bool Verifier::checkBitcast(const Operation &Op) {
  if (!checkCast(Op))
    return false;
  DType From = Op.getOperand(0)->getType().getDType();
  DType To = Op.getResult()->getType().getDType();
  if (bitWidth(From) != bitWidth(To) || From == DType::Bool ||
      To == DType::Bool)
    return fail(Op, "cannot reinterpret " + irName(From) + " as " + irName(To) +
                        " (the bit widths differ)");
  return true;
}

/// `call_extern %a, %buf[%i..], %buf {callee = "f"} [: T]`: a scalar group
/// is passed by value, a buffer group by address (its element, or its start
/// without indices).
bool Verifier::checkCallExtern(const Operation &Op) {
  if (!requireAttr(Op, "callee", Attribute::Kind::String, "a string") ||
      !checkInKernel(Op))
    return false;
  if (Op.getNumResults() > 1)
    return fail(Op, "has at most one result, got " +
                        llvm::Twine(Op.getNumResults()));
  if (Op.getNumResults() == 1 && !Op.getResult()->getType().isScalar())
    return fail(Op, "result must be a scalar, got " +
                        Op.getResult()->getType().str());
  for (unsigned G = 0; G != Op.getNumGroups(); ++G) {
    bool Buffer = Op.getGroup(G)[0]->getType().isBuffer();
    if (Buffer && !checkAccess(Op, G, true, "argument #" + llvm::Twine(G)))
      return false;
    if (!Buffer && Op.getGroup(G).size() != 1)
      return fail(Op, "argument #" + llvm::Twine(G) +
                          " is indexed but is "
                          "not a buffer");
  }
  return true;
}

bool Verifier::checkMath(const Operation &Op) {
  if (!requireAttr(Op, "fn", Attribute::Kind::String, "a string"))
    return false;
  StringRef Fn = *Op.getStringAttr("fn");
  std::optional<unsigned> Arity = mathFnArity(Fn);
  if (!Arity)
    return fail(Op, "unknown function '" + Fn + "'");
  if (Op.getNumOperands() != *Arity)
    return fail(Op, "function '" + Fn + "' takes " + llvm::Twine(*Arity) +
                        " operand(s), got " + llvm::Twine(Op.getNumOperands()));
  const Type &T = Op.getResult()->getType();
  for (Value *V : Op.getOperands())
    if (!T.isScalar() || V->getType() != T)
      return fail(Op, "operands must have the scalar result type " + T.str() +
                          ", got " + typesOf(Op.getOperands()));
  return true;
}

bool Verifier::checkThreadId(const Operation &Op) {
  std::optional<int64_t> Dim = Op.getIntAttr("dim");
  if (!Dim || *Dim < 0 || *Dim > 2)
    return fail(Op, "requires attribute 'dim' of 0, 1 or 2");
  if (!Op.getResult()->getType().isI32())
    return fail(Op, "result must be i32");
  return true;
}

bool Verifier::checkAlloc(const Operation &Op) {
  const Type &T = Op.getResult()->getType();
  if (!T.isBuffer())
    return fail(Op, "result must be a buffer, got " + T.str());
  // A global workspace (T.alloc_global) is allocated by the launcher, so it
  // lives at func level; its dims may use the func's symbols.
  if (T.getScope() == Scope::Global) {
    if (!Op.getParentOp() || !Op.getParentOp()->is(OpKind::Func))
      return fail(Op, "a global buffer must be allocated directly in a 'func'");
    return true;
  }
  if (!T.hasStaticShape())
    return fail(Op, "buffer shape must be static, got " + T.str());
  if (!Op.getAttr("reducer"))
    return true;
  if (T.getScope() != Scope::Fragment)
    return fail(Op, "a reducer must be a fragment, got " + T.str());
  return checkStringChoice(Op, "reducer", {"sum", "max", "min"}, true);
}

/// A global view (`T.Tensor(shape, dtype, buf.data)`) of a parameter or a
/// T.alloc_global buffer: same element type, no more elements than it, or
/// its dims reordered.
bool Verifier::checkGlobalView(const Operation &Op) {
  const Value *Src = Op.getOperand(0);
  const Type &T = Op.getResult()->getType();
  // T.make_tensor: the tensor at a 64-bit address.
  if (Src->getType().isScalar()) {
    if (Src->getType().isInteger() &&
        bitWidth(Src->getType().getDType()) == 64 && T.hasStaticShape())
      return true;
    return fail(Op, "a view of an address is a static global buffer at a "
                    "64-bit integer, got " +
                        Src->getType().str() + " as " + T.str());
  }
  const Operation *Def = Src->getDefiningOp();
  if (!Src->isBlockArgument() && !(Def && Def->is(OpKind::Alloc)))
    return fail(Op, "the source of a global view must be a parameter or a "
                    "global alloc");
  if (T.getDType() != Src->getType().getDType())
    return fail(Op, "a global view keeps the element type");
  // apply-shared-layouts reorders the dims of a symbolic tensor.
  std::vector<Dim> Dims(T.getDims().begin(), T.getDims().end());
  std::vector<Dim> SrcDims(Src->getType().getDims().begin(),
                           Src->getType().getDims().end());
  if (std::is_permutation(Dims.begin(), Dims.end(), SrcDims.begin(),
                          SrcDims.end()))
    return true;
  auto N = T.numElements(), SrcN = Src->getType().numElements();
  if (!N || !SrcN || *N > *SrcN)
    return fail(Op, "the view and its source must have static shapes, the "
                    "view's fitting in the source's, " +
                        Src->getType().str() + " as " + T.str());
  return true;
}

bool Verifier::checkView(const Operation &Op) {
  const Type &Src = Op.getOperand(0)->getType();
  const Type &T = Op.getResult()->getType();
  if (T.isBufferIn(Scope::Global) &&
      (Src.isScalar() || Src.isBufferIn(Scope::Global)))
    return checkGlobalView(Op);
  if (!Src.isBuffer() || !T.isBuffer())
    return fail(Op, "source and result must be buffers");
  if (Src.getScope() != T.getScope() ||
      (T.getScope() != Scope::Shared && T.getScope() != Scope::Fragment))
    return fail(Op, "views a shared or fragment buffer as one of its scope, "
                    "got " +
                        Src.str() + " as " + T.str());
  const Operation *Def = Op.getOperand(0)->getDefiningOp();
  if (!Def || !Def->is(OpKind::Alloc))
    return fail(Op, "the source must be an alloc");
  // apply-shared-layouts may pad the source of a shared view.
  if (!T.hasStaticShape() || !Src.hasStaticShape() ||
      *T.sizeInBytes() > *Src.sizeInBytes())
    return fail(Op, "the view must fit in the source's bytes, " + Src.str() +
                        " as " + T.str());
  if (T.getScope() == Scope::Fragment && T.getDType() != Src.getDType())
    return fail(Op, "a fragment view keeps the element type");
  return true;
}

bool Verifier::checkSubview(const Operation &Op) {
  if (Op.getNumGroups() != 1 || !checkAccess(Op, 0, false, "source"))
    return false;
  const Type &Src = Op.getOperand(0)->getType();
  const Type &T = Op.getResult()->getType();
  if (Src.getScope() != Scope::Shared || !T.isBuffer() ||
      T.getScope() != Scope::Shared || T.getDType() != Src.getDType() ||
      T.rank() != 2 || !T.hasStaticShape() || !Src.hasStaticShape())
    return fail(Op, "views a static shared buffer as a 2-D shared region of "
                    "its element type, got " +
                        Src.str() + " as " + T.str());
  auto Shape = *Src.getStaticShape(), Region = *T.getStaticShape();
  if (Shape.size() < 2 || Region[0] > Shape[Shape.size() - 2] ||
      Region[1] > Shape.back())
    return fail(Op, "the region " + T.str() + " does not fit in " + Src.str());
  return true;
}

bool Verifier::checkLoadStore(const Operation &Op) {
  bool IsLoad = Op.is(OpKind::Load);
  unsigned Group = IsLoad ? 0 : 1;
  if (Op.getNumGroups() != Group + 1)
    return fail(Op, IsLoad ? "expects one operand group %buf[indices...]"
                           : "expects operands %value, %buf[indices...]");
  if (!checkAccess(Op, Group, false, "buffer"))
    return false;
  DType Elem = Op.getGroup(Group)[0]->getType().getDType();
  const Type &V =
      IsLoad ? Op.getResult()->getType() : Op.getOperand(0)->getType();
  if (V != Type::scalar(Elem))
    return fail(Op, llvm::Twine(IsLoad ? "result" : "stored value") +
                        " must have the element type " + irName(Elem) +
                        ", got " + V.str());
  return true;
}

bool Verifier::checkFor(const Operation &Op) {
  for (unsigned I = 0; I != 3; ++I)
    if (!Op.getOperand(I)->getType().isI32())
      return fail(Op, "bounds and step must be i32, got " +
                          typesOf(Op.getOperands()));
  if (!checkRegionArgs(Op, 0, 1, "induction variable(s)") ||
      !checkStringChoice(Op, "kind",
                         {"serial", "pipelined", "unroll", "vectorized"}, true))
    return false;
  if (Op.getAttr("num_stages") && Op.getIntAttr("num_stages").value_or(-1) < 0)
    return fail(Op, "attribute 'num_stages' must be a non-negative integer");
  std::optional<std::vector<int64_t>> Order, Stage;
  if (Op.getAttr("order") && !(Order = Op.getIntArrayAttr("order")))
    return fail(Op, "attribute 'order' must be an array of integers");
  if (Op.getAttr("stage") && !(Stage = Op.getIntArrayAttr("stage")))
    return fail(Op, "attribute 'stage' must be an array of integers");
  if (Order && Stage && Order->size() != Stage->size())
    return fail(Op, "attributes 'order' and 'stage' differ in length");
  return true;
}

bool Verifier::checkParallel(const Operation &Op) {
  std::optional<std::vector<int64_t>> Extents = Op.getIntArrayAttr("extents");
  if (!Extents || Extents->empty() ||
      llvm::any_of(*Extents, [](int64_t E) { return E <= 0; }))
    return fail(Op, "requires attribute 'extents': positive integers");
  return checkRegionArgs(Op, 0, Extents->size(), "loop variable(s)");
}

bool Verifier::checkIf(const Operation &Op) {
  if (Op.getNumRegions() < 1 || Op.getNumRegions() > 2)
    return fail(Op, "expects a then region and an optional else region");
  if (!Op.getOperand(0)->getType().isBool())
    return fail(Op, "condition must be i1, got " +
                        Op.getOperand(0)->getType().str());
  for (unsigned R = 0; R != Op.getNumRegions(); ++R)
    if (!checkRegionArgs(Op, R, 0, "region argument(s)"))
      return false;
  // A role block (`with T.ws(g)`): the threads [offset, offset + count) run
  // its then region, whole warps.
  if (Op.hasAttr("thread_range")) {
    auto Range = Op.getIntArrayAttr("thread_range");
    if (!Range || Range->size() != 2 || (*Range)[0] < 0 || (*Range)[1] <= 0 ||
        (*Range)[0] % 32 != 0 || (*Range)[1] % 32 != 0)
      return fail(Op, "attribute 'thread_range' must be [offset, count]: "
                      "multiples of 32, count positive");
    if (Op.getNumRegions() != 1)
      return fail(Op, "a role block ('thread_range') has no else region");
  }
  return true;
}

bool Verifier::checkWhile(const Operation &Op) {
  if (!checkRegionArgs(Op, 0, 0, "region argument(s)") ||
      !checkRegionArgs(Op, 1, 0, "region argument(s)"))
    return false;
  const Block &Cond = Op.getBody(0);
  if (Cond.empty() || !Cond.back().is(OpKind::Condition))
    return fail(Op, "condition region must end with a 'condition' op");
  return true;
}

bool Verifier::checkCondition(const Operation &Op) {
  const Operation *Parent = Op.getParentOp();
  bool InCondRegion = Parent && Parent->is(OpKind::While) &&
                      &Parent->getBody(0) == Op.getParentBlock() &&
                      &Op.getParentBlock()->back() == &Op;
  if (!InCondRegion)
    return fail(Op, "must be the last op of a 'while' condition region");
  if (!Op.getOperand(0)->getType().isBool())
    return fail(Op,
                "operand must be i1, got " + Op.getOperand(0)->getType().str());
  return true;
}

bool Verifier::checkLoopExit(const Operation &Op) {
  for (const Operation *P = Op.getParentOp(); P; P = P->getParentOp()) {
    if (P->is(OpKind::For) || P->is(OpKind::While))
      return true;
    if (P->is(OpKind::Parallel) || P->is(OpKind::Kernel) || P->is(OpKind::Func))
      break;
  }
  return fail(Op, "must be inside a 'for' or 'while' loop");
}

bool ir::verify(const Operation &Root, DiagnosticEngine &Diags) {
  return detail::Verifier(Diags).run(Root);
}
