# Shared set-up for the tests/viz/test_*.sh scripts (sourced; not a test itself). The checks run in
# Debian's /usr/bin/python3 (numpy, h5py, python3-vtk9), not the python3 first on PATH.
set -u
tmp=$(mktemp -d)
# VIZ_KEEP=1 keeps the pictures for a look (the folder is printed).
trap 'if [ -n "${VIZ_KEEP:-}" ]; then echo "kept $tmp"; else rm -rf "$tmp"; fi' EXIT
viz_dir="$CLATTER_SOURCE_DIR/tests/viz"
PY=/usr/bin/python3
export PYTHONPATH="$viz_dir${PYTHONPATH:+:$PYTHONPATH}"
die() { echo "FAIL: $*"; exit 1; }
run_ok() { # command...: must succeed
  "$@" || die "exit status $? from: $*"
}
