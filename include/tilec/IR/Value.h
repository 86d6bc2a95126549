//===- Value.h - SSA values of the tile IR ---------------------*- C++ -*-===//
//
// A Value is either the result of an Operation or an argument of a Block.
// Its owner (the op or the block) owns it; users hold plain pointers. Each
// value keeps the list of (operation, operand index) pairs that use it, so
// replaceAllUsesWith and use checks are cheap. The name hint is only for
// printing ("%A_shared"); it carries no meaning and need not be unique.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_IR_VALUE_H
#define TILEC_IR_VALUE_H

#include "tilec/IR/Type.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include <string>

namespace tilec {
namespace ir {

class Block;
class Operation;

/// One use of a value: operand number Index of User.
struct Use {
  Operation *User;
  unsigned Index;
};

class Value {
public:
  Value(const Value &) = delete;
  Value &operator=(const Value &) = delete;
  ~Value();

  const Type &getType() const { return Ty; }
  /// Whether this value is a buffer in memory scope \p S.
  bool isBufferIn(Scope S) const { return Ty.isBufferIn(S); }
  void setType(Type T) { Ty = std::move(T); }

  llvm::StringRef getNameHint() const { return NameHint; }
  void setNameHint(llvm::StringRef Name) { NameHint = Name.str(); }

  bool isBlockArgument() const { return OwnerBlock != nullptr; }
  /// The op whose result this is; null for block arguments.
  Operation *getDefiningOp() const { return DefOp; }
  /// The block this is an argument of; null for op results.
  Block *getOwnerBlock() const { return OwnerBlock; }
  /// Result number, or argument number for block arguments.
  unsigned getIndex() const { return Index; }
  /// The block in which the value becomes visible: the owner block of an
  /// argument, or the block containing the defining op (null when the op
  /// is not inserted anywhere).
  Block *getParentBlock() const;

  llvm::ArrayRef<Use> getUses() const { return Uses; }
  bool use_empty() const { return Uses.empty(); }
  bool hasOneUse() const { return Uses.size() == 1; }
  /// Makes every user of this value use New instead.
  void replaceAllUsesWith(Value *New);

private:
  friend class Operation;
  friend class Block;
  Value(Type Ty, llvm::StringRef NameHint, Operation *DefOp, Block *Owner,
        unsigned Index)
      : Ty(std::move(Ty)), NameHint(NameHint.str()), DefOp(DefOp),
        OwnerBlock(Owner), Index(Index) {}
  void addUse(Operation *User, unsigned Index);
  void removeUse(Operation *User, unsigned Index);

  Type Ty;
  std::string NameHint;
  Operation *DefOp;
  Block *OwnerBlock;
  unsigned Index;
  llvm::SmallVector<Use, 4> Uses;
};

} // namespace ir
} // namespace tilec

#endif
