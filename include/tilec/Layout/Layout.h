//===- Layout.h - Layout and Fragment index maps ----------------*- C++ -*-===//
//
// The two layout abstractions of TileLang (paper section 4.1).
//
// A Layout maps a logical index of a buffer with static input shape
// [n0, n1, ...] to a physical index, one IndexExpr per output dimension
// over the input variables inputVar(0), inputVar(1), ... (printed i, j,
// k, ...; each ranges over [0, n_d)). The output shape is derived by range
// analysis: output d has extent max(forward[d]) + 1.
//
// A Fragment is a Layout for a register tile distributed over threads:
// forward_thread gives the owning thread of an element and the forward
// index gives its register slot in that thread. With replicate size R > 1
// an element lives in R threads; forward_thread then also uses
// replicateVar() ("rep", ranging over [0, R)) and copy r of an element is
// held by thread forward_thread(..., rep = r).
//
// Expects: positive static extents (symbolic extents are not supported
// yet). Does: evaluation, the TileLang construction primitives (repeat,
// expand, reshape, compose, replicate, bindThreadRange), inversion and
// checks by enumeration. Guarantees: all forward expressions are kept
// simplified over the input ranges; objects are immutable values.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_LAYOUT_LAYOUT_H
#define TILEC_LAYOUT_LAYOUT_H

#include "tilec/Layout/IndexExpr.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include <functional>
#include <vector>

namespace tilec {
namespace layout {

using Shape = llvm::SmallVector<int64_t, 4>;
using Indices = llvm::SmallVector<int64_t, 4>;

/// Enumeration-based checks give up above this many points.
constexpr int64_t DefaultEnumerationLimit = int64_t(1) << 22;

/// Calls F on every index of Shape in row-major order.
void forEachIndex(llvm::ArrayRef<int64_t> Shape,
                  const std::function<void(llvm::ArrayRef<int64_t>)> &F);
int64_t shapeSize(llvm::ArrayRef<int64_t> Shape);

/// The inverse of a bijective layout as a table: Table[linear output
/// index] = linear input index (both row-major). The fallback when no
/// symbolic inverse is found.
struct InverseTable {
  Shape InputShape;  ///< of the forward layout
  Shape OutputShape; ///< of the forward layout
  std::vector<int64_t> Table;
};

class Layout {
public:
  Layout(llvm::ArrayRef<int64_t> InputShape,
         llvm::ArrayRef<IndexExpr> ForwardIndex);
  virtual ~Layout() = default;

  /// The placeholder variable of input dimension Dim: i, j, k, l, ...
  static IndexExpr inputVar(unsigned Dim);
  static std::string inputVarName(unsigned Dim);

  bool isFragment() const { return IsFragment; }
  unsigned getInputDim() const { return InputShape.size(); }
  unsigned getOutputDim() const { return ForwardIndex.size(); }
  llvm::ArrayRef<int64_t> getInputShape() const { return InputShape; }
  /// Extent of each output; -1 where the range analysis found none.
  llvm::ArrayRef<int64_t> getOutputShape() const { return OutputShape; }
  llvm::ArrayRef<IndexExpr> getForwardIndex() const { return ForwardIndex; }
  /// The input variables with their extents.
  VarExtents getVarExtents() const;

  /// Concrete forward map; nullopt if Idx has the wrong rank, is out of
  /// range or an expression is undefined there.
  std::optional<Indices> forward(llvm::ArrayRef<int64_t> Idx) const;
  /// Symbolic forward map: substitutes Idx for the input variables and
  /// simplifies with Extents (the ranges of Idx's own variables).
  llvm::SmallVector<IndexExpr, 4>
  forwardExprs(llvm::ArrayRef<IndexExpr> Idx,
               const VarExtents &Extents = {}) const;

  /// Tiles dimension Dim Factor times; prepends output `x_Dim // n_Dim`
  /// and applies the layout to `x_Dim % n_Dim`.
  Layout repeat(unsigned Dim, int64_t Factor) const;
  /// Prepends input dimensions passed through unchanged as leading outputs.
  Layout expand(llvm::ArrayRef<int64_t> LeadingShape) const;
  /// The same map seen through a new input shape with the same number of
  /// elements (row-major order preserved); nullopt if the sizes differ.
  std::optional<Layout> reshape(llvm::ArrayRef<int64_t> NewShape) const;
  /// x -> this(Inner(x)); nullopt unless Inner's output shape equals this
  /// input shape.
  std::optional<Layout> compose(const Layout &Inner) const;

  /// Symbolic inverse (output index -> input index) of a bijective layout
  /// whose extents are powers of two and whose map is linear over GF(2)
  /// on the index bits (affine maps with power-of-two strides, floordiv,
  /// floormod and xor swizzles all are). nullopt otherwise; see
  /// inverseTable().
  virtual std::optional<Layout> inverse() const;
  /// The inverse as a table, for any bijective layout of at most Limit
  /// elements.
  std::optional<InverseTable>
  inverseTable(int64_t Limit = DefaultEnumerationLimit) const;

  /// Bijective onto the output shape / injective, decided by enumeration;
  /// nullopt when the input has more than Limit points.
  virtual std::optional<bool>
  isBijective(int64_t Limit = DefaultEnumerationLimit) const;
  std::optional<bool>
  isInjective(int64_t Limit = DefaultEnumerationLimit) const;
  /// Same input shape and same outputs everywhere, by enumeration.
  std::optional<bool>
  isEquivalent(const Layout &Other,
               int64_t Limit = DefaultEnumerationLimit) const;

  /// `Layout([8, 8] -> [64], transform: [i, j] -> [i * 8 + j])`
  virtual std::string toString() const;

protected:
  Layout(llvm::ArrayRef<int64_t> InputShape,
         llvm::ArrayRef<IndexExpr> ForwardIndex, bool IsFragment);
  /// Values of the input variables for one concrete index.
  Env bindInputs(llvm::ArrayRef<int64_t> Idx) const;
  /// Row-major decomposition of a flat index over NewShape, as
  /// substitutions for this layout's input variables.
  VarMap reshapeMap(llvm::ArrayRef<int64_t> NewShape) const;
  std::string shapeText() const;
  static std::string exprListText(llvm::ArrayRef<IndexExpr> Exprs);

  Shape InputShape;
  llvm::SmallVector<IndexExpr, 4> ForwardIndex;
  Shape OutputShape;

private:
  bool IsFragment = false;
};

/// The row-major layout of Shape: one output, the flat offset.
Layout makeLinearLayout(llvm::ArrayRef<int64_t> Shape);

struct ThreadRange {
  int64_t Begin;
  int64_t Extent;
};

class Fragment : public Layout {
public:
  Fragment(llvm::ArrayRef<int64_t> InputShape,
           llvm::ArrayRef<IndexExpr> ForwardIndex, IndexExpr ForwardThread,
           int64_t ReplicateSize = 1);

  static IndexExpr replicateVar();

  const IndexExpr &getForwardThread() const { return ForwardThread; }
  int64_t getReplicateSize() const { return ReplicateSize; }
  /// max(forward_thread) + 1 over all elements and replicas.
  int64_t getThreadExtent() const { return ThreadExtent; }
  const std::optional<ThreadRange> &getThreadRange() const { return Range; }
  /// Registers per thread (product of the output shape).
  int64_t getRegisterCount() const { return shapeSize(OutputShape); }

  std::optional<int64_t> forwardThread(llvm::ArrayRef<int64_t> Idx,
                                       int64_t Rep = 0) const;

  /// Tiles every input dimension d Repeats[d] times. The tile number is
  /// mixed-radix over the dimensions, the last dimension fastest when
  /// LowerDimFirst, else the first. RepeatOnThread: tile t is held by
  /// threads shifted by t * threadExtent; otherwise by the same threads in
  /// registers shifted by t * registerCount (needs one output dimension).
  Fragment repeat(llvm::ArrayRef<int64_t> Repeats, bool RepeatOnThread,
                  bool LowerDimFirst = true) const;
  /// Copies the whole fragment onto Factor times as many threads.
  Fragment replicate(int64_t Factor) const;
  /// Records the block threads [Begin, Begin + Extent) the fragment uses.
  Fragment bindThreadRange(int64_t Begin, int64_t Extent) const;
  /// Every thread holds every element (forward_thread == rep).
  bool isFullyReplicated() const;
  static Fragment fullyReplicated(llvm::ArrayRef<int64_t> Shape,
                                  int64_t Threads);
  /// The same fragment over a new input shape (row-major order kept).
  std::optional<Fragment> reshape(llvm::ArrayRef<int64_t> NewShape) const;

  /// (element, replica) -> (thread, register) is a bijection onto
  /// [0, threadExtent) x output shape.
  std::optional<bool>
  isBijective(int64_t Limit = DefaultEnumerationLimit) const override;
  /// The map (registers..., thread) -> (inputs..., rep); the rep output
  /// is present only when the replicate size is > 1.
  std::optional<Layout> inverse() const override;
  /// The fragment as a plain layout (inputs..., rep) -> (regs..., thread).
  Layout asThreadLayout() const;

  std::string toString() const override;

private:
  IndexExpr ForwardThread;
  int64_t ReplicateSize;
  int64_t ThreadExtent;
  std::optional<ThreadRange> Range;
};

} // namespace layout
} // namespace tilec

#endif // TILEC_LAYOUT_LAYOUT_H
