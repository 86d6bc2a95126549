//===- PyBuiltins.cpp - Python builtins, methods and the math module ------===//
//
// The part of Python's standard library that kernel factories use to
// compute configurations: len/min/max/range/..., list/dict/str methods,
// int.bit_length and math.*. All of them work on compile-time values;
// min/max/abs/sum/int/float also accept runtime scalars (they become IR).
//
//===----------------------------------------------------------------------===//

#include "Builtins.h"
#include "HostModel.h"
#include "Interp.h"
#include "tilec/IR/Value.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"
#include <cmath>
#include <numeric>

using namespace tilec;
using namespace tilec::sema;

static Value typeError(Interp &I, llvm::SMRange R, llvm::StringRef What,
                       llvm::StringRef Expected, const Value &Got) {
  if (!Got.isPoison())
    I.error(R, diag::err_type_mismatch) << What << Expected << typeName(Got);
  return Value::poison();
}

//===----------------------------------------------------------------------===//
// Builtin functions
//===----------------------------------------------------------------------===//

Value sema::pyLen(Interp &I, BoundArgs &A) {
  const Value &V = A[0];
  if (V.isStr())
    return Value::integer(V.getStr().size());
  if (V.isSequence())
    return Value::integer(V.elts().size());
  if (V.isDict())
    return Value::integer(V.getDict().Items.size());
  if (V.getAs<LoopObj>()) {
    auto Items = I.iterate(V, A.range(0));
    return Items ? Value::integer(Items->size()) : Value::poison();
  }
  // A driver's torch tensor: the extent of its first dimension.
  if (auto *T = hostModelOf<TensorModel>(V); T && !T->Shape.empty())
    return T->Shape[0];
  return typeError(I, A.range(0), "len()", "a str, tuple, list or dict", V);
}

Value sema::runtimeExtremum(Interp &I, bool IsMax, const Value &L,
                            const Value &R, llvm::SMRange LR,
                            llvm::SMRange RR) {
  if (auto D = I.deferSymbolic(
          {L, R},
          std::string(IsMax ? "max(" : "min(") + symbolicText(L, 0) + ", " +
              symbolicText(R, 0) + ")",
          SymPrec::Atom, [=](Interp &I, const std::vector<Value> &V) {
            return runtimeExtremum(I, IsMax, V[0], V[1], LR, RR);
          }))
    return *D;
  auto P = I.promote(L, R, LR, RR);
  if (!P)
    return Value::poison();
  return Value::runtime(I.emitBinary(IsMax ? ir::OpKind::Max : ir::OpKind::Min,
                                     P->first, P->second));
}

/// min/max over compile-time values (numbers or strings), or IR min/max
/// once a runtime value is involved.
static Value extremum(Interp &I, BoundArgs &A, bool IsMax) {
  if (!A[0].isNone()) {
    I.error(A.range(0), diag::err_feature_unsupported) << "min/max with key=";
    return Value::poison();
  }
  std::vector<Value> Items = A.Rest;
  std::vector<llvm::SMRange> Ranges = A.RestRanges;
  if (Items.size() == 1) {
    auto It = I.iterate(Items[0], Ranges[0]);
    if (!It)
      return Value::poison();
    Items = *It;
    Ranges.assign(Items.size(), A.RestRanges[0]);
  }
  if (Items.empty()) {
    if (A.given(1))
      return A[1];
    I.error(A.CallRange, diag::err_missing_argument) << A.name() << "args";
    return Value::poison();
  }
  // A host-only operand makes the result host-only: it must not be dropped
  // as if the comparison had said "not smaller".
  for (const Value &V : Items)
    if (V.getAs<OpaqueObj>())
      return Value::object(std::make_shared<OpaqueObj>(exprText(A.CallRange)));
  Value Best = Items[0];
  for (size_t K = 1; K < Items.size(); ++K) {
    const Value &V = Items[K];
    if (isRuntimeLike(Best) || isRuntimeLike(V)) {
      Best = runtimeExtremum(I, IsMax, Best, V, Ranges[0], Ranges[K]);
      if (Best.isPoison())
        return Best;
      continue;
    }
    Value Less = I.compare(ast::CompareOp::Lt, IsMax ? Best : V,
                           IsMax ? V : Best, Ranges[0], Ranges[K], A.CallRange);
    if (Less.isPoison())
      return Less;
    if (Less.getBool())
      Best = V;
  }
  return Best;
}

Value sema::pyMin(Interp &I, BoundArgs &A) { return extremum(I, A, false); }

/// tilelang.math.next_power_of_2(x): the smallest power of two >= x (1 for
/// x <= 1).
Value sema::tlNextPowerOf2(Interp &I, BoundArgs &A) {
  auto X = I.constInt(A[0], A.range(0), "the argument of next_power_of_2");
  if (!X)
    return Value::poison();
  int64_t P = 1;
  while (P < *X && P < (int64_t(1) << 62))
    P <<= 1;
  return Value::integer(P);
}
Value sema::pyMax(Interp &I, BoundArgs &A) { return extremum(I, A, true); }

Value sema::pyAbs(Interp &I, BoundArgs &A) {
  const Value &V = A[0];
  if (V.isFloat())
    return Value::real(std::fabs(V.getNumber()));
  if (V.isIntLike())
    return Value::integer(V.getInt() < 0 ? -V.getInt() : V.getInt());
  if (!isRuntimeLike(V))
    return typeError(I, A.range(0), "abs()", "a number", V);
  ir::Value *X = I.toRuntime(V, A.range(0));
  return X ? Value::runtime(I.B.createMath("abs", {X})) : Value::poison();
}

/// int(x) or float(x) of a value known only later (a symbolic size) or
/// only on the device (a runtime scalar): a conversion to \p Ty.
static Value runtimeConversion(Interp &I, BoundArgs &A, DType Ty,
                               llvm::StringRef Name) {
  const Value &V = A[0];
  if (auto D = I.deferSymbolic(
          {V}, (Name + "(" + symbolicText(V, 0) + ")").str(), SymPrec::Atom,
          [Ty, R = A.range(0)](Interp &I, const std::vector<Value> &X) {
            ir::Value *C = I.toRuntimeAs(X[0], Ty, R);
            return C ? Value::runtime(C) : Value::poison();
          }))
    return *D;
  if (isRuntimeLike(V)) {
    ir::Value *X = I.toRuntimeAs(V, Ty, A.range(0));
    return X ? Value::runtime(X) : Value::poison();
  }
  return typeError(I, A.range(0), (Name + "()").str(), "a number", V);
}

Value sema::pyInt(Interp &I, BoundArgs &A) {
  const Value &V = A[0];
  if (V.isIntLike())
    return Value::integer(V.getInt());
  if (V.isFloat()) {
    double D = std::trunc(V.getNumber());
    if (!std::isfinite(D) || std::fabs(D) >= 9.2e18) {
      I.error(A.range(0), diag::err_int_overflow);
      return Value::poison();
    }
    return Value::integer(int64_t(D));
  }
  int64_t N;
  if (V.isStr() && !llvm::StringRef(V.getStr()).trim().getAsInteger(10, N))
    return Value::integer(N);
  return runtimeConversion(I, A, DType::Int32, "int");
}

Value sema::pyFloat(Interp &I, BoundArgs &A) {
  const Value &V = A[0];
  if (V.isNumber())
    return Value::real(V.getNumber());
  if (V.isStr()) {
    // lower() returns a std::string: keep it alive while S is used.
    std::string Lower = llvm::StringRef(V.getStr()).trim().lower();
    llvm::StringRef S = Lower;
    if (S == "inf" || S == "+inf" || S == "infinity")
      return Value::real(HUGE_VAL);
    if (S == "-inf" || S == "-infinity")
      return Value::real(-HUGE_VAL);
    if (S == "nan")
      return Value::real(std::nan(""));
    double D;
    if (!S.getAsDouble(D))
      return Value::real(D);
  }
  return runtimeConversion(I, A, DType::Float32, "float");
}

Value sema::pyBool(Interp &I, BoundArgs &A) {
  auto T = I.truthy(A[0], A.range(0));
  return T ? Value::boolean(*T) : Value::poison();
}

Value sema::pyStr(Interp &I, BoundArgs &A) {
  return Value::str(A[0].isStr() ? A[0].getStr() : repr(A[0]));
}

Value sema::pyPrint(Interp &I, BoundArgs &A) { return Value::none(); }

Value sema::pyTuple(Interp &I, BoundArgs &A) {
  auto Items = I.iterate(A[0], A.range(0));
  return Items ? Value::tuple(std::move(*Items)) : Value::poison();
}

Value sema::pyList(Interp &I, BoundArgs &A) {
  auto Items = I.iterate(A[0], A.range(0));
  return Items ? Value::list(std::move(*Items)) : Value::poison();
}

/// dict(mapping_or_pairs, **kwargs)
Value sema::pyDict(Interp &I, BoundArgs &A) {
  auto D = std::make_shared<DictData>();
  if (A[0].isDict()) {
    for (auto &[K, V] : A[0].getDict().Items)
      D->set(K, V);
  } else if (!A[0].isNone()) {
    auto Items = I.iterate(A[0], A.range(0));
    if (!Items)
      return Value::poison();
    for (const Value &P : *Items) {
      if (!P.isSequence() || P.elts().size() != 2) {
        typeError(I, A.range(0), "dict() item", "a (key, value) pair", P);
        return Value::poison();
      }
      D->set(P.elts()[0], P.elts()[1]);
    }
  }
  for (auto &[K, V] : A.Extra)
    D->set(Value::str(K), V);
  return Value::dict(std::move(D));
}

/// itertools.product(*iterables, repeat=1), as a list of tuples.
Value sema::itProduct(Interp &I, BoundArgs &A) {
  auto Repeat = I.constInt(A[0], A.range(0), "repeat");
  if (!Repeat)
    return Value::poison();
  std::vector<std::vector<Value>> Pools;
  for (int64_t R = 0; R < *Repeat; ++R)
    for (size_t K = 0; K < A.Rest.size(); ++K) {
      auto Items = I.iterate(A.Rest[K], A.RestRanges[K]);
      if (!Items)
        return Value::poison();
      Pools.push_back(std::move(*Items));
    }
  std::vector<std::vector<Value>> Rows{{}};
  for (const auto &Pool : Pools) {
    std::vector<std::vector<Value>> Next;
    for (const auto &Row : Rows)
      for (const Value &V : Pool) {
        if (Next.size() >= I.Opts.MaxLoopIterations) {
          I.fatal(A.range(0), diag::err_loop_limit) << I.Opts.MaxLoopIterations;
          return Value::poison();
        }
        Next.push_back(Row);
        Next.back().push_back(V);
      }
    Rows = std::move(Next);
  }
  std::vector<Value> Out;
  for (auto &Row : Rows)
    Out.push_back(Value::tuple(std::move(Row)));
  return Value::list(std::move(Out));
}

Value sema::pyEnumerate(Interp &I, BoundArgs &A) {
  auto Items = I.iterate(A[0], A.range(0));
  auto Start = I.constInt(A[1], A.range(1), "start");
  if (!Items || !Start)
    return Value::poison();
  std::vector<Value> Out;
  for (size_t K = 0; K < Items->size(); ++K)
    Out.push_back(
        Value::tuple({Value::integer(*Start + int64_t(K)), (*Items)[K]}));
  return Value::list(std::move(Out));
}

Value sema::pyZip(Interp &I, BoundArgs &A) {
  std::vector<std::vector<Value>> Lists;
  size_t Len = SIZE_MAX;
  for (size_t K = 0; K < A.Rest.size(); ++K) {
    auto Items = I.iterate(A.Rest[K], A.RestRanges[K]);
    if (!Items)
      return Value::poison();
    Len = std::min(Len, Items->size());
    Lists.push_back(std::move(*Items));
  }
  std::vector<Value> Out;
  for (size_t K = 0; !Lists.empty() && K < Len; ++K) {
    std::vector<Value> Row;
    for (auto &L : Lists)
      Row.push_back(L[K]);
    Out.push_back(Value::tuple(std::move(Row)));
  }
  return Value::list(std::move(Out));
}

/// itertools.accumulate(iterable, func=None, *, initial=None): the running
/// totals (or running results of func), as a list.
Value sema::itAccumulate(Interp &I, BoundArgs &A) {
  auto Items = I.iterate(A[0], A.range(0));
  if (!Items)
    return Value::poison();
  std::vector<Value> Out;
  if (!A[2].isNone())
    Out.push_back(A[2]);
  for (const Value &V : *Items) {
    if (Out.empty()) {
      Out.push_back(V);
      continue;
    }
    Value Acc;
    if (A[1].isNone()) {
      Acc = I.binary(ast::BinaryOp::Add, Out.back(), V, A.range(0), A.range(0),
                     A.CallRange);
    } else {
      CallArgs Args;
      Args.Pos = {Out.back(), V};
      Args.PosRanges = {A.range(0), A.range(0)};
      Acc = I.call(A[1], Args, A.CallRange, A.range(1));
    }
    if (Acc.isPoison())
      return Acc;
    Out.push_back(std::move(Acc));
  }
  return Value::list(std::move(Out));
}

/// Folds the iterable A[0] with \p Op, starting from A[1] (sum, math.prod).
static Value foldIterable(Interp &I, BoundArgs &A, ast::BinaryOp Op) {
  auto Items = I.iterate(A[0], A.range(0));
  if (!Items)
    return Value::poison();
  Value Acc = A[1];
  for (const Value &V : *Items) {
    Acc = I.binary(Op, Acc, V, A.range(1), A.range(0), A.CallRange);
    if (Acc.isPoison())
      return Acc;
  }
  return Acc;
}

Value sema::pySum(Interp &I, BoundArgs &A) {
  return foldIterable(I, A, ast::BinaryOp::Add);
}

static Value anyAll(Interp &I, BoundArgs &A, bool IsAll) {
  auto Items = I.iterate(A[0], A.range(0));
  if (!Items)
    return Value::poison();
  for (const Value &V : *Items) {
    auto T = I.truthy(V, A.range(0));
    if (!T)
      return Value::poison();
    if (*T != IsAll)
      return Value::boolean(!IsAll);
  }
  return Value::boolean(IsAll);
}

Value sema::pyAny(Interp &I, BoundArgs &A) { return anyAll(I, A, false); }
Value sema::pyAll(Interp &I, BoundArgs &A) { return anyAll(I, A, true); }

static bool isInstanceOf(const Value &V, const Value &Class) {
  if (Class.isTuple()) {
    for (const Value &C : Class.elts())
      if (isInstanceOf(V, C))
        return true;
    return false;
  }
  auto *B = Class.getAs<BuiltinObj>();
  if (!B)
    return false;
  switch (BuiltinID(B->ID)) {
  case BuiltinID::PyInt:
    return V.isIntLike();
  case BuiltinID::PyFloat:
    return V.isFloat();
  case BuiltinID::PyBool:
    return V.isBool();
  case BuiltinID::PyStr:
    return V.isStr();
  case BuiltinID::PyTuple:
    return V.isTuple();
  case BuiltinID::PyList:
    return V.isList();
  case BuiltinID::PyDict:
    return V.isDict();
  default:
    return false;
  }
}

Value sema::pyIsInstance(Interp &I, BoundArgs &A) {
  return Value::boolean(isInstanceOf(A[0], A[1]));
}

Value sema::pyRound(Interp &I, BoundArgs &A) {
  if (!A[0].isNumber())
    return typeError(I, A.range(0), "round()", "a number", A[0]);
  if (A[1].isNone())
    return Value::integer(int64_t(std::nearbyint(A[0].getNumber())));
  auto N = I.constInt(A[1], A.range(1), "ndigits");
  if (!N)
    return Value::poison();
  double Scale = std::pow(10.0, double(*N));
  return Value::real(std::nearbyint(A[0].getNumber() * Scale) / Scale);
}

Value sema::pyDivmod(Interp &I, BoundArgs &A) {
  Value Q = I.binary(ast::BinaryOp::FloorDiv, A[0], A[1], A.range(0),
                     A.range(1), A.CallRange);
  Value R = I.binary(ast::BinaryOp::Mod, A[0], A[1], A.range(0), A.range(1),
                     A.CallRange);
  if (Q.isPoison() || R.isPoison())
    return Value::poison();
  return Value::tuple({Q, R});
}

Value sema::pyPow(Interp &I, BoundArgs &A) {
  return I.binary(ast::BinaryOp::Pow, A[0], A[1], A.range(0), A.range(1),
                  A.CallRange);
}

Value sema::pySorted(Interp &I, BoundArgs &A) {
  auto Items = I.iterate(A[0], A.range(0));
  auto Rev = I.constBool(A[1], A.range(1), "reverse");
  if (!Items || !Rev)
    return Value::poison();
  for (const Value &V : *Items)
    if (!V.isNumber() && !V.isStr())
      return typeError(I, A.range(0), "sorted()", "numbers or strings", V);
  std::stable_sort(Items->begin(), Items->end(),
                   [](const Value &L, const Value &R) {
                     if (L.isStr() && R.isStr())
                       return L.getStr() < R.getStr();
                     return L.getNumber() < R.getNumber();
                   });
  if (*Rev)
    std::reverse(Items->begin(), Items->end());
  return Value::list(std::move(*Items));
}

Value sema::pyReversed(Interp &I, BoundArgs &A) {
  auto Items = I.iterate(A[0], A.range(0));
  if (!Items)
    return Value::poison();
  std::reverse(Items->begin(), Items->end());
  return Value::list(std::move(*Items));
}

/// Exception(...) evaluates to its message, which `raise` reports.
Value sema::pyException(Interp &I, BoundArgs &A) {
  std::string Msg;
  for (const Value &V : A.Rest)
    Msg += (Msg.empty() ? "" : ", ") + (V.isStr() ? V.getStr() : repr(V));
  return Value::str(A.name() + (Msg.empty() ? "" : ": " + Msg));
}

//===----------------------------------------------------------------------===//
// Methods
//===----------------------------------------------------------------------===//

/// Checks the receiver kind; reports the missing attribute otherwise.
static bool receiver(Interp &I, BoundArgs &A, bool OK) {
  if (!OK)
    I.error(A.CallRange, diag::err_unknown_attribute)
        << typeName(A.self()) << llvm::StringRef(A.Spec->Name);
  return OK;
}

Value sema::mAppend(Interp &I, BoundArgs &A) {
  if (!receiver(I, A, A.self().isList()))
    return Value::poison();
  A.self().elts().push_back(A[0]);
  return Value::none();
}

Value sema::mExtend(Interp &I, BoundArgs &A) {
  if (!receiver(I, A, A.self().isList()))
    return Value::poison();
  auto Items = I.iterate(A[0], A.range(0));
  if (!Items)
    return Value::poison();
  A.self().elts().insert(A.self().elts().end(), Items->begin(), Items->end());
  return Value::none();
}

Value sema::mPop(Interp &I, BoundArgs &A) {
  if (!receiver(I, A, A.self().isList()))
    return Value::poison();
  auto &Elts = A.self().elts();
  auto K = I.constInt(A[0], A.range(0), "index");
  if (!K)
    return Value::poison();
  int64_t At = *K < 0 ? *K + int64_t(Elts.size()) : *K;
  if (At < 0 || At >= int64_t(Elts.size())) {
    I.error(A.range(0), diag::err_index_out_of_range)
        << *K << "list" << Elts.size();
    return Value::poison();
  }
  Value V = Elts[At];
  Elts.erase(Elts.begin() + At);
  return V;
}

Value sema::mInsert(Interp &I, BoundArgs &A) {
  if (!receiver(I, A, A.self().isList()))
    return Value::poison();
  auto &Elts = A.self().elts();
  auto K = I.constInt(A[0], A.range(0), "index");
  if (!K)
    return Value::poison();
  int64_t N = Elts.size();
  int64_t At = std::min(std::max<int64_t>(*K < 0 ? *K + N : *K, 0), N);
  Elts.insert(Elts.begin() + At, A[1]);
  return Value::none();
}

Value sema::mIndex(Interp &I, BoundArgs &A) {
  if (!receiver(I, A, A.self().isSequence()))
    return Value::poison();
  auto &Elts = A.self().elts();
  for (size_t K = 0; K < Elts.size(); ++K)
    if (equals(Elts[K], A[0]))
      return Value::integer(K);
  I.error(A.range(0), diag::err_key_error) << repr(A[0]);
  return Value::poison();
}

/// `shape.numel()`: torch.Size is a tuple; the product of its extents, a
/// host-only value when one is.
Value sema::mNumel(Interp &I, BoundArgs &A) {
  if (!receiver(I, A, A.self().isTuple()))
    return Value::poison();
  int64_t N = 1;
  for (const Value &V : A.self().elts()) {
    if (!V.isInt())
      return makeHostValue("shape.numel()", nullptr);
    if (llvm::MulOverflow(N, V.getInt(), N)) {
      I.error(A.CallRange, diag::err_int_overflow);
      return Value::poison();
    }
  }
  return Value::integer(N);
}

Value sema::mCount(Interp &I, BoundArgs &A) {
  if (!receiver(I, A, A.self().isSequence()))
    return Value::poison();
  int64_t N = 0;
  for (const Value &V : A.self().elts())
    N += equals(V, A[0]);
  return Value::integer(N);
}

Value sema::mGet(Interp &I, BoundArgs &A) {
  if (!receiver(I, A, A.self().isDict()))
    return Value::poison();
  for (auto &Item : A.self().getDict().Items)
    if (equals(Item.first, A[0]))
      return Item.second;
  return A[1];
}

static Value dictView(Interp &I, BoundArgs &A, int Which) {
  if (!receiver(I, A, A.self().isDict()))
    return Value::poison();
  std::vector<Value> Out;
  for (auto &[K, V] : A.self().getDict().Items)
    Out.push_back(Which == 0 ? K : Which == 1 ? V : Value::tuple({K, V}));
  return Value::list(std::move(Out));
}

Value sema::mKeys(Interp &I, BoundArgs &A) { return dictView(I, A, 0); }
Value sema::mValues(Interp &I, BoundArgs &A) { return dictView(I, A, 1); }
Value sema::mItems(Interp &I, BoundArgs &A) { return dictView(I, A, 2); }

Value sema::mSplit(Interp &I, BoundArgs &A) {
  if (!receiver(I, A, A.self().isStr()))
    return Value::poison();
  llvm::SmallVector<llvm::StringRef, 8> Parts;
  llvm::StringRef S = A.self().getStr();
  if (A[0].isStr())
    S.split(Parts, A[0].getStr());
  else
    S.split(Parts, ' ', -1, /*KeepEmpty=*/false);
  std::vector<Value> Out;
  for (llvm::StringRef P : Parts)
    Out.push_back(Value::str(A[0].isStr() ? P.str() : P.trim().str()));
  return Value::list(std::move(Out));
}

static Value strMap(Interp &I, BoundArgs &A,
                    std::string (*Fn)(llvm::StringRef)) {
  if (!receiver(I, A, A.self().isStr()))
    return Value::poison();
  return Value::str(Fn(A.self().getStr()));
}

Value sema::mStrip(Interp &I, BoundArgs &A) {
  return strMap(I, A, [](llvm::StringRef S) { return S.trim().str(); });
}
/// str.isdigit/isalpha: a non-empty string whose every character passes.
static Value strAll(Interp &I, BoundArgs &A, bool (*Pred)(char)) {
  if (!receiver(I, A, A.self().isStr()))
    return Value::poison();
  llvm::StringRef S = A.self().getStr();
  return Value::boolean(!S.empty() && llvm::all_of(S, Pred));
}
Value sema::mIsDigit(Interp &I, BoundArgs &A) {
  return strAll(I, A, [](char C) { return llvm::isDigit(C); });
}
Value sema::mIsAlpha(Interp &I, BoundArgs &A) {
  return strAll(I, A, [](char C) { return llvm::isAlpha(C); });
}
Value sema::mReplace(Interp &I, BoundArgs &A) {
  if (!receiver(I, A, A.self().isStr()) || !A[0].isStr() || !A[1].isStr())
    return Value::poison();
  std::string Out;
  llvm::StringRef S = A.self().getStr(), Old = A[0].getStr();
  while (!Old.empty()) {
    size_t At = S.find(Old);
    if (At == llvm::StringRef::npos)
      break;
    Out += S.substr(0, At).str() + A[1].getStr();
    S = S.substr(At + Old.size());
  }
  return Value::str(Out + S.str());
}
Value sema::mUpper(Interp &I, BoundArgs &A) {
  return strMap(I, A, [](llvm::StringRef S) { return S.upper(); });
}
Value sema::mLower(Interp &I, BoundArgs &A) {
  return strMap(I, A, [](llvm::StringRef S) { return S.lower(); });
}

Value sema::mJoin(Interp &I, BoundArgs &A) {
  if (!receiver(I, A, A.self().isStr()))
    return Value::poison();
  auto Items = I.iterate(A[0], A.range(0));
  if (!Items)
    return Value::poison();
  std::string Out;
  for (size_t K = 0; K < Items->size(); ++K) {
    if (!(*Items)[K].isStr())
      return typeError(I, A.range(0), "str.join()", "strings", (*Items)[K]);
    Out += (K ? A.self().getStr() : "") + (*Items)[K].getStr();
  }
  return Value::str(Out);
}

Value sema::mStartsWith(Interp &I, BoundArgs &A) {
  if (!receiver(I, A, A.self().isStr()) || !A[0].isStr())
    return Value::poison();
  return Value::boolean(
      llvm::StringRef(A.self().getStr()).startswith(A[0].getStr()));
}

Value sema::mEndsWith(Interp &I, BoundArgs &A) {
  if (!receiver(I, A, A.self().isStr()) || !A[0].isStr())
    return Value::poison();
  return Value::boolean(
      llvm::StringRef(A.self().getStr()).endswith(A[0].getStr()));
}

/// str.format: only messages need it, so `{}` placeholders are filled with
/// the positional arguments in order.
Value sema::mFormat(Interp &I, BoundArgs &A) {
  if (!receiver(I, A, A.self().isStr()))
    return Value::poison();
  std::string Out;
  llvm::StringRef S = A.self().getStr();
  size_t Next = 0;
  while (!S.empty()) {
    size_t Open = S.find('{'), Close = S.find('}', Open);
    if (Open == llvm::StringRef::npos || Close == llvm::StringRef::npos) {
      Out += S.str();
      break;
    }
    Out += S.substr(0, Open).str();
    if (Next < A.Rest.size())
      Out += A.Rest[Next].isStr() ? A.Rest[Next].getStr() : repr(A.Rest[Next]);
    ++Next;
    S = S.substr(Close + 1);
  }
  return Value::str(Out);
}

Value sema::mBitLength(Interp &I, BoundArgs &A) {
  if (!receiver(I, A, A.self().isIntLike()))
    return Value::poison();
  uint64_t V = A.self().getInt() < 0 ? -uint64_t(A.self().getInt())
                                     : uint64_t(A.self().getInt());
  int64_t N = 0;
  while (V) {
    ++N;
    V >>= 1;
  }
  return Value::integer(N);
}

//===----------------------------------------------------------------------===//
// math
//===----------------------------------------------------------------------===//

static std::optional<double> number(Interp &I, BoundArgs &A, unsigned K) {
  if (A[K].isNumber())
    return A[K].getNumber();
  if (isRuntimeLike(A[K]))
    I.reportNotCompileTime(A[K], A.range(K), "the argument of " + A.name());
  else
    typeError(I, A.range(K), "argument of " + A.name(), "a number", A[K]);
  return std::nullopt;
}

Value sema::mathUnary(Interp &I, BoundArgs &A) {
  auto X = number(I, A, 0);
  if (!X)
    return Value::poison();
  llvm::StringRef Fn = A.Spec->Name;
  if ((Fn.startswith("log") && *X <= 0) || (Fn == "sqrt" && *X < 0)) {
    I.error(A.range(0), diag::err_math_domain) << A.name();
    return Value::poison();
  }
  double R = Fn == "sqrt"    ? std::sqrt(*X)
             : Fn == "log2"  ? std::log2(*X)
             : Fn == "log10" ? std::log10(*X)
                             : std::exp(*X);
  return Value::real(R);
}

Value sema::mathLog(Interp &I, BoundArgs &A) {
  auto X = number(I, A, 0);
  if (!X)
    return Value::poison();
  if (*X <= 0) {
    I.error(A.range(0), diag::err_math_domain) << A.name();
    return Value::poison();
  }
  if (A[1].isNone())
    return Value::real(std::log(*X));
  auto Base = number(I, A, 1);
  if (!Base)
    return Value::poison();
  return Value::real(std::log(*X) / std::log(*Base));
}

Value sema::mathRound(Interp &I, BoundArgs &A) {
  if (A[0].isIntLike())
    return Value::integer(A[0].getInt());
  auto X = number(I, A, 0);
  if (!X)
    return Value::poison();
  llvm::StringRef Fn = A.Spec->Name;
  double R = Fn == "ceil"    ? std::ceil(*X)
             : Fn == "floor" ? std::floor(*X)
                             : std::trunc(*X);
  if (!std::isfinite(R) || std::fabs(R) >= 9.2e18) {
    I.error(A.range(0), diag::err_int_overflow);
    return Value::poison();
  }
  return Value::integer(int64_t(R));
}

Value sema::mathPow(Interp &I, BoundArgs &A) {
  auto X = number(I, A, 0), Y = number(I, A, 1);
  if (!X || !Y)
    return Value::poison();
  return Value::real(std::pow(*X, *Y));
}

Value sema::mathIsqrt(Interp &I, BoundArgs &A) {
  auto N = I.constInt(A[0], A.range(0), "math.isqrt argument");
  if (!N)
    return Value::poison();
  if (*N < 0) {
    I.error(A.range(0), diag::err_math_domain) << A.name();
    return Value::poison();
  }
  int64_t R = int64_t(std::sqrt(double(*N)));
  while (R * R > *N)
    --R;
  while ((R + 1) * (R + 1) <= *N)
    ++R;
  return Value::integer(R);
}

Value sema::mathGcd(Interp &I, BoundArgs &A) {
  int64_t G = 0;
  for (size_t K = 0; K < A.Rest.size(); ++K) {
    auto N = I.constInt(A.Rest[K], A.RestRanges[K], "math.gcd argument");
    if (!N)
      return Value::poison();
    G = std::gcd(G, *N);
  }
  return Value::integer(G);
}

Value sema::mathProd(Interp &I, BoundArgs &A) {
  return foldIterable(I, A, ast::BinaryOp::Mul);
}
