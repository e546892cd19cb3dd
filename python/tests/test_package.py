"""The package as a whole: every public name is documented and in the type stubs, the version
matches the library, and the module exposes nothing of the C library but its init function."""
import inspect
import pathlib
import re
import subprocess

import clatter


def public_names():
    return [n for n in clatter.__all__ if n not in ("__version__",)]


def test_everything_public_has_a_docstring():
    missing = []
    for name in public_names():
        obj = getattr(clatter, name)
        if not (getattr(obj, "__doc__", None) or "").strip():
            missing.append(name)
        if inspect.isclass(obj):
            for attr, member in vars(obj).items():
                if attr.startswith("_") or not (callable(member) or isinstance(member, property)):
                    continue
                if not (getattr(member, "__doc__", None) or "").strip():
                    missing.append(f"{name}.{attr}")
    for attr in dir(clatter.World):
        if attr.startswith("_"):
            continue
        if not (getattr(getattr(clatter.World, attr), "__doc__", None) or "").strip():
            missing.append(f"World.{attr}")
    assert not missing, missing


def test_stubs_cover_the_public_names():
    stub = (pathlib.Path(clatter.__file__).parent / "__init__.pyi").read_text()
    for name in public_names():
        assert re.search(rf"\b{name}\b", stub), name
    for attr in dir(clatter.World):
        if not attr.startswith("_"):
            assert re.search(rf"\b{attr}\b", stub), f"World.{attr}"


def test_version():
    assert clatter.__version__ == "0.1.0"


def test_extension_exports_only_its_init():
    out = subprocess.run(["nm", "-D", "--defined-only", clatter._clatter.__file__], capture_output=True,
                         text=True, check=True).stdout
    names = [line.split()[-1] for line in out.splitlines() if line.strip()]
    assert names == ["PyInit__clatter"]


def test_errors_are_one_family():
    for cls in (clatter.SceneError, clatter.DivergedError, clatter.FileError, clatter.FormatError,
                clatter.InvalidArgumentError, clatter.SolverError):
        assert issubclass(cls, clatter.Error)
    assert issubclass(clatter.FileError, OSError)
    e = clatter.errors.from_status("diverged", "step 3: boom")
    assert isinstance(e, clatter.DivergedError) and e.status == "diverged" and str(e) == "step 3: boom"
