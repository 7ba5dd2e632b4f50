// Run-time layout algebra (fly::dyn).
//
// The compile-time algebra in include/fly/layout needs static values for several operations.
// This header offers the same operations on fully dynamic layouts, evaluated on the host, so
// the kernel generator can reason about layouts whose shapes/strides are only known at run time
// and so the tests can cross-check the template algebra against an independent evaluation.
//
// The algorithms follow NVIDIA CuTe's definitions (include/cute/layout.hpp, int_tuple.hpp)
// including the exact structure of results. Because every value is known here, the checks CuTe
// performs only on static values (skipping size-1 modes, merging modes, divisibility) are
// performed on all values; the static marks only decide how values print (`_N` vs `N`).
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace fly::dyn {

// An integer leaf (value + static mark) or a tuple of IntTuples: CuTe's IntTuple concept.
class IntTuple {
 public:
  IntTuple(int64_t v = 0, bool is_static = false);  // NOLINT: leaves convert implicitly
  // A tuple node; a separate factory so a braced list never silently becomes a leaf.
  static IntTuple tuple(std::vector<IntTuple> children);

  bool is_leaf() const { return leaf_; }
  int64_t value() const;  // throws for a tuple: a tuple has no single value
  bool is_static() const { return is_static_; }
  const std::vector<IntTuple>& children() const { return children_; }  // empty for a leaf
  int rank() const;                                                     // 1 for a leaf
  // Mode i; on a leaf only i == 0 is valid and returns the leaf (CuTe's get<0>(int)).
  const IntTuple& operator[](int i) const;

  // Structure and values; static marks are ignored (they never change the function).
  friend bool operator==(const IntTuple& a, const IntTuple& b);
  friend bool operator!=(const IntTuple& a, const IntTuple& b) { return !(a == b); }

 private:
  int64_t value_ = 0;
  bool is_static_ = false;
  bool leaf_ = true;
  std::vector<IntTuple> children_;
};

// A (shape, stride) pair mapping coordinates to indices.
struct Layout {
  IntTuple shape, stride;
  int64_t operator()(int64_t idx) const;          // 1-D (colexicographic) coordinate
  int64_t operator()(const IntTuple& coord) const;  // any coordinate compatible with shape
};

// Per-mode tiler: nullopt is CuTe's `_` (leave that mode alone).
using Tiler = std::vector<std::optional<Layout>>;

// Text form in CuTe notation, so layouts can be written in tests and error messages.
IntTuple parse_int_tuple(std::string_view text);
Layout parse_layout(std::string_view text);
std::string to_string(const IntTuple& t);
std::string to_string(const Layout& l);
std::ostream& operator<<(std::ostream& os, const IntTuple& t);
std::ostream& operator<<(std::ostream& os, const Layout& l);

bool operator==(const Layout& a, const Layout& b);
inline bool operator!=(const Layout& a, const Layout& b) { return !(a == b); }

// Basic queries: domain size, codomain size, number of modes, nesting depth.
int64_t size(const IntTuple& t);
int64_t size(const Layout& l);
int64_t cosize(const Layout& l);
int rank(const Layout& l);
int depth(const IntTuple& t);
IntTuple flatten(const IntTuple& t);

// Coordinate maps: colexicographic index -> natural coordinate, and coordinate -> index.
IntTuple idx2crd(int64_t idx, const IntTuple& shape);
int64_t crd2idx(const IntTuple& coord, const IntTuple& shape, const IntTuple& stride);

// Construction: compact column-major, explicit strides, concatenation of modes.
Layout make_layout(const IntTuple& shape);
Layout make_layout(const IntTuple& shape, const IntTuple& stride);
Layout make_layout(const std::vector<Layout>& modes);
// Compact layout whose strides grow in the order given by `order` (smaller order = smaller stride).
Layout make_ordered_layout(const IntTuple& shape, const IntTuple& order);
// Sub-layout of mode i (mode 0 of a rank-1 leaf layout is the layout itself).
Layout get_mode(const Layout& l, int i);

// Simplify without changing the 1-D function; by-mode variant keeps the profile's modes.
Layout coalesce(const Layout& l);
Layout coalesce(const Layout& l, const IntTuple& profile);

// R(c) = A(B(c)); the tiler form composes mode by mode (and, as CuTe, drops untiled modes).
Layout composition(const Layout& a, const Layout& b);
Layout composition(const Layout& a, const Tiler& b);

// The ordered layout of the positions A does not reach, up to cotarget (default cosize(A)).
Layout complement(const Layout& l);
Layout complement(const Layout& l, int64_t cotarget);

// Inverses: L(right_inverse(L)(i)) == i; left_inverse(L)(L(i)) == i for injective L.
Layout right_inverse(const Layout& l);
Layout left_inverse(const Layout& l);

// Tiling by division: ((tile, rest)) and its rearrangements.
Layout logical_divide(const Layout& a, const Layout& b);
Layout logical_divide(const Layout& a, const Tiler& b);
Layout zipped_divide(const Layout& a, const Layout& b);
Layout zipped_divide(const Layout& a, const Tiler& b);
Layout tiled_divide(const Layout& a, const Layout& b);
Layout tiled_divide(const Layout& a, const Tiler& b);
Layout flat_divide(const Layout& a, const Layout& b);
Layout flat_divide(const Layout& a, const Tiler& b);

// Tiling by product: (block, repetitions) and its rearrangements.
Layout logical_product(const Layout& a, const Layout& b);
Layout logical_product(const Layout& a, const Tiler& b);
// With a layout (not a tuple) as tiler, the zipped forms are the logical ones, as in CuTe.
Layout zipped_product(const Layout& a, const Layout& b);
Layout zipped_product(const Layout& a, const Tiler& b);
Layout tiled_product(const Layout& a, const Layout& b);
Layout tiled_product(const Layout& a, const Tiler& b);
Layout flat_product(const Layout& a, const Layout& b);
Layout flat_product(const Layout& a, const Tiler& b);
// Rank-sensitive products: modes of block and tiler are re-associated pairwise.
Layout blocked_product(const Layout& block, const Layout& tiler);
Layout raked_product(const Layout& block, const Layout& tiler);
// Repeat `block` until it covers `target` (modes tiled in `order`, default column-major).
Layout tile_to_shape(const Layout& block, const IntTuple& target);
Layout tile_to_shape(const Layout& block, const IntTuple& target, const IntTuple& order);

// Re-express a layout for elements n times wider (upcast) or narrower (downcast).
Layout upcast(const Layout& l, int64_t n);
Layout downcast(const Layout& l, int64_t n);

// Building blocks shared by the implementation files; exposed for tests and reuse.
namespace detail {
// Leaf arithmetic; the result is static iff both inputs are.
IntTuple mul(const IntTuple& a, const IntTuple& b);
// CuTe's shape_div on leaves: a/b, or sign(a)*sign(b) when |a| < |b|; throws if neither divides.
IntTuple shape_div(const IntTuple& a, const IntTuple& b);
// CuTe's ceil_div with an IntTuple numerator folded left to right, then multiplied out.
IntTuple ceil_div_product(const IntTuple& a, const IntTuple& b);
// Column-major strides for `shape` starting at `start`.
IntTuple compact_col_major(const IntTuple& shape, const IntTuple& start);
// All leaves of a tuple (a leaf gives itself), left to right.
std::vector<IntTuple> leaves(const IntTuple& t);
// CuTe's bw_coalesce: fold flat modes [0, count) back to front onto (init_shape:init_stride).
Layout bw_coalesce(const std::vector<IntTuple>& shapes, const std::vector<IntTuple>& strides,
                   int count, const IntTuple& init_shape, const IntTuple& init_stride);
// coalesce that also preserves the function past the domain (used before composition).
Layout coalesce_x(const Layout& l);
// Remove stride-0 and size-1 modes, then coalesce.
Layout filter(const Layout& l);
// complement against an IntTuple cotarget (CuTe's logical_divide passes shape(A)).
Layout complement(const Layout& l, const IntTuple& cotarget);
// Pad a layout to rank r with _1:_0 modes (CuTe's append<R>).
Layout append_rank(const Layout& l, int r);
}  // namespace detail

}  // namespace fly::dyn
