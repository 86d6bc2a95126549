//===- LowerCumsum.cpp - T.cumsum on CUDA cores ---------------------------===//

#include "LowerCumsum.h"
#include "IndexExprToIR.h"
#include "ReduceEmit.h"
#include "tilec/IR/Builder.h"
#include "tilec/Layout/LayoutParser.h"
#include "tilec/Layout/ThreadLayouts.h"
#include "tilec/Support/Diagnostics.h"

using namespace tilec;
using namespace tilec::ir;

namespace {

class CumsumLowering {
public:
  CumsumLowering(Operation &Op, DiagnosticEngine &Diags)
      : Op(Op), Kernel(*Op.getParentOfKind(OpKind::Kernel)), Diags(Diags),
        Axis(Op.getIntAttr("dim").value_or(0)),
        Reverse(Op.getBoolAttr("reverse").value_or(false)),
        Src(Op.getOperand(0)), Dst(Op.getOperand(1)),
        DT(Dst->getType().getDType()) {}

  bool run() {
    auto Shape = Dst->getType().getStaticShape();
    if (!Shape || Src->getType().getStaticShape() != Shape)
      return fail("the buffers need one static shape");
    if (!isFloat(DT) && !isInteger(DT))
      return fail("the destination dtype " + tileLangName(DT).str() +
                  " cannot accumulate");
    this->Shape = *Shape;
    // Its scan synchronizes the whole block (__syncthreads).
    if (enclosingRole(Op))
      return fail("it is inside a T.ws role block");
    B.setInsertionPoint(&Op);
    B.setLoc(Op.getLoc());
    std::string SrcLayout, DstLayout;
    if ((Src->isBufferIn(Scope::Fragment) && !layoutText(Src, SrcLayout)) ||
        (Dst->isBufferIn(Scope::Fragment) && !layoutText(Dst, DstLayout)))
      return false;
    Value *Work = Dst->isBufferIn(Scope::Fragment)
                      ? allocAtStart(Kernel,
                                     Type::buffer(Scope::Shared,
                                                  Dst->getType().getDims(), DT),
                                     "scan_buf")
                      : Dst;
    Value *In = Src;
    if (Src->isBufferIn(Scope::Fragment)) {
      emitCopy(Src, Work, SrcLayout);
      In = Work;
    }
    emitBarrier(B);
    emitScan(In, Work);
    emitBarrier(B);
    if (Dst->isBufferIn(Scope::Fragment)) {
      emitCopy(Work, Dst, DstLayout);
      emitBarrier(B);
    }
    Op.erase();
    return true;
  }

private:
  Operation &Op;
  Operation &Kernel;
  DiagnosticEngine &Diags;
  unsigned Axis;
  bool Reverse;
  Value *Src, *Dst;
  DType DT;
  std::vector<int64_t> Shape;
  Builder B;

  bool fail(const std::string &Why) {
    Diags.report(Op.getLoc(), diag::err_reduce_layout) << "cumsum" << Why;
    return false;
  }

  bool layoutText(Value *Buf, std::string &Text) {
    std::string Error;
    Operation *Alloc = Buf->getDefiningOp();
    Text = Alloc ? Alloc->getStringAttr("layout").value_or("").str() : "";
    if (layout::parseFragment(Text, Error))
      return true;
    return fail("fragment '" + Buf->getNameHint().str() +
                "' has no valid layout; run layout-inference first");
  }

  /// parallel over the whole shape with Layout: To[x] = From[x].
  void emitCopy(Value *From, Value *To, const std::string &Layout) {
    Operation *Par = createLayoutLoop(B, Shape, Layout);
    Builder::InsertionGuard G(B);
    B.setInsertionPointToEnd(Par->getBody());
    std::vector<Value *> Vars = Par->getBody().getArguments();
    Value *X = B.createLoad(From, Vars);
    if (X->getType().getDType() != To->getType().getDType())
      X = B.createCast(X, To->getType().getDType());
    B.createStore(X, To, Vars);
  }

  /// One thread per line along Axis scans it serially.
  void emitScan(Value *In, Value *Out) {
    std::vector<int64_t> Lines = Shape;
    Lines.erase(Lines.begin() + Axis);
    if (Lines.empty())
      Lines.push_back(1);
    std::string Layout =
        layout::makeDefaultFragment(Lines, kernelThreadCount(Kernel), 1)
            .toString();
    Value *Acc = allocAtStart(
        Kernel, Type::buffer(Scope::Local, {ir::Dim(1)}, DT), "scan_acc");
    Operation *Par = createLayoutLoop(B, Lines, Layout);
    Builder::InsertionGuard G(B);
    B.setInsertionPointToEnd(Par->getBody());
    std::vector<Value *> Vars = Par->getBody().getArguments();
    Value *Zero = B.createConstInt(0);
    B.createStore(identityValue(B, ReduceKind::Sum, DT), Acc, {Zero});
    int64_t N = Shape[Axis];
    Operation *For = B.createFor(Zero, B.createConstInt(N), B.createConstInt(1),
                                 "serial", "k");
    B.setInsertionPointToEnd(For->getBody());
    Value *K = For->getBody().getArgument(0);
    if (Reverse)
      K = B.createBinary(OpKind::Sub, B.createConstInt(N - 1), K);
    std::vector<Value *> Idx(Vars.begin(), Vars.end());
    if (Shape.size() == 1)
      Idx = {K};
    else
      Idx.insert(Idx.begin() + Axis, K);
    Value *X = prepareValue(B, ReduceKind::Sum, B.createLoad(In, Idx), DT);
    Value *Sum = B.createBinary(OpKind::Add, B.createLoad(Acc, {Zero}), X);
    B.createStore(Sum, Acc, {Zero});
    B.createStore(Sum, Out, Idx);
  }
};

class LowerCumsumPass : public Pass {
public:
  llvm::StringRef name() const override { return "lower-cumsum"; }
  llvm::StringRef description() const override {
    return "Lower T.cumsum to serial line scans in shared memory";
  }

  bool run(Operation &Module, PassContext &Ctx) override {
    return lowerEach(
        Module,
        [](Operation &Op) {
          return Op.is(OpKind::Cumsum) && Op.getParentOfKind(OpKind::Kernel);
        },
        [&](Operation &Op) { return CumsumLowering(Op, Ctx.Diags).run(); });
  }
};

} // namespace

std::unique_ptr<Pass> tilec::createLowerCumsumPass() {
  return std::make_unique<LowerCumsumPass>();
}
