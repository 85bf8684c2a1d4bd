#include "optimize/knowledge_update.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <regex>
#include <set>

#include <nlohmann/json.hpp>

#include "common/text.h"
#include "kb/classifier.h"
#include "optimize/loop.h"
#include "rewrite/code_blocks.h"

namespace kernelblaster::optimize {
namespace {

using nlohmann::json;

const char* kSystem = R"(You maintain the knowledge base of a CUDA kernel optimizer. It records, per
performance state and GPU architecture, what each optimization technique
achieved, and predicts the speedup of trying it again. You are shown the
recent steps: the state, the technique, the prediction before the step and
what the engine measured (or why the attempt failed).

First evaluate the predictions against the outcomes, then analyse the gaps:
which techniques did better or worse than predicted in which state, and why
(the failure causes, the kernel's profile). Then propose edits, as one JSON
object in a ```json block:

{"analysis": "a few sentences",
 "notes": [{"state": ID, "technique": ID, "note": "advice for the next try, under 500 characters"}],
 "predictions": [{"state": ID, "technique": ID, "factor": 0.5 to 2.0}],
 "deprecate": [{"state": ID, "technique": ID, "reason": "why it should rarely be tried there"}],
 "new_techniques": [{"id": "lower_snake_case", "name": "...", "category": "memory|compute|parallelism|launch|compiler",
                     "description": "...", "how_to": "...", "helps_states": [ID, ...]}],
 "new_states": [{"id": "lower_snake_case", "name": "...", "signature": "...", "priority": 0 to 100,
                 "rule": [{"metric": NAME, "op": "<|<=|>|>=|==|!=", "value": NUMBER}]}]}

Use only the state and technique ids listed, or ids your proposal adds. Every
list may be empty or absent; propose nothing the outcomes do not support. A
factor multiplies the prediction; a deprecation halves it. At most 20
entries per list.)";

bool valid_id(const std::string& id) {
  static const std::regex pattern("[a-z][a-z0-9_]{2,63}");
  return std::regex_match(id, pattern);
}

// The reader of a proposal: every failure names its JSON pointer.
struct Reader {
  const kb::KnowledgeBase& kb;
  std::set<std::string> states, techniques;  // known ids, the proposal's new ones included

  [[noreturn]] void fail(const std::string& where, const std::string& why) const { throw UpdateError(where, why); }
  const json& list(const json& doc, const char* key) const {
    static const json empty = json::array();
    if (!doc.contains(key)) return empty;
    const json& v = doc[key];
    if (!v.is_array()) fail(std::string("/") + key, std::string("expected a list, got ") + v.type_name());
    if (v.size() > kMaxEntries) fail(std::string("/") + key, "more than " + std::to_string(kMaxEntries) + " entries");
    return v;
  }
  // Calls read(entry, "/key/i") for each entry of list(doc, key), in order.
  template <class Read>
  void each(const json& doc, const char* key, Read read) const {
    const json& entries = list(doc, key);
    for (std::size_t i = 0; i < entries.size(); ++i) read(entries[i], "/" + std::string(key) + "/" + std::to_string(i));
  }
  std::string text(const json& obj, const std::string& where, const char* key, std::size_t max_chars = 2000) const {
    if (!obj.is_object()) fail(where, "expected an object");
    if (!obj.contains(key)) fail(where + "/" + key, "missing");
    const json& v = obj[key];
    if (!v.is_string()) fail(where + "/" + key, std::string("expected a string, got ") + v.type_name());
    std::string s = v.get<std::string>();
    if (s.find_first_not_of(" \t\r\n") == std::string::npos) fail(where + "/" + key, "empty");
    if (s.size() > max_chars) fail(where + "/" + key, "longer than " + std::to_string(max_chars) + " characters");
    return s;
  }
  double number(const json& obj, const std::string& where, const char* key) const {
    if (!obj.contains(key)) fail(where + "/" + key, "missing");
    const json& v = obj[key];
    if (!v.is_number()) fail(where + "/" + key, std::string("expected a number, got ") + v.type_name());
    double d = v.get<double>();
    if (!std::isfinite(d)) fail(where + "/" + key, "must be finite");
    return d;
  }
  std::string state(const json& obj, const std::string& where) const {
    std::string id = text(obj, where, "state", 64);
    if (!states.count(id)) fail(where + "/state", "unknown state " + quoted_excerpt(id));
    return id;
  }
  std::string technique(const json& obj, const std::string& where) const {
    std::string id = text(obj, where, "technique", 64);
    if (!techniques.count(id)) fail(where + "/technique", "unknown technique " + quoted_excerpt(id));
    return id;
  }
  void only(const json& obj, const std::string& where, const std::set<std::string>& keys) const {
    if (!obj.is_object()) fail(where, std::string("expected an object, got ") + obj.type_name());
    for (const auto& item : obj.items())
      if (!keys.count(item.key())) fail(where.empty() ? "/" : where, "unknown key " + quoted_excerpt(item.key()));
  }
};

json proposal_document(const std::string& reply) {
  std::vector<rewrite::CodeBlock> blocks = rewrite::fenced_blocks(reply);
  for (auto it = blocks.rbegin(); it != blocks.rend(); ++it) {
    if (!it->closed) continue;
    json doc = json::parse(it->code, nullptr, false);
    if (!doc.is_discarded()) return doc;
  }
  json doc = json::parse(reply, nullptr, false);
  if (doc.is_discarded()) throw UpdateError("", "the reply holds no JSON object (expected one in a ```json block)");
  return doc;
}

}  // namespace

llm::Request knowledge_update_request(const kb::KnowledgeBase& kb, const std::vector<Step>& steps,
                                      const std::string& arch, const std::string& gpu) {
  std::string user = "GPU: " + gpu + " (" + arch + ")\n\nRecent steps (prediction before the step -> outcome):\n";
  std::set<std::pair<std::string, std::string>> entries;
  for (const Step& s : steps) {
    user += "- state " + s.state + ", technique " + s.technique + ": predicted " + fixed_point(s.predicted, 3) + "x, ";
    if (s.verified)
      user += "measured " + fixed_point(s.speedup_vs_base, 3) + "x over its base" + (s.accepted ? " (kept)" : "");
    else if (!s.attempts.empty()) {
      const Attempt& a = s.attempts.back();
      user += "failed after " + std::to_string(s.attempts.size()) + " attempt(s): " +
              (a.end == AttemptEnd::rejected ? std::string(status_name(a.status)) : attempt_end_name(a.end)) + ": " +
              a.detail.substr(0, 200);
    }
    user += "\n";
    entries.insert({s.state, s.technique});
  }
  user += "\nThe KB's record of those entries:\n";
  for (const auto& [state, technique] : entries) {
    auto it = kb.stats.find(kb::StatsKey{state, technique, arch, ""});
    if (it == kb.stats.end()) {
      user += "- " + state + " / " + technique + ": no record\n";
      continue;
    }
    const kb::Stats& st = it->second;
    user += "- " + state + " / " + technique + ": " + std::to_string(st.tries) + " tries, " +
            std::to_string(st.successes) + " faster, mean " + fixed_point(st.measured ? st.mean : 1.0, 3) + "x, predicted " +
            fixed_point(st.predicted, 3) + "x (factor " + fixed_point(st.adjustment, 2) + ")\n";
    for (const std::string& n : st.notes) user += "    note: " + n + "\n";
  }
  user += "\nState ids:";
  for (const kb::State& s : kb.states) user += " " + s.id;
  user += "\nTechnique ids:";
  for (const kb::Technique& t : kb.techniques) user += " " + t.id;
  user += "\n";
  llm::Request r;
  r.messages = {{llm::Role::system, kSystem}, {llm::Role::user, user}};
  r.sampling.max_tokens = 2048;
  return r;
}

namespace {

// A proposed state at `at`: a new lower_snake_case id, a name, a signature,
// a priority from 0 to 100 and 1 to 8 conditions on known operators.
kb::State read_new_state(Reader& r, const json& e, const std::string& at) {
  kb::State s;
  s.id = r.text(e, at, "id", 64);
  r.only(e, at, {"id", "name", "signature", "priority", "rule"});
  if (!valid_id(s.id)) r.fail(at + "/id", "not a lower_snake_case id of 3 to 64 characters");
  if (r.states.count(s.id)) r.fail(at + "/id", "state '" + s.id + "' exists already");
  s.name = r.text(e, at, "name", 200);
  s.signature = r.text(e, at, "signature");
  double priority = e.contains("priority") ? r.number(e, at, "priority") : 0;
  if (priority < 0 || priority > 100 || priority != std::floor(priority))
    r.fail(at + "/priority", "must be a whole number from 0 to 100");
  s.priority = static_cast<int>(priority);
  if (!e.contains("rule") || !e["rule"].is_array() || e["rule"].empty() || e["rule"].size() > 8)
    r.fail(at + "/rule", "must be a list of 1 to 8 conditions");
  for (std::size_t k = 0; k < e["rule"].size(); ++k) {
    const std::string ct = at + "/rule/" + std::to_string(k);
    const json& c = e["rule"][k];
    kb::Condition cond;
    cond.metric = r.text(c, ct, "metric", 64);
    r.only(c, ct, {"metric", "op", "value"});
    if (!valid_id(cond.metric)) r.fail(ct + "/metric", "not a metric name");
    cond.op = r.text(c, ct, "op", 2);
    if (!kb::is_known_op(cond.op)) r.fail(ct + "/op", "unknown operator " + quoted_excerpt(cond.op));
    cond.value = r.number(c, ct, "value");
    s.rule.push_back(cond);
  }
  return s;
}

// A proposed technique at `at`: a new id, a known category, and the states
// it helps (known ones, the new included).
kb::Technique read_new_technique(Reader& r, const json& e, const std::string& at) {
  static const std::set<std::string> kCategories = {"memory", "compute", "parallelism", "launch", "compiler"};
  kb::Technique t;
  t.id = r.text(e, at, "id", 64);
  r.only(e, at, {"id", "name", "category", "description", "how_to", "helps_states"});
  if (!valid_id(t.id)) r.fail(at + "/id", "not a lower_snake_case id of 3 to 64 characters");
  if (r.techniques.count(t.id)) r.fail(at + "/id", "technique '" + t.id + "' exists already");
  t.name = r.text(e, at, "name", 200);
  t.category = r.text(e, at, "category", 32);
  if (!kCategories.count(t.category)) r.fail(at + "/category", "must be memory, compute, parallelism, launch or compiler");
  t.description = r.text(e, at, "description");
  t.how_to = r.text(e, at, "how_to");
  if (e.contains("helps_states")) {
    if (!e["helps_states"].is_array()) r.fail(at + "/helps_states", "expected a list");
    for (std::size_t k = 0; k < e["helps_states"].size(); ++k) {
      const json& id = e["helps_states"][k];
      const std::string st = at + "/helps_states/" + std::to_string(k);
      if (!id.is_string() || !r.states.count(id.get<std::string>())) r.fail(st, "not a known state id");
      t.helps_states.push_back(id.get<std::string>());
    }
  }
  return t;
}

}  // namespace

KnowledgeUpdate parse_knowledge_update(const std::string& reply, const kb::KnowledgeBase& kb) {
  json doc = proposal_document(reply);
  if (!doc.is_object()) throw UpdateError("", std::string("expected a JSON object, got ") + doc.type_name());
  Reader r{kb, {}, {}};
  r.only(doc, "", {"analysis", "notes", "predictions", "deprecate", "new_techniques", "new_states"});
  for (const kb::State& s : kb.states) r.states.insert(s.id);
  for (const kb::Technique& t : kb.techniques) r.techniques.insert(t.id);
  KnowledgeUpdate u;
  if (doc.contains("analysis")) {
    if (!doc["analysis"].is_string()) r.fail("/analysis", "expected a string");
    u.analysis = doc["analysis"].get<std::string>().substr(0, 4000);
  }
  // New states and techniques first: the other lists may use their ids.
  r.each(doc, "new_states", [&](const json& e, const std::string& at) {
    kb::State s = read_new_state(r, e, at);
    r.states.insert(s.id);
    u.new_states.push_back(std::move(s));
  });
  r.each(doc, "new_techniques", [&](const json& e, const std::string& at) {
    kb::Technique t = read_new_technique(r, e, at);
    r.techniques.insert(t.id);
    u.new_techniques.push_back(std::move(t));
  });
  r.each(doc, "notes", [&](const json& e, const std::string& at) {
    r.only(e, at, {"state", "technique", "note"});
    u.notes.push_back({r.state(e, at), r.technique(e, at), r.text(e, at, "note", kMaxNoteChars)});
  });
  r.each(doc, "predictions", [&](const json& e, const std::string& at) {
    r.only(e, at, {"state", "technique", "factor"});
    PredictionEdit p{r.state(e, at), r.technique(e, at), r.number(e, at, "factor")};
    if (p.factor < kMinFactor || p.factor > kMaxFactor) r.fail(at + "/factor", "must be from 0.5 to 2");
    u.predictions.push_back(p);
  });
  r.each(doc, "deprecate", [&](const json& e, const std::string& at) {
    r.only(e, at, {"state", "technique", "reason"});
    u.deprecations.push_back({r.state(e, at), r.technique(e, at), r.text(e, at, "reason", kMaxNoteChars)});
  });
  return u;
}

void apply_knowledge_update(kb::KnowledgeBase& kb, const KnowledgeUpdate& u, const std::string& arch) {
  for (const kb::State& s : u.new_states)
    if (!kb.find_state(s.id)) {
      // Before the fallback state ("unclassified", no rule), which must stay last to mean "none matched".
      auto at = std::find_if(kb.states.begin(), kb.states.end(), [](const kb::State& x) { return x.rule.empty(); });
      kb.states.insert(at, s);
    }
  for (const kb::Technique& t : u.new_techniques)
    if (!kb.find_technique(t.id)) kb.techniques.push_back(t);
  auto entry = [&](const std::string& state, const std::string& technique) -> kb::Stats& {
    return kb.stats[kb::StatsKey{state, technique, arch, ""}];
  };
  auto scale = [](kb::Stats& s, double factor) {
    s.adjustment = std::clamp(s.adjustment * factor, kb::kMinAdjustment, kb::kMaxAdjustment);
    kb::refresh_prediction(s);
  };
  for (const NoteEdit& n : u.notes) kb::add_note(entry(n.state, n.technique), "review: " + n.note);
  for (const PredictionEdit& p : u.predictions) scale(entry(p.state, p.technique), p.factor);
  for (const Deprecation& d : u.deprecations) {
    kb::Stats& s = entry(d.state, d.technique);
    scale(s, kDeprecationFactor);
    kb::add_note(s, "deprecated: " + d.reason);
  }
}

std::string knowledge_update_json(const KnowledgeUpdate& u) {
  json j = {{"analysis", u.analysis}};
  j["notes"] = json::array();
  for (const NoteEdit& n : u.notes) j["notes"].push_back({{"state", n.state}, {"technique", n.technique}, {"note", n.note}});
  j["predictions"] = json::array();
  for (const PredictionEdit& p : u.predictions)
    j["predictions"].push_back({{"state", p.state}, {"technique", p.technique}, {"factor", p.factor}});
  j["deprecate"] = json::array();
  for (const Deprecation& d : u.deprecations)
    j["deprecate"].push_back({{"state", d.state}, {"technique", d.technique}, {"reason", d.reason}});
  j["new_techniques"] = json::array();
  for (const kb::Technique& t : u.new_techniques) j["new_techniques"].push_back(t.id);
  j["new_states"] = json::array();
  for (const kb::State& s : u.new_states) j["new_states"].push_back(s.id);
  return j.dump();
}

}  // namespace kernelblaster::optimize
