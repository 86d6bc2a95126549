//===- Diagnostics.h - The one diagnostic engine ---------------*- C++ -*-===//
//
// Every user-facing message goes through DiagnosticEngine. Diagnostics are
// declared in Diagnostics.def; a report looks like Clang's:
//
//   Diags.report(Loc, diag::err_undefined_name) << Name;
//   Diags.report(Other, diag::note_declared_here) << Name;
//
// The diagnostic is emitted when the builder goes out of scope. Notes attach
// to the error or warning before them. In verify mode (-verify-diagnostics)
// diagnostics are collected and checked against `expected-error {{...}}`
// comments in the source instead of being printed.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_SUPPORT_DIAGNOSTICS_H
#define TILEC_SUPPORT_DIAGNOSTICS_H

#include "tilec/Support/Location.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/SourceMgr.h"
#include <cstdint>
#include <string>
#include <vector>

namespace tilec {

namespace diag {
enum ID : unsigned {
#define DIAG(ID, SEVERITY, FORMAT) ID,
#include "tilec/Support/Diagnostics.def"
  NumDiagnostics
};
} // namespace diag

/// Remarks say what the compiler chose (e.g. why a T.gemm stays on
/// mma.sync); they are dropped unless setShowRemarks(true) (--remarks).
enum class Severity { Note, Remark, Warning, Error };

class DiagnosticEngine;

/// Collects the arguments of one diagnostic and emits it on destruction.
class DiagnosticBuilder {
public:
  DiagnosticBuilder(DiagnosticEngine &Engine, Location Loc, diag::ID ID)
      : Engine(&Engine), Loc(std::move(Loc)), ID(ID) {}
  DiagnosticBuilder(DiagnosticBuilder &&Other) noexcept;
  DiagnosticBuilder(const DiagnosticBuilder &) = delete;
  DiagnosticBuilder &operator=(const DiagnosticBuilder &) = delete;
  ~DiagnosticBuilder();

  DiagnosticBuilder &operator<<(llvm::StringRef S);
  DiagnosticBuilder &operator<<(const std::string &S);
  DiagnosticBuilder &operator<<(const char *S);
  DiagnosticBuilder &operator<<(int64_t V);
  DiagnosticBuilder &operator<<(int V) { return *this << int64_t(V); }
  DiagnosticBuilder &operator<<(unsigned V) { return *this << int64_t(V); }
  DiagnosticBuilder &operator<<(size_t V) { return *this << int64_t(V); }
  DiagnosticBuilder &operator<<(double V);
  /// Adds an underlined range (besides the primary location).
  DiagnosticBuilder &operator<<(llvm::SMRange R);

private:
  DiagnosticEngine *Engine;
  Location Loc;
  diag::ID ID;
  std::vector<std::string> Args;
  llvm::SmallVector<llvm::SMRange, 2> Ranges;
};

/// A diagnostic after formatting, as recorded in verify mode.
struct StoredDiagnostic {
  Severity Kind;
  Location Loc;
  std::string Message;
};

class DiagnosticEngine {
public:
  explicit DiagnosticEngine(llvm::SourceMgr &SM,
                            llvm::raw_ostream *OS = nullptr);

  DiagnosticBuilder report(Location Loc, diag::ID ID) {
    return DiagnosticBuilder(*this, std::move(Loc), ID);
  }

  static Severity severityOf(diag::ID ID);
  static llvm::StringRef formatOf(diag::ID ID);

  unsigned numErrors() const { return NumErrors; }
  unsigned numWarnings() const { return NumWarnings; }
  bool hasErrors() const { return NumErrors != 0; }
  llvm::SourceMgr &getSourceMgr() { return SM; }

  /// Collect diagnostics instead of printing them (-verify-diagnostics).
  void setVerifyMode(bool On) { VerifyMode = On; }
  bool inVerifyMode() const { return VerifyMode; }
  /// Treat warnings as errors.
  void setWarningsAsErrors(bool On) { WarningsAsErrors = On; }
  /// Print (or, in verify mode, collect) remarks.
  void setShowRemarks(bool On) { ShowRemarks = On; }

  /// Checks the collected diagnostics against the `expected-*` comments of
  /// buffer \p BufferID. Returns true when they match exactly; mismatches are
  /// printed.
  bool verifyExpected(unsigned BufferID);

  /// Resolves \p Loc to a position in a loaded buffer, loading the file named
  /// by a file/line/column location when needed. Returns an invalid SMLoc
  /// when the place cannot be found.
  llvm::SMLoc resolve(const Location &Loc);

  /// Renders "file:line:col" for \p Loc (for IR printing and messages).
  std::string describe(const Location &Loc);

private:
  friend class DiagnosticBuilder;
  void emit(Severity Kind, const Location &Loc, const std::string &Message,
            llvm::ArrayRef<llvm::SMRange> Ranges);

  llvm::SourceMgr &SM;
  llvm::raw_ostream &OS;
  unsigned NumErrors = 0;
  unsigned NumWarnings = 0;
  bool VerifyMode = false;
  bool WarningsAsErrors = false;
  bool ShowRemarks = false;
  bool SuppressNotes = false;
  /// "file:line:colmessage" of each error and warning shown, and whether
  /// the last one was a repeat (its notes are dropped with it).
  llvm::StringSet<> Shown;
  bool RepeatNotes = false;
  std::vector<StoredDiagnostic> Stored;
};

} // namespace tilec

#endif
