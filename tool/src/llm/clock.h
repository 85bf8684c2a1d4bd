// Time as the retry loop sees it: a seam so tests check every wait without
// sleeping through it.
#pragma once

namespace kernelblaster::llm {

class Clock {
 public:
  virtual ~Clock() = default;
  virtual double now_s() = 0;
  virtual void sleep_s(double seconds) = 0;
};

// std::chrono::steady_clock and std::this_thread::sleep_for.
class SteadyClock : public Clock {
 public:
  double now_s() override;
  void sleep_s(double seconds) override;
};

}  // namespace kernelblaster::llm
