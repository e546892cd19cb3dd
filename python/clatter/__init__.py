"""clatter: rigid bodies with joints, contact and Coulomb friction by complementarity time-stepping.

The Python package of the clatter library (docs/python.md). A world is built from a scene file or
from code, stepped in a Python loop, and read and written through NumPy arrays that are views of
the library's memory::

    import clatter
    world = clatter.World.from_scene("scenes/papers/pile.json", param={"n": 1000})
    for _ in range(100):
        world.step()
        world.velocity[:, 2] = ...          # a write is the bodies' new state
    print(world.time, world.contacts()["normal_impulse"].sum())
    world.run(output="pile.h5")             # the file `clatter run` writes

Every error of the library is raised as a ``clatter.Error`` subclass with the library's message
(``clatter.errors``).
"""

import json as _json
import math as _math
import os as _os
import collections as _collections

from . import errors
from .errors import (Error, InvalidArgumentError, FileError, FormatError, SolverError, DivergedError,
                     NumericalError, StaleHandleError, SceneError)
from . import _clatter
from .scene import (Scene, disk, halfplane, segment, ellipse, polygon, box, sphere, halfspace, capsule,
                    ellipsoid, torus, cylinder, polyhedron, mesh)
from .run import read_run
from .analysis import analyze

__version__ = _clatter.VERSION

__all__ = ["World", "Scene", "read_run", "analyze", "solve_lcp", "solve_fc", "load_problem", "SolveResult",
           "default_scene", "solver_names", "disk", "halfplane", "segment", "ellipse", "polygon", "box",
           "sphere", "halfspace", "capsule", "ellipsoid", "torus", "cylinder", "polyhedron", "mesh", "errors", "Error",
           "InvalidArgumentError", "FileError", "FormatError", "SolverError", "DivergedError",
           "NumericalError", "StaleHandleError", "SceneError", "__version__"]


def default_scene():
    """The built-in default scene (what ``clatter run`` runs without a scene) as JSON text."""
    return _clatter.default_scene()


def solver_names():
    """The solvers by name, as ``method.solver`` and ``solve_lcp(solver=...)`` spell them."""
    return _clatter.solver_names()


def _overrides(values, what):
    """{"json.path": value} (or "path=value" strings) -> ["path=<JSON>", ...] for the scene reader."""
    if values is None:
        return []
    if isinstance(values, dict):
        out = []
        for key, value in values.items():
            if not isinstance(key, str):
                raise TypeError(f"{what}: keys must be strings (got {key!r})")
            out.append(f"{key}={value if isinstance(value, str) else _json.dumps(value)}")
        return out
    if isinstance(values, str):
        return [values]
    return [str(v) for v in values]


class World(_clatter.World):
    """A clatter world: bodies, shapes, materials, joints and force elements, stepped by the
    scene's method (SPEC.md §1–§6).

    Make one with ``World.from_scene(path)``, ``World.from_json(text)``, ``World.from_run(path)``
    or a ``clatter.Scene`` builder's ``build()``.

    State arrays — ``position`` (n, 3), ``orientation`` (n, 4, 3D), ``angle`` (n, 2D),
    ``velocity`` (n, 3), ``angular_velocity`` (n, 3; body frame in 3D, ω in column 0 in 2D) —
    are views of the library's memory: they change as the world steps, and writing into them
    sets the bodies' states (checked as the C API checks them, before the next step or read: a
    non-finite value or a write to a static body raises and is undone; quaternions are
    normalized). The views keep the world alive. A world with a growing colony gives read-only
    copies instead (its bodies move in memory as they are added).
    """

    @classmethod
    def from_scene(cls, path, set=None, param=None):
        """Reads a scene file (docs/scene-format.md) and builds its world.

        ``set``: {"json.path": value} overrides applied first (``clatter run --set``); ``param``:
        {"name": value} for the scene's parameters (``--param``). Values are JSON values (numbers,
        strings, lists, dicts). Raises ``SceneError`` with the message ``clatter run`` prints
        ("FILE: JSON.PATH: reason")."""
        return cls._load(_os.fspath(path), _overrides(set, "set"), _overrides(param, "param"))

    @classmethod
    def from_json(cls, text, source="<json>", set=None, param=None):
        """A world from scene JSON text (or a dict); ``source`` names it in error messages."""
        if not isinstance(text, str):
            text = _json.dumps(text)
        return cls._parse(text, source, _overrides(set, "set"), _overrides(param, "param"))

    @classmethod
    def default(cls):
        """The built-in default scene's world (a spinning body and a projectile)."""
        return cls._parse(_clatter.default_scene(), "default", [], [])

    @classmethod
    def from_run(cls, path):
        """The world of a run file, at its checkpoint (or its initial state if it has none): the
        stored scene rebuilt, then the checkpoint loaded."""
        path = _os.fspath(path)
        import h5py
        with h5py.File(path, "r") as f:
            text = f["scene"][()]
        if isinstance(text, bytes):
            text = text.decode()
        world = cls._parse(text, path, [], [])
        summary = _clatter.run_summary(path)
        if summary["checkpoint_step"] >= 0:
            world.load_checkpoint(path)
        return world

    # -- bodies and forces by name -------------------------------------------------------------

    @property
    def scene(self):
        """The resolved scene as a dict (``scene_json`` parsed)."""
        return _json.loads(self.scene_json)

    @property
    def body_names(self):
        """The bodies' names in creation order ("" for an unnamed body)."""
        return [self.body_info(i)["name"] for i in range(self.body_count)]

    def body_index(self, body):
        """The index of a body given by index or name (KeyError for an unknown name)."""
        if isinstance(body, str):
            names = self.__dict__.get("_names")
            if names is None or len(names) != self.body_count:
                names = {n: i for i, n in enumerate(self.body_names) if n}
                self.__dict__["_names"] = names
            if body not in names:
                raise StaleHandleError(f"no body named '{body}'", "stale_handle")
            return names[body]
        return int(body)

    def force_index(self, force):
        """The index of a force element given by index or by its scene name. A spring-damper with
        ``rigid: true`` is a joint, not a force element: it is skipped in the count."""
        if not isinstance(force, str):
            return int(force)
        index = 0
        for entry in self.scene.get("forces", []):
            if entry.get("rigid") is True:
                continue
            if entry.get("name") == force:
                return index
            index += 1
        raise StaleHandleError(f"no force element named '{force}'", "stale_handle")

    def set_body_state(self, body, position=None, angle=None, orientation=None, velocity=None,
                       angular_velocity=None):
        """Sets the given parts of a dynamic body's state (the rest is kept), checked as
        ``clt_body_set_state`` checks it."""
        fields = {k: v for k, v in (("position", position), ("angle", angle), ("orientation", orientation),
                                    ("velocity", velocity), ("angular_velocity", angular_velocity))
                  if v is not None}
        self._set_body_state(self.body_index(body), fields)

    def set_applied_force(self, force, force_value=(0.0, 0.0, 0.0), torque=(0.0, 0.0, 0.0)):
        """Sets an applied force element's force [N] and torque [N m] (world frame; 2D: the torque
        is ``torque[0]`` or a number) from the next step on. The element is one of the scene's
        ``forces`` of type ``applied``, given by name or index. Not part of ``save_state``."""
        if isinstance(torque, (int, float)):
            torque = (float(torque), 0.0, 0.0)
        force_value = list(force_value) + [0.0] * (3 - len(force_value))
        self._set_applied_force(self.force_index(force), force_value, torque)

    def joint_index(self, joint):
        """The index of a joint given by index or by name (StaleHandleError for an unknown name)."""
        if not isinstance(joint, str):
            return int(joint)
        for i in range(self.joint_count):
            try:
                if self.joint_info(i)["name"] == joint:
                    return i
            except StaleHandleError:  # a removed joint keeps its index
                continue
        raise StaleHandleError(f"no joint named '{joint}'", "stale_handle")

    def remove_body(self, body):
        """Removes a body (by index or name) from the next step on (``clt_world_remove_body``): it
        stays where it is, at rest, with no mass and no contacts, in no energy; its index stays
        taken and asking for it raises StaleHandleError. Refused while a joint or a force element
        acts on it (remove the joint first)."""
        self._remove_body(self.body_index(body))

    def remove_joint(self, joint):
        """Removes a joint (by index or name) from the next step on (``clt_world_remove_joint``): no
        rows, no limit or motor, its bodies collide again. Its index stays taken: ``joint_info``
        and ``joint_state`` of it raise StaleHandleError, as does removing it again."""
        self._remove_joint(self.joint_index(joint))

    def set_limit(self, joint, lower=None, upper=None, restitution=0.0, swing=None):
        """Sets a revolute or prismatic joint's limit ``lower <= coordinate <= upper`` [rad or m],
        or a spherical joint's cone (``swing``, the largest angle between its axes) and twist range
        (``lower``, ``upper``: default no twist limit), with Newton restitution at the bounds
        (``clt_joint_set_limit``, docs/actuation.md); with none of them the limit is removed. The
        joint by index or name."""
        if swing is not None:
            lower = -_math.pi if lower is None else lower
            upper = _math.pi if upper is None else upper
        enabled = lower is not None or upper is not None
        if enabled and (lower is None or upper is None):
            raise ValueError("set_limit: give both lower and upper (or neither, to remove the limit)")
        self._set_limit(self.joint_index(joint), enabled, float(lower if enabled else 0.0),
                        float(upper if enabled else 0.0), float(restitution), float(swing or 0.0))

    def set_motor(self, joint, mode, target_velocity=0.0, target_position=0.0, stiffness=0.0,
                  damping=0.0, max_force=0.0, effort=0.0):
        """Sets a revolute or prismatic joint's motor (``clt_joint_set_motor``, docs/actuation.md):
        ``mode`` "velocity" (hold ``target_velocity`` with at most ``max_force``), "position" (the
        implicit servo ``-stiffness (q - target_position) - damping (rate - target_velocity)``,
        at most ``max_force``), "effort" (the torque or force ``effort`` on B, its reaction on A) or
        "off". A controller calls it before each step; a joint whose scene motor input is a
        function of time is set from it again before every step."""
        self._set_motor(self.joint_index(joint), str(mode), float(target_velocity), float(target_position),
                        float(stiffness), float(damping), float(max_force), float(effort))

    def apply_force(self, body, force, point=None):
        """Adds a force [N] (world frame) for the next step only, at a world point (default: the
        centre of mass; elsewhere it adds the torque (point - x) x force), to a dynamic body given
        by index or name (``clt_body_apply_force``). Calls add up until a step succeeds; a
        controller calls it before every step. 2D: ``force`` and ``point`` may have two entries."""
        force = list(force) + [0.0] * (3 - len(force))
        if point is not None:
            point = list(point) + [0.0] * (3 - len(point))
        self._apply_load(self.body_index(body), force, point, False)

    def apply_torque(self, body, torque):
        """Adds a torque [N m] (world frame; 2D: a number or ``torque[0]``) for the next step only
        (``clt_body_apply_torque``)."""
        if isinstance(torque, (int, float)):
            torque = (float(torque), 0.0, 0.0)
        self._apply_load(self.body_index(body), list(torque), None, True)

    # -- runs ------------------------------------------------------------------------------------

    def run(self, duration=None, output=None, checkpoint_every=0, overwrite=False, max_steps=None):
        """Steps the world and writes the run file ``clatter run`` writes (docs/output-format.md):
        trajectories, diagnostics, checkpoints, and OUT.csv beside it, as the scene's ``output``
        block says.

        ``duration``: simulated time to run from now [s]; None: to the end of the scene's
        ``duration`` (as ``clatter run``; a colony scene ends at 2^generations cells). ``output``:
        the file (default: the scene's ``output.path`` or "<name>.h5"). An existing file is an
        error unless ``overwrite``. ``checkpoint_every``: a checkpoint every this many steps.
        ``max_steps``: stop after this many (status "interrupted", resumable with
        ``clatter run --resume``). Ctrl-C stops the run the same way, then raises
        KeyboardInterrupt.

        Returns a dict: status ("complete" or "interrupted"), steps, path, csv, message. A run that
        diverges or fails raises (DivergedError, SolverError, ...) after closing the file with that
        status; the world keeps its last good state."""
        if int(checkpoint_every) < 0:
            raise ValueError(f"run: checkpoint_every must be >= 0 (got {checkpoint_every})")
        if max_steps is not None and int(max_steps) < 0:
            raise ValueError(f"run: max_steps must be >= 0 (got {max_steps})")
        scene = self.scene
        scene_json = None
        if duration is not None:
            steps = int(round(float(duration) / self.time_step))
            if steps < 1:
                raise ValueError(f"run: duration must be at least one time step (got {duration})")
            end_step = self.step_count + steps
            scene["duration"] = end_step * self.time_step
            scene_json = _json.dumps(scene)
        else:
            end_step = self.scene_step_count
        if output is None:
            output = scene.get("output", {}).get("path") or f"{scene.get('name', 'run')}.h5"
        return self._run(_os.fspath(output), scene_json, end_step, -1 if max_steps is None else int(max_steps),
                         int(checkpoint_every), bool(overwrite))

    def __repr__(self):
        try:
            return (f"<clatter.World {self.dimension}D, {self.body_count} bodies, t = {self.time:.6g} s, "
                    f"step {self.step_count}>")
        except RuntimeError:
            return "<clatter.World (empty)>"


# -- standalone solvers ------------------------------------------------------------------------

SolveResult = _collections.namedtuple(
    "SolveResult", ["x", "y", "status", "iterations", "residual", "residual_abs", "message"])
SolveResult.__doc__ = """The answer of a standalone solve: x (z of an LCP, r of a frictional contact
problem), y (w = M z + q, or u = W r + q), status ("solved", "max_iterations", "ray",
"not_converged", "error"), iterations, residual (scaled, SPEC.md §2), residual_abs, message (why a
solve failed)."""
SolveResult.solved = property(lambda self: self.status == "solved", doc="status == 'solved'")


def solve_lcp(M, q, solver="lemke", free_count=0, tolerance=1e-10, max_iterations=100000, relaxation=1.0,
              z0=None, threads=0):
    """Solves the LCP  w = M z + q,  z ≥ 0, w ≥ 0, zᵀw = 0  (the first ``free_count`` variables
    free: a mixed LCP) with one of clatter's solvers: "lemke" (exact pivoting), "bgs" (projected
    Gauss–Seidel), "apgd", "bbpgd", "mprgp" (symmetric PSD M). ``z0`` warm-starts an iterative
    solver. Returns a SolveResult (x = z, y = w); a solve that did not reach ``tolerance`` has a
    status other than "solved" — it is never reported as solved."""
    return SolveResult(*_clatter.solve_lcp(M, q, solver, free_count, tolerance, max_iterations, relaxation,
                                           z0=z0, threads=threads))


def _csr(W):
    """scipy.sparse matrices and (data, indices, indptr[, shape]) tuples as the extension takes them."""
    if hasattr(W, "tocsr") and hasattr(W, "shape"):
        W = W.tocsr()
        W.sort_indices()
        return (W.data, W.indices, W.indptr)
    if isinstance(W, tuple) and len(W) == 4:
        return W[:3]
    return W


def solve_fc(W, q, mu, dim=3, tolerance=1e-8, max_iterations=10000, relaxation=1.0, r0=None):
    """Solves the frictional contact problem with the exact Coulomb cone (the local form of FCLIB
    and Siconos): u = W r + q, each contact's (r, u) complementary in the cone ‖r_T‖ ≤ μ r_N (De
    Saxcé's bipotential; shared/data/README.md §2.2), by exact-cone block Gauss–Seidel with a
    semismooth Newton polish. ``W``: dense (m, m), a scipy.sparse matrix or a CSR tuple (data,
    indices, indptr); ``q`` of length m = dim · contacts, normal first in each contact;
    ``mu`` per contact. Returns a SolveResult (x = r, y = u; residual: the natural-map error)."""
    return SolveResult(*_clatter.solve_fc(_csr(W), q, mu, dim, tolerance, max_iterations, relaxation, r0=r0))


def load_problem(path):
    """Reads a problem file: a Siconos .dat LCP or an FCLIB HDF5 frictional contact problem
    (shared/data). Returns a dict with "kind" ("lcp": M, q; "fc_local": dim, W, q, mu;
    "fc_global": dim, M, H, f, w, mu, and the condensed W and q that ``solve_fc`` takes). Sparse
    matrices come as (data, indices, indptr, shape) tuples."""
    return _clatter.load_problem(_os.fspath(path))
