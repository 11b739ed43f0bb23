#!/usr/bin/env bash
# Builds the Debian packages: installs what is missing, builds into $BUILD_DIR (build/, the
# same build the tests use), then CPack writes the .deb files to $BUILD_DIR/packages:
# tlbf-dedup (the program), libtlbf-dev (the library for other projects) and, when the Redis
# module is built, tlbf-dedup-redis. What goes in which package: cmake/TlbfInstall.cmake.
# Usage: scripts/package.sh   (env BUILD_DIR, JOBS)
source "$(dirname "$0")/common.sh"
install_missing "${PACKAGES[@]}"
configure_and_build
rm -f "$BUILD_DIR"/packages/*.deb
cpack --config "$BUILD_DIR/CPackConfig.cmake" -B "$BUILD_DIR/packages"
echo "Packages (install with: apt install ./FILE.deb):"
ls -1 "$BUILD_DIR"/packages/*.deb
