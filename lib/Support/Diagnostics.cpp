//===- Diagnostics.cpp - The one diagnostic engine ------------------------===//

#include "tilec/Support/Diagnostics.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"
#include <fmt/args.h>
#include <fmt/format.h>
#include <regex>

using namespace tilec;

namespace {
struct DiagInfo {
  Severity Kind;
  const char *Format;
};

const DiagInfo DiagTable[] = {
#define DIAG(ID, SEVERITY, FORMAT) {Severity::SEVERITY, FORMAT},
#include "tilec/Support/Diagnostics.def"
};

constexpr unsigned MaxErrors = 20;

llvm::SourceMgr::DiagKind toLLVM(Severity S) {
  switch (S) {
  case Severity::Note:
    return llvm::SourceMgr::DK_Note;
  case Severity::Remark:
    return llvm::SourceMgr::DK_Remark;
  case Severity::Warning:
    return llvm::SourceMgr::DK_Warning;
  case Severity::Error:
    return llvm::SourceMgr::DK_Error;
  }
  return llvm::SourceMgr::DK_Error;
}

const char *severityName(Severity S) {
  switch (S) {
  case Severity::Note:
    return "note";
  case Severity::Remark:
    return "remark";
  case Severity::Warning:
    return "warning";
  case Severity::Error:
    return "error";
  }
  return "error";
}
} // namespace

//===----------------------------------------------------------------------===//
// DiagnosticBuilder
//===----------------------------------------------------------------------===//

DiagnosticBuilder::DiagnosticBuilder(DiagnosticBuilder &&Other) noexcept
    : Engine(Other.Engine), Loc(std::move(Other.Loc)), ID(Other.ID),
      Args(std::move(Other.Args)), Ranges(std::move(Other.Ranges)) {
  Other.Engine = nullptr;
}

DiagnosticBuilder &DiagnosticBuilder::operator<<(llvm::StringRef S) {
  Args.push_back(S.str());
  return *this;
}
DiagnosticBuilder &DiagnosticBuilder::operator<<(const std::string &S) {
  Args.push_back(S);
  return *this;
}
DiagnosticBuilder &DiagnosticBuilder::operator<<(const char *S) {
  Args.emplace_back(S);
  return *this;
}
DiagnosticBuilder &DiagnosticBuilder::operator<<(int64_t V) {
  Args.push_back(std::to_string(V));
  return *this;
}
DiagnosticBuilder &DiagnosticBuilder::operator<<(double V) {
  Args.push_back(fmt::format("{}", V));
  return *this;
}
DiagnosticBuilder &DiagnosticBuilder::operator<<(llvm::SMRange R) {
  Ranges.push_back(R);
  return *this;
}

DiagnosticBuilder::~DiagnosticBuilder() {
  if (!Engine)
    return;
  fmt::dynamic_format_arg_store<fmt::format_context> Store;
  for (const std::string &A : Args)
    Store.push_back(A);
  std::string Message;
  try {
    Message = fmt::vformat(DiagnosticEngine::formatOf(ID).str(), Store);
  } catch (const fmt::format_error &) {
    assert(false && "diagnostic streamed too few arguments");
    Message = DiagnosticEngine::formatOf(ID).str();
  }
  Engine->emit(DiagnosticEngine::severityOf(ID), Loc, Message, Ranges);
}

//===----------------------------------------------------------------------===//
// DiagnosticEngine
//===----------------------------------------------------------------------===//

DiagnosticEngine::DiagnosticEngine(llvm::SourceMgr &SM, llvm::raw_ostream *OS)
    : SM(SM), OS(OS ? *OS : llvm::errs()) {}

Severity DiagnosticEngine::severityOf(diag::ID ID) {
  return DiagTable[ID].Kind;
}

llvm::StringRef DiagnosticEngine::formatOf(diag::ID ID) {
  return DiagTable[ID].Format;
}

llvm::SMLoc DiagnosticEngine::resolve(const Location &Loc) {
  if (Loc.hasRange())
    return Loc.start();
  if (Loc.Line == 0 || Loc.File.empty())
    return {};
  unsigned Buffer = 0;
  for (unsigned I = 1, E = SM.getNumBuffers(); I <= E; ++I) {
    if (SM.getMemoryBuffer(I)->getBufferIdentifier() == Loc.File) {
      Buffer = I;
      break;
    }
  }
  if (!Buffer) {
    auto File = llvm::MemoryBuffer::getFile(Loc.File, /*IsText=*/true);
    if (!File)
      return {};
    Buffer = SM.AddNewSourceBuffer(std::move(*File), llvm::SMLoc());
  }
  return SM.FindLocForLineAndColumn(Buffer, Loc.Line, Loc.Col ? Loc.Col : 1);
}

std::string DiagnosticEngine::describe(const Location &Loc) {
  if (!Loc.hasRange()) {
    if (Loc.Line == 0)
      return "<unknown>";
    return fmt::format("{}:{}:{}", Loc.File, Loc.Line, Loc.Col);
  }
  unsigned Buffer = SM.FindBufferContainingLoc(Loc.start());
  auto [Line, Col] = SM.getLineAndColumn(Loc.start(), Buffer);
  return fmt::format("{}:{}:{}",
                     SM.getMemoryBuffer(Buffer)->getBufferIdentifier().str(),
                     Line, Col);
}

void DiagnosticEngine::emit(Severity Kind, const Location &Loc,
                            const std::string &Message,
                            llvm::ArrayRef<llvm::SMRange> Ranges) {
  if (Kind == Severity::Remark && !ShowRemarks)
    return;
  if (Kind == Severity::Warning && WarningsAsErrors)
    Kind = Severity::Error;
  // The same error or warning at the same place again (a kernel factory
  // runs once as the file's own code and once to build the kernel) says
  // nothing new: it counts, but neither it nor its notes are shown.
  bool Repeat = (Kind == Severity::Error || Kind == Severity::Warning) &&
                !Shown.insert(describe(Loc) + Message).second;
  if (Kind != Severity::Note)
    RepeatNotes = Repeat;
  if (Kind == Severity::Error) {
    ++NumErrors;
    SuppressNotes = NumErrors > MaxErrors;
  } else if (Kind == Severity::Warning) {
    ++NumWarnings;
    SuppressNotes = false;
  }
  if (RepeatNotes)
    return;
  if (VerifyMode) {
    Stored.push_back({Kind, Loc, Message});
    return;
  }
  if (SuppressNotes) {
    if (Kind == Severity::Error && NumErrors == MaxErrors + 1)
      OS << "error: too many errors emitted, stopping now\n";
    return;
  }
  llvm::SMLoc At = resolve(Loc);
  if (At.isValid()) {
    llvm::SmallVector<llvm::SMRange, 4> All(Ranges.begin(), Ranges.end());
    if (Loc.hasRange() && Loc.Range.Start != Loc.Range.End)
      All.push_back(Loc.Range);
    SM.PrintMessage(OS, At, toLLVM(Kind), Message, All);
    return;
  }
  if (Loc.Line != 0)
    OS << describe(Loc) << ": ";
  else
    OS << "tilec: ";
  OS << severityName(Kind) << ": " << Message << "\n";
}

//===----------------------------------------------------------------------===//
// -verify-diagnostics
//===----------------------------------------------------------------------===//

namespace {
struct Expectation {
  Severity Kind;
  unsigned Line;
  std::string Text;
  bool Matched = false;
};

Severity parseKind(llvm::StringRef S) {
  if (S == "error")
    return Severity::Error;
  if (S == "warning")
    return Severity::Warning;
  if (S == "remark")
    return Severity::Remark;
  return Severity::Note;
}

/// Reads `expected-<kind>[@(+N|-N|N)] {{text}}` directives, one per match.
std::vector<Expectation> readExpectations(llvm::StringRef Buffer) {
  static const std::regex Directive(
      R"(expected-(error|warning|remark|note)(@([+-]?)([0-9]+))?\s*\{\{(.*?)\}\})");
  std::vector<Expectation> Result;
  unsigned LineNo = 0;
  while (!Buffer.empty()) {
    auto [Line, Rest] = Buffer.split('\n');
    Buffer = Rest;
    ++LineNo;
    std::string Text = Line.str();
    for (auto It = std::sregex_iterator(Text.begin(), Text.end(), Directive);
         It != std::sregex_iterator(); ++It) {
      const std::smatch &M = *It;
      unsigned Target = LineNo;
      if (M[2].matched) {
        unsigned Offset = std::stoul(M[4].str());
        if (M[3].str() == "+")
          Target = LineNo + Offset;
        else if (M[3].str() == "-")
          Target = LineNo - Offset;
        else
          Target = Offset;
      }
      Result.push_back({parseKind(M[1].str()), Target, M[5].str()});
    }
  }
  return Result;
}
} // namespace

bool DiagnosticEngine::verifyExpected(unsigned BufferID) {
  const llvm::MemoryBuffer *Buf = SM.getMemoryBuffer(BufferID);
  std::vector<Expectation> Expected = readExpectations(Buf->getBuffer());
  bool OK = true;
  for (const StoredDiagnostic &D : Stored) {
    unsigned Line = 0;
    llvm::SMLoc At = resolve(D.Loc);
    if (At.isValid() && SM.FindBufferContainingLoc(At) == BufferID)
      Line = SM.getLineAndColumn(At, BufferID).first;
    bool Found = false;
    for (Expectation &E : Expected) {
      if (E.Matched || E.Kind != D.Kind || E.Line != Line ||
          D.Message.find(E.Text) == std::string::npos)
        continue;
      E.Matched = Found = true;
      break;
    }
    if (Found)
      continue;
    OK = false;
    std::string Where = At.isValid() ? "" : " (no location)";
    if (At.isValid())
      SM.PrintMessage(
          OS, At, llvm::SourceMgr::DK_Error,
          fmt::format("unexpected {}: {}", severityName(D.Kind), D.Message));
    else
      OS << "error: unexpected " << severityName(D.Kind) << Where << ": "
         << D.Message << "\n";
  }
  for (const Expectation &E : Expected) {
    if (E.Matched)
      continue;
    OK = false;
    llvm::SMLoc At = SM.FindLocForLineAndColumn(BufferID, E.Line, 1);
    SM.PrintMessage(OS, At, llvm::SourceMgr::DK_Error,
                    fmt::format("expected {} \"{}\" was not produced",
                                severityName(E.Kind), E.Text));
  }
  Stored.clear();
  return OK;
}
