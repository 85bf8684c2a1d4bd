#include "synth/harness_writer.h"

#include "synth/harness_text.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <sstream>

namespace kernelblaster::synth {
namespace {

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool output_name(const std::string& name) {
  static const std::set<std::string> kNames = {"out", "output", "dst", "dest", "result", "res", "y", "c"};
  std::string n = lower(name);
  return kNames.count(n) > 0 || n.rfind("out_", 0) == 0 || n.rfind("output", 0) == 0 ||
         (n.size() > 4 && n.substr(n.size() - 4) == "_out");
}

// Sizes per number of dimensions: {small, large, odd validation}.
struct SizePlan {
  long long small, large, odd;
};

SizePlan sizes_for(std::size_t dims) {
  switch (dims) {
    case 0:
    case 1: return {4096, 1LL << 22, 1000003};
    case 2: return {64, 2048, 257};
    case 3: return {16, 256, 65};
    default: return {8, 32, 17};
  }
}

std::string dims_literal(const std::vector<std::string>& names, long long each) {
  std::vector<std::pair<std::string, long long>> dims;
  for (const std::string& n : names) dims.emplace_back(n, each);
  return synth::dims_literal(dims);
}

}  // namespace

HarnessDraft draft_harness(const Launcher& l, const std::string& source_name, const std::string& source_stem,
                           bool only) {
  HarnessDraft d;
  d.file_name = only ? source_stem + "_harness.cu" : source_stem + "_" + l.name + "_harness.cu";

  std::vector<std::string> dims;
  for (const LauncherParam& p : l.params)
    if (p.kind == ParamKind::dim) dims.push_back(p.name);
  const bool no_dims = dims.empty();
  if (no_dims) {
    dims.push_back("n");
    d.confirm.push_back("the launcher takes no sizes: every buffer gets n elements; set n to what its kernels use");
  }
  std::map<std::string, std::string> upper_dims;
  for (const std::string& n : dims) upper_dims[lower(n)] = n;
  const bool mnk = dims.size() == 3 && upper_dims.count("m") && upper_dims.count("n") && upper_dims.count("k");

  // Which buffers are written.
  std::set<std::string> outputs;
  for (const LauncherParam& p : l.params)
    if (p.kind == ParamKind::buffer && p.writable && (p.type.find("void") == std::string::npos || output_name(p.name)))
      outputs.insert(p.name);
  if (outputs.empty())
    for (const LauncherParam& p : l.params)
      if (p.kind == ParamKind::buffer && p.writable) {
        outputs.insert(p.name);
        d.confirm.push_back("'" + p.name + "' is taken for the output (the first writable pointer)");
        break;
      }

  std::ostringstream buffers, call;
  for (const LauncherParam& p : l.params) {
    if (p.kind != ParamKind::buffer) continue;
    std::string element = p.element.empty() ? "f32" : p.element;
    if (p.element.empty())
      d.confirm.push_back("the element type of '" + p.name + "' (" + p.type + ") is unknown: f32 assumed");
    std::vector<std::string> shape = dims;
    if (mnk) {
      std::string n = lower(p.name);
      if (n == "a") shape = {upper_dims["m"], upper_dims["k"]};
      else if (n == "b") shape = {upper_dims["k"], upper_dims["n"]};
      else if (n == "c" || output_name(n)) shape = {upper_dims["m"], upper_dims["n"]};
    }
    const bool out = outputs.count(p.name) > 0;
    const bool integer = integer_element(element);
    std::string dist = integer ? "Distribution::integers(0, 7)" : "Distribution::normal(0, 1)";
    buffers << "      ." << (out ? "output" : "input") << "(\"" << p.name << "\", DType::" << element << ", "
            << shape_literal(shape) << (out ? "" : ", " + dist) << ")";
    std::string why = !p.element_from.empty() && p.element_from != "parameter type" ? "type from " + p.element_from
                                                                                      : "";
    bool guessed_shape = !mnk && dims.size() > 1;
    if (guessed_shape) why += std::string(why.empty() ? "" : "; ") + "CONFIRM shape";
    if (integer && !out) why += std::string(why.empty() ? "" : "; ") + "CONFIRM value range (indices?)";
    buffers << (why.empty() ? "" : "  // " + why) << "\n";
    if (integer && !out) d.confirm.push_back("'" + p.name + "' holds integers 0..7: check the range it may hold");
  }
  if (!mnk && dims.size() > 1 && !no_dims)
    d.confirm.push_back("every buffer is shaped {" + [&] {
      std::string s;
      for (const std::string& n : dims) s += (s.empty() ? "" : ", ") + n;
      return s;
    }() + "}: check each buffer's extent");

  // The call.
  std::vector<std::string> arguments;
  for (const LauncherParam& p : l.params) {
    std::string arg;
    switch (p.kind) {
      case ParamKind::buffer: arg = buffer_argument(p, outputs.count(p.name) > 0); break;
      case ParamKind::dim: arg = dim_argument(p); break;
      case ParamKind::real: {
        std::string n = lower(p.name);
        std::string v = n.find("eps") != std::string::npos ? "1e-5" : "1.0";  // an epsilon is small
        arg = v + " /* CONFIRM " + p.name + " */";
        d.confirm.push_back("'" + p.name + "' is passed as " + v);
        break;
      }
      case ParamKind::flag:
        arg = "false /* CONFIRM " + p.name + " */";
        d.confirm.push_back("'" + p.name + "' is passed as false");
        break;
      case ParamKind::stream: arg = "0 /* the default stream */"; break;
      case ParamKind::other:
        arg = "{} /* CONFIRM " + p.name + " (" + p.type + ") */";
        d.confirm.push_back("'" + p.name + "' (" + p.type + ") is passed as {}: write its value");
        break;
    }
    arguments.push_back(arg);
  }

  SizePlan s = sizes_for(dims.size());
  std::ostringstream chain;
  chain << "      .size(\"small\", " << dims_literal(dims, s.small) << ")\n"
        << "      .size(\"large\", " << dims_literal(dims, s.large) << ")  // CONFIRM: a size the program really runs\n"
        << "      .validation_size(\"odd\", " << dims_literal(dims, s.odd)
        << ")  // CONFIRM: drop it if the kernels need multiples\n"
        << buffers.str();
  const std::string comment = "// Harness for " + qualified_name(l) + " (" + source_name + ":" + std::to_string(l.line) +
                              "), drafted by `kernelblaster harness init`\n"
                              "// from the launcher's signature. It compiles as it is; check every line marked\n"
                              "// CONFIRM (shapes, sizes, which buffers are written, values) before trusting\n"
                              "// what the tuner measures with it.\n";
  d.text = harness_file(comment, l, chain.str(), arguments);
  return d;
}

}  // namespace kernelblaster::synth
