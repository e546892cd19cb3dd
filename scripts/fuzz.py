#!/usr/bin/env python3
"""Mutation fuzzing of clatter's inputs, meant for a sanitizer build (-DCLATTER_SANITIZE=ON).

Every case must end with exit status 0 (ran), 1 (the run failed, with a message) or 2 (bad input,
with a message naming the file), and never with a sanitizer report, a signal, another status, a
non-zero status without a message, or a hang (--timeout). Failing inputs are kept in OUT with
their stderr (bad_SEED_CASE.* and .err). Outside CI: a few minutes per thousand cases.

  scene  `clatter run CASE.json --max-steps 3 --set method.max_iterations=300`: the scenes
         (--scenes), mutated as JSON trees (a value replaced by another type, a huge, negative,
         zero or non-finite number, a key deleted or duplicated under another name, an array
         element appended) or as text
         (truncated, bytes overwritten). Exit status 3 (diverged, with a message) is accepted too:
         a mutated scene can be a valid one whose bodies start deep in each other (a polyhedron's
         vertex moved 9 km out).
  lcp    `clatter lcp [--solver S] --max-iterations 300 CASE`: the shared data files (Siconos
         .dat by tokens and truncation, FCLIB .hdf5 by overwritten bytes and truncation).
  run    `clatter info CASE.h5`, `clatter run --resume CASE.h5 --max-steps 3` and `clatter analyze
         CASE.h5 --frames 0: --what forces|coordination|packing`: the run file of
         3 steps of scenes/examples/default.json (interrupted, a checkpoint each step) with
         overwritten bytes or truncated.
  colony the same commands on the run file of
         scenes/papers/colony.json stopped after 450 steps (32 cells, a checkpoint every 50 steps)
         truncated, with overwritten bytes, or with overwritten bytes in the colony's state
         (/checkpoint/colony) and its checksum made right again (so the colony's own checks are
         reached); exit status 3 (a step failed, with a message) is accepted too.

usage: scripts/fuzz.py MODE CLATTER_BINARY [--cases N] [--seed S] [--out DIR] [--timeout SECONDS]
                      [--max-steps K] [--scenes GLOB]
       (--scenes: the scene files to mutate, default scenes/**/*.json; the problem files are read
       from $CLATTER_SHARED_DIR/data, default ../shared/data beside the checkout)
e.g.   cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DCLATTER_SANITIZE=ON
       cmake --build build-asan --target clatter_cli && scripts/fuzz.py scene build-asan/clatter
"""
import argparse
import copy
import glob
import json
import os
import random
import re
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

WEIRD = [None, True, False, 0, -1, 1, 2, -0.0, 1e308, -1e308, 1e-308, 5e-324, 3.5, -3.5, 1e9, 2**31, 2**63,
         "", "x", "NaN", "nan", "inf", "-inf", "1e999", [], {}, [0], [1, 2], [1, 2, 3, 4], [None], [[1]],
         {"a": 1}, "sphere", "box", "capsule", "halfspace", "dynamic", "static", "kinematic", "relaxed", "apgd",
         "lemke", [0, 0, 0], [0, 0, 1], [1e308, 0, 0], [-1, -1, -1], [float("nan"), 0, 0]]
TOKENS = [b"0", b"-1", b"1", b"2", b"3", b"1e308", b"-1e308", b"nan", b"inf", b"-inf", b"1e999",
          b"2147483647", b"-2147483648", b"99999999999", b"", b"x", b"0.5", b"1000000"]


def tree_paths(x, prefix=()):
    yield prefix
    if isinstance(x, dict):
        for k, v in x.items():
            yield from tree_paths(v, prefix + (k,))
    elif isinstance(x, list):
        for i, v in enumerate(x):
            yield from tree_paths(v, prefix + (i,))


def mutate_tree(rng, doc):
    paths = [p for p in tree_paths(doc) if p]
    for _ in range(rng.randint(1, 3)):
        if not paths:
            break
        p = rng.choice(paths)
        parent = doc
        try:
            for k in p[:-1]:
                parent = parent[k]
            if not isinstance(parent, (dict, list)):  # an earlier mutation of this case replaced it
                continue
            key, r = p[-1], rng.random()
            if r < 0.55:
                value, current = rng.choice(WEIRD), parent[key]
                if isinstance(current, (int, float)) and not isinstance(current, bool) and rng.random() < 0.5:
                    value = rng.choice([-current, current * 1e6, current * 1e-6, 0, current + 1,
                                        float("nan"), float("inf")])
                parent[key] = copy.deepcopy(value)
            elif r < 0.75:
                if isinstance(parent, dict):
                    del parent[key]
                else:
                    parent.pop(key)
            elif isinstance(parent, dict):
                parent[(key + "x") if isinstance(key, str) else "x"] = copy.deepcopy(parent[key])
            else:
                parent.append(copy.deepcopy(parent[key]))
        except (KeyError, IndexError, TypeError):
            pass
    return doc


def overwrite_bytes(rng, data, count, alphabet=None):
    b = bytearray(data)
    for _ in range(count):
        i = rng.randrange(len(b))
        b[i] = rng.choice(alphabet) if alphabet else rng.randrange(256)
    return bytes(b)


def scene_case(rng, sources):
    src = rng.choice(sources)
    text = open(src, "rb").read()
    if rng.random() < 0.8:
        data = json.dumps(mutate_tree(rng, json.loads(text))).encode()  # NaN / Infinity kept as written
    elif rng.random() < 0.5:
        data = text[: rng.randrange(len(text))]
    else:
        data = overwrite_bytes(rng, text, rng.randint(1, 4), b'{}[]",:0123456789.-eE \n\x00\xff')
    return src, ".json", data


def lcp_case(rng, sources):
    src = rng.choice(sources)
    data = open(src, "rb").read()
    if src.endswith(".hdf5"):
        data = overwrite_bytes(rng, data, rng.randint(1, 8))
        if rng.random() < 0.2:
            data = data[: rng.randrange(len(data))]
        return src, ".hdf5", data
    if rng.random() < 0.2:
        return src, ".dat", data[: rng.randrange(len(data))]
    tokens = re.split(rb"(\s+)", data)
    words = [i for i, t in enumerate(tokens) if t.strip()]
    for _ in range(rng.randint(1, 3)):
        i = rng.choice(words[:12] if rng.random() < 0.5 else words)  # the header often
        tokens[i] = rng.choice(TOKENS)
    return src, ".dat", b"".join(tokens)


def run_case(rng, sources):
    src = sources[0]
    data = open(src, "rb").read()
    if rng.random() < 0.2:
        return src, ".h5", data[: rng.randrange(len(data))]
    return src, ".h5", overwrite_bytes(rng, data, rng.randint(1, 16))


def fnv1a64(data):
    h = 14695981039346656037
    for c in data:
        h = ((h ^ c) * 1099511628211) & 0xFFFFFFFFFFFFFFFF
    return h


def colony_blob_size(path):
    """Bytes of /checkpoint/colony of a run file (h5ls: "colony  Dataset {1120/Inf}")."""
    out = subprocess.run(["h5ls", path + "/checkpoint"], capture_output=True, text=True).stdout
    m = re.search(r"^colony\s+Dataset \{(\d+)", out, re.M)
    return int(m.group(1)) if m else 0


def colony_case(rng, sources):
    src, size = sources[0], colony_blob_size(sources[0])
    data = open(src, "rb").read()
    r = rng.random()
    start = data.find(b"CLTCOLNY")  # the blob is stored verbatim (an uncompressed chunk)
    if r < 0.2:
        return src, ".h5", data[: rng.randrange(len(data))]
    if r < 0.5 or start < 0 or size < 16:
        return src, ".h5", overwrite_bytes(rng, data, rng.randint(1, 16))
    blob = data[start : start + size]
    body = blob[:8] + overwrite_bytes(rng, blob[8:-8], rng.randint(1, 8))
    blob = body + fnv1a64(body).to_bytes(8, "little")
    return src, ".h5", data[:start] + blob + data[start + size :]


def commands(mode, binary, case, out, rng, max_steps):
    if mode == "scene":
        # The solver's work bounded as in lcp mode: a mutation that makes a 100 km rock out of a
        # 0.1 m one overlaps everything, and 10 000 sweeps of that step are minutes under ASan.
        return [[binary, "run", case, "-o", os.path.join(out, "case_out.h5"), "--quiet", "--max-steps", max_steps,
                 "--set", "method.max_iterations=300"]]
    if mode == "lcp":
        solver = rng.choice(["lemke", "bgs", "apgd", "bbpgd", "mprgp", "nsgs", None])
        return [[binary, "lcp", "--max-iterations", "300"] + (["--solver", solver] if solver else []) + [case]]
    analyze = [binary, "analyze", case, "--frames", "0:", "--what"]
    return [[binary, "info", case], [binary, "run", "--resume", case, "--max-steps", max_steps, "--quiet"],
            analyze + ["forces"], analyze + ["coordination"], analyze + ["packing", "--region", "-9,-9,-9,9,9,9"]]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("mode", choices=["scene", "lcp", "run", "colony"])
    ap.add_argument("binary")
    ap.add_argument("--cases", type=int, default=500)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default=None)
    ap.add_argument("--timeout", type=float, default=120)
    ap.add_argument("--max-steps", default="3")
    ap.add_argument("--scenes", default=os.path.join(ROOT, "scenes", "**", "*.json"))
    a = ap.parse_args()
    binary = os.path.abspath(a.binary)
    out = a.out or os.path.join(os.getcwd(), f"fuzz-{a.mode}")
    os.makedirs(out, exist_ok=True)
    rng = random.Random(a.seed)
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=1", UBSAN_OPTIONS="print_stacktrace=1", OMP_NUM_THREADS="1")
    if a.mode == "scene":
        sources, make = sorted(glob.glob(a.scenes, recursive=True)), scene_case
    elif a.mode == "lcp":
        shared = os.environ.get("CLATTER_SHARED_DIR") or os.path.join(os.path.dirname(ROOT), "shared")
        data_dir = os.path.join(shared, "data")
        sources = sorted(f for f in glob.glob(os.path.join(data_dir, "*", "*"))
                         if f.endswith((".dat", ".hdf5")) and os.path.getsize(f) < 400000)
        make = lcp_case
    elif a.mode == "colony":
        base = os.path.join(out, "base.h5")
        p = subprocess.run([binary, "run", os.path.join(ROOT, "scenes", "papers", "colony.json"), "-o", base,
                            "--quiet", "--max-steps", "450", "--checkpoint-every", "50"], env=env, capture_output=True)
        if not os.path.exists(base):
            sys.exit(f"fuzz: could not write the base run file: {p.stderr.decode(errors='replace')}")
        sources, make = [base], colony_case
    else:
        base = os.path.join(out, "base.h5")
        p = subprocess.run([binary, "run", os.path.join(ROOT, "scenes", "examples", "default.json"), "-o", base,
                            "--quiet", "--max-steps", "3", "--checkpoint-every", "1"], env=env, capture_output=True)
        if not os.path.exists(base):
            sys.exit(f"fuzz: could not write the base run file: {p.stderr.decode(errors='replace')}")
        sources, make = [base], run_case
    if not sources:
        sys.exit(f"fuzz: no inputs for mode {a.mode}")
    tally, problems = {}, 0
    for k in range(a.cases):
        src, ext, data = make(rng, sources)
        case = os.path.join(out, "case" + ext)
        for stale in glob.glob(os.path.join(out, "case_out*")):
            os.remove(stale)
        with open(case, "wb") as f:
            f.write(data)
        for cmd in commands(a.mode, binary, case, out, rng, a.max_steps):
            if a.mode in ("run", "colony"):  # --resume appends to the file: work on a copy
                shutil.copy(case, case + ".work")
                cmd = [c if c != case else case + ".work" for c in cmd]
            problem, rc, err = None, None, ""
            try:
                p = subprocess.run(cmd, capture_output=True, timeout=a.timeout, env=env)
                rc, err = p.returncode, (p.stderr + p.stdout).decode(errors="replace")
                if "Sanitizer" in err or "runtime error" in err:
                    problem = "sanitizer report"
                elif rc < 0 or rc > (3 if a.mode in ("colony", "scene") else 2):
                    problem = f"exit status {rc}"
                elif rc != 0 and not p.stderr.strip():
                    problem = "failed without a message"
                elif rc == 2 and "case" not in p.stderr.decode(errors="replace"):
                    problem = "message does not name the file"
            except subprocess.TimeoutExpired:
                problem = f"no end within {a.timeout:g} s"
            tally[rc] = tally.get(rc, 0) + 1
            if problem:
                problems += 1
                keep = os.path.join(out, f"bad_{a.seed}_{k}{ext}")
                with open(keep, "wb") as f:
                    f.write(data)
                with open(keep + ".err", "w") as f:
                    f.write(f"{problem}\nfrom {src}\ncommand {' '.join(cmd)}\n{err[-6000:]}")
                print(f"case {k}: {problem} ({os.path.basename(src)}): {keep}", flush=True)
    print(f"fuzz {a.mode}: {a.cases} cases, {problems} problems; exit statuses {tally}", flush=True)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
