#include "harness/harness_writer.h"

#include "harness/harness_text.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <sstream>

namespace kernelblaster::harness {
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
  return harness::dims_literal(dims);
}

}  // namespace

namespace {

// One launcher's share of a drafted harness. Its dimensions and buffers are
// named `prefix` + their own name (a harness for several launchers keeps
// theirs apart); the guesses read the launcher's own names.
struct DraftPart {
  using Dims = std::vector<std::pair<std::string, long long>>;
  Dims small, large, odd;
  std::string buffers;
  HarnessCall call;
  std::vector<std::string> confirm;
};

// Drafts one part in named steps: the sizes, the outputs, the buffers, the
// call, the size lists. What the guesses assumed goes to `confirm`.
class PartDraft {
 public:
  PartDraft(const Launcher& l, const std::string& prefix) : m_l(l), m_prefix(prefix) {}

  DraftPart run() {
    read_dims();
    choose_outputs();
    write_buffers();
    write_call();
    write_sizes();
    return std::move(m_part);
  }

 private:
  void say(const std::string& line) { m_part.confirm.push_back(m_prefix.empty() ? line : m_l.name + ": " + line); }
  std::string named(const std::string& n) const { return m_prefix + n; }

  void read_dims() {
    for (const LauncherParam& p : m_l.params)
      if (p.kind == ParamKind::dim) m_dims.push_back(p.name);
    m_no_dims = m_dims.empty();
    if (m_no_dims) {
      m_dims.push_back("n");
      say("the launcher takes no sizes: every buffer gets n elements; set n to what its kernels use");
    }
    for (const std::string& n : m_dims) m_upper_dims[lower(n)] = n;
    m_mnk = m_dims.size() == 3 && m_upper_dims.count("m") && m_upper_dims.count("n") && m_upper_dims.count("k");
  }

  // Which buffers are written.
  void choose_outputs() {
    for (const LauncherParam& p : m_l.params)
      if (p.kind == ParamKind::buffer && p.writable && (p.type.find("void") == std::string::npos || output_name(p.name)))
        m_outputs.insert(p.name);
    if (!m_outputs.empty()) return;
    for (const LauncherParam& p : m_l.params)
      if (p.kind == ParamKind::buffer && p.writable) {
        m_outputs.insert(p.name);
        say("'" + p.name + "' is taken for the output (the first writable pointer)");
        break;
      }
  }

  std::vector<std::string> shape_of(const LauncherParam& p) {
    std::vector<std::string> shape = m_dims;
    if (m_mnk) {
      std::string n = lower(p.name);
      if (n == "a") shape = {m_upper_dims["m"], m_upper_dims["k"]};
      else if (n == "b") shape = {m_upper_dims["k"], m_upper_dims["n"]};
      else if (n == "c" || output_name(n)) shape = {m_upper_dims["m"], m_upper_dims["n"]};
    }
    for (std::string& d : shape) d = named(d);
    return shape;
  }

  void write_buffers() {
    std::ostringstream buffers;
    for (const LauncherParam& p : m_l.params) {
      if (p.kind != ParamKind::buffer) continue;
      std::string element = p.element.empty() ? "f32" : p.element;
      if (p.element.empty()) say("the element type of '" + p.name + "' (" + p.type + ") is unknown: f32 assumed");
      const bool out = m_outputs.count(p.name) > 0;
      const bool integer = integer_element(element);
      std::string dist = integer ? "Distribution::integers(0, 7)" : "Distribution::normal(0, 1)";
      buffers << "      ." << (out ? "output" : "input") << "(\"" << named(p.name) << "\", DType::" << element << ", "
              << shape_literal(shape_of(p)) << (out ? "" : ", " + dist) << ")";
      std::string why = !p.element_from.empty() && p.element_from != "parameter type" ? "type from " + p.element_from
                                                                                        : "";
      bool guessed_shape = !m_mnk && m_dims.size() > 1;
      if (guessed_shape) why += std::string(why.empty() ? "" : "; ") + "CONFIRM shape";
      if (integer && !out) why += std::string(why.empty() ? "" : "; ") + "CONFIRM value range (indices?)";
      buffers << (why.empty() ? "" : "  // " + why) << "\n";
      if (integer && !out) say("'" + p.name + "' holds integers 0..7: check the range it may hold");
    }
    if (!m_mnk && m_dims.size() > 1 && !m_no_dims) {
      std::string s;
      for (const std::string& n : m_dims) s += (s.empty() ? "" : ", ") + n;
      say("every buffer is shaped {" + s + "}: check each buffer's extent");
    }
    m_part.buffers = buffers.str();
  }

  std::string argument_for(const LauncherParam& own) {
    LauncherParam p = own;
    p.name = named(own.name);
    switch (p.kind) {
      case ParamKind::buffer: return buffer_argument(p, m_outputs.count(own.name) > 0);
      case ParamKind::dim: return dim_argument(p);
      case ParamKind::real: {
        std::string n = lower(own.name);
        std::string v = n.find("eps") != std::string::npos ? "1e-5" : "1.0";  // an epsilon is small
        say("'" + own.name + "' is passed as " + v);
        return v + " /* CONFIRM " + own.name + " */";
      }
      case ParamKind::flag:
        say("'" + own.name + "' is passed as false");
        return "false /* CONFIRM " + own.name + " */";
      case ParamKind::stream: return "0 /* the default stream */";
      case ParamKind::other:
        say("'" + own.name + "' (" + own.type + ") is passed as {}: write its value");
        return "{} /* CONFIRM " + own.name + " (" + own.type + ") */";
    }
    return {};
  }

  void write_call() {
    m_part.call.launcher = m_l;
    m_part.call.returned = m_prefix + returned_output(m_l);
    for (const LauncherParam& own : m_l.params) m_part.call.arguments.push_back(argument_for(own));
  }

  void write_sizes() {
    SizePlan s = sizes_for(m_dims.size());
    for (const std::string& d : m_dims) {
      m_part.small.emplace_back(named(d), s.small);
      m_part.large.emplace_back(named(d), s.large);
      m_part.odd.emplace_back(named(d), s.odd);
    }
  }

  const Launcher& m_l;
  const std::string& m_prefix;
  DraftPart m_part;
  std::vector<std::string> m_dims;
  bool m_no_dims = false;
  std::map<std::string, std::string> m_upper_dims;
  bool m_mnk = false;
  std::set<std::string> m_outputs;
};

DraftPart draft_part(const Launcher& l, const std::string& prefix) { return PartDraft(l, prefix).run(); }

std::string sizes_chain(const std::vector<DraftPart>& parts) {
  DraftPart::Dims small, large, odd;
  for (const DraftPart& p : parts) {
    small.insert(small.end(), p.small.begin(), p.small.end());
    large.insert(large.end(), p.large.begin(), p.large.end());
    odd.insert(odd.end(), p.odd.begin(), p.odd.end());
  }
  std::ostringstream chain;
  chain << "      .size(\"small\", " << harness::dims_literal(small) << ")\n"
        << "      .size(\"large\", " << harness::dims_literal(large) << ")  // CONFIRM: a size the program really runs\n"
        << "      .validation_size(\"odd\", " << harness::dims_literal(odd)
        << ")  // CONFIRM: drop it if the kernels need multiples\n";
  return chain.str();
}

}  // namespace

// The draft's claim about itself, and the confirm lines of what libclang
// could not read: parameters of a type it could not resolve read as int.
std::string compiles_claim(const std::vector<std::string>& unread, std::vector<std::string>& confirm) {
  if (unread.empty()) return "It compiles as it is;";
  for (std::size_t k = 0; k < unread.size(); ++k)
    confirm.insert(confirm.begin() + static_cast<long>(k), "libclang could not read the source: " + unread[k] +
                                        "; a parameter of a type it could not resolve reads as int (pass the build's -I "
                                        "and -D)");
  return "Parts of the source could not be read (see the CONFIRM list);";
}

HarnessDraft draft_harness(const Launcher& l, const std::string& source_name, const std::string& source_stem,
                           bool only, const std::vector<std::string>& unread) {
  HarnessDraft d;
  d.file_name = only ? source_stem + "_harness.cu" : source_stem + "_" + l.name + "_harness.cu";
  DraftPart part = draft_part(l, "");
  d.confirm = part.confirm;
  const std::string comment = "// Harness for " + qualified_name(l) + " (" + source_name + ":" + std::to_string(l.line) +
                              "), drafted by `kernelblaster harness init`\n"
                              "// from the launcher's signature. " + compiles_claim(unread, d.confirm) +
                              " check every line marked\n"
                              "// CONFIRM (shapes, sizes, which buffers are written, values) before trusting\n"
                              "// what the tuner measures with it.\n";
  d.text = harness_file(comment, l, sizes_chain({part}) + part.buffers, part.call.arguments);
  return d;
}

HarnessDraft draft_harness(const std::vector<Launcher>& launchers, const std::string& source_name,
                           const std::string& source_stem, const std::vector<std::string>& unread) {
  if (launchers.size() == 1) return draft_harness(launchers.front(), source_name, source_stem, true, unread);
  HarnessDraft d;
  d.file_name = source_stem + "_harness.cu";
  std::vector<DraftPart> parts;
  std::string names;
  for (const Launcher& l : launchers) {
    parts.push_back(draft_part(l, l.name + "_"));
    names += (names.empty() ? "" : ", ") + qualified_name(l);
  }
  std::string chain = sizes_chain(parts);
  std::vector<HarnessCall> calls;
  for (DraftPart& p : parts) {
    p.call.buffers = p.buffers;
    calls.push_back(p.call);
    d.confirm.insert(d.confirm.end(), p.confirm.begin(), p.confirm.end());
  }
  const std::string comment = "// Harness for " + names + " (" + source_name +
                              "), drafted by `kernelblaster harness init`\n"
                              "// from the launchers' signatures. Every launcher of the source is called, so every\n"
                              "// kernel a change to it touches runs. " + compiles_claim(unread, d.confirm) +
                              " check every line marked\n"
                              "// CONFIRM (shapes, sizes, which buffers are written, values) before trusting\n"
                              "// what the tuner measures with it.\n";
  d.text = harness_file(comment, source_stem, calls, chain);
  return d;
}

}  // namespace kernelblaster::harness
