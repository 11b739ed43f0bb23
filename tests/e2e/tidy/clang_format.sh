#!/usr/bin/env bash
# Every C++ source of the repository is formatted as .clang-format says, by the clang-format of
# Debian 12 (version 14; another version formats some constructs differently, so it is refused
# rather than trusted). Fix with: clang-format -i FILE.
source "$(dirname "$0")/../lib.bash"
: "${SOURCE_DIR:?}"
format=$(command -v clang-format-14 || command -v clang-format || true)
check "clang-format is installed (scripts/common.sh installs it)" 1 "$([ -n "$format" ] && echo 1 || echo 0)"
[ -n "$format" ] || finish
version=$("$format" --version | sed -n 's/.*clang-format version \([0-9]*\)\..*/\1/p')
check "clang-format is version 14, as in Debian 12" 14 "$version"
cd "$SOURCE_DIR"
# The sources outside the build directories (/build*/ in .gitignore) and .git.
find . -path ./.git -prune -o -path './build*' -prune -o -type f \
  \( -name '*.cpp' -o -name '*.hpp' -o -name '*.h' -o -name '*.cc' -o -name '*.c' \) -print | sort > "$WORK/files"
check "there are C++ sources to check" 1 "$([ "$(wc -l < "$WORK/files")" -gt 100 ] && echo 1 || echo 0)"
# One run over all files (a process per file takes minutes on a loaded machine); each difference
# is reported as "FILE:LINE:COL: error: code should be clang-formatted".
xargs "$format" --dry-run -Werror < "$WORK/files" > "$WORK/format.out" 2>&1 && status=0 || status=$?
unformatted=$(sed -n 's|^\./\([^:]*\):[0-9]*:[0-9]*: error: .*|\1|p' "$WORK/format.out" | sort -u)
check "clang-format fails exactly when it names a file" "$([ -n "$unformatted" ] && echo fails || echo passes)" \
  "$([ "$status" -ne 0 ] && echo fails || echo passes)"
check "every C++ source is formatted (clang-format -i on each file named)" "" "$unformatted"
finish
