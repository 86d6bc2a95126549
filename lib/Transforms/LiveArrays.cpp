//===- LiveArrays.cpp - Per-thread arrays held at once --------------------===//

#include "LiveArrays.h"
#include "tilec/IR/Value.h"
#include "llvm/ADT/DenseMap.h"
#include <algorithm>
#include <optional>

using namespace tilec;
using namespace tilec::ir;

namespace {

/// An op's pre-order number and the last number of the ops nested in it.
struct Span {
  unsigned Begin = 0, End = 0;
};

/// One use of an array: the op and the operand index it uses it at.
struct Access {
  Operation *User;
  unsigned Index;
};

void collectAccesses(const Value &V, std::vector<Access> &Out) {
  for (const Use &U : V.getUses()) {
    if (U.User->is(OpKind::View))
      collectAccesses(*U.User->getResult(), Out);
    else
      Out.push_back({U.User, U.Index});
  }
}

/// True when the access writes the array without reading what it held.
bool overwrites(const Access &A) {
  const Operation &Op = *A.User;
  if (Op.is(OpKind::Store))
    return A.Index == Op.getGroupStart(1);
  if (Op.is(OpKind::VCopy))
    return A.Index == 0;
  if (Op.is(OpKind::Gemm))
    return A.Index == 2 && Op.getBoolAttr("clear_accum").value_or(false);
  return false;
}

bool isLoop(const Operation &Op) {
  return Op.is(OpKind::For) || Op.is(OpKind::While);
}

class LiveRanges {
public:
  explicit LiveRanges(Operation &Kernel) { number(Kernel); }

  /// The positions over which \p Alloc's array is live; none when unused.
  std::optional<Span> rangeOf(const Operation &Alloc) const {
    std::vector<Access> Accesses;
    collectAccesses(*Alloc.getResult(), Accesses);
    if (Accesses.empty())
      return std::nullopt;
    Span S{~0u, 0};
    for (const Access &A : Accesses) {
      unsigned P = at(*A.User).Begin;
      S = {std::min(S.Begin, P), std::max(S.End, P)};
    }
    for (const Access &A : Accesses)
      for (Operation *P = A.User->getParentOp(); P && !P->isAncestorOf(&Alloc);
           P = P->getParentOp())
        if (isLoop(*P) && carries(*P, Accesses))
          S = {std::min(S.Begin, at(*P).Begin), std::max(S.End, at(*P).End)};
    return S;
  }

private:
  llvm::DenseMap<const Operation *, Span> Spans;
  unsigned Next = 0;

  void number(Operation &Op) {
    unsigned Begin = Next++;
    for (unsigned R = 0; R != Op.getNumRegions(); ++R)
      for (Operation &Child : Op.getBody(R))
        number(Child);
    Spans[&Op] = {Begin, Next - 1};
  }

  Span at(const Operation &Op) const { return Spans.lookup(&Op); }

  /// True unless the first access inside \p Loop overwrites the array
  /// unconditionally: then no value flows from one iteration to the next.
  bool carries(const Operation &Loop,
               const std::vector<Access> &Accesses) const {
    const Access *First = nullptr;
    for (const Access &A : Accesses)
      if (Loop.isAncestorOf(A.User) &&
          (!First || at(*A.User).Begin < at(*First->User).Begin))
        First = &A;
    if (!First || !overwrites(*First))
      return true;
    for (Operation *P = First->User->getParentOp(); P != &Loop;
         P = P->getParentOp())
      if (P->is(OpKind::If))
        return true;
    return false;
  }
};

} // namespace

void tilec::computeLiveRanges(Operation &Kernel,
                              std::vector<LiveArray> &Arrays) {
  LiveRanges Ranges(Kernel);
  for (LiveArray &A : Arrays)
    if (std::optional<Span> S = Ranges.rangeOf(*A.Alloc)) {
      A.Begin = S->Begin;
      A.End = S->End;
    }
}

std::vector<LiveArray>
tilec::peakLiveArrays(const std::vector<LiveArray> &Arrays) {
  // The total is largest where some range begins.
  std::vector<LiveArray> Best;
  int64_t BestBytes = -1;
  for (const LiveArray &Candidate : Arrays) {
    unsigned At = Candidate.Begin;
    if (At > Candidate.End)
      continue;
    std::vector<LiveArray> Here;
    int64_t Bytes = 0;
    for (const LiveArray &A : Arrays)
      if (A.Begin <= At && At <= A.End) {
        Here.push_back(A);
        Bytes += A.Bytes;
      }
    if (Bytes > BestBytes) {
      BestBytes = Bytes;
      Best = std::move(Here);
    }
  }
  return Best;
}
