//===- AsyncCopies.cpp - Copies lower-pipelined makes asynchronous --------===//

#include "AsyncCopies.h"
#include "PredicatedCopy.h"
#include "SharedAccesses.h"
#include "tilec/IR/Builder.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include <optional>

using namespace tilec;
using namespace tilec::ir;

int64_t tilec::asyncBytes(const Operation &Op) {
  if (!Op.is(OpKind::VCopy) ||
      !Op.getGroup(0).front()->isBufferIn(Scope::Shared) ||
      !Op.getGroup(1).front()->isBufferIn(Scope::Global))
    return 0;
  DType T = Op.getGroup(0).front()->getType().getDType();
  // A converting vcopy (different dtypes) is not a plain byte copy.
  if (Op.getGroup(1).front()->getType().getDType() != T)
    return 0;
  int64_t Bytes = Op.getIntAttr("lanes").value_or(1) * memoryBits(T) / 8;
  return Bytes == 4 || Bytes == 8 || Bytes == 16 ? Bytes : 0;
}

bool tilec::hasAsyncCopy(Operation &Root) {
  bool Found = false;
  Root.walk([&](Operation &Op) {
    Found |= asyncBytes(Op) != 0 || predicatedCopyBytes(Op) != 0;
  });
  return Found;
}

void tilec::makeAsync(Operation &Root) {
  std::vector<Operation *> Guarded = Root.collect(predicatedCopyBytes);
  for (Operation *Loop : Guarded)
    makePredicatedCopy(*Loop);
  if (llvm::is_contained(Guarded, &Root))
    return;
  std::vector<Operation *> Copies = Root.collect(asyncBytes);
  for (Operation *Copy : Copies) {
    Builder B;
    B.setInsertionPoint(Copy);
    B.setLoc(Copy->getLoc());
    B.create(OpKind::CpAsync, Copy->getOperands(), Copy->getSegments(), {},
             {{"bytes", Attribute::integer(asyncBytes(*Copy))}});
    Copy->erase();
  }
}

namespace {

using BufferSet = llvm::SmallPtrSet<Value *, 4>;

/// The shared buffers \p Op writes, when it writes and never reads shared
/// memory; nullopt otherwise.
std::optional<BufferSet> writtenOnly(Operation &Op) {
  BufferSet Written;
  for (const SharedAccess &A : nestedAccesses(Op)) {
    if (!A.Write || A.Atomic)
      return std::nullopt;
    Written.insert(A.buffer());
  }
  return Written;
}

bool touches(Operation &Op, const BufferSet &Bufs) {
  return llvm::any_of(nestedAccesses(Op), [&](const SharedAccess &A) {
    return Bufs.contains(A.buffer());
  });
}

bool mayLeaveBlock(Operation &Op) {
  bool Found = false;
  Op.walk([&](Operation &Inner) {
    Found |= Inner.is(OpKind::Break) || Inner.is(OpKind::Continue);
  });
  return Found;
}

/// Every buffer of \p Bufs is read in \p Loop and written nowhere in it.
bool onlyReadIn(Operation &Loop, const BufferSet &Bufs) {
  BufferSet Read;
  for (const SharedAccess &A : nestedAccesses(Loop)) {
    if (!Bufs.contains(A.buffer()))
      continue;
    if (A.Write)
      return false;
    Read.insert(A.buffer());
  }
  return Read.size() == Bufs.size();
}

} // namespace

std::vector<Operation *> tilec::prologueCopies(Operation &Loop) {
  std::vector<Operation *> Result;
  // The ops between a candidate and the loop: none may touch its tiles or
  // leave the block.
  std::vector<Operation *> Between;
  for (Operation *Op = Loop.getPrevNode(); Op; Op = Op->getPrevNode()) {
    std::optional<BufferSet> Written;
    if (hasAsyncCopy(*Op))
      Written = writtenOnly(*Op);
    bool Joins = Written && !Written->empty() && onlyReadIn(Loop, *Written) &&
                 llvm::none_of(Between, [&](Operation *Later) {
                   return touches(*Later, *Written) || mayLeaveBlock(*Later);
                 });
    if (Joins)
      Result.insert(Result.begin(), Op);
    Between.push_back(Op);
  }
  return Result;
}
