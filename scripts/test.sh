#!/usr/bin/env bash
# Checks the layering, builds clatter and runs the whole test suite: a warnings-as-errors release
# build, 20 s of coverage-guided fuzzing of each reader (scripts/fuzz_afl.sh, fuzz/README.md),
# then an AddressSanitizer + UBSan build of the same tests. Usage: bash scripts/test.sh
# [--no-sanitize] (without the sanitizer build and the fuzzing)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
jobs=$(nproc 2>/dev/null || echo 2)

# layers only point down (docs/architecture.md): the includes now, the calls in tools/test_check_layers
/usr/bin/python3 scripts/check_layers.py

cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DCLATTER_WERROR=ON >/dev/null
cmake --build build -j"$jobs"
ctest --test-dir build --output-on-failure -j"$jobs"

if [ "${1:-}" != "--no-sanitize" ]; then
  # a short coverage-guided run from the committed corpora: any crash or hang fails the suite
  bash scripts/fuzz_afl.sh --seconds 20 --parallel
  cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DCLATTER_WERROR=ON -DCLATTER_SANITIZE=ON >/dev/null
  cmake --build build-asan -j"$jobs"
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
    ctest --test-dir build-asan --output-on-failure -j"$jobs" -LE no_sanitize
fi
