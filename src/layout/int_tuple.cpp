// IntTuple basics and the coordinate maps of fly::dyn.
#include <algorithm>
#include <stdexcept>
#include <utility>

#include "fly/layout/dynamic.hpp"

namespace fly::dyn {

IntTuple::IntTuple(int64_t v, bool is_static) : value_(v), is_static_(is_static) {}

IntTuple IntTuple::tuple(std::vector<IntTuple> children) {
  IntTuple t;
  t.leaf_ = false;
  // A tuple is static when every leaf below it is; kept only as a convenience summary.
  t.is_static_ = std::all_of(children.begin(), children.end(),
                             [](const IntTuple& c) { return c.is_static(); });
  t.children_ = std::move(children);
  return t;
}

int64_t IntTuple::value() const {
  if (!leaf_) throw std::logic_error("fly::dyn::IntTuple::value: " + to_string(*this) + " is a tuple");
  return value_;
}

int IntTuple::rank() const { return leaf_ ? 1 : static_cast<int>(children_.size()); }

const IntTuple& IntTuple::operator[](int i) const {
  if (leaf_ && i == 0) return *this;
  if (leaf_ || i < 0 || i >= rank()) {
    throw std::out_of_range("fly::dyn::IntTuple: mode " + std::to_string(i) + " out of range in " +
                            to_string(*this));
  }
  return children_[static_cast<size_t>(i)];
}

bool operator==(const IntTuple& a, const IntTuple& b) {
  if (a.leaf_ != b.leaf_) return false;
  if (a.leaf_) return a.value_ == b.value_;
  return a.children_ == b.children_;
}

int64_t size(const IntTuple& t) {
  if (t.is_leaf()) return t.value();
  int64_t p = 1;
  for (const auto& c : t.children()) p *= size(c);
  return p;
}

int depth(const IntTuple& t) {
  if (t.is_leaf()) return 0;
  int d = 0;
  for (const auto& c : t.children()) d = std::max(d, depth(c));
  return 1 + d;
}

namespace detail {

std::vector<IntTuple> leaves(const IntTuple& t) {
  if (t.is_leaf()) return {t};
  std::vector<IntTuple> out;
  for (const auto& c : t.children()) {
    auto sub = leaves(c);
    out.insert(out.end(), sub.begin(), sub.end());
  }
  return out;
}

IntTuple mul(const IntTuple& a, const IntTuple& b) {
  return IntTuple(a.value() * b.value(), a.is_static() && b.is_static());
}

IntTuple shape_div(const IntTuple& a, const IntTuple& b) {
  const int64_t x = a.value(), y = b.value();
  // CuTe rejects (statically) any pair where neither value divides the other.
  if (y == 0 || (x % y != 0 && y % x != 0)) {
    throw std::invalid_argument("shape_div(" + std::to_string(x) + ", " + std::to_string(y) +
                                "): neither divides the other");
  }
  const int64_t q = x / y;
  const auto sign = [](int64_t v) { return static_cast<int64_t>((v > 0) - (v < 0)); };
  return IntTuple(q != 0 ? q : sign(x) * sign(y), a.is_static() && b.is_static());
}

// Recursive part of CuTe's ceil_div: tuple numerators fold the divisor through their modes.
static IntTuple ceil_div_tree(const IntTuple& a, const IntTuple& b) {
  if (!a.is_leaf()) {
    std::vector<IntTuple> out;
    IntTuple rest = b;
    for (const auto& ai : a.children()) {
      out.push_back(ceil_div_tree(ai, rest));
      rest = ceil_div_tree(rest, ai);
    }
    return IntTuple::tuple(std::move(out));
  }
  const IntTuple d = b.is_leaf() ? b : IntTuple(size(b), b.is_static());
  const int64_t v = (a.value() + d.value() - 1) / d.value();
  return IntTuple(v, a.is_static() && d.is_static());
}

IntTuple ceil_div_product(const IntTuple& a, const IntTuple& b) {
  const IntTuple r = ceil_div_tree(a, b);
  return IntTuple(size(r), r.is_static());
}

// Walk shape leaves in order, handing out the running product as the stride.
static IntTuple col_major_walk(const IntTuple& shape, IntTuple& current) {
  if (shape.is_leaf()) {
    IntTuple d = current;
    current = mul(current, shape);
    return d;
  }
  std::vector<IntTuple> out;
  for (const auto& c : shape.children()) out.push_back(col_major_walk(c, current));
  return IntTuple::tuple(std::move(out));
}

IntTuple compact_col_major(const IntTuple& shape, const IntTuple& start) {
  IntTuple current = start;
  return col_major_walk(shape, current);
}

}  // namespace detail

IntTuple flatten(const IntTuple& t) {
  if (t.is_leaf()) return t;
  return IntTuple::tuple(detail::leaves(t));
}

// Split an integer coordinate over a tuple shape colexicographically; the last mode takes the rest.
static IntTuple idx2crd_impl(int64_t idx, const IntTuple& shape) {
  if (shape.is_leaf()) return IntTuple(idx);
  std::vector<IntTuple> out;
  const auto& ch = shape.children();
  for (size_t i = 0; i < ch.size(); ++i) {
    if (i + 1 == ch.size()) {
      out.push_back(idx2crd_impl(idx, ch[i]));
    } else {
      const int64_t s = size(ch[i]);
      out.push_back(idx2crd_impl(idx % s, ch[i]));
      idx /= s;
    }
  }
  return IntTuple::tuple(std::move(out));
}

IntTuple idx2crd(int64_t idx, const IntTuple& shape) { return idx2crd_impl(idx, shape); }

int64_t crd2idx(const IntTuple& coord, const IntTuple& shape, const IntTuple& stride) {
  if (!coord.is_leaf()) {
    if (shape.is_leaf() || stride.is_leaf() || coord.rank() != shape.rank() ||
        stride.rank() != shape.rank()) {
      throw std::invalid_argument("fly::dyn::crd2idx: coordinate " + to_string(coord) +
                                  " does not match layout " + to_string(shape) + ":" +
                                  to_string(stride));
    }
    int64_t idx = 0;
    for (int i = 0; i < coord.rank(); ++i) idx += crd2idx(coord[i], shape[i], stride[i]);
    return idx;
  }
  if (shape.is_leaf()) {
    if (!stride.is_leaf()) {
      throw std::invalid_argument("fly::dyn::crd2idx: shape " + to_string(shape) +
                                  " and stride " + to_string(stride) + " are not congruent");
    }
    return coord.value() * stride.value();
  }
  if (stride.is_leaf() || stride.rank() != shape.rank()) {
    throw std::invalid_argument("fly::dyn::crd2idx: shape " + to_string(shape) + " and stride " +
                                to_string(stride) + " are not congruent");
  }
  // Integer coordinate into a tuple shape: peel mode by mode, the last mode is unbounded.
  int64_t c = coord.value();
  int64_t idx = 0;
  const int r = shape.rank();
  for (int i = 0; i < r; ++i) {
    if (i + 1 == r) {
      idx += crd2idx(IntTuple(c), shape[i], stride[i]);
    } else {
      const int64_t s = size(shape[i]);
      idx += crd2idx(IntTuple(c % s), shape[i], stride[i]);
      c /= s;
    }
  }
  return idx;
}

}  // namespace fly::dyn
