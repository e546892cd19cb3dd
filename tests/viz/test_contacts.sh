#!/usr/bin/env bash
# Contact overlay from an optional /contacts group (docs/output-format.md), added here with h5py
# to runs of tests/viz/shapes3d.json and shapes2d.json: `clatter render --contacts` draws the
# points coloured by force magnitude where they project (3D and 2D), nothing in a frame without
# contacts or without --contacts; `clatter vtk` writes the contacts series; a damaged group is an
# error (exit status 2).
source "$CLATTER_SOURCE_DIR/tests/viz/viz_lib.sh"
cd "$tmp"
run_ok "$CLATTER_BIN" run "$viz_dir/shapes3d.json" -o s3.h5 --quiet --set output.contacts=false
run_ok "$CLATTER_BIN" run "$viz_dir/shapes2d.json" -o s2.h5 --quiet --set output.contacts=false
"$PY" - <<'PY' || exit 1
import h5py, numpy as np, shutil
def add_contacts(path, per_frame, damaged=False):
    with h5py.File(path, "r+") as f:
        t = f["trajectory/time"].shape[0]
        count = np.array([len(per_frame(i)) for i in range(t)], np.int64)
        first = np.concatenate([[0], np.cumsum(count)[:-1]]).astype(np.int64)
        rows = [c for i in range(t) for c in per_frame(i)]
        g = f.create_group("contacts")
        g["first"] = first + (5 if damaged else 0)
        g["count"] = count
        g["point"] = np.array([r[0] for r in rows], float).reshape(-1, 3)
        g["force"] = np.array([r[1] for r in rows], float).reshape(-1, 3)
        g["normal"] = np.tile([0.0, 0, 1], (len(rows), 1))
        g["normal_force"] = np.array([r[1][2] for r in rows], float)
        g["body_a"] = np.zeros(len(rows), np.int32)
        g["body_b"] = np.array([r[2] for r in rows], np.int32)
# 3D: frame 0 has two contacts (sphere and box on the floor, 10 N and 5 N), frame 1 none.
c3 = lambda i: [] if i == 1 else [((0, 0, 0), (0, 0, 10), 1), ((1.5, 0, 0), (0, 0, 5), 2)]
shutil.copy("s3.h5", "bad.h5")
add_contacts("s3.h5", c3)
add_contacts("bad.h5", c3, damaged=True)
# 2D: the disk's lowest point at frame 0, 20 N up.
add_contacts("s2.h5", lambda i: [((0, 0.5, 0), (0, 20, 0), 1)] if i == 0 else [])
PY
[ $? -eq 0 ] || die "writing /contacts with h5py"
cam="--size 400x300 --camera 0,-6,0.5,0,0,0.5"
run_ok "$CLATTER_BIN" render s3.h5 --frame 0 $cam --contacts -o c0.png > /dev/null
run_ok "$CLATTER_BIN" render s3.h5 --frame 1 $cam --contacts -o c1.png > /dev/null
run_ok "$CLATTER_BIN" render s3.h5 --frame 0 $cam -o plain.png > /dev/null
run_ok "$CLATTER_BIN" render s2.h5 --frame 0 --window -2.5,4.5,-0.5,4.5 --size 700x500 --contacts -o c2.png > /dev/null
run_ok "$CLATTER_BIN" render s3.h5 --frame 0 $cam --color-by-force -o force0.png > /dev/null
run_ok "$CLATTER_BIN" render s3.h5 --frame 1 $cam --color-by-force -o force1.png > /dev/null
run_ok "$CLATTER_BIN" vtk s3.h5 -o vtk > vtk.out
grep -q "contacts" vtk.out || die "vtk summary mentions the contacts: $(cat vtk.out)"
"$CLATTER_BIN" render bad.h5 --frame 0 -o bad.png 2> bad.err
[ $? -eq 2 ] || die "a damaged /contacts must exit 2"
grep -q "damaged /contacts" bad.err || die "damaged /contacts message: $(cat bad.err)"

"$PY" - <<'PY' || exit 1
import math, sys
import numpy as np
import pngread
import vtpread
failures = []
def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)
def close(px, rgb, tol=4):
    return all(abs(int(p) - round(255 * c)) <= tol for p, c in zip(px, rgb))
def project(eye, target, p, w, h, fov=math.radians(35)):
    eye, target, p = map(np.asarray, (eye, target, p))
    fw = (target - eye) / np.linalg.norm(target - eye)
    r = np.cross(fw, [0, 0, 1.0]); r /= np.linalg.norm(r)
    u = np.cross(r, fw)
    d = p - eye
    z = d @ fw
    t = math.tan(fov / 2)
    return int(0.5 * (d @ r / (z * t * w / h) + 1) * w), int(0.5 * (1 - d @ u / (z * t)) * h)
top, mid = (0.993, 0.906, 0.144), (0.129, 0.569, 0.549)  # colour map at 1 and 1/2 (render.c)
eye, target = [0, -6, 0.5], [0, 0, 0.5]
u0, v0 = project(eye, target, [0, 0, 0], 400, 300)
u1, v1 = project(eye, target, [1.5, 0, 0], 400, 300)
img = pngread.read("c0.png")
check(close(img[v0, u0], top), f"10 N contact (largest) drawn in the top colour at ({u0}, {v0}): {tuple(img[v0, u0])}")
check(close(img[v1, u1], mid), f"5 N contact drawn in the middle colour at ({u1}, {v1}): {tuple(img[v1, u1])}")
for name, what in (("c1.png", "a frame without contacts"), ("plain.png", "without --contacts")):
    px = pngread.read(name)[v0, u0]
    check(not close(px, top, 40), f"no contact dot in {what}: {tuple(px)}")
img = pngread.read("c2.png")
x, y = int(round(2.5 * 100)), int(round(4.0 * 100))
check(close(img[y, x], top), f"2D contact at the disk's lowest point: {tuple(img[y, x])}")
# --color-by-force: the sphere carries the largest force sum (10 N), the box half of it, the
# capsule none (light grey); in a frame without contacts every dynamic body is grey.
def proportional(px, rgb, tol=0.03):
    px = np.asarray(px, float) / 255
    shade = px @ np.asarray(rgb) / (np.asarray(rgb) @ np.asarray(rgb))
    return shade > 0.2 and np.max(np.abs(px - shade * np.asarray(rgb))) < tol
img = pngread.read("force0.png")
u, v = project(eye, target, [0, 0, 0.5], 400, 300)
check(proportional(img[v, u], top), f"--color-by-force: sphere in the top colour: {tuple(img[v, u])}")
u, v = project(eye, target, [1.5, -0.3, 0.6], 400, 300)
check(proportional(img[v, u], mid), f"--color-by-force: box in the middle colour: {tuple(img[v, u])}")
u, v = project(eye, target, [-1.5, 0, 0.7], 400, 300)
check(proportional(img[v, u], (0.82, 0.82, 0.82)), f"--color-by-force: capsule grey: {tuple(img[v, u])}")
img = pngread.read("force1.png")
u, v = project(eye, target, [0, 0, 0.5], 400, 300)
check(proportional(img[v, u], (0.82, 0.82, 0.82)), f"--color-by-force: no contacts, sphere grey: {tuple(img[v, u])}")
_, piece, arrays = vtpread.read("vtk/shapes3d_contacts_00000.vtp")
check(piece.get("NumberOfPoints") == "2", "contacts file of frame 0 has 2 points")
check(np.array_equal(arrays["PointData/force"], [[0, 0, 10], [0, 0, 5]]), "contact forces in the .vtp")
_, piece, arrays = vtpread.read("vtk/shapes3d_contacts_00001.vtp")
check(piece.get("NumberOfPoints") == "0" and arrays["PointData/force"].shape == (0, 3), "contacts file of frame 1 is empty")
print(f"{len(failures)} failed")
sys.exit(1 if failures else 0)
PY
