//===- HostModel.h - Models of torch, argparse and classes -----*- C++ -*-===//
//
// Host code never reaches a kernel, but the arguments a file's driver passes
// to its kernels are computed by it: `parser.add_argument("--batch",
// default=8)`, `q = torch.randn(batch, heads, seq, dim)`, `BATCH, H, N, D =
// q.shape` inside an autograd Function. A host-only value (OpaqueObj) may
// carry a model of what it stands for, so that such code evaluates far
// enough for call-site discovery (CallSites.h) to read the arguments:
//   - a torch tensor: its shape and dtype (factories, `*_like`, `.to`,
//     `.cuda()`, `.view`, `.transpose`, `.shape`, `.size()`, ...);
//   - an argparse parser and the namespace `parse_args()` returns, holding
//     each option's default;
//   - a class: its methods (`Cls.apply(...)` of a torch.autograd.Function
//     runs `forward` and `backward` with a ctx), and its instances
//     (`__init__` runs; attributes, bound methods, `__call__`/`forward`);
//   - TileLang's AutoTuner: the kernel function and configurations it is
//     given (a factory returning `tuner.run()` builds configuration N);
//   - a method bound to one of the above.
// Everything else a model does not know stays a plain host-only value. The
// values stay host-only for kernels: a tensor's shape is only data of the
// host program.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_LIB_SEMA_HOSTMODEL_H
#define TILEC_LIB_SEMA_HOSTMODEL_H

#include "Interp.h"

namespace tilec {
namespace sema {

class HostModel {
public:
  enum class Kind { Tensor, Parser, Record, Class, Method, Tuner };
  explicit HostModel(Kind K) : K(K) {}
  virtual ~HostModel() = default;
  Kind getKind() const { return K; }

private:
  Kind K;
};

/// A torch tensor of known shape (ints, or host-only values for
/// data-dependent extents).
class TensorModel : public HostModel {
public:
  TensorModel() : HostModel(Kind::Tensor) {}
  static bool classof(const HostModel *M) {
    return M->getKind() == Kind::Tensor;
  }
  std::vector<Value> Shape;
  Value DTypeV; ///< As given (torch.float16, "float16"); None: unknown.
  /// Known to be dense and row-major, so that its strides follow from its
  /// shape; false also when the layout is unknown (views, slices).
  bool Contiguous = true;
  /// The elements in row-major order, when the driver built the tensor from
  /// known numbers (`torch.tensor([0, 128, 384])`) and what is computed
  /// from them; empty when unknown.
  std::vector<Value> Data;
};

/// argparse.ArgumentParser: (dest, default) of each option, in order.
class ParserModel : public HostModel {
public:
  ParserModel() : HostModel(Kind::Parser) {}
  static bool classof(const HostModel *M) {
    return M->getKind() == Kind::Parser;
  }
  std::vector<std::pair<std::string, Value>> Options;
};

/// An object of named attributes: argparse.Namespace, SimpleNamespace, an
/// instance of a class of the file (Class set).
class RecordModel : public HostModel {
public:
  RecordModel() : HostModel(Kind::Record) {}
  static bool classof(const HostModel *M) {
    return M->getKind() == Kind::Record;
  }
  llvm::StringMap<Value> Attrs;
  std::shared_ptr<class ClassModel> Class;
};

/// A class statement: the functions its body defines.
class ClassModel : public HostModel {
public:
  ClassModel() : HostModel(Kind::Class) {}
  static bool classof(const HostModel *M) {
    return M->getKind() == Kind::Class;
  }
  std::string Name;
  llvm::StringMap<Value> Members;
};

/// `obj.name` for a method of a modelled object (Self is the object).
class MethodModel : public HostModel {
public:
  MethodModel(Value Self, std::string Name)
      : HostModel(Kind::Method), Self(std::move(Self)), Name(std::move(Name)) {}
  static bool classof(const HostModel *M) {
    return M->getKind() == Kind::Method;
  }
  Value Self;
  std::string Name;
};

/// TileLang's `AutoTuner.from_kernel(kernel=F, configs=C)` and the result
/// of its `.run()`: F builds the kernel from one configuration's values.
class TunerModel : public HostModel {
public:
  TunerModel() : HostModel(Kind::Tuner) {}
  static bool classof(const HostModel *M) {
    return M->getKind() == Kind::Tuner;
  }
  Value Kernel;
  Value Configs;
};

/// Shared by HostModel.cpp, HostTensors.cpp, HostTensorData.cpp and
/// HostEinops.cpp.
namespace host {
/// The keyword argument Name of a call, or null.
const Value *keyword(const CallArgs &A, llvm::StringRef Name);
/// `Self.Name`, a method of the modelled object Self.
Value methodOf(const Value &Self, llvm::StringRef Name);
/// A tensor of the given shape and dtype (None: unknown).
Value makeTensor(llvm::StringRef Path, std::vector<Value> Shape, Value DT,
                 bool Contiguous = true, std::vector<Value> Data = {});
/// `einops.rearrange/repeat/reduce(t, pattern, **axis_sizes)` of a
/// modelled tensor: the shape the pattern gives.
std::optional<Value> einopsCall(llvm::StringRef Fn, const CallArgs &A,
                                llvm::StringRef Path);
/// `torch.tensor(data, dtype=...)` of nested lists of known numbers.
std::optional<Value> tensorOfData(const CallArgs &A, llvm::StringRef Path);
/// Methods that read a tensor's known elements or size: `numel`, `item`,
/// `tolist`, `sum`, `max`, `min`, `mean`, `stride`, `is_contiguous`.
std::optional<Value> dataMethod(const TensorModel &T, llvm::StringRef Name,
                                const CallArgs &A, llvm::StringRef Path);
/// Elements converted for a tensor of dtype DT (ints truncate floats).
std::vector<Value> convertData(const std::vector<Value> &Data, const Value &DT);
/// `t[i]` and `t[lo:hi]` of a one-dimensional tensor of known elements.
std::optional<Value> dataSubscript(Interp &I, const TensorModel &T,
                                   const ast::Expr *Index,
                                   llvm::StringRef Path);
/// `torch.<Fn>(...)` when it makes a tensor of a known shape.
std::optional<Value> torchFactory(llvm::StringRef Fn, const CallArgs &A,
                                  llvm::StringRef Path);
/// `torch.nn.functional.pad(t, pad)` of a modelled tensor.
std::optional<Value> padded(const CallArgs &A, llvm::StringRef Path);
/// `t.<Name>(...)` of a tensor T when the result's shape is known.
std::optional<Value> tensorMethod(const Value &Self, const TensorModel &T,
                                  llvm::StringRef Name, const CallArgs &A);
/// `t.<Attr>` of a tensor T (shape, dtype, T, methods).
std::optional<Value> tensorAttribute(const Value &Self, const TensorModel &T,
                                     llvm::StringRef Attr);
} // namespace host

/// A host-only value named Path standing for the modelled object M.
Value makeHostValue(std::string Path, std::shared_ptr<HostModel> M);
/// The model of V, if V is a modelled host-only value.
template <typename T> T *hostModelOf(const Value &V) {
  auto *O = V.getAs<OpaqueObj>();
  return O && O->Model ? llvm::dyn_cast<T>(O->Model.get()) : nullptr;
}

/// The dtype a host-only value names by its last dotted name
/// (`from torch import float16`, `torch.float8_e4m3fn`), if any.
std::optional<DType> namedDType(const Value &V);
/// `Self.Attr` for a host-only Self: the model's answer, else nullopt.
std::optional<Value> hostAttribute(const Value &Self, llvm::StringRef Attr);
/// A call of a host-only callee (torch.randn, a modelled method, a class):
/// the model's answer, else nullopt.
std::optional<Value> hostCall(Interp &I, const Value &Callee, CallArgs &Args,
                              llvm::SMRange CallRange);
/// An arithmetic or comparison operator (or `@`) with a modelled tensor
/// operand and a number or tensor on the other side: a tensor of the
/// broadcast shape; nullopt otherwise.
std::optional<Value> hostElementwise(const Value &L, const Value &R,
                                     bool MatMul, bool Compare,
                                     llvm::SMRange Whole);
/// `L op R` of tensors of known elements (or one number) of one shape:
/// + - * on ints and floats; nullopt otherwise.
std::optional<Value> hostDataBinary(ast::BinaryOp Op, const Value &L,
                                    const Value &R, llvm::SMRange Whole);
/// `Base[Index]` of a modelled tensor: the shape after ints, slices,
/// None and `...`; nullopt for other bases or indices (masks, gathers).
std::optional<Value> hostSubscript(Interp &I, const Value &Base,
                                   const ast::Expr *Index);
/// For a factory that returns an autotuner's result: the prim func its
/// kernel function builds from configuration \p Index (dict values by
/// keyword, sequences by position); nullopt for other values.
std::optional<Value> tunedKernel(Interp &I, const Value &Result, size_t Index,
                                 llvm::SMRange At);
/// A class statement's value: a host-only value with a ClassModel.
Value makeClass(Interp &I, const ast::ClassDefStmt *C);

} // namespace sema
} // namespace tilec

#endif
