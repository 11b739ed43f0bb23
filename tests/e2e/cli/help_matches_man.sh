#!/usr/bin/env bash
# --help and the man page list the same options, short and long; the completion script
# offers the same long options.
source "$(dirname "$0")/../lib.bash"
: "${SOURCE_DIR:?}"
MAN="$SOURCE_DIR/man/tlbf-dedup.1"

"$TLBF_DEDUP" --help | grep -oE '(^|[ ,])--?[a-zA-Z][a-zA-Z-]*' | sed 's/^[ ,]//' | sort -u > "$WORK/help"
# Options in the man page: the tag lines of .TP entries (\- is a roff hyphen).
awk '/^\.TP/ { getline; print }' "$MAN" | sed 's/\\-/-/g' | grep -oE '(^|[ "])--?[a-zA-Z][a-zA-Z-]*' | sed 's/^[ "]//' | sort -u > "$WORK/man"
echo "     --help: $(tr '\n' ' ' < "$WORK/help")"
check_files "--help and the man page list the same options" "$WORK/help" "$WORK/man"
check "the list is not trivially empty" 1 "$(( $(wc -l < "$WORK/help") > 30 ? 1 : 0 ))"

# Every long option named anywhere in the man page exists.
sed 's/\\-/-/g' "$MAN" | grep -oE -- '--[a-z][a-z-]*' | sort -u > "$WORK/man_all"
grep -- '^--' "$WORK/help" > "$WORK/help_long"
check "no option in the man page's prose that the program lacks" "" "$(comm -23 "$WORK/man_all" "$WORK/help_long" | tr '\n' ' ')"

COMP="$SOURCE_DIR/completions/tlbf-dedup.bash"
grep -oE -- '--[a-z][a-z-]*' "$COMP" | sort -u > "$WORK/comp"
check_files "the bash completion offers every long option" "$WORK/help_long" "$WORK/comp"
finish
