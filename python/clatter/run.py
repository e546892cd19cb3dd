"""Reading a run file (docs/output-format.md) into NumPy arrays."""

import json

import numpy as np

__all__ = ["read_run", "RunData"]


class RunData(dict):
    """A run file's contents: a dict whose keys are also attributes.

    - ``attrs``: the root attributes (status, status_message, state_hash, time_step, ...);
    - ``summary``: what ``clatter info`` prints (``clt_output_read_summary``);
    - ``scene``: the stored scene, parsed;
    - ``bodies``, ``shapes``, ``trajectory``, ``diagnostics``, ``contacts`` (where the file has
      them): one NumPy array per dataset, strings decoded (``trajectory["position"]`` is
      frames × bodies × 3; ``diagnostics["kinetic_energy"]`` one value per step).
    """

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None


def _value(dataset):
    data = dataset[()]
    if isinstance(data, bytes):
        return data.decode()
    if isinstance(data, np.ndarray) and data.dtype.kind in ("O", "S"):
        return np.array([d.decode() if isinstance(d, bytes) else d for d in data.ravel()],
                        dtype=object).reshape(data.shape)
    return data


def _attr(value):
    if isinstance(value, bytes):
        return value.decode()
    if isinstance(value, np.generic):
        return value.item()
    return value


def read_run(path):
    """Reads the run file at ``path`` (written by ``clatter run`` or ``World.run``): a RunData of
    NumPy arrays. The file is checked first (a file that is not a run file, or damaged, raises
    FormatError or FileError with the library's message)."""
    import h5py
    from . import _clatter
    summary = _clatter.run_summary(str(path))
    out = RunData(summary=summary)
    with h5py.File(path, "r") as f:
        out["attrs"] = {k: _attr(v) for k, v in f.attrs.items()}
        out["scene"] = json.loads(_value(f["scene"])) if "scene" in f else None
        for group in ("bodies", "shapes", "links", "trajectory", "diagnostics", "contacts"):
            if group in f and isinstance(f[group], h5py.Group):
                out[group] = {name: _value(d) for name, d in f[group].items() if isinstance(d, h5py.Dataset)}
    return out
