"""The Python package and `clatter run` give the same bits and the same messages: state hashes and
run files of the same scene, and the scene reader's errors for every bad scene of the CLI's tests
(tests/cli/bad_scenes)."""
import os
import pathlib
import subprocess

import numpy as np
import pytest

import clatter
from conftest import run_cli, cli_hash, SOURCE

BAD = SOURCE / "tests" / "cli" / "bad_scenes"

# datasets that must be bit-identical between two runs of the same scene (tests/cli/cli_lib.sh
# same_data): all but the wall-clock diagnostics columns
DATASETS = ["trajectory/step", "trajectory/time", "trajectory/position", "trajectory/orientation",
            "trajectory/angle", "trajectory/velocity", "trajectory/angular_velocity", "scene", "bodies/mass",
            "bodies/inertia", "shapes/type", "contacts/first", "contacts/count", "contacts/point",
            "contacts/body_a", "contacts/body_b", "contacts/normal", "contacts/distance",
            "contacts/normal_force", "contacts/force", "contacts/touching"]
COLUMNS = ["step", "t", "bodies", "contacts", "joints", "lcp_size", "iterations", "residual", "solver_status",
           "infeasibility", "penetration", "joint_error", "kinetic_energy", "potential_energy", "constraints",
           "relcp_iterations", "max_overlap", "touching_contacts"]


def same_files(a, b):
    import h5py
    with h5py.File(a, "r") as fa, h5py.File(b, "r") as fb:
        for name in DATASETS + ["diagnostics/" + c for c in COLUMNS]:
            assert (name in fa) == (name in fb), name
            if name in fa:
                x, y = fa[name][()], fb[name][()]
                if isinstance(x, np.ndarray) and x.dtype.kind == "f":
                    assert np.array_equal(x, y, equal_nan=True), name
                else:
                    assert np.array_equal(np.asarray(x), np.asarray(y)), name
        for key in ("status", "state_hash", "state_hash_step", "total_steps", "time_step"):
            assert fa.attrs[key] == fb.attrs[key], key


@pytest.mark.parametrize("scene,steps,extra", [
    ("examples/box_stack10.json", 200, {}),
    ("papers/chain6.json", 300, {"method.scheme": "post"}),
    ("papers/pile.json", 40, {}),
    ("examples/pendulum2d.json", 500, {}),
    ("papers/ellipsoids2.json", 50, {}),
])
def test_state_hash_equals_the_tool(tmp_path, scenes, scene, steps, extra):
    world = clatter.World.from_scene(scenes / scene, set=extra)
    world.step(steps)
    args = []
    for k, v in extra.items():
        args += ["--set", f"{k}={v}"]
    run_cli("run", scenes / scene, "-o", tmp_path / "cli.h5", "--max-steps", steps, "--quiet",
            "--set", "output.trajectory=false", *args)
    assert world.state_hash() == cli_hash(tmp_path / "cli.h5")


@pytest.mark.parametrize("scene", ["examples/box_stack10.json", "papers/chain6.json", "examples/tumbling_box.json"])
def test_run_file_equals_the_tool(tmp_path, scenes, scene):
    world = clatter.World.from_scene(scenes / scene, set={"duration": 1.0})
    result = world.run(output=tmp_path / "py.h5")
    assert result["status"] == "complete"
    run_cli("run", scenes / scene, "-o", tmp_path / "cli.h5", "--quiet", "--set", "duration=1.0")
    same_files(tmp_path / "py.h5", tmp_path / "cli.h5")
    # and the CSV beside it, but for the wall-clock columns and work_bytes (allocation sizes, not state)
    py = [line.split(",") for line in open(tmp_path / "py.csv")]
    cli = [line.split(",") for line in open(tmp_path / "cli.csv")]
    assert py[0] == cli[0]
    walls = [k for k, name in enumerate(cli[0]) if name.startswith("wall") or name.strip() == "work_bytes"]
    assert [[v for k, v in enumerate(r) if k not in walls] for r in py] == \
           [[v for k, v in enumerate(r) if k not in walls] for r in cli]


def test_colony_run_equals_the_tool(tmp_path, scenes):
    world = clatter.World.from_scene(scenes / "papers" / "colony.json", set={"colony.generations": 5})
    result = world.run(output=tmp_path / "py.h5")
    assert result["status"] == "complete" and world.cell_count == 32
    run_cli("run", scenes / "papers" / "colony.json", "-o", tmp_path / "cli.h5", "--quiet",
            "--set", "colony.generations=5")
    same_files(tmp_path / "py.h5", tmp_path / "cli.h5")


def bad_cases():
    for scene in sorted(BAD.glob("*.json")):
        args = scene.with_suffix(".args")
        lines = args.read_text().splitlines() if args.exists() else []
        yield pytest.param(scene.name, lines, scene.with_suffix(".expected").read_text().rstrip("\n"),
                           id=scene.stem)


@pytest.mark.parametrize("name,args,expected", list(bad_cases()))
def test_scene_errors_carry_the_tools_message(monkeypatch, name, args, expected):
    monkeypatch.chdir(BAD)
    sets = [args[i + 1] for i in range(0, len(args), 2) if args[i] == "--set"]
    params = [args[i + 1] for i in range(0, len(args), 2) if args[i] == "--param"]
    with pytest.raises(clatter.SceneError) as info:
        clatter.World.from_scene(name, set=sets, param=params)
    message = str(info.value)
    if expected.endswith("..."):
        assert message.startswith(expected[:-3])
    else:
        assert message == expected
    err = info.value
    assert err.file == name or err.file.startswith(name.split(".json")[0])
    assert err.reason and err.reason in message


def test_scene_error_parts(tmp_path):
    scene = tmp_path / "s.json"
    scene.write_text('{"dimension": 3, "time_step": 0.01, "duration": 1, '
                     '"bodies": [{"shape": {"type": "sphere", "radius": -1}}]}')
    with pytest.raises(clatter.SceneError) as info:
        clatter.World.from_scene(scene)
    e = info.value
    assert e.file == str(scene) and e.path == "bodies[0].shape.radius"
    assert e.reason.startswith("must be > 0")
    assert isinstance(e, ValueError) and e.line is None
    _, _, err = run_cli("run", scene, "-o", tmp_path / "x.h5", check=False)
    assert err.strip() == str(e)


def test_malformed_json_gives_line_and_column(tmp_path):
    scene = tmp_path / "j.json"
    scene.write_text('{"dimension": 3,\n  "time_step": }')
    with pytest.raises(clatter.SceneError) as info:
        clatter.World.from_scene(scene)
    assert info.value.line == 2 and info.value.column is not None
    assert "invalid JSON" in info.value.reason


def test_missing_file(tmp_path):
    with pytest.raises(clatter.SceneError, match="cannot open: No such file or directory"):
        clatter.World.from_scene(tmp_path / "none.json")
