"""clatter.World: building, stepping, the state arrays (views of the library's memory), writes,
reference counting, independence, threads, state save/load, applied forces (docs/python.md)."""
import gc
import threading

import numpy as np
import pytest

import clatter


def ball_on_floor(**method):
    scene = clatter.Scene(dimension=3, time_step=0.01, duration=1.0, method=method or None)
    scene.body(type="static", shape=clatter.halfspace(normal=[0, 0, 1]), name="floor")
    scene.body(position=[0, 0, 0.5], shape=clatter.sphere(0.1), name="ball")
    scene.force("applied", body="ball", name="push")
    return scene.build()


def test_default_world_matches_the_tool(tmp_path):
    from conftest import run_cli, cli_hash
    world = clatter.World.default()
    world.step(100)
    run_cli("run", "-o", tmp_path / "d.h5", "--max-steps", 100, "--quiet")
    assert world.state_hash() == cli_hash(tmp_path / "d.h5")


def test_properties(scenes):
    world = clatter.World.from_scene(scenes / "examples" / "box_stack10.json")
    assert world.dimension == 3
    assert world.body_count == 11
    assert world.time == 0.0 and world.step_count == 0
    assert world.time_step == 0.01
    assert world.scene_step_count == 1000
    assert world.body_names[0] == "ground"
    assert world.body_index("box0") == 1
    info = world.body_info(1)
    assert info["type"] == "dynamic" and info["mass"] == pytest.approx(1000.0)
    assert world.body_info(0)["mass"] == float("inf")
    assert world.scene["name"] == "box_stack10"
    assert "bodies=11" in repr(world).replace(" ", "") or "11 bodies" in repr(world)


def test_joint_and_force_info(scenes):
    """Joints and force elements as the step holds them: anchors in the principal frames, so that
    position + R(orientation) anchor is the world point (include/clatter/world.h)."""
    world = clatter.World.from_scene(scenes / "papers" / "chain6.json")
    assert world.gravity == (0.0, 0.0, -9.81)
    assert world.joint_count == 6
    pin = world.joint_info(0)
    assert pin["type"] == "spherical" and pin["name"] == "joint1"
    assert pin["body_a"] == 0 and pin["body_b"] == -1
    assert pin["anchor_a"] == pytest.approx((-0.05, 0.0, 0.0)) and pin["anchor_b"] == (0.0, 0.0, 0.0)
    for i in range(1, 6):
        j = world.joint_info(i)
        assert (j["body_a"], j["body_b"]) == (i, i - 1)
        a = world.position[j["body_a"]] + j["anchor_a"]  # the links are not turned at t = 0
        b = world.position[j["body_b"]] + j["anchor_b"]
        assert np.abs(a - b).max() < 1e-15
    with pytest.raises(IndexError):
        world.joint_info(6)
    with pytest.raises(clatter.Error):
        world.joint_state(0)  # spherical: no single coordinate
    world = ball_on_floor()
    world.set_applied_force("push", [1.0, 2.0, 3.0], [0.0, 0.0, 0.5])
    push = world.force_info(0)
    assert push["type"] == "applied" and push["name"] == "push" and push["body_a"] == 1
    assert push["force"] == (1.0, 2.0, 3.0) and push["torque"] == (0.0, 0.0, 0.5)
    with pytest.raises(IndexError):
        world.force_info(1)


def test_joint_state():
    """A pendulum's hinge angle is the rod's turn since creation (clt_joint_get_state)."""
    scene = clatter.Scene(dimension=2, time_step=0.01, duration=1.0)
    scene.body(position=[0.5, 0], shape=clatter.box([0.5, 0.05]), name="rod")
    scene.joint("revolute", "rod", anchor_a=[-0.5, 0], anchor_b=[0, 0])
    world = scene.build()
    world.step(30)
    state = world.joint_state(0)
    assert state["position"] == pytest.approx(-world.angle[0], abs=1e-15)  # the world turns against the rod
    assert state["rate"] == pytest.approx(-world.angular_velocity[0][0], abs=1e-15)
    assert world.angle[0] < -0.1  # it swung down


def test_limit_and_motor():
    """A lever lifted by a velocity motor into its upper limit, then driven by a servo and freed
    (docs/actuation.md): limit and motor from the scene, set_motor / set_limit from Python."""
    scene = clatter.Scene(dimension=3, time_step=0.01, duration=3.0, method={"scheme": "post"})
    scene.body(position=[0.5, 0, 0], shape=clatter.box([0.5, 0.05, 0.05]), name="bar")
    scene.joint("revolute", "bar", anchor_a=[-0.5, 0, 0], axis_a=[0, 1, 0], axis_b=[0, 1, 0], name="hinge",
                limit={"lower": -1.0, "upper": 0.5},
                motor={"mode": "velocity", "target_velocity": 2.0, "max_force": 10000.0})
    world = scene.build()
    info = world.joint_info("hinge" and 0)
    assert info["limit"] == {"lower": -1.0, "upper": 0.5, "restitution": 0.0, "swing": 0.0}
    assert info["motor"]["mode"] == "velocity" and info["motor"]["max_force"] == 10000.0
    world.step(50)
    s = world.joint_state(0)
    assert s["position"] == pytest.approx(0.5, abs=1e-9)
    assert s["limit_active"] == 1 and s["limit_impulse"] < 0.0  # the upper bound pushes down
    assert s["motor_impulse"] == pytest.approx(0.01 * 10000.0)  # saturated into the limit
    assert len(s["constraint_impulse"]) == 6
    world.set_motor("hinge", "position", target_position=0.2, stiffness=1e5, damping=1e3, max_force=1e4)
    world.step(100)
    mass = world.body_info(0)["mass"]
    sag = mass * 9.81 * 0.5 * np.cos(0.2) / 1e5  # gravity against the servo's k
    assert world.joint_state(0)["position"] == pytest.approx(0.2 - sag, abs=1e-6)
    world.set_motor("hinge", "off")
    world.set_limit("hinge")
    assert world.joint_info(0)["limit"] is None and world.joint_info(0)["motor"] is None
    world.step(20)
    assert world.joint_state(0)["rate"] < -0.5  # falls freely
    with pytest.raises(clatter.errors.InvalidArgumentError, match="must be below limit.upper"):
        world.set_limit("hinge", 1.0, 0.5)
    with pytest.raises(ValueError, match="mode must be"):
        world.set_motor(0, "torque")
    with pytest.raises(clatter.errors.InvalidArgumentError, match="max_force must be > 0"):
        world.set_motor(0, "velocity", target_velocity=1.0)


def test_remove_joint():
    """A two-link pendulum whose lower joint is removed: the lower link falls freely."""
    scene = clatter.Scene(dimension=3, time_step=0.01, duration=1.0)
    # links 0.4 m long with their pins 5 cm beyond their ends: released, they do not touch
    scene.body(position=[0.25, 0, 0], shape=clatter.box([0.2, 0.05, 0.05]), name="upper")
    scene.body(position=[0.75, 0, 0], shape=clatter.box([0.2, 0.05, 0.05]), name="lower")
    scene.joint("spherical", "upper", anchor_a=[-0.25, 0, 0], name="pin")
    scene.joint("spherical", "lower", "upper", anchor_a=[-0.25, 0, 0], anchor_b=[0.25, 0, 0], name="knee")
    world = scene.build()
    world.step(30)
    world.remove_joint("knee")
    assert world.joint_count == 2 and world.joint_index("pin") == 0
    with pytest.raises(clatter.errors.StaleHandleError):
        world.joint_info(1)
    with pytest.raises(clatter.errors.StaleHandleError):
        world.remove_joint(1)
    v0 = world.velocity[1].copy()
    world.step()
    assert world.velocity[1] - v0 == pytest.approx([0.0, 0.0, -9.81 * 0.01], abs=1e-12)
    assert world.diagnostics()["joints"] == 1


def test_remove_body(tmp_path):
    """A box on a table falls once the table is removed; the run file records NaN for it."""
    scene = clatter.Scene(dimension=3, time_step=0.01, duration=0.5)
    scene.body(type="static", shape=clatter.halfspace([0, 0, 1], [0, 0, 0]), name="floor")
    scene.body(type="static", position=[0, 0, 0.5], shape=clatter.box([0.5, 0.5, 0.05]), name="table")
    scene.body(position=[0, 0, 0.65], shape=clatter.box([0.1, 0.1, 0.1]), name="cup")
    world = scene.build()
    world.step(10)
    assert world.position[2][2] == pytest.approx(0.65, abs=1e-6)
    world.remove_body("table")
    with pytest.raises(clatter.errors.StaleHandleError):
        world.body_info(1)
    with pytest.raises(clatter.errors.StaleHandleError):
        world.remove_body(1)
    v0 = world.velocity[2].copy()
    world.step()
    assert world.velocity[2] - v0 == pytest.approx([0.0, 0.0, -9.81 * 0.01], abs=1e-12)
    path = tmp_path / "after.h5"
    world.run(duration=0.1, output=str(path))
    run = clatter.read_run(str(path))
    assert np.isnan(run["trajectory"]["position"][:, 1]).all()
    assert run["bodies"]["shape_count"][1] == 0


def test_remove_at_in_run_file(tmp_path):
    """A scene's remove_at releases a joint during a run; the run file's joint_state says from when,
    and a file made after the removal lists it as removed."""
    scene = clatter.Scene(dimension=2, time_step=0.01, duration=0.5)
    scene.body(position=[0.5, 0], shape=clatter.box([0.4, 0.05]), name="a")
    scene.body(position=[1.5, 0], shape=clatter.box([0.4, 0.05]), name="b")
    scene.joint("revolute", "a", anchor_a=[-0.5, 0])
    scene.joint("revolute", "b", "a", anchor_a=[-0.5, 0], anchor_b=[0.5, 0], name="knee", remove_at=0.3)
    world = scene.build()
    path = tmp_path / "release.h5"
    world.run(output=str(path))
    run = clatter.read_run(str(path))
    present = run["trajectory"]["joint_state"][:, 1, 4]
    assert list(present[:31]) == [1.0] * 31 and list(present[31:]) == [0.0] * (len(present) - 31)
    assert np.isnan(run["trajectory"]["joint_state"][-1, 1, 0])
    again = tmp_path / "after.h5"
    world.run(duration=0.1, output=str(again))
    links = clatter.read_run(str(again))["links"]["type"]
    assert [t.decode() if isinstance(t, bytes) else t for t in links] == ["revolute", "removed"]


def test_cone_limit():
    """A ball joint's cone from the scene and from set_limit (docs/actuation.md)."""
    scene = clatter.Scene(dimension=3, time_step=0.01, duration=1.0, method={"scheme": "post"})
    scene.body(position=[0, 0, -0.5], velocity=[3, 0, 0], angular_velocity=[0, 6, 0],
               shape=clatter.box([0.05, 0.05, 0.5]), name="rod")
    scene.joint("spherical", "rod", anchor_a=[0, 0, 0.5], name="ball", limit={"swing": 0.5})
    world = scene.build()
    assert world.joint_info(0)["limit"]["swing"] == 0.5 and world.joint_info(0)["limit"]["upper"] == np.pi
    largest = 0.0
    for _ in range(100):
        world.step()
        q = world.orientation[0]
        largest = max(largest, np.arccos(np.clip(1 - 2 * (q[1] ** 2 + q[2] ** 2), -1, 1)))
    assert 0.49 < largest <= 0.5 + 1e-9
    world.set_limit("ball", swing=0.2)
    world.step(100)
    q = world.orientation[0]
    assert np.arccos(np.clip(1 - 2 * (q[1] ** 2 + q[2] ** 2), -1, 1)) <= 0.2 + 1e-6


def test_motor_keyframes_in_scene():
    """A servo whose target is keyframed in the scene follows it in step() and run()."""
    scene = clatter.Scene(dimension=2, time_step=0.01, duration=1.0, gravity=[0, 0])
    scene.body(position=[0.5, 0], shape=clatter.box([0.5, 0.05]), name="rod")
    scene.joint("revolute", "rod", anchor_a=[-0.5, 0], name="pin",
                motor={"mode": "position", "stiffness": 1e6, "damping": 1e4, "max_force": 1e6,
                       "target_position": {"keyframes": [[0.0, 0.0], [0.5, 1.0], [1.0, 1.0]]}})
    world = scene.build()
    world.step(25)
    # on its way: the target is 0.5 at 0.25 s, and a servo without feed-forward lags by c θ̇*/k = 0.02
    assert world.joint_state(0)["position"] == pytest.approx(0.5 - 1e4 * 2.0 / 1e6, abs=1e-4)
    world.step(65)
    # θ is the world's turn relative to the rod: the rod turns by −θ; the target 1 rad is held from 0.5 s
    assert world.joint_state(0)["position"] == pytest.approx(1.0, abs=1e-4)
    assert world.angle[0] == pytest.approx(-1.0, abs=1e-4)


def test_collision_filter():
    """Shape categories and masks, and collide_connected (docs/scene-format.md "Collision filtering")."""
    scene = clatter.Scene(dimension=3, time_step=0.01, duration=1.0, gravity=[0, 0, 0])
    scene.body(position=[0, 0, 0], shape=clatter.sphere(0.1, category=2, mask=1), name="a")
    scene.body(position=[0.15, 0, 0], shape=clatter.sphere(0.1, category=2, mask=1), name="b")
    scene.body(position=[1, 0, 0], shape=clatter.sphere(0.1), name="c")
    scene.body(position=[1.15, 0, 0], shape=clatter.sphere(0.1), name="d")
    scene.joint("distance", "c", "d", collide_connected=True)
    world = scene.build()
    assert world.joint_info(0)["collide_connected"] is True
    world.step()
    pairs = {(int(c["body_a"]), int(c["body_b"])) for c in world.contacts()}
    assert pairs == {(2, 3)}  # a and b pass through each other; c and d, joined, still touch
    assert np.abs(world.position[:2] - [[0, 0, 0], [0.15, 0, 0]]).max() == 0.0


def test_apply_force_and_torque():
    """Loads for the next step only (clt_body_apply_force / _torque)."""
    scene = clatter.Scene(dimension=3, time_step=0.01, duration=1.0, gravity=[0, 0, 0])
    scene.body(position=[0, 0, 0], shape=clatter.sphere(0.1), name="ball")
    world = scene.build()
    m, inertia = world.body_info(0)["mass"], world.body_info(0)["inertia"][2]
    world.apply_force("ball", [0.0, 2.0, 0.0], point=[0.1, 0.0, 0.0])
    world.apply_torque(0, [0.0, 0.0, 0.5])
    world.step()
    assert world.velocity[0] == pytest.approx([0.0, 0.02 / m, 0.0], rel=1e-14, abs=1e-300)
    assert world.angular_velocity[0][2] == pytest.approx(0.01 * (0.2 + 0.5) / inertia, rel=1e-14)
    v = world.velocity[0].copy()
    world.step()  # spent
    assert np.array_equal(world.velocity[0], v)
    with pytest.raises(clatter.Error):
        world.apply_force(0, [float("nan"), 0.0, 0.0])
    with pytest.raises(IndexError):
        world.apply_torque(3, 1.0)


def test_step_advances_time():
    world = ball_on_floor()
    world.step()
    world.step(n=9)
    assert world.step_count == 10
    assert world.time == pytest.approx(0.1, abs=1e-15)
    world.step(0)
    assert world.step_count == 10
    with pytest.raises(ValueError):
        world.step(-1)


def test_free_fall_is_exact():
    # the ball falls freely until it nears the floor: v = -g t, z = z0 - g h² k(k+1)/2 (symplectic Euler)
    world = ball_on_floor()
    world.step(10)
    h, g = 0.01, 9.81
    assert world.velocity[1, 2] == pytest.approx(-g * 0.1, rel=1e-14)
    assert world.position[1, 2] == pytest.approx(0.5 - g * h * h * 10 * 11 / 2, rel=1e-14)


def test_views_change_with_the_world():
    world = ball_on_floor()
    pos = world.position
    vel = world.velocity
    z0 = pos[1, 2]
    world.step(5)
    assert pos[1, 2] < z0                     # the same memory, read after the step
    assert vel[1, 2] < 0
    assert not pos.flags.owndata               # a view, not a copy
    assert pos.base is not None
    assert np.shares_memory(world.position, pos)


def test_writes_through_views_take_effect():
    world = ball_on_floor()
    world.velocity[1] = [1.0, 0.0, 0.0]
    world.step()
    # one step of h = 0.01: x = v h, and gravity only acts on z
    assert world.position[1, 0] == pytest.approx(0.01, rel=1e-14)
    assert world.velocity[1, 0] == 1.0
    world.position[1, 2] = 3.0
    world.step()
    assert world.position[1, 2] == pytest.approx(3.0 - 2 * 9.81 * 0.01 * 0.01, rel=1e-12)


def test_attribute_assignment_sets_all_bodies():
    world = ball_on_floor()
    v = world.velocity.copy()
    v[1, 1] = 2.0
    world.velocity = v
    assert world.velocity[1, 1] == 2.0
    assert world.body_state(1)["velocity"][1] == 2.0


def test_invalid_write_is_refused_and_undone():
    world = ball_on_floor()
    world.position[1, 0] = np.nan
    with pytest.raises(clatter.InvalidArgumentError, match="every component must be finite"):
        world.step()
    assert world.position[1, 0] == 0.0        # undone
    world.step()                               # and the world goes on
    assert world.step_count == 1


def test_write_to_a_static_body_is_refused():
    world = ball_on_floor()
    world.position[0, 2] = 1.0
    with pytest.raises(clatter.InvalidArgumentError, match="only dynamic bodies"):
        world.diagnostics()
    assert world.position[0, 2] == 0.0


def test_written_quaternions_are_normalized():
    world = ball_on_floor()
    world.orientation[1] = [2.0, 0.0, 0.0, 0.0]
    world.step()
    assert world.orientation[1, 0] == pytest.approx(1.0)


def test_set_body_state_by_name():
    world = ball_on_floor()
    world.set_body_state("ball", position=[1, 2, 3], velocity=[0, 0, 1])
    assert list(world.position[1]) == [1, 2, 3]
    with pytest.raises(clatter.StaleHandleError):
        world.set_body_state("nobody", position=[0, 0, 0])


def test_view_outlives_deleted_world():
    world = ball_on_floor()
    pos = world.position
    world.step(3)
    expected = pos.copy()
    del world
    gc.collect()
    assert np.array_equal(pos, expected)      # the view keeps the world alive
    pos[1, 0] = 5.0                            # and writable memory


def test_world_is_freed_when_the_last_view_goes():
    import weakref
    world = ball_on_floor()
    pos = world.position
    ref = weakref.ref(world)
    del world
    gc.collect()
    assert ref() is not None
    del pos
    gc.collect()
    assert ref() is None


def test_two_worlds_are_independent():
    a = ball_on_floor()
    b = ball_on_floor()
    a.velocity[1] = [3.0, 0, 0]
    a.step(10)
    b.step(10)
    assert b.position[1, 0] == 0.0
    assert a.position[1, 0] == pytest.approx(0.3)
    c = ball_on_floor()
    c.step(10)
    assert c.state_hash() == b.state_hash() != a.state_hash()


def test_contacts_of_a_resting_ball():
    world = ball_on_floor()
    world.step(100)                            # landed and at rest
    c = world.contacts()
    assert c.dtype.names == ("body_a", "body_b", "point", "normal", "distance", "normal_impulse",
                             "friction_impulse", "impulse", "touching")
    assert len(c) == 1
    m = world.body_info(1)["mass"]
    # at rest the contact carries the weight: c_n = m g h
    assert c["normal_impulse"][0] == pytest.approx(m * 9.81 * 0.01, rel=1e-6)
    assert abs(abs(c["normal"][0][2]) - 1.0) < 1e-12
    assert np.allclose(c["friction_impulse"][0], 0.0, atol=1e-12)
    assert c["touching"][0]
    assert world.position[1, 2] == pytest.approx(0.1, abs=1e-6)


def test_diagnostics_dict():
    world = ball_on_floor()
    world.step(100)
    d = world.diagnostics()
    assert d["step"] == 100
    assert d["solver_status"] == "solved"
    assert d["contacts"] == 1
    assert d["penetration"] < 1e-6
    for key in ("iterations", "residual", "infeasibility", "kinetic_energy", "potential_energy", "wall_s",
                "work_bytes", "arena_bytes"):
        assert key in d
    # the contact's cone QP took its work vectors from the step arena, which the workspace holds
    assert 0 < d["arena_bytes"] <= d["work_bytes"]
    assert ball_on_floor().diagnostics()["arena_bytes"] == 0
    e = world.energies()
    assert e["kinetic_energy"] == pytest.approx(d["kinetic_energy"])
    assert len(e["linear_momentum"]) == 3


def test_save_and_load_state_continue_bit_for_bit():
    a = ball_on_floor()
    a.step(20)
    blob = a.save_state()
    a.step(30)
    b = ball_on_floor()
    b.load_state(blob)
    assert b.step_count == 20
    b.step(30)
    assert a.state_hash() == b.state_hash()


def test_load_state_refuses_a_damaged_blob():
    a = ball_on_floor()
    blob = bytearray(a.save_state())
    blob[40] ^= 1
    before = a.state_hash()
    with pytest.raises(clatter.FormatError):
        a.load_state(bytes(blob))
    assert a.state_hash() == before


def test_applied_force_from_python():
    world = ball_on_floor()
    world.set_applied_force("push", [2.0, 0.0, 0.0])
    world.step()
    m = world.body_info(1)["mass"]
    assert world.velocity[1, 0] == pytest.approx(2.0 * 0.01 / m, rel=1e-14)
    with pytest.raises(clatter.InvalidArgumentError, match="finite"):
        world.set_applied_force("push", [np.inf, 0, 0])
    with pytest.raises(clatter.StaleHandleError):
        world.set_applied_force("pull", [1, 0, 0])


def test_failed_step_leaves_the_world_as_it_was():
    from conftest import diverging_arm
    world = clatter.World.from_json(diverging_arm(), source="arm.json")
    world.step()
    before = [a.copy() for a in (world.position, world.angle, world.velocity, world.angular_velocity)]
    with pytest.raises(clatter.DivergedError, match="step 2: the simulation diverged"):
        world.step(5)
    # the bodies' states, time and step count are those before the failed step (world.h
    # clt_world_step; the solver's warm start is the failed step's, so state_hash differs)
    assert world.step_count == 1 and world.time == pytest.approx(0.2)
    after = (world.position, world.angle, world.velocity, world.angular_velocity)
    assert all(np.array_equal(a, b) for a, b in zip(before, after))


def test_steps_release_the_gil(scenes):
    # while one thread steps a pile, the main thread keeps running Python code
    world = clatter.World.from_scene(scenes / "papers" / "pile.json", param={"n": 1000})
    done = threading.Event()
    ticks = 0

    def stepper():
        world.step(30)
        done.set()

    t = threading.Thread(target=stepper)
    t.start()
    while not done.is_set():
        ticks += 1
        done.wait(0.001)
    t.join()
    assert world.step_count == 30
    assert ticks > 20


def test_concurrent_use_of_a_stepping_world_is_refused(scenes):
    world = clatter.World.from_scene(scenes / "papers" / "pile.json", param={"n": 1000})
    started = threading.Event()
    errors = []

    def stepper():
        started.set()
        world.step(20)

    t = threading.Thread(target=stepper)
    t.start()
    started.wait()
    while t.is_alive():
        try:
            world.state_hash()
        except RuntimeError as e:
            errors.append(str(e))
            break
    t.join()
    assert errors and "stepping in another thread" in errors[0]


def test_colony_world_grows(scenes):
    world = clatter.World.from_scene(scenes / "papers" / "colony.json", set={"colony.generations": 3})
    assert world.cell_count == 1 and world.colony_generations == 3
    while world.cell_count < 8:
        world.step()
    assert world.body_count >= 8
    pos = world.position
    assert not pos.flags.writeable             # a colony's arrays are copies
    with pytest.raises(ValueError, match="colony"):
        world.position = pos
