#!/usr/bin/env bash
# Validation suite (scenes/validation/, docs/validation.md): the big acceptance stacks (label
# "big" in scenes/validation/checks.json: the 210-box 2D pyramid, the 20-cube
# 3D tower and the 30-cube 3D pyramid, 10 s each), run with the default method. A run that
# exceeds its wall budget (max_wall_s) is interrupted and fails. ctest label no_sanitize
# (tests/CMakeLists.txt): too slow for the sanitizer build.
set -euo pipefail
py=/usr/bin/python3
[ -x "$py" ] || py=python3
exec "$py" "$CLATTER_SOURCE_DIR/tests/validation/check.py" --bin "$CLATTER_BIN" --label big
