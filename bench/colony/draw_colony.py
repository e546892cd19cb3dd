#!/usr/bin/python3
"""Draws planar colonies from colony_bench --cells files, side by side (002 Fig. 5a).

Each cell is drawn as its capsule (the segment between the cap centres, widened by the diameter),
coloured by its axis angle modulo 180 degrees on a cyclic colour map, so that an aligned domain is
a patch of one colour. The panels share their scale, each centred on its colony's centroid.

usage: bench/colony/draw_colony.py CELLS.csv[:TITLE] [CELLS.csv[:TITLE] ...] -o OUT.png
                                   [--diameter D] [--title TEXT]
"""
import argparse
import csv
import math
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.collections import PatchCollection  # noqa: E402
from matplotlib.patches import Polygon  # noqa: E402


def read_cells(path):
    cells = []
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            try:
                cells.append(tuple(float(row[k]) for k in ("x", "y", "axis_x", "axis_y", "length")))
            except (KeyError, ValueError) as e:
                sys.exit(f"{path}: line {len(cells) + 2}: not a colony_bench --cells row ({e})")
    if not cells:
        sys.exit(f"{path}: no cells")
    return cells


def capsule(x, y, ux, uy, length, radius, arc=8):
    """The outline of a capsule: two half circles joined by straight sides."""
    n = math.hypot(ux, uy) or 1.0
    ux, uy = ux / n, uy / n
    a = math.atan2(uy, ux)
    pts = []
    for end, start in ((1, a - math.pi / 2), (-1, a + math.pi / 2)):
        cx, cy = x + end * 0.5 * length * ux, y + end * 0.5 * length * uy
        for k in range(arc + 1):
            t = start + math.pi * k / arc
            pts.append((cx + radius * math.cos(t), cy + radius * math.sin(t)))
    return pts


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("inputs", nargs="+", help="CELLS.csv or CELLS.csv:TITLE")
    ap.add_argument("-o", "--out", required=True)
    ap.add_argument("--diameter", type=float, default=0.5, help="cell diameter d (scenes/papers/colony.json: 0.5)")
    ap.add_argument("--title", default=None)
    a = ap.parse_args()
    panels = []
    for spec in a.inputs:
        path, _, title = spec.partition(":")
        panels.append((read_cells(path), title or path))
    centres = [(sum(c[0] for c in cells) / len(cells), sum(c[1] for c in cells) / len(cells)) for cells, _ in panels]
    extent = max(max(math.hypot(c[0] - cx, c[1] - cy) + 0.5 * c[4] + a.diameter for c in cells)
                 for (cells, _), (cx, cy) in zip(panels, centres))
    fig, axes = plt.subplots(1, len(panels), figsize=(6.0 * len(panels), 6.4), squeeze=False)
    cmap = plt.get_cmap("hsv")
    for ax, (cells, title), (cx, cy) in zip(axes[0], panels, centres):
        patches, colours = [], []
        for x, y, ux, uy, length in cells:
            patches.append(Polygon(capsule(x, y, ux, uy, length, 0.5 * a.diameter), closed=True))
            colours.append((math.atan2(uy, ux) % math.pi) / math.pi)
        pc = PatchCollection(patches, cmap=cmap, edgecolor="black", linewidth=0.15)
        pc.set_array(colours)
        pc.set_clim(0.0, 1.0)
        ax.add_collection(pc)
        ax.set_xlim(cx - extent, cx + extent)
        ax.set_ylim(cy - extent, cy + extent)
        ax.set_aspect("equal")
        ax.set_title(f"{title} ({len(cells)} cells)")
        ax.set_xticks([])
        ax.set_yticks([])
    cbar = fig.colorbar(pc, ax=axes[0].tolist(), fraction=0.025, pad=0.02)
    cbar.set_ticks([0, 0.25, 0.5, 0.75, 1.0])
    cbar.set_ticklabels(["0°", "45°", "90°", "135°", "180°"])
    cbar.set_label("axis angle (mod 180°)")
    if a.title:
        fig.suptitle(a.title)
    fig.savefig(a.out, dpi=110)
    print(f"wrote {a.out}")


if __name__ == "__main__":
    main()
