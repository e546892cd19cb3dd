# bench/colony's driver continues a run from its checkpoint bit for bit (bench/colony/README.md
# "Long runs: checkpoints"): a run stopped after 6 generations and resumed to 8, and a run killed
# after its checkpoint with rows written after it, give the same per-step CSV (all but the
# wall-clock columns) and the same result line as one run to 8 generations; checkpoints of another
# run, corrupt or truncated ones are refused with a message naming the file. Also --cells (the
# cells at the end) and --steps (stop after a step).
source "$CLATTER_SOURCE_DIR/tests/cli/cli_lib.sh"
bench=$CLATTER_COLONY_BENCH
scene=$CLATTER_SOURCE_DIR/scenes/papers/colony.json
# step,t,cells,contacts,constraints,relcp_iterations,solver_iterations,max_overlap (no wall times)
csv_steps() { cut -d, -f1-8 "$1"; }
# the result line without its wall and CPU times
result_line() { grep '^result' "$1" | tr ' ' '\n' | grep -v -e '^wall_s=' -e 'per_step' -e 'per_cell' \
  -e 'per_constraint' -e '^cpu_s='; }

expect "straight run" "$bench" --scene "$scene" --generations 8 --csv "$tmp/ref.csv" > "$tmp/ref.log"
expect "first part" "$bench" --scene "$scene" --generations 6 --csv "$tmp/a.csv" --checkpoint "$tmp/a.ckpt" \
  > "$tmp/a1.log"
expect "checkpoint written" test -s "$tmp/a.ckpt"
expect "resumed" "$bench" --scene "$scene" --generations 8 --csv "$tmp/a.csv" --resume "$tmp/a.ckpt" > "$tmp/a2.log"
expect "resumed: the same steps" cmp <(csv_steps "$tmp/ref.csv") <(csv_steps "$tmp/a.csv")
expect "resumed: the same result" cmp <(result_line "$tmp/ref.log") <(result_line "$tmp/a2.log")
expect "resumed: says so" grep -q "^# resumed from $tmp/a.ckpt after step 525: 64 cells" "$tmp/a2.log"

# rows written after the checkpoint (a run killed later) are cut, then written again
cp "$tmp/a.csv" "$tmp/b.csv"
expect "first part again" "$bench" --scene "$scene" --generations 6 --csv "$tmp/b.csv" --checkpoint "$tmp/b.ckpt" \
  > /dev/null
tail -n 40 "$tmp/ref.csv" >> "$tmp/b.csv"
expect "resumed after later rows" "$bench" --scene "$scene" --generations 8 --csv "$tmp/b.csv" \
  --resume "$tmp/b.ckpt" --checkpoint "$tmp/b.ckpt" > "$tmp/b2.log"
expect "later rows cut" cmp <(csv_steps "$tmp/ref.csv") <(csv_steps "$tmp/b.csv")

# --cells: one row per cell at the end; --steps K stops after step K
expect "cells of the straight run" "$bench" --scene "$scene" --generations 6 --cells "$tmp/cells.csv" > /dev/null
expect "a header and 64 cells" test "$(head -1 "$tmp/cells.csv"),$(wc -l < "$tmp/cells.csv")" = \
  "cell,x,y,z,axis_x,axis_y,axis_z,length,generation,65"
expect "stopped after step 400" "$bench" --scene "$scene" --generations 8 --steps 400 --csv "$tmp/s.csv" > "$tmp/s.log"
expect "stop=steps, 400 steps" grep -q "^result model=relcp stop=steps generations=4 cells=16 steps=400 " "$tmp/s.log"
expect "its rows are the straight run's" cmp <(csv_steps "$tmp/s.csv") <(head -n 401 "$tmp/ref.csv" | cut -d, -f1-8)

# refusals: exit status 1 and a message that names the checkpoint
refused() { # description expected-message command...
  local what=$1 want=$2; shift 2
  checks=$((checks + 1))
  "$@" > /dev/null 2> "$tmp/err"
  local got=$?
  if [ "$got" -ne 1 ] || ! grep -qF "$want" "$tmp/err"; then
    fail "$what: exit status $got, stderr: $(cat "$tmp/err")"
  fi
}
refused "another seed" "$tmp/a.ckpt: the checkpoint is of another run" \
  "$bench" --scene "$scene" --generations 8 --seed 2 --resume "$tmp/a.ckpt"
refused "another tolerance" "$tmp/a.ckpt: the checkpoint is of another run" \
  "$bench" --scene "$scene" --generations 8 --set method.overlap_tolerance=1e-3 --resume "$tmp/a.ckpt"
cp "$tmp/a.ckpt" "$tmp/bad.ckpt"
printf 'X' | dd of="$tmp/bad.ckpt" bs=1 seek=300 conv=notrunc 2> /dev/null
refused "corrupt" "$tmp/bad.ckpt: checksum mismatch" "$bench" --scene "$scene" --resume "$tmp/bad.ckpt"
head -c 100 "$tmp/a.ckpt" > "$tmp/short.ckpt"
refused "truncated" "$tmp/short.ckpt: truncated" "$bench" --scene "$scene" --resume "$tmp/short.ckpt"
refused "not a checkpoint" "$scene: not a colony_bench checkpoint" "$bench" --scene "$scene" --resume "$scene"
refused "missing" "$tmp/none.ckpt: cannot be read" "$bench" --scene "$scene" --resume "$tmp/none.ckpt"
head -c 100 "$tmp/ref.csv" > "$tmp/short.csv"
refused "CSV shorter than the checkpoint's" "$tmp/short.csv: cannot continue it" \
  "$bench" --scene "$scene" --generations 8 --csv "$tmp/short.csv" --resume "$tmp/a.ckpt"
finish
