//===- Conversions.cpp - Compile-time values Sema demands -----------------===//
//
// The conversions the rest of Sema uses to demand compile-time values with
// precise diagnostics: truth values, iteration, ints, bools, dtypes, dims,
// shapes and buffers, and the reports for host or runtime values where a
// compile-time one is needed.
//
//===----------------------------------------------------------------------===//

#include "Builtins.h"
#include "HostModel.h"
#include "Interp.h"
#include "tilec/IR/Value.h"
#include "tilec/Support/Target.h"

using namespace tilec;
using namespace tilec::sema;
using namespace tilec::ast;

void Interp::reportNotCompileTime(const Value &V, llvm::SMRange R,
                                  llvm::StringRef What) {
  if (V.getAs<SymExprObj>())
    return reportNeedsValue(V, R);
  std::string Name;
  if (V.isRuntime() && !V.getRuntime()->getNameHint().empty())
    Name = V.getRuntime()->getNameHint().str();
  else if (auto *S = V.getAs<SymbolObj>())
    Name = S->Name;
  else if (auto *Ref = V.getAs<BufferRefObj>())
    Name = Ref->Buf->Name + "[...]";
  else
    Name = exprText(R);
  error(R, diag::err_expected_compile_time)
      << What << (Name.empty() ? "" : " '" + Name + "'");
}

void Interp::reportHostValue(const Value &V, llvm::SMRange R) {
  error(R, diag::err_host_value) << repr(V);
}

std::optional<bool> Interp::truthy(const Value &V, llvm::SMRange R) {
  switch (V.kind()) {
  case Value::Kind::Poison:
    return std::nullopt;
  case Value::Kind::None:
    return false;
  case Value::Kind::Bool:
  case Value::Kind::Int:
    return V.getInt() != 0;
  case Value::Kind::Float:
    return V.getNumber() != 0;
  case Value::Kind::Str:
    return !V.getStr().empty();
  case Value::Kind::Tuple:
  case Value::Kind::List:
    return !V.elts().empty();
  case Value::Kind::Dict:
    return !V.getDict().Items.empty();
  default:
    break;
  }
  if (V.getAs<OpaqueObj>()) {
    if (hasIR())
      reportHostValue(V, R);
    else
      HostUndecided = true;
    return std::nullopt;
  }
  if (isRuntimeLike(V)) {
    reportNotCompileTime(V, R, "this condition");
    return std::nullopt;
  }
  return true;
}

static std::optional<std::vector<Value>> rangeElements(Interp &I, LoopObj &L) {
  auto Start = I.constInt(L.Start, L.StartRange, "range start");
  auto Stop = I.constInt(L.Stop, L.StopRange, "range stop");
  auto Step = I.constInt(L.Step, L.StepRange, "range step");
  if (!Start || !Stop || !Step)
    return std::nullopt;
  if (*Step == 0) {
    I.error(L.StepRange, diag::err_non_positive_extent) << "range step" << 0;
    return std::nullopt;
  }
  __int128 Count = *Step > 0 ? (__int128(*Stop) - *Start + *Step - 1) / *Step
                             : (__int128(*Start) - *Stop - *Step - 1) / -*Step;
  if (Count > __int128(I.Opts.MaxLoopIterations)) {
    I.fatal(L.Range, diag::err_loop_limit) << I.Opts.MaxLoopIterations;
    return std::nullopt;
  }
  std::vector<Value> Out;
  for (int64_t K = 0; K < int64_t(std::max<__int128>(Count, 0)); ++K)
    Out.push_back(Value::integer(*Start + K * *Step));
  return Out;
}

std::optional<std::vector<Value>> Interp::iterate(const Value &V,
                                                  llvm::SMRange R) {
  if (V.isPoison())
    return std::nullopt;
  if (V.isSequence())
    return V.elts();
  // TileLang's dtypes are str subclasses: iterating T.int8 gives the
  // characters of "int8" (programs parse bit widths out of the name).
  if (V.isStr() || V.isDType()) {
    std::string Text =
        V.isStr() ? V.getStr() : tileLangName(V.getDType()).str();
    std::vector<Value> Out;
    for (char C : Text)
      Out.push_back(Value::str(std::string(1, C)));
    return Out;
  }
  if (V.isDict()) {
    std::vector<Value> Out;
    for (auto &Item : V.getDict().Items)
      Out.push_back(Item.first);
    return Out;
  }
  if (auto *L = V.getAs<LoopObj>(); L && L->LK == LoopObj::LoopKind::Range)
    return rangeElements(*this, *L);
  if (V.getAs<OpaqueObj>()) {
    if (hasIR())
      reportHostValue(V, R);
    else
      HostUndecided = true;
    return std::nullopt;
  }
  if (V.getAs<LoopObj>()) {
    error(R, diag::err_tile_op_outside_kernel) << exprText(R);
    return std::nullopt;
  }
  error(R, diag::err_type_mismatch) << "iteration"
                                    << "an iterable" << typeName(V);
  return std::nullopt;
}

void Interp::reportNotConstant(const Value &V, llvm::SMRange R,
                               llvm::StringRef What, llvm::StringRef Expected) {
  if (V.isPoison())
    return;
  if (isRuntimeLike(V))
    return reportNotCompileTime(V, R, What);
  if (V.getAs<OpaqueObj>())
    return reportHostValue(V, R);
  error(R, diag::err_type_mismatch) << What << Expected << typeName(V);
}

std::optional<int64_t> Interp::constInt(const Value &V, llvm::SMRange R,
                                        llvm::StringRef What) {
  if (V.isIntLike())
    return V.getInt();
  reportNotConstant(V, R, What, "an int");
  return std::nullopt;
}

std::optional<bool> Interp::constBool(const Value &V, llvm::SMRange R,
                                      llvm::StringRef What) {
  if (V.isIntLike())
    return V.getInt() != 0;
  reportNotConstant(V, R, What, "a bool");
  return std::nullopt;
}

std::optional<DType> Interp::dtypeOf(const Value &V, llvm::SMRange R,
                                     llvm::StringRef What) {
  if (V.isDType())
    return V.getDType();
  if (V.isPoison())
    return std::nullopt;
  if (V.isStr()) {
    if (auto T = parseTileLangDType(V.getStr()))
      return T;
    error(R, diag::err_unknown_dtype) << V.getStr();
    return std::nullopt;
  }
  if (V.getAs<OpaqueObj>()) {
    // torch.float16 and friends name the same dtypes.
    if (auto T = namedDType(V))
      return T;
    reportHostValue(V, R);
    return std::nullopt;
  }
  error(R, diag::err_type_mismatch) << What << "a dtype" << typeName(V);
  return std::nullopt;
}

static std::optional<ir::Dim> dimOf(Interp &I, const Value &V, llvm::SMRange R,
                                    llvm::StringRef What, unsigned Index,
                                    bool AllowSymbols,
                                    llvm::StringRef ScopeName) {
  if (V.isIntLike()) {
    if (V.getInt() <= 0) {
      I.error(R, diag::err_non_positive_extent)
          << "dimension " + std::to_string(Index) + " of " + What.str()
          << V.getInt();
      return std::nullopt;
    }
    return ir::Dim(V.getInt());
  }
  if (auto *S = V.getAs<SymbolObj>()) {
    if (AllowSymbols)
      return ir::Dim::symbol(S->Name);
    I.error(R, diag::err_runtime_shape) << ScopeName;
    return std::nullopt;
  }
  // An expression of symbols: a composite dim of a tensor; a tile's shape
  // needs its value.
  if (V.getAs<SymExprObj>()) {
    if (AllowSymbols && !I.hasIR())
      return I.compositeDim(V, R);
    I.reportNeedsValue(V, R);
    return std::nullopt;
  }
  if (V.isRuntime() || V.getAs<BufferRefObj>()) {
    I.error(R, diag::err_runtime_shape) << ScopeName;
    return std::nullopt;
  }
  if (V.isPoison())
    return std::nullopt;
  if (V.getAs<OpaqueObj>()) {
    I.reportHostValue(V, R);
    return std::nullopt;
  }
  I.error(R, diag::err_bad_shape) << What;
  return std::nullopt;
}

std::optional<std::vector<ir::Dim>>
Interp::shapeOf(const Value &V, llvm::SMRange R, llvm::StringRef What,
                bool AllowSymbols, llvm::StringRef ScopeName) {
  std::vector<ir::Dim> Dims;
  if (!V.isSequence()) {
    auto D = dimOf(*this, V, R, What, 0, AllowSymbols, ScopeName);
    if (!D)
      return std::nullopt;
    Dims.push_back(*D);
    return Dims;
  }
  if (V.elts().empty()) {
    error(R, diag::err_bad_shape) << What;
    return std::nullopt;
  }
  bool OK = true;
  for (size_t K = 0; K < V.elts().size(); ++K) {
    auto D = dimOf(*this, V.elts()[K], R, What, K, AllowSymbols, ScopeName);
    OK &= D.has_value();
    if (D)
      Dims.push_back(*D);
  }
  if (!OK)
    return std::nullopt;
  return Dims;
}

BufferObj *Interp::bufferOf(const Value &V, llvm::SMRange R,
                            llvm::StringRef What) {
  if (auto *B = V.getAs<BufferObj>())
    return B;
  if (!V.isPoison())
    error(R, diag::err_not_a_buffer) << What << typeName(V);
  return nullptr;
}
