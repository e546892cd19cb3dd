"""clatter.Scene (the builder), World.run (the run file of `clatter run`), read_run, from_run, and
runs that end early: an exception, a divergence, an existing file."""
import json
import signal
import threading

import numpy as np
import pytest

import clatter
from conftest import run_cli, cli_hash, diverging_arm


def test_builder_equals_the_scene_file(scenes):
    # pendulum2d.json written with the builder gives the same world, bit for bit
    text = json.loads((scenes / "examples" / "pendulum2d.json").read_text())
    scene = clatter.Scene(dimension=2, time_step=text["time_step"], duration=text["duration"], name=text["name"])
    for key in ("gravity", "method", "materials", "output"):
        if key in text:
            scene.set(**{key: text[key]})
    for body in text["bodies"]:
        scene.body(**body)
    for joint in text.get("joints", []):
        joint = dict(joint)
        scene.joint(joint.pop("type"), joint.pop("body_a"), joint.pop("body_b", None), **joint)
    for force in text.get("forces", []):
        force = dict(force)
        scene.force(force.pop("type"), **force)
    a = scene.build()
    b = clatter.World.from_scene(scenes / "examples" / "pendulum2d.json")
    a.step(200)
    b.step(200)
    assert a.state_hash() == b.state_hash()


def test_builder_defaults_and_indices():
    scene = clatter.Scene(dimension=3, time_step=0.01)
    assert scene.material("steel", density=7800) == "steel"
    floor = scene.body(type="static", shape=clatter.halfspace([0, 0, 1]))
    grains = scene.body(shape=clatter.sphere(0.05, material="steel"), position=[0, 0, 1],
                        grid={"count": [2, 2, 3], "spacing": [0.2, 0.2, 0.2]})
    last = scene.body(shape=clatter.box([0.1, 0.1, 0.1]), position=[1, 1, 1])
    assert floor == 0 and grains == range(1, 13) and last == 13
    world = scene.build()
    assert world.body_count == 14
    m = world.body_info(1)["mass"]
    assert m == pytest.approx(7800 * 4 / 3 * np.pi * 0.05 ** 3)
    # the default density 1000 for the box
    assert world.body_info(13)["mass"] == pytest.approx(1000 * 0.2 ** 3)
    assert "steel" in world.scene["materials"]


def test_builder_packing():
    # a polydisperse packing: indices, sizes within the bounds, no overlaps, masses from the sizes
    scene = clatter.Scene(dimension=3, time_step=0.01)
    scene.material("glass", density=2500)
    floor = scene.body(type="static", shape=clatter.halfspace([0, 0, 1]))
    beads = scene.body(shape=clatter.sphere(1.0, material="glass"),
                       packing={"number": 300, "region": {"min": [-0.05, -0.05, 0], "max": [0.05, 0.05, 0.2]},
                                "radius": {"distribution": "uniform", "min": 0.003, "max": 0.005}, "seed": 2})
    assert floor == 0 and beads == range(1, 301)
    world = scene.build()
    assert world.body_count == 301
    x = world.position[1:]
    r = np.cbrt(np.array([world.body_info(i)["mass"] for i in beads]) / (2500 * 4 / 3 * np.pi))
    assert r.min() >= 0.003 * (1 - 1e-12) and r.max() <= 0.005 * (1 + 1e-12)
    gaps = np.linalg.norm(x[:, None, :] - x[None, :, :], axis=2) - r[:, None] - r[None, :]
    np.fill_diagonal(gaps, np.inf)
    assert gaps.min() >= -1e-12
    assert (x[:, 2] - r >= 0).all() and (x[:, 2] + r <= 0.2 + 1e-12).all()


def test_builder_errors_name_the_json_path():
    scene = clatter.Scene(dimension=3, name="bad")
    scene.body(shape=clatter.sphere(-1.0))
    with pytest.raises(clatter.SceneError) as info:
        scene.build()
    assert info.value.path == "bodies[0].shape.radius"
    assert info.value.file == "<scene bad>"
    scene = clatter.Scene(dimension=3)
    scene.body(shape=clatter.sphere(0.1), colour="red")
    with pytest.raises(clatter.SceneError, match="colour"):
        scene.build()


def test_builder_scene_runs_in_the_tool(tmp_path):
    scene = clatter.Scene(dimension=3, time_step=0.005, duration=0.5, name="drop")
    scene.body(type="static", shape=clatter.halfspace([0, 0, 1]))
    scene.body(shape=clatter.capsule(0.05, 0.2), position=[0, 0, 0.3], orientation={"axis": [1, 0, 0], "angle": 0.3})
    scene.save(tmp_path / "drop.json")
    run_cli("run", tmp_path / "drop.json", "-o", tmp_path / "drop.h5", "--quiet")
    world = scene.build()
    world.step(100)
    assert world.state_hash() == cli_hash(tmp_path / "drop.h5")


def small_world(duration=0.5):
    scene = clatter.Scene(dimension=3, time_step=0.01, duration=duration, name="small")
    scene.body(type="static", shape=clatter.halfspace([0, 0, 1]))
    scene.body(shape=clatter.box([0.1, 0.1, 0.1]), position=[0, 0, 0.3])
    return scene.build()


def test_run_writes_a_complete_file(tmp_path):
    world = small_world()
    result = world.run(output=tmp_path / "r.h5")
    assert result["status"] == "complete" and result["steps"] == 50
    assert result["csv"].endswith("r.csv")
    data = clatter.read_run(tmp_path / "r.h5")
    assert data.attrs["status"] == "complete"
    assert data.summary["steps"] == 50
    assert int(data.attrs["state_hash"], 16) == world.state_hash()
    assert data.trajectory["position"].shape == (51, 2, 3)
    assert np.array_equal(data.trajectory["position"][-1], world.position)
    assert len(data.diagnostics["kinetic_energy"]) == 51
    assert data.bodies["type"][0] == "static"
    assert data.scene["name"] == "small"


def test_run_for_a_duration_continues_the_world(tmp_path):
    world = small_world()
    world.step(10)
    result = world.run(duration=0.2, output=tmp_path / "part.h5")
    assert result["steps"] == 20 and world.step_count == 30
    data = clatter.read_run(tmp_path / "part.h5")
    assert data.summary["first_step"] == 10
    assert data.scene["duration"] == pytest.approx(0.3)


def test_run_refuses_an_existing_file(tmp_path):
    world = small_world()
    world.run(output=tmp_path / "r.h5")
    again = small_world()
    with pytest.raises(clatter.FileError):
        again.run(output=tmp_path / "r.h5")
    assert again.step_count == 0
    again.run(output=tmp_path / "r.h5", overwrite=True)
    assert again.state_hash() == world.state_hash()


def test_max_steps_interrupts_and_the_tool_resumes(tmp_path):
    world = small_world()
    result = world.run(output=tmp_path / "r.h5", max_steps=17, checkpoint_every=5)
    assert result["status"] == "interrupted" and world.step_count == 17
    run_cli("run", "--resume", tmp_path / "r.h5", "--quiet")
    straight = small_world()
    straight.step(50)
    assert cli_hash(tmp_path / "r.h5") == straight.state_hash()


def test_keyboard_interrupt_leaves_a_valid_resumable_run(tmp_path, scenes):
    world = clatter.World.from_scene(scenes / "papers" / "pile.json", param={"n": 1000},
                                     set={"output.trajectory": False})
    timer = threading.Timer(0.3, lambda: signal.raise_signal(signal.SIGINT))
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        world.run(output=tmp_path / "pile.h5")
    timer.cancel()
    steps = world.step_count
    assert 0 < steps < world.scene_step_count
    summary = clatter.read_run(tmp_path / "pile.h5").summary
    assert summary["status"] == "interrupted" and summary["checkpoint_step"] == steps
    assert int(summary["state_hash"], 16) == world.state_hash()
    # the world is whole: it steps on, and equals the run file's checkpoint
    again = clatter.World.from_run(tmp_path / "pile.h5")
    assert again.step_count == steps
    assert again.state_hash() == world.state_hash()
    world.step(3)
    again.step(3)
    assert again.state_hash() == world.state_hash()


def test_diverging_run_raises_and_says_so_in_the_file(tmp_path):
    world = clatter.World.from_json(diverging_arm(), source="arm.json")
    with pytest.raises(clatter.DivergedError, match="diverged"):
        world.run(output=tmp_path / "arm.h5")
    data = clatter.read_run(tmp_path / "arm.h5")
    assert data.attrs["status"] == "diverged"
    assert world.step_count == 1 == data.summary["steps"]


def test_run_arguments_are_checked(tmp_path):
    world = small_world()
    with pytest.raises(ValueError, match="checkpoint_every"):
        world.run(output=tmp_path / "r.h5", checkpoint_every=-1)
    with pytest.raises(ValueError, match="max_steps"):
        world.run(output=tmp_path / "r.h5", max_steps=-2)
    with pytest.raises(ValueError, match="duration"):
        world.run(output=tmp_path / "r.h5", duration=0.0)
    assert world.step_count == 0 and not (tmp_path / "r.h5").exists()


def test_read_run_refuses_other_files(tmp_path):
    (tmp_path / "x.h5").write_bytes(b"not hdf5")
    with pytest.raises(clatter.Error):
        clatter.read_run(tmp_path / "x.h5")


def test_from_run_without_checkpoint_is_the_initial_state(tmp_path):
    world = small_world()
    world.run(output=tmp_path / "r.h5")
    again = clatter.World.from_run(tmp_path / "r.h5")
    assert again.step_count == 0
    again.step(50)
    assert again.state_hash() == world.state_hash()
