//===- Builtins.cpp - Builtin table, binder and namespaces ----------------===//
//
// Parses the signatures of Builtins.def once, binds call arguments to them,
// dispatches to the handlers and resolves members of the namespaces
// (T, tilelang, tilelang.layout, math, T.GemmWarpPolicy).
//
//===----------------------------------------------------------------------===//

#include "Builtins.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSwitch.h"
#include <cmath>
#include <cstring>
#include <limits>

using namespace tilec;
using namespace tilec::sema;

namespace {
struct RawSpec {
  BuiltinID ID;
  BuiltinNS NS;
  const char *Name;
  const char *Sig;
  BuiltinHandler Handler;
  unsigned Flags;
};

const RawSpec RawSpecs[] = {
#define BUILTIN(ID, NS, Name, Sig, Handler, Flags)                             \
  {BuiltinID::ID, BuiltinNS::NS, Name, Sig, Handler, Flags},
#include "Builtins.def"
};

/// Reads a default written in a signature: None, True, False, a number or a
/// quoted string.
Value parseDefault(llvm::StringRef S) {
  S = S.trim();
  if (S == "None")
    return Value::none();
  if (S == "True" || S == "False")
    return Value::boolean(S == "True");
  if (S == "()")
    return Value::tuple({});
  if (S.size() >= 2 && (S.front() == '\'' || S.front() == '"'))
    return Value::str(S.substr(1, S.size() - 2).str());
  int64_t I;
  if (!S.getAsInteger(10, I))
    return Value::integer(I);
  double D = 0;
  bool Failed = S.getAsDouble(D);
  assert(!Failed && "bad default in Builtins.def");
  (void)Failed;
  return Value::real(D);
}

llvm::StringRef nsPrefix(BuiltinNS NS) {
  switch (NS) {
  case BuiltinNS::T:
    return "T.";
  case BuiltinNS::TL:
    return "tilelang.";
  case BuiltinNS::Layout:
    return "tilelang.layout.";
  case BuiltinNS::Math:
    return "math.";
  case BuiltinNS::Itertools:
    return "itertools.";
  case BuiltinNS::Tir:
    return "tvm.tir.";
  case BuiltinNS::Py:
  case BuiltinNS::Method:
    return "";
  }
  return "";
}

BuiltinSpec parseSpec(const RawSpec &R) {
  BuiltinSpec S{
      R.ID, R.NS,  R.Name, R.Handler, R.Flags,
      {},   false, 0,      false,     (nsPrefix(R.NS) + R.Name).str()};
  llvm::SmallVector<llvm::StringRef, 8> Parts;
  llvm::StringRef(R.Sig).split(Parts, ',', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef P : Parts) {
    P = P.trim();
    if (P.startswith("**")) {
      S.HasKwArgs = true;
      continue;
    }
    if (P.startswith("*")) {
      S.HasVarArgs = true;
      S.VarArgsPos = S.Params.size();
      continue;
    }
    ParamSpec PS;
    auto [Name, Default] = P.split('=');
    PS.Name = Name.trim().str();
    PS.HasDefault = P.contains('=');
    if (PS.HasDefault)
      PS.Default = parseDefault(Default);
    S.Params.push_back(std::move(PS));
  }
  if (!S.HasVarArgs)
    S.VarArgsPos = S.Params.size();
  return S;
}

const std::vector<BuiltinSpec> &specs() {
  static const std::vector<BuiltinSpec> Table = [] {
    std::vector<BuiltinSpec> T;
    for (const RawSpec &R : RawSpecs)
      T.push_back(parseSpec(R));
    return T;
  }();
  return Table;
}

int findParam(const BuiltinSpec &S, llvm::StringRef Name) {
  for (size_t I = 0; I < S.Params.size(); ++I)
    if (S.Params[I].Name == Name)
      return int(I);
  return -1;
}
} // namespace

const BuiltinSpec &sema::builtinSpec(BuiltinID ID) {
  return specs()[unsigned(ID)];
}

std::optional<BuiltinID> sema::findBuiltin(BuiltinNS NS, llvm::StringRef Name) {
  for (const BuiltinSpec &S : specs())
    if (S.NS == NS && Name == S.Name)
      return S.ID;
  return std::nullopt;
}

Value sema::makeBuiltin(BuiltinID ID, Value Self) {
  return Value::object(
      std::make_shared<BuiltinObj>(unsigned(ID), std::move(Self)));
}

//===----------------------------------------------------------------------===//
// Binder
//===----------------------------------------------------------------------===//

static bool bindPositional(Interp &I, const BuiltinSpec &S, CallArgs &Args,
                           BoundArgs &Out) {
  for (size_t P = 0; P < Args.Pos.size(); ++P) {
    if (P < S.VarArgsPos) {
      Out.Vals[P] = std::move(Args.Pos[P]);
      Out.Ranges[P] = Args.PosRanges[P];
      Out.Given[P] = true;
      continue;
    }
    if (S.HasVarArgs) {
      Out.Rest.push_back(std::move(Args.Pos[P]));
      Out.RestRanges.push_back(Args.PosRanges[P]);
      continue;
    }
    I.error(Args.PosRanges[P], diag::err_too_many_args)
        << S.DisplayName << S.VarArgsPos << Args.Pos.size();
    return false;
  }
  return true;
}

static bool bindKeywords(Interp &I, const BuiltinSpec &S, CallArgs &Args,
                         BoundArgs &Out) {
  for (size_t K = 0; K < Args.Kw.size(); ++K) {
    auto &[Name, V] = Args.Kw[K];
    int P = findParam(S, Name);
    if (P < 0) {
      if (S.HasKwArgs) {
        Out.Extra.emplace_back(Name, std::move(V));
        continue;
      }
      I.error(Args.KwRanges[K], diag::err_unknown_keyword)
          << S.DisplayName << Name;
      return false;
    }
    if (Out.Given[P]) {
      I.error(Args.KwRanges[K], diag::err_duplicate_argument)
          << S.DisplayName << Name;
      return false;
    }
    Out.Vals[P] = std::move(V);
    Out.Ranges[P] = Args.KwRanges[K];
    Out.Given[P] = true;
  }
  return true;
}

/// Maps Args onto S; reports arity and keyword errors.
static bool bind(Interp &I, const BuiltinSpec &S, CallArgs &Args,
                 BoundArgs &Out) {
  size_t N = S.Params.size();
  Out.Spec = &S;
  Out.Vals.resize(N);
  Out.Ranges.resize(N, Out.CallRange);
  Out.Given.resize(N, false);
  for (size_t P = 0; P < N; ++P)
    Out.Vals[P] = S.Params[P].Default;
  if (!bindPositional(I, S, Args, Out) || !bindKeywords(I, S, Args, Out))
    return false;
  bool OK = true;
  for (size_t P = 0; P < N; ++P) {
    if (Out.Given[P] || S.Params[P].HasDefault)
      continue;
    I.error(Out.CallRange, diag::err_missing_argument)
        << S.DisplayName << S.Params[P].Name;
    OK = false;
  }
  return OK;
}

static bool anyPoison(const BoundArgs &A) {
  for (const Value &V : A.Vals)
    if (V.isPoison())
      return true;
  for (const Value &V : A.Rest)
    if (V.isPoison())
      return true;
  return false;
}

Value Interp::callBuiltin(const BuiltinObj &BO, CallArgs &Args,
                          llvm::SMRange CallRange) {
  const BuiltinSpec &S = builtinSpec(BO);
  BoundArgs A;
  A.Callee = &BO;
  A.CallRange = CallRange;
  if (!bind(*this, S, Args, A) || anyPoison(A))
    return Value::poison();
  if ((S.Flags & NeedsKernel) && !inKernel()) {
    error(CallRange, diag::err_tile_op_outside_kernel) << S.Name;
    return Value::poison();
  }
  if ((S.Flags & NotInRole) && RoleDepth) {
    error(CallRange, diag::err_tile_op_in_role_block)
        << S.Name << "its lowering synchronizes all threads of the block";
    return Value::poison();
  }
  if ((S.Flags & InRoleRange) && !RolesWithoutRange.empty()) {
    error(CallRange, diag::err_tile_op_in_role_block)
        << S.Name
        << "tile operators need the role's threads to be one contiguous "
           "range, but " +
               RolesWithoutRange.back();
    return Value::poison();
  }
  // Func-level builtins (T.alloc_global) must not point users into a kernel.
  if ((S.Flags & NeedsIR) && !hasIR()) {
    error(CallRange, diag::err_ir_op_outside_func) << S.Name;
    return Value::poison();
  }
  return S.Handler(*this, A);
}

//===----------------------------------------------------------------------===//
// Namespaces
//===----------------------------------------------------------------------===//

/// TileLang names tilec knows but does not implement yet.
static bool isUnsupportedTileLangName(llvm::StringRef Name) {
  static const char *const Names[] = {"sync_warp",
                                      "print",
                                      "device_assert",
                                      "alloc_tmem",
                                      "alloc_descriptor",
                                      "ClusterKernel",
                                      "CUDASourceCodeKernel",
                                      "async_copy",
                                      "transpose",
                                      "tcgen05_gemm",
                                      "gemm_sp",
                                      "reduce_bitand",
                                      "reduce_bitor",
                                      "reduce_bitxor",
                                      "cummax",
                                      "warp_reduce_sum",
                                      "warp_reduce_max",
                                      "warp_reduce_min",
                                      "atomic_or",
                                      "atomic_load",
                                      "atomic_store",
                                      "shfl_sync",
                                      "shfl_xor",
                                      "shfl_up",
                                      "shfl_down",
                                      "get_thread_extent",
                                      "annotate_safe_value",
                                      "loop_break",
                                      "any_of",
                                      "all_of",
                                      "dp4a",
                                      "call_intrin",
                                      "reducer_init",
                                      "reducer_update",
                                      "get_lane_idx",
                                      "get_warp_idx",
                                      "ldg32",
                                      "ldg64",
                                      "ldg128",
                                      "stg32",
                                      "stg64",
                                      "stg128",
                                      "ieee_add",
                                      "ieee_mul",
                                      "fast_rcp",
                                      "__exp",
                                      "__log",
                                      "__log2",
                                      "__sin",
                                      "__cos",
                                      "handle",
                                      "float16x2",
                                      "float32x4"};
  for (const char *N : Names)
    if (Name == N)
      return true;
  return false;
}

static Value languageMember(Interp &I, llvm::StringRef Name, llvm::SMRange R,
                            bool Silent) {
  if (auto ID = findBuiltin(BuiltinNS::T, Name))
    return makeBuiltin(*ID);
  if (auto DT = parseTileLangDType(Name))
    return Value::dtype(*DT);
  // TileLang's pointer type: a 64-bit address (a table of tensors'
  // data_ptr()s), read by T.make_tensor.
  if (Name == "ptr")
    return Value::dtype(DType::UInt64);
  if (Name == "GemmWarpPolicy")
    return Value::object(std::make_shared<NamespaceObj>(
        NamespaceObj::NS::Policy, "T.GemmWarpPolicy"));
  if (Name == "dtype" || Name == "Var" || Name == "PrimExpr")
    return Value::object(std::make_shared<OpaqueObj>("T." + Name.str()));
  if (auto ID = findBuiltin(BuiltinNS::Layout, Name))
    return makeBuiltin(*ID);
  if (Silent)
    return Value::object(std::make_shared<OpaqueObj>("T." + Name.str()));
  if (isUnsupportedTileLangName(Name)) {
    I.error(R, diag::err_feature_unsupported) << "'T." + Name.str() + "'";
    return Value::poison();
  }
  I.error(R, diag::err_unknown_t_function) << Name;
  return Value::poison();
}

static Value tilelangMember(llvm::StringRef Name) {
  if (Name == "language")
    return Value::object(std::make_shared<NamespaceObj>(
        NamespaceObj::NS::Language, "tilelang.language"));
  if (Name == "layout")
    return Value::object(std::make_shared<NamespaceObj>(
        NamespaceObj::NS::Layout, "tilelang.layout"));
  // tilelang.math holds integer helpers (next_power_of_2, cdiv); they are
  // members of tilelang itself here.
  if (Name == "math")
    return Value::object(
        std::make_shared<NamespaceObj>(NamespaceObj::NS::TileLang, "tilelang"));
  if (auto ID = findBuiltin(BuiltinNS::TL, Name))
    return makeBuiltin(*ID);
  if (Name == "PassConfigKey")
    return Value::object(std::make_shared<NamespaceObj>(
        NamespaceObj::NS::PassConfigKey, "tilelang.PassConfigKey"));
  // `from tilelang import tvm` is TVM itself (tvm.tir, tvm.tirx).
  if (Name == "tvm")
    return Value::object(std::make_shared<OpaqueObj>("tvm"));
  return Value::object(std::make_shared<OpaqueObj>("tilelang." + Name.str()));
}

/// tilelang.PassConfigKey.TL_NAME is the string key "tl.name" (TIR_NAME:
/// "tir.name"), as TileLang's string enum spells its members.
static Value passConfigKey(const NamespaceObj &NS, llvm::StringRef Name) {
  for (auto [Prefix, Key] : {std::pair{"TL_", "tl."}, {"TIR_", "tir."}})
    if (Name.startswith(Prefix))
      return Value::str(Key + Name.drop_front(strlen(Prefix)).lower());
  return Value::object(std::make_shared<OpaqueObj>(NS.Path + "." + Name.str()));
}

static Value mathMember(Interp &I, llvm::StringRef Name, llvm::SMRange R,
                        bool Silent) {
  if (auto ID = findBuiltin(BuiltinNS::Math, Name))
    return makeBuiltin(*ID);
  if (Name == "pi")
    return Value::real(M_PI);
  if (Name == "e")
    return Value::real(M_E);
  if (Name == "tau")
    return Value::real(2 * M_PI);
  if (Name == "inf")
    return Value::real(std::numeric_limits<double>::infinity());
  if (Name == "nan")
    return Value::real(std::numeric_limits<double>::quiet_NaN());
  if (Silent)
    return Value::object(std::make_shared<OpaqueObj>("math." + Name.str()));
  I.error(R, diag::err_unknown_attribute) << "math" << Name;
  return Value::poison();
}

Value Interp::namespaceMember(const NamespaceObj &NS, llvm::StringRef Name,
                              llvm::SMRange R, bool Silent) {
  switch (NS.Which) {
  case NamespaceObj::NS::Language:
    return languageMember(*this, Name, R, Silent);
  case NamespaceObj::NS::TileLang:
    return tilelangMember(Name);
  case NamespaceObj::NS::Layout:
    if (auto ID = findBuiltin(BuiltinNS::Layout, Name))
      return makeBuiltin(*ID);
    if (Name == "Layout" || Name == "Fragment")
      return makeBuiltin(*findBuiltin(BuiltinNS::T, Name));
    return Value::object(
        std::make_shared<OpaqueObj>("tilelang.layout." + Name.str()));
  case NamespaceObj::NS::Math:
    return mathMember(*this, Name, R, Silent);
  case NamespaceObj::NS::Itertools:
    if (auto ID = findBuiltin(BuiltinNS::Itertools, Name))
      return makeBuiltin(*ID);
    break;
  case NamespaceObj::NS::Policy:
    if (Name == "Square" || Name == "FullRow" || Name == "FullCol")
      return Value::object(std::make_shared<PolicyObj>(Name.str()));
    error(R, diag::err_bad_policy) << Name;
    return Value::poison();
  case NamespaceObj::NS::PassConfigKey:
    return passConfigKey(NS, Name);
  case NamespaceObj::NS::Other:
    break;
  }
  return Value::object(std::make_shared<OpaqueObj>(NS.Path + "." + Name.str()));
}
