"""A granular pile from Python: 1 000 spheres poured into a box (scenes/papers/pile.json), stepped
in a Python loop, with the kinetic energy plotted against time (pile_energy.png). The pile must come
to rest: the energy at the end is a small fraction of its peak.

    PYTHONPATH=build/python /usr/bin/python3 examples/python/pile_energy.py [--steps N] [-o plot.png]
"""
import argparse
import pathlib

import numpy as np

import clatter

here = pathlib.Path(__file__).resolve().parent
parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--steps", type=int, default=1500)
parser.add_argument("-o", "--output", default="pile_energy.png")
args = parser.parse_args()

world = clatter.World.from_scene(here.parents[1] / "scenes" / "papers" / "pile.json", param={"n": 1000})
mass = np.array([world.body_info(i)["mass"] for i in range(world.body_count)])
dynamic = np.isfinite(mass)
times, energy, contacts = [], [], []
for _ in range(args.steps):
    world.step()
    v = world.velocity[dynamic]                      # a view: no copy of the states
    times.append(world.time)
    energy.append(0.5 * np.sum(mass[dynamic] * np.sum(v * v, axis=1)))
    contacts.append(world.diagnostics()["touching_contacts"])

peak, final = max(energy), energy[-1]
print(f"{world.body_count} bodies, t = {world.time:.3f} s: kinetic energy peak {peak:.4g} J, "
      f"final {final:.4g} J, {contacts[-1]} touching contacts")

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
fig, ax = plt.subplots(figsize=(6, 3.5))
ax.semilogy(times, np.maximum(energy, 1e-12))
ax.set_xlabel("t [s]")
ax.set_ylabel("kinetic energy [J]")
ax.set_title(f"pile of {int(dynamic.sum())} spheres")
fig.tight_layout()
fig.savefig(args.output, dpi=100)
print(f"plot: {args.output}")
if not final < 0.05 * peak:
    raise SystemExit(f"the pile did not settle: final energy {final:.3g} J against a peak of {peak:.3g} J")
