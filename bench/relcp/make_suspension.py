#!/usr/bin/python3
"""Writes scenes/papers/suspension.json (SPEC.md §8 'suspension', 002 §5.3), or a variant.

  /usr/bin/python3 bench/relcp/make_suspension.py                     # the committed scene
  /usr/bin/python3 bench/relcp/make_suspension.py --n 1000 -o x.json  # a smaller one
  /usr/bin/python3 bench/relcp/make_suspension.py --from run.h5 -o compact.json
        # the same scene, started from the last frame of a run (bench/relcp/run measures the
        # late-time cost in the compact configuration this way)

n ellipsoids with semi-axes (1, 0.5, 0.5) m are placed at uniformly random positions in a cube
centred at the origin whose side gives the volume fraction phi = 0.25 %, with uniformly random
orientations (normalized Gaussian quaternions) and no two bounding spheres (radius 1) closer than
0.2 m; seeded (--seed, default 1), so the file is reproducible. Every body is tied to the world
origin by a spring-damper of stiffness k and rest length 0: the force -k x is the smooth radially
inward field of 002 §5.3 (the paper's field and constants are not in its text; ours are documented
in the scene's description).
"""
import argparse
import json
import math
import os

from scene_json import write_scene
import random

SEMI_AXES = (1.0, 0.5, 0.5)
BOUND = max(SEMI_AXES)


def random_quaternion(rng):
    while True:
        q = [rng.gauss(0.0, 1.0) for _ in range(4)]
        n = math.sqrt(sum(c * c for c in q))
        if n > 1e-6:
            return [c / n for c in q]


def place(n, phi, rng):
    volume = 4.0 / 3.0 * math.pi * SEMI_AXES[0] * SEMI_AXES[1] * SEMI_AXES[2]
    side = (n * volume / phi) ** (1.0 / 3.0)
    cell = 2.0 * BOUND + 0.2
    grid = {}
    points = []
    half = 0.5 * side - BOUND
    attempts = 0
    while len(points) < n:
        attempts += 1
        if attempts > 1000 * n:
            raise SystemExit("cannot place %d bodies at volume fraction %g (placed %d)" % (n, phi, len(points)))
        p = [rng.uniform(-half, half) for _ in range(3)]
        key = tuple(int(math.floor(c / cell)) for c in p)
        ok = True
        for dx in (-1, 0, 1):
            for dy in (-1, 0, 1):
                for dz in (-1, 0, 1):
                    for q in grid.get((key[0] + dx, key[1] + dy, key[2] + dz), ()):
                        if sum((a - b) ** 2 for a, b in zip(p, q)) < cell * cell:
                            ok = False
        if ok:
            grid.setdefault(key, []).append(p)
            points.append(p)
    return side, points


def place_lattice(n, phi):
    """The n sites of a simple cubic lattice (spacing from phi) nearest the origin: a dense ball
    for the quick test (random placement cannot reach high volume fractions)."""
    volume = 4.0 / 3.0 * math.pi * SEMI_AXES[0] * SEMI_AXES[1] * SEMI_AXES[2]
    spacing = (volume / phi) ** (1.0 / 3.0)
    if spacing < 2.0 * BOUND + 0.2:
        raise SystemExit("--lattice: volume fraction %g too high (spacing %g < %g)" % (phi, spacing, 2 * BOUND + 0.2))
    m = int(math.ceil(n ** (1.0 / 3.0))) + 2
    sites = [[spacing * (i - 0.5 * (m - 1)), spacing * (j - 0.5 * (m - 1)), spacing * (k - 0.5 * (m - 1))]
             for i in range(m) for j in range(m) for k in range(m)]
    sites.sort(key=lambda p: (round(p[0] ** 2 + p[1] ** 2 + p[2] ** 2, 9), p))
    return spacing * m, sites[:n]


def num(x):
    return float(repr(float(x))) if isinstance(x, float) else x


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("-o", "--output", default=os.path.join(here, "..", "..", "scenes", "papers", "suspension.json"))
    ap.add_argument("--n", type=int, default=10000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--phi", type=float, default=0.0025)
    ap.add_argument("--stiffness", type=float, default=1.0)
    ap.add_argument("--lattice", action="store_true",
                    help="bodies on a cubic lattice (a dense ball) instead of random positions")
    ap.add_argument("--from", dest="from_run", help="start from the last frame of this run file (HDF5)")
    args = ap.parse_args()

    rng = random.Random(args.seed)
    side, points = place_lattice(args.n, args.phi) if args.lattice else place(args.n, args.phi, rng)
    orientations = [random_quaternion(rng) for _ in range(args.n)]
    name = "suspension"
    start = "the initial random dilute state"
    if args.from_run:
        import h5py  # only for --from
        with h5py.File(args.from_run, "r") as f:
            pos = f["trajectory/position"][-1]
            ori = f["trajectory/orientation"][-1]
            t = float(f["trajectory/time"][-1])
        if len(pos) != args.n:
            raise SystemExit("%s has %d bodies, --n is %d" % (args.from_run, len(pos), args.n))
        points = [[float(c) for c in p] for p in pos]
        orientations = [[float(c) for c in q] for q in ori]
        name = "suspension_compact"
        start = "the last frame (t = %g s) of %s" % (t, os.path.basename(args.from_run))

    description = (
        "SPEC.md 8 'suspension' (002 sec. 5.3), generated by bench/relcp/make_suspension.py "
        "(--n %d --seed %d --phi %g --stiffness %g%s): %d ellipsoids with semi-axes (1, 0.5, 0.5) m "
        "at volume fraction %g %% in a cube of side %.4g m (%s, uniform random orientations), "
        "compacted by the smooth radially "
        "inward force -k x (k = %g N/m: a spring-damper of rest length 0 from each body to the "
        "world origin). Overdamped law with the library's local Stokes drag (docs/stepping.md) at "
        "viscosity 1 Pa s (11.4 to 13 N s/m per ellipsoid: relaxation time ~12 s at k = 1); no gravity; "
        "frictionless ReLCP, overlap tolerance 1e-3 m; each pass solved by MPRGP (solver mprgp: CG on "
        "the face of the iterate; on the jammed packing 1.9x (1 000 bodies) to 3.5x (10 000) fewer "
        "operator products than bbpgd, which this scene used until 2026-11-23) to 1e-8. Two step sizes (parameter h): 0.01 s "
        "and 0.1 s (large: the jamming front, ~17 m from the centre for 10 000 bodies, moves ~0.14 m "
        "per step), --param h=0.01; 50 s compacts it. Starts from %s. Baselines: --set "
        "method.contact_model=snsd | multisphere:3 | 5 | 7 | 13 | 17. bench/relcp/run makes the "
        "table (mean constraints and wall time per step in the compact state)."
        % (args.n, args.seed, args.phi, args.stiffness, " --lattice" if args.lattice else "", args.n, 100 * args.phi, side,
           "on a cubic lattice, --lattice" if args.lattice
           else "uniform random positions, no bounding spheres closer than 0.2 m",
           args.stiffness, start))
    bodies = []
    forces = []
    for i, (p, q) in enumerate(zip(points, orientations)):
        bodies.append({"position": [num(c) for c in p], "orientation": [num(c) for c in q],
                       "shape": {"type": "ellipsoid", "semi_axes": list(SEMI_AXES)}})
        forces.append({"type": "spring-damper", "body_a": i, "body_b": "world", "stiffness": args.stiffness,
                       "rest_length": 0})
    head = {
        "name": name,
        "description": description,
        "dimension": 3,
        "time_step": "$h",
        "duration": 50,
        "gravity": [0, 0, 0],
        "parameters": {"h": 0.1},
        "law": "overdamped",
        "viscosity": 1,
        "method": {"contact_model": "relcp", "overlap_tolerance": 1e-3, "relcp_max_iterations": 100,
                   "solver": "mprgp", "tolerance": 1e-8, "max_iterations": 10000, "active_set_eps": 0.05},
    }
    write_scene(args.output, head, bodies, forces, {"interval": 1, "contacts": False, "velocities": False})


if __name__ == "__main__":
    main()
