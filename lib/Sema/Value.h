//===- Value.h - Compile-time values of the Sema interpreter ---*- C++ -*-===//
//
// Sema runs the Python of a .tile file at compile time. Every expression
// evaluates to a Value:
//   - plain Python data: None, bool, int (int64), float, str, tuple, list,
//     dict; lists and dicts are shared (mutation is visible through every
//     alias, as in Python);
//   - a DType (T.float16, "float16" stays a str until a dtype is needed);
//   - Runtime: an IR value (an i32 index, an f16 element, ...) produced by
//     kernel code; it never folds;
//   - Object: everything else (functions, the T namespace and its members,
//     buffers, symbolic dims, loop descriptions, layouts, ...), see Object;
//   - Poison: the result of an expression that already reported an error.
//     Every operation on a poison value yields poison without a new report,
//     so one mistake gives one diagnostic.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_LIB_SEMA_VALUE_H
#define TILEC_LIB_SEMA_VALUE_H

#include "tilec/IR/Type.h"
#include "tilec/Support/DType.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Casting.h"
#include "llvm/Support/SMLoc.h"
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace tilec {
namespace ir {
class Value;
class Operation;
} // namespace ir
namespace ast {
class FunctionDefStmt;
class LambdaExpr;
struct Param;
class Stmt;
} // namespace ast

namespace sema {

class Object;
class HostModel;
class Interp;
class SymExprObj;
struct DictData;

class Value {
public:
  enum class Kind : uint8_t {
    None,
    Bool,
    Int,
    Float,
    Str,
    DType,
    Tuple,
    List,
    Dict,
    Runtime,
    Object,
    Poison
  };

  Value() = default;
  static Value none() { return Value(); }
  static Value boolean(bool B);
  static Value integer(int64_t I);
  static Value real(double F);
  static Value str(std::string S);
  static Value dtype(DType T);
  static Value tuple(std::vector<Value> Elts);
  static Value list(std::vector<Value> Elts);
  static Value dict(std::shared_ptr<DictData> D);
  static Value runtime(ir::Value *V);
  static Value object(std::shared_ptr<Object> O);
  static Value poison();

  Kind kind() const { return K; }
  bool isNone() const { return K == Kind::None; }
  bool isBool() const { return K == Kind::Bool; }
  bool isInt() const { return K == Kind::Int; }
  /// int or bool (bool is an int in Python).
  bool isIntLike() const { return K == Kind::Int || K == Kind::Bool; }
  bool isFloat() const { return K == Kind::Float; }
  /// int, bool or float.
  bool isNumber() const { return isIntLike() || isFloat(); }
  bool isStr() const { return K == Kind::Str; }
  bool isDType() const { return K == Kind::DType; }
  bool isTuple() const { return K == Kind::Tuple; }
  bool isList() const { return K == Kind::List; }
  bool isSequence() const { return isTuple() || isList(); }
  bool isDict() const { return K == Kind::Dict; }
  bool isRuntime() const { return K == Kind::Runtime; }
  bool isObject() const { return K == Kind::Object; }
  bool isPoison() const { return K == Kind::Poison; }

  bool getBool() const { return I != 0; }
  /// The integer of an int or bool.
  int64_t getInt() const { return I; }
  /// The number as a double (int, bool or float).
  double getNumber() const { return K == Kind::Float ? F : double(I); }
  const std::string &getStr() const { return S; }
  DType getDType() const { return DT; }
  std::vector<Value> &elts() const { return *Elts; }
  DictData &getDict() const { return *Dict; }
  ir::Value *getRuntime() const { return RV; }
  Object *getObject() const { return Obj.get(); }
  const std::shared_ptr<Object> &getObjectPtr() const { return Obj; }

  /// The object as T when it is one (LLVM-style dyn_cast on the payload).
  template <typename T> T *getAs() const;

private:
  Kind K = Kind::None;
  DType DT = DType::Int32;
  int64_t I = 0;
  double F = 0;
  ir::Value *RV = nullptr;
  std::string S;
  std::shared_ptr<std::vector<Value>> Elts;
  std::shared_ptr<DictData> Dict;
  std::shared_ptr<Object> Obj;
};

struct DictData {
  std::vector<std::pair<Value, Value>> Items;
  /// `d[Key] = Val`: replaces the value of an equal key, else appends.
  void set(Value Key, Value Val);
};

//===----------------------------------------------------------------------===//
// Objects
//===----------------------------------------------------------------------===//

class Scope;

class Object {
public:
  enum class Kind {
    Function,
    Builtin,
    Namespace,
    Opaque,
    Policy,
    Symbol,
    SymExpr,
    Buffer,
    BufferRef,
    TensorType,
    Loop,
    KernelSpec,
    Layout,
    Address,
    Role,
    CommReducer,
    AttrScope,
    Stale
  };
  explicit Object(Kind K) : K(K) {}
  virtual ~Object() = default;
  Kind getKind() const { return K; }

private:
  Kind K;
};

#define TILEC_SEMA_OBJECT(KIND)                                                \
  static bool classof(const Object *O) { return O->getKind() == Kind::KIND; }

/// What a decorator made of a function.
struct FunctionTraits {
  bool IsPrimFunc = false;
  bool IsJit = false;
  /// `@tilelang.jit(out_idx=[...])`, as written (may be negative).
  std::vector<int64_t> OutIdx;
  bool HasOutIdx = false;
  /// `@tilelang.jit(pass_configs={...})`: the switches set true that tilec
  /// follows (`tl.disable_tma_lower`, `tl.disable_warp_specialized`,
  /// `tl.enable_fast_math`).
  std::vector<std::string> PassConfigs;
  /// `@autotune(configs=...)` / `@tilelang.autotune(configs=...)`: the
  /// configurations (dicts of parameter values); None without the decorator.
  std::shared_ptr<std::vector<Value>> Configs;
};

/// A `def` or a `lambda` with the scope it closes over.
class FunctionObj : public Object {
public:
  FunctionObj() : Object(Kind::Function) {}
  TILEC_SEMA_OBJECT(Function)
  std::string Name;
  const ast::FunctionDefStmt *Def = nullptr; ///< Null for lambdas.
  const ast::LambdaExpr *Lambda = nullptr;
  const std::vector<ast::Param> *Params = nullptr;
  /// Evaluated defaults, one per parameter (Poison-free; None-kind slots
  /// of HasDefault=false are unused).
  std::vector<Value> Defaults;
  std::vector<bool> HasDefault;
  std::shared_ptr<Scope> Closure;
  FunctionTraits Traits;
  llvm::SMRange NameRange;
};

/// A Python or T.* builtin; Self is the bound receiver of a method.
class BuiltinObj : public Object {
public:
  BuiltinObj(unsigned ID, Value Self)
      : Object(Kind::Builtin), ID(ID), Self(std::move(Self)) {}
  TILEC_SEMA_OBJECT(Builtin)
  unsigned ID;
  Value Self;
};

/// A module-like namespace: T, tilelang, tilelang.layout, math, ...
class NamespaceObj : public Object {
public:
  enum class NS {
    TileLang,
    Language,
    Layout,
    Math,
    Itertools,
    Policy,
    PassConfigKey,
    Other
  };
  NamespaceObj(NS Which, std::string Path)
      : Object(Kind::Namespace), Which(Which), Path(std::move(Path)) {}
  TILEC_SEMA_OBJECT(Namespace)
  NS Which;
  std::string Path;
};

/// A host-only value (torch, argparse, ...). Any use of it stays opaque;
/// kernels cannot consume it. Model, when set, says what host code sees
/// of it (a tensor's shape, a parser's defaults; HostModel.h).
class OpaqueObj : public Object {
public:
  explicit OpaqueObj(std::string Path,
                     std::shared_ptr<HostModel> Model = nullptr)
      : Object(Kind::Opaque), Path(std::move(Path)), Model(std::move(Model)) {}
  TILEC_SEMA_OBJECT(Opaque)
  std::string Path;
  std::shared_ptr<HostModel> Model;
};

/// T.GemmWarpPolicy.Square / FullRow / FullCol.
class PolicyObj : public Object {
public:
  explicit PolicyObj(std::string Name)
      : Object(Kind::Policy), Name(std::move(Name)) {}
  TILEC_SEMA_OBJECT(Policy)
  std::string Name;
};

/// A symbolic dimension made by T.dynamic / T.symbolic / T.const.
class SymbolObj : public Object {
public:
  SymbolObj(std::string Name, DType T)
      : Object(Kind::Symbol), Name(std::move(Name)), Ty(T) {}
  TILEC_SEMA_OBJECT(Symbol)
  std::string Name;
  DType Ty;
  /// The driver's call whose argument, computed by host code tilec does not
  /// run, made this parameter symbolic (CallSites.h); invalid otherwise.
  llvm::SMRange DriverCall;
  /// A composite dim (`seq_len * heads` in a tensor shape): the expression
  /// the launcher checks this symbol against, and where the shape was
  /// written; null for a symbol made by T.dynamic and friends.
  std::shared_ptr<SymExprObj> Composite;
  llvm::SMRange CompositeRange;
};

/// An expression of symbolic dims that compile-time code computed before
/// any IR existed (`T.ceildiv(S, 64)`, `DK ** -0.5`, `S % 64 == 0 and
/// DK % 64 == 0`; SymExprs.cpp). Where IR is built it is replayed: Apply
/// runs the same operator again on the replayed operands, so the launcher
/// computes it on the host or a kernel on the device. In a tensor shape it
/// is a composite dim; as an assert condition, a check of the launcher.
class SymExprObj : public Object {
public:
  using ApplyFn = std::function<Value(Interp &, const std::vector<Value> &)>;
  SymExprObj() : Object(Kind::SymExpr) {}
  TILEC_SEMA_OBJECT(SymExpr)
  /// Numbers, symbolic dims and SymExprs.
  std::vector<Value> Operands;
  ApplyFn Apply;
  /// The expression in Python syntax over symbol names and numbers
  /// (`(S + 63) // 64`), for messages and the manifest.
  std::string Text;
  /// Python's binding strength of its outermost operator (SymPrec).
  int Prec = 0;
};

/// A buffer: a prim_func parameter or an allocation.
class BufferObj : public Object {
public:
  BufferObj() : Object(Kind::Buffer) {}
  TILEC_SEMA_OBJECT(Buffer)
  ir::Value *IR = nullptr;
  std::string Name;
  ir::Scope Scope = ir::Scope::Global;
  std::vector<ir::Dim> Dims;
  DType Ty = DType::Float32;
  /// The kernel op the buffer was allocated in (null for parameters and
  /// T.alloc_global).
  ir::Operation *Kernel = nullptr;
  llvm::SMRange DeclRange;
  /// T.alloc_reducer: its combining op (sum, max, min); empty otherwise.
  std::string Reducer;
  bool isVar() const { return Scope == ir::Scope::Var; }
};

/// One index of a buffer reference: a value, or a slice lo:hi.
struct IndexItem {
  bool IsSlice = false;
  Value Index; ///< The index, or the slice's lower bound (None: absent).
  Value Upper; ///< The slice's upper bound (None: absent).
  bool HasStep = false;
  llvm::SMRange Range;
};

/// `A[i, j]` or `A[a:b, :]` before it is known whether it is read (load),
/// used as a region (copy, fill, ...) or written.
class BufferRefObj : public Object {
public:
  BufferRefObj() : Object(Kind::BufferRef) {}
  TILEC_SEMA_OBJECT(BufferRef)
  std::shared_ptr<BufferObj> Buf;
  std::vector<IndexItem> Indices;
  llvm::SMRange Range;
  bool hasSlice() const;
};

/// T.address_of(buf[i]) / T.access_ptr(buf, ...): the address of an element
/// (or of the start, without indices), only usable as an argument of
/// T.call_extern.
class AddressObj : public Object {
public:
  AddressObj() : Object(Kind::Address) {}
  TILEC_SEMA_OBJECT(Address)
  std::shared_ptr<BufferObj> Buf;
  std::vector<ir::Value *> Indices; ///< Empty: the buffer's start.
};

/// T.ws(g, ...): a warp-group role block for `with`; Cond says whether the
/// thread is in one of the groups (computed where T.ws was called). When the
/// groups' threads are one contiguous range of the block's linear thread
/// index, Offset/Count give it; otherwise NoRangeWhy says why not.
class RoleObj : public Object {
public:
  RoleObj() : Object(Kind::Role) {}
  TILEC_SEMA_OBJECT(Role)
  ir::Value *Cond = nullptr;
  int64_t Offset = 0;
  int64_t Count = 0;
  std::string NoRangeWhy;
};

/// T.comm_reducer(combiner, identity): TVM's commutative reducer, the
/// combining function of T.tvm_thread_allreduce inside a
/// `with T.attr(reducer, "reduce_scope", ...)`.
class CommReducerObj : public Object {
public:
  CommReducerObj() : Object(Kind::CommReducer) {}
  TILEC_SEMA_OBJECT(CommReducer)
  Value Combiner;
  std::vector<Value> Identity;
  llvm::SMRange CombinerRange, IdentityRange;
};

/// T.attr(node, key, value): an attribute scope for `with`.
class AttrScopeObj : public Object {
public:
  AttrScopeObj() : Object(Kind::AttrScope) {}
  TILEC_SEMA_OBJECT(AttrScope)
  Value Node;
  std::string Key;
  llvm::SMRange NodeRange, KeyRange;
};

/// T.Tensor(shape, dtype) / T.Buffer(shape, dtype): a parameter type.
class TensorTypeObj : public Object {
public:
  TensorTypeObj() : Object(Kind::TensorType) {}
  TILEC_SEMA_OBJECT(TensorType)
  std::vector<ir::Dim> Dims;
  DType Ty = DType::Float32;
};

/// What `for ... in X` iterates in a kernel: T.Parallel, T.Pipelined,
/// T.serial, T.unroll, T.vectorized or range().
class LoopObj : public Object {
public:
  enum class LoopKind {
    Serial,
    Pipelined,
    Unroll,
    Vectorized,
    Parallel,
    Range,
    Persistent
  };
  explicit LoopObj(LoopKind LK) : Object(Kind::Loop), LK(LK) {}
  TILEC_SEMA_OBJECT(Loop)
  LoopKind LK;
  Value Start, Stop, Step;
  llvm::SMRange StartRange, StopRange, StepRange;
  std::vector<int64_t> Extents; ///< Parallel only.
  int64_t NumStages = 0;
  std::vector<int64_t> Order, Stage;
  bool HasOrder = false, HasStage = false;
  /// Persistent only: the tile domain (one extent per loop variable), the
  /// blocks of a wave, this block's index in it and the group size.
  std::vector<Value> Domain;
  std::vector<llvm::SMRange> DomainRanges;
  Value WaveSize, Index, GroupSize;
  llvm::SMRange WaveRange, IndexRange, GroupRange;
  llvm::SMRange Range;
};

/// The result of T.Kernel(...): consumed by `with ... as`.
class KernelSpecObj : public Object {
public:
  KernelSpecObj() : Object(Kind::KernelSpec) {}
  TILEC_SEMA_OBJECT(KernelSpec)
  std::vector<Value> Grid;
  std::vector<llvm::SMRange> GridRanges;
  std::vector<int64_t> Threads;
  llvm::SMRange Range;
};

/// A layout for T.annotate_layout, kept as text until layouts are lowered.
class LayoutObj : public Object {
public:
  explicit LayoutObj(std::string Text)
      : Object(Kind::Layout), Text(std::move(Text)) {}
  TILEC_SEMA_OBJECT(Layout)
  std::string Text;
};

/// A name whose binding was made under a runtime if or loop and must not
/// be read after it.
class StaleObj : public Object {
public:
  StaleObj(std::string Name, llvm::SMRange Assigned)
      : Object(Kind::Stale), Name(std::move(Name)), Assigned(Assigned) {}
  TILEC_SEMA_OBJECT(Stale)
  std::string Name;
  llvm::SMRange Assigned;
};

#undef TILEC_SEMA_OBJECT

template <typename T> T *Value::getAs() const {
  if (K != Kind::Object)
    return nullptr;
  return llvm::dyn_cast<T>(Obj.get());
}

/// A symbolic dim or an expression of them (known when the kernel runs).
inline bool isSymbolic(const Value &V) {
  return V.getAs<SymbolObj>() || V.getAs<SymExprObj>();
}

/// A value known only when the kernel runs: an IR value, a buffer element,
/// a `T.alloc_var` scalar, or a symbolic dim.
inline bool isRuntimeLike(const Value &V) {
  if (auto *Buf = V.getAs<BufferObj>())
    return Buf->isVar();
  return V.isRuntime() || V.getAs<BufferRefObj>() || isSymbolic(V);
}

//===----------------------------------------------------------------------===//
// Scopes
//===----------------------------------------------------------------------===//

/// The local names of one Python function call (or the module). Lookups
/// walk the chain of enclosing scopes (closures).
class Scope {
public:
  explicit Scope(std::shared_ptr<Scope> Parent = nullptr)
      : Parent(std::move(Parent)) {}
  Value *lookup(llvm::StringRef Name);
  Value *lookupLocal(llvm::StringRef Name);
  void set(llvm::StringRef Name, Value V) { Vars[Name] = std::move(V); }
  bool erase(llvm::StringRef Name) { return Vars.erase(Name); }
  /// The scope, this one or an enclosing one, that binds Name.
  Scope *owner(llvm::StringRef Name);
  Scope *getParent() const { return Parent.get(); }
  const llvm::StringMap<Value> &vars() const { return Vars; }

private:
  std::shared_ptr<Scope> Parent;
  llvm::StringMap<Value> Vars;
};

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// Python's type name of a value as users read it ("int", "tuple",
/// "buffer", "runtime float16 value", ...).
std::string typeName(const Value &V);
/// A short rendering for messages: 128, 'float16', (128, 32), A_shared.
std::string repr(const Value &V);
/// Python equality of compile-time values (runtime values compare by
/// identity).
bool equals(const Value &A, const Value &B);
/// Formats dims as "[128, M]".
std::string formatDims(const std::vector<ir::Dim> &Dims);
/// "[128, 32]" for extents; -1 prints as "?".
std::string formatExtents(const std::vector<int64_t> &Extents);

} // namespace sema
} // namespace tilec

#endif
