//===- ExternOps.cpp - T.import_source, T.call_extern, T.reinterpret ------===//
//
// Escape hatches to hand-written CUDA: T.import_source(code) records device
// code the .cu carries verbatim (the func's `imports` attribute), and
// T.call_extern(dtype, "f", args...) calls one of its functions (a
// `call_extern` op). Arguments are scalars, passed by value, or addresses:
// T.address_of(buf[i]), T.access_ptr(buf, "r") or a whole buffer.
// T.reinterpret(value, dtype) reinterprets the bits of a scalar (a
// `bitcast` op).
//
//===----------------------------------------------------------------------===//

#include "Builtins.h"
#include "Interp.h"
#include "tilec/IR/Value.h"

using namespace tilec;
using namespace tilec::sema;

Value sema::tImportSource(Interp &I, BoundArgs &A) {
  if (!A[0].isStr()) {
    if (!A[0].isPoison())
      I.error(A.range(0), diag::err_import_source_not_str) << typeName(A[0]);
    return Value::poison();
  }
  ir::Operation *Func = I.CurFunc->Func;
  std::vector<std::string> Sources;
  if (const ir::Attribute *Old = Func->getAttr("imports"))
    Sources = Old->getStringArray().value_or(std::vector<std::string>());
  // Macros import their plugin at every expansion; one copy is enough.
  if (!llvm::is_contained(Sources, A[0].getStr()))
    Sources.push_back(A[0].getStr());
  Func->setAttr("imports", ir::Attribute::stringArray(Sources));
  return Value::none();
}

/// The address of buf[i, ...] (indices must be scalars, not slices).
static Value addressOfRef(Interp &I, BufferRefObj &Ref, llvm::SMRange R,
                          bool SliceStarts) {
  auto Addr = std::make_shared<AddressObj>();
  Addr->Buf = Ref.Buf;
  for (IndexItem &Item : Ref.Indices) {
    if (Item.IsSlice && !SliceStarts) {
      I.error(R, diag::err_type_mismatch) << "argument of T.address_of"
                                          << "a buffer element"
                                          << "buffer region";
      return Value::poison();
    }
    Value Start =
        Item.IsSlice && Item.Index.isNone() ? Value::integer(0) : Item.Index;
    ir::Value *V = I.toIndex(Start, Item.Range);
    if (!V)
      return Value::poison();
    Addr->Indices.push_back(V);
  }
  return Value::object(std::move(Addr));
}

Value sema::tAddressOf(Interp &I, BoundArgs &A) {
  if (auto *Ref = A[0].getAs<BufferRefObj>())
    return addressOfRef(I, *Ref, A.range(0), /*SliceStarts=*/false);
  if (!A[0].isPoison())
    I.error(A.range(0), diag::err_type_mismatch)
        << "argument of T.address_of"
        << "a buffer element such as 'A[i]'" << typeName(A[0]);
  return Value::poison();
}

/// T.access_ptr(buf or buf[region], access_type, ...): the start address;
/// the access type and extents only describe the access.
Value sema::tAccessPtr(Interp &I, BoundArgs &A) {
  if (!(A[2].isIntLike() && A[2].getInt() == 0)) {
    I.error(A.range(2), diag::err_feature_unsupported)
        << "T.access_ptr with a non-zero offset";
    return Value::poison();
  }
  if (auto *Ref = A[0].getAs<BufferRefObj>())
    return addressOfRef(I, *Ref, A.range(0), /*SliceStarts=*/true);
  BufferObj *Buf = I.bufferOf(A[0], A.range(0), "argument of T.access_ptr");
  if (!Buf)
    return Value::poison();
  auto Addr = std::make_shared<AddressObj>();
  Addr->Buf = std::static_pointer_cast<BufferObj>(A[0].getObjectPtr());
  return Value::object(std::move(Addr));
}

/// The element an address of T.ptx_cp_async points at, in a buffer of
/// \p Scope; null after an error.
static const AddressObj *cpAsyncSide(Interp &I, const Value &V, llvm::SMRange R,
                                     ir::Scope Scope, llvm::StringRef What) {
  auto *Addr = V.getAs<AddressObj>();
  if (!Addr || Addr->Indices.size() != Addr->Buf->Dims.size() ||
      Addr->Buf->Scope != Scope) {
    if (!V.isPoison())
      I.error(R, diag::err_type_mismatch)
          << "T.ptx_cp_async " + What.str()
          << "T.access_ptr of an element of a " + ir::scopeName(Scope).str() +
                 " buffer"
          << typeName(V);
    return nullptr;
  }
  return Addr;
}

/// T.ptx_cp_async(dst, src, num_elems, predicate=None): one cp.async of
/// num_elems elements (4, 8 or 16 bytes) from global to shared memory;
/// with a false predicate the destination is zero-filled.
Value sema::tPtxCpAsync(Interp &I, BoundArgs &A) {
  const AddressObj *Dst =
      cpAsyncSide(I, A[0], A.range(0), ir::Scope::Shared, "destination");
  const AddressObj *Src =
      cpAsyncSide(I, A[1], A.range(1), ir::Scope::Global, "source");
  auto N = I.constInt(A[2], A.range(2), "num_elems");
  if (!Dst || !Src || !N)
    return Value::poison();
  DType Ty = Dst->Buf->Ty;
  int64_t Bytes = *N * bitWidth(Ty) / 8;
  if (Src->Buf->Ty != Ty || (Bytes != 4 && Bytes != 8 && Bytes != 16)) {
    I.error(A.CallRange, diag::err_feature_unsupported)
        << "T.ptx_cp_async of " + std::to_string(*N) + " " +
               tileLangName(Ty).str() + " elements from " +
               tileLangName(Src->Buf->Ty).str() +
               " (cp.async copies 4, 8 or 16 bytes of one dtype)";
    return Value::poison();
  }
  std::vector<ir::Value *> Ops = {Dst->Buf->IR};
  Ops.insert(Ops.end(), Dst->Indices.begin(), Dst->Indices.end());
  Ops.push_back(Src->Buf->IR);
  Ops.insert(Ops.end(), Src->Indices.begin(), Src->Indices.end());
  std::vector<unsigned> Segments = {unsigned(1 + Dst->Indices.size()),
                                    unsigned(1 + Src->Indices.size())};
  if (!A[3].isNone()) {
    ir::Value *Pred = I.toRuntimeAs(A[3], DType::Bool, A.range(3));
    if (!Pred)
      return Value::poison();
    Ops.push_back(Pred);
    Segments.push_back(1);
  }
  I.B.create(ir::OpKind::CpAsync, Ops, Segments, {},
             {{"bytes", ir::Attribute::integer(Bytes)}});
  return Value::none();
}

/// Appends one call_extern operand group for \p V; false after an error.
static bool externArg(Interp &I, const Value &V, llvm::SMRange R, size_t Pos,
                      std::vector<ir::Value *> &Ops,
                      std::vector<unsigned> &Segments) {
  auto *Addr = V.getAs<AddressObj>();
  BufferObj *Target = Addr ? Addr->Buf.get() : V.getAs<BufferObj>();
  if (Target && Target->Scope == ir::Scope::Fragment) {
    I.error(R, diag::err_call_extern_fragment) << Target->Name;
    return false;
  }
  if (Addr) {
    Ops.push_back(Addr->Buf->IR);
    Ops.insert(Ops.end(), Addr->Indices.begin(), Addr->Indices.end());
    Segments.push_back(1 + Addr->Indices.size());
    return true;
  }
  auto *Buf = V.getAs<BufferObj>();
  if (Buf && !Buf->isVar()) {
    Ops.push_back(Buf->IR);
    Segments.push_back(1);
    return true;
  }
  bool Scalar = V.isNumber() || V.isRuntime() || V.getAs<BufferRefObj>() ||
                isSymbolic(V) || Buf;
  if (!Scalar) {
    if (!V.isPoison())
      I.error(R, diag::err_call_extern_arg) << Pos << typeName(V);
    return false;
  }
  ir::Value *X = I.toRuntime(V, R);
  if (!X)
    return false;
  Ops.push_back(X);
  Segments.push_back(1);
  return true;
}

/// The result dtype of a call; nullopt for void (TVM's "handle" too).
static bool externDType(Interp &I, const Value &V, llvm::SMRange R,
                        std::optional<DType> &Out) {
  if (V.isNone() ||
      (V.isStr() && (V.getStr() == "void" || V.getStr() == "handle"))) {
    Out.reset();
    return true;
  }
  Out = I.dtypeOf(V, R, "dtype of T.call_extern");
  return Out.has_value();
}

/// T.call_extern(dtype, "f", args...) as in TVM, or TileLang's
/// T.call_extern("f", args..., dtype=T).
Value sema::tCallExtern(Interp &I, BoundArgs &A) {
  size_t First = A.given(0) ? 0 : 1;
  if (A.Rest.size() < First + 1) {
    I.error(A.CallRange, diag::err_missing_argument) << A.name() << "func_name";
    return Value::poison();
  }
  const Value &Name = A.Rest[First];
  if (!Name.isStr()) {
    I.error(A.RestRanges[First], diag::err_type_mismatch)
        << "function name of T.call_extern"
        << "a str" << typeName(Name);
    return Value::poison();
  }
  std::optional<DType> Ret;
  if (!externDType(I, First ? A.Rest[0] : A[0],
                   First ? A.RestRanges[0] : A.range(0), Ret))
    return Value::poison();
  std::vector<ir::Value *> Ops;
  std::vector<unsigned> Segments;
  for (size_t K = First + 1; K < A.Rest.size(); ++K)
    if (!externArg(I, A.Rest[K], A.RestRanges[K], K - First, Ops, Segments))
      return Value::poison();
  std::vector<ir::Type> Results;
  if (Ret)
    Results.push_back(ir::Type::scalar(*Ret));
  ir::Operation *Op =
      I.B.create(ir::OpKind::CallExtern, Ops, Segments, Results,
                 {{"callee", ir::Attribute::string(Name.getStr())}});
  return Ret ? Value::runtime(Op->getResult()) : Value::none();
}

static bool isDTypeLike(const Value &V) {
  return V.isDType() || (V.isStr() && parseTileLangDType(V.getStr()));
}

/// T.reinterpret(value, dtype), also TVM's reinterpret(dtype, value).
Value sema::tReinterpret(Interp &I, BoundArgs &A) {
  unsigned ValueArg = 0, TypeArg = 1;
  if (isDTypeLike(A[0]) && !isDTypeLike(A[1]))
    std::swap(ValueArg, TypeArg);
  if (!A.given(1)) {
    I.error(A.CallRange, diag::err_missing_argument) << A.name() << "dtype";
    return Value::poison();
  }
  // TVM's opaque pointer: only T.attr's value takes it (and ignores it).
  if (A[TypeArg].isStr() && A[TypeArg].getStr() == "handle")
    return Value::object(
        std::make_shared<OpaqueObj>("T.reinterpret(..., dtype=\"handle\")"));
  auto To = I.dtypeOf(A[TypeArg], A.range(TypeArg), "dtype of T.reinterpret");
  ir::Value *X = To ? I.toRuntime(A[ValueArg], A.range(ValueArg)) : nullptr;
  if (!X)
    return Value::poison();
  DType From = X->getType().getDType();
  if (From == *To)
    return Value::runtime(X);
  if (bitWidth(From) != bitWidth(*To) || From == DType::Bool ||
      *To == DType::Bool) {
    I.error(A.CallRange, diag::err_reinterpret_width)
        << tileLangName(From).str() << bitWidth(From) << tileLangName(*To).str()
        << bitWidth(*To);
    return Value::poison();
  }
  return Value::runtime(
      I.B.create(ir::OpKind::Bitcast, {X}, {1}, {ir::Type::scalar(*To)})
          ->getResult());
}
