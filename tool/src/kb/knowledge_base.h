// The knowledge base (KB): performance states and how to recognise them,
// optimization techniques, and what each technique achieved in each state on
// each GPU architecture. A plain value type; files and locking live in
// kb_store.h, the recognition of states in classifier.h.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

namespace kernelblaster::kb {

inline constexpr int kSchemaVersion = 1;

// One test on a named metric ("dram_throughput_pct", ">=", 60).
// op is one of < <= > >= == !=.
struct Condition {
  std::string metric;
  std::string op;
  double value = 0;
};

// A performance state. Its rule holds when every condition holds; when
// several states match, the highest priority wins (then the first listed).
struct State {
  std::string id;           // "memory_bandwidth_bound"
  std::string name;         // "Memory-bandwidth bound"
  std::string signature;    // what the profile looks like, in words
  std::vector<Condition> rule;
  int priority = 0;
};

struct Technique {
  std::string id;           // "vectorized_memory_access"
  std::string name;
  std::string category;     // "memory", "compute", "parallelism", "launch", "compiler"
  std::string description;  // what it is
  std::string how_to;       // how to apply it (what an LLM or a person is told)
  std::vector<std::string> helps_states;  // state ids where it usually pays off

  bool helps(const std::string& state) const;  // `state` is among helps_states
};

// Statistics of measured outcomes. The mean and variance are of the speedup
// over the base the technique was applied to, over the verified tries only
// (Welford: m2 is the sum of squared deviations). predicted and confidence
// are derived (see kb::refresh_prediction), kept in the file for readers.
// A verified speedup over its base counted as a success: the least gain
// either loop keeps by default (tune --min-speedup 1.02, optimize's min_gain
// 0.02). A 1.001x is a measurement of no change, not a success.
inline constexpr double kSuccessSpeedup = 1.02;

struct Stats {
  std::int64_t tries = 0;      // every attempt, failures included
  std::int64_t successes = 0;  // verified and at least kSuccessSpeedup times as fast as the base
  std::int64_t measured = 0;   // verified attempts with a measured speedup
  double mean = 0;
  double m2 = 0;
  double predicted = 1.0;      // expected speedup if tried again
  double confidence = 0;       // 0..1
  std::vector<std::string> notes;  // newest last; capped
  // A factor on the prediction that the KB's own review (the textual-gradient
  // update of the optimization loop) set where the counts mislead: within
  // [kMinAdjustment, kMaxAdjustment]; 1 when none.
  double adjustment = 1.0;
  double variance() const { return measured > 1 ? m2 / static_cast<double>(measured - 1) : 0.0; }
};

// Statistics key. `setting` is empty for a technique as a whole, or one
// tunable value such as "BLOCK_SIZE=256" or a flag such as "-use_fast_math",
// so the tuner learns which settings win for which state and architecture.
struct StatsKey {
  std::string state, technique, arch, setting;
  bool operator<(const StatsKey& o) const {
    return std::tie(state, technique, arch, setting) < std::tie(o.state, o.technique, o.arch, o.setting);
  }
  bool operator==(const StatsKey& o) const = default;
};

// Technique `from` applied, then technique `to` on the result.
struct TransitionKey {
  std::string from, to, arch;
  bool operator<(const TransitionKey& o) const { return std::tie(from, to, arch) < std::tie(o.from, o.to, o.arch); }
  bool operator==(const TransitionKey& o) const = default;
};

struct KnowledgeBase {
  int schema_version = kSchemaVersion;
  std::vector<State> states;
  std::vector<Technique> techniques;
  std::map<StatsKey, Stats> stats;
  std::map<TransitionKey, Stats> transitions;

  const State* find_state(const std::string& id) const;
  const Technique* find_technique(const std::string& id) const;
};

// One measured attempt, as the tuner or the agent reports it.
struct Outcome {
  std::string state;
  std::string technique;
  std::string arch;                 // "sm_90"
  std::string setting;              // see StatsKey
  std::string previous_technique;   // for transition statistics; may be empty
  bool verified = false;            // passed the engine's correctness checks
  double speedup = 0;               // over the base; meaningful when verified
  std::string note;                 // optional free text
};

// A refused KB file: which file, which key (a JSON pointer such as
// "/stats/3/mean"), and why. what() is the one line to print.
class KbError : public std::runtime_error {
 public:
  KbError(std::string file, std::string key, std::string reason);
  const std::string& file() const { return m_file; }
  const std::string& key() const { return m_key; }
  const std::string& reason() const { return m_reason; }

 private:
  std::string m_file, m_key, m_reason;
};

// The prior behind refresh_prediction: a technique is assumed to change
// nothing (speedup 1.0) until measurements say otherwise. kPriorWeight is how
// many tries that assumption is worth; kConfidenceWeight sets how fast
// confidence grows with tries (tries / (tries + kConfidenceWeight)).
inline constexpr double kPriorWeight = 2.0;
inline constexpr double kMinAdjustment = 0.25;
inline constexpr double kMaxAdjustment = 4.0;
inline constexpr double kConfidenceWeight = 4.0;

// Size caps that keep a KB file bounded (see compact()).
struct KbCaps {
  std::size_t max_notes = 8;           // per entry, the newest are kept
  std::size_t max_note_chars = 500;    // longer notes are cut
  std::size_t max_stats = 20000;       // statistics entries
  std::size_t max_transitions = 5000;  // transition entries
};

// Appends a note (cut to the cap), dropping the oldest beyond the cap.
// Empty notes are ignored.
void add_note(Stats& s, const std::string& note, const KbCaps& caps = {});
// Enforces the caps: cuts notes, and drops the least-tried entries (ties:
// fewest measured, then the greatest key) until the counts fit.
void compact(KnowledgeBase& kb, const KbCaps& caps = {});

// Adds one outcome to the matching statistics (and transition, if any).
void record(KnowledgeBase& kb, const Outcome& outcome);
// Combines the statistics of two independent KBs: counts add, means and
// variances combine exactly (Chan et al.), notes are concatenated and capped.
// States and techniques missing from `into` are added from `from`.
void merge_into(KnowledgeBase& into, const KnowledgeBase& from);
// Combined statistics of a and b, as merge_into does for one entry.
Stats combine(const Stats& a, const Stats& b);
// Recomputes predicted and confidence from the counts and moments, then
// applies the adjustment.
void refresh_prediction(Stats& s);

}  // namespace kernelblaster::kb
