// The host model of a gfx942 workgroup: every lane of every wavefront is a host thread running the
// kernel body; the wave primitives of pa_decode_gfx942_wave.hpp (MFMA, lane exchange, LDS
// visibility, barriers) meet through std::barrier here, one per wavefront and one for the block.
#pragma once

#include <barrier>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include "pa_decode_gfx942_wave.hpp"

namespace fly_test {

class Gfx942BlockModel final : public fly::kernels::pa::gfx942::HostWaveModel {
 public:
  explicit Gfx942BlockModel(int threads)
      : waves_(threads / fly::kernels::pa::gfx942::kLanes), block_(threads),
        mail_(size_t(threads) * kExchangeBytes) {
    for (int w = 0; w < waves_; ++w) wave_.push_back(std::make_unique<std::barrier<>>(fly::kernels::pa::gfx942::kLanes));
  }
  void wave_sync(int wave) override { wave_[size_t(wave)]->arrive_and_wait(); }
  void block_sync() override { block_.arrive_and_wait(); }
  unsigned char* exchange(int wave, int lane) override {
    return mail_.data() + size_t(wave * fly::kernels::pa::gfx942::kLanes + lane) * kExchangeBytes;
  }

  // Runs body(tid) on `threads` host threads, one per lane, until every one returns.
  void run(const std::function<void(int)>& body) {
    std::vector<std::thread> lanes;
    for (int t = 0; t < waves_ * fly::kernels::pa::gfx942::kLanes; ++t)
      lanes.emplace_back([this, t, &body] {
        fly::kernels::pa::gfx942::host_lane = {this, t / fly::kernels::pa::gfx942::kLanes, t % fly::kernels::pa::gfx942::kLanes};
        body(t);
      });
    for (auto& l : lanes) l.join();
  }

 private:
  int waves_;
  std::vector<std::unique_ptr<std::barrier<>>> wave_;
  std::barrier<> block_;
  std::vector<unsigned char> mail_;
};

}  // namespace fly_test
