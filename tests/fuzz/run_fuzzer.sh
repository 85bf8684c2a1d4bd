#!/bin/sh
# Runs one libFuzzer target with its output in a log, and prints what CI
# shows: the executions and the time, or the end of the log on a failure.
#   run_fuzzer.sh NAME LOG FUZZER ARGS...
name=$1; log=$2; shift 2
"$@" > "$log" 2>&1
rc=$?
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
if [ "$rc" -eq 0 ]; then
  echo "fuzz.$name: ${runs:-?} executions (${rate:-?}/s), no crash"
else
  tail -n 60 "$log"
  echo "fuzz.$name: FAILED (exit $rc) after ${runs:-?} executions; the input is kept beside $log"
fi
exit "$rc"
