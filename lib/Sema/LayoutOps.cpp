//===- LayoutOps.cpp - Layout annotations, kernel hints and views ---------===//
//
// T.use_swizzle, T.annotate_layout and the swizzle constructors, the kernel
// hints T.no_set_max_nreg and T.min_blocks_per_sm, and the tensor views
// T.view and T.make_tensor over a buffer's or an address's data. Like
// TileOps.cpp, each handler checks what TileLang checks and emits one op.
//
//===----------------------------------------------------------------------===//

#include "Builtins.h"
#include "Interp.h"
#include "tilec/IR/ConstantMatch.h"
#include "tilec/IR/Value.h"

using namespace tilec;
using namespace tilec::sema;

//===----------------------------------------------------------------------===//
// Annotations and layouts
//===----------------------------------------------------------------------===//

Value sema::tUseSwizzle(Interp &I, BoundArgs &A) {
  auto Panel = I.constInt(A[0], A.range(0), "panel_size");
  auto Enable = I.constBool(A[2], A.range(2), "enable");
  if (!Panel || !Enable)
    return Value::poison();
  if (*Panel <= 0) {
    I.error(A.range(0), diag::err_bad_swizzle)
        << "panel_size must be positive, got " + std::to_string(*Panel);
    return Value::poison();
  }
  if (!A[1].isStr() || (A[1].getStr() != "row" && A[1].getStr() != "col")) {
    I.error(A.range(1), diag::err_bad_swizzle)
        << "order must be \"row\" or \"col\", got " + repr(A[1]);
    return Value::poison();
  }
  I.B.createUseSwizzle(*Panel, A[1].getStr(), *Enable);
  return Value::none();
}

/// T.no_set_max_nreg() / T.disable_warp_group_reg_alloc() in a kernel: it
/// gets `no_set_max_nreg`, so that warp specialization moves no registers
/// between warpgroups (outside a kernel there is nothing to mark).
Value sema::tNoSetMaxNReg(Interp &I, BoundArgs &A) {
  ir::Operation *Parent = I.B.getInsertionBlock()->getParentOp();
  ir::Operation *Kernel = Parent->is(ir::OpKind::Kernel)
                              ? Parent
                              : Parent->getParentOfKind(ir::OpKind::Kernel);
  if (Kernel)
    Kernel->setAttr("no_set_max_nreg", ir::Attribute::boolean(true));
  return Value::none();
}

/// T.annotate_min_blocks_per_sm(n): the kernel's `min_blocks_per_sm`, the
/// second argument of __launch_bounds__ (ptxas caps registers so that n
/// blocks fit on one SM).
Value sema::tMinBlocksPerSM(Interp &I, BoundArgs &A) {
  auto N = I.constInt(A[0], A.range(0), "min_blocks");
  if (!N)
    return Value::poison();
  if (*N <= 0) {
    I.error(A.range(0), diag::err_non_positive_extent)
        << "min_blocks" << std::to_string(*N);
    return Value::poison();
  }
  ir::Operation *Kernel = I.B.getInsertionBlock()->getParentOp();
  if (!Kernel->is(ir::OpKind::Kernel))
    Kernel = Kernel->getParentOfKind(ir::OpKind::Kernel);
  Kernel->setAttr("min_blocks_per_sm", ir::Attribute::integer(*N));
  return Value::none();
}

static bool checkLayoutKey(Interp &I, const Value &Key, llvm::SMRange R) {
  auto *Buf = Key.getAs<BufferObj>();
  if (!Buf) {
    I.error(R, diag::err_bad_layout_annotation)
        << "keys must be buffers, got " + typeName(Key);
    return false;
  }
  if (Buf->Scope != ir::Scope::Shared && Buf->Scope != ir::Scope::Fragment &&
      Buf->Scope != ir::Scope::Global) {
    I.error(R, diag::err_bad_layout_annotation)
        << "'" + Buf->Name + "' is a " + ir::scopeName(Buf->Scope).str() +
               " buffer; only global, shared and fragment buffers have "
               "layouts";
    return false;
  }
  // A global buffer (a parameter, T.alloc_global) is laid out for the
  // accesses of the annotating kernel.
  if (Buf->Scope != ir::Scope::Global && Buf->Kernel != I.CurFunc->Kernel) {
    I.error(R, diag::err_bad_layout_annotation)
        << "'" + Buf->Name + "' is not allocated in this kernel";
    return false;
  }
  return true;
}

Value sema::tAnnotateLayout(Interp &I, BoundArgs &A) {
  if (!A[0].isDict()) {
    I.error(A.range(0), diag::err_bad_layout_annotation)
        << "expects a dict from buffers to layouts, got " + typeName(A[0]);
    return Value::poison();
  }
  bool OK = true;
  for (auto &[Key, Layout] : A[0].getDict().Items) {
    if (!checkLayoutKey(I, Key, A.range(0))) {
      OK = false;
      continue;
    }
    auto *L = Layout.getAs<LayoutObj>();
    if (!L) {
      if (!Layout.isPoison())
        I.error(A.range(0), diag::err_bad_layout_annotation)
            << "the layout of '" + Key.getAs<BufferObj>()->Name +
                   "' must be a T.Layout, T.Fragment or swizzled layout, got " +
                   typeName(Layout);
      OK = false;
      continue;
    }
    bool Permutation = llvm::StringRef(L->Text).startswith("permute_dims(");
    if (Permutation && Key.getAs<BufferObj>()->Scope != ir::Scope::Global) {
      I.error(A.range(0), diag::err_bad_layout_annotation)
          << "a T.Layout of a symbolic shape (a permutation of its dims) "
             "lays out global buffers only, not '" +
                 Key.getAs<BufferObj>()->Name + "'";
      OK = false;
      continue;
    }
    if (Key.getAs<BufferObj>()->Scope == ir::Scope::Global && !Permutation &&
        !llvm::StringRef(L->Text).startswith("Layout(")) {
      I.error(A.range(0), diag::err_bad_layout_annotation)
          << "the layout of global buffer '" + Key.getAs<BufferObj>()->Name +
                 "' must be a T.Layout, got '" + L->Text + "'";
      OK = false;
      continue;
    }
    I.B.createAnnotateLayout(Key.getAs<BufferObj>()->IR, L->Text);
  }
  return OK ? Value::none() : Value::poison();
}

Value sema::lMakeSwizzled(Interp &I, BoundArgs &A) {
  BufferObj *Buf = I.bufferOf(A[0], A.range(0), A.name());
  if (!Buf)
    return Value::poison();
  if (Buf->Scope != ir::Scope::Shared) {
    I.error(A.range(0), diag::err_wrong_scope)
        << A.name() << Buf->Name << ir::scopeName(Buf->Scope) << "shared";
    return Value::poison();
  }
  return Value::object(std::make_shared<LayoutObj>(std::string(A.Spec->Name) +
                                                   "(" + Buf->Name + ")"));
}

//===----------------------------------------------------------------------===//
// Views
//===----------------------------------------------------------------------===//

/// The bits a buffer of \p Dims and \p Ty holds; nullopt for symbolic dims.
static std::optional<int64_t> bitsOf(const std::vector<ir::Dim> &Dims,
                                     DType Ty) {
  int64_t Bits = bitWidth(Ty);
  for (const ir::Dim &D : Dims) {
    if (!D.isStatic())
      return std::nullopt;
    Bits *= D.getValue();
  }
  return Bits;
}

/// Why a view of \p Src as \p Ty cannot be built, or "".
static std::string viewUnsupported(const BufferObj &Src, DType Ty,
                                   const std::vector<ir::Dim> &Dims) {
  if (Src.Scope != ir::Scope::Shared && Src.Scope != ir::Scope::Fragment)
    return "only shared and fragment buffers have views";
  if (Src.Scope == ir::Scope::Fragment && Ty != Src.Ty)
    return "a fragment view keeps the element type (each register holds "
           "one element)";
  if (!bitsOf(Dims, Ty))
    return "a view's shape must be known at compile time";
  return "";
}

/// Why `T.Tensor(Dims, Ty, data)` cannot view \p Src, or "".
static std::string globalViewUnsupported(const BufferObj &Src, DType Ty,
                                         const std::vector<ir::Dim> &Dims) {
  if (Src.Scope != ir::Scope::Global)
    return "only the data of a global tensor can back a T.Tensor";
  if (Ty != Src.Ty)
    return "a view of a global tensor keeps its dtype";
  if (!bitsOf(Dims, Ty) || !bitsOf(Src.Dims, Src.Ty))
    return "both shapes must be known at compile time";
  return "";
}

Value sema::tensorOverData(Interp &I, BoundArgs &A, std::vector<ir::Dim> Dims,
                           DType Ty) {
  auto *Addr = A[2].getAs<AddressObj>();
  if (!Addr || !Addr->Indices.empty()) {
    I.error(A.range(2), diag::err_feature_unsupported)
        << "T.Tensor over data other than a tensor's '.data'";
    return Value::poison();
  }
  if (!I.inKernel()) {
    I.error(A.CallRange, diag::err_feature_unsupported)
        << "T.Tensor over another tensor's data outside a kernel";
    return Value::poison();
  }
  const BufferObj &Src = *Addr->Buf;
  std::string Why = globalViewUnsupported(Src, Ty, Dims);
  if (!Why.empty()) {
    I.error(A.CallRange, diag::err_feature_unsupported)
        << "T.Tensor over the data of " + ir::scopeName(Src.Scope).str() +
               " buffer '" + Src.Name + "' (" + Why + ")";
    return Value::poison();
  }
  auto Bits = bitsOf(Dims, Ty), SrcBits = bitsOf(Src.Dims, Src.Ty);
  if (*Bits > *SrcBits) {
    I.error(A.CallRange, diag::err_view_size)
        << A.name() << formatDims(Dims) << tileLangName(Ty).str() << *Bits
        << Src.Name << formatDims(Src.Dims) << tileLangName(Src.Ty).str()
        << *SrcBits;
    return Value::poison();
  }
  ir::Value *Root = Src.IR;
  if (ir::Operation *Def = Root->getDefiningOp();
      Def && Def->is(ir::OpKind::View))
    Root = Def->getOperand(0);
  auto Buf = std::make_shared<BufferObj>(Src);
  Buf->Name = I.PendingName.empty() ? Src.Name + "_view" : I.PendingName;
  Buf->Dims = std::move(Dims);
  Buf->DeclRange = A.CallRange;
  Buf->IR = I.B.createView(
      Root, ir::Type::buffer(ir::Scope::Global, Buf->Dims, Ty), Buf->Name);
  return Value::object(std::move(Buf));
}

/// T.make_tensor(ptr, shape, dtype): the global tensor of static \p shape
/// at the 64-bit address `ptr`, a value the kernel computes (an entry of
/// a T.ptr table). A `view` of that scalar.
Value sema::tMakeTensor(Interp &I, BoundArgs &A) {
  ir::Value *Ptr = I.toRuntime(A[0], A.range(0));
  auto Dims = I.shapeOf(A[1], A.range(1), "T.make_tensor",
                        /*AllowSymbols=*/true, "global");
  auto Ty = I.dtypeOf(A[2], A.range(2), "dtype");
  if (!Ptr || !Dims || !Ty)
    return Value::poison();
  std::string Why;
  if (!Ptr->getType().isScalar() || bitWidth(Ptr->getType().getDType()) != 64 ||
      !isInteger(Ptr->getType().getDType()))
    Why = "an address that is not a 64-bit integer (a T.ptr)";
  else if (!bitsOf(*Dims, *Ty))
    Why = "a shape that is not known at compile time";
  else if (!A[3].isNone())
    Why = "strides";
  if (!Why.empty()) {
    I.error(A.CallRange, diag::err_feature_unsupported)
        << "T.make_tensor with " + Why;
    return Value::poison();
  }
  auto Buf = std::make_shared<BufferObj>();
  Buf->Name = I.PendingName.empty() ? "tensor" : I.PendingName;
  Buf->Scope = ir::Scope::Global;
  Buf->Dims = std::move(*Dims);
  Buf->Ty = *Ty;
  Buf->DeclRange = A.CallRange;
  Buf->IR = I.B.createView(
      Ptr, ir::Type::buffer(ir::Scope::Global, Buf->Dims, *Ty), Buf->Name);
  return Value::object(std::move(Buf));
}

/// T.reshape(src, shape) / T.view(src, shape=None, dtype=None): TileLang's
/// views aliasing a buffer's storage with another shape (and dtype). The
/// shape is checked as TileLang checks it (same number of bits). A view of
/// a view views the first source, so every `view` op reads an alloc.
Value sema::tView(Interp &I, BoundArgs &A) {
  bool Reshape = A.id() == BuiltinID::TReshape;
  BufferObj *Src = I.bufferOf(A[0], A.range(0), A.name() + " source");
  if (!Src)
    return Value::poison();
  std::vector<ir::Dim> Dims = Src->Dims;
  DType Ty = Src->Ty;
  if (!A[1].isNone()) {
    auto Shape = I.shapeOf(A[1], A.range(1), A.name() + " shape",
                           /*AllowSymbols=*/true, ir::scopeName(Src->Scope));
    if (!Shape)
      return Value::poison();
    Dims = *Shape;
  }
  if (!Reshape && !A[2].isNone()) {
    auto T = I.dtypeOf(A[2], A.range(2), "dtype of T.view");
    if (!T)
      return Value::poison();
    Ty = *T;
  }
  auto Bits = bitsOf(Dims, Ty), SrcBits = bitsOf(Src->Dims, Src->Ty);
  if (Bits && SrcBits && *Bits != *SrcBits) {
    I.error(A.CallRange, diag::err_view_size)
        << A.name() << formatDims(Dims) << tileLangName(Ty).str() << *Bits
        << Src->Name << formatDims(Src->Dims) << tileLangName(Src->Ty).str()
        << *SrcBits;
    return Value::poison();
  }
  std::string Why = viewUnsupported(*Src, Ty, Dims);
  if (!Why.empty()) {
    I.error(A.CallRange, diag::err_feature_unsupported)
        << A.name() + " of " + ir::scopeName(Src->Scope).str() + " buffer '" +
               Src->Name + "' (" + Why + ")";
    return Value::poison();
  }
  ir::Value *Root = Src->IR;
  if (ir::Operation *Def = Root->getDefiningOp();
      Def && Def->is(ir::OpKind::View))
    Root = Def->getOperand(0);
  auto Buf = std::make_shared<BufferObj>(*Src);
  Buf->Name = I.PendingName.empty() ? Src->Name : I.PendingName;
  Buf->Dims = Dims;
  Buf->Ty = Ty;
  Buf->DeclRange = A.CallRange;
  Buf->IR =
      I.B.createView(Root, ir::Type::buffer(Src->Scope, Dims, Ty), Buf->Name);
  if (I.CurFunc->Kernel)
    I.CurFunc->KernelBuffers.push_back(Buf.get());
  return Value::object(std::move(Buf));
}
