# KernelBlaster.cmake: kernelblaster_optimize(), the one line that tunes a
# target's CUDA kernels at build time.
#
# Provided by `add_subdirectory(<kernelblaster checkout>)` and by
# `find_package(KernelBlaster)` after `cmake --install`. Both define the
# executable target KernelBlaster::kernelblaster that the build steps run.
include_guard(GLOBAL)

set(KERNELBLASTER_MODE "" CACHE STRING
  "Overrides the MODE of every kernelblaster_optimize() call: AUTO, APPLY, TUNE or OFF (empty: each call's own)")
set_property(CACHE KERNELBLASTER_MODE PROPERTY STRINGS "" AUTO APPLY TUNE OFF)
set(KERNELBLASTER_CACHE_DIR "$ENV{KERNELBLASTER_CACHE_DIR}" CACHE PATH
  "Results cache (empty: \${XDG_CACHE_HOME:-~/.cache}/kernelblaster/results)")
set(KERNELBLASTER_REMOTE_STORAGE "$ENV{KERNELBLASTER_REMOTE_STORAGE}" CACHE STRING
  "HTTP(S) server that shares tuned results between machines (GET/PUT <url>/<gpu>/<key>.json); the token comes from KERNELBLASTER_REMOTE_STORAGE_TOKEN in the environment, never from here")
set(KERNELBLASTER_TARGET_GPU "$ENV{KERNELBLASTER_TARGET_GPU}" CACHE STRING
  "GPU to build for when this machine has none (or another one): a name such as 'NVIDIA H200', or an architecture such as sm_90")
set(KERNELBLASTER_LOCKFILE "" CACHE FILEPATH
  "Lockfile of committed results (empty: kernelblaster.lock.json beside the CMakeLists.txt that calls kernelblaster_optimize())")
option(KERNELBLASTER_UPDATE_LOCKFILE
  "Record the results of tuning runs in the lockfile (FRAGMENT: in this GPU's own file beside it, kernelblaster.lock.d/)" OFF)
option(KERNELBLASTER_CTEST_GPUS
  "Gates take one GPU each through CTest's resource allocation (ctest --resource-spec-file) instead of one lock for all" OFF)
set(KERNELBLASTER_EXECUTABLE "" CACHE FILEPATH
  "A kernelblaster executable to run instead of KernelBlaster::kernelblaster (empty: the target)")
# The LLM that tuning may use: the non-secret settings only. They reach the
# build steps through each target's manifest ("L <setting> <value>" lines),
# under the environment's KERNELBLASTER_LLM_* and the command line's.
set(KERNELBLASTER_LLM_PROVIDER "" CACHE STRING
  "LLM provider: openai (also vLLM, llama.cpp, Ollama, LM Studio), anthropic or command (empty: the tool's default)")
set_property(CACHE KERNELBLASTER_LLM_PROVIDER PROPERTY STRINGS "" openai anthropic command)
set(KERNELBLASTER_LLM_BASE_URL "" CACHE STRING "LLM endpoint up to /v1 (empty: the provider's public one)")
set(KERNELBLASTER_LLM_MODEL "" CACHE STRING "LLM model name, as the provider expects it")
set(KERNELBLASTER_LLM_COMMAND "" CACHE STRING "The command provider's program (/bin/sh -c)")
set(KERNELBLASTER_LLM_TEMPERATURE "" CACHE STRING "LLM sampling temperature, 0-2 (empty: the model's default)")
set(KERNELBLASTER_LLM_MAX_TOKENS "" CACHE STRING "LLM output token limit per reply (empty: the tool's default)")
set(KERNELBLASTER_LLM_REASONING_EFFORT "" CACHE STRING "minimal, low, medium or high, for models that take one (empty: none)")
set_property(CACHE KERNELBLASTER_LLM_REASONING_EFFORT PROPERTY STRINGS "" minimal low medium high)
# A key never enters the build: given to CMake, it is dropped from the cache
# before the cache is written.
foreach(_kb_secret KERNELBLASTER_LLM_API_KEY OPENAI_API_KEY ANTHROPIC_API_KEY)
  if(DEFINED CACHE{${_kb_secret}} OR DEFINED ${_kb_secret})
    unset(${_kb_secret} CACHE)
    unset(${_kb_secret})
    message(WARNING "kernelblaster: ${_kb_secret} was given to CMake and is not kept: "
      "an LLM key is read from the environment at run time only, never from the CMake cache")
  endif()
endforeach()
if(NOT KERNELBLASTER_LLM_PROVIDER MATCHES "^(|openai|anthropic|command)$")
  message(FATAL_ERROR "kernelblaster: KERNELBLASTER_LLM_PROVIDER is '${KERNELBLASTER_LLM_PROVIDER}', not openai, anthropic or command")
endif()
if(NOT KERNELBLASTER_LLM_REASONING_EFFORT MATCHES "^(|minimal|low|medium|high)$")
  message(FATAL_ERROR "kernelblaster: KERNELBLASTER_LLM_REASONING_EFFORT is '${KERNELBLASTER_LLM_REASONING_EFFORT}', not minimal, low, medium or high")
endif()
if(NOT KERNELBLASTER_LLM_TEMPERATURE MATCHES "^(|[0-9]+(\\.[0-9]*)?|\\.[0-9]+)$" OR KERNELBLASTER_LLM_TEMPERATURE GREATER 2)
  message(FATAL_ERROR "kernelblaster: KERNELBLASTER_LLM_TEMPERATURE is '${KERNELBLASTER_LLM_TEMPERATURE}', not a number from 0 to 2")
endif()
if(NOT KERNELBLASTER_LLM_MAX_TOKENS MATCHES "^(|[1-9][0-9]*)$")
  message(FATAL_ERROR "kernelblaster: KERNELBLASTER_LLM_MAX_TOKENS is '${KERNELBLASTER_LLM_MAX_TOKENS}', not a positive integer")
endif()
foreach(_kb_llm BASE_URL MODEL COMMAND)
  if(KERNELBLASTER_LLM_${_kb_llm} MATCHES "[\r\n]")
    message(FATAL_ERROR "kernelblaster: KERNELBLASTER_LLM_${_kb_llm} holds a line break")
  endif()
endforeach()
option(KERNELBLASTER_REPORT_CONFIGURE_TIME "Print the configure time each kernelblaster_optimize() call adds" OFF)
mark_as_advanced(KERNELBLASTER_EXECUTABLE KERNELBLASTER_REPORT_CONFIGURE_TIME)

# Build steps that may tune share one Ninja pool of size 1: the engine's
# per-GPU lock already keeps timings apart, the pool keeps a parallel build
# from queueing several tuning runs (and their compiles) at once.
set_property(GLOBAL APPEND PROPERTY JOB_POOLS kernelblaster_gpu=1)

#[=======================================================================[.md:
kernelblaster_optimize
----------------------
Tunes the CUDA sources of a target at build time and compiles the tuned
versions instead of the originals.

```cmake
kernelblaster_optimize(<target>
                       [SOURCES <src>...] [HARNESS <harness.cu>...] [HARNESS_DIR <dir>]
                       [MODE AUTO|APPLY|TUNE|OFF] [BUDGET <seconds>] [MIN_SPEEDUP <x>]
                       [POLICY <file.lua>] [KB <kb.json>] [TARGET_GPU <name|id|sm_XY>]
                       [LOCKFILE <file>] [CAPTURE_TESTS <test>...] [NO_CAPTURE]
                       [NO_TESTS] [STRICT] [ALLOW_UNVERIFIED])
```

* `<target>`: a library or executable created in the same directory, with
  at least one CUDA source. Sources may still be added after the call (the
  target is processed at the end of the directory).
* `SOURCES`: the CUDA sources to optimize (default: every CUDA source of
  the target that has a harness). Relative paths are relative to the
  current source directory. Each must be a source of the target.
* `HARNESS`: native harness sources, one per source, paired in order with
  `SOURCES` (lists of equal length). With a single CUDA source, `SOURCES`
  may be left out.
* `HARNESS_DIR`: where `<stem>_harness.cu` is found for each source
  `<stem>.cu` (default: `harness/` in the current source directory, which
  need not exist). A source with no harness there is captured (below), and
  one configure line says so (with `STRICT`, it is an error).
* Capture (sources with no harness): the kernel recorder (the tool's
  `libkernelblaster_recorder.so`, loaded by the CUDA driver through
  `CUDA_INJECTION64_PATH`) records each new shape of launch of every kernel
  into `kernelblaster_generated/kernel_launches/` at the top of the build
  tree, one file per kernel, while the project's CTest tests run (ctest
  reads `kernelblaster_generated/record_kernel_launches.cmake`; the gates
  take the recorder out) or a program runs through
  `kernelblaster_generated/record`. Where libclang reads the source's host
  launchers and the build could tune next (a GPU, `MODE` AUTO or TUNE), a
  recording shim in the source's place also records their calls into
  `kernelblaster_generated/calls/<target>/<stem>.calls.jsonl`, only under
  that helper or ctest (which set `KERNELBLASTER_CAPTURE_DIR`; the shim
  holds no path): anywhere else it calls the
  original at its own speed, and a build with no GPU or in `MODE APPLY`
  compiles the original. The next build synthesizes a harness from both
  (`harness/<stem>_harness.cu` there), tunes, and compiles the tuned copy.
  `cmake --build . --target kernelblaster_harness_export` copies
  synthesized harnesses into `HARNESS_DIR` for review and commit.
* `CAPTURE_TESTS`: record only while these CTest tests run (tests added in
  the same directory, before its end): they get `KERNELBLASTER_CAPTURE_FILE`
  and the recorder in their environment, and the shims record nothing
  without it. All the target's captured sources share one file,
  `capture/calls.jsonl`.
* `NO_CAPTURE`: compile sources with no harness as they are (no shim).
* `MODE`: `AUTO` (default) tunes on a cache miss when a GPU is present;
  `APPLY` only applies cached or locked results; `TUNE` tunes even on a hit;
  `OFF` compiles the originals and adds nothing. The cache variable
  `KERNELBLASTER_MODE` overrides it for every call.
* `BUDGET`: seconds of tuning per source (default 60): the whole run, the
  original's build and profile, the search and the winner's re-verification,
  and an LLM rewrite where one is configured (the tuner gets what it left,
  at least a quarter).
* `MIN_SPEEDUP`: the least speedup a tuning result must show to be kept and
  used, and the threshold of the speed gate (default: the tuner's own
  threshold, 1.02, for results; 1.0, "not slower", for the gate).
* `POLICY`: a Lua selection policy for the tuner (part of the cache key).
* `KB`: the user knowledge base the tuner reads and updates.
* `TARGET_GPU`: the GPU to build for when this machine has no GPU or another
  one, as a name (`"NVIDIA H200"`), a fingerprint id or an architecture
  (`sm_90`). Default: `KERNELBLASTER_TARGET_GPU`, else the target's first
  CUDA architecture.
* `LOCKFILE`: the lockfile to read (default: `KERNELBLASTER_LOCKFILE`, else
  `kernelblaster.lock.json` in the current source directory).
* `NO_TESTS`: register no CTest gates.
* `ALLOW_UNVERIFIED`: tune a source with a synthesized harness even when some
  of its launchers never ran while its calls were recorded (their kernels
  then change unverified); without it such a source keeps the original, and
  its build line names those launchers.
* `STRICT`: fail the configure when a source has no harness, and the build
  when a source has no verified result for the GPU (no GPU and nothing
  cached, a tuning error). Without it the build always
  goes on with the original source and says why.

Generated files live in `${CMAKE_CURRENT_BINARY_DIR}/kernelblaster_generated/<target>/`:
`manifest.txt` (the target's compile settings, one per line, written at generate time),
and per source the compiled `<name>.cu` (it starts with a `#line` back to the
original), `<name>.cu.rsp` (nvcc flags the result needs), a stamp holding the
build step's decision as JSON, and the gates' last verdicts
(`<name>.cu.gate-correctness.json`, `<name>.cu.gate-speed.json`). From these,
every build that ran a step writes `kernelblaster_report.html` and `.md` at
the top of the build tree (target `kernelblaster_report`, in ALL), and prints
its path once; each gate refreshes it.
#]=======================================================================]
# POLICY and KB files the tool would refuse are mistakes in the call, said
# at configure time on any machine, GPU or not, in the tool's one line: by
# the tool itself where it can run now (find_package, KERNELBLASTER_EXECUTABLE),
# else (the tool is built by this project) the KB's JSON by CMake, and the
# policy when the build first runs it.
function(_kernelblaster_check_inputs who policy kb)
  set(_checker "")
  if(NOT KERNELBLASTER_EXECUTABLE STREQUAL "" AND EXISTS "${KERNELBLASTER_EXECUTABLE}")
    set(_checker "${KERNELBLASTER_EXECUTABLE}")
  elseif(TARGET KernelBlaster::kernelblaster)
    get_target_property(_imported KernelBlaster::kernelblaster IMPORTED)
    if(_imported)
      get_target_property(_checker KernelBlaster::kernelblaster LOCATION)
    endif()
  endif()
  if(NOT EXISTS "${_checker}")
    set(_checker "")
  endif()
  if(NOT policy STREQUAL "" AND NOT _checker STREQUAL "")
    execute_process(COMMAND "${_checker}" policy check "${policy}" RESULT_VARIABLE _rc OUTPUT_QUIET
      ERROR_VARIABLE _err TIMEOUT 60)
    if(NOT _rc EQUAL 0)
      string(REGEX REPLACE "\n.*" "" _err "${_err}")
      message(FATAL_ERROR "${who}: POLICY file ${policy} is refused: ${_err}")
    endif()
  endif()
  if(kb STREQUAL "" OR NOT EXISTS "${kb}")
    return()  # the tuner makes the KB on its first run
  endif()
  if(NOT _checker STREQUAL "")
    execute_process(COMMAND "${_checker}" kb validate "${kb}" RESULT_VARIABLE _rc OUTPUT_QUIET
      ERROR_VARIABLE _err TIMEOUT 60)
  else()
    file(READ "${kb}" _text)
    string(JSON _type ERROR_VARIABLE _err TYPE "${_text}")
    set(_rc 0)
    if(_err)
      set(_rc 1)
      set(_err "not valid JSON: ${_err}")
    elseif(NOT _type STREQUAL "OBJECT")
      set(_rc 1)
      set(_err "not a JSON object")
    endif()
  endif()
  if(NOT _rc EQUAL 0)
    string(REGEX REPLACE "\n.*" "" _err "${_err}")
    message(FATAL_ERROR "${who}: KB file ${kb} is refused: ${_err}")
  endif()
endfunction()

# The call's parsed arguments <prefix>_<KW> for each KW given, as _kb_<KW>
# in the caller; a keyword the call did not give is left undefined there.
function(_kernelblaster_take_arguments prefix)
  foreach(_kw IN LISTS ARGN)
    if(DEFINED ${prefix}_${_kw})
      set(_kb_${_kw} "${${prefix}_${_kw}}" PARENT_SCOPE)
    else()
      unset(_kb_${_kw} PARENT_SCOPE)
    endif()
  endforeach()
endfunction()

# The settings kernelblaster_optimize() recorded on the target, for each
# NAME given, as _<NAME> in the caller ("" for one it did not record).
function(_kernelblaster_target_settings target)
  foreach(_p IN LISTS ARGN)
    get_target_property(_value ${target} _KERNELBLASTER_${_p})
    if(_value MATCHES "-NOTFOUND$")
      set(_value "")
    endif()
    set(_${_p} "${_value}" PARENT_SCOPE)
  endforeach()
endfunction()

# The steps of kernelblaster_optimize(), each a function of what it is
# given, returning what it decides through the variables it is told to set.
# The target exists, compiles sources here, and is optimized once.
function(_kernelblaster_check_target who target)
  set(_who "${who}")
  if(NOT TARGET "${target}")
    message(FATAL_ERROR "${_who}: there is no target named '${target}'. "
      "Create it (add_library/add_executable) before calling kernelblaster_optimize().")
  endif()
  get_target_property(_imported ${target} IMPORTED)
  get_target_property(_aliased ${target} ALIASED_TARGET)
  get_target_property(_type ${target} TYPE)
  if(_imported OR _aliased)
    message(FATAL_ERROR "${_who}: '${target}' is an imported or alias target; pass the target that compiles the sources.")
  endif()
  if(NOT _type MATCHES "^(STATIC_LIBRARY|SHARED_LIBRARY|MODULE_LIBRARY|OBJECT_LIBRARY|EXECUTABLE)$")
    message(FATAL_ERROR "${_who}: '${target}' is a ${_type}; it must be a library or executable that compiles CUDA sources.")
  endif()
  get_target_property(_target_dir ${target} SOURCE_DIR)
  if(NOT _target_dir STREQUAL CMAKE_CURRENT_SOURCE_DIR)
    message(FATAL_ERROR "${_who}: call it in the directory that creates '${target}' (${_target_dir}).")
  endif()
  get_target_property(_done ${target} _KERNELBLASTER_OPTIMIZED)
  if(_done)
    message(FATAL_ERROR "${_who}: called twice for the same target.")
  endif()
endfunction()

# MODE (and KERNELBLASTER_MODE), BUDGET, MIN_SPEEDUP, POLICY and KB, checked:
# `prefix` names the call's parsed arguments (<prefix>_MODE, ...); sets
# <out>_mode, <out>_budget, <out>_min_speedup, <out>_policy and <out>_kb
# (POLICY and KB made absolute) in the caller.
function(_kernelblaster_read_options who prefix out)
  set(_who "${who}")
  _kernelblaster_take_arguments(${prefix} MODE BUDGET MIN_SPEEDUP POLICY KB)
  set(_mode AUTO)
  if(DEFINED _kb_MODE)
    string(TOUPPER "${_kb_MODE}" _mode)
  endif()
  if(NOT _mode MATCHES "^(AUTO|APPLY|TUNE|OFF)$")
    message(FATAL_ERROR "${_who}: MODE must be AUTO, APPLY, TUNE or OFF, not '${_kb_MODE}'.")
  endif()
  if(NOT KERNELBLASTER_MODE STREQUAL "")
    string(TOUPPER "${KERNELBLASTER_MODE}" _override)
    if(NOT _override MATCHES "^(AUTO|APPLY|TUNE|OFF)$")
      message(FATAL_ERROR "KERNELBLASTER_MODE must be AUTO, APPLY, TUNE, OFF or empty, not '${KERNELBLASTER_MODE}'.")
    endif()
    set(_mode ${_override})
  endif()
  set(_budget 60)
  if(DEFINED _kb_BUDGET)
    if(NOT _kb_BUDGET MATCHES "^[0-9]+(\\.[0-9]+)?$" OR _kb_BUDGET EQUAL 0)
      message(FATAL_ERROR "${_who}: BUDGET must be a positive number of seconds, not '${_kb_BUDGET}'.")
    endif()
    set(_budget ${_kb_BUDGET})
  endif()
  set(_min_speedup "")
  if(DEFINED _kb_MIN_SPEEDUP)
    # The tool takes positive speedups only: 0 here would pass the configure
    # and fail every tuning run.
    if(NOT _kb_MIN_SPEEDUP MATCHES "^[0-9]+(\\.[0-9]+)?$" OR _kb_MIN_SPEEDUP MATCHES "^0+(\\.0+)?$")
      message(FATAL_ERROR "${_who}: MIN_SPEEDUP must be a positive number such as 1.1, not '${_kb_MIN_SPEEDUP}'.")
    endif()
    set(_min_speedup ${_kb_MIN_SPEEDUP})
  endif()
  foreach(_kw POLICY KB)
    if(DEFINED _kb_${_kw})
      get_filename_component(_kb_${_kw} "${_kb_${_kw}}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    endif()
  endforeach()
  if(DEFINED _kb_POLICY AND NOT EXISTS "${_kb_POLICY}")
    message(FATAL_ERROR "${_who}: POLICY file ${_kb_POLICY} does not exist.")
  endif()
  _kernelblaster_check_inputs("${_who}" "${_kb_POLICY}" "${_kb_KB}")
  set(${out}_mode "${_mode}" PARENT_SCOPE)
  set(${out}_budget "${_budget}" PARENT_SCOPE)
  set(${out}_min_speedup "${_min_speedup}" PARENT_SCOPE)
  set(${out}_policy "${_kb_POLICY}" PARENT_SCOPE)
  set(${out}_kb "${_kb_KB}" PARENT_SCOPE)
endfunction()

# HARNESS, SOURCES, HARNESS_DIR, TARGET_GPU, LOCKFILE and the tool, checked:
# `prefix` names the call's parsed arguments, `mode` is the call's MODE; sets
# <out>_harnesses, <out>_sources, <out>_harness_dir, <out>_target_gpu,
# <out>_lockfile, <out>_tool and <out>_tool_target in the caller.
function(_kernelblaster_read_paths who prefix mode out)
  set(_who "${who}")
  set(_mode "${mode}")
  _kernelblaster_take_arguments(${prefix} HARNESS SOURCES CAPTURE_TESTS NO_CAPTURE HARNESS_DIR TARGET_GPU LOCKFILE)
  set(_harnesses "")
  foreach(_h IN LISTS _kb_HARNESS)
    get_filename_component(_h "${_h}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    if(NOT EXISTS "${_h}")
      message(FATAL_ERROR "${_who}: HARNESS file ${_h} does not exist.")
    endif()
    list(APPEND _harnesses "${_h}")
  endforeach()
  set(_sources "")
  foreach(_s IN LISTS _kb_SOURCES)
    get_filename_component(_s "${_s}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    list(APPEND _sources "${_s}")
  endforeach()
  list(LENGTH _harnesses _nh)
  list(LENGTH _sources _ns)
  if(_nh GREATER 0 AND _ns GREATER 0 AND NOT _nh EQUAL _ns)
    message(FATAL_ERROR "${_who}: SOURCES has ${_ns} entries but HARNESS has ${_nh}; give one harness per source, in the same order.")
  endif()
  if(_kb_CAPTURE_TESTS AND _kb_NO_CAPTURE)
    message(FATAL_ERROR "${_who}: give CAPTURE_TESTS or NO_CAPTURE, not both.")
  endif()
  if(_nh GREATER 0 AND DEFINED _kb_HARNESS_DIR)
    message(FATAL_ERROR "${_who}: give HARNESS or HARNESS_DIR, not both.")
  endif()
  set(_harness_dir "${CMAKE_CURRENT_SOURCE_DIR}/harness")
  if(DEFINED _kb_HARNESS_DIR)
    get_filename_component(_harness_dir "${_kb_HARNESS_DIR}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    if(NOT IS_DIRECTORY "${_harness_dir}")
      message(FATAL_ERROR "${_who}: HARNESS_DIR ${_harness_dir} is not a directory.")
    endif()
  endif()
  # No harness directory is not a mistake in the call: the sources without a
  # harness are compiled as they are, and the end of the directory says so.

  set(_target_gpu "${KERNELBLASTER_TARGET_GPU}")
  if(DEFINED _kb_TARGET_GPU)
    set(_target_gpu "${_kb_TARGET_GPU}")
  endif()
  set(_lockfile "${CMAKE_CURRENT_SOURCE_DIR}/kernelblaster.lock.json")
  if(DEFINED _kb_LOCKFILE)
    get_filename_component(_lockfile "${_kb_LOCKFILE}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  elseif(NOT KERNELBLASTER_LOCKFILE STREQUAL "")
    set(_lockfile "${KERNELBLASTER_LOCKFILE}")
  endif()

  set(_tool "")
  set(_tool_target "")
  if(NOT KERNELBLASTER_EXECUTABLE STREQUAL "")
    set(_tool "${KERNELBLASTER_EXECUTABLE}")
  elseif(TARGET KernelBlaster::kernelblaster)
    set(_tool "$<TARGET_FILE:KernelBlaster::kernelblaster>")
    set(_tool_target KernelBlaster::kernelblaster)
  elseif(NOT _mode STREQUAL "OFF")
    message(FATAL_ERROR "${_who}: no kernelblaster executable: use find_package(KernelBlaster) or "
      "add_subdirectory(<kernelblaster checkout>) first, or set KERNELBLASTER_EXECUTABLE.")
  endif()
  foreach(_v harnesses sources harness_dir target_gpu lockfile tool tool_target)
    set(${out}_${_v} "${_${_v}}" PARENT_SCOPE)
  endforeach()
endfunction()

function(kernelblaster_optimize target)
  string(TIMESTAMP _kb_t0 "%s%f")
  set(_options NO_TESTS STRICT NO_CAPTURE ALLOW_UNVERIFIED)
  set(_one MODE BUDGET MIN_SPEEDUP POLICY KB TARGET_GPU HARNESS_DIR LOCKFILE)
  set(_multi SOURCES HARNESS CAPTURE_TESTS)
  cmake_parse_arguments(PARSE_ARGV 1 _kb "${_options}" "${_one}" "${_multi}")
  set(_who "kernelblaster_optimize(${target})")

  if(_kb_UNPARSED_ARGUMENTS)
    list(JOIN _kb_UNPARSED_ARGUMENTS " " _bad)
    list(JOIN _options " " _o)
    list(JOIN _one " " _1)
    list(JOIN _multi " " _m)
    message(FATAL_ERROR "${_who}: unknown argument(s): ${_bad}\n"
      "Keywords: ${_m} ${_1} ${_o}")
  endif()
  if(_kb_KEYWORDS_MISSING_VALUES)
    list(JOIN _kb_KEYWORDS_MISSING_VALUES " " _bad)
    message(FATAL_ERROR "${_who}: keyword(s) given without a value: ${_bad}")
  endif()
  _kernelblaster_check_target("${_who}" "${target}")
  _kernelblaster_read_options("${_who}" _kb _opt)
  _kernelblaster_read_paths("${_who}" _kb "${_opt_mode}" _path)

  set_target_properties(${target} PROPERTIES
    _KERNELBLASTER_OPTIMIZED TRUE
    _KERNELBLASTER_MODE "${_opt_mode}"
    _KERNELBLASTER_BUDGET "${_opt_budget}"
    _KERNELBLASTER_MIN_SPEEDUP "${_opt_min_speedup}"
    _KERNELBLASTER_POLICY "${_opt_policy}"
    _KERNELBLASTER_KB "${_opt_kb}"
    _KERNELBLASTER_TARGET_GPU "${_path_target_gpu}"
    _KERNELBLASTER_LOCKFILE "${_path_lockfile}"
    _KERNELBLASTER_SOURCES "${_path_sources}"
    _KERNELBLASTER_HARNESSES "${_path_harnesses}"
    _KERNELBLASTER_HARNESS_DIR "${_path_harness_dir}"
    _KERNELBLASTER_NO_TESTS "${_kb_NO_TESTS}"
    _KERNELBLASTER_NO_CAPTURE "${_kb_NO_CAPTURE}"
    _KERNELBLASTER_CAPTURE_TESTS "${_kb_CAPTURE_TESTS}"
    _KERNELBLASTER_STRICT "${_kb_STRICT}"
    _KERNELBLASTER_ALLOW_UNVERIFIED "${_kb_ALLOW_UNVERIFIED}"
    _KERNELBLASTER_TOOL "${_path_tool}"
    _KERNELBLASTER_TOOL_TARGET "${_path_tool_target}")
  string(TIMESTAMP _kb_t1 "%s%f")
  math(EXPR _kb_call_us "${_kb_t1} - ${_kb_t0}")
  set_property(TARGET ${target} PROPERTY _KERNELBLASTER_CALL_US ${_kb_call_us})
  # At the end of this directory, so target_sources() after the call count.
  # (A deferred call evaluates its arguments when it runs: bind the name now.)
  cmake_language(EVAL CODE "cmake_language(DEFER CALL _kernelblaster_process_target [==[${target}]==])")
  # One report for the whole build tree, ruled once every target is known.
  get_property(_report_scheduled GLOBAL PROPERTY _KERNELBLASTER_REPORT_SCHEDULED)
  if(NOT _report_scheduled)
    set_property(GLOBAL PROPERTY _KERNELBLASTER_REPORT_SCHEDULED TRUE)
    cmake_language(DEFER DIRECTORY "${CMAKE_SOURCE_DIR}" CALL _kernelblaster_report_rule)
  endif()
endfunction()

# kernelblaster_report.html at the top of the build tree: refreshed by any
# build that ran a KernelBlaster build step (its stamps are the inputs), with
# one line naming it. Scheduled at the end of the top directory; where
# targets of that directory are still to be processed, it waits for them.
function(_kernelblaster_report_rule)
  cmake_language(DEFER GET_CALL_IDS _ids)
  foreach(_id IN LISTS _ids)
    cmake_language(DEFER GET_CALL ${_id} _call)
    list(GET _call 0 _command)
    if(_command STREQUAL "_kernelblaster_process_target")
      cmake_language(DEFER CALL _kernelblaster_report_rule)
      return()
    endif()
  endforeach()
  get_property(_stamps GLOBAL PROPERTY _KERNELBLASTER_REPORT_STAMPS)
  get_property(_targets GLOBAL PROPERTY _KERNELBLASTER_REPORT_TARGETS)
  get_property(_tool GLOBAL PROPERTY _KERNELBLASTER_REPORT_TOOL)
  get_property(_tool_target GLOBAL PROPERTY _KERNELBLASTER_REPORT_TOOL_TARGET)
  if(NOT _stamps OR TARGET kernelblaster_report)
    return()
  endif()
  set(_html "${CMAKE_BINARY_DIR}/kernelblaster_report.html")
  add_custom_command(OUTPUT "${_html}"
    BYPRODUCTS "${CMAKE_BINARY_DIR}/kernelblaster_report.md"
    COMMAND "${_tool}" report "${CMAKE_BINARY_DIR}" --from-build
    DEPENDS ${_stamps} ${_tool_target}
    COMMENT "KernelBlaster: report"
    VERBATIM)
  add_custom_target(kernelblaster_report ALL DEPENDS "${_html}")
  # Makefile generators see the stamps of other directories only as files:
  # the targets that make them are built first.
  add_dependencies(kernelblaster_report ${_targets})
endfunction()

# The kernel recorder's path: beside the tool in its build tree, in lib/
# after install; empty where there is none (then only the shim records).
function(_kernelblaster_recorder out)
  get_property(_r GLOBAL PROPERTY KERNELBLASTER_RECORDER)
  if(NOT _r AND NOT KERNELBLASTER_EXECUTABLE STREQUAL "")
    get_filename_component(_dir "${KERNELBLASTER_EXECUTABLE}" DIRECTORY)
    foreach(_c "${_dir}/libkernelblaster_recorder.so" "${_dir}/../lib/libkernelblaster_recorder.so")
      if(EXISTS "${_c}")
        set(_r "${_c}")
        break()
      endif()
    endforeach()
  endif()
  set(${out} "${_r}" PARENT_SCOPE)
endfunction()

# `value` as file(GENERATE) content that evaluates to `value` itself: only
# "$<" would start a generator expression, so its "$" is written as one.
function(_kernelblaster_genex_literal value out)
  string(REPLACE "$<" "$<1:$><" value "${value}")
  set(${out} "${value}" PARENT_SCOPE)
endfunction()

# The CUDA sources of `target` as absolute paths, in `out_abs`, and the
# SOURCES entries they came from in `out_entries` (same order).
function(_kernelblaster_cuda_sources target out_abs out_entries)
  get_target_property(_srcs ${target} SOURCES)
  get_target_property(_dir ${target} SOURCE_DIR)
  set(_abs "")
  set(_entries "")
  foreach(_s IN LISTS _srcs)
    if(_s MATCHES "^\\$<")  # generator expressions: not known before generate time
      continue()
    endif()
    get_filename_component(_a "${_s}" ABSOLUTE BASE_DIR "${_dir}")
    get_source_file_property(_lang "${_a}" LANGUAGE)
    if(_s MATCHES "\\.cu$" OR _lang STREQUAL "CUDA")
      list(APPEND _abs "${_a}")
      list(APPEND _entries "${_s}")
    endif()
  endforeach()
  set(${out_abs} "${_abs}" PARENT_SCOPE)
  set(${out_entries} "${_entries}" PARENT_SCOPE)
endfunction()

# The first numbered entry of CUDA_ARCHITECTURES as sm_XY, or "" ("native",
# "all", unset: the tuner measures for the GPU at hand).
function(_kernelblaster_target_arch target out)
  get_target_property(_archs ${target} CUDA_ARCHITECTURES)
  set(_arch "")
  foreach(_a IN LISTS _archs)
    if(_a MATCHES "^([0-9]+[af]?)(-real|-virtual)?$")
      set(_arch "sm_${CMAKE_MATCH_1}")
      break()
    endif()
  endforeach()
  set(${out} "${_arch}" PARENT_SCOPE)
endfunction()

# The steps of _kernelblaster_process_target. Pairing the sources with
# their harnesses, and saying what has none, are functions of the target
# (its properties) that return their results through PARENT_SCOPE; the later
# steps are still macros over the function's own variables (issue 42).
function(_kernelblaster_say_unpaired who target unharnessed captured)
  # The target's settings it reads: where harnesses are looked for, the
  # mode, STRICT and CAPTURE_TESTS.
  set(_who "${who}")
  set(_unharnessed "${unharnessed}")
  set(_captured "${captured}")
  _kernelblaster_target_settings(${target} HARNESS_DIR MODE STRICT CAPTURE_TESTS)
  set(_gen "${CMAKE_CURRENT_BINARY_DIR}/kernelblaster_generated/${target}")
  # What the project lacks never fails its configure (unless STRICT): the
  # sources without a harness are compiled as they are, and one line says
  # so and how to get them tuned. MODE OFF tunes nothing, so it suggests
  # nothing either.
  if(_unharnessed AND NOT _MODE STREQUAL "OFF")
    list(JOIN _unharnessed ", " _names)
    file(RELATIVE_PATH _rel_dir "${CMAKE_CURRENT_SOURCE_DIR}" "${_HARNESS_DIR}")
    set(_looked "no harness for ${_names} (looked for ${_rel_dir}/<stem>_harness.cu)")
    set(_how "draft that harness with 'kernelblaster harness init <source> --out ${_rel_dir}' (docs/harness.md) or pass HARNESS.")
    if(_STRICT)
      message(FATAL_ERROR "${_who}: STRICT is set and there is ${_looked}: ${_how}")
    endif()
    message(STATUS "kernelblaster: ${target}: ${_looked}; compiling the original. To tune it, ${_how}")
  endif()
  if(_captured)
    list(JOIN _captured ", " _names)
    file(RELATIVE_PATH _rel_dir "${CMAKE_CURRENT_SOURCE_DIR}" "${_HARNESS_DIR}")
    file(RELATIVE_PATH _rel_gen "${CMAKE_BINARY_DIR}" "${_gen}")
    set(_who_records "the project's runs (ctest)")
    if(_CAPTURE_TESTS)
      list(JOIN _CAPTURE_TESTS ", " _who_records)
      set(_who_records "the tests ${_who_records}")
    endif()
    message(STATUS "kernelblaster: ${target}: no harness for ${_names} (looked for ${_rel_dir}/<stem>_harness.cu): "
      "${_who_records} record the launches of its kernels (and the calls of its host launchers, through a "
      "recording shim that calls the original), and the next build synthesizes a harness from them "
      "(${_rel_gen}/harness) and tunes. "
      "NO_CAPTURE compiles the original instead; HARNESS or 'kernelblaster harness init' give a harness of your own.")
  endif()
endfunction()

# Pairs each source to optimize with its harness (the user's, or one to be
# synthesized from recorded calls), saying what has none; ends the target's
# processing when nothing is left to optimize.
function(_kernelblaster_pair_sources who target out)
  set(_who "${who}")
  _kernelblaster_target_settings(${target} SOURCES HARNESSES HARNESS_DIR NO_CAPTURE STRICT MODE CAPTURE_TESTS)
  _kernelblaster_cuda_sources(${target} _cuda _entries)
  if(NOT _cuda)
    message(FATAL_ERROR "${_who}: target '${target}' has no CUDA sources (.cu files or LANGUAGE CUDA).")
  endif()

  # Pair each source to optimize with its harness, and with the file its
  # calls are recorded in when the harness is to be synthesized ("-": a
  # harness of the user's).
  set(_gen "${CMAKE_CURRENT_BINARY_DIR}/kernelblaster_generated/${target}")
  set(_pairs_src "")
  set(_pairs_harness "")
  set(_pairs_capture "")
  if(_SOURCES)
    foreach(_s IN LISTS _SOURCES)
      if(NOT _s IN_LIST _cuda)
        message(FATAL_ERROR "${_who}: ${_s} is not a CUDA source of target '${target}'.")
      endif()
    endforeach()
  endif()
  if(_HARNESSES)
    if(_SOURCES)
      set(_pairs_src ${_SOURCES})
    else()
      list(LENGTH _cuda _n)
      list(LENGTH _HARNESSES _nh)
      if(NOT _n EQUAL 1 OR NOT _nh EQUAL 1)
        message(FATAL_ERROR "${_who}: '${target}' has ${_n} CUDA sources; with HARNESS, list the sources to optimize "
          "in SOURCES, one per harness, in the same order.")
      endif()
      set(_pairs_src ${_cuda})
    endif()
    set(_pairs_harness ${_HARNESSES})
    foreach(_h IN LISTS _HARNESSES)
      list(APPEND _pairs_capture "-")
    endforeach()
  else()
    set(_candidates ${_cuda})
    if(_SOURCES)
      set(_candidates ${_SOURCES})
    endif()
    set(_unharnessed "")
    set(_captured "")
    foreach(_s IN LISTS _candidates)
      get_filename_component(_stem "${_s}" NAME_WE)
      set(_h "${_HARNESS_DIR}/${_stem}_harness.cu")
      if(EXISTS "${_h}")
        list(APPEND _pairs_src "${_s}")
        list(APPEND _pairs_harness "${_h}")
        list(APPEND _pairs_capture "-")
      elseif(NOT _NO_CAPTURE AND NOT _STRICT AND NOT _MODE STREQUAL "OFF")
        # Captured: a recording shim until the project's runs have recorded
        # calls, then a harness synthesized from them.
        get_filename_component(_name "${_s}" NAME)
        list(APPEND _captured "${_name}")
        list(APPEND _pairs_src "${_s}")
        list(APPEND _pairs_harness "${_gen}/harness/${_stem}_harness.cu")
        if(_CAPTURE_TESTS)
          list(APPEND _pairs_capture "${_gen}/capture/calls.jsonl")
        else()
          # The shim records into calls/<target>/<stem>.calls.jsonl where
          # the environment names the directory (kernelblaster_generated/
          # record, ctest): only its name is compiled in.
          list(APPEND _pairs_capture "${CMAKE_BINARY_DIR}/kernelblaster_generated/calls/${target}/${_stem}.calls.jsonl")
        endif()
      else()
        get_filename_component(_name "${_s}" NAME)
        list(APPEND _unharnessed "${_name}")
      endif()
    endforeach()
    _kernelblaster_say_unpaired("${_who}" "${target}" "${_unharnessed}" "${_captured}")
  endif()
  set(${out}_src "${_pairs_src}" PARENT_SCOPE)
  set(${out}_harness "${_pairs_harness}" PARENT_SCOPE)
  set(${out}_capture "${_pairs_capture}" PARENT_SCOPE)
endfunction()

# The manifest: the target's compile settings, written at generate time.
function(_kernelblaster_write_manifest target gen sources out_manifest)
  set(_manifest "${gen}/manifest.txt")
  set(${out_manifest} "${_manifest}" PARENT_SCOPE)
  _kernelblaster_target_arch(${target} _arch)

  # The manifest: the target's own compile settings, complete only at
  # generate time, hence generator expressions. The directories of the
  # optimized sources come first: the compiled copies live elsewhere but
  # include their neighbours.
  set(_src_dirs "")
  foreach(_s IN LISTS sources)
    get_filename_component(_d "${_s}" DIRECTORY)
    list(APPEND _src_dirs "${_d}")
  endforeach()
  list(REMOVE_DUPLICATES _src_dirs)
  set(_flags "")
  if(CMAKE_CUDA_FLAGS)
    separate_arguments(_flags UNIX_COMMAND "${CMAKE_CUDA_FLAGS}")
  endif()
  if(CMAKE_BUILD_TYPE)
    string(TOUPPER "${CMAKE_BUILD_TYPE}" _cfg)
    if(CMAKE_CUDA_FLAGS_${_cfg})
      separate_arguments(_cfg_flags UNIX_COMMAND "${CMAKE_CUDA_FLAGS_${_cfg}}")
      list(APPEND _flags ${_cfg_flags})
    endif()
  endif()
  # One value per line, as the build has it (tool/src/judge/manifest.h):
  # CMake can join a list but not escape it, and a line needs no escaping.
  # Values known now go through _kernelblaster_genex_literal: file(GENERATE)
  # reads its content as generator expressions.
  _kernelblaster_genex_literal("${CMAKE_SOURCE_DIR}" _project)
  set(_lines "kernelblaster-manifest 1\ntarget ${target}\narch ${_arch}\nproject ${_project}\n")
  foreach(_d IN LISTS _src_dirs)
    _kernelblaster_genex_literal("${_d}" _lit)
    string(APPEND _lines "I ${_lit}\n")
  endforeach()
  foreach(_f IN LISTS _flags)
    _kernelblaster_genex_literal("${_f}" _lit)
    string(APPEND _lines "F ${_lit}\n")
  endforeach()
  foreach(_setting provider base-url model command temperature max-tokens reasoning-effort)
    string(TOUPPER "${_setting}" _var)
    string(REPLACE "-" "_" _var "KERNELBLASTER_LLM_${_var}")
    if(NOT "${${_var}}" STREQUAL "")
      _kernelblaster_genex_literal("${${_var}}" _lit)
      string(APPEND _lines "L ${_setting} ${_lit}\n")
    endif()
  endforeach()
  set(_incs "$<TARGET_PROPERTY:${target},INCLUDE_DIRECTORIES>")
  set(_defs "$<TARGET_PROPERTY:${target},COMPILE_DEFINITIONS>")
  set(_opts "$<TARGET_PROPERTY:${target},COMPILE_OPTIONS>")
  # An empty list gives a line with no value, which the tool skips. Options
  # may hold $<COMPILE_LANGUAGE:...> (NVIDIA's samples do): file(GENERATE)
  # then evaluates the content once per enabled language, so each language
  # gets a file of its own and manifest.txt is CUDA's.
  string(REGEX REPLACE "\\.txt$" "$<$<NOT:$<COMPILE_LANGUAGE:CUDA>>:-$<COMPILE_LANGUAGE>>.txt" _manifest_out "${_manifest}")
  file(GENERATE OUTPUT "${_manifest_out}" CONTENT
"${_lines}I $<JOIN:${_incs},\nI >
D $<JOIN:${_defs},\nD >
F $<JOIN:${_opts},\nF >
" TARGET ${target})

endfunction()

# The build step's arguments common to every source of the target, and the
# kernel recorder's directory.
function(_kernelblaster_step_arguments target manifest out_args out_gate_min_speedup out_pool out_recorder out_launches)
  _kernelblaster_target_settings(${target} BUDGET MIN_SPEEDUP LOCKFILE TARGET_GPU POLICY KB ALLOW_UNVERIFIED STRICT)
  set(_common_args --manifest "${manifest}" --budget ${_BUDGET})
  set(_gate_min_speedup 1.0)
  if(NOT _MIN_SPEEDUP STREQUAL "")
    list(APPEND _common_args --min-speedup ${_MIN_SPEEDUP})
    set(_gate_min_speedup ${_MIN_SPEEDUP})
  endif()
  if(NOT KERNELBLASTER_CACHE_DIR STREQUAL "")
    list(APPEND _common_args --cache-dir "${KERNELBLASTER_CACHE_DIR}")
  endif()
  if(NOT KERNELBLASTER_REMOTE_STORAGE STREQUAL "")
    list(APPEND _common_args --remote-storage "${KERNELBLASTER_REMOTE_STORAGE}")
  endif()
  list(APPEND _common_args --lockfile "${_LOCKFILE}")
  if(KERNELBLASTER_UPDATE_LOCKFILE STREQUAL "FRAGMENT")
    list(APPEND _common_args --lockfile-fragment)
  elseif(KERNELBLASTER_UPDATE_LOCKFILE)
    list(APPEND _common_args --update-lockfile)
  endif()
  if(NOT _TARGET_GPU STREQUAL "")
    list(APPEND _common_args --target-gpu "${_TARGET_GPU}")
  endif()
  if(_POLICY)
    list(APPEND _common_args --policy "${_POLICY}")
  endif()
  if(_KB)
    list(APPEND _common_args --kb "${_KB}")
  endif()
  if(_ALLOW_UNVERIFIED)
    list(APPEND _common_args --allow-unverified)
  endif()
  if(_STRICT)
    list(APPEND _common_args --strict)
  endif()
  set(_pool "")
  if(CMAKE_GENERATOR MATCHES "Ninja")
    set(_pool JOB_POOL kernelblaster_gpu)
  endif()

  # The kernel recorder, loaded by the CUDA driver into the project's test
  # processes (CUDA_INJECTION64_PATH), records the launches of every kernel
  # into one directory of the build tree, a file per kernel.
  _kernelblaster_recorder(_recorder)
  set(_launches "${CMAKE_BINARY_DIR}/kernelblaster_generated/kernel_launches")
  if(_recorder AND NOT EXISTS "${_launches}/recorded.stamp")
    file(WRITE "${_launches}/recorded.stamp" "")
  endif()

  set(${out_args} "${_common_args}" PARENT_SCOPE)
  set(${out_gate_min_speedup} "${_gate_min_speedup}" PARENT_SCOPE)
  set(${out_pool} "${_pool}" PARENT_SCOPE)
  set(${out_recorder} "${_recorder}" PARENT_SCOPE)
  set(${out_launches} "${_launches}" PARENT_SCOPE)
endfunction()

# One source (`_s`, with its harness `_h` and its recorded calls `_cap`,
# "-" when it has a harness of its own): its build step, the compiled copy
# in the original's place, and its CTest gates. Takes the target's
# generated directory (GEN), manifest, the steps' common arguments and the
# recorder's (_kernelblaster_step_arguments), and the target's sources
# (SOURCES_VAR, a variable of the caller: updated); gives the step's stamp
# (STAMP_VAR) and the commands the on-demand targets run (TUNE_VAR,
# EXPORT_VAR: "" when the source has none).
function(_kernelblaster_add_source_step target _s _h _cap)
  cmake_parse_arguments(PARSE_ARGV 4 _in "" "GEN;MANIFEST;GATE_MIN_SPEEDUP;RECORDER;LAUNCHES;SOURCES_VAR;STAMP_VAR;TUNE_VAR;EXPORT_VAR"
    "COMMON_ARGS;POOL")
  _kernelblaster_target_settings(${target} CAPTURE_TESTS TOOL TOOL_TARGET HARNESS_DIR POLICY LOCKFILE MODE NO_TESTS)
  get_target_property(_target_dir ${target} SOURCE_DIR)
  set(_gen "${_in_GEN}")
  set(_manifest "${_in_MANIFEST}")
  set(_recorder "${_in_RECORDER}")
  set(_launches "${_in_LAUNCHES}")
  set(_target_sources ${${_in_SOURCES_VAR}})
  set(_export_commands "")
  file(RELATIVE_PATH _rel "${_target_dir}" "${_s}")
  if(_rel MATCHES "^\\.\\./")
    get_filename_component(_rel "${_s}" NAME)
  endif()
  set(_out "${_gen}/${_rel}")
  set(_rsp "${_out}.rsp")
  set(_stamp "${_out}.stamp")
  set(_dep "${_out}.d")
  set(_per_source --source "${_s}" --harness "${_h}" --out "${_out}" --rsp "${_rsp}")
  set(_byproducts "${_out}" "${_rsp}")
  set(_gate_synth "")
  if(_cap STREQUAL "-")
    set(_depends "${_s}" "${_h}" "${_manifest}")
  else()
    # The recorded calls: the step runs again when a run adds some. The
    # file exists from the start, so the dependency always resolves.
    if(NOT EXISTS "${_cap}")
      file(WRITE "${_cap}" "")
    endif()
    list(APPEND _per_source --capture "${_cap}")
    if(_CAPTURE_TESTS)
      list(APPEND _per_source --capture-on-request)
    else()
      get_filename_component(_stem "${_s}" NAME_WE)
      list(APPEND _per_source --capture-name "${target}/${_stem}")
    endif()
    # The synthesized harness is no byproduct: until calls are recorded
    # there is none, and a declared output that is missing would run the
    # step again on every build.
    set(_depends "${_s}" "${_cap}" "${_manifest}")
    if(_recorder)
      # The kernel recorder touches its stamp when it records a new launch.
      list(APPEND _per_source --kernel-records "${_launches}")
      list(APPEND _depends "${_launches}/recorded.stamp")
      if(TARGET kernelblaster_recorder)
        list(APPEND _depends kernelblaster_recorder)  # built with the tool, in its build tree
      endif()
    endif()
    set(_gate_synth --synthesized)
    list(APPEND _export_commands COMMAND "${_TOOL}" harness export "${_h}" --out "${_HARNESS_DIR}")
  endif()
  if(_POLICY)
    list(APPEND _depends "${_POLICY}")
  endif()
  if(EXISTS "${_LOCKFILE}")
    list(APPEND _depends "${_LOCKFILE}")
  endif()
  add_custom_command(
    OUTPUT "${_stamp}"
    BYPRODUCTS ${_byproducts}
    COMMAND "${_TOOL}" build ${_per_source} --stamp "${_stamp}" --depfile "${_dep}" --mode ${_MODE} ${_in_COMMON_ARGS}
    DEPENDS ${_depends} ${_TOOL_TARGET}
    DEPFILE "${_dep}"
    ${_in_POOL}
    COMMENT "KernelBlaster: ${_rel}"
    VERBATIM)

  # The compiled copy takes the original's place in the target.
  set(_new_sources "")
  foreach(_e IN LISTS _target_sources)
    get_filename_component(_a "${_e}" ABSOLUTE BASE_DIR "${_target_dir}")
    if(_a STREQUAL _s AND NOT _e MATCHES "^\\$<")
      # The stamp is what attaches the build step to the target; the copy
      # and its options file are byproducts, rewritten only on change.
      list(APPEND _new_sources "${_out}" "${_stamp}")
    else()
      list(APPEND _new_sources "${_e}")
    endif()
  endforeach()
  set(_target_sources ${_new_sources})
  get_filename_component(_src_dir "${_s}" DIRECTORY)
  set_source_files_properties("${_out}" PROPERTIES
    GENERATED TRUE
    LANGUAGE CUDA
    INCLUDE_DIRECTORIES "${_src_dir}"
    COMPILE_OPTIONS "--options-file=${_rsp}"
    OBJECT_DEPENDS "${_rsp}")

  if(NOT _NO_TESTS)
    set(_gate "${_TOOL}" gate --source "${_s}" --tuned "${_out}" --harness "${_h}" --manifest "${_manifest}" --rsp "${_rsp}" ${_gate_synth})
    _kernelblaster_add_gates(${target} "${_s}" "${_out}" "${_in_GATE_MIN_SPEEDUP}" ${_gate})
  endif()
  set(${_in_SOURCES_VAR} ${_target_sources} PARENT_SCOPE)
  set(${_in_STAMP_VAR} "${_stamp}" PARENT_SCOPE)
  set(${_in_TUNE_VAR} COMMAND "${_TOOL}" build ${_per_source} --mode TUNE ${_in_COMMON_ARGS} PARENT_SCOPE)
  set(${_in_EXPORT_VAR} ${_export_commands} PARENT_SCOPE)
endfunction()

# The two CTest gates of one tuned source (`out`, compiled for `source`):
# correctness and speed, each running `kernelblaster gate` (the remaining
# arguments: the gate's command up to its checks). One GPU per gate: with
# KERNELBLASTER_CTEST_GPUS, CTest allocates it (gpus:1 from the spec file
# `kernelblaster gpu resource-spec` writes) and the gate runs on it, so a
# multi-GPU runner runs a gate per GPU at once; else one lock holds every
# gate to one at a time.
function(_kernelblaster_add_gates target source out min_speedup)
  get_filename_component(_name "${source}" NAME)
  add_test(NAME kernelblaster.${target}.${_name}.correctness
    COMMAND ${ARGN} --check correctness --record "${out}.gate-correctness.json"
    --refresh-report "${CMAKE_BINARY_DIR}")
  add_test(NAME kernelblaster.${target}.${_name}.speed
    COMMAND ${ARGN} --check speed --min-speedup ${min_speedup} --record "${out}.gate-speed.json"
    --refresh-report "${CMAKE_BINARY_DIR}")
  if(KERNELBLASTER_CTEST_GPUS)
    set(_gpu_share RESOURCE_GROUPS "gpus:1")
  else()
    set(_gpu_share RESOURCE_LOCK kernelblaster_gpu)
  endif()
  set_tests_properties(kernelblaster.${target}.${_name}.correctness kernelblaster.${target}.${_name}.speed PROPERTIES
    LABELS "kernelblaster;gpu" SKIP_RETURN_CODE 77 ${_gpu_share} TIMEOUT 1800
    ENVIRONMENT_MODIFICATION "CUDA_INJECTION64_PATH=unset:;KERNELBLASTER_KERNEL_CAPTURE_DIR=unset:;KERNELBLASTER_CAPTURE_FILE=unset:;KERNELBLASTER_CAPTURE_DIR=unset:")
endfunction()

# Where a source has no harness (a `captures` entry other than "-"): the
# recording helper, the tests that record, and the line when no test can.
function(_kernelblaster_recording_setup target who gen recorder launches)
  set(_pairs_capture ${ARGN})
  set(_who "${who}")
  set(_gen "${gen}")
  set(_recorder "${recorder}")
  set(_launches "${launches}")
  _kernelblaster_target_settings(${target} NO_TESTS CAPTURE_TESTS MODE)
  # A program run by hand records through kernelblaster_generated/record,
  # which runs it with the kernel recorder and names the file the recording
  # shims append to: outside it (and ctest), nothing records.
  set(_recording ${_pairs_capture})
  list(FILTER _recording EXCLUDE REGEX "^-$")
  if(_MODE STREQUAL "APPLY")
    set(_recording "")  # MODE APPLY neither tunes nor records: its sources compile as written
  endif()
  set(_record_helper "${CMAKE_BINARY_DIR}/kernelblaster_generated/record")
  set(_calls "${CMAKE_BINARY_DIR}/kernelblaster_generated/calls")
  get_property(_helper_written GLOBAL PROPERTY _KERNELBLASTER_RECORD_HELPER)
  if(_recording AND NOT _helper_written)
    set_property(GLOBAL PROPERTY _KERNELBLASTER_RECORD_HELPER TRUE)
    set(_inject "")
    if(_recorder)
      set(_inject "CUDA_INJECTION64_PATH='${_recorder}' KERNELBLASTER_KERNEL_CAPTURE_DIR='${_launches}' ")
    endif()
    file(GENERATE OUTPUT "${_record_helper}" CONTENT
      "#!/bin/sh\n# Written by kernelblaster_optimize(): runs a program with the kernel recorder and the\n\
# recording shims on, so that the next build can synthesize harnesses from what it ran.\n\
# Usage: ${_record_helper} ./program args...\n\
${_inject}KERNELBLASTER_CAPTURE_DIR='${_calls}' exec \"$@\"\n"
      FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
  endif()
  # add_test() does nothing without enable_testing(): said, once per target.
  if(NOT _NO_TESTS AND NOT CMAKE_TESTING_ENABLED)
    string(CONCAT _line "kernelblaster: ${target}: the project does not call enable_testing(), so no correctness or "
      "speed gates are registered (call it before the end of this directory, or pass NO_TESTS to say none are wanted)")
    if(_recording AND NOT _CAPTURE_TESTS)
      file(RELATIVE_PATH _helper_rel "${CMAKE_BINARY_DIR}" "${_record_helper}")
      string(APPEND _line "; a program run as '${_helper_rel} ./program args' records what the next build needs")
    endif()
    message(STATUS "${_line}.")
  endif()

  # The named tests record: the shims record only where the environment
  # names the file.
  set(_recorded ${_recording})
  foreach(_t IN LISTS _CAPTURE_TESTS)
    if(NOT TEST "${_t}")
      message(FATAL_ERROR "${_who}: CAPTURE_TESTS names '${_t}', which is no test of this directory "
        "(add_test() it here, before the end of the directory).")
    endif()
    if(_recorded)
      set_property(TEST "${_t}" APPEND PROPERTY ENVIRONMENT "KERNELBLASTER_CAPTURE_FILE=${_gen}/capture/calls.jsonl")
      if(_recorder)
        set_property(TEST "${_t}" APPEND PROPERTY ENVIRONMENT
          "CUDA_INJECTION64_PATH=${_recorder}" "KERNELBLASTER_KERNEL_CAPTURE_DIR=${_launches}")
      endif()
    endif()
  endforeach()
  # Without CAPTURE_TESTS every test of the project records: ctest reads a
  # script at the top of the build tree that puts the recorder in its own
  # environment, which every test inherits (the gates take it out again).
  get_property(_injected GLOBAL PROPERTY _KERNELBLASTER_RECORD_TESTS)
  if(_recorded AND NOT _CAPTURE_TESTS AND NOT _injected)
    set_property(GLOBAL PROPERTY _KERNELBLASTER_RECORD_TESTS TRUE)
    set(_script "${CMAKE_BINARY_DIR}/kernelblaster_generated/record_kernel_launches.cmake")
    set(_inject "")
    if(_recorder)
      set(_inject "set(ENV{CUDA_INJECTION64_PATH} [==[${_recorder}]==])\n\
set(ENV{KERNELBLASTER_KERNEL_CAPTURE_DIR} [==[${_launches}]==])\n")
    endif()
    file(GENERATE OUTPUT "${_script}" CONTENT
      "# Written by kernelblaster_optimize(): every test records its kernel launches and launcher calls.\n\
${_inject}set(ENV{KERNELBLASTER_CAPTURE_DIR} [==[${CMAKE_BINARY_DIR}/kernelblaster_generated/calls]==])\n")
    set_property(DIRECTORY "${CMAKE_SOURCE_DIR}" APPEND PROPERTY TEST_INCLUDE_FILES "${_script}")
  endif()
endfunction()

# kernelblaster_tune[_<target>] and kernelblaster_harness_export[_<target>],
# running the TUNE_COMMANDS and EXPORT_COMMANDS given (each a list of
# `COMMAND ...` clauses; no export target without one).
function(_kernelblaster_on_demand_targets target _manifest)
  cmake_parse_arguments(PARSE_ARGV 2 _in "" "" "TUNE_COMMANDS;EXPORT_COMMANDS")
  _kernelblaster_target_settings(${target} TOOL_TARGET)
  set(_tune_commands ${_in_TUNE_COMMANDS})
  set(_export_commands ${_in_EXPORT_COMMANDS})
  # Long runs on demand, with the tuner's live progress on the terminal.
  add_custom_target(kernelblaster_tune_${target} ${_tune_commands}
    DEPENDS "${_manifest}" USES_TERMINAL VERBATIM
    COMMENT "KernelBlaster: tuning ${target}")
  if(_TOOL_TARGET)
    add_dependencies(kernelblaster_tune_${target} ${_TOOL_TARGET})
  endif()
  if(NOT TARGET kernelblaster_tune)
    add_custom_target(kernelblaster_tune COMMENT "KernelBlaster: tuned every optimized target")
  endif()
  add_dependencies(kernelblaster_tune kernelblaster_tune_${target})

  # Synthesized harnesses into the source tree, for review and commit: from
  # then on they are the sources' own harnesses.
  if(_export_commands)
    add_custom_target(kernelblaster_harness_export_${target} ${_export_commands} VERBATIM
      COMMENT "KernelBlaster: exporting the synthesized harnesses of ${target}")
    if(_TOOL_TARGET)
      add_dependencies(kernelblaster_harness_export_${target} ${_TOOL_TARGET})
    endif()
    if(NOT TARGET kernelblaster_harness_export)
      add_custom_target(kernelblaster_harness_export COMMENT "KernelBlaster: exported every synthesized harness")
    endif()
    add_dependencies(kernelblaster_harness_export kernelblaster_harness_export_${target})
  endif()
endfunction()

function(_kernelblaster_process_target target)
  string(TIMESTAMP _t0 "%s%f")
  set(_who "kernelblaster_optimize(${target})")
  _kernelblaster_target_settings(${target} MODE BUDGET MIN_SPEEDUP POLICY KB TARGET_GPU LOCKFILE SOURCES HARNESSES
    HARNESS_DIR NO_TESTS NO_CAPTURE CAPTURE_TESTS STRICT ALLOW_UNVERIFIED TOOL TOOL_TARGET CALL_US)

  set(_gen "${CMAKE_CURRENT_BINARY_DIR}/kernelblaster_generated/${target}")
  _kernelblaster_pair_sources("${_who}" "${target}" _pairs)
  if(NOT _pairs_src)
    return()  # no source to optimize: the lines above said why
  endif()
  if(_MODE STREQUAL "OFF")
    if(KERNELBLASTER_REPORT_CONFIGURE_TIME)
      message(STATUS "kernelblaster: ${target}: MODE OFF, the original sources are compiled")
    endif()
    return()
  endif()

  _kernelblaster_write_manifest(${target} "${_gen}" "${_pairs_src}" _manifest)
  _kernelblaster_step_arguments(${target} "${_manifest}" _common_args _gate_min_speedup _pool _recorder _launches)
  get_target_property(_target_sources ${target} SOURCES)
  set(_tune_commands "")
  set(_export_commands "")
  set(_stamps "")
  foreach(_s _h _cap IN ZIP_LISTS _pairs_src _pairs_harness _pairs_capture)
    _kernelblaster_add_source_step(${target} "${_s}" "${_h}" "${_cap}" GEN "${_gen}" MANIFEST "${_manifest}"
      COMMON_ARGS ${_common_args} GATE_MIN_SPEEDUP "${_gate_min_speedup}" POOL ${_pool}
      RECORDER "${_recorder}" LAUNCHES "${_launches}"
      SOURCES_VAR _target_sources STAMP_VAR _stamp TUNE_VAR _tune EXPORT_VAR _export)
    list(APPEND _stamps "${_stamp}")
    list(APPEND _tune_commands ${_tune})
    list(APPEND _export_commands ${_export})
  endforeach()
  set_property(TARGET ${target} PROPERTY SOURCES ${_target_sources})
  # The build tree's report reads every build step's stamp (its record); a
  # target left out of ALL is left out of the report's inputs too.
  get_target_property(_exclude ${target} EXCLUDE_FROM_ALL)
  if(NOT _exclude)
    set_property(GLOBAL APPEND PROPERTY _KERNELBLASTER_REPORT_STAMPS ${_stamps})
    set_property(GLOBAL APPEND PROPERTY _KERNELBLASTER_REPORT_TARGETS ${target})
    set_property(GLOBAL PROPERTY _KERNELBLASTER_REPORT_TOOL "${_TOOL}")
    set_property(GLOBAL PROPERTY _KERNELBLASTER_REPORT_TOOL_TARGET "${_TOOL_TARGET}")
  endif()
  _kernelblaster_recording_setup(${target} "${_who}" "${_gen}" "${_recorder}" "${_launches}" ${_pairs_capture})
  _kernelblaster_on_demand_targets(${target} "${_manifest}" TUNE_COMMANDS ${_tune_commands} EXPORT_COMMANDS ${_export_commands})
  if(KERNELBLASTER_REPORT_CONFIGURE_TIME)
    string(TIMESTAMP _t1 "%s%f")
    math(EXPR _us "${_t1} - ${_t0} + ${_CALL_US}")
    math(EXPR _ms "${_us} / 1000")
    list(LENGTH _pairs_src _n)
    message(STATUS "kernelblaster: ${target}: ${_n} sources, configure time ${_ms} ms (${_us} us)")
  endif()
endfunction()
