#!/usr/bin/env bash
# `clatter analyze` (docs/analysis.md) on real runs with known answers. A column of five spheres
# (r = 0.05 m, 1 kg) stepped to rest on a floor: packing fraction π/6 in the column's box, one
# sphere per slab of the profile, Z = 9/5 with every sphere a rattler by the rule of 2 (the top one
# has one partner, and so on down), the touching contacts carrying 5, 4, 3, 2, 1 weights, and in
# the cell around each sphere–sphere contact σ_zz = the weight above / (2r)². Six spheres of 1 … 6 kg
# in free fall through z = 0, one per 0.1 s interval (crossing at 0.15, 0.25, … 0.65 s, between
# frames): the flow table has their masses, signed, and −21 kg over the second; with an orifice
# only those inside. Then the output file (written whole, replaced, never left half), and the
# errors: exit status 2 with the option named, 1 when the output cannot be written.
source "$CLATTER_SOURCE_DIR/tests/cli/cli_lib.sh"
cd "$tmp"
cat > column.json <<'JSON'
{"name": "column", "dimension": 3, "time_step": 0.01, "duration": 1,
 "bodies": [
  {"name": "floor", "type": "static", "shape": {"type": "halfspace", "normal": [0, 0, 1]}},
  {"position": [0, 0, 0.05], "mass": 1, "inertia": [0.001, 0.001, 0.001], "shape": {"type": "sphere", "radius": 0.05}},
  {"position": [0, 0, 0.15], "mass": 1, "inertia": [0.001, 0.001, 0.001], "shape": {"type": "sphere", "radius": 0.05}},
  {"position": [0, 0, 0.25], "mass": 1, "inertia": [0.001, 0.001, 0.001], "shape": {"type": "sphere", "radius": 0.05}},
  {"position": [0, 0, 0.35], "mass": 1, "inertia": [0.001, 0.001, 0.001], "shape": {"type": "sphere", "radius": 0.05}},
  {"position": [0, 0, 0.45], "mass": 1, "inertia": [0.001, 0.001, 0.001], "shape": {"type": "sphere", "radius": 0.05}}
 ],
 "output": {"interval_steps": 10}
}
JSON
expect_status 0 "run the column" "$CLATTER_BIN" run column.json -o column.h5 --quiet
# near A B TOL: |A − B| ≤ TOL
near() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= t) }'; }
# field CSV ROW COLUMN-NAME: the value (ROW 1 = the first data row)
field() { awk -F, -v row="$2" -v name="$3" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i }
  NR == row + 1 { print $c }' "$1"; }

"$CLATTER_BIN" analyze column.h5 --what packing --region -0.05,-0.05,0,0.05,0.05,0.5 > packing.csv
expect "packing: header" test "$(head -1 packing.csv)" = \
  "frame,step,time,region_volume,solid_volume,packing_fraction,particles,by_centre"
expect "packing: the last frame (10, step 100)" test "$(field packing.csv 1 frame),$(field packing.csv 1 step)" = "10,100"
expect "packing: pi/6 in the column's box" near "$(field packing.csv 1 packing_fraction)" 0.5235987755982988 1e-12
expect "packing: five particles" test "$(field packing.csv 1 particles)" = 5

"$CLATTER_BIN" analyze column.h5 --what profile --region -0.05,-0.05,0,0.05,0.05,0.5 --bins 5 --frames -1 > profile.csv
expect "profile: five slabs" test "$(wc -l < profile.csv)" = 6
for b in 1 2 3 4 5; do
  expect "profile: slab $b holds one sphere, pi/6" sh -c "[ $(field profile.csv $b particles) = 1 ] &&
    awk -v a=$(field profile.csv $b solid_fraction) 'BEGIN { d = a - 0.5235987755982988; exit !(d < 1e-12 && d > -1e-12) }'"
  expect "profile: slab $b at rest" near "$(field profile.csv $b velocity_z)" 0 1e-9
done

"$CLATTER_BIN" analyze column.h5 --what coordination --frames 5:10:5 > coordination.csv
expect "coordination: frames 5 and 10" test "$(cut -d, -f1 coordination.csv | tr '\n' ' ')" = "frame 5 10 "
expect "coordination: Z = 9/5" test "$(field coordination.csv 2 partners),$(field coordination.csv 2 coordination)" = "9,1.8"
expect "coordination: all rattle (the top has one partner, then the next ...)" \
  test "$(field coordination.csv 2 rattlers),$(field coordination.csv 2 mechanical_coordination)" = "5,nan"
"$CLATTER_BIN" analyze column.h5 --what coordination --min-contacts 1 > coordination1.csv
expect "coordination --min-contacts 1: no rattlers, Z* = Z" \
  test "$(field coordination1.csv 1 rattlers),$(field coordination1.csv 1 mechanical_coordination)" = "0,1.8"

"$CLATTER_BIN" analyze column.h5 --what forces > forces.csv
expect "forces: five touching contacts" test "$(wc -l < forces.csv)" = 6
expect "forces: normal forces sum to 15 m g" near "$(awk -F, 'NR > 1 { s += $15 } END { printf "%.12g", s }' forces.csv)" \
  "$(awk 'BEGIN { printf "%.12g", 15 * 9.81 }')" 1e-6
expect "forces: branches are 2r between spheres, r to the floor" \
  sh -c "awk -F, 'NR > 1 { l = \$18 < 0 ? -\$18 : \$18; if (\$4 == 0 || \$5 == 0) { if (l < 0.0499999 || l > 0.0500001) bad++ }
    else if (l < 0.0999999 || l > 0.1000001) bad++ } END { exit bad > 0 }' forces.csv"

for i in 1 2 3 4; do
  z=$(awk -v i=$i 'BEGIN { printf "%g,%g", 0.1 * i - 0.05, 0.1 * i + 0.05 }')
  "$CLATTER_BIN" analyze column.h5 --what stress --region "-0.05,-0.05,${z%,*},0.05,0.05,${z#*,}" > stress$i.csv
  expect "stress: sigma_zz above contact $i = $((5 - i)) m g / (2r)^2" near "$(field stress$i.csv 1 sigma_zz)" \
    "$(awk -v i=$i 'BEGIN { printf "%.12g", (5 - i) * 9.81 / 0.01 }')" 1e-5
  expect "stress: one contact in the cell, no shear" sh -c "[ $(field stress$i.csv 1 contacts) = 1 ] &&
    awk -v a=$(field stress$i.csv 1 sigma_xz) 'BEGIN { exit !(a < 1e-6 && a > -1e-6) }'"
done

# Free fall through z = 0: crossing times 0.15 … 0.65 s, heights g t² / 2.
{
  echo '{"name": "fall", "dimension": 3, "time_step": 0.001, "duration": 1, "bodies": ['
  for k in 1 2 3 4 5 6; do
    awk -v k=$k 'BEGIN { t = 0.05 + 0.1 * k; printf "%s{\"position\": [%g, 0, %.12g], \"mass\": %d, \"inertia\": [0.01, 0.01, 0.01], \"shape\": {\"type\": \"sphere\", \"radius\": 0.02}}\n", (k > 1 ? "," : ""), 0.2 * k - 0.7, 9.81 * t * t / 2, k }'
  done
  echo '], "output": {"interval_steps": 100}}'
} > fall.json
expect_status 0 "run the fall" "$CLATTER_BIN" run fall.json -o fall.h5 --quiet
expect_status 0 "flow to a file" sh -c "'$CLATTER_BIN' analyze fall.h5 --what flow --plane 0 -o flow.csv > flow.out"
expect "flow: ten intervals" test "$(wc -l < flow.csv)" = 11
expect "flow: one sphere down per interval from 0.1 s, by mass" \
  test "$(cut -d, -f6 flow.csv | tr '\n' ' ')" = "mass_negative 0 1 2 3 4 5 6 0 0 0 "
expect "flow: rate = -mass / 0.1 s" near "$(field flow.csv 4 rate)" -30 1e-9
expect "flow: the summary line" grep -q "net mass -21 kg through the plane in 0 … 1 s, mean rate -21 kg/s" flow.out
"$CLATTER_BIN" analyze fall.h5 --what flow --plane 0 --region -0.35,-1,-inf,0.35,1,inf --frames 0:-1:2 > orifice.csv
expect "flow through an orifice |x| <= 0.35, every other frame: spheres 2 to 5 (x = -0.3 ... 0.3)" \
  test "$(cut -d, -f6 orifice.csv | tr '\n' ' ')" = "mass_negative 0 5 9 0 0 "

# The output file: written whole through a temporary file, replaced by a later run, and stdout
# untouched meanwhile.
expect_status 0 "packing to a file" sh -c "'$CLATTER_BIN' analyze column.h5 --what packing --region -1,-1,0,1,1,1 -o out.csv > out.txt"
expect "the file holds the table" cmp -s out.csv <("$CLATTER_BIN" analyze column.h5 --what packing --region -1,-1,0,1,1,1)
expect "it says what it wrote" grep -q "wrote out.csv (1 rows)" out.txt
expect_status 0 "replace it" "$CLATTER_BIN" analyze column.h5 --what coordination -o out.csv
expect "replaced" grep -q '^frame,step,time,particles' out.csv
expect "no temporary file left" test "$(ls | grep -c 'out.csv.')" = 0
expect_status 1 "an output folder that does not exist: 1" "$CLATTER_BIN" analyze column.h5 --what coordination -o nowhere/x.csv

# Errors: exit status 2, the option named.
expect_status 2 "no --what" "$CLATTER_BIN" analyze column.h5
expect "packing without --region" sh -c "'$CLATTER_BIN' analyze column.h5 --what packing 2>&1 | grep -q -- '--region: packing needs a region'"
expect_status 2 "packing without --region: 2" "$CLATTER_BIN" analyze column.h5 --what packing
expect "a region of four numbers in 3D" sh -c "'$CLATTER_BIN' analyze column.h5 --what stress --region 0,0,1,1 2>&1 |
  grep -q -- '--region: a 3D run needs six numbers'"
expect "an infinite packing region" sh -c "'$CLATTER_BIN' analyze column.h5 --what packing --region 0,0,0,1,1,inf 2>&1 |
  grep -q -- '--region: the z extent must be finite'"
expect "flow without --plane" sh -c "'$CLATTER_BIN' analyze fall.h5 --what flow 2>&1 | grep -q -- '--plane: flow needs'"
expect "flow over one frame" sh -c "'$CLATTER_BIN' analyze fall.h5 --what flow --plane 0 --frames 3 2>&1 | grep -q -- '--frames: flow needs at least two frames'"
expect "frames outside the run" sh -c "'$CLATTER_BIN' analyze column.h5 --what coordination --frames 20:30 2>&1 | grep -q -- '--frames: 20:30 is not a range within 0 … 10'"
expect "repose of a column: nothing to fit" sh -c "'$CLATTER_BIN' analyze column.h5 --what repose 2>&1 | grep -q -- '--bins: 0 bins with particles'"
expect "an unknown measurement" sh -c "'$CLATTER_BIN' analyze column.h5 --what angle 2>&1 | grep -q -- \"--what: unknown 'angle'\""
expect "bad --bins" sh -c "'$CLATTER_BIN' analyze column.h5 --what profile --bins 0 2>&1 | grep -q -- '--bins: must be an integer'"
expect "not a run file" sh -c "'$CLATTER_BIN' analyze column.csv --what coordination 2>&1 | grep -q 'column.csv: not an HDF5 file'"
expect_status 2 "not a run file: 2" "$CLATTER_BIN" analyze column.csv --what coordination
expect_status 2 "a missing file: 2" "$CLATTER_BIN" analyze missing.h5 --what coordination
expect "--help" sh -c "'$CLATTER_BIN' analyze --help | grep -q 'usage: clatter analyze'"
finish
