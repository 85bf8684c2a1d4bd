#include "runtime/gpu_lock.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

namespace kernelblaster {
namespace {

TEST(GpuLock, SecondHolderWaitsThenGetsIt) {
  std::string dir = (std::filesystem::temp_directory_path() / ("kb-lock-" + std::to_string(::getpid()))).string();
  GpuLock first, second;
  std::string why;
  ASSERT_TRUE(first.acquire(dir, "GPU-test", 1.0, &why)) << why;
  // flock belongs to the open file: a second open, even in this process, must wait.
  EXPECT_FALSE(second.acquire(dir, "GPU-test", 0.2, &why));
  EXPECT_NE(why.find("GPU busy"), std::string::npos) << why;
  GpuLock other_gpu;
  EXPECT_TRUE(other_gpu.acquire(dir, "GPU-other", 0.2, &why)) << why;
  first.release();
  EXPECT_TRUE(second.acquire(dir, "GPU-test", 1.0, &why)) << why;
  std::filesystem::remove_all(dir);
}

TEST(GpuLock, UnusableDirectoryIsAReasonNotACrash) {
  GpuLock lock;
  std::string why;
  EXPECT_FALSE(lock.acquire("/proc/kernelblaster-no-such-dir", "GPU-x", 0.1, &why));
  EXPECT_NE(why.find("cannot open GPU lock"), std::string::npos) << why;
}

}  // namespace
}  // namespace kernelblaster
