//===- CallSites.h - Arguments a driver gives its kernels -------*- C++ -*-===//
//
// A TileLang example fixes its kernels' parameters in its host code:
// `main()` reads argparse defaults, builds torch inputs and calls
// `flashattn(batch, heads, seq_len, dim, is_causal, block_M=128)`.
// findCallSites runs that driver at compile time, in an interpreter of its
// own whose diagnostics are dropped (host code tilec cannot evaluate just
// yields host-only values), stops it at the first call of each kernel
// function it is asked about and records the arguments. The kernel is then
// built as that call would build it (Module.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_LIB_SEMA_CALLSITES_H
#define TILEC_LIB_SEMA_CALLSITES_H

#include "Interp.h"
#include <map>

namespace tilec {
namespace sema {

/// A call of a kernel function made by the file's driver.
struct CallSite {
  /// The argument of each parameter the call gives, by name, then keyword
  /// arguments the function does not declare (T.const names given to
  /// `kernel.compile(M=...)`).
  std::vector<std::pair<std::string, Value>> Args;
  llvm::SMRange Range;
  /// No argument is host-only data (a torch tensor's extent that depends
  /// on random data, a result of code tilec does not run); tensors passed
  /// to an eager kernel's tensor parameters count as known.
  bool Complete = false;
  /// Values of an eager kernel's T.const names: keyword arguments that are
  /// not parameters, and extents of the tensors the call passes, read where
  /// the body declares the parameter (`A: T.Tensor((M, K), dtype)` and a
  /// (1024, 512) tensor give M = 1024, K = 512).
  llvm::StringMap<Value> ConstHints;
  /// The configurations of an AutoTuner the driver built from what this
  /// call returned (`AutoTuner.from_kernel(kernel=make_kernel(),
  /// configs=...)`: the factory returns the function that builds the
  /// kernel from one configuration); None otherwise.
  Value TunerConfigs;

  const Value *find(llvm::StringRef Name) const;
};

using CallSiteMap = std::map<const ast::FunctionDefStmt *, CallSite>;

/// Data the driver computed from something tilec does not run (host-only,
/// poison, or a sequence holding such data).
bool isHostData(const Value &V);

/// A kernel function whose call is wanted; Eager: a @tilelang.jit function
/// whose body is the kernel (its T.const values are read off the call).
struct WantedKernel {
  const ast::FunctionDefStmt *Def;
  bool Eager;
};

/// Runs the driver of \p M: its `if __name__ == "__main__":` blocks and
/// bare calls at module level or, when those reach no kernel, a `main()`
/// that needs no arguments. Records, for each function of \p Wanted, the
/// first complete call, else the first call. \p Files are the Python files
/// the driver may import beside the compiled one.
CallSiteMap findCallSites(const ast::Module &M, llvm::SourceMgr &SM,
                          const SemaOptions &Opts,
                          llvm::ArrayRef<WantedKernel> Wanted,
                          ImportedFiles *Files);

} // namespace sema
} // namespace tilec

#endif
