//===- TileMutator.h - Structure-aware mutations of .tile text -*- C++ -*-===//
//
// libFuzzer's byte-level mutations rarely keep a .tile program parseable,
// so a fuzzer seeded with working kernels spends most of its time in the
// lexer. These mutations change what matters to the passes while keeping
// the program well-formed:
//   - an integer literal (a tile size, an extent, a -D default) becomes a
//     nearby value, a power of two, zero, a negative or a huge value;
//   - a dtype name becomes another dtype name;
//   - two lines swap (statement order: uses before allocs, copies after
//     gemms, ...).
// Each returns false when the input offers nothing to mutate; the caller
// then falls back to LLVMFuzzerMutate.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_FUZZ_TILEMUTATOR_H
#define TILEC_FUZZ_TILEMUTATOR_H

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace tilec {
namespace fuzz {

using Rng = std::minstd_rand;

/// [Begin, End) ranges of the decimal integer literals of \p Text (digits
/// not preceded by an identifier character or a dot, not followed by one).
inline std::vector<std::pair<size_t, size_t>>
integerLiterals(const std::string &Text) {
  std::vector<std::pair<size_t, size_t>> Out;
  auto IsWord = [](char C) {
    return std::isalnum(static_cast<unsigned char>(C)) || C == '_' || C == '.';
  };
  for (size_t I = 0; I < Text.size();) {
    if (!std::isdigit(static_cast<unsigned char>(Text[I])) ||
        (I > 0 && IsWord(Text[I - 1]))) {
      ++I;
      continue;
    }
    size_t E = I;
    while (E < Text.size() && std::isdigit(static_cast<unsigned char>(Text[E])))
      ++E;
    if (E == Text.size() || !IsWord(Text[E]))
      Out.push_back({I, E});
    I = E;
  }
  return Out;
}

/// A replacement for the integer \p Old: the values that break size
/// arithmetic, tiling and layout enumeration most often.
inline std::string mutatedInteger(long long Old, Rng &R) {
  switch (R() % 8) {
  case 0:
    return std::to_string(Old + static_cast<long long>(R() % 5) - 2);
  case 1:
    return std::to_string(1LL << (R() % 17));
  case 2:
    return "0";
  case 3:
    return "-" + std::to_string(1 + R() % 128);
  case 4:
    return "(1 << " + std::to_string(20 + R() % 44) + ")";
  case 5:
    return std::to_string(Old * 2);
  case 6:
    return std::to_string(std::max(1LL, Old / 2));
  default:
    return std::to_string(R() % 300);
  }
}

inline bool mutateInteger(std::string &Text, Rng &R) {
  auto Literals = integerLiterals(Text);
  if (Literals.empty())
    return false;
  auto [B, E] = Literals[R() % Literals.size()];
  long long Old = std::stoll("0" + Text.substr(B, std::min<size_t>(E - B, 17)));
  Text.replace(B, E - B, mutatedInteger(Old, R));
  return true;
}

/// The dtype spellings tile programs use, as string literals.
inline const std::vector<std::string> &dtypeNames() {
  static const std::vector<std::string> Names = {
      "\"float16\"", "\"bfloat16\"",    "\"float32\"", "\"float64\"",
      "\"int8\"",    "\"uint8\"",       "\"int32\"",   "\"int64\"",
      "\"bool\"",    "\"float8_e4m3\"", "\"int4\"",    "\"float8_e5m2\""};
  return Names;
}

inline bool mutateDType(std::string &Text, Rng &R) {
  std::vector<std::pair<size_t, size_t>> Found;
  for (const std::string &N : dtypeNames())
    for (size_t P = Text.find(N); P != std::string::npos;
         P = Text.find(N, P + 1))
      Found.push_back({P, N.size()});
  if (Found.empty())
    return false;
  auto [Pos, Len] = Found[R() % Found.size()];
  const std::string &New = dtypeNames()[R() % dtypeNames().size()];
  Text.replace(Pos, Len, New);
  return true;
}

inline bool swapLines(std::string &Text, Rng &R) {
  std::vector<std::string> Lines;
  for (size_t B = 0; B <= Text.size();) {
    size_t E = Text.find('\n', B);
    if (E == std::string::npos)
      E = Text.size();
    Lines.push_back(Text.substr(B, E - B));
    B = E + 1;
  }
  if (Lines.size() < 2)
    return false;
  size_t A = R() % Lines.size(), B = R() % Lines.size();
  // Nearby lines keep the indentation structure more often.
  if (R() % 2)
    B = std::min(Lines.size() - 1, A + 1 + R() % 3);
  std::swap(Lines[A], Lines[B]);
  std::string Out;
  for (size_t I = 0; I != Lines.size(); ++I)
    Out += Lines[I] + (I + 1 == Lines.size() ? "" : "\n");
  Text = std::move(Out);
  return true;
}

/// One structured mutation of \p Text; false when none applied.
inline bool mutateTile(std::string &Text, unsigned Seed) {
  Rng R(Seed);
  switch (R() % 4) {
  case 0:
  case 1:
    return mutateInteger(Text, R);
  case 2:
    return mutateDType(Text, R);
  default:
    return swapLines(Text, R);
  }
}

} // namespace fuzz
} // namespace tilec

#endif
