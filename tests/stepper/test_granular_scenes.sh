#!/usr/bin/env bash
# scenes/granular/drum.json and hopper.json (issue [granular]) load and run their first steps:
# exit 0, status complete, the packing's beads inside their container (within the drum's radius
# and length, or inside the bin and above the plate or fallen through its orifice) with at most a
# small overlap, the drum turned by omega t about y, and the meshes read from scenes/granular/meshes.
# The long runs (angle of repose, discharge rate) belong to bench/granular.
source "$CLATTER_SOURCE_DIR/tests/cli/cli_lib.sh"
cd "$tmp"
expect_status 0 "drum, 40 steps" env OMP_NUM_THREADS=1 "$CLATTER_BIN" run "$CLATTER_SOURCE_DIR/scenes/granular/drum.json" \
  --set duration=0.08 -o drum.h5 --quiet
expect_status 0 "hopper, 20 steps" env OMP_NUM_THREADS=1 "$CLATTER_BIN" run "$CLATTER_SOURCE_DIR/scenes/granular/hopper.json" \
  --set duration=0.04 -o hopper.h5 --quiet
for name in drum hopper; do
  expect "$name: status complete" test "$(json_field "$name.h5" status)" = '"complete"'
done
checks=$((checks + 1))
if ! /usr/bin/python3 - <<'PY'; then fail "drum and hopper state checks"; fi
import h5py, numpy as np
f = h5py.File("drum.h5", "r")
x = f["trajectory/position"][-1, 1:]
r = f["shapes/radius"][1:]
t = f["trajectory/time"][-1]
assert len(r) == 600 and (r > 0).all()
reach = np.hypot(x[:, 0], x[:, 2]) + r
assert reach.max() <= 0.1 + 1e-4, reach.max()
assert (np.abs(x[:, 1]) + r).max() <= 0.025 + 1e-4
q = f["trajectory/orientation"][-1, 0]          # the drum: a turn of omega t about y
assert abs(q[0] - np.cos(1.5 * t)) < 1e-9 and abs(q[2] - np.sin(1.5 * t)) < 1e-9, (q, t)
assert f["diagnostics/penetration"][:].max() < 2e-4
h = h5py.File("hopper.h5", "r")
x = h["trajectory/position"][-1, 2:]
r = h["shapes/radius"][6:]
assert len(r) == 8000 and r.min() >= 0.0018 and r.max() <= 0.0022
assert (np.abs(x[:, :2]) + r[:, None] <= 0.05 + 1e-4).all()
above = x[:, 2] - r >= -1e-4                      # on or above the plate ...
through = np.hypot(x[:, 0], x[:, 1]) < 0.015      # ... or in the orifice's column
assert (above | through).all()
assert h["diagnostics/penetration"][:].max() < 2e-4
print("drum: reach %.6f m, hopper: %d beads" % (reach.max(), len(r)))
PY
finish
