// What a kernel's vector accesses need of its tunables (tuner/vector_alignment.h).
#include "tuner/vector_alignment.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <sstream>

#include "tuner/launch_tunables.h"
#include "tuner/directives.h"

using namespace kernelblaster::tuner;

namespace {

// Names as a kernel's template parameters and the constants derived from
// them would read: TN, WN, WNITER, TILE and SUB (= WN / WNITER) are known
// at compile time; n and ld are the kernel's arguments.
AlignmentNames names() {
  static const std::set<std::string> tunables = {"TN", "WN", "WNITER", "TILE", "SUB"};
  auto compile_time = [](const std::string& e) {
    std::string id;
    for (char c : e + " ") {
      if (std::isalnum(static_cast<unsigned char>(c)) || c == '_') {
        id += c;
        continue;
      }
      if (!id.empty() && !std::isdigit(static_cast<unsigned char>(id[0])) && !tunables.count(id)) return false;
      id.clear();
    }
    return true;
  };
  AlignmentNames n;
  n.compile_time = compile_time;
  n.tunable = [](const std::string& e) {
    return std::any_of(tunables.begin(), tunables.end(), [&](const std::string& t) { return e.find(t) != std::string::npos; });
  };
  n.problem = [](const std::string& name) { return name == "n" || name == "ld" || name == "row_base"; };
  return n;
}

std::string needs_of(const std::string& body, const std::string& signature) {
  std::ostringstream out;
  for (const AlignmentNeed& need : vector_alignment_needs(body, signature, names()))
    out << need.expr << " % " << need.elements << "; ";
  return out.str();
}

}  // namespace

// A warp-tiled epilogue as SGEMM tutorials write it: the tile pointer moved
// by a sub-tile's width, then four floats at a time per thread.
TEST(VectorAlignment, ATileWidthThatFeedsAFloat4AccessMustBeAMultipleOfFour) {
  const std::string signature = "int n, int ld, float* out";
  const std::string body = R"(
  const int lane = threadIdx.x % 32;
  const int col = lane % (SUB / TN);
  out += blockIdx.x * WN;
  for (int s = 0; s < WNITER; ++s) {
    float* tile = out + s * SUB;
    for (int r = 0; r < 8; ++r)
      for (int i = 0; i < TN; i += 4) {
        float4 v = reinterpret_cast<float4*>(&tile[(lane / 4 + r) * ld + col * TN + i])[0];
        reinterpret_cast<float4*>(&tile[(lane / 4 + r) * ld + col * TN + i])[0] = v;
      }
  })";
  EXPECT_EQ(needs_of(body, signature), "(TN) % 4; (SUB) % 4; (WN) % 4; ")
      << "the row term times ld (an argument) asks nothing";
}

TEST(VectorAlignment, ProblemValuesAndConstantFactorsAskNothing) {
  // Four floats a thread at a multiple of four, rows of an argument's length.
  EXPECT_EQ(needs_of("float4 v = reinterpret_cast<const float4*>(&a[threadIdx.y * n + threadIdx.x * 4])[0];",
                     "const float* a, int n"),
            "");
  // A local computed from an argument is a problem value too.
  EXPECT_EQ(needs_of("const int row_base = blockIdx.x * n; "
                     "float2 v = *reinterpret_cast<const float2*>(&a[row_base * TILE + threadIdx.x * 2]);",
                     "const float* a, int n"),
            "");
  // A run-time division in a term: not read.
  EXPECT_EQ(needs_of("float4 v = reinterpret_cast<float4*>(&a[(threadIdx.x / 3) % TILE])[0];", "float* a"), "");
}

TEST(VectorAlignment, TheWidthIsInTheArraysElementsAndCStyleCastsCount) {
  // Eight halves to a float4; a float array's float2 is two.
  EXPECT_EQ(needs_of("float4 v = *(float4*)(&h[threadIdx.x * TILE]);", "const __half* h"), "(TILE) % 8; ");
  EXPECT_EQ(needs_of("__shared__ float s[256]; float2 v = *reinterpret_cast<float2*>(s + threadIdx.x * TN);", ""),
            "(TN) % 2; ");
  // A cast to a scalar pointer asks nothing.
  EXPECT_EQ(needs_of("float v = *reinterpret_cast<float*>(&a[threadIdx.x * TN]);", "float* a"), "");
}

// Through the discovery of a launch's tunables: the kernel's float4 store
// becomes a constraint of the launch site, in the tunables' names, and the
// original's values satisfy it.
TEST(VectorAlignment, TheLaunchSiteGetsTheConstraintInTheTunablesNames) {
  const std::string text = R"(#include <cuda_runtime.h>
template <int PER_THREAD>
__global__ void store_rows(float* out, int n) {
  const int col = threadIdx.x * PER_THREAD;
  for (int i = 0; i < PER_THREAD; i += 4)
    reinterpret_cast<float4*>(&out[blockIdx.x * n + col + i])[0] = make_float4(1, 2, 3, 4);
}

void launch_rows(float* out, int rows, int n) {
  const int PER_THREAD = 8;
  store_rows<PER_THREAD><<<rows, n / PER_THREAD>>>(out, n);
}
)";
  LaunchTunables l = find_launch_tunables(text, "/src/k.cu", parse_directives(text, "/src/k.cu", "sm_90"), {});
  ASSERT_EQ(l.sites.size(), 1u);
  std::string name;
  for (const FoundTunable& t : l.tunables)
    if (t.written_as == "PER_THREAD") name = t.tunable.name;
  ASSERT_FALSE(name.empty());
  const auto& c = l.sites[0].constraints;
  EXPECT_TRUE(std::any_of(c.begin(), c.end(),
                          [&](const std::string& s) { return s.find(name) != std::string::npos && s.find("% 4 == 0") != std::string::npos; }))
      << ::testing::PrintToString(c);
}
