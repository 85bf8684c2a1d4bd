// Showing text that came from outside (a policy's return value, a reply, a
// file) inside a one-line message.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kernelblaster {

// `text` in single quotes, cut to at most `max_chars` characters of the
// original (then "..."), with line breaks, control bytes, quotes and bytes
// outside ASCII escaped (\n, \t, \', \xNN): the result is always one
// printable line, whatever the input holds.
std::string quoted_excerpt(std::string_view text, std::size_t max_chars = 60);

// `v` with exactly `digits` digits after the point ("1.250").
std::string fixed_point(double v, int digits);

// `v` with at most `significant` significant digits, as printf's %g
// writes it ("0.5", "1e+06").
std::string general_number(double v, int significant = 6);

// A speedup as the tool prints it: two decimals and an x ("1.43x").
std::string speedup_text(double x);

// A size in binary units: "9.1 GiB" from 1 GiB up, else "312 MiB".
std::string bytes_text(std::uint64_t bytes);

// The parts in order with `separator` between them ("a, b, c").
std::string joined(const std::vector<std::string>& parts, const std::string& separator = ", ");

}  // namespace kernelblaster
