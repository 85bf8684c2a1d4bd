#include "build_step/gpu_fingerprint.h"

#include <regex>

#include <cuda_runtime.h>

#include <algorithm>
#include <cctype>

namespace kernelblaster::build_step {

namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// "sm_90", "90", "compute_90", "90-real", "sm90" -> "90"; "" when not an arch.
std::string arch_digits(std::string s) {
  s = lower(s);
  for (const char* prefix : {"sm_", "compute_", "sm"})
    if (s.rfind(prefix, 0) == 0) {
      s = s.substr(std::string(prefix).size());
      break;
    }
  if (auto dash = s.find('-'); dash != std::string::npos) s = s.substr(0, dash);
  if (s.size() < 2 || !std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c) || c == 'a' || c == 'f'; }))
    return "";
  if (!std::isdigit(static_cast<unsigned char>(s[0]))) return "";
  return s;
}

}  // namespace

std::string GpuFingerprint::arch() const { return "sm_" + std::to_string(cc_major) + std::to_string(cc_minor); }

std::string GpuFingerprint::id() const {
  std::string slug;
  for (char c : lower(name)) {
    if (std::isalnum(static_cast<unsigned char>(c))) slug += c;
    else if (!slug.empty() && slug.back() != '-') slug += '-';
  }
  while (!slug.empty() && slug.back() == '-') slug.pop_back();
  if (slug.empty()) slug = "gpu";
  return slug + "_sm" + std::to_string(cc_major) + std::to_string(cc_minor) + "_" + std::to_string(sm_count) + "sm_drv" +
         std::to_string(driver_major);
}

bool GpuFingerprint::is_id(const std::string& text) {
  static const std::regex kShape(R"(.+_sm[0-9]+_[0-9]+sm_drv[0-9]+)");
  return std::regex_match(text, kShape);
}

namespace {

// Runs of '-' as one, none at either end: the two slugs alike.
std::string squeezed(const std::string& s) {
  std::string out;
  for (char c : s)
    if (c != '-' || (!out.empty() && out.back() != '-')) out += c;
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out;
}

// The other form `kernelblaster gpu info` once printed, the ceilings' key
// ("nvidia-h100-80gb-hbm3-sm90-132sm-drv580"): its driver is the kernel
// driver's release, which results do not depend on, so the name, compute
// capability and SMs decide.
bool names_in_ceilings_form(const GpuFingerprint& gpu, const std::string& selector) {
  static const std::regex kShape(R"((.+)-sm([0-9]+)-([0-9]+)sm-drv[0-9]+)");
  std::smatch m;
  if (!std::regex_match(selector, m, kShape)) return false;
  const std::string id = gpu.id();
  return squeezed(lower(m[1].str())) == id.substr(0, id.find('_')) &&
         m[2].str() == std::to_string(gpu.cc_major) + std::to_string(gpu.cc_minor) &&
         m[3].str() == std::to_string(gpu.sm_count);
}

}  // namespace

int gpu_match_rank(const GpuFingerprint& gpu, const std::string& selector) {
  if (selector.empty() || gpu.empty()) return -1;
  if (selector == gpu.id() || lower(selector) == lower(gpu.name) || names_in_ceilings_form(gpu, selector)) return 0;
  std::string digits = arch_digits(selector);
  if (!digits.empty() && digits == std::to_string(gpu.cc_major) + std::to_string(gpu.cc_minor)) return 1;
  return -1;
}

bool gpu_matches(const GpuFingerprint& gpu, const std::string& selector) { return gpu_match_rank(gpu, selector) >= 0; }

std::optional<GpuFingerprint> probe_gpu_fingerprint(int device, std::string* why_not) {
  auto fail = [&](const std::string& why) {
    if (why_not) *why_not = why;
    return std::nullopt;
  };
  int count = 0;
  if (cudaError_t e = cudaGetDeviceCount(&count); e != cudaSuccess)
    return fail(std::string("no CUDA GPU on this machine (CUDA: ") + cudaGetErrorString(e) + ")");
  if (device < 0 || device >= count) return fail("no CUDA device " + std::to_string(device));
  cudaDeviceProp prop{};
  if (cudaError_t e = cudaGetDeviceProperties(&prop, device); e != cudaSuccess)
    return fail(std::string("cannot query the GPU (") + cudaGetErrorString(e) + ")");
  GpuFingerprint fp;
  fp.name = prop.name;
  fp.cc_major = prop.major;
  fp.cc_minor = prop.minor;
  fp.sm_count = prop.multiProcessorCount;
  int driver = 0;
  if (cudaDriverGetVersion(&driver) == cudaSuccess) fp.driver_major = driver / 1000;
  return fp;
}

}  // namespace kernelblaster::build_step
