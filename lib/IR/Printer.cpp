//===- Printer.cpp - Writing tile IR as text ------------------------------===//
//
// Two steps: name every value of the top-level op in print order, then
// print. Naming first lets printOp show a nested op with the names the
// whole-module print would use.
//
//===----------------------------------------------------------------------===//

#include "tilec/IR/Printer.h"
#include "tilec/IR/Operation.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace tilec;
using namespace tilec::ir;

namespace {
bool isNumeric(llvm::StringRef S) {
  return !S.empty() && llvm::all_of(S, [](char C) { return llvm::isDigit(C); });
}

/// Keeps [A-Za-z0-9_] and turns anything else into '_'.
std::string sanitize(llvm::StringRef Hint) {
  std::string S = Hint.str();
  for (char &C : S)
    if (!llvm::isAlnum(C) && C != '_')
      C = '_';
  return S;
}

class IRPrinter {
public:
  IRPrinter(llvm::raw_ostream &OS, const PrintOptions &Opts)
      : OS(OS), Opts(Opts) {}

  void nameValues(const Operation &Op);
  void print(const Operation &Op, unsigned Indent);

private:
  const std::string &nameOf(const Value *V);
  void printOperands(const Operation &Op);
  void printAttrs(const Operation &Op);
  void printRegion(const Block &B, unsigned Indent);
  void printLoc(const Location &Loc);

  llvm::raw_ostream &OS;
  const PrintOptions &Opts;
  llvm::DenseMap<const Value *, std::string> Names;
  llvm::StringSet<> Used;
  unsigned NextNumber = 0;
};

const std::string &IRPrinter::nameOf(const Value *V) {
  auto It = Names.find(V);
  if (It != Names.end())
    return It->second;
  std::string Hint = sanitize(V->getNameHint());
  std::string Name;
  if (Hint.empty() || isNumeric(Hint)) {
    Name = std::to_string(NextNumber++);
  } else {
    Name = Hint;
    for (unsigned N = 1; Used.count(Name); ++N)
      Name = Hint + "_" + std::to_string(N);
    Used.insert(Name);
  }
  return Names[V] = Name;
}

void IRPrinter::nameValues(const Operation &Op) {
  for (unsigned I = 0; I != Op.getNumResults(); ++I)
    nameOf(Op.getResult(I));
  for (unsigned R = 0; R != Op.getNumRegions(); ++R) {
    const Block &B = Op.getBody(R);
    for (unsigned A = 0; A != B.getNumArguments(); ++A)
      nameOf(B.getArgument(A));
    for (const Operation &Nested : B)
      nameValues(Nested);
  }
}

void IRPrinter::printOperands(const Operation &Op) {
  for (unsigned G = 0; G != Op.getNumGroups(); ++G) {
    OS << (G ? ", " : " ");
    llvm::ArrayRef<Value *> Group = Op.getGroup(G);
    if (Group.empty())
      continue;
    OS << '%' << nameOf(Group[0]);
    if (Group.size() == 1)
      continue;
    OS << '[';
    for (unsigned I = 1; I != Group.size(); ++I)
      OS << (I > 1 ? ", %" : "%") << nameOf(Group[I]);
    OS << ']';
  }
}

void IRPrinter::printAttrs(const Operation &Op) {
  bool First = true;
  for (const NamedAttribute &A : Op.getAttrs()) {
    if (A.Value.isNone())
      continue;
    OS << (First ? " {" : ", ") << A.Name << " = " << A.Value;
    First = false;
  }
  if (!First)
    OS << '}';
}

void IRPrinter::printRegion(const Block &B, unsigned Indent) {
  OS << ' ';
  if (B.getNumArguments()) {
    OS << '(';
    for (unsigned A = 0; A != B.getNumArguments(); ++A) {
      Value *Arg = B.getArgument(A);
      OS << (A ? ", %" : "%") << nameOf(Arg) << ": " << Arg->getType();
    }
    OS << ") ";
  }
  if (B.empty()) {
    OS << "{}";
    return;
  }
  OS << "{\n";
  for (const Operation &Op : B) {
    print(Op, Indent + 2);
    OS << '\n';
  }
  OS.indent(Indent) << '}';
}

void IRPrinter::printLoc(const Location &Loc) {
  std::string File = Loc.File;
  unsigned Line = Loc.Line, Col = Loc.Col;
  if (Loc.hasRange() && Opts.SM) {
    unsigned Buffer = Opts.SM->FindBufferContainingLoc(Loc.start());
    if (!Buffer)
      return;
    File = Opts.SM->getMemoryBuffer(Buffer)->getBufferIdentifier().str();
    std::tie(Line, Col) = Opts.SM->getLineAndColumn(Loc.start(), Buffer);
  }
  if (Line == 0)
    return;
  OS << " loc(" << Attribute::string(File) << ':' << Line << ':' << Col << ')';
}

void IRPrinter::print(const Operation &Op, unsigned Indent) {
  OS.indent(Indent);
  for (unsigned I = 0; I != Op.getNumResults(); ++I)
    OS << (I ? ", %" : "%") << nameOf(Op.getResult(I));
  if (Op.getNumResults())
    OS << " = ";
  OS << Op.getName();
  printOperands(Op);
  printAttrs(Op);
  for (unsigned I = 0; I != Op.getNumResults(); ++I)
    OS << (I ? ", " : " : ") << Op.getResult(I)->getType();
  for (unsigned R = 0; R != Op.getNumRegions(); ++R)
    printRegion(Op.getBody(R), Indent);
  if (Opts.PrintLocs)
    printLoc(Op.getLoc());
}

const Operation &rootOf(const Operation &Op) {
  const Operation *Root = &Op;
  while (Operation *P = Root->getParentOp())
    Root = P;
  return *Root;
}
} // namespace

void ir::printModule(const Operation &Module, llvm::raw_ostream &OS,
                     const PrintOptions &Opts) {
  IRPrinter P(OS, Opts);
  P.nameValues(Module);
  P.print(Module, 0);
  OS << '\n';
}

void ir::printOp(const Operation &Op, llvm::raw_ostream &OS,
                 const PrintOptions &Opts) {
  IRPrinter P(OS, Opts);
  P.nameValues(rootOf(Op));
  P.print(Op, 0);
}
