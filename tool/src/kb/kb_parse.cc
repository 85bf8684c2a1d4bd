// parse_kb: the JSON document -> KnowledgeBase, refusing anything malformed
// with the file, the JSON pointer of the offending key, and the reason.
//
// Schema version 1:
//   {"schema_version": 1,
//    "states": [{"id", "name", "signature", "priority", "rule": [{"metric", "op", "value"}]}],
//    "techniques": [{"id", "name", "category", "description", "how_to", "helps_states": []}],
//    "stats": [{"state", "technique", "arch", "setting", "tries", "successes", "measured",
//               "mean", "m2", "predicted", "confidence", "notes": [],
//               "adjustment" (optional, default 1)}],
//    "transitions": [{"from", "to", "arch", ...the statistics fields...}]}
// Missing optional keys take their defaults; unknown keys are refused (a
// typo would otherwise be lost silently) except those beginning with "_",
// which are free for comments. predicted and confidence are recomputed.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <set>

#include "common/json_fields.h"
#include "kb/classifier.h"
#include "kb/kb_migrate.h"
#include "kb/kb_store.h"

namespace kernelblaster::kb {
namespace {

using nlohmann::json;

class Reader {
 public:
  explicit Reader(const std::string& file) : m_file(file) {}

  [[noreturn]] void fail(const std::string& ptr, const std::string& reason) const { throw KbError(m_file, ptr, reason); }

  void expect_object(const json& v, const std::string& ptr) const {
    if (!v.is_object()) fail(ptr, std::string("expected an object, got ") + v.type_name());
  }
  void expect_array(const json& v, const std::string& ptr) const {
    if (!v.is_array()) fail(ptr, std::string("expected an array, got ") + v.type_name());
  }

  void check_keys(const json& obj, const std::string& ptr, const std::set<std::string>& allowed) const {
    for (const auto& [k, v] : obj.items())
      if (!allowed.count(k) && (k.empty() || k[0] != '_')) fail(ptr + "/" + detail::pointer_token(k), "unknown key");
  }

  std::string string(const json& obj, const std::string& ptr, const char* key, bool required) const {
    std::string p = ptr + "/" + key;
    if (!obj.contains(key)) {
      if (required) fail(p, "missing");
      return {};
    }
    const json& v = obj[key];
    if (!v.is_string()) fail(p, std::string("expected a string, got ") + v.type_name());
    std::string s = v.get<std::string>();
    if (required && s.empty()) fail(p, "must not be empty");
    return s;
  }

  std::int64_t count(const json& obj, const std::string& ptr, const char* key) const {
    if (!obj.contains(key)) return 0;
    const json& v = obj[key];
    bool ok = v.is_number_unsigned() ? v.get<std::uint64_t>() <= static_cast<std::uint64_t>(INT64_MAX)
                                     : v.is_number_integer() && v.get<std::int64_t>() >= 0;
    if (!ok) fail(ptr + "/" + key, "must be a non-negative integer, got " + v.dump());
    return v.get<std::int64_t>();
  }

  std::int64_t integer(const json& obj, const std::string& ptr, const char* key) const {
    if (!obj.contains(key)) return 0;
    const json& v = obj[key];
    if (!v.is_number_integer()) fail(ptr + "/" + key, "must be an integer, got " + v.dump());
    return v.get<std::int64_t>();
  }

  double number(const json& obj, const std::string& ptr, const char* key, double fallback, bool required) const {
    std::string p = ptr + "/" + key;
    if (!obj.contains(key)) {
      if (required) fail(p, "missing");
      return fallback;
    }
    const json& v = obj[key];
    if (!v.is_number()) fail(p, std::string("expected a number, got ") + v.type_name());
    double d = v.get<double>();
    if (!std::isfinite(d)) fail(p, "must be finite");
    return d;
  }

  std::vector<std::string> strings(const json& obj, const std::string& ptr, const char* key) const {
    std::vector<std::string> out;
    if (!obj.contains(key)) return out;
    std::string p = ptr + "/" + key;
    const json& v = obj[key];
    expect_array(v, p);
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (!v[i].is_string()) fail(p + "/" + std::to_string(i), std::string("expected a string, got ") + v[i].type_name());
      out.push_back(v[i].get<std::string>());
    }
    return out;
  }

 private:
  const std::string& m_file;
};

Condition read_condition(const Reader& r, const json& c, const std::string& ptr) {
  r.expect_object(c, ptr);
  r.check_keys(c, ptr, {"metric", "op", "value"});
  Condition out;
  out.metric = r.string(c, ptr, "metric", true);
  out.op = r.string(c, ptr, "op", true);
  if (!is_known_op(out.op)) r.fail(ptr + "/op", "unknown operator '" + out.op + "' (use one of < <= > >= == !=)");
  out.value = r.number(c, ptr, "value", 0, true);
  return out;
}

State read_state(const Reader& r, const json& s, const std::string& ptr) {
  r.expect_object(s, ptr);
  r.check_keys(s, ptr, {"id", "name", "signature", "rule", "priority"});
  State out;
  out.id = r.string(s, ptr, "id", true);
  out.name = r.string(s, ptr, "name", false);
  out.signature = r.string(s, ptr, "signature", false);
  std::int64_t priority = r.integer(s, ptr, "priority");
  if (priority < -1000000 || priority > 1000000) r.fail(ptr + "/priority", "must be within -1000000..1000000");
  out.priority = static_cast<int>(priority);
  if (s.contains("rule")) {
    const json& rule = s["rule"];
    r.expect_array(rule, ptr + "/rule");
    for (std::size_t i = 0; i < rule.size(); ++i)
      out.rule.push_back(read_condition(r, rule[i], ptr + "/rule/" + std::to_string(i)));
  }
  return out;
}

Technique read_technique(const Reader& r, const json& t, const std::string& ptr) {
  r.expect_object(t, ptr);
  r.check_keys(t, ptr, {"id", "name", "category", "description", "how_to", "helps_states"});
  Technique out;
  out.id = r.string(t, ptr, "id", true);
  out.name = r.string(t, ptr, "name", false);
  out.category = r.string(t, ptr, "category", false);
  out.description = r.string(t, ptr, "description", false);
  out.how_to = r.string(t, ptr, "how_to", false);
  out.helps_states = r.strings(t, ptr, "helps_states");
  return out;
}

// The statistics fields shared by stats and transitions entries.
Stats read_stats_fields(const Reader& r, const json& e, const std::string& ptr) {
  Stats s;
  s.tries = r.count(e, ptr, "tries");
  s.successes = r.count(e, ptr, "successes");
  s.measured = r.count(e, ptr, "measured");
  s.mean = r.number(e, ptr, "mean", 0, false);
  s.m2 = r.number(e, ptr, "m2", 0, false);
  r.number(e, ptr, "predicted", 1, false);   // type-checked, then recomputed
  r.number(e, ptr, "confidence", 0, false);
  s.notes = r.strings(e, ptr, "notes");
  s.adjustment = r.number(e, ptr, "adjustment", 1.0, false);
  static_assert(kMinAdjustment == 0.25 && kMaxAdjustment == 4.0, "the message below names the bounds");
  if (!(s.adjustment >= kMinAdjustment && s.adjustment <= kMaxAdjustment))
    r.fail(ptr + "/adjustment", "must be within [0.25, 4]");
  if (s.measured > s.tries)
    r.fail(ptr + "/measured", "measured (" + std::to_string(s.measured) + ") exceeds tries (" + std::to_string(s.tries) + ")");
  if (s.successes > s.measured)
    r.fail(ptr + "/successes",
           "successes (" + std::to_string(s.successes) + ") exceed measured (" + std::to_string(s.measured) + ")");
  if (s.m2 < 0) r.fail(ptr + "/m2", "must not be negative");
  if (s.measured == 0 && (s.mean != 0 || s.m2 != 0)) r.fail(ptr + "/mean", "must be 0 (with m2) when nothing was measured");
  refresh_prediction(s);
  return s;
}

const std::set<std::string> kStatsFields = {"tries",     "successes",  "measured", "mean",      "m2",
                                            "predicted", "confidence", "notes",    "adjustment"};

std::set<std::string> with_fields(std::set<std::string> keys) {
  keys.insert(kStatsFields.begin(), kStatsFields.end());
  return keys;
}

// The list doc[`key`] (states, techniques) read entry by entry with `read`;
// an id used twice fails at its second use.
template <class Entry, class ReadEntry>
void read_id_list(const Reader& r, const json& doc, const std::string& key, const char* what, ReadEntry read,
                  std::vector<Entry>& into) {
  if (!doc.contains(key)) return;
  r.expect_array(doc[key], "/" + key);
  std::map<std::string, std::string> seen;  // id -> pointer of its first use
  for (std::size_t i = 0; i < doc[key].size(); ++i) {
    std::string ptr = "/" + key + "/" + std::to_string(i);
    Entry e = read(r, doc[key][i], ptr);
    if (auto [it, fresh] = seen.emplace(e.id, ptr); !fresh)
      r.fail(ptr + "/id", std::string("duplicate ") + what + " id '" + e.id + "' (first at " + it->second + ")");
    into.push_back(std::move(e));
  }
}

// The list doc[`key`] of statistics entries (stats, transitions): each an
// object of its key's fields (`key_fields`, read by `read_key`) and the
// statistics; a key given twice fails at its second entry.
template <class Key, class ReadKey>
void read_stats_list(const Reader& r, const json& doc, const std::string& key, std::set<std::string> key_fields,
                     const char* what, std::map<Key, Stats>& into, ReadKey read_key) {
  if (!doc.contains(key)) return;
  r.expect_array(doc[key], "/" + key);
  std::map<Key, std::string> first;
  for (std::size_t i = 0; i < doc[key].size(); ++i) {
    std::string ptr = "/" + key + "/" + std::to_string(i);
    const json& e = doc[key][i];
    r.expect_object(e, ptr);
    r.check_keys(e, ptr, with_fields(key_fields));
    Key k = read_key(e, ptr);
    if (auto [it, fresh] = first.emplace(k, ptr); !fresh)
      r.fail(ptr, std::string("duplicate ") + what + " (first at " + it->second + ")");
    into.emplace(k, read_stats_fields(r, e, ptr));
  }
}

KnowledgeBase read_current(const Reader& r, const json& doc) {
  r.check_keys(doc, "", {"schema_version", "states", "techniques", "stats", "transitions"});
  KnowledgeBase kb;
  read_id_list(r, doc, "states", "state", read_state, kb.states);
  read_id_list(r, doc, "techniques", "technique", read_technique, kb.techniques);
  read_stats_list(r, doc, "stats", {"state", "technique", "arch", "setting"},
                  "statistics entry for this state, technique, arch and setting", kb.stats,
                  [&](const json& e, const std::string& ptr) {
                    return StatsKey{r.string(e, ptr, "state", true), r.string(e, ptr, "technique", true),
                                    r.string(e, ptr, "arch", true), r.string(e, ptr, "setting", false)};
                  });
  read_stats_list(r, doc, "transitions", {"from", "to", "arch"}, "transition entry for this from, to and arch",
                  kb.transitions, [&](const json& e, const std::string& ptr) {
                    return TransitionKey{r.string(e, ptr, "from", true), r.string(e, ptr, "to", true),
                                         r.string(e, ptr, "arch", true)};
                  });
  return kb;
}

// Names an entry of a migrated document by the key it had in the old file.
std::string old_pointer(const std::string& ptr, const std::vector<detail::MovedEntry>& moved) {
  for (const auto& m : moved) {
    const std::string& p = m.new_pointer;
    if (ptr.compare(0, p.size(), p) == 0 && (ptr.size() == p.size() || ptr[p.size()] == '/'))
      return m.old_pointer + ptr.substr(p.size());
  }
  return ptr;
}

}  // namespace

KnowledgeBase parse_kb(const std::string& text, const std::string& file) {
  Reader r(file);
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::parse_error& e) {
    throw KbError(file, "", json_parse_reason(e.what()));
  }
  r.expect_object(doc, "");
  // Any JSON object passed before, `{}` included: a file that holds none
  // of a KB's keys is something else (a lockfile, a report) given by mistake.
  const bool any = std::any_of(doc.items().begin(), doc.items().end(), [](const auto& item) {
    return item.key() == "schema_version" || item.key() == "states" || item.key() == "techniques" ||
           item.key() == "stats" || item.key() == "transitions";
  });
  if (!any) r.fail("", "not a KB: none of schema_version, states, techniques, stats, transitions is there");
  int version = 0;  // files without the key predate versioning
  if (doc.contains("schema_version")) {
    const json& v = doc["schema_version"];
    if (!v.is_number_integer() || v.get<std::int64_t>() < 0)
      r.fail("/schema_version", "must be a non-negative integer, got " + v.dump());
    if (v.get<std::int64_t>() > kSchemaVersion)
      r.fail("/schema_version", "schema version " + v.dump() + " is newer than this tool reads (" +
                                    std::to_string(kSchemaVersion) + "); upgrade kernelblaster");
    version = static_cast<int>(v.get<std::int64_t>());
  }
  if (version == kSchemaVersion) return read_current(r, doc);
  std::vector<detail::MovedEntry> moved;
  json current = detail::migrate(std::move(doc), version, file, moved);
  try {
    return read_current(r, current);
  } catch (const KbError& e) {
    throw KbError(e.file(), old_pointer(e.key(), moved), e.reason());
  }
}

}  // namespace kernelblaster::kb
