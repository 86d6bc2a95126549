//===- Launcher.cpp - The extern "C" host launcher of a func --------------===//

#include "Launcher.h"
#include "Dialect.h"
#include "ExprEmitter.h"
#include "Inlining.h"
#include "KernelEmitter.h"
#include "NameTable.h"
#include "Outputs.h"
#include "tilec/IR/ConstantMatch.h"
#include <cctype>
#include <fmt/format.h>
#include <map>

using namespace tilec;
using namespace tilec::codegen;
using namespace tilec::ir;

namespace {

/// C type of a scalar launcher argument (C-compatible: no half types).
std::string hostScalarType(DType T) {
  if (T == DType::Bool)
    return "int";
  if (isFloat(T))
    return T == DType::Float64 ? "double" : "float";
  if (T == DType::Int32)
    return "int32_t";
  return cTypeOf(T, cudaDialect());
}

/// The host-side value of a scalar launcher argument. Host integer
/// arithmetic is done in int64_t (ExprEmitter::setWideIntegers), so
/// symbols stay int64_t and int32 scalars are widened.
Expr hostArgValue(const LauncherArg &A, ExprEmitter &E, const Operation &Ctx) {
  Expr Name = {A.Name, PrecPostfix};
  if (A.K == LauncherArg::Kind::Symbol)
    return Name;
  DType T = A.V->getType().getDType();
  if (T == DType::Int32)
    return {"(int64_t)" + A.Name, PrecUnary};
  if (T == DType::Bool)
    return {A.Name + " != 0", PrecEquality};
  if (isNarrowFloat(T))
    return E.fromFloat(Name, T, Ctx);
  return Name;
}

const char *const InvalidArgument = "return TILEC_ERROR_INVALID_ARGUMENT;";

/// The CUtensorMapDataType of a TMA element: the float types by name, the
/// other types as unsigned integers of their width (a box only moves bits;
/// its zero fill is zero in every type).
const char *tmaDataType(DType T) {
  switch (T) {
  case DType::Float16:
    return "CU_TENSOR_MAP_DATA_TYPE_FLOAT16";
  case DType::BFloat16:
    return "CU_TENSOR_MAP_DATA_TYPE_BFLOAT16";
  case DType::Float32:
    return "CU_TENSOR_MAP_DATA_TYPE_FLOAT32";
  case DType::Float64:
    return "CU_TENSOR_MAP_DATA_TYPE_FLOAT64";
  default:
    break;
  }
  switch (bitWidth(T)) {
  case 16:
    return "CU_TENSOR_MAP_DATA_TYPE_UINT16";
  case 32:
    return "CU_TENSOR_MAP_DATA_TYPE_UINT32";
  case 64:
    return "CU_TENSOR_MAP_DATA_TYPE_UINT64";
  default:
    return "CU_TENSOR_MAP_DATA_TYPE_UINT8";
  }
}

class LauncherEmitter {
public:
  LauncherEmitter(const FuncPlan &Plan, DiagnosticEngine &Diags,
                  std::set<DType> &UsedTypes, CodeWriter &W)
      : Plan(Plan), W(W), E(Diags, /*Device=*/false, UsedTypes, *Plan.Dial),
        Args(launcherArgs(Plan)) {
    E.setWideIntegers(true);
  }

  bool run() {
    Inline.run(Plan.Func->getBody(), /*SkipKernels=*/true);
    for (const LauncherArg &A : Args)
      Names.reserve(A.Name);
    Names.reserve("stream");
    W.open("extern \"C\" " + launcherPrototype(Plan));
    emitChecks();
    // Host values are pure scalar ops: computing all of them first lets
    // every grid be checked before the first kernel is launched, and before
    // the workspace is allocated (so no check has anything to free).
    for (const Operation &Op : Plan.Func->getBody())
      if (Op.is(OpKind::Check))
        emitCheck(Op);
      else if (!Op.is(OpKind::Kernel) && !isWorkspace(Op))
        emitHostValue(Op);
    // After the program's own checks: an assumption of the compiler may
    // follow from an assert (S % 64 == 0 gives S % 8 == 0), and the
    // assert's status says more.
    for (const std::string &Assume : Plan.Assumes)
      W.line(fmt::format("if (!({})) {}", Assume, InvalidArgument));
    for (const KernelPlan &K : Plan.Kernels)
      emitGridChecks(K);
    for (const KernelPlan &K : Plan.Kernels)
      if (K.Cooperative)
        emitResidencyCheck(K);
    emitWorkspace();
    for (const KernelPlan &K : Plan.Kernels)
      emitLaunch(K);
    if (!WorkspacePtr.empty())
      W.line(fmt::format("if ({}({}, stream) != {}) {}", D.FreeAsync,
                         WorkspacePtr, D.Success,
                         "return TILEC_ERROR_LAUNCH_FAILED;"));
    W.line("return TILEC_SUCCESS;");
    W.close();
    return !E.failed();
  }

private:
  void emitChecks();
  void emitWorkspace();
  /// `return Status;`, freeing the workspace first when there is one (the
  /// free's own status is dropped: Status already reports the failure, and
  /// hipFreeAsync's result must be used explicitly).
  std::string fail(const char *Status) const {
    if (WorkspacePtr.empty())
      return fmt::format("return {};", Status);
    return fmt::format("{{ (void){}({}, stream); return {}; }}", D.FreeAsync,
                       WorkspacePtr, Status);
  }
  void emitHostValue(const Operation &Op);
  void emitCheck(const Operation &Op);
  void emitGridChecks(const KernelPlan &K);
  void emitLaunch(const KernelPlan &K);
  void emitCooperativeLaunch(const KernelPlan &K);
  void emitDependentLaunch(const KernelPlan &K,
                           const std::vector<std::string> &Params);
  void emitResidencyCheck(const KernelPlan &K);
  void emitSharedMemoryLimit(const KernelPlan &K);
  std::vector<std::string> emitTensorMaps(const KernelPlan &K);

  const FuncPlan &Plan;
  CodeWriter &W;
  ExprEmitter E;
  std::vector<LauncherArg> Args;
  NameTable Names;
  Inlining Inline;
  /// The dim3 arguments of each kernel's launch.
  std::map<const Operation *, std::vector<std::string>> Grids;
  /// The checked variable of a grid extent, per value and limit.
  std::map<std::pair<const Value *, std::string>, std::string> Checked;
  const Dialect &D = *Plan.Dial;
  /// Name of the workspace pointer; empty when the func has none.
  std::string WorkspacePtr;
};

void LauncherEmitter::emitChecks() {
  for (const LauncherArg &A : Args) {
    if (A.K == LauncherArg::Kind::Buffer) {
      E.bind(A.V, {A.Name, PrecPostfix});
      W.line(fmt::format("if ({} == NULL) {}", A.Name, InvalidArgument));
      auto It = Plan.Access.find(A.V);
      if (It != Plan.Access.end() && It->second.VectorBytes > 1)
        W.line(fmt::format("if ((uintptr_t){} % {} != 0) {}", A.Name,
                           It->second.VectorBytes, InvalidArgument));
      continue;
    }
    if (A.K == LauncherArg::Kind::Symbol)
      W.line(fmt::format("if ({0} <= 0 || {0} > INT32_MAX) {1}", A.Name,
                         InvalidArgument));
    E.bind(A.V, hostArgValue(A, E, *Plan.Func));
  }
  for (size_t I = 0; I != Plan.Symbols.size(); ++I)
    E.bindSymbol(Plan.Symbols[I], E.get(Plan.SymbolArgs[I]));
}

void LauncherEmitter::emitHostValue(const Operation &Op) {
  const Value *V = Op.getResult();
  if (Inline.isDead(V))
    return;
  Expr Init = E.emit(Op);
  if (Inline.isInlined(V))
    return E.bind(V, Init);
  std::string Name = Names.get(V->getNameHint());
  W.line(fmt::format("const {} {} = {};",
                     E.valueTypeName(V->getType().getDType(), Op), Name,
                     Init.Text));
  E.bind(V, {Name, PrecPostfix});
}

/// A `check` op: an assert of the factory (TILEC_ERROR_ASSERTION_FAILED)
/// or a composite dim that must equal its expression
/// (TILEC_ERROR_SHAPE_MISMATCH). Checks come before any workspace is
/// allocated, so a failure has nothing to free.
void LauncherEmitter::emitCheck(const Operation &Op) {
  W.line(fmt::format("/* {} */",
                     commentText(Op.getStringAttr("message").value_or(""))));
  W.line(fmt::format("if (!({})) return {};", E.get(Op.getOperand(0)).Text,
                     checkStatus(Op)));
}

/// One cudaMallocAsync on the launch stream for every T.alloc_global buffer
/// of the func, after the argument checks so that a rejected call
/// allocates nothing; stream order makes it safe to free right after the
/// last launch.
void LauncherEmitter::emitWorkspace() {
  std::vector<Workspace> WS = workspaces(Plan);
  if (WS.empty())
    return;
  std::string Total = Names.get("workspace_bytes");
  W.line(fmt::format("size_t {} = 0;", Total));
  std::vector<std::string> Offsets;
  for (const Workspace &B : WS) {
    Offsets.push_back(Names.get(B.Name + "_offset"));
    W.line(fmt::format("const size_t {} = {};", Offsets.back(), Total));
    W.line(fmt::format("{} += {};", Total, B.Bytes));
  }
  std::string Base = Names.get("workspace");
  W.line(fmt::format("unsigned char *{} = NULL;", Base));
  W.line(fmt::format("if ({}((void **)&{}, {}, stream) != {})", D.MallocAsync,
                     Base, Total, D.Success));
  W.line("  return TILEC_ERROR_OUT_OF_MEMORY;");
  WorkspacePtr = Base;
  for (size_t I = 0; I != WS.size(); ++I) {
    std::string Name = Names.get(WS[I].Name);
    W.line(fmt::format("void *const {} = {} + {};", Name, Base, Offsets[I]));
    E.bind(WS[I].V, {Name, PrecPostfix});
  }
}

/// cudaFuncSetAttribute once per device (bit D of a static mask; devices
/// past 63 set it on every call).
void LauncherEmitter::emitSharedMemoryLimit(const KernelPlan &K) {
  W.line("static unsigned long long configured_devices = 0;");
  W.line("int device = 0;");
  W.line(fmt::format("if ({}(&device) != {}) ", D.GetDevice, D.Success) +
         fail("TILEC_ERROR_LAUNCH_FAILED"));
  W.open("if (device >= 64 || !(configured_devices >> device & 1ull))");
  W.line(fmt::format("if ({}({}{}, {}, {}) != {})", D.FuncSetAttribute,
                     D.KernelPtrCast, K.Entry, D.MaxDynamicSharedAttr,
                     K.SharedBytes, D.Success));
  W.line("  " + fail("TILEC_ERROR_UNSUPPORTED"));
  W.line("if (device < 64)");
  W.line("  configured_devices |= 1ull << device;");
  W.close();
}

/// A grid extent computed from the arguments (in int64_t) is checked
/// against CUDA's limits, so that dim3 never receives a truncated, zero
/// or negative extent. Constant extents were checked at compile time.
void LauncherEmitter::emitGridChecks(const KernelPlan &K) {
  static const char *const Axis[] = {"x", "y", "z"};
  static const char *const Limit[] = {"INT32_MAX", "65535", "65535"};
  std::vector<std::string> &Grid = Grids[K.Op];
  std::vector<std::string> Conditions;
  Grid.assign(3, "1");
  for (unsigned D = 0; D != K.Op->getNumOperands(); ++D) {
    const Value *V = K.Op->getOperand(D);
    Grid[D] = E.get(V).Text;
    if (matchConstantInt(V))
      continue;
    // y and z share a limit; a value checked against it once is fine.
    std::string &Name = Checked[{V, D == 0 ? Limit[0] : Limit[1]}];
    if (Name.empty()) {
      Name = Names.get(std::string("grid_") + Axis[D]);
      W.line(fmt::format("const int64_t {} = {};", Name, Grid[D]));
      Conditions.push_back(fmt::format("{0} < 1 || {0} > {1}", Name, Limit[D]));
    }
    Grid[D] = Name;
  }
  if (!Conditions.empty())
    W.line(fmt::format("if ({}) return TILEC_ERROR_INVALID_GRID;",
                       fmt::join(Conditions, " || ")));
}

/// A grid barrier needs every block of the grid resident at once: the
/// device must support cooperative launches, and the grid must not exceed
/// the blocks per SM the occupancy calculator allows (with the kernel's
/// threads and dynamic shared memory, set first) times the SM count.
/// Checked with the other grid checks, before anything is launched.
void LauncherEmitter::emitResidencyCheck(const KernelPlan &K) {
  const std::vector<std::string> &Grid = Grids[K.Op];
  W.open("");
  if (K.SharedBytes > 48 * 1024) {
    emitSharedMemoryLimit(K);
  } else {
    W.line("int device = 0;");
    W.line(fmt::format("if ({}(&device) != {}) ", D.GetDevice, D.Success) +
           fail("TILEC_ERROR_LAUNCH_FAILED"));
  }
  W.line("int cooperative = 0, sm_count = 0, blocks_per_sm = 0;");
  W.line(fmt::format("if ({}(&cooperative, {}, device) != {} || !cooperative)",
                     D.DeviceGetAttribute, D.CooperativeLaunchAttr, D.Success));
  W.line("  " + fail("TILEC_ERROR_UNSUPPORTED"));
  W.line(fmt::format("if ({}(&sm_count, {}, device) != {} ||",
                     D.DeviceGetAttribute, D.MultiProcessorCountAttr,
                     D.Success));
  W.line(fmt::format("    {}(&blocks_per_sm, {}, {}, {}) != {})",
                     D.MaxActiveBlocksPerSM, K.Entry, K.numThreads(),
                     K.SharedBytes, D.Success));
  W.line("  " + fail("TILEC_ERROR_LAUNCH_FAILED"));
  W.line(fmt::format("if ((int64_t)blocks_per_sm * sm_count < (int64_t){} * "
                     "{} * {})",
                     Grid[0], Grid[1], Grid[2]));
  W.line("  " + fail("TILEC_ERROR_COOPERATIVE_GRID"));
  W.close();
}

/// cudaLaunchCooperativeKernel takes the kernel's arguments as an array of
/// pointers to values of the parameters' exact types.
void LauncherEmitter::emitCooperativeLaunch(const KernelPlan &K) {
  const std::vector<std::string> &Grid = Grids[K.Op];
  NameTable Local = Names;
  std::vector<std::string> Addresses;
  for (const Value *V : K.Captures) {
    std::string Type = E.typeName(V->getType().getDType(), *K.Op);
    std::string Name = Local.get("arg_" + captureName(Plan, V));
    Expr Arg = E.get(V);
    if (V->getType().isBuffer())
      W.line(fmt::format("{0}* {1} = static_cast<{0}*>({2});", Type, Name,
                         Arg.Text));
    else
      W.line(fmt::format("{} {} = {};", Type, Name, Arg.Text));
    Addresses.push_back("&" + Name);
  }
  for (const std::string &Map : emitTensorMaps(K))
    Addresses.push_back("(void *)&" + Map);
  std::string Args = Local.get("args");
  if (Addresses.empty())
    Addresses.push_back("NULL");
  W.line(fmt::format("void *{}[] = {{{}}};", Args, fmt::join(Addresses, ", ")));
  W.line(fmt::format("if ({}((const void *){}, dim3({}), dim3({}, {}, {}), {}, "
                     "{}, stream) != {})",
                     D.LaunchCooperative, K.Entry, fmt::join(Grid, ", "),
                     K.Threads[0], K.Threads[1], K.Threads[2], Args,
                     K.SharedBytes, D.Success));
  W.line("  " + fail("TILEC_ERROR_LAUNCH_FAILED"));
}

/// One CUtensorMap per map of \p K, encoded from its buffer's pointer and
/// dims (row-major, innermost first for the driver); returns their names.
std::vector<std::string> LauncherEmitter::emitTensorMaps(const KernelPlan &K) {
  std::vector<std::string> Maps;
  for (const TmaMap &Map : K.TmaMaps) {
    const Type &T = Map.Global->getType();
    int64_t Bytes = bitWidth(T.getDType()) / 8;
    std::vector<std::string> Dims, Strides, Box;
    std::string Stride = std::to_string(Bytes);
    for (size_t D = T.rank(); D-- > 0;) {
      const Dim &Ext = T.getDims()[D];
      std::string Size = Ext.isStatic()
                             ? std::to_string(Ext.getValue())
                             : E.get(Plan.symbolArg(Ext.getSymbol())).Text;
      Dims.push_back("(cuuint64_t)" + Size);
      if (D + 1 != T.rank())
        Strides.push_back(Stride);
      Stride = fmt::format("{} * (cuuint64_t){}", Stride, Size);
      Box.push_back(std::to_string(D + 1 == T.rank()          ? Map.BoxCols
                                   : int64_t(D) == Map.RowDim ? Map.BoxRows
                                                              : 1));
    }
    Maps.push_back(Names.get("tmap_" + captureName(Plan, Map.Global)));
    std::string Swizzle =
        Map.Swizzle ? fmt::format("CU_TENSOR_MAP_SWIZZLE_{}B", Map.Swizzle)
                    : "CU_TENSOR_MAP_SWIZZLE_NONE";
    W.line("CUtensorMap " + Maps.back() + ";");
    W.open("");
    W.line(fmt::format("const cuuint64_t dims[] = {{{}}};",
                       fmt::join(Dims, ", ")));
    W.line(fmt::format("const cuuint64_t strides[] = {{{}}};",
                       fmt::join(Strides, ", ")));
    W.line(
        fmt::format("const cuuint32_t box[] = {{{}}};", fmt::join(Box, ", ")));
    W.line(fmt::format("if (!tilec::tmaEncodeTiled(&{}, {}, {}, {}, dims, "
                       "strides, box, {}))",
                       Maps.back(), tmaDataType(T.getDType()), T.rank(),
                       E.get(Map.Global).Text, Swizzle));
    W.line("  " + fail("TILEC_ERROR_LAUNCH_FAILED"));
    W.close();
  }
  return Maps;
}

void LauncherEmitter::emitLaunch(const KernelPlan &K) {
  if (K.Cooperative) {
    W.open("");
    emitCooperativeLaunch(K);
    return W.close();
  }
  const std::vector<std::string> &Grid = Grids[K.Op];
  std::vector<std::string> Params;
  for (const Value *V : K.Captures) {
    Expr Arg = E.get(V);
    if (V->getType().isBuffer())
      Arg.Text =
          fmt::format("static_cast<{}*>({})",
                      E.typeName(V->getType().getDType(), *K.Op), Arg.Text);
    Params.push_back(Arg.Text);
  }
  W.open("");
  for (std::string &Map : emitTensorMaps(K))
    Params.push_back(Map);
  if (K.SharedBytes > 48 * 1024)
    emitSharedMemoryLimit(K);
  if (K.DependentLaunch) {
    emitDependentLaunch(K, Params);
    return W.close();
  }
  W.line(fmt::format("{}<<<dim3({}), dim3({}, {}, {}), {}, stream>>>({});",
                     K.Entry, fmt::join(Grid, ", "), K.Threads[0], K.Threads[1],
                     K.Threads[2], K.SharedBytes, fmt::join(Params, ", ")));
  W.line(fmt::format("if ({}() != {})", D.GetLastError, D.Success));
  W.line("  " + fail("TILEC_ERROR_LAUNCH_FAILED"));
  W.close();
}

/// cudaLaunchKernelEx with programmatic stream serialization: the kernel
/// may be scheduled before the stream's previous kernel has finished (once
/// that one's blocks have all run griddepcontrol.launch_dependents); its
/// grid_dependency wait, first in its body, orders it after that kernel.
/// The launch API exists on CUDA only (dependent-launch runs for sm_90).
void LauncherEmitter::emitDependentLaunch(
    const KernelPlan &K, const std::vector<std::string> &Params) {
  NameTable Local = Names;
  std::string Config = Local.get("config");
  std::string Attr = Local.get("attr");
  W.line(fmt::format("cudaLaunchConfig_t {} = {{}};", Config));
  W.line(fmt::format("{}.gridDim = dim3({});", Config,
                     fmt::join(Grids[K.Op], ", ")));
  W.line(fmt::format("{}.blockDim = dim3({}, {}, {});", Config, K.Threads[0],
                     K.Threads[1], K.Threads[2]));
  W.line(fmt::format("{}.dynamicSmemBytes = {};", Config, K.SharedBytes));
  W.line(fmt::format("{}.stream = stream;", Config));
  W.line(fmt::format("cudaLaunchAttribute {};", Attr));
  W.line(fmt::format(
      "{}.id = cudaLaunchAttributeProgrammaticStreamSerialization;", Attr));
  W.line(
      fmt::format("{}.val.programmaticStreamSerializationAllowed = 1;", Attr));
  W.line(fmt::format("{}.attrs = &{};", Config, Attr));
  W.line(fmt::format("{}.numAttrs = 1;", Config));
  std::vector<std::string> Args = {"&" + Config, K.Entry};
  Args.insert(Args.end(), Params.begin(), Params.end());
  W.line(fmt::format("if (cudaLaunchKernelEx({}) != cudaSuccess)",
                     fmt::join(Args, ", ")));
  W.line("  " + fail("TILEC_ERROR_LAUNCH_FAILED"));
}

} // namespace

std::vector<LauncherArg> codegen::launcherArgs(const FuncPlan &Plan) {
  NameTable Names;
  Names.reserve("stream");
  std::vector<LauncherArg> Args;
  for (size_t I = 0; I != Plan.ParamArgs.size(); ++I) {
    const Value *V = Plan.ParamArgs[I];
    bool Buffer = V->getType().isBuffer();
    Args.push_back(
        {Buffer ? LauncherArg::Kind::Buffer : LauncherArg::Kind::Scalar, V,
         Names.get(Plan.Params[I]),
         Buffer ? "void *" : hostScalarType(V->getType().getDType())});
  }
  for (size_t I = 0; I != Plan.SymbolArgs.size(); ++I)
    Args.push_back({LauncherArg::Kind::Symbol, Plan.SymbolArgs[I],
                    Names.get(Plan.Symbols[I]), "int64_t"});
  return Args;
}

/// Bytes of a buffer of type \p T rounded up to 256 (the alignment of each
/// workspace buffer, as cudaMalloc gives): ceil(bits / 2048) * 256.
static std::string workspaceBytesOf(const Type &T, const FuncPlan &Plan,
                                    const std::vector<LauncherArg> &Args) {
  int64_t Static = bitWidth(T.getDType());
  std::string Symbolic;
  for (const Dim &D : T.getDims()) {
    if (D.isStatic()) {
      Static *= D.getValue();
      continue;
    }
    const Value *Arg = Plan.symbolArg(D.getSymbol());
    auto It =
        llvm::find_if(Args, [&](const LauncherArg &A) { return A.V == Arg; });
    Symbolic += "(size_t)" + It->Name + " * ";
  }
  if (Symbolic.empty())
    return std::to_string((Static + 2047) / 2048 * 256);
  return fmt::format("({}{} + 2047) / 2048 * 256", Symbolic, Static);
}

std::vector<Workspace> codegen::workspaces(const FuncPlan &Plan) {
  std::vector<LauncherArg> Args = launcherArgs(Plan);
  std::vector<Workspace> Out;
  for (const Operation &Op : Plan.Func->getBody())
    if (isWorkspace(Op)) {
      const Value *V = Op.getResult();
      std::string Name = V->getNameHint().empty() ? "workspace_buffer"
                                                  : V->getNameHint().str();
      Out.push_back({V, Name, workspaceBytesOf(V->getType(), Plan, Args)});
    }
  return Out;
}

std::string codegen::workspaceBytes(const FuncPlan &Plan) {
  std::vector<std::string> Parts;
  int64_t Static = 0;
  for (const Workspace &B : workspaces(Plan)) {
    if (llvm::all_of(B.Bytes, [](char C) { return std::isdigit(C); }))
      Static += std::stoll(B.Bytes);
    else
      Parts.push_back(B.Bytes);
  }
  if (Static || Parts.empty())
    Parts.push_back(std::to_string(Static));
  return fmt::format("{}", fmt::join(Parts, " + "));
}

std::string codegen::launcherPrototype(const FuncPlan &Plan) {
  std::vector<std::string> Parts;
  for (const LauncherArg &A : launcherArgs(Plan))
    Parts.push_back(A.CType + (A.CType.back() == '*' ? "" : " ") + A.Name);
  Parts.push_back(std::string(Plan.Dial->StreamType) + " stream");
  return fmt::format("int {}({})", Plan.Name, fmt::join(Parts, ", "));
}

std::vector<std::string> codegen::gridExpressions(const FuncPlan &Plan,
                                                  const KernelPlan &K,
                                                  DiagnosticEngine &Diags) {
  std::set<DType> UsedTypes;
  ExprEmitter E(Diags, /*Device=*/false, UsedTypes, *Plan.Dial);
  for (const LauncherArg &A : launcherArgs(Plan))
    E.bind(A.V, {A.Name, PrecPostfix});
  for (const Operation &Op : Plan.Func->getBody()) {
    if (&Op == K.Op)
      break;
    if (Op.getNumResults() == 1 && !isWorkspace(Op))
      E.bind(Op.getResult(), E.emit(Op));
  }
  std::vector<std::string> Grid(3, "1");
  for (unsigned I = 0; I != K.Op->getNumOperands(); ++I)
    Grid[I] = E.get(K.Op->getOperand(I)).Text;
  return Grid;
}

bool codegen::emitLauncher(const FuncPlan &Plan, DiagnosticEngine &Diags,
                           std::set<DType> &UsedTypes, CodeWriter &W) {
  return LauncherEmitter(Plan, Diags, UsedTypes, W).run();
}
