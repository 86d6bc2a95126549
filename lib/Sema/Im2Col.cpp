//===- Im2Col.cpp - T.im2col, the convolution's column tile ---------------===//
//
// T.im2col(img, col, nhw_step, c_step, kernel, stride, dilation, pad) fills
// the shared tile `col` [BM, BK] with block (nhw_step, c_step) of the
// im2col matrix of the NHWC image `img` for a square kernel: row m of the
// matrix is output pixel (n, oh, ow) in row-major order, column k is the
// kernel tap (kh, kw, c) with c fastest, and its element is
//   img[n, oh * stride + kh * dilation - pad, ow * stride + kw * dilation
//       - pad, c]
// or zero in the padding. Sema writes it as the `parallel` loop TileLang's
// own lowering makes, an element move under a bounds check, so that the
// copy passes (vectorization, cp.async in T.Pipelined) treat it like any
// other. Unlike TileLang's loop, the check also zeroes rows past the last
// output pixel and columns past the last tap (a partial last tile), which
// TileLang reads out of bounds.
//
//===----------------------------------------------------------------------===//

#include "Builtins.h"
#include "Interp.h"
#include "tilec/IR/Value.h"

using namespace tilec;
using namespace tilec::sema;

namespace {

/// The compile-time figures of one T.im2col.
struct Im2ColShape {
  int64_t N, H, W, C;
  int64_t Kernel, Stride, Dilation, Pad;
  int64_t OH, OW;
  int64_t BM, BK;
};

/// The image [N, H, W, C] and tile [BM, BK] extents; nullopt (reported)
/// when they are not static or do not match.
std::optional<Im2ColShape> im2colShape(Interp &I, BoundArgs &A,
                                       const BufferObj &Img,
                                       const BufferObj &Col) {
  auto Static = [](const BufferObj &B) {
    return llvm::all_of(B.Dims, [](const ir::Dim &D) { return D.isStatic(); });
  };
  if (Img.Dims.size() != 4 || !Static(Img)) {
    I.error(A.range(0), diag::err_im2col)
        << "the image '" + Img.Name +
               "' must be a 4-D NHWC tensor of compile-time shape";
    return std::nullopt;
  }
  if (Col.Dims.size() != 2 || !Static(Col)) {
    I.error(A.range(1), diag::err_im2col)
        << "the column tile '" + Col.Name + "' must be 2-D";
    return std::nullopt;
  }
  Im2ColShape S;
  S.N = Img.Dims[0].getValue();
  S.H = Img.Dims[1].getValue();
  S.W = Img.Dims[2].getValue();
  S.C = Img.Dims[3].getValue();
  S.BM = Col.Dims[0].getValue();
  S.BK = Col.Dims[1].getValue();
  const char *Names[] = {"kernel", "stride", "dilation", "pad"};
  int64_t *Fields[] = {&S.Kernel, &S.Stride, &S.Dilation, &S.Pad};
  for (unsigned K = 0; K != 4; ++K) {
    auto V = I.constInt(A[4 + K], A.range(4 + K), Names[K]);
    if (!V)
      return std::nullopt;
    if (*V < (K == 3 ? 0 : 1)) {
      I.error(A.range(4 + K), diag::err_im2col)
          << std::string(Names[K]) + " must be " +
                 (K == 3 ? "non-negative" : "positive") + ", got " +
                 std::to_string(*V);
      return std::nullopt;
    }
    *Fields[K] = *V;
  }
  int64_t Span = S.Dilation * (S.Kernel - 1) + 1;
  S.OH = (S.H + 2 * S.Pad - Span) / S.Stride + 1;
  S.OW = (S.W + 2 * S.Pad - Span) / S.Stride + 1;
  if (S.H + 2 * S.Pad < Span || S.W + 2 * S.Pad < Span) {
    I.error(A.CallRange, diag::err_im2col)
        << "the kernel spans " + std::to_string(Span) +
               " pixels, more than the padded image";
    return std::nullopt;
  }
  return S;
}

/// Builds the loop body for iteration (\p Row, \p ColIdx).
class Im2ColBody {
public:
  Im2ColBody(Interp &I, const Im2ColShape &S) : I(I), B(I.B), S(S) {}

  void emit(ir::Value *Img, ir::Value *Col, ir::Value *NhwStep,
            ir::Value *CStep, ir::Value *Row, ir::Value *ColIdx) {
    ir::Value *M = add(mul(NhwStep, S.BM), Row);
    ir::Value *K = add(mul(CStep, S.BK), ColIdx);
    ir::Value *OutHW = cst(S.OH * S.OW);
    ir::Value *N = bin(ir::OpKind::FloorDiv, M, OutHW);
    ir::Value *Pix = bin(ir::OpKind::FloorMod, M, OutHW);
    ir::Value *OH = bin(ir::OpKind::FloorDiv, Pix, cst(S.OW));
    ir::Value *OW = bin(ir::OpKind::FloorMod, Pix, cst(S.OW));
    ir::Value *KH = bin(ir::OpKind::FloorDiv, K, cst(S.Kernel * S.C));
    ir::Value *KW = bin(ir::OpKind::FloorMod,
                        bin(ir::OpKind::FloorDiv, K, cst(S.C)), cst(S.Kernel));
    ir::Value *C = bin(ir::OpKind::FloorMod, K, cst(S.C));
    ir::Value *H = pixel(OH, KH);
    ir::Value *W = pixel(OW, KW);
    ir::Value *In =
        all({lt(M, S.N * S.OH * S.OW), lt(K, S.Kernel * S.Kernel * S.C),
             B.createCmp(ir::CmpPred::Ge, H, cst(0)), lt(H, S.H),
             B.createCmp(ir::CmpPred::Ge, W, cst(0)), lt(W, S.W)});
    ir::Operation *If = B.createIf(In, /*WithElse=*/true);
    ir::Builder::InsertionGuard G(B);
    B.setInsertionPointToEnd(If->getBody(0));
    B.createStore(B.createLoad(Img, {N, H, W, C}), Col, {Row, ColIdx});
    B.setInsertionPointToEnd(If->getBody(1));
    DType Ty = Col->getType().getDType();
    B.createStore(I.constant(Value::integer(0), Ty), Col, {Row, ColIdx});
  }

private:
  Interp &I;
  ir::Builder &B;
  const Im2ColShape &S;

  ir::Value *cst(int64_t V) { return B.createConstInt(V); }
  ir::Value *bin(ir::OpKind K, ir::Value *L, ir::Value *R) {
    return B.createBinary(K, L, R);
  }
  ir::Value *add(ir::Value *L, ir::Value *R) {
    return bin(ir::OpKind::Add, L, R);
  }
  ir::Value *mul(ir::Value *L, int64_t R) {
    return bin(ir::OpKind::Mul, L, cst(R));
  }
  ir::Value *lt(ir::Value *L, int64_t R) {
    return B.createCmp(ir::CmpPred::Lt, L, cst(R));
  }
  /// out * stride + tap * dilation - pad.
  ir::Value *pixel(ir::Value *Out, ir::Value *Tap) {
    return bin(ir::OpKind::Sub, add(mul(Out, S.Stride), mul(Tap, S.Dilation)),
               cst(S.Pad));
  }
  ir::Value *all(std::initializer_list<ir::Value *> Conds) {
    ir::Value *Out = nullptr;
    for (ir::Value *V : Conds)
      Out = Out ? bin(ir::OpKind::And, Out, V) : V;
    return Out;
  }
};

} // namespace

Value sema::tIm2col(Interp &I, BoundArgs &A) {
  BufferObj *Img = I.bufferOf(A[0], A.range(0), "T.im2col image");
  BufferObj *Col = I.bufferOf(A[1], A.range(1), "T.im2col column tile");
  if (!Img || !Col)
    return Value::poison();
  if (Img->Scope != ir::Scope::Global || Col->Scope != ir::Scope::Shared) {
    I.error(A.CallRange, diag::err_im2col)
        << "reads a global image into a shared tile, got " +
               ir::scopeName(Img->Scope).str() + " '" + Img->Name + "' and " +
               ir::scopeName(Col->Scope).str() + " '" + Col->Name + "'";
    return Value::poison();
  }
  if (Img->Ty != Col->Ty) {
    I.error(A.CallRange, diag::err_im2col)
        << "the image and the tile must have one dtype";
    return Value::poison();
  }
  auto S = im2colShape(I, A, *Img, *Col);
  ir::Value *NhwStep = I.toIndex(A[2], A.range(2));
  ir::Value *CStep = I.toIndex(A[3], A.range(3));
  if (!S || !NhwStep || !CStep)
    return Value::poison();
  ir::Operation *Par = I.B.createParallel({S->BM, S->BK}, {"i", "j"});
  ir::Builder::InsertionGuard G(I.B);
  I.B.setInsertionPointToEnd(Par->getBody());
  Im2ColBody(I, *S).emit(Img->IR, Col->IR, NhwStep, CStep,
                         Par->getBody().getArgument(0),
                         Par->getBody().getArgument(1));
  return Value::none();
}
