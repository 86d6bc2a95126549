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
// Files that reach a shared helper directory with
// `sys.path.append(os.path.join(os.path.dirname(__file__), "../x"))` get
// that directory searched next, as Python would: the statement is read,
// not run (bare calls are skipped), by a small evaluator of such paths.
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
static std::string moduleFileIn(llvm::StringRef Dir, llvm::StringRef Name,
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

/// tilec's own Python for `tilelang.cuda.intrinsics` (TileLang's name, and
/// its older `tilelang.intrinsics`): the shared-memory swizzle helpers that
/// kernels call at compile time, written against tilec's T.Layout. Row r,
/// column c of a tile with rows of `row_size` elements goes to 16-byte
/// chunk (c / chunk) XOR (r % 8 / (8 / chunks)) of its swizzle span
/// (`swizzle_bytes`, at most 128 bytes of a row), with the column's span
/// outermost.
static const char IntrinsicsSource[] = R"py(
import tilelang.language as T
from tvm import DataType


def get_swizzle_layout(row_idx, col_idx, row_size, dtype, swizzle_bytes=None):
    bits = DataType(dtype).bits
    row_bytes = bits * row_size // 8
    assert row_bytes % 32 == 0, "Row size must be multiple of 32B."
    if swizzle_bytes is None:
        swizzle_bytes = min(128, row_bytes)
    per_chunk = 128 // bits
    chunks = swizzle_bytes // 16
    chunk = col_idx // per_chunk
    span = chunk // chunks
    swizzled = (chunk % chunks) ^ (row_idx % 8 // (8 // chunks))
    return span, row_idx, swizzled * per_chunk + col_idx % per_chunk


def make_mma_swizzle_layout(shared_buf, is_smooth=False):
    shape = shared_buf.shape
    dtype = shared_buf.dtype
    assert 2 <= len(shape) <= 3, "make_mma_swizzle_layout takes a 2-D or 3-D buffer"
    swizzles = not is_smooth and shape[-1] * DataType(dtype).bits % 512 == 0

    def tile(i, j):
        if swizzles:
            return list(get_swizzle_layout(i, j, shape[-1], dtype))
        return [i, j]

    if len(shape) == 2:
        return T.Layout(shape, lambda i, j: tile(i, j))
    return T.Layout(shape, lambda s, i, j: [s] + tile(i, j))
)py";

static llvm::StringRef librarySource(llvm::StringRef Name) {
  if (Name == "tilelang.cuda.intrinsics" || Name == "tilelang.intrinsics")
    return IntrinsicsSource;
  return "";
}

/// `a.b.c` for a chain of names and attributes; "" for anything else.
static std::string dottedName(const Expr *E) {
  if (auto *N = llvm::dyn_cast<NameExpr>(E))
    return N->Id;
  auto *A = llvm::dyn_cast<AttributeExpr>(E);
  if (!A)
    return "";
  std::string Base = dottedName(A->Value.get());
  return Base.empty() ? "" : Base + "." + A->Attr;
}

/// The path \p E names in file \p File (see addSearchPaths); nullopt for
/// anything else.
static std::optional<std::string> pathOf(const Expr *E, llvm::StringRef File) {
  if (auto *S = llvm::dyn_cast<StringLitExpr>(E))
    return S->Value;
  if (auto *N = llvm::dyn_cast<NameExpr>(E); N && N->Id == "__file__")
    return File.str();
  auto *C = llvm::dyn_cast<CallExpr>(E);
  if (!C || C->Args.empty() || !C->Keywords.empty())
    return std::nullopt;
  std::vector<std::string> Args;
  for (const ExprPtr &A : C->Args) {
    auto P = pathOf(A.get(), File);
    if (!P)
      return std::nullopt;
    Args.push_back(*P);
  }
  std::string Fn = dottedName(C->Callee.get());
  llvm::SmallString<128> Out(Args[0]);
  if (Fn == "os.path.join") {
    for (size_t K = 1; K != Args.size(); ++K)
      if (llvm::sys::path::is_absolute(Args[K]))
        Out = Args[K];
      else
        llvm::sys::path::append(Out, Args[K]);
    return std::string(Out);
  }
  if (Args.size() != 1)
    return std::nullopt;
  if (Fn == "os.path.dirname")
    return llvm::sys::path::parent_path(Args[0]).str();
  if (Fn == "os.path.abspath" || Fn == "os.path.realpath" ||
      Fn == "os.path.normpath") {
    llvm::sys::fs::make_absolute(Out);
    llvm::sys::path::remove_dots(Out, /*remove_dot_dot=*/true);
    return std::string(Out);
  }
  return std::nullopt;
}

void sema::addSearchPaths(ImportedFiles &Files, const Module &M,
                          llvm::StringRef FileName) {
  for (const StmtPtr &S : M.Body) {
    auto *E = llvm::dyn_cast<ExprStmt>(S.get());
    auto *C = E ? llvm::dyn_cast<CallExpr>(E->Value.get()) : nullptr;
    if (!C)
      continue;
    std::string Fn = dottedName(C->Callee.get());
    size_t Arg = Fn == "sys.path.append" ? 0 : 1;
    if ((Fn != "sys.path.append" && Fn != "sys.path.insert") ||
        C->Args.size() != Arg + 1)
      continue;
    if (auto P = pathOf(C->Args[Arg].get(), FileName); P && !P->empty())
      Files.SearchPath.push_back(*P);
  }
}

/// moduleFileIn over the importing file's directory, then the directories
/// its sys.path additions name; "" if none has the module.
static std::string findModuleFile(const ImportedFiles &Files,
                                  llvm::StringRef Name, bool &IsPackage) {
  std::vector<std::string> Dirs = {Files.Dir};
  Dirs.insert(Dirs.end(), Files.SearchPath.begin(), Files.SearchPath.end());
  for (const std::string &Dir : Dirs) {
    std::string Path = moduleFileIn(Dir, Name, IsPackage);
    if (!Path.empty())
      return Path;
  }
  return "";
}

/// Parses module \p Name (findModuleFile, or tilec's own library source)
/// into Files, once; null when it is missing or has a syntax error (its
/// diagnostics are dropped: nothing of it is used yet). Its own sys.path
/// additions join the search path.
static const Module *parseSibling(ImportedFiles &Files, llvm::SourceMgr &SM,
                                  llvm::StringRef Name, bool &IsPackage) {
  std::string Path = findModuleFile(Files, Name, IsPackage);
  auto It = Files.ASTs.find(Name);
  if (It != Files.ASTs.end())
    return It->second.get();
  std::unique_ptr<Module> &Slot = Files.ASTs[Name];
  llvm::StringRef Library = librarySource(Name);
  if (Path.empty() && Library.empty())
    return nullptr;
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> Buf =
      Library.empty() ? llvm::MemoryBuffer::getFile(Path)
                      : llvm::MemoryBuffer::getMemBufferCopy(
                            Library, "<tilec>/" + Name.str());
  if (!Buf)
    return nullptr;
  if (isBlankModule((*Buf)->getBuffer())) {
    Slot = std::make_unique<Module>();
    return Slot.get();
  }
  unsigned ID = SM.AddNewSourceBuffer(std::move(*Buf), llvm::SMLoc());
  DiagnosticEngine Quiet(SM, &llvm::nulls());
  std::unique_ptr<Module> M = parseFile(SM, ID, Quiet);
  if (Quiet.numErrors() != 0)
    return nullptr;
  addSearchPaths(Files, *M, Path);
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
  bool Library = !librarySource(Name).empty();
  if (!Files || (!Library && (Files->Dir.empty() || !isSiblingName(Name))))
    return nullptr;
  auto Done = Imported.find(Name);
  if (Done != Imported.end())
    return Done->second;
  // Python runs a package's __init__ before any of its modules (tilec's
  // own library modules have no package files).
  if (!Library && Name.contains('.') && !importSibling(Name.rsplit('.').first))
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
  auto Package = Imported.find(Name.rsplit('.').first);
  if (Name.contains('.') && Package != Imported.end() && Package->second)
    Package->second->set(Name.rsplit('.').second,
                         moduleValueOf(Name, *Globals));
  return Globals;
}
