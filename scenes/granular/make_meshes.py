#!/usr/bin/python3
"""Writes the containers of scenes/granular/ as OBJ meshes (one-sided triangles, the solid behind
each triangle, counter-clockwise seen from the front: docs/shapes.md "Meshes"):

  meshes/drum.obj              a closed drum, radius 0.1 m, length 0.05 m along y, centred at the
                               origin, wall and end caps facing inwards, 96 segments
  meshes/hopper_plate_DNN.obj  the flat bottom of a square bin (0.1 m × 0.1 m at z = 0, facing up)
                               with a circular orifice of diameter NN mm at its centre

Run it from anywhere: python3 scenes/granular/make_meshes.py (the files are committed)."""
import math
import os

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "meshes")


def write(name, vertices, triangles, comment):
    path = os.path.join(HERE, name)
    with open(path + ".tmp", "w") as f:
        f.write("# %s\n# written by scenes/granular/make_meshes.py\n" % comment)
        for v in vertices:
            f.write("v %.17g %.17g %.17g\n" % tuple(v))
        for t in triangles:
            f.write("f %d %d %d\n" % (t[0] + 1, t[1] + 1, t[2] + 1))
    os.replace(path + ".tmp", path)


def drum(radius=0.1, length=0.05, segments=96):
    # rings at y = -L/2 (index 0..n-1) and y = +L/2 (n..2n-1), cap centres 2n and 2n+1
    n = segments
    v = []
    for side in (-1, 1):
        for k in range(n):
            a = 2 * math.pi * k / n
            v.append((radius * math.cos(a), side * length / 2, radius * math.sin(a)))
    v.append((0, -length / 2, 0))
    v.append((0, length / 2, 0))
    t = []
    for k in range(n):
        a0, a1, b0, b1 = k, (k + 1) % n, n + k, n + (k + 1) % n
        # wall, front towards the axis: with the angle running from x to z about -y, (a0, b0, a1)
        # turns counter-clockwise seen from inside
        t.append((a0, a1, b0))
        t.append((a1, b1, b0))
        t.append((2 * n, a1, a0))      # cap at y = -L/2, front towards +y
        t.append((2 * n + 1, b0, b1))  # cap at y = +L/2, front towards -y
    return v, t


def plate(diameter, half=0.05, segments=64):
    # rays from the centre at angles 2πk/segments (segments a multiple of 8: the square's corners
    # lie on rays); each ray gives a point on the orifice's circle and one on the square's boundary
    assert segments % 8 == 0
    v = []
    for k in range(segments):
        a = 2 * math.pi * k / segments + math.pi / 4
        c, s = math.cos(a), math.sin(a)
        v.append((diameter / 2 * c, diameter / 2 * s, 0.0))
        scale = half / max(abs(c), abs(s))
        v.append((scale * c, scale * s, 0.0))
    t = []
    for k in range(segments):
        i0, o0, i1, o1 = 2 * k, 2 * k + 1, 2 * ((k + 1) % segments), 2 * ((k + 1) % segments) + 1
        t.append((i0, o0, o1))  # counter-clockwise seen from +z: the front faces up
        t.append((i0, o1, i1))
    return v, t


def main():
    os.makedirs(HERE, exist_ok=True)
    v, t = drum()
    write("drum.obj", v, t, "closed drum, radius 0.1 m, length 0.05 m along y, facing inwards")
    for d in (20, 24, 27, 30, 36):
        v, t = plate(d / 1000)
        write("hopper_plate_D%d.obj" % d, v, t, "0.1 m square plate at z = 0 facing up, orifice %d mm" % d)


if __name__ == "__main__":
    main()
