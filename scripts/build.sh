#!/usr/bin/env bash
# Builds clatter (the library, the `clatter` tool, libclatter.so and the Python package) in build/,
# and installs the Python package into the virtual environment .venv of Debian's /usr/bin/python3
# (with its system packages: NumPy, h5py, matplotlib), so that `.venv/bin/python` imports clatter.
# Usage: bash scripts/build.sh   (after scripts/setup.sh; the README's first command runs both)
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$jobs"
if [ ! -x .venv/bin/python ]; then
  /usr/bin/python3 -m venv --system-site-packages .venv
fi
# pip builds in the folder it is given: a copy keeps build/python as CMake made it
staging=$(mktemp -d)
trap 'rm -rf "$staging"' EXIT
cp -r build/python "$staging/package"
.venv/bin/pip install --quiet --no-index --no-build-isolation --force-reinstall --no-deps "$staging/package"
echo "clatter $(.venv/bin/python -c 'import clatter; print(clatter.__version__)') installed in .venv (.venv/bin/python)"
