// Remembering which GPU this machine has. Starting the CUDA driver costs a
// build step more than everything else it does on a cache hit (about 0.2 s
// on an H200 machine), and every optimized source pays it. The GPU behind a
// device index does not change until a reboot or a different
// CUDA_VISIBLE_DEVICES, so the fingerprint is remembered under those.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "build_step/gpu_fingerprint.h"

namespace kernelblaster::build_step {

using GpuProber = std::function<std::optional<GpuFingerprint>(int device, std::string* why_not)>;

// The memo's key for `device`: boot id, CUDA_VISIBLE_DEVICES and the index.
// Empty when the boot id cannot be read (then nothing is remembered).
std::string gpu_memo_key(const std::string& boot_id, const std::string& visible_devices, int device);

// The fingerprint from `memo_dir` when remembered under this boot's key,
// else from `probe` (and remembered when a GPU was found; "no GPU" is never
// remembered, so a driver installed later is seen at once). An unreadable
// or unwritable memo only costs the probe.
std::optional<GpuFingerprint> probe_gpu_remembered(const std::string& memo_dir, int device, std::string* why_not,
                                                   const GpuProber& probe = probe_gpu_fingerprint,
                                                   const std::string& boot_id_path = "/proc/sys/kernel/random/boot_id");

}  // namespace kernelblaster::build_step
