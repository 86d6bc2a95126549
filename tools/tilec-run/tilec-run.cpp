//===- tilec-run.cpp - Run lowered tile IR on the CPU ---------------------===//
//
//   tilec k.tile --target=gfx90a --emit=lowered-ir -o k.tir
//   tilec-run k.tir --target=gfx90a [-s M=256 ...] [--zero NAME ...]
//             [--set NAME=V,V,...] [--seed N] [-o out.txt]
//             [--compare ref.txt [--rtol R] [--atol A]]
//
// Fills the func's inputs with seeded pseudo-random values (floats uniform
// in [-1, 1), signed ints in [-4, 4], unsigned in [0, 8]; outputs, the
// `out_idx` params and those named by --zero, start at zero; --set gives a
// parameter every value, such as sequence offsets), runs it through
// the interpreter (tilec/Interp/Interpreter.h) and writes every parameter's
// final values.
// --compare reads such a file (another target's run, or a reference) and
// fails when an output element differs by more than atol + rtol * |ref|.
//
//===----------------------------------------------------------------------===//
#include "tilec/IR/IRParser.h"
#include "tilec/IR/Verifier.h"
#include "tilec/Interp/Interpreter.h"
#include "tilec/Interp/Numerics.h"
#include "tilec/Support/Diagnostics.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include <cmath>
#include <fstream>
#include <map>
#include <random>
#include <sstream>

using namespace tilec;
using namespace tilec::interp;

namespace {

struct Options {
  std::string Input, Output = "-", Compare, TargetName = "sm_80";
  std::map<std::string, int64_t> Symbols;
  std::vector<std::string> Zero;
  std::map<std::string, std::vector<double>> Set;
  uint64_t Seed = 1;
  double RTol = 1e-2, ATol = 1e-2;
};

const char *Usage =
    "usage: tilec-run FILE.tir [--target=NAME] [-s SYM=VALUE]... [--zero "
    "PARAM]...\n"
    "                 [--set PARAM=V,V,...]... [--seed N]\n"
    "                 [-o OUT] [--compare REF [--rtol R] [--atol A]]\n";

/// Parses `NAME=V,V,...` into \p Set.
bool parseSet(const std::string &S,
              std::map<std::string, std::vector<double>> &Set) {
  size_t Eq = S.find('=');
  if (Eq == std::string::npos || Eq == 0)
    return false;
  std::vector<double> &Values = Set[S.substr(0, Eq)];
  std::stringstream In(S.substr(Eq + 1));
  std::string Item;
  while (std::getline(In, Item, ',')) {
    char *End = nullptr;
    Values.push_back(std::strtod(Item.c_str(), &End));
    if (Item.empty() || *End != '\0')
      return false;
  }
  return !Values.empty();
}

bool parseArgs(int Argc, char **Argv, Options &O) {
  for (int I = 1; I < Argc; ++I) {
    std::string A = Argv[I];
    auto Next = [&]() -> std::string {
      return I + 1 < Argc ? Argv[++I] : std::string();
    };
    if (A.rfind("--target=", 0) == 0)
      O.TargetName = A.substr(9);
    else if (A == "-s") {
      std::string S = Next();
      size_t Eq = S.find('=');
      if (Eq == std::string::npos)
        return false;
      O.Symbols[S.substr(0, Eq)] = std::stoll(S.substr(Eq + 1));
    } else if (A == "--zero")
      O.Zero.push_back(Next());
    else if (A == "--set") {
      if (!parseSet(Next(), O.Set))
        return false;
    } else if (A == "--seed")
      O.Seed = std::stoull(Next());
    else if (A == "-o")
      O.Output = Next();
    else if (A == "--compare")
      O.Compare = Next();
    else if (A == "--rtol")
      O.RTol = std::stod(Next());
    else if (A == "--atol")
      O.ATol = std::stod(Next());
    else if (!A.empty() && A[0] != '-' && O.Input.empty())
      O.Input = A;
    else
      return false;
  }
  return !O.Input.empty();
}

uint64_t randomValue(DType T, std::mt19937_64 &Rng) {
  if (isFloat(T))
    return fromDouble(T,
                      std::uniform_real_distribution<double>(-1.0, 1.0)(Rng));
  if (T == DType::Bool)
    return Rng() & 1;
  int64_t Lo = isSigned(T) ? -4 : 0, Hi = isSigned(T) ? 4 : 8;
  return fromInt(
      wrapInt(T, std::uniform_int_distribution<int64_t>(Lo, Hi)(Rng)));
}

/// Replaces \p H's values by those --set gives it, if any; false when
/// their count is not its element count.
bool setValues(const Options &O, HostBuffer &H) {
  auto It = O.Set.find(H.Name);
  if (It == O.Set.end())
    return true;
  if (It->second.size() != H.Data.size()) {
    llvm::errs() << "tilec-run: error: --set gives " << It->second.size()
                 << " values for '" << H.Name << "', which has "
                 << H.Data.size() << " elements\n";
    return false;
  }
  for (size_t I = 0; I < H.Data.size(); ++I)
    H.Data[I] = isFloat(H.Elem)
                    ? fromDouble(H.Elem, It->second[I])
                    : fromInt(wrapInt(H.Elem, int64_t(It->second[I])));
  return true;
}

/// Sizes and fills the func's parameters; returns false on a missing
/// symbol value.
bool makeParams(const ir::Operation &Func, const Options &O,
                std::vector<int64_t> &SymbolValues,
                std::vector<HostBuffer> &Params) {
  std::vector<std::string> Symbols, Names;
  for (const ir::Attribute &A : Func.getAttr("symbols")->getArray())
    Symbols.push_back(A.getString().str());
  for (const ir::Attribute &A : Func.getAttr("params")->getArray())
    Names.push_back(A.getString().str());
  std::map<std::string, int64_t> Bound;
  for (const std::string &S : Symbols) {
    auto It = O.Symbols.find(S);
    if (It == O.Symbols.end()) {
      llvm::errs() << "tilec-run: error: no value for symbol '" << S
                   << "'; pass -s " << S << "=N\n";
      return false;
    }
    SymbolValues.push_back(It->second);
    Bound[S] = It->second;
  }
  for (const auto &[Name, Values] : O.Set)
    if (!llvm::is_contained(Names, Name)) {
      llvm::errs() << "tilec-run: error: --set names '" << Name
                   << "', which is not a parameter\n";
      return false;
    }
  std::vector<int64_t> OutIdx = *Func.getIntArrayAttr("out_idx");
  std::mt19937_64 Rng(O.Seed);
  const ir::Block &Body = Func.getBody();
  for (size_t P = 0; P < Names.size(); ++P) {
    const ir::Type &Ty = Body.getArgument(Symbols.size() + P)->getType();
    HostBuffer H;
    H.Name = Names[P];
    H.Elem = Ty.getDType();
    int64_t N = 1;
    for (const ir::Dim &D : Ty.getDims()) {
      H.Shape.push_back(D.isStatic() ? D.getValue()
                                     : Bound[D.getSymbol().str()]);
      N *= H.Shape.back();
    }
    bool IsOut = llvm::any_of(OutIdx,
                              [&](int64_t I) {
                                return (I < 0 ? I + int64_t(Names.size())
                                              : I) == int64_t(P);
                              }) ||
                 llvm::is_contained(O.Zero, Names[P]);
    for (int64_t I = 0; I < N; ++I)
      H.Data.push_back(IsOut ? fromDouble(H.Elem, 0.0)
                             : randomValue(H.Elem, Rng));
    if (!setValues(O, H))
      return false;
    Params.push_back(std::move(H));
  }
  return true;
}

void writeParams(const std::vector<HostBuffer> &Params, llvm::raw_ostream &OS) {
  for (const HostBuffer &H : Params) {
    OS << "param " << H.Name << " " << irName(H.Elem) << " " << H.Data.size()
       << "\n";
    for (uint64_t Raw : H.Data)
      OS << llvm::format("%.9g", toDouble(H.Elem, Raw)) << "\n";
  }
}

/// Reads writeParams's output: name -> values.
std::map<std::string, std::vector<double>> readParams(const std::string &Path) {
  std::map<std::string, std::vector<double>> Out;
  std::ifstream In(Path);
  std::string Word, Name, Ty;
  size_t N;
  while (In >> Word >> Name >> Ty >> N) {
    std::vector<double> &V = Out[Name];
    V.resize(N);
    for (size_t I = 0; I < N; ++I) {
      std::string S;
      In >> S;
      V[I] = std::strtod(S.c_str(), nullptr);
    }
  }
  return Out;
}

/// Compares every parameter that \p Ref also has; reports the worst element.
bool compare(const std::vector<HostBuffer> &Params, const Options &O) {
  std::map<std::string, std::vector<double>> Ref = readParams(O.Compare);
  if (Ref.empty()) {
    llvm::errs() << "tilec-run: error: cannot read '" << O.Compare << "'\n";
    return false;
  }
  bool Ok = true;
  for (const HostBuffer &H : Params) {
    auto It = Ref.find(H.Name);
    if (It == Ref.end())
      continue;
    if (It->second.size() != H.Data.size()) {
      llvm::errs() << "tilec-run: error: '" << H.Name << "' has "
                   << H.Data.size() << " elements, the reference "
                   << It->second.size() << "\n";
      Ok = false;
      continue;
    }
    size_t Bad = 0, Worst = 0;
    double WorstErr = 0;
    for (size_t I = 0; I < H.Data.size(); ++I) {
      double Got = toDouble(H.Elem, H.Data[I]), Want = It->second[I];
      double Err = std::fabs(Got - Want);
      bool Same = Got == Want || (std::isnan(Got) && std::isnan(Want));
      if (Same || Err <= O.ATol + O.RTol * std::fabs(Want))
        continue;
      if (++Bad == 1 || Err > WorstErr || std::isnan(Err)) {
        Worst = I;
        WorstErr = std::isnan(Err) ? WorstErr : Err;
      }
    }
    llvm::outs() << "compare " << H.Name << ": " << H.Data.size()
                 << " elements, " << Bad << " mismatches";
    if (Bad)
      llvm::outs() << " (element " << Worst << ": got "
                   << toDouble(H.Elem, H.Data[Worst]) << ", expected "
                   << It->second[Worst] << ")";
    llvm::outs() << "\n";
    Ok &= Bad == 0;
  }
  return Ok;
}

int run(const Options &O) {
  std::optional<Target> Tgt = parseTarget(O.TargetName);
  if (!Tgt) {
    llvm::errs() << "tilec-run: error: unknown target '" << O.TargetName
                 << "'\n";
    return 1;
  }
  auto Buf = llvm::MemoryBuffer::getFileOrSTDIN(O.Input);
  if (!Buf) {
    llvm::errs() << "tilec-run: error: cannot open '" << O.Input << "'\n";
    return 1;
  }
  llvm::SourceMgr SM;
  unsigned ID = SM.AddNewSourceBuffer(std::move(*Buf), llvm::SMLoc());
  DiagnosticEngine Diags(SM);
  std::unique_ptr<ir::Operation> Module = ir::parseIR(SM, ID, Diags);
  if (!Module || !ir::verify(*Module, Diags))
    return 1;
  for (const ir::Operation &Func : Module->getBody()) {
    std::vector<int64_t> Symbols;
    std::vector<HostBuffer> Params;
    if (!makeParams(Func, O, Symbols, Params) ||
        !runFunc(Func, Symbols, Params, *Tgt, Diags))
      return 1;
    std::error_code EC;
    llvm::raw_fd_ostream OS(O.Output, EC);
    if (EC) {
      llvm::errs() << "tilec-run: error: cannot write '" << O.Output << "'\n";
      return 1;
    }
    writeParams(Params, OS);
    if (!O.Compare.empty() && !compare(Params, O))
      return 1;
    return 0;
  }
  llvm::errs() << "tilec-run: error: the module has no func\n";
  return 1;
}

} // namespace

int main(int Argc, char **Argv) {
  Options O;
  if (!parseArgs(Argc, Argv, O)) {
    llvm::errs() << Usage;
    return 2;
  }
  return run(O);
}
