#!/usr/bin/env bash
# `clatter run` with the built-in default scene: output names, HDF5 layout (h5dump/h5ls), CSV
# header and rows, `clatter info` (text and --json; its solves summary on a relaxed step that is
# solved twice), no progress bar off a terminal, and determinism (two runs give bit-identical
# trajectories and diagnostics except wall times).
source "$CLATTER_SOURCE_DIR/tests/cli/cli_lib.sh"
cd "$tmp"

expect_status 0 "default run" "$CLATTER_BIN" run > run.out 2> run.err
expect "default.h5 written" test -f default.h5
expect "default.csv written" test -f default.csv
expect "no temporary files left" test ! -e default.h5.tmp -a ! -e default.csv.tmp
expect "stderr is empty off a terminal (no progress bar)" test ! -s run.err
expect "summary line on stdout" grep -q "^default: complete, 10000 of 10000 steps" run.out

# CSV: the documented header, then one row per step including step 0.
header="step,t,bodies,contacts,joints,lcp_size,iterations,residual,solver_status,infeasibility,penetration,joint_error,kinetic_energy,potential_energy,wall_s,constraints,relcp_iterations,max_overlap,wall_collide_s,wall_assemble_s,wall_solve_s,solves,set_misses,touching_contacts,work_bytes,arena_bytes"
expect "CSV header" test "$(head -1 default.csv)" = "$header"
expect "CSV has 10001 rows" test "$(($(wc -l < default.csv) - 1))" -eq 10001
expect "CSV step 0 row" grep -q "^0,0,2,0,0,0,0,0,none," default.csv
expect "CSV last row" grep -q "^10000,10,2," default.csv
expect "CSV numbers round-trip (%.17g)" grep -q "^1,0.001,2,0,0,0,0,0,none,0,0,0,[0-9.]\{15,\}," default.csv

# HDF5 layout.
expect "root attribute status = complete" sh -c "h5dump -a /status default.h5 | grep -q '\"complete\"'"
expect "root attribute format" sh -c "h5dump -a /format default.h5 | grep -q '\"clatter-run\"'"
for d in scene bodies/name bodies/type bodies/mass bodies/inertia shapes/type shapes/half_extents \
         trajectory/step trajectory/time diagnostics/step diagnostics/residual diagnostics/wall_s; do
  expect "dataset /$d" sh -c "h5ls default.h5/$d > /dev/null"
done
expect "position is 1001 x 2 x 3" sh -c "h5ls default.h5/trajectory/position | grep -q '{1001/Inf, 2, 3}'"
expect "orientation is 1001 x 2 x 4" sh -c "h5ls default.h5/trajectory/orientation | grep -q '{1001/Inf, 2, 4}'"
expect "angular_velocity is 1001 x 2 x 3" sh -c "h5ls default.h5/trajectory/angular_velocity | grep -q '{1001/Inf, 2, 3}'"
expect "diagnostics rows" sh -c "h5ls default.h5/diagnostics/kinetic_energy | grep -q '{10001/Inf}'"
expect "scene JSON stored" sh -c "h5dump -d /scene default.h5 | grep -q '\"name\": \"default\"'"

# clatter info.
expect_status 0 "info" "$CLATTER_BIN" info default.h5 > info.txt
expect "info text names the scene" grep -q "^scene *default (3D" info.txt
expect "info --json scene" test "$(json_field default.h5 scene)" = '"default"'
expect "info --json dimension" test "$(json_field default.h5 dimension)" = 3
expect "info --json steps" test "$(json_field default.h5 steps)" = 10000
expect "info --json final_time" test "$(json_field default.h5 final_time)" = 10
expect "info --json bodies" test "$(json_field default.h5 bodies)" = 2
expect "info --json status" test "$(json_field default.h5 status)" = '"complete"'
expect "info --json max_infeasibility" test "$(json_field default.h5 max_infeasibility)" = 0
expect "info --json is one line" test "$("$CLATTER_BIN" info --json default.h5 | wc -l)" -eq 1
expect "info --json max_solves (one solve a step)" test "$(json_field default.h5 max_solves)" = 1
expect "info --json resolved_steps" test "$(json_field default.h5 resolved_steps)" = 0
expect "info text has no solves line" sh -c "! grep -q '^solves' info.txt"
# A relaxed step solved twice (tests/stepper/test_relaxed_swept: a push through touching spheres).
cat > push.json <<'JSON'
{"name": "push", "dimension": 3, "time_step": 0.01, "duration": 0.01, "gravity": [0, 0, 0],
 "method": {"scheme": "relaxed", "solver": "bgs", "tolerance": 1e-10, "max_iterations": 10000},
 "materials": {"default": {"friction": 0, "density": 1000}},
 "bodies": [
  {"name": "a", "position": [0, 0, 0], "velocity": [10, 0, 0], "shape": {"type": "sphere", "radius": 0.05}},
  {"name": "b", "position": [0.1, 0, 0], "shape": {"type": "sphere", "radius": 0.05}},
  {"name": "c", "position": [0.22, 0, 0], "shape": {"type": "sphere", "radius": 0.05}}
 ]
}
JSON
expect_status 0 "relaxed push run" "$CLATTER_BIN" run push.json -o push.h5 --quiet
expect "CSV: step 1 took 2 solves" test "$(sed -n 3p push.csv | cut -d, -f22)" = 2
expect "info --json max_solves 2" test "$(json_field push.h5 max_solves)" = 2
expect "info --json resolved_steps 1" test "$(json_field push.h5 resolved_steps)" = 1
expect "info --json set_miss_steps 0" test "$(json_field push.h5 set_miss_steps)" = 0
expect "info text solves line" sh -c "'$CLATTER_BIN' info push.h5 | grep -q '^solves *at most 2 a step; 1 steps solved again (the active set.s test), 0 left bodies outside their boxes$'"
expect "no penetration (below 1e-9 m)" awk -v p="$(json_field push.h5 max_penetration)" 'BEGIN { exit !(p < 1e-9) }'
expect_status 2 "info on a missing file" "$CLATTER_BIN" info missing.h5 2> err.txt
expect "info missing-file message" grep -q "^clatter info: missing.h5: cannot open: No such file or directory$" err.txt
echo "not hdf5" > garbage.h5
expect_status 2 "info on a non-HDF5 file" "$CLATTER_BIN" info --json garbage.h5 2> err.txt
expect "info garbage message" grep -q "^clatter info: garbage.h5: not an HDF5 file (or damaged)$" err.txt
head -c 4096 default.h5 > cut.h5
expect_status 2 "info on a truncated file" "$CLATTER_BIN" info cut.h5 2> /dev/null
expect_status 2 "info without a file" "$CLATTER_BIN" info 2> /dev/null

# Determinism: the same scene again, into another file.
expect_status 0 "second run" "$CLATTER_BIN" run --quiet -o again.h5
expect "identical trajectories and diagnostics" same_data default.h5 again.h5
expect "identical CSV apart from wall times" cmp -s <(csv_no_wall default.csv) <(csv_no_wall again.csv)
# ...and a different scene really differs (the comparison can fail).
expect_status 0 "perturbed run" "$CLATTER_BIN" run --quiet -o other.h5 --set 'bodies[0].angular_velocity=[0.02, 5, 0.01]'
checks=$((checks + 1))
if same_data default.h5 other.h5 >/dev/null; then fail "a perturbed run compared equal"; fi

# An output directory that does not exist: runtime failure, status 1.
expect_status 1 "unwritable output" "$CLATTER_BIN" run --quiet -o no/such/dir/x.h5 2> /dev/null
finish
