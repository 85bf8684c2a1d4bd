#include "llm/clock.h"

#include <chrono>
#include <thread>

namespace kernelblaster::llm {

double SteadyClock::now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void SteadyClock::sleep_s(double seconds) {
  if (seconds > 0) std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
}

}  // namespace kernelblaster::llm
