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

# Errors.
expect_status 2 "resume a missing file" "$CLATTER_BIN" run --resume nothing.h5 --quiet 2> err.txt
expect "missing file message" grep -q "^clatter run: cannot resume: nothing.h5: cannot open: No such file or directory$" err.txt
echo garbage > bad.h5
expect_status 2 "resume a non-HDF5 file" "$CLATTER_BIN" run --resume bad.h5 --quiet 2> /dev/null
expect_status 2 "resume with a scene" "$CLATTER_BIN" run "$scene" --resume part.h5 --quiet 2> /dev/null
expect_status 2 "resume with --set" "$CLATTER_BIN" run --resume part.h5 --set duration=1 --quiet 2> /dev/null
finish
