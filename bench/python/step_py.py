"""The Python side of bench/python/run: the same scene's world stepped one step at a time from a
Python loop, printing the CPU seconds of the steps and the final state hash like step_c.
Usage: step_py.py SCENE.json STEPS [name=value ...]"""
import sys
import time

import clatter

scene, steps = sys.argv[1], int(sys.argv[2])
world = clatter.World.from_scene(scene, param=sys.argv[3:])
step = world.step
start = time.process_time()
for _ in range(steps):
    step()
cpu = time.process_time() - start
print(f"cpu_s={cpu:.6f} steps={steps} hash={world.state_hash():016x}")
