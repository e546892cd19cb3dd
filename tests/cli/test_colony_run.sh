# `clatter run` of a colony scene (docs/scene-format.md "colony", docs/output-format.md "Growing
# runs"): scenes/papers/colony.json to 2^6 cells ends `complete` at 64 cells with a last frame of
# all of them; /bodies, /shapes and the per-body series grow with the colony (a body reads NaN in
# the frames before it was born, /trajectory/bodies counts them, /trajectory/length holds the
# cells' lengths); a run stopped after a division and continued with --resume ends with the same
# bits as the straight run (checkpoints hold the colony's state); --start-from is refused.
source "$CLATTER_SOURCE_DIR/tests/cli/cli_lib.sh"
scene=$CLATTER_SOURCE_DIR/scenes/papers/colony.json
cd "$tmp"
expect "straight run" "$CLATTER_BIN" run "$scene" --set colony.generations=6 -o ref.h5 --quiet
expect "complete" test "$(json_field ref.h5 status)" = '"complete"'
expect "64 cells in /bodies" test "$(json_field ref.h5 bodies)" = 64
expect "ended at step 525" test "$(json_field ref.h5 steps)" = 525
# the last frame is the end (step 525, off the 10-step interval) with 64 bodies
expect "last frame at the end" test "$(h5dump -d /trajectory/step -s 53 -c 1 ref.h5 | grep -o '(53): [0-9]*')" = "(53): 525"
expect "64 bodies at the last frame" test "$(h5dump -d /trajectory/bodies -s 53 -c 1 ref.h5 | grep -o '(53): [0-9]*')" = "(53): 64"
expect "per-body series 54 x 64" grep -q "{54/Inf, 64/Inf, 3}" <(h5ls ref.h5/trajectory/position)
expect "first frame: one cell, the others NaN" test "$(h5dump -d /trajectory/position -s 0,1,0 -c 1,1,1 ref.h5 | grep -o 'nan' | head -1)" = nan
# the cells' lengths at the last frame: between a daughter's (2/2 - 0.5/3) and division_length 2
lengths() { h5dump -d /trajectory/length -s "$1,0" -c "1,64" -y -w 0 -m %.17g ref.h5 | sed -n '/DATA {/,/}/p' |
  sed 's/([0-9,]*)://' | tr -c '0-9.eE+\n-' ' '; }
expect "64 lengths in [0.8333, 2)" awk '{ for (i = 1; i <= NF; i++) { n++; if (!($i >= 0.8333333 && $i < 2)) bad++ } }
  END { exit !(n == 64 && bad == 0) }' <(lengths 53)
# stopped after a division (step 300: 16 cells), continued: the same bits
expect "first part" "$CLATTER_BIN" run "$scene" --set colony.generations=6 -o part.h5 --max-steps 300 \
  --checkpoint-every 100 --quiet
expect "interrupted at step 300" test "$(json_field part.h5 steps)" = 300
expect "resumed" "$CLATTER_BIN" run --resume part.h5 --quiet
expect "resumed: complete" test "$(json_field part.h5 status)" = '"complete"'
expect "resumed: the same state hash" test "$(json_field part.h5 state_hash)" = "$(json_field ref.h5 state_hash)"
expect "resumed: the same data" same_data ref.h5 part.h5
for d in /trajectory/bodies /trajectory/length /bodies/shape_count /shapes/length /shapes/body; do
  expect "resumed: the same $d" h5diff -q ref.h5 part.h5 "$d" "$d"
done
expect "resumed: the same CSV" cmp <(csv_no_wall ref.csv) <(csv_no_wall part.csv)

# a checkpoint of a colony run is not a start for another run (its cells would be lost)
expect_status 2 "--start-from refused" "$CLATTER_BIN" run "$scene" --start-from part.h5 -o branch.h5 --quiet 2> err
expect "says why" grep -q "the scene has a colony" err
expect "no branch written" test ! -e branch.h5
# pictures: a frame before the divisions (63 cells not born yet) and the cells' shapes over time
expect "render of frame 0" "$CLATTER_BIN" render ref.h5 --frame 0 -o f0.png
expect "vtk" "$CLATTER_BIN" vtk ref.h5 -o vtk > /dev/null
expect "vtk: one shape file per frame" test "$(ls vtk/*_shapes_*.vtp | wc -l)" = 54
finish
