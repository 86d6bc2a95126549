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
//===----------------------------------------------------------------------===//

#include "Interp.h"
#include "tilec/Parse/Parser.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

using namespace tilec;
using namespace tilec::sema;
using namespace tilec::ast;

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

/// Dir/Name.py, else the first SearchPath/Name.py that exists; "" if none.
static std::string findModuleFile(const ImportedFiles &Files,
                                  llvm::StringRef Name) {
  std::vector<std::string> Dirs = {Files.Dir};
  Dirs.insert(Dirs.end(), Files.SearchPath.begin(), Files.SearchPath.end());
  for (const std::string &Dir : Dirs) {
    llvm::SmallString<128> Path(Dir);
    llvm::sys::path::append(Path, Name + ".py");
    if (llvm::sys::fs::is_regular_file(Path))
      return std::string(Path);
  }
  return "";
}

/// Parses Name.py (findModuleFile) into Files, once; null when it is
/// missing or has a syntax error (its diagnostics are dropped: nothing of
/// it is used yet). Its own sys.path additions join the search path.
static const Module *parseSibling(ImportedFiles &Files, llvm::SourceMgr &SM,
                                  llvm::StringRef Name) {
  auto It = Files.ASTs.find(Name);
  if (It != Files.ASTs.end())
    return It->second.get();
  std::unique_ptr<Module> &Slot = Files.ASTs[Name];
  std::string Path = findModuleFile(Files, Name);
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> Buf =
      librarySource(Name).empty()
          ? llvm::MemoryBuffer::getFile(Path)
          : llvm::MemoryBuffer::getMemBufferCopy(librarySource(Name),
                                                 "<tilec>/" + Name.str());
  if ((Path.empty() && librarySource(Name).empty()) || !Buf)
    return nullptr;
  unsigned ID = SM.AddNewSourceBuffer(std::move(*Buf), llvm::SMLoc());
  DiagnosticEngine Quiet(SM, &llvm::nulls());
  std::unique_ptr<Module> M = parseFile(SM, ID, Quiet);
  if (Quiet.numErrors() != 0)
    return nullptr;
  addSearchPaths(Files, *M, Path);
  Slot = std::move(M);
  return Slot.get();
}

/// A plain module name (`utils`, not `a.b`, `.rel` or a modelled library).
static bool isSiblingName(llvm::StringRef Name) {
  return !Name.empty() && !Name.contains('.') && Name != "tilelang" &&
         Name != "torch" && Name != "math" && Name != "itertools";
}

std::shared_ptr<Scope> Interp::importSibling(llvm::StringRef Name) {
  bool Library = !librarySource(Name).empty();
  if (!Files || (!Library && (Files->Dir.empty() || !isSiblingName(Name))))
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
