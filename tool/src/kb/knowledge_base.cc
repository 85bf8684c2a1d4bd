#include "kb/knowledge_base.h"

#include <algorithm>
#include <cmath>

namespace kernelblaster::kb {
namespace {

std::string one_line(std::string s) {
  for (char& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  return s;
}

std::string error_line(const std::string& file, const std::string& key, const std::string& reason) {
  std::string line;
  if (!file.empty()) line += file + ": ";
  if (!key.empty()) line += key + ": ";
  return one_line(line + reason);
}

// Cuts a note to at most `max` bytes without splitting a UTF-8 sequence.
std::string cut_note(const std::string& note, std::size_t max) {
  if (note.size() <= max) return note;
  std::size_t end = max;
  while (end > 0 && (static_cast<unsigned char>(note[end]) & 0xC0) == 0x80) --end;
  return note.substr(0, end);
}

void add_measurement(Stats& s, bool verified, double speedup) {
  ++s.tries;
  if (!verified || !std::isfinite(speedup) || speedup <= 0) return;
  // Welford's update: exact running mean and sum of squared deviations.
  ++s.measured;
  double delta = speedup - s.mean;
  s.mean += delta / static_cast<double>(s.measured);
  s.m2 += delta * (speedup - s.mean);
  if (speedup >= kSuccessSpeedup) ++s.successes;
}

template <typename Key>
void drop_least_tried(std::map<Key, Stats>& entries, std::size_t cap) {
  if (entries.size() <= cap) return;
  std::vector<typename std::map<Key, Stats>::iterator> order;
  order.reserve(entries.size());
  for (auto it = entries.begin(); it != entries.end(); ++it) order.push_back(it);
  // Least valuable first: fewest tries, then fewest measured, then the
  // greatest key, so the choice is the same on every machine.
  std::sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
    if (a->second.tries != b->second.tries) return a->second.tries < b->second.tries;
    if (a->second.measured != b->second.measured) return a->second.measured < b->second.measured;
    return b->first < a->first;
  });
  std::size_t excess = entries.size() - cap;
  for (std::size_t i = 0; i < excess; ++i) entries.erase(order[i]);
}

void cap_notes(Stats& s, const KbCaps& caps) {
  for (std::string& n : s.notes) n = cut_note(n, caps.max_note_chars);
  if (s.notes.size() > caps.max_notes)
    s.notes.erase(s.notes.begin(), s.notes.end() - static_cast<std::ptrdiff_t>(caps.max_notes));
}

}  // namespace

KbError::KbError(std::string file, std::string key, std::string reason)
    : std::runtime_error(error_line(file, key, reason)), m_file(std::move(file)), m_key(std::move(key)), m_reason(std::move(reason)) {}

const State* KnowledgeBase::find_state(const std::string& id) const {
  for (const State& s : states)
    if (s.id == id) return &s;
  return nullptr;
}

bool Technique::helps(const std::string& state) const {
  return std::find(helps_states.begin(), helps_states.end(), state) != helps_states.end();
}

const Technique* KnowledgeBase::find_technique(const std::string& id) const {
  for (const Technique& t : techniques)
    if (t.id == id) return &t;
  return nullptr;
}

void refresh_prediction(Stats& s) {
  // Every try is an observation of "speedup if applied": a measured try
  // counts with its speedup, a failed or unmeasured one as 1.0 (the base is
  // kept). The prior adds kPriorWeight pseudo-tries at 1.0, so a single
  // lucky try cannot dominate and failures pull the estimate back to 1.0.
  double tries = static_cast<double>(s.tries);
  double measured = static_cast<double>(s.measured);
  double sum = measured * s.mean + (tries - measured) * 1.0 + kPriorWeight * 1.0;
  s.predicted = sum / (tries + kPriorWeight) * s.adjustment;
  s.confidence = tries / (tries + kConfidenceWeight);
}

void add_note(Stats& s, const std::string& note, const KbCaps& caps) {
  if (note.empty()) return;
  s.notes.push_back(note);
  cap_notes(s, caps);
}

Stats combine(const Stats& a, const Stats& b) {
  Stats c;
  c.tries = a.tries + b.tries;
  c.successes = a.successes + b.successes;
  c.measured = a.measured + b.measured;
  if (c.measured > 0) {
    // Chan et al.'s pairwise combination. The mean is written symmetrically
    // so that combine(a, b) and combine(b, a) agree to the last bit.
    double na = static_cast<double>(a.measured), nb = static_cast<double>(b.measured), n = na + nb;
    c.mean = (na * a.mean + nb * b.mean) / n;
    double delta = b.mean - a.mean;
    c.m2 = a.m2 + b.m2 + delta * delta * na * nb / n;
  }
  // The stronger correction wins (ties: the smaller factor), an order that
  // keeps merging commutative and associative.
  auto strength = [](double x) { return std::abs(std::log(x)); };
  c.adjustment = strength(a.adjustment) > strength(b.adjustment) ||
                         (strength(a.adjustment) == strength(b.adjustment) && a.adjustment < b.adjustment)
                     ? a.adjustment
                     : b.adjustment;
  c.notes = a.notes;
  for (const std::string& n : b.notes)
    if (std::find(c.notes.begin(), c.notes.end(), n) == c.notes.end()) c.notes.push_back(n);
  cap_notes(c, KbCaps{});
  refresh_prediction(c);
  return c;
}

void record(KnowledgeBase& kb, const Outcome& o) {
  Stats& s = kb.stats[StatsKey{o.state, o.technique, o.arch, o.setting}];
  add_measurement(s, o.verified, o.speedup);
  add_note(s, o.note);
  refresh_prediction(s);
  if (!o.previous_technique.empty()) {
    Stats& t = kb.transitions[TransitionKey{o.previous_technique, o.technique, o.arch}];
    add_measurement(t, o.verified, o.speedup);
    refresh_prediction(t);
  }
}

void merge_into(KnowledgeBase& into, const KnowledgeBase& from) {
  for (const State& s : from.states)
    if (!into.find_state(s.id)) into.states.push_back(s);
  for (const Technique& t : from.techniques)
    if (!into.find_technique(t.id)) into.techniques.push_back(t);
  auto merge_stats = [](auto& into_map, const auto& from_map) {
    for (const auto& [key, s] : from_map) {
      auto it = into_map.find(key);
      if (it == into_map.end()) into_map.emplace(key, s);
      else it->second = combine(it->second, s);
    }
  };
  merge_stats(into.stats, from.stats);
  merge_stats(into.transitions, from.transitions);
}

void compact(KnowledgeBase& kb, const KbCaps& caps) {
  for (auto& [key, s] : kb.stats) cap_notes(s, caps);
  for (auto& [key, s] : kb.transitions) cap_notes(s, caps);
  drop_least_tried(kb.stats, caps.max_stats);
  drop_least_tried(kb.transitions, caps.max_transitions);
}

}  // namespace kernelblaster::kb
