#!/usr/bin/env bash
# The Debian packages, as a user gets them. cpack builds them once from this build into a
# scratch directory; each is unpacked (dpkg -x, no root needed) into one fresh root, where the
# installed program runs on the bundled sample, man reads the installed page, and the
# completions, documents and library files are where Debian's tools look for them. Depends
# must name the package of every shared library the binaries load, and lintian must report
# no error. The Redis module's package is expected exactly when the build made the module,
# and a redis-server, when there is one, loads the installed module and answers its commands.
if command -v redis-server > /dev/null && command -v redis-cli > /dev/null && [ -n "${TLBF_REDIS_MODULE:-}" ]; then
  source "$(dirname "$0")/../redis_lib.bash"  # lib.bash, and start_server for the installed module
  have_redis_server=1
else
  source "$(dirname "$0")/../lib.bash"
  have_redis_server=0
fi
: "${SOURCE_DIR:?}" "${BUILD_DIR:?}"

missing=()
for tool in dpkg-deb dpkg-shlibdeps lintian man ldd; do
  command -v "$tool" > /dev/null || missing+=("$tool")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "SKIP: ${missing[*]} not installed (scripts/test.sh installs them)"
  exit 77
fi
cache_value() { grep -oP "^$1:[A-Z]+=\K.*" "$BUILD_DIR/CMakeCache.txt"; }
VERSION=$(cache_value CMAKE_PROJECT_VERSION)
ARCH=$(dpkg --print-architecture)
PKGS="$WORK/packages"
ROOT="$WORK/root"

status=0
"$(cache_value CMAKE_CPACK_COMMAND)" --config "$BUILD_DIR/CPackConfig.cmake" -B "$PKGS" > "$WORK/cpack.log" 2>&1 || status=$?
check "cpack builds the packages" 0 "$status"
[ "$status" -eq 0 ] || { cat "$WORK/cpack.log"; finish; exit 1; }

expected="libtlbf-dev_${VERSION}_all.deb tlbf-dedup_${VERSION}_${ARCH}.deb"
redis_module=$(find "$BUILD_DIR/redis-module" -name tlbf_redis.so -print -quit 2>/dev/null)
[ -z "$redis_module" ] || expected="$expected tlbf-dedup-redis_${VERSION}_${ARCH}.deb"
sorted_words() { tr ' ' '\n' | grep . | LC_ALL=C sort | tr '\n' ' '; }
check "one package per component, named as Debian names them" "$(sorted_words <<< "$expected")" \
  "$(cd "$PKGS" && ls -- *.deb | sorted_words)"

mkdir "$ROOT"
for deb in "$PKGS"/*.deb; do
  dpkg-deb -x "$deb" "$ROOT"
  dpkg-deb -c "$deb" | awk '$1 !~ /^d/ { print $6 }' >> "$WORK/all_files"
done
check "no file is in two packages" "" "$(sort "$WORK/all_files" | uniq -d | tr '\n' ' ')"
field() { dpkg-deb -f "$PKGS/$1_${VERSION}_$2.deb" "$3"; }

# --- tlbf-dedup: the program runs, with its manual page, completions and documents ----------
BIN="$ROOT/usr/bin/tlbf-dedup"
SAMPLE="$TESTDATA/sample_access.log"
status=0
"$BIN" -k 1,6-10 -t 4,5 -w 5m "$SAMPLE" > "$WORK/installed.out" 2> "$WORK/installed.err" || status=$?
check "the installed program runs on the sample" 0 "$status"
"$TLBF_DEDUP" -k 1,6-10 -t 4,5 -w 5m "$SAMPLE" > "$WORK/built.out"
check_files "it writes what the built program writes" "$WORK/built.out" "$WORK/installed.out"
check "and that drops duplicates of the sample" 1 \
  "$(( $(wc -l < "$WORK/installed.out") > 0 && $(wc -l < "$WORK/installed.out") < $(wc -l < "$SAMPLE") ? 1 : 0 ))"
check "--version of the installed program names the package's version" \
  "tlbf-dedup $(field tlbf-dedup "$ARCH" Version) " "$("$BIN" --version | head -1 | grep -oE '^tlbf-dedup [^ ]+ ')"

PAGE="$ROOT/usr/share/man/man1/tlbf-dedup.1.gz"
zcat "$PAGE" > "$WORK/page.1"
check_files "the installed manual page is man/tlbf-dedup.1, compressed" "$SOURCE_DIR/man/tlbf-dedup.1" "$WORK/page.1"
status=0
MANWIDTH=80 man --warnings -P cat -l "$PAGE" > "$WORK/man.out" 2> "$WORK/man.err" || status=$?
check "man -l reads the installed page" 0 "$status"
check "without a warning" "" "$(cat "$WORK/man.err")"
check "man shows its NAME and SYNOPSIS" 2 "$(grep -cE '^(NAME|SYNOPSIS)$' "$WORK/man.out")"

check_files "bash completion in bash-completion's directory" "$SOURCE_DIR/completions/tlbf-dedup.bash" \
  "$ROOT/usr/share/bash-completion/completions/tlbf-dedup"
check_files "zsh completion in Debian's vendor-completions" "$SOURCE_DIR/completions/_tlbf-dedup" \
  "$ROOT/usr/share/zsh/vendor-completions/_tlbf-dedup"
check_files "fish completion in fish's vendor_completions.d" "$SOURCE_DIR/completions/tlbf-dedup.fish" \
  "$ROOT/usr/share/fish/vendor_completions.d/tlbf-dedup.fish"
check_files "README.md among the documents" "$SOURCE_DIR/README.md" "$ROOT/usr/share/doc/tlbf-dedup/README.md"

# Depends: the package of every shared library a binary loads (as this system resolves
# it), and no development package.
owner_of() {  # the installed package holding a library, under /lib or /usr/lib (merged /usr)
  local candidate owner
  for candidate in "$1" "/usr$1" "${1#/usr}" "$(readlink -f "$1")"; do
    owner=$(dpkg -S "$candidate" 2>/dev/null) || continue
    echo "${owner%%:*}"
    return
  done
}
# check_depends PACKAGE ARCH FILE...
check_depends() {
  local package=$1 arch=$2 depends lib path owner missing_libs=""
  shift 2
  depends=" $(field "$package" "$arch" Depends | tr ',|' '  ' | sed 's/([^)]*)//g') "
  for file in "$@"; do
    while read -r lib path; do
      owner=$(owner_of "$path")
      [[ "$depends" == *" $owner "* ]] || missing_libs="$missing_libs $lib(${owner:-no package})"
    done < <(ldd "$file" | awk '$2 == "=>" && $3 ~ /^\// { print $1, $3 }')
  done
  check "$package: Depends names the package of every library it loads" "" "$missing_libs"
  check "$package: Depends names no -dev package" "" "$(tr ' ' '\n' <<< "$depends" | grep -- '-dev$' || true)"
}
check_depends tlbf-dedup "$ARCH" "$BIN"
check "tlbf-dedup: Depends has the libraries' packages" 1 \
  "$(field tlbf-dedup "$ARCH" Depends | grep -c 'libfmt.*libsimdjson')"

# --- libtlbf-dev: every header, the CMake package and tlbf.pc for /usr ----------------------
(cd "$SOURCE_DIR/include" && find tlbf -type f | sort) > "$WORK/headers.src"
(cd "$ROOT/usr/include" && find tlbf -type f | sort) > "$WORK/headers.pkg"
check_files "libtlbf-dev holds every file of include/tlbf" "$WORK/headers.src" "$WORK/headers.pkg"
for f in tlbfConfig.cmake tlbfConfigVersion.cmake tlbfTargets.cmake; do
  check "libtlbf-dev holds the CMake package's $f" 1 "$([ -f "$ROOT/usr/share/cmake/tlbf/$f" ] && echo 1)"
done
check "tlbf.pc names the prefix /usr" "prefix=/usr" "$(grep '^prefix=' "$ROOT/usr/share/pkgconfig/tlbf.pc")"
check "libtlbf-dev depends on xxHash's headers" 1 "$(field libtlbf-dev all Depends | grep -c 'libxxhash-dev')"

# --- tlbf-dedup-redis ------------------------------------------------------------------------
if [ -n "$redis_module" ]; then
  MODULE="$ROOT/usr/lib/redis/modules/tlbf_redis.so"
  check "the Redis module is in /usr/lib/redis/modules" 1 "$([ -f "$MODULE" ] && echo 1)"
  check_depends tlbf-dedup-redis "$ARCH" "$MODULE"
  if [ "$have_redis_server" -eq 1 ]; then
    TLBF_REDIS_MODULE="$MODULE" start_server installed
    check "redis-server loads the installed module" 1 "$(rc installed MODULE LIST | grep -c "$MODULE")"
    rc installed TLBF.RESERVE f WINDOW 10000 ERROR 1e-3 CAPACITY 1000 > /dev/null
    check "and its filter answers: new, new, duplicate" "1 1 0" "$(rc installed TLBF.ADD f TIME 1000 a b a | paste -sd' ')"
    stop_server installed
  else
    echo "     (redis-server or redis-cli is not installed: the installed module was not loaded)"
  fi
fi

# --- every package: Debian's copyright and changelog; lintian ------------------------------
for deb in "$PKGS"/*.deb; do
  package=$(dpkg-deb -f "$deb" Package)
  check "$package: has its copyright file" 1 "$([ -f "$ROOT/usr/share/doc/$package/copyright" ] && echo 1)"
  check "$package: its copyright file gives the project's licence (MIT, Debian's Expat)" "License: Expat" \
    "$(sed -n '/^Files: \*$/,/^$/p' "$ROOT/usr/share/doc/$package/copyright" | grep '^License:')"
  check "$package: its maintainer is the project's, not a placeholder" "$(cache_value TLBF_PACKAGE_MAINTAINER)" \
    "$(dpkg-deb -f "$deb" Maintainer)"
  check "$package: its changelog is for this version" "tlbf-dedup ($VERSION)" \
    "$(zcat "$ROOT/usr/share/doc/$package/changelog.gz" | head -1 | sed 's/).*/)/')"
done
# lintian exits 2 when it finds an error (--fail-on) and 1 when it cannot check at all.
status=0
lintian --fail-on error --tag-display-limit 0 "$PKGS"/*.deb > "$WORK/lintian.out" 2>&1 || status=$?
echo "     lintian said:"; sed 's/^/       /' "$WORK/lintian.out"
check "lintian checks the packages and reports no error" 0 "$status"
finish
