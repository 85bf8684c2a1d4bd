#include "synth/capture_harness.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>

#include "synth/harness_text.h"

namespace kernelblaster::synth {
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

}  // namespace

HarnessDraft synthesize_harness(const Capture& cap) {
  const Launcher& l = cap.launcher;
  HarnessDraft d;
  const std::string stem =
      cap.source.empty() ? l.name : std::filesystem::path(cap.source).stem().string();
  d.file_name = stem + "_harness.cu";

  // Distinct calls, largest first (first recorded wins a tie).
  std::vector<const RecordedCall*> distinct;
  std::vector<std::size_t> index;
  std::set<std::vector<long long>> seen;
  for (std::size_t i = 0; i < cap.calls.size(); ++i)
    if (seen.insert(signature(l, cap.calls[i])).second) {
      distinct.push_back(&cap.calls[i]);
      index.push_back(i);
    }
  std::vector<std::size_t> order(distinct.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return call_bytes(l, *distinct[a]) > call_bytes(l, *distinct[b]);
  });
  std::vector<std::size_t> timed(order.begin(), order.begin() + static_cast<long>(std::min<std::size_t>(2, order.size())));
  std::optional<std::size_t> validation;
  if (order.size() >= 3) validation = order.back();

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
    shapes[l.params[i].name] = s;
  }

  auto size_dims = [&](const RecordedCall& c) {
    std::vector<std::pair<std::string, long long>> dims;
    for (std::size_t i = 0; i < l.params.size(); ++i) {
      const LauncherParam& p = l.params[i];
      if (p.kind == ParamKind::dim) dims.emplace_back(p.name, std::stoll(c.args[i].value));
      if (p.kind == ParamKind::buffer &&
          std::find(own_dims.begin(), own_dims.end(), p.name) != own_dims.end())
        dims.emplace_back(p.name + "_elements", c.args[i].elements);
    }
    if (dims.empty()) dims.emplace_back("calls", 1);  // a size needs a name and a value
    return dims;
  };

  std::ostringstream chain;
  for (std::size_t t : timed)
    chain << "      .size(\"call" << index[t] << "\", " << dims_literal(size_dims(*distinct[t])) << ")\n";
  if (validation)
    chain << "      .validation_size(\"call" << index[*validation] << "\", " << dims_literal(size_dims(*distinct[*validation]))
          << ")\n";

  // Buffers: outputs are what some call changed.
  std::set<std::string> outputs;
  for (std::size_t i = 0; i < l.params.size(); ++i)
    if (l.params[i].kind == ParamKind::buffer)
      for (const RecordedCall& c : cap.calls)
        if (c.args[i].written) outputs.insert(l.params[i].name);
  if (outputs.empty() && returned_element(l.return_type).empty())
    d.confirm.push_back("no recorded call changed any buffer: the harness has no output to compare");
  for (std::size_t i = 0; i < l.params.size(); ++i) {
    const LauncherParam& p = l.params[i];
    if (p.kind != ParamKind::buffer) continue;
    std::string element = p.element.empty() ? "f32" : p.element;
    if (p.element.empty()) d.confirm.push_back("the element type of '" + p.name + "' is unknown: f32 assumed");
    const bool out = outputs.count(p.name) > 0;
    chain << "      ." << (out ? "output" : "input") << "(\"" << p.name << "\", DType::" << element << ", "
          << shape_literal(shapes[p.name]);
    if (!out) {
      if (integer_element(element)) {
        // One range serves every size: the values every recorded call held
        // (indices into a smaller call's table must stay inside it).
        std::optional<double> lo, hi;
        for (const RecordedCall& c : cap.calls) {
          if (c.args[i].min) lo = lo ? std::max(*lo, *c.args[i].min) : *c.args[i].min;
          if (c.args[i].max) hi = hi ? std::min(*hi, *c.args[i].max) : *c.args[i].max;
        }
        if (lo && hi && *lo > *hi) {
          d.confirm.push_back("the recorded calls' ranges of '" + p.name + "' do not overlap: " +
                              number_literal(*hi) + ".." + number_literal(*lo) + " is used");
          std::swap(*lo, *hi);
        }
        if (lo && hi) {
          chain << ", Distribution::integers(" << number_literal(*lo) << ", " << number_literal(*hi) << ")";
        } else {
          chain << ", Distribution::integers(0, 7)";
          d.confirm.push_back("'" + p.name + "' holds integers; no range was recorded: 0..7 assumed");
        }
      } else {
        chain << ", Distribution::normal(0, 1)";
      }
    }
    chain << ")";
    if (std::find(own_dims.begin(), own_dims.end(), p.name) != own_dims.end())
      chain << "  // extent as recorded: no product of the launcher's sizes gives it";
    chain << "\n";
  }

  // Arguments.
  std::vector<std::string> arguments;
  const RecordedCall& first = *distinct[timed.front()];
  for (std::size_t i = 0; i < l.params.size(); ++i) {
    const LauncherParam& p = l.params[i];
    std::set<std::string> values;
    for (const RecordedCall* c : distinct) values.insert(c->args[i].value);
    const std::string& v = first.args[i].value;
    if (values.size() > 1 && p.kind != ParamKind::buffer && p.kind != ParamKind::dim && p.kind != ParamKind::stream)
      d.confirm.push_back("'" + p.name + "' differs between the recorded calls: " + v + " (the largest call's) is passed");
    switch (p.kind) {
      case ParamKind::buffer: arguments.push_back(buffer_argument(p, outputs.count(p.name) > 0)); break;
      case ParamKind::dim: arguments.push_back(dim_argument(p)); break;
      case ParamKind::real: arguments.push_back("static_cast<" + p.canonical + ">(" + v + ")"); break;
      case ParamKind::flag:
        arguments.push_back(v == "true" || (v != "false" && std::stod(v) != 0) ? "true" : "false");
        break;
      case ParamKind::stream: arguments.push_back("0 /* the default stream */"); break;
      case ParamKind::other:
        if (v.empty()) {
          arguments.push_back("{} /* CONFIRM " + p.name + " (" + p.type + ") */");
          d.confirm.push_back("'" + p.name + "' (" + p.type + ") was not recorded: it is passed as {}");
        } else {
          arguments.push_back("static_cast<" + p.canonical + ">(" + v + ") /* CONFIRM " + p.name + " */");
          d.confirm.push_back("'" + p.name + "' (" + p.type + ") is passed as its recorded value " + v);
        }
        break;
    }
  }

  const std::string comment =
      "// Harness for " + qualified_name(l) + (cap.source.empty() ? "" : " (" + cap.source + ")") +
      ", synthesized by `kernelblaster harness synth`\n"
      "// from " + std::to_string(cap.calls.size()) + " recorded call(s), " + std::to_string(distinct.size()) +
      " distinct: the sizes are calls the program made, the inputs fresh\n"
      "// seeded values of the recorded shapes and types, the outputs what the calls\n"
      "// changed, compared at the element types' default tolerances.\n";
  d.text = harness_file(comment, l, chain.str(), arguments);
  return d;
}

}  // namespace kernelblaster::synth
