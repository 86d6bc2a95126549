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
// Packages work as in Python: `quantize` may be a directory with an
// `__init__.py`, `quantize.lop3` is `quantize/lop3.py` (its package runs
// first), and `from .lop3 import f` inside the package resolves against the
// module's `__package__`.
//
//===----------------------------------------------------------------------===//

#include "HostModel.h"
#include "Interp.h"
#include "tilec/Parse/Parser.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

using namespace tilec;
using namespace tilec::sema;
using namespace tilec::ast;

/// The file of module \p Name (dotted) under Dir: `a/b.py`, else the
/// package `a/b/__init__.py`; IsPackage says which. Empty when neither.
static std::string moduleFile(llvm::StringRef Dir, llvm::StringRef Name,
                              bool &IsPackage) {
  llvm::SmallString<128> Base(Dir);
  llvm::SmallVector<llvm::StringRef, 4> Parts;
  Name.split(Parts, '.');
  for (llvm::StringRef P : Parts)
    llvm::sys::path::append(Base, P);
  llvm::SmallString<128> Path = Base;
  Path += ".py";
  IsPackage = false;
  if (llvm::sys::fs::is_regular_file(Path))
    return std::string(Path);
  llvm::sys::path::append(Base, "__init__.py");
  IsPackage = true;
  if (llvm::sys::fs::is_regular_file(Base))
    return std::string(Base);
  return "";
}

/// True for a file of blank and comment lines only (a common `__init__.py`),
/// which Python accepts as a module and tilec's parser as a program does not.
static bool isBlankModule(llvm::StringRef Text) {
  llvm::SmallVector<llvm::StringRef, 8> Lines;
  Text.split(Lines, '\n');
  return llvm::all_of(Lines, [](llvm::StringRef L) {
    L = L.trim();
    return L.empty() || L.startswith("#");
  });
}

/// Parses module \p Name into Files, once; null when it is missing or has a
/// syntax error (its diagnostics are dropped: nothing of it is used yet).
static const Module *parseSibling(ImportedFiles &Files, llvm::SourceMgr &SM,
                                  llvm::StringRef Name, bool &IsPackage) {
  std::string Path = moduleFile(Files.Dir, Name, IsPackage);
  auto It = Files.ASTs.find(Name);
  if (It != Files.ASTs.end())
    return It->second.get();
  std::unique_ptr<Module> &Slot = Files.ASTs[Name];
  if (Path.empty())
    return nullptr;
  auto Buf = llvm::MemoryBuffer::getFile(Path);
  if (!Buf)
    return nullptr;
  if (isBlankModule((*Buf)->getBuffer())) {
    Slot = std::make_unique<Module>();
    return Slot.get();
  }
  unsigned ID = SM.AddNewSourceBuffer(std::move(*Buf), llvm::SMLoc());
  DiagnosticEngine Quiet(SM, &llvm::nulls());
  std::unique_ptr<Module> M = parseFile(SM, ID, Quiet);
  if (Quiet.numErrors() == 0)
    Slot = std::move(M);
  return Slot.get();
}

/// A module name of identifiers (`utils`, `quantize.lop3`; not `.rel`)
/// whose top package is not a modelled library.
static bool isSiblingName(llvm::StringRef Name) {
  llvm::StringRef Top = Name.split('.').first;
  return !Name.empty() && !Top.empty() && !Name.endswith(".") &&
         !Name.contains("..") && Top != "tilelang" && Top != "torch" &&
         Top != "math" && Top != "itertools" && Top != "tvm";
}

/// Python's `__package__` of module \p Name: the package itself, else the
/// package holding it ("" at the top).
static std::string packageOf(llvm::StringRef Name, bool IsPackage) {
  if (IsPackage)
    return Name.str();
  return Name.contains('.') ? Name.rsplit('.').first.str() : "";
}

std::string Interp::resolveRelativeModule(llvm::StringRef Module) {
  size_t Dots = std::min(Module.find_first_not_of('.'), Module.size());
  if (Dots == 0)
    return Module.str();
  Value *Pkg = scope().lookup("__package__");
  if (!Pkg || !Pkg->isStr() || Pkg->getStr().empty())
    return "";
  llvm::StringRef Base = Pkg->getStr();
  for (size_t K = 1; K < Dots; ++K) {
    if (!Base.contains('.'))
      return "";
    Base = Base.rsplit('.').first;
  }
  llvm::StringRef Rest = Module.drop_front(Dots);
  return Rest.empty() ? Base.str() : (Base + "." + Rest).str();
}

Value sema::moduleValueOf(llvm::StringRef Name, const Scope &Globals) {
  auto R = std::make_shared<RecordModel>();
  for (const auto &KV : Globals.vars())
    R->Attrs[KV.getKey()] = KV.getValue();
  return makeHostValue(Name.str(), std::move(R));
}

std::shared_ptr<Scope> Interp::importSibling(llvm::StringRef Name) {
  if (!Files || Files->Dir.empty() || !isSiblingName(Name))
    return nullptr;
  auto Done = Imported.find(Name);
  if (Done != Imported.end())
    return Done->second;
  // Python runs a package's __init__ before any of its modules.
  if (Name.contains('.') && !importSibling(Name.rsplit('.').first))
    return nullptr;
  bool IsPackage = false;
  const Module *M = parseSibling(*Files, SM, Name, IsPackage);
  if (!M)
    return nullptr;
  // Registered before its body runs: a circular import sees the names
  // bound so far, as in Python.
  auto Globals = std::make_shared<Scope>();
  Imported[Name] = Globals;
  Globals->set("__name__", Value::str(Name.str()));
  Globals->set("__package__", Value::str(packageOf(Name, IsPackage)));
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
  // As in Python, a module becomes an attribute of its package.
  if (Name.contains('.'))
    Imported[Name.rsplit('.').first]->set(Name.rsplit('.').second,
                                          moduleValueOf(Name, *Globals));
  return Globals;
}
