// serialize_kb: KnowledgeBase -> JSON text in the current schema (see
// kb_parse.cc). The output depends only on the value: states and techniques
// keep their order (it breaks priority ties), statistics are sorted by key,
// and every object lists its keys in a fixed order, so a file that did not
// change serializes to the same bytes and diffs stay small.
#include <nlohmann/json.hpp>

#include "kb/kb_store.h"

namespace kernelblaster::kb {
namespace {

using ojson = nlohmann::ordered_json;

void put_stats(ojson& e, const Stats& s) {
  e["tries"] = s.tries;
  e["successes"] = s.successes;
  e["measured"] = s.measured;
  e["mean"] = s.mean;
  e["m2"] = s.m2;
  e["predicted"] = s.predicted;
  e["confidence"] = s.confidence;
  e["notes"] = s.notes;
  if (s.adjustment != 1.0) e["adjustment"] = s.adjustment;
}

}  // namespace

std::string serialize_kb(const KnowledgeBase& kb) {
  ojson doc = ojson::object();
  doc["schema_version"] = kSchemaVersion;
  doc["states"] = ojson::array();
  for (const State& s : kb.states) {
    ojson rule = ojson::array();
    for (const Condition& c : s.rule) rule.push_back(ojson{{"metric", c.metric}, {"op", c.op}, {"value", c.value}});
    doc["states"].push_back(ojson{{"id", s.id},
                                  {"name", s.name},
                                  {"signature", s.signature},
                                  {"priority", s.priority},
                                  {"rule", std::move(rule)}});
  }
  doc["techniques"] = ojson::array();
  for (const Technique& t : kb.techniques)
    doc["techniques"].push_back(ojson{{"id", t.id},
                                      {"name", t.name},
                                      {"category", t.category},
                                      {"description", t.description},
                                      {"how_to", t.how_to},
                                      {"helps_states", t.helps_states}});
  doc["stats"] = ojson::array();
  for (const auto& [k, s] : kb.stats) {
    ojson e{{"state", k.state}, {"technique", k.technique}, {"arch", k.arch}, {"setting", k.setting}};
    put_stats(e, s);
    doc["stats"].push_back(std::move(e));
  }
  doc["transitions"] = ojson::array();
  for (const auto& [k, s] : kb.transitions) {
    ojson e{{"from", k.from}, {"to", k.to}, {"arch", k.arch}};
    put_stats(e, s);
    doc["transitions"].push_back(std::move(e));
  }
  // Notes are free text from people and LLMs: invalid UTF-8 is replaced, not fatal.
  return doc.dump(2, ' ', false, ojson::error_handler_t::replace) + "\n";
}

}  // namespace kernelblaster::kb
