// A Document as Markdown, the same content as the HTML page: a chart
// becomes a table of its points (a staircase only where it steps), a strip
// the count of each colour, a side-by-side view a unified diff.
#pragma once

#include <string>

#include "report/document.h"

namespace kernelblaster::report {

std::string to_markdown(const Document& doc);

}  // namespace kernelblaster::report
