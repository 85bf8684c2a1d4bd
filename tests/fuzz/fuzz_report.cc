// Tuning run logs as reports: any JSON either becomes a page and its
// Markdown or is refused in one line, and nothing in the log gets into the
// page unescaped (no element the log did not come from the writer).
#include <nlohmann/json.hpp>

#include "fuzz_check.h"
#include "report/html_writer.h"
#include "report/markdown_writer.h"
#include "report/tune_report.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  kernelblaster::fuzz::expect_one_line(data, size, [](const std::string& t) {
    nlohmann::json j = nlohmann::json::parse(t);
    if (!kernelblaster::report::is_tune_log(j)) return;
    kernelblaster::report::Document d = kernelblaster::report::tune_report(j, "log.json");
    const std::string html = kernelblaster::report::to_html(d);
    if (html.find("<script") != std::string::npos || html.find("<img") != std::string::npos) {
      std::fprintf(stderr, "the log put an element into the page\n");
      std::abort();
    }
    (void)kernelblaster::report::to_markdown(d);
  });
  return 0;
}
