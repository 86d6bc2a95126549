//===- ReducerOps.cpp - Reducers and TVM's thread all-reduce --------------===//
//
// Two ways TileLang programs combine values across threads outside the
// T.reduce_* tile operators:
//   - T.alloc_reducer(shape, dtype, op, replication) allocates a fragment
//     whose registers hold per-thread partial results; `r[i] += x` (or
//     `r[i] = T.max(r[i], x)`) inside T.Parallel updates them and
//     T.finalize_reducer(r) combines the copies of each element. The
//     reducer is an `alloc {reducer = op}` fragment whose layout
//     layout-inference chooses like any other (replication is TileLang's
//     deprecated layout hint: the result does not depend on it);
//     reducer-updates checks its uses, lower-reduce lowers the finalize.
//   - TVM's low-level idiom
//       with T.attr(T.comm_reducer(lambda x, y: x + y, [identity]),
//                   "reduce_scope", T.reinterpret(T.uint64(0),
//                   dtype="handle")):
//           T.evaluate(T.tvm_thread_allreduce(T.uint32(1), value, cond,
//                                             result[0], tx, ...,
//                                             dtype="handle"))
//     combines `value` across the threads that differ only in the thread
//     variables tx, ... and stores the result to result[0] on each of them.
//     The combiner runs once on two symbolic operands; it must come out as
//     one add, max or min of them (sum, max, min). It becomes
//     `%r = allreduce %v {kind, dims}` (lower-reduce lowers it).
//
//===----------------------------------------------------------------------===//

#include "Builtins.h"
#include "Interp.h"
#include "tilec/IR/ConstantMatch.h"

using namespace tilec;
using namespace tilec::sema;

//===----------------------------------------------------------------------===//
// T.alloc_reducer / T.finalize_reducer
//===----------------------------------------------------------------------===//

static bool isReducerOp(llvm::StringRef Op) {
  return Op == "sum" || Op == "max" || Op == "min";
}

static bool isBitwiseReducerOp(llvm::StringRef Op) {
  return Op == "bitand" || Op == "bitor" || Op == "bitxor";
}

Value sema::tAllocReducer(Interp &I, BoundArgs &A) {
  if (!A[2].isStr() ||
      !(isReducerOp(A[2].getStr()) || isBitwiseReducerOp(A[2].getStr()))) {
    I.error(A.range(2), diag::err_reducer_arg)
        << "alloc_reducer"
        << "op must be 'sum', 'max', 'min', 'bitand', 'bitor' or 'bitxor', "
           "got " +
               repr(A[2]);
    return Value::poison();
  }
  if (isBitwiseReducerOp(A[2].getStr())) {
    I.error(A.range(2), diag::err_feature_unsupported)
        << "T.alloc_reducer with op='" + A[2].getStr() + "'";
    return Value::poison();
  }
  bool RepOK =
      A[3].isNone() ||
      (A[3].isStr() && (A[3].getStr() == "all" || A[3].getStr() == "none"));
  if (!RepOK) {
    I.error(A.range(3), diag::err_reducer_arg)
        << "alloc_reducer"
        << "replication must be None, 'all' or 'none', got " + repr(A[3]);
    return Value::poison();
  }
  std::string What =
      I.PendingName.empty() ? "the reducer" : "'" + I.PendingName + "'";
  auto Dims = I.shapeOf(A[0], A.range(0), What, /*AllowSymbols=*/false,
                        "local.fragment");
  auto T = I.dtypeOf(A[1], A.range(1), "dtype");
  if (!Dims || !T)
    return Value::poison();
  Value V = allocBuffer(I, ir::Scope::Fragment, *Dims, *T, A.CallRange);
  auto *Buf = V.getAs<BufferObj>();
  Buf->Reducer = A[2].getStr();
  Buf->IR->getDefiningOp()->setAttr("reducer",
                                    ir::Attribute::string(Buf->Reducer));
  return V;
}

Value sema::tFinalizeReducer(Interp &I, BoundArgs &A) {
  BufferObj *Buf = I.bufferOf(A[0], A.range(0), "T.finalize_reducer");
  if (!Buf)
    return Value::poison();
  if (Buf->Reducer.empty()) {
    I.error(A.range(0), diag::err_reducer_arg)
        << "finalize_reducer"
        << "'" + Buf->Name + "' is not a reducer (T.alloc_reducer)";
    return Value::poison();
  }
  if (!A[1].isNone()) {
    I.error(A.range(1), diag::err_feature_unsupported)
        << "T.finalize_reducer into a destination fragment";
    return Value::poison();
  }
  auto Batch = I.constInt(A[2], A.range(2), "batch");
  if (!Batch)
    return Value::poison();
  if (*Batch < 1) {
    I.error(A.range(2), diag::err_reducer_arg)
        << "finalize_reducer"
        << "batch must be >= 1, got " + std::to_string(*Batch);
    return Value::poison();
  }
  I.B.create(ir::OpKind::FinalizeReducer, {Buf->IR}, {}, {});
  return Value::none();
}

//===----------------------------------------------------------------------===//
// T.attr / T.comm_reducer / T.evaluate
//===----------------------------------------------------------------------===//

Value sema::tCommReducer(Interp &I, BoundArgs &A) {
  if (!A[0].getAs<FunctionObj>()) {
    I.error(A.range(0), diag::err_reducer_arg)
        << "comm_reducer"
        << "the combiner must be a function of two values, got " +
               typeName(A[0]);
    return Value::poison();
  }
  auto R = std::make_shared<CommReducerObj>();
  R->Combiner = A[0];
  R->CombinerRange = A.range(0);
  R->IdentityRange = A.range(1);
  if (A[1].isSequence())
    R->Identity = A[1].elts();
  else
    R->Identity.push_back(A[1]);
  if (R->Identity.size() != 1) {
    I.error(A.range(1), diag::err_feature_unsupported)
        << "T.comm_reducer over " + std::to_string(R->Identity.size()) +
               " values (one value is)";
    return Value::poison();
  }
  return Value::object(std::move(R));
}

/// T.attr(node, key, value): only a `with` scope; T.tvm_thread_allreduce
/// reads the reducer of a "reduce_scope" one.
Value sema::tAttr(Interp &I, BoundArgs &A) {
  if (!A[1].isStr()) {
    I.error(A.range(1), diag::err_type_mismatch) << "attr_key"
                                                 << "a str" << typeName(A[1]);
    return Value::poison();
  }
  auto S = std::make_shared<AttrScopeObj>();
  S->Node = A[0];
  S->Key = A[1].getStr();
  S->NodeRange = A.range(0);
  S->KeyRange = A.range(1);
  return Value::object(std::move(S));
}

/// T.evaluate(expr): the call inside already ran.
Value sema::tEvaluate(Interp &, BoundArgs &) { return Value::none(); }

//===----------------------------------------------------------------------===//
// T.tvm_thread_allreduce
//===----------------------------------------------------------------------===//

namespace {

/// Runs a combiner on two symbolic operands of one dtype, in a scratch
/// block that dies with this object.
class CombinerProbe {
public:
  explicit CombinerProbe(Interp &I) : I(I) {}
  ~CombinerProbe() { I.forgetAffines(Scratch); }

  /// "sum", "max" or "min" when F(x, y) is one add/max/min of x and y.
  std::optional<std::string> kindOf(const CommReducerObj &R, DType T,
                                    std::string &Got) {
    ir::Value *X = Scratch.addArgument(ir::Type::scalar(T), "x");
    ir::Value *Y = Scratch.addArgument(ir::Type::scalar(T), "y");
    CallArgs CA;
    CA.Pos = {Value::runtime(X), Value::runtime(Y)};
    CA.PosRanges.assign(2, R.CombinerRange);
    ir::Builder::InsertionGuard G(I.B);
    I.B.setInsertionPointToEnd(Scratch);
    Value Out = I.call(R.Combiner, CA, R.CombinerRange, R.CombinerRange);
    if (Out.isPoison())
      return std::nullopt;
    const ir::Operation *Op =
        Out.isRuntime() ? Out.getRuntime()->getDefiningOp() : nullptr;
    Got = Op ? "'" + Op->getName().str() + "'" : typeName(Out);
    if (!Op || Op->getNumOperands() != 2 ||
        !((Op->getOperand(0) == X && Op->getOperand(1) == Y) ||
          (Op->getOperand(0) == Y && Op->getOperand(1) == X)))
      return std::nullopt;
    if (Op->is(ir::OpKind::Add))
      return std::string("sum");
    if (Op->is(ir::OpKind::Max))
      return std::string("max");
    if (Op->is(ir::OpKind::Min))
      return std::string("min");
    return std::nullopt;
  }

private:
  Interp &I;
  ir::Block Scratch;
};

/// The thread dimension a T.tvm_thread_allreduce thread variable names.
std::optional<int64_t> threadDim(const Value &V) {
  if (!V.isRuntime())
    return std::nullopt;
  const ir::Operation *Op = V.getRuntime()->getDefiningOp();
  if (!Op || !Op->is(ir::OpKind::ThreadId))
    return std::nullopt;
  return Op->getIntAttr("dim");
}

} // namespace

/// The value count: a compile-time int or a constant such as T.uint32(1).
static std::optional<int64_t> valueCount(Interp &I, const Value &V,
                                         llvm::SMRange R) {
  if (V.isRuntime())
    if (auto C = ir::matchConstantInt(V.getRuntime()))
      return C;
  return I.constInt(V, R, "the value count");
}

/// The all-reduce's pieces: size, value, condition, result, thread vars.
static bool checkAllReduceShape(Interp &I, BoundArgs &A) {
  auto Size = A.Rest.empty() ? std::optional<int64_t>(0)
                             : valueCount(I, A.Rest[0], A.RestRanges[0]);
  if (!Size)
    return false;
  if (*Size > 1) {
    I.error(A.RestRanges[0], diag::err_feature_unsupported)
        << "T.tvm_thread_allreduce of " + std::to_string(*Size) +
               " values (one value is)";
    return false;
  }
  if (*Size != 1 || A.Rest.size() < 5) {
    I.error(A.CallRange, diag::err_thread_allreduce)
        << "expected (1, value, condition, result, thread variables...), "
           "got " +
               std::to_string(A.Rest.size()) + " arguments";
    return false;
  }
  if (I.ReduceScopes.empty()) {
    I.error(A.CallRange, diag::err_thread_allreduce)
        << "it must be inside 'with T.attr(T.comm_reducer(...), "
           "\"reduce_scope\", ...)'";
    return false;
  }
  return true;
}

/// The thread dims named by the trailing arguments, as an attribute.
static std::optional<std::vector<int64_t>> reducedDims(Interp &I,
                                                       BoundArgs &A) {
  std::vector<int64_t> Dims;
  for (size_t K = 4; K != A.Rest.size(); ++K) {
    auto D = threadDim(A.Rest[K]);
    if (!D) {
      I.error(A.RestRanges[K], diag::err_thread_allreduce)
          << "'" + exprText(A.RestRanges[K]) +
                 "' is not a thread index (T.get_thread_binding or "
                 "T.thread_binding starting at 0)";
      return std::nullopt;
    }
    if (llvm::is_contained(Dims, *D)) {
      I.error(A.RestRanges[K], diag::err_thread_allreduce)
          << "thread dimension " + std::to_string(*D) + " is named twice";
      return std::nullopt;
    }
    Dims.push_back(*D);
  }
  return Dims;
}

/// What a thread contributes: its value, or the reducer's identity where
/// the condition is false (a compile-time bool or a runtime predicate).
static ir::Value *contribution(Interp &I, const Value &Cond,
                               llvm::SMRange CondRange, ir::Value *X,
                               const CommReducerObj &R) {
  if (Cond.isBool() && Cond.getBool())
    return X;
  DType T = X->getType().getDType();
  ir::Value *Id = I.toRuntimeAs(R.Identity[0], T, R.IdentityRange);
  if (!Id || (Cond.isBool() && !Cond.getBool()))
    return Id;
  ir::Value *C = I.toRuntime(Cond, CondRange);
  return C ? I.B.createSelect(I.toCondition(C), X, Id) : nullptr;
}

Value sema::tTvmThreadAllreduce(Interp &I, BoundArgs &A) {
  if (!checkAllReduceShape(I, A))
    return Value::poison();
  auto *Result = A.Rest[3].getAs<BufferRefObj>();
  if (!Result || Result->hasSlice()) {
    I.error(A.RestRanges[3], diag::err_thread_allreduce)
        << "the result must be a buffer element such as 'out[0]'";
    return Value::poison();
  }
  auto Dims = reducedDims(I, A);
  ir::Value *X = Dims ? I.toRuntime(A.Rest[1], A.RestRanges[1]) : nullptr;
  if (!X)
    return Value::poison();
  DType T = X->getType().getDType();
  if (!X->getType().isScalar() || T == DType::Bool) {
    I.error(A.RestRanges[1], diag::err_thread_allreduce)
        << "the value must be a number";
    return Value::poison();
  }
  const CommReducerObj &R = *I.ReduceScopes.back();
  std::string Got;
  auto Kind = CombinerProbe(I).kindOf(R, T, Got);
  if (!Kind) {
    if (!Got.empty())
      I.error(R.CombinerRange, diag::err_feature_unsupported)
          << "a T.comm_reducer combiner that computes " + Got +
                 " (one add, max or min of its two operands is)";
    return Value::poison();
  }
  X = contribution(I, A.Rest[2], A.RestRanges[2], X, R);
  if (!X)
    return Value::poison();
  ir::Value *Out =
      I.B.create(ir::OpKind::AllReduce, {X}, {}, {ir::Type::scalar(T)},
                 {{"kind", ir::Attribute::string(*Kind)},
                  {"dims", ir::Attribute::intArray(*Dims)}})
          ->getResult();
  storeRef(I, *Result, Value::runtime(Out), A.RestRanges[3]);
  return Value::none();
}
