#!/usr/bin/env bash
# Validation suite (scenes/validation/, docs/validation.md): the 3D scenes,
# run with the default method and checked against scenes/validation/checks.json.
set -euo pipefail
py=/usr/bin/python3
[ -x "$py" ] || py=python3
exec "$py" "$CLATTER_SOURCE_DIR/tests/validation/check.py" --bin "$CLATTER_BIN" --dimension 3 --exclude-label big
