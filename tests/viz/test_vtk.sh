#!/usr/bin/env bash
# `clatter vtk` (docs/visualization.md "`clatter vtk`: ParaView"): 3D and 2D runs written as binary
# zlib-compressed VTK XML and read back both with Debian's python3-vtk9 (vtkXMLPolyDataReader) and
# with tests/viz/vtpread.py, which checks the appended block's layout (VTK's compressed-block
# headers, arrays back to back); every Float64 array is bit for bit the run file's. --surfaces
# auto leaves dynamic single spheres and disks to the bodies file (glyph = 1) and keeps every other
# body, static and kinematic ones and an off-centre sphere included; all and none; --ascii reads
# back the same values. An 8 000-sphere frame (pile.json) is at most 1 MB, bodies and shapes files
# together, also with full-entropy random states written into the run file. Missing and damaged
# run files exit 2 with a message and write nothing; a file that cannot be written exits 1, leaves
# no .part file and the earlier .pvd as it was.
source "$CLATTER_SOURCE_DIR/tests/viz/viz_lib.sh"
cd "$tmp"
run_ok "$CLATTER_BIN" run "$viz_dir/shapes3d.json" -o s3.h5 --quiet --set output.contacts=false
run_ok "$CLATTER_BIN" vtk s3.h5 -o out3 > vtk3.out
grep -q "^wrote 24 files to out3/" vtk3.out || die "vtk summary: $(cat vtk3.out)"
run_ok "$CLATTER_BIN" vtk s3.h5 -o all3 --surfaces all --frames 5:5 > /dev/null
run_ok "$CLATTER_BIN" vtk s3.h5 -o none3 --surfaces none > none3.out
grep -q "^wrote 12 files to none3/ (open none3/shapes3d.pvd in" none3.out || die "--surfaces none summary: $(cat none3.out)"
run_ok "$CLATTER_BIN" vtk s3.h5 -o ascii3 --ascii --frames 5:5 > /dev/null
run_ok "$CLATTER_BIN" run "$viz_dir/shapes2d.json" -o s2.h5 --quiet --set output.contacts=false
run_ok "$CLATTER_BIN" vtk s2.h5 -o out2 --frames 10:30:10 --name two > /dev/null
"$CLATTER_BIN" vtk s2.h5 -o out2 --frames 30:10 2> /dev/null
[ $? -eq 2 ] || die "an empty frame range must exit 2"
"$CLATTER_BIN" vtk s2.h5 -o bad --surfaces some 2> surfaces.err
[ $? -eq 2 ] || die "--surfaces some must exit 2"
grep -q "expected auto, all or none" surfaces.err || die "--surfaces message: $(cat surfaces.err)"

# A sphere off its body's centre of mass (mass and inertia given) and a kinematic sphere keep their
# surfaces under auto; only the centred dynamic one is left to a glyph.
cat > off.json <<'JSON'
{"name": "off", "dimension": 3, "time_step": 0.01, "duration": 0.02, "gravity": [0, 0, 0],
 "bodies": [
  {"name": "ball", "position": [0, 0, 1], "shape": {"type": "sphere", "radius": 0.2}},
  {"name": "offball", "position": [1, 0, 1], "mass": 1, "inertia": [0.1, 0.1, 0.1],
   "shapes": [{"type": "sphere", "radius": 0.2, "position": [0.3, 0, 0]}]},
  {"name": "carried", "type": "kinematic", "position": [2, 0, 1], "shape": {"type": "sphere", "radius": 0.2}}
 ],
 "output": {"contacts": false}}
JSON
run_ok "$CLATTER_BIN" run off.json -o off.h5 --quiet
run_ok "$CLATTER_BIN" vtk off.h5 -o off > /dev/null

# 8 000 spheres in the pile's box (5 static half-spaces), three frames; pile_random.h5 has frame 2
# replaced by random positions, unit quaternions and velocities (nothing for zlib to find).
run_ok "$CLATTER_BIN" run "$CLATTER_SOURCE_DIR/scenes/papers/pile.json" --param n=8000 --quiet -o pile.h5 \
  --set duration=0.02 --set output.interval=0.01
cp pile.h5 pile_random.h5
"$PY" - <<'PY' || exit 1
import h5py, numpy as np
rng = np.random.default_rng(7)
with h5py.File("pile_random.h5", "r+") as f:
    n = f["trajectory/position"].shape[1]
    f["trajectory/position"][2] = rng.uniform([-0.5, -0.5, 0], [0.5, 0.5, 1.5], (n, 3))
    q = rng.normal(size=(n, 4))
    f["trajectory/orientation"][2] = q / np.linalg.norm(q, axis=1)[:, None]
    f["trajectory/velocity"][2] = rng.normal(size=(n, 3))
    f["trajectory/angular_velocity"][2] = 10 * rng.normal(size=(n, 3))
PY
run_ok "$CLATTER_BIN" vtk pile.h5 -o pile > /dev/null
# 4 096 bodies: a one-component Float64 array fills one zlib block exactly (its header's last
# block size is then 0).
run_ok "$CLATTER_BIN" run "$CLATTER_SOURCE_DIR/scenes/papers/pile.json" --param n=4091 --quiet -o pile4096.h5 \
  --set duration=0.01 --set output.interval=0.01
run_ok "$CLATTER_BIN" vtk pile4096.h5 -o pile4096 --frames 1:1 > /dev/null
run_ok "$CLATTER_BIN" vtk pile_random.h5 -o pile_random --frames 2:2 > /dev/null

# Bad input: exit status 2, a message naming the file and the reason, no output folder.
"$CLATTER_BIN" vtk missing.h5 -o m 2> missing.err
[ $? -eq 2 ] || die "a missing run file must exit 2"
grep -q "missing.h5: cannot open: No such file or directory" missing.err || die "missing file message: $(cat missing.err)"
head -c 4096 /dev/urandom > noise.h5
"$CLATTER_BIN" vtk noise.h5 -o m 2> noise.err
[ $? -eq 2 ] || die "a file of random bytes must exit 2"
grep -q "noise.h5: " noise.err || die "random bytes message: $(cat noise.err)"
head -c "$(($(stat -c %s s3.h5) / 2))" s3.h5 > half.h5
"$CLATTER_BIN" vtk half.h5 -o m 2> half.err
[ $? -eq 2 ] || die "a truncated run file must exit 2"
grep -q "half.h5: " half.err || die "truncated file message: $(cat half.err)"
[ ! -e m ] || die "bad input created the output folder"

# A file that cannot be written (a folder in its place): exit 1, the message names it; the files
# of the frames before it are complete, no .part file stays, the .pvd of the earlier run is kept.
run_ok "$CLATTER_BIN" vtk s3.h5 -o keep --frames 0:2 > /dev/null
cp keep/shapes3d.pvd pvd.before
mkdir keep/shapes3d_shapes_00003.vtp
"$CLATTER_BIN" vtk s3.h5 -o keep > keep.out 2> keep.err
[ $? -eq 1 ] || die "an unwritable file must exit 1"
grep -q "keep/shapes3d_shapes_00003.vtp: cannot write (Is a directory)" keep.err || die "write error message: $(cat keep.err)"
cmp -s pvd.before keep/shapes3d.pvd || die "the earlier .pvd was replaced after an error"
[ -z "$(ls keep | grep '\.part$')" ] || die ".part files left: $(ls keep)"

"$PY" - <<'PY' || exit 1
import math, os, sys
import xml.etree.ElementTree as ET
import h5py
import numpy as np
import vtk
from vtk.util.numpy_support import vtk_to_numpy
import vtpread

failures = []
def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)

def same_bits(a, b):
    a, b = np.ascontiguousarray(a), np.ascontiguousarray(b)
    return a.shape == b.shape and a.dtype == b.dtype and a.tobytes() == b.tobytes()

print("reading with python3-vtk9", vtk.vtkVersion.GetVTKVersion())
def read(path):
    """Both readers: VTK's must open it and agree bit for bit with vtpread's."""
    r = vtk.vtkXMLPolyDataReader()
    r.SetFileName(path)
    r.Update()
    if r.GetErrorCode() != 0:
        raise RuntimeError(f"{path}: VTK reader error {r.GetErrorCode()}")
    pd = r.GetOutput()
    arrays = {}
    for data in (pd.GetPointData(), pd.GetCellData()):
        for i in range(data.GetNumberOfArrays()):
            arrays[data.GetArrayName(i)] = vtk_to_numpy(data.GetArray(i))
    points = vtk_to_numpy(pd.GetPoints().GetData()) if pd.GetNumberOfPoints() else np.zeros((0, 3))
    root, piece, mine = vtpread.read(path)
    agree = set(arrays) == {k.split("/")[1] for k in mine if k.split("/")[0] in ("PointData", "CellData")}
    agree &= all(same_bits(arrays[k.split("/")[1]], v) for k, v in mine.items() if k.split("/")[1] in arrays)
    agree &= pd.GetNumberOfPoints() == 0 or same_bits(points, mine["Points/Points"])
    if not agree:
        raise RuntimeError(f"{path}: VTK's reader and vtpread disagree")
    return pd.GetNumberOfPoints(), pd.GetNumberOfCells(), points, arrays, root

# 3D bodies: the run file's values, bit for bit.
n, cells, points, a, root = read("out3/shapes3d_00005.vtp")
check(root.get("compressor") == "vtkZLibDataCompressor" and root.get("header_type") == "UInt64",
      f"binary zlib file: {root}")
check(n == 6 and cells == 6, f"3D bodies file: 6 points, one vertex cell per body: {n}, {cells}")
with h5py.File("s3.h5", "r") as f:
    t = {k: f["trajectory/" + k][5] for k in ("position", "orientation", "velocity", "angular_velocity")}
    shapes = {k: f["shapes/" + k][:] for k in ("radius", "length", "half_extents", "semi_axes", "major_radius", "minor_radius")}
    first = f["bodies/first_shape"][:]
check(same_bits(points, t["position"]), "Points = /trajectory/position[5], bit for bit")
for k in ("orientation", "velocity", "angular_velocity"):
    check(same_bits(a[k], t[k]), f"{k} = /trajectory/{k}[5], bit for bit")
for k, v in shapes.items():
    check(same_bits(a[k], v[first]), f"{k} = /shapes/{k} of each body's first shape, bit for bit")
q = a["orientation"][2]  # the box: 0.5 rad about z, no angular velocity
check(np.allclose(q, [math.cos(0.25), 0, 0, math.sin(0.25)], atol=1e-12), f"box orientation (w, x, y, z) = {q}")
check(list(a["shape_type"]) == [6, 5, 7, 8, 9, 10], f"shape type ids {list(a['shape_type'])}")
check(list(a["glyph"]) == [0, 1, 0, 0, 0, 0], f"auto: only the sphere is a glyph: {list(a['glyph'])}")

# Shapes: auto leaves the sphere out, all draws it at its radius, none writes no series.
n, cells, points, a, _ = read("out3/shapes3d_shapes_00005.vtp")
check(set(np.unique(a["body_id"]).tolist()) == {0, 2, 3, 4, 5}, f"auto: surfaces of all but the sphere: {np.unique(a['body_id']).tolist()}")
r = np.linalg.norm(points - np.array([0, 0, 0.5]), axis=1)
check(np.sum(np.abs(r - 0.5) < 1e-9) == 0, "auto: no point on the sphere's surface")
n, cells, points, a, _ = read("all3/shapes3d_shapes_00005.vtp")
check(set(np.unique(a["body_id"]).tolist()) == {0, 1, 2, 3, 4, 5}, f"all: every body has surface cells: {np.unique(a['body_id']).tolist()}")
r = np.linalg.norm(points - np.array([0, 0, 0.5]), axis=1)
check(np.sum(np.abs(r - 0.5) < 1e-9) >= 13 * 24, f"all: sphere mesh points at radius 0.5: {int(np.sum(np.abs(r - 0.5) < 1e-9))}")
n, cells, points, a, _ = read("all3/shapes3d_00005.vtp")
check(list(a["glyph"]) == [0] * 6, f"all: no glyphs: {list(a['glyph'])}")
files = sorted(os.listdir("none3"))
check(not any("_shapes" in f for f in files) and len(files) == 12, f"none: bodies series only: {len(files)} files")
n, cells, points, a, _ = read("none3/shapes3d_00005.vtp")
check(list(a["glyph"]) == [0, 1, 0, 0, 0, 0], f"none: the sphere is a glyph: {list(a['glyph'])}")
n, cells, points, a, _ = read("off/off_00001.vtp")
check(list(a["glyph"]) == [1, 0, 0], f"off-centre and kinematic spheres are not glyphs: {list(a['glyph'])}")
n, cells, points, a, _ = read("off/off_shapes_00001.vtp")
check(set(np.unique(a["body_id"]).tolist()) == {1, 2}, f"their surfaces are written: {np.unique(a['body_id']).tolist()}")

# --ascii: the same values, inline.
root, piece, asc = vtpread.read("ascii3/shapes3d_00005.vtp")
_, _, binary = vtpread.read("out3/shapes3d_00005.vtp")
check("compressor" not in root and b'format="ascii"' in open("ascii3/shapes3d_00005.vtp", "rb").read(), "--ascii: ASCII arrays")
check(asc.keys() == binary.keys() and all(same_bits(asc[k], binary[k]) for k in asc), "--ascii: the binary file's values")
read("ascii3/shapes3d_00005.vtp")
read("ascii3/shapes3d_shapes_00005.vtp")

# The series.
root = ET.parse("out3/shapes3d.pvd").getroot()
sets = root.findall("Collection/DataSet")
check(len(sets) == 11, f".pvd lists 11 frames: {len(sets)}")
check(abs(float(sets[3].get("timestep")) - 0.03) < 1e-12 and sets[3].get("file") == "shapes3d_00003.vtp",
      f".pvd entry 3: {sets[3].attrib}")
check(all(os.path.exists(os.path.join("out3", s.get("file"))) for s in sets), ".pvd files exist")
check(not any(f.endswith(".part") for d in ("out3", "all3", "none3", "ascii3", "out2") for f in os.listdir(d)), "no .part files")

# 2D.
files = sorted(os.listdir("out2"))
check(files == ["two.pvd", "two_00010.vtp", "two_00020.vtp", "two_00030.vtp", "two_shapes.pvd",
                "two_shapes_00010.vtp", "two_shapes_00020.vtp", "two_shapes_00030.vtp"], f"2D range files: {files}")
n, cells, points, a, _ = read("out2/two_00020.vtp")
check(n == 7 and "angle" in a and a["orientation"].shape == (7, 4), "2D bodies: 7 points, angle and quaternion")
with h5py.File("s2.h5", "r") as f:
    check(same_bits(a["angle"], f["trajectory/angle"][20]), "2D angle = /trajectory/angle[20], bit for bit")
    check(same_bits(points, f["trajectory/position"][20]), "2D Points = /trajectory/position[20], bit for bit")
th = a["angle"][1]
check(np.allclose(a["orientation"][1], [math.cos(th / 2), 0, 0, math.sin(th / 2)]), "2D quaternion = rotation about z by angle")
check(list(a["glyph"]) == [0, 1, 0, 0, 0, 0, 1], f"2D auto: the disks are glyphs: {list(a['glyph'])}")
n, cells, points, a, _ = read("out2/two_shapes_00020.vtp")
check(set(np.unique(a["body_id"]).tolist()) == {0, 2, 3, 4, 5}, f"2D auto: surfaces of all but the disks: {np.unique(a['body_id']).tolist()}")

# 8 000 spheres: at most 1 MB a frame, bodies and shapes files together; exact values.
for run, folder, frames in (("pile.h5", "pile", (0, 1, 2)), ("pile_random.h5", "pile_random", (2,))):
    with h5py.File(run, "r") as f:
        for frame in frames:
            bodies, shapes = f"{folder}/pile_{frame:05d}.vtp", f"{folder}/pile_shapes_{frame:05d}.vtp"
            size_b, size_s = os.path.getsize(bodies), os.path.getsize(shapes)
            check(size_b + size_s <= 1_000_000, f"{folder} frame {frame}: 8 000 spheres in {size_b} + {size_s} = {size_b + size_s} bytes <= 1 MB")
            n, cells, points, a, _ = read(bodies)
            check(n == 8005, f"{bodies}: 8 005 points: {n}")
            exact = same_bits(points, f["trajectory/position"][frame])
            for k in ("orientation", "velocity", "angular_velocity"):
                exact &= same_bits(a[k], f["trajectory/" + k][frame])
            check(exact, f"{bodies}: position, orientation, velocity, angular velocity bit for bit")
            check(int(a["glyph"].sum()) == 8000 and not a["glyph"][:5].any(), "the 8 000 spheres are glyphs, the walls not")
            n, cells, points, a, _ = read(shapes)
            check(cells == 5 and set(a["body_id"].tolist()) == {0, 1, 2, 3, 4}, f"{shapes}: the floor and 4 walls only: {cells} cells")
n, cells, points, a, _ = read("pile4096/pile_00001.vtp")
with h5py.File("pile4096.h5", "r") as f:
    check(n == 4096 and same_bits(a["radius"], f["shapes/radius"][:]) and same_bits(points, f["trajectory/position"][1]),
          "4 096 bodies (one full block per scalar array): radius and Points bit for bit")
print(f"{len(failures)} failed")
sys.exit(1 if failures else 0)
PY
