// Counted `for` loops in a kernel's text: `for (var = init; var OP bound;
// var += step)` where the body never writes `var`. The unroll-factor rewrite
// (kernel_rewrites.h) reads their trip counts; the launch site's constraints
// (launch_tunables.h) read their steps, since a step a configuration folds
// to 0 never ends.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>

namespace kernelblaster::tuner {

struct CountedLoop {
  std::size_t at = 0;  // the `for`
  std::string var;
  std::string step_written;  // `e` of `var += e` or `var -= e` as written (`strideA`); "" for ++ and --
  std::optional<long long> trips;  // where the names of `env` fix it
};

// The loop at `at` (a `for` in code with comments and strings masked) when
// it is counted; its trip count where `env` (name -> expression) fixes it.
std::optional<CountedLoop> counted_loop(const std::string& code, std::size_t at,
                                        const std::map<std::string, std::string>& env);

// The integer `expr` comes to with the names of `env`; none where a name stays unknown.
std::optional<long long> integer_of(const std::string& expr, const std::map<std::string, std::string>& env);

}  // namespace kernelblaster::tuner
