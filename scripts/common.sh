# Sourced by the set-up scripts: installs the Debian packages that are missing, then
# configures and builds with CMake into $BUILD_DIR. Safe to run any number of times.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-$ROOT/build}
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}

# Debian 12 packages. BUILD_PACKAGES build the program (scripts/run-sample.sh installs only
# these; gzip compresses the man page at build time, libhiredis-dev is the --redis client,
# zlib1g-dev and libzstd-dev read compressed input, libre2-dev the regular expressions of
# --multiline and --key-regex). TEST_PACKAGES are the rest of what the tests, benchmarks and
# checks use: doctest-dev the unit tests; redis-server and redis-tools, the Redis module's tests
# run a real server; dpkg-dev, dpkg-shlibdeps computes the packages' Depends; lintian, man-db,
# zsh and fish, the packaging and completion tests; zstd, its tests make their compressed
# files; clang-format (14 on Debian 12), the formatting check; tzdata, the IANA zones the
# --timezone tests read (the program reads them where the system has them); miller, the table
# tests read --mark's and --count's columns back with it. PACKAGES is both.
BUILD_PACKAGES=(
  cmake g++ make pkg-config
  libcli11-dev libfmt-dev libsimdjson-dev libxxhash-dev
  zlib1g-dev libzstd-dev gzip libre2-dev libhiredis-dev
)
TEST_PACKAGES=(
  doctest-dev python3 gawk
  redis-server redis-tools
  dpkg-dev lintian man-db zsh fish
  zstd clang-format tzdata miller
)
PACKAGES=("${BUILD_PACKAGES[@]}" "${TEST_PACKAGES[@]}")

install_missing() {
  local missing=() p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    echo "Installing: ${missing[*]}"
    local sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
  fi
}

# configure_and_build [CMAKE ARGS...] [-- TARGET...]: configures, then builds the targets named
# after `--` (everything without them).
configure_and_build() {
  local args=() targets=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do args+=("$1"); shift; done
  [ $# -eq 0 ] || { shift; targets=("$@"); }
  cmake -S "$ROOT" -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=${BUILD_TYPE:-RelWithDebInfo} "${args[@]}"
  cmake --build "$BUILD_DIR" -j "$JOBS" ${targets[@]:+--target "${targets[@]}"}
}
