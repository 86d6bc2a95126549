//===- Token.cpp - Token kind names ---------------------------------------===//

#include "tilec/Parse/Token.h"
#include "llvm/ADT/StringSwitch.h"
#include <string>
#include <vector>

using namespace tilec;

namespace {
struct KindInfo {
  const char *DumpName;
  const char *Description;
};

#define TILEC_TOK(K, N) {N, nullptr},
#define TILEC_PUNCT(K, N, S) {N, "'" S "'"},
#define TILEC_KEYWORD(K, S) {nullptr, "'" S "'"},
const KindInfo Infos[] = {TILEC_TOKENS(TILEC_TOK, TILEC_PUNCT, TILEC_KEYWORD)};
#undef TILEC_TOK
#undef TILEC_PUNCT
#undef TILEC_KEYWORD

// Keywords dump as their upper-cased spelling: DEF, IF, TRUE.
#define TILEC_TOK(K, N)
#define TILEC_PUNCT(K, N, S)
#define TILEC_KEYWORD(K, S) S,
const char *const KeywordSpellings[] = {
    TILEC_TOKENS(TILEC_TOK, TILEC_PUNCT, TILEC_KEYWORD)};
#undef TILEC_TOK
#undef TILEC_PUNCT
#undef TILEC_KEYWORD

constexpr unsigned NumKeywords =
    sizeof(KeywordSpellings) / sizeof(KeywordSpellings[0]);
constexpr unsigned FirstKeyword = tok::NumKinds - NumKeywords;
} // namespace

llvm::StringRef tok::dumpName(Kind K) {
  assert(K < NumKinds && "bad token kind");
  if (K < FirstKeyword)
    return Infos[K].DumpName;
  static const std::vector<std::string> KeywordNames = [] {
    std::vector<std::string> Names;
    for (const char *S : KeywordSpellings)
      Names.push_back(llvm::StringRef(S).upper());
    return Names;
  }();
  return KeywordNames[K - FirstKeyword];
}

llvm::StringRef tok::describe(Kind K) {
  assert(K < NumKinds && "bad token kind");
  switch (K) {
  case Eof:
    return "end of file";
  case Newline:
    return "end of line";
  case Indent:
    return "indent";
  case Dedent:
    return "dedent";
  case Name:
    return "name";
  case Int:
  case Float:
    return "number";
  case String:
    return "string";
  default:
    return Infos[K].Description;
  }
}

tok::Kind tok::keywordKind(llvm::StringRef Word) {
  return llvm::StringSwitch<Kind>(Word)
#define TILEC_TOK(K, N)
#define TILEC_PUNCT(K, N, S)
#define TILEC_KEYWORD(K, S) .Case(S, K)
      TILEC_TOKENS(TILEC_TOK, TILEC_PUNCT, TILEC_KEYWORD)
#undef TILEC_TOK
#undef TILEC_PUNCT
#undef TILEC_KEYWORD
          .Default(Name);
}
