// What `kernelblaster kb show|stats|classify` print: filtered views and
// summaries of a KB, as readable text or as JSON.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "kb/classifier.h"
#include "kb/knowledge_base.h"

namespace kernelblaster::kb {

// Empty fields select everything.
struct KbFilter {
  std::string state, technique, arch;
};

// The part of `kb` a filter selects: with a state, that state, the
// techniques that help it or have statistics for it, and its statistics;
// with a technique, that technique, the states it helps or has statistics
// for, and its statistics and transitions; with an arch, only statistics of
// that architecture. Throws KbError (with an empty file) for an unknown
// state or technique id.
KnowledgeBase filter_kb(const KnowledgeBase& kb, const KbFilter& filter);
// Readable listing of a (filtered) KB.
std::string show_text(const KnowledgeBase& kb, const KbFilter& filter);

// One statistics entry as ranked by `kb stats`.
struct RankedEntry {
  StatsKey key;
  Stats stats;
};

struct KbSummary {
  std::size_t states = 0, techniques = 0, stats_entries = 0, transitions = 0;
  std::int64_t tries = 0, measured = 0, successes = 0;
  std::vector<std::string> archs;  // sorted
  // (state, arch) -> entries by predicted speedup, best first, at most `top`.
  std::map<std::pair<std::string, std::string>, std::vector<RankedEntry>> best;
  std::vector<std::string> untried_techniques;  // no statistics at all
};

KbSummary summarize(const KnowledgeBase& kb, const std::string& arch, std::size_t top);
std::string summary_text(const KbSummary& s);
std::string summary_json(const KbSummary& s);

std::string classification_text(const KnowledgeBase& kb, const Classification& c);
std::string classification_json(const KnowledgeBase& kb, const Classification& c);

// Reads metrics for `kb classify`: a JSON object of metric name -> number,
// either at the top level or under "metrics" (null values are absent).
// Throws KbError naming the file and key of a non-numeric value.
std::map<std::string, double> read_metrics_file(const std::string& path);

}  // namespace kernelblaster::kb
