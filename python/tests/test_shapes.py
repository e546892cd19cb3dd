"""Convex polyhedra and cylinders from Python ([shapes], docs/shapes.md): built from vertices, from
vertices and faces, and from a mesh file beside the scene; their mass from the exact solid; a cube
polyhedron at rest on the ground; the run file's hull vertices; bad polyhedra refused with the JSON
path."""
import math

import numpy as np
import pytest

import clatter

CUBE = [[x, y, z] for z in (-0.5, 0.5) for y in (-0.5, 0.5) for x in (-0.5, 0.5)]


def icosahedron_stl(path):
    t = (1 + 5 ** 0.5) / 2
    v = [(-1, t, 0), (1, t, 0), (-1, -t, 0), (1, -t, 0), (0, -1, t), (0, 1, t), (0, -1, -t), (0, 1, -t),
         (t, 0, -1), (t, 0, 1), (-t, 0, -1), (-t, 0, 1)]
    f = [(0, 11, 5), (0, 5, 1), (0, 1, 7), (0, 7, 10), (0, 10, 11), (1, 5, 9), (5, 11, 4), (11, 10, 2),
         (10, 7, 6), (7, 1, 8), (3, 9, 4), (3, 4, 2), (3, 2, 6), (3, 6, 8), (3, 8, 9), (4, 9, 5), (2, 4, 11),
         (6, 2, 10), (8, 6, 7), (9, 8, 1)]
    with open(path, "w") as out:
        out.write("solid ico\n")
        for a, b, c in f:
            out.write(" facet normal 0 0 0\n  outer loop\n")
            for i in (a, b, c):
                out.write("   vertex %r %r %r\n" % v[i])
            out.write("  endloop\n endfacet\n")
        out.write("endsolid ico\n")
    return t


def scene_with(shape, position=(0, 0, 0.6), duration=0.5):
    sc = clatter.Scene(dimension=3, time_step=0.005, duration=duration)
    sc.body(type="static", shape=clatter.halfspace(normal=[0, 0, 1]))
    sc.body(position=list(position), shape=shape, name="b")
    return sc


def test_cube_polyhedron_rests_with_the_box_mass():
    w = scene_with(clatter.polyhedron(vertices=CUBE)).build()
    w.step(100)
    assert abs(w.position[1][2] - 0.5) < 1e-9
    assert np.max(np.abs(w.velocity[1])) < 1e-9
    assert w.scene["bodies"][1]["shape"]["type"] == "polyhedron"


def test_faces_and_scale():
    tet = [[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]]
    faces = [[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]]
    sc = scene_with(clatter.polyhedron(vertices=tet, faces=faces, scale=2.0), position=(0, 0, 0.0))
    w = sc.build()
    # a right tetrahedron of legs 2: its centroid (the body's frame) at (0.5, 0.5, 0.5) from its corner
    assert abs(w.position[1][0] - 0.5) < 1e-12 and abs(w.position[1][2] - 0.5) < 1e-12


def test_mesh_file_relative_to_the_scene(tmp_path):
    t = icosahedron_stl(tmp_path / "ico.stl")
    sc = scene_with(clatter.polyhedron(mesh="ico.stl", scale=0.5), position=(0, 0, 2.0), duration=1.0)
    path = tmp_path / "scene.json"
    sc.save(str(path))
    w = clatter.World.from_scene(str(path))
    out = tmp_path / "run.h5"
    w.run(output=str(out))
    data = clatter.read_run(str(out))
    shapes = data.shapes
    assert list(shapes["hull_vertex_count"]) == [0, 12]
    hv = shapes["hull_vertices"]
    assert hv.shape == (12, 3)
    assert np.allclose(np.linalg.norm(hv, axis=1), 0.5 * math.sqrt(1 + t * t), atol=1e-12)
    # it fell and lies on the ground on a face or an edge: its centre no higher than the edge midradius
    z = data.trajectory["position"][-1][1][2]
    assert 0.5 * 1.5114 - 1e-6 < z < 0.5 * t + 1e-6


def test_cylinder_rests_on_its_end():
    w = scene_with(clatter.cylinder(0.3, 1.0), position=(0, 0, 0.5)).build()
    w.step(100)
    assert abs(w.position[1][2] - 0.5) < 1e-9
    with pytest.raises(clatter.SceneError, match=r"bodies\[1\]\.shape\.length: must be > 0"):
        scene_with(clatter.cylinder(0.3, 0.0)).build()


@pytest.mark.parametrize("shape, message", [
    (clatter.polyhedron(vertices=[[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0]]), r"shape\.vertices: the points span no volume"),
    (clatter.polyhedron(vertices=[[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]], faces=[[0, 1, 2], [0, 1, 3], [0, 3, 2], [1, 2, 3]]),
     r"shape\.faces: vertex 3 lies 1 outside face 0's plane"),
    (clatter.polyhedron(mesh="no_such_file.stl"), r"shape\.mesh: no_such_file\.stl: cannot open the mesh file"),
    (clatter.polyhedron(), r"either \"vertices\""),
])
def test_bad_polyhedra(shape, message):
    with pytest.raises(clatter.SceneError, match=message):
        scene_with(shape).build()


def test_mesh_ground_and_errors(tmp_path):
    # a flat square of 2 triangles, counter-clockwise from above, as the ground
    square = clatter.mesh(vertices=[[-2, -2, 0], [2, -2, 0], [2, 2, 0], [-2, 2, 0]], triangles=[[0, 1, 2], [0, 2, 3]])
    sc = clatter.Scene(dimension=3, time_step=0.005, duration=0.5)
    sc.body(type="static", shape=square)
    sc.body(position=[0.3, 0.2, 0.3], shape=clatter.box([0.2, 0.2, 0.2]), name="b")
    w = sc.build()
    w.step(100)
    assert abs(w.position[1][2] - 0.2) < 1e-9
    out = tmp_path / "run.h5"
    w.run(output=str(out))
    data = clatter.read_run(str(out))
    assert list(data.shapes["mesh_triangle_count"]) == [2, 0]
    assert data.shapes["mesh_vertices"].shape == (4, 3)
    # on a dynamic body, or with a wrong winding, or from a missing file
    bad = clatter.Scene(dimension=3, time_step=0.005, duration=0.5)
    bad.body(position=[0, 0, 1], shape=square)
    with pytest.raises(clatter.SceneError, match=r"bodies\[0\]\.shape\.type: a mesh belongs to a static or kinematic body"):
        bad.build()
    flipped = clatter.mesh(vertices=[[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0]], triangles=[[0, 1, 2], [0, 1, 3]])
    bad = clatter.Scene(dimension=3, time_step=0.005, duration=0.5)
    bad.body(type="static", shape=flipped)
    with pytest.raises(clatter.SceneError, match=r"shape\.triangles: triangles 0 and 1 run their shared edge"):
        bad.build()
    bad = clatter.Scene(dimension=3, time_step=0.005, duration=0.5)
    bad.body(type="static", shape=clatter.mesh(file="missing.obj"))
    with pytest.raises(clatter.SceneError, match=r"shape\.file: missing\.obj: cannot open the mesh file"):
        bad.build()
