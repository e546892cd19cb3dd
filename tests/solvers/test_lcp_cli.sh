#!/usr/bin/env bash
# `clatter lcp` (tools/cmd_lcp.c): table and JSON output on the shared LCP files, solver choice,
# Lemke's statuses per file (data README §5.1), and clear errors with file and line for
# malformed or non-finite input (exit status 2).
set -euo pipefail
: "${CLATTER_BIN:?}" "${CLATTER_SHARED_DIR:?}"
PY=/usr/bin/python3
data="$CLATTER_SHARED_DIR/data/lcp"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# All five LCP solvers on every file, JSON lines.
"$CLATTER_BIN" lcp --json "$data"/*.dat > "$tmp/all.jsonl"
"$PY" - "$tmp/all.jsonl" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
keys = {"file", "n", "solver", "status", "iterations", "residual", "seconds"}
assert all(keys <= set(r) for r in rows), "missing keys"
assert all(r["status"] in ("solved", "ray", "max_iterations", "not_converged", "error") for r in rows)
assert all(("message" in r) == (r["status"] != "solved") for r in rows), "message iff not solved"
files = sorted({r["file"] for r in rows})
assert len(files) == 20, files
assert len(rows) == 100, len(rows)
ray = {"lcp_CPS_3.dat", "lcp_Pang_isolated_sol_perturbed.dat", "lcp_legacy_mathieu2.dat"}
for r in rows:
    if r["solver"] == "lemke":
        if r["file"] in ray:
            assert r["status"] == "ray", r
        else:
            assert r["status"] == "solved" and r["residual"] <= 1e-10, r
    if r["status"] == "solved":
        assert r["residual"] <= 1e-10, r
sym_psd = {"lcp_deudeu.dat", "lcp_deudeu_block.dat", "lcp_trivial.dat", "lcp_trivial_block.dat",
           "lcp_mmc.dat", "lcp_CPS_1.dat", "lcp_legacy_mmc31.dat"}
for r in rows:
    if r["solver"] in ("apgd", "bbpgd", "mprgp"):
        if r["file"] in sym_psd:
            assert r["status"] == "solved", r
        else:
            assert r["status"] == "error" and "not symmetric" in r["message"], r
print("json ok:", len(rows), "rows")
PY

# --solver picks one (pgs is an alias of bgs); the table has a header and one row.
out=$("$CLATTER_BIN" lcp --solver pgs --tolerance 1e-9 "$data/lcp_mmc.dat")
[ "$(echo "$out" | wc -l)" -eq 2 ] || fail "table rows: $out"
echo "$out" | grep -q "lcp_mmc.dat .* bgs .* solved" || fail "pgs alias: $out"
# --max-iterations caps Lemke's pivots.
"$CLATTER_BIN" lcp --json --solver lemke --max-iterations 3 "$data/lcp_tobenna.dat" | grep -q '"status":"max_iterations"' \
  || fail "pivot cap"
# nsgs on an LCP: reported, not run.
"$CLATTER_BIN" lcp --json --solver nsgs "$data/lcp_deudeu.dat" | grep -q '"status":"error"' || fail "nsgs on LCP"

# Frictional-contact files (Siconos .dat and FCLIB HDF5, local and global) run the exact-cone
# NSGS; an LCP solver asked for on them is reported as not applicable.
fc="$CLATTER_SHARED_DIR/data/fc"
"$CLATTER_BIN" lcp --json "$fc/FC3D_Example1.dat" "$fc/CubeH8.hdf5" > "$tmp/fc.jsonl"
"$PY" - "$tmp/fc.jsonl" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert [r["solver"] for r in rows] == ["nsgs", "nsgs"], rows
assert all(r["status"] == "solved" and r["residual"] <= 1e-8 for r in rows), rows
assert rows[0]["n"] == 9 and rows[1]["n"] == 3, rows
PY
"$CLATTER_BIN" lcp --json --solver lemke "$fc/FC3D_Example1.dat" | grep -q '"status":"error"' \
  || fail "lemke on a frictional-contact file"

# Malformed and non-finite files: the message names the file and the line; exit status 2, and
# the good file after them is still solved.
printf '2\n0\n2\n2\n2 2\n1 0\nabc 1\n-1 -1\n' > "$tmp/bad_token.dat"
printf '2\n0\n2\n2\n2 2\n1 0\n0 1\n-1 inf\n' > "$tmp/bad_inf.dat"
set +e
"$CLATTER_BIN" lcp --json --solver lemke "$tmp/bad_token.dat" "$tmp/bad_inf.dat" "$tmp/missing.dat" \
  "$data/lcp_deudeu.dat" > "$tmp/bad.jsonl" 2> "$tmp/bad.err"
status=$?
set -e
[ "$status" -eq 2 ] || fail "exit status $status, expected 2"
grep -q 'bad_token.dat:7' "$tmp/bad.err" || fail "no file:line for a bad token: $(cat "$tmp/bad.err")"
grep -q 'bad_inf.dat:8' "$tmp/bad.err" || fail "no file:line for a non-finite number: $(cat "$tmp/bad.err")"
grep -q 'missing.dat' "$tmp/bad.err" || fail "missing file not named"
[ "$(grep -c '"status":"error"' "$tmp/bad.jsonl")" -eq 3 ] || fail "error rows: $(cat "$tmp/bad.jsonl")"
grep -q '"file":"lcp_deudeu.dat".*"status":"solved"' "$tmp/bad.jsonl" || fail "good file after bad ones"

# Usage errors.
set +e
"$CLATTER_BIN" lcp --solver nope "$data/lcp_deudeu.dat" 2>/dev/null; s1=$?
"$CLATTER_BIN" lcp 2>/dev/null; s2=$?
set -e
[ "$s1" -eq 2 ] && [ "$s2" -eq 2 ] || fail "usage errors must exit 2 ($s1, $s2)"
echo "cli ok"
