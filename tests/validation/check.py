#!/usr/bin/python3
"""Runs the validation scenes (scenes/validation/*.json) with `clatter run` and checks each run
against the expectations in scenes/validation/checks.json; optionally writes the report
docs/validation.md and docs/validation.csv.

    /usr/bin/python3 tests/validation/check.py                  # every scene
    /usr/bin/python3 tests/validation/check.py 2d_tower20 '3d_incline_*'
    /usr/bin/python3 tests/validation/check.py --dimension 3 --exclude-label big
    /usr/bin/python3 tests/validation/check.py --report         # every scene, rewrite the report
    /usr/bin/python3 tests/validation/check.py 3d_tower20 --set method.solver=bgs  # try a method

Prints one line per check (scene, check, measured value, bound, PASS/FAIL) and exits 1 if any
check fails (2 on bad usage). Needs numpy and h5py (Debian's python3-numpy, python3-h5py).
The clatter binary is --bin, else $CLATTER_BIN, else build/clatter.

checks.json maps each scene name to {"checks": [...], "labels": [...], "max_wall_s": S}.
`max_wall_s` is the run's wall-clock budget (scaled by --wall-scale): a run that exceeds it is
interrupted (SIGINT: clatter stops after the current step and writes what it has), its checks are
evaluated on the steps it made, and the check "complete" fails. Every run gets "complete"
(the run reached its duration) besides its own checks. Check types (t in s, lengths in m):

  converged          every step's solver_status is none or solved (not ray, max_iterations, error)
  max_displacement   bodies ("dynamic" or names); max over frames and bodies of |x(t) - x(0)|;
                     "max": bound above, or "min": bound below (a collapse)
  max_penetration    max of /diagnostics/penetration <= "max"
  max_joint_error    max of /diagnostics/joint_error <= "max"
  joint_error_growth max of /diagnostics/joint_error over the second half of the run <= "max_ratio"
                     times its max over the first half (a bounded error, not a drift)
  max_speed          bodies; max over frames of |v| <= "max"
  final_speed        body; |v| at the last frame <= "max"
  final_velocity     body; |v(end) - expected| <= "abs_tol" or <= "rel_tol" |expected|
  acceleration       body, direction, window [t0, t1]: least-squares slope of v . direction over
                     the frames in the window; relative error to "expected" <= "rel_tol"
  direction          body, direction, window: max angle between v and direction over the frames
                     in the window (|v| > 1e-3 m/s) <= "max_deg"
  travel             body, direction: (x(end) - x(0)) . direction; relative error <= "rel_tol"
  rolling_slip       body, radius, normal: speed of the contact point v + omega x (-r n) at the
                     last frame <= "max"
  rebound_ratio      body, axis, rest: (highest point after the first bounce - rest) /
                     (start height - rest); |ratio - expected| <= "abs_tol"
  rebound_height     body, axis, rest: after the body first stops falling, its highest point
                     - rest <= "max" (a plastic landing)
  period             body, quantity ("angle" in 2D, or "x", "y", "z"): the mean spacing of the
                     crossings of the middle of its range, times 2; relative error <= "rel_tol"
  energy_gain        max over steps of E(t) - E(0), E = kinetic + potential energy (diagnostics);
                     <= "abs_max", or <= "rel_max" |E(0)|
  energy_loss        E(0) - E(end) <= "abs_max"
  angle_range        body (2D), offset: angle(t) - angle(0) + offset ranges over [lo, hi];
                     max(|lo - expected[0]|, |hi - expected[1]|) <= "max_deg"
  turns              body (2D): |angle(end) - angle(0)| / 2 pi >= "min", or within "rel_tol" of
                     "expected"
  orbit_rate         body: least-squares slope of the (unwrapped) direction of the horizontal
                     velocity; relative error to "expected" <= "rel_tol"
  speed_range        body: max over frames of ||v| - expected| / expected <= "rel_tol"
  precession         body (3D), axis (body frame): least-squares slope of the azimuth of the axis
                     in the world, relative error <= "rel_tol"; and its tilt from the vertical
                     stays within "max_tilt_error_deg" of "tilt_deg"
"""
import argparse
import csv
import datetime
import fnmatch
import json
import math
import os
import signal
import subprocess
import sys
import tempfile
import time

import h5py
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
SOLVER_STATUS = {0: "none", 1: "solved", 2: "ray", 3: "max_iterations", 4: "error"}


class Run:
    """The arrays of one output file."""

    def __init__(self, path):
        with h5py.File(path, "r") as f:
            self.status = f.attrs["status"].decode()
            self.message = f.attrs["status_message"].decode()
            self.steps = int(f.attrs["steps"])
            self.total_steps = int(f.attrs["total_steps"])
            self.dim = int(f.attrs["dimension"])
            self.names = [n.decode() for n in f["bodies/name"][:]]
            self.types = [t.decode() for t in f["bodies/type"][:]]
            tr = f["trajectory"]
            self.t = tr["time"][:]
            self.x = tr["position"][:]
            self.v = tr["velocity"][:]
            self.w = tr["angular_velocity"][:]
            self.angle = tr["angle"][:] if "angle" in tr else None
            self.q = tr["orientation"][:] if "orientation" in tr else None
            d = f["diagnostics"]
            self.solver_status = d["solver_status"][:]
            self.penetration = d["penetration"][:]
            self.joint_error = d["joint_error"][:]
            self.energy = d["kinetic_energy"][:] + d["potential_energy"][:]
            self.wall = d["wall_s"][:]

    def index(self, name):
        if name not in self.names:
            raise KeyError(f"no body named {name!r}")
        return self.names.index(name)

    def bodies(self, spec):
        if spec == "dynamic":
            return [i for i, t in enumerate(self.types) if t == "dynamic"]
        return [self.index(n) for n in spec]

    def window(self, win):
        t0, t1 = win if win else (self.t[0], self.t[-1])
        return (self.t >= t0 - 1e-9) & (self.t <= t1 + 1e-9)

    def axis_world(self, body, axis):
        """The body-frame vector `axis` in the world at every frame (3D)."""
        q = self.q[:, body, :]
        w, u = q[:, 0:1], q[:, 1:4]
        a = np.broadcast_to(np.asarray(axis, float), u.shape)
        c = np.cross(u, a)
        return a + 2 * w * c + 2 * np.cross(u, c)


def angle_deg(a, b):
    na, nb = np.linalg.norm(a, axis=-1), np.linalg.norm(b)
    c = np.clip((a @ b) / (na * nb), -1, 1)
    return np.degrees(np.arccos(c))


def slope(t, y):
    if len(t) < 2:
        raise ValueError("fewer than 2 frames in the window")
    return np.polyfit(t, y, 1)[0]


def vec(run, v):
    """A scene vector padded to the output's 3 components."""
    v = list(v) + [0.0] * (3 - len(v))
    return np.asarray(v, float)


def g(x):
    return f"{x + 0.0:.4g}"


def evaluate(run, c):
    """Returns (check label, measured text, bound text, passed)."""
    kind = c["type"]
    who = c.get("body") or c.get("bodies")
    label = kind if who is None else f"{kind} {who if isinstance(who, str) else ','.join(who)}"
    if kind == "converged":
        bad = run.solver_status[1:][~np.isin(run.solver_status[1:], (0, 1))]
        text = f"{len(bad)} unconverged of {len(run.solver_status) - 1}"
        if len(bad):
            kinds = {SOLVER_STATUS.get(int(s), str(s)): int(np.sum(bad == s)) for s in set(bad)}
            text += " (" + ", ".join(f"{k} {n}" for k, n in sorted(kinds.items())) + ")"
        return label, text, "0", len(bad) == 0
    if kind == "max_displacement":
        ids = run.bodies(who)
        d = np.linalg.norm(run.x[:, ids, :] - run.x[0:1, ids, :], axis=-1).max()
        if "max" in c:
            return label, g(d) + " m", f"< {g(c['max'])} m", d < c["max"]
        return label, g(d) + " m", f"> {g(c['min'])} m", d > c["min"]
    if kind == "max_penetration":
        p = run.penetration.max()
        return label, g(p) + " m", f"<= {g(c['max'])} m", p <= c["max"]
    if kind == "max_joint_error":
        p = run.joint_error.max()
        return label, g(p) + " m", f"<= {g(c['max'])} m", p <= c["max"]
    if kind == "joint_error_growth":
        half = len(run.joint_error) // 2
        first, second = run.joint_error[:half].max(), run.joint_error[half:].max()
        ratio = second / first if first > 0 else (0.0 if second == 0 else math.inf)
        return (label, f"{g(ratio)} (first half {g(first)} m, second {g(second)} m)",
                f"<= {g(c['max_ratio'])}", ratio <= c["max_ratio"])
    if kind == "max_speed":
        s = np.linalg.norm(run.v[:, run.bodies(who), :], axis=-1).max()
        return label, g(s) + " m/s", f"<= {g(c['max'])} m/s", s <= c["max"]
    b = run.index(who) if isinstance(who, str) else None
    if kind == "final_speed":
        s = np.linalg.norm(run.v[-1, b])
        return label, g(s) + " m/s", f"<= {g(c['max'])} m/s", s <= c["max"]
    if kind == "final_velocity":
        e = vec(run, c["expected"])
        err = np.linalg.norm(run.v[-1, b] - e)
        tol = c["abs_tol"] if "abs_tol" in c else c["rel_tol"] * np.linalg.norm(e)
        v = run.v[-1, b][: run.dim]
        return (label, f"v = [{', '.join(g(x) for x in v)}] m/s, error {g(err)}",
                f"error <= {g(tol)} m/s", err <= tol)
    if kind == "acceleration":
        m = run.window(c.get("window"))
        a = slope(run.t[m], run.v[m, b] @ vec(run, c["direction"]))
        rel = abs(a - c["expected"]) / abs(c["expected"])
        return (label, f"{g(a)} m/s^2 ({100 * rel:.3g} % off)",
                f"{g(c['expected'])} +- {100 * c['rel_tol']:g} %", rel <= c["rel_tol"])
    if kind == "direction":
        m = run.window(c.get("window"))
        v = run.v[m, b]
        v = v[np.linalg.norm(v, axis=-1) > 1e-3]
        if len(v) == 0:
            return label, "not moving", f"<= {g(c['max_deg'])} deg", False
        dev = angle_deg(v, vec(run, c["direction"])).max()
        return label, g(dev) + " deg", f"<= {g(c['max_deg'])} deg", dev <= c["max_deg"]
    if kind == "travel":
        d = (run.x[-1, b] - run.x[0, b]) @ vec(run, c["direction"])
        rel = abs(d - c["expected"]) / abs(c["expected"])
        return (label, f"{g(d)} m ({100 * rel:.3g} % off)",
                f"{g(c['expected'])} +- {100 * c['rel_tol']:g} %", rel <= c["rel_tol"])
    if kind == "rolling_slip":
        n = vec(run, c["normal"])
        n = n / np.linalg.norm(n)
        if run.dim == 2:
            omega = np.array([0.0, 0.0, run.w[-1, b]])
        else:  # body-frame angular velocity to the world
            q = run.q[-1, b]
            u = q[1:4]
            wb = run.w[-1, b]
            cr = np.cross(u, wb)
            omega = wb + 2 * q[0] * cr + 2 * np.cross(u, cr)
        vc = run.v[-1, b] + np.cross(omega, -c["radius"] * n)
        s = np.linalg.norm(vc)
        return label, g(s) + " m/s", f"<= {g(c['max'])} m/s", s <= c["max"]
    if kind in ("rebound_ratio", "rebound_height"):
        z = run.x[:, b, c["axis"]]
        vz = run.v[:, b, c["axis"]]
        landed = np.nonzero((vz[:-1] < 0) & (vz[1:] >= 0))[0]
        if kind == "rebound_height":
            if len(landed) == 0:
                return label, "never landed", f"<= {g(c['max'])} m", False
            rise = z[landed[0] + 1:].max() - c["rest"]
            return label, g(rise) + " m", f"<= {g(c['max'])} m", rise <= c["max"]
        up = np.nonzero((vz[:-1] <= 0) & (vz[1:] > 0))[0]
        if len(up) == 0:
            return label, "no bounce", f"{g(c['expected'])} +- {g(c['abs_tol'])}", False
        i = up[0] + 1
        down = np.nonzero(vz[i:] < 0)[0]
        end = i + down[0] if len(down) else len(z)
        ratio = (z[i:end + 1].max() - c["rest"]) / (z[0] - c["rest"])
        return (label, g(ratio), f"{g(c['expected'])} +- {g(c['abs_tol'])}",
                abs(ratio - c["expected"]) <= c["abs_tol"])
    if kind == "period":
        qn = c["quantity"]
        y = run.angle[:, b] if qn == "angle" else run.x[:, b, "xyz".index(qn)]
        y = y - 0.5 * (y.max() + y.min())
        s = np.nonzero(np.sign(y[:-1]) * np.sign(y[1:]) < 0)[0]
        if len(s) < 3:
            return label, f"{len(s)} crossings", "", False
        tc = run.t[s] - y[s] * (run.t[s + 1] - run.t[s]) / (y[s + 1] - y[s])
        T = 2 * (tc[-1] - tc[0]) / (len(tc) - 1)
        rel = abs(T - c["expected"]) / c["expected"]
        return (label, f"{T:.5g} s ({100 * rel:.3g} % off)",
                f"{c['expected']:.5g} s +- {100 * c['rel_tol']:g} %", rel <= c["rel_tol"])
    if kind == "energy_gain":
        gain = (run.energy - run.energy[0]).max()
        bound = c["abs_max"] if "abs_max" in c else c["rel_max"] * abs(run.energy[0])
        return label, g(gain) + " J", f"<= {g(bound)} J", gain <= bound
    if kind == "energy_loss":
        loss = run.energy[0] - run.energy[-1]
        return label, g(loss) + " J", f"<= {g(c['abs_max'])} J", loss <= c["abs_max"]
    if kind == "angle_range":
        psi = run.angle[:, b] - run.angle[0, b] + c["offset"]
        lo, hi = psi.min(), psi.max()
        e0, e1 = c["expected"]
        err = math.degrees(max(abs(lo - e0), abs(hi - e1)))
        return (label, f"{math.degrees(lo):.4g}..{math.degrees(hi):.4g} deg (error {g(err)})",
                f"{math.degrees(e0):.4g}..{math.degrees(e1):.4g} +- {g(c['max_deg'])} deg",
                err <= c["max_deg"])
    if kind == "turns":
        a = np.unwrap(run.angle[:, b])
        n = abs(a[-1] - a[0]) / (2 * math.pi)
        if "expected" in c:
            rel = abs(n - c["expected"]) / c["expected"]
            return (label, f"{g(n)} ({100 * rel:.3g} % off)",
                    f"{g(c['expected'])} +- {100 * c['rel_tol']:g} %", rel <= c["rel_tol"])
        return label, g(n), f">= {g(c['min'])}", n >= c["min"]
    if kind == "orbit_rate":
        v = run.v[:, b]
        m = np.hypot(v[:, 0], v[:, 1]) > 1e-6
        phi = np.unwrap(np.arctan2(v[m, 1], v[m, 0]))
        k = slope(run.t[m], phi)
        rel = abs(k - c["expected"]) / abs(c["expected"])
        return (label, f"{g(k)} rad/s ({100 * rel:.3g} % off)",
                f"{g(c['expected'])} +- {100 * c['rel_tol']:g} %", rel <= c["rel_tol"])
    if kind == "speed_range":
        s = np.linalg.norm(run.v[:, b], axis=-1)
        rel = np.abs(s - c["expected"]).max() / c["expected"]
        return (label, f"{g(s.min())}..{g(s.max())} m/s ({100 * rel:.3g} % off)",
                f"{g(c['expected'])} +- {100 * c['rel_tol']:g} %", rel <= c["rel_tol"])
    if kind == "precession":
        e = run.axis_world(b, c["axis"])
        phi = np.unwrap(np.arctan2(e[:, 1], e[:, 0]))
        k = slope(run.t, phi)
        rel = abs(k - c["expected"]) / abs(c["expected"])
        tilt = np.degrees(np.arccos(np.clip(e[:, 2], -1, 1)))
        terr = np.abs(tilt - c["tilt_deg"]).max()
        ok = rel <= c["rel_tol"] and terr <= c["max_tilt_error_deg"]
        return (label, f"{g(k)} rad/s ({100 * rel:.3g} % off), tilt {tilt.min():.4g}..{tilt.max():.4g} deg",
                f"{g(c['expected'])} +- {100 * c['rel_tol']:g} %, tilt {g(c['tilt_deg'])} +- "
                f"{g(c['max_tilt_error_deg'])} deg", ok)
    raise ValueError(f"unknown check type {kind!r}")


def run_scene(clatter, scene_path, out_path, budget, overrides):
    cmd = [clatter, "run", scene_path, "-o", out_path, "--quiet"]
    for o in overrides:
        cmd += ["--set", o]
    start = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    interrupted = False
    try:
        out, _ = proc.communicate(timeout=budget)
    except subprocess.TimeoutExpired:
        interrupted = True
        proc.send_signal(signal.SIGINT)  # stops after the current step and writes the file
        try:
            out, _ = proc.communicate(timeout=300)  # a step of a slow solve can take minutes
        except subprocess.TimeoutExpired:
            proc.kill()
            out, _ = proc.communicate()
    return proc.returncode, out, time.monotonic() - start, interrupted


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("names", nargs="*", help="scene names or shell patterns (default: all)")
    ap.add_argument("--bin", default=os.environ.get("CLATTER_BIN"))
    ap.add_argument("--scenes", default=os.path.join(ROOT, "scenes", "validation"))
    ap.add_argument("--dimension", type=int, choices=(2, 3))
    ap.add_argument("--label", action="append", default=[], help="only scenes with this label")
    ap.add_argument("--exclude-label", action="append", default=[])
    ap.add_argument("--wall-scale", type=float, default=1.0,
                    help="multiply every scene's max_wall_s (slow builds)")
    ap.add_argument("--timeout", type=float, default=1800,
                    help="wall budget of scenes without max_wall_s [s]")
    ap.add_argument("--set", action="append", default=[], dest="overrides", metavar="PATH=VALUE",
                    help="pass --set PATH=VALUE to every run (to try a method; not for the report)")
    ap.add_argument("--keep", metavar="DIR", help="keep the output files in DIR")
    ap.add_argument("--report", action="store_true",
                    help="write docs/validation.md and docs/validation.csv")
    args = ap.parse_args()

    clatter = args.bin or os.path.join(ROOT, "build", "clatter")
    if not os.access(clatter, os.X_OK):
        print(f"check.py: no clatter binary at {clatter} (give --bin or CLATTER_BIN)", file=sys.stderr)
        return 2
    with open(os.path.join(args.scenes, "checks.json")) as f:
        table = json.load(f)
    names = sorted(table)
    if args.names:
        names = [n for n in names if any(fnmatch.fnmatch(n, p) for p in args.names)]
    chosen = []
    for n in names:
        labels = table[n].get("labels", [])
        if args.label and not set(args.label) & set(labels):
            continue
        if set(args.exclude_label) & set(labels):
            continue
        with open(os.path.join(args.scenes, n + ".json")) as f:
            scene = json.load(f)
        if args.dimension and scene["dimension"] != args.dimension:
            continue
        chosen.append((n, scene))
    if not chosen:
        print("check.py: no scene selected", file=sys.stderr)
        return 2
    if args.report and (args.overrides or args.names or args.label or args.exclude_label
                        or args.dimension):
        print("check.py: --report runs every scene with its own settings", file=sys.stderr)
        return 2

    if args.keep:
        os.makedirs(args.keep, exist_ok=True)
        return check_all(args, table, chosen, clatter, args.keep)
    with tempfile.TemporaryDirectory(prefix="clatter_validation_") as tmp:
        return check_all(args, table, chosen, clatter, tmp)


def check_all(args, table, chosen, clatter, tmp):
    rows, failed_scenes, t_all = [], [], time.monotonic()
    for name, scene in chosen:
        entry = table[name]
        budget = entry.get("max_wall_s", args.timeout) * args.wall_scale
        out_path = os.path.join(tmp, name + ".h5")
        rc, out, wall, interrupted = run_scene(clatter, os.path.join(args.scenes, name + ".json"),
                                               out_path, budget, args.overrides)
        results = []
        run = None
        if os.path.exists(out_path):
            try:
                run = Run(out_path)
            except (OSError, KeyError) as e:
                out += f"\ncannot read {out_path}: {e}"
        if run is None:
            results.append(("run", f"exit {rc}: {out.strip()[-300:]}", "an output file", False))
        else:
            done = run.status == "complete"
            why = "" if done else (f" (wall budget {g(budget)} s exceeded)" if interrupted
                                   else f" ({run.status}: {run.message})")
            results.append(("complete", f"{run.steps} of {run.total_steps} steps{why}",
                            "all steps", done))
            for c in entry["checks"]:
                try:
                    results.append(evaluate(run, c))
                except (ValueError, KeyError, IndexError) as e:
                    results.append((c["type"], f"error: {e}", "", False))
        steps = run.steps if run else 0
        per_step = float(np.mean(run.wall[1:])) if run is not None and len(run.wall) > 1 else float("nan")
        known = entry.get("known", {})
        for label, measured, bound, ok in results:
            why = known.get(label.split()[0]) if label else None
            verdict = "PASS" if ok else ("KNOWN" if why else "FAIL")
            print(f"{verdict:5s} {name:32s} {label:34s} {measured}  [{bound}]"
                  + (f"  (known: {why})" if why and not ok else "")
                  + ("  (a known failure now passes: remove it from KNOWN)" if why and ok else ""))
            rows.append({"scene": name, "check": label, "measured": measured, "bound": bound,
                         "pass": bool(ok) or bool(why), "known": why if not ok else None, "steps": steps,
                         "total_steps": run.total_steps if run else 0,
                         "wall_s_per_step": per_step, "run_wall_s": wall})
        sys.stdout.flush()
        if not all(r[3] or known.get(r[0].split()[0] if r[0] else "") for r in results):
            failed_scenes.append(name)
        if not args.keep and os.path.exists(out_path):
            os.remove(out_path)
    total = time.monotonic() - t_all
    nfail = sum(1 for r in rows if not r["pass"])
    nknown = sum(1 for r in rows if r.get("known"))
    print(f"{len(chosen)} scenes, {len(rows)} checks, {nfail} failed, {nknown} known failures "
          f"({len(failed_scenes)} scenes: {' '.join(failed_scenes) or '-'}); {total:.1f} s")
    if args.report:
        write_report(rows, chosen, total, clatter, table)
    return 1 if nfail else 0


def git_describe():
    try:
        head = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", ROOT, "status", "--porcelain", "--", "src",
                                "include", "tools"], capture_output=True, text=True).stdout.strip()
        return head + (" + uncommitted changes to src/include/tools" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def write_report(rows, chosen, total, clatter, table):
    docs = os.path.join(ROOT, "docs")
    with open(os.path.join(docs, "validation.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        for r in rows:
            w.writerow({**r, "wall_s_per_step": f"{r['wall_s_per_step']:.4g}",
                        "run_wall_s": f"{r['run_wall_s']:.3g}"})
    nfail = sum(1 for r in rows if not r["pass"])
    fails = sorted({r["scene"] for r in rows if not r["pass"]})
    run_wall = {r["scene"]: r["run_wall_s"] for r in rows}
    big = sum(w for n, w in run_wall.items() if "big" in table[n].get("labels", []))
    lines = [
        "# Validation suite: results",
        "",
        "<!-- Generated by `/usr/bin/python3 tests/validation/check.py --report` (Release build); "
        "do not edit by hand. -->",
        "",
        "Generated by `/usr/bin/python3 tests/validation/check.py --report` from "
        "`scenes/validation/*.json` and `scenes/validation/checks.json` (the scenes themselves "
        "are generated by `tests/validation/make_scenes.py`). Every scene runs with the **default "
        "method** (no scene sets `method`). The ctests `validation/test_validation_2d`, "
        "`validation/test_validation_3d` and `validation/test_validation_big` (label "
        "`no_sanitize`) run the same checks.",
        "",
        f"- commit: {git_describe()}, {datetime.date.today().isoformat()}, binary `{os.path.relpath(clatter, ROOT)}`",
        f"- {len(chosen)} scenes, {len(rows)} checks, **{nfail} failed** in "
        f"{len(fails)} scenes; whole suite {total:.0f} s wall clock, of which the scenes "
        f"labelled big (ctest validation/test_validation_big) {big:.0f} s",
        "- wall/step: mean of /diagnostics/wall_s; a run that exceeds its wall budget "
        "(`max_wall_s` in checks.json) is interrupted and checked on the steps it made",
        "",
        "| scene | check | measured | bound | result | steps | wall/step |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(f"| {r['scene']} | {r['check']} | {r['measured']} | {r['bound']} | "
                     f"{('known failure: ' + r['known']) if r.get('known') else ('pass' if r['pass'] else '**FAIL**')} | {r['steps']}/{r['total_steps']} | "
                     f"{r['wall_s_per_step'] * 1e3:.3g} ms |")
    lines += ["", "## Scenes and their expectations", ""]
    for name, scene in chosen:
        lines.append(f"- **{name}** ({scene['dimension']}D, h = {scene['time_step']} s, "
                     f"{scene['duration']} s): {scene['description']}")
    lines.append("")
    with open(os.path.join(docs, "validation.md"), "w") as f:
        f.write("\n".join(lines))


if __name__ == "__main__":
    sys.exit(main())
