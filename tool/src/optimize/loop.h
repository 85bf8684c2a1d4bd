// The MAIC-RL loop for one kernel (KernelBlaster, arXiv 2602.14293): per
// step, classify the base's profile into a state, let the policy choose a
// technique from the KB's statistics for that state and GPU, have the LLM
// lower it into code (with bounded fix attempts fed by the compiler, the
// static checks or the engine's verdict), let the judge decide, reward the
// step against its base and the KB's prediction, and record every step's
// outcome in the KB. Several trajectories each start from the original. A
// verified kernel the loop would believe (the next base, or faster than the
// original) is looked at again with fresh seeds before anything builds on it
// or learns from it; one that fails the second look is a failed step with
// the status it failed with. The fastest kernel that held is kept.
//
// The loop judges nothing itself: correctness and speed come from the
// CandidateJudge, written code passes the static checks before it is
// compiled, and a failed LLM request is a result, never an exception.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "judge/result.h"
#include "kb/knowledge_base.h"
#include "llm/client.h"
#include "llm/outcome.h"
#include "optimize/candidate_judge.h"
#include "optimize/knowledge_update.h"
#include "optimize/second_opinion.h"
#include "policy/policy.h"
#include "rewrite/lowering_prompt.h"

namespace kernelblaster::optimize {

struct LoopOptions {
  int trajectories = 2;
  int steps = 3;           // per trajectory
  int fix_attempts = 2;    // extra attempts of a step after its first
  double min_gain = 0.02;  // a result becomes the next base when this much faster than its base
  int confirm_seeds = 5;   // fresh seeds of the winner's second look
  std::uint64_t seed = 0;  // the policy's random choices
  int review_every = 4;    // steps between the KB's reviews (the textual-gradient update); 0: none
  bool second_opinion = false;  // ask the model about a kept kernel (advice only)
  // Trajectories in flight at once: their LLM requests overlap, their
  // judgements take turns; the KB learns from each round in trajectory
  // order. Caps may then be passed by up to this many requests.
  int parallel = 1;
  // A kernel at this share of its speed of light or more (the profile's
  // `roofline_bound_pct` / 100: its FLOP rate, or its bandwidth, against the
  // GPU's measured roof at its arithmetic intensity) is not worked on: the
  // original ends the run before any request, a base its trajectory. 0: never.
  double bound_stop = 0.9;
  // With kernel units: how many kernels, in the order of the original's GPU
  // time, one run rewrites one after another, each from what the earlier
  // ones kept.
  int kernels = 1;
};

// The share of its speed of light a profile says a kernel runs at; 0 when
// it cannot say (no ceilings, no declared work).
double bound_share(const std::map<std::string, double>& metrics);

using rewrite::KernelTarget;


// One request to the model and what came back: an attempt's or a review's.
struct Exchange {
  std::string tag;  // "t0-s1-a2", "review-1": the name of its files
  llm::Request request;
  std::string reply;
  llm::Outcome llm_outcome = llm::Outcome::ok;
  std::int64_t input_tokens = 0, output_tokens = 0;
  double cost_usd = 0;
  bool from_cache = false;
  double llm_s = 0;
};

struct Attempt : Exchange {
  int number = 0;  // 0: the lowering request; 1..: fix attempts
  AttemptEnd end = AttemptEnd::llm_failed;
  Status status = Status::ok;  // the judge's, for verified and rejected
  std::string detail;          // one line
  std::string feedback;        // what a fix prompt shows when it is more than `detail` (the compiler's lines)
  std::string code;            // the candidate, when one was extracted (a kernel unit's: the whole source with it)
  std::string definition;      // a kernel unit's: the reply's new definition
  double speedup = 0;          // over the original; verified only
  double median_us = 0;        // verified only
  std::map<std::string, double> metrics;  // the judge's profile of it; may be empty
  double judge_s = 0;
};

struct Step {
  int trajectory = 0, index = 0;
  std::string kernel;           // the kernel unit it rewrote; empty: the whole source
  std::string state;            // the base's classified state
  std::string technique;        // the policy's choice
  std::vector<std::string> ranking;  // the policy's whole order of the techniques left, its choice first
  double base_speedup = 1.0;    // the base over the original
  double base_bound_share = 0;  // the base's share of its speed of light (bound_share); 0: not known
  double predicted = 1.0;       // the KB's prediction for (state, technique, arch) before the step
  std::vector<Attempt> attempts;
  bool verified = false;
  double speedup_vs_base = 0;   // verified only
  double reward = 0;            // ln(speedup_vs_base) when verified, kFailureReward otherwise
  double advantage = 0;         // reward - ln(predicted)
  bool accepted = false;        // became the base of the next step
  // The second look (fresh seeds) at a verified candidate the loop would
  // believe: one that becomes the next base or beats the original. One that
  // fails it is no base and no success: the step fails with its status.
  bool looked_again = false;
  Judgement second_look;
  double loop_s = 0;            // the step's own time outside the LLM and the judge
};

// One review of the KB by the model (knowledge_update.h): applied only when
// the whole proposal is valid.
struct Review : Exchange {
  int steps_seen = 0;       // the run's steps before it
  bool applied = false;
  std::string detail;       // why it was refused, or what it changed, one line
  KnowledgeUpdate update;   // applied ones only
};

// The reward of a step that produced no verified kernel: as bad as halving
// the speed, so a failure never looks better than a slow verified rewrite.
inline constexpr double kFailureReward = -0.6931471805599453;  // ln 0.5

// Why a run ended: it did what it set out to; a request to the model failed
// in a way that ends the run (the cost cap, an unusable model); or the
// original failed its own judgement, so nothing could be compared.
struct RunStop {
  enum class Kind { done, llm_failed, original_failed, near_bound, no_unit } kind = Kind::done;
  std::string detail;  // the LLM outcome, the original's status or its share of the bound, and what it said
  // "done", "llm <outcome>: detail", "original <status>: detail", "near bound: detail",
  // "nothing to rewrite: detail" (no kernel alone, and no one launcher for the whole source)
  std::string text() const;
};

struct RunResult {
  Judgement original;                 // the original against itself
  std::vector<Step> steps;
  std::vector<kb::Outcome> outcomes;  // what the KB was told, one per step
  std::vector<Review> reviews;
  SecondOpinion second_opinion;     // on the kept kernel, when asked
  llm::Request second_opinion_request;
  std::string second_opinion_reply;
  rewrite::KernelDefinition unit;   // the one kernel rewritten (empty name: the whole source)
  bool improved = false;            // a confirmed faster kernel was found
  std::string best_source;          // the original when !improved
  std::string best_tag;
  double search_speedup = 1.0;      // the winner's speedup when the loop measured it
  Judgement confirmation;             // the second look at the winner (its step's, when there was one)
  RunStop stop;                      // why the run ended; stop.text() in JSON and lines
  double llm_cost_usd = 0;
  std::int64_t input_tokens = 0, output_tokens = 0;
  int llm_requests = 0;
};

class Loop {
 public:
  // `kb` is taught in place (the caller writes it back). `log` gets one line
  // per event; may be empty.
  Loop(KernelTarget target, LoopOptions options, kb::KnowledgeBase& kb, policy::Policy& policy, llm::Client& client,
       CandidateJudge& judge, std::function<void(const std::string&)> log = {});
  RunResult run();

 private:
  struct Base;
  struct RoundResult {
    Step step;
    bool stop = false;  // the step's policy asked the run to stop
  };
  std::vector<RoundResult> run_round(const std::vector<int>& active, int index, const std::vector<Base>& bases,
                                     int group_start);
  void record_step(Step st, const Base& base);
  static void advance_base(const Step& done, Base& base);
  void keep_winner(std::size_t best_step);
  Step step(int trajectory, int index, const Base& base, const std::vector<Step>& earlier, bool* stop_run);
  // The step's reward, advantage and acceptance from its last attempt's speedup.
  // What the model is told for the step's technique on `base`: the kernel, its state, the
  // technique and its statistics, the metrics, what this trajectory tried.
  rewrite::LoweringInput lowering_input(const Step& st, const Base& base, const std::vector<Step>& earlier) const;
  void settle(Step& st, const Base& base, const policy::Context& ctx);
  // The second look at the step's verified candidate, when the loop would believe it.
  void look_again(Step& st, const Base& base, const policy::Context& ctx);
  Attempt attempt(const std::string& tag, int number, const llm::Request& request);
  // The client's answer, timed, and charged to the run's counters.
  llm::Result ask(const llm::Request& request, double* seconds);
  // ask() with x.request, its answer written into `x`.
  llm::Result exchange(Exchange& x);
  policy::Context context(const Base& base, const std::string& state, const std::vector<Step>& earlier, int trajectory,
                          int index) const;
  void say(const std::string& line) const;
  // How near its speed of light a profile puts a kernel, as a phrase, when
  // at or past options.bound_stop; "" otherwise.
  std::string near_bound(const std::map<std::string, double>& metrics) const;
  void review(bool* stop_run);
  // The fastest verified step so far.
  struct Best {
    bool have = false;
    std::size_t step = 0;
    double speedup = 0;
  };
  // Every trajectory from `start`, in groups of options.parallel.
  void run_trajectories(const Base& start, Best& best, bool* stop_run);
  // The kernel units to rewrite, most of the original's GPU time first
  // (when the project defines several kernels, or the one it has lives in
  // a header); empty: the whole source.
  std::vector<int> unit_order();
  // Makes unit `i` the one rewritten (in the run's `round`-th kernel), and says so.
  void begin_unit(std::size_t i, std::size_t round);
  // The original's profile of the unit's kernel (the dominant kernel's when
  // its profile does not name it).
  std::map<std::string, double> original_metrics_of(const rewrite::KernelUnit& unit) const;
  // A kernel unit's reply as the whole source: "" and `why` when it
  // defines no such kernel or cannot be placed.
  std::string unit_source(const std::string& definition, std::string* why) const;

  KernelTarget m_target;
  LoopOptions m_options;
  kb::KnowledgeBase& m_kb;
  policy::Policy& m_policy;
  llm::Client& m_client;
  CandidateJudge& m_judge;
  std::function<void(const std::string&)> m_log;
  RunResult m_result;
  std::string m_unit_original;  // a kernel unit's original as one text (the static checks' baseline)
  std::vector<rewrite::Replacement> m_kept;  // definitions earlier kernels' rounds kept
  std::size_t m_round = 0;                    // the kernel's round in the run (0: the first kernel)
  RunStop m_stop;  // set once, by the first failure that ends the run
  std::mutex m_mutex;                // m_result's counters, m_stop
  std::mutex m_policy_mutex;         // the policy (a Lua state) is not shared between threads
  std::mutex m_judge_mutex;
  mutable std::mutex m_log_mutex;
};

// LLM outcomes after which no further request can succeed in this run.
bool ends_the_run(llm::Outcome outcome);

}  // namespace kernelblaster::optimize
