#!/usr/bin/env bash
# Issue [relcp] acceptance 1 (SPEC.md §6.2): every accepted ReLCP step keeps the max TRUE overlap
# at or below method.overlap_tolerance. The three paper scenes (scenes/papers/ellipsoids2,
# chainmail, suspension) run a few steps at their large step size with contact_model relcp under
# the overdamped law, and every row of the diagnostics CSV must have max_overlap <= tolerance; each
# run must also have had contact constraints (else the check would be empty). The suspension file
# starts dilute (no contacts for many steps), so a dense 216-body suspension made by the same
# generator (bench/relcp/make_suspension.py) runs as well.
source "$CLATTER_SOURCE_DIR/tests/cli/cli_lib.sh"
cd "$tmp"
papers="$CLATTER_SOURCE_DIR/scenes/papers"

# check_run NAME TOLERANCE MIN_CONSTRAINT_STEPS: reads NAME.csv.
check_run() {
  local name=$1 tol=$2 need=$3
  checks=$((checks + 1))
  if [ ! -s "$name.csv" ]; then fail "$name: no CSV"; return; fi
  awk -F, -v tol="$tol" -v need="$need" -v name="$name" '
    NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i
              if (!("max_overlap" in col) || !("constraints" in col)) { print "FAIL: " name ": columns missing"; bad = 1; exit }
              next }
    { n++; ov = $(col["max_overlap"]) + 0; if (ov > worst) worst = ov
      if (ov > tol) { bad = 1; if (shown++ < 5) printf "FAIL: %s: step %s: max_overlap %.6g > tolerance %g\n", name, $1, ov, tol }
      if ($(col["constraints"]) + 0 > 0) with++ }
    END { if (!bad && with < need) { printf "FAIL: %s: only %d of %d steps had constraints (need %d)\n", name, with, n, need; bad = 1 }
          if (!bad) printf "%s: %d steps, %d with constraints, worst max_overlap %.3g <= %g\n", name, n, with, worst, tol
          exit bad }' "$name.csv" || fail "$name: overlap check"
}

run() { # name scene args...
  local name=$1 scene=$2; shift 2
  expect_status 0 "$name runs" "$CLATTER_BIN" run "$scene" -o "$name.h5" --quiet \
    --set method.contact_model=relcp --set output.trajectory=false "$@"
}

# ellipsoids2 at the coarsest h of the refinement study (0.1 s): approach, collision, separation.
run e2 "$papers/ellipsoids2.json" --param h=0.1 --set duration=4
check_run e2 1e-6 3
# chainmail at its large step (0.2 s): 30 steps, the links engage after ~3.4 s.
run chainmail "$papers/chainmail.json" --param h=0.2 --set duration=6
check_run chainmail 1e-3 5
# The 10 000-ellipsoid suspension at the large step (0.1 s): loads and steps (dilute: few contacts).
run suspension "$papers/suspension.json" --param h=0.1 --set duration=0.3
check_run suspension 1e-3 0
# A dense one: 216 ellipsoids on a cubic lattice at 9 % (bounding spheres 0.2 m apart), random
# orientations, pulled inward 13x harder: contacts from the 6th step on.
if /usr/bin/python3 "$CLATTER_SOURCE_DIR/bench/relcp/make_suspension.py" --n 216 --phi 0.09 --lattice \
     --seed 3 --stiffness 4 -o dense.json > /dev/null; then
  run dense dense.json --param h=0.1 --set duration=1.5
  check_run dense 1e-3 5
  # The check has teeth: the same run with snsd (iteration 0 only) overlaps beyond the tolerance.
  expect_status 0 "dense snsd runs" "$CLATTER_BIN" run dense.json -o snsd.h5 --quiet --param h=0.1 \
    --set duration=1.5 --set method.contact_model=snsd --set output.trajectory=false
  expect "snsd exceeds the tolerance" awk -F, -v tol=1e-3 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
    $(col["max_overlap"]) + 0 > tol { found = 1 } END { exit !found }' snsd.csv
else
  fail "make_suspension.py"
fi

echo "$checks checks, $failures failures"
[ "$failures" -eq 0 ]
