#!/usr/bin/env bash
# scenes/papers/brazilnut.json (3D, SPEC.md §8, bench/brazilnut) and its 2D predecessor
# scenes/papers/brazilnut2d.json load and run their first shakes without failure: exit 0, status
# complete, every body finite and inside the shaken container (above its floor, between its
# walls, with at most a small overlap), the container on its prescribed law z(t) = A sin(2 pi f t),
# the nut heavier or lighter as the scene says, and the stored scene (a body grid) rebuilds the
# same 271 bodies. The full runs and the rise of the large body are bench/brazilnut/run.
source "$CLATTER_SOURCE_DIR/tests/cli/cli_lib.sh"
cd "$tmp"
# The solver cap is lowered from 1000 to 300 iterations to keep the test short; the bench runs
# the scenes as they are. 3D: one shake (10 steps), 2D: two.
for run in "brazilnut 1" "brazilnut2d 2"; do
  set -- $run
  name=$1
  shakes=$2
  scene="$CLATTER_SOURCE_DIR/scenes/papers/$name.json"
  expect_status 0 "$shakes shake(s) of $name" env OMP_NUM_THREADS=1 "$CLATTER_BIN" run "$scene" \
    --set duration="$shakes" --set method.max_iterations=300 -o "$name.h5" --quiet
  expect "$name: status complete" test "$(json_field "$name.h5" status)" = '"complete"'
  expect "$name: $((10 * shakes)) steps" test "$(json_field "$name.h5" steps)" = $((10 * shakes))
  checks=$((checks + 1))
  if ! /usr/bin/python3 - "$name.h5" <<'PY'; then fail "$name state checks"; fi
import json, math, sys
import h5py, numpy as np
f = h5py.File(sys.argv[1], "r")
raw = f["scene"][()]
scene = json.loads((raw.decode() if isinstance(raw, bytes) else str(raw)).rstrip("\0"))
names = [n.decode() if isinstance(n, bytes) else str(n) for n in f["bodies/name"][:]]
assert len(names) == 271, len(names)                     # container, nut, 269 grains
assert names[1] == "nut" and names[2] == "grain0" and names[-1] == "grain268", names[:3]
dim = scene["dimension"]
up = dim - 1
cont = scene["bodies"][0]
amp = cont["motion"]["amplitude"][up]
freq = cont["motion"]["frequency"]
params = scene["parameters"]
amp = params["A"] if amp == "$A" else amp
freq = params["f"] if freq == "$f" else freq
t = f["trajectory/time"][:]
pos = f["trajectory/position"][:]
assert np.all(np.isfinite(pos))
law = amp * np.sin(2 * math.pi * freq * t)
assert np.max(np.abs(pos[:, 0, up] - law)) < 1e-12, np.max(np.abs(pos[:, 0, up] - law))
first = f["bodies/first_shape"][:]
radius = f["shapes/radius"][:]
r = np.array([radius[first[i]] for i in range(1, len(names))])
mass = f["bodies/mass"][:] if "mass" in f["bodies"] else None
rel = pos[:, 1:, :] - pos[:, :1, :]                        # relative to the container
d = 2 * r[1:].max()
low = np.min(rel[:, :, up] - r)
print(f"{dim}D: lowest surface {low:.4f} m above the floor, d = {d:g}")
assert low > -0.1 * d, low
for axis in range(dim - 1):                                # the walls across this axis
    walls = [s for s in cont["shapes"][1:] if abs(s["position"][axis]) > 1e-9]
    inner = min(abs(s["position"][axis]) - s["half_extents"][axis] for s in walls)
    side = np.max(np.abs(rel[:, :, axis]) + r)
    print(f"  axis {axis}: outermost {side:.4f} m (walls at {inner:.4f})")
    assert side < inner + 0.1 * d, side
if mass is not None:                                       # the nut's density: the scene's
    mats = scene.get("materials", {})
    rho = mats.get(scene["bodies"][1].get("material", "default"), mats.get("default", {})).get("density")
    vol = (4 / 3 * math.pi * r[0] ** 3) if dim == 3 else math.pi * r[0] ** 2
    assert abs(mass[1] - rho * vol) < 1e-9 * rho * vol, (mass[1], rho * vol)
    print(f"  nut density {mass[1] / vol:g}")
PY
done
echo "$checks checks, $failures failures"
[ "$failures" -eq 0 ]
