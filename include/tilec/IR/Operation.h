//===- Operation.h - Operations, blocks and regions ------------*- C++ -*-===//
//
// The tile IR is a tree of Operations with structured regions:
//
//   Operation --owns--> Region (0..n) --owns--> Block (exactly one)
//   Block --owns--> arguments (Values) and a list of Operations
//   Operation --owns--> results (Values); operands are Value pointers
//
// There is no CFG: control flow is expressed by ops with regions (for,
// parallel, if, while), and blocks carry no values out. Operands are one
// flat list split into groups by Segments (a group is a value, or a buffer
// followed by its index operands: `%buf[%i, %j]`).
//
// Invariants kept by this API (checked by asserts): an op is in at most one
// block; an op is destroyed only when none of its results has a use;
// use-lists always match the operand lists. The verifier (Verifier.h)
// checks the rest (types, counts, dominance).
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_IR_OPERATION_H
#define TILEC_IR_OPERATION_H

#include "tilec/IR/Attribute.h"
#include "tilec/IR/Type.h"
#include "tilec/IR/Value.h"
#include "tilec/Support/Location.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/iterator.h"
#include <list>
#include <memory>
#include <optional>
#include <vector>

namespace llvm {
class raw_ostream;
}

namespace tilec {
namespace ir {

enum class OpKind : uint8_t {
#define OP(Kind, Mnemonic, NumOperands, NumResults, NumRegions) Kind,
#include "tilec/IR/Ops.def"
};

constexpr unsigned NumOpKinds = unsigned(OpKind::Continue) + 1;

/// The IR mnemonic of \p K ("add", "use_swizzle").
llvm::StringRef mnemonic(OpKind K);
std::optional<OpKind> parseOpKind(llvm::StringRef Mnemonic);
/// Fixed counts from Ops.def; -1 means variable.
int fixedNumOperands(OpKind K);
int fixedNumResults(OpKind K);
int fixedNumRegions(OpKind K);
/// add, sub, ... shr (the BINARY_OP rows of Ops.def).
bool isBinaryOp(OpKind K);
/// not, neg.
bool isUnaryOp(OpKind K);

/// Predicates of `cmp` (attribute `pred`).
enum class CmpPred : uint8_t { Eq, Ne, Lt, Le, Gt, Ge };
llvm::StringRef cmpPredName(CmpPred P);
std::optional<CmpPred> parseCmpPred(llvm::StringRef Name);

/// Number of operands the `math` function \p Fn takes (1 or 2);
/// std::nullopt for an unknown function. Unary: exp exp2 exp10 log log2
/// log10 log1p sqrt rsqrt abs sin cos tan asin acos atan sinh cosh tanh
/// sigmoid floor ceil round trunc erf rcp; binary: atan2 fmod hypot
/// copysign.
std::optional<unsigned> mathFnArity(llvm::StringRef Fn);

class Block;
class Region;
class Operation;

/// Old value -> new value, for cloning.
using ValueMap = llvm::DenseMap<const Value *, Value *>;

class Operation {
public:
  /// Creates a detached op. Segments must sum to Operands.size(); empty
  /// Segments means one group per operand.
  static std::unique_ptr<Operation>
  create(OpKind Kind, Location Loc, llvm::ArrayRef<Value *> Operands,
         llvm::ArrayRef<unsigned> Segments, llvm::ArrayRef<Type> ResultTypes,
         std::vector<NamedAttribute> Attrs, unsigned NumRegions);
  Operation(const Operation &) = delete;
  Operation &operator=(const Operation &) = delete;
  /// Asserts that no result is still used; drops this op's operand uses.
  ~Operation();

  OpKind getKind() const { return Kind; }
  bool is(OpKind K) const { return Kind == K; }
  llvm::StringRef getName() const { return mnemonic(Kind); }
  const Location &getLoc() const { return Loc; }
  void setLoc(Location L) { Loc = std::move(L); }

  //===--- Operands -------------------------------------------------------===//
  unsigned getNumOperands() const { return Operands.size(); }
  Value *getOperand(unsigned I) const { return Operands[I]; }
  llvm::ArrayRef<Value *> getOperands() const { return Operands; }
  void setOperand(unsigned I, Value *V);
  /// Replaces all operands and groups.
  void setOperands(llvm::ArrayRef<Value *> NewOperands,
                   llvm::ArrayRef<unsigned> NewSegments = {});
  /// Operand groups: `%buf[%i, %j]` is one group of size 3.
  llvm::ArrayRef<unsigned> getSegments() const { return Segments; }
  unsigned getNumGroups() const { return Segments.size(); }
  llvm::ArrayRef<Value *> getGroup(unsigned G) const;
  /// Index of the first operand of group G in getOperands().
  unsigned getGroupStart(unsigned G) const;

  //===--- Results --------------------------------------------------------===//
  unsigned getNumResults() const { return Results.size(); }
  Value *getResult(unsigned I = 0) const { return Results[I].get(); }
  /// True when no result has a use.
  bool use_empty() const;

  //===--- Attributes -----------------------------------------------------===//
  const std::vector<NamedAttribute> &getAttrs() const { return Attrs; }
  /// Null when absent.
  const Attribute *getAttr(llvm::StringRef Name) const;
  bool hasAttr(llvm::StringRef Name) const { return getAttr(Name); }
  /// Replaces the value of an existing attribute in place, or appends.
  void setAttr(llvm::StringRef Name, Attribute Value);
  /// Returns true when the attribute existed.
  bool removeAttr(llvm::StringRef Name);
  /// Typed getters: std::nullopt when absent or of another kind.
  std::optional<int64_t> getIntAttr(llvm::StringRef Name) const;
  std::optional<double> getFloatAttr(llvm::StringRef Name) const;
  std::optional<bool> getBoolAttr(llvm::StringRef Name) const;
  std::optional<llvm::StringRef> getStringAttr(llvm::StringRef Name) const;
  std::optional<std::vector<int64_t>>
  getIntArrayAttr(llvm::StringRef Name) const;

  //===--- Regions --------------------------------------------------------===//
  unsigned getNumRegions() const { return Regions.size(); }
  Region &getRegion(unsigned I) const { return *Regions[I]; }
  /// The block of region I (each region has exactly one block).
  Block &getBody(unsigned I = 0) const;
  /// Appends an empty region (e.g. the else region of an `if`).
  Region &addRegion();

  //===--- Position in the tree -------------------------------------------===//
  Block *getParentBlock() const { return Parent; }
  /// The op owning the region this op is in; null at the top.
  Operation *getParentOp() const;
  /// True when this op is Other or contains Other in one of its regions.
  bool isAncestorOf(const Operation *Other) const;
  /// Nearest enclosing op of kind K (not this op itself).
  Operation *getParentOfKind(OpKind K) const;
  /// The op after/before this one in its block; null at the end/start.
  Operation *getNextNode() const;
  Operation *getPrevNode() const;

  /// Unlinks this op from its block and returns ownership.
  std::unique_ptr<Operation> remove();
  /// Unlinks and destroys this op (its results must be unused; ops nested
  /// in its regions are destroyed too, uses inside included).
  void erase();
  /// Moves this op (which must be in a block) right before Other, or to the
  /// end of Dest.
  void moveBefore(Operation *Other);
  void moveAfter(Operation *Other);
  void moveToEnd(Block &Dest);

  /// Pre-order walk over this op and every op nested in its regions. The
  /// callback may not erase the op it is given (collect first, then erase).
  void walk(llvm::function_ref<void(Operation &)> Fn);
  void walk(llvm::function_ref<void(const Operation &)> Fn) const;
  /// The ops of walk's order that satisfy Pred (or are of Kind), listed
  /// first so that the caller may change the IR while it visits them.
  std::vector<Operation *>
  collect(llvm::function_ref<bool(const Operation &)> Pred);
  std::vector<Operation *> collect(OpKind Kind);

  /// Deep copy. Operands found in Map are remapped, others are kept; the
  /// new results and block arguments are recorded in Map.
  std::unique_ptr<Operation> clone(ValueMap &Map) const;
  std::unique_ptr<Operation> clone() const;

  /// Prints the op in generic syntax (numbering values as the enclosing
  /// module print would) to \p OS / stderr.
  void print(llvm::raw_ostream &OS) const;
  void dump() const;

private:
  friend class Block;
  Operation(OpKind Kind, Location Loc) : Kind(Kind), Loc(std::move(Loc)) {}
  void dropOperandUses();
  void dropAllUsesInside();

  OpKind Kind;
  Location Loc;
  std::vector<Value *> Operands;
  std::vector<unsigned> Segments;
  std::vector<std::unique_ptr<Value>> Results;
  std::vector<NamedAttribute> Attrs;
  std::vector<std::unique_ptr<Region>> Regions;
  Block *Parent = nullptr;
  std::list<std::unique_ptr<Operation>>::iterator ParentIt;
};

/// A straight-line list of ops with arguments. Iterating a Block yields
/// Operation& in order; iterators stay valid across inserts and erases of
/// other ops.
class Block {
  using OpList = std::list<std::unique_ptr<Operation>>;

  /// Iterates the list of unique_ptr as Operation&.
  template <typename WrappedT, typename OpT>
  class OpIterator
      : public llvm::iterator_adaptor_base<OpIterator<WrappedT, OpT>, WrappedT,
                                           std::bidirectional_iterator_tag,
                                           OpT> {
  public:
    OpIterator() = default;
    explicit OpIterator(WrappedT It) : OpIterator::iterator_adaptor_base(It) {}
    OpT &operator*() const { return **this->I; }
    WrappedT base() const { return this->I; }
  };

public:
  using iterator = OpIterator<OpList::iterator, Operation>;
  using const_iterator = OpIterator<OpList::const_iterator, const Operation>;

  Block() = default;
  Block(const Block &) = delete;
  Block &operator=(const Block &) = delete;
  /// Destroys the ops first (their uses of the arguments go first).
  ~Block();

  Region *getParent() const { return ParentRegion; }
  /// The op owning this block's region; null for a detached block.
  Operation *getParentOp() const;

  //===--- Arguments ------------------------------------------------------===//
  unsigned getNumArguments() const { return Arguments.size(); }
  Value *getArgument(unsigned I) const { return Arguments[I].get(); }
  std::vector<Value *> getArguments() const;
  Value *addArgument(Type Ty, llvm::StringRef NameHint = "");
  /// Removes argument I (it must be unused); later arguments shift down.
  void eraseArgument(unsigned I);

  //===--- Operations -----------------------------------------------------===//
  iterator begin() { return iterator(Ops.begin()); }
  iterator end() { return iterator(Ops.end()); }
  const_iterator begin() const { return const_iterator(Ops.begin()); }
  const_iterator end() const { return const_iterator(Ops.end()); }
  bool empty() const { return Ops.empty(); }
  size_t size() const { return Ops.size(); }
  Operation &front() const { return *Ops.front(); }
  Operation &back() const { return *Ops.back(); }
  /// Stable snapshot of the ops, for loops that erase or insert.
  std::vector<Operation *> getOps() const;

  /// Inserts Op before Pos (end() appends) and returns it.
  Operation *insert(iterator Pos, std::unique_ptr<Operation> Op);
  Operation *insertBefore(Operation *Pos, std::unique_ptr<Operation> Op);
  Operation *push_back(std::unique_ptr<Operation> Op);
  Operation *push_front(std::unique_ptr<Operation> Op);
  /// Moves all ops of Other to the end of this block (arguments stay).
  void takeOpsFrom(Block &Other);
  /// Erases all ops, last first.
  void clear();

  /// Iterator pointing at Op (which must be in this block).
  static iterator iteratorOf(Operation *Op) { return iterator(Op->ParentIt); }

private:
  friend class Operation;
  friend class Region;
  OpList Ops;
  std::vector<std::unique_ptr<Value>> Arguments;
  Region *ParentRegion = nullptr;
};

/// A region of an op; holds exactly one block.
class Region {
public:
  explicit Region(Operation *Parent) : ParentOp(Parent) {
    Body.ParentRegion = this;
  }
  Region(const Region &) = delete;
  Region &operator=(const Region &) = delete;

  Operation *getParentOp() const { return ParentOp; }
  Block &getBlock() { return Body; }
  const Block &getBlock() const { return Body; }
  /// Index of this region in its parent op.
  unsigned getIndex() const;

private:
  Operation *ParentOp;
  Block Body;
};

inline Block &Operation::getBody(unsigned I) const {
  return Regions[I]->getBlock();
}

} // namespace ir
} // namespace tilec

#endif
