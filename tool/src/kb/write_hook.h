// A test seam of save_kb: tests slow writes down to kill a writer in the
// middle of one. Null (and unused) in the tool.
#pragma once

namespace kernelblaster::kb::detail {

// Called after each chunk (kWriteChunk bytes) that save_kb writes.
extern void (*write_chunk_hook)();
inline constexpr unsigned long kWriteChunk = 64 * 1024;

}  // namespace kernelblaster::kb::detail
