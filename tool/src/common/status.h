// How a try of a candidate ended, typed: the judge's Status, and for a
// try that may end before any judging (an LLM rewrite), how the attempt
// ended. Shared by every room (the harness runtime reports a Status, the
// search and optimize loops and the policy seam carry both); named only at
// the edges: JSON, Lua, the command line.
#pragma once

#include <string>

namespace kernelblaster {

enum class Status {
  ok,
  compile_failed,      // nvcc rejected the candidate
  launch_failed,       // bad launch configuration, too many resources, no image for this GPU
  crashed,             // the process died (signal, illegal address, abort)
  timed_out,           // the process ran past its deadline and was killed
  out_of_memory,       // the process (with what it started) held more memory than allowed, and was killed
  wrong_result,        // outputs differ from the reference beyond tolerance
  inaccurate,          // close to the reference but outside tolerance (lowered precision)
  unwritten_output,    // some output elements kept the poison the runtime wrote
  input_modified,      // an input's checksum changed across the run
  out_of_bounds,       // the call wrote outside the buffers it was given (the guard bytes around one changed)
  nondeterministic,    // the same seed gave different answers
  cached_result,       // answers or timing depend on earlier calls, not on the inputs
  copied_answer,       // an output copied from memory the launcher was not given (isolation's pattern in it)
  untimed_work,        // GPU work escaped the timed region (other stream or thread)
  harness_error,       // the harness itself is misused (wrong dtype, unknown buffer)
  reference_failed,    // the original source failed: nothing to compare against
  no_gpu,              // nothing could run here
  tool_error,          // the tool could not measure (a measurer's own failure, not the candidate's)
  not_recorded,        // a recorded run (replay) has no result for this configuration
  forbidden_code,      // an untrusted candidate's object calls, defines or adds what it may not (judge/object_bound.h)
  process_tampered,    // the candidate's process changed its environment or signal handlers beyond the original's, or its report is not the plan's account
};

const char* status_name(Status s);
// Parses a name back; returns false for an unknown name.
bool status_from_name(const std::string& name, Status* out);
// The status a document names, read on arrival; `unknown` for a name this
// tool does not know (a reader never compares the names themselves).
Status status_named(const std::string& name, Status unknown);

// How one attempt ended: judged (verified or rejected, the Status says
// why), or before the judge.
enum class AttemptEnd {
  verified,       // the judge verified it
  llm_failed,     // the request failed
  no_code,        // the reply held no usable candidate
  static_check,   // the written code broke a rule before it was compiled
  rejected,       // the judge rejected it (the Status says why)
  not_attempted,  // nothing was tried (a step whose attempts never started)
};
const char* attempt_end_name(AttemptEnd end);
// The ending a document names; `unknown` for a name this tool does not know.
AttemptEnd attempt_end_named(const std::string& name, AttemptEnd unknown);

// What a try teaches the KB, in both loops (the tuner's KB bridge and the
// optimize loop's steps): whether its ending says something about the
// candidate, its technique or its settings. An environment's failure says
// nothing: no GPU, the tool's own failure, a harness that is misused, an
// original that failed, a replay without the configuration; nor does a
// request that never reached the model. Everything else (verified, or
// rejected for what the code does, a refused object and a broken rule
// included) is a success or a failure of the technique.
bool judges_the_candidate(Status status);
bool teaches_kb(AttemptEnd end, Status status);

// The one name of an outcome at the edges: the Status's name for a judged
// attempt ("ok", "wrong_result", ...), else the end's ("llm_failed", ...).
std::string outcome_name(AttemptEnd end, Status status);

}  // namespace kernelblaster
