// JSON form of TunedResult and GpuFingerprint, shared by the cache entries
// and the lockfile. The only place these types meet nlohmann::json.
#pragma once

#include <nlohmann/json.hpp>

#include "build_step/gpu_fingerprint.h"
#include "build_step/tuned_result.h"

namespace kernelblaster::build_step {

nlohmann::json gpu_to_json(const GpuFingerprint& gpu);
GpuFingerprint gpu_from_json(const nlohmann::json& j);  // missing keys stay default

nlohmann::json result_to_json(const TunedResult& r);
// Throws std::runtime_error (naming `where`) for a value that is not an object.
TunedResult result_from_json(const nlohmann::json& j, const std::string& where);

}  // namespace kernelblaster::build_step
