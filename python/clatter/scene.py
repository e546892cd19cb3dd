"""Building a scene in code: ``clatter.Scene`` collects materials, bodies, joints and forces with the
scene format's names (docs/scene-format.md) and builds the world through the scene reader, so a
world made in code is checked like a scene file (the same defaults, the same messages naming the
JSON path of a wrong field) and can be saved as a scene file that ``clatter run`` runs::

    scene = clatter.Scene(dimension=3, time_step=1e-3, duration=2.0)
    scene.material("rubber", friction=0.9, restitution=0.5)
    scene.body(type="static", shape=clatter.halfspace(normal=[0, 0, 1]))
    ball = scene.body(position=[0, 0, 1], shape=clatter.sphere(0.1), material="rubber", name="ball")
    scene.force("applied", body="ball", force=[1, 0, 0], name="push")
    world = scene.build()

Only the fields given are written: the others keep the scene format's defaults.
"""

import json
import math

__all__ = ["Scene", "disk", "halfplane", "segment", "ellipse", "polygon", "box", "sphere", "halfspace",
           "capsule", "ellipsoid", "torus", "cylinder", "polyhedron", "mesh"]


def _given(**fields):
    return {k: v for k, v in fields.items() if v is not None}


def _plain(value):
    """NumPy arrays and scalars to lists and floats (the JSON the scene reader reads)."""
    if hasattr(value, "tolist"):
        return value.tolist()
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


# -- shapes (docs/scene-format.md "Shapes"); common keys: material, position, angle (2D),
#    orientation (3D) --------------------------------------------------------------------------

def _shape(type_, extra, common):
    return _plain(dict(type=type_, **_given(**extra), **_given(**common)))


def disk(radius, **common):
    """2D disk."""
    return _shape("disk", {"radius": radius}, common)


def halfplane(normal, point=None, **common):
    """2D half-plane (static or kinematic bodies); the solid side is opposite the normal."""
    return _shape("halfplane", {"normal": normal, "point": point}, common)


def segment(a, b, radius=None, **common):
    """2D rounded segment from a to b."""
    return _shape("segment", {"a": a, "b": b, "radius": radius}, common)


def ellipse(semi_axes, **common):
    """2D ellipse [a, b]."""
    return _shape("ellipse", {"semi_axes": semi_axes}, common)


def polygon(vertices, **common):
    """2D convex polygon, vertices counter-clockwise."""
    return _shape("polygon", {"vertices": vertices}, common)


def box(half_extents, **common):
    """Box: [hx, hy, hz] in 3D, [hx, hy] in 2D."""
    return _shape("box", {"half_extents": half_extents}, common)


def sphere(radius, **common):
    """3D sphere."""
    return _shape("sphere", {"radius": radius}, common)


def halfspace(normal, point=None, **common):
    """3D half-space (static or kinematic bodies)."""
    return _shape("halfspace", {"normal": normal, "point": point}, common)


def capsule(radius, length, **common):
    """3D capsule along local z; length is the distance between the cap centres."""
    return _shape("capsule", {"radius": radius, "length": length}, common)


def ellipsoid(semi_axes, **common):
    """3D ellipsoid [a, b, c]."""
    return _shape("ellipsoid", {"semi_axes": semi_axes}, common)


def torus(major_radius, minor_radius, **common):
    """3D torus about local z."""
    return _shape("torus", {"major_radius": major_radius, "minor_radius": minor_radius}, common)


def cylinder(radius, length, **common):
    """3D solid cylinder along local z, flat ends at ±length/2 (docs/shapes.md)."""
    return _shape("cylinder", {"radius": radius, "length": length}, common)


def polyhedron(vertices=None, faces=None, mesh=None, scale=None, **common):
    """3D convex polyhedron (docs/shapes.md): the hull of ``vertices`` ([[x, y, z], ...]), or the
    polyhedron of ``vertices`` and ``faces`` (lists of vertex indices, counter-clockwise seen from
    outside, checked), or the hull of the vertices of a ``mesh`` file (OBJ, STL, PLY, ...; relative
    to the scene file). ``scale``: a number or [sx, sy, sz] multiplying the vertices."""
    return _shape("polyhedron", _given(vertices=vertices, faces=faces, mesh=mesh, scale=scale), common)


def mesh(file=None, vertices=None, triangles=None, scale=None, **common):
    """3D triangle mesh for static or kinematic bodies (terrain, bowls, hoppers; docs/shapes.md
    "Meshes"): a ``file`` (OBJ, STL, PLY, ...; relative to the scene file) or ``vertices`` and
    ``triangles`` ([[i, j, k], ...], counter-clockwise seen from the front, the solid behind).
    ``scale``: a number or [sx, sy, sz] multiplying the vertices."""
    return _shape("mesh", _given(file=file, vertices=vertices, triangles=triangles, scale=scale), common)


class Scene:
    """A scene under construction (docs/scene-format.md, top level): ``dimension``, ``time_step``
    and ``duration`` are required by the format and default here to 3, 1e-3 s and 1 s; every other
    keyword (``gravity``, ``method``, ``law``, ``viscosity``, ``planar``, ``output``, ``colony``,
    ``parameters``, ``description``) is written as given."""

    def __init__(self, dimension=3, time_step=1e-3, duration=1.0, name="scene", **fields):
        self._scene = _plain(dict(name=name, dimension=dimension, time_step=time_step, duration=duration,
                                  **_given(**fields)))
        self._scene.setdefault("materials", {})
        self._scene.setdefault("bodies", [])
        self._count = 0  # bodies after grids are expanded (joints and forces count these)

    def material(self, name, friction=None, restitution=None, density=None):
        """Adds a named material (friction μ, restitution e_N, density); returns its name."""
        self._scene["materials"][name] = _plain(_given(friction=friction, restitution=restitution,
                                                       density=density))
        return name

    def body(self, shape=None, shapes=None, **fields):
        """Adds a body (docs/scene-format.md "bodies[i]": type, position, angle, orientation,
        velocity, angular_velocity, mass, inertia, material, motion, grid, packing, drag_linear,
        drag_angular, name) with one ``shape`` or a list of ``shapes``. Returns its index among
        the world's bodies (a ``range`` of them for a ``grid`` or ``packing`` entry: a packing is
        ``number`` copies scaled to random sizes at random places, docs/scene-format.md "Random
        packings")."""
        entry = _plain(_given(shape=shape, shapes=shapes, **fields))
        self._scene["bodies"].append(entry)
        first = self._count
        count = 1
        grid = entry.get("grid")
        packing = entry.get("packing")
        if isinstance(packing, dict):
            grid = packing
            count = packing["number"] if isinstance(packing.get("number"), int) else None
        elif isinstance(grid, dict):
            if isinstance(grid.get("number"), int):
                count = grid["number"]
            elif isinstance(grid.get("count"), list) and all(isinstance(c, int) for c in grid["count"]):
                count = math.prod(grid["count"])
            else:
                count = None
        if count is None:
            self._count = None
        elif self._count is not None:
            self._count += count
        if first is None:
            return None
        return range(first, first + count) if grid is not None and count is not None else first

    def joint(self, type, body_a, body_b=None, **fields):
        """Adds a joint ("revolute", "spherical", "prismatic", "fixed", "distance") between bodies
        given by index or name (body_b: default the world); fields: anchor_a, anchor_b, axis_a,
        axis_b, distance, collide_connected, name, and for revolute and prismatic joints limit
        (dict: lower, upper, restitution) and motor (dict: mode, target_velocity, target_position,
        stiffness, damping, max_force, effort; targets may be functions of time,
        docs/scene-format.md). Returns its index in ``joints``."""
        joints = self._scene.setdefault("joints", [])
        joints.append(_plain(_given(type=type, body_a=body_a, body_b=body_b, **fields)))
        return len(joints) - 1

    def force(self, type, **fields):
        """Adds a force element: "applied" (body, force, torque, force_amplitude, ...),
        "spring-damper" or "rotational-spring-damper" (body_a, body_b, anchors, stiffness, damping,
        rest_length, treatment, ...). Returns its index in ``forces``."""
        forces = self._scene.setdefault("forces", [])
        forces.append(_plain(_given(type=type, **fields)))
        return len(forces) - 1

    def set(self, **fields):
        """Sets top-level fields (method, gravity, output, ...)."""
        self._scene.update(_plain(fields))
        return self

    def to_dict(self):
        """The scene as a dict (a deep copy)."""
        return json.loads(json.dumps(self._scene))

    def to_json(self, indent=2):
        """The scene as scene-file JSON text."""
        return json.dumps(self._scene, indent=indent)

    def save(self, path):
        """Writes the scene file (``clatter run PATH`` runs it)."""
        with open(path, "w") as f:
            f.write(self.to_json() + "\n")

    def build(self, set=None, param=None):
        """The World of this scene (``World.from_json``; errors name "<scene NAME>" and the JSON
        path)."""
        from . import World
        return World.from_json(json.dumps(self._scene), source=f"<scene {self._scene.get('name')}>", set=set,
                               param=param)
