// Finding libtorch: what Python's torch said is remembered per work
// directory, so a KernelBench candidate does not pay for `import torch`
// (seconds) on every evaluation. A stand-in python3 on PATH counts how
// often it is asked.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "common/file_util.h"
#include "kernelbench/torch_locate.h"

namespace kernelblaster::kernelbench {
namespace {

namespace fs = std::filesystem;

struct FakeTorch {
  fs::path dir, root, bin, calls, remembered;
  std::string old_path;
  FakeTorch() {
    dir = fs::temp_directory_path() / ("kb_torch_locate_" + std::to_string(::getpid()));
    fs::remove_all(dir);
    root = dir / "site" / "torch";
    for (const char* f : {"share/cmake/Torch/TorchConfig.cmake", "lib/libtorch.so", "lib/libtorch_cuda.so",
                          "include/torch/csrc/api/include/torch/torch.h"}) {
      fs::create_directories((root / f).parent_path());
      // Like recent wheels, the config does not say the ABI: Python is asked for it too.
      write_file((root / f).string(), "");
    }
    calls = dir / "calls";
    remembered = dir / "work" / "build" / "torch.txt";
    bin = dir / "bin";
    python(bin, "python");
    old_path = std::getenv("PATH") ? std::getenv("PATH") : "";
    ::setenv("PATH", (bin.string() + ":" + old_path).c_str(), 1);
    ::unsetenv("KERNELBLASTER_TORCH_PREFIX");
  }
  ~FakeTorch() {
    ::setenv("PATH", old_path.c_str(), 1);
    fs::remove_all(dir);
  }
  // A python3 that answers torch.utils.cmake_prefix_path and counts the question.
  void python(const fs::path& where, const std::string& tag) {
    fs::create_directories(where);
    write_file((where / "python3").string(),
               "#!/bin/sh\necho " + tag + " >> " + calls.string() + "\n" +
                   "case \"$2\" in *ABI*) printf 0 ;; *) printf %s " + (root / "share" / "cmake").string() + " ;; esac\n");
    fs::permissions(where / "python3", fs::perms::owner_all);
  }
  int asked() const {
    std::string text;
    if (!read_file_if_present(calls.string(), &text)) return 0;
    int n = 0;
    for (char c : text) n += c == '\n';
    return n;
  }
};

TEST(TorchLocate, PythonIsAskedOncePerWorkDirectory) {
  FakeTorch t;
  TorchInstall a, b;
  std::string why;
  ASSERT_TRUE(locate_torch("", 10, &a, &why, t.remembered.string())) << why;
  EXPECT_EQ(a.root, t.root.string());
  EXPECT_EQ(a.cxx11_abi, 0);  // Python's answer, not the default
  EXPECT_EQ(t.asked(), 2);    // the prefix, then the ABI
  ASSERT_TRUE(locate_torch("", 10, &b, &why, t.remembered.string())) << why;
  EXPECT_EQ(b.root, a.root);
  EXPECT_EQ(b.cxx11_abi, 0);
  EXPECT_EQ(t.asked(), 2) << "the second call asked Python again";
  // Without a file to remember in, Python is asked every time.
  ASSERT_TRUE(locate_torch("", 10, &b, &why));
  EXPECT_EQ(t.asked(), 4);
}

TEST(TorchLocate, AnotherPythonOrAVanishedInstallIsAskedAgain) {
  FakeTorch t;
  TorchInstall a;
  std::string why;
  ASSERT_TRUE(locate_torch("", 10, &a, &why, t.remembered.string())) << why;
  EXPECT_EQ(t.asked(), 2);
  // Another python3 first on PATH (a venv activated): asked again.
  t.python(t.dir / "venv" / "bin", "venv");
  ::setenv("PATH", ((t.dir / "venv" / "bin").string() + ":" + std::getenv("PATH")).c_str(), 1);
  ASSERT_TRUE(locate_torch("", 10, &a, &why, t.remembered.string())) << why;
  EXPECT_EQ(t.asked(), 4);
  // The install gone: the remembered answer is not trusted, Python is asked
  // and the failure says why.
  fs::remove(t.root / "lib" / "libtorch.so");
  EXPECT_FALSE(locate_torch("", 10, &a, &why, t.remembered.string()));
  EXPECT_EQ(t.asked(), 5);
  EXPECT_NE(why.find("libtorch.so"), std::string::npos) << why;
}

}  // namespace
}  // namespace kernelblaster::kernelbench
