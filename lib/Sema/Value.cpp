//===- Value.cpp - Compile-time values of the Sema interpreter ------------===//

#include "Value.h"
#include "tilec/IR/Value.h"
#include <cmath>
#include <fmt/format.h>

using namespace tilec;
using namespace tilec::sema;

Value Value::boolean(bool B) {
  Value V;
  V.K = Kind::Bool;
  V.I = B;
  return V;
}

Value Value::integer(int64_t I) {
  Value V;
  V.K = Kind::Int;
  V.I = I;
  return V;
}

Value Value::real(double F) {
  Value V;
  V.K = Kind::Float;
  V.F = F;
  return V;
}

Value Value::str(std::string S) {
  Value V;
  V.K = Kind::Str;
  V.S = std::move(S);
  return V;
}

Value Value::dtype(DType T) {
  Value V;
  V.K = Kind::DType;
  V.DT = T;
  return V;
}

Value Value::tuple(std::vector<Value> Elts) {
  Value V;
  V.K = Kind::Tuple;
  V.Elts = std::make_shared<std::vector<Value>>(std::move(Elts));
  return V;
}

Value Value::list(std::vector<Value> Elts) {
  Value V = tuple(std::move(Elts));
  V.K = Kind::List;
  return V;
}

Value Value::dict(std::shared_ptr<DictData> D) {
  Value V;
  V.K = Kind::Dict;
  V.Dict = std::move(D);
  return V;
}

Value Value::runtime(ir::Value *RV) {
  assert(RV && "runtime value without an IR value");
  Value V;
  V.K = Kind::Runtime;
  V.RV = RV;
  return V;
}

Value Value::object(std::shared_ptr<Object> O) {
  Value V;
  V.K = Kind::Object;
  V.Obj = std::move(O);
  return V;
}

Value Value::poison() {
  Value V;
  V.K = Kind::Poison;
  return V;
}

bool BufferRefObj::hasSlice() const {
  for (const IndexItem &I : Indices)
    if (I.IsSlice)
      return true;
  return false;
}

Value *Scope::lookupLocal(llvm::StringRef Name) {
  auto It = Vars.find(Name);
  return It == Vars.end() ? nullptr : &It->second;
}

void DictData::set(Value Key, Value Val) {
  for (auto &Item : Items)
    if (equals(Item.first, Key)) {
      Item.second = std::move(Val);
      return;
    }
  Items.emplace_back(std::move(Key), std::move(Val));
}

Scope *Scope::owner(llvm::StringRef Name) {
  for (Scope *S = this; S; S = S->Parent.get())
    if (S->lookupLocal(Name))
      return S;
  return nullptr;
}

Value *Scope::lookup(llvm::StringRef Name) {
  for (Scope *S = this; S; S = S->Parent.get())
    if (Value *V = S->lookupLocal(Name))
      return V;
  return nullptr;
}

static std::string objectTypeName(const Object &O) {
  switch (O.getKind()) {
  case Object::Kind::Function:
    return "function";
  case Object::Kind::Builtin:
    return "builtin function";
  case Object::Kind::Namespace:
    return "module";
  case Object::Kind::Opaque:
    return "host-side value '" + llvm::cast<OpaqueObj>(O).Path + "'";
  case Object::Kind::Policy:
    return "GemmWarpPolicy";
  case Object::Kind::Symbol:
    return "symbolic dimension";
  case Object::Kind::SymExpr:
    return "expression of symbolic dimensions";
  case Object::Kind::Buffer:
    return std::string(ir::scopeName(llvm::cast<BufferObj>(O).Scope)) +
           " buffer";
  case Object::Kind::BufferRef: {
    auto &Ref = llvm::cast<BufferRefObj>(O);
    if (Ref.hasSlice())
      return "buffer region";
    return "runtime " + tileLangName(Ref.Buf->Ty).str() + " value";
  }
  case Object::Kind::TensorType:
    return "tensor type";
  case Object::Kind::Loop:
    return "loop range";
  case Object::Kind::KernelSpec:
    return "T.Kernel";
  case Object::Kind::Layout:
    return "layout";
  case Object::Kind::Address:
    return "address of a " +
           tileLangName(llvm::cast<AddressObj>(O).Buf->Ty).str() + " element";
  case Object::Kind::Role:
    return "T.ws role";
  case Object::Kind::CommReducer:
    return "T.comm_reducer";
  case Object::Kind::AttrScope:
    return "T.attr scope";
  case Object::Kind::Stale:
    return "stale name";
  }
  return "object";
}

std::string sema::typeName(const Value &V) {
  switch (V.kind()) {
  case Value::Kind::None:
    return "None";
  case Value::Kind::Bool:
    return "bool";
  case Value::Kind::Int:
    return "int";
  case Value::Kind::Float:
    return "float";
  case Value::Kind::Str:
    return "str";
  case Value::Kind::DType:
    return "dtype";
  case Value::Kind::Tuple:
    return "tuple";
  case Value::Kind::List:
    return "list";
  case Value::Kind::Dict:
    return "dict";
  case Value::Kind::Runtime:
    return "runtime " +
           tileLangName(V.getRuntime()->getType().getDType()).str() + " value";
  case Value::Kind::Object:
    return objectTypeName(*V.getObject());
  case Value::Kind::Poison:
    return "<error>";
  }
  return "value";
}

static std::string reprFloat(double F) {
  if (std::isinf(F))
    return F > 0 ? "inf" : "-inf";
  if (std::isnan(F))
    return "nan";
  std::string S = fmt::format("{}", F);
  if (S.find_first_of(".e") == std::string::npos)
    S += ".0";
  return S;
}

static std::string reprSeq(const std::vector<Value> &Elts, bool Tuple) {
  std::string S = Tuple ? "(" : "[";
  for (size_t I = 0; I < Elts.size(); ++I)
    S += (I ? ", " : "") + repr(Elts[I]);
  if (Tuple && Elts.size() == 1)
    S += ",";
  return S + (Tuple ? ")" : "]");
}

static std::string reprDict(const DictData &D) {
  std::string S = "{";
  for (size_t I = 0; I < D.Items.size(); ++I)
    S += (I ? ", " : "") + repr(D.Items[I].first) + ": " +
         repr(D.Items[I].second);
  return S + "}";
}

static std::string reprObject(const Value &V) {
  Object *O = V.getObject();
  if (auto *F = llvm::dyn_cast<FunctionObj>(O))
    return F->Name;
  if (auto *B = llvm::dyn_cast<BufferObj>(O))
    return B->Name.empty() ? "<buffer>" : B->Name;
  if (auto *S = llvm::dyn_cast<SymbolObj>(O))
    return S->Name;
  if (auto *E = llvm::dyn_cast<SymExprObj>(O))
    return E->Text;
  if (auto *P = llvm::dyn_cast<PolicyObj>(O))
    return "GemmWarpPolicy." + P->Name;
  if (auto *N = llvm::dyn_cast<NamespaceObj>(O))
    return N->Path;
  if (auto *Op = llvm::dyn_cast<OpaqueObj>(O))
    return Op->Path;
  if (auto *L = llvm::dyn_cast<LayoutObj>(O))
    return L->Text;
  if (auto *R = llvm::dyn_cast<BufferRefObj>(O))
    return R->Buf->Name + "[...]";
  return typeName(V);
}

std::string sema::repr(const Value &V) {
  switch (V.kind()) {
  case Value::Kind::None:
    return "None";
  case Value::Kind::Bool:
    return V.getBool() ? "True" : "False";
  case Value::Kind::Int:
    return std::to_string(V.getInt());
  case Value::Kind::Float:
    return reprFloat(V.getNumber());
  case Value::Kind::Str:
    return "'" + V.getStr() + "'";
  case Value::Kind::DType:
    return tileLangName(V.getDType()).str();
  case Value::Kind::Tuple:
  case Value::Kind::List:
    return reprSeq(V.elts(), V.isTuple());
  case Value::Kind::Dict:
    return reprDict(V.getDict());
  case Value::Kind::Runtime: {
    llvm::StringRef Hint = V.getRuntime()->getNameHint();
    return Hint.empty() ? typeName(V) : Hint.str();
  }
  case Value::Kind::Object:
    return reprObject(V);
  case Value::Kind::Poison:
    return "<error>";
  }
  return "?";
}

static bool equalSeq(const std::vector<Value> &A, const std::vector<Value> &B) {
  if (A.size() != B.size())
    return false;
  for (size_t I = 0; I < A.size(); ++I)
    if (!equals(A[I], B[I]))
      return false;
  return true;
}

bool sema::equals(const Value &A, const Value &B) {
  if (A.isNumber() && B.isNumber()) {
    if (A.isFloat() || B.isFloat())
      return A.getNumber() == B.getNumber();
    return A.getInt() == B.getInt();
  }
  // T.float16 == "float16" holds in TileLang.
  if (A.isDType() && B.isStr())
    return parseTileLangDType(B.getStr()) == A.getDType();
  if (A.isStr() && B.isDType())
    return equals(B, A);
  if (A.kind() != B.kind())
    return false;
  switch (A.kind()) {
  case Value::Kind::None:
    return true;
  case Value::Kind::Str:
    return A.getStr() == B.getStr();
  case Value::Kind::DType:
    return A.getDType() == B.getDType();
  case Value::Kind::Tuple:
  case Value::Kind::List:
    return equalSeq(A.elts(), B.elts());
  case Value::Kind::Runtime:
    return A.getRuntime() == B.getRuntime();
  case Value::Kind::Object: {
    auto *PA = A.getAs<PolicyObj>(), *PB = B.getAs<PolicyObj>();
    if (PA && PB)
      return PA->Name == PB->Name;
    return A.getObject() == B.getObject();
  }
  default:
    return false;
  }
}

std::string sema::formatDims(const std::vector<ir::Dim> &Dims) {
  std::string S = "[";
  for (size_t I = 0; I < Dims.size(); ++I) {
    S += I ? ", " : "";
    S += Dims[I].isStatic() ? std::to_string(Dims[I].getValue())
                            : Dims[I].getSymbol().str();
  }
  return S + "]";
}

std::string sema::formatExtents(const std::vector<int64_t> &Extents) {
  std::string S = "[";
  for (size_t I = 0; I < Extents.size(); ++I) {
    S += I ? ", " : "";
    S += Extents[I] < 0 ? "?" : std::to_string(Extents[I]);
  }
  return S + "]";
}
