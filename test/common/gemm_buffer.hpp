// Host storage of one GEMM operand of any fly dtype, element by element as float: the GPU GEMM
// tests fill operands with it and read results back through it.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

#include "fly/fly.h"
#include "fly/numeric/numeric.hpp"
#include "gemm/gemm_registry.hpp"  // dtype_bytes

namespace fly_test {

struct Buffer {
  fly_dtype_t type;
  std::vector<unsigned char> bytes;
  int64_t elems;
  Buffer(fly_dtype_t t, int64_t n) : type(t), bytes(size_t(n) * size_t(fly::dispatch::dtype_bytes(t))), elems(n) {}
  float get(int64_t i) const {
    switch (type) {
      case FLY_DTYPE_F32: { float v; std::memcpy(&v, &bytes[size_t(i) * 4], 4); return v; }
      case FLY_DTYPE_BF16: { uint16_t b; std::memcpy(&b, &bytes[size_t(i) * 2], 2); return float(fly::bfloat16::from_bits(b)); }
      case FLY_DTYPE_F16: { uint16_t b; std::memcpy(&b, &bytes[size_t(i) * 2], 2); return float(fly::half::from_bits(b)); }
      case FLY_DTYPE_E4M3FN: return float(fly::float8_e4m3fn::from_bits(bytes[size_t(i)]));
      default: return float(fly::float8_e4m3fnuz::from_bits(bytes[size_t(i)]));
    }
  }
  void set(int64_t i, float v) {
    switch (type) {
      case FLY_DTYPE_F32: std::memcpy(&bytes[size_t(i) * 4], &v, 4); break;
      case FLY_DTYPE_BF16: { uint16_t b = fly::bfloat16(v).bits(); std::memcpy(&bytes[size_t(i) * 2], &b, 2); break; }
      case FLY_DTYPE_F16: { uint16_t b = fly::half(v).bits(); std::memcpy(&bytes[size_t(i) * 2], &b, 2); break; }
      case FLY_DTYPE_E4M3FN: bytes[size_t(i)] = fly::float8_e4m3fn(v).bits(); break;
      default: bytes[size_t(i)] = fly::float8_e4m3fnuz(v).bits(); break;
    }
  }
};

}  // namespace fly_test
