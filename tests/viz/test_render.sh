#!/usr/bin/env bash
# `clatter render` pictures: a 2D frame through a fixed --window (known pixels: each body's
# palette colour inside it, a joint's dot, the ground, the background in a corner), automatic 2D
# framing over a frame range (every body inside every picture), and 3D frames through fixed
# cameras (a sphere's Lambert-shaded colour at its projected centre, occlusion of one body by
# another, the floor, the background in a corner).
source "$CLATTER_SOURCE_DIR/tests/viz/viz_lib.sh"
cd "$tmp"
run_ok "$CLATTER_BIN" run "$viz_dir/shapes2d.json" -o s2.h5 --quiet
run_ok "$CLATTER_BIN" render s2.h5 --frame 0 --window -2.5,4.5,-0.5,4.5 --size 700x500 -o s2.png > s2.out
grep -q "^view: --window -2.5,4.5,-0.5,4.5 (100 px/m)" s2.out || die "2D view line: $(cat s2.out)"
run_ok "$CLATTER_BIN" render s2.h5 --frames 0:-1:25 --size 400x300 -o auto.png > auto.out
run_ok "$CLATTER_BIN" run "$viz_dir/shapes3d.json" -o s3.h5 --quiet
run_ok "$CLATTER_BIN" render s3.h5 --frame 0 --size 400x300 --camera 0,-6,0.5,0,0,0.5 -o front.png > /dev/null
run_ok "$CLATTER_BIN" render s3.h5 --frame 0 --size 400x300 --camera 6,0,0.5,0,0,0.5 -o side.png > /dev/null
run_ok "$CLATTER_BIN" render s3.h5 --frame 0 --size 400x300 --camera 0,0.6,5,0,1.6,0.35 -o top.png > /dev/null
run_ok "$CLATTER_BIN" render s3.h5 --frame 0 --size 200x150 -o auto3.png > auto3.out
grep -q "^view: --camera " auto3.out || die "3D view line: $(cat auto3.out)"

"$PY" - <<'PY' || exit 1
import math, re, sys
import h5py, numpy as np
import pngread

failures = []
def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)

def close(px, rgb, tol=3):
    return all(abs(int(p) - round(255 * c)) <= tol for p, c in zip(px, rgb))

palette = [(0.122, 0.467, 0.706), (1.000, 0.498, 0.055), (0.173, 0.627, 0.173), (0.839, 0.153, 0.157),
           (0.580, 0.404, 0.741), (0.549, 0.337, 0.294)]
background = (0.945, 0.953, 0.965)

# --- 2D, window x [-2.5, 4.5], y [-0.5, 4.5] at 100 px/m: pixel = ((x + 2.5) 100, (4.5 - y) 100).
img = pngread.read("s2.png")
check(img.shape == (500, 700, 3), f"2D picture is 700 x 500 (got {img.shape[1]} x {img.shape[0]})")
def at(x, y):
    return img[int(round((4.5 - y) * 100)), int(round((x + 2.5) * 100))]
f = h5py.File("s2.h5")
pos = f["trajectory/position"][0]
names = [n.decode() for n in f["bodies/name"][:]]
# Points inside each body at frame 0, clear of its radius line and of joint dots.
probes = {"disk": (-0.25, 0), "ellipse": (-0.15 * math.sin(0.4), 0.15 * math.cos(0.4)), "box": (0, 0),
          "tri": (0, -0.1), "rod": (0.2, 0), "bob": (-0.08, 0)}
for k, (name, (dx, dy)) in enumerate(probes.items()):
    i = names.index(name)
    x, y = pos[i, 0] + dx, pos[i, 1] + dy
    px = at(x, y)
    check(close(px, palette[k]), f"2D {name} drawn in its colour at ({x:.3f}, {y:.3f}): {tuple(px)}")
check(close(at(0, 2.6), (1, 1, 1)), f"2D revolute joint dot at its world anchor (0, 2.6): {tuple(at(0, 2.6))}")
check(close(at(0, -0.3), (0.80, 0.78, 0.74)), f"2D ground below the half-plane: {tuple(at(0, -0.3))}")
check(close(img[0, 699], background), f"2D background in the top right corner: {tuple(img[0, 699])}")
check(close(at(1.5, 3.5), background), f"2D background between bodies: {tuple(at(1.5, 3.5))}")

# --- automatic 2D framing: every body centre inside each picture of the range.
out = open("auto.out").read()
m = re.search(r"view: --window ([-\d.e+]+),([-\d.e+]+),([-\d.e+]+),([-\d.e+]+) \(([-\d.e+]+) px/m\)", out)
check(m is not None, "auto framing prints its window")
x0, x1, y0, y1, s = map(float, m.groups())
check(abs((x1 - x0) * s - 400) < 1e-3 * 400 and abs((y1 - y0) * s - 300) < 1e-3 * 300, "window fills 400 x 300")
all_pos = f["trajectory/position"][:]
frames = [0, 25, 50]
import os
check(all(os.path.exists(f"auto_{n:04d}.png") for n in frames), "--frames 0:-1:25 wrote auto_0000/0025/0050.png")
inside = all(x0 < all_pos[n, i, 0] < x1 and y0 < all_pos[n, i, 1] < y1 for n in frames for i in range(len(names)))
check(inside, "every body centre lies in the fitted window in every frame")

# --- 3D through fixed cameras: pinhole, vertical field of view 35 degrees, up = -gravity (z here).
def project(eye, target, p, w, h, fov=math.radians(35)):
    eye, target, p = map(np.asarray, (eye, target, p))
    fw = (target - eye) / np.linalg.norm(target - eye)
    r = np.cross(fw, [0, 0, 1.0]); r /= np.linalg.norm(r)
    u = np.cross(r, fw)
    d = p - eye
    z = d @ fw
    t = math.tan(fov / 2)
    return 0.5 * (d @ r / (z * t * w / h) + 1) * w, 0.5 * (1 - d @ u / (z * t)) * h

def proportional(px, rgb, tol=0.03):
    """px = rgb × shade for one shade: the renderer's shading is a scalar factor."""
    px = np.asarray(px, float) / 255
    shade = px @ np.asarray(rgb) / (np.asarray(rgb) @ np.asarray(rgb))
    return shade > 0.2 and np.max(np.abs(px - shade * np.asarray(rgb))) < tol, shade

img = pngread.read("front.png")
check(img.shape == (300, 400, 3), "3D picture is 400 x 300")
u, v = project([0, -6, 0.5], [0, 0, 0.5], [0, 0, 0.5], 400, 300)
px = img[int(v), int(u)]
ok, shade = proportional(px, palette[0])
# Lambert at the sphere's point facing the camera: n = (0, -1, 0); the light is
# normalize(-0.55 f + 0.75 up - 0.35 r) with f = (0, 1, 0), r = (1, 0, 0): n.l = 0.55 / |(.35, .55, .75)|.
expected = 0.32 + 0.68 * 0.55 / math.sqrt(0.35**2 + 0.55**2 + 0.75**2)
check(ok and abs(shade - expected) < 0.02,
      f"3D sphere centre at pixel ({u:.0f}, {v:.0f}) is its colour x {shade:.3f} (Lambert {expected:.3f}): {tuple(px)}")
check(close(img[0, 399], background), f"3D background in the top right corner: {tuple(img[0, 399])}")
px = img[295, 200]
check(abs(int(px[0]) - int(px[1])) <= 1 and abs(int(px[1]) - int(px[2])) <= 1 and px[0] > 120,
      f"3D floor (grey) at the bottom: {tuple(px)}")

u, v = project([0, -6, 0.5], [0, 0, 0.5], [-1.5, 0, 0.7], 400, 300)
ok, shade = proportional(img[int(v), int(u)], palette[2])
check(ok, f"3D capsule at its centre: {tuple(img[int(v), int(u)])}")
# The torus (axis tilted by 1.1 rad about x, nearly facing this camera): its hole shows what is
# behind, its tube is drawn at centre - R along x.
u, v = project([0, -6, 0.5], [0, 0, 0.5], [1.4, 1.6, 0.6], 400, 300)
ok, shade = proportional(img[int(v), int(u)], palette[4], tol=0.08)
check(not ok, f"3D torus hole at its centre: {tuple(img[int(v), int(u)])}")
u, v = project([0, -6, 0.5], [0, 0, 0.5], [0.95, 1.6, 0.6], 400, 300)
ok, shade = proportional(img[int(v), int(u)], palette[4])
check(ok, f"3D torus tube: {tuple(img[int(v), int(u)])}")
img = pngread.read("top.png")
u, v = project([0, 0.6, 5], [0, 1.6, 0.35], [0, 1.6, 0.35], 400, 300)
ok, shade = proportional(img[int(v), int(u)], palette[3])
check(ok, f"3D ellipsoid seen from above: {tuple(img[int(v), int(u)])}")

img = pngread.read("side.png")
u, v = project([6, 0, 0.5], [0, 0, 0.5], [0, 0, 0.5], 400, 300)
ok, shade = proportional(img[int(v), int(u)], palette[1])
check(ok, f"3D box occludes the sphere behind it on the line of sight: {tuple(img[int(v), int(u)])}")
u, v = project([6, 0, 0.5], [0, 0, 0.5], [0, 0, 0.98], 400, 300)
ok, shade = proportional(img[int(v), int(u)], palette[0])
check(ok, f"3D sphere top seen above the box: {tuple(img[int(v), int(u)])}")

img = pngread.read("auto3.png")
check(img.shape == (150, 200, 3), "automatic camera picture is 200 x 150")
print(f"{len(failures)} failed")
sys.exit(1 if failures else 0)
PY
