"""Fixtures of the Python package's tests (run by ctest python/test_pytest with PYTHONPATH at the
build's python/ folder, or by hand: PYTHONPATH=build/python /usr/bin/python3 -m pytest python/tests)."""
import os
import pathlib
import subprocess

import pytest

SOURCE = pathlib.Path(os.environ.get("CLATTER_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))
SCENES = SOURCE / "scenes"
SHARED = pathlib.Path(os.environ.get("CLATTER_SHARED_DIR", SOURCE.parent / "shared"))
BIN = pathlib.Path(os.environ.get("CLATTER_BIN", SOURCE / "build" / "clatter"))


@pytest.fixture
def source():
    return SOURCE


@pytest.fixture
def scenes():
    return SCENES


@pytest.fixture
def shared():
    return SHARED


@pytest.fixture
def clatter_bin():
    if not BIN.exists():
        pytest.fail(f"the clatter tool is not built at {BIN} (set CLATTER_BIN)")
    return BIN


def run_cli(*args, check=True, cwd=None):
    """`clatter ARGS...`: (returncode, stdout, stderr)."""
    p = subprocess.run([str(BIN), *map(str, args)], capture_output=True, text=True, cwd=cwd)
    if check and p.returncode != 0:
        raise AssertionError(f"clatter {' '.join(map(str, args))} failed ({p.returncode}): {p.stderr}")
    return p.returncode, p.stdout, p.stderr


def cli_hash(path):
    """The state hash `clatter info` reads from a run file, as an int."""
    import json
    _, out, _ = run_cli("info", "--json", path)
    return int(json.loads(out)["state_hash"], 16)


def diverging_arm():
    """A two-link arm held by explicit rotational dampers at h = 0.2 s (damping 50 N m s/rad, links
    of 1 kg and 1 m: far past the explicit limit, 004 §3.2): it diverges at step 2
    (tests/cli/test_diverged.sh)."""
    link = {"mass": 1, "inertia": 0.0833, "shape": {"type": "box", "half_extents": [0.5, 0.05]}}
    return {"name": "arm", "dimension": 2, "time_step": 0.2, "duration": 10,
            "bodies": [dict(link, name="upper", position=[0.5, 0]), dict(link, name="fore", position=[1.5, 0])],
            "joints": [{"type": "revolute", "body_a": "upper", "anchor_a": [-0.5, 0]},
                       {"type": "revolute", "name": "elbow", "body_a": "upper", "body_b": "fore",
                        "anchor_a": [0.5, 0], "anchor_b": [-0.5, 0]}],
            "forces": [{"type": "rotational-spring-damper", "body_a": "upper", "damping": 50},
                       {"type": "rotational-spring-damper", "body_a": "upper", "body_b": "fore", "damping": 50}]}
