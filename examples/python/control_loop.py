"""A closed control loop in Python: a ball resting on the floor is lifted to a target point in the
air and held there by a force computed each step from its measured position and velocity (gravity
compensation plus a PD law, with a force limit), applied through the scene's applied force element
(World.set_applied_force). It must arrive within 1 mm of the target and come to rest there.

    PYTHONPATH=build/python /usr/bin/python3 examples/python/control_loop.py
"""
import numpy as np

import clatter

scene = clatter.Scene(dimension=3, time_step=0.005, duration=10.0, name="control_loop")
scene.body(type="static", shape=clatter.halfspace(normal=[0, 0, 1]), name="floor")
scene.body(shape=clatter.sphere(0.1), position=[0, 0, 0.1], name="ball")
scene.force("applied", body="ball", name="lift")
world = scene.build()

ball = world.body_index("ball")
mass = world.body_info(ball)["mass"]
g = np.array([0.0, 0.0, -9.81])
target = np.array([0.5, -0.3, 1.0])
# ω = √40 ≈ 6.3 rad/s, damping ratio 12 / (2 ω) ≈ 0.95; at most 3 g of lift
kp, kd, limit = 40.0 * mass, 12.0 * mass, 3.0 * 9.81 * mass
position, velocity = world.position, world.velocity    # views: they follow the world
for step in range(1000):
    force = -mass * g + kp * (target - position[ball]) - kd * velocity[ball]
    norm = np.linalg.norm(force)
    if norm > limit:
        force *= limit / norm
    world.set_applied_force("lift", force)
    world.step()

miss = np.linalg.norm(target - position[ball])
speed = np.linalg.norm(velocity[ball])
print(f"t = {world.time:.2f} s: ball at {position[ball].round(6)}, {miss * 1000:.2e} mm from the target, "
      f"speed {speed:.2e} m/s")
if not (miss < 1e-3 and speed < 1e-3):
    raise SystemExit("the controller did not bring the ball to the target")
