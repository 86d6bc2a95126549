//===- VerifyLowLevel.cpp - Verifier rules of the lowering-only ops -------===//

#include "VerifierImpl.h"

using namespace tilec;
using namespace tilec::ir;
using namespace tilec::ir::detail;

/// barrier, a named barrier `barrier {id = I, count = N}` (bar.sync I, N:
/// ids 0-15, N a positive multiple of the warp size; with `arrive`,
/// bar.arrive I, N), or the grid barrier
/// `barrier {scope = "grid"}` (T.sync_grid), never inside a parallel loop.
bool Verifier::checkBarrier(const Operation &Op) {
  if (!Op.getParentOfKind(OpKind::Kernel))
    return fail(Op, "must be inside a 'kernel'");
  if (Op.hasAttr("scope")) {
    std::optional<llvm::StringRef> Scope = Op.getStringAttr("scope");
    if (!Scope || (*Scope != "block" && *Scope != "grid"))
      return fail(Op, "attribute 'scope' must be \"block\" or \"grid\"");
    if (*Scope == "grid" && (Op.hasAttr("id") || Op.hasAttr("count")))
      return fail(Op, "a grid barrier takes no 'id' or 'count'");
    if (*Scope == "grid" && Op.getParentOfKind(OpKind::Parallel))
      return fail(Op, "a grid barrier cannot be inside a 'parallel' loop");
  }
  std::optional<int64_t> Id = Op.getIntAttr("id");
  std::optional<int64_t> Count = Op.getIntAttr("count");
  if (Id.has_value() != Count.has_value())
    return fail(Op, "needs both 'id' and 'count', or neither");
  if (Id && (*Id < 0 || *Id > 15))
    return fail(Op, "attribute 'id' must be in [0, 15]");
  if (Count && (*Count <= 0 || *Count % 32 != 0))
    return fail(Op, "attribute 'count' must be a positive multiple of 32");
  if (Op.hasAttr("arrive") && !Id)
    return fail(Op, "only a named barrier ('id', 'count') can 'arrive'");
  return true;
}

/// An mbarrier array: a rank-1 shared u64 buffer.
bool Verifier::checkMBarrierBuffer(const Operation &Op, const Value *Buf) {
  const Type &T = Buf->getType();
  if (!T.isBuffer() || T.getScope() != Scope::Shared || T.rank() != 1 ||
      T.getDType() != DType::UInt64)
    return fail(Op,
                "barrier must be a rank-1 shared u64 buffer, got " + T.str());
  return checkInKernel(Op);
}

/// mbarrier_init %bars {counts = [...]}: one arrival count per barrier.
bool Verifier::checkMBarrierInit(const Operation &Op) {
  if (!checkMBarrierBuffer(Op, Op.getOperand(0)))
    return false;
  auto Counts = Op.getIntArrayAttr("counts");
  const Type &T = Op.getOperand(0)->getType();
  if (!Counts || !T.getDims()[0].isStatic() ||
      int64_t(Counts->size()) != T.getDims()[0].getValue())
    return fail(Op, "requires attribute 'counts' with one entry per barrier");
  for (int64_t C : *Counts)
    if (C <= 0 || C >= (1 << 20))
      return fail(Op, "arrival counts must be in [1, 2^20)");
  return true;
}

/// mbarrier_arrive %b[%i]; mbarrier_wait %b[%i], %parity;
/// mbarrier_expect_tx %b[%i], %bytes.
bool Verifier::checkMBarrierUse(const Operation &Op) {
  unsigned Groups = Op.is(OpKind::MBarrierArrive) ? 1 : 2;
  if (Op.getNumGroups() != Groups)
    return fail(Op, "expects " + llvm::Twine(Groups) + " operand group(s)");
  if (!checkMBarrierBuffer(Op, Op.getGroup(0)[0]) ||
      !checkAccess(Op, 0, false, "barrier"))
    return false;
  if (Groups == 2 &&
      (Op.getGroup(1).size() != 1 || !Op.getGroup(1)[0]->getType().isInteger()))
    return fail(Op, "second operand must be an integer scalar");
  return true;
}

/// shfl %v, %lane {mode = "xor", width = 32} : T (width up to 64: an AMD
/// wavefront)
bool Verifier::checkShfl(const Operation &Op) {
  const Type &T = Op.getResult()->getType();
  if (!T.isScalar() || T.isBool() || Op.getOperand(0)->getType() != T)
    return fail(Op, "value must be a non-i1 scalar of the result type " +
                        T.str() + ", got " + typesOf(Op.getOperands()));
  if (!Op.getOperand(1)->getType().isI32())
    return fail(Op,
                "lane must be i32, got " + Op.getOperand(1)->getType().str());
  int64_t Width = Op.getIntAttr("width").value_or(32);
  if (Width < 1 || Width > 64 || (Width & (Width - 1)) != 0)
    return fail(Op, "attribute 'width' must be a power of 2 up to 64");
  if (!Op.getParentOfKind(OpKind::Kernel))
    return fail(Op, "must be inside a 'kernel'");
  return checkStringChoice(Op, "mode", {"xor", "down", "up", "idx"}, true);
}

/// vcopy %dst[..], %src[..] {lanes = N}: one 1/2/4/8/16-byte access; a
/// converting one (element types differ) accesses each memory side with
/// one access of at most 16 bytes, and registers (local) element-wise.
bool Verifier::checkVCopy(const Operation &Op) {
  if (Op.getNumGroups() != 2)
    return fail(Op, "expects operands %dst[...], %src[...]");
  if (!checkAccess(Op, 0, false, "destination") ||
      !checkAccess(Op, 1, false, "source"))
    return false;
  DType Dst = Op.getOperand(0)->getType().getDType();
  DType Src = Op.getGroup(1)[0]->getType().getDType();
  if (Dst != Src)
    return checkConvertingVCopy(Op);
  int64_t Bits = Op.getIntAttr("lanes").value_or(0) * memoryBits(Dst);
  if (Bits < 8 || Bits > 128 || (Bits & (Bits - 1)) != 0)
    return fail(Op, "requires attribute 'lanes' such that lanes * element "
                    "size is 1, 2, 4, 8 or 16 bytes");
  if (!Op.getParentOfKind(OpKind::Kernel))
    return fail(Op, "must be inside a 'kernel'");
  return true;
}

/// Both element types whole bytes (no i1, no sub-byte types); lanes a
/// power of 2 up to 16; each global or shared side at most 16 bytes.
bool Verifier::checkConvertingVCopy(const Operation &Op) {
  for (unsigned G : {0u, 1u}) {
    DType T = Op.getGroup(G)[0]->getType().getDType();
    if (isBool(T) || bitWidth(T) < 8 || bitWidth(T) % 8 != 0)
      return fail(Op, llvm::Twine("converting copy of ") + irName(T) +
                          " elements; element types must be whole bytes, "
                          "not i1");
  }
  int64_t Lanes = Op.getIntAttr("lanes").value_or(0);
  if (Lanes < 1 || Lanes > 16 || (Lanes & (Lanes - 1)) != 0)
    return fail(Op, "requires attribute 'lanes' to be 1, 2, 4, 8 or 16");
  for (unsigned G : {0u, 1u}) {
    const Type &T = Op.getGroup(G)[0]->getType();
    if (T.getScope() != Scope::Local && Lanes * bitWidth(T.getDType()) > 128)
      return fail(Op, llvm::Twine(G ? "source" : "destination") +
                          " access of a converting copy exceeds 16 bytes");
  }
  if (!Op.getParentOfKind(OpKind::Kernel))
    return fail(Op, "must be inside a 'kernel'");
  return true;
}

bool Verifier::checkInKernel(const Operation &Op) {
  if (!Op.getParentOfKind(OpKind::Kernel))
    return fail(Op, "must be inside a 'kernel'");
  return true;
}

bool Verifier::checkAccessIn(const Operation &Op, unsigned G, Scope S,
                             const llvm::Twine &What) {
  if (!checkAccess(Op, G, false, What))
    return false;
  const Type &T = Op.getGroup(G)[0]->getType();
  if (T.getScope() != S)
    return fail(Op, What + " must be a " + scopeName(S) + " buffer, got " +
                        T.str());
  return true;
}

/// cp_async %dst[..], %src[..][, %pred] {bytes = N}: shared <- global.
bool Verifier::checkCpAsync(const Operation &Op) {
  unsigned Groups = Op.getNumGroups();
  if (Groups != 2 && Groups != 3)
    return fail(Op, "expects operands %dst[...], %src[...][, %pred]");
  if (!checkAccessIn(Op, 0, Scope::Shared, "destination") ||
      !checkAccessIn(Op, 1, Scope::Global, "source"))
    return false;
  if (Groups == 3 &&
      (Op.getGroup(2).size() != 1 || !Op.getGroup(2)[0]->getType().isBool()))
    return fail(Op, "predicate must be one i1 value");
  DType Dst = Op.getOperand(0)->getType().getDType();
  if (Dst != Op.getGroup(1)[0]->getType().getDType())
    return fail(Op, "source and destination element types differ");
  int64_t Bytes = Op.getIntAttr("bytes").value_or(0);
  if ((Bytes != 4 && Bytes != 8 && Bytes != 16) || Bytes * 8 < bitWidth(Dst))
    return fail(Op, "requires attribute 'bytes' of 4, 8 or 16");
  return checkInKernel(Op);
}

bool Verifier::checkCpAsyncWait(const Operation &Op) {
  if (Op.getIntAttr("pending").value_or(-1) < 0)
    return fail(Op, "requires a non-negative integer attribute 'pending'");
  return checkInKernel(Op);
}

/// A local register buffer with one index (an element offset).
bool Verifier::checkRegisterGroup(const Operation &Op, unsigned G,
                                  const llvm::Twine &What) {
  if (!checkAccessIn(Op, G, Scope::Local, What))
    return false;
  if (Op.getGroup(G)[0]->getType().rank() != 1)
    return fail(Op, What + " must be a rank-1 register buffer");
  return true;
}

/// ldmatrix %dst[off], %src[..] {count = 1|2|4, trans}: matrices of 8 rows
/// of 16 bytes (8 16-bit, 16 8-bit or 32 4-bit elements).
bool Verifier::checkLdmatrix(const Operation &Op) {
  if (Op.getNumGroups() != 2)
    return fail(Op, "expects operands %dst[offset], %src[...]");
  if (!checkRegisterGroup(Op, 0, "destination") ||
      !checkAccessIn(Op, 1, Scope::Shared, "source"))
    return false;
  int64_t Count = Op.getIntAttr("count").value_or(0);
  if (Count != 1 && Count != 2 && Count != 4)
    return fail(Op, "requires attribute 'count' of 1, 2 or 4");
  return checkInKernel(Op);
}

/// stmatrix %dst[..], %src[off] {count = 1|2|4}: count 8x8 matrices of
/// 16-bit elements from registers into shared rows of 16 bytes.
bool Verifier::checkStmatrix(const Operation &Op) {
  if (Op.getNumGroups() != 2)
    return fail(Op, "expects operands %dst[...], %src[offset]");
  if (!checkAccessIn(Op, 0, Scope::Shared, "destination") ||
      !checkRegisterGroup(Op, 1, "source"))
    return false;
  if (bitWidth(Op.getGroup(0)[0]->getType().getDType()) != 16 ||
      bitWidth(Op.getGroup(1)[0]->getType().getDType()) != 16)
    return fail(Op, "moves 16-bit elements only");
  int64_t Count = Op.getIntAttr("count").value_or(0);
  if (Count != 1 && Count != 2 && Count != 4)
    return fail(Op, "requires attribute 'count' of 1, 2 or 4");
  return checkInKernel(Op);
}

/// The operand types one mma shape accepts.
static bool mmaTypesMatch(StringRef Shape, DType AB, DType D) {
  if (Shape == "m16n8k16")
    return (AB == DType::Float16 &&
            (D == DType::Float32 || D == DType::Float16)) ||
           (AB == DType::BFloat16 && D == DType::Float32);
  if (Shape == "m16n8k32")
    return (AB == DType::Int8 || AB == DType::UInt8) && D == DType::Int32;
  if (Shape == "m16n8k64")
    return (AB == DType::Int4 || AB == DType::UInt4) && D == DType::Int32;
  if (Shape == "m16n8k8")
    return AB == DType::Float32 && D == DType::Float32;
  return false;
}

/// %d[off], %a[off], %b[off] {Attr = Name}: D += A * B on registers, for
/// the instruction \p Name whose operand types \p TypesMatch accepts.
bool Verifier::checkRegisterMatrixOp(const Operation &Op, StringRef Attr,
                                     StringRef What,
                                     bool (*TypesMatch)(StringRef, DType,
                                                        DType)) {
  if (Op.getNumGroups() != 3)
    return fail(Op, "expects operands %d[offset], %a[offset], %b[offset]");
  if (!checkRegisterGroup(Op, 0, "accumulator") ||
      !checkRegisterGroup(Op, 1, "A operand") ||
      !checkRegisterGroup(Op, 2, "B operand"))
    return false;
  StringRef Name = Op.getStringAttr(Attr).value_or("");
  DType AB = Op.getGroup(1)[0]->getType().getDType();
  DType D = Op.getGroup(0)[0]->getType().getDType();
  if (Op.getGroup(2)[0]->getType().getDType() != AB || !TypesMatch(Name, AB, D))
    return fail(Op, "no " + What + " '" + Name + "' for " +
                        typesOf(Op.getOperands()));
  return checkInKernel(Op);
}

/// mma %d[off], %a[off], %b[off] {shape}: D += A * B on registers.
bool Verifier::checkMma(const Operation &Op) {
  return checkRegisterMatrixOp(Op, "shape", "mma shape", mmaTypesMatch);
}

/// The operand and accumulator types of an MFMA instruction (named as in
/// `v_mfma_<instr>`).
static bool mfmaTypesMatch(StringRef Instr, DType AB, DType D) {
  if (Instr == "f32_16x16x16f16" || Instr == "f32_32x32x8f16")
    return AB == DType::Float16 && D == DType::Float32;
  if (Instr == "f32_16x16x16bf16_1k" || Instr == "f32_32x32x8bf16_1k")
    return AB == DType::BFloat16 && D == DType::Float32;
  if (Instr == "i32_16x16x16i8" || Instr == "i32_16x16x32_i8")
    return AB == DType::Int8 && D == DType::Int32;
  if (Instr == "f32_16x16x32_fp8_fp8" || Instr == "f32_32x32x16_fp8_fp8")
    return AB == DType::Float8E4M3FNUZ && D == DType::Float32;
  if (Instr == "f32_16x16x32_bf8_bf8" || Instr == "f32_32x32x16_bf8_bf8")
    return AB == DType::Float8E5M2FNUZ && D == DType::Float32;
  return false;
}

/// mfma %d[off], %a[off], %b[off] {instr}: D += A * B of one wavefront.
bool Verifier::checkMfma(const Operation &Op) {
  return checkRegisterMatrixOp(Op, "instr", "MFMA instruction", mfmaTypesMatch);
}

/// The accumulator types wgmma offers for an operand type, and its k.
static bool wgmmaTypesMatch(DType AB, DType D) {
  switch (AB) {
  case DType::Float16:
    return D == DType::Float32 || D == DType::Float16;
  case DType::BFloat16:
  case DType::Float32:
  case DType::Float8E4M3:
  case DType::Float8E5M2:
    return D == DType::Float32;
  case DType::Int8:
  case DType::UInt8:
    return D == DType::Int32;
  default:
    return false;
  }
}

/// `m64nNkK` with N a multiple of 8 up to 256 (for 8-bit integers 8, 16,
/// 24 or a multiple of 16) and K the 32 bytes of the operand type.
static bool wgmmaShapeMatches(StringRef Shape, DType AB) {
  int64_t N, K;
  if (!Shape.consume_front("m64n"))
    return false;
  auto [NText, KText] = Shape.split('k');
  if (NText.getAsInteger(10, N) || KText.getAsInteger(10, K))
    return false;
  bool Integer = AB == DType::Int8 || AB == DType::UInt8;
  return N >= 8 && N <= 256 && N % 8 == 0 &&
         (!Integer || N <= 24 || N % 16 == 0) && K * bitWidth(AB) == 256;
}

/// `a_layout`/`b_layout = [swizzle bytes, LBO, SBO]` of a shared operand.
bool Verifier::checkWgmmaLayoutAttr(const Operation &Op, StringRef Name) {
  auto L = Op.getIntArrayAttr(Name);
  if (!L || L->size() != 3 ||
      !llvm::is_contained(std::initializer_list<int64_t>{0, 32, 64, 128},
                          (*L)[0]) ||
      (*L)[1] < 0 || (*L)[2] < 0 || (*L)[1] % 16 || (*L)[2] % 16 ||
      (*L)[1] >= (1 << 18) || (*L)[2] >= (1 << 18))
    return fail(Op, "requires attribute '" + Name +
                        "' = [swizzle bytes (0, 32, 64, 128), leading byte "
                        "offset, stride byte offset], offsets multiples of 16 "
                        "below 2^18");
  return true;
}

/// wgmma %d[off], %a[..] | %a[off], %b[..] {shape, a_layout, b_layout,
/// a_mn_major, b_mn_major}: D += A * B for the executing warpgroup.
bool Verifier::checkWgmma(const Operation &Op) {
  if (Op.getNumGroups() != 3)
    return fail(Op, "expects operands %d[offset], %a[...], %b[...]");
  bool ARegs = Op.getGroup(1)[0]->getType().getScope() == Scope::Local;
  if (!checkRegisterGroup(Op, 0, "accumulator") ||
      !(ARegs ? checkRegisterGroup(Op, 1, "A operand")
              : checkAccessIn(Op, 1, Scope::Shared, "A operand")) ||
      !checkAccessIn(Op, 2, Scope::Shared, "B operand"))
    return false;
  StringRef Shape = Op.getStringAttr("shape").value_or("");
  DType AB = Op.getGroup(1)[0]->getType().getDType();
  DType D = Op.getGroup(0)[0]->getType().getDType();
  if (Op.getGroup(2)[0]->getType().getDType() != AB ||
      !wgmmaTypesMatch(AB, D) || !wgmmaShapeMatches(Shape, AB))
    return fail(Op, "no wgmma shape '" + Shape + "' for " +
                        typesOf(Op.getOperands()));
  if ((!ARegs && !checkWgmmaLayoutAttr(Op, "a_layout")) ||
      !checkWgmmaLayoutAttr(Op, "b_layout"))
    return false;
  bool Trans = Op.getBoolAttr("a_mn_major").value_or(false) ||
               Op.getBoolAttr("b_mn_major").value_or(false);
  if (Trans && bitWidth(AB) != 16)
    return fail(Op,
                "only 16-bit operands may be MN-major (a_mn_major/b_mn_major)");
  if (ARegs && Op.getBoolAttr("a_mn_major").value_or(false))
    return fail(Op, "an A operand in registers cannot be transposed");
  return checkInKernel(Op);
}

/// wgmma_fence / wgmma_wait %regs, ...: whole register arrays (the
/// accumulators and A operands the wgmmas in flight use).
bool Verifier::checkWgmmaSync(const Operation &Op) {
  for (unsigned G = 0; G != Op.getNumGroups(); ++G) {
    const Value *Buf = Op.getGroup(G)[0];
    if (Op.getGroup(G).size() != 1 || !Buf->getType().isBuffer() ||
        Buf->getType().getScope() != Scope::Local || Buf->getType().rank() != 1)
      return fail(Op, "operands must be whole rank-1 register buffers");
  }
  if (Op.is(OpKind::WgmmaWait) && Op.getIntAttr("pending").value_or(-1) < 0)
    return fail(Op, "requires a non-negative integer attribute 'pending'");
  return checkInKernel(Op);
}

/// tma_load %dst[..], %src[..][, %bar[%i]] {box = [BO, BI], swizzle = S,
/// dst_offsets = [..], src_offsets = [..]}: one or more boxes of a global
/// tensor (rank >= 2) into shared memory, completing on an mbarrier.
bool Verifier::checkTmaLoad(const Operation &Op) {
  unsigned Groups = Op.getNumGroups();
  if (Groups != 2 && Groups != 3)
    return fail(Op, "expects operands %dst[...], %src[...][, %bar[%i]]");
  if (!checkAccessIn(Op, 0, Scope::Shared, "destination") ||
      !checkAccessIn(Op, 1, Scope::Global, "source"))
    return false;
  if (Groups == 3 && (!checkMBarrierBuffer(Op, Op.getGroup(2)[0]) ||
                      !checkAccess(Op, 2, false, "barrier")))
    return false;
  DType T = Op.getOperand(0)->getType().getDType();
  if (T != Op.getGroup(1)[0]->getType().getDType() || bitWidth(T) % 8 != 0)
    return fail(Op, "source and destination must have one whole-byte "
                    "element type");
  if (Op.getGroup(1)[0]->getType().rank() < 2 ||
      Op.getGroup(1)[0]->getType().rank() > 5)
    return fail(Op, "source must have rank 2 to 5");
  auto Box = Op.getIntArrayAttr("box");
  int64_t Swizzle = Op.getIntAttr("swizzle").value_or(-1);
  if (!Box || Box->size() != 2 || (*Box)[0] < 1 || (*Box)[0] > 256 ||
      (*Box)[1] < 1 || (*Box)[1] > 256)
    return fail(Op, "requires attribute 'box' of two extents in [1, 256]");
  int64_t InnerBytes = (*Box)[1] * bitWidth(T) / 8;
  if (Swizzle != 0 && Swizzle != 32 && Swizzle != 64 && Swizzle != 128)
    return fail(Op, "attribute 'swizzle' must be 0, 32, 64 or 128");
  if (InnerBytes % 16 != 0 || (Swizzle && InnerBytes > Swizzle))
    return fail(Op, "the box's inner extent must be a multiple of 16 bytes "
                    "and at most the swizzle span");
  int64_t SrcRank = Op.getGroup(1)[0]->getType().rank();
  if (Op.getIntAttr("row_dim").value_or(0) < 0 ||
      Op.getIntAttr("row_dim").value_or(0) > SrcRank - 2)
    return fail(Op, "attribute 'row_dim' must name a dim before the last");
  auto DstOffsets = Op.getIntArrayAttr("dst_offsets");
  auto SrcOffsets = Op.getIntArrayAttr("src_offsets");
  if (!DstOffsets || !SrcOffsets || DstOffsets->empty() ||
      SrcOffsets->size() != 2 * DstOffsets->size())
    return fail(Op, "requires 'dst_offsets' (one per box) and 'src_offsets' "
                    "(two per box)");
  return checkInKernel(Op);
}

/// bulk_reduce %dst[..], %src[..] {kind = "add", bytes = N}: N bytes of
/// float32 from shared memory added into global memory by the bulk copy
/// engine; N a positive multiple of 16.
bool Verifier::checkBulkReduce(const Operation &Op) {
  if (Op.getNumGroups() != 2)
    return fail(Op, "expects operands %dst[...], %src[...]");
  if (!checkAccessIn(Op, 0, Scope::Global, "destination") ||
      !checkAccessIn(Op, 1, Scope::Shared, "source"))
    return false;
  if (Op.getOperand(0)->getType().getDType() != DType::Float32 ||
      Op.getGroup(1)[0]->getType().getDType() != DType::Float32)
    return fail(Op, "source and destination must be float32");
  if (Op.getStringAttr("kind") != "add")
    return fail(Op, "requires attribute 'kind' = \"add\"");
  int64_t Bytes = Op.getIntAttr("bytes").value_or(0);
  if (Bytes < 16 || Bytes % 16 != 0)
    return fail(Op, "requires attribute 'bytes', a positive multiple of 16");
  return checkInKernel(Op);
}

/// bulk_wait %src, ..: whole shared buffers the executing thread's bulk
/// reductions read.
bool Verifier::checkBulkWait(const Operation &Op) {
  if (Op.getNumOperands() == 0)
    return fail(Op, "expects the shared buffers it waits for");
  for (const Value *Buf : Op.getOperands())
    if (!Buf->getType().isBuffer() ||
        Buf->getType().getScope() != Scope::Shared)
      return fail(Op, "operands must be whole shared buffers");
  return checkInKernel(Op);
}

/// set_max_nreg {regs = N, inc = true|false}: N a multiple of 8 in
/// [24, 256].
/// schedule_after %v: %v is an f32 or i32 scalar.
bool Verifier::checkScheduleAfter(const Operation &Op) {
  const Type &T = Op.getOperand(0)->getType();
  if (!T.isScalar() ||
      (T.getDType() != DType::Float32 && T.getDType() != DType::Int32))
    return fail(Op, "requires an f32 or i32 scalar operand, got " + T.str());
  return checkInKernel(Op);
}

/// A kernel with the wait may start before the grids it depends on have
/// finished (the launcher allows it): nothing may run before the wait.
bool Verifier::checkGridDependency(const Operation &Op) {
  if (!checkStringChoice(Op, "action", {"wait", "launch_dependents"}, true))
    return false;
  const Operation *Parent = Op.getParentOp();
  if (!Parent || !Parent->is(OpKind::Kernel))
    return fail(Op, "must be directly in a 'kernel' body");
  if (Op.getStringAttr("action") != "wait")
    return true;
  for (const Operation *Prev = Op.getPrevNode(); Prev;
       Prev = Prev->getPrevNode())
    if (!Prev->is(OpKind::GridDependency))
      return fail(Op, "'wait' must come before every other op of its kernel");
  return true;
}

bool Verifier::checkSetMaxNReg(const Operation &Op) {
  int64_t Regs = Op.getIntAttr("regs").value_or(0);
  if (Regs < 24 || Regs > 256 || Regs % 8 != 0 ||
      !Op.getBoolAttr("inc").has_value())
    return fail(Op, "requires 'regs', a multiple of 8 in [24, 256], and a "
                    "boolean 'inc'");
  return checkInKernel(Op);
}
