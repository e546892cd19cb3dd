#!/usr/bin/env bash
# Failing steps through the CLI (issue 4 acceptance; SPEC.md §7):
# - a state that becomes non-finite (an explicit spring of stiffness 1e12 N/m on 1 kg at h = 0.01:
#   ωh = 1e4, the amplitude grows ~1e8 per step and overflows at step 21, with the energy test of
#   docs/stepping.md "Divergence" off) stops the run with exit status 3 (diverged) and a message
#   naming the step and the body; the HDF5 and CSV written so far are valid, status "diverged",
#   ending at the last good step (20), readable by `clatter info` and h5dump; with the energy
#   test on (the default) the run stops at step 1 already;
# - a solver that stops at max_iterations (BGS, 1 sweep, box on a floor) is recorded per step in
#   the diagnostics (solver_status = max_iterations with the residual, HDF5 and CSV; `info`
#   counts the unconverged steps), the run completing; with on_unconverged = abort it stops with
#   exit status 1 and a message giving the status and the residual.
source "$CLATTER_SOURCE_DIR/tests/cli/cli_lib.sh"
cd "$tmp"
cat > blowup.json <<'JSON'
{"name": "blowup", "dimension": 3, "time_step": 0.01, "duration": 1, "gravity": [0, 0, 0],
 "bodies": [
  {"name": "weight", "position": [1, 0, 0], "mass": 1, "inertia": [0.1, 0.1, 0.1],
   "shape": {"type": "sphere", "radius": 0.1}}
 ],
 "forces": [{"type": "spring-damper", "body_a": "weight", "stiffness": 1e12, "rest_length": 0}],
 "output": {"interval_steps": 5}
}
JSON
expect_status 3 "energy test: exit status 3" "$CLATTER_BIN" run blowup.json -o early.h5 --quiet 2> err0.txt
expect "energy test: step 1, body 'weight'" grep -q "^clatter run: diverged: step 1: the simulation diverged: energy .*body 'weight'" err0.txt
expect_status 3 "non-finite state: exit status 3" "$CLATTER_BIN" run blowup.json -o blowup.h5 --quiet \
  --set method.divergence_energy_factor=0 2> err.txt
expect "message names the step and the body" grep -q "^clatter run: diverged: step 21: the simulation diverged: the state of body 'weight' became non-finite" err.txt
expect "no temporary files left" test -f blowup.h5 -a -f blowup.csv -a ! -e blowup.h5.tmp -a ! -e blowup.csv.tmp
expect "info reads it" sh -c "'$CLATTER_BIN' info --json blowup.h5 > info.json"
expect "status diverged" test "$(json_field blowup.h5 status)" = '"diverged"'
expect "status_message names step and body" sh -c "grep -q 'step 21.*weight' info.json"
expect "ends at the last good step" test "$(json_field blowup.h5 steps)" = 20
expect "diagnostics rows 0..20" test "$(json_field blowup.h5 diagnostics_rows)" = 21
expect "frames 0, 5, ..., 20" test "$(json_field blowup.h5 frames)" = 5
expect "CSV: header + 21 rows" test "$(wc -l < blowup.csv)" -eq 22
expect "CSV ends with step 20" test "$(tail -1 blowup.csv | cut -d, -f1)" = 20
expect "stored positions finite" sh -c "! h5dump -y -d /trajectory/position blowup.h5 | grep -qi 'nan\|inf'"
expect "h5dump reads the whole file" sh -c "h5dump blowup.h5 > /dev/null"
expect "contacts group consistent with the frames" sh -c "h5ls blowup.h5/contacts/count | grep -q '{5/Inf}'"
expect_status 0 "render the last frame" sh -c "'$CLATTER_BIN' render blowup.h5 --frame 3 --size 100x80 -o b.png > /dev/null"

cat > box.json <<'JSON'
{"name": "box", "dimension": 3, "time_step": 0.01, "duration": 0.2,
 "method": {"solver": "bgs", "max_iterations": 1, "tolerance": 1e-10},
 "bodies": [
  {"name": "floor", "type": "static", "shape": {"type": "halfspace", "normal": [0, 0, 1]}},
  {"name": "box", "position": [0, 0, 0.25], "mass": 2, "inertia": [0.1, 0.1, 0.1],
   "shape": {"type": "box", "half_extents": [0.5, 0.4, 0.25]}}
 ]
}
JSON
expect_status 0 "unconverged steps are recorded, the run completes" "$CLATTER_BIN" run box.json -o bgs.h5 --quiet
# Column 9 is solver_status, 8 the residual, 7 the iterations (docs/output-format.md).
expect "CSV: step 0 none" test "$(sed -n 2p bgs.csv | cut -d, -f9)" = none
expect "CSV: steps 1..20 max_iterations" test "$(sed 1,2d bgs.csv | cut -d, -f9 | sort -u)" = max_iterations
expect "CSV: residual above the tolerance" sh -c "sed 1,2d bgs.csv | cut -d, -f8 | awk '!(\$1 > 1e-10) { bad++ } END { exit bad > 0 || NR != 20 }'"
expect "HDF5: solver_status 3" test "$(h5dump -y -w 0 -d /diagnostics/solver_status bgs.h5 | awk '/DATA {/ { on = 1; next } on && /}/ { exit } on' | tr -d ' \n')" = \
  "0,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3"
expect "info counts 20 unconverged steps" test "$(json_field bgs.h5 unconverged_steps)" = 20
expect_status 0 "converged with enough iterations" "$CLATTER_BIN" run box.json -o ok.h5 --quiet --set method.max_iterations=10000
expect "CSV: solved" test "$(sed 1,2d ok.csv | cut -d, -f9 | sort -u)" = solved
expect "info counts none" test "$(json_field ok.h5 unconverged_steps)" = 0
expect_status 1 "on_unconverged = abort stops the run" "$CLATTER_BIN" run box.json -o abort.h5 --quiet --set method.on_unconverged=abort 2> err2.txt
expect "abort message: step, status, residual" grep -q "^clatter run: step 1 failed (solver): .*max_iterations, residual [0-9]" err2.txt
expect "abort: status error" test "$(json_field abort.h5 status)" = '"error"'
expect "abort: data end at step 0" test "$(json_field abort.h5 steps)" = 0
finish
