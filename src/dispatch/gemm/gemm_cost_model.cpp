// The GEMM cost model's features and prediction (gemm_cost_model.hpp; the same sum as
// tools/gemm_cost_model.py, which fits the coefficients).
#include "gemm_cost_model.hpp"

#include <cmath>
#include <cstring>

namespace fly::dispatch {

const GemmCostModel* find_gemm_cost_model(std::span<const GemmCostModel> model, Target target, const char* name) {
  if (name == nullptr) return nullptr;
  for (const GemmCostModel& row : model) {
    if (row.target == target && row.variant != nullptr && std::strcmp(row.variant, name) == 0) return &row;
  }
  return nullptr;
}

std::vector<const GemmCostModel*> gemm_cost_model_rows(std::span<const GemmCostModel> model,
                                                        std::span<const GemmVariant> variants) {
  std::vector<const GemmCostModel*> rows;
  rows.reserve(variants.size());
  for (const GemmVariant& v : variants) rows.push_back(find_gemm_cost_model(model, v.target, v.name));
  return rows;
}

double gemm_model_us(const GemmCostModel& row, const GemmVariant& v, const GemmProblem& p, int sms) {
  // doubles throughout: the counts of huge shapes pass int64 only in their products
  double const s = sms >= 1 ? sms : (row.sms >= 1 ? row.sms : 1);
  double const m = static_cast<double>(p.m), n = static_cast<double>(p.n), k = static_cast<double>(p.k);
  // a split tile is split_k blocks, each with its share of the k-tiles
  double const split = v.split_k >= 1 ? v.split_k : 1;
  double const tiles = std::ceil(m / v.bm) * std::ceil(n / v.bn) * split;
  double const kt = std::ceil(std::ceil(k / v.bk) / split);
  double const waves = std::ceil(tiles / s);
  double const features[6] = {1.0, waves * kt, tiles * kt / s, (m * k + n * k + 2.0 * m * n) / 1e6, waves, kt};
  double us = 0.0;
  for (int i = 0; i < 6; ++i) us += row.us[i] * features[i];
  return us;
}

}  // namespace fly::dispatch
