#include "judge/judge.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <map>
#include <mutex>
#include <thread>
#include <stdexcept>

#include "common/file_util.h"
#include "common/text.h"
#include "runtime/compare.h"
#include "judge/dumps.h"
#include "judge/kernel_speeds.h"

namespace kernelblaster {

Verdict judge_process(const ProcessResult& p, const HarnessReport* report) {
  if (p.timed_out) return {Status::timed_out, "harness " + p.how_it_ended()};
  if (p.memory_exceeded) return {Status::out_of_memory, "harness " + p.how_it_ended()};
  if (p.spawn_failed) return {Status::crashed, p.how_it_ended()};
  if (p.signaled) return {Status::crashed, p.how_it_ended() + (p.output.empty() ? "" : ": " + p.output_tail(1))};
  if (p.exit_code == 0 && report && report->error.kind == HarnessErrorKind::none) return {};
  if (!report) return {Status::crashed, p.how_it_ended() + " without a report: " + p.output_tail(2)};
  const HarnessError& e = report->error;
  std::string where = e.run >= 0 ? " in run " + std::to_string(e.run) : " during " + e.phase;
  switch (e.kind) {
    case HarnessErrorKind::launch_error: return {Status::launch_failed, e.message + where};
    case HarnessErrorKind::harness_error: return {Status::harness_error, e.message + where};
    case HarnessErrorKind::lock_timeout: return {Status::harness_error, e.message};
    case HarnessErrorKind::cuda_error: return {Status::crashed, e.message + where};
    case HarnessErrorKind::none:
    case HarnessErrorKind::unknown: break;
  }
  return {Status::crashed, p.how_it_ended() + ": " + p.output_tail(2)};
}

namespace {

// "run 3 (size large)", or for a checked timed call "timed call 211 (size
// large, run 7)": which call a verdict is about.
std::string run_label(const RunReport& r, const std::string& size) {
  if (r.timed_call >= 0)
    return "timed call " + std::to_string(r.timed_call) + " (size " + size + ", run " + std::to_string(r.index) + ")";
  return "run " + std::to_string(r.index) + " (size " + size + ")";
}

std::string describe_error(const OutputError& e, const std::string& label) {
  char buf[320];
  std::snprintf(buf, sizeof buf,
                "output '%s', %s: rel L2 %.3g, max abs %.3g, %lld elements off, %lld unwritten, "
                "%lld non-finite mismatches, first at %lld",
                e.output.c_str(), label.c_str(), e.rel_l2, e.max_abs, e.mismatched, e.unwritten,
                e.nonfinite_mismatch, e.first_bad);
  return buf;
}

std::string describe_oracle_error(const OutputError& e, const OutputCalibration& c, const std::string& label) {
  char buf[400];
  std::snprintf(buf, sizeof buf,
                "output '%s', %s: rel L2 %.3g from the oracle (torch's reference) where the original "
                "is %.3g from it and %.3g is allowed; %lld elements off, %lld non-finite mismatches, first at %lld",
                e.output.c_str(), label.c_str(), e.rel_l2, c.oracle_rel_l2, c.vs_oracle.rel_l2, e.mismatched,
                e.nonfinite_mismatch, e.first_bad);
  return buf;
}

// The comparisons of one (run, output) pair: against the original (A) and,
// where the report has one, against the oracle (B).
struct PairErrors {
  OutputError vs_original;
  bool has_oracle = false;
  OutputError vs_oracle;
  // The driver's own check (its torch::allclose, with its tolerances) against
  // the oracle, for the candidate and for the original; -1: no such check.
  std::int64_t allclose_candidate = -1, allclose_original = -1;
  std::int64_t scrub_pattern = 0;  // candidate elements holding isolation's pattern
};

// Compares every (run, output) pair, several at a time: on large outputs the
// comparison, not the GPU, dominates an evaluation.
std::vector<std::vector<PairErrors>> compare_all_runs(const HarnessReport& ref, const std::string& ref_dir,
                                                      const HarnessReport& cand, const std::string& cand_dir,
                                                      const Calibration& cal) {
  std::vector<std::vector<PairErrors>> errors(ref.runs.size());
  std::vector<std::pair<std::size_t, std::size_t>> tasks;
  for (std::size_t k = 0; k < ref.runs.size(); ++k) {
    errors[k].resize(ref.runs[k].outputs.size());
    for (std::size_t o = 0; o < ref.runs[k].outputs.size(); ++o) tasks.emplace_back(k, o);
  }
  std::atomic<std::size_t> next{0};
  std::mutex failure_mutex;
  std::string failure;
  auto worker = [&] {
    for (std::size_t t; (t = next++) < tasks.size();) {
      auto [k, o] = tasks[t];
      const OutputDump& rd = ref.runs[k].outputs[o];
      try {
        const OutputDump* cd = find_dump(cand.runs[k].outputs, rd.name);
        if (!cd) throw std::runtime_error("candidate run " + std::to_string(k) + " has no dump of '" + rd.name + "'");
        const OutputCalibration* c = cal.find(rd.name);
        if (!c) throw std::runtime_error("no calibration of output '" + rd.name + "'");
        LoadedDump r = load_dump(ref, ref_dir, rd), cn = load_dump(cand, cand_dir, *cd);
        PairErrors& pe = errors[k][o];
        const OutputDump* td = find_dump(ref.runs[k].oracle, rd.name);
        if (td) {
          LoadedDump oracle = load_dump(ref, ref_dir, *td);
          ElementSlack slack{r.view(), oracle.view(), c->slack_factor};
          pe.vs_original = compare_output(rd.name, r.view(), cn.view(), c->vs_original, cn.poison, &slack);
          pe.vs_oracle = compare_output(rd.name, oracle.view(), cn.view(), c->vs_oracle, cn.poison, &slack);
          pe.has_oracle = true;
          if (td->allclose_rtol >= 0) {
            pe.allclose_candidate = allclose_failures(oracle.view(), cn.view(), td->allclose_rtol, td->allclose_atol,
                                                      td->allclose_equal_nan);
            pe.allclose_original = allclose_failures(oracle.view(), r.view(), td->allclose_rtol, td->allclose_atol,
                                                     td->allclose_equal_nan);
          }
        } else {
          pe.vs_original = compare_output(rd.name, r.view(), cn.view(), c->vs_original, cn.poison);
        }
        if (!within_tolerance(pe.vs_original, c->vs_original)) pe.scrub_pattern = scrub_pattern_elements(cn.view());
      } catch (const std::exception& x) {
        std::lock_guard<std::mutex> lock(failure_mutex);
        if (failure.empty()) failure = x.what();
      }
    }
  };
  unsigned n = std::max(1u, std::min(4u, std::thread::hardware_concurrency()));
  std::vector<std::thread> pool;
  for (unsigned i = 0; i < n; ++i) pool.emplace_back(worker);
  for (std::thread& t : pool) t.join();
  if (!failure.empty()) throw std::runtime_error(failure);
  return errors;
}

// "Is the candidate's answer the one an earlier run should have produced?",
// asked of sampled blocks first: only a pair whose samples match (within
// four times the tolerance, so sampling seldom hides a match; one it hides
// is still rejected, as wrong_result) is read whole.
// Samples are kept by file, so each dump is sampled once.
class StaleAnswerCheck {
 public:
  bool matches(const HarnessReport& ref, const std::string& ref_dir, const OutputDump& earlier,
               const HarnessReport& cand, const std::string& cand_dir, const OutputDump& answer,
               const ToleranceSpec& tol) {
    const LoadedDump& a = sample(ref, ref_dir, earlier);
    const LoadedDump& b = sample(cand, cand_dir, answer);
    ToleranceSpec loose{4 * tol.rel_l2, 4 * tol.atol, 4 * tol.rtol};
    if (a.size() != b.size() ||
        !within_tolerance(compare_output(earlier.name, a.view(), b.view(), loose, b.poison), loose))
      return false;
    LoadedDump old = load_dump(ref, ref_dir, earlier), now = load_dump(cand, cand_dir, answer);
    return within_tolerance(compare_output(earlier.name, old.view(), now.view(), tol, now.poison), tol);
  }

 private:
  const LoadedDump& sample(const HarnessReport& r, const std::string& dir, const OutputDump& d) {
    std::string path = dir + "/" + d.file;
    auto it = m_samples.find(path);
    if (it == m_samples.end()) it = m_samples.emplace(path, load_dump_sample(r, dir, d)).first;
    return it->second;
  }
  std::map<std::string, LoadedDump> m_samples;
};

std::string size_label(const HarnessReport& r, int size) {
  return size >= 0 && size < static_cast<int>(r.sizes.size()) ? r.sizes[size].label : "?";
}

// Inputs the candidate saw that the original did not, for the same seed:
// the input program draws values the seed does not control, and nothing
// can be compared. (Checked timed calls carry no input checksums: reading
// the inputs before a timed call would warm the L2 for it.)
Verdict judge_inputs_reproduced(const HarnessReport& ref, const HarnessReport& cand) {
  for (std::size_t k = 0; k < ref.runs.size(); ++k) {
    if (ref.runs[k].seed != cand.runs[k].seed || (ref.runs[k].timed_call < 0) != (cand.runs[k].timed_call < 0))
      return {Status::harness_error, "run " + std::to_string(k) +
                                         " of the candidate's process is not the original's (another seed or kind "
                                         "of call): the two processes did not follow one plan"};
    for (const auto& [name, sum] : ref.runs[k].input_checksums) {
      auto it = cand.runs[k].input_checksums.find(name);
      if (it != cand.runs[k].input_checksums.end() && it->second != sum)
        return {Status::harness_error, "input '" + name + "' of run " + std::to_string(k) + " (seed " +
                                           std::to_string(ref.runs[k].seed) +
                                           ") differs between the original's process and the candidate's: the "
                                           "input program draws values its seed does not control"};
    }
  }
  return {};
}

}  // namespace

namespace {

// What an output that failed its check is called: unwritten, inaccurate or
// wrong against the original, against torch's reference (the oracle), or by
// the input program's own allclose.
Verdict output_failure(const PairErrors& pe, const OutputCalibration& c, const RunReport& rr, const OutputDump& rd,
                       bool ok_original, bool ok_oracle, const std::string& label) {
  const OutputError& e = pe.vs_original;
  if (!ok_original) {
    Status s = e.unwritten ? Status::unwritten_output
               : merely_inaccurate(e, c.vs_original) ? Status::inaccurate
                                                     : Status::wrong_result;
    return {s, describe_error(e, label)};
  }
  if (!ok_oracle) {
    Status s = merely_inaccurate(pe.vs_oracle, c.vs_oracle) ? Status::inaccurate : Status::wrong_result;
    return {s, describe_oracle_error(pe.vs_oracle, c, label)};
  }
  const OutputDump& td = *find_dump(rr.oracle, rd.name);
  char buf[200];
  std::snprintf(buf, sizeof buf, "torch::allclose(rtol=%g, atol=%g)", td.allclose_rtol, td.allclose_atol);
  return {Status::wrong_result, "output '" + rd.name + "', " + label + ": the input program's own check, " + buf +
                                    " against torch's reference, fails for " + std::to_string(pe.allclose_candidate) +
                                    " elements (applied by the tool: the original passes it)"};
}

// An output holding the pattern written over all memory the launcher was not given.
Verdict copied_answer(const PairErrors& pe, const OutputDump& rd, const std::string& label) {
  return {Status::copied_answer,
          label + ": " + std::to_string(pe.scrub_pattern) + " of " + std::to_string(rd.count) + " elements of '" +
              rd.name +
              "' hold the pattern written, before the call, over all memory the launcher was not given: the "
              "output was copied from there (torch's reference, another tensor, freed memory), not computed"};
}

// One failed output of run k, for the stale-answer search.
struct StaleQuery {
  const HarnessReport& ref;
  const std::string& ref_dir;
  const HarnessReport& cand;
  const std::string& cand_dir;
  std::size_t k;
  const OutputDump& rd;         // the original's dump of the output
  const OutputDump& cand_dump;  // the candidate's
  const OutputError& e;         // their difference
  const ToleranceSpec& tolerance;
  const std::string& label;
};

// Stale answers: the whole output left untouched, or equal to what an
// earlier run of the same size (other inputs) should have produced; ok when
// neither. Samples first: only an answer whose sample matches is read whole
// (a rejected candidate with 67M-element outputs would otherwise re-read
// every earlier dump for every failed run).
Verdict stale_answer(const StaleQuery& q, const std::vector<RunCheck>& checks, StaleAnswerCheck& stale) {
  const RunReport& rr = q.ref.runs[q.k];
  for (std::size_t j = 0; j < q.k; ++j) {
    if (q.ref.runs[j].size != rr.size || q.ref.runs[j].seed == rr.seed) continue;
    for (const OutputDump& earlier : q.ref.runs[j].outputs) {
      if (earlier.name != q.rd.name) continue;
      bool untouched = q.e.unwritten == q.rd.count && checks[j].passed;
      if (!untouched && !stale.matches(q.ref, q.ref_dir, earlier, q.cand, q.cand_dir, q.cand_dump, q.tolerance)) continue;
      return {Status::cached_result,
              q.label + " returned " +
                  (untouched ? "nothing, after run " + std::to_string(j) + " was answered,"
                             : "the answer of run " + std::to_string(j)) +
                  " instead of computing on its own inputs"};
    }
  }
  return {};
}

// What a run did to memory it was not asked to write, beyond what the
// original does (scratch use of an input, or its own writes past a buffer,
// are part of the contract): inputs it changed, and writes outside the
// buffers it was given. The first of each kind is kept.
void judge_side_effects(const RunReport& rr, const RunReport& cr, const std::string& label, RunCheck& check,
                        Verdict& modified, Verdict& outside) {
  for (const std::string& name : cr.inputs_modified)
    if (std::find(rr.inputs_modified.begin(), rr.inputs_modified.end(), name) == rr.inputs_modified.end())
      check.inputs_modified.push_back(name);
  if (!check.inputs_modified.empty()) {
    check.passed = false;
    if (modified.status == Status::ok)
      modified = {Status::input_modified, "input '" + check.inputs_modified[0] + "' changed in " + label};
  }
  for (const std::string& where : cr.outside_writes) {
    if (std::find(rr.outside_writes.begin(), rr.outside_writes.end(), where) != rr.outside_writes.end()) continue;
    check.passed = false;
    const std::size_t side = std::min(where.find(" ("), where.size());
    if (outside.status == Status::ok)
      outside = {Status::out_of_bounds, label + " wrote outside buffer '" + where.substr(0, side) + "'" +
                                            where.substr(side) + ": the guard bytes the runtime keeps there changed"};
  }
}

}  // namespace

std::optional<Verdict> judge_correctness_early(const HarnessReport& ref, const std::string& ref_dir,
                                               const std::string& cand_dir, const Calibration& calibration,
                                               std::vector<RunCheck>* checks) {
  HarnessReport cand;
  try {
    cand = report_from_json(read_file(cand_dir + "/" + kCorrectnessReportFile));
  } catch (const std::exception&) {
    // Torn, forged or never written: the whole run's report decides, as it always does.
    return std::nullopt;
  }
  if (cand.runs.empty() || cand.runs.size() > ref.runs.size()) return std::nullopt;
  HarnessReport first = ref;
  first.runs.resize(cand.runs.size());
  std::vector<RunCheck> early;
  Verdict v;
  try {
    v = judge_correctness(first, ref_dir, cand, cand_dir, calibration, &early);
  } catch (const std::exception&) {
    // A dump it names that cannot be read: the whole run's judgement reads it again and says so.
    return std::nullopt;
  }
  if (v.status == Status::ok) return std::nullopt;
  if (checks) *checks = std::move(early);
  return v;
}

Verdict judge_correctness(const HarnessReport& ref, const std::string& ref_dir, const HarnessReport& cand,
                          const std::string& cand_dir, std::vector<RunCheck>* checks) {
  return judge_correctness(ref, ref_dir, cand, cand_dir, calibrate(ref, ref_dir), checks);
}

Verdict judge_correctness(const HarnessReport& ref, const std::string& ref_dir, const HarnessReport& cand,
                          const std::string& cand_dir, const Calibration& cal, std::vector<RunCheck>* checks) {
  if (cand.runs.size() != ref.runs.size())
    return {Status::crashed, "candidate finished " + std::to_string(cand.runs.size()) + " of " +
                                 std::to_string(ref.runs.size()) + " runs"};
  Verdict inputs = judge_inputs_reproduced(ref, cand);
  if (inputs.status != Status::ok) return inputs;
  std::vector<std::vector<PairErrors>> errors = compare_all_runs(ref, ref_dir, cand, cand_dir, cal);
  Verdict first_failure;
  Verdict cached, modified, nondet, copied, outside;
  StaleAnswerCheck stale;
  // (size, seed) -> whether some run of it passed / failed
  std::map<std::pair<int, std::uint64_t>, std::pair<bool, bool>> outcomes;
  std::map<std::pair<int, std::uint64_t>, int> first_run_of;
  for (std::size_t k = 0; k < ref.runs.size(); ++k) {
    const RunReport& rr = ref.runs[k];
    const RunReport& cr = cand.runs[k];
    RunCheck check;
    check.run = static_cast<int>(k);
    check.size = size_label(ref, rr.size);
    check.seed = rr.seed;
    check.timed_call = rr.timed_call;
    const std::string label = run_label(rr, check.size);
    judge_side_effects(rr, cr, label, check, modified, outside);
    if (cr.activities == 0 && cr.repeated_pointers && cached.status == Status::ok)
      cached = {Status::cached_result, label + " launched no GPU work on buffers an earlier call already got"};
    Verdict run_verdict;
    for (std::size_t o = 0; o < rr.outputs.size(); ++o) {
      const OutputDump& rd = rr.outputs[o];
      const OutputCalibration& c = *cal.find(rd.name);
      const PairErrors& pe = errors[k][o];
      const OutputError& e = pe.vs_original;
      bool ok_original = within_tolerance(e, c.vs_original);
      bool ok_oracle = !pe.has_oracle || within_tolerance(pe.vs_oracle, c.vs_oracle);
      // The driver's own check, applied by the tool where the original passes it.
      bool ok_driver = pe.allclose_candidate <= 0 || pe.allclose_original != 0;
      check.errors.push_back(e);
      if (pe.has_oracle) check.oracle_errors.push_back(pe.vs_oracle);
      if (ok_original && ok_oracle && ok_driver) continue;
      check.passed = false;
      if (pe.scrub_pattern > 0 && copied.status == Status::ok) copied = copied_answer(pe, rd, label);
      if (!ok_original && cached.status == Status::ok)
        cached = stale_answer(StaleQuery{ref, ref_dir, cand, cand_dir, k, rd, *find_dump(cr.outputs, rd.name), e,
                                         c.vs_original, label},
                              *checks, stale);
      if (run_verdict.status == Status::ok) run_verdict = output_failure(pe, c, rr, rd, ok_original, ok_oracle, label);
    }
    if (run_verdict.status == Status::ok && cr.driver_verdict == DriverVerdict::failed && rr.driver_verdict != DriverVerdict::failed) {
      check.passed = false;
      run_verdict = {Status::wrong_result, label + ": the input program's own check failed" +
                                               (cr.driver_detail.empty() ? "" : ": " + cr.driver_detail)};
    }
    auto key = std::make_pair(rr.size, rr.seed);
    auto& oc = outcomes[key];
    (check.passed ? oc.first : oc.second) = true;
    if (!first_run_of.count(key)) first_run_of[key] = static_cast<int>(k);
    if (oc.first && oc.second && nondet.status == Status::ok && check.inputs_modified.empty())
      nondet = {Status::nondeterministic, "size " + check.size + ", seed " + std::to_string(rr.seed) +
                                              ": runs " + std::to_string(first_run_of[key]) + " and " +
                                              std::to_string(k) + " disagree on the same inputs"};
    if (first_failure.status == Status::ok && run_verdict.status != Status::ok) first_failure = run_verdict;
    checks->push_back(std::move(check));
  }
  if (outside.status != Status::ok) return outside;
  if (modified.status != Status::ok) return modified;
  if (copied.status != Status::ok) return copied;
  if (cached.status != Status::ok) return cached;
  if (nondet.status != Status::ok) return nondet;
  return first_failure;
}

Verdict judge_reference(const Calibration& cal) {
  if (cal.original_problem.empty()) return {};
  return {Status::reference_failed, cal.original_problem};
}

Verdict judge_untimed(const HarnessReport& cand) {
  if (cand.foreign_activities > 0)
    return {Status::untimed_work, "correctness runs: " + cand.foreign_detail + " (" +
                                      std::to_string(cand.foreign_activities) + " activities)"};
  for (const TimingReport& t : cand.timings) {
    std::string size = t.size < static_cast<int>(cand.sizes.size()) ? cand.sizes[t.size].label : "?";
    if (t.foreign_activities > 0 || t.untimed_runs > 0)
      return {Status::untimed_work, "size " + size + ": " + t.untimed_detail + " (" +
                                        std::to_string(t.untimed_runs) + " of " + std::to_string(t.runs) +
                                        " runs escaped the event bracket, " + std::to_string(t.foreign_activities) +
                                        " activities outside any timed run)"};
  }
  return {};
}

Verdict judge_isolation(const HarnessReport& cand) {
  if (cand.harness != kKernelBenchHarness || cand.isolated_bytes > 0 || cand.runs.empty()) return {};
  for (const std::string& note : cand.notes)
    if (note.rfind("isolation unavailable", 0) == 0) return {};  // said in the notes; nothing was promised
  return {Status::tool_error,
          "the isolation before each call scrubbed nothing: the driver's allocator held no memory beyond the call's "
          "tensors although torch's reference ran in the same process (was the allocator's caching turned off, "
          "e.g. PYTORCH_NO_CUDA_MEMORY_CACHING=1?), so torch's answer may have been within the call's reach"};
}

Verdict judge_process_changes(const HarnessReport& ref, const HarnessReport& cand) {
  std::string beyond;
  for (const std::string& change : cand.process_changes)
    if (std::find(ref.process_changes.begin(), ref.process_changes.end(), change) == ref.process_changes.end())
      beyond += (beyond.empty() ? "" : "; ") + change;
  if (beyond.empty()) return {};
  return {Status::process_tampered, "the candidate's process changed itself while it ran, where the original's did not: " +
                                        beyond};
}

Verdict judge_report_follows_plan(const Plan& plan, const HarnessReport& cand) {
  std::size_t correctness = 0;
  for (std::size_t k = 0; k < cand.runs.size(); ++k) {
    const RunReport& r = cand.runs[k];
    if (r.index != static_cast<int>(k))
      return {Status::process_tampered, "its report numbers run " + std::to_string(k) + " as run " +
                                            std::to_string(r.index) + ": not the runtime's account of the plan"};
    if (r.timed_call >= 0) continue;
    if (correctness >= plan.runs.size())
      return {Status::process_tampered, "its report has more correctness runs than the plan's " +
                                            std::to_string(plan.runs.size())};
    const RunRequest& p = plan.runs[correctness++];
    if (r.size != p.size || r.seed != p.seed)
      return {Status::process_tampered, "its report's run " + std::to_string(k) + " has size " + std::to_string(r.size) +
                                            " and seed " + std::to_string(r.seed) + ", where the plan's has size " +
                                            std::to_string(p.size) + " and seed " + std::to_string(p.seed)};
  }
  return {};
}

Verdict judge_state(const HarnessReport& ref, const HarnessReport& cand) {
  if (cand.persisting_l2_bytes == 0 || ref.persisting_l2_bytes > 0) return {};
  return {Status::cached_result,
          "the launcher's calls left " + bytes_text(cand.persisting_l2_bytes) +
              " of L2 set aside for persisting accesses (cudaLimitPersistingL2CacheSize) when they returned, where the "
              "original leaves none: data pinned in the L2 by one call would be there for the next"};
}

Verdict judge_timing(const HarnessReport& ref, const HarnessReport& cand) {
  for (const TimingReport& t : cand.timings) {
    const TimingReport* r = nullptr;
    for (const TimingReport& x : ref.timings)
      if (x.size == t.size) r = &x;
    std::string size = t.size < static_cast<int>(cand.sizes.size()) ? cand.sizes[t.size].label : "?";
    // Every timed run gets poisoned outputs on the same buffers: a run that
    // launches nothing, or leaves outputs poisoned, answered from an earlier call.
    if (t.empty_runs > 0)
      return {Status::cached_result, "size " + size + ": " + std::to_string(t.empty_runs) + " of " +
                                         std::to_string(t.runs) +
                                         " timed runs launched no GPU work on buffers an earlier call already got"};
    // Values that equal the poison byte look unwritten in the original's runs too.
    const bool like_the_original = r && r->unwritten_runs > 0 &&
                                   static_cast<double>(t.unwritten_max) <= 1.01 * static_cast<double>(r->unwritten_max) + 16;
    if (t.unwritten_runs > 0 && !like_the_original)
      return {Status::cached_result, "size " + size + ": " + std::to_string(t.unwritten_runs) + " of " +
                                         std::to_string(t.runs) + " timed runs left outputs unwritten (" +
                                         t.unwritten_detail + ") though the checked calls wrote them"};
    // Calls on repeated inputs that launch nothing, where the fresh ones
    // did (and the original launched on repeats too): a result cache keyed
    // by input content that answered without the GPU. (Fresh runs that
    // launch nothing are `empty_runs` above.)
    const bool original_repeats_work = !r || r->repeat_runs == 0 || r->repeat_median_ns > 0;
    if (t.repeat_runs > 0 && t.repeat_median_ns <= 0 && t.median_ns > 0 && original_repeats_work)
      return {Status::cached_result, "size " + size + ": the " + std::to_string(t.repeat_runs) +
                                         " calls on repeated inputs launched no GPU work, the calls on fresh inputs did"};
    // Honest kernels take as long on repeated inputs as on fresh ones (both
    // with a flushed L2); a result cache keyed by input content does not.
    if (t.repeat_runs > 0 && t.repeat_median_ns > 0 && t.repeat_median_ns * 1.3 < t.median_ns &&
        t.median_ns - t.repeat_median_ns > 2000) {
      char buf[200];
      std::snprintf(buf, sizeof buf, "size %s: %.1f us on repeated inputs vs %.1f us on fresh inputs", size.c_str(),
                    t.repeat_median_ns / 1e3, t.median_ns / 1e3);
      return {Status::cached_result, buf};
    }
    if (r) {
      if (Verdict v = judge_time_off_the_gpu(*r, t, size); v.status != Status::ok) return v;
    }
  }
  return {};
}

Verdict judge_time_off_the_gpu(const TimingReport& ref, const TimingReport& cand, const std::string& size) {
  if (cand.method != "cupti" || ref.method != "cupti" || cand.event_median_ns <= 0 || ref.event_median_ns <= 0) return {};
  const double gap = cand.event_median_ns - cand.median_ns, ref_gap = ref.event_median_ns - ref.median_ns;
  if (gap <= std::max(0.0, ref_gap) + std::max(kOffTheGpuSlackNs, kOffTheGpuShare * ref.event_median_ns)) return {};
  char buf[320];
  std::snprintf(buf, sizeof buf,
                "size %s: the calls took %.1f us between their events but ran %.1f us of GPU work (the original: %.1f "
                "and %.1f us): time spent where the GPU's timeline does not show it (the host before a launch, or "
                "another process) is not the kernel's speed",
                size.c_str(), cand.event_median_ns / 1e3, cand.median_ns / 1e3, ref.event_median_ns / 1e3,
                ref.median_ns / 1e3);
  return {Status::untimed_work, buf};
}

std::pair<CallCost, CallCost> call_costs(const TimingReport& ref, const TimingReport& cand) {
  CallCost r, c;
  if (ref.busy_median_ns <= 0 || cand.busy_median_ns <= 0) {
    r.ns = ref.median_ns;
    c.ns = cand.median_ns;
    c.q1_ns = cand.q1_ns;
    c.q3_ns = cand.q3_ns;
    return {r, c};
  }
  r.busy = c.busy = true;
  r.ns = ref.busy_median_ns;
  const double ref_idle = std::max(0.0, ref.median_ns - ref.busy_median_ns);
  const double cand_idle = std::max(0.0, cand.median_ns - cand.busy_median_ns);
  const double allowed = kIdleAllowanceFactor * ref_idle + kIdleAllowanceOfSpan * ref.median_ns;
  c.charged_idle_ns = std::max(0.0, cand_idle - allowed);
  c.ns = cand.busy_median_ns + c.charged_idle_ns;
  c.q1_ns = cand.busy_q1_ns + c.charged_idle_ns;
  c.q3_ns = cand.busy_q3_ns + c.charged_idle_ns;
  return {r, c};
}

std::vector<SizeTiming> compare_timing(const HarnessReport& ref, const HarnessReport& cand, double* speedup) {
  std::vector<SizeTiming> out;
  double log_sum = 0;
  int n = 0;
  for (const TimingReport& c : cand.timings) {
    const TimingReport* r = nullptr;
    for (const TimingReport& t : ref.timings)
      if (t.size == c.size) r = &t;
    SizeTiming s;
    s.size = c.size < static_cast<int>(cand.sizes.size()) ? cand.sizes[c.size].label : "?";
    s.validation_only = c.size < static_cast<int>(cand.sizes.size()) && cand.sizes[c.size].validation_only;
    s.method = c.method;
    s.runs = c.runs;
    s.median_us = c.median_ns / 1e3;
    s.q1_us = c.q1_ns / 1e3;
    s.q3_us = c.q3_ns / 1e3;
    s.min_us = c.min_ns / 1e3;
    s.event_median_us = c.event_median_ns / 1e3;
    s.kernels_per_run = c.kernels_per_run;
    s.issue_us = c.issue_median_ns / 1e3;
    if (r) s.reference_issue_us = r->issue_median_ns / 1e3;
    s.repeat_median_us = c.repeat_median_ns / 1e3;
    s.sm_clock_mhz = c.sm_clock_mhz;
    s.busy_median_us = c.busy_median_ns / 1e3;
    if (r) s.reference_busy_median_us = r->busy_median_ns / 1e3;
    if (r && r->median_ns > 0 && c.median_ns > 0) {
      s.reference_median_us = r->median_ns / 1e3;
      auto [rc, cc] = call_costs(*r, c);
      s.basis = cc.busy ? "busy" : "span";
      s.charged_idle_us = cc.charged_idle_ns / 1e3;
      s.cost_us = cc.ns / 1e3;
      s.cost_q1_us = cc.q1_ns / 1e3;
      s.cost_q3_us = cc.q3_ns / 1e3;
      s.reference_cost_us = rc.ns / 1e3;
      s.speedup = rc.ns / cc.ns;
      s.kernels = kernel_speeds(*r, c);
      if (!s.validation_only) {
        log_sum += std::log(s.speedup);
        ++n;
      }
    }
    out.push_back(s);
  }
  *speedup = n ? std::exp(log_sum / n) : 0.0;
  return out;
}

}  // namespace kernelblaster
