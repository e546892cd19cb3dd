"""clatter.analyze (docs/analysis.md, docs/python.md "Measurements"): the tables of `clatter
analyze` as NumPy arrays, the same numbers bit for bit, on a column of spheres stepped to rest
(packing π/6 in its box, σ_zz the weight above per cell area, Z = 9/5); the frames in every form
the keyword takes; and the errors, which name the keyword."""
import csv
import io
import math

import numpy as np
import pytest

import clatter
from conftest import run_cli

R, M, G = 0.05, 1.0, 9.81


@pytest.fixture(scope="module")
def column(tmp_path_factory):
    scene = clatter.Scene(dimension=3, time_step=0.01, duration=1.0, name="column", output={"interval_steps": 10})
    scene.body(type="static", shape=clatter.halfspace(normal=[0, 0, 1]))
    for i in range(5):
        scene.body(shape=clatter.sphere(R), position=[0, 0, R + 2 * R * i], mass=M, inertia=[1e-3, 1e-3, 1e-3])
    path = tmp_path_factory.mktemp("analysis") / "column.h5"
    assert scene.build().run(output=path)["status"] == "complete"
    return path


def cli_table(*args):
    _, out, _ = run_cli("analyze", *args)
    rows = list(csv.reader(io.StringIO(out)))
    return {name: [row[c] for row in rows[1:]] for c, name in enumerate(rows[0])}


@pytest.mark.parametrize("what, options", [
    ("packing", ["--region", "-0.05,-0.05,0,0.05,0.05,0.5"]),
    ("coordination", ["--frames", "2:10:4"]),
    ("forces", []),
    ("stress", ["--region", "-0.05,-0.05,0.05,0.05,0.05,0.15"]),
    ("profile", ["--region", "-0.05,-0.05,0,0.05,0.05,0.5", "--bins", "5", "--axis", "z"]),
    ("flow", ["--plane", "0.2"]),
])
def test_the_cli_table_bit_for_bit(column, what, options):
    keywords = {"packing": dict(region=(-0.05, -0.05, 0, 0.05, 0.05, 0.5)),
                "coordination": dict(frames="2:10:4"),
                "forces": {},
                "stress": dict(region=[-0.05, -0.05, 0.05, 0.05, 0.05, 0.15]),
                "profile": dict(region=np.array([-0.05, -0.05, 0, 0.05, 0.05, 0.5]), bins=5, axis="z"),
                "flow": dict(plane=0.2)}[what]
    table = clatter.analyze(column, what, **keywords)
    expected = cli_table(column, "--what", what, *options)
    assert list(table) == list(expected)
    for name, values in table.items():
        assert len(values) == len(expected[name]) > 0, name
        if values.dtype == np.int64:
            assert values.tolist() == [int(v) for v in expected[name]], name
        else:
            assert values.dtype == np.float64
            assert np.array_equal(values, np.array([float(v) for v in expected[name]]), equal_nan=True), name


def test_numbers_of_the_column(column):
    p = clatter.analyze(column, "packing", region=(-R, -R, 0, R, R, 10 * R))
    assert p["packing_fraction"][0] == pytest.approx(math.pi / 6, abs=1e-12)
    assert p["frame"].tolist() == [10] and p["particles"].tolist() == [5]
    for i in range(1, 5):
        s = clatter.analyze(column, "stress", region=(-R, -R, 2 * R * i - R, R, R, 2 * R * i + R))
        assert s["sigma_zz"][0] == pytest.approx((5 - i) * M * G / (2 * R) ** 2, rel=1e-9)
        assert s["pressure"][0] == pytest.approx(s["sigma_zz"][0] / 3, rel=1e-9)
    c = clatter.analyze(column, "coordination")
    assert c["coordination"][0] == pytest.approx(1.8) and c["rattlers"][0] == 5
    assert math.isnan(c["mechanical_coordination"][0])
    assert clatter.analyze(column, "coordination", min_contacts=1)["mechanical_coordination"][0] == pytest.approx(1.8)
    f = clatter.analyze(column, "forces")
    assert f["normal_force"].sum() == pytest.approx(15 * M * G, rel=1e-9)
    assert sorted(np.round(np.abs(f["branch_z"]), 9).tolist()) == [R, 2 * R, 2 * R, 2 * R, 2 * R]


def test_frames_in_every_form(column):
    every = clatter.analyze(column, "coordination", frames="0:")
    assert every["frame"].tolist() == list(range(11))
    assert clatter.analyze(column, "coordination", frames=-2)["frame"].tolist() == [9]
    assert clatter.analyze(column, "coordination", frames=(1, 7, 3))["frame"].tolist() == [1, 4, 7]
    assert clatter.analyze(column, "coordination", frames=(8, -1))["frame"].tolist() == [8, 9, 10]
    assert clatter.analyze(column, "coordination", frames=slice(-3, None, 2))["frame"].tolist() == [8, 10]
    assert clatter.analyze(column, "flow", plane=0.0)["frame_a"].tolist() == list(range(10))
    with pytest.raises(ValueError, match="frames"):
        clatter.analyze(column, "coordination", frames=slice(0, 5))


def test_errors_name_the_keyword(column, tmp_path):
    with pytest.raises(clatter.InvalidArgumentError, match="^region: packing needs a region"):
        clatter.analyze(column, "packing")
    with pytest.raises(clatter.InvalidArgumentError, match="^region: a 3D run needs six numbers"):
        clatter.analyze(column, "stress", region=(0, 0, 1, 1))
    with pytest.raises(clatter.InvalidArgumentError, match="^plane:"):
        clatter.analyze(column, "flow")
    with pytest.raises(clatter.InvalidArgumentError, match="^frames: 20:30 is not a range within 0 … 10"):
        clatter.analyze(column, "coordination", frames="20:30")
    with pytest.raises(clatter.InvalidArgumentError, match="^bins:"):
        clatter.analyze(column, "repose")
    with pytest.raises(clatter.InvalidArgumentError, match="^what: unknown 'angle'"):
        clatter.analyze(column, "angle")
    with pytest.raises(ValueError, match="axis"):
        clatter.analyze(column, "profile", axis="w", region=(0, 0, 0, 1, 1, 1))
    (tmp_path / "x.h5").write_bytes(b"not hdf5")
    with pytest.raises(clatter.FormatError, match="not an HDF5 file"):
        clatter.analyze(tmp_path / "x.h5", "coordination")
    with pytest.raises(clatter.FileError, match="cannot open"):
        clatter.analyze(tmp_path / "missing.h5", "coordination")
