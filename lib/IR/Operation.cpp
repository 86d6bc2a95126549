//===- Operation.cpp - Operations, blocks and regions ---------------------===//

#include "tilec/IR/Operation.h"
#include "tilec/IR/Printer.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>
#include <cassert>
#include <numeric>

using namespace tilec;
using namespace tilec::ir;

//===----------------------------------------------------------------------===//
// Op table
//===----------------------------------------------------------------------===//

namespace {
struct OpInfo {
  const char *Mnemonic;
  int NumOperands;
  int NumResults;
  int NumRegions;
};

const OpInfo OpTable[] = {
#define OP(Kind, Mnemonic, NumOperands, NumResults, NumRegions)                \
  {Mnemonic, NumOperands, NumResults, NumRegions},
#include "tilec/IR/Ops.def"
};

const char *const CmpPredNames[] = {"eq", "ne", "lt", "le", "gt", "ge"};
} // namespace

llvm::StringRef ir::mnemonic(OpKind K) { return OpTable[unsigned(K)].Mnemonic; }

std::optional<OpKind> ir::parseOpKind(llvm::StringRef Mnemonic) {
  for (unsigned I = 0; I != NumOpKinds; ++I)
    if (Mnemonic == OpTable[I].Mnemonic)
      return OpKind(I);
  return std::nullopt;
}

int ir::fixedNumOperands(OpKind K) { return OpTable[unsigned(K)].NumOperands; }
int ir::fixedNumResults(OpKind K) { return OpTable[unsigned(K)].NumResults; }
int ir::fixedNumRegions(OpKind K) { return OpTable[unsigned(K)].NumRegions; }

bool ir::isBinaryOp(OpKind K) {
  switch (K) {
#define BINARY_OP(Kind, Mnemonic) case OpKind::Kind:
#include "tilec/IR/Ops.def"
    return true;
  default:
    return false;
  }
}

bool ir::isUnaryOp(OpKind K) {
  switch (K) {
#define UNARY_OP(Kind, Mnemonic) case OpKind::Kind:
#include "tilec/IR/Ops.def"
    return true;
  default:
    return false;
  }
}

llvm::StringRef ir::cmpPredName(CmpPred P) { return CmpPredNames[unsigned(P)]; }

std::optional<CmpPred> ir::parseCmpPred(llvm::StringRef Name) {
  for (unsigned I = 0; I != std::size(CmpPredNames); ++I)
    if (Name == CmpPredNames[I])
      return CmpPred(I);
  return std::nullopt;
}

std::optional<unsigned> ir::mathFnArity(llvm::StringRef Fn) {
  return llvm::StringSwitch<std::optional<unsigned>>(Fn)
      .Cases("exp", "exp2", "exp10", "log", "log2", "log10", "log1p", 1)
      .Cases("sqrt", "rsqrt", "abs", "sin", "cos", "tan", "asin", 1)
      .Cases("acos", "atan", "sinh", "cosh", "tanh", "sigmoid", 1)
      .Cases("floor", "ceil", "round", "trunc", "erf", "rcp", 1)
      .Cases("atan2", "fmod", "hypot", "copysign", 2)
      .Default(std::nullopt);
}

//===----------------------------------------------------------------------===//
// Value
//===----------------------------------------------------------------------===//

Value::~Value() { assert(Uses.empty() && "destroying a value that is used"); }

Block *Value::getParentBlock() const {
  if (OwnerBlock)
    return OwnerBlock;
  return DefOp ? DefOp->getParentBlock() : nullptr;
}

void Value::addUse(Operation *User, unsigned I) { Uses.push_back({User, I}); }

void Value::removeUse(Operation *User, unsigned I) {
  auto It = llvm::find_if(
      Uses, [&](const Use &U) { return U.User == User && U.Index == I; });
  assert(It != Uses.end() && "use-list out of sync");
  Uses.erase(It);
}

void Value::replaceAllUsesWith(Value *New) {
  assert(New && "replacing with null");
  if (New == this)
    return;
  // setOperand edits this->Uses, so work on a copy.
  llvm::SmallVector<Use, 4> Old = Uses;
  for (const Use &U : Old)
    U.User->setOperand(U.Index, New);
}

//===----------------------------------------------------------------------===//
// Operation
//===----------------------------------------------------------------------===//

std::unique_ptr<Operation> Operation::create(OpKind Kind, Location Loc,
                                             llvm::ArrayRef<Value *> Operands,
                                             llvm::ArrayRef<unsigned> Segments,
                                             llvm::ArrayRef<Type> ResultTypes,
                                             std::vector<NamedAttribute> Attrs,
                                             unsigned NumRegions) {
  std::unique_ptr<Operation> Op(new Operation(Kind, std::move(Loc)));
  Op->setOperands(Operands, Segments);
  for (unsigned I = 0; I != ResultTypes.size(); ++I)
    Op->Results.emplace_back(
        new Value(ResultTypes[I], "", Op.get(), nullptr, I));
  Op->Attrs = std::move(Attrs);
  for (unsigned I = 0; I != NumRegions; ++I)
    Op->addRegion();
  return Op;
}

Operation::~Operation() {
  dropAllUsesInside();
  assert(use_empty() && "destroying an op whose results are still used");
}

void Operation::dropOperandUses() {
  for (unsigned I = 0; I != Operands.size(); ++I)
    if (Operands[I])
      Operands[I]->removeUse(this, I);
  Operands.clear();
  Segments.clear();
}

void Operation::dropAllUsesInside() {
  walk([](Operation &Op) { Op.dropOperandUses(); });
}

void Operation::setOperand(unsigned I, Value *V) {
  assert(I < Operands.size() && V && "bad operand");
  if (Operands[I])
    Operands[I]->removeUse(this, I);
  Operands[I] = V;
  V->addUse(this, I);
}

void Operation::setOperands(llvm::ArrayRef<Value *> NewOperands,
                            llvm::ArrayRef<unsigned> NewSegments) {
  dropOperandUses();
  Operands.assign(NewOperands.begin(), NewOperands.end());
  for (unsigned I = 0; I != Operands.size(); ++I) {
    assert(Operands[I] && "null operand");
    Operands[I]->addUse(this, I);
  }
  if (NewSegments.empty())
    Segments.assign(Operands.size(), 1);
  else
    Segments.assign(NewSegments.begin(), NewSegments.end());
  assert(std::accumulate(Segments.begin(), Segments.end(), 0u) ==
             Operands.size() &&
         "segments do not cover the operands");
}

unsigned Operation::getGroupStart(unsigned G) const {
  assert(G < Segments.size());
  return std::accumulate(Segments.begin(), Segments.begin() + G, 0u);
}

llvm::ArrayRef<Value *> Operation::getGroup(unsigned G) const {
  return llvm::makeArrayRef(Operands).slice(getGroupStart(G), Segments[G]);
}

bool Operation::use_empty() const {
  return llvm::all_of(
      Results, [](const std::unique_ptr<Value> &R) { return R->use_empty(); });
}

const Attribute *Operation::getAttr(llvm::StringRef Name) const {
  for (const NamedAttribute &A : Attrs)
    if (A.Name == Name)
      return &A.Value;
  return nullptr;
}

void Operation::setAttr(llvm::StringRef Name, Attribute Value) {
  for (NamedAttribute &A : Attrs) {
    if (A.Name == Name) {
      A.Value = std::move(Value);
      return;
    }
  }
  Attrs.push_back({Name.str(), std::move(Value)});
}

bool Operation::removeAttr(llvm::StringRef Name) {
  auto It = llvm::find_if(
      Attrs, [&](const NamedAttribute &A) { return A.Name == Name; });
  if (It == Attrs.end())
    return false;
  Attrs.erase(It);
  return true;
}

std::optional<int64_t> Operation::getIntAttr(llvm::StringRef Name) const {
  const Attribute *A = getAttr(Name);
  if (!A || !A->isInt())
    return std::nullopt;
  return A->getInt();
}

std::optional<double> Operation::getFloatAttr(llvm::StringRef Name) const {
  const Attribute *A = getAttr(Name);
  if (!A || !A->isFloat())
    return std::nullopt;
  return A->getFloat();
}

std::optional<bool> Operation::getBoolAttr(llvm::StringRef Name) const {
  const Attribute *A = getAttr(Name);
  if (!A || !A->isBool())
    return std::nullopt;
  return A->getBool();
}

std::optional<llvm::StringRef>
Operation::getStringAttr(llvm::StringRef Name) const {
  const Attribute *A = getAttr(Name);
  if (!A || !A->isString())
    return std::nullopt;
  return A->getString();
}

std::optional<std::vector<int64_t>>
Operation::getIntArrayAttr(llvm::StringRef Name) const {
  const Attribute *A = getAttr(Name);
  if (!A)
    return std::nullopt;
  return A->getIntArray();
}

Region &Operation::addRegion() {
  Regions.push_back(std::make_unique<Region>(this));
  return *Regions.back();
}

Operation *Operation::getParentOp() const {
  return Parent ? Parent->getParentOp() : nullptr;
}

bool Operation::isAncestorOf(const Operation *Other) const {
  for (; Other; Other = Other->getParentOp())
    if (Other == this)
      return true;
  return false;
}

Operation *Operation::getParentOfKind(OpKind K) const {
  for (Operation *P = getParentOp(); P; P = P->getParentOp())
    if (P->getKind() == K)
      return P;
  return nullptr;
}

Operation *Operation::getNextNode() const {
  if (!Parent)
    return nullptr;
  auto It = std::next(ParentIt);
  return It == Parent->Ops.end() ? nullptr : It->get();
}

Operation *Operation::getPrevNode() const {
  if (!Parent || ParentIt == Parent->Ops.begin())
    return nullptr;
  return std::prev(ParentIt)->get();
}

std::unique_ptr<Operation> Operation::remove() {
  assert(Parent && "op is not in a block");
  std::unique_ptr<Operation> Self = std::move(*ParentIt);
  Parent->Ops.erase(ParentIt);
  Parent = nullptr;
  return Self;
}

void Operation::erase() {
  assert(Parent && "erase a detached op by resetting its owner");
  remove();
}

void Operation::moveBefore(Operation *Other) {
  assert(Parent && Other->Parent && "moving ops outside blocks");
  Other->Parent->Ops.splice(Other->ParentIt, Parent->Ops, ParentIt);
  Parent = Other->Parent;
}

void Operation::moveAfter(Operation *Other) {
  assert(Parent && Other->Parent && "moving ops outside blocks");
  Other->Parent->Ops.splice(std::next(Other->ParentIt), Parent->Ops, ParentIt);
  Parent = Other->Parent;
}

void Operation::moveToEnd(Block &Dest) {
  assert(Parent && "moving an op outside a block");
  Dest.Ops.splice(Dest.Ops.end(), Parent->Ops, ParentIt);
  Parent = &Dest;
}

void Operation::walk(llvm::function_ref<void(Operation &)> Fn) {
  Fn(*this);
  for (const std::unique_ptr<Region> &R : Regions)
    for (Operation &Op : R->getBlock())
      Op.walk(Fn);
}

void Operation::walk(llvm::function_ref<void(const Operation &)> Fn) const {
  Fn(*this);
  for (const std::unique_ptr<Region> &R : Regions)
    for (const Operation &Op : R->getBlock())
      Op.walk(Fn);
}

std::vector<Operation *>
Operation::collect(llvm::function_ref<bool(const Operation &)> Pred) {
  std::vector<Operation *> Ops;
  walk([&](Operation &Op) {
    if (Pred(Op))
      Ops.push_back(&Op);
  });
  return Ops;
}

std::vector<Operation *> Operation::collect(OpKind Kind) {
  return collect([Kind](const Operation &Op) { return Op.is(Kind); });
}

std::unique_ptr<Operation> Operation::clone(ValueMap &Map) const {
  std::vector<Value *> NewOperands;
  for (Value *V : Operands) {
    auto It = Map.find(V);
    NewOperands.push_back(It == Map.end() ? V : It->second);
  }
  std::vector<Type> ResultTypes;
  for (const std::unique_ptr<Value> &R : Results)
    ResultTypes.push_back(R->getType());
  std::unique_ptr<Operation> New = create(Kind, Loc, NewOperands, Segments,
                                          ResultTypes, Attrs, Regions.size());
  for (unsigned I = 0; I != Results.size(); ++I) {
    New->Results[I]->setNameHint(Results[I]->getNameHint());
    Map[Results[I].get()] = New->getResult(I);
  }
  for (unsigned R = 0; R != Regions.size(); ++R) {
    const Block &Src = getBody(R);
    Block &Dst = New->getBody(R);
    for (unsigned A = 0; A != Src.getNumArguments(); ++A) {
      Value *Arg = Src.getArgument(A);
      Map[Arg] = Dst.addArgument(Arg->getType(), Arg->getNameHint());
    }
    for (const Operation &Op : Src)
      Dst.push_back(Op.clone(Map));
  }
  return New;
}

std::unique_ptr<Operation> Operation::clone() const {
  ValueMap Map;
  return clone(Map);
}

void Operation::print(llvm::raw_ostream &OS) const { printOp(*this, OS); }

void Operation::dump() const {
  print(llvm::errs());
  llvm::errs() << "\n";
}

//===----------------------------------------------------------------------===//
// Block and Region
//===----------------------------------------------------------------------===//

Block::~Block() { clear(); }

Operation *Block::getParentOp() const {
  return ParentRegion ? ParentRegion->getParentOp() : nullptr;
}

std::vector<Value *> Block::getArguments() const {
  std::vector<Value *> Result;
  for (const std::unique_ptr<Value> &A : Arguments)
    Result.push_back(A.get());
  return Result;
}

Value *Block::addArgument(Type Ty, llvm::StringRef NameHint) {
  Arguments.emplace_back(
      new Value(std::move(Ty), NameHint, nullptr, this, Arguments.size()));
  return Arguments.back().get();
}

void Block::eraseArgument(unsigned I) {
  assert(Arguments[I]->use_empty() && "erasing a used block argument");
  Arguments.erase(Arguments.begin() + I);
  for (unsigned J = I; J != Arguments.size(); ++J)
    Arguments[J]->Index = J;
}

std::vector<Operation *> Block::getOps() const {
  std::vector<Operation *> Result;
  for (const std::unique_ptr<Operation> &Op : Ops)
    Result.push_back(Op.get());
  return Result;
}

Operation *Block::insert(iterator Pos, std::unique_ptr<Operation> Op) {
  assert(Op && !Op->Parent && "inserting an op that is already in a block");
  Operation *Raw = Op.get();
  Raw->ParentIt = Ops.insert(Pos.base(), std::move(Op));
  Raw->Parent = this;
  return Raw;
}

Operation *Block::insertBefore(Operation *Pos, std::unique_ptr<Operation> Op) {
  assert(Pos->Parent == this && "insertion point is in another block");
  return insert(iteratorOf(Pos), std::move(Op));
}

Operation *Block::push_back(std::unique_ptr<Operation> Op) {
  return insert(end(), std::move(Op));
}

Operation *Block::push_front(std::unique_ptr<Operation> Op) {
  return insert(begin(), std::move(Op));
}

void Block::takeOpsFrom(Block &Other) {
  for (std::unique_ptr<Operation> &Op : Other.Ops)
    Op->Parent = this;
  Ops.splice(Ops.end(), Other.Ops);
}

void Block::clear() {
  // Drop every use first so that the order of destruction does not matter
  // (even for IR that fails verification).
  for (std::unique_ptr<Operation> &Op : Ops)
    Op->dropAllUsesInside();
  while (!Ops.empty()) {
    Ops.back()->Parent = nullptr;
    Ops.pop_back();
  }
}

unsigned Region::getIndex() const {
  for (unsigned I = 0; I != ParentOp->getNumRegions(); ++I)
    if (&ParentOp->getRegion(I) == this)
      return I;
  llvm_unreachable("region not in its parent op");
}
