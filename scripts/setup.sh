#!/usr/bin/env bash
# Installs every Debian 12 package clatter needs to build, test and run.
# Usage: bash scripts/setup.sh            (core build + tests)
#        bash scripts/setup.sh --bench    (also the peer engines for bench/)
set -euo pipefail
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
packages=(build-essential cmake pkg-config libcjson-dev libhdf5-dev hdf5-tools
          libqhull-dev # convex hulls of polyhedra: src/geometry/convex.c
          libassimp-dev # mesh files (OBJ, STL, PLY, ...): src/io/mesh_file.c
          libxml2-dev # URDF robot descriptions: src/io/scene_urdf.c
          liblapack-dev libopenblas-dev python3 python3-numpy python3-h5py
          # the Python package (python/, docs/python.md): its headers, tests, installer and examples
          python3-dev python3-pytest python3-venv python3-setuptools python3-wheel python3-matplotlib
          libcairo2-dev fonts-dejavu-core ffmpeg python3-vtk9
          zlib1g-dev # the compressed .vtp files of clatter vtk: src/viz/vtk.c
          libode-dev # libode-dev: tests/stepper/test_ode_crosscheck.c (SPEC.md §1 peer cross-check)
          libsuitesparse-dev # CHOLMOD: src/steppers/relcp_newton.c (sparse LDLᵀ of ReLCP passes)
          afl++ clang) # coverage-guided fuzzing of the readers: scripts/fuzz_afl.sh, fuzz/README.md
if [ "${1:-}" = "--bench" ]; then
  packages+=(libsiconos-numerics-dev libode-dev libbullet-dev libmujoco-dev)
fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
