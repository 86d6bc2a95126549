//===- TileOps.cpp - Tile operators: checks and emission ------------------===//
//
// T.copy, T.fill, T.clear, T.gemm, T.reduce_*, T.cumsum, T.atomic_*
// (T.use_swizzle, T.annotate_layout, the swizzle constructors and views are
// in LayoutOps.cpp, T.Layout and T.Fragment in UserLayouts.cpp). Each handler
// checks what TileLang checks (operand kinds and scopes, shapes, dtypes,
// compile-time arguments) and emits one op.
//
// Regions: a whole buffer `A`, an element-start form `A[i, j]` (extent
// unknown, -1, inferred later from the other side of the copy), or a slice
// form `A[a:b, :, k]` whose extents must fold to constants (a full slice of
// a symbolic dim keeps the symbol's name; an integer index has extent 1).
//
//===----------------------------------------------------------------------===//

#include "Builtins.h"
#include "Interp.h"
#include "tilec/IR/ConstantMatch.h"
#include "tilec/IR/Value.h"

using namespace tilec;
using namespace tilec::sema;

namespace {
/// A buffer region with what is known at compile time about it.
struct Region {
  BufferObj *Buf = nullptr;
  ir::BufferRegion R;
  /// Compile-time start per dim (nullopt: runtime).
  std::vector<std::optional<int64_t>> Starts;
  /// Extent per dim as text for messages ("128", "M", "?").
  std::vector<std::string> ExtText;
  bool ElementForm = false;
};
} // namespace

static std::string extentText(const ir::Attribute &A) {
  if (A.isString())
    return A.getString().str();
  return A.getInt() < 0 ? "?" : std::to_string(A.getInt());
}

static std::string formatExtentList(const std::vector<std::string> &E) {
  std::string S = "[";
  for (size_t K = 0; K < E.size(); ++K)
    S += (K ? ", " : "") + E[K];
  return S + "]";
}

static Region wholeBuffer(BufferObj &Buf) {
  Region Out;
  Out.Buf = &Buf;
  Out.R.Buffer = Buf.IR;
  for (const ir::Dim &D : Buf.Dims) {
    Out.R.Extent.push_back(D.isStatic() ? ir::Attribute::integer(D.getValue())
                                        : ir::Attribute::string(D.getSymbol()));
    Out.Starts.push_back(0);
    Out.ExtText.push_back(extentText(Out.R.Extent.back()));
  }
  return Out;
}

/// The runtime value of a symbolic dim of the current func, if any.
static ir::Value *symbolArg(Interp &I, llvm::StringRef Name) {
  for (auto &[S, V] : I.CurFunc->SymbolArgs)
    if (S->Name == Name)
      return V;
  return nullptr;
}

/// Extent of the slice lo:hi in dimension D of Buf.
static std::optional<ir::Attribute> sliceExtent(Interp &I, BufferObj &Buf,
                                                unsigned D, IndexItem &Item,
                                                ir::Value *Lo) {
  const ir::Dim &Dim = Buf.Dims[D];
  bool LoZero = Item.Index.isNone() ||
                (Item.Index.isIntLike() && Item.Index.getInt() == 0);
  if (Item.Upper.isNone() && Dim.isSymbolic() && LoZero)
    return ir::Attribute::string(Dim.getSymbol());
  std::optional<int64_t> Ext;
  int64_t LoConst = Item.Index.isIntLike() ? Item.Index.getInt() : 0;
  if (Item.Upper.isNone() && Dim.isStatic() &&
      (Item.Index.isNone() || Item.Index.isIntLike()))
    Ext = Dim.getValue() - LoConst;
  else if (Item.Upper.isIntLike() &&
           (Item.Index.isNone() || Item.Index.isIntLike()))
    Ext = Item.Upper.getInt() - LoConst;
  else if (!Item.Upper.isNone()) {
    ir::Value *Hi = I.toIndex(Item.Upper, Item.Range);
    if (!Hi)
      return std::nullopt;
    Ext = I.constDifference(Hi, Lo);
    ir::Value *Sym = Dim.isSymbolic() ? symbolArg(I, Dim.getSymbol()) : nullptr;
    if (!Ext && LoZero && Sym && Hi == Sym)
      return ir::Attribute::string(Dim.getSymbol());
  }
  if (!Ext) {
    I.error(Item.Range, diag::err_slice_extent_not_constant) << Buf.Name << D;
    return std::nullopt;
  }
  if (*Ext <= 0) {
    I.error(Item.Range, diag::err_non_positive_extent)
        << "extent of the slice of '" + Buf.Name + "' in dimension " +
               std::to_string(D)
        << *Ext;
    return std::nullopt;
  }
  return ir::Attribute::integer(*Ext);
}

static bool addIndex(Interp &I, Region &Out, unsigned D, IndexItem &Item) {
  if (Item.IsSlice && Item.HasStep) {
    I.error(Item.Range, diag::err_slice_step);
    return false;
  }
  Value Start =
      Item.IsSlice && Item.Index.isNone() ? Value::integer(0) : Item.Index;
  ir::Value *Lo = I.toIndex(Start, Item.Range);
  if (!Lo)
    return false;
  Out.R.Indices.push_back(Lo);
  Out.Starts.push_back(Start.isIntLike()
                           ? std::optional<int64_t>(Start.getInt())
                           : std::nullopt);
  ir::Attribute Ext = ir::Attribute::integer(Out.ElementForm ? -1 : 1);
  if (Item.IsSlice) {
    auto E = sliceExtent(I, *Out.Buf, D, Item, Lo);
    if (!E)
      return false;
    Ext = *E;
  }
  Out.R.Extent.push_back(Ext);
  Out.ExtText.push_back(extentText(Ext));
  return true;
}

/// The region an operand of a tile op denotes; nullopt after an error.
static std::optional<Region> regionOf(Interp &I, const Value &V,
                                      llvm::SMRange R, llvm::StringRef What) {
  if (auto *Buf = V.getAs<BufferObj>())
    return wholeBuffer(*Buf);
  auto *Ref = V.getAs<BufferRefObj>();
  if (!Ref) {
    if (!V.isPoison())
      I.error(R, diag::err_not_a_buffer) << What << typeName(V);
    return std::nullopt;
  }
  Region Out;
  Out.Buf = Ref->Buf.get();
  Out.R.Buffer = Ref->Buf->IR;
  Out.ElementForm = !Ref->hasSlice();
  for (unsigned D = 0; D < Ref->Indices.size(); ++D)
    if (!addIndex(I, Out, D, Ref->Indices[D]))
      return std::nullopt;
  return Out;
}

/// err_region_out_of_bounds for compile-time starts and extents.
static bool checkBounds(Interp &I, const Region &Rg, llvm::SMRange R) {
  const BufferObj &Buf = *Rg.Buf;
  bool Out = false;
  std::string Text;
  for (size_t D = 0; D < Buf.Dims.size(); ++D) {
    const ir::Attribute &E = Rg.R.Extent[D];
    int64_t Ext = E.isInt() ? std::max<int64_t>(E.getInt(), 1) : 1;
    std::string Start = Rg.Starts[D] ? std::to_string(*Rg.Starts[D]) : "?";
    Text += (D ? ", " : "") + Start + ":" +
            (Rg.Starts[D] && E.isInt() && E.getInt() > 0
                 ? std::to_string(*Rg.Starts[D] + E.getInt())
                 : "?");
    if (!Rg.Starts[D] || !Buf.Dims[D].isStatic())
      continue;
    Out |= *Rg.Starts[D] < 0 || *Rg.Starts[D] + Ext > Buf.Dims[D].getValue();
  }
  if (!Out)
    return true;
  std::string Shape = formatDims(Buf.Dims);
  I.error(R, diag::err_region_out_of_bounds)
      << Text << Buf.Name << Shape.substr(1, Shape.size() - 2);
  return false;
}

/// Known extents with size-1 dims dropped; nullopt when some is unknown.
static std::optional<std::vector<std::string>> squeezed(const Region &Rg) {
  std::vector<std::string> Out;
  for (const ir::Attribute &E : Rg.R.Extent) {
    if (E.isInt() && E.getInt() < 0)
      return std::nullopt;
    if (E.isInt() && E.getInt() == 1)
      continue;
    Out.push_back(extentText(E));
  }
  return Out;
}

Value sema::tCopy(Interp &I, BoundArgs &A) {
  auto Src = regionOf(I, A[0], A.range(0), "T.copy source");
  auto Dst = regionOf(I, A[1], A.range(1), "T.copy destination");
  if (!Src || !Dst)
    return Value::poison();
  if (!checkBounds(I, *Src, A.range(0)) || !checkBounds(I, *Dst, A.range(1)))
    return Value::poison();
  if (Src->ElementForm && Dst->ElementForm) {
    I.error(A.CallRange, diag::err_copy_unknown_extent);
    return Value::poison();
  }
  auto S = squeezed(*Src), D = squeezed(*Dst);
  if (S && D && *S != *D) {
    I.error(A.CallRange, diag::err_copy_shape_mismatch)
        << formatExtentList(Src->ExtText) << formatExtentList(Dst->ExtText);
    return Value::poison();
  }
  ir::Operation *Copy = I.B.createCopy(Src->R, Dst->R);
  // disable_tma=True: lower-tma leaves the copy to cp.async.
  if (I.truthy(A[3], A.range(3)).value_or(false))
    Copy->setAttr("disable_tma", ir::Attribute::boolean(true));
  return Value::none();
}

static Value fillRegion(Interp &I, BoundArgs &A, const Value &Fill,
                        llvm::SMRange FillRange) {
  auto Dst = regionOf(I, A[0], A.range(0), A.name());
  if (!Dst || !checkBounds(I, *Dst, A.range(0)))
    return Value::poison();
  for (ir::Attribute &E : Dst->R.Extent)
    if (E.isInt() && E.getInt() < 0)
      E = ir::Attribute::integer(1);
  ir::Value *V = I.toRuntimeAs(Fill, Dst->Buf->Ty, FillRange);
  if (!V)
    return Value::poison();
  I.B.createFill(Dst->R, V);
  return Value::none();
}

Value sema::tFill(Interp &I, BoundArgs &A) {
  return fillRegion(I, A, A[1], A.range(1));
}

Value sema::tClear(Interp &I, BoundArgs &A) {
  return fillRegion(I, A, Value::integer(0), A.CallRange);
}

//===----------------------------------------------------------------------===//
// T.gemm
//===----------------------------------------------------------------------===//

/// The compile-time extents of \p Rg; nullopt when one is not known.
static std::optional<std::vector<int64_t>> staticExtents(const Region &Rg) {
  std::vector<int64_t> Ext;
  for (const ir::Attribute &E : Rg.R.Extent) {
    if (!E.isInt() || E.getInt() <= 0)
      return std::nullopt;
    Ext.push_back(E.getInt());
  }
  return Ext;
}

static bool coversBuffer(const Region &Rg, llvm::ArrayRef<int64_t> Ext) {
  for (size_t D = 0; D != Ext.size(); ++D)
    if (Rg.Starts[D] != 0 || !Rg.Buf->Dims[D].isStatic() ||
        Rg.Buf->Dims[D].getValue() != Ext[D])
      return false;
  return true;
}

/// A region operand of T.gemm (`Q_shared[:, :D]`, `A_shared[s, :, :]`):
/// the buffer when it covers it, else for a shared buffer a `subview` of
/// its last two dims (TileLang's rule: the others have extent 1), held by
/// \p Keep.
static BufferObj *gemmRegion(Interp &I, BoundArgs &A, unsigned K,
                             llvm::StringRef Name,
                             std::shared_ptr<BufferObj> &Keep) {
  std::string What = "T.gemm operand " + Name.str();
  auto Rg = regionOf(I, A[K], A.range(K), What);
  if (!Rg || !checkBounds(I, *Rg, A.range(K)))
    return nullptr;
  auto Ext = staticExtents(*Rg);
  std::string Text = "'" + exprText(A.range(K)) + "'";
  if (!Ext) {
    I.error(A.range(K), diag::err_feature_unsupported)
        << "T.gemm on a region without compile-time extents (" + Text +
               "; slice each dim)";
    return nullptr;
  }
  if (coversBuffer(*Rg, *Ext))
    return Rg->Buf;
  if (Rg->Buf->Scope != ir::Scope::Shared) {
    I.error(A.range(K), diag::err_feature_unsupported)
        << "T.gemm on a region of " + ir::scopeName(Rg->Buf->Scope).str() +
               " buffer '" + Rg->Buf->Name + "' (" + Text +
               "; pass the whole buffer)";
    return nullptr;
  }
  size_t Rank = Ext->size();
  if (Rank < 2 || llvm::any_of(llvm::ArrayRef<int64_t>(*Ext).drop_back(2),
                               [](int64_t E) { return E != 1; })) {
    I.error(A.range(K), diag::err_gemm_shape)
        << Name.str() + " " + Text +
               " must be 2-D: only its last two dims "
               "may have an extent other than 1";
    return nullptr;
  }
  // Tensor cores read the region's rows 16 bytes at a time.
  int64_t Bits = bitWidth(Rg->Buf->Ty);
  // A run-time column start (`j * k_tile` in a loop) must be a known
  // multiple of 16 bytes.
  int64_t Col = Rg->Starts[Rank - 1]
                    ? *Rg->Starts[Rank - 1]
                    : ir::knownMultiple(Rg->R.Indices[Rank - 1]);
  const ir::Dim &Row = Rg->Buf->Dims[Rank - 1];
  if (Col * Bits % 128 != 0 || !Row.isStatic() ||
      Row.getValue() * Bits % 128 != 0) {
    I.error(A.range(K), diag::err_feature_unsupported)
        << "T.gemm on a region whose rows do not start on 16-byte "
           "boundaries (" +
               Text +
               ": a column start, compile-time or a known multiple, and a "
               "row length that are multiples of 16 bytes)";
    return nullptr;
  }
  Keep = std::make_shared<BufferObj>(*Rg->Buf);
  Keep->Name = exprText(A.range(K));
  Keep->Dims = {ir::Dim((*Ext)[Rank - 2]), ir::Dim((*Ext)[Rank - 1])};
  Keep->IR = I.B.createSubview(
      Rg->Buf->IR, Rg->R.Indices,
      ir::Type::buffer(ir::Scope::Shared, Keep->Dims, Keep->Ty),
      Rg->Buf->Name + "_region");
  return Keep.get();
}

static BufferObj *gemmOperand(Interp &I, BoundArgs &A, unsigned K,
                              llvm::StringRef Name, bool Accum,
                              std::shared_ptr<BufferObj> &Keep) {
  BufferObj *Buf =
      A[K].getAs<BufferRefObj>()
          ? gemmRegion(I, A, K, Name, Keep)
          : I.bufferOf(A[K], A.range(K), "T.gemm operand " + Name.str());
  if (!Buf)
    return nullptr;
  ir::Scope S = Buf->Scope;
  bool OK = Accum ? S == ir::Scope::Fragment
                  : S == ir::Scope::Shared || S == ir::Scope::Fragment;
  if (!OK) {
    I.error(A.range(K), diag::err_wrong_scope)
        << "T.gemm" << Buf->Name << ir::scopeName(S)
        << (Accum ? "fragment" : "shared or fragment");
    return nullptr;
  }
  if (Buf->Dims.size() != 2) {
    I.error(A.range(K), diag::err_gemm_shape)
        << Name.str() + " must be 2-D, but '" + Buf->Name + "' has shape " +
               formatDims(Buf->Dims);
    return nullptr;
  }
  return Buf;
}

static bool sameDim(const ir::Dim &A, const ir::Dim &B) { return A == B; }

static std::string dimText(const ir::Dim &D) {
  return D.isStatic() ? std::to_string(D.getValue()) : D.getSymbol().str();
}

static bool checkGemmShapes(Interp &I, BoundArgs &A, BufferObj &Am,
                            BufferObj &Bm, BufferObj &Cm, bool TA, bool TB) {
  const ir::Dim &M = Am.Dims[TA ? 1 : 0], &KA = Am.Dims[TA ? 0 : 1];
  const ir::Dim &KB = Bm.Dims[TB ? 1 : 0], &N = Bm.Dims[TB ? 0 : 1];
  auto Shapes = [&] {
    return "A '" + Am.Name + "' is " + formatDims(Am.Dims) +
           (TA ? " (transposed)" : "") + ", B '" + Bm.Name + "' is " +
           formatDims(Bm.Dims) + (TB ? " (transposed)" : "") + ", C '" +
           Cm.Name + "' is " + formatDims(Cm.Dims);
  };
  std::string Problem;
  if (!sameDim(KA, KB))
    Problem =
        "reduction dims differ (" + dimText(KA) + " vs " + dimText(KB) + ")";
  else if (!sameDim(Cm.Dims[0], M))
    Problem =
        "C has " + dimText(Cm.Dims[0]) + " rows, expected M = " + dimText(M);
  else if (!sameDim(Cm.Dims[1], N))
    Problem =
        "C has " + dimText(Cm.Dims[1]) + " columns, expected N = " + dimText(N);
  if (Problem.empty())
    return true;
  I.error(A.CallRange, diag::err_gemm_shape) << Problem + ": " + Shapes();
  return false;
}

static bool isFP8(DType T) {
  return T == DType::Float8E4M3 || T == DType::Float8E5M2;
}

/// The accumulator dtypes allowed for an input dtype; empty when the input
/// dtype is not a gemm input.
static std::vector<DType> accumulatorsFor(DType In) {
  switch (In) {
  case DType::Float16:
    return {DType::Float32, DType::Float16};
  case DType::BFloat16:
  case DType::Float8E4M3:
  case DType::Float8E5M2:
  case DType::Float8E4M3FNUZ:
  case DType::Float8E5M2FNUZ:
  case DType::Float32:
    return {DType::Float32};
  case DType::Float64:
    return {DType::Float64};
  case DType::Int8:
  case DType::UInt8:
  case DType::Int4:
  case DType::UInt4:
    return {DType::Int32};
  default:
    return {};
  }
}

static bool checkGemmDTypes(Interp &I, BoundArgs &A, BufferObj &Am,
                            BufferObj &Bm, BufferObj &Cm) {
  auto Name = [](DType T) { return tileLangName(T).str(); };
  std::string Problem;
  bool Match = Am.Ty == Bm.Ty || (isFP8(Am.Ty) && isFP8(Bm.Ty)) ||
               (isInteger(Am.Ty) && isInteger(Bm.Ty) && bitWidth(Am.Ty) == 8 &&
                bitWidth(Bm.Ty) == 8);
  std::vector<DType> Acc = accumulatorsFor(Am.Ty);
  if (!Match)
    Problem = "A is " + Name(Am.Ty) + " but B is " + Name(Bm.Ty);
  else if (Acc.empty())
    Problem = Name(Am.Ty) + " is not a supported input dtype";
  else if (!llvm::is_contained(Acc, Cm.Ty))
    Problem = Name(Am.Ty) + " inputs cannot accumulate into " + Name(Cm.Ty) +
              " (C '" + Cm.Name + "'); use " + Name(Acc[0]);
  if (Problem.empty())
    return true;
  I.error(A.CallRange, diag::err_gemm_dtype) << Problem;
  return false;
}

static std::optional<std::string> gemmPolicy(Interp &I, const Value &V,
                                             llvm::SMRange R) {
  if (V.isNone())
    return std::string("Square");
  if (auto *P = V.getAs<PolicyObj>())
    return P->Name;
  if (V.isIntLike() && V.getInt() >= 0 && V.getInt() <= 2) {
    static const char *const Names[] = {"Square", "FullRow", "FullCol"};
    return std::string(Names[V.getInt()]);
  }
  if (V.isStr() && (V.getStr() == "Square" || V.getStr() == "FullRow" ||
                    V.getStr() == "FullCol"))
    return V.getStr();
  if (!V.isPoison())
    I.error(R, diag::err_bad_policy) << repr(V);
  return std::nullopt;
}

/// clear_accum: a compile-time bool, or a run-time condition (`j == 0` in
/// an unrolled loop), returned in \p Cond, under which the accumulator is
/// cleared before the gemm, which then accumulates.
static std::optional<bool> gemmClear(Interp &I, BoundArgs &A,
                                     ir::Value *&Cond) {
  if (!A[6].isRuntime())
    return I.constBool(A[6], A.range(6), "clear_accum");
  Cond = I.toCondition(A[6].getRuntime());
  return false;
}

/// `if Cond: T.clear(C)`.
static void clearUnder(Interp &I, ir::Value *Cond, BufferObj &C) {
  ir::Operation *If = I.B.createIf(Cond);
  ir::Builder::InsertionGuard G(I.B);
  I.B.setInsertionPointToEnd(If->getBody(0));
  I.B.createFill(wholeBuffer(C).R, I.constant(Value::integer(0), C.Ty));
}

Value sema::tGemm(Interp &I, BoundArgs &A) {
  std::shared_ptr<BufferObj> Regions[3];
  BufferObj *Am = gemmOperand(I, A, 0, "A", false, Regions[0]);
  BufferObj *Bm = gemmOperand(I, A, 1, "B", false, Regions[1]);
  BufferObj *Cm = gemmOperand(I, A, 2, "C", true, Regions[2]);
  auto TA = I.constBool(A[3], A.range(3), "transpose_A");
  auto TB = I.constBool(A[4], A.range(4), "transpose_B");
  auto Policy = gemmPolicy(I, A[5], A.range(5));
  ir::Value *ClearCond = nullptr;
  auto Clear = gemmClear(I, A, ClearCond);
  bool Async = A.id() == BuiltinID::TWgmmaGemm;
  auto KPack = Async ? std::optional<int64_t>(1)
                     : I.constInt(A[7], A.range(7), "k_pack");
  if (!Am || !Bm || !Cm || !TA || !TB || !Policy || !Clear || !KPack)
    return Value::poison();
  if (*KPack <= 0) {
    I.error(A.range(7), diag::err_non_positive_extent) << "k_pack" << *KPack;
    return Value::poison();
  }
  if (!checkGemmShapes(I, A, *Am, *Bm, *Cm, *TA, *TB) ||
      !checkGemmDTypes(I, A, *Am, *Bm, *Cm))
    return Value::poison();
  if (ClearCond)
    clearUnder(I, ClearCond, *Cm);
  ir::Operation *Gemm =
      I.B.createGemm(Am->IR, Bm->IR, Cm->IR, *TA, *TB, *Policy, *Clear, *KPack);
  // T.wgmma_gemm: wgmma only, and no wait; the user's T.wait_wgmma waits.
  if (Async)
    Gemm->setAttr("wgmma_async", ir::Attribute::boolean(true));
  return Value::none();
}

/// T.wait_wgmma(n): wait until at most n groups of the warpgroup's
/// T.wgmma_gemms are in flight (lower-wgmma adds their accumulators).
Value sema::tWaitWgmma(Interp &I, BoundArgs &A) {
  auto N = I.constInt(A[0], A.range(0), "T.wait_wgmma count");
  if (!N)
    return Value::poison();
  if (*N < 0) {
    I.error(A.range(0), diag::err_type_mismatch)
        << "T.wait_wgmma"
        << "a count >= 0" << std::to_string(*N);
    return Value::poison();
  }
  I.B.create(ir::OpKind::WgmmaWait, {}, {}, {},
             {{"pending", ir::Attribute::integer(*N)},
              {"user", ir::Attribute::boolean(true)}});
  return Value::none();
}

//===----------------------------------------------------------------------===//
// Reductions and scans
//===----------------------------------------------------------------------===//

static BufferObj *tileOperand(Interp &I, BoundArgs &A, unsigned K) {
  BufferObj *Buf = I.bufferOf(A[K], A.range(K), A.name());
  if (!Buf)
    return nullptr;
  if (Buf->Scope == ir::Scope::Global) {
    I.error(A.range(K), diag::err_wrong_scope)
        << A.name() << Buf->Name << "global"
        << "fragment, shared or local";
    return nullptr;
  }
  return Buf;
}

static std::optional<int64_t> normalizedDim(Interp &I, BoundArgs &A, unsigned K,
                                            size_t Rank) {
  auto D = I.constInt(A[K], A.range(K), "dim");
  if (!D)
    return std::nullopt;
  int64_t N = *D < 0 ? *D + int64_t(Rank) : *D;
  if (N < 0 || N >= int64_t(Rank)) {
    I.error(A.range(K), diag::err_reduce_dim)
        << llvm::StringRef(A.Spec->Name) << *D << Rank;
    return std::nullopt;
  }
  return N;
}

static bool reduceShapeOK(const BufferObj &Src, const BufferObj &Dst,
                          int64_t Dim) {
  std::vector<ir::Dim> Removed = Src.Dims;
  Removed.erase(Removed.begin() + Dim);
  if (Removed.empty())
    Removed.push_back(ir::Dim(1));
  if (Dst.Dims == Removed)
    return true;
  std::vector<ir::Dim> Kept = Src.Dims;
  Kept[Dim] = ir::Dim(1);
  return Dst.Dims == Kept;
}

static llvm::StringRef reduceKind(BuiltinID ID) {
  switch (ID) {
  case BuiltinID::TReduceMax:
    return "max";
  case BuiltinID::TReduceMin:
    return "min";
  case BuiltinID::TReduceSum:
    return "sum";
  case BuiltinID::TReduceAbsMax:
    return "absmax";
  default:
    return "abssum";
  }
}

Value sema::tReduce(Interp &I, BoundArgs &A) {
  BufferObj *Src = tileOperand(I, A, 0), *Dst = tileOperand(I, A, 1);
  if (!Src || !Dst)
    return Value::poison();
  auto Dim = normalizedDim(I, A, 2, Src->Dims.size());
  bool HasClear = A.id() != BuiltinID::TReduceAbsSum;
  auto Clear = HasClear ? I.constBool(A[3], A.range(3), "clear")
                        : std::optional<bool>(true);
  auto Batch =
      I.constInt(A[HasClear ? 4 : 3], A.range(HasClear ? 4 : 3), "batch");
  if (!Dim || !Clear || !Batch)
    return Value::poison();
  if (*Batch != 1) {
    I.error(A.range(HasClear ? 4 : 3), diag::err_feature_unsupported)
        << "batch != 1 in reductions";
    return Value::poison();
  }
  if (!reduceShapeOK(*Src, *Dst, *Dim)) {
    std::vector<ir::Dim> Expected = Src->Dims;
    Expected.erase(Expected.begin() + *Dim);
    I.error(A.CallRange, diag::err_reduce_shape)
        << llvm::StringRef(A.Spec->Name)
        << "reducing '" + Src->Name + "' " + formatDims(Src->Dims) +
               " over dim " + std::to_string(*Dim) + " gives " +
               formatDims(Expected.empty() ? std::vector<ir::Dim>{1}
                                           : Expected) +
               ", but '" + Dst->Name + "' has shape " + formatDims(Dst->Dims);
    return Value::poison();
  }
  I.B.createReduce(reduceKind(A.id()), Src->IR, Dst->IR, *Dim, *Clear);
  return Value::none();
}

Value sema::tCumsum(Interp &I, BoundArgs &A) {
  BufferObj *Src = tileOperand(I, A, 0);
  BufferObj *Dst = A[1].isNone() ? Src : tileOperand(I, A, 1);
  if (!Src || !Dst)
    return Value::poison();
  auto Dim = normalizedDim(I, A, 2, Src->Dims.size());
  auto Reverse = I.constBool(A[3], A.range(3), "reverse");
  if (!Dim || !Reverse)
    return Value::poison();
  if (Src->Dims != Dst->Dims) {
    I.error(A.CallRange, diag::err_reduce_shape)
        << "cumsum"
        << "source '" + Src->Name + "' " + formatDims(Src->Dims) +
               " and destination '" + Dst->Name + "' " + formatDims(Dst->Dims) +
               " have different shapes";
    return Value::poison();
  }
  I.B.createCumsum(Src->IR, Dst->IR, *Dim, *Reverse);
  return Value::none();
}

//===----------------------------------------------------------------------===//
// Atomics
//===----------------------------------------------------------------------===//

static bool isRegionValue(const Value &V) {
  if (auto *Buf = V.getAs<BufferObj>())
    return !Buf->isVar();
  auto *Ref = V.getAs<BufferRefObj>();
  return Ref && Ref->hasSlice();
}

/// The memory_order of an atomic as the IR attribute's value: "" for None
/// and "relaxed" (what CUDA's and HIP's atomics are), "acquire" for
/// "consume" (as C++ compilers treat it).
static std::optional<std::string> memoryOrder(Interp &I, BoundArgs &A,
                                              unsigned Arg) {
  const Value &V = A[Arg];
  if (V.isNone())
    return std::string();
  if (V.isStr()) {
    std::string Order = V.getStr();
    if (Order == "relaxed")
      return std::string();
    if (Order == "consume")
      return std::string("acquire");
    if (Order == "acquire" || Order == "release" || Order == "acq_rel" ||
        Order == "seq_cst")
      return Order;
  }
  if (!V.isPoison())
    I.error(A.range(Arg), diag::err_type_mismatch)
        << "T." + std::string(A.Spec->Name) + " memory_order"
        << "relaxed, consume, acquire, release, acq_rel or seq_cst" << repr(V);
  return std::nullopt;
}

static void setMemoryOrder(ir::Operation *Op, llvm::StringRef Order) {
  if (!Order.empty())
    Op->setAttr("memory_order", ir::Attribute::string(Order));
}

Value sema::tAtomic(Interp &I, BoundArgs &A) {
  llvm::StringRef Kind = A.id() == BuiltinID::TAtomicAdd   ? "add"
                         : A.id() == BuiltinID::TAtomicMax ? "max"
                                                           : "min";
  auto Dst = regionOf(I, A[0], A.range(0), A.name() + " destination");
  auto Order = memoryOrder(I, A, 2);
  auto Prev = I.constBool(A[3], A.range(3), "return_prev");
  if (!Dst || !Order || !Prev)
    return Value::poison();
  ir::Scope S = Dst->Buf->Scope;
  if (S != ir::Scope::Global && S != ir::Scope::Shared) {
    I.error(A.range(0), diag::err_atomic_target)
        << llvm::StringRef(A.Spec->Name);
    return Value::poison();
  }
  if (isRegionValue(A[1])) {
    if (*Prev) {
      I.error(A.range(3), diag::err_feature_unsupported)
          << "return_prev=True on a region atomic";
      return Value::poison();
    }
    auto Src = regionOf(I, A[1], A.range(1), A.name() + " value");
    if (!Src || !checkBounds(I, *Dst, A.range(0)))
      return Value::poison();
    setMemoryOrder(I.B.createAtomic(Kind, Dst->R, Src->R), *Order);
    return Value::none();
  }
  if (!Dst->ElementForm) {
    I.error(A.range(0), diag::err_atomic_target)
        << llvm::StringRef(A.Spec->Name);
    return Value::poison();
  }
  ir::Value *V = I.toRuntimeAs(A[1], Dst->Buf->Ty, A.range(1));
  if (!V)
    return Value::poison();
  ir::Operation *Op =
      I.B.createAtomic(Kind, Dst->R.Buffer, Dst->R.Indices, V, *Prev);
  setMemoryOrder(Op, *Order);
  return *Prev ? Value::runtime(Op->getResult()) : Value::none();
}

/// The start indices of \p Rg with \p K added to the last one.
static std::vector<ir::Value *> shiftedLast(Interp &I, const Region &Rg,
                                            int64_t K) {
  std::vector<ir::Value *> Idx = Rg.R.Indices;
  if (K != 0)
    Idx.back() =
        I.B.createBinary(ir::OpKind::Add, Idx.back(), I.B.createConstInt(K));
  return Idx;
}

/// T.atomic_addx2 / atomic_addx4(dst, value): TileLang's vector atomics,
/// adding 2 or 4 consecutive elements of `value` (along the last dim) to
/// as many of `dst`. Each element is its own atomic add, as each lane of
/// the vector instruction is.
Value sema::tAtomicAddLanes(Interp &I, BoundArgs &A) {
  int64_t Lanes = A.id() == BuiltinID::TAtomicAddX2 ? 2 : 4;
  auto Dst = regionOf(I, A[0], A.range(0), A.name() + " destination");
  auto Src = regionOf(I, A[1], A.range(1), A.name() + " value");
  auto Prev = I.constBool(A[2], A.range(2), "return_prev");
  if (!Dst || !Src || !Prev)
    return Value::poison();
  if (*Prev) {
    I.error(A.range(2), diag::err_feature_unsupported)
        << "return_prev=True on " + A.name();
    return Value::poison();
  }
  ir::Scope S = Dst->Buf->Scope;
  if (S != ir::Scope::Global && S != ir::Scope::Shared) {
    I.error(A.range(0), diag::err_atomic_target)
        << llvm::StringRef(A.Spec->Name);
    return Value::poison();
  }
  for (int64_t K = 0; K != Lanes; ++K) {
    ir::Value *V = I.B.createLoad(Src->R.Buffer, shiftedLast(I, *Src, K));
    if (Src->Buf->Ty != Dst->Buf->Ty)
      V = I.B.createCast(V, Dst->Buf->Ty);
    I.B.createAtomic("add", Dst->R.Buffer, shiftedLast(I, *Dst, K), V,
                     /*ReturnPrev=*/false);
  }
  return Value::none();
}
