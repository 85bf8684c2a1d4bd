// Lockfiles (committed by users, merged by hand) and results-cache entries.
#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "build_step/lockfile.h"
#include "build_step/result_json.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::string path = "/tmp/kb-fuzz-lockfile-" + std::to_string(::getpid()) + ".json";
  kernelblaster::fuzz::expect_one_line(data, size, [](const std::string& t) {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << t;
    kernelblaster::build_step::read_lockfile(path);
  });
  kernelblaster::fuzz::expect_one_line(data, size, [](const std::string& t) {
    kernelblaster::build_step::result_from_json(nlohmann::json::parse(t), "entry.json");
  });
  return 0;
}
