//===- Builtins.h - Builtin functions and the argument binder --*- C++ -*-===//
//
// Every builtin (Python's len/range/..., T.copy, T.gemm, math.log2, methods
// of lists) is one row of Builtins.def: its namespace, name, Python
// parameter list and handler. The shared binder maps the positional and
// keyword arguments of a call onto that parameter list, so arity, unknown
// keywords and duplicates are checked in one place for all of them
// (err_missing_argument, err_too_many_args, err_unknown_keyword,
// err_duplicate_argument). Handlers receive the bound arguments and see
// only well-formed calls.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_LIB_SEMA_BUILTINS_H
#define TILEC_LIB_SEMA_BUILTINS_H

#include "Interp.h"

namespace tilec {
namespace sema {

enum class BuiltinNS { Py, Method, Math, TL, Layout, T, Itertools, Tir };

/// NotInRole: a tile operator whose lowering synchronizes the whole block,
/// so it cannot run inside a T.ws role block. InRoleRange: a tile operator
/// that splits its work over the threads running it, which inside a role
/// block must be one contiguous range (the role's thread_range); the
/// reductions among them are lowered there only where their exchanges stay
/// inside warps (lower-reduce says otherwise).
enum BuiltinFlags : unsigned {
  NeedsKernel = 1,
  NeedsIR = 2,
  NotInRole = 4,
  InRoleRange = 8
};

/// A buffer allocated in the current func or kernel (KernelGen.cpp).
Value allocBuffer(Interp &I, ir::Scope Scope, const std::vector<ir::Dim> &Dims,
                  DType T, llvm::SMRange R);

enum class BuiltinID : unsigned {
#define BUILTIN(ID, NS, Name, Sig, Handler, Flags) ID,
#include "Builtins.def"
  NumBuiltins
};

/// One parameter of a builtin's signature.
struct ParamSpec {
  std::string Name;
  bool HasDefault = false;
  Value Default;
};

struct BoundArgs;
using BuiltinHandler = Value (*)(Interp &, BoundArgs &);

struct BuiltinSpec {
  BuiltinID ID;
  BuiltinNS NS;
  const char *Name;
  BuiltinHandler Handler;
  unsigned Flags;
  std::vector<ParamSpec> Params;
  bool HasVarArgs = false; ///< `*rest`: extra positionals go to Rest.
  size_t VarArgsPos = 0;   ///< Params before `*rest`.
  bool HasKwArgs = false;  ///< `**kw`: unknown keywords go to Extra.
  /// Name for messages: "T.copy", "len", "list.append".
  std::string DisplayName;
};

/// The arguments of one call, mapped onto a BuiltinSpec's parameters.
struct BoundArgs {
  const BuiltinSpec *Spec = nullptr;
  const BuiltinObj *Callee = nullptr;
  std::vector<Value> Vals;
  std::vector<llvm::SMRange> Ranges;
  std::vector<bool> Given;
  std::vector<Value> Rest;
  std::vector<llvm::SMRange> RestRanges;
  std::vector<std::pair<std::string, Value>> Extra;
  llvm::SMRange CallRange;

  const Value &operator[](unsigned I) const { return Vals[I]; }
  /// The argument's range, or the call's when it was defaulted.
  llvm::SMRange range(unsigned I) const {
    return Given[I] ? Ranges[I] : CallRange;
  }
  bool given(unsigned I) const { return Given[I]; }
  const Value &self() const { return Callee->Self; }
  BuiltinID id() const { return Spec->ID; }
  const std::string &name() const { return Spec->DisplayName; }
};

const BuiltinSpec &builtinSpec(BuiltinID ID);
inline const BuiltinSpec &builtinSpec(const BuiltinObj &B) {
  return builtinSpec(BuiltinID(B.ID));
}
/// Finds a builtin by namespace and name.
std::optional<BuiltinID> findBuiltin(BuiltinNS NS, llvm::StringRef Name);
Value makeBuiltin(BuiltinID ID, Value Self = Value());

#define BUILTIN(ID, NS, Name, Sig, Handler, Flags)                             \
  Value Handler(Interp &I, BoundArgs &A);
#include "Builtins.def"

/// max/min of two operands, one of them runtime-like: a runtime value in
/// kernel code; before any IR, an expression of symbolic dims replayed
/// where it is used (PyBuiltins.cpp; also T.max/T.min).
Value runtimeExtremum(Interp &I, bool IsMax, const Value &L, const Value &R,
                      llvm::SMRange LR, llvm::SMRange RR);

/// T.Tensor(shape, dtype, buf.data) inside a kernel: a view of the global
/// buffer `buf` with shape \p Dims (TileOps.cpp).
Value tensorOverData(Interp &I, BoundArgs &A, std::vector<ir::Dim> Dims,
                     DType Ty);

} // namespace sema
} // namespace tilec

#endif
