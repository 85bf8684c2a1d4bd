#include "kb/kb_report.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "common/text.h"

namespace kernelblaster::kb {
namespace {

using ojson = nlohmann::ordered_json;

std::string number(double v) { return general_number(v); }

std::string rule_text(const State& s) {
  if (s.rule.empty()) return "(fallback: no rule)";
  std::string out;
  for (const Condition& c : s.rule) {
    if (!out.empty()) out += " and ";
    out += c.metric + " " + c.op + " " + number(c.value);
  }
  return out;
}

// "1.42x predicted (mean 1.61 +- 0.20, 8 measured / 10 tries, 6 faster, confidence 0.71)"
std::string stats_line(const Stats& s) {
  std::string out = fixed_point(s.predicted, 2) + "x predicted (";
  if (s.measured > 0) out += "mean " + fixed_point(s.mean, 2) + " +- " + fixed_point(std::sqrt(s.variance()), 2) + ", ";
  out += std::to_string(s.measured) + " measured / " + std::to_string(s.tries) + " tries, " + std::to_string(s.successes) +
         " faster, confidence " + fixed_point(s.confidence, 2) + ")";
  return out;
}

std::string key_label(const StatsKey& k) { return k.technique + (k.setting.empty() ? "" : " [" + k.setting + "]"); }

void indent_paragraph(std::ostringstream& out, const std::string& label, const std::string& text) {
  if (!text.empty()) out << "    " << label << text << "\n";
}

ojson ranked_json(const RankedEntry& e) {
  return ojson{{"state", e.key.state},         {"technique", e.key.technique},  {"arch", e.key.arch},
               {"setting", e.key.setting},     {"predicted", e.stats.predicted}, {"mean", e.stats.mean},
               {"stddev", std::sqrt(e.stats.variance())}, {"tries", e.stats.tries}, {"measured", e.stats.measured},
               {"successes", e.stats.successes}, {"confidence", e.stats.confidence}};
}

}  // namespace

KnowledgeBase filter_kb(const KnowledgeBase& kb, const KbFilter& f) {
  if (!f.state.empty() && !kb.find_state(f.state)) {
    bool has_stats = std::any_of(kb.stats.begin(), kb.stats.end(), [&](const auto& e) { return e.first.state == f.state; });
    if (!has_stats) throw KbError("", "", "no state '" + f.state + "' in this KB");
  }
  if (!f.technique.empty() && !kb.find_technique(f.technique)) {
    bool has_stats =
        std::any_of(kb.stats.begin(), kb.stats.end(), [&](const auto& e) { return e.first.technique == f.technique; });
    if (!has_stats) throw KbError("", "", "no technique '" + f.technique + "' in this KB");
  }
  KnowledgeBase out;
  out.schema_version = kb.schema_version;
  for (const auto& [k, s] : kb.stats)
    if ((f.state.empty() || k.state == f.state) && (f.technique.empty() || k.technique == f.technique) &&
        (f.arch.empty() || k.arch == f.arch))
      out.stats.emplace(k, s);
  for (const auto& [k, s] : kb.transitions)
    if (f.state.empty() && (f.technique.empty() || k.from == f.technique || k.to == f.technique) &&
        (f.arch.empty() || k.arch == f.arch))
      out.transitions.emplace(k, s);
  std::set<std::string> states_with_stats, techniques_with_stats;
  for (const auto& [k, s] : out.stats) {
    states_with_stats.insert(k.state);
    techniques_with_stats.insert(k.technique);
  }
  const Technique* only = f.technique.empty() ? nullptr : kb.find_technique(f.technique);
  for (const State& s : kb.states) {
    bool by_state = f.state.empty() || s.id == f.state;
    bool by_technique = f.technique.empty() || (only && only->helps(s.id)) || states_with_stats.count(s.id);
    if (by_state && by_technique) out.states.push_back(s);
  }
  for (const Technique& t : kb.techniques) {
    bool by_technique = f.technique.empty() || t.id == f.technique;
    bool by_state = f.state.empty() || t.helps(f.state) || techniques_with_stats.count(t.id);
    if (by_state && by_technique) out.techniques.push_back(t);
  }
  return out;
}

std::string show_text(const KnowledgeBase& kb, const KbFilter& f) {
  std::ostringstream out;
  bool detailed = !f.state.empty() || !f.technique.empty();
  out << "States (" << kb.states.size() << "):\n";
  for (const State& s : kb.states) {
    out << "  " << s.id << "  [priority " << s.priority << "]  " << rule_text(s) << "\n";
    if (detailed) {
      indent_paragraph(out, "name: ", s.name);
      indent_paragraph(out, "signature: ", s.signature);
    }
  }
  out << "Techniques (" << kb.techniques.size() << "):\n";
  for (const Technique& t : kb.techniques) {
    out << "  " << t.id << "  (" << t.category << ")  " << t.name << "\n";
    if (detailed) {
      indent_paragraph(out, "what: ", t.description);
      indent_paragraph(out, "how: ", t.how_to);
      std::string helps;
      for (const std::string& h : t.helps_states) helps += (helps.empty() ? "" : ", ") + h;
      indent_paragraph(out, "helps: ", helps);
    }
  }
  out << "Statistics (" << kb.stats.size() << " entries):\n";
  std::vector<std::pair<StatsKey, Stats>> rows(kb.stats.begin(), kb.stats.end());
  std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
    if (a.first.state != b.first.state) return a.first.state < b.first.state;
    if (a.first.arch != b.first.arch) return a.first.arch < b.first.arch;
    return a.second.predicted > b.second.predicted;
  });
  for (const auto& [k, s] : rows) {
    out << "  " << k.state << " / " << key_label(k) << " / " << k.arch << ": " << stats_line(s) << "\n";
    if (detailed)
      for (const std::string& n : s.notes) out << "    note: " << n << "\n";
  }
  if (!kb.transitions.empty()) {
    out << "Transitions (" << kb.transitions.size() << "):\n";
    for (const auto& [k, s] : kb.transitions)
      out << "  " << k.from << " -> " << k.to << " / " << k.arch << ": " << stats_line(s) << "\n";
  }
  return out.str();
}

KbSummary summarize(const KnowledgeBase& kb, const std::string& arch, std::size_t top) {
  KbSummary s;
  s.states = kb.states.size();
  s.techniques = kb.techniques.size();
  s.transitions = kb.transitions.size();
  std::set<std::string> archs, tried;
  std::map<std::pair<std::string, std::string>, std::vector<RankedEntry>> all;
  for (const auto& [k, st] : kb.stats) {
    if (!arch.empty() && k.arch != arch) continue;
    ++s.stats_entries;
    s.tries += st.tries;
    s.measured += st.measured;
    s.successes += st.successes;
    archs.insert(k.arch);
    tried.insert(k.technique);
    all[{k.state, k.arch}].push_back({k, st});
  }
  for (auto& [group, entries] : all) {
    // Best predicted first; ties by confidence, then by key for a stable order.
    std::stable_sort(entries.begin(), entries.end(), [](const RankedEntry& a, const RankedEntry& b) {
      if (a.stats.predicted != b.stats.predicted) return a.stats.predicted > b.stats.predicted;
      return a.stats.confidence > b.stats.confidence;
    });
    if (entries.size() > top) entries.resize(top);
    s.best.emplace(group, std::move(entries));
  }
  s.archs.assign(archs.begin(), archs.end());
  for (const Technique& t : kb.techniques)
    if (!tried.count(t.id)) s.untried_techniques.push_back(t.id);
  return s;
}

std::string summary_text(const KbSummary& s) {
  std::ostringstream out;
  out << s.states << " states, " << s.techniques << " techniques, " << s.stats_entries << " statistics entries, "
      << s.transitions << " transitions\n";
  out << s.tries << " tries, " << s.measured << " measured, " << s.successes << " faster than their base\n";
  if (!s.archs.empty()) {
    out << "architectures:";
    for (const std::string& a : s.archs) out << " " << a;
    out << "\n";
  }
  if (!s.best.empty()) out << "\nBest techniques per state and architecture (by predicted speedup):\n";
  for (const auto& [group, entries] : s.best) {
    out << "  " << group.first << " on " << group.second << ":\n";
    for (const RankedEntry& e : entries) out << "    " << key_label(e.key) << ": " << stats_line(e.stats) << "\n";
  }
  if (!s.untried_techniques.empty()) {
    out << "\nTechniques with no statistics yet (" << s.untried_techniques.size() << "):";
    for (const std::string& t : s.untried_techniques) out << " " << t;
    out << "\n";
  }
  return out.str();
}

std::string summary_json(const KbSummary& s) {
  ojson best = ojson::array();
  for (const auto& [group, entries] : s.best) {
    ojson top = ojson::array();
    for (const RankedEntry& e : entries) top.push_back(ranked_json(e));
    best.push_back(ojson{{"state", group.first}, {"arch", group.second}, {"top", std::move(top)}});
  }
  ojson doc{{"states", s.states},     {"techniques", s.techniques}, {"stats_entries", s.stats_entries},
            {"transitions", s.transitions}, {"tries", s.tries},     {"measured", s.measured},
            {"successes", s.successes}, {"archs", s.archs},          {"best", std::move(best)},
            {"untried_techniques", s.untried_techniques}};
  return doc.dump(2, ' ', false, ojson::error_handler_t::replace) + "\n";
}

std::string classification_text(const KnowledgeBase& kb, const Classification& c) {
  std::ostringstream out;
  const State* s = kb.find_state(c.state);
  out << "state: " << c.state;
  if (s && !s->name.empty()) out << " (" << s->name << ")";
  out << "\n";
  if (s && !s->signature.empty()) out << "  " << s->signature << "\n";
  if (c.matched.size() > 1) {
    out << "also matched:";
    for (std::size_t i = 1; i < c.matched.size(); ++i) out << " " << c.matched[i];
    out << "\n";
  }
  if (!c.missing.empty()) {
    out << "metrics missing for some rules:";
    for (const std::string& m : c.missing) out << " " << m;
    out << "\n";
  }
  std::string helps;
  for (const Technique& t : kb.techniques)
    if (t.helps(c.state)) helps += " " + t.id;
  if (!helps.empty()) out << "techniques for this state:" << helps << "\n";
  return out.str();
}

std::string classification_json(const KnowledgeBase& kb, const Classification& c) {
  const State* s = kb.find_state(c.state);
  std::vector<std::string> helps;
  for (const Technique& t : kb.techniques)
    if (t.helps(c.state)) helps.push_back(t.id);
  ojson doc{{"state", c.state}, {"name", s ? s->name : std::string()}, {"matched", c.matched},
            {"missing", c.missing}, {"techniques", helps}};
  return doc.dump(2) + "\n";
}

std::map<std::string, double> read_metrics_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw KbError(path, "", std::string("cannot read: ") + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text.str());
  } catch (const nlohmann::json::parse_error& e) {
    throw KbError(path, "", std::string("not valid JSON: ") + e.what());
  }
  std::string base;
  if (doc.is_object() && doc.contains("metrics")) {
    doc = doc["metrics"];
    base = "/metrics";
  }
  if (!doc.is_object()) throw KbError(path, base, "expected an object of metric name -> number");
  std::map<std::string, double> out;
  for (const auto& [name, v] : doc.items()) {
    if (v.is_null()) continue;
    if (!v.is_number()) throw KbError(path, base + "/" + name, std::string("expected a number, got ") + v.type_name());
    out[name] = v.get<double>();
  }
  return out;
}

}  // namespace kernelblaster::kb
