// The runtime's own GPU work: seeded input generation, input checksums, the
// L2 flush, unwritten-output counts and the profiler's priming kernel. All
// of it runs outside the timed windows.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernelblaster/harness.h"

namespace kernelblaster {

// Fills `count` elements of `dtype` at `device_ptr` from `dist`. Each value is
// a pure function of (seed, stream_id, index).
void generate_on_device(void* device_ptr, DType dtype, std::int64_t count, const Distribution& dist,
                        std::uint64_t seed, std::uint64_t stream_id);
// An order-independent 64-bit fingerprint of `bytes` bytes of device memory.
std::uint64_t checksum_on_device(const void* device_ptr, std::size_t bytes);
// Evicts the L2 by reading `bytes` (at least twice the L2) of a scratch
// buffer. Reading, not writing: a memset would leave the L2 full of dirty
// lines whose write-back then lands inside the next timed kernel.
void flush_l2_on_device(const void* scratch, std::size_t bytes);
// Elements of `element_bytes` bytes at `device_ptr` whose bytes all equal
// `poison`: outputs a call left unwritten.
std::int64_t count_poisoned_on_device(const void* device_ptr, std::int64_t count, std::size_t element_bytes,
                                      std::uint8_t poison);
// Holds the legacy default stream behind a one-thread kernel from hold()
// until release() (or the timeout), so that a correctness call starts with
// its stream busy: work the call puts on the legacy stream, or on any stream
// ordered after it, starts only after the gate ends; work on a stream that
// ignores the caller's stream starts while the gate still runs
// (activity_windows.h).
// The longest a gate holds the stream: a call that synchronizes the device
// waits this long once.
constexpr std::uint32_t kGateTimeoutUs = 20000;
// How long the gate still holds after the call returned: work the call left
// queued on an unordered stream starts within microseconds, so it starts
// while the gate runs, not by chance just after it (a launch-and-return
// call lasts less than the flag takes to reach the GPU).
constexpr std::uint32_t kGateHoldAfterReturnUs = 200;

class StreamGate {
 public:
  StreamGate();
  ~StreamGate();
  StreamGate(const StreamGate&) = delete;
  StreamGate& operator=(const StreamGate&) = delete;
  void hold(std::uint32_t timeout_us);  // enqueues the gate; returns at once
  // Lets the gate end `after_us` from now; call before synchronizing.
  void release(std::uint32_t after_us = kGateHoldAfterReturnUs);

 private:
  int* m_flag = nullptr;  // host-mapped
};

// Overwrites [device_ptr, device_ptr + bytes) with kScrubWord's bytes by
// address parity (F5 at even addresses, 7F at odd ones), so a copy keeps
// the pattern whatever its element type and alignment (protocol.h).
void fill_scrub_pattern_on_device(void* device_ptr, std::size_t bytes);
// The L2 set-aside for persisting accesses as a call left it
// (cudaLimitPersistingL2CacheSize), then taken back: the limit set to 0 and
// every persisting line made normal again, so the next flush evicts it.
// Returns 0 where the GPU has no such set-aside.
std::size_t take_back_persisting_l2();

// One empty kernel, synchronized: the profiler's priming pass (range_profiler.h).
void run_trivial_kernel_on_device();
// Name hash used as the generator's stream id, so two buffers never share values.
std::uint64_t stream_id_of(const char* name);

}  // namespace kernelblaster
