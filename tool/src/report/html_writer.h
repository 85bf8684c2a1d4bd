// A Document as one self-contained HTML page: inline CSS and inline SVG,
// no script and nothing fetched, so it reads the same with scripts off and
// offline. Charts carry their data for tests and tools: each <svg> has
// data-chart (its id) and data-points (how many), each point a <circle>
// with data-x and data-y.
#pragma once

#include <string>

#include "report/document.h"

namespace kernelblaster::report {

std::string to_html(const Document& doc);

// &, <, >, " and ' as entities.
std::string html_escape(const std::string& text);

}  // namespace kernelblaster::report
