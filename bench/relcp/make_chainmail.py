#!/usr/bin/python3
"""Writes scenes/papers/chainmail.json (SPEC.md §8 'chainmail', 002 §5.5), or a variant.

  /usr/bin/python3 bench/relcp/make_chainmail.py              # the committed scene (--n 6)
  /usr/bin/python3 bench/relcp/make_chainmail.py --n 3 -o x.json

A square net of interlocked rings (tori, major radius R = 1 m, minor radius r = 0.1 m): n x n
"flat" rings (axis z) on a square lattice of spacing 2d (d = 1.5 m), joined to their right and
upper neighbours by "standing" link rings at the midpoints (axis y between x-neighbours, axis x
between y-neighbours). Each link threads both flat rings it joins: its centreline crosses the
plane z = 0 at d - R = 0.5 m from the flat rings' centres, and the flat rings cross the link's
plane at the same distance from its centre. n x n + 2 n (n - 1) rings; the script checks that no
two centrelines start closer than 2 r + 0.05 m (no overlap, 0.05 m gap at least).

The extensile field: 002 §5.5 pulls the net taut with a smooth extensile field (its formula is not
in the text; 002 describes an initial horizontal extension followed by a vertical contraction).
clatter has no position-dependent force field, so each ring gets the constant applied force
F = f (x0 / X, -c y0 / Y, 0) from its initial position (x0, y0) (X, Y = the largest |x0|, |y0|;
f = 5 N, c = 0.5): an extension along x with a weaker contraction along y, strongest at the
edges, zero net force and torque on the net. It makes the links slide and turn on the flat rings
while the net goes taut, which is where a single frozen constraint per pair (snsd) lets rings
overlap at a large step. With R = 1 and
r = 0.1, 32 spheres on a centreline are the fewest without gaps (2 pi R / 32 < 2 r < 2 pi R / 31),
as in 002; clatter's multisphere:N needs odd N, so the baseline is multisphere:33.
"""
import argparse
import json
import math
import os

from scene_json import write_scene

R, RM = 1.0, 0.1
HALF_PI = 0.5 * math.pi


def quat(axis, angle):
    s = math.sin(0.5 * angle)
    return [math.cos(0.5 * angle), axis[0] * s, axis[1] * s, axis[2] * s]


def centreline(ring, k=720):
    (cx, cy, cz), kind = ring
    pts = []
    for i in range(k):
        t = 2 * math.pi * i / k
        c, s = R * math.cos(t), R * math.sin(t)
        if kind == "flat":
            pts.append((cx + c, cy + s, cz))
        elif kind == "link_x":  # axis y: ring in the xz plane
            pts.append((cx + c, cy, cz + s))
        else:  # axis x: ring in the yz plane
            pts.append((cx, cy + c, cz + s))
    return pts


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("-o", "--output", default=os.path.join(here, "..", "..", "scenes", "papers", "chainmail.json"))
    ap.add_argument("--n", type=int, default=6)
    ap.add_argument("--force", type=float, default=5.0, help="f: the force on the edge rings [N]")
    ap.add_argument("--spacing", type=float, default=1.5, help="d: flat ring to link centre [m]")
    ap.add_argument("--contract", type=float, default=0.5,
                    help="c: also the force -c f y0 / Y along y (a contraction across the pull)")
    args = ap.parse_args()
    n = args.n
    D = args.spacing
    off = (n - 1) * D  # centre the net on the origin
    rings = []
    for j in range(n):
        for i in range(n):
            rings.append(((2 * D * i - off, 2 * D * j - off, 0.0), "flat"))
    for j in range(n):
        for i in range(n - 1):
            rings.append(((2 * D * i + D - off, 2 * D * j - off, 0.0), "link_x"))
    for j in range(n - 1):
        for i in range(n):
            rings.append(((2 * D * i - off, 2 * D * j + D - off, 0.0), "link_y"))
    # Initial clearance check (sampled centrelines; neighbours only matter).
    lines = [centreline(r) for r in rings]
    worst = float("inf")
    for a in range(len(rings)):
        for b in range(a + 1, len(rings)):
            if math.dist(rings[a][0], rings[b][0]) > 2 * R + 2 * RM + 0.5:
                continue
            m = min(math.dist(p, q) for p in lines[a][::4] for q in lines[b][::4])
            worst = min(worst, m)
    if worst < 2 * RM + 0.05:
        raise SystemExit("rings too close: centreline distance %g" % worst)
    xmax = max(abs(r[0][0]) for r in rings)
    ymax = max(abs(r[0][1]) for r in rings)
    bodies, forces = [], []
    for k, (c, kind) in enumerate(rings):
        if kind == "flat":
            q = [1, 0, 0, 0]
        elif kind == "link_x":
            q = quat((1, 0, 0), HALF_PI)  # local z -> world -y: the ring lies in the xz plane
        else:
            q = quat((0, 1, 0), HALF_PI)  # local z -> world x: the ring lies in the yz plane
        name = "%s%d" % ({"flat": "f", "link_x": "lx", "link_y": "ly"}[kind], k)
        bodies.append({"name": name, "position": [round(v, 12) for v in c], "orientation": [round(v, 17) for v in q],
                       "shape": {"type": "torus", "major_radius": R, "minor_radius": RM}})
        fx = args.force * c[0] / xmax
        fy = -args.contract * args.force * c[1] / ymax
        if fx != 0 or fy != 0:
            forces.append({"type": "applied", "body": name, "force": [round(fx, 15), round(fy, 15) + 0.0, 0]})
    description = (
        "SPEC.md 8 'chainmail' (002 sec. 5.5), generated by bench/relcp/make_chainmail.py (--n %d "
        "--force %g --spacing %g --contract %g): a square net of %d interlocked rings (tori, major "
        "radius 1 m, minor radius 0.1 m): %d x %d flat rings %g m apart joined by standing link "
        "rings, initially without overlap (closest centrelines %.3f m apart). Pulled taut by an "
        "extensile field: clatter has no position-dependent force field, so each ring carries the "
        "constant force %g N (x0 / %g m, -%g y0 / %g m, 0) from its initial position (x0, y0): "
        "extension along x, weaker contraction along y, zero net force. Overdamped law with the "
        "library's ring drag (resistive-force theory, docs/stepping.md) at viscosity 1 Pa s (about "
        "13 N s/m in the ring plane), no gravity; frictionless ReLCP, overlap tolerance 1e-3 m "
        "(1 %% of the minor radius). Parameter h (default 0.2 s, the large step: the edge rings "
        "move up to ~0.08 m per step; at 0.4 s snsd overlaps exceed the minor radius). Baselines: "
        "--set method.contact_model=snsd | multisphere:33 (002 uses 32 spheres, the fewest "
        "without gaps on this ring; clatter's N is odd). bench/relcp/run plots max_overlap "
        "against time."
        % (n, args.force, D, args.contract, len(rings), n, n, 2 * D, worst, args.force, xmax,
           args.contract, ymax))
    head = {
        "name": "chainmail",
        "description": description,
        "dimension": 3,
        "time_step": "$h",
        "duration": 10,
        "gravity": [0, 0, 0],
        "parameters": {"h": 0.2},
        "law": "overdamped",
        "viscosity": 1,
        "method": {"contact_model": "relcp", "overlap_tolerance": 1e-3, "relcp_max_iterations": 100,
                   "solver": "bbpgd", "tolerance": 1e-10, "max_iterations": 100000, "active_set_eps": 0.05},
    }
    write_scene(args.output, head, bodies, forces, {"interval": 0.4, "contacts": False})
    print("%d rings, closest centrelines %.4f m" % (len(rings), worst))


if __name__ == "__main__":
    main()
