//===- VerifierImpl.h - The verifier's shared parts -------------*- C++ -*-===//
//
// Private to lib/IR: Verifier.cpp holds the walk and the checks of the
// structural and scalar ops, VerifyTileOps.cpp those of the tile operators
// (copy, gemm, reduce, atomics, ...), VerifyLowLevel.cpp those of the ops
// that only lowering creates (barrier, shfl, vcopy, cp_async, ldmatrix, mma).
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_LIB_IR_VERIFIERIMPL_H
#define TILEC_LIB_IR_VERIFIERIMPL_H

#include "tilec/IR/Operation.h"
#include "tilec/Support/Diagnostics.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/Twine.h"
#include <string>

namespace tilec {
namespace ir {
namespace detail {

using llvm::StringRef;

/// "a, b, c".
std::string join(llvm::ArrayRef<std::string> Parts);
/// The types of Values, comma separated.
std::string typesOf(llvm::ArrayRef<Value *> Values);
/// "[M, 128]".
std::string shapeStr(llvm::ArrayRef<Dim> Dims);

class Verifier {
public:
  explicit Verifier(DiagnosticEngine &Diags) : Diags(Diags) {}

  bool run(const Operation &Root) {
    visit(Root);
    return Ok;
  }

private:
  bool fail(const Operation &Op, const llvm::Twine &Msg) {
    Diags.report(Op.getLoc(), diag::err_ir_verify) << Op.getName() << Msg.str();
    Ok = false;
    return false;
  }

  void visit(const Operation &Op);
  bool checkStructure(const Operation &Op);
  bool checkDominance(const Operation &Op);
  bool checkType(const Operation &Op, const Type &T, const llvm::Twine &What);
  bool checkOp(const Operation &Op);

  // Per-kind checks; each returns false after reporting.
  bool checkModule(const Operation &Op);
  bool checkFunc(const Operation &Op);
  bool checkKernel(const Operation &Op);
  bool checkCheck(const Operation &Op);
  bool checkConst(const Operation &Op);
  bool checkBinary(const Operation &Op);
  bool checkUnary(const Operation &Op);
  bool checkCmp(const Operation &Op);
  bool checkSelect(const Operation &Op);
  bool checkCast(const Operation &Op);
  bool checkBitcast(const Operation &Op);
  bool checkCallExtern(const Operation &Op);
  bool checkMath(const Operation &Op);
  bool checkThreadId(const Operation &Op);
  bool checkAlloc(const Operation &Op);
  bool checkView(const Operation &Op);
  bool checkGlobalView(const Operation &Op);
  bool checkSubview(const Operation &Op);
  bool checkLoadStore(const Operation &Op);
  bool checkCopy(const Operation &Op);
  bool checkFill(const Operation &Op);
  bool checkGemm(const Operation &Op);
  bool checkReduce(const Operation &Op);
  bool checkCumsum(const Operation &Op);
  bool checkAllReduce(const Operation &Op);
  bool checkFinalizeReducer(const Operation &Op);
  bool checkAtomic(const Operation &Op);
  bool checkVectorAtomic(const Operation &Op);
  bool checkUseSwizzle(const Operation &Op);
  bool checkAnnotateLayout(const Operation &Op);
  bool checkFor(const Operation &Op);
  bool checkParallel(const Operation &Op);
  bool checkIf(const Operation &Op);
  bool checkWhile(const Operation &Op);
  bool checkCondition(const Operation &Op);
  bool checkLoopExit(const Operation &Op);
  bool checkBarrier(const Operation &Op);
  bool checkShfl(const Operation &Op);
  bool checkVCopy(const Operation &Op);
  bool checkConvertingVCopy(const Operation &Op);
  bool checkGemmFlags(const Operation &Op);
  bool checkGemmShapes(const Operation &Op);
  bool checkCpAsync(const Operation &Op);
  bool checkCpAsyncWait(const Operation &Op);
  bool checkLdmatrix(const Operation &Op);
  bool checkStmatrix(const Operation &Op);
  bool checkRegisterMatrixOp(const Operation &Op, llvm::StringRef Attr,
                             llvm::StringRef What,
                             bool (*TypesMatch)(llvm::StringRef, DType, DType));
  bool checkMma(const Operation &Op);
  bool checkMfma(const Operation &Op);
  bool checkWgmma(const Operation &Op);
  bool checkWgmmaLayoutAttr(const Operation &Op, StringRef Name);
  bool checkWgmmaSync(const Operation &Op);
  bool checkMBarrierInit(const Operation &Op);
  bool checkMBarrierUse(const Operation &Op);
  bool checkTmaLoad(const Operation &Op);
  bool checkBulkReduce(const Operation &Op);
  bool checkBulkWait(const Operation &Op);
  bool checkSetMaxNReg(const Operation &Op);
  bool checkGridDependency(const Operation &Op);
  bool checkMBarrierBuffer(const Operation &Op, const Value *Buf);
  bool checkAccessIn(const Operation &Op, unsigned G, Scope S,
                     const llvm::Twine &What);
  bool checkRegisterGroup(const Operation &Op, unsigned G,
                          const llvm::Twine &What);
  bool checkInKernel(const Operation &Op);
  bool checkScheduleAfter(const Operation &Op);

  // Shared helpers.
  bool checkAccess(const Operation &Op, unsigned Group, bool AllowWhole,
                   const llvm::Twine &What);
  bool checkExtent(const Operation &Op, StringRef Name, const Type &Buffer);
  bool checkRegionArgs(const Operation &Op, unsigned Region, unsigned Count,
                       const llvm::Twine &What);
  bool checkScalarOperand(const Operation &Op, unsigned I,
                          const llvm::Twine &What);
  bool requireAttr(const Operation &Op, StringRef Name, Attribute::Kind K,
                   StringRef KindName);
  bool checkStringChoice(const Operation &Op, StringRef Name,
                         llvm::ArrayRef<StringRef> Choices, bool Required);

  DiagnosticEngine &Diags;
  bool Ok = true;
  llvm::DenseSet<const Value *> Visible;
  /// Symbols of the enclosing func (empty outside funcs).
  llvm::StringSet<> Symbols;
};

} // namespace detail
} // namespace ir
} // namespace tilec

#endif // TILEC_LIB_IR_VERIFIERIMPL_H
