"""The exceptions of clatter: every error of the library is raised as one of these, with the
library's own message (the same text the ``clatter`` command prints).

``Error`` is the base class; ``status`` is the library's status name (``"invalid_argument"``,
``"diverged"``, ...: ``clt_status_name`` in include/clatter/types.h).
"""

__all__ = ["Error", "InvalidArgumentError", "FileError", "FormatError", "SolverError", "DivergedError",
           "NumericalError", "StaleHandleError", "SceneError"]


class Error(Exception):
    """An error of the clatter library. ``message`` is its text, ``status`` the status name."""

    def __init__(self, message, status="error"):
        super().__init__(message)
        self.message = message
        self.status = status


class InvalidArgumentError(Error, ValueError):
    """A value out of range (a negative mass, a NaN, a write of a non-finite state, ...)."""


class FileError(Error, OSError):
    """A file could not be opened, read or written (an existing run file without ``overwrite``, a
    full disk, ...)."""


class FormatError(Error, ValueError):
    """A file's or a state blob's content is malformed (not a run file, a damaged checkpoint,
    a state of another world)."""


class SolverError(Error):
    """The step's problem was not solved and the method asked to abort (method.on_unconverged)."""


class DivergedError(Error):
    """The state blew up (non-finite, or past method.divergence_* bounds); the world keeps the
    last good state."""


class NumericalError(Error):
    """A singular matrix or a solver breakdown."""


class StaleHandleError(Error, KeyError):
    """A body, joint or force index that names nothing."""

    def __str__(self):  # KeyError would quote the message
        return self.message


class SceneError(Error, ValueError):
    """A scene that cannot be read or built. The message is the one ``clatter run`` prints,
    ``"FILE: JSON.PATH: reason"`` (or ``"FILE:LINE:COLUMN: invalid JSON: reason"``); its parts are in
    ``file``, ``path`` (``""`` where the message names none), ``reason``, and ``line`` and
    ``column`` for malformed JSON (else None)."""

    def __init__(self, message, status="format"):
        super().__init__(message, status)
        self.file, self.path, self.reason, self.line, self.column = _split_scene_message(message)


_BY_STATUS = {
    "invalid_argument": InvalidArgumentError,
    "io": FileError,
    "format": FormatError,
    "solver": SolverError,
    "diverged": DivergedError,
    "numerical": NumericalError,
    "stale_handle": StaleHandleError,
}


def from_status(status, message):
    """The exception for a library status name and message (used by the C extension)."""
    return _BY_STATUS.get(status, Error)(message, status)


def scene_error(status, message):
    """A SceneError for a scene reader's message (used by the C extension)."""
    return SceneError(message, status)


def _split_scene_message(message):
    """(file, path, reason, line, column) of "FILE: PATH: reason" or "FILE:LINE:COL: reason"."""
    head, sep, rest = message.partition(": ")
    if not sep:
        return "", "", message, None, None
    # FILE:LINE:COLUMN: invalid JSON: ...
    parts = head.rsplit(":", 2)
    if len(parts) == 3 and parts[1].isdigit() and parts[2].isdigit():
        return parts[0], "", rest, int(parts[1]), int(parts[2])
    path, sep2, reason = rest.partition(": ")
    # a JSON path has no spaces ("bodies[3].shape.radius", "colony", "method")
    if sep2 and path and " " not in path:
        return head, path, reason, None, None
    return head, "", rest, None, None
