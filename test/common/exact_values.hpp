// Random test inputs whose products and partial sums are exact in fp32 whatever the accumulation
// order (or the width of a tensor core's adder), so a GPU result can be compared bit for bit.
#pragma once

#include <random>
#include <vector>

namespace fly_test {

// One of 0, +-0.5, +-1, +-1.5, +-2: exact in every fp8/bf16/f16 format libfly has.
inline float random_exact_value(std::mt19937& rng) {
  static const float pool[] = {0.f, 0.5f, -0.5f, 1.f, -1.f, 1.5f, -1.5f, 2.f, -2.f};
  std::uniform_int_distribution<int> pick(0, 8);
  return pool[pick(rng)];
}

template <class T>
std::vector<T> random_exact_operand(int n, std::mt19937& rng) {
  std::vector<T> v;
  v.reserve(size_t(n));
  for (int i = 0; i < n; ++i) v.push_back(T(random_exact_value(rng)));
  return v;
}

}  // namespace fly_test
