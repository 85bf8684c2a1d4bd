#include "harness/kernel_capture.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <nlohmann/json.hpp>

#include "recorder/launch_line.h"
#include "harness/harness_text.h"

namespace fs = std::filesystem;

namespace kernelblaster::harness {
namespace {

using json = nlohmann::json;

std::vector<unsigned char> from_hex(const std::string& s) {
  if (s.size() % 2 != 0 || s.size() > 8192) throw std::runtime_error("bytes are not hex");
  std::vector<unsigned char> out;
  for (std::size_t i = 0; i < s.size(); i += 2) {
    auto digit = [](char c) -> int {
      if (c >= '0' && c <= '9') return c - '0';
      if (c >= 'a' && c <= 'f') return c - 'a' + 10;
      throw std::runtime_error("bytes are not hex");
    };
    out.push_back(static_cast<unsigned char>(digit(s[i]) * 16 + digit(s[i + 1])));
  }
  return out;
}

unsigned dim_of(const json& a, std::size_t i) {
  if (!a.is_array() || a.size() != 3 || !a[i].is_number_unsigned()) throw std::runtime_error("grid or block is not 3 numbers");
  return a[i].get<unsigned>();
}

RecordedLaunch parse_line(const json& j) {
  RecordedLaunch l;
  for (std::size_t i = 0; i < 3; ++i) l.grid[i] = dim_of(j.at("grid"), i), l.block[i] = dim_of(j.at("block"), i);
  l.shared = j.at("shared").get<unsigned>();
  std::vector<std::string> addresses;
  for (const json& p : j.at("params")) {
    RecordedParam q;
    q.bytes = from_hex(p.at("bytes").get<std::string>());
    if (p.contains("buffer")) {
      const json& b = p["buffer"];
      q.buffer = true;
      q.extent = b.at("extent").get<long long>();
      if (q.extent <= 0) throw std::runtime_error("a buffer's extent is not positive");
      if (b.contains("written")) q.written = b["written"].get<bool>();
      if (b.contains("min")) q.min = b["min"].get<double>();
      if (b.contains("max")) q.max = b["max"].get<double>();
      // The same pointer twice: the bytes are the address.
      std::string address(q.bytes.begin(), q.bytes.end());
      for (std::size_t k = 0; k < addresses.size(); ++k)
        if (!addresses[k].empty() && addresses[k] == address) {
          q.same_as = static_cast<int>(k);
          break;
        }
      addresses.push_back(address);
    } else {
      addresses.emplace_back();
    }
    l.params.push_back(std::move(q));
  }
  return l;
}

std::string identifier_of(const std::string& name) {
  std::string out = "k_";
  for (char c : name) {
    if (std::isalnum(static_cast<unsigned char>(c))) out += c;
    else if (out.back() != '_') out += '_';
  }
  while (out.back() == '_') out.pop_back();
  return out.substr(0, 60);
}

template <class T>
std::string read_as(const std::vector<unsigned char>& b) {
  T v{};
  std::memcpy(&v, b.data(), std::min(sizeof v, b.size()));
  std::ostringstream s;
  s.precision(17);
  if constexpr (sizeof(T) == 1) s << static_cast<int>(v);
  else s << v;
  return s.str();
}

// The recorded bytes of a scalar as text, by the kernel's type for it.
std::string scalar_text(const std::string& type, const std::vector<unsigned char>& b) {
  const bool u = type.find("unsigned") != std::string::npos;
  if (type == "bool") return b.empty() || b[0] == 0 ? "false" : "true";
  if (type.find("float") != std::string::npos && b.size() == 4) return read_as<float>(b);
  if (type.find("double") != std::string::npos && b.size() == 8) return read_as<double>(b);
  switch (b.size()) {
    case 1: return u ? read_as<unsigned char>(b) : read_as<signed char>(b);
    case 2: return u ? read_as<unsigned short>(b) : read_as<short>(b);
    case 4: return u ? read_as<unsigned>(b) : read_as<int>(b);
    case 8: return u ? read_as<unsigned long long>(b) : read_as<long long>(b);
  }
  return "";
}

std::string bytes_literal(const std::vector<unsigned char>& b) {
  std::ostringstream s;
  for (std::size_t i = 0; i < b.size(); ++i) s << (i ? ", " : "") << static_cast<int>(b[i]);
  return "{" + s.str() + "}";
}

// How the harness passes each kernel parameter.
enum class Pass { buffer, alias, integer, real, flag, bytes };

struct ParamPlan {
  Pass pass = Pass::bytes;
  std::string type;     // as the kernel declares it (demangled)
  std::string element;  // buffers
  int alias_of = -1;
};

}  // namespace

KernelRecords read_kernel_records(const std::string& dir) {
  KernelRecords out;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return out;
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.path().filename().string().rfind("k_", 0) == 0 && e.path().extension() == ".jsonl") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const fs::path& f : files) {
    std::ifstream in(f);
    std::string line;
    KernelRecording r;
    int number = 0;
    while (std::getline(in, line)) {
      ++number;
      if (line.empty()) continue;
      try {
        json j = json::parse(line);
        if (j.at("format").get<std::string>() != recorder::kLaunchFormat) throw std::runtime_error("not a launch record");
        const std::string kernel = j.at("kernel").get<std::string>();
        if (kernel.empty() || kernel.size() > 4096 ||
            !std::all_of(kernel.begin(), kernel.end(), [](char c) {
              return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '$';
            }))
          throw std::runtime_error("the kernel is not a symbol name");
        if (r.kernel.empty()) {
          r.kernel = kernel;
          r.name = j.at("name").get<std::string>();
          // The name goes into the harness's comments, its types into code.
          if (r.name.empty() || r.name.size() > 4096 ||
              std::any_of(r.name.begin(), r.name.end(), [](char c) {
                return static_cast<unsigned char>(c) < 0x20 || c == '\\' || c == '"' || c == 0x7f;
              }))
            throw std::runtime_error("the kernel's name holds characters no C++ name has");
          r.signature = recorder::read_signature(r.name);
        } else if (kernel != r.kernel) {
          throw std::runtime_error("a launch of another kernel");
        }
        r.launches.push_back(parse_line(j));
      } catch (const std::exception& x) {
        out.errors.push_back(f.filename().string() + ":" + std::to_string(number) + ": " + x.what());
      }
    }
    if (!r.launches.empty()) out.kernels.push_back(std::move(r));
  }
  return out;
}

namespace {

// The launches whose layout fits the kernel's signature and that pass
// buffers as the first does (aliasing, null pointers); the others are said
// in `left_out`.
std::vector<const RecordedLaunch*> replayable_launches(const KernelRecording& r, std::vector<std::string>& left_out) {
  const auto& types = r.signature.params;
  std::vector<const RecordedLaunch*> usable;
  for (const RecordedLaunch& l : r.launches) {
    if (l.params.size() != types.size()) {
      left_out.push_back("a launch with " + std::to_string(l.params.size()) + " arguments");
      continue;
    }
    bool ok = true;
    for (std::size_t i = 0; i < types.size() && ok; ++i) {
      const RecordedParam& p = l.params[i];
      bool zero = std::all_of(p.bytes.begin(), p.bytes.end(), [](unsigned char b) { return b == 0; });
      if (recorder::is_pointer(types[i]) && !p.buffer && !zero) {
        left_out.push_back("a launch whose argument " + std::to_string(i) + " (" + types[i] + ") was not device memory");
        ok = false;
      }
      if (!usable.empty() && p.same_as != usable.front()->params[i].same_as) {
        left_out.push_back("a launch that passes the same buffer twice where the first did not");
        ok = false;
      }
      // A null pointer where the first passed a buffer (or the other way):
      // the first's recorded address would reach the kernel.
      if (ok && !usable.empty() && recorder::is_pointer(types[i]) && p.buffer != usable.front()->params[i].buffer) {
        left_out.push_back("a launch whose argument " + std::to_string(i) + " (" + types[i] + ") is " +
                           (p.buffer ? "a buffer where the first launch passed none"
                                     : "null where the first launch passed a buffer"));
        ok = false;
      }
    }
    if (ok) usable.push_back(&l);
  }
  return usable;
}

std::vector<ParamPlan> plan_params(const std::vector<std::string>& types, const RecordedLaunch& first) {
  std::vector<ParamPlan> plan(types.size());
  for (std::size_t i = 0; i < types.size(); ++i) {
    ParamPlan& p = plan[i];
    p.type = types[i];
    if (recorder::is_pointer(p.type) && first.params[i].buffer) {  // every replayable launch passes one
      p.pass = first.params[i].same_as >= 0 ? Pass::alias : Pass::buffer;
      p.alias_of = first.params[i].same_as;
      p.element = recorder::pointee_dtype(p.type);
      if (p.element.empty()) p.element = "u8";  // a struct or void pointee: its bytes
    } else if (!recorder::is_pointer(p.type) && p.type == "bool") {
      p.pass = Pass::flag;
    } else if (std::string d = recorder::scalar_dtype(p.type); d == "f32" || d == "f64") {
      p.pass = Pass::real;
    } else if (!d.empty() && d != "f16" && d != "bf16") {
      p.pass = Pass::integer;
    } else {
      p.pass = Pass::bytes;  // halves, structs, null pointers: as recorded
    }
  }
  return plan;
}

// The launcher the harness defines: the kernel's buffers and scalars, then
// the launch configuration.
Launcher launcher_of(const KernelRecording& r, const std::vector<ParamPlan>& plan) {
  Launcher lau;
  lau.name = identifier_of(r.signature.name);
  lau.return_type = "void";
  for (std::size_t i = 0; i < plan.size(); ++i) {
    const ParamPlan& p = plan[i];
    LauncherParam q;
    q.name = "p" + std::to_string(i);
    switch (p.pass) {
      case Pass::buffer: {
        const bool out = !recorder::points_to_const(p.type);
        q.kind = ParamKind::buffer;
        q.element = p.element;
        q.writable = out;
        q.canonical = q.type = std::string(out ? "" : "const ") + cpp_type(p.element) + " *";
        q.element_from = "the kernel's parameter " + std::to_string(i) + " (" + p.type + ")";
        break;
      }
      case Pass::integer: q.kind = ParamKind::dim; q.canonical = q.type = "long long"; break;
      case Pass::real: q.kind = ParamKind::real; q.canonical = q.type = "double"; break;
      case Pass::flag: q.kind = ParamKind::flag; q.canonical = q.type = "bool"; break;
      case Pass::alias:
      case Pass::bytes: continue;  // in the launcher's definition
    }
    lau.params.push_back(q);
  }
  for (const char* d : {"grid_x", "grid_y", "grid_z", "block_x", "block_y", "block_z", "shared_bytes"}) {
    LauncherParam q;
    q.name = d;
    q.kind = ParamKind::dim;
    q.canonical = q.type = "long long";
    lau.params.push_back(q);
  }
  return lau;
}

// One launch as a call of that launcher.
RecordedCall call_of(const KernelRecording& r, const std::vector<ParamPlan>& plan, const RecordedLaunch& l) {
  RecordedCall call;
  for (std::size_t i = 0; i < plan.size(); ++i) {
    const ParamPlan& p = plan[i];
    const RecordedParam& rp = l.params[i];
    RecordedArg a;
    switch (p.pass) {
      case Pass::buffer:
        a.elements = rp.extent / element_bytes(p.element);
        // Unknown (too large to copy): a pointer to non-const is taken as written.
        a.written = rp.written.value_or(!recorder::points_to_const(p.type));
        a.min = rp.min;
        a.max = rp.max;
        if (a.elements <= 0) throw std::runtime_error(r.name + ": a buffer smaller than one element");
        break;
      case Pass::integer:
      case Pass::real:
      case Pass::flag: a.value = scalar_text(p.type, rp.bytes); break;
      case Pass::alias:
      case Pass::bytes: continue;
    }
    call.args.push_back(a);
  }
  for (unsigned v : {l.grid[0], l.grid[1], l.grid[2], l.block[0], l.block[1], l.block[2], l.shared}) {
    RecordedArg a;
    a.value = std::to_string(v);
    call.args.push_back(a);
  }
  return call;
}

// Whether every recorded launch of `r` (replayed or not) passed at least
// two buffers, each range from its pointer to its allocation's end
// overlapping no other's.
bool buffers_disjoint(const KernelRecording& r) {
  for (const RecordedLaunch& l : r.launches) {
    std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges;
    for (const RecordedParam& p : l.params) {
      if (!p.buffer) continue;
      std::uint64_t at = 0;
      for (std::size_t i = 0; i < p.bytes.size() && i < 8; ++i) at |= std::uint64_t{p.bytes[i]} << (8 * i);
      ranges.emplace_back(at, at + static_cast<std::uint64_t>(p.extent));
    }
    if (ranges.size() < 2) return false;
    for (std::size_t i = 0; i < ranges.size(); ++i)
      for (std::size_t j = i + 1; j < ranges.size(); ++j)
        if (ranges[i].first < ranges[j].second && ranges[j].first < ranges[i].second) return false;
  }
  return !r.launches.empty();
}

// "ns::copy(float*, float*)", "void ns::copy<32>(float*)" -> "copy".
std::string unqualified_name(const std::string& demangled) {
  std::string n = demangled.substr(0, demangled.find('('));
  n = n.substr(0, n.find('<'));
  n = n.substr(n.find_last_of(' ') == std::string::npos ? 0 : n.find_last_of(' ') + 1);
  const std::size_t colon = n.rfind("::");
  return colon == std::string::npos ? n : n.substr(colon + 2);
}

// The launcher's text: the kernel's arguments as the launch lays them out,
// launched through its host stub.
std::string definition_of(const KernelRecording& r, const std::vector<ParamPlan>& plan, const Launcher& lau,
                          const RecordedLaunch& first) {
  std::ostringstream d;
  if (buffers_disjoint(r)) d << kDisjointBuffersNote << unqualified_name(r.name) << "\n";
  d << "// " << r.name << kReplayedLauncherNote << "\n"
    << "void " << lau.name << "(";
  std::size_t k = 0;
  for (const LauncherParam& q : lau.params)
    d << (k++ ? ", " : "") << q.canonical << (q.canonical.back() == '*' ? "" : " ") << q.name;
  d << ") {\n"
    << "  static const void* kernel = kernelblaster::kernel_symbol(\"" << r.kernel << "\");\n"
    << "  if (!kernel) {\n"
    << "    std::fprintf(stderr, \"kernelblaster: this program has no kernel " << r.kernel << "\\n\");\n"
    << "    std::abort();\n"
    << "  }\n";
  for (std::size_t i = 0; i < plan.size(); ++i) {
    const ParamPlan& p = plan[i];
    const std::string a = "kb_a" + std::to_string(i), name = "p" + std::to_string(i);
    switch (p.pass) {
      case Pass::buffer: d << "  void* " << a << " = const_cast<void*>(static_cast<const void*>(" << name << "));\n"; break;
      case Pass::alias: d << "  void* " << a << " = kb_a" << p.alias_of << ";\n"; break;
      case Pass::integer:
      case Pass::real:
      case Pass::flag: d << "  " << p.type << " " << a << " = static_cast<" << p.type << ">(" << name << ");\n"; break;
      case Pass::bytes:
        d << "  alignas(16) unsigned char " << a << "[" << std::max<std::size_t>(1, first.params[i].bytes.size())
          << "] = " << bytes_literal(first.params[i].bytes) << ";  // " << p.type << ", as recorded\n";
        break;
    }
  }
  d << "  void* args[] = {";
  for (std::size_t i = 0; i < plan.size(); ++i) d << (i ? ", " : "") << "&kb_a" << i;
  if (plan.empty()) d << "nullptr";
  d << "};\n"
    << kLaunchShapeAnchor
    << "    cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared_bytes));\n"
    << "  const cudaError_t e = cudaLaunchKernel(kernel, dim3(grid_x, grid_y, grid_z), dim3(block_x, block_y, block_z),\n"
    << "                                         args, static_cast<size_t>(shared_bytes), 0);\n"
    << "  if (e != cudaSuccess) {\n"
    << "    std::fprintf(stderr, \"kernelblaster: launching " << lau.name << " failed: %s\\n\", cudaGetErrorString(e));\n"
    << "    std::abort();\n"
    << "  }\n"
    << "}\n\n";
  return d.str();
}

}  // namespace

KernelCapture kernel_capture(const KernelRecording& r, const std::string& source, const std::string& launcher_name) {
  if (!r.signature.ok) throw std::runtime_error(r.kernel + ": its parameter types are unknown (no C++ name)");
  KernelCapture kc;
  kc.capture.source = source;
  const std::vector<const RecordedLaunch*> usable = replayable_launches(r, kc.left_out);
  if (usable.empty()) throw std::runtime_error(r.name + ": no launch a harness can replay");
  const RecordedLaunch& first = *usable.front();
  const std::vector<ParamPlan> plan = plan_params(r.signature.params, first);
  kc.capture.launcher = launcher_of(r, plan);
  if (!launcher_name.empty()) kc.capture.launcher.name = launcher_name;
  std::set<std::string> bytes_differ;
  for (const RecordedLaunch* l : usable) {
    kc.capture.calls.push_back(call_of(r, plan, *l));
    for (std::size_t i = 0; i < plan.size(); ++i)
      if (plan[i].pass == Pass::bytes && l->params[i].bytes != first.params[i].bytes)
        bytes_differ.insert("p" + std::to_string(i) + " (" + plan[i].type + ")");
  }
  for (const std::string& b : bytes_differ)
    kc.left_out.push_back(b + " differs between launches: every launch passes the first one's bytes");
  kc.definition = definition_of(r, plan, kc.capture.launcher, first);
  return kc;
}

}  // namespace kernelblaster::harness
