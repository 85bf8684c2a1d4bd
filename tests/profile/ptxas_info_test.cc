#include "profile/ptxas_info.h"

#include <gtest/gtest.h>

namespace kernelblaster::profile {
namespace {

// Real `nvcc -arch=sm_90 -Xptxas -v -maxrregcount=16` output (CUDA 13.0).
const char* kSm90 = R"(ptxas warning : For profile sm_90 adjusting per thread register count of 16 to lower bound of 24
ptxas info    : Overriding maximum register limit 256 for '_Z5lightPf' with  24 of maxrregcount option
ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function '_Z5lightPf' for 'sm_90'
ptxas info    : Function properties for _Z5lightPf
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 10 registers, used 0 barriers
ptxas info    : Compile time = 1.965 ms
ptxas info    : Compiling entry function '_Z5heavyPfPKfi' for 'sm_90'
ptxas info    : Function properties for _Z5heavyPfPKfi
    256 bytes stack frame, 40 bytes spill stores, 24 bytes spill loads
ptxas info    : Used 24 registers, used 1 barriers, 256 bytes cumulative stack size, 1024 bytes smem
ptxas info    : Compile time = 42.732 ms
)";

// The older format, with lmem and constant banks on the "Used" line.
const char* kOld = R"(ptxas info    : Compiling entry function '_Z6kernelPf' for 'sm_70'
ptxas info    : Function properties for _Z6kernelPf
    8 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads
ptxas info    : Used 63 registers, 16 bytes lmem, 2048 bytes smem, 360 bytes cmem[0], 8 bytes cmem[2]
nvcc warning : something unrelated
)";

TEST(Ptxas, ParsesRegistersSpillsSmemPerKernel) {
  auto facts = parse_ptxas_verbose(kSm90);
  ASSERT_EQ(facts.size(), 2u);
  const PtxasFacts& light = facts.at("_Z5lightPf");
  EXPECT_EQ(light.registers, 10);
  EXPECT_EQ(light.barriers, 0);
  EXPECT_EQ(light.spill_store_bytes + light.spill_load_bytes, 0);
  EXPECT_EQ(light.arch, "sm_90");
  const PtxasFacts& heavy = facts.at("_Z5heavyPfPKfi");
  EXPECT_EQ(heavy.registers, 24);
  EXPECT_EQ(heavy.barriers, 1);
  EXPECT_EQ(heavy.stack_frame_bytes, 256);
  EXPECT_EQ(heavy.spill_store_bytes, 40);
  EXPECT_EQ(heavy.spill_load_bytes, 24);
  EXPECT_EQ(heavy.smem_bytes, 1024);
  auto m = ptxas_metrics(heavy);
  EXPECT_EQ(m.at("registers_per_thread"), 24);
  EXPECT_EQ(m.at("spill_bytes"), 64);
  EXPECT_EQ(m.at("local_mem_per_thread_bytes"), 256);
  EXPECT_EQ(m.at("static_shared_mem_bytes"), 1024);
}

TEST(Ptxas, OlderFormatLmemAndConstantBanks) {
  auto facts = parse_ptxas_verbose(kOld);
  ASSERT_EQ(facts.size(), 1u);
  const PtxasFacts& k = facts.at("_Z6kernelPf");
  EXPECT_EQ(k.registers, 63);
  EXPECT_EQ(k.stack_frame_bytes, 16);  // lmem beats the smaller stack frame
  EXPECT_EQ(k.smem_bytes, 2048);
  EXPECT_EQ(k.cmem_bytes, 368);
  EXPECT_EQ(k.spill_store_bytes, 4);
}

TEST(Ptxas, NotPtxasOutputGivesNothing) {
  EXPECT_TRUE(parse_ptxas_verbose("").empty());
  EXPECT_TRUE(parse_ptxas_verbose("error: identifier \"x\" is undefined\nUsed 12 registers\n").empty());
}

TEST(Ptxas, LastArchitectureWins) {
  std::string two = std::string(kOld) +
                    "ptxas info    : Compiling entry function '_Z6kernelPf' for 'sm_90'\n"
                    "ptxas info    : Used 40 registers, used 0 barriers\n";
  auto facts = parse_ptxas_verbose(two);
  EXPECT_EQ(facts.at("_Z6kernelPf").registers, 40);
  EXPECT_EQ(facts.at("_Z6kernelPf").arch, "sm_90");
}

}  // namespace
}  // namespace kernelblaster::profile
