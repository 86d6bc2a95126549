//===- VerifyTileOps.cpp - Verifier rules of the tile operators -----------===//
//
// copy, fill, gemm, reduce, cumsum, allreduce, finalize_reducer, the
// atomics, use_swizzle and annotate_layout: the ops Sema emits for TileLang's
// tile primitives, before expand-tile-ops and the layout passes lower them.
//
//===----------------------------------------------------------------------===//

#include "VerifierImpl.h"

using namespace tilec;
using namespace tilec::ir;
using namespace tilec::ir::detail;

bool Verifier::checkCopy(const Operation &Op) {
  if (Op.getNumGroups() != 2)
    return fail(Op, "expects operands %src[...], %dst[...]");
  return checkAccess(Op, 0, true, "source") &&
         checkAccess(Op, 1, true, "destination") &&
         checkExtent(Op, "src_extent", Op.getGroup(0)[0]->getType()) &&
         checkExtent(Op, "dst_extent", Op.getGroup(1)[0]->getType());
}

bool Verifier::checkFill(const Operation &Op) {
  if (Op.getNumGroups() != 2 || Op.getSegments()[1] != 1)
    return fail(Op, "expects operands %buf[...], %value");
  if (!checkAccess(Op, 0, true, "destination"))
    return false;
  const Type &Buf = Op.getOperand(0)->getType();
  const Type &V = Op.getOperands().back()->getType();
  if (V != Type::scalar(Buf.getDType()))
    return fail(Op, "value must have the element type " +
                        irName(Buf.getDType()) + ", got " + V.str());
  return checkExtent(Op, "extent", Buf);
}

/// After lower-fragments a tensor-core gemm (`mma_shape = [M, N, K]`) may
/// take register arrays; its shape then lives in the attribute.
bool Verifier::checkGemm(const Operation &Op) {
  bool Registers = false;
  for (unsigned I = 0; I != 3; ++I) {
    const Type &T = Op.getOperand(I)->getType();
    bool Regs = T.isBufferIn(Scope::Local) && T.rank() == 1;
    Registers |= Regs;
    if (!T.isBuffer() || (T.rank() != 2 && !Regs))
      return fail(Op, "operand #" + llvm::Twine(I) +
                          " must be a rank-2 buffer, got " + T.str());
  }
  if (!checkGemmFlags(Op))
    return false;
  if (Registers) {
    auto Shape = Op.getIntArrayAttr("mma_shape");
    if (!Shape || Shape->size() != 3)
      return fail(Op, "register operands need attribute 'mma_shape'");
    return true;
  }
  return checkGemmShapes(Op);
}

bool Verifier::checkGemmFlags(const Operation &Op) {
  for (StringRef Flag : {"transpose_a", "transpose_b", "clear_accum"})
    if (Op.getAttr(Flag) && !Op.getBoolAttr(Flag))
      return fail(Op, "attribute '" + Flag + "' must be a bool");
  if (!checkStringChoice(Op, "policy", {"Square", "FullRow", "FullCol"}, false))
    return false;
  if (Op.getAttr("k_pack") && Op.getIntAttr("k_pack").value_or(0) <= 0)
    return fail(Op, "attribute 'k_pack' must be a positive integer");
  return true;
}

bool Verifier::checkGemmShapes(const Operation &Op) {
  llvm::ArrayRef<Dim> A = Op.getOperand(0)->getType().getDims();
  llvm::ArrayRef<Dim> B = Op.getOperand(1)->getType().getDims();
  llvm::ArrayRef<Dim> C = Op.getOperand(2)->getType().getDims();
  bool TA = Op.getBoolAttr("transpose_a").value_or(false);
  bool TB = Op.getBoolAttr("transpose_b").value_or(false);
  const Dim &M = A[TA ? 1 : 0], &KA = A[TA ? 0 : 1];
  const Dim &KB = B[TB ? 1 : 0], &N = B[TB ? 0 : 1];
  if (KA != KB || M != C[0] || N != C[1])
    return fail(Op, "shapes do not agree: A " + shapeStr(A) + ", B " +
                        shapeStr(B) + ", C " + shapeStr(C) +
                        " (transpose_a = " + (TA ? "true" : "false") +
                        ", transpose_b = " + (TB ? "true" : "false") +
                        "); expected A MxK, B KxN, C MxN");
  return true;
}

bool Verifier::checkReduce(const Operation &Op) {
  const Type &Src = Op.getOperand(0)->getType();
  const Type &Dst = Op.getOperand(1)->getType();
  if (!Src.isBuffer() || !Dst.isBuffer())
    return fail(Op,
                "operands must be buffers, got " + typesOf(Op.getOperands()));
  if (!checkStringChoice(Op, "kind", {"max", "min", "sum", "abssum", "absmax"},
                         true))
    return false;
  std::optional<int64_t> D = Op.getIntAttr("dim");
  if (!D || *D < 0 || *D >= int64_t(Src.rank()))
    return fail(Op, "attribute 'dim' must be in [0, " +
                        llvm::Twine(Src.rank()) + ")");
  if (Op.getAttr("clear") && !Op.getBoolAttr("clear"))
    return fail(Op, "attribute 'clear' must be a bool");
  // Accept both the reduced shape and the keep-dim shape (dim set to 1);
  // a rank-1 source reduces into shape [1].
  std::vector<Dim> Reduced(Src.getDims().begin(), Src.getDims().end());
  std::vector<Dim> Kept = Reduced;
  Reduced.erase(Reduced.begin() + *D);
  Kept[*D] = Dim(1);
  if (Reduced.empty())
    Reduced.push_back(Dim(1));
  if (Dst.getDims() != llvm::makeArrayRef(Reduced) &&
      Dst.getDims() != llvm::makeArrayRef(Kept))
    return fail(Op, "destination shape " + shapeStr(Dst.getDims()) +
                        " does not match source shape " +
                        shapeStr(Src.getDims()) + " reduced along dim " +
                        llvm::Twine(*D) + " (expected " + shapeStr(Reduced) +
                        ")");
  return true;
}

bool Verifier::checkCumsum(const Operation &Op) {
  const Type &Src = Op.getOperand(0)->getType();
  const Type &Dst = Op.getOperand(1)->getType();
  if (!Src.isBuffer() || !Dst.isBuffer() || Src.getDims() != Dst.getDims())
    return fail(Op, "operands must be buffers of one shape, got " +
                        typesOf(Op.getOperands()));
  std::optional<int64_t> D = Op.getIntAttr("dim");
  if (!D || *D < 0 || *D >= int64_t(Src.rank()))
    return fail(Op, "attribute 'dim' must be in [0, " +
                        llvm::Twine(Src.rank()) + ")");
  if (Op.getAttr("reverse") && !Op.getBoolAttr("reverse"))
    return fail(Op, "attribute 'reverse' must be a bool");
  return true;
}

/// %r = allreduce %v {kind = "sum", dims = [1]} : f32
bool Verifier::checkAllReduce(const Operation &Op) {
  const Type &T = Op.getResult()->getType();
  if (!T.isScalar() || T.isBool() || Op.getOperand(0)->getType() != T)
    return fail(Op, "value must be a non-i1 scalar of the result type " +
                        T.str() + ", got " + typesOf(Op.getOperands()));
  if (!checkStringChoice(Op, "kind", {"sum", "max", "min"}, true))
    return false;
  auto Dims = Op.getIntArrayAttr("dims");
  if (!Dims || Dims->empty())
    return fail(Op, "attribute 'dims' must be a non-empty list of thread "
                    "dimensions");
  unsigned Seen = 0;
  for (int64_t D : *Dims) {
    if (D < 0 || D > 2 || (Seen >> D & 1))
      return fail(Op, "attribute 'dims' must list distinct thread "
                      "dimensions 0, 1 or 2");
    Seen |= 1u << D;
  }
  return checkInKernel(Op);
}

/// finalize_reducer %acc: %acc an `alloc {reducer = ...}` fragment.
bool Verifier::checkFinalizeReducer(const Operation &Op) {
  const Operation *Def = Op.getOperand(0)->getDefiningOp();
  if (!Def || !Def->is(OpKind::Alloc) || !Def->getAttr("reducer"))
    return fail(Op, "operand must be a reducer (an alloc with attribute "
                    "'reducer')");
  return checkInKernel(Op);
}

bool Verifier::checkAtomic(const Operation &Op) {
  if (Op.getNumGroups() != 2)
    return fail(Op, "expects operands %dst[...], %value or %dst[...], "
                    "%src[...]");
  if (!checkStringChoice(Op, "kind", {"add", "max", "min"}, true) ||
      !checkStringChoice(Op, "memory_order",
                         {"acquire", "release", "acq_rel", "seq_cst"}, false))
    return false;
  const Type &Dst = Op.getOperand(0)->getType();
  llvm::ArrayRef<Value *> Src = Op.getGroup(1);
  if (Op.getAttr("lanes"))
    return checkVectorAtomic(Op);
  if (Src.size() == 1 && Src[0]->getType().isScalar()) {
    if (!checkAccess(Op, 0, false, "destination"))
      return false;
    if (Src[0]->getType() != Type::scalar(Dst.getDType()))
      return fail(Op, "value must have the element type " +
                          irName(Dst.getDType()) + ", got " +
                          Src[0]->getType().str());
    if (Op.getNumResults() > 1 ||
        (Op.getNumResults() == 1 &&
         Op.getResult()->getType() != Type::scalar(Dst.getDType())))
      return fail(Op, "may have one result, the previous value, of the "
                      "element type " +
                          irName(Dst.getDType()));
    return true;
  }
  if (Op.getNumResults() != 0)
    return fail(Op, "the region form has no result");
  if (!checkAccess(Op, 0, true, "destination") ||
      !checkAccess(Op, 1, true, "source"))
    return false;
  return checkExtent(Op, "extent", Src[0]->getType());
}

/// The vector form: `lanes` consecutive elements of a source buffer added
/// into as many of the destination, both accessed element-wise, one dtype,
/// at most 16 bytes, no result.
bool Verifier::checkVectorAtomic(const Operation &Op) {
  if (Op.getStringAttr("kind") != llvm::StringRef("add"))
    return fail(Op, "the vector form (lanes) supports kind \"add\" only");
  if (Op.getNumResults() != 0)
    return fail(Op, "the vector form has no result");
  if (!checkAccess(Op, 0, false, "destination") ||
      !checkAccess(Op, 1, false, "source"))
    return false;
  DType T = Op.getOperand(0)->getType().getDType();
  if (Op.getGroup(1)[0]->getType().getDType() != T)
    return fail(Op, "the vector form needs one dtype on both sides");
  int64_t Bits = Op.getIntAttr("lanes").value_or(0) * memoryBits(T);
  if (Op.getIntAttr("lanes").value_or(0) < 2 || Bits > 128 ||
      (Bits & (Bits - 1)) != 0)
    return fail(Op, "requires attribute 'lanes' of at least 2 such that "
                    "lanes * element size is a power of two up to 16 bytes");
  return true;
}

bool Verifier::checkUseSwizzle(const Operation &Op) {
  if (Op.getIntAttr("panel_size").value_or(0) <= 0)
    return fail(Op, "requires attribute 'panel_size', a positive integer");
  if (Op.getAttr("enable") && !Op.getBoolAttr("enable"))
    return fail(Op, "attribute 'enable' must be a bool");
  if (!Op.getParentOfKind(OpKind::Kernel))
    return fail(Op, "must be inside a 'kernel'");
  return checkStringChoice(Op, "order", {"row", "col"}, false);
}

bool Verifier::checkAnnotateLayout(const Operation &Op) {
  if (!Op.getOperand(0)->getType().isBuffer())
    return fail(Op, "operand must be a buffer, got " +
                        Op.getOperand(0)->getType().str());
  return requireAttr(Op, "layout", Attribute::Kind::String, "a string");
}
