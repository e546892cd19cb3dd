# The installed library (docs/library.md): `cmake --install` of this build into a temporary prefix,
# then a program written against it (consumer/consumer.c) is built with pkg-config and with CMake's
# find_package(clatter) and run from each. Both ball positions rest on the floor, and both report
# the state hash that `clatter run` (the static archives) reports for the default scene at step 100.
source "$CLATTER_SOURCE_DIR/tests/cli/cli_lib.sh"
prefix=$tmp/prefix
expect "cmake --install" cmake --install "$CLATTER_BUILD_DIR" --prefix "$prefix"
expect "libclatter.so.0 is its SONAME" bash -c "readelf -d '$prefix/lib/libclatter.so' | grep -q 'SONAME.*libclatter.so.0\]'"
expect "exports only clt_ names" bash -c "! nm -D --defined-only '$prefix/lib/libclatter.so' | awk '{print \$3}' | grep -v '^clt_' | grep -v '^.gomp_critical_user_clt_'"

# pkg-config: the link line the README shows
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
expect "pkg-config knows clatter 0.1.0" test "$(pkg-config --modversion clatter)" = 0.1.0
flags=$(pkg-config --cflags --libs clatter)
expect "cc with pkg-config" cc -std=c11 -Wall -Wextra -Werror "$CLATTER_SOURCE_DIR/tests/install/consumer/consumer.c" \
  -o "$tmp/consumer_pc" $flags -lm -Wl,-rpath,"$(pkg-config --variable=libdir clatter)"
with_pc=$("$tmp/consumer_pc" 100)
expect "pkg-config program runs" test -n "$with_pc"

# CMake: find_package(clatter) and clatter::clatter
cp -r "$CLATTER_SOURCE_DIR/tests/install/consumer" "$tmp/src"
expect "cmake configure" cmake -S "$tmp/src" -B "$tmp/build" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release
expect "cmake build" cmake --build "$tmp/build"
with_cmake=$("$tmp/build/consumer" 100)
expect "CMake program runs" test -n "$with_cmake"

# the same answer as the clatter tool
cd "$tmp"
expect "clatter run, 100 steps" "$CLATTER_BIN" run -o ref.h5 --max-steps 100 --quiet
ref="rest_z=0.100000 hash=$(json_field ref.h5 state_hash | tr -d '"')"
echo "pkg-config: $with_pc"
echo "CMake:      $with_cmake"
echo "clatter:    $ref"
expect "pkg-config program: the tool's answer" test "$with_pc" = "$ref"
expect "CMake program: the tool's answer" test "$with_cmake" = "$ref"
finish
