#!/usr/bin/env bash
# Scene parameters and overrides through the CLI: --param replaces a declared parameter wherever
# "$name" is referenced, --set overrides any field by JSON path (array indices included), the
# stored /scene is the resolved scene, and the output name follows the scene name.
source "$CLATTER_SOURCE_DIR/tests/cli/cli_lib.sh"
cd "$tmp"
scene="$CLATTER_SOURCE_DIR/scenes/examples/sliding_boxes.json"

# (damping 100 with the implicit treatment: explicit, h·δ·2/m = 10 diverges, docs/stepping.md)
expect_status 0 "run with overrides" "$CLATTER_BIN" run "$scene" --quiet --param damping=100 --param treatment=implicit \
  --set duration=1 --set 'bodies[2].position=[4, 0.5]' --set method.scheme=none --set name=swept
expect "output named after the (overridden) scene name" test -f swept.h5 -a -f swept.csv
h5dump -d /scene swept.h5 > scene.txt
expect "parameter substituted" grep -q '"damping": 100,' scene.txt
expect "no references left" sh -c "! grep -q '\"\\\$damping\"' scene.txt"
expect "array element set" grep -q '"position": \[4, 0.5\]' scene.txt
expect "method set" grep -q '"scheme": "none"' scene.txt
expect "duration set" test "$(json_field swept.h5 steps)" = 20
expect "2D angle is frames x bodies" sh -c "h5ls swept.h5/trajectory/angle | grep -q '{21/Inf, 3}'"
expect "2D has no orientation" sh -c "! h5ls swept.h5/trajectory/orientation > /dev/null 2>&1"
expect "initial position from --set" sh -c "h5dump -d '/trajectory/position[0,2,0;;1,1,1]' swept.h5 | grep -q '(0,2,0): 4\$'"

# The stored scene alone reproduces the run (what --resume relies on).
h5dump -d /scene -b -o stored.bin swept.h5 > /dev/null
tr -d '\000' < stored.bin > stored.json
expect_status 0 "replay the stored scene" "$CLATTER_BIN" run stored.json --quiet -o replay.h5
expect "replay identical" same_data swept.h5 replay.h5
expect_status 0 "same run again" "$CLATTER_BIN" run "$scene" --quiet -o again.h5 --param damping=100 --param treatment=implicit \
  --set duration=1 --set 'bodies[2].position=[4, 0.5]' --set method.scheme=none --set name=swept
expect "deterministic" same_data swept.h5 again.h5

# A value that is not JSON is taken as a string; a parameter may be a string.
expect_status 0 "string parameter" "$CLATTER_BIN" run "$scene" --quiet -o s.h5 --param treatment=explicit --set duration=0.5
expect_status 2 "bad string parameter" "$CLATTER_BIN" run "$scene" --quiet -o s.h5 --param treatment=sideways 2> err.txt
expect "bad string parameter message" grep -qF 'sliding_boxes.json: forces[1].treatment: unknown value "sideways" (expected one of: explicit, implicit)' err.txt
finish
