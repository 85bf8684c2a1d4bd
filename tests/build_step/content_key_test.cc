#include "build_step/content_key.h"

#include <gtest/gtest.h>

#include "build_step/gpu_fingerprint.h"
#include "common/sha256.h"
#include "test_dir.h"

namespace kernelblaster::build_step {
namespace {

KeyInputs base() {
  KeyInputs k;
  k.tool_version = "0.1.0";
  k.kb_version = "kb1";
  k.nvcc_version = "nvcc 13.0";
  k.arch = "sm_90";
  k.source_text = "__global__ void f() {}";
  k.header_texts = {"#pragma once\n", "int x;\n"};
  k.definitions = {"A=1"};
  k.flags = {"-O3"};
  return k;
}

TEST(Sha256, KnownVector) {
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(ContentKey, EveryInputCounts) {
  const std::string k0 = content_key(base());
  EXPECT_EQ(k0.size(), 64u);
  EXPECT_EQ(k0, content_key(base()));
  auto changed = [&](auto edit) {
    KeyInputs k = base();
    edit(k);
    return content_key(k) != k0;
  };
  EXPECT_TRUE(changed([](KeyInputs& k) { k.tool_version = "0.2.0"; }));
  EXPECT_TRUE(changed([](KeyInputs& k) { k.kb_version = "kb2"; }));
  EXPECT_TRUE(changed([](KeyInputs& k) { k.policy_hash = "p"; }));
  EXPECT_TRUE(changed([](KeyInputs& k) { k.nvcc_version = "nvcc 13.1"; }));
  EXPECT_TRUE(changed([](KeyInputs& k) { k.arch = "sm_100"; }));
  EXPECT_TRUE(changed([](KeyInputs& k) { k.source_text += " "; }));
  EXPECT_TRUE(changed([](KeyInputs& k) { k.header_texts[1] = "int y;\n"; }));
  EXPECT_TRUE(changed([](KeyInputs& k) { k.definitions.push_back("B"); }));
  EXPECT_TRUE(changed([](KeyInputs& k) { k.flags = {"-O3", "-use_fast_math"}; }));
  EXPECT_TRUE(changed([](KeyInputs& k) { k.rewriter = "openai/gpt-x"; }));
  // Fields do not run into each other.
  EXPECT_TRUE(changed([](KeyInputs& k) { k.flags = {}; k.definitions = {"A=1", "-O3"}; }));
  // Headers count by content, in any order (paths differ between machines).
  EXPECT_FALSE(changed([](KeyInputs& k) { std::swap(k.header_texts[0], k.header_texts[1]); }));
}

TEST(ContentKey, WithoutARewriterTheKeyIsTheOneLockfilesAlreadyHold) {
  // Pinned: the key before rewriting existed. A change here invalidates every
  // committed lockfile entry.
  EXPECT_EQ(content_key(base()), "0912c674b32cb33918d75ef2eb828327e47bb210a96606fd3a9b359419b34003");
  KeyInputs k = base();
  k.rewriter = "";
  EXPECT_EQ(content_key(k), content_key(base()));
  k.rewriter = "m";
  EXPECT_NE(content_key(k), content_key(base()));
}

TEST(ScanIncludes, FollowsProjectHeadersTransitively) {
  testing::TestDir d;
  std::string src = d.write("src/k.cu", "#include \"local.cuh\"\n#include <lib/api.h>\n#include <vector>\n  #  include \"missing.h\"\n");
  std::string local = d.write("src/local.cuh", "#pragma once\n#include \"lib/api.h\"\n");
  std::string api = d.write("include/lib/api.h", "#pragma once\n#include \"detail.h\"\n");
  std::string detail = d.write("include/lib/detail.h", "#pragma once\n");
  d.write("skip/vector", "");
  auto headers = scan_includes(src, {d.path("include"), d.path("skip")}, {d.path("skip") + "/"});
  EXPECT_EQ(headers, (std::vector<std::string>{local, api, detail}));
}

TEST(ScanIncludes, DepfileEscapesSpaces) {
  EXPECT_EQ(make_depfile("out/a b.stamp", {"/x/y z.h"}), "out/a\\ b.stamp: \\\n  /x/y\\ z.h\n");
}

TEST(GpuFingerprint, IdAndSelectors) {
  GpuFingerprint gpu = testing::h200();
  EXPECT_EQ(gpu.id(), "nvidia-h200_sm90_132sm_drv13");
  EXPECT_EQ(gpu.arch(), "sm_90");
  EXPECT_EQ(gpu_match_rank(gpu, "NVIDIA H200"), 0);
  EXPECT_EQ(gpu_match_rank(gpu, "nvidia h200"), 0);
  EXPECT_EQ(gpu_match_rank(gpu, gpu.id()), 0);
  EXPECT_EQ(gpu_match_rank(gpu, "sm_90"), 1);
  EXPECT_EQ(gpu_match_rank(gpu, "90"), 1);
  EXPECT_EQ(gpu_match_rank(gpu, "90-real"), 1);
  EXPECT_EQ(gpu_match_rank(gpu, "sm_80"), -1);
  EXPECT_EQ(gpu_match_rank(gpu, "NVIDIA A100"), -1);
  EXPECT_EQ(gpu_match_rank(gpu, ""), -1);
  // The ceilings' key earlier `gpu info` printed names it too, whatever kernel driver it names.
  EXPECT_EQ(gpu_match_rank(gpu, "nvidia-h200-sm90-132sm-drv580"), 0);
  EXPECT_EQ(gpu_match_rank(gpu, "nvidia-h200-sm90-114sm-drv580"), -1);
  EXPECT_EQ(gpu_match_rank(gpu, "nvidia-h100-sm90-132sm-drv580"), -1);
  GpuFingerprint h100 = gpu;
  h100.name = "NVIDIA H100 80GB HBM3";
  EXPECT_EQ(h100.id(), "nvidia-h100-80gb-hbm3_sm90_132sm_drv13");
  EXPECT_EQ(gpu_match_rank(h100, "nvidia-h100-80gb-hbm3-sm90-132sm-drv580"), 0);
}

TEST(GpuFingerprint, ProbeWithoutGpuSaysWhy) {
  std::string why;
  auto gpu = probe_gpu_fingerprint(0, &why);
  if (gpu) GTEST_SKIP() << "a GPU is present";
  EXPECT_FALSE(why.empty());
}

}  // namespace
}  // namespace kernelblaster::build_step
