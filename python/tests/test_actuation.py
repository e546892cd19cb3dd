"""The [actuation] example scenes (docs/actuation.md): the gripper holds its box exactly when its
fingers' friction can carry the weight, and the arm tracks keyframed angles within its limits at
h = 0.01 and 0.05."""
import numpy as np
import pytest

import clatter
from conftest import SOURCE

GRIPPER = str(SOURCE / "scenes" / "examples" / "gripper.json")
ARM = str(SOURCE / "scenes" / "examples" / "arm.json")


def gripper_slip(squeeze):
    """How far the box moves relative to the palm over the 5 s lift (t = 2 s to 7 s)."""
    w = clatter.World.from_scene(GRIPPER, param=[f"squeeze={squeeze}"])
    w.step(200)
    before = w.position[1][2] - w.position[2][2]
    w.step(500)
    return abs(w.position[1][2] - w.position[2][2] - before)


def test_gripper_threshold():
    mass, g, mu = 8.0, 9.81, 0.5
    lift_acceleration = 6 * 0.3 / 5.0**2  # the monotone cubic from rest to rest: 0.3 m in 5 s
    analytic = mass * (g + lift_acceleration) / (2 * mu)  # two fingers, each mu * squeeze
    assert gripper_slip(120.0) < 1e-3
    assert gripper_slip(1.02 * analytic) < 1e-3
    assert gripper_slip(0.98 * mass * g / (2 * mu)) > 0.1  # it falls out even before the lift accelerates
    lo, hi = 0.9 * analytic, 1.1 * analytic
    for _ in range(12):
        mid = 0.5 * (lo + hi)
        if gripper_slip(mid) < 1e-3:
            hi = mid
        else:
            lo = mid
    threshold = 0.5 * (lo + hi)
    print(f"gripper: holds above {threshold:.3f} N, analytic {analytic:.3f} N "
          f"(at rest {mass * g / (2 * mu):.3f} N)")
    assert abs(threshold / analytic - 1) < 0.02


@pytest.mark.parametrize("h", [0.01, 0.05])
def test_arm_tracks_within_limits(h):
    w = clatter.World.from_scene(ARM, set=[f"time_step={h}"])
    joints = w.scene["joints"]
    keys = [np.array(j["motor"]["target_position"]["keyframes"]) for j in joints]
    limits = [(j["limit"]["lower"], j["limit"]["upper"]) for j in joints]
    violation, error, at_limit = 0.0, np.zeros(3), [False] * 3
    for _ in range(int(round(4.0 / h))):
        w.step()
        assert w.diagnostics()["solver_status"] == "solved"
        for j in range(3):
            s = w.joint_state(j)
            lo, hi = limits[j]
            violation = max(violation, lo - s["position"], s["position"] - hi)
            target = np.interp(w.time, keys[j][:, 0], keys[j][:, 1])
            error[j] = max(error[j], abs(s["position"] - np.clip(target, lo, hi)))
            at_limit[j] |= s["limit_active"] != 0
    print(f"arm, h = {h}: largest limit violation {violation:.2e} rad, servo error (against the target "
          f"clamped to the limits) {np.round(error, 4)} rad, joint error {w.diagnostics()['joint_error']:.2e}")
    assert violation <= 1e-5
    # the servo lags a target moving at |rate| <= 1 rad/s by about damping * rate / stiffness = 0.04 rad
    assert error.max() <= 0.05
    assert at_limit[1] and at_limit[2]  # the shoulder and the elbow were driven into their limits
