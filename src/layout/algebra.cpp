// Composition, complement, inverses, divides and products of fly::dyn, after CuTe's layout.hpp.
#include <algorithm>
#include <cstdlib>
#include <functional>
#include <stdexcept>
#include <utility>

#include "fly/layout/dynamic.hpp"

namespace fly::dyn {

namespace {

const IntTuple kOne(1, true);
const IntTuple kZero(0, true);

IntTuple abs_leaf(const IntTuple& a) { return IntTuple(std::llabs(a.value()), a.is_static()); }

IntTuple signum_leaf(const IntTuple& a) {
  const int64_t v = a.value();
  return IntTuple((v > 0) - (v < 0), a.is_static());
}

// Re-throw a failure of an inner step with the public operation and its operands named.
[[noreturn]] void rethrow(const char* op, const std::string& operands, const std::exception& e) {
  throw std::invalid_argument(std::string("fly::dyn::") + op + ": " + operands + ": " + e.what());
}

std::string two(const Layout& a, const Layout& b) {
  return "A = " + to_string(a) + ", B = " + to_string(b);
}

std::string tiler_text(const Tiler& t) {
  std::string s = "<";
  for (size_t i = 0; i < t.size(); ++i) {
    if (i) s += ", ";
    s += t[i] ? to_string(*t[i]) : std::string("_");
  }
  return s + ">";
}

// CuTe's shape_min: _1 wins (and stays static), otherwise the smaller value.
IntTuple shape_min(const IntTuple& a, const IntTuple& b) {
  if (a.value() == 1 && a.is_static()) return a;
  if (b.value() == 1 && b.is_static()) return b;
  const IntTuple& m = a.value() <= b.value() ? a : b;
  return IntTuple(m.value(), a.is_static() && b.is_static());
}

// Composition of a flat, coalesced A with B, right-distributing over B's modes.
Layout compose_impl(const IntTuple& ls, const IntTuple& ld, const IntTuple& rs, const IntTuple& rd) {
  if (!rs.is_leaf()) {
    if (rd.is_leaf() || rd.rank() != rs.rank()) {
      throw std::invalid_argument("shape " + to_string(rs) + " and stride " + to_string(rd) +
                                  " are not congruent");
    }
    std::vector<Layout> modes;
    for (int i = 0; i < rs.rank(); ++i) modes.push_back(compose_impl(ls, ld, rs[i], rd[i]));
    return make_layout(modes);
  }
  if (!rd.is_leaf()) {
    throw std::invalid_argument("shape " + to_string(rs) + " and stride " + to_string(rd) +
                                " are not congruent");
  }
  if (rd.value() == 0) return Layout{rs, rd};                 // broadcast stays broadcast
  if (ls.is_leaf()) return Layout{rs, detail::mul(rd, ld)};  // A = a:b -> s:(b*d)

  const int r = ls.rank();
  std::vector<IntTuple> shape1, stride1;
  IntTuple last_stride;
  if (rd.value() == 1) {
    // Unit stride: nothing to divide out, only the shape to mod out.
    for (int i = 0; i + 1 < r; ++i) {
      shape1.push_back(ls[i]);
      stride1.push_back(ld[i]);
    }
    last_stride = ld[r - 1];
  } else {
    // Divide B's stride out of A's leading modes, scaling their strides by what was removed.
    IntTuple rest_stride = rd;
    for (int i = 0; i + 1 < r; ++i) {
      shape1.push_back(detail::shape_div(ls[i], rest_stride));
      rest_stride = detail::shape_div(rest_stride, ls[i]);
    }
    for (int i = 0; i + 1 < r; ++i) {
      const auto k = static_cast<size_t>(i);
      stride1.push_back(detail::mul(ld[i], detail::shape_div(ls[i], shape1[k])));
    }
    last_stride = detail::mul(rest_stride, ld[r - 1]);
  }
  // Keep only B's shape worth of elements, left to right; the rest goes to the last mode.
  std::vector<IntTuple> shape2;
  IntTuple rest_shape = rs;
  for (const auto& si : shape1) {
    shape2.push_back(shape_min(abs_leaf(si), rest_shape));
    rest_shape = detail::shape_div(rest_shape, abs_leaf(si));
  }
  return detail::bw_coalesce(shape2, stride1, r - 1, rest_shape, last_stride);
}

// Apply `f` to the first tiler.size() modes (nullopt keeps the mode); optionally keep the rest.
Layout by_mode(const Layout& a, const Tiler& t, bool keep_rest,
               const std::function<Layout(const Layout&, const Layout&)>& f, const char* op) {
  if (static_cast<int>(t.size()) > rank(a)) {
    throw std::invalid_argument(std::string("fly::dyn::") + op + ": tiler " + tiler_text(t) +
                                " has more modes than " + to_string(a));
  }
  std::vector<Layout> modes;
  for (int i = 0; i < rank(a); ++i) {
    const auto k = static_cast<size_t>(i);
    if (k < t.size()) {
      modes.push_back(t[k] ? f(get_mode(a, i), *t[k]) : get_mode(a, i));
    } else if (keep_rest) {
      modes.push_back(get_mode(a, i));
    }
  }
  return make_layout(modes);
}

// CuTe's zip2_by: gather mode 0 of each tiled (rank-2) mode, then mode 1 and untiled modes.
IntTuple zip2_by(const IntTuple& t, size_t guided, const char* op, const std::string& what) {
  std::vector<IntTuple> first, second;
  for (int i = 0; i < t.rank(); ++i) {
    if (static_cast<size_t>(i) < guided) {
      if (t[i].is_leaf() || t[i].rank() != 2) {
        throw std::invalid_argument(std::string("fly::dyn::") + op + ": mode " +
                                    std::to_string(i) + " of " + what +
                                    " is not rank-2 (a `_` tiler mode must already be rank-2)");
      }
      first.push_back(t[i][0]);
      second.push_back(t[i][1]);
    } else {
      second.push_back(t[i]);
    }
  }
  return IntTuple::tuple({IntTuple::tuple(std::move(first)), IntTuple::tuple(std::move(second))});
}

Layout tile_unzip(const Layout& l, const Tiler& t, const char* op) {
  return Layout{zip2_by(l.shape, t.size(), op, to_string(l)),
                zip2_by(l.stride, t.size(), op, to_string(l))};
}

// The modes a CuTe slice with `_` (rank 1) or `(_,...,_)` (rank > 1) contributes.
void unpack_mode(const Layout& l, int i, bool unpack, std::vector<Layout>& out) {
  const Layout m = get_mode(l, i);
  if (!unpack || rank(m) == 1) {
    out.push_back(m);
    return;
  }
  for (int j = 0; j < rank(m); ++j) out.push_back(get_mode(m, j));
}

Layout unpack(const Layout& zipped, bool unpack0) {
  std::vector<Layout> modes;
  unpack_mode(zipped, 0, unpack0, modes);
  unpack_mode(zipped, 1, true, modes);
  return make_layout(modes);
}

// CuTe's zip of two IntTuples: pair up their top-level modes.
IntTuple zip_pair(const IntTuple& a, const IntTuple& b) {
  if (a.is_leaf()) return IntTuple::tuple({IntTuple::tuple({a, b})});
  if (b.is_leaf() || a.rank() != b.rank()) {
    throw std::invalid_argument("cannot zip " + to_string(a) + " with " + to_string(b));
  }
  std::vector<IntTuple> out;
  for (int i = 0; i < a.rank(); ++i) out.push_back(IntTuple::tuple({a[i], b[i]}));
  return IntTuple::tuple(std::move(out));
}

// blocked (block first) or raked (tiler first) re-association of a rank-aligned product.
Layout rank_product(const Layout& block, const Layout& tiler, bool blocked, const char* op) {
  try {
    const int r = std::max(rank(block), rank(tiler));
    const Layout p = logical_product(detail::append_rank(block, r), detail::append_rank(tiler, r));
    const Layout x = get_mode(p, blocked ? 0 : 1), y = get_mode(p, blocked ? 1 : 0);
    // Not coalesced (CuTe): mode i keeps block_i and tiler_i apart, size-1 padding modes included.
    if (r == 1) {
      // Rank-1 operands are one mode each, even when that mode is a tuple: the result is the single
      // mode (x, y), so rank(result) == 1 as for any other rank (CuTe and the compile-time algebra agree).
      return Layout{IntTuple::tuple({IntTuple::tuple({x.shape, y.shape})}),
                    IntTuple::tuple({IntTuple::tuple({x.stride, y.stride})})};
    }
    return Layout{zip_pair(x.shape, y.shape), zip_pair(x.stride, y.stride)};
  } catch (const std::invalid_argument& e) {
    rethrow(op, "block = " + to_string(block) + ", tiler = " + to_string(tiler), e);
  }
}

}  // namespace

Layout composition(const Layout& a, const Layout& b) {
  try {
    const Layout fa = detail::coalesce_x(a);
    return compose_impl(fa.shape, fa.stride, b.shape, b.stride);
  } catch (const std::invalid_argument& e) {
    rethrow("composition", two(a, b) + " (B is not admissible for A)", e);
  }
}

Layout composition(const Layout& a, const Tiler& b) {
  return by_mode(a, b, false, [](const Layout& l, const Layout& t) { return composition(l, t); },
                 "composition");
}

namespace detail {

Layout complement(const Layout& l, const IntTuple& cotarget) {
  const Layout f = filter(l);
  if (f.stride.is_leaf() && f.stride.value() == 0) {
    // Nothing is reached: the complement is the whole cotarget, contiguous.
    const IntTuple all(size(cotarget), IntTuple::tuple(leaves(cotarget)).is_static());
    return make_layout(all);
  }
  std::vector<IntTuple> shape = leaves(f.shape), stride = leaves(f.stride);
  const size_t r = shape.size();
  std::vector<IntTuple> result_shape, result_stride{kOne};
  // Visit A's modes by increasing stride; each gap becomes a complement mode.
  for (size_t i = 0; i + 1 < r; ++i) {
    size_t m = 0;
    for (size_t j = 1; j < stride.size(); ++j) {
      if (stride[j].value() < stride[m].value()) m = j;
    }
    const IntTuple gap(stride[m].value() / result_stride[i].value(),
                       stride[m].is_static() && result_stride[i].is_static());
    if (gap.value() == 0) throw std::invalid_argument("non-injective layout " + to_string(l));
    result_shape.push_back(gap);
    result_stride.push_back(mul(stride[m], shape[m]));
    shape.erase(shape.begin() + static_cast<std::ptrdiff_t>(m));
    stride.erase(stride.begin() + static_cast<std::ptrdiff_t>(m));
  }
  const IntTuple gap(stride[0].value() / result_stride[r - 1].value(),
                     stride[0].is_static() && result_stride[r - 1].is_static());
  if (gap.value() == 0) throw std::invalid_argument("non-injective layout " + to_string(l));
  result_shape.push_back(gap);
  // Repeat the covered block until the cotarget is reached.
  const IntTuple rest_stride = mul(stride[0], shape[0]);
  result_shape.push_back(ceil_div_product(cotarget, rest_stride));
  result_stride.push_back(rest_stride);
  return coalesce(Layout{IntTuple::tuple(std::move(result_shape)),
                         IntTuple::tuple(std::move(result_stride))});
}

}  // namespace detail

Layout complement(const Layout& l) {
  // Default cotarget is cosize(filter(l)), which equals cosize(l).
  return complement(l, cosize(l));
}

Layout complement(const Layout& l, int64_t cotarget) {
  // A plain integer carries no static mark; inherit it from the layout (best effort printing).
  const bool st = IntTuple::tuple(detail::leaves(l.shape)).is_static() &&
                  IntTuple::tuple(detail::leaves(l.stride)).is_static();
  try {
    return detail::complement(l, IntTuple(cotarget, st));
  } catch (const std::invalid_argument& e) {
    rethrow("complement", to_string(l) + " with cotarget " + std::to_string(cotarget), e);
  }
}

Layout right_inverse(const Layout& l) {
  const Layout f = coalesce(l);
  const auto s = detail::leaves(f.shape), d = detail::leaves(f.stride);
  // Follow the chain of strides 1, s0*d0, ... through the coalesced modes.
  std::vector<size_t> seq;
  std::vector<bool> used(s.size(), false);
  int64_t next = 1;
  for (;;) {
    size_t i = 0;
    while (i < d.size() && (used[i] || std::llabs(d[i].value()) != next)) ++i;
    if (i == d.size()) break;
    seq.push_back(i);
    used[i] = true;
    next = s[i].value() * std::llabs(d[i].value());
  }
  if (seq.empty()) return Layout{kOne, kZero};
  const auto rstride = detail::leaves(detail::compact_col_major(IntTuple::tuple(s), kOne));
  std::vector<IntTuple> rs, rd;
  for (size_t i : seq) {
    rs.push_back(s[i]);
    rd.push_back(detail::mul(signum_leaf(d[i]), rstride[i]));
  }
  if (rs.size() == 1) return Layout{rs[0], rd[0]};
  return Layout{IntTuple::tuple(std::move(rs)), IntTuple::tuple(std::move(rd))};
}

Layout left_inverse(const Layout& l) {
  const Layout f = coalesce(l);
  const auto s = detail::leaves(f.shape), d = detail::leaves(f.stride);
  // Negative strides, where CuTe gives no inverse: invert (L, complement(L)) instead.
  if (std::any_of(d.begin(), d.end(), [](const IntTuple& x) { return x.value() < 0; })) {
    return right_inverse(make_layout({l, complement(l)}));
  }
  // As CuTe: visit the modes by increasing stride d (ties: leftmost first). The inverse's modes split
  // an offset by the strides: a first mode of extent d_first and stride 0 (offsets below the smallest
  // stride are not reached), then per mode one of extent d_next/d whose stride is the mode's prefix
  // product (its weight in L's domain index). Stride-0 modes are left out; n is the previous stride.
  std::vector<size_t> order(s.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return d[a].value() < d[b].value(); });
  const auto pre = detail::leaves(detail::compact_col_major(IntTuple::tuple(s), kOne));
  std::vector<IntTuple> rs, rd{kZero};
  IntTuple n = kOne;
  for (size_t i : order) {
    if (d[i].value() == 0) continue;
    if (d[i].value() % n.value() != 0) {
      throw std::invalid_argument("fly::dyn::left_inverse: " + to_string(l) + ": stride " +
                                  to_string(d[i]) + " is not a multiple of " + to_string(n) +
                                  ", the next smaller stride");
    }
    const IntTuple gap(d[i].value() / n.value(), d[i].is_static() && n.is_static());
    rs.push_back(gap);
    rd.push_back(pre[i]);
    n = d[i];
  }
  rs.push_back(s[order.back()]);  // the largest-stride mode's extent closes the domain
  return coalesce(Layout{IntTuple::tuple(std::move(rs)), IntTuple::tuple(std::move(rd))});
}

Layout logical_divide(const Layout& a, const Layout& b) {
  try {
    // The documented definition: B* = complement(B, size(A)). (Recent CuTe code passes shape(A),
    // which differs only for tiles that do not divide A; the compile-time algebra uses size(A) too.)
    return composition(a, make_layout({b, complement(b, size(a))}));
  } catch (const std::invalid_argument& e) {
    rethrow("logical_divide", two(a, b), e);
  }
}

Layout logical_divide(const Layout& a, const Tiler& b) {
  return by_mode(a, b, true, [](const Layout& l, const Layout& t) { return logical_divide(l, t); },
                 "logical_divide");
}

Layout zipped_divide(const Layout& a, const Layout& b) {
  return logical_divide(a, b);  // already (tile, rest)
}

Layout zipped_divide(const Layout& a, const Tiler& b) {
  return tile_unzip(logical_divide(a, b), b, "zipped_divide");
}

Layout tiled_divide(const Layout& a, const Layout& b) { return unpack(zipped_divide(a, b), false); }

Layout tiled_divide(const Layout& a, const Tiler& b) { return unpack(zipped_divide(a, b), false); }

Layout flat_divide(const Layout& a, const Layout& b) { return unpack(zipped_divide(a, b), true); }

Layout flat_divide(const Layout& a, const Tiler& b) { return unpack(zipped_divide(a, b), true); }

Layout logical_product(const Layout& a, const Layout& b) {
  try {
    const bool st = IntTuple::tuple(detail::leaves(a.shape)).is_static() &&
                    IntTuple::tuple(detail::leaves(b.shape)).is_static() &&
                    IntTuple::tuple(detail::leaves(b.stride)).is_static();
    const IntTuple cotarget(size(a) * cosize(b), st);
    return make_layout({a, composition(detail::complement(a, cotarget), b)});
  } catch (const std::invalid_argument& e) {
    rethrow("logical_product", two(a, b), e);
  }
}

Layout logical_product(const Layout& a, const Tiler& b) {
  return by_mode(a, b, true, [](const Layout& l, const Layout& t) { return logical_product(l, t); },
                 "logical_product");
}

Layout zipped_product(const Layout& a, const Tiler& b) {
  return tile_unzip(logical_product(a, b), b, "zipped_product");
}

Layout zipped_product(const Layout& a, const Layout& b) {
  return logical_product(a, b);  // already (block, repetitions)
}

Layout tiled_product(const Layout& a, const Layout& b) { return unpack(zipped_product(a, b), false); }

Layout tiled_product(const Layout& a, const Tiler& b) { return unpack(zipped_product(a, b), false); }

Layout flat_product(const Layout& a, const Layout& b) { return unpack(zipped_product(a, b), true); }

Layout flat_product(const Layout& a, const Tiler& b) { return unpack(zipped_product(a, b), true); }

Layout blocked_product(const Layout& block, const Layout& tiler) {
  return rank_product(block, tiler, true, "blocked_product");
}

Layout raked_product(const Layout& block, const Layout& tiler) {
  return rank_product(block, tiler, false, "raked_product");
}

namespace {

// Shared body of both tile_to_shape overloads; `order` empty means column-major.
Layout tile_to_shape_impl(const Layout& block, const IntTuple& target, const IntTuple* order) {
  const int r = target.rank();
  if (rank(block) > r) {
    throw std::invalid_argument("fly::dyn::tile_to_shape: " + to_string(block) +
                                " has more modes than target " + to_string(target));
  }
  const Layout padded = detail::append_rank(block, r);
  std::vector<IntTuple> reps;
  for (int i = 0; i < r; ++i) {
    const IntTuple bs = padded.shape.is_leaf() ? padded.shape : padded.shape[i];
    const IntTuple ts = target.is_leaf() ? target : target[i];
    const int64_t b = size(bs), t = size(ts);
    if (t % b != 0) {
      throw std::invalid_argument("fly::dyn::tile_to_shape: block " + to_string(block) +
                                  " does not divide target " + to_string(target) + " in mode " +
                                  std::to_string(i));
    }
    const bool st = IntTuple::tuple(detail::leaves(bs)).is_static() &&
                    IntTuple::tuple(detail::leaves(ts)).is_static();
    reps.emplace_back(t / b, st);
  }
  const IntTuple product_shape = IntTuple::tuple(std::move(reps));
  const Layout tiles = order ? make_ordered_layout(product_shape, *order) : make_layout(product_shape);
  return blocked_product(padded, tiles);  // mode i is (block_i, repetitions_i), not coalesced (CuTe)
}

}  // namespace

Layout tile_to_shape(const Layout& block, const IntTuple& target) {
  return tile_to_shape_impl(block, target, nullptr);
}

Layout tile_to_shape(const Layout& block, const IntTuple& target, const IntTuple& order) {
  return tile_to_shape_impl(block, target, &order);
}

}  // namespace fly::dyn
