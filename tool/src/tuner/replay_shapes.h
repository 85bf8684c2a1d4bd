// A harness that replays a program's recorded kernel launches
// (harness/kernel_capture.h) launches each kernel with the grid and block the
// program used. That hides every tunable that shapes a launch: a candidate
// with another tile would still get the original's grid. Where the source's
// own launch of a recorded kernel can be read (`kernel<<<grid, threads>>>(
// d_out, d_in, size_x, size_y)` in main(), `dim3 grid(size_x / TILE_DIM,
// size_y / TILE_DIM), threads(TILE_DIM, BLOCK_ROWS)` above it), its grid,
// block and dynamic shared bytes become expressions of the tunables, of
// constants, and of the values the launch passes to the kernel (which the
// harness has, as recorded). The expressions must give every recorded
// call's shape with the original's values; then the harness's launcher
// computes its shape with them, so a candidate is launched as the program
// would launch it, and a candidate's values reach the harness as -D
// definitions as well as in its source.
//
// A tunable is searched through such a harness only when every launch it
// shapes is one of those, no kernel it reaches was left unrecorded, and no
// argument the launch passes reads it (the harness passes the recorded
// values). The rest stay as written, each with the reason.
#pragma once

#include <string>
#include <vector>

#include "tuner/launch_tunables.h"

namespace kernelblaster::tuner {

struct ReplayShapes {
  std::string harness;                // the harness with its launchers reshaped; "" when none was
  std::vector<std::string> tunables;  // the tunables it follows: searched, and passed with -D too
  std::vector<std::string> reshaped;  // "copy (line 537)": a launcher shaped by the source's launch
  std::vector<std::string> notes;     // a launcher left as recorded, or a tunable left as written, and why
};

ReplayShapes reshape_replayed_launches(const std::string& harness_text, const std::string& source_text,
                                       const std::string& source_file, const LaunchTunables& found,
                                       const std::vector<std::string>& include_dirs);

// The same for a source the tuner wrote (its `#define NAME VALUE` lines,
// then the copy of the original): the harness its gates must run it with,
// and the definitions ("NAME=VALUE") that give that harness the tuned
// values. Empty when the harness replays nothing the tuned values shape.
struct TunedShapes {
  std::string harness;
  std::vector<std::string> definitions;
};
TunedShapes shapes_for_tuned(const std::string& harness_text, const std::string& source_text,
                             const std::string& source_file, const std::string& tuned_text,
                             const std::vector<std::string>& include_dirs);

}  // namespace kernelblaster::tuner
