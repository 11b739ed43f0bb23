#!/usr/bin/env bash
# --version: the first line is "tlbf-dedup VERSION (commit ID)", VERSION the project's and ID the
# commit the sources were at when built ("-dirty" when tracked files differed, "unknown" outside
# a git checkout of their own). The header that carries the commit (cmake/WriteBuildCommit.cmake)
# is checked on scratch repositories: right in each case, and left untouched when nothing
# changed, since rewriting it would recompile at every build.
source "$(dirname "$0")/../lib.bash"
: "${SOURCE_DIR:?}" "${BUILD_DIR:?}"
cache_value() { grep -oP "^$1:[A-Z]+=\K.*" "$BUILD_DIR/CMakeCache.txt"; }
VERSION=$(cache_value CMAKE_PROJECT_VERSION)
CMAKE=$(cache_value CMAKE_COMMAND)

line=$("$TLBF_DEDUP" --version | head -1)
check "the first line starts with 'tlbf-dedup VERSION '" "tlbf-dedup $VERSION " "${line%%(*}"
commit=$(sed -n 's/.*(commit \(.*\))$/\1/p' <<< "$line")
if command -v git > /dev/null && [ "$(git -C "$SOURCE_DIR" rev-parse --show-toplevel 2>/dev/null)" == "$(cd "$SOURCE_DIR" && pwd -P)" ]; then
  head=$(git -C "$SOURCE_DIR" rev-parse --short=12 HEAD)
  check "it names the checked-out commit (build again after committing)" "$head" "${commit%-dirty}"
else
  check "outside a git checkout the commit is unknown" "unknown" "$commit"
fi

if ! command -v git > /dev/null; then
  echo "SKIP: git is not installed, so the commit header was not checked on scratch repositories"
  [ "$fails" -eq 0 ] && exit 77
  finish
fi
write_header() {  # SOURCE_DIR: prints the commit the header names
  "$CMAKE" -DSOURCE_DIR="$1" -DOUTPUT="$WORK/commit.hpp" -P "$SOURCE_DIR/cmake/WriteBuildCommit.cmake"
  sed -n 's/^#define TLBF_BUILD_COMMIT "\(.*\)"$/\1/p' "$WORK/commit.hpp"
}
repo="$WORK/repo"
mkdir -p "$repo/sub" "$WORK/plain"
check "a directory outside any repository: unknown" "unknown" "$(write_header "$WORK/plain")"
git -C "$repo" init -q
echo one > "$repo/file"
git -C "$repo" add file
git -C "$repo" -c user.name=test -c user.email=test@example.org commit -q -m one
id=$(git -C "$repo" rev-parse --short=12 HEAD)
check "a clean checkout: its commit" "$id" "$(write_header "$repo")"
touch -d @946684800 "$WORK/commit.hpp"
write_header "$repo" > /dev/null
check "the same commit again: the header is not rewritten" "946684800" "$(stat -c %Y "$WORK/commit.hpp")"
check "a directory inside a repository, not its top: unknown" "unknown" "$(write_header "$repo/sub")"
echo untracked > "$repo/new"
check "an untracked file does not make it dirty" "$id" "$(write_header "$repo")"
echo two > "$repo/file"
check "a changed tracked file: -dirty" "$id-dirty" "$(write_header "$repo")"
finish
