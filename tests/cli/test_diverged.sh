#!/usr/bin/env bash
# Honest run status (docs/stepping.md "Divergence", docs/output-format.md):
# - a two-link arm held by explicit rotational dampers (damping 50 N m s/rad on links of 1 kg and
#   1 m, h = 0.2 s: h·damping / (I + m l²/4) ≈ 30, far past the explicit limit 2, 004 §3.2)
#   blows up at step 2 (kinetic energy 7.1e3 J against a bound of 631 J, the energy scale of
#   6.31 J times 100): the run ends `diverged`, exit status 3, the message naming the step, the
#   quantity, the body and the bound; the file keeps steps 0 and 1 and `clatter info --json`
#   reports it. The same arm with implicit dampers completes. Without the energy test the
#   infeasibility test stops it at the same step (joint 'elbow' torn apart); without either the
#   run goes on to a finite but absurd end (the non-finite test alone does not fire).
# - a 1000 kg cube on a 1 kg cube (h = 0.01, polyhedral cone, Lemke): a few steps end on a complementary basis
#   short of the tolerance 1e-10: solver status not_converged (never error), the run completes
#   with exit status 0, and the end-of-run report gives their count, the worst residual and the
#   first step, also with --quiet; `clatter info` reports the same numbers.
source "$CLATTER_SOURCE_DIR/tests/cli/cli_lib.sh"
cd "$tmp"
cat > arm.json <<'JSON'
{"name": "arm", "dimension": 2, "time_step": 0.2, "duration": 10, "gravity": [0, -9.81],
 "parameters": {"damping": 50, "treatment": "explicit"},
 "bodies": [
  {"name": "upper", "position": [0.5, 0], "mass": 1, "inertia": 0.0833,
   "shape": {"type": "box", "half_extents": [0.5, 0.05]}},
  {"name": "fore", "position": [1.5, 0], "mass": 1, "inertia": 0.0833,
   "shape": {"type": "box", "half_extents": [0.5, 0.05]}}
 ],
 "joints": [
  {"type": "revolute", "name": "shoulder", "body_a": "upper", "body_b": "world", "anchor_a": [-0.5, 0], "anchor_b": [0, 0]},
  {"type": "revolute", "name": "elbow", "body_a": "upper", "body_b": "fore", "anchor_a": [0.5, 0], "anchor_b": [-0.5, 0]}
 ],
 "forces": [
  {"type": "rotational-spring-damper", "name": "shoulder damper", "body_a": "upper", "damping": "$damping", "treatment": "$treatment"},
  {"type": "rotational-spring-damper", "name": "elbow damper", "body_a": "upper", "body_b": "fore", "damping": "$damping", "treatment": "$treatment"}
 ]
}
JSON
expect_status 3 "explicit dampers at h = 0.2: exit status 3 (diverged)" "$CLATTER_BIN" run arm.json -o arm.h5 --quiet 2> err.txt
cat err.txt
expect "stderr: diverged, the step" grep -q "^clatter run: diverged: step 2: the simulation diverged: energy (kinetic + gravity) " err.txt
expect "stderr: the quantity and the bound" grep -q "past the bound 631 J (divergence_energy_factor 100 x energy scale 6.31 J" err.txt
expect "stderr: the body" grep -q "most of it in body 'fore'" err.txt
expect "no temporary files left" test -f arm.h5 -a -f arm.csv -a ! -e arm.h5.tmp
expect "info --json: status diverged" test "$(json_field arm.h5 status)" = '"diverged"'
expect "info --json: the message names step, quantity, body, bound" sh -c \
  "'$CLATTER_BIN' info --json arm.h5 | grep -q '\"status_message\":\"step 2: the simulation diverged: energy (kinetic + gravity) .*past the bound 631 J.*body .fore'"
expect "the data end at the last good step" test "$(json_field arm.h5 steps)" = 1
expect "diagnostics rows 0, 1" test "$(json_field arm.h5 diagnostics_rows)" = 2
expect "info text shows it" sh -c "'$CLATTER_BIN' info arm.h5 | grep -q '^status  *diverged: step 2'"
expect_status 0 "implicit dampers: complete" "$CLATTER_BIN" run arm.json -o implicit.h5 --quiet --param treatment=implicit
expect "implicit: status complete" test "$(json_field implicit.h5 status)" = '"complete"'
expect_status 3 "energy test off: the infeasibility test stops it" "$CLATTER_BIN" run arm.json -o joint.h5 --quiet \
  --set method.divergence_energy_factor=0 2> err2.txt
cat err2.txt
expect "joint error message: step, joint, bodies, bound" grep -q \
  "^clatter run: diverged: step 2: the simulation diverged: joint error [0-9.]* m at joint 'elbow' (body 'upper', body 'fore'), past the bound 0.251 m (divergence_infeasibility_fraction 0.5 x size 0.502 m of body 'upper')" err2.txt
expect_status 0 "both tests off: the run 'completes'" "$CLATTER_BIN" run arm.json -o off.h5 --quiet \
  --set method.divergence_energy_factor=0 --set method.divergence_infeasibility_fraction=0
expect "off: final energy past 1e100 J" sh -c "'$CLATTER_BIN' info --json off.h5 | grep -q '\"final_energy\":[0-9.]*e+1[0-9][0-9]'"
expect_status 2 "a negative bound is bad input" "$CLATTER_BIN" run arm.json -o bad.h5 --quiet \
  --set method.divergence_energy_factor=-1 2> err3.txt
expect "bad bound: the JSON path" grep -q "method.divergence_energy_factor" err3.txt

cat > heavy.json <<'JSON'
{"name": "heavy", "dimension": 3, "time_step": 0.01, "duration": 1,
 "method": {"friction_cone": "polyhedral"},
 "bodies": [
  {"name": "floor", "type": "static", "shape": {"type": "halfspace", "normal": [0, 0, 1]}},
  {"name": "light", "position": [0, 0, 0.5], "mass": 1, "inertia": [0.1667, 0.1667, 0.1667],
   "shape": {"type": "box", "half_extents": [0.5, 0.5, 0.5]}},
  {"name": "heavy", "position": [0, 0, 1.5], "mass": 1000, "inertia": [166.7, 166.7, 166.7],
   "shape": {"type": "box", "half_extents": [0.5, 0.5, 0.5]}}
 ]
}
JSON
expect_status 0 "heavy on light: complete" "$CLATTER_BIN" run heavy.json -o heavy.h5 --quiet 2> err4.txt
cat err4.txt
expect "status complete" test "$(json_field heavy.h5 status)" = '"complete"'
# Column 9 is solver_status, 8 the residual (docs/output-format.md).
expect "CSV: solved or not_converged, never error" test "$(sed 1,2d heavy.csv | cut -d, -f9 | sort -u | tr '\n' ' ')" = "not_converged solved "
n=$(sed 1,2d heavy.csv | awk -F, '$9 == "not_converged"' | wc -l)
first=$(sed 1,2d heavy.csv | awk -F, '$9 == "not_converged" { print $1; exit }')
expect "a few not_converged steps ($n, first $first)" test "$n" -ge 1 -a "$n" -le 20
expect "not_converged residuals: above 1e-10, at most 1e-6" sh -c \
  "sed 1,2d heavy.csv | awk -F, '\$9 == \"not_converged\" && !(\$8 > 1e-10 && \$8 <= 1e-6) { bad++ } END { exit bad > 0 }'"
expect "HDF5: code 5" sh -c "h5dump -y -w 0 -d /diagnostics/solver_status heavy.h5 | grep -q '5'"
expect "end-of-run report even with --quiet: count, tolerance, first step" grep -q \
  "^clatter run: $n of 100 steps not solved to the tolerance 1e-10 (not_converged $n): worst residual [0-9.e-]* at step [0-9]*, first at step $first\$" err4.txt
expect "info: unconverged_steps" test "$(json_field heavy.h5 unconverged_steps)" = "$n"
expect "info: first step" test "$(json_field heavy.h5 unconverged_first_step)" = "$first"
expect "info: tolerance" test "$(json_field heavy.h5 tolerance)" = "1e-10"
expect "info text: the summary" sh -c "'$CLATTER_BIN' info heavy.h5 | grep -q '^unconverged steps  $n (not_converged $n): worst residual .* (tolerance 1e-10), first at step $first'"
expect_status 0 "converged: no report" "$CLATTER_BIN" run heavy.json -o ok.h5 --quiet --set method.tolerance=1e-6 2> err5.txt
expect "converged: stderr empty" test ! -s err5.txt
finish
