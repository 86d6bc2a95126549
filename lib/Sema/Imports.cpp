//===- Imports.cpp - Python files imported beside the compiled file ------===//
//
// TileLang examples share helpers between the files of one directory:
// `from block_causal_attention import _clone_with_grad` in a driver,
// `from example_fusedmoe_torch import *` for the reference inputs. Python
// finds such a module first in the script's own directory; so does tilec.
// The file is parsed once (ImportedFiles) and its top level runs once per
// interpreter in a module scope of its own, under its module name, so its
// `if __name__ == "__main__":` block does not run; bare calls at its module
// level are skipped as in the compiled file. A file that is missing or does
// not parse leaves the import a host-only value, as for any other module.
//
//===----------------------------------------------------------------------===//

#include "Interp.h"
#include "tilec/Parse/Parser.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

using namespace tilec;
using namespace tilec::sema;
using namespace tilec::ast;

/// Parses Dir/Name.py into Files, once; null when it is missing or has a
/// syntax error (its diagnostics are dropped: nothing of it is used yet).
static const Module *parseSibling(ImportedFiles &Files, llvm::SourceMgr &SM,
                                  llvm::StringRef Name) {
  auto It = Files.ASTs.find(Name);
  if (It != Files.ASTs.end())
    return It->second.get();
  std::unique_ptr<Module> &Slot = Files.ASTs[Name];
  llvm::SmallString<128> Path(Files.Dir);
  llvm::sys::path::append(Path, Name + ".py");
  auto Buf = llvm::MemoryBuffer::getFile(Path);
  if (!Buf)
    return nullptr;
  unsigned ID = SM.AddNewSourceBuffer(std::move(*Buf), llvm::SMLoc());
  DiagnosticEngine Quiet(SM, &llvm::nulls());
  std::unique_ptr<Module> M = parseFile(SM, ID, Quiet);
  if (Quiet.numErrors() == 0)
    Slot = std::move(M);
  return Slot.get();
}

/// A plain module name (`utils`, not `a.b`, `.rel` or a modelled library).
static bool isSiblingName(llvm::StringRef Name) {
  return !Name.empty() && !Name.contains('.') && Name != "tilelang" &&
         Name != "torch" && Name != "math" && Name != "itertools";
}

std::shared_ptr<Scope> Interp::importSibling(llvm::StringRef Name) {
  if (!Files || Files->Dir.empty() || !isSiblingName(Name))
    return nullptr;
  auto Done = Imported.find(Name);
  if (Done != Imported.end())
    return Done->second;
  const Module *M = parseSibling(*Files, SM, Name);
  if (!M)
    return nullptr;
  // Registered before its body runs: a circular import sees the names
  // bound so far, as in Python.
  auto Globals = std::make_shared<Scope>();
  Imported[Name] = Globals;
  Globals->set("__name__", Value::str(Name.str()));
  auto Fr = std::make_unique<Frame>();
  Fr->Locals = Globals;
  Fr->FuncName = "<module " + Name.str() + ">";
  Frames.push_back(std::move(Fr));
  for (const StmtPtr &S : M->Body) {
    if (llvm::isa<ExprStmt>(S.get()))
      continue;
    exec(S.get());
    if (Aborting)
      break;
  }
  Frames.pop_back();
  return Globals;
}
