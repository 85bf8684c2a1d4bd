// The textual-gradient step of the loop (the paper's PolicyEvaluation ->
// PerfGapAnalysis -> ParameterUpdate): every few steps the model reads what
// the KB predicted for the recent steps against what the engine measured,
// explains the gaps, and proposes edits to the KB as JSON: notes on
// (state, technique) entries, factors on predictions, new techniques and
// states, deprecations. The proposal is data: it is validated against the
// KB's schema and the KB's ids before anything is applied, and a proposal
// with one bad entry is refused whole, with one line saying where.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "kb/knowledge_base.h"
#include "llm/types.h"

namespace kernelblaster::optimize {

struct Step;

struct NoteEdit {
  std::string state, technique, note;
};
struct PredictionEdit {
  std::string state, technique;
  double factor = 1.0;  // multiplies the entry's adjustment; [kMinFactor, kMaxFactor]
};
struct Deprecation {
  std::string state, technique, reason;
};

struct KnowledgeUpdate {
  std::string analysis;  // the model's reading of the gaps, kept for the artifacts
  std::vector<NoteEdit> notes;
  std::vector<PredictionEdit> predictions;
  std::vector<kb::Technique> new_techniques;
  std::vector<kb::State> new_states;
  std::vector<Deprecation> deprecations;
};

// One proposal may move a prediction by at most 2x either way; a
// deprecation sets the factor to kDeprecationFactor.
inline constexpr double kMinFactor = 0.5;
inline constexpr double kMaxFactor = 2.0;
inline constexpr double kDeprecationFactor = 0.5;
inline constexpr std::size_t kMaxEntries = 20;      // per list
inline constexpr std::size_t kMaxNoteChars = 500;

// A refused proposal: `where` is a JSON pointer into it ("/notes/2/technique").
class UpdateError : public std::runtime_error {
 public:
  UpdateError(const std::string& where, const std::string& why) : std::runtime_error(where + ": " + why) {}
};

// The request: the KB's record and prediction for each recent step's
// (state, technique), what each step measured or why it failed, the schema
// of the answer and its bounds.
llm::Request knowledge_update_request(const kb::KnowledgeBase& kb, const std::vector<Step>& steps,
                                      const std::string& arch, const std::string& gpu);

// The proposal in `reply` (its last ```json block, or the whole reply when
// it is JSON). Throws UpdateError when it is not valid against `kb`.
KnowledgeUpdate parse_knowledge_update(const std::string& reply, const kb::KnowledgeBase& kb);

// Applies a valid proposal for `arch`; notes, factors and deprecations go to
// the (state, technique, arch) entries, created when absent.
void apply_knowledge_update(kb::KnowledgeBase& kb, const KnowledgeUpdate& update, const std::string& arch);

// The proposal as JSON, for the artifacts.
std::string knowledge_update_json(const KnowledgeUpdate& update);

}  // namespace kernelblaster::optimize
