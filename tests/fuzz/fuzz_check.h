// What every libFuzzer target of the tool checks: a parser either accepts
// the input or refuses it with a std::exception whose message is one
// non-empty line. Anything else (a crash, another exception type, a
// sanitizer report, a message the build line could not print) aborts, and
// libFuzzer keeps the input.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

namespace kernelblaster::fuzz {

template <class Parse>
void expect_one_line(const std::uint8_t* data, std::size_t size, Parse parse) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    parse(text);
  } catch (const std::exception& x) {
    const std::string what = x.what();
    if (what.empty() || what.find('\n') != std::string::npos) {
      std::fprintf(stderr, "refused with a message that is not one line: [%s]\n", what.c_str());
      std::abort();
    }
  }
}

}  // namespace kernelblaster::fuzz
