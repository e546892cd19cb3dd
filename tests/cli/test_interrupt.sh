#!/usr/bin/env bash
# SIGINT/SIGTERM during a run: the run stops after the current step, finishes writing, marks the
# file "interrupted" and renames it: exit status 130 (SIGINT) / 143 (SIGTERM), a valid truncated
# file with fewer rows than a full run, and a checkpoint from which --resume continues.
source "$CLATTER_SOURCE_DIR/tests/cli/cli_lib.sh"
cd "$tmp"

interrupt() { # signal output
  # 10^7 steps: far longer than the test waits; the signal arrives once the run is under way.
  "$CLATTER_BIN" run --quiet -o "$2" --set duration=10000 &
  local pid=$!
  for _ in $(seq 100); do
    [ -e "$2.tmp" ] && break
    sleep 0.05
  done
  sleep 0.3
  kill -s "$1" "$pid"
  wait "$pid"
}

expect_status 130 "SIGINT" interrupt INT int.h5
expect "renamed output" test -f int.h5 -a ! -e int.h5.tmp -a -f int.csv -a ! -e int.csv.tmp
expect "status interrupted" test "$(json_field int.h5 status)" = '"interrupted"'
steps=$(json_field int.h5 steps)
expect "some steps were taken" test "$steps" -gt 0
expect "fewer steps than the scene" test "$steps" -lt 10000000
expect "checkpoint at the last step" test "$(json_field int.h5 checkpoint_step)" = "$steps"
expect "diagnostics rows = steps + 1" test "$(json_field int.h5 diagnostics_rows)" = "$((steps + 1))"
expect "CSV rows = steps + 1" test "$(($(wc -l < int.csv) - 1))" -eq "$((steps + 1))"
expect "h5dump reads the whole file" sh -c "h5dump int.h5 > /dev/null"
expect_status 0 "resume 100 more steps" "$CLATTER_BIN" run --resume int.h5 --max-steps 100 --quiet
expect "resumed steps" test "$(json_field int.h5 steps)" = "$((steps + 100))"

expect_status 143 "SIGTERM" interrupt TERM term.h5
expect "SIGTERM status interrupted" test "$(json_field term.h5 status)" = '"interrupted"'
finish
