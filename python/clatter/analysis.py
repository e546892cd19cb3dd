"""Granular measurements of a run file (docs/analysis.md): the tables ``clatter analyze`` writes,
as NumPy arrays, computed by the library (clatter/analysis.h)."""

from . import _clatter

__all__ = ["analyze"]

_AXES = {"x": 0, "y": 1, "z": 2, 0: 0, 1: 1, 2: 2}


def _frames(frames):
    """None, an index, "A:B:S" / "A:B" / "N", a slice or a (first, last[, stride]) tuple ->
    (first, last, stride) with ``last`` inclusive and negative indices counted from the end."""
    if frames is None:
        return None
    if isinstance(frames, int):
        return (frames, frames, 1)
    if isinstance(frames, slice):
        if frames.stop is not None:
            raise ValueError("frames: give a slice without a stop (frames is inclusive: use (first, last, stride))")
        return (frames.start or 0, -1, frames.step or 1)
    if isinstance(frames, str):
        parts = frames.split(":")
        if len(parts) == 1:
            return (int(parts[0]), int(parts[0]), 1)
        if len(parts) > 3:
            raise ValueError(f"frames: expected A:B:S (got {frames!r})")
        first = int(parts[0]) if parts[0] else 0
        last = int(parts[1]) if parts[1] else -1
        stride = int(parts[2]) if len(parts) == 3 and parts[2] else 1
        return (first, last, stride)
    values = tuple(int(v) for v in frames)
    if len(values) == 2:
        return values + (1,)
    if len(values) != 3:
        raise ValueError(f"frames: expected (first, last) or (first, last, stride) (got {frames!r})")
    return values


def analyze(path, what, frames=None, region=None, axis=None, bins=None, plane=None, min_contacts=2, centre=None,
            heap_radius=None, fit=None):
    """One granular measurement over frames of the run file at ``path``: a dict of NumPy arrays,
    one per column of the table ``clatter analyze --what WHAT`` writes (docs/analysis.md
    "Tables"), integer columns as int64.

    - ``what``: "packing", "coordination", "forces", "stress", "profile", "repose" or "flow";
    - ``frames``: an index, "A:B:S", or (first, last[, stride]), last inclusive, negative from the
      end (default: the last frame; flow: every frame);
    - ``region``: the box (x0, y0, z0, x1, y1, z1) [m] (2D: (x0, y0, x1, y1)), required by
      packing, stress and profile;
    - ``axis``: "x", "y", "z" (profile, flow; repose: up); default: against gravity;
    - ``bins``: profile slabs and repose radial bins (default 20); ``plane``: flow's plane [m];
    - ``min_contacts``: coordination's rattler threshold (default 2);
    - ``centre``, ``heap_radius`` [m], ``fit`` = (min, max): repose.

    A request that cannot be measured raises InvalidArgumentError whose message begins with the
    keyword; an unreadable file raises FileError or FormatError."""
    if axis is not None and axis not in _AXES:
        raise ValueError(f"axis: must be 'x', 'y' or 'z' (got {axis!r})")
    return _clatter.analyze(str(path), str(what), frames=_frames(frames), region=region,
                            axis=-1 if axis is None else _AXES[axis], bins=0 if bins is None else int(bins),
                            plane=plane, min_contacts=int(min_contacts), centre=centre,
                            heap_radius=0.0 if heap_radius is None else float(heap_radius), fit=fit)
