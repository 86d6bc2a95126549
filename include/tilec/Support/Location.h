//===- Location.h - Source locations for diagnostics and IR ----*- C++ -*-===//
//
// A Location names a place in user source. Locations made by the .tile
// front end carry an SMRange into a SourceMgr buffer, so diagnostics can show
// the source line with a caret. Locations parsed from IR text
// (`loc("gemm.tile":12:5)`) carry only file/line/column; the diagnostic engine
// loads the file on demand to show the line when it still exists.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_SUPPORT_LOCATION_H
#define TILEC_SUPPORT_LOCATION_H

#include "llvm/Support/SMLoc.h"
#include <string>

namespace tilec {

struct Location {
  llvm::SMRange Range;
  std::string File;
  unsigned Line = 0;
  unsigned Col = 0;

  Location() = default;
  Location(llvm::SMLoc L) : Range(L, L) {}
  Location(llvm::SMRange R) : Range(R) {}
  Location(std::string File, unsigned Line, unsigned Col)
      : File(std::move(File)), Line(Line), Col(Col) {}

  bool hasRange() const { return Range.Start.isValid(); }
  bool isKnown() const { return hasRange() || Line != 0; }
  llvm::SMLoc start() const { return Range.Start; }
};

} // namespace tilec

#endif
