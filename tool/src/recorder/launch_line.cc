#include "recorder/launch_line.h"

#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>

#include "common/fnv.h"
#include "recorder/kernel_signature.h"

namespace kernelblaster::recorder {
namespace {

std::string hex(const std::vector<unsigned char>& b) {
  static const char* digits = "0123456789abcdef";
  std::string s;
  for (unsigned char c : b) {
    s += digits[c >> 4];
    s += digits[c & 15];
  }
  return s;
}

template <class T>
void range_of(const std::vector<unsigned char>& b, std::optional<double>& lo, std::optional<double>& hi) {
  const std::size_t n = b.size() / sizeof(T);
  for (std::size_t i = 0; i < n; ++i) {
    T v;
    std::memcpy(&v, b.data() + i * sizeof(T), sizeof(T));
    double d = static_cast<double>(v);
    if (!std::isfinite(d)) continue;
    if (!lo || d < *lo) lo = d;
    if (!hi || d > *hi) hi = d;
  }
}

}  // namespace

std::string shape_key(const LaunchLine& l) {
  std::string k = l.kernel;
  for (int i = 0; i < 3; ++i) k += "|" + std::to_string(l.grid[i]);
  for (int i = 0; i < 3; ++i) k += "|" + std::to_string(l.block[i]);
  k += "|" + std::to_string(l.shared);
  for (const ParamBytes& p : l.params) k += p.buffer ? "|b" + std::to_string(p.extent) : "|" + hex(p.bytes);
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(fnv1a_64(k)));
  return std::string(buf) + std::to_string(k.size());
}

std::string shape_key_of_line(const std::string& line) {
  nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
  if (!j.is_object() || !j.contains("key") || !j["key"].is_string()) return "";
  return j["key"].get<std::string>();
}

std::string kernel_file_name(const std::string& mangled) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "k_%016llx.jsonl", static_cast<unsigned long long>(fnv1a_64(mangled)));
  return buf;
}

std::string line_json(const LaunchLine& l) {
  nlohmann::json j;
  j["format"] = kLaunchFormat;
  j["kernel"] = l.kernel;
  j["name"] = l.demangled;
  j["key"] = shape_key(l);
  j["grid"] = {l.grid[0], l.grid[1], l.grid[2]};
  j["block"] = {l.block[0], l.block[1], l.block[2]};
  j["shared"] = l.shared;
  j["params"] = nlohmann::json::array();
  for (const ParamBytes& p : l.params) {
    nlohmann::json q = {{"offset", p.offset}, {"bytes", hex(p.bytes)}};
    if (p.buffer) {
      nlohmann::json b = {{"extent", p.extent}, {"alloc_offset", p.alloc_offset}};
      if (p.written_known) b["written"] = p.written;
      if (p.min) b["min"] = *p.min;
      if (p.max) b["max"] = *p.max;
      q["buffer"] = b;
    }
    j["params"].push_back(q);
  }
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

void note_value_range(LaunchLine& l, std::size_t i, const std::vector<unsigned char>& contents) {
  KernelSignature sig = read_signature(l.demangled);
  if (!sig.ok || i >= sig.params.size() || i >= l.params.size()) return;
  const std::string& type = sig.params[i];
  std::string d = pointee_dtype(type);
  ParamBytes& p = l.params[i];
  const bool is_unsigned = type.find("unsigned") != std::string::npos;
  if (d == "f32") range_of<float>(contents, p.min, p.max);
  else if (d == "f64") range_of<double>(contents, p.min, p.max);
  else if (d == "u8") range_of<unsigned char>(contents, p.min, p.max);
  else if (d == "i8") range_of<signed char>(contents, p.min, p.max);
  else if (d == "i16" && is_unsigned) range_of<unsigned short>(contents, p.min, p.max);
  else if (d == "i16") range_of<short>(contents, p.min, p.max);
  else if (d == "i32") range_of<int>(contents, p.min, p.max);
  else if (d == "u32") range_of<unsigned>(contents, p.min, p.max);
  else if (d == "i64" && is_unsigned) range_of<unsigned long long>(contents, p.min, p.max);
  else if (d == "i64") range_of<long long>(contents, p.min, p.max);
}

}  // namespace kernelblaster::recorder
