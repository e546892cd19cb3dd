#!/usr/bin/env bash
# `clatter plot`: two runs of the pendulum (stabilized and not) overlaid: PNG sizes (automatic
# from the panel count, and --size), both runs' line colours present, the legend names, automatic
# choice of panels, log scale, and usage errors (unknown quantity, missing file).
source "$CLATTER_SOURCE_DIR/tests/viz/viz_lib.sh"
cd "$tmp"
scene="$CLATTER_SOURCE_DIR/scenes/examples/pendulum2d.json"
run_ok "$CLATTER_BIN" run "$scene" -o ah.h5 --quiet --set duration=1
run_ok "$CLATTER_BIN" run "$scene" -o none.h5 --quiet --set duration=1 --set method.scheme=none
run_ok "$CLATTER_BIN" plot ah.h5 none.h5 infeasibility energy iterations -o three.png > three.out
grep -q "wrote three.png (3 panels, 2 runs)" three.out || die "plot summary: $(cat three.out)"
run_ok "$CLATTER_BIN" plot ah.h5 none.h5 -o auto.png > auto.out
run_ok "$CLATTER_BIN" plot ah.h5 joint_error --log --size 640x360 -o sized.png > /dev/null
"$CLATTER_BIN" plot ah.h5 no_such_column -o bad.png 2> bad.err
[ $? -eq 2 ] || die "unknown quantity must exit 2"
grep -q "no_such_column" bad.err || die "unknown quantity message: $(cat bad.err)"
"$CLATTER_BIN" plot missing.h5 -o bad.png 2> /dev/null
[ $? -eq 2 ] || die "missing file must exit 2"
[ ! -e bad.png ] || die "no picture after an error"

"$PY" - <<'PY' || exit 1
import re, sys
import numpy as np
import pngread
failures = []
def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)
# Three panels in one column: 860 wide, 36 + 3 x 280 high (plot.c).
check(pngread.size("three.png") == (860, 876), f"3-panel plot is 860 x 876: {pngread.size('three.png')}")
check(pngread.size("sized.png") == (640, 360), f"--size 640x360: {pngread.size('sized.png')}")
# The default panels of a pendulum without contacts: infeasibility, joint_error, energy,
# iterations, residual, lcp_size (penetration and contacts are zero in both runs) -> 2 x 3.
m = re.search(r"\((\d+) panels", open("auto.out").read())
check(m and m.group(1) == "6", f"default quantities without all-zero ones: {open('auto.out').read().strip()}")
check(pngread.size("auto.png") == (1280, 36 + 3 * 280), f"6-panel plot is 1280 x 876: {pngread.size('auto.png')}")
img = pngread.read("three.png").astype(int)
def count(rgb):
    return int(np.sum(np.all(np.abs(img - np.array(rgb)) <= 2, axis=2)))
blue, red = count((31, 119, 180)), count((214, 39, 40))
check(blue > 300 and red > 300, f"both runs drawn (line pixels: first {blue}, second {red})")
print(f"{len(failures)} failed")
sys.exit(1 if failures else 0)
PY
