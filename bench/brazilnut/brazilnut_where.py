#!/usr/bin/python3
"""Where is the nut when it leaves the top layer? (bench/brazilnut/run --keep run files)

For a Brazil-nut run file (the same samples and criterion as brazilnut_curve.py: one sample per
shake, at the frame where the bed is most compact; margin = z_nut - (max z_grain - d), d the mean
small diameter) prints one summary line:
  first top      the first sampled shake with margin > 0
  longest stay   the longest run of consecutive samples with margin > 0 (first-last shake, count)
  worst rank     the largest rank (1 = top) at the samples after the first top
and, for every sample from 3 shakes before each exit from the top layer to 3 after it, the nut's
horizontal position, the gap between its surface and the nearest side wall of the container
(signed distance to the container's wall shapes, boxes, minus the nut radius), the number of grains
whose centre is above the nut's centre + d (the grains that make the criterion fail) and how many
of those lie between the nut and its nearest wall; nut_z, top_z (highest grain centre) and
surface_z (median of the 15 highest grain centres) are heights above the floor. --all prints
every sample.

usage: brazilnut_where.py RUN.h5 [--all] [--large NAME]
"""
import argparse
import json
import sys

import h5py
import numpy as np


def quat_rot(q, v):
    w, x, y, z = q
    u = np.array([x, y, z])
    return v + 2 * np.cross(u, np.cross(u, v) + w * v)


def box_sdf(p, centre, half, angle=None, quat=None):
    """Signed distance from point p to a box (2D: angle; 3D: quaternion, body -> world)."""
    d = p - centre
    if angle is not None:
        c, s = np.cos(angle), np.sin(angle)
        d = np.array([c * d[0] + s * d[1], -s * d[0] + c * d[1]])
    elif quat is not None:
        w, x, y, z = quat
        d = quat_rot((w, -x, -y, -z), d)
    q = np.abs(d) - half
    return np.linalg.norm(np.maximum(q, 0)) + min(q.max(), 0.0)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("run")
    ap.add_argument("--large", default="nut")
    ap.add_argument("--all", action="store_true")
    a = ap.parse_args()
    f = h5py.File(a.run, "r")
    raw = f["scene"][()]
    scene = json.loads((raw.decode() if isinstance(raw, bytes) else str(raw)).rstrip("\0"))
    dim = int(scene["dimension"])
    up = dim - 1
    names = [n.decode() if isinstance(n, bytes) else str(n) for n in f["bodies/name"][:]]
    types = [t.decode() if isinstance(t, bytes) else str(t) for t in f["bodies/type"][:]]
    large = names.index(a.large)
    small = [i for i, t in enumerate(types) if t == "dynamic" and i != large]
    cont = [i for i, t in enumerate(types) if t == "kinematic"][0]
    first = f["bodies/first_shape"][:]
    radius = f["shapes/radius"][:]
    d = float(np.mean([2 * radius[first[i]] for i in small]))
    R = float(radius[first[large]])
    cscene = [b for b in scene["bodies"] if b.get("type") == "kinematic"][0]
    walls = cscene["shapes"][1:]
    freq = float(cscene["motion"]["frequency"])
    t = f["trajectory/time"][:]
    pos = f["trajectory/position"]
    z = pos[:, :, up]
    ref = z[:, cont]
    zl = z[:, large] - ref
    zs = z[:, small] - ref[:, None]
    top = zs.max(axis=1)
    margin = zl - (top - d)
    rank = 1 + np.sum(zs > zl[:, None], axis=1)
    shakes = t * freq
    samples = []
    k = 0
    while (k + 1) / freq <= t[-1] + 1e-9:
        fr = np.nonzero((shakes >= k - 1e-9) & (shakes < k + 1 - 1e-9))[0]
        samples.append(int(fr[np.argmin(top[fr])]))
        k += 1

    def wall_gap(i):
        p = pos[i, large, :dim] - pos[i, cont, :dim]
        best, side = 1e9, 0
        for s in walls:
            c = np.array(s.get("position", [0] * dim), dtype=float)
            h = np.array(s["half_extents"], dtype=float)
            if dim == 2:
                g = box_sdf(p, c, h, angle=float(s.get("angle", 0)))
            else:
                o = s.get("orientation")
                g = box_sdf(p, c, h, quat=o if isinstance(o, list) else None)
            if g < best:
                best, side = g, np.sign(c[0]) if abs(c[0]) > 1e-9 else np.sign(c[1])
        return best - R, side

    top_flags = [margin[i] > 0 for i in samples]
    first_top = next((j for j, ok in enumerate(top_flags) if ok), None)
    runs, j = [], 0
    while j < len(top_flags):
        if top_flags[j]:
            e = j
            while e + 1 < len(top_flags) and top_flags[e + 1]:
                e += 1
            runs.append((j, e))
            j = e + 1
        else:
            j += 1
    if first_top is None:
        print(f"{a.run}: never in the top layer ({len(samples)} samples); best margin/d "
              f"{max(margin[i] for i in samples) / d:+.2f}, best rank {min(rank[i] for i in samples)}")
    else:
        lo, hi = max(runs, key=lambda r: r[1] - r[0])
        worst = max(rank[i] for i in samples[first_top:])
        print(f"{a.run}: first top {shakes[samples[first_top]]:.1f}; longest stay "
              f"{shakes[samples[lo]]:.1f}-{shakes[samples[hi]]:.1f} ({hi - lo + 1} samples); "
              f"worst rank after first top {worst}; runs {[(round(shakes[samples[r[0]]], 1), r[1] - r[0] + 1) for r in runs]}")
    show = set(range(len(samples))) if a.all else set()
    for lo, hi in runs:
        show |= set(range(max(hi - 2, 0), min(hi + 4, len(samples))))
    print("shake  rank  margin/d  nut_x   nut_z  top_z  surface_z  wall_gap_m  grains_above(c+d)  of_them_wallward")
    for j in sorted(show):
        i = samples[j]
        gap, side = wall_gap(i)
        above = [s for s in small if z[i, s] - ref[i] > zl[i] + d]
        xs = pos[i, large, 0] - pos[i, cont, 0]
        wallward = sum(1 for s in above if (pos[i, s, 0] - pos[i, cont, 0] - xs) * side > 0)
        surface = np.median(np.sort(zs[i])[-15:])
        print(f"{shakes[i]:5.1f} {rank[i]:5d} {margin[i] / d:+8.2f} {xs:+7.2f} {zl[i]:6.2f} {top[i]:6.2f} {surface:9.2f} "
              f"{gap:10.2f} {len(above):12d} {wallward:14d}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
