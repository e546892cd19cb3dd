#!/usr/bin/env bash
# Every malformed scene in bad_scenes/ must make `clatter run` exit with status 2, print exactly
# the documented message (bad_scenes/NAME.expected: "FILE: JSON.PATH: reason", or
# "FILE:LINE:COLUMN: invalid JSON: ..."; a line ending in "..." is a prefix), and write no output
# file. NAME.args, if present, holds
# extra command-line arguments, one per line (bad --set / --param overrides).
set -u
dir="$CLATTER_SOURCE_DIR/tests/cli/bad_scenes"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
count=0
check() { # name rc stderr-file expected-line
  local name=$1 rc=$2 err=$3 expected=$4
  count=$((count + 1))
  if [ "$rc" -ne 2 ]; then
    echo "FAIL $name: exit status $rc, expected 2"; failures=$((failures + 1)); return
  fi
  # An expected line ending in "..." is a prefix: the rest is the physics library's own wording
  # (errors it finds are reported against the JSON path of the object that caused them).
  local found=1
  if [ "${expected%...}" != "$expected" ]; then
    grep -qF -- "${expected%...}" "$err" && [ "$(head -c ${#expected} "$err" | head -c $((${#expected} - 3)))" = "${expected%...}" ] && found=0
  else
    grep -qxF -- "$expected" "$err" && found=0
  fi
  if [ "$found" -ne 0 ]; then
    echo "FAIL $name: expected the message"; echo "  $expected"; echo "got:"; sed 's/^/  /' "$err"
    failures=$((failures + 1)); return
  fi
  if ls "$tmp"/out.* >/dev/null 2>&1; then
    echo "FAIL $name: an output file was written"; failures=$((failures + 1)); rm -f "$tmp"/out.*
  fi
}
cd "$dir"
for scene in *.json; do
  name=${scene%.json}
  args=()
  if [ -f "$name.args" ]; then mapfile -t args < "$name.args"; fi
  "$CLATTER_BIN" run "$scene" -o "$tmp/out.h5" --quiet "${args[@]}" 2> "$tmp/err"
  check "$name" $? "$tmp/err" "$(cat "$name.expected")"
done

# A scene file that does not exist.
"$CLATTER_BIN" run "$tmp/no_such_scene.json" -o "$tmp/out.h5" --quiet 2> "$tmp/err"
check missing_file $? "$tmp/err" "$tmp/no_such_scene.json: cannot open: No such file or directory"
# Not text: /dev/zero is refused at its first byte (read to its end it would exhaust memory), a
# NUL byte inside a file at its offset.
"$CLATTER_BIN" run /dev/zero -o "$tmp/out.h5" --quiet 2> "$tmp/err"
check dev_zero $? "$tmp/err" "/dev/zero: contains a NUL byte at offset 0 (not a JSON text file)"
printf '{"name": "x"\000}' > "$tmp/nul.json"
"$CLATTER_BIN" run "$tmp/nul.json" -o "$tmp/out.h5" --quiet 2> "$tmp/err"
check nul_byte $? "$tmp/err" "$tmp/nul.json: contains a NUL byte at offset 12 (not a JSON text file)"
# 2·10⁵ declared parameters, one duplicated at the end: found and named (the duplicate search and
# the "$name" lookups are sorted and bisected, 0.3 s; linear searches take 70 s: the limit is 20 s).
/usr/bin/python3 -c "
import json
s = json.load(open('$CLATTER_SOURCE_DIR/scenes/examples/default.json'))
names = ['p%d' % i for i in range(200000)]
s['parameters'] = {n: 1.0 for n in names}
s['bodies'][1]['mass'] = '\$p199999'
text = json.dumps(s)
open('$tmp/many.json', 'w').write(text.replace('\"parameters\": {', '\"parameters\": {\"p7\": 2.0, ', 1))
"
(ulimit -t 20; exec "$CLATTER_BIN" run "$tmp/many.json" -o "$tmp/out.h5" --quiet) 2> "$tmp/err"
check many_parameters_duplicate $? "$tmp/err" "$tmp/many.json: parameters.p7: duplicate key"
# Bad option values.
"$CLATTER_BIN" run --checkpoint-every 0 --quiet 2> "$tmp/err"
check checkpoint_every_zero $? "$tmp/err" "clatter run: --checkpoint-every: expected an integer >= 1 (got '0')"
"$CLATTER_BIN" run --frobnicate 2> "$tmp/err"
check unknown_option $? "$tmp/err" "clatter run: unknown option '--frobnicate' (see clatter run --help)"

echo "$count cases, $failures failures"
if [ "$count" -lt 15 ]; then echo "FAIL: fewer than 15 cases"; exit 1; fi
[ "$failures" -eq 0 ]
