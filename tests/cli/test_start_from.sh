#!/usr/bin/env bash
# Branching a run from another run's checkpoint (clatter run --start-from RUN.h5 -o NEW.h5):
# with the same settings the branch continues bit for bit (its rows equal the uninterrupted run's
# from the checkpoint on); --set changes the branch's settings; the branch can itself be stopped
# and resumed; the run file it starts from is never changed; bad uses exit with status 2 and say
# why, and leave no output behind.
source "$CLATTER_SOURCE_DIR/tests/cli/cli_lib.sh"
cd "$tmp"
scene="$CLATTER_SOURCE_DIR/scenes/examples/default.json"

expect_status 0 "full run" "$CLATTER_BIN" run "$scene" --quiet -o full.h5
expect_status 0 "partial run" "$CLATTER_BIN" run "$scene" --quiet -o part.h5 --checkpoint-every 1000 --max-steps 3333
cp part.h5 part.copy.h5
cp part.csv part.copy.csv

# Same settings (the scene stored in part.h5): the rows from step 3333 on are the full run's (the
# first row, the checkpoint's state, has no step's solver columns; this scene has no contacts, so
# they are 0 in the full run too).
expect_status 0 "branch" "$CLATTER_BIN" run --start-from part.h5 -o branch.h5 --quiet
expect "branch status" test "$(json_field branch.h5 status)" = '"complete"'
expect "branch steps" test "$(json_field branch.h5 steps)" = 10000
expect "branch CSV rows (steps 3333..10000)" test "$(($(wc -l < branch.csv) - 1))" -eq 6668
expect "branch first row is the checkpoint's step" test "$(sed -n 2p branch.csv | cut -d, -f1)" = 3333
expect "branch rows equal the full run's" \
  cmp -s <(csv_no_wall full.csv | tail -n +3335) <(csv_no_wall branch.csv | tail -n +2)
expect "first_step attribute" test "$(h5dump -a /first_step branch.h5 | sed -n 's/^ *(0): //p')" = 3333
expect "clatter info: first_step" test "$(json_field branch.h5 first_step)" = 3333
expect "clatter info: first_step of a plain run" test "$(json_field full.h5 first_step)" = 0
expect "clatter info text" sh -c "'$CLATTER_BIN' info branch.h5 | grep -q '^started from       step 3333 (another run'\''s checkpoint)$'"
expect "the run file started from is unchanged" cmp -s part.h5 part.copy.h5
expect "its CSV is unchanged" cmp -s part.csv part.copy.csv

# The same with the scene file given: identical.
expect_status 0 "branch with SCENE.json" "$CLATTER_BIN" run "$scene" --start-from part.h5 -o branch2.h5 --quiet
expect "same rows" cmp -s <(csv_no_wall branch.csv) <(csv_no_wall branch2.csv)

# Other settings: without gravity the potential energy (column 14) is 0 in every row of the branch.
expect_status 0 "branch without gravity" "$CLATTER_BIN" run --start-from part.h5 -o nog.h5 --set 'gravity=[0,0,0]' --quiet
expect "no gravity in the branch" test "$(tail -n +2 nog.csv | cut -d, -f14 | sort -u)" = 0
expect "gravity in the full run" test "$(tail -n +3335 full.csv | cut -d, -f14 | sort -u | wc -l)" -gt 1

# A branch stopped early and resumed equals the uninterrupted branch (first_step kept).
expect_status 0 "branch, stopped" "$CLATTER_BIN" run --start-from part.h5 -o staged.h5 --max-steps 1000 \
  --checkpoint-every 500 --quiet
expect "stopped at 4333" test "$(json_field staged.h5 steps)" = 4333
expect_status 0 "branch, resumed" "$CLATTER_BIN" run --resume staged.h5 --quiet
expect "resumed branch equals the branch" cmp -s <(csv_no_wall branch.csv) <(csv_no_wall staged.csv)
expect "resumed branch datasets" same_data branch.h5 staged.h5
# A branch that never wrote a checkpoint of its own cannot be resumed (its start is in another file).
expect_status 2 "resume a branch without a checkpoint" "$CLATTER_BIN" run --resume branch.h5 --quiet 2> err.txt
expect "its message" grep -q "^clatter run: cannot resume: branch.h5: has no checkpoint of its own (it started from another run's at step 3333)$" err.txt

# The help lists the option, and the option after it still starts its own line.
expect "help: --start-from" sh -c "'$CLATTER_BIN' run --help | grep -q '^  --start-from RUN.h5 '"
expect "help: --max-steps on its own line" sh -c "'$CLATTER_BIN' run --help | grep -q '^  --max-steps N '"

# Errors: status 2, a message naming the file and the reason, no output written.
check_error() { # description expected-message args...
  local what=$1 want=$2; shift 2
  expect_status 2 "$what" "$CLATTER_BIN" run "$@" --quiet 2> err.txt
  expect "$what: message" grep -qF "$want" err.txt
  expect "$what: no output" test ! -e out.h5 -a ! -e out.csv -a ! -e out.h5.tmp
}
check_error "no -o" "clatter run: --start-from part.h5 needs -o OUT.h5 (the run file it starts from is not changed)" \
  --start-from part.h5
check_error "-o is the source" "clatter run: -o part.h5 is the run file given to --start-from" \
  --start-from part.h5 -o part.h5
expect "the source survived" cmp -s part.h5 part.copy.h5
check_error "missing file" "clatter run: cannot start from: nothing.h5: cannot open: No such file or directory" \
  --start-from nothing.h5 -o out.h5
echo garbage > bad.h5
check_error "not HDF5" "clatter run: cannot start from: bad.h5: cannot open as HDF5" --start-from bad.h5 -o out.h5
check_error "no checkpoint" "clatter run: cannot start from: full.h5: has no checkpoint" --start-from full.h5 -o out.h5
check_error "ends before the checkpoint" \
  "part.h5: its checkpoint is at step 3333 (t = 3.333 s), at or past the scene's end (step 2000, duration 2 s)" \
  --start-from part.h5 -o out.h5 --set duration=2
check_error "other bodies" \
  "clatter run: cannot start from: part.h5: its bodies are not this scene's: body 0 (floor) has 1 shape(s) and is dynamic there, 1 and not dynamic in this scene" \
  "$CLATTER_SOURCE_DIR/scenes/examples/tumbling_box.json" --start-from part.h5 -o out.h5
check_error "other body count" "clatter run: cannot start from: part.h5: its bodies are not this scene's: it has 2 bodies, this scene 15" \
  "$CLATTER_SOURCE_DIR/scenes/papers/pile.json" --param n=10 --start-from part.h5 -o out.h5
check_error "with --resume" "cannot be combined with a scene, -o, --set, --param, --start-from or --overwrite" \
  --resume part.h5 --start-from part.h5
finish
