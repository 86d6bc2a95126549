//===- Manifest.cpp - The JSON description of the generated launchers -----===//

#include "Launcher.h"
#include "Outputs.h"
#include <nlohmann/json.hpp>

using namespace tilec;
using namespace tilec::codegen;
using namespace tilec::ir;
using Json = nlohmann::ordered_json;

namespace {

Json shapeJson(const Type &T) {
  Json Shape = Json::array();
  for (const Dim &D : T.getDims())
    Shape.push_back(D.isSymbolic() ? Json(D.getSymbol().str())
                                   : Json(D.getValue()));
  return Shape;
}

Json paramJson(const FuncPlan &Plan, const LauncherArg &A, unsigned I) {
  Json P;
  P["name"] = A.Name;
  switch (A.K) {
  case LauncherArg::Kind::Buffer:
    P["kind"] = "buffer";
    P["dtype"] = tileLangName(A.V->getType().getDType()).str();
    P["shape"] = shapeJson(A.V->getType());
    P["role"] = paramRole(Plan, I);
    break;
  case LauncherArg::Kind::Scalar:
    P["kind"] = "scalar";
    P["dtype"] = tileLangName(A.V->getType().getDType()).str();
    P["c_type"] = A.CType;
    break;
  case LauncherArg::Kind::Symbol:
    P["kind"] = "symbol";
    P["dtype"] = "int64";
    break;
  }
  return P;
}

/// A byte count: a JSON integer when static, else the C expression.
Json workspaceJson(const std::string &Bytes) {
  if (llvm::all_of(Bytes, [](char C) { return C >= '0' && C <= '9'; }))
    return Json(std::stoll(Bytes));
  return Json(Bytes);
}

Json launchJson(const KernelPlan &K, const std::vector<std::string> &Grid) {
  Json L;
  L["entry"] = K.Entry;
  L["grid"] = Grid;
  L["block"] = {K.Threads[0], K.Threads[1], K.Threads[2]};
  L["shared_memory_bytes"] = K.SharedBytes;
  if (K.Cooperative)
    L["cooperative"] = true;
  if (K.DependentLaunch)
    L["dependent_launch"] = true;
  return L;
}

Json funcJson(const FuncPlan &Plan, DiagnosticEngine &Diags) {
  Json F;
  F["name"] = Plan.Name;
  F["launcher"] = Plan.Name;
  std::vector<LauncherArg> Args = launcherArgs(Plan);
  F["params"] = Json::array();
  for (size_t I = 0; I != Args.size(); ++I)
    F["params"].push_back(paramJson(Plan, Args[I], I));
  F["symbols"] = Plan.Symbols;
  F["launches"] = Json::array();
  for (const KernelPlan &K : Plan.Kernels)
    F["launches"].push_back(launchJson(K, gridExpressions(Plan, K, Diags)));
  F["assumes"] = Plan.Assumes;
  F["checks"] = Json::array();
  for (const auto &C : Plan.Checks)
    F["checks"].push_back({{"condition", C.second}, {"status", C.first}});
  std::vector<Workspace> WS = workspaces(Plan);
  if (WS.empty())
    return F;
  F["workspace_bytes"] = workspaceJson(workspaceBytes(Plan));
  F["workspaces"] = Json::array();
  for (const Workspace &B : WS)
    F["workspaces"].push_back(
        {{"name", B.Name},
         {"dtype", tileLangName(B.V->getType().getDType()).str()},
         {"shape", shapeJson(B.V->getType())},
         {"bytes", workspaceJson(B.Bytes)}});
  return F;
}

} // namespace

std::string codegen::emitManifest(const std::vector<FuncPlan> &Plans,
                                  const CodeGenOptions &Opts,
                                  DiagnosticEngine &Diags) {
  Json M;
  M["tilec_version"] = Opts.Version;
  M["target"] = Opts.Tgt.Name;
  M["source"] = Opts.SourceName;
  M["kernels"] = Json::array();
  for (const FuncPlan &Plan : Plans)
    M["kernels"].push_back(funcJson(Plan, Diags));
  return M.dump(2) + "\n";
}
