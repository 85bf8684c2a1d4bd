// The report of a build tree that uses kernelblaster_optimize(): per target
// and source, what the last build step compiled and why (the step's record,
// build_step/build_record.h), every GPU's result for the source from the results
// cache and the lockfile, and the CTest gates' last verdicts.
#pragma once

#include <string>

#include "report/document.h"

namespace kernelblaster::report {

// A build tree: CMake's CMakeCache.txt is there.
bool is_build_tree(const std::string& dir);

// Never throws for what it finds in the tree: a record, cache entry,
// lockfile or gate verdict it cannot read is said in the page.
Document build_report(const std::string& dir);

}  // namespace kernelblaster::report
