#!/usr/bin/env bash
# The layering check (scripts/check_layers.py, docs/architecture.md): the tree passes, in its
# includes and, with the build at hand, in its calls; the order the docs give is the script's; and
# a temporary copy with one planted upward dependency fails, naming the file.
set -euo pipefail
src=${CLATTER_SOURCE_DIR:?}
check=("/usr/bin/python3" "$src/scripts/check_layers.py")
fail() { echo "FAIL: $*" >&2; exit 1; }

"${check[@]}" --root "$src"
if [ -n "${CLATTER_BUILD_DIR:-}" ]; then
  "${check[@]}" --root "$src" --objects "$CLATTER_BUILD_DIR"
fi

order=$("${check[@]}" --order)
grep -qF -- "$order" "$src/docs/architecture.md" || fail "docs/architecture.md does not give the order: $order"

tmp=$(mktemp -d /tmp/layers_test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
copy() { # the sources the check reads, in a fresh copy
  rm -rf "$tmp/root" && mkdir -p "$tmp/root"
  (cd "$src" && find src include tools python bench -type f \( -name '*.c' -o -name '*.h' \) -print0 |
    xargs -0 cp --parents -t "$tmp/root")
}
# expect_failure WHAT FILE OUTPUT-TEXT... : the check (arguments after --) fails with status 1 and
# its output names FILE and each text
expect_failure() {
  local what=$1 file=$2 status=0
  shift 2
  local texts=()
  while [ "$1" != "--" ]; do texts+=("$1"); shift; done
  shift
  "${check[@]}" --root "$tmp/root" "$@" >"$tmp/out" 2>&1 || status=$?
  echo "--- $what: exit $status"
  cat "$tmp/out"
  [ "$status" -eq 1 ] || fail "$what: the check exited $status, not 1"
  grep -qF -- "$file" "$tmp/out" || fail "$what: the message does not name $file"
  for t in "${texts[@]}"; do grep -qF -- "$t" "$tmp/out" || fail "$what: the message lacks '$t'"; done
}

copy
"${check[@]}" --root "$tmp/root" >/dev/null || fail "the unchanged copy does not pass"

# geometry includes the step workspace
echo '#include "steppers/rows.h"' >>"$tmp/root/src/geometry/shape.c"
expect_failure "planted internal include" "src/geometry/shape.c:" \
  "(layer geometry) includes src/steppers/rows.h (layer steppers, higher)" --

# the solvers include a public header of io
copy
echo '#include "clatter/scene.h"' >>"$tmp/root/src/solvers/lcp_internal.h"
expect_failure "planted public include" "src/solvers/lcp_internal.h:" \
  "(layer solvers) includes include/clatter/scene.h (layer io, higher)" --

# the contact query includes the relaxed scheme's workspace; a bench program includes src/
copy
echo '#include "steppers/relaxed.h"' >>"$tmp/root/src/steppers/stage_collide.c"
expect_failure "planted scheme workspace include" "src/steppers/stage_collide.c:" \
  "includes src/steppers/relaxed.h, another scheme's workspace" --
copy
echo '#include "steppers/rows.h"' >>"$tmp/root/bench/granular/pile_bench.c"
expect_failure "planted bench include" "bench/granular/pile_bench.c:" \
  "bench programs include only include/clatter/" --
copy
echo '#include "dynamics/world_internal.h"' >>"$tmp/root/src/models/colony.c"
expect_failure "planted world struct include" "src/models/colony.c:" \
  "includes src/dynamics/world_internal.h, the world's struct" --
copy
echo '#include "dynamics/world_internal.h"' >>"$tmp/root/python/src/world.c"
expect_failure "planted Python extension include" "python/src/world.c:" \
  "Python extensions include only include/clatter/" --

# a commented-out include is not one
copy
echo '/* #include "steppers/rows.h" */ // #include "io/json_text.h"' >>"$tmp/root/src/math/mat3.c"
"${check[@]}" --root "$tmp/root" >/dev/null || fail "a commented-out include was taken for one"

# calls: a dynamics object that calls a function defined by a stepper object
copy
cc=${CC:-cc}
mkdir -p "$tmp/build/src/CMakeFiles/clatter.dir/dynamics" "$tmp/build/src/CMakeFiles/clatter.dir/steppers"
printf 'void clt_planted_stage(void);\nvoid clt_planted_caller(void) { clt_planted_stage(); }\n' \
  >"$tmp/root/src/dynamics/planted.c"
printf 'void clt_planted_stage(void) {}\n' >"$tmp/root/src/steppers/planted.c"
"$cc" -c "$tmp/root/src/dynamics/planted.c" -o "$tmp/build/src/CMakeFiles/clatter.dir/dynamics/planted.c.o"
"$cc" -c "$tmp/root/src/steppers/planted.c" -o "$tmp/build/src/CMakeFiles/clatter.dir/steppers/planted.c.o"
expect_failure "planted upward call" "src/dynamics/planted.c" \
  "(layer dynamics) calls clt_planted_stage of src/steppers/planted.c (layer steppers, higher)" \
  -- --objects "$tmp/build"

echo "check_layers: passes on the tree, fails on each planted upward dependency"
