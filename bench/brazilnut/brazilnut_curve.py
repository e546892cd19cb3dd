#!/usr/bin/python3
"""Brazil-nut curve from a clatter run file (SPEC.md section 8: the large body rises to the top layer).

Reads OUT.h5 (h5py), finds the large body (default: the body named "nut") and the small ones
(every other dynamic body), and reports against the number of shakes n = f t (f: the container's
motion frequency from the stored /scene):
  rank    1 + the number of small bodies whose centre is higher than the large body's (1 = top)
  margin  z_L - (max small z - d): > 0 is the top-layer criterion of the issue ("its centre above
          every small body's centre minus one small diameter"); d = the mean small diameter
          (--diameter mean, the default; the same as max for monodisperse grains) or the largest
          (--diameter max, more lenient for polydisperse grains)
The vertical axis is the last coordinate (y in 2D, z in 3D); heights are taken relative to the
container's reference point (its motion cancels). One sample per shake k (frames with
k <= f t < k + 1): --sample compact (default) takes the frame where the bed is most compact (the
highest small centre is lowest: grains thrown up by the shake have landed), --sample phase the
frame nearest the phase where the container is lowest (t = (k + 3/4)/f). Every frame goes to
the CSV. Acceptance: the first shake from which the criterion holds at every later sample of the
whole run, required <= 60 (--limit); run at least 100 shakes for "and stays there"
(bench/brazilnut/run does by default). A run longer than --window seconds (default 50, the
protocol of SPEC.md section 8) also gets the same result over its first --window seconds alone.

--bed also gives the result of a second test that leaves out the grains in flight: a small body
whose surface is farther than --gap (default 0.02 d) from every other body (grain, large body, the
container's floor and walls) at the sampled frame is not in any layer of the bed. At Γ = 4 and
e_N = 0.5 grains that rebound off the rising bed fly metres above it (up to 15 m/s relative to the
container was seen in 3D), and one of them over the large body fails the literal test whatever
the bed does. A grain resting on the large body's cap touches it and still counts. Only the
literal test is the issue's; --bed is reported beside it.

Usage: brazilnut_curve.py OUT.h5 [--large NAME] [--sample compact|phase] [--window S] [--until S]
                          [--diameter mean|max] [--bed] [--gap G] [--csv FILE] [--png FILE]
"""
import argparse
import json
import sys

import h5py
import numpy as np


def flight_free_margin(f, scene, dim, t, large, small, kinematic, first, radius, d, gap):
    """Per frame, the top-layer margin over the small bodies that touch something (within gap)."""
    pos = f["trajectory/position"][:len(t), :, :dim]
    axis = dim - 1
    r = np.array([radius[first[i]] for i in small])
    rl = radius[first[large]]
    # the container: its floor top at its reference height, per horizontal axis the inner half
    # width from its upright side walls (the boxes of bench/brazilnut/brazilnut_scene.py and
    # scenes/papers/brazilnut*.json; slanted walls are not used)
    half_width = [None] * (dim - 1)
    for b in scene["bodies"]:
        if b.get("motion") and "shapes" in b:
            for c in range(dim - 1):
                inner = [abs(sh["position"][c]) - sh["half_extents"][c] for sh in b["shapes"]
                         if abs(sh["position"][c]) > 1e-9 and abs(sh.get("angle", 0)) < 1e-12]
                if inner:
                    half_width[c] = min(inner)
    ref = pos[:, kinematic[0], :] if kinematic else np.zeros((len(t), dim))
    out = np.empty(len(t))
    for k in range(len(t)):
        p = pos[k, small, :] - ref[k]
        pl = pos[k, large, :] - ref[k]
        dist = np.sqrt(((p[:, None, :] - p[None, :, :]) ** 2).sum(axis=2))
        np.fill_diagonal(dist, np.inf)
        touch = (dist - r[:, None] - r[None, :] <= gap).any(axis=1)
        touch |= np.sqrt(((p - pl) ** 2).sum(axis=1)) - r - rl <= gap
        touch |= p[:, axis] - r <= gap
        for c, hw in enumerate(half_width):
            if hw is not None:
                touch |= hw - np.abs(p[:, c]) - r <= gap
        zs = p[touch, axis]
        out[k] = pl[axis] - (zs.max() - d) if len(zs) else np.inf
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("run")
    ap.add_argument("--large", default="nut")
    ap.add_argument("--csv")
    ap.add_argument("--png")
    ap.add_argument("--title", default="")
    ap.add_argument("--limit", type=float, default=60.0, help="shakes allowed (acceptance)")
    ap.add_argument("--diameter", choices=["mean", "max"], default="mean",
                    help="the small diameter d of the criterion (polydisperse grains)")
    ap.add_argument("--sample", choices=["compact", "phase"], default="compact")
    ap.add_argument("--until", type=float, default=None,
                    help="use only the frames up to UNTIL seconds (e.g. the first 50 s of a 100-shake run)")
    ap.add_argument("--window", type=float, default=50.0,
                    help="also report the result over the first WINDOW seconds (SPEC.md 8: 50 s)")
    ap.add_argument("--bed", action="store_true",
                    help="also the test without the grains in flight (touching no other body)")
    ap.add_argument("--gap", type=float, default=0.02,
                    help="--bed: a grain farther than GAP small diameters from every body is in flight")
    a = ap.parse_args()

    f = h5py.File(a.run, "r")
    scene = json.loads(f["scene"][()].decode().rstrip("\0") if isinstance(f["scene"][()], bytes)
                       else str(f["scene"][()]).rstrip("\0"))
    dim = int(scene["dimension"])
    axis = dim - 1
    names = [n.decode() if isinstance(n, bytes) else str(n) for n in f["bodies/name"][:]]
    types = [t.decode() if isinstance(t, bytes) else str(t) for t in f["bodies/type"][:]]
    if a.large not in names:
        sys.exit(f"{a.run}: no body named {a.large!r}")
    large = names.index(a.large)
    small = [i for i, t in enumerate(types) if t == "dynamic" and i != large]
    kinematic = [i for i, t in enumerate(types) if t == "kinematic"]
    first = f["bodies/first_shape"][:]
    radius = f["shapes/radius"][:]
    small_d = [2.0 * radius[first[i]] for i in small]
    d = max(small_d) if a.diameter == "max" else sum(small_d) / len(small_d)
    d_large = 2.0 * radius[first[large]]
    freq = 0.0
    for b in scene["bodies"]:
        m = b.get("motion")
        if m and float(m.get("frequency", 0)) > 0:
            freq = float(m["frequency"])
            amp = m.get("amplitude", [0, 0, 0])
    if freq <= 0:
        sys.exit(f"{a.run}: no shaken (kinematic, frequency > 0) body in the scene")
    g = abs(float(scene.get("gravity", [0, -9.81] if dim == 2 else [0, 0, -9.81])[axis]))
    gamma = abs(float(amp[axis])) * (2 * np.pi * freq) ** 2 / g

    t = f["trajectory/time"][:]
    nf = len(t) if a.until is None else int(np.sum(t <= a.until + 1e-9))
    t = t[:nf]
    z = f["trajectory/position"][:nf, :, axis]
    ref = z[:, kinematic[0]] if kinematic else np.zeros(len(t))
    zl = z[:, large] - ref
    zs = z[:, small] - ref[:, None]
    rank = 1 + np.sum(zs > zl[:, None], axis=1)
    margin = zl - (zs.max(axis=1) - d)
    shakes = t * freq

    # One sample per whole shake.
    samples = []
    top = zs.max(axis=1)
    k = 0
    while (k + 1) / freq <= t[-1] + 1e-9:
        if a.sample == "phase":
            i = int(np.argmin(np.abs(t - (k + 0.75) / freq)))
        else:
            frames = np.nonzero((shakes >= k - 1e-9) & (shakes < k + 1 - 1e-9))[0]
            i = int(frames[np.argmin(top[frames])])
        samples.append((shakes[i], i))
        k += 1
    def first_for_good(smp, m=margin):
        """First sampled shake from which margin m > 0 at every later sample."""
        for j, (_, i) in enumerate(smp):
            if all(m[ii] > 0 for _, ii in smp[j:]):
                return smp[j][0]
        return None

    first_top = first_for_good(samples)
    bed_margin = None
    if a.bed:
        bed_margin = flight_free_margin(f, scene, dim, t, large, small, kinematic, first, radius, d, a.gap * d)
        bed_first = first_for_good(samples, bed_margin)
    window = [(s, i) for s, i in samples if t[i] <= a.window + 1e-9]
    first_window = first_for_good(window) if t[-1] > a.window + 1e-9 else None

    if a.csv:
        with open(a.csv, "w") as out:
            out.write("frame,t,shakes,large_height,max_small_height,rank,margin,sampled\n")
            sampled = {i for _, i in samples}
            for i in range(len(t)):
                out.write(f"{i},{t[i]:.6g},{shakes[i]:.6g},{zl[i]:.6g},{zs[i].max():.6g},{rank[i]},"
                          f"{margin[i]:.6g},{int(i in sampled)}\n")

    print(f"run {a.run}: {dim}D, {len(small)} small bodies (d = {d:g} m, {a.diameter}; "
          f"{min(small_d):g}..{max(small_d):g} m), large d = {d_large:g} m, "
          f"f = {freq:g} Hz, Gamma = {gamma:.3g}, {len(t)} frames, {shakes[-1]:.4g} shakes")
    print(f"start: rank {rank[0]} of {len(small) + 1}, large height {zl[0]:.3f} m, top small {zs[0].max():.3f} m")
    print("shake  rank  large_z  top_small_z  margin_m  top_layer")
    for s, i in samples:
        print(f"{s:5.2f} {rank[i]:5d} {zl[i]:8.3f} {zs[i].max():11.3f} {margin[i]:7.3f}  {'yes' if margin[i] > 0 else 'no'}")
    ok = first_top is not None and first_top <= a.limit
    if first_top is None:
        print(f"RESULT: the large body is not in the top layer for good within {shakes[-1]:.4g} shakes: FAIL")
    else:
        print(f"RESULT: in the top layer from shake {first_top:.2f} on (and at every later sample): "
              f"{'PASS' if ok else 'FAIL'} (limit {a.limit:g})")
    if a.bed:
        yes = sum(1 for _, i in samples if bed_margin[i] > 0)
        print(f"without the grains in flight (--bed, gap {a.gap:g} d): in the top layer at {yes} of {len(samples)} "
              f"samples; " + (f"from shake {bed_first:.2f} on: {'PASS' if bed_first <= a.limit else 'FAIL'}"
                              if bed_first is not None else "not for good: FAIL") +
              " (not the issue's test)")
    if t[-1] > a.window + 1e-9:
        nw = a.window * freq
        if first_window is None:
            print(f"first {a.window:g} s ({nw:g} shakes) alone: not in the top layer for good: FAIL")
        else:
            print(f"first {a.window:g} s ({nw:g} shakes) alone: in the top layer from shake {first_window:.2f} on: "
                  f"{'PASS' if first_window <= a.limit else 'FAIL'}")

    if a.png:
        try:
            import matplotlib
            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
        except ImportError:
            print("matplotlib missing (Debian python3-matplotlib, scripts/setup.sh --bench): no PNG", file=sys.stderr)
            return 0 if ok else 1
        fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(8, 6.5), sharex=True)
        ax1.plot(shakes, rank, color="0.7", lw=0.8, label="every frame")
        ax1.plot([s for s, _ in samples], [rank[i] for _, i in samples], "o-", ms=3, color="C0",
                 label="once per shake (" + ("bed most compact" if a.sample == "compact" else "container lowest") + ")")
        ax1.set_ylabel("height rank of the large body\n(1 = highest)")
        ax1.invert_yaxis()
        ax1.legend(loc="lower right", fontsize=8)
        ax2.plot(shakes, margin / d, color="0.7", lw=0.8)
        ax2.plot([s for s, _ in samples], [margin[i] / d for _, i in samples], "o-", ms=3, color="C1")
        ax2.axhline(0, color="k", lw=0.8)
        if shakes[-1] > a.limit:
            ax2.axvline(a.limit, color="0.5", ls=":", lw=1, label=f"limit: shake {a.limit:g}")
        if first_top is not None:
            ax2.axvline(first_top, color="C2", ls="--", lw=1, label=f"top layer for good: shake {first_top:.2f}")
        if first_top is not None or shakes[-1] > a.limit:
            ax2.legend(loc="lower right", fontsize=8)
        ax2.set_ylabel("(z_large - (max z_small - d)) / d\n> 0: top layer")
        ax2.set_xlabel("shakes (f t)")
        fig.suptitle(a.title or f"Brazil nut: {dim}D, {len(small)} grains, Gamma = {gamma:.2f}, f = {freq:g} Hz")
        fig.tight_layout()
        fig.savefig(a.png, dpi=110)
        print(f"wrote {a.png}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
