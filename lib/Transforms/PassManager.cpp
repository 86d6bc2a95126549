//===- PassManager.cpp - Running a pipeline of passes ---------------------===//

#include "tilec/Transforms/PassManager.h"
#include "tilec/IR/Operation.h"
#include "tilec/IR/Verifier.h"
#include "tilec/Support/Diagnostics.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>
#include <chrono>
#include <fmt/format.h>

using namespace tilec;

namespace {
llvm::StringMap<PassFactory> &registry() {
  static llvm::StringMap<PassFactory> Registry;
  return Registry;
}
} // namespace

void tilec::registerPass(llvm::StringRef Name, PassFactory Factory) {
  registry()[Name] = std::move(Factory);
}

std::unique_ptr<Pass> tilec::createPass(llvm::StringRef Name) {
  auto It = registry().find(Name);
  if (It == registry().end())
    return nullptr;
  return It->second();
}

bool tilec::isPassRegistered(llvm::StringRef Name) {
  return registry().count(Name);
}

std::vector<std::string> tilec::registeredPassNames() {
  std::vector<std::string> Names;
  for (const auto &Entry : registry())
    Names.push_back(Entry.getKey().str());
  std::sort(Names.begin(), Names.end());
  return Names;
}

bool PassManager::addPass(llvm::StringRef Name) {
  std::unique_ptr<Pass> P = createPass(Name);
  if (!P)
    return false;
  addPass(std::move(P));
  return true;
}

std::vector<std::string> PassManager::getPassNames() const {
  std::vector<std::string> Names;
  for (const std::unique_ptr<Pass> &P : Passes)
    Names.push_back(P->name().str());
  return Names;
}

bool PassManager::shouldPrintAfter(llvm::StringRef Name) const {
  return Opts.PrintIRAfterAll ||
         llvm::is_contained(Opts.PrintIRAfter, Name.str());
}

namespace {
void printTimes(llvm::raw_ostream &OS,
                llvm::ArrayRef<std::pair<std::string, double>> Times) {
  double Total = 0;
  for (const auto &Entry : Times)
    Total += Entry.second;
  OS << "===" << std::string(73, '-') << "===\n"
     << "                         ... Pass execution timing report ...\n"
     << "===" << std::string(73, '-') << "===\n"
     << fmt::format("  Total Execution Time: {:.4f} seconds\n\n", Total)
     << "   ---Wall Time---  --- Name ---\n";
  for (const auto &[Name, Seconds] : Times)
    OS << fmt::format("   {:.4f} ({:5.1f}%)  {}\n", Seconds,
                      Total > 0 ? 100 * Seconds / Total : 0.0, Name);
  OS << fmt::format("   {:.4f} (100.0%)  Total\n", Total);
}
} // namespace

bool PassManager::run(ir::Operation &Module, PassContext &Ctx) {
  llvm::raw_ostream &Dump = Opts.DumpStream ? *Opts.DumpStream : llvm::errs();
  std::vector<std::pair<std::string, double>> Times;
  bool Ok = true;
  for (const std::unique_ptr<Pass> &P : Passes) {
    unsigned ErrorsBefore = Ctx.Diags.numErrors();
    auto Start = std::chrono::steady_clock::now();
    Ok = P->run(Module, Ctx) && Ctx.Diags.numErrors() == ErrorsBefore;
    std::chrono::duration<double> Elapsed =
        std::chrono::steady_clock::now() - Start;
    Times.emplace_back(P->name().str(), Elapsed.count());
    if (!Ok)
      break;
    if (shouldPrintAfter(P->name())) {
      Dump << "// -----// IR Dump After " << P->name() << " //----- //\n";
      ir::printModule(Module, Dump, Opts.Print);
      Dump.flush();
    }
    if (Opts.VerifyEach && !ir::verify(Module, Ctx.Diags)) {
      Ctx.Diags.report(Location(), diag::err_pass_failed)
          << P->name() << "the verifier rejected its output";
      Ok = false;
      break;
    }
  }
  if (Opts.TimePasses)
    printTimes(Opts.TimingStream ? *Opts.TimingStream : llvm::errs(), Times);
  return Ok;
}

bool tilec::lowerEach(ir::Operation &Root,
                      const std::function<bool(ir::Operation &)> &Select,
                      const std::function<bool(ir::Operation &)> &Lower) {
  std::vector<ir::Operation *> Ops;
  Root.walk([&](ir::Operation &Op) {
    if (Select(Op))
      Ops.push_back(&Op);
  });
  bool OK = true;
  for (ir::Operation *Op : Ops)
    OK &= Lower(*Op);
  return OK;
}
