# Shared helpers for the tests/cli/test_*.sh scripts (sourced; not a test itself).
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
checks=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
expect() { # description, command... : the command must succeed
  local what=$1; shift
  checks=$((checks + 1))
  if ! "$@"; then fail "$what"; fi
}
expect_status() { # expected-status description command...
  local want=$1 what=$2; shift 2
  checks=$((checks + 1))
  "$@"
  local got=$?
  if [ "$got" -ne "$want" ]; then fail "$what: exit status $got, expected $want"; fi
}
# The value of a key in `clatter info --json` output (numbers and strings, no nesting).
json_field() { # file key
  "$CLATTER_BIN" info --json "$1" | sed -n "s/.*\"$2\":\(\"[^\"]*\"\|[^,}]*\).*/\1/p"
}
# h5diff of every dataset that must be bit-identical between two runs of the same scene
# (all but the wall-clock diagnostics columns). h5diff without tolerance options compares exactly.
same_data() { # a.h5 b.h5
  local a=$1 b=$2 ok=0 d
  for d in /trajectory/step /trajectory/time /trajectory/position /trajectory/orientation \
           /trajectory/angle /trajectory/velocity /trajectory/angular_velocity /scene /bodies/mass \
           /bodies/inertia /shapes/type /contacts/first /contacts/count /contacts/point \
           /contacts/body_a /contacts/body_b /contacts/normal /contacts/distance \
           /contacts/normal_force /contacts/force /contacts/touching; do
    if h5ls "$a$d" >/dev/null 2>&1; then
      h5diff -q "$a" "$b" "$d" "$d" >/dev/null 2>&1 || { echo "  $d differs"; ok=1; }
    fi
  done
  for c in step t bodies contacts joints lcp_size iterations residual solver_status infeasibility \
           penetration joint_error kinetic_energy potential_energy constraints relcp_iterations max_overlap \
           touching_contacts; do
    h5diff -q "$a" "$b" "/diagnostics/$c" "/diagnostics/$c" >/dev/null 2>&1 || { echo "  /diagnostics/$c differs"; ok=1; }
  done
  return $ok
}
# The CSV without its wall-clock columns (15 and 19-21).
csv_no_wall() { cut -d, -f1-14,16-18 "$1"; }
finish() {
  echo "$checks checks, $failures failures"
  [ "$failures" -eq 0 ]
}
