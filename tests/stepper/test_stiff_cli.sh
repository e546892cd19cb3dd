# damper1d through the command line (issue 5): the explicit run with damping 100 diverges and
# `clatter run` reports it and exits 3 (diverged: no crash, the output file closed with status
# diverged; docs/output-format.md); the
# implicit run completes; a rotational spring-damper and the spring_projection method key parse.
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
scene="$CLATTER_SOURCE_DIR/scenes/papers/damper1d.json"

"$CLATTER_BIN" run "$scene" --param damping=100 --param treatment=explicit -o "$tmp/explicit.h5" --quiet \
  >"$tmp/out" 2>"$tmp/err"
status=$?
[ "$status" -eq 3 ] || fail "explicit damping 100: exit status $status, expected 3"
grep -q "the simulation diverged" "$tmp/err" || { fail "explicit damping 100: no divergence message"; cat "$tmp/err"; }
[ -s "$tmp/explicit.h5" ] || fail "explicit damping 100: no output file"

"$CLATTER_BIN" run "$scene" --param damping=100 --param treatment=implicit -o "$tmp/implicit.h5" --quiet \
  >"$tmp/out" 2>"$tmp/err" || { fail "implicit damping 100 failed"; cat "$tmp/err"; }

cat >"$tmp/rot.json" <<'JSON'
{"name": "rot", "dimension": 3, "time_step": 0.01, "duration": 0.5, "gravity": [0, 0, 0],
 "method": {"spring_projection": 3},
 "bodies": [{"name": "wheel", "mass": 1, "inertia": [1, 1, 1], "angular_velocity": [0, 0, 2]}],
 "joints": [{"type": "revolute", "body_a": "wheel", "body_b": "world", "axis_a": [0, 0, 1], "axis_b": [0, 0, 1]}],
 "forces": [{"type": "rotational-spring-damper", "body_a": "wheel", "axis_a": [0, 0, 1], "stiffness": 50,
             "damping": 1, "treatment": "implicit"}]}
JSON
"$CLATTER_BIN" run "$tmp/rot.json" -o "$tmp/rot.h5" --quiet >"$tmp/out" 2>"$tmp/err" \
  || { fail "rotational spring-damper scene failed"; cat "$tmp/err"; }

if [ "$failures" -ne 0 ]; then echo "$failures failure(s)"; exit 1; fi
echo "all passed"
