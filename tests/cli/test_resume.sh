#!/usr/bin/env bash
# Checkpoint and resume through the CLI: a run stopped by --max-steps (with --checkpoint-every)
# and continued with --resume, even in two stages, gives bit-identical trajectories, diagnostics
# and CSV (apart from wall times) to an uninterrupted run; resume errors exit with status 2.
source "$CLATTER_SOURCE_DIR/tests/cli/cli_lib.sh"
cd "$tmp"
scene="$CLATTER_SOURCE_DIR/scenes/examples/default.json"

expect_status 0 "full run" "$CLATTER_BIN" run "$scene" --quiet -o full.h5
expect_status 0 "partial run" "$CLATTER_BIN" run "$scene" --quiet -o part.h5 --checkpoint-every 1000 --max-steps 3333
expect "partial status" test "$(json_field part.h5 status)" = '"interrupted"'
expect "partial steps" test "$(json_field part.h5 steps)" = 3333
expect "checkpoint at the stop" test "$(json_field part.h5 checkpoint_step)" = 3333
expect "partial CSV rows" test "$(($(wc -l < part.csv) - 1))" -eq 3334
expect_status 0 "resume, stage 1" "$CLATTER_BIN" run --resume part.h5 --max-steps 2000 --quiet
expect "stage 1 steps" test "$(json_field part.h5 steps)" = 5333
expect_status 0 "resume, stage 2" "$CLATTER_BIN" run --resume part.h5 --quiet
expect "resumed status" test "$(json_field part.h5 status)" = '"complete"'
expect "resumed steps" test "$(json_field part.h5 steps)" = 10000
expect "no temporary files left" test ! -e part.h5.tmp -a ! -e part.csv.tmp
expect "bit-identical datasets" same_data full.h5 part.h5
expect "identical CSV apart from wall times" cmp -s <(csv_no_wall full.csv) <(csv_no_wall part.csv)

# Resuming a complete run is a no-op that keeps it complete and identical.
expect_status 0 "resume a complete run" "$CLATTER_BIN" run --resume part.h5 --quiet
expect "still identical" same_data full.h5 part.h5

# The final state hash (docs/output-format.md "state_hash"): the same for two runs of the scene
# and for the resumed run, another after a changed parameter; clatter info shows it.
full_hash=$(json_field full.h5 state_hash)
expect "state hash is 16 hex digits" grep -qxE '"[0-9a-f]{16}"' <<< "$full_hash"
expect "state hash step" test "$(json_field full.h5 state_hash_step)" = 10000
expect_status 0 "second full run" "$CLATTER_BIN" run "$scene" --quiet -o full2.h5
expect "same scene, same hash" test "$(json_field full2.h5 state_hash)" = "$full_hash"
expect "resumed run, same hash" test "$(json_field part.h5 state_hash)" = "$full_hash"
expect "text output shows the hash" grep -qx "final state hash   ${full_hash//\"/} (step 10000)" \
  <("$CLATTER_BIN" info full.h5)
expect_status 0 "changed parameter" "$CLATTER_BIN" run "$scene" --quiet -o gyro.h5 --set method.gyroscopic=off
gyro_hash=$(json_field gyro.h5 state_hash)
expect "changed parameter, other hash" test -n "$gyro_hash" -a "$gyro_hash" != "$full_hash"
expect_status 0 "interrupted run" "$CLATTER_BIN" run "$scene" --quiet -o stop.h5 --max-steps 10
expect "interrupted run: hash of its last step" test "$(json_field stop.h5 state_hash_step)" = 10
expect "the checkpoint holds the same hash" test \
  "$(h5dump -a /checkpoint/state_hash stop.h5 | sed -n 's/.*(0): "\(.*\)".*/"\1"/p')" = "$(json_field stop.h5 state_hash)"

# Errors.
expect_status 2 "resume a missing file" "$CLATTER_BIN" run --resume nothing.h5 --quiet 2> err.txt
expect "missing file message" grep -q "^clatter run: cannot resume: nothing.h5: cannot open: No such file or directory$" err.txt
echo garbage > bad.h5
expect_status 2 "resume a non-HDF5 file" "$CLATTER_BIN" run --resume bad.h5 --quiet 2> /dev/null
expect_status 2 "resume with a scene" "$CLATTER_BIN" run "$scene" --resume part.h5 --quiet 2> /dev/null
expect_status 2 "resume with --set" "$CLATTER_BIN" run --resume part.h5 --set duration=1 --quiet 2> /dev/null
finish
