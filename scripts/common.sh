# Sourced by the set-up scripts: installs the Debian packages that are missing, then
# configures and builds with CMake into $BUILD_DIR. Safe to run any number of times.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-$ROOT/build}
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}

# Build and test dependencies, all from Debian 12 (redis-server and redis-tools: the Redis
# module's tests run a real server; libhiredis-dev: its benchmark's client; dpkg-dev:
# dpkg-shlibdeps computes the packages' Depends; lintian, man-db, zsh and fish: the
# packaging and completion tests; zlib1g-dev and libzstd-dev: compressed input; gzip and zstd:
# its tests make their compressed files; libre2-dev: the regular expressions of --multiline
# and --key-regex).
PACKAGES=(
  cmake g++ make pkg-config
  libcli11-dev libfmt-dev libsimdjson-dev libxxhash-dev doctest-dev
  python3 gawk
  redis-server redis-tools libhiredis-dev
  dpkg-dev lintian man-db zsh fish
  zlib1g-dev libzstd-dev gzip zstd
  libre2-dev
)

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

configure_and_build() {
  cmake -S "$ROOT" -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=${BUILD_TYPE:-RelWithDebInfo} "$@"
  cmake --build "$BUILD_DIR" -j "$JOBS"
}
