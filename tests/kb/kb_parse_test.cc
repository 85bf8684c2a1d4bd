// Reading KB documents: what is refused and how the refusal names the
// problem, the round trip, and the migration from schema version 0.
#include <gtest/gtest.h>

#include "kb/kb_store.h"
#include "test_util.h"

namespace kernelblaster::kb {
namespace {

using testing::outcome;

struct Malformed {
  const char* what;
  std::string text;
  std::string key;
  std::string reason_part;
};

const std::string kState = R"({"id": "a", "rule": [{"metric": "dram_throughput_pct", "op": ">=", "value": 60}]})";

std::vector<Malformed> malformed_cases() {
  return {
      {"bad JSON", R"({"states": [)", "", "not valid JSON"},
      {"trailing garbage", R"({"schema_version": 1} x)", "", "not valid JSON"},
      {"not an object", R"([1, 2])", "", "expected an object"},
      {"an empty object", R"({})", "", "not a KB"},
      {"comments only", R"({"_comment": "mine"})", "", "not a KB"},
      {"wrong type", R"({"schema_version": 1, "states": [{"id": "a", "priority": "high"}]})", "/states/0/priority",
       "must be an integer"},
      {"wrong container", R"({"schema_version": 1, "techniques": {"id": "x"}})", "/techniques", "expected an array"},
      {"unknown op", R"({"schema_version": 1, "states": [{"id": "a", "rule": [{"metric": "m", "op": "=>", "value": 1}]}]})",
       "/states/0/rule/0/op", "unknown operator '=>'"},
      {"missing metric", R"({"schema_version": 1, "states": [{"id": "a", "rule": [{"op": "<", "value": 1}]}]})",
       "/states/0/rule/0/metric", "missing"},
      {"duplicate state id", R"({"schema_version": 1, "states": [)" + kState + "," + kState + "]}", "/states/1/id",
       "duplicate state id 'a' (first at /states/0)"},
      {"duplicate technique id", R"({"schema_version": 1, "techniques": [{"id": "t"}, {"id": "u"}, {"id": "t"}]})",
       "/techniques/2/id", "duplicate technique id 't'"},
      {"negative tries",
       R"({"schema_version": 1, "stats": [{"state": "s", "technique": "t", "arch": "sm_90", "tries": -3}]})",
       "/stats/0/tries", "must be a non-negative integer, got -3"},
      {"fractional tries",
       R"({"schema_version": 1, "stats": [{"state": "s", "technique": "t", "arch": "sm_90", "tries": 1.5}]})",
       "/stats/0/tries", "non-negative integer"},
      {"successes exceed measured",
       R"({"schema_version": 1, "stats": [{"state": "s", "technique": "t", "arch": "sm_90", "tries": 3, "measured": 1, "successes": 2, "mean": 1.5}]})",
       "/stats/0/successes", "exceed measured"},
      {"duplicate stats entry",
       R"({"schema_version": 1, "stats": [{"state": "s", "technique": "t", "arch": "sm_90"}, {"state": "s", "technique": "t", "arch": "sm_90"}]})",
       "/stats/1", "duplicate statistics entry"},
      {"empty key field", R"({"schema_version": 1, "stats": [{"state": "", "technique": "t", "arch": "sm_90"}]})",
       "/stats/0/state", "must not be empty"},
      {"future schema version", R"({"schema_version": 7, "states": []})", "/schema_version", "newer than this tool"},
      {"bad schema version", R"({"schema_version": "1"})", "/schema_version", "non-negative integer"},
      {"unknown key", R"({"schema_version": 1, "techniques": [{"id": "t", "descripton": "typo"}]})",
       "/techniques/0/descripton", "unknown key"},
      {"unknown top-level key", R"({"schema_version": 1, "statistics": []})", "/statistics", "unknown key"},
      {"note not a string",
       R"({"schema_version": 1, "transitions": [{"from": "a", "to": "b", "arch": "sm_90", "notes": [3]}]})",
       "/transitions/0/notes/0", "expected a string"},
  };
}

TEST(KbParse, MalformedDocumentsNameFileKeyAndReason) {
  for (const Malformed& m : malformed_cases()) {
    try {
      parse_kb(m.text, "dir/user.json");
      ADD_FAILURE() << m.what << ": accepted";
    } catch (const KbError& e) {
      EXPECT_EQ(e.file(), "dir/user.json") << m.what;
      EXPECT_EQ(e.key(), m.key) << m.what;
      EXPECT_NE(e.reason().find(m.reason_part), std::string::npos) << m.what << ": " << e.reason();
      std::string line = e.what();
      EXPECT_EQ(line.find('\n'), std::string::npos) << m.what;
      EXPECT_EQ(line.rfind("dir/user.json: ", 0), 0u) << line;
      if (!m.key.empty()) {
        EXPECT_NE(line.find(": " + m.key + ": "), std::string::npos) << line;
      }
    }
  }
}

TEST(KbParse, CommentKeysAndMissingOptionalKeysAreAccepted) {
  KnowledgeBase kb = parse_kb(R"({"_comment": "mine", "schema_version": 1,
      "states": [{"id": "a", "_why": "x"}], "techniques": [{"id": "t"}]})", "f");
  ASSERT_EQ(kb.states.size(), 1u);
  EXPECT_TRUE(kb.states[0].rule.empty());
  EXPECT_EQ(kb.states[0].priority, 0);
  EXPECT_TRUE(kb.techniques[0].helps_states.empty());
}

TEST(KbParse, RoundTripIsExactAndStable) {
  KnowledgeBase kb;
  kb.states.push_back(State{"b_state", "B", "sig \"quoted\"", {{"m", ">=", 0.1}, {"n", "!=", 3}}, 7});
  kb.states.push_back(State{"a_state", "A", "", {}, -2});
  kb.techniques.push_back(Technique{"t", "T", "memory", "d", "h", {"b_state"}});
  for (double x : {1.1, 0.3, 2.0 / 3.0, 1e-9, 12345.678}) record(kb, outcome("b_state", "t", x));
  Outcome o = outcome("a_state", "t", 1.7);
  o.previous_technique = "u";
  o.setting = "BLOCK_SIZE=128";
  o.note = "faster with \xc3\xa9 128 threads";
  record(kb, o);
  std::string text = serialize_kb(kb);
  KnowledgeBase back = parse_kb(text, "f");
  EXPECT_EQ(serialize_kb(back), text);
  ASSERT_EQ(back.stats.size(), kb.stats.size());
  for (const auto& [k, s] : kb.stats) {
    const Stats& b = back.stats.at(k);
    EXPECT_EQ(b.mean, s.mean);  // bit-exact: doubles round-trip
    EXPECT_EQ(b.m2, s.m2);
    EXPECT_EQ(b.predicted, s.predicted);
    EXPECT_EQ(b.notes, s.notes);
  }
  EXPECT_EQ(back.states[0].id, "b_state");  // order kept: it breaks priority ties
  EXPECT_EQ(back.transitions.size(), 1u);
}

TEST(KbParse, MigratesVersionZero) {
  const char* v0 = R"({
    "states": [{"id": "memory_bandwidth_bound", "rule": [{"metric": "dram_throughput_pct", "op": ">=", "value": 60}]}],
    "techniques": [{"id": "fast_math"}],
    "stats": {"memory_bandwidth_bound": {
      "vectorized_memory_access": {"sm_90": {"tries": 5, "successes": 3, "measured": 4, "mean": 1.5, "variance": 0.25, "notes": ["float4"]},
                                   "sm_80": {"tries": 2, "successes": 2, "mean": 1.2, "variance": 0.01}}}},
    "transitions": {"a": {"b": {"sm_90": {"tries": 1, "successes": 1, "mean": 1.1}}}}
  })";
  KnowledgeBase kb = parse_kb(v0, "old.json");
  EXPECT_EQ(kb.schema_version, kSchemaVersion);
  ASSERT_EQ(kb.stats.size(), 2u);
  const Stats& s = kb.stats.at(StatsKey{"memory_bandwidth_bound", "vectorized_memory_access", "sm_90", ""});
  EXPECT_EQ(s.tries, 5);
  EXPECT_EQ(s.measured, 4);
  EXPECT_EQ(s.mean, 1.5);
  EXPECT_DOUBLE_EQ(s.variance(), 0.25);
  EXPECT_EQ(s.notes, std::vector<std::string>{"float4"});
  const Stats& old = kb.stats.at(StatsKey{"memory_bandwidth_bound", "vectorized_memory_access", "sm_80", ""});
  EXPECT_EQ(old.measured, 2);  // version 0 without "measured": speedups of successes only
  EXPECT_DOUBLE_EQ(old.variance(), 0.01);
  EXPECT_EQ(kb.transitions.at(TransitionKey{"a", "b", "sm_90"}).tries, 1);
  // Written back in the current layout, and read again unchanged.
  std::string text = serialize_kb(kb);
  EXPECT_NE(text.find("\"schema_version\": 1"), std::string::npos);
  EXPECT_EQ(serialize_kb(parse_kb(text, "new.json")), text);
}

TEST(KbParse, VersionZeroErrorsNameTheOldKey) {
  try {
    parse_kb(R"({"schema_version": 0, "stats": {"s": {"t": {"sm_90": {"tries": -1}}}}})", "old.json");
    FAIL() << "accepted";
  } catch (const KbError& e) {
    EXPECT_EQ(e.key(), "/stats/s/t/sm_90/tries");
  }
  try {
    parse_kb(R"({"stats": {"s": {"t": {"sm_90": {"tries": 1, "variance": -1}}}}})", "old.json");
    FAIL() << "accepted";
  } catch (const KbError& e) {
    EXPECT_EQ(e.key(), "/stats/s/t/sm_90/variance");
  }
  try {
    parse_kb(R"({"stats": {"s": ["not", "nested"]}})", "old.json");
    FAIL() << "accepted";
  } catch (const KbError& e) {
    EXPECT_EQ(e.key(), "/stats/s");
  }
}

}  // namespace
}  // namespace kernelblaster::kb
