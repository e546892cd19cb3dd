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
