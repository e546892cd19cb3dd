# The Python package installed as a user installs it (docs/python.md): a virtual environment of
# Debian's python3 with its system packages (NumPy, h5py), `pip install` of BUILD/python with no
# package index, then the examples run with that environment's python from outside the checkout,
# importing the installed copy.
source "$CLATTER_SOURCE_DIR/tests/cli/cli_lib.sh"
if [ ! -d "$CLATTER_BUILD_DIR/python/clatter" ]; then
  echo "FAIL: the Python package is not built in $CLATTER_BUILD_DIR/python"; exit 1
fi
venv=$tmp/venv
expect "venv of /usr/bin/python3" /usr/bin/python3 -m venv --system-site-packages "$venv"
# a copy of the package folder: pip writes its build files beside setup.py
cp -r "$CLATTER_BUILD_DIR/python" "$tmp/package"
expect "pip install" "$venv/bin/pip" install --quiet --no-index --no-build-isolation "$tmp/package"
rm -rf "$tmp/package"
cd "$tmp"
where=$("$venv/bin/python" -c 'import clatter; print(clatter.__file__)')
expect "imported from the environment ($where)" test "${where#$venv/}" != "$where"
expect "the version" test "$("$venv/bin/python" -c 'import clatter; print(clatter.__version__)')" = 0.1.0
for example in lcp_numpy control_loop; do
  expect "examples/python/$example.py" "$venv/bin/python" "$CLATTER_SOURCE_DIR/examples/python/$example.py"
done
# the default scene from the installed package: the tool's hash after 100 steps
"$CLATTER_BIN" run -o ref.h5 --max-steps 100 --quiet
want=$(json_field ref.h5 state_hash | tr -d '"')
got=$("$venv/bin/python" -c 'import clatter; w = clatter.World.default(); w.step(100); print("%016x" % w.state_hash())')
expect "default scene: the tool's state hash ($got)" test "$got" = "$want"
finish
