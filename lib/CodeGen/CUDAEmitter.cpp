//===- CUDAEmitter.cpp - CUDA source, header and manifest -----------------===//
//
// Plans every func, then writes the .cu in three parts: the prelude
// (includes, chosen after the body because they depend on the dtypes used),
// the kernels and launchers, and `#line` resets so that host code after a
// kernel maps back to the .cu itself.
//
//===----------------------------------------------------------------------===//

#include "tilec/CodeGen/CUDAEmitter.h"
#include "CodeWriter.h"
#include "Dialect.h"
#include "KernelEmitter.h"
#include "Launcher.h"
#include "Outputs.h"
#include "tilec/IR/Operation.h"
#include <cstring>
#include <fmt/format.h>
#include <set>

using namespace tilec;
using namespace tilec::codegen;
using namespace tilec::ir;

namespace {

/// Placeholder for the line number of a `#line` reset; filled in by
/// resolveLineResets once the final text is known.
const char *const LineMarker = "@TILEC_LINE@";

/// The T.import_source texts of every func, each once, in first-use order.
std::vector<std::string> importedSources(const Operation &Module) {
  std::vector<std::string> Out;
  for (const Operation &Func : Module.getBody()) {
    const Attribute *A = Func.getAttr("imports");
    for (const std::string &S :
         A ? A->getStringArray().value_or(std::vector<std::string>())
           : std::vector<std::string>())
      if (!llvm::is_contained(Out, S))
        Out.push_back(S);
  }
  return Out;
}

/// Imported device code, verbatim, after the includes (it may use the
/// CUDA types they declare) and before the kernels that call into it.
std::string imports(const Operation &Module) {
  std::string Out;
  for (const std::string &S : importedSources(Module)) {
    Out += "\n// T.import_source\n" + S;
    if (!S.empty() && S.back() != '\n')
      Out += '\n';
  }
  return Out;
}

/// NAME.cu or NAME.hip.
std::string sourceName(const CodeGenOptions &Opts) {
  return Opts.BaseName + "." + dialectFor(Opts.Tgt).SourceExt;
}

std::string prelude(const std::set<DType> &Used, bool Cooperative,
                    const CodeGenOptions &Opts) {
  const Dialect &D = dialectFor(Opts.Tgt);
  CodeWriter W;
  W.line("// " + bannerText(sourceName(Opts), Opts));
  W.directive(std::string("#include ") + D.RuntimeHeader);
  if (Cooperative)
    W.directive(std::string("#include ") + D.GridSyncHeader);
  if (Used.count(DType::Float16))
    W.directive(std::string("#include ") + D.Fp16Header);
  if (Used.count(DType::BFloat16))
    W.directive(std::string("#include ") + D.Bf16Header);
  if ((Used.count(DType::Float8E4M3) || Used.count(DType::Float8E5M2)) &&
      D.Fp8Header)
    W.directive(std::string("#include ") + D.Fp8Header);
  W.directive("#include <math.h>");
  W.directive("#include <stdint.h>");
  W.directive("#include \"" + Opts.BaseName + ".h\"");
  return W.str();
}

/// Replaces each LineMarker with the number of the line after it.
std::string resolveLineResets(const std::string &Text) {
  std::string Out;
  unsigned Line = 1;
  size_t Pos = 0;
  while (Pos < Text.size()) {
    size_t End = Text.find('\n', Pos);
    End = End == std::string::npos ? Text.size() : End + 1;
    std::string L = Text.substr(Pos, End - Pos);
    size_t M = L.find(LineMarker);
    if (M != std::string::npos)
      L.replace(M, strlen(LineMarker), std::to_string(Line + 1));
    Out += L;
    ++Line;
    Pos = End;
  }
  return Out;
}

bool emitFunc(const FuncPlan &Plan, const CodeGenOptions &Opts,
              DiagnosticEngine &Diags, std::set<DType> &Used, CodeWriter &W) {
  bool Ok = true;
  for (const KernelPlan &K : Plan.Kernels) {
    W.line("");
    Ok &= emitKernel(Plan, K, Opts, Diags, Used, W);
    if (Opts.LineDirectives)
      W.directive(fmt::format("#line {} \"{}\"", LineMarker, sourceName(Opts)));
  }
  W.line("");
  return Ok && emitLauncher(Plan, Diags, Used, W);
}

} // namespace

bool tilec::emitSource(const Operation &Module, const CodeGenOptions &Opts,
                       EmittedFiles &Out, DiagnosticEngine &Diags) {
  std::vector<FuncPlan> Plans;
  bool Ok = true;
  for (const Operation &Func : Module.getBody()) {
    Plans.emplace_back();
    Ok &= planFunc(Func, Opts, Plans.back(), Diags);
  }
  if (!Ok)
    return false;
  CodeWriter Body;
  std::set<DType> Used;
  for (const FuncPlan &Plan : Plans)
    Ok &= emitFunc(Plan, Opts, Diags, Used, Body);
  if (!Ok)
    return false;
  bool Cooperative = llvm::any_of(Plans, [](const FuncPlan &P) {
    return llvm::any_of(P.Kernels,
                        [](const KernelPlan &K) { return K.Cooperative; });
  });
  Out.Source = resolveLineResets(prelude(Used, Cooperative, Opts) +
                                 imports(Module) + Body.str());
  Out.Header = emitHeader(Plans, Opts);
  Out.Manifest = emitManifest(Plans, Opts, Diags);
  return true;
}
