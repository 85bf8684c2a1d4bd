// The Harness builder and the harness program's command line.
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "common/file_util.h"
#include "runtime/session.h"
#include "runtime/spec.h"

namespace kernelblaster {

Harness::Harness(std::string name) : m_spec(std::make_unique<Spec>()) { m_spec->name = std::move(name); }
Harness::~Harness() = default;

Harness& Harness::size(std::string label, Dims dims) {
  m_spec->sizes.push_back({std::move(label), std::move(dims), false});
  return *this;
}
Harness& Harness::validation_size(std::string label, Dims dims) {
  m_spec->sizes.push_back({std::move(label), std::move(dims), true});
  return *this;
}
Harness& Harness::input(std::string name, DType dtype, Shape shape, Distribution dist) {
  m_spec->buffers.push_back({std::move(name), dtype, std::move(shape), BufferRole::input, dist, {}});
  return *this;
}
Harness& Harness::output(std::string name, DType dtype, Shape shape, Tolerance tol) {
  m_spec->buffers.push_back({std::move(name), dtype, std::move(shape), BufferRole::output, {}, tol});
  return *this;
}
Harness& Harness::inout(std::string name, DType dtype, Shape shape, Distribution dist, Tolerance tol) {
  m_spec->buffers.push_back({std::move(name), dtype, std::move(shape), BufferRole::inout, dist, tol});
  return *this;
}
Harness& Harness::workspace(std::string name, DType dtype, Shape shape) {
  m_spec->buffers.push_back({std::move(name), dtype, std::move(shape), BufferRole::workspace, {}, {}});
  return *this;
}
Harness& Harness::launch(LaunchFn fn) {
  m_spec->launch = std::move(fn);
  return *this;
}
Harness& Harness::flops(std::function<double(const Dims&)> fn) {
  m_spec->flops = std::move(fn);
  return *this;
}
Harness& Harness::bytes(std::function<double(const Dims&)> fn) {
  m_spec->bytes = std::move(fn);
  return *this;
}

namespace {

const char* kUsage =
    "usage: %s [--describe] [--plan FILE --out DIR]\n"
    "  A KernelBlaster harness. The kernelblaster tool runs it with a plan;\n"
    "  --describe prints the declaration as JSON (no GPU needed);\n"
    "  with no arguments it runs 3 seeds per size and times each size.\n";

int self_check(const Harness::Spec& spec) {
  Plan plan;
  for (std::size_t s = 0; s < spec.sizes.size(); ++s)
    for (std::uint64_t seed = 1; seed <= 3; ++seed) plan.runs.push_back({static_cast<int>(s), seed});
  char dir[] = "/tmp/kernelblaster-selfcheck-XXXXXX";
  if (!mkdtemp(dir)) {
    std::perror("mkdtemp");
    return kExitUsage;
  }
  int code = run_plan(spec, plan, dir);
  if (code != kExitOk) return code;
  HarnessReport r = report_from_json(read_file(std::string(dir) + "/report.json"));
  std::printf("%s on %s: %zu runs ok\n", r.harness.c_str(), r.device.name.c_str(), r.runs.size());
  for (const TimingReport& t : r.timings)
    std::printf("  %-12s median %10.2f us  IQR %8.2f us  (%d runs, %s)\n", r.sizes[t.size].label.c_str(),
                t.median_ns / 1e3, (t.q3_ns - t.q1_ns) / 1e3, t.runs, t.method.c_str());
  for (const RunReport& run : r.runs)
    if (!run.inputs_modified.empty())
      std::printf("  run %d modified input '%s'\n", run.index, run.inputs_modified[0].c_str());
  std::printf("  dumps in %s\n", dir);
  return kExitOk;
}

}  // namespace

int Harness::main(int argc, char** argv) {
  ProcessArgs args;
  if (auto done = parse_process_args(argc, argv, kUsage, &args)) return *done;
  const std::string &plan_path = args.plan_path, &out_dir = args.out_dir;
  const bool describe_only = args.describe_only;
  try {
    validate_spec(*m_spec);
  } catch (const std::exception& x) {
    std::fprintf(stderr, "kernelblaster harness: %s\n", x.what());
    return kExitUsage;
  }
  if (describe_only) {
    std::printf("%s\n", report_to_json(describe(*m_spec)).c_str());
    return kExitOk;
  }
  if (plan_path.empty() != out_dir.empty()) {
    std::fprintf(stderr, "kernelblaster harness: --plan and --out go together\n");
    return kExitUsage;
  }
  if (plan_path.empty()) return self_check(*m_spec);
  std::optional<Plan> plan = read_plan(plan_path, "harness");
  if (!plan) return kExitUsage;
  end_after_report(run_plan(*m_spec, *plan, out_dir));
}

}  // namespace kernelblaster
