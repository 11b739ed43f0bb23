#!/usr/bin/env bash
# Output bytes of emitted records are exactly the input bytes: CRLF kept, the last input's last
# record without a terminator stays without one (an earlier input's gets the input's own), invalid UTF-8 and NUL bytes untouched, -z NUL
# records, and a single 100 MB line (generated here, not committed).
source "$(dirname "$0")/../lib.bash"
D="$TLBF_DEDUP"

# CRLF and no final newline: the CR belongs to the terminator, so "a\r\n" and "a\n" share a key.
printf 'a\r\nb\r\na\nc\r\nb' > "$WORK/crlf.in"
printf 'a\r\nb\r\nc\r\n' > "$WORK/crlf.want"
"$D" "$WORK/crlf.in" > "$WORK/crlf.out"
check_files "CRLF kept, CR not part of the key" "$WORK/crlf.want" "$WORK/crlf.out"

printf 'x\ny\nlast' > "$WORK/nofinal.in"
"$D" "$WORK/nofinal.in" > "$WORK/nofinal.out"
check_files "last record without terminator stays without one" "$WORK/nofinal.in" "$WORK/nofinal.out"
printf 'x\ny\nx' | "$D" > "$WORK/nofinal2.out"
check "unterminated last record that is a duplicate is dropped" "$(printf 'x\ny\n' | od -c)" "$(od -c < "$WORK/nofinal2.out")"

# Invalid UTF-8, NUL bytes and a lone CR inside records.
printf 'ok\n\xff\xfe\x00bin\x00ary\n\xc3\x28 bad\rcr\n\xff\xfe\x00bin\x00ary\nend\n' > "$WORK/bin.in"
printf 'ok\n\xff\xfe\x00bin\x00ary\n\xc3\x28 bad\rcr\nend\n' > "$WORK/bin.want"
"$D" "$WORK/bin.in" > "$WORK/bin.out"
check_files "binary bytes untouched, duplicate binary record dropped" "$WORK/bin.want" "$WORK/bin.out"
"$D" -k 1 "$WORK/bin.in" > "$WORK/bin.k.out"
check_files "binary bytes in a field key" "$WORK/bin.want" "$WORK/bin.k.out"

# -z: NUL-terminated records; newlines are ordinary bytes inside them.
printf 'one\ntwo\0three\0one\ntwo\0four' > "$WORK/z.in"
printf 'one\ntwo\0three\0four' > "$WORK/z.want"
"$D" -z "$WORK/z.in" > "$WORK/z.out"
check_files "-z NUL records" "$WORK/z.want" "$WORK/z.out"
printf 'a b\0c d\0a e\0' | "$D" -z -k 1 > "$WORK/z2.out"
check "-z with a field key" "$(printf 'a b\0c d\0' | od -c)" "$(od -c < "$WORK/z2.out")"

# Several files are read in order, each ending where it ends.
printf 'k1\nk2\n' > "$WORK/f1"
printf 'k2\nk3\n' > "$WORK/f2"
"$D" "$WORK/f1" - "$WORK/f2" < /dev/null > "$WORK/multi.out"
check "files read in order, stdin between them" "$(printf 'k1\nk2\nk3\n')" "$(cat "$WORK/multi.out")"

# Several files are several streams: a file's last record ends at its end, newline or not.
printf 'a\nb' > "$WORK/g1"
printf 'b\nc\n' > "$WORK/g2"
"$D" "$WORK/g1" "$WORK/g2" > "$WORK/glue.out"
check "a\\nb + b\\nc\\n: b ends with its file and is a duplicate" "$(printf 'a\nb\nc\n' | od -c)" "$(od -c < "$WORK/glue.out")"
printf 'c\nd' > "$WORK/g3"
"$D" "$WORK/g2" "$WORK/g3" > "$WORK/glue2.out"
check "the last input's last record keeps its missing newline" "$(printf 'b\nc\nd' | od -c)" "$(od -c < "$WORK/glue2.out")"
printf '{"id":1}' > "$WORK/j1"
printf '{"id":2}' > "$WORK/j2"
"$D" -k id "$WORK/j1" "$WORK/j2" > "$WORK/json.out"
check "two NDJSON files without final newlines are two records" "$(printf '{"id":1}\n{"id":2}' | od -c)" "$(od -c < "$WORK/json.out")"
printf 'x\r\ny' > "$WORK/c1"
printf 'y\r\nz' > "$WORK/c2"
"$D" "$WORK/c1" "$WORK/c2" > "$WORK/crlf2.out"
check "a CR LF file's last record gets CR LF" "$(printf 'x\r\ny\r\nz' | od -c)" "$(od -c < "$WORK/crlf2.out")"
printf 'p\0q' > "$WORK/z1"
printf 'r\0q' > "$WORK/z2"
"$D" -z "$WORK/z1" "$WORK/z2" > "$WORK/z3.out"
check "-z: a file's last record gets NUL" "$(printf 'p\0q\0r\0' | od -c)" "$(od -c < "$WORK/z3.out")"

# A 100 MB line, twice, then a short one: the reader grows its buffer; bytes come out intact
# (--max-record raised above the line: the default 64M refuses it).
python3 - "$WORK/big.in" <<'PY'
import sys
with open(sys.argv[1], "wb") as f:
    line = (b"0123456789abcdef" * (100 * 1024 * 1024 // 16)) + b"\xff\r\n"
    f.write(line); f.write(b"short\n"); f.write(line); f.write(b"tail")
PY
"$D" --max-record 101M "$WORK/big.in" > "$WORK/big.out"
check "100 MB line: output size" "$(( 100 * 1024 * 1024 + 3 + 6 + 4 ))" "$(stat -c %s "$WORK/big.out")"
head -c $(( 100 * 1024 * 1024 + 3 )) "$WORK/big.in" > "$WORK/big.want"
printf 'short\ntail' >> "$WORK/big.want"
check_files "100 MB line: bytes intact, its repeat dropped" "$WORK/big.want" "$WORK/big.out"
rm -f "$WORK/big.in" "$WORK/big.out" "$WORK/big.want"
finish
