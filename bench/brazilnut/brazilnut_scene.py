#!/usr/bin/python3
"""Writes a Brazil-nut scene variant (SPEC.md section 8: does the large body stay in the top layer?).

The committed scenes are body grids of monodisperse grains: scenes/papers/brazilnut.json (3D, the
geometry of --dim 3 --nut-d 4 --nut-rho 250 --gamma 3 --width 2.6, with the grid's jitter instead of
this script's) and brazilnut2d.json (the 2D bed, this script's defaults). This script
writes variants that a grid cannot express: grains of several sizes (uniform radii in
[1 - s, 1 + s] r, or a 50/50 bidisperse mix), side walls slanted outwards or inwards, a nut of
another size or density, and 3D (spheres in a square box). Grains are placed row by row (layer by
layer in 3D) on a lattice wide enough for the largest grain, inside the container at that height,
above the nut, which starts on the floor in the middle; positions get a small jitter; one seeded
Python random.Random draws radii and jitter, so a (options, seed) pair always gives the same file.
Everything else (h = 0.1 s, 50 s, mu = 0.5, e_N = 0.5, relaxed/APGD, 270 bodies) is as in the
committed scene. Bodies are named container, nut, grain0 ... grain268 as in the committed scene.

usage: brazilnut_scene.py -o OUT.json [--grains mono|uniform|bi] [--spread S] [--ratio Q]
         [--nut-d K] [--nut-rho RHO] [--gamma G] [--f F] [--wall-angle DEG] [--wall-mu MU]
         [--width W] [--dim 2|3] [--seed N] [--eps E]
  --grains  mono: every grain r = 0.2 m; uniform: r uniform in [(1-S) 0.2, (1+S) 0.2] (S =
            --spread, default 0.2); bi: half the grains r = 0.2 (1 - Q), half 0.2 (1 + Q)
            (Q = --ratio, default 0.15), in shuffled order.
  --nut-d   nut diameter in units of the nominal d = 0.4 m (default 3); --nut-rho its density.
  --wall-angle  degrees from vertical, > 0: walls lean outwards (container wider at the top),
            < 0: inwards. --width: inner width at the floor (default 6.44 m = 16.1 d; 3D: the
            square box's inner side).
"""
import argparse
import json
import math
import random


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--grains", choices=["mono", "uniform", "bi"], default="uniform")
    ap.add_argument("--spread", type=float, default=0.2)
    ap.add_argument("--ratio", type=float, default=0.15)
    ap.add_argument("--nut-d", type=float, default=3.0)
    ap.add_argument("--nut-rho", type=float, default=1000.0)
    ap.add_argument("--gamma", type=float, default=4.0)
    ap.add_argument("--f", type=float, default=1.0)
    ap.add_argument("--wall-angle", type=float, default=0.0)
    ap.add_argument("--wall-mu", type=float, default=0.5)
    ap.add_argument("--wall-height", type=float, default=24.0)
    ap.add_argument("--width", type=float, default=None)
    ap.add_argument("--dim", type=int, choices=[2, 3], default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--eps", type=float, default=None)
    ap.add_argument("--n", type=int, default=269, help="small grains (default 269: 270 bodies)")
    a = ap.parse_args()

    rng = random.Random(a.seed)
    r0 = 0.2
    g = 9.81
    A = a.gamma * g / (2 * math.pi * a.f) ** 2
    eps = a.eps if a.eps is not None else (0.25 if a.gamma > 4.5 else 0.2)
    width = a.width if a.width is not None else (6.44 if a.dim == 2 else 2.8)
    if a.grains == "mono":
        radii = [r0] * a.n
    elif a.grains == "uniform":
        radii = [r0 * (1 - a.spread + 2 * a.spread * rng.random()) for _ in range(a.n)]
    else:
        radii = [r0 * (1 - a.ratio)] * (a.n // 2) + [r0 * (1 + a.ratio)] * (a.n - a.n // 2)
        rng.shuffle(radii)
    rmax = max(radii)
    R = 0.5 * a.nut_d * 2 * r0
    pitch = 2 * rmax + 0.02
    tan = math.tan(math.radians(a.wall_angle))
    H = a.wall_height

    def half_width(y):
        return 0.5 * width + y * tan

    materials = {"default": {"friction": 0.5, "restitution": 0.5, "density": 1000}}
    if a.wall_mu != 0.5:
        materials["wall"] = {"friction": a.wall_mu, "restitution": 0.5, "density": 1000}
    nut_mat = None
    if a.nut_rho != 1000:
        materials["nut"] = {"friction": 0.5, "restitution": 0.5, "density": a.nut_rho}
        nut_mat = "nut"

    shapes = []
    if a.dim == 2:
        top = half_width(H)
        floor_half = max(half_width(0), top) + 2.5
        shapes.append({"type": "box", "half_extents": [floor_half, 1.0], "position": [0, -1.0]})
        th = math.radians(a.wall_angle)
        y0 = -0.5                                         # the face starts below the floor top
        hl = 0.5 * (H - y0) / math.cos(th)                # half length along the slanted face
        for side in (-1, 1):
            ym = 0.5 * (H + y0)
            xm = side * half_width(ym)                    # mid-point of the inner face
            nx, ny = side * math.cos(th), -math.sin(th)   # outward normal of the face
            ang = -side * th                              # left wall: +th (top leans out if th > 0)
            shapes.append({"type": "box", "half_extents": [1.0, round(hl, 6)],
                           "position": [round(xm + nx, 6), round(ym + ny, 6)], "angle": round(ang, 9)})
    else:
        if a.wall_angle != 0:
            raise SystemExit("--wall-angle is 2D only")
        hw = 0.5 * width
        shapes.append({"type": "box", "half_extents": [hw + 1, hw + 1, 0.5], "position": [0, 0, -0.5]})
        for side in (-1, 1):
            shapes.append({"type": "box", "half_extents": [0.5, hw + 1, H / 2], "position": [side * (hw + 0.5), 0, H / 2]})
            shapes.append({"type": "box", "half_extents": [hw, 0.5, H / 2], "position": [0, side * (hw + 0.5), H / 2]})
    if a.wall_mu != 0.5:
        for s in shapes:
            s["material"] = "wall"

    up = [0, 1] if a.dim == 2 else [0, 0, 1]
    bodies = [{"name": "container", "type": "kinematic",
               "motion": {"amplitude": [0] * (a.dim - 1) + ["$A"], "frequency": "$f"}, "shapes": shapes}]
    nut = {"name": "nut", "position": [0] * (a.dim - 1) + [R],
           "shape": {"type": "disk" if a.dim == 2 else "sphere", "radius": R}}
    if nut_mat:
        nut["material"] = nut_mat
    bodies.append(nut)

    # Lattice rows (layers) from just above the nut upwards, each as wide as the container there.
    pos = []
    y = 2 * R + rmax + 0.05
    while len(pos) < a.n:
        hw = half_width(y - rmax) if a.dim == 2 else 0.5 * width
        m = int((2 * hw - 0.04) // pitch)
        if m < 1:
            raise SystemExit("container too narrow for the grains")
        x0 = -0.5 * (m - 1) * pitch
        if a.dim == 2:
            for i in range(m):
                pos.append([x0 + i * pitch, y])
        else:
            for j in range(m):
                for i in range(m):
                    pos.append([x0 + i * pitch, x0 + j * pitch, y])
        y += pitch
    pos = pos[:a.n]
    jit = 0.5 * (pitch - 2 * rmax) * 0.8
    for k, p in enumerate(pos):
        q = [round(c + jit * (2 * rng.random() - 1), 6) for c in p]
        bodies.append({"name": f"grain{k}", "position": q,
                       "shape": {"type": "disk" if a.dim == 2 else "sphere", "radius": round(radii[k], 6)}})

    desc = (f"Variant of scenes/papers/{'brazilnut2d' if a.dim == 2 else 'brazilnut'}.json written by bench/brazilnut/brazilnut_scene.py "
            f"(options: {vars(a)}): {a.dim}D, {a.n} grains ({a.grains}, mean radius "
            f"{sum(radii) / len(radii):.4f} m, {min(radii):.4f}..{max(radii):.4f} m), nut radius {R:g} m "
            f"density {a.nut_rho:g}, container {width:g} m wide at the floor, walls {a.wall_angle:g} deg from "
            f"vertical (> 0 outwards), wall mu {a.wall_mu:g}, shaken vertically A sin(2 pi f t), "
            f"f = {a.f:g} Hz, A = {A:.4f} m, Gamma = {a.gamma:g}; h = 0.1 s, 50 s, mu 0.5, e_N 0.5, "
            f"relaxed/APGD as the committed scene.")
    scene = {
        "name": "brazilnut",
        "description": desc,
        "dimension": a.dim,
        "time_step": 0.1,
        "duration": 50,
        "gravity": [0, -g] if a.dim == 2 else [0, 0, -g],
        "parameters": {"A": round(A, 6), "f": a.f},
        "method": {"scheme": "relaxed", "solver": "apgd", "tolerance": 1e-6, "max_iterations": 1000,
                   "active_set_eps": eps},
        "materials": materials,
        "bodies": bodies,
        "output": {"interval": 0.1, "contacts": False},
    }
    with open(a.output, "w") as out:
        json.dump(scene, out, indent=1)
        out.write("\n")


if __name__ == "__main__":
    main()
