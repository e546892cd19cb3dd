#!/usr/bin/env bash
# Mutation fuzzing in small (scripts/fuzz.py with fixed seeds): mutated scene files, problem files
# and run files must end with exit status 0, 1 or 2 and a message naming the file, with no signal
# (and, in the sanitizer build of the test command, no sanitizer report). The full campaigns run
# outside CI (scripts/fuzz.py: a few minutes per thousand cases).
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fuzz() { python3 "$CLATTER_SOURCE_DIR/scripts/fuzz.py" "$@" --timeout 300; }
status=0
fuzz scene "$CLATTER_BIN" --cases 80 --seed 101 --max-steps 1 \
  --scenes "$CLATTER_SOURCE_DIR/scenes/examples/*.json" --out "$tmp/scene" || status=1
fuzz lcp "$CLATTER_BIN" --cases 60 --seed 102 --out "$tmp/lcp" || status=1
fuzz run "$CLATTER_BIN" --cases 20 --seed 103 --max-steps 1 --out "$tmp/run" || status=1
if [ "$status" -ne 0 ]; then
  for f in "$tmp"/*/bad_*.err; do
    [ -e "$f" ] && { echo "== $f"; cat "$f"; }
  done
fi
exit "$status"
