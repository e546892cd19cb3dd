"""The examples in examples/python run and reach what they check (each exits non-zero otherwise)."""
import os
import subprocess
import sys

import pathlib

import pytest

import clatter
from conftest import SOURCE

EXAMPLES = sorted((SOURCE / "examples" / "python").glob("*.py"))


def test_there_are_examples():
    names = {p.name for p in EXAMPLES}
    assert {"pile_energy.py", "control_loop.py", "lcp_numpy.py"} <= names


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.stem)
def test_example_runs(tmp_path, example):
    env = dict(os.environ)
    env["MPLBACKEND"] = "Agg"
    # the package under test, wherever the examples run from
    package_root = str(pathlib.Path(clatter.__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join([package_root] + [p for p in [env.get("PYTHONPATH")] if p])
    args = [sys.executable, str(example)]
    if example.name == "pile_energy.py":
        args += ["-o", str(tmp_path / "energy.png")]
    p = subprocess.run(args, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stdout + p.stderr
    if example.name == "pile_energy.py":
        assert (tmp_path / "energy.png").stat().st_size > 1000
