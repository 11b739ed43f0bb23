#!/usr/bin/env bash
# Another project can use the installed filter library: `cmake --install` of the libtlbf-dev
# component (what the Debian package of that name holds) into a scratch prefix, then the
# program in tests/downstream/ is built against that prefix alone, once with
# find_package(tlbf CONFIG REQUIRED) and once with `pkg-config --cflags --libs tlbf`, and both
# builds run. The CMake package must also refuse a version it is not compatible with.
source "$(dirname "$0")/../lib.bash"
: "${SOURCE_DIR:?}" "${BUILD_DIR:?}"
PREFIX="$WORK/prefix"
DOWNSTREAM="$SOURCE_DIR/tests/downstream"
CXX=${CXX:-c++}
EXPECTED="new 1, duplicate inside the window 1, new after it 1"

status=0
cmake --install "$BUILD_DIR" --prefix "$PREFIX" --component libtlbf-dev > "$WORK/install.log" 2>&1 || status=$?
check "cmake --install --component libtlbf-dev" 0 "$status"
[ "$status" -eq 0 ] || { cat "$WORK/install.log"; finish; exit 1; }
check "the headers are installed" 1 "$(( $(find "$PREFIX/include/tlbf" -name '*.hpp' | wc -l) > 5 ? 1 : 0 ))"

# find_package(tlbf CONFIG REQUIRED), searching the scratch prefix only.
configure() {  # BUILD_SUBDIR [CMAKE ARGS...]
  local dir="$WORK/$1"; shift
  cmake -S "$DOWNSTREAM" -B "$dir" -DCMAKE_PREFIX_PATH="$PREFIX" -DCMAKE_CXX_COMPILER="$CXX" \
    -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF -DCMAKE_FIND_USE_SYSTEM_PACKAGE_REGISTRY=OFF "$@"
}
status=0
configure cmake > "$WORK/cmake.log" 2>&1 || status=$?
check "find_package(tlbf CONFIG REQUIRED) configures" 0 "$status"
check "it found the package in the install prefix" 1 \
  "$(grep -c -F -- "-- tlbf $(grep -oP '^CMAKE_PROJECT_VERSION:STATIC=\K.*' "$BUILD_DIR/CMakeCache.txt") from $PREFIX/share/cmake/tlbf" "$WORK/cmake.log")"
status=0
cmake --build "$WORK/cmake" >> "$WORK/cmake.log" 2>&1 || status=$?
check "the CMake project builds" 0 "$status"
[ "$status" -eq 0 ] || tail -30 "$WORK/cmake.log"
[ "$status" -eq 0 ] && check "the CMake-built program runs" "$EXPECTED" "$("$WORK/cmake/app")"

status=0
configure cmake-v99 -DTLBF_WANT_VERSION=99.0 > "$WORK/cmake-v99.log" 2>&1 || status=$?
check "find_package(tlbf 99.0) is refused" 1 "$(( status != 0 ? 1 : 0 ))"
check "the refusal names the version found" 1 "$(( $(grep -c 'tlbfConfig.cmake, version: ' "$WORK/cmake-v99.log") > 0 ? 1 : 0 ))"

# pkg-config, with nothing but the scratch prefix's tlbf.pc added to the search path.
export PKG_CONFIG_PATH="$PREFIX/share/pkgconfig"
check "pkg-config --cflags tlbf" "-I$PREFIX/include" "$(pkg-config --cflags tlbf | xargs)"
status=0
# shellcheck disable=SC2046  # the flags are separate words
"$CXX" -std=c++17 $(pkg-config --cflags tlbf) "$DOWNSTREAM/main.cpp" -o "$WORK/app-pc" $(pkg-config --libs tlbf) \
  > "$WORK/pc.log" 2>&1 || status=$?
check "the program builds with pkg-config's flags" 0 "$status"
[ "$status" -eq 0 ] || cat "$WORK/pc.log"
[ "$status" -eq 0 ] && check "the pkg-config-built program runs" "$EXPECTED" "$("$WORK/app-pc")"
finish
