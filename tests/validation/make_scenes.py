#!/usr/bin/python3
"""Writes the validation scenes (scenes/validation/*.json) and their checks
(scenes/validation/checks.json).

The scenes are generated because their geometry (arch voussoirs, pyramids, inclines at a slope
direction, a top in steady precession, a four-bar linkage's consistent initial velocities) is
computed; the generated JSON files are committed and are what the checker runs. Every scene runs
with the default method: no scene sets `method` (a scene that is about something else sets only
its `time_step`, materials or restitution). Edit this file and rerun it, never the JSON:

    /usr/bin/python3 tests/validation/make_scenes.py

Check types and their fields are documented in tests/validation/check.py.
"""
import json
import math
import os
import sys

G = 9.81
HERE = os.path.dirname(os.path.abspath(__file__))
OUT_DIR = os.path.join(HERE, "..", "..", "scenes", "validation")

SCENES = []  # (scene dict, entry of checks.json)


def fmt(x, digits=4):
    """A number for the descriptions: 4 significant digits."""
    return f"{x:.{digits}g}"


# Known failures of the simulator, by scene and check label (the label's first word): reported as
# KNOWN with the measured value in every run and in docs/validation.md, not counted as failures,
# until the simulator is fixed (then they pass and the entry goes).
KNOWN = {}


# Crank turns of 2d_four_bar in 2 s: the scene run at h = 1e-4 s and 5e-5 s (2.2847538 and
# 2.2847549; the rigid linkage has one degree of freedom and conserves its kinetic energy).
FOUR_BAR_TURNS = 2.284755


def add(scene, checks, labels=(), max_wall_s=None):
    entry = {"checks": checks}
    if scene["name"] in KNOWN:
        entry["known"] = KNOWN[scene["name"]]
    if labels:
        entry["labels"] = list(labels)
    if max_wall_s is not None:
        entry["max_wall_s"] = max_wall_s
    SCENES.append((scene, entry))


def base(name, dim, h, duration, description, bodies, interval_steps=1, **extra):
    s = {"name": name, "description": description, "dimension": dim, "time_step": h,
         "duration": duration}
    s.update(extra)
    s["bodies"] = bodies
    s["output"] = {"interval_steps": interval_steps, "contacts": False, "csv": False}
    return s


def converged():
    return {"type": "converged"}


def slides(body, direction, a):
    """Fitted acceleration a along direction within 1 %, velocity within 1 deg of it (t 0.1-1 s)."""
    return [{"type": "acceleration", "body": body, "direction": r6(direction), "expected": a,
             "rel_tol": 0.01, "window": [0.1, 1.0]},
            {"type": "direction", "body": body, "direction": r6(direction), "max_deg": 1.0,
             "window": [0.1, 1.0]}]


def still(bound=1e-3, bodies="dynamic"):
    return {"type": "max_displacement", "bodies": bodies, "max": bound}


# ---------------------------------------------------------------- geometry helpers

def quat_axis_angle(axis, angle):
    n = math.sqrt(sum(a * a for a in axis))
    s = math.sin(angle / 2) / n
    return [math.cos(angle / 2), axis[0] * s, axis[1] * s, axis[2] * s]


def quat_from_matrix(m):
    """Unit quaternion [w, x, y, z] of a rotation matrix given by rows."""
    tr = m[0][0] + m[1][1] + m[2][2]
    if tr > 0:
        s = math.sqrt(tr + 1.0) * 2
        return [0.25 * s, (m[2][1] - m[1][2]) / s, (m[0][2] - m[2][0]) / s,
                (m[1][0] - m[0][1]) / s]
    i = max(range(3), key=lambda k: m[k][k])
    j, k = (i + 1) % 3, (i + 2) % 3
    s = math.sqrt(1.0 + m[i][i] - m[j][j] - m[k][k]) * 2
    q = [0.0] * 4
    q[0] = (m[k][j] - m[j][k]) / s
    q[1 + i] = 0.25 * s
    q[1 + j] = (m[j][i] + m[i][j]) / s
    q[1 + k] = (m[k][i] + m[i][k]) / s
    return q


def cross(a, b):
    return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]


def r6(v):
    """Rounds coordinates to 1e-12 so the JSON stays readable (exactness is not lost that matters)."""
    if isinstance(v, list):
        return [r6(x) for x in v]
    return round(v, 12) + 0.0


GROUND2 = {"name": "ground", "type": "static",
           "shape": {"type": "halfplane", "normal": [0, 1], "point": [0, 0]}}
GROUND3 = {"name": "ground", "type": "static",
           "shape": {"type": "halfspace", "normal": [0, 0, 1], "point": [0, 0, 0]}}


def box2(name, x, y, hx=0.5, hy=0.5, **kw):
    b = {"name": name, "position": r6([x, y]), "shape": {"type": "box", "half_extents": [hx, hy]}}
    b.update(kw)
    return b


def box3(name, x, y, z, h=(0.5, 0.5, 0.5), **kw):
    b = {"name": name, "position": r6([x, y, z]),
         "shape": {"type": "box", "half_extents": list(h)}}
    b.update(kw)
    return b


# ---------------------------------------------------------------- 2D stacks

def stacks_2d():
    add(base("2d_two_squares", 2, 0.01, 10,
             "Two aligned 1 m squares (density 1000 kg/m^2, mu = 0.5) stacked on the ground. "
             "Statics: the stack is in equilibrium with every contact force normal (top: m g = "
             "9810 N/m, bottom: 2 m g), so nothing moves: expected max displacement < 1 mm over 10 s, "
             "every step converged (acceptance, default method).",
             [GROUND2, box2("box0", 0, 0.5), box2("box1", 0, 1.5)], interval_steps=10),
        [converged(), still()])

    add(base("2d_tower20", 2, 0.01, 10,
             "A tower of 20 aligned 1 m squares on the ground (density 1000, mu = 0.5). In "
             "equilibrium under normal forces only (interface k carries (20 - k) m g): expected max "
             "displacement < 1 mm over 10 s, every step converged (acceptance, default method).",
             [GROUND2] + [box2(f"box{k}", 0, 0.5 + k) for k in range(20)], interval_steps=10),
        [converged(), still()])

    rows, spacing = 20, 1.1
    bodies = [GROUND2]
    for r in range(rows):
        n = rows - r
        for i in range(n):
            x = (i - (n - 1) / 2) * spacing
            bodies.append(box2(f"b{r}_{i}", x, 0.5 + r))
    add(base("2d_pyramid20", 2, 0.01, 10,
             "A 20-row pyramid of 210 aligned 1 m squares (rows of 20, 19, ..., 1; 0.1 m gaps "
             "within a row, each square resting on two below with 0.45 m of overlap each; density "
             "1000, mu = 0.5). Statically determinate per box and in equilibrium: expected max "
             "displacement < 1 mm over 10 s, every step converged (acceptance, default method).",
             bodies, interval_steps=10),
        [converged(), still()], labels=["big"], max_wall_s=120)

    bodies = [GROUND2]
    for r in range(rows):
        n = rows - r
        for i in range(n):
            bodies.append(box2(f"b{r}_{i}", i - (n - 1) / 2, 0.5 + r))
    add(base("2d_pyramid20_touching", 2, 0.01, 10,
             "The same 20-row pyramid of 210 aligned 1 m squares placed exactly: neighbours in a row "
             "touch along their whole sides, and each square's lower corners sit exactly on the "
             "corners of the two below (the corner-on-corner and shared-edge contacts of a brick "
             "pyramid). In equilibrium: expected max displacement < 1 mm over 10 s, no overlap "
             "(penetration < 1e-6 m), every step converged (acceptance, default method).",
             bodies, interval_steps=10),
        [converged(), still(), {"type": "max_penetration", "max": 1e-6}], labels=["big"], max_wall_s=120)

    # Offset tower: each box overhangs the one below by 70 % of the harmonic limit 1/(2k),
    # so the centre of mass of the boxes above each interface lies 30 % inside its edge.
    shifts = [0.7 / (2 * k) for k in range(4, 0, -1)]  # from the bottom interface up
    xs = [0.0]
    for s in shifts:
        xs.append(xs[-1] + s)
    add(base("2d_offset_tower_stands", 2, 0.01, 2,
             "Five 1 m squares stacked with overhangs of 70 % of the harmonic limit (top box over "
             "the next by 0.35 m, then 0.175, 0.1167, 0.0875: total overhang "
             f"{fmt(xs[-1])} m). The centre of mass above every interface lies inside its support, "
             "so the stack stands: expected max displacement < 1 mm over 2 s, every step "
             "converged.",
             [GROUND2] + [box2(f"box{k}", x, 0.5 + k) for k, x in enumerate(xs)]),
        [converged(), still()])

    add(base("2d_offset_tower_topples", 2, 0.01, 2,
             "Three 1 m squares: the middle one shifted 0.1 m, the top one 0.6 m beyond the middle "
             "one, so its centre of mass is 0.1 m beyond the supporting edge (the two upper boxes' "
             "common centre, 0.4 m, is still inside the bottom box). The top box must tip over the "
             "edge and fall: expected top box displacement > 0.5 m within 2 s, the two lower boxes "
             "stay (< 5 cm; they may be nudged as the top box leaves), every step converged.",
             [GROUND2, box2("box0", 0, 0.5), box2("box1", 0.1, 1.5), box2("top", 0.7, 2.5)]),
        [converged(),
         {"type": "max_displacement", "bodies": ["top"], "min": 0.5},
         {"type": "max_displacement", "bodies": ["box0", "box1"], "max": 0.05}])

    # Running bond wall: bricks 0.4 x 0.2 m, joints staggered by half a brick, half bricks at the
    # ends of the odd rows.
    bodies = [GROUND2]
    for r in range(4):
        y = 0.1 + 0.2 * r
        if r % 2 == 0:
            for i, x in enumerate([-0.6, -0.2, 0.2, 0.6]):
                bodies.append(box2(f"r{r}_{i}", x, y, 0.2, 0.1))
        else:
            bodies.append(box2(f"r{r}_0", -0.7, y, 0.1, 0.1))
            for i, x in enumerate([-0.4, 0.0, 0.4]):
                bodies.append(box2(f"r{r}_{i + 1}", x, y, 0.2, 0.1))
            bodies.append(box2(f"r{r}_4", 0.7, y, 0.1, 0.1))
    add(base("2d_wall_running_bond", 2, 0.01, 1,
             "A 2D wall of 18 bricks (0.4 x 0.2 m, four courses in running bond, half bricks at "
             "the ends of the odd courses, all touching, mu = 0.5). Every brick is supported by "
             "the course below: expected max displacement < 1 mm over 1 s, every step converged.",
             bodies),
        [converged(), still()])

    # Heavy on light, mass ratio 1000.
    mats = {"light": {"density": 1, "friction": 0.5}, "heavy": {"density": 1000, "friction": 0.5}}
    bodies = [GROUND2]
    for k in range(4):
        bodies.append(box2(f"{'light' if k % 2 == 0 else 'heavy'}{k}", 0, 0.5 + k,
                           material="light" if k % 2 == 0 else "heavy"))
    add(base("2d_heavy_on_light", 2, 0.01, 2,
             "Four 1 m squares alternating light and heavy (densities 1 and 1000 kg/m^2: 1 kg and "
             "1000 kg, mass ratio 1000), light at the bottom. Static equilibrium: expected max "
             "displacement < 1 mm over 2 s, penetration < 1 mm, every step converged.",
             bodies, materials=mats),
        [converged(), still(), {"type": "max_penetration", "max": 1e-3}])


def arch_2d():
    n, ri, ro = 11, 1.0, 1.3
    def voussoirs():
        out = []
        for k in range(n):
            a0, a1 = math.pi * k / n, math.pi * (k + 1) / n
            pts = [(ri * math.cos(a0), ri * math.sin(a0)), (ro * math.cos(a0), ro * math.sin(a0)),
                   (ro * math.cos(a1), ro * math.sin(a1)), (ri * math.cos(a1), ri * math.sin(a1))]
            # Exact zeros at the springings (cos(pi) * r has a 1e-16 sine).
            pts = [(x, 0.0 if abs(y) < 1e-12 else y) for x, y in pts]
            cx = sum(p[0] for p in pts) / 4
            cy = sum(p[1] for p in pts) / 4
            out.append({"name": f"v{k}", "position": r6([cx, cy]),
                        "shape": {"type": "polygon",
                                  "vertices": [r6([x - cx, y - cy]) for x, y in pts]}})
        return out
    piers = [{"name": "pier_right", "type": "static", "position": [1.15, -0.5],
              "shape": {"type": "box", "half_extents": [0.25, 0.5]}},
             {"name": "pier_left", "type": "static", "position": [-1.15, -0.5],
              "shape": {"type": "box", "half_extents": [0.25, 0.5]}}]
    ground = {"name": "ground", "type": "static",
              "shape": {"type": "halfplane", "normal": [0, 1], "point": [0, -1]}}
    geom = ("A semicircular masonry arch of 11 voussoirs (inner radius 1 m, outer 1.3 m, radial "
            "joints every 180/11 deg, density 2000 kg/m^2) on two piers, no mortar.")
    add(base("2d_arch_mu06", 2, 0.01, 10,
             geom + " Thickness/radius 0.26 is well above Heyman's minimum 0.106 for a semicircular "
             "arch, and at mu = 0.6 (friction angle 31 deg) no joint slides: the arch stands. "
             "Expected max voussoir displacement < 1 mm over 10 s, every step converged "
             "(acceptance, default method).",
             [ground] + piers + voussoirs(), interval_steps=10,
             materials={"default": {"density": 2000, "friction": 0.6}}),
        [converged(), still()])
    add(base("2d_arch_mu005", 2, 0.01, 3,
             geom + " At mu = 0.05 (friction angle 2.9 deg) the thrust at the springing joints "
             "(horizontal thrust / half weight well above 0.05) cannot be carried: the arch "
             "slides apart and collapses. Expected: some voussoir moves > 0.2 m within 3 s "
             "(acceptance, default method).",
             [ground] + piers + voussoirs(), interval_steps=10,
             materials={"default": {"density": 2000, "friction": 0.05}}),
        [{"type": "max_displacement", "bodies": "dynamic", "min": 0.2}])


# ---------------------------------------------------------------- 2D friction and rolling

def incline_2d():
    mu = 0.5
    for kind, tan in (("stick", mu - 0.02), ("slide", mu + 0.02)):
        th = math.atan(tan)
        n = [math.sin(th), math.cos(th)]
        down = [math.cos(th), -math.sin(th)]
        hy = 0.05
        plane = {"name": "incline", "type": "static",
                 "shape": {"type": "halfplane", "normal": r6(n), "point": [0, 0]}}
        box = {"name": "box", "position": r6([n[0] * hy, n[1] * hy]), "angle": r6(-th),
               "shape": {"type": "box", "half_extents": [0.1, hy]}}
        a = G * (math.sin(th) - mu * math.cos(th))
        if kind == "stick":
            add(base("2d_incline_stick", 2, 0.01, 2,
                     f"A 0.2 x 0.1 m box on a 2D incline with tan(theta) = mu - 0.02 = {fmt(tan)} "
                     f"(theta = {fmt(math.degrees(th))} deg), mu = 0.5: static friction holds it. "
                     "Expected |v| < 1e-6 m/s for 2 s, every step converged.",
                     [plane, box], materials={"default": {"friction": mu}}),
                [converged(), {"type": "max_speed", "bodies": ["box"], "max": 1e-6}])
        else:
            add(base("2d_incline_slide", 2, 0.01, 1,
                     f"A 0.2 x 0.1 m box on a 2D incline with tan(theta) = mu + 0.02 = {fmt(tan)} "
                     f"(theta = {fmt(math.degrees(th))} deg), mu = 0.5: it slides with "
                     f"a = g(sin(theta) - mu cos(theta)) = {fmt(a)} m/s^2 straight down the slope. "
                     "Expected fitted acceleration within 1 %, velocity within 1 deg of downhill, "
                     "every step converged.",
                     [plane, box], materials={"default": {"friction": mu}}),
                [converged()] + slides("box", down, a))


def rolling_2d():
    th, r, mu = math.radians(20), 0.1, 0.5
    n = [math.sin(th), math.cos(th)]
    down = [math.cos(th), -math.sin(th)]
    a = 2.0 / 3.0 * G * math.sin(th)
    add(base("2d_disk_rolls_down_incline", 2, 0.01, 1,
             f"A uniform disk (r = 0.1 m) on a 20 deg incline with mu = 0.5 >= tan(theta)/3 = "
             f"{fmt(math.tan(th) / 3)}: it rolls without slipping with a = (2/3) g sin(theta) = "
             f"{fmt(a)} m/s^2. Expected fitted acceleration within 1 %, rolling (|v| = |omega| r) "
             "within 1e-3 m/s at the end, every step converged.",
             [{"name": "incline", "type": "static",
               "shape": {"type": "halfplane", "normal": r6(n), "point": [0, 0]}},
              {"name": "disk", "position": r6([n[0] * r, n[1] * r]),
               "shape": {"type": "disk", "radius": r}}],
             materials={"default": {"friction": mu}}),
        [converged(),
         {"type": "acceleration", "body": "disk", "direction": r6(down), "expected": a,
          "rel_tol": 0.01, "window": [0.1, 1.0]},
         {"type": "rolling_slip", "body": "disk", "radius": r, "normal": r6(n), "max": 1e-3}])

    v0, w0, r, mu = 2.0, 10.0, 0.1, 0.3
    vf = (2 * v0 - r * w0) / 3
    t_roll = (v0 - vf) / (mu * G)
    add(base("2d_disk_backspin", 2, 0.01, 1,
             f"A uniform disk (r = 0.1 m, mu = 0.3) launched along the ground at v0 = 2 m/s with "
             f"backspin omega0 = +10 rad/s (counter-clockwise). Angular momentum about the contact "
             f"point is conserved: it slides, then rolls at v = (2 v0 - r omega0)/3 = {fmt(vf)} m/s "
             f"from t = (v0 - v)/(mu g) = {fmt(t_roll)} s. Expected final velocity within 1 %, "
             "rolling (slip < 1e-3 m/s) at the end, every step converged.",
             [GROUND2, {"name": "disk", "position": [0, r], "velocity": [v0, 0],
                        "angular_velocity": w0, "shape": {"type": "disk", "radius": r}}],
             materials={"default": {"friction": mu}}),
        [converged(),
         {"type": "final_velocity", "body": "disk", "expected": [vf, 0], "rel_tol": 0.01},
         {"type": "rolling_slip", "body": "disk", "radius": r, "normal": [0, 1], "max": 1e-3}])

    v0, mu, h = 2.0, 0.5, 0.001
    d = v0 * v0 / (2 * mu * G)
    add(base("2d_box_slides_to_stop", 2, h, 1,
             f"A 0.2 m square launched at 2 m/s along flat ground with mu = 0.5 decelerates at "
             f"mu g and stops after d = v0^2/(2 mu g) = {fmt(d)} m at t = v0/(mu g) = "
             f"{fmt(v0 / (mu * G))} s (h = 1 ms: the first-order time stepping's distance error "
             "is v0 h/2 = 1 mm). Expected distance within 1 %, at rest (|v| < 1e-6 m/s) at the "
             "end, every step converged.",
             [GROUND2, box2("box", 0, 0.1, 0.1, 0.1, velocity=[v0, 0])],
             interval_steps=10, materials={"default": {"friction": mu}}),
        [converged(),
         {"type": "travel", "body": "box", "direction": [1, 0], "expected": d, "rel_tol": 0.01},
         {"type": "final_speed", "body": "box", "max": 1e-6}])

    belt, mu = 1.0, 0.5
    t_star = belt / (mu * G)
    add(base("2d_conveyor", 2, 0.01, 0.6,
             f"A 0.2 m square set at rest on a kinematic conveyor (a half-plane moving at 1 m/s, "
             f"mu = 0.5). Friction drags it at a = mu g = {fmt(mu * G)} m/s^2 until it moves with "
             f"the belt at t = v/(mu g) = {fmt(t_star)} s, then it rides along. Expected fitted "
             "acceleration within 1 % before t*, final velocity within 1e-3 m/s of the belt, every "
             "step converged.",
             [{"name": "belt", "type": "kinematic", "motion": {"velocity": [belt, 0]},
               "shape": {"type": "halfplane", "normal": [0, 1], "point": [0, 0]}},
              box2("box", 0, 0.1, 0.1, 0.1)],
             materials={"default": {"friction": mu}}),
        [converged(),
         {"type": "acceleration", "body": "box", "direction": [1, 0], "expected": mu * G,
          "rel_tol": 0.01, "window": [0.02, round(t_star - 0.03, 2)]},
         {"type": "final_velocity", "body": "box", "expected": [belt, 0], "abs_tol": 1e-3}])


def painleve_2d():
    th, mu, l, rad, v0 = math.atan(2.0), 1.5, 0.5, 0.01, 2.0
    crit = (1 + 3 * math.cos(th) ** 2) / (3 * math.sin(th) * math.cos(th))
    add(base("2d_painleve_rod", 2, 0.01, 0.5,
             f"Painleve's rod: a uniform 1 m rod (rounded segment, radius 1 cm) at tan(theta) = 2 "
             f"({fmt(math.degrees(th))} deg) with its lower end on the ground and leading, sliding "
             f"at 2 m/s, mu = 1.5 > (1 + 3 cos^2)/(3 sin cos) = {fmt(crit)}: the rigid Coulomb "
             "problem has no solution with continuous velocity (the normal acceleration of the "
             "end decreases with the normal force), and time stepping resolves it by a "
             "tangential impact (the end jams). Expected: no energy gain (kinetic + potential "
             "never above the initial value by more than 1e-6 of it), penetration < 1 mm, every "
             "step converged; the rod must not explode. (0.5 s: the jam and the vault over the end; the rod's fall flat onto the ground afterwards is an impact like 2d_box_drop.)",
             [GROUND2, {"name": "rod", "position": r6([0, l * math.sin(th) + rad]),
                        "angle": r6(th), "velocity": [-v0, 0],
                        "shape": {"type": "segment", "a": [-l, 0], "b": [l, 0],
                                  "radius": rad}}],
             materials={"default": {"friction": mu}}),
        [converged(), {"type": "energy_gain", "rel_max": 1e-6},
         {"type": "max_penetration", "max": 1e-3}])


# ---------------------------------------------------------------- 2D joints, impacts

def pendulum_2d():
    amp, h = 0.1, 0.01
    ip = 1.0 / 12 + 0.25
    t0 = 2 * math.pi * math.sqrt(ip / (G * 0.5))
    t_amp = t0 * (1 + amp ** 2 / 16 + 11 * amp ** 4 / 3072)
    a = -math.pi / 2 + amp
    add(base("2d_pendulum_period", 2, h, 5,
             f"A uniform 1 m rod (1 kg) pinned at one end, released at rest {amp} rad from the "
             f"vertical. Physical pendulum: T0 = 2 pi sqrt(I_pivot/(m g d)) = 2 pi sqrt((1/3)/"
             f"(9.81 * 0.5)) = {fmt(t0, 6)} s, with the amplitude correction (1 + a^2/16 + ...) "
             f"T = {fmt(t_amp, 6)} s. Expected period (from zero crossings) within 0.2 %, joint "
             "error < 1e-5 m (a velocity-level joint drifts by about L (omega h)^2 per step), every "
             "step converged.",
             [{"name": "rod", "position": r6([0.5 * math.cos(a), 0.5 * math.sin(a)]),
               "angle": r6(a), "mass": 1, "inertia": 1.0 / 12,
               "shape": {"type": "box", "half_extents": [0.5, 0.02]}}],
             joints=[{"type": "revolute", "body_a": "rod", "body_b": "world",
                      "anchor_a": [-0.5, 0], "anchor_b": [0, 0]}]),
        [converged(),
         {"type": "period", "body": "rod", "quantity": "angle", "expected": t_amp,
          "rel_tol": 0.002},
         {"type": "max_joint_error", "max": 1e-5}])

    add(base("2d_double_pendulum", 2, 0.01, 3,
             "A double pendulum of two uniform 1 m rods (1 kg each), pinned, released at rest "
             "from horizontal: chaotic motion that conserves energy exactly (E = m g L scale "
             "9.81 J). The time stepping is first order (energy error proportional to h): "
             "expected kinetic + potential energy within 5 % of m g L (0.49 J) of its initial "
             "value, above and below, over 3 s at h = 0.01 s; joint error < 1 cm (1 % of a link); "
             "every step converged.",
             [{"name": "link1", "position": [0.5, 0], "mass": 1, "inertia": 1.0 / 12,
               "shape": {"type": "box", "half_extents": [0.5, 0.02]}},
              {"name": "link2", "position": [1.5, 0], "mass": 1, "inertia": 1.0 / 12,
               "shape": {"type": "box", "half_extents": [0.5, 0.02]}}],
             joints=[{"type": "revolute", "body_a": "link1", "body_b": "world",
                      "anchor_a": [-0.5, 0], "anchor_b": [0, 0]},
                     {"type": "revolute", "body_a": "link2", "body_b": "link1",
                      "anchor_a": [-0.5, 0], "anchor_b": [0.5, 0]}]),
        [converged(), {"type": "energy_gain", "abs_max": round(0.05 * G, 6)},
         {"type": "energy_loss", "abs_max": round(0.05 * G, 6)},
         {"type": "max_joint_error", "max": 1e-2}])

    # Four-bar crank-rocker: ground d, crank a, coupler b, rocker c (Grashof: a + b <= c + d).
    d, a, b, c = 1.0, 0.3, 1.0, 0.8
    w2 = 2 * math.pi
    o2, o4 = (0.0, 0.0), (d, 0.0)
    phi = math.pi / 2
    pa = (a * math.cos(phi), a * math.sin(phi))
    # B: |B - A| = b, |B - O4| = c, upper branch.
    dx, dy = o4[0] - pa[0], o4[1] - pa[1]
    L = math.hypot(dx, dy)
    x = (b * b - c * c + L * L) / (2 * L)
    yy = math.sqrt(b * b - x * x)
    ex, ey = dx / L, dy / L
    cands = [(pa[0] + x * ex - yy * ey, pa[1] + x * ey + yy * ex),
             (pa[0] + x * ex + yy * ey, pa[1] + x * ey - yy * ex)]
    pb = max(cands, key=lambda p: p[1])
    # Velocities: vA = w2 x (A - O2); vB = w4 x (B - O4) = vA + w3 x (B - A).
    def perp(w, r):
        return (-w * r[1], w * r[0])
    va = perp(w2, pa)
    ab = (pb[0] - pa[0], pb[1] - pa[1])
    ob = (pb[0] - o4[0], pb[1] - o4[1])
    # w4 * (-ob_y, ob_x) - w3 * (-ab_y, ab_x) = va
    m11, m12, m21, m22 = -ob[1], ab[1], ob[0], -ab[0]
    det = m11 * m22 - m12 * m21
    w4 = (va[0] * m22 - m12 * va[1]) / det
    w3 = (m11 * va[1] - m21 * va[0]) / det
    def link(name, p, q, w, pivot, pivot_v):
        mid = ((p[0] + q[0]) / 2, (p[1] + q[1]) / 2)
        length = math.hypot(q[0] - p[0], q[1] - p[1])
        ang = math.atan2(q[1] - p[1], q[0] - p[0])
        rel = (mid[0] - pivot[0], mid[1] - pivot[1])
        pv = perp(w, rel)
        return {"name": name, "position": r6(list(mid)), "angle": r6(ang),
                "velocity": r6([pivot_v[0] + pv[0], pivot_v[1] + pv[1]]),
                "angular_velocity": r6(w),
                "shape": {"type": "box", "half_extents": r6([length / 2, 0.02])}}
    bodies = [link("crank", o2, pa, w2, o2, (0, 0)), link("coupler", pa, pb, w3, pa, va),
              link("rocker", o4, pb, w4, o4, (0, 0))]
    def rocker_angle(dist):
        beta = math.acos((d * d + c * c - dist * dist) / (2 * d * c))
        return math.pi - beta
    psi_min, psi_max = rocker_angle(b + a), rocker_angle(b - a)
    psi0 = math.atan2(ob[1], ob[0])
    add(base("2d_four_bar", 2, 0.01, 2,
             "A crank-rocker four-bar linkage without gravity: ground 1 m, crank 0.3 m, coupler "
             "1 m, rocker 0.8 m (Grashof: 0.3 + 1 <= 0.8 + 1, shortest link is the crank), crank "
             "started at 1 rev/s with consistent link velocities. The crank turns full circles "
             "and the rocker swings between the toggle positions (crank and coupler collinear): "
             f"rocker angle from {fmt(math.degrees(psi_min))} to {fmt(math.degrees(psi_max))} deg. "
             "No gravity, no friction: the kinetic energy is conserved and the crank makes "
             f"{fmt(FOUR_BAR_TURNS, 5)} turns in 2 s (the same scene at h = 1e-4 and 5e-5 s, to 5e-7). "
             "Expected: rocker extremes within 0.5 deg; crank turns within 2 % (velocity-level "
             "joint rows dissipate: 1.2 % fewer turns at h = 0.01 s); joint error bounded by the "
             "rows' linearization error (v h)^2 / (2 R) ~ 1e-3 m, below 2e-3 m and not growing "
             "(SPEC.md §1, Theorem 4.1: O(h^2), no drift); every step converged.",
             bodies, gravity=[0, 0],
             joints=[{"type": "revolute", "body_a": "crank", "body_b": "world",
                      "anchor_a": r6([-a / 2, 0]), "anchor_b": [0, 0]},
                     {"type": "revolute", "body_a": "crank", "body_b": "coupler",
                      "anchor_a": r6([a / 2, 0]), "anchor_b": r6([-b / 2, 0])},
                     {"type": "revolute", "body_a": "coupler", "body_b": "rocker",
                      "anchor_a": r6([b / 2, 0]), "anchor_b": r6([c / 2, 0])},
                     {"type": "revolute", "body_a": "rocker", "body_b": "world",
                      "anchor_a": r6([-c / 2, 0]), "anchor_b": [d, 0]}]),
        [converged(), {"type": "max_joint_error", "max": 2e-3},
         {"type": "joint_error_growth", "max_ratio": 1.05},
         {"type": "angle_range", "body": "rocker", "offset": r6(psi0),
          "expected": r6([psi_min, psi_max]), "max_deg": 0.5},
         {"type": "turns", "body": "crank", "expected": FOUR_BAR_TURNS, "rel_tol": 0.02}])


def impacts_2d():
    e, r, h0 = 0.5, 0.1, 1.1
    add(base("2d_bounce_restitution", 2, 0.001, 1,
             f"A disk (r = 0.1 m) dropped from rest with its bottom 1 m above the ground, "
             f"restitution e = 0.5 (h = 1 ms; restitution is Newton's law lagged by one step). "
             f"It rebounds at e times the impact speed, to e^2 = 0.25 of the drop height. "
             "Expected rebound height ratio 0.25 +- 0.01, every step converged.",
             [GROUND2, {"name": "ball", "position": [0, h0], "shape": {"type": "disk",
                                                                       "radius": r}}],
             materials={"default": {"restitution": e}}),
        [converged(), {"type": "rebound_ratio", "body": "ball", "axis": 1, "rest": r,
                       "expected": e * e, "abs_tol": 0.01}])

    add(base("2d_box_drop", 2, 0.01, 1,
             "A 0.2 m square dropped flat from rest with its bottom 1 m above the ground (e = 0, "
             "h = 0.01 s): it lands at sqrt(2 g) = 4.43 m/s, 4.4 cm a step. A perfectly plastic "
             "impact stops it at the ground: expected penetration < 1 mm throughout, no rebound "
             "(after landing the box never rises more than 1 mm above its resting height), at "
             "rest (|v| < 1e-6 m/s) at the end, every step converged.",
             [GROUND2, box2("box", 0, 1.1, 0.1, 0.1)]),
        [converged(), {"type": "max_penetration", "max": 1e-3},
         {"type": "rebound_height", "body": "box", "axis": 1, "rest": 0.1, "max": 1e-3},
         {"type": "final_speed", "body": "box", "max": 1e-6}])

    add(base("2d_collision_exchange", 2, 0.01, 0.5,
             "Two equal disks (r = 0.1 m) without gravity or friction, e = 1: the first moves at "
             "1 m/s into the second at rest (gap 5.05 cm). A central elastic collision of equal "
             "masses exchanges the velocities: expected final velocities (0, 0) and (1, 0) m/s "
             "within 1e-3 m/s, every step converged.",
             [{"name": "a", "position": [0, 0], "velocity": [1, 0],
               "shape": {"type": "disk", "radius": 0.1}},
              {"name": "b", "position": [0.2505, 0], "shape": {"type": "disk", "radius": 0.1}}],
             gravity=[0, 0], materials={"default": {"friction": 0, "restitution": 1}}),
        [converged(),
         {"type": "final_velocity", "body": "a", "expected": [0, 0], "abs_tol": 1e-3},
         {"type": "final_velocity", "body": "b", "expected": [1, 0], "abs_tol": 1e-3}])


# ---------------------------------------------------------------- 3D stacks

def stacks_3d():
    add(base("3d_two_cubes", 3, 0.01, 2,
             "Two aligned 1 m cubes (density 1000, mu = 0.5) stacked on the ground: static "
             "equilibrium under normal forces. Expected max displacement < 1 mm over 2 s, every "
             "step converged.",
             [GROUND3, box3("box0", 0, 0, 0.5), box3("box1", 0, 0, 1.5)], interval_steps=10),
        [converged(), still()])

    add(base("3d_tower20", 3, 0.01, 10,
             "A tower of 20 aligned unit cubes (density 1000, mu = 0.5) on the ground: static "
             "equilibrium. Expected max displacement < 1 mm over 10 s, every step converged "
             "(acceptance, default method).",
             [GROUND3] + [box3(f"box{k}", 0, 0, 0.5 + k) for k in range(20)], interval_steps=10),
        [converged(), still()], labels=["big"], max_wall_s=120)

    bodies, spacing = [GROUND3], 1.1
    for layer, n in enumerate([4, 3, 2, 1]):
        for i in range(n):
            for j in range(n):
                bodies.append(box3(f"b{layer}_{i}_{j}", (i - (n - 1) / 2) * spacing,
                                   (j - (n - 1) / 2) * spacing, 0.5 + layer))
    add(base("3d_pyramid30", 3, 0.01, 10,
             "A square pyramid of 30 unit cubes (layers 4x4, 3x3, 2x2, 1; 0.1 m gaps within a "
             "layer, each upper cube resting on four below; density 1000, mu = 0.5): static "
             "equilibrium. Expected max displacement < 1 mm over 10 s, every step converged "
             "(acceptance, default method).",
             bodies, interval_steps=10),
        [converged(), still()], labels=["big"], max_wall_s=120)

    shifts = [0.7 / (2 * k) for k in range(3, 0, -1)]
    pos = [(0.0, 0.0)]
    for s in shifts:
        pos.append((pos[-1][0] + s, pos[-1][1] + s))
    add(base("3d_offset_tower_stands", 3, 0.01, 2,
             "Four unit cubes each shifted diagonally (in x and in y) over the one below by 70 % "
             "of the harmonic limit (0.1167, 0.175, 0.35 m from the bottom up): the centre of "
             "mass above every interface lies inside its square support, so the stack stands. "
             "Expected max displacement < 1 mm over 2 s, every step converged.",
             [GROUND3] + [box3(f"box{k}", x, y, 0.5 + k) for k, (x, y) in enumerate(pos)]),
        [converged(), still()])

    add(base("3d_offset_tower_topples", 3, 0.01, 2,
             "Three unit cubes: the middle one shifted 0.1 m in x, the top one 0.6 m beyond it, "
             "so its centre of mass is 0.1 m beyond the supporting edge: it must tip and fall. "
             "Expected top cube displacement > 0.5 m within 2 s, lower cubes < 5 cm, every step "
             "converged.",
             [GROUND3, box3("box0", 0, 0, 0.5), box3("box1", 0.1, 0, 1.5),
              box3("top", 0.7, 0, 2.5)]),
        [converged(), {"type": "max_displacement", "bodies": ["top"], "min": 0.5},
         {"type": "max_displacement", "bodies": ["box0", "box1"], "max": 0.05}])

    mats = {"light": {"density": 1, "friction": 0.5}, "heavy": {"density": 1000, "friction": 0.5}}
    bodies = [GROUND3]
    for k in range(4):
        kind = "light" if k % 2 == 0 else "heavy"
        bodies.append(box3(f"{kind}{k}", 0, 0, 0.5 + k, material=kind))
    add(base("3d_heavy_on_light", 3, 0.01, 2,
             "Four unit cubes alternating light and heavy (1 kg and 1000 kg: mass ratio 1000), "
             "light at the bottom. Static equilibrium: expected max displacement < 1 mm over 2 s, "
             "penetration < 1 mm, every step converged.",
             bodies, materials=mats),
        [converged(), still(), {"type": "max_penetration", "max": 1e-3}])


# ---------------------------------------------------------------- 3D inclines

def incline_frame(theta, phi_world, yaw_body):
    """Normal n of a plane through the origin whose downhill direction points at azimuth
    phi_world, the in-plane downhill unit vector u, and the orientation of a box lying flat on it
    whose x axis makes the angle yaw_body with u (rotated about n)."""
    n = [math.sin(theta) * math.cos(phi_world), math.sin(theta) * math.sin(phi_world),
         math.cos(theta)]
    u = [math.cos(theta) * math.cos(phi_world), math.cos(theta) * math.sin(phi_world),
         -math.sin(theta)]
    w = cross(n, u)
    bx = [math.cos(yaw_body) * u[i] + math.sin(yaw_body) * w[i] for i in range(3)]
    by = cross(n, bx)
    rot = [[bx[i], by[i], n[i]] for i in range(3)]  # columns: body axes in the world
    return n, u, quat_from_matrix(rot)


def incline_3d():
    mu = 0.5
    for deg in (0, 10, 22.5, 30, 45):
        tag = str(deg).replace(".", "p")
        phi = math.radians(deg)
        for kind, tan in (("stick", mu - 0.02), ("slide", mu + 0.02)):
            th = math.atan(tan)
            # The slope's downhill direction lies at `deg` from the world x axis and from the
            # box's x axis alike (the box keeps its edges along the world's vertical planes), so
            # the angle is the same relative to the body and to the world.
            n, u, q = incline_frame(th, phi, -phi)
            hz = 0.05
            plane = {"name": "incline", "type": "static",
                     "shape": {"type": "halfspace", "normal": r6(n), "point": [0, 0, 0]}}
            box = {"name": "box", "position": r6([n[i] * hz for i in range(3)]),
                   "orientation": r6(q), "shape": {"type": "box", "half_extents": [0.1, 0.1, hz]}}
            geom = (f"A 0.2 x 0.2 x 0.1 m box lying on a 3D incline, mu = 0.5, the slope's downhill "
                    f"direction at {deg} deg from the box's x axis (and from the world x axis), "
                    f"tan(theta) = mu {'-' if kind == 'stick' else '+'} 0.02 = {fmt(tan)} "
                    f"(theta = {fmt(math.degrees(th))} deg).")
            if kind == "stick":
                add(base(f"3d_incline_stick_{tag}", 3, 0.01, 2,
                         geom + " Coulomb friction is isotropic and the slope is below the "
                         "friction angle, so the box sticks whatever its yaw: expected |v| < 1e-6 "
                         "m/s for 2 s, every step converged (acceptance, default method).",
                         [plane, box], materials={"default": {"friction": mu}}),
                    [converged(), {"type": "max_speed", "bodies": ["box"], "max": 1e-6}])
            else:
                a = G * (math.sin(th) - mu * math.cos(th))
                add(base(f"3d_incline_slide_{tag}", 3, 0.01, 1,
                         geom + f" It slides straight downhill with a = g(sin(theta) - mu "
                         f"cos(theta)) = {fmt(a)} m/s^2 whatever its yaw: expected fitted "
                         "acceleration within 1 %, velocity within 1 deg of downhill, every step "
                         "converged (acceptance, default method).",
                         [plane, box], materials={"default": {"friction": mu}}),
                    [converged()] + slides("box", u, a))


# ---------------------------------------------------------------- 3D rolling, friction

def rolling_3d():
    th, phi, r, mu = math.radians(20), math.radians(30), 0.1, 0.5
    n, u, _ = incline_frame(th, phi, 0)
    a = 5.0 / 7.0 * G * math.sin(th)
    add(base("3d_sphere_rolls_down_incline", 3, 0.01, 1,
             f"A uniform sphere (r = 0.1 m) on a 20 deg incline whose downhill direction is at 30 "
             f"deg from the world x axis, mu = 0.5 >= (2/7) tan(theta) = "
             f"{fmt(2 / 7 * math.tan(th))}: it rolls without slipping straight downhill with a = "
             f"(5/7) g sin(theta) = {fmt(a)} m/s^2. Expected fitted acceleration within 1 %, "
             "direction within 1 deg of downhill, rolling (slip < 1e-3 m/s) at the end, every "
             "step converged.",
             [{"name": "incline", "type": "static",
               "shape": {"type": "halfspace", "normal": r6(n), "point": [0, 0, 0]}},
              {"name": "ball", "position": r6([n[i] * r for i in range(3)]),
               "shape": {"type": "sphere", "radius": r}}],
             materials={"default": {"friction": mu}}),
        [converged(),
         {"type": "acceleration", "body": "ball", "direction": r6(u), "expected": a,
          "rel_tol": 0.01, "window": [0.1, 1.0]},
         {"type": "direction", "body": "ball", "direction": r6(u), "max_deg": 1.0,
          "window": [0.1, 1.0]},
         {"type": "rolling_slip", "body": "ball", "radius": r, "normal": r6(n), "max": 1e-3}])

    v0, w0, r, mu = 2.0, -30.0, 0.1, 0.3
    vf = 5.0 / 7.0 * (v0 + 0.4 * r * w0)
    add(base("3d_sphere_backspin", 3, 0.01, 1,
             f"A uniform sphere (r = 0.1 m, mu = 0.3) launched along x at v0 = 2 m/s with "
             f"backspin omega_y = -30 rad/s. Angular momentum about the contact point is "
             f"conserved: it slides, then rolls at v = (5/7)(v0 + (2/5) r omega_y) = {fmt(vf)} m/s "
             f"from t = (v0 - v)/(mu g) = {fmt((v0 - vf) / (mu * G))} s. Expected final velocity "
             "within 1 % (and along x), rolling (slip < 1e-3 m/s) at the end, every step "
             "converged.",
             [GROUND3, {"name": "ball", "position": [0, 0, r], "velocity": [v0, 0, 0],
                        "angular_velocity": [0, w0, 0],
                        "shape": {"type": "sphere", "radius": r}}],
             materials={"default": {"friction": mu}}),
        [converged(),
         {"type": "final_velocity", "body": "ball", "expected": [vf, 0, 0], "rel_tol": 0.01},
         {"type": "rolling_slip", "body": "ball", "radius": r, "normal": [0, 0, 1], "max": 1e-3}])

    v0, mu, h = 2.0, 0.5, 0.001
    d = v0 * v0 / (2 * mu * G)
    add(base("3d_box_slides_to_stop", 3, h, 1,
             f"A 0.2 x 0.2 x 0.1 m box launched at 2 m/s along x on flat ground with mu = 0.5 "
             f"decelerates at mu g and stops after d = v0^2/(2 mu g) = {fmt(d)} m at t = "
             f"{fmt(v0 / (mu * G))} s (h = 1 ms). Expected distance within 1 %, at rest "
             "(|v| < 1e-6 m/s) at the end, every step converged.",
             [GROUND3, box3("box", 0, 0, 0.05, (0.1, 0.1, 0.05), velocity=[v0, 0, 0])],
             interval_steps=10, materials={"default": {"friction": mu}}),
        [converged(),
         {"type": "travel", "body": "box", "direction": [1, 0, 0], "expected": d,
          "rel_tol": 0.01},
         {"type": "final_speed", "body": "box", "max": 1e-6}])

    belt, mu = 1.0, 0.5
    t_star = belt / (mu * G)
    add(base("3d_conveyor", 3, 0.01, 0.6,
             f"A 0.2 x 0.2 x 0.1 m box set at rest on a kinematic conveyor (a half-space moving "
             f"at 1 m/s along x, mu = 0.5). Friction drags it at a = mu g = {fmt(mu * G)} m/s^2 "
             f"until it moves with the belt at t = v/(mu g) = {fmt(t_star)} s. Expected fitted "
             "acceleration within 1 % before t*, final velocity within 1e-3 m/s of the belt, every "
             "step converged.",
             [{"name": "belt", "type": "kinematic", "motion": {"velocity": [belt, 0, 0]},
               "shape": {"type": "halfspace", "normal": [0, 0, 1], "point": [0, 0, 0]}},
              box3("box", 0, 0, 0.05, (0.1, 0.1, 0.05))],
             materials={"default": {"friction": mu}}),
        [converged(),
         {"type": "acceleration", "body": "box", "direction": [1, 0, 0], "expected": mu * G,
          "rel_tol": 0.01, "window": [0.02, round(t_star - 0.03, 2)]},
         {"type": "final_velocity", "body": "box", "expected": [belt, 0, 0], "abs_tol": 1e-3}])

    # Ball on a turntable: rolling without slip, v' = (2/7) Omega z x v: circles at 2 Omega / 7.
    om, r, mu = 5.0, 0.1, 0.5
    r0, v0 = [0.5, 0.0], [0.0, 0.3]
    wv = [-om * r0[1] - v0[0], om * r0[0] - v0[1]]  # Omega z x r0 - v0
    wx, wy = wv[1] / r, -wv[0] / r
    k = 2 * om / 7
    add(base("3d_turntable_ball", 3, 0.001, 4.4,
             f"A uniform ball (r = 0.1 m) rolling without slip on a turntable (kinematic box "
             f"turning at Omega = 5 rad/s, mu = 0.5), started rolling at 0.3 m/s at 0.5 m from the "
             f"axis. Rolling without slipping gives dv/dt = (2/7) Omega z x v: the ball runs "
             f"round a circle of radius |v|/(2 Omega/7) = {fmt(0.3 / k)} m at the angular rate "
             f"2 Omega/7 = {fmt(k)} rad/s (period {fmt(2 * math.pi / k)} s) with constant speed. "
             "Expected orbit rate within 1 %, speed within 1 % of 0.3 m/s, every step converged "
             "(h = 1 ms: the table's surface velocity is taken at the start of a step, so the "
             "speed grows by about (2 Omega h/7)^2/2 a step, 0.45 % an orbit).",
             [{"name": "table", "type": "kinematic", "position": [0, 0, -0.1],
               "angular_velocity": [0, 0, om],
               "shape": {"type": "box", "half_extents": [2, 2, 0.1]}},
              {"name": "ball", "position": [r0[0], r0[1], r], "velocity": [v0[0], v0[1], 0],
               "angular_velocity": r6([wx, wy, 0]), "shape": {"type": "sphere", "radius": r}}],
             interval_steps=10, materials={"default": {"friction": mu}}),
        [converged(),
         {"type": "orbit_rate", "body": "ball", "expected": k, "rel_tol": 0.01},
         {"type": "speed_range", "body": "ball", "expected": 0.3, "rel_tol": 0.01}])

    th, mu, l, rad, v0 = math.atan(2.0), 1.5, 0.5, 0.01, 2.0
    add(base("3d_painleve_capsule", 3, 0.01, 0.5,
             "Painleve's rod in 3D: a capsule (radius 1 cm, 1 m between cap centres) at tan(theta) "
             "= 2 to the ground in the x-z plane, its lower end leading at 2 m/s, mu = 1.5 > 4/3: "
             "the rigid Coulomb problem is inconsistent and time stepping must resolve it by a "
             "tangential impact. Expected: no energy gain (kinetic + potential never above the "
             "initial value by more than 1e-6 of it), penetration < 1 mm, every step converged.",
             [GROUND3, {"name": "rod", "position": r6([0, 0, l * math.sin(th) + rad]),
                        "orientation": r6(quat_axis_angle([0, 1, 0], math.pi / 2 - th)),
                        "velocity": [-v0, 0, 0],
                        "shape": {"type": "capsule", "radius": rad, "length": 2 * l}}],
             materials={"default": {"friction": mu}}),
        [converged(), {"type": "energy_gain", "rel_max": 1e-6},
         {"type": "max_penetration", "max": 1e-3}])


# ---------------------------------------------------------------- 3D joints, impacts, gyroscopes

def misc_3d():
    e, r, z0 = 0.5, 0.1, 1.1
    add(base("3d_bounce_restitution", 3, 0.001, 1,
             "A sphere (r = 0.1 m) dropped from rest with its bottom 1 m above the ground, "
             "restitution e = 0.5 (h = 1 ms). It rebounds to e^2 = 0.25 of the drop height: "
             "expected rebound height ratio 0.25 +- 0.01, every step converged.",
             [GROUND3, {"name": "ball", "position": [0, 0, z0],
                        "shape": {"type": "sphere", "radius": r}}],
             materials={"default": {"restitution": e}}),
        [converged(), {"type": "rebound_ratio", "body": "ball", "axis": 2, "rest": r,
                       "expected": e * e, "abs_tol": 0.01}])

    add(base("3d_box_drop", 3, 0.01, 1,
             "A 0.2 x 0.2 x 0.1 m box dropped flat from rest with its bottom 1 m above the ground "
             "(e = 0, h = 0.01 s): it lands at 4.43 m/s, 4.4 cm a step. A perfectly plastic impact "
             "stops it at the ground: expected penetration < 1 mm throughout, no rebound (never "
             "more than 1 mm above its resting height after landing), at rest (|v| < 1e-6 m/s) at "
             "the end, every step converged.",
             [GROUND3, box3("box", 0, 0, 1.05, (0.1, 0.1, 0.05))]),
        [converged(), {"type": "max_penetration", "max": 1e-3},
         {"type": "rebound_height", "body": "box", "axis": 2, "rest": 0.05, "max": 1e-3},
         {"type": "final_speed", "body": "box", "max": 1e-6}])

    e = 0.5
    add(base("3d_collision_restitution", 3, 0.01, 0.5,
             "Two equal spheres (r = 0.1 m) without gravity or friction, e = 0.5: the first moves "
             "at 1 m/s into the second at rest (gap 5.05 cm). A central collision of equal masses "
             "with restitution e leaves them at v (1 - e)/2 = 0.25 and v (1 + e)/2 = 0.75 m/s "
             "(momentum conserved): expected final velocities within 1e-3 m/s, every step "
             "converged.",
             [{"name": "a", "position": [0, 0, 0], "velocity": [1, 0, 0],
               "shape": {"type": "sphere", "radius": 0.1}},
              {"name": "b", "position": [0.2505, 0, 0], "shape": {"type": "sphere", "radius": 0.1}}],
             gravity=[0, 0, 0], materials={"default": {"friction": 0, "restitution": e}}),
        [converged(),
         {"type": "final_velocity", "body": "a", "expected": [(1 - e) / 2, 0, 0], "abs_tol": 1e-3},
         {"type": "final_velocity", "body": "b", "expected": [(1 + e) / 2, 0, 0],
          "abs_tol": 1e-3}])

    L, rb, amp = 1.0, 0.05, 0.1
    t0 = 2 * math.pi * math.sqrt((L * L + 0.4 * rb * rb) / (G * L))
    t_amp = t0 * (1 + amp ** 2 / 16 + 11 * amp ** 4 / 3072)
    add(base("3d_spherical_pendulum_period", 3, 0.01, 6,
             f"A sphere (r = 5 cm) on a spherical joint 1 m above its centre, released at rest "
             f"{amp} rad from the vertical: a physical pendulum swinging in a plane with T0 = 2 pi "
             f"sqrt((L^2 + (2/5) r^2)/(g L)) = {fmt(t0, 6)} s, amplitude-corrected T = "
             f"{fmt(t_amp, 6)} s. Expected period (zero crossings of x) within 0.2 %, joint error "
             "< 1e-5 m (a velocity-level joint drifts by about L (omega h)^2 per step), every "
             "step converged.",
             [{"name": "bob", "position": r6([L * math.sin(amp), 0, -L * math.cos(amp)]),
               "shape": {"type": "sphere", "radius": rb}}],
             joints=[{"type": "spherical", "body_a": "bob", "body_b": "world",
                      "anchor_a": r6([-L * math.sin(amp), 0, L * math.cos(amp)]),
                      "anchor_b": [0, 0, 0]}]),
        [converged(),
         {"type": "period", "body": "bob", "quantity": "x", "expected": t_amp, "rel_tol": 0.002},
         {"type": "max_joint_error", "max": 1e-5}])

    # Heavy symmetric top on a spherical joint at its tip, started in steady precession.
    m, rr, i1, i3, th, w3 = 1.0, 0.1, 0.005, 0.008, math.radians(30), 100.0
    i1p = i1 + m * rr * rr
    c, s = math.cos(th), math.sin(th)
    disc = (i3 * w3) ** 2 - 4 * i1p * c * m * G * rr
    prec = (i3 * w3 - math.sqrt(disc)) / (2 * i1p * c)
    psid = w3 - prec * c
    q = quat_axis_angle([1, 0, 0], th)  # body z -> (0, -sin, cos)
    add(base("3d_top_precession", 3, 0.0002, 2,
             f"A heavy symmetric top (m = 1 kg, I1 = I2 = 0.005, I3 = 0.008 kg m^2 about its "
             f"centre of mass, which is 0.1 m from the tip) on a spherical joint at its tip, axis "
             f"30 deg from the vertical, spin omega3 = 100 rad/s, started in steady precession. "
             f"Steady precession: m g r = Omega (I3 omega3 - I1' Omega cos(theta)), I1' = I1 + m r^2, "
             f"slow root Omega = {fmt(prec, 5)} rad/s (gyroscopic limit m g r/(I3 omega3) = "
             f"{fmt(m * G * rr / (i3 * w3), 5)}). Expected mean precession rate within 1 %, tilt "
             "within 0.5 deg of 30 deg (the nutation of this start is 0.14 deg with h = 0.1 ms), "
             "joint error < 1e-5 m, every step converged. The step is first order: the tilt grows "
             "by 0.77 deg/s at h = 1 ms (0.1 rad of spin a step) and 0.14 deg/s at h = 0.2 ms, the "
             "step used here.",
             [{"name": "top", "position": r6([0, -rr * s, rr * c]), "orientation": r6(q),
               "velocity": r6([prec * rr * s, 0, 0]),
               "angular_velocity": r6([0, prec * s, prec * c + psid]),
               "mass": m, "inertia": [i1, i1, i3]}],
             joints=[{"type": "spherical", "body_a": "top", "body_b": "world",
                      "anchor_a": [0, 0, -rr], "anchor_b": [0, 0, 0]}], interval_steps=10),
        [converged(),
         {"type": "precession", "body": "top", "axis": [0, 0, 1], "expected": prec,
          "rel_tol": 0.01, "tilt_deg": 30, "max_tilt_error_deg": 0.5},
         {"type": "max_joint_error", "max": 1e-5}])


def main():
    stacks_2d()
    arch_2d()
    incline_2d()
    rolling_2d()
    painleve_2d()
    pendulum_2d()
    impacts_2d()
    stacks_3d()
    incline_3d()
    rolling_3d()
    misc_3d()
    os.makedirs(OUT_DIR, exist_ok=True)
    names = set()
    checks = {}
    for scene, entry in SCENES:
        name = scene["name"]
        assert name not in names, name
        names.add(name)
        with open(os.path.join(OUT_DIR, name + ".json"), "w") as f:
            json.dump(scene, f, indent=1)
            f.write("\n")
        checks[name] = entry
    with open(os.path.join(OUT_DIR, "checks.json"), "w") as f:
        f.write("{\n")
        items = sorted(checks.items())
        for i, (name, entry) in enumerate(items):
            f.write(f" {json.dumps(name)}: {json.dumps(entry)}{',' if i + 1 < len(items) else ''}\n")
        f.write("}\n")
    print(f"{len(SCENES)} scenes written to {os.path.normpath(OUT_DIR)}", file=sys.stderr)


if __name__ == "__main__":
    main()
