#include "kernelbench/torch_locate.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "common/file_util.h"
#include "common/subprocess.h"

namespace kernelblaster::kernelbench {
namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path& p) {
  std::string text;
  read_file_if_present(p.string(), &text);  // no such config: no ABI from it
  return text;
}

std::string python_says(const std::string& code, double timeout_s, std::string* why) {
  ProcessOptions opt;
  opt.timeout_s = timeout_s;
  ProcessResult r = run_process({"python3", "-c", code}, opt);
  if (!r.ok()) {
    if (why) *why = r.output_tail(1).empty() ? r.how_it_ended() : r.output_tail(1);
    return "";
  }
  std::string out = r.output;
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r' || out.back() == ' ')) out.pop_back();
  return out;
}

// The python3 that PATH gives, as found and resolved (a venv's python3
// links to the system's: the link itself names the venv), or empty.
std::string python3_on_path() {
  const std::string found = find_on_path("python3");
  if (found.empty()) return "";
  std::error_code ec;
  fs::path real = fs::canonical(found, ec);
  return fs::absolute(found, ec).string() + " -> " + (ec ? found : real.string());
}

// Checks a candidate prefix; on success fills `out`.
bool try_prefix(const std::string& prefix, double python_timeout_s, TorchInstall* out, std::string* why,
                int known_abi = -1) {
  std::string root = torch_root_from_prefix(prefix);
  if (root.empty()) {
    *why = prefix + ": no share/cmake/Torch/TorchConfig.cmake";
    return false;
  }
  TorchInstall t;
  t.root = root;
  t.include_dir = (fs::path(root) / "include").string();
  t.api_include_dir = (fs::path(root) / "include" / "torch" / "csrc" / "api" / "include").string();
  t.lib_dir = (fs::path(root) / "lib").string();
  if (!fs::exists(fs::path(t.lib_dir) / "libtorch.so")) {
    *why = prefix + ": no " + t.lib_dir + "/libtorch.so";
    return false;
  }
  if (!fs::exists(fs::path(t.lib_dir) / "libtorch_cuda.so")) {
    *why = prefix + ": " + t.lib_dir + " has no libtorch_cuda.so (a CPU-only build)";
    return false;
  }
  if (!fs::exists(fs::path(t.api_include_dir) / "torch" / "torch.h")) {
    *why = prefix + ": no torch/torch.h under " + t.api_include_dir;
    return false;
  }
  int abi = known_abi;
  if (abi < 0) abi = abi_from_cmake_text(slurp(fs::path(root) / "share" / "cmake" / "Torch" / "TorchConfig.cmake"));
  if (abi < 0) abi = abi_from_cmake_text(slurp(fs::path(root) / "share" / "cmake" / "Caffe2" / "Caffe2Config.cmake"));
  if (abi < 0) {
    std::string ignored;
    std::string said = python_says("import torch,sys; sys.stdout.write(str(int(torch._C._GLIBCXX_USE_CXX11_ABI)))",
                                   python_timeout_s, &ignored);
    if (said == "0" || said == "1") abi = said[0] - '0';
  }
  t.cxx11_abi = abi < 0 ? 1 : abi;  // every torch since 2.7 uses the new ABI
  *out = t;
  return true;
}

}  // namespace

std::string torch_root_from_prefix(const std::string& prefix) {
  if (prefix.empty()) return "";
  fs::path p = fs::path(prefix).lexically_normal();
  if (p.has_filename() == false) p = p.parent_path();
  const fs::path candidates[] = {p, p.parent_path().parent_path(), p.parent_path().parent_path().parent_path()};
  for (const fs::path& root : candidates) {
    std::error_code ec;
    if (!root.empty() && fs::exists(root / "share" / "cmake" / "Torch" / "TorchConfig.cmake", ec))
      return root.string();
  }
  return "";
}

int abi_from_cmake_text(const std::string& text) {
  static const std::regex flag("_GLIBCXX_USE_CXX11_ABI=([01])");
  std::smatch m;
  if (std::regex_search(text, m, flag)) return m[1].str()[0] - '0';
  return -1;
}

bool locate_torch(const std::string& prefix_hint, double python_timeout_s, TorchInstall* out, std::string* why,
                  const std::string& remembered) {
  std::string tried;
  auto note = [&](const std::string& s) { tried += (tried.empty() ? "" : "; ") + s; };
  std::string reason;
  if (!prefix_hint.empty()) {
    if (try_prefix(prefix_hint, python_timeout_s, out, &reason)) return true;
    note(reason);
  }
  if (const char* env = std::getenv("KERNELBLASTER_TORCH_PREFIX"); env && *env) {
    if (try_prefix(env, python_timeout_s, out, &reason)) return true;
    note("KERNELBLASTER_TORCH_PREFIX=" + reason);
  } else {
    note("KERNELBLASTER_TORCH_PREFIX unset");
  }
  // Remembered as three lines: the python3 that answered, its prefix, and
  // the ABI flag (which recent TorchConfig.cmake files no longer say, so
  // finding it took a second import of torch).
  const std::string python = remembered.empty() ? "" : python3_on_path();
  if (!remembered.empty()) {
    std::string text;
    if (read_file_if_present(remembered, &text)) {
      std::istringstream lines(text);
      std::string who, prefix, abi;
      std::getline(lines, who);
      std::getline(lines, prefix);
      std::getline(lines, abi);
      if (who == python && !prefix.empty() && (abi == "0" || abi == "1") &&
          try_prefix(prefix, python_timeout_s, out, &reason, abi[0] - '0'))
        return true;
    }
  }
  std::string py_why;
  std::string prefix = python_says("import torch,sys; sys.stdout.write(torch.utils.cmake_prefix_path)",
                                   python_timeout_s, &py_why);
  if (!prefix.empty()) {
    if (try_prefix(prefix, python_timeout_s, out, &reason)) {
      if (!remembered.empty()) {
        try {
          write_if_changed(remembered, python + "\n" + prefix + "\n" + std::to_string(out->cxx11_abi) + "\n");
        } catch (const std::exception&) {
          // Not remembered: the next call asks Python again.
        }
      }
      return true;
    }
    note("python3 torch: " + reason);
  } else {
    note("python3 torch: " + (py_why.empty() ? std::string("no answer") : py_why));
  }
  if (why) *why = tried;
  return false;
}

}  // namespace kernelblaster::kernelbench
