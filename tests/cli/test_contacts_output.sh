#!/usr/bin/env bash
# /contacts written by `clatter run` (docs/output-format.md): a box resting on a half-space gives
# four contacts per frame on the floor plane with normal (0, 0, 1) whose normal forces sum to m g;
# the viewers (`clatter render --contacts`, `clatter vtk`) accept the file; a run stopped between
# checkpoints (--max-steps, SIGINT) stays readable with one first/count row per trajectory frame;
# --resume gives bit-identical /contacts; output.contacts=false writes no group.
# (The numbers are checked more closely through the C API in tests/io/test_contacts_output.c.)
source "$CLATTER_SOURCE_DIR/tests/cli/cli_lib.sh"
cd "$tmp"
cat > box.json <<'JSON'
{"name": "box", "dimension": 3, "time_step": 0.01, "duration": 2,
 "bodies": [
  {"name": "floor", "type": "static", "shape": {"type": "halfspace", "normal": [0, 0, 1]}},
  {"name": "box", "position": [0.3, -0.2, 0.25], "orientation": {"axis": [0, 0, 1], "angle": 0.3},
   "mass": 2, "inertia": [0.1, 0.1, 0.1], "shape": {"type": "box", "half_extents": [0.5, 0.4, 0.25]}}
 ],
 "output": {"interval_steps": 10}
}
JSON
# Values of a dataset as one number per line (h5dump -y: no indices).
values() { h5dump -y -w 0 -m %.17g -d "$2" "$1" | sed -n '/DATA {/,/}/p' | sed '1d;$d' | tr ', ' '\n\n' | sed '/^$/d'; }

expect_status 0 "run" "$CLATTER_BIN" run box.json -o box.h5 --quiet
expect "first and count have one row per frame (21)" \
  sh -c "h5ls box.h5/contacts/first | grep -q '{21/Inf}' && h5ls box.h5/contacts/count | grep -q '{21/Inf}'"
expect "point, normal, force are 80 x 3" sh -c "h5ls box.h5/contacts/point | grep -q '{80/Inf, 3}' &&
  h5ls box.h5/contacts/normal | grep -q '{80/Inf, 3}' && h5ls box.h5/contacts/force | grep -q '{80/Inf, 3}'"
expect "counts: none at step 0, then the 4 corners" test "$(values box.h5 /contacts/count | tr '\n' ' ')" = \
  "0 4 4 4 4 4 4 4 4 4 4 4 4 4 4 4 4 4 4 4 4 "
expect "first = running sum" test "$(values box.h5 /contacts/first | sed -n '1p;2p;21p' | tr '\n' ' ')" = "0 0 76 "
# Points on z = 0 (|z| < 1e-12), normals (0, 0, 1), bodies floor -> box.
expect "points on the floor plane" sh -c "values() { $(declare -f values | sed 1d); }; values box.h5 /contacts/point |
  awk 'NR % 3 == 0 { z = \$1 < 0 ? -\$1 : \$1; if (z > 1e-12) bad++ } END { exit bad > 0 || NR != 240 }'"
expect "normals (0, 0, 1)" sh -c "h5dump -y -w 0 -d /contacts/normal box.h5 | grep -c '^ *0, 0, 1,\?$' | grep -qx 80"
expect "body_a = floor (0), body_b = box (1)" test "$(values box.h5 /contacts/body_a | sort | uniq -c | tr -s ' ')$(
  values box.h5 /contacts/body_b | sort | uniq -c | tr -s ' ')" = " 80 0 80 1"
# Per frame the normal forces sum to m g = 19.62 N (within 5e-9 relative: the default method's APGD
# meets the scaled residual 1e-10, the sums measure 1e-9…1.7e-9 relative).
expect "normal forces sum to m g per frame" sh -c "values() { $(declare -f values | sed 1d); }; values box.h5 /contacts/normal_force |
  awk '{ s += \$1 } NR % 4 == 0 { d = s - 19.62; if (d < 0) d = -d; if (d > 1e-7) bad++; s = 0 } END { exit bad > 0 || NR != 80 }'"

# The viewers accept it.
expect_status 0 "render --contacts" "$CLATTER_BIN" render box.h5 --frame 10 --contacts --size 200x150 -o c.png > /dev/null
expect "a PNG" sh -c "head -c 8 c.png | od -An -c | grep -q 'P   N   G'"
expect_status 0 "vtk" sh -c "'$CLATTER_BIN' vtk box.h5 -o vtk > vtk.out"
expect "vtk writes the contacts series" sh -c "grep -q contacts vtk.out && ls vtk | grep -q contacts"

# Stopped at step 137 (last frame 130, checkpoint 100): readable, frames and contact rows match.
expect_status 0 "partial run" "$CLATTER_BIN" run box.json -o part.h5 --quiet --checkpoint-every 100 --max-steps 137
expect "partial: 14 frames of contacts" sh -c "h5ls part.h5/contacts/count | grep -q '{14/Inf}' &&
  h5ls part.h5/contacts/point | grep -q '{52/Inf, 3}'"
expect_status 0 "render the partial run" "$CLATTER_BIN" render part.h5 --frame 13 --contacts --size 200x150 -o p.png > /dev/null
expect_status 0 "resume" "$CLATTER_BIN" run --resume part.h5 --quiet
expect "resumed: /contacts present" sh -c "h5ls part.h5/contacts/force | grep -q '{80/Inf, 3}'"
expect "resumed run bit-identical (with /contacts)" same_data box.h5 part.h5
expect "resumed /contacts bit-identical" sh -c "for d in first count point body_a body_b normal distance normal_force force; do
  h5diff -q box.h5 part.h5 /contacts/\$d /contacts/\$d || exit 1; done"

# SIGINT during a long run: the file stays consistent (as many first/count rows as frames, the
# tables as long as the last frame's rows) and --resume continues it.
"$CLATTER_BIN" run box.json -o int.h5 --quiet --set duration=100000 --set output.interval_steps=1 &
pid=$!
for _ in $(seq 100); do [ -e int.h5.tmp ] && break; sleep 0.05; done
sleep 0.3
kill -INT "$pid"
wait "$pid"
expect "SIGINT: exit status 130" test $? -eq 130
frames=$(h5ls int.h5/trajectory/step | sed 's/.*{\([0-9]*\)\/.*/\1/')
expect "SIGINT: some frames" test "$frames" -gt 1
expect "SIGINT: first/count rows = frames" sh -c "h5ls int.h5/contacts/first | grep -q '{$frames/Inf}' &&
  h5ls int.h5/contacts/count | grep -q '{$frames/Inf}'"
expect "SIGINT: contact rows = 4 per frame after step 0" sh -c "h5ls int.h5/contacts/point | grep -q '{$((4 * (frames - 1)))/Inf, 3}'"
expect "SIGINT: h5dump reads the whole file" sh -c "h5dump int.h5 > /dev/null"
expect_status 0 "SIGINT: resume 50 steps" "$CLATTER_BIN" run --resume int.h5 --max-steps 50 --quiet
expect "SIGINT: resumed rows" sh -c "h5ls int.h5/contacts/point | grep -q '{$((4 * (frames + 49)))/Inf, 3}'"

# Two runs give identical /contacts (determinism).
expect_status 0 "second run" "$CLATTER_BIN" run box.json -o again.h5 --quiet
expect "deterministic /contacts" sh -c "for d in first count point normal distance normal_force force; do
  h5diff -q box.h5 again.h5 /contacts/\$d /contacts/\$d || exit 1; done"

# Switched off.
expect_status 0 "output.contacts=false" "$CLATTER_BIN" run box.json -o off.h5 --quiet --set output.contacts=false --set duration=0.1
expect "no /contacts group" sh -c "! h5ls off.h5/contacts > /dev/null 2>&1 && h5ls off.h5/trajectory/step > /dev/null"
expect_status 2 "output.contacts must be a boolean" "$CLATTER_BIN" run box.json -o bad.h5 --quiet --set output.contacts=3 2> err.txt
expect "boolean message" grep -q "output.contacts" err.txt

# Touching contacts against candidates (docs/output-format.md "Touching contacts"): the box resting
# on the floor with a wall 1 cm from its side (ε̂ = 2 cm) has 8 candidates, 4 touching.
cat > wall.json <<'JSON'
{"name": "wall", "dimension": 3, "time_step": 0.01, "duration": 0.5,
 "bodies": [
  {"name": "floor", "type": "static", "shape": {"type": "halfspace", "normal": [0, 0, 1]}},
  {"name": "wall", "type": "static", "shape": {"type": "halfspace", "point": [0.51, 0, 0], "normal": [-1, 0, 0]}},
  {"name": "box", "position": [0, 0, 0.25], "mass": 2, "inertia": [0.1, 0.1, 0.1],
   "shape": {"type": "box", "half_extents": [0.5, 0.4, 0.25]}}
 ],
 "method": {"active_set_eps": 0.02},
 "output": {"interval_steps": 10}
}
JSON
expect_status 0 "wall run" "$CLATTER_BIN" run wall.json -o wall.h5 --quiet
expect "CSV: touching_contacts, work_bytes and arena_bytes end the header" sh -c "head -1 wall.csv | grep -q ',set_misses,touching_contacts,work_bytes,arena_bytes\$'"
expect "CSV: 8 contacts, 4 touching after step 0" test "$(sed 1,2d wall.csv | cut -d, -f4,24 | sort -u)" = "8,4"
runs() { uniq -c | tr -s ' \n' ' '; } # "count value" pairs of runs of equal lines, on one line
expect "/diagnostics/touching_contacts" test "$(values wall.h5 /diagnostics/touching_contacts | runs)" = " 1 0 50 4 "
expect "/contacts/touching: 5 frames of 4 touching, 4 not" test "$(values wall.h5 /contacts/touching | runs)" = \
  " 4 1 4 0 4 1 4 0 4 1 4 0 4 1 4 0 4 1 4 0 "
expect "/contacts/touching marks the floor (body 0) contacts" test "$(paste -d' ' <(values wall.h5 /contacts/body_a) <(values wall.h5 /contacts/touching) | sort -u | tr '\n' ' ')" = "0 1 1 0 "
expect "info: candidates and touching" sh -c "'$CLATTER_BIN' info wall.h5 | grep -q '^max contacts  *8 candidates, 4 touching'"
expect "info --json: max_touching_contacts" test "$(json_field wall.h5 max_touching_contacts)" = 4
# A run file of before the touching, work_bytes and arena_bytes columns still resumes:
# /contacts/touching is made from its distance and normal_force, /diagnostics/touching_contacts,
# work_bytes, arena_bytes and the CSV columns get -1 in the rows
# up to the checkpoint (step 27, where --max-steps stopped).
expect_status 0 "old file: partial run" "$CLATTER_BIN" run wall.json -o old.h5 --quiet --checkpoint-every 20 --max-steps 27
expect "old file: columns removed" sh -c "/usr/bin/python3 -c \"import h5py; f = h5py.File('old.h5', 'r+'); del f['diagnostics/touching_contacts']; del f['diagnostics/work_bytes']; del f['diagnostics/arena_bytes']; del f['contacts/touching']\" &&
  cut -d, -f1-23 old.csv > old.cut && mv old.cut old.csv && ! h5ls old.h5/contacts/touching > /dev/null 2>&1"
expect "old file: info says not recorded" sh -c "'$CLATTER_BIN' info old.h5 | grep -q 'touching not recorded'"
expect "old file: info --json null" test "$(json_field old.h5 max_touching_contacts)" = null
expect_status 0 "old file: resume" "$CLATTER_BIN" run --resume old.h5 --quiet
expect "old file: /contacts/touching as a fresh run's" h5diff -q wall.h5 old.h5 /contacts/touching /contacts/touching
expect "old file: touching_contacts -1 up to the checkpoint, then 4" test "$(values old.h5 /diagnostics/touching_contacts | runs)" = " 28 -1 23 4 "
expect "old file: CSV header" sh -c "head -1 old.csv | grep -q ',set_misses,touching_contacts,work_bytes,arena_bytes\$'"
expect "old file: CSV rows" test "$(sed 1d old.csv | cut -d, -f24 | runs)" = " 28 -1 23 4 "
expect "old file: work_bytes -1 up to the checkpoint" test "$(sed 1d old.csv | cut -d, -f25 | sed 's/^[1-9][0-9]*$/bytes/' | runs)" = " 28 -1 23 bytes "
expect "old file: arena_bytes -1 up to the checkpoint, then the fresh run's" test "$(sed 1d old.csv | cut -d, -f26 | sed 1,28d)" = "$(sed 1d wall.csv | cut -d, -f26 | sed 1,28d)"
expect "old file: arena_bytes -1 in the rows up to the checkpoint" test "$(sed 1d old.csv | cut -d, -f26 | sed 29,\$d | runs)" = " 28 -1 "
expect "old file: 26 columns in every CSV line" test "$(awk -F, '{ print NF }' old.csv | sort -u)" = 26
expect "old file: resumed trajectory and contacts bit-identical" sh -c "for d in trajectory/position contacts/count contacts/normal_force; do
  h5diff -q wall.h5 old.h5 /\$d /\$d || exit 1; done"
finish
