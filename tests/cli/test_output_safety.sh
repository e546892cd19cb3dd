#!/usr/bin/env bash
# Output files are made safely (include/clatter/output.h, docs/output-format.md "Files"):
# - two runs on one path: the second fails at once saying another run is writing it, and the first
#   completes untouched (same state hash as a run on its own);
# - an existing OUT.h5 is not replaced without --overwrite; a link planted at OUT.h5.tmp is not
#   followed (its target unchanged);
# - a run killed with SIGKILL at random moments (3 here, 20 in scripts/kill_resume.sh) leaves OUT.h5.tmp, and `clatter run --resume OUT.h5`
#   (the final name) continues it to the same bits as an uninterrupted run, keeping the checkpoint
#   interval it was started with;
# - a full disk at creation and mid-run: exit status 1 with the reason, no crash, nothing written
#   outside the output's own files, and mid-run a valid file up to its last complete step that
#   --resume continues to the reference's bits;
# - names taken from a file's contents (the scene name) cannot leave the folder: the default
#   output, `clatter vtk` and `clatter render`; a scene's output.path must stay inside the current
#   folder unless -o is given; -o given twice is refused.
source "$CLATTER_SOURCE_DIR/tests/cli/cli_lib.sh"
cd "$tmp"
scene="$CLATTER_SOURCE_DIR/scenes/examples/default.json"
hash_of() { json_field "$1" state_hash; }

# Reference runs (uninterrupted).
expect_status 0 "reference run" "$CLATTER_BIN" run "$scene" --quiet -o ref.h5 --checkpoint-every 700

# Two runs on one path.
mkdir same && cd same
"$CLATTER_BIN" run "$scene" --quiet -o a.h5 2> first.err &
first=$!
for _ in $(seq 200); do [ -e a.h5.tmp ] && break; sleep 0.02; done
expect "the first run has started" test -e a.h5.tmp
"$CLATTER_BIN" run "$scene" --quiet -o a.h5 2> second.err
code=$?
expect "second run: exit status 1 (got $code)" test "$code" -eq 1
expect "second run says another run is writing" grep -q "another run is writing a.h5" second.err
wait "$first"
expect "first run: exit status 0" test $? -eq 0
expect "first run complete" test "$(json_field a.h5 status)" = '"complete"'
expect "first run untouched (same state hash as alone)" test "$(hash_of a.h5)" = "$(hash_of ../ref.h5)"
expect "no temporary files left" test ! -e a.h5.tmp -a ! -e a.csv.tmp
cd ..

# An existing final file, --overwrite, a planted link.
mkdir exist && cd exist
cp ../ref.h5 out.h5
sum=$(cksum < out.h5)
expect_status 1 "existing out.h5 refused" "$CLATTER_BIN" run "$scene" --quiet -o out.h5 2> err
expect "the message says --overwrite" grep -q "out.h5 exists; give --overwrite" err
expect "out.h5 unchanged" test "$(cksum < out.h5)" = "$sum"
expect_status 0 "--overwrite replaces it" "$CLATTER_BIN" run "$scene" --quiet -o out.h5 --overwrite --set duration=1
expect "replaced" test "$(json_field out.h5 steps)" = 1000
echo precious > target
ln -s target link.h5.tmp
expect_status 1 "a link at link.h5.tmp is refused" "$CLATTER_BIN" run "$scene" --quiet -o link.h5 2> err
expect "its target is unchanged" test "$(cat target)" = precious
expect "the link is still there" test -L link.h5.tmp
: > left2.h5.tmp
expect_status 1 "a leftover left2.h5.tmp" "$CLATTER_BIN" run "$scene" --quiet -o left2.h5 2> err
expect "its message says --resume" grep -q "continue it with \`clatter run --resume left2.h5\`" err
cd ..

# SIGKILL at random moments, then --resume by the final name.
mkdir killed && cd killed
ref_hash=$(hash_of ../ref.h5)
for k in 1 2 3; do # scripts/kill_resume.sh does 20
  rm -f k.h5 k.csv k.h5.tmp k.csv.tmp
  "$CLATTER_BIN" run "$scene" --quiet -o k.h5 --checkpoint-every 700 &
  pid=$!
  # started: its first flush is on disk (a kill before it leaves nothing to continue, output.h),
  # which on a loaded machine can take longer than the random moment below
  for _ in $(seq 1000); do
    HDF5_USE_FILE_LOCKING=FALSE h5ls k.h5.tmp/scene >/dev/null 2>&1 && break
    [ -e k.h5 ] && break
    sleep 0.01
  done
  sleep "0.$((RANDOM % 6 + 1))" # a moment of the run
  kill -9 "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  if [ -e k.h5 ]; then continue; fi # finished before the kill
  expect_status 0 "kill $k: resume by the final name" "$CLATTER_BIN" run --resume k.h5 --quiet
  expect "kill $k: complete" test "$(json_field k.h5 status)" = '"complete"'
  expect "kill $k: bit-identical to the uninterrupted run" same_data ../ref.h5 k.h5
  expect "kill $k: the same state hash" test "$(hash_of k.h5)" = "$ref_hash"
  expect "kill $k: the checkpoint interval kept" test "$(json_field k.h5 checkpoint_every)" = 700
  expect "kill $k: no temporary files left" test ! -e k.h5.tmp -a ! -e k.csv.tmp
done
# a resumed run without --checkpoint-every keeps the interval the run was started with
expect_status 0 "partial run" "$CLATTER_BIN" run "$scene" --quiet -o p.h5 --checkpoint-every 300 --max-steps 400
expect_status 0 "resumed without --checkpoint-every" "$CLATTER_BIN" run --resume p.h5 --quiet --max-steps 500
expect "interval kept" test "$(json_field p.h5 checkpoint_every)" = 300
cd ..

# A run file whose /diagnostics/t claims 3.8e18 rows: --resume refuses it at once (shrinking it made
# HDF5 visit every claimed chunk: 800 s of CPU, deaf to the first SIGTERM).
expect_status 0 "a partial run to damage" "$CLATTER_BIN" run "$scene" --quiet -o huge.h5 --checkpoint-every 1000 \
  --max-steps 2500
expect "its extent enlarged" /usr/bin/python3 -c "
import h5py
with h5py.File('huge.h5', 'r+') as f:
    f['/diagnostics/t'].resize((3800000000000000000,))"
(ulimit -t 20; exec "$CLATTER_BIN" run --resume huge.h5 --quiet) 2> err
code=$?
expect "resume of the damaged file: exit status 2 (got $code)" test "$code" -eq 2
expect "its reason" grep -q "damaged: a dataset claims more rows than the file has bytes" err
# A shape count that would overflow first_shape + count (a signed overflow in the viz reader).
cp ref.h5 shapes.h5
expect "its shape count made huge" /usr/bin/python3 -c "
import h5py
with h5py.File('shapes.h5', 'r+') as f:
    f['/bodies/first_shape'][0] = 1
    f['/bodies/shape_count'][0] = 2147483647"
expect_status 2 "render refuses it" "$CLATTER_BIN" render shapes.h5 -o shapes.png

# A full disk. At creation: the file size limit (ulimit -f 4 KiB, SIGXFSZ ignored, so writes fail
# with EFBIG). Mid-run: a real full disk, an 8 MiB tmpfs in a mount namespace of the test's own;
# the run keeps 4 MiB of room beside its file (OUT.h5.tmp.reserve), gives it back when a write
# fails, and closes the file at its last complete step; after room is made, --resume ends with the
# reference's state hash. A 3 MiB tmpfs has no room for the reserve: refused at creation.
mkdir full && cd full
(trap '' XFSZ; ulimit -f 4; exec "$CLATTER_BIN" run "$scene" --quiet -o f4.h5 --checkpoint-every 500) 2> err4
code=$?
expect "limit 4 KiB: exit status 1 (got $code)" test "$code" -eq 1
expect "limit 4 KiB: the reason is given" grep -q "File too large" err4
expect "limit 4 KiB: nothing but the outputs' own files" test "$(ls | grep -v '^err' | wc -l)" -eq 0
if unshare -rm true 2>/dev/null; then
  mkdir disk small
  unshare -rm bash -c '
    mount -t tmpfs -o size=3m tmpfs small && cd small &&
      { "$1" run "$2" --quiet -o s.h5 --checkpoint-every 500 2> ../small.err; echo $? > ../small.code; ls > ../small.ls; }
    cd .. && mount -t tmpfs -o size=8m tmpfs disk && cd disk || exit 1
    "$1" run "$2" --quiet -o f.h5 --checkpoint-every 500 2> ../mid.err; echo $? > ../mid.code
    ls > ../mid.ls; "$1" info --json f.h5 > ../mid.json 2>&1
    mount -o remount,size=64m . && "$1" run --resume f.h5 --quiet 2> ../resume.err; echo $? > ../resume.code
    ls > ../resume.ls; "$1" info --json f.h5 > ../resume.json 2>&1' _ "$CLATTER_BIN" "$scene"
  expect "3 MiB disk: exit status 1" test "$(cat small.code)" = 1
  expect "3 MiB disk: the reason" grep -q "cannot keep 4 MiB of room.*No space left on device" small.err
  expect "3 MiB disk: nothing left" test ! -s small.ls
  expect "mid-run: exit status 1" test "$(cat mid.code)" = 1
  expect "mid-run: the reason and what to do" grep -q "writing failed (No space left on device); f.h5 holds the run up to step [0-9]*: make room and continue with .clatter run --resume f.h5." mid.err
  expect "mid-run: only the outputs, closed" test "$(tr '\n' ' ' < mid.ls)" = "f.csv f.h5 "
  expect "mid-run: a readable file ending with an error" grep -q '"status":"error"' mid.json
  steps=$(sed -n 's/.*"steps":\([0-9]*\).*/\1/p' mid.json)
  expect "mid-run: it stopped part way ($steps steps)" test -n "$steps" -a "${steps:-0}" -gt 0 -a "${steps:-0}" -lt 10000
  expect "mid-run: as many diagnostics rows as steps" grep -q "\"diagnostics_rows\":$((steps + 1))," mid.json
  expect "resumed after room was made: exit status 0" test "$(cat resume.code)" = 0
  expect "resumed: complete" grep -q '"status":"complete"' resume.json
  expect "resumed: the reference's state hash" grep -q "\"state_hash\":$(hash_of ../ref.h5)" resume.json
  expect "resumed: only the outputs" test "$(tr '\n' ' ' < resume.ls)" = "f.csv f.h5 "
else
  echo "note: no mount namespace here (unshare -rm): the mid-run full disk is not exercised"
fi
cd ..

# Names from a file's contents stay in their folder: a run file whose scene_name attribute is
# "../../escape" (the scene reader refuses such names; a run file can be crafted).
mkdir -p names/inner && cd names/inner
expect_status 0 "a run" "$CLATTER_BIN" run "$scene" --quiet --set duration=0.5 -o crafted.h5
expect "its scene name rewritten" /usr/bin/python3 -c "
import h5py, numpy
with h5py.File('crafted.h5', 'r+') as f:
    f.attrs.create('scene_name', numpy.bytes_(b'../../escape'))"
expect_status 0 "vtk of it" "$CLATTER_BIN" vtk crafted.h5
expect "vtk's files stay in crafted_vtk/" test -e crafted_vtk/_._.._escape.pvd
expect_status 0 "render of it" "$CLATTER_BIN" render crafted.h5
expect "render's default output stays here" test -e _._.._escape.png
expect "nothing written above" test "$(ls ..)" = inner
expect "nothing written two levels up" test -z "$(ls ../.. | grep escape)"
sed 's/"interval": 0.01/"interval": 0.01, "path": "\/tmp\/clatter-escape.h5"/' "$scene" > abs.json
expect_status 2 "output.path absolute" "$CLATTER_BIN" run abs.json --quiet --set duration=0.1
sed 's/"interval": 0.01/"interval": 0.01, "path": "..\/up.h5"/' "$scene" > up.json
expect_status 2 "output.path with .." "$CLATTER_BIN" run up.json --quiet --set duration=0.1
expect "nothing written there" test ! -e ../up.h5 -a ! -e ../up.h5.tmp
expect_status 0 "output.path ignored under -o" "$CLATTER_BIN" run up.json --quiet --set duration=0.1 -o here.h5
expect_status 2 "-o twice" "$CLATTER_BIN" run "$scene" --quiet -o a.h5 -o b.h5
cd ../..
finish
