# Debian packages with CPack: `cpack --config build/CPackConfig.cmake` (scripts/package.sh)
# writes one .deb per component of cmake/TlbfInstall.cmake:
#
#   tlbf-dedup_VERSION_ARCH.deb        the program (what an operator installs on each host)
#   libtlbf-dev_VERSION_all.deb        the library for building other programs; apart, as
#                                      Debian keeps headers and build files out of the
#                                      package that runs, and architecture-independent
#                                      because the library is header-only
#   tlbf-dedup-redis_VERSION_ARCH.deb  the Redis module, only when the target tlbf_redis exists
#
# Depends of the packages that hold binaries are computed by dpkg-shlibdeps from the
# libraries they link, so a library added later (zlib, zstd, hiredis) is picked up without
# an edit here. Only what no binary shows is written down: the headers' own dependency.

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME tlbf-dedup)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "tlbf-dedup")
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_PACKAGE_DIRECTORY ${PROJECT_BINARY_DIR}/packages)
# Install into the staging directory through DESTDIR with the prefix /usr, so that code run
# at install time sees /usr and not the staging path: tlbf.pc must say prefix=/usr.
set(CPACK_SET_DESTDIR ON)
set(CPACK_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
# cpack packages the build as it is, the one the tests ran on: its "preinstall" step must not
# build anything first (it would rebuild under tests that run the binary meanwhile).
set(CMAKE_SKIP_INSTALL_ALL_DEPENDENCY ON)

set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL ${TLBF_PACKAGES})  # from TlbfInstall.cmake
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER ${TLBF_PACKAGE_MAINTAINER})
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)

set(CPACK_DEBIAN_TLBF-DEDUP_PACKAGE_NAME tlbf-dedup)
set(CPACK_DEBIAN_TLBF-DEDUP_PACKAGE_SECTION utils)
set(CPACK_COMPONENT_TLBF-DEDUP_DESCRIPTION
"remove duplicate records within a time window, in bounded memory
tlbf-dedup reads lines, NUL-terminated records or NDJSON from files or standard
input and writes each record whose key was not emitted within a time or count
window. The record's time comes from a field (to replay logs) or from the wall
clock (to follow them); the key is the whole record, fields, a regex match or
JSON paths. A Time-limited Bloom filter keeps memory bounded: no duplicate
inside the window is missed, and unique records are dropped at most at a chosen
rate (or never, with the exact variant).")

set(CPACK_DEBIAN_LIBTLBF-DEV_PACKAGE_NAME libtlbf-dev)
set(CPACK_DEBIAN_LIBTLBF-DEV_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_LIBTLBF-DEV_PACKAGE_ARCHITECTURE all)
# The headers include xxhash.h; tlbfConfig.cmake finds it through pkg-config.
set(CPACK_DEBIAN_LIBTLBF-DEV_PACKAGE_DEPENDS "libxxhash-dev, pkg-config")
set(CPACK_COMPONENT_LIBTLBF-DEV_DESCRIPTION
"time-window Bloom filters as a header-only C++17 library
The filter library of tlbf-dedup: Time-limited, age-partitioned and guarded
epoch Bloom filters and an exact window, behind one interface, with parameter
calculators and a versioned state format. It does no I/O. Use it with
find_package(tlbf CONFIG) and the target tlbf::tlbf, or pkg-config tlbf.")

set(CPACK_DEBIAN_TLBF-DEDUP-REDIS_PACKAGE_NAME tlbf-dedup-redis)
set(CPACK_DEBIAN_TLBF-DEDUP-REDIS_PACKAGE_SECTION database)
# A module is of no use without a server, but the server may come from elsewhere.
set(CPACK_DEBIAN_TLBF-DEDUP-REDIS_PACKAGE_RECOMMENDS redis-server)
set(CPACK_COMPONENT_TLBF-DEDUP-REDIS_DESCRIPTION
"time-window Bloom filters as a Redis module
A Redis module that keeps tlbf-dedup's time-window filters as Redis values, so
that several producers can deduplicate one stream. Load it with
loadmodule /usr/lib/redis/modules/tlbf_redis.so in redis.conf.")

include(CPack)
