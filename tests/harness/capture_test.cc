#include "harness/capture.h"

#include <gtest/gtest.h>

#include "common/launcher_mask.h"
#include "harness/capture_harness.h"

using namespace kernelblaster::harness;

namespace {

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// A gather: out[i] = table[index[i]]; index holds integers, table's extent
// is no product of the launcher's sizes.
const char* kGather = R"({"format": "kernelblaster-capture-1", "source": "src/gather.cu",
  "launcher": {"name": "gather", "namespaces": ["ops"], "return_type": "void", "params": [
    {"name": "table", "type": "const float *", "kind": "buffer", "element": "f32"},
    {"name": "index", "type": "const int *", "kind": "buffer", "element": "i32"},
    {"name": "out", "type": "float *", "kind": "buffer", "writable": true, "element": "f32"},
    {"name": "n", "type": "int", "kind": "dim"},
    {"name": "scale", "type": "float", "kind": "real"},
    {"name": "stream", "type": "cudaStream_t", "kind": "stream"}]},
  "calls": [
    {"args": [{"elements": 5000}, {"elements": 100, "min": 0, "max": 4999}, {"elements": 100, "written": true},
              {"value": "100"}, {"value": "1"}, {}]},
    {"args": [{"elements": 70000}, {"elements": 9000, "min": 3, "max": 69999}, {"elements": 9000, "written": true},
              {"value": "9000"}, {"value": "0.5"}, {}]}]})";

std::string parse_error(const std::string& text) {
  try {
    parse_capture(text, "c.json");
  } catch (const CaptureError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(Capture, RoundTripsThroughItsJson) {
  Capture c = parse_capture(kGather, "g.json");
  ASSERT_EQ(c.calls.size(), 2u);
  EXPECT_EQ(c.launcher.namespaces, std::vector<std::string>{"ops"});
  EXPECT_EQ(c.calls[1].args[1].max.value(), 69999);
  Capture again = parse_capture(capture_to_json(c), "again.json");
  EXPECT_EQ(capture_to_json(again), capture_to_json(c));
}

TEST(Capture, BadInputIsOneLineNamingTheEntry) {
  EXPECT_EQ(parse_error("{"), "capture c.json: not JSON");
  EXPECT_EQ(parse_error(R"({"format": "other"})"), "capture c.json: /format: must be \"kernelblaster-capture-1\"");
  std::string text = kGather;
  std::string no_calls = text.substr(0, text.find("\"calls\"")) + "\"calls\": []}";
  EXPECT_EQ(parse_error(no_calls), "capture c.json: /calls: missing, not an array, or empty (nothing was recorded)");
  std::string evil = text;
  evil.replace(evil.find("\"gather\""), 8, "\"g(); system(\\\"rm\\\")\"");
  EXPECT_EQ(parse_error(evil), "capture c.json: /launcher/name: not a C identifier");
  std::string short_call = text;
  short_call.replace(short_call.find("{\"value\": \"100\"}, "), 18, "");
  EXPECT_EQ(parse_error(short_call), "capture c.json: /calls/0/args: 5 arguments for 6 parameters");
  std::string bad_dim = text;
  bad_dim.replace(bad_dim.find("\"9000\""), 6, "\"-3\"");
  EXPECT_EQ(parse_error(bad_dim), "capture c.json: /calls/1/args/3/value: a dimension must be a whole number >= 0");
  std::string bad_value = text;
  bad_value.replace(bad_value.find("\"0.5\""), 5, "\"0.5); abort(\"");
  EXPECT_EQ(parse_error(bad_value), "capture c.json: /calls/1/args/4/value: not a number or true/false");
  std::string bad_extent = text;
  bad_extent.replace(bad_extent.find("5000"), 4, "0");
  EXPECT_EQ(parse_error(bad_extent), "capture c.json: /calls/0/args/0/elements: a buffer's extent must be a positive integer");
}

TEST(CaptureHarness, ExtentsRangesAndValuesComeFromTheRecordedCalls) {
  HarnessDraft d = synthesize_harness(parse_capture(kGather, "g.json"));
  EXPECT_EQ(d.file_name, "gather_harness.cu");
  EXPECT_TRUE(has(d.text, "void gather(const float * table, const int * index, float * out, int n, float scale, "
                          "cudaStream_t stream);"));
  EXPECT_TRUE(has(d.text, "namespace ops {"));
  // Largest first; the table's extent is a dimension of its own.
  EXPECT_TRUE(has(d.text, "h.size(\"call1\", {{\"table_elements\", 70000}, {\"n\", 9000}})")) << d.text;
  EXPECT_TRUE(has(d.text, ".size(\"call0\", {{\"table_elements\", 5000}, {\"n\", 100}})"));
  EXPECT_FALSE(has(d.text, "validation_size"));  // two calls: both timed
  EXPECT_TRUE(has(d.text, ".input(\"table\", DType::f32, {\"table_elements\"}, Distribution::normal(0, 1))"));
  EXPECT_TRUE(has(d.text, ".input(\"index\", DType::i32, {\"n\"}, Distribution::integers(3, 4999))"));  // what every call held
  // Written by the calls: inout, starting from seeded values (a launcher may read it first).
  EXPECT_TRUE(has(d.text, ".inout(\"out\", DType::f32, {\"n\"}, Distribution::normal(0, 1))")) << d.text;
  EXPECT_TRUE(has(d.text, "ops::gather("));
  EXPECT_TRUE(kernelblaster::harness_launchers(d.text).empty());  // one launcher: nothing to choose among
  EXPECT_TRUE(has(d.text, "static_cast<float>(0.5)"));  // the largest call's value
  ASSERT_EQ(d.confirm.size(), 1u);
  EXPECT_TRUE(has(d.confirm[0], "'scale' differs between the recorded calls"));
}

TEST(CaptureHarness, ACallThatChangesNothingIsSaidAndDuplicatesCountOnce) {
  std::string text = kGather;
  for (std::size_t at; (at = text.find(", \"written\": true")) != std::string::npos;) text.erase(at, 17);
  Capture c = parse_capture(text, "g.json");
  c.calls.push_back(c.calls[0]);
  HarnessDraft d = synthesize_harness(c);
  EXPECT_TRUE(has(d.text, "from 3 recorded call(s), 2 distinct"));
  EXPECT_TRUE(has(d.text, ".input(\"out\""));
  EXPECT_TRUE(has(d.confirm.front(), "no recorded call changed any buffer"));
}

// Issue 27: a source with two launchers gets one harness that calls both,
// so a change to the source (its flags, its macros) is verified on every
// kernel it touches; names are prefixed per launcher, sizes merged, and a
// launcher that returns its result has that result as an output.
TEST(CaptureHarness, EveryRecordedLauncherOfASourceIsCalledInOneHarness) {
  Capture gather = parse_capture(kGather, "g.json");
  const char* kSum = R"({"format": "kernelblaster-capture-1", "source": "src/gather.cu",
    "launcher": {"name": "sum_of_squares", "return_type": "float", "params": [
      {"name": "x", "type": "const float *", "kind": "buffer", "element": "f32"},
      {"name": "n", "type": "int", "kind": "dim"}]},
    "calls": [{"args": [{"elements": 4096}, {"value": "4096"}]}]})";
  Capture sum = parse_capture(kSum, "s.json");
  HarnessDraft d = synthesize_harness(std::vector<Capture>{gather, sum});
  EXPECT_EQ(d.file_name, "gather_harness.cu");
  EXPECT_TRUE(has(d.text, "Harness h(\"gather\");")) << d.text;
  EXPECT_TRUE(has(d.text, "void gather(const float * table")) << d.text;
  EXPECT_TRUE(has(d.text, "float sum_of_squares(const float * x, int n);")) << d.text;
  // Size 0: gather's largest call and sum_of_squares' only one; size 1: gather's next, sum's again.
  EXPECT_TRUE(has(d.text, "h.size(\"size0\", {{\"gather_table_elements\", 70000}, {\"gather_n\", 9000}, "
                          "{\"sum_of_squares_n\", 4096}})")) << d.text;
  EXPECT_TRUE(has(d.text, ".size(\"size1\", {{\"gather_table_elements\", 5000}, {\"gather_n\", 100}, "
                          "{\"sum_of_squares_n\", 4096}})")) << d.text;
  EXPECT_TRUE(has(d.text, ".inout(\"gather_out\", DType::f32, {\"gather_n\"}")) << d.text;
  EXPECT_TRUE(has(d.text, ".input(\"sum_of_squares_x\", DType::f32, {\"sum_of_squares_n\"}")) << d.text;
  EXPECT_TRUE(has(d.text, ".output(\"sum_of_squares_returned\", DType::f32, {1})")) << d.text;
  EXPECT_TRUE(has(d.text, "c.in<float>(\"gather_table\")")) << d.text;
  EXPECT_TRUE(has(d.text, "const auto kb_returned_1 = sum_of_squares(")) << d.text;
  EXPECT_TRUE(has(d.text, "c.out<float>(\"sum_of_squares_returned\")")) << d.text;
  EXPECT_TRUE(has(d.text, "Every recorded launcher")) << d.text;
  // Each launcher's buffers and call stand under its bit of the mask a
  // tuner builds with to judge one launcher alone (common/launcher_mask.h).
  EXPECT_EQ(kernelblaster::harness_launchers(d.text), (std::vector<std::string>{"gather", "sum_of_squares"})) << d.text;
  EXPECT_TRUE(has(d.text, "  if (kb_runs(1))\n    h.input(\"sum_of_squares_x\"")) << d.text;
  EXPECT_TRUE(has(d.text, "gives it\n")) << d.text;  // a buffer line's comment ends it, not the statement
  EXPECT_FALSE(has(d.text, "gives it;")) << d.text;
  EXPECT_TRUE(has(d.text, "        if (kb_runs(0)) {\n          ops::gather(")) << d.text;
  ASSERT_FALSE(d.confirm.empty());
  EXPECT_TRUE(has(d.confirm[0], "gather: 'scale' differs")) << d.confirm[0];
}

// A program that allocates its largest buffers once and calls with sizes
// from small to large (SGEMM_CUDA: M = N = K from 128 to 4096 on 4096^2
// matrices): the timed sizes are the calls with the most work, not the first
// recorded, and every other call validates, largest first.
TEST(CaptureHarness, EqualBuffersAreTimedByTheirDimensions) {
  const std::string gemm = R"({"format": "kernelblaster-capture-1", "source": "src/gemm.cu",
  "launcher": {"name": "gemm", "namespaces": [], "return_type": "void", "params": [
    {"name": "M", "type": "int", "kind": "dim"},
    {"name": "A", "type": "float *", "kind": "buffer", "element": "f32"},
    {"name": "C", "type": "float *", "kind": "buffer", "writable": true, "element": "f32"}]},
  "calls": [
    {"args": [{"value": "128"}, {"elements": 16777216}, {"elements": 16777216, "written": true}]},
    {"args": [{"value": "256"}, {"elements": 16777216}, {"elements": 16777216, "written": true}]},
    {"args": [{"value": "4096"}, {"elements": 16777216}, {"elements": 16777216, "written": true}]},
    {"args": [{"value": "2048"}, {"elements": 16777216}, {"elements": 16777216, "written": true}]}]})";
  HarnessDraft d = synthesize_harness(parse_capture(gemm, "g.json"));
  EXPECT_TRUE(has(d.text, "h.size(\"call2\", {{\"M\", 4096}")) << d.text;
  EXPECT_TRUE(has(d.text, ".size(\"call3\", {{\"M\", 2048}")) << d.text;
  EXPECT_TRUE(has(d.text, ".validation_size(\"call1\", {{\"M\", 256}")) << d.text;
  EXPECT_TRUE(has(d.text, ".validation_size(\"call0\", {{\"M\", 128}")) << d.text;
  EXPECT_LT(d.text.find("\"call1\""), d.text.find("\"call0\""));
}

// A program with more distinct calls than a harness validates: 16 of them,
// spread from the largest to the smallest, and the rest named.
TEST(CaptureHarness, ManyDistinctCallsAreValidatedSpreadOverTheirRange) {
  std::string gemm = R"({"format": "kernelblaster-capture-1", "source": "src/gemm.cu",
  "launcher": {"name": "gemm", "namespaces": [], "return_type": "void", "params": [
    {"name": "M", "type": "int", "kind": "dim"},
    {"name": "C", "type": "float *", "kind": "buffer", "writable": true, "element": "f32"}]},
  "calls": [)";
  for (int m = 1; m <= 40; ++m)
    gemm += std::string(m > 1 ? "," : "") + "{\"args\": [{\"value\": \"" + std::to_string(m * 8) +
            "\"}, {\"elements\": 1048576, \"written\": true}]}";
  gemm += "]}";
  HarnessDraft d = synthesize_harness(parse_capture(gemm, "g.json"));
  std::size_t validations = 0;
  for (std::size_t at = d.text.find(".validation_size("); at != std::string::npos;
       at = d.text.find(".validation_size(", at + 1))
    ++validations;
  EXPECT_EQ(validations, 16u);
  EXPECT_TRUE(has(d.text, ".validation_size(\"call37\", {{\"M\", 304}")) << d.text;  // the largest untimed
  EXPECT_TRUE(has(d.text, ".validation_size(\"call0\", {{\"M\", 8}")) << d.text;    // the smallest
  bool named = false;
  for (const std::string& c : d.confirm) named = named || has(c, "22 of 40 distinct recorded calls are not run");
  EXPECT_TRUE(named);
}
