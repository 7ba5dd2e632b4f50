// Layout construction, queries, coalesce and element-width changes of fly::dyn.
#include <cstdlib>
#include <stdexcept>
#include <utility>

#include "fly/layout/dynamic.hpp"

namespace fly::dyn {

namespace {

const IntTuple kOne(1, true);
const IntTuple kZero(0, true);

Layout unit_layout() { return Layout{kOne, kZero}; }  // CuTe's _1:_0

IntTuple abs_leaf(const IntTuple& a) { return IntTuple(std::llabs(a.value()), a.is_static()); }

// Apply a leaf-level layout transform over a (shape, stride) tree, keeping its structure.
template <class F>
Layout transform_leaves(const IntTuple& s, const IntTuple& d, F&& f) {
  if (s.is_leaf()) return f(s, d);
  std::vector<Layout> modes;
  for (int i = 0; i < s.rank(); ++i) modes.push_back(transform_leaves(s[i], d[i], f));
  return make_layout(modes);
}

}  // namespace

int64_t Layout::operator()(int64_t idx) const { return crd2idx(IntTuple(idx), shape, stride); }
int64_t Layout::operator()(const IntTuple& coord) const { return crd2idx(coord, shape, stride); }

bool operator==(const Layout& a, const Layout& b) { return a.shape == b.shape && a.stride == b.stride; }

int64_t size(const Layout& l) { return size(l.shape); }

int64_t cosize(const Layout& l) {
  // The last coordinate hits (s-1) in every leaf; absolute strides guard negative strides.
  const auto s = detail::leaves(l.shape), d = detail::leaves(l.stride);
  int64_t hi = 0;
  for (size_t i = 0; i < s.size(); ++i) hi += (s[i].value() - 1) * std::llabs(d[i].value());
  return hi + 1;
}

int rank(const Layout& l) { return l.shape.rank(); }

Layout make_layout(const IntTuple& shape) {
  return Layout{shape, detail::compact_col_major(shape, kOne)};
}

Layout make_layout(const IntTuple& shape, const IntTuple& stride) { return Layout{shape, stride}; }

Layout make_layout(const std::vector<Layout>& modes) {
  std::vector<IntTuple> s, d;
  for (const auto& m : modes) {
    s.push_back(m.shape);
    d.push_back(m.stride);
  }
  return Layout{IntTuple::tuple(std::move(s)), IntTuple::tuple(std::move(d))};
}

namespace {

// For each order leaf, the product of the shape subtree it governs (CuTe's product_like).
void order_refs(const IntTuple& shape, const IntTuple& order, std::vector<IntTuple>& ref_shape,
                std::vector<int64_t>& ref_order) {
  if (order.is_leaf()) {
    ref_shape.emplace_back(size(shape), IntTuple::tuple(detail::leaves(shape)).is_static());
    ref_order.push_back(order.value());
    return;
  }
  if (shape.is_leaf() || shape.rank() != order.rank()) {
    throw std::invalid_argument("fly::dyn::make_ordered_layout: order " + to_string(order) +
                                " does not match shape " + to_string(shape));
  }
  for (int i = 0; i < order.rank(); ++i) order_refs(shape[i], order[i], ref_shape, ref_order);
}

IntTuple ordered_strides(const IntTuple& shape, const IntTuple& order,
                         const std::vector<IntTuple>& ref_shape,
                         const std::vector<int64_t>& ref_order) {
  if (!order.is_leaf()) {
    std::vector<IntTuple> out;
    for (int i = 0; i < order.rank(); ++i) {
      out.push_back(ordered_strides(shape[i], order[i], ref_shape, ref_order));
    }
    return IntTuple::tuple(std::move(out));
  }
  // Start after every sub-shape with a strictly smaller order; ties share a start.
  IntTuple start = kOne;
  for (size_t j = 0; j < ref_order.size(); ++j) {
    if (ref_order[j] < order.value()) start = detail::mul(start, ref_shape[j]);
  }
  return detail::compact_col_major(shape, start);
}

}  // namespace

Layout make_ordered_layout(const IntTuple& shape, const IntTuple& order) {
  std::vector<IntTuple> ref_shape;
  std::vector<int64_t> ref_order;
  order_refs(shape, order, ref_shape, ref_order);
  return Layout{shape, ordered_strides(shape, order, ref_shape, ref_order)};
}

Layout get_mode(const Layout& l, int i) {
  if (l.shape.rank() != l.stride.rank() || i < 0 || i >= l.shape.rank()) {
    throw std::out_of_range("fly::dyn::get_mode: mode " + std::to_string(i) + " out of range in " +
                            to_string(l));
  }
  return Layout{l.shape[i], l.stride[i]};
}

namespace detail {

Layout bw_coalesce(const std::vector<IntTuple>& shapes, const std::vector<IntTuple>& strides,
                   int count, const IntTuple& init_shape, const IntTuple& init_stride) {
  // new_s/new_d are kept front-first; index 0 is the mode the next old mode may merge into.
  std::vector<IntTuple> new_s{init_shape}, new_d{init_stride};
  for (int i = count - 1; i >= 0; --i) {
    const auto& s = shapes[static_cast<size_t>(i)];
    const auto& d = strides[static_cast<size_t>(i)];
    if (s.value() == 1) continue;  // a size-1 mode contributes nothing
    if (new_s.size() == 1 && new_s[0].value() == 1) {  // replace a pending size-1 mode
      new_s[0] = s;
      new_d[0] = d;
    } else if (s.value() * d.value() == new_d[0].value()) {  // contiguous: merge
      new_s[0] = mul(s, new_s[0]);
      new_d[0] = d;
    } else {
      new_s.insert(new_s.begin(), s);
      new_d.insert(new_d.begin(), d);
    }
  }
  if (new_s.size() == 1) {
    if (new_s[0].value() == 1) return unit_layout();
    return Layout{new_s[0], new_d[0]};
  }
  return Layout{IntTuple::tuple(std::move(new_s)), IntTuple::tuple(std::move(new_d))};
}

Layout coalesce_x(const Layout& l) {
  const auto s = leaves(l.shape), d = leaves(l.stride);
  if (s.empty()) return unit_layout();
  const int r = static_cast<int>(s.size());
  // A trailing size-1 mode stands in as size 2 so the stride survives outside the domain.
  const IntTuple last_s = s.back().value() == 1 ? IntTuple(2, true) : s.back();
  return bw_coalesce(s, d, r - 1, last_s, d.back());
}

Layout filter(const Layout& l) {
  // Stride-0 modes become size-1 (CuTe's filter_zeros), and coalesce drops them.
  const Layout z = transform_leaves(l.shape, l.stride, [](const IntTuple& s, const IntTuple& d) {
    return Layout{d.value() == 0 ? kOne : s, d};
  });
  return coalesce(z);
}

Layout append_rank(const Layout& l, int r) {
  const int have = rank(l);
  if (have > r) {
    throw std::invalid_argument("fly::dyn::append_rank: " + to_string(l) + " has rank above " +
                                std::to_string(r));
  }
  if (have == r) return l;
  std::vector<Layout> modes;
  if (l.shape.is_leaf()) {
    modes.push_back(l);
  } else {
    for (int i = 0; i < have; ++i) modes.push_back(get_mode(l, i));
  }
  while (static_cast<int>(modes.size()) < r) modes.push_back(unit_layout());
  return make_layout(modes);
}

}  // namespace detail

Layout coalesce(const Layout& l) {
  const auto s = detail::leaves(l.shape), d = detail::leaves(l.stride);
  if (s.empty()) return unit_layout();
  const int r = static_cast<int>(s.size());
  return detail::bw_coalesce(s, d, r - 1, s.back(), d.back());
}

Layout coalesce(const Layout& l, const IntTuple& profile) {
  if (profile.is_leaf()) return coalesce(l);
  if (profile.rank() > rank(l)) {
    throw std::invalid_argument("fly::dyn::coalesce: profile " + to_string(profile) +
                                " has more modes than " + to_string(l));
  }
  std::vector<Layout> modes;
  for (int i = 0; i < rank(l); ++i) {
    modes.push_back(i < profile.rank() ? coalesce(get_mode(l, i), profile[i]) : get_mode(l, i));
  }
  return make_layout(modes);
}

Layout upcast(const Layout& l, int64_t n) {
  const IntTuple big(n, true);
  try {
    return transform_leaves(l.shape, l.stride, [&](const IntTuple& s, const IntTuple& d) {
      if (d.value() == 0) return Layout{s, d};
      // Fewer, wider elements: the stride-1 extent shrinks, every stride is divided by n.
      const IntTuple per = detail::shape_div(big, abs_leaf(d));
      return Layout{detail::shape_div(s, per), detail::shape_div(d, big)};
    });
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument("fly::dyn::upcast: cannot upcast " + to_string(l) + " by " +
                                std::to_string(n) + ": " + e.what());
  }
}

Layout downcast(const Layout& l, int64_t n) {
  bool has_unit = false;
  for (const auto& d : detail::leaves(l.stride)) has_unit = has_unit || d.value() == 1;
  if (!has_unit) {
    throw std::invalid_argument("fly::dyn::downcast: " + to_string(l) +
                                " has no stride-1 mode (downcast needs adjacent elements)");
  }
  const IntTuple small(n, true);
  return transform_leaves(l.shape, l.stride, [&](const IntTuple& s, const IntTuple& d) {
    // Unit-stride modes grow by n; all other strides scale by n.
    if (d.value() == 1 || d.value() == -1) return Layout{detail::mul(s, small), d};
    return Layout{s, detail::mul(d, small)};
  });
}

}  // namespace fly::dyn
