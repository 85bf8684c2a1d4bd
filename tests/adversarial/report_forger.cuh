// The exit handler of the report-forging hostile candidates (native
// forges_report_at_exit.cu, KernelBench relu_forges_report_at_exit.cu):
// rewrites report.json in the working directory, dividing every timing in
// it ("..._ns": value) by 2.6.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

static void forge_report() {
  std::FILE* f = std::fopen("report.json", "rb");
  if (!f) return;
  std::string text, out;
  char buf[4096];
  for (size_t got; (got = std::fread(buf, 1, sizeof buf, f)) > 0;) text.append(buf, got);
  std::fclose(f);
  for (size_t pos = 0;;) {
    const size_t key = text.find("_ns\":", pos);
    if (key == std::string::npos) {
      out += text.substr(pos);
      break;
    }
    size_t start = key + 5, end = start;
    while (end < text.size() && std::strchr("0123456789.eE+-", text[end])) ++end;
    out += text.substr(pos, start - pos) + std::to_string(std::atof(text.substr(start, end - start).c_str()) / 2.6);
    pos = end;
  }
  if ((f = std::fopen("report.json", "wb"))) {
    std::fwrite(out.data(), 1, out.size(), f);
    std::fclose(f);
  }
}
