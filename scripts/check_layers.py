#!/usr/bin/python3
"""The layering check of docs/architecture.md: layers only point down.

Every folder of src/ (and tools/, bench/) is one layer of LAYERS, lowest first; every public header
include/clatter/*.h is given the layer of PUBLIC_HEADERS. A file may include a header of its own
layer or of a lower one. Usage:

  check_layers.py [--root DIR]                 the #include "..." lines of src/, include/clatter/,
                                               tools/ and bench/ (what scripts/test.sh runs before
                                               building)
  check_layers.py [--root DIR] --objects BUILD the calls too: every function an object file of
                                               BUILD/src or BUILD/tools uses must be defined in its
                                               own layer or a lower one (nm; the ctest
                                               tools/test_check_layers runs it on its build)
  check_layers.py --order                      prints the order (docs/architecture.md holds it)

Exits 1 listing every upward dependency as
  FILE:LINE: FILE (layer a) includes HEADER (layer b, higher)
and 2 for a file or public header that has no layer. A bench program or a file of the Python
extension (python/src) that includes a header of src/ fails too (they use include/clatter/ only).
Standard library only."""
import argparse
import os
import re
import subprocess
import sys

# (layer, folders), lowest first. A file belongs to the layer of the longest folder holding it.
LAYERS = [
    ("base", ["src/base"]),
    ("solvers", ["src/solvers"]),
    ("problems", ["src/io/problems"]),
    ("math", ["src/math"]),
    ("geometry", ["src/geometry"]),
    ("collision", ["src/collision"]),
    ("dynamics", ["src/dynamics"]),
    ("constraints", ["src/constraints"]),
    ("steppers", ["src/steppers"]),
    ("models", ["src/models"]),
    ("io", ["src/io"]),
    ("analysis", ["src/analysis"]),
    ("viz", ["src/viz"]),
    ("tools", ["tools"]),
    ("python", ["python"]),
    ("bench", ["bench"]),
]

# The public headers' layers. The vocabulary headers (types, the world's and the solvers' types
# and functions, and the umbrella) are given the lowest layer: every layer may include them for
# their types; which layer may call which of their functions is what --objects checks.
PUBLIC_HEADERS = {
    "include/clatter/types.h": "base",
    "include/clatter/world.h": "base",
    "include/clatter/solvers.h": "base",
    "include/clatter/clatter.h": "base",
    "include/clatter/problems.h": "problems",
    "include/clatter/colony.h": "models",
    "include/clatter/scene.h": "io",
    "include/clatter/output.h": "io",
    "include/clatter/analysis.h": "analysis",
}

SCANNED = ["src", "include/clatter", "tools", "python", "bench"]
RANK = {name: k for k, (name, _) in enumerate(LAYERS)}
INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*([<"])([^">]+)[">]')


def order_line():
    return " → ".join(name for name, _ in LAYERS)


def layer_of(rel):
    """The layer of a file given relative to the root (forward slashes), or None."""
    if rel.startswith("include/"):
        return PUBLIC_HEADERS.get(rel)
    best, best_len = None, -1
    for name, folders in LAYERS:
        for folder in folders:
            if (rel.startswith(folder + "/")) and len(folder) > best_len:
                best, best_len = name, len(folder)
    return best


def strip_comments(text):
    """text with every comment replaced by spaces (newlines kept), strings and characters intact,
    so that a commented-out #include is not one and line numbers stay right."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if c == "/" and i + 1 < n and text[i + 1] == "*":
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("".join(ch if ch == "\n" else " " for ch in text[i:j]))
            i = j
        elif c == "/" and i + 1 < n and text[i + 1] == "/":
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(text[i:j])
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def source_files(root):
    for top in SCANNED:
        base = os.path.join(root, top)
        for folder, dirs, files in os.walk(base):
            dirs.sort()
            for f in sorted(files):
                if f.endswith((".c", ".h")):
                    yield os.path.relpath(os.path.join(folder, f), root).replace(os.sep, "/")


def resolve(root, rel, quote, name):
    """The header an #include names, relative to root, or None (a system or third-party one)."""
    here = os.path.dirname(rel)
    candidates = ([os.path.join(here, name)] if quote == '"' else []) + [
        os.path.join("src", name), os.path.join("include", name)]
    for c in candidates:
        c = os.path.normpath(c).replace(os.sep, "/")
        if not c.startswith("../") and os.path.isfile(os.path.join(root, c)):
            return c
    return None


# A scheme's own workspace headers: only the scheme's files may include them (docs/architecture.md:
# no file reaches into another scheme's workspace). step_work.c and memory.c call the functions they
# declare (destroy, the memory report), nothing else of them.
SCHEME_PRIVATE = {
    "src/steppers/relaxed.h": ("src/steppers/scheme_relaxed.c", "src/steppers/stage_solve_relaxed.c",
                               "src/steppers/relaxed_bgs.c", "src/steppers/step_work.c",
                               "src/steppers/memory.c"),
    "src/steppers/relcp.h": ("src/steppers/scheme_relcp.c", "src/steppers/stage_relcp.c",
                             "src/steppers/stage_relcp_solve.c", "src/steppers/relcp_pgs.c",
                             "src/steppers/relcp_pgs.h", "src/steppers/relcp_newton.c",
                             "src/steppers/relcp_newton.h", "src/steppers/step_work.c", "src/steppers/memory.c"),
}


# The world's struct: the layers that own it (dynamics, and constraints and steppers, which work on
# it every step) include world_internal.h; above them (models) the public API and
# dynamics/world_calls.h (its error, log and handle helpers) only (docs/architecture.md).
WORLD_PRIVATE = ("src/dynamics/world_internal.h", ("src/dynamics/", "src/constraints/", "src/steppers/"))


def check_includes(root):
    errors, unassigned, notes = [], [], []
    for rel in source_files(root):
        layer = layer_of(rel)
        if layer is None:
            unassigned.append(f"{rel}: has no layer (add its folder to LAYERS, or the header to "
                              "PUBLIC_HEADERS, in scripts/check_layers.py and docs/architecture.md)")
            continue
        with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
            text = strip_comments(f.read())
        for number, line in enumerate(text.split("\n"), 1):
            m = INCLUDE.match(line)
            if not m:
                continue
            target = resolve(root, rel, m.group(1), m.group(2))
            if target is None:
                continue
            target_layer = layer_of(target)
            if target_layer is None:
                continue  # reported once as the file itself
            owners = SCHEME_PRIVATE.get(target)
            if owners is not None and rel.startswith("src/") and rel not in owners:
                errors.append(f"{rel}:{number}: {rel} includes {target}, another scheme's workspace "
                              "(only its scheme's files may: scripts/check_layers.py SCHEME_PRIVATE)")
            if (target == WORLD_PRIVATE[0] and rel.startswith("src/") and
                    not rel.startswith(WORLD_PRIVATE[1])):
                errors.append(f"{rel}:{number}: {rel} includes {target}, the world's struct (only dynamics, "
                              "constraints and steppers may; others use the public API and "
                              "dynamics/world_calls.h: scripts/check_layers.py WORLD_PRIVATE)")
            if RANK[target_layer] > RANK[layer]:
                errors.append(f"{rel}:{number}: {rel} (layer {layer}) includes {target} "
                              f"(layer {target_layer}, higher)")
            elif layer in ("bench", "python") and not (target.startswith("include/clatter/") or
                                                       target.startswith(os.path.dirname(rel) + "/")):
                what = "bench program" if layer == "bench" else "Python extension"
                errors.append(f"{rel}:{number}: {rel} ({what}) includes {target}: {what}s "
                              "include only include/clatter/ (docs/architecture.md)")
    return errors, unassigned, notes


def object_files(build):
    """(object, source relative to the root) for the library and tool objects of a CMake build."""
    for top in ("src", "tools"):
        for folder, dirs, files in os.walk(os.path.join(build, top)):
            dirs.sort()
            for f in sorted(files):
                if not f.endswith(".c.o"):
                    continue
                path = os.path.join(folder, f)
                parts = os.path.relpath(path, os.path.join(build, top)).split(os.sep)
                dot = [k for k, p in enumerate(parts) if p.endswith(".dir")]
                if not dot:
                    continue
                yield path, "/".join([top] + parts[dot[-1] + 1:])[:-2]


def check_objects(root, build):
    defined, used, errors = {}, [], []
    objects = list(object_files(build))
    if not objects:
        return None
    # a stale object of a file that moved has no source; a source without a layer is reported by
    # the include check
    sources = {path: (source, layer_of(source)) for path, source in objects
               if os.path.isfile(os.path.join(root, source)) and layer_of(source) is not None}
    if not sources:
        return []
    out = subprocess.run(["nm", "-P", "-A"] + sorted(sources), capture_output=True, text=True,
                         check=True).stdout
    for line in out.splitlines():
        path, _, rest = line.partition(": ")
        fields = rest.split()
        if path not in sources or len(fields) < 2:
            continue
        source, layer = sources[path]
        name, kind = fields[0], fields[1]
        if kind == "U":
            used.append((source, layer, name))
        elif kind in ("T", "D", "B", "R", "C", "G", "S", "V", "W"):
            defined.setdefault(name, (source, layer))
    for source, layer, name in used:
        if name in defined:
            where, where_layer = defined[name]
            if RANK[where_layer] > RANK[layer]:
                errors.append(f"{source}: {source} (layer {layer}) calls {name} of {where} "
                              f"(layer {where_layer}, higher)")
    return sorted(set(errors))


def main():
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", default=here, help="the checkout to check (default: this one)")
    parser.add_argument("--objects", metavar="BUILD", help="also check the calls of a CMake build's objects")
    parser.add_argument("--order", action="store_true", help="print the layer order and exit")
    args = parser.parse_args()
    if args.order:
        print(order_line())
        return 0
    root = os.path.abspath(args.root)
    errors, unassigned, notes = check_includes(root)
    for line in notes:
        print(line)
    if args.objects:
        calls = check_objects(root, os.path.abspath(args.objects))
        if calls is None:
            print(f"check_layers: no object files under {args.objects}/src or /tools (build first)",
                  file=sys.stderr)
            return 2
        errors += calls
    for line in unassigned + errors:
        print(line, file=sys.stderr)
    if unassigned:
        return 2
    if errors:
        print(f"check_layers: {len(errors)} upward dependencies (order: {order_line()}; "
              "docs/architecture.md)", file=sys.stderr)
        return 1
    print(f"check_layers: layers point down ({order_line()})"
          + ("; includes and calls" if args.objects else "; includes"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
