//===- HostExprs.cpp - f-strings, comprehensions, sets, := ----------------===//
//
// The Python expressions kernels' compile-time helpers use beyond the
// basics: f-strings with Python's format-spec mini-language, list, set, dict
// and generator comprehensions (evaluated eagerly; a generator becomes a
// list), set displays (lists without duplicates) and assignment
// expressions. Host-only expressions (await, yield) are errors when
// compile-time evaluation reaches them.
//
//===----------------------------------------------------------------------===//

#include "Interp.h"
#include "llvm/ADT/StringExtras.h"
#include <cmath>
#include <fmt/format.h>

using namespace tilec;
using namespace tilec::sema;
using namespace tilec::ast;

//===----------------------------------------------------------------------===//
// Format specs
//===----------------------------------------------------------------------===//

namespace {
// format_spec -> [[fill]align][sign]['#']['0'][width][grouping]['.' prec][type]
struct FormatSpec {
  char Fill = ' ';
  char Align = 0;
  char Sign = '-';
  bool Alt = false;
  bool ZeroPad = false;
  size_t Width = 0;
  char Group = 0;
  int Prec = -1;
  char Type = 0;
};

bool isAlign(char C) { return C == '<' || C == '>' || C == '^' || C == '='; }

size_t parseDigits(llvm::StringRef &S) {
  size_t N = 0, Used = 0;
  while (Used < S.size() && llvm::isDigit(S[Used]) && N < 100000)
    N = N * 10 + (S[Used++] - '0');
  S = S.drop_front(Used);
  return N;
}

bool parseSpec(llvm::StringRef S, FormatSpec &F) {
  if (S.size() >= 2 && isAlign(S[1])) {
    F.Fill = S[0];
    F.Align = S[1];
    S = S.drop_front(2);
  } else if (!S.empty() && isAlign(S[0])) {
    F.Align = S[0];
    S = S.drop_front();
  }
  if (!S.empty() && (S[0] == '+' || S[0] == '-' || S[0] == ' ')) {
    F.Sign = S[0];
    S = S.drop_front();
  }
  if (S.consume_front("#"))
    F.Alt = true;
  if (S.consume_front("0"))
    F.ZeroPad = true;
  F.Width = parseDigits(S);
  if (!S.empty() && (S[0] == ',' || S[0] == '_')) {
    F.Group = S[0];
    S = S.drop_front();
  }
  if (S.consume_front(".")) {
    if (S.empty() || !llvm::isDigit(S[0]))
      return false;
    F.Prec = int(parseDigits(S));
  }
  if (!S.empty()) {
    F.Type = S[0];
    S = S.drop_front();
  }
  return S.empty();
}

/// Inserts a separator every three digits of the integer part.
std::string groupDigits(const std::string &Digits, char Sep) {
  size_t End = Digits.find_first_not_of("0123456789");
  if (End == std::string::npos)
    End = Digits.size();
  std::string Out;
  for (size_t I = 0; I < End; ++I) {
    if (I && (End - I) % 3 == 0)
      Out += Sep;
    Out += Digits[I];
  }
  return Out + Digits.substr(End);
}

std::optional<std::string> formatInt(int64_t V, const FormatSpec &F) {
  uint64_t Mag = V < 0 ? 0 - uint64_t(V) : uint64_t(V);
  std::string Digits;
  switch (F.Type) {
  case 0:
  case 'd':
  case 'n':
    Digits = std::to_string(Mag);
    break;
  case 'x':
  case 'X':
    Digits = (F.Alt ? "0x" : "") + fmt::format("{:x}", Mag);
    if (F.Type == 'X')
      Digits = llvm::StringRef(Digits).upper();
    break;
  case 'o':
    Digits = (F.Alt ? "0o" : "") + fmt::format("{:o}", Mag);
    break;
  case 'b':
    Digits = (F.Alt ? "0b" : "") + fmt::format("{:b}", Mag);
    break;
  default:
    return std::nullopt;
  }
  if (F.Group)
    Digits = groupDigits(Digits, F.Group);
  std::string Sign = V < 0           ? "-"
                     : F.Sign == '+' ? "+"
                     : F.Sign == ' ' ? " "
                                     : "";
  return Sign + Digits;
}

std::optional<std::string> formatFloat(double V, const FormatSpec &F) {
  int P = F.Prec < 0 ? 6 : F.Prec;
  double Mag = std::fabs(V);
  std::string Body;
  switch (F.Type) {
  case 'f':
  case 'F':
    Body = fmt::format("{:.{}f}", Mag, P);
    break;
  case 'e':
  case 'E':
    Body = fmt::format(F.Type == 'e' ? "{:.{}e}" : "{:.{}E}", Mag, P);
    break;
  case 'g':
  case 'G':
  case 'n':
    Body = fmt::format(F.Type == 'G' ? "{:.{}G}" : "{:.{}g}", Mag, P ? P : 1);
    break;
  case '%':
    Body = fmt::format("{:.{}f}%", Mag * 100, P);
    break;
  case 0:
    Body = F.Prec < 0 ? repr(Value::real(Mag))
                      : fmt::format("{:.{}g}", Mag, P ? P : 1);
    break;
  default:
    return std::nullopt;
  }
  if (F.Group)
    Body = groupDigits(Body, F.Group);
  bool Neg = std::signbit(V) && !std::isnan(V);
  std::string Sign = Neg ? "-" : F.Sign == '+' ? "+" : F.Sign == ' ' ? " " : "";
  return Sign + Body;
}

/// Pads \p Body to the spec's width; numbers align right by default and
/// '=' (or a '0' flag) pads between the sign and the digits.
std::string pad(std::string Body, const FormatSpec &F, bool Numeric) {
  if (Body.size() >= F.Width)
    return Body;
  size_t N = F.Width - Body.size();
  char Align = F.Align ? F.Align
                       : (F.ZeroPad && Numeric ? '='
                          : Numeric            ? '>'
                                               : '<');
  char Fill = !F.Align && F.ZeroPad ? '0' : F.Fill;
  switch (Align) {
  case '<':
    return Body + std::string(N, Fill);
  case '^':
    return std::string(N / 2, Fill) + Body + std::string(N - N / 2, Fill);
  case '=': {
    size_t SignLen = !Body.empty() && llvm::StringRef("+- ").contains(Body[0]);
    return Body.substr(0, SignLen) + std::string(N, Fill) +
           Body.substr(SignLen);
  }
  default:
    return std::string(N, Fill) + Body;
  }
}
} // namespace

std::optional<std::string> sema::formatWithSpec(const Value &V,
                                                llvm::StringRef Spec) {
  FormatSpec F;
  if (!parseSpec(Spec, F))
    return std::nullopt;
  bool FloatType = F.Type && llvm::StringRef("eEfFgG%").contains(F.Type);
  if (V.isIntLike() && !FloatType) {
    auto S = formatInt(V.getInt(), F);
    return S ? std::optional(pad(*S, F, true)) : std::nullopt;
  }
  if (V.isNumber()) {
    auto S = formatFloat(V.getNumber(), F);
    return S ? std::optional(pad(*S, F, true)) : std::nullopt;
  }
  if (F.Type && F.Type != 's')
    return std::nullopt;
  std::string S = V.isStr() ? V.getStr() : repr(V);
  if (F.Prec >= 0 && size_t(F.Prec) < S.size())
    S.resize(F.Prec);
  return pad(S, F, false);
}

//===----------------------------------------------------------------------===//
// f-strings
//===----------------------------------------------------------------------===//

/// str(), repr() or a format spec applied to one replacement field.
static std::optional<std::string> formatField(Interp &I, const FStringPart &P,
                                              const Value &V) {
  std::string Spec;
  if (P.FormatSpec) {
    Value S = I.eval(P.FormatSpec.get());
    if (!S.isStr())
      return std::nullopt;
    Spec = S.getStr();
  }
  Value Shown = V;
  if (P.Conversion == 'r' || P.Conversion == 'a')
    Shown = Value::str(V.isStr() ? "'" + V.getStr() + "'" : repr(V));
  auto Out = formatWithSpec(Shown, Spec);
  if (!Out)
    I.error(P.Value->getRange(), diag::err_bad_format_spec)
        << Spec << typeName(Shown);
  return Out;
}

Value Interp::evalJoinedStr(const JoinedStrExpr *E) {
  std::string Out;
  for (const FStringPart &P : E->Parts) {
    if (!P.Value) {
      Out += P.Literal;
      continue;
    }
    Value V = eval(P.Value.get());
    if (V.isPoison())
      return V;
    if (V.isRuntime() || V.getAs<BufferRefObj>()) {
      reportNotCompileTime(V, P.Value->getRange(), "an f-string field");
      return Value::poison();
    }
    auto S = formatField(*this, P, V);
    if (!S)
      return Value::poison();
    Out += *S;
  }
  return Value::str(std::move(Out));
}

//===----------------------------------------------------------------------===//
// Comprehensions
//===----------------------------------------------------------------------===//

namespace {
/// Runs the `for`/`if` clauses of a comprehension from clause K on, calling
/// Emit for every binding that passes the filters.
class ComprehensionRunner {
public:
  ComprehensionRunner(Interp &I, const ComprehensionExpr &E,
                      llvm::function_ref<bool()> Emit)
      : I(I), E(E), Emit(Emit) {}

  bool run(size_t K) {
    if (K == E.Fors.size())
      return Emit();
    const ComprehensionFor &F = E.Fors[K];
    auto Items = I.iterate(I.eval(F.Iter.get()), F.Iter->getRange());
    if (!Items)
      return false;
    for (const Value &Item : *Items) {
      if (++Count > I.Opts.MaxLoopIterations) {
        I.fatal(E.getRange(), diag::err_loop_limit) << I.Opts.MaxLoopIterations;
        return false;
      }
      I.assign(F.Target.get(), Item, F.Iter->getRange());
      auto Keep = passes(F);
      if (!Keep)
        return false;
      if (*Keep && !run(K + 1))
        return false;
    }
    return !I.Aborting;
  }

private:
  std::optional<bool> passes(const ComprehensionFor &F) {
    for (const ExprPtr &Cond : F.Ifs) {
      auto T = I.truthy(I.eval(Cond.get()), Cond->getRange());
      if (!T || !*T)
        return T;
    }
    return true;
  }

  Interp &I;
  const ComprehensionExpr &E;
  llvm::function_ref<bool()> Emit;
  uint64_t Count = 0;
};

void addUnique(std::vector<Value> &Out, Value V) {
  for (const Value &O : Out)
    if (equals(O, V))
      return;
  Out.push_back(std::move(V));
}

} // namespace

/// Comprehensions have their own scope, as in Python 3: the loop targets
/// do not leak into the enclosing function.
Value Interp::evalComprehension(const ComprehensionExpr *E) {
  std::shared_ptr<Scope> Outer = frame().Locals;
  frame().Locals = std::make_shared<Scope>(Outer);
  // The loop targets live in the comprehension's scope: they must not be
  // logged as assignments of an enclosing runtime region (which would make
  // an outer name of the same spelling stale when the region closes).
  std::vector<RegionLog> Regions = std::move(frame().Regions);
  frame().Regions.clear();
  std::vector<Value> Elts;
  auto Dict = std::make_shared<DictData>();
  auto Emit = [&] {
    Value V = eval(E->Elt.get());
    if (V.isPoison())
      return false;
    if (E->CK == ComprehensionExpr::CompKind::Dict)
      Dict->set(V, eval(E->DictValue.get()));
    else if (E->CK == ComprehensionExpr::CompKind::Set)
      addUnique(Elts, std::move(V));
    else
      Elts.push_back(std::move(V));
    return true;
  };
  bool OK = ComprehensionRunner(*this, *E, Emit).run(0);
  frame().Locals = Outer;
  frame().Regions = std::move(Regions);
  if (!OK)
    return Value::poison();
  if (E->CK == ComprehensionExpr::CompKind::Dict)
    return Value::dict(std::move(Dict));
  return Value::list(std::move(Elts));
}

//===----------------------------------------------------------------------===//
// Sets, :=, dict displays, host-only expressions
//===----------------------------------------------------------------------===//

Value Interp::evalSet(const SetExpr *E) {
  std::vector<Value> Out;
  for (const ExprPtr &Elt : E->Elts) {
    if (auto *S = llvm::dyn_cast<StarredExpr>(Elt.get())) {
      auto Items = iterate(eval(S->Value.get()), S->Value->getRange());
      if (!Items)
        return Value::poison();
      for (const Value &V : *Items)
        addUnique(Out, V);
      continue;
    }
    addUnique(Out, eval(Elt.get()));
  }
  return Value::list(std::move(Out));
}

Value Interp::evalNamed(const NamedExpr *E) {
  Value V = eval(E->Value.get());
  assign(E->Target.get(), V, E->Value->getRange());
  return V;
}

Value Interp::evalDict(const DictExpr *D) {
  auto Data = std::make_shared<DictData>();
  for (size_t K = 0; K < D->Keys.size(); ++K) {
    Value Val = eval(D->Values[K].get());
    if (D->Keys[K]) {
      Data->set(eval(D->Keys[K].get()), std::move(Val));
      continue;
    }
    if (!Val.isDict()) {
      if (!Val.isPoison())
        error(D->Values[K]->getRange(), diag::err_type_mismatch)
            << "'**' in a dict display"
            << "a dict" << typeName(Val);
      return Value::poison();
    }
    for (const auto &[Key, V] : Val.getDict().Items)
      Data->set(Key, V);
  }
  return Value::dict(std::move(Data));
}

Value Interp::evalHostOnly(const Expr *E, llvm::StringRef What) {
  error(E->getRange(), diag::err_host_construct) << What;
  return Value::poison();
}
