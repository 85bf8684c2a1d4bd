#include "eval/judge.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <map>
#include <mutex>
#include <thread>
#include <stdexcept>

#include "common/file_util.h"
#include "eval/compare.h"

namespace kernelblaster {

Verdict judge_process(const ProcessResult& p, const HarnessReport* report) {
  if (p.timed_out) return {Status::timed_out, "harness " + p.how_it_ended()};
  if (p.spawn_failed) return {Status::crashed, p.how_it_ended()};
  if (p.signaled) return {Status::crashed, p.how_it_ended() + (p.output.empty() ? "" : ": " + p.output_tail(1))};
  if (p.exit_code == 0 && report && report->error.kind.empty()) return {};
  if (!report) return {Status::crashed, p.how_it_ended() + " without a report: " + p.output_tail(2)};
  const HarnessError& e = report->error;
  std::string where = e.run >= 0 ? " in run " + std::to_string(e.run) : " during " + e.phase;
  if (e.kind == "launch_error") return {Status::launch_failed, e.message + where};
  if (e.kind == "harness_error") return {Status::harness_error, e.message + where};
  if (e.kind == "lock_timeout") return {Status::harness_error, e.message};
  if (e.kind == "cuda_error") return {Status::crashed, e.message + where};
  return {Status::crashed, p.how_it_ended() + ": " + p.output_tail(2)};
}

namespace {

struct Dump {
  ElementType type;
  std::string bytes;
  std::uint8_t poison;
};

const BufferDecl& buffer_decl(const HarnessReport& r, const std::string& name) {
  for (const BufferDecl& b : r.buffers)
    if (b.name == name) return b;
  throw std::runtime_error("report has no buffer '" + name + "'");
}

Dump load(const HarnessReport& r, const std::string& dir, const OutputDump& d) {
  Dump out;
  const BufferDecl& decl = buffer_decl(r, d.name);
  if (!element_type_from_name(decl.dtype, &out.type)) throw std::runtime_error("unknown dtype " + decl.dtype);
  out.bytes = read_file(dir + "/" + d.file);
  out.poison = d.poison_byte;
  if (out.bytes.size() != static_cast<std::size_t>(d.count) * element_bytes(out.type))
    throw std::runtime_error("dump " + d.file + " has " + std::to_string(out.bytes.size()) + " bytes, expected " +
                             std::to_string(d.count * element_bytes(out.type)));
  return out;
}

OutputView view(const Dump& d) {
  return {d.type, reinterpret_cast<const unsigned char*>(d.bytes.data()),
          static_cast<std::int64_t>(d.bytes.size() / element_bytes(d.type))};
}

std::string describe_error(const OutputError& e, int run, const std::string& size) {
  char buf[320];
  std::snprintf(buf, sizeof buf,
                "output '%s', run %d (size %s): rel L2 %.3g, max abs %.3g, %lld elements off, %lld unwritten, "
                "%lld non-finite mismatches, first at %lld",
                e.output.c_str(), run, size.c_str(), e.rel_l2, e.max_abs, e.mismatched, e.unwritten,
                e.nonfinite_mismatch, e.first_bad);
  return buf;
}

// Compares every (run, output) pair, several at a time: on large outputs the
// comparison, not the GPU, dominates an evaluation.
std::vector<std::vector<OutputError>> compare_all_runs(const HarnessReport& ref, const std::string& ref_dir,
                                                       const HarnessReport& cand, const std::string& cand_dir) {
  std::vector<std::vector<OutputError>> errors(ref.runs.size());
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
        const OutputDump* cd = nullptr;
        for (const OutputDump& d : cand.runs[k].outputs)
          if (d.name == rd.name) cd = &d;
        if (!cd) throw std::runtime_error("candidate run " + std::to_string(k) + " has no dump of '" + rd.name + "'");
        Dump r = load(ref, ref_dir, rd), c = load(cand, cand_dir, *cd);
        errors[k][o] = compare_output(rd.name, view(r), view(c), buffer_decl(ref, rd.name).tolerance, c.poison);
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

}  // namespace

Verdict judge_correctness(const HarnessReport& ref, const std::string& ref_dir, const HarnessReport& cand,
                          const std::string& cand_dir, std::vector<RunCheck>* checks) {
  if (cand.runs.size() != ref.runs.size())
    return {Status::crashed, "candidate finished " + std::to_string(cand.runs.size()) + " of " +
                                 std::to_string(ref.runs.size()) + " runs"};
  std::vector<std::vector<OutputError>> errors = compare_all_runs(ref, ref_dir, cand, cand_dir);
  Verdict first_failure;
  Verdict cached, modified, nondet;
  // (size, seed) -> whether some run of it passed / failed
  std::map<std::pair<int, std::uint64_t>, std::pair<bool, bool>> outcomes;
  std::map<std::pair<int, std::uint64_t>, int> first_run_of;
  for (std::size_t k = 0; k < ref.runs.size(); ++k) {
    const RunReport& rr = ref.runs[k];
    const RunReport& cr = cand.runs[k];
    RunCheck check;
    check.run = static_cast<int>(k);
    check.size = rr.size < static_cast<int>(ref.sizes.size()) ? ref.sizes[rr.size].label : "?";
    check.seed = rr.seed;
    check.inputs_modified = cr.inputs_modified;
    if (!cr.inputs_modified.empty()) {
      check.passed = false;
      if (modified.status == Status::ok)
        modified = {Status::input_modified, "input '" + cr.inputs_modified[0] + "' changed in run " +
                                                std::to_string(k) + " (size " + check.size + ")"};
    }
    Verdict run_verdict;
    for (std::size_t o = 0; o < rr.outputs.size(); ++o) {
      const OutputDump& rd = rr.outputs[o];
      const ToleranceSpec& tol = buffer_decl(ref, rd.name).tolerance;
      const OutputError& e = errors[k][o];
      bool ok = within_tolerance(e, tol);
      check.errors.push_back(e);
      if (ok) continue;
      check.passed = false;
      if (cached.status == Status::ok) {
        const OutputDump* cd = nullptr;
        for (const OutputDump& d : cr.outputs)
          if (d.name == rd.name) cd = &d;
        Dump c = load(cand, cand_dir, *cd);
        // Stale answers: the whole output left untouched, or equal to what an
        // earlier run of the same size (other inputs) should have produced.
        for (std::size_t j = 0; j < k && cached.status == Status::ok; ++j) {
          if (ref.runs[j].size != rr.size || ref.runs[j].seed == rr.seed) continue;
          for (const OutputDump& earlier : ref.runs[j].outputs) {
            if (earlier.name != rd.name) continue;
            Dump old = load(ref, ref_dir, earlier);
            bool untouched = e.unwritten == rd.count && (*checks)[j].passed;
            if (untouched || within_tolerance(compare_output(rd.name, view(old), view(c), tol, c.poison), tol))
              cached = {Status::cached_result,
                        "run " + std::to_string(k) + " (size " + check.size + ") returned " +
                            (untouched ? "nothing, after run " + std::to_string(j) + " was answered,"
                                       : "the answer of run " + std::to_string(j)) +
                            " instead of computing on its own inputs"};
          }
        }
      }
      if (run_verdict.status == Status::ok) {
        Status s = e.unwritten ? Status::unwritten_output
                   : merely_inaccurate(e, tol) ? Status::inaccurate
                                               : Status::wrong_result;
        run_verdict = {s, describe_error(e, static_cast<int>(k), check.size)};
      }
    }
    auto key = std::make_pair(rr.size, rr.seed);
    auto& o = outcomes[key];
    (check.passed ? o.first : o.second) = true;
    if (!first_run_of.count(key)) first_run_of[key] = static_cast<int>(k);
    if (o.first && o.second && nondet.status == Status::ok && cr.inputs_modified.empty())
      nondet = {Status::nondeterministic, "size " + check.size + ", seed " + std::to_string(rr.seed) +
                                              ": runs " + std::to_string(first_run_of[key]) + " and " +
                                              std::to_string(k) + " disagree on the same inputs"};
    if (first_failure.status == Status::ok && run_verdict.status != Status::ok) first_failure = run_verdict;
    checks->push_back(std::move(check));
  }
  if (modified.status != Status::ok) return modified;
  if (cached.status != Status::ok) return cached;
  if (nondet.status != Status::ok) return nondet;
  return first_failure;
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

Verdict judge_timing(const HarnessReport& cand) {
  for (const TimingReport& t : cand.timings) {
    std::string size = t.size < static_cast<int>(cand.sizes.size()) ? cand.sizes[t.size].label : "?";
    // Honest kernels take as long on repeated inputs as on fresh ones (both
    // with a flushed L2); a result cache keyed by input content does not.
    if (t.repeat_runs > 0 && t.repeat_median_ns > 0 && t.repeat_median_ns * 1.3 < t.median_ns &&
        t.median_ns - t.repeat_median_ns > 2000) {
      char buf[200];
      std::snprintf(buf, sizeof buf, "size %s: %.1f us on repeated inputs vs %.1f us on fresh inputs", size.c_str(),
                    t.repeat_median_ns / 1e3, t.median_ns / 1e3);
      return {Status::cached_result, buf};
    }
  }
  return {};
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
    s.method = c.method;
    s.runs = c.runs;
    s.median_us = c.median_ns / 1e3;
    s.q1_us = c.q1_ns / 1e3;
    s.q3_us = c.q3_ns / 1e3;
    s.min_us = c.min_ns / 1e3;
    s.event_median_us = c.event_median_ns / 1e3;
    s.kernels_per_run = c.kernels_per_run;
    s.repeat_median_us = c.repeat_median_ns / 1e3;
    s.sm_clock_mhz = c.sm_clock_mhz;
    if (r && r->median_ns > 0 && c.median_ns > 0) {
      s.reference_median_us = r->median_ns / 1e3;
      s.speedup = r->median_ns / c.median_ns;
      log_sum += std::log(s.speedup);
      ++n;
    }
    out.push_back(s);
  }
  *speedup = n ? std::exp(log_sum / n) : 0.0;
  return out;
}

}  // namespace kernelblaster
