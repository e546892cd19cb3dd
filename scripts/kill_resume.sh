#!/usr/bin/env bash
# N (default 20) SIGKILLs at random moments of a checkpointed run of the default scene (20 s,
# checkpoint every 500 steps), each followed by `clatter run --resume OUT.h5` with the final name;
# prints, per kill, the checkpoint the killed file held and whether the resumed run ends with the
# state hash of an uninterrupted one. Outside CI (tests/cli/test_output_safety.sh runs 5).
# usage: scripts/kill_resume.sh [N]   (env CLATTER_BIN: the clatter to test, default build/clatter)
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${CLATTER_BIN:-$root/build/clatter}; scene=$root/scenes/examples/default.json
n=${1:-20}
d=$(mktemp -d); cd "$d"
"$bin" run "$scene" --quiet -o ref.h5 --checkpoint-every 500 --set duration=20
ref=$("$bin" info --json ref.h5 | sed -n 's/.*"state_hash":"\([0-9a-f]*\)".*/\1/p')
ok=0; killed=0
for k in $(seq "$n"); do
  rm -f k.*
  "$bin" run "$scene" --quiet -o k.h5 --checkpoint-every 500 --set duration=20 & pid=$!
  for _ in $(seq 500); do [ -e k.h5.tmp ] && break; sleep 0.01; done
  sleep "$(awk -v r=$RANDOM 'BEGIN{printf "%.3f", r/32768*1.4}')"
  kill -9 $pid 2>/dev/null; wait $pid 2>/dev/null
  [ -e k.h5 ] && { echo "run $k finished before the kill"; continue; }
  killed=$((killed+1))
  step=$(h5dump -a /checkpoint/step k.h5.tmp 2>/dev/null | sed -n 's/.*(0): \([0-9]*\).*/\1/p')
  if "$bin" run --resume k.h5 --quiet 2> err; then
    h=$("$bin" info --json k.h5 | sed -n 's/.*"state_hash":"\([0-9a-f]*\)".*/\1/p')
    same=no; [ "$h" = "$ref" ] && same=yes && ok=$((ok+1))
    echo "kill $k: checkpoint step at the kill ${step:-none}, resumed, bit-identical: $same"
  else
    echo "kill $k: checkpoint ${step:-none}: resume FAILED: $(cat err)"
  fi
done
echo "$ok of $killed killed runs resumed bit-identical"
rm -rf "$d"
