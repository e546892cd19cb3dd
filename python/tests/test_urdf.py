"""Robots from URDF ([shapes], docs/shapes.md "URDF"): scenes/examples/urdf_arms.json places two copies
of scenes/examples/robots/arm3.urdf (a fixed base, continuous, revolute, prismatic and fixed joints,
primitives and a mesh collision). Checked against the file: each joint's anchor lies at the joint's
origin in the world for both bodies, its axis in the world is the file's axis turned by the joint
frame, masses and principal moments are the file's (an inertia tensor with products), limits are the
file's; the copy with velocity motors holds its pose, the passive one folds within its limits; bad
files are refused with the JSON path."""
import math

import numpy as np
import pytest

import clatter
from conftest import SOURCE

SCENE = str(SOURCE / "scenes" / "examples" / "urdf_arms.json")


def rot(q):
    w, x, y, z = q
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


def rz(a):
    return np.array([[math.cos(a), -math.sin(a), 0], [math.sin(a), math.cos(a), 0], [0, 0, 1]])


def world_point(w, body, local):
    s = w.body_state(body)
    return np.array(s["position"]) + rot(s["orientation"]) @ np.array(local)


def world_axis(w, body, local):
    return rot(w.body_state(body)["orientation"]) @ np.array(local)


def test_joints_masses_and_limits_match_the_file():
    w = clatter.World.from_scene(SCENE)
    names = w.body_names
    for prefix, y0 in (("limp", -0.5), ("held", 0.5)):
        base = np.array([0.0, y0, 0.0])
        elbow = base + np.array([0.4, 0, 0.2])
        wrist = elbow + rz(0.2) @ np.array([0.3, 0, 0])
        expected = {  # joint: (world origin, world axis)
            "yaw": (base + [0, 0, 0.1], np.array([0, 0, 1.0])),
            "shoulder": (base + [0, 0, 0.2], np.array([0, 1.0, 0])),
            "elbow": (elbow, rz(0.2) @ np.array([0, 1.0, 0])),
            "wrist": (wrist, rz(0.2) @ np.array([1.0, 0, 0])),
            "mount": (wrist + rz(0.2) @ np.array([0.04, 0, 0]), None),
        }
        for joint, (origin, axis) in expected.items():
            info = w.joint_info(w.joint_index(f"{prefix}/{joint}"))
            for end in ("a", "b"):
                p = world_point(w, info["body_" + end], info["anchor_" + end])
                assert np.allclose(p, origin, atol=1e-12), (prefix, joint, end, p, origin)
                if axis is not None:
                    assert np.allclose(world_axis(w, info["body_" + end], info["axis_" + end]), axis, atol=1e-12)
        shoulder = w.joint_info(w.joint_index(f"{prefix}/shoulder"))
        assert shoulder["limit"]["lower"] == -1.2 and shoulder["limit"]["upper"] == 0.6
        assert w.joint_info(w.joint_index(f"{prefix}/yaw"))["limit"] is None  # continuous
        wrist_info = w.joint_info(w.joint_index(f"{prefix}/wrist"))
        assert wrist_info["type"] == "prismatic" and wrist_info["limit"]["upper"] == 0.05
        assert w.joint_info(w.joint_index(f"{prefix}/mount"))["type"] == "fixed"
        # the forearm's tensor has products of inertia: its principal moments are the eigenvalues
        forearm = w.body_info(names.index(f"{prefix}/forearm"))
        tensor = np.array([[0.008, 0.001, 0.0005], [0.001, 0.007, 0.0002], [0.0005, 0.0002, 0.002]])
        assert forearm["mass"] == 1.0
        assert np.allclose(sorted(forearm["inertia"]), sorted(np.linalg.eigvalsh(tensor)), rtol=1e-12)
        # its centre of mass where the file puts it: the link frame (at the elbow, turned 0.2) + (0.15, 0, 0)
        com = np.array(w.body_state(names.index(f"{prefix}/forearm"))["position"])
        assert np.allclose(com, elbow + rz(0.2) @ np.array([0.15, 0, 0]), atol=1e-12)
        assert w.body_info(names.index(f"{prefix}/base"))["type"] == "static"
    assert len([n for n in names if n.endswith("/claw")]) == 2


def test_motors_hold_and_limits_hold():
    w = clatter.World.from_scene(SCENE)
    w.step(1000)
    for joint in ("yaw", "shoulder", "elbow", "wrist"):
        assert abs(w.joint_state(w.joint_index(f"held/{joint}"))["position"]) < 1e-3
    shoulder = w.joint_state(w.joint_index("limp/shoulder"))["position"]
    elbow = w.joint_state(w.joint_index("limp/elbow"))["position"]
    assert shoulder > 0.2  # it folded down
    assert -1.2 - 1e-3 <= shoulder <= 0.6 + 1e-3 and -2.0 - 1e-3 <= elbow <= 0.1 + 1e-3


def test_bad_urdf(tmp_path):
    def scene(entry, dimension=3):
        sc = {"dimension": dimension, "time_step": 0.01, "duration": 0.1, "bodies": [], "urdf": [entry]}
        if dimension == 2:
            sc["bodies"] = []
        return sc
    import json
    (tmp_path / "bad_type.urdf").write_text(
        '<robot name="r"><link name="a"/><link name="b"><inertial><mass value="1"/>'
        '<inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial></link>'
        '<joint name="j" type="planar"><parent link="a"/><child link="b"/></joint></robot>')
    (tmp_path / "broken.urdf").write_text("<robot name='r'><link name='a'>")
    cases = [
        ({"file": "missing.urdf"}, r"urdf\[0\]\.file: .*missing\.urdf: cannot open the URDF file"),
        ({"file": "bad_type.urdf"}, r"urdf\[0\]: .*bad_type\.urdf: joint j: type planar is not supported"),
        ({"file": "broken.urdf"}, r"urdf\[0\]\.file: .*broken\.urdf: not valid XML"),
        ({"file": "bad_type.urdf", "motors": "torque"}, r"urdf\[0\]\.motors: must be \"none\" or \"velocity\""),
    ]
    for entry, message in cases:
        path = tmp_path / "scene.json"
        path.write_text(json.dumps(scene(entry)))
        with pytest.raises(clatter.SceneError, match=message):
            clatter.World.from_scene(str(path))
    path = tmp_path / "scene2d.json"
    path.write_text(json.dumps(scene({"file": "bad_type.urdf"}, dimension=2)))
    with pytest.raises(clatter.SceneError, match=r"urdf: URDF models need a 3D scene"):
        clatter.World.from_scene(str(path))
