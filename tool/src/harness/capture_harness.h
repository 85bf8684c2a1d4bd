// A native harness synthesized from a capture (capture.h): the calls the
// program really made decide the sizes, every buffer's extent and which
// buffers are outputs; nothing is guessed from names as `harness init` must.
//
// Sizes: the distinct recorded calls, largest first by bytes: the two
// largest are timed, and every other one is a validation size (at most 16,
// spread from the largest to the smallest): a winner is checked at every
// shape the program used. Dimensions are the launcher's integer arguments as recorded; a
// buffer's shape is the product of those that gives its recorded extent in
// every call, else a dimension of its own ("<buffer>_elements"). Inputs are
// fresh seeded values of the recorded types (integers within the range
// every call held); a buffer any call changed is an inout: it starts from
// seeded values, as a launcher may read it before it writes (C = alpha*A*B
// + beta*C; started poisoned, the original read NaN and answered NaN, which
// every candidate's NaN matched: SGEMM_CUDA, issue 38), and it is compared
// with the original launcher's at the element type's default tolerance. A
// candidate that leaves part of it unwritten keeps the start values there,
// which differ from what the original wrote.
// Scalars take their recorded value. What could not be decided is listed in `confirm`.
#pragma once

#include <string>
#include <vector>

#include "harness/capture.h"
#include "harness/harness_writer.h"

namespace kernelblaster::harness {

HarnessDraft synthesize_harness(const Capture& capture);

// One harness for every recorded launcher of one source, so that every
// kernel a change to the source touches runs in it: dimensions and buffers
// take their launcher's name as a prefix ("first_n"), size k takes each
// launcher's k-th largest call, and the launch calls each launcher in turn.
// One capture gives what synthesize_harness(capture) gives.
HarnessDraft synthesize_harness(const std::vector<Capture>& captures);

// The same, where some captures are kernel-level (kernel_capture.h):
// `definitions[i]` is the definition of captures[i]'s launcher, empty for a
// launcher of the source. Written buffers are inouts here too, and a
// floating-point buffer with a recorded range gets uniform values in it.
HarnessDraft synthesize_harness(const std::vector<Capture>& captures, const std::vector<std::string>& definitions);

}  // namespace kernelblaster::harness
