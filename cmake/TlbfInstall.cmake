# What `cmake --install` puts where, and in which package (CPack component) it ships.
#
#   tlbf-dedup        the program, its manual page, the bash/zsh/fish completions, user docs
#   libtlbf-dev       the header-only filter library: include/tlbf/, the CMake package
#                     (find_package(tlbf CONFIG), target tlbf::tlbf) and tlbf.pc
#   tlbf-dedup-redis  the Redis module, when redis-module/ defines the target tlbf_redis
#
# Included last from the top-level CMakeLists.txt, so every target exists by then. Install
# rules without a COMPONENT (src/ has one for the binary) fall into tlbf-dedup, because
# the top level sets CMAKE_INSTALL_DEFAULT_COMPONENT_NAME before adding src/.
#
# Two files depend on the prefix given at install time (`cmake --install build --prefix P`
# and CPack's /usr may differ from the one configured): tlbf.pc names it, and zsh looks
# for completions in a different directory under /usr than under /usr/local. Both are
# therefore written by install-time code. The Debian copyright and changelog are part of
# the packages only (EXCLUDE_FROM_ALL: a plain `cmake --install` leaves them out).
include(CMakePackageConfigHelpers)

find_program(TLBF_GZIP gzip REQUIRED)
set(TLBF_PACKAGING_DIR ${PROJECT_BINARY_DIR}/packaging)

# Debian wants manual pages and changelogs compressed, without a timestamp in the header (-n)
# so that rebuilding the same sources gives the same package.
function(tlbf_gzip_at_build_time source output)
  add_custom_command(OUTPUT ${output}
    COMMAND ${TLBF_GZIP} -9 -n -c ${source} > ${output}
    DEPENDS ${source} VERBATIM)
endfunction()

# --- tlbf-dedup: the program ----------------------------------------------------------------
# (The binary's own rule is in src/CMakeLists.txt.)
tlbf_gzip_at_build_time(${PROJECT_SOURCE_DIR}/man/tlbf-dedup.1 ${TLBF_PACKAGING_DIR}/tlbf-dedup.1.gz)
install(FILES ${TLBF_PACKAGING_DIR}/tlbf-dedup.1.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 COMPONENT tlbf-dedup)

set(TLBF_COMPLETIONS ${PROJECT_SOURCE_DIR}/completions)
install(FILES ${TLBF_COMPLETIONS}/tlbf-dedup.bash RENAME tlbf-dedup
  DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions COMPONENT tlbf-dedup)
install(FILES ${TLBF_COMPLETIONS}/tlbf-dedup.fish
  DESTINATION ${CMAKE_INSTALL_DATADIR}/fish/vendor_completions.d COMPONENT tlbf-dedup)
# zsh (Debian's $fpath) reads packaged completions from /usr/share/zsh/vendor-completions and
# local ones from /usr/local/share/zsh/site-functions; it has no directory that fits both.
install(CODE "
  if(CMAKE_INSTALL_PREFIX STREQUAL \"/usr\")
    set(zsh_dir vendor-completions)
  else()
    set(zsh_dir site-functions)
  endif()
  file(INSTALL \"${TLBF_COMPLETIONS}/_tlbf-dedup\"
       DESTINATION \"\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_DATADIR}/zsh/\${zsh_dir}\")
  " COMPONENT tlbf-dedup)

install(FILES README.md docs/usage.md docs/filters.md docs/state.md
  DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT tlbf-dedup)

# --- libtlbf-dev: the library for other projects -------------------------------------------
# The whole directory, so that headers added or split later are installed without a list
# to keep up to date.
install(DIRECTORY include/tlbf DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT libtlbf-dev)

# The CMake package and tlbf.pc go under share/, not lib/: the library is header-only, so
# they are the same on every architecture.
set(TLBF_CMAKE_PACKAGE_DIR ${CMAKE_INSTALL_DATADIR}/cmake/tlbf)
install(TARGETS tlbf EXPORT tlbfTargets COMPONENT libtlbf-dev)
install(EXPORT tlbfTargets NAMESPACE tlbf:: DESTINATION ${TLBF_CMAKE_PACKAGE_DIR} COMPONENT libtlbf-dev)
configure_package_config_file(cmake/tlbfConfig.cmake.in ${TLBF_PACKAGING_DIR}/tlbfConfig.cmake
  INSTALL_DESTINATION ${TLBF_CMAKE_PACKAGE_DIR})
# Before 1.0 a minor version may change the interface, so only the same minor version
# (and a newer patch level) satisfies a request.
write_basic_package_version_file(${TLBF_PACKAGING_DIR}/tlbfConfigVersion.cmake
  COMPATIBILITY SameMinorVersion ARCH_INDEPENDENT)
install(FILES ${TLBF_PACKAGING_DIR}/tlbfConfig.cmake ${TLBF_PACKAGING_DIR}/tlbfConfigVersion.cmake
  DESTINATION ${TLBF_CMAKE_PACKAGE_DIR} COMPONENT libtlbf-dev)

# tlbf.pc: everything but the prefix is known now; @TLBF_PC_PREFIX@ becomes the install
# prefix at install time. (A prefix derived from ${pcfiledir} would avoid this, but pkg-config
# would then print -I/usr/share/pkgconfig/../../include for a system install, which it no
# longer recognises as the system directory and which reorders the compiler's search path.)
set(TLBF_PC_PREFIX "@CMAKE_INSTALL_PREFIX@")
configure_file(cmake/tlbf.pc.in ${TLBF_PACKAGING_DIR}/tlbf.pc.in @ONLY)
# The file is configured in a directory of its own for each destination, so that installs
# to two prefixes at once (a package build beside `cmake --install`) cannot swap contents.
install(CODE "
  string(MD5 destination \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}\")
  set(pc \"${TLBF_PACKAGING_DIR}/install-\${destination}/tlbf.pc\")
  configure_file(\"${TLBF_PACKAGING_DIR}/tlbf.pc.in\" \"\${pc}\" @ONLY)
  file(INSTALL \"\${pc}\" DESTINATION \"\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_DATADIR}/pkgconfig\")
  " COMPONENT libtlbf-dev)

# --- tlbf-dedup-redis: the Redis module -----------------------------------------------------
# Redis loads a module by path (loadmodule in redis.conf, MODULE LOAD); nothing links
# against it, so it goes beside other packaged modules in /usr/lib/redis/modules, not in the
# multiarch library directory that ld.so searches. It keeps its execute bits: since 7.0
# redis-server refuses to load a module file that is not executable.
set(TLBF_REDIS_MODULE_DIR lib/redis/modules)
if(TARGET tlbf_redis)
  install(TARGETS tlbf_redis LIBRARY DESTINATION ${TLBF_REDIS_MODULE_DIR} COMPONENT tlbf-dedup-redis
    PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
  if(EXISTS ${PROJECT_SOURCE_DIR}/docs/redis.md)
    install(FILES docs/redis.md DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/tlbf-dedup-redis
      COMPONENT tlbf-dedup-redis)
  endif()
endif()

# --- Debian's copyright and changelog, one pair per package ---------------------------------
# The address the project's own commits are made under; a distribution that rebuilds the
# packages sets its own with -DTLBF_PACKAGE_MAINTAINER.
set(TLBF_PACKAGE_MAINTAINER "tlbf-dedup maintainers <maintainers@users.noreply.a-seed-5fe4ea74.example>" CACHE STRING
    "Maintainer of the Debian packages, named in their control files and changelog")
string(TIMESTAMP TLBF_CHANGELOG_DATE "%a, %d %b %Y %H:%M:%S +0000" UTC)
configure_file(cmake/debian/changelog.in ${TLBF_PACKAGING_DIR}/changelog @ONLY)
tlbf_gzip_at_build_time(${TLBF_PACKAGING_DIR}/changelog ${TLBF_PACKAGING_DIR}/changelog.gz)
add_custom_target(tlbf_install_files ALL DEPENDS
  ${TLBF_PACKAGING_DIR}/tlbf-dedup.1.gz ${TLBF_PACKAGING_DIR}/changelog.gz)

set(TLBF_PACKAGES tlbf-dedup libtlbf-dev)
if(TARGET tlbf_redis)
  list(APPEND TLBF_PACKAGES tlbf-dedup-redis)
endif()
foreach(package ${TLBF_PACKAGES})
  install(FILES cmake/debian/copyright ${TLBF_PACKAGING_DIR}/changelog.gz
    DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/${package} COMPONENT ${package} EXCLUDE_FROM_ALL)
endforeach()
