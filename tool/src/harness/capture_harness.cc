#include "harness/capture_harness.h"

#include <algorithm>
#include <functional>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>

#include "common/launcher_mask.h"
#include "harness/harness_text.h"

namespace kernelblaster::harness {
namespace {

// What tells two calls apart for the harness: dimensions and extents.
std::vector<long long> signature(const Launcher& l, const RecordedCall& c) {
  std::vector<long long> s;
  for (std::size_t i = 0; i < l.params.size(); ++i) {
    if (l.params[i].kind == ParamKind::buffer) s.push_back(c.args[i].elements);
    if (l.params[i].kind == ParamKind::dim) s.push_back(std::stoll(c.args[i].value));
  }
  return s;
}

double call_bytes(const Launcher& l, const RecordedCall& c) {
  double b = 0;
  for (std::size_t i = 0; i < l.params.size(); ++i)
    if (l.params[i].kind == ParamKind::buffer)
      b += static_cast<double>(c.args[i].elements) * element_bytes(l.params[i].element);
  return b;
}

// The product of a call's dimension arguments: the work it asks for where
// the buffers are the same (a program that allocates its largest matrices
// once and calls with M = N = K from 128 to 4096).
double call_work(const Launcher& l, const RecordedCall& c) {
  double w = 1;
  for (std::size_t i = 0; i < l.params.size(); ++i)
    if (l.params[i].kind == ParamKind::dim) w *= std::max(1.0, std::stod(c.args[i].value));
  return w;
}

// Ordered subsets of up to three dimension parameters whose product is the
// buffer's extent in every call; fewest dimensions first.
std::vector<std::string> shape_from_dims(const Launcher& l, std::size_t buffer, const std::vector<const RecordedCall*>& calls) {
  std::vector<std::size_t> dims;
  for (std::size_t i = 0; i < l.params.size(); ++i)
    if (l.params[i].kind == ParamKind::dim) dims.push_back(i);
  auto fits = [&](const std::vector<std::size_t>& pick) {
    for (const RecordedCall* c : calls) {
      long long product = 1;
      for (std::size_t d : pick)
        if (__builtin_mul_overflow(product, std::stoll(c->args[d].value), &product)) return false;
      if (product != c->args[buffer].elements) return false;
    }
    return true;
  };
  auto names = [&](const std::vector<std::size_t>& pick) {
    std::vector<std::string> out;
    for (std::size_t d : pick) out.push_back(l.params[d].name);
    return out;
  };
  const std::size_t n = dims.size();
  for (std::size_t a = 0; a < n; ++a)
    if (fits({dims[a]})) return names({dims[a]});
  for (std::size_t a = 0; a < n; ++a)
    for (std::size_t b = a + 1; b < n; ++b)
      if (fits({dims[a], dims[b]})) return names({dims[a], dims[b]});
  for (std::size_t a = 0; a < n; ++a)
    for (std::size_t b = a + 1; b < n; ++b)
      for (std::size_t c = b + 1; c < n; ++c)
        if (fits({dims[a], dims[b], dims[c]})) return names({dims[a], dims[b], dims[c]});
  return {};
}

std::string number_literal(double v) {
  std::ostringstream s;
  s.precision(17);
  s << v;
  return s.str();
}

// One launcher's share of a harness: its sizes, buffers and call, every
// dimension and buffer name prefixed (a harness driving several launchers
// keeps theirs apart: "first_n", "second_x").
struct Part {
  using SizeDims = std::vector<std::pair<std::string, long long>>;
  std::vector<SizeDims> timed;          // largest first
  std::vector<std::size_t> timed_calls;  // their indices among the recorded calls
  std::vector<SizeDims> validation;         // largest first
  std::vector<std::size_t> validation_calls;  // their indices among the recorded calls
  std::string buffers;                   // the .input/.output lines
  HarnessCall call;
  std::vector<std::string> confirm;
  bool writes = false;                   // some call changed a buffer, or it returns a value
  std::size_t calls = 0, distinct = 0;
};

// The calls a harness runs: the distinct ones (`index`: their places among
// the recorded), the two largest timed (by the bytes of their buffers, then
// by the product of their dimensions; first recorded wins a tie), and every
// other one as a validation size, largest first: a configuration must be
// right at every shape the program used, not only at those timed
// (SGEMM_CUDA calls M = N = K from 128 to 4096). Past kMaxValidationSizes
// distinct calls, that many spread over the order, the smallest included.
constexpr std::size_t kMaxValidationSizes = 16;

struct CallChoice {
  std::vector<const RecordedCall*> distinct;
  std::vector<std::size_t> index;
  std::vector<std::size_t> timed;       // into distinct
  std::vector<std::size_t> validation;  // into distinct, largest first
  std::string left_out;                 // what the cap left out, as one line; empty when nothing
};

CallChoice choose_calls(const Capture& cap) {
  const Launcher& l = cap.launcher;
  CallChoice c;
  std::set<std::vector<long long>> seen;
  for (std::size_t i = 0; i < cap.calls.size(); ++i)
    if (seen.insert(signature(l, cap.calls[i])).second) {
      c.distinct.push_back(&cap.calls[i]);
      c.index.push_back(i);
    }
  std::vector<std::size_t> order(c.distinct.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const double bytes_a = call_bytes(l, *c.distinct[a]), bytes_b = call_bytes(l, *c.distinct[b]);
    if (bytes_a != bytes_b) return bytes_a > bytes_b;
    return call_work(l, *c.distinct[a]) > call_work(l, *c.distinct[b]);
  });
  c.timed.assign(order.begin(), order.begin() + static_cast<long>(std::min<std::size_t>(2, order.size())));
  const std::size_t rest = order.size() - c.timed.size();
  const std::size_t kept = std::min(rest, kMaxValidationSizes);
  for (std::size_t k = 0; k < kept; ++k)  // evenly over the rest, its last (the smallest) included
    c.validation.push_back(order[c.timed.size() + (kept == 1 ? rest - 1 : k * (rest - 1) / (kept - 1))]);
  if (rest > kept)
    c.left_out = std::to_string(rest - kept) + " of " + std::to_string(order.size()) +
                 " distinct recorded calls are not run: at most " + std::to_string(kMaxValidationSizes) +
                 " validation sizes, spread from the largest to the smallest";
  return c;
}

// The buffers some recorded call changed: the harness's outputs.
std::set<std::string> written_buffers(const Capture& cap) {
  const Launcher& l = cap.launcher;
  std::set<std::string> outputs;
  for (std::size_t i = 0; i < l.params.size(); ++i)
    if (l.params[i].kind == ParamKind::buffer)
      for (const RecordedCall& c : cap.calls)
        if (c.args[i].written) outputs.insert(l.params[i].name);
  return outputs;
}

using Say = std::function<void(const std::string&)>;

// The distribution of input buffer `i` (element type `element`): an
// integer buffer takes the values every recorded call held, a float buffer
// the hull of the recorded ranges; a guess is said.
std::string input_distribution(const Capture& cap, std::size_t i, const LauncherParam& p, const std::string& element,
                               const Say& say) {
  std::ostringstream out;
  if (integer_element(element)) {
    // One range serves every size: the values every recorded call held
    // (indices into a smaller call's table must stay inside it).
    std::optional<double> lo, hi;
    for (const RecordedCall& c : cap.calls) {
      if (c.args[i].min) lo = lo ? std::max(*lo, *c.args[i].min) : *c.args[i].min;
      if (c.args[i].max) hi = hi ? std::min(*hi, *c.args[i].max) : *c.args[i].max;
    }
    if (lo && hi && *lo > *hi) {
      say("the recorded calls' ranges of '" + p.name + "' do not overlap: " + number_literal(*hi) + ".." +
          number_literal(*lo) + " is used");
      std::swap(*lo, *hi);
    }
    if (lo && hi) {
      out << ", Distribution::integers(" << number_literal(*lo) << ", " << number_literal(*hi) << ")";
    } else {
      out << ", Distribution::integers(0, 7)";
      say("'" + p.name + "' holds integers; no range was recorded: 0..7 assumed");
    }
  } else {
    // The hull of the recorded ranges (kernel-level captures record them).
    std::optional<double> lo, hi;
    for (const RecordedCall& c : cap.calls) {
      if (c.args[i].min) lo = lo ? std::min(*lo, *c.args[i].min) : *c.args[i].min;
      if (c.args[i].max) hi = hi ? std::max(*hi, *c.args[i].max) : *c.args[i].max;
    }
    if (lo && hi && *lo < *hi)
      out << ", Distribution::uniform(" << number_literal(*lo) << ", " << number_literal(*hi) << ")";
    else
      out << ", Distribution::normal(0, 1)";
  }
  return out.str();
}

// The launcher's arguments in the harness's call: buffers and dimensions
// by the harness's names, other values as the largest call passed them.
void add_arguments(const Capture& cap, const std::vector<const RecordedCall*>& distinct, const RecordedCall& first,
                   const std::set<std::string>& outputs, const std::string& prefix, const Say& say, Part& part) {
  const Launcher& l = cap.launcher;
  auto named = [&](const std::string& name) { return prefix + name; };
  part.call.launcher = l;
  for (std::size_t i = 0; i < l.params.size(); ++i) {
    LauncherParam p = l.params[i];
    std::set<std::string> values;
    for (const RecordedCall* c : distinct) values.insert(c->args[i].value);
    const std::string& v = first.args[i].value;
    if (values.size() > 1 && p.kind != ParamKind::buffer && p.kind != ParamKind::dim && p.kind != ParamKind::stream)
      say("'" + p.name + "' differs between the recorded calls: " + v + " (the largest call's) is passed");
    const std::string own_name = p.name;
    p.name = named(p.name);  // the harness's names for its buffers and dimensions
    switch (p.kind) {
      case ParamKind::buffer: part.call.arguments.push_back(buffer_argument(p, outputs.count(own_name) > 0)); break;
      case ParamKind::dim: part.call.arguments.push_back(dim_argument(p)); break;
      case ParamKind::real: part.call.arguments.push_back("static_cast<" + p.canonical + ">(" + v + ")"); break;
      case ParamKind::flag:
        part.call.arguments.push_back(v == "true" || (v != "false" && std::stod(v) != 0) ? "true" : "false");
        break;
      case ParamKind::stream: part.call.arguments.push_back("0 /* the default stream */"); break;
      case ParamKind::other:
        if (v.empty()) {
          part.call.arguments.push_back("{} /* CONFIRM " + own_name + " (" + p.type + ") */");
          say("'" + own_name + "' (" + p.type + ") was not recorded: it is passed as {}");
        } else {
          part.call.arguments.push_back("static_cast<" + p.canonical + ">(" + v + ") /* CONFIRM " + own_name + " */");
          say("'" + own_name + "' (" + p.type + ") is passed as its recorded value " + v);
        }
        break;
    }
  }
}

Part launcher_part(const Capture& cap, const std::string& prefix, const std::string& definition) {
  const Launcher& l = cap.launcher;
  Part part;
  part.calls = cap.calls.size();
  auto named = [&](const std::string& name) { return prefix + name; };
  const Say say = [&](const std::string& line) {
    part.confirm.push_back(prefix.empty() ? line : l.name + ": " + line);
  };

  const CallChoice chosen = choose_calls(cap);
  const std::vector<const RecordedCall*>& distinct = chosen.distinct;
  const std::vector<std::size_t>& index = chosen.index;
  const std::vector<std::size_t>& timed = chosen.timed;
  part.distinct = distinct.size();
  if (!chosen.left_out.empty()) say(chosen.left_out);

  // Shapes.
  std::map<std::string, std::vector<std::string>> shapes;
  std::vector<std::string> own_dims;  // buffers shaped by a dimension of their own
  for (std::size_t i = 0; i < l.params.size(); ++i) {
    if (l.params[i].kind != ParamKind::buffer) continue;
    std::vector<std::string> s = shape_from_dims(l, i, distinct);
    if (s.empty()) {
      s = {l.params[i].name + "_elements"};
      own_dims.push_back(l.params[i].name);
    }
    for (std::string& d : s) d = named(d);
    shapes[l.params[i].name] = s;
  }

  auto size_dims = [&](const RecordedCall& c) {
    Part::SizeDims dims;
    for (std::size_t i = 0; i < l.params.size(); ++i) {
      const LauncherParam& p = l.params[i];
      if (p.kind == ParamKind::dim) dims.emplace_back(named(p.name), std::stoll(c.args[i].value));
      if (p.kind == ParamKind::buffer &&
          std::find(own_dims.begin(), own_dims.end(), p.name) != own_dims.end())
        dims.emplace_back(named(p.name + "_elements"), c.args[i].elements);
    }
    return dims;
  };
  for (std::size_t t : timed) {
    part.timed.push_back(size_dims(*distinct[t]));
    part.timed_calls.push_back(index[t]);
  }
  for (std::size_t v : chosen.validation) {
    part.validation.push_back(size_dims(*distinct[v]));
    part.validation_calls.push_back(index[v]);
  }

  // Buffers: what some call changed is inout, from seeded values: a launcher
  // may read it first (C = alpha*A*B + beta*C), and poison (NaN) read gives
  // NaN answers that any candidate's match (capture_harness.h).
  const std::set<std::string> outputs = written_buffers(cap);
  part.writes = !outputs.empty() || !returned_element(l.return_type).empty();
  std::ostringstream chain;
  for (std::size_t i = 0; i < l.params.size(); ++i) {
    const LauncherParam& p = l.params[i];
    if (p.kind != ParamKind::buffer) continue;
    std::string element = p.element.empty() ? "f32" : p.element;
    if (p.element.empty()) say("the element type of '" + p.name + "' is unknown: f32 assumed");
    const bool out = outputs.count(p.name) > 0;
    chain << "      ." << (out ? "inout" : "input") << "(\"" << named(p.name) << "\", DType::" << element << ", "
          << shape_literal(shapes[p.name]);
    // A written buffer's start values are not the user's input: a guess about them is not worth a line.
    chain << input_distribution(cap, i, p, element, out ? Say([](const std::string&) {}) : say) << ")";
    if (std::find(own_dims.begin(), own_dims.end(), p.name) != own_dims.end())
      chain << "  // extent as recorded: no product of the launcher's sizes gives it";
    chain << "\n";
  }
  part.buffers = chain.str();

  // Arguments.
  add_arguments(cap, distinct, *distinct[timed.front()], outputs, prefix, say, part);
  part.call.returned = prefix + returned_output(l);
  part.call.definition = definition;
  return part;
}

std::string sizes_chain(const std::vector<Part>& parts) {
  std::ostringstream chain;
  auto merged = [&](auto pick) {
    Part::SizeDims dims;
    for (const Part& p : parts) {
      const Part::SizeDims& d = pick(p);
      dims.insert(dims.end(), d.begin(), d.end());
    }
    if (dims.empty()) dims.emplace_back("calls", 1);  // a size needs a name and a value
    return dims;
  };
  if (parts.size() == 1) {  // sizes named after the calls the program made
    const Part& p = parts.front();
    for (std::size_t t = 0; t < p.timed.size(); ++t)
      chain << "      .size(\"call" << p.timed_calls[t] << "\", "
            << dims_literal(merged([&](const Part& x) -> const Part::SizeDims& { return x.timed[t]; })) << ")\n";
    for (std::size_t v = 0; v < p.validation.size(); ++v)
      chain << "      .validation_size(\"call" << p.validation_calls[v] << "\", "
            << dims_literal(merged([&](const Part& x) -> const Part::SizeDims& { return x.validation[v]; })) << ")\n";
    return chain.str();
  }
  // Several launchers: size k takes each launcher's k-th largest call (its
  // largest where it has fewer); validation size k each one's k-th
  // validation call (its smallest where it has fewer, its smallest timed
  // where it has none).
  std::size_t timed = 0, validation = 0;
  for (const Part& p : parts) {
    timed = std::max(timed, p.timed.size());
    validation = std::max(validation, p.validation.size());
  }
  for (std::size_t k = 0; k < timed; ++k)
    chain << "      .size(\"size" << k << "\", " << dims_literal(merged([&](const Part& x) -> const Part::SizeDims& {
            return x.timed[std::min(k, x.timed.size() - 1)];
          })) << ")\n";
  for (std::size_t k = 0; k < validation; ++k)
    chain << "      .validation_size(\"" << (validation == 1 ? std::string("validation") : "validation" + std::to_string(k))
          << "\", " << dims_literal(merged([&](const Part& x) -> const Part::SizeDims& {
            return x.validation.empty() ? x.timed.back() : x.validation[std::min(k, x.validation.size() - 1)];
          })) << ")\n";
  return chain.str();
}

}  // namespace

HarnessDraft synthesize_harness(const std::vector<Capture>& caps) {
  return synthesize_harness(caps, std::vector<std::string>(caps.size()));
}

HarnessDraft synthesize_harness(const std::vector<Capture>& caps, const std::vector<std::string>& definitions) {
  if (caps.empty()) throw std::invalid_argument("no recorded launcher to synthesize a harness from");
  if (definitions.size() != caps.size()) throw std::invalid_argument("one definition per capture");
  HarnessDraft d;
  const Capture& head = caps.front();
  const std::string stem = head.source.empty() ? head.launcher.name : std::filesystem::path(head.source).stem().string();
  d.file_name = stem + "_harness.cu";
  std::vector<Part> parts;
  for (std::size_t i = 0; i < caps.size(); ++i)
    parts.push_back(launcher_part(caps[i], caps.size() > 1 ? caps[i].launcher.name + "_" : "", definitions[i]));
  std::string chain = sizes_chain(parts);
  std::vector<HarnessCall> calls;
  bool writes = false;
  std::size_t recorded = 0, distinct = 0;
  std::string names;
  for (Part& p : parts) {
    p.call.buffers = p.buffers;
    calls.push_back(p.call);
    d.confirm.insert(d.confirm.end(), p.confirm.begin(), p.confirm.end());
    writes = writes || p.writes;
    recorded += p.calls;
    distinct += p.distinct;
    names += (names.empty() ? "" : ", ") + qualified_name(p.call.launcher);
  }
  if (!writes) d.confirm.insert(d.confirm.begin(), "no recorded call changed any buffer: the harness has no output to compare");
  const std::string comment =
      "// Harness for " + names + (head.source.empty() ? "" : " (" + head.source + ")") +
      ", " + kSynthesizedMark + "\n"
      "// from " + std::to_string(recorded) + " recorded call(s), " + std::to_string(distinct) +
      " distinct: the sizes are calls the program made, the inputs fresh\n"
      "// seeded values of the recorded shapes and types, the outputs what the calls\n"
      "// changed, compared at the element types' default tolerances." +
      (caps.size() > 1 ? " Every recorded launcher\n// is called, so every kernel a change to it touches runs.\n" : "\n");
  d.text = harness_file(comment, caps.size() > 1 ? stem : head.launcher.name, calls, chain);
  return d;
}

HarnessDraft synthesize_harness(const Capture& cap) { return synthesize_harness(std::vector<Capture>{cap}); }

}  // namespace kernelblaster::harness
