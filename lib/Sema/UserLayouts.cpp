//===- UserLayouts.cpp - T.Layout and T.Fragment from Python functions ----===//
//
// TileLang users write layouts as Python functions of the logical indices:
//
//   T.Layout(shape, forward_fn)
//   T.Fragment(shape, forward_fn=None, forward_thread_fn=None, replicate=1,
//              forward_index_fn=None)
//
// Expects: a static shape (T.Layout: or a permutation of a symbolic
// shape's dims, `permute_dims(...)`) and functions taking one argument per
// dim (plus
// the replica number `rep` for forward_fn / forward_thread_fn when
// replicate > 1, as in TileLang; forward_index_fn never gets it).
// T.Layout's function returns one index or a tuple; T.Fragment's forward_fn
// returns (thread, index or tuple of indices); forward_thread_fn returns
// the thread, forward_index_fn the index or tuple.
// Does: calls each function once at compile time on symbolic i32
// iterators. The arithmetic the call performs is emitted, as for any
// runtime value, into a detached scratch block (never into the kernel) and
// read back as layout expressions (ir::IndexAtoms); the scratch block is
// then dropped. Constants, +, -, *, //, %, ^, &, min and max (T.min/T.max,
// min()/max()) of the iterators are expressible; anything else (a float,
// `/`, a division by a non-constant, a kernel value, a load) is an error at
// the function.
// Guarantees: the LayoutObj holds the layout library's printed form
// (`Layout([8, 8] -> [64], transform: [i, j] -> [...])`, `Fragment(...)`),
// which the lowering passes read back with LayoutParser; every output and
// the thread are non-negative and bounded over the input ranges.
// Injectivity and the thread count are checked where the layout is applied
// (apply-shared-layouts, layout-inference).
//
//===----------------------------------------------------------------------===//

#include "Builtins.h"
#include "Interp.h"
#include "tilec/IR/IndexAtoms.h"
#include "tilec/Layout/Layout.h"
#include "llvm/ADT/StringExtras.h"
#include <climits>

using namespace tilec;
using namespace tilec::sema;
using layout::IndexExpr;

namespace {

using ExprList = llvm::SmallVector<IndexExpr, 4>;

/// Symbolic iterators and the scratch block their arithmetic goes to.
class SymbolicCall {
public:
  SymbolicCall(Interp &I, llvm::StringRef Who) : I(I), Who(Who) {
    if (!I.CurFunc)
      I.CurFunc = &HostFunc;
  }
  ~SymbolicCall() {
    if (I.CurFunc == &HostFunc)
      I.CurFunc = nullptr;
    I.forgetAffines(Scratch);
  }

  /// A new iterator named \p Name over [0, Extent).
  Value iterator(llvm::StringRef Name, int64_t Extent) {
    ir::Value *V = Scratch.addArgument(ir::Type::i32(), Name);
    Atoms.bind(Name, V, Extent);
    ++NumBound;
    return Value::runtime(V);
  }

  /// Calls \p F on \p Args with the builder in the scratch block.
  Value call(FunctionObj &F, std::vector<Value> Args, llvm::SMRange At) {
    CallArgs CA;
    CA.PosRanges.assign(Args.size(), At);
    CA.Pos = std::move(Args);
    ir::Builder::InsertionGuard G(I.B);
    I.B.setInsertionPointToEnd(Scratch);
    return I.callFunction(F, CA, At);
  }

  /// \p V (one result) as an expression of the iterators.
  std::optional<IndexExpr> read(const Value &V, llvm::SMRange At) {
    if (V.isPoison())
      return std::nullopt;
    if (V.isInt())
      return IndexExpr(V.getInt());
    if (V.isRuntime() && !V.getRuntime()->getType().isInteger())
      return fail(At, whyOpaque(V.getRuntime()));
    if (!V.isRuntime())
      return fail(At, "returns " + typeName(V) +
                          ", not an integer index expression");
    IndexExpr E = Atoms.toExpr(V.getRuntime());
    if (Atoms.getValues().size() == NumBound)
      return E;
    for (const auto &Entry : Atoms.getValues())
      if (!isIterator(Entry.second))
        return fail(At, whyOpaque(Entry.second));
    return std::nullopt;
  }

  /// One index or a tuple/list of them.
  std::optional<ExprList> readList(const Value &V, llvm::SMRange At) {
    std::vector<Value> Items =
        V.isSequence() ? V.elts() : std::vector<Value>{V};
    if (Items.empty())
      return fail(At, "returns an empty sequence; it must return at least "
                      "one index");
    ExprList Out;
    for (const Value &Item : Items) {
      auto E = read(Item, At);
      if (!E)
        return std::nullopt;
      Out.push_back(*E);
    }
    return Out;
  }

  std::nullopt_t fail(llvm::SMRange At, const std::string &Why) {
    I.error(At, diag::err_bad_layout_fn) << Who << Why;
    return std::nullopt;
  }

private:
  bool isIterator(ir::Value *V) const {
    return !V->getDefiningOp() && V->getOwnerBlock() == &Scratch;
  }

  static std::string whyOpaque(ir::Value *V) {
    ir::Operation *Def = V->getDefiningOp();
    if (!V->getType().isInteger())
      return "computes a " + tileLangName(V->getType().getDType()).str() +
             " value; a layout is an integer index expression";
    if (!Def)
      return "uses '" + V->getNameHint().str() +
             "', which is neither one of its arguments nor a compile-time "
             "constant";
    if (Def->is(ir::OpKind::FloorDiv) || Def->is(ir::OpKind::FloorMod))
      return "divides by a value that is not a positive compile-time "
             "constant";
    return "computes '" + Def->getName().str() +
           "', which a layout cannot express (use +, -, *, //, %, ^, &, "
           "min and max)";
  }

  Interp &I;
  std::string Who;
  FuncState HostFunc;
  ir::Block Scratch;
  ir::IndexAtoms Atoms;
  size_t NumBound = 0;
};

std::optional<std::vector<int64_t>> layoutShape(Interp &I, BoundArgs &A) {
  auto Dims = I.shapeOf(A[0], A.range(0), "the layout", /*AllowSymbols=*/false,
                        "layout");
  if (!Dims)
    return std::nullopt;
  std::vector<int64_t> Shape;
  for (const ir::Dim &D : *Dims)
    Shape.push_back(D.getValue());
  return Shape;
}

/// Argument K as a function of \p Rank parameters (the dims, then `rep`
/// when \p TakesRep); null when absent (or after an error, then Bad is
/// set).
FunctionObj *layoutFn(Interp &I, BoundArgs &A, unsigned K, size_t Rank,
                      bool TakesRep, bool &Bad) {
  if (A[K].isNone())
    return nullptr;
  auto *F = A[K].getAs<FunctionObj>();
  if (!F) {
    I.error(A.range(K), diag::err_not_callable) << exprText(A.range(K));
    Bad = true;
    return nullptr;
  }
  size_t Want = Rank + TakesRep;
  if (F->Params->size() != Want) {
    I.error(A.range(K), diag::err_bad_layout_fn)
        << A.name()
        << "takes " + std::to_string(F->Params->size()) +
               " arguments, but it gets " + std::to_string(Want) +
               ": one per dim of the shape" +
               (TakesRep ? " and the replica number 'rep'" : "");
    Bad = true;
    return nullptr;
  }
  return F;
}

/// Every output of \p L is non-negative and bounded.
bool checkOutputs(SymbolicCall &S, const layout::Layout &L, llvm::SMRange At) {
  for (unsigned D = 0; D != L.getOutputDim(); ++D)
    if (L.getOutputShape()[D] < 1) {
      S.fail(At, "gives result " + std::to_string(D) + " = " +
                     layout::toString(L.getForwardIndex()[D]) +
                     ", which can be negative or is unbounded");
      return false;
    }
  return true;
}

/// The iterators i, j, ... of \p Shape.
std::vector<Value> iterators(SymbolicCall &S, llvm::ArrayRef<int64_t> Shape) {
  std::vector<Value> Vars;
  for (unsigned D = 0; D != Shape.size(); ++D)
    Vars.push_back(S.iterator(layout::Layout::inputVarName(D), Shape[D]));
  return Vars;
}

struct FragmentExprs {
  IndexExpr Thread;
  ExprList Index;
};

/// forward_fn(*vars[, rep]) -> (thread, index).
std::optional<FragmentExprs> callForwardFn(SymbolicCall &S, FunctionObj &F,
                                           std::vector<Value> Args,
                                           llvm::SMRange At) {
  Value R = S.call(F, std::move(Args), At);
  if (R.isPoison())
    return std::nullopt;
  if (!R.isSequence() || R.elts().size() != 2)
    return S.fail(At, "must return (thread, index), got " + typeName(R));
  auto Thread = S.read(R.elts()[0], At);
  auto Index = Thread ? S.readList(R.elts()[1], At) : std::nullopt;
  if (!Index)
    return std::nullopt;
  return FragmentExprs{*Thread, *Index};
}

/// forward_thread_fn(*vars[, rep]) and forward_index_fn(*vars).
std::optional<FragmentExprs>
callSplitFns(SymbolicCall &S, FunctionObj &ThreadFn, FunctionObj &IndexFn,
             std::vector<Value> Vars, std::optional<Value> Rep,
             llvm::SMRange ThreadAt, llvm::SMRange IndexAt) {
  auto Index = S.readList(S.call(IndexFn, Vars, IndexAt), IndexAt);
  if (!Index)
    return std::nullopt;
  if (Rep)
    Vars.push_back(*Rep);
  auto Thread = S.read(S.call(ThreadFn, std::move(Vars), ThreadAt), ThreadAt);
  if (!Thread)
    return std::nullopt;
  return FragmentExprs{*Thread, *Index};
}

} // namespace

/// T.Layout(shape, fn) of a shape with symbolic dims: fn must return its
/// arguments in another order (`lambda l, h, d: [h, l, d]`), a permutation
/// of the dims, printed `permute_dims(1, 0, 2)` (output dim k is input dim
/// P[k]); apply-shared-layouts applies it to a global buffer.
static Value symbolicPermutation(Interp &I, BoundArgs &A, size_t Rank) {
  bool Bad = false;
  FunctionObj *F = layoutFn(I, A, 1, Rank, false, Bad);
  if (!F) {
    if (!Bad)
      I.error(A.range(1), diag::err_not_callable) << exprText(A.range(1));
    return Value::poison();
  }
  SymbolicCall S(I, A.name());
  std::vector<Value> Vars;
  for (unsigned D = 0; D != Rank; ++D)
    Vars.push_back(S.iterator(layout::Layout::inputVarName(D), INT32_MAX));
  auto Exprs = S.readList(S.call(*F, Vars, A.range(1)), A.range(1));
  if (!Exprs)
    return Value::poison();
  std::vector<std::string> Perm;
  std::vector<bool> Seen(Rank, false);
  for (const IndexExpr &E : *Exprs) {
    unsigned D = 0;
    while (D != Rank && E.getVarName() != layout::Layout::inputVarName(D))
      ++D;
    if (Exprs->size() != Rank || D == Rank || Seen[D]) {
      S.fail(A.range(1), "has a shape with symbolic dims, so it must return "
                         "its arguments in another order (a permutation of "
                         "the dims)");
      return Value::poison();
    }
    Seen[D] = true;
    Perm.push_back(std::to_string(D));
  }
  return Value::object(std::make_shared<LayoutObj>(
      "permute_dims(" + llvm::join(Perm, ", ") + ")"));
}

Value sema::tLayout(Interp &I, BoundArgs &A) {
  auto Dims = I.shapeOf(A[0], A.range(0), "the layout", /*AllowSymbols=*/true,
                        "layout");
  if (!Dims)
    return Value::poison();
  if (llvm::any_of(*Dims, [](const ir::Dim &D) { return !D.isStatic(); }))
    return symbolicPermutation(I, A, Dims->size());
  auto Shape = layoutShape(I, A);
  bool Bad = false;
  FunctionObj *F =
      Shape ? layoutFn(I, A, 1, Shape->size(), false, Bad) : nullptr;
  if (!F) {
    if (Shape && !Bad)
      I.error(A.range(1), diag::err_not_callable) << exprText(A.range(1));
    return Value::poison();
  }
  SymbolicCall S(I, A.name());
  auto Exprs =
      S.readList(S.call(*F, iterators(S, *Shape), A.range(1)), A.range(1));
  if (!Exprs)
    return Value::poison();
  layout::Layout L(*Shape, *Exprs);
  if (!checkOutputs(S, L, A.range(1)))
    return Value::poison();
  return Value::object(std::make_shared<LayoutObj>(L.toString()));
}

Value sema::tFragmentLayout(Interp &I, BoundArgs &A) {
  enum { ShapeArg, ForwardArg, ThreadArg, ReplicateArg, IndexArg };
  auto Shape = layoutShape(I, A);
  auto Rep =
      Shape ? I.constInt(A[ReplicateArg], A.range(ReplicateArg), "replicate")
            : std::nullopt;
  if (!Rep)
    return Value::poison();
  if (*Rep < 1) {
    I.error(A.range(ReplicateArg), diag::err_non_positive_extent)
        << "replicate" << std::to_string(*Rep);
    return Value::poison();
  }
  size_t Rank = Shape->size();
  bool Bad = false;
  FunctionObj *Forward = layoutFn(I, A, ForwardArg, Rank, *Rep > 1, Bad);
  FunctionObj *ThreadFn = layoutFn(I, A, ThreadArg, Rank, *Rep > 1, Bad);
  FunctionObj *IndexFn = layoutFn(I, A, IndexArg, Rank, false, Bad);
  if (Bad)
    return Value::poison();
  if (!Forward && (!ThreadFn || !IndexFn)) {
    I.error(A.CallRange, diag::err_bad_layout_fn)
        << A.name()
        << "is missing: pass forward_fn, or both forward_thread_fn and "
           "forward_index_fn";
    return Value::poison();
  }
  SymbolicCall S(I, A.name());
  std::vector<Value> Vars = iterators(S, *Shape);
  std::optional<Value> RepVar;
  if (*Rep > 1)
    RepVar = S.iterator("rep", *Rep);
  std::optional<FragmentExprs> E;
  if (Forward) {
    if (RepVar)
      Vars.push_back(*RepVar);
    E = callForwardFn(S, *Forward, std::move(Vars), A.range(ForwardArg));
  } else {
    E = callSplitFns(S, *ThreadFn, *IndexFn, std::move(Vars), RepVar,
                     A.range(ThreadArg), A.range(IndexArg));
  }
  if (!E)
    return Value::poison();
  layout::Fragment F(*Shape, E->Index, E->Thread, *Rep);
  llvm::SMRange At = A.range(Forward ? ForwardArg : ThreadArg);
  if (!checkOutputs(S, F, At))
    return Value::poison();
  if (F.getThreadExtent() < 1) {
    S.fail(At, "gives the thread " + layout::toString(F.getForwardThread()) +
                   ", which can be negative or is unbounded");
    return Value::poison();
  }
  return Value::object(std::make_shared<LayoutObj>(F.toString()));
}
