#!/usr/bin/env bash
# Tables read by column name (-f csv, -f tsv, Zeek logs found by their #separator line): the
# fixtures of testdata/tables deduplicated by -a exact equal, byte for byte, what
# tests/e2e/table_reference.py writes for them; --mark and --count add a column, in the header
# too, that Miller reads back; bad input is written as read and warned about.
source "$(dirname "$0")/../lib.bash"
D="$TLBF_DEDUP"
T="$TESTDATA/tables"
REF=(python3 "$E2E_DIR/table_reference.py")

# A Zeek dns.log: two header blocks (the second with its columns in another order), #close
# lines; keyed by the #fields names, timed by ts (epoch seconds), found without -f.
"${REF[@]}" --format zeek --key id.orig_h --key query --time ts --window 60 "$T/zeek_dns.log" > "$WORK/zeek.ref"
"$D" -a exact -k id.orig_h -k query -t ts -w 1m "$T/zeek_dns.log" > "$WORK/zeek.out" 2> "$WORK/zeek.err"
check_files "zeek: the exact window, headers passed through" "$WORK/zeek.ref" "$WORK/zeek.out"
check "zeek: no warning about the # lines" "" "$(cat "$WORK/zeek.err")"
check "zeek: some rows are duplicates" 1 "$([ "$(wc -l < "$WORK/zeek.out")" -lt "$(wc -l < "$T/zeek_dns.log")" ] && echo 1)"
"$D" -a exact -f zeek -k id.orig_h -k query -t ts -w 1m "$T/zeek_dns.log" > "$WORK/zeek_f.out"
check_files "zeek: -f zeek reads it alike" "$WORK/zeek.ref" "$WORK/zeek_f.out"

# A CSV export with CR LF line ends, quoted commas, doubled quotes and a quoted newline.
"${REF[@]}" --format csv --key user --key action "$T/export.csv" > "$WORK/csv.ref"
"$D" -a exact -f csv -k user -k action "$T/export.csv" > "$WORK/csv.out"
check_files "csv: keyed by two columns" "$WORK/csv.ref" "$WORK/csv.out"
"${REF[@]}" --format csv --key action --time time --window 7200 "$T/export.csv" > "$WORK/csv_t.ref"
"$D" -a exact -f csv -k action -t time -w 2h "$T/export.csv" > "$WORK/csv_t.out"
check_files "csv: a quoted column, timed by a column" "$WORK/csv_t.ref" "$WORK/csv_t.out"
"$D" -a exact -f csv -k 2 -k 3 "$T/export.csv" > "$WORK/csv_n.out"
check_files "csv: field numbers still work" "$WORK/csv.ref" "$WORK/csv_n.out"

# A TSV dump, and two of them: the header written once.
"${REF[@]}" --format tsv --key host --key status --time checked_at --window 300 "$T/dump.tsv" > "$WORK/tsv.ref"
"$D" -a exact -f tsv -k host -k status -t checked_at -w 5m "$T/dump.tsv" > "$WORK/tsv.out" 2> /dev/null
check_files "tsv: keyed and timed by name" "$WORK/tsv.ref" "$WORK/tsv.out"
"${REF[@]}" --format tsv --key host --key service "$T/dump.tsv" "$T/dump.tsv" > "$WORK/tsv2.ref"
"$D" -a exact -f tsv -k host -k service "$T/dump.tsv" "$T/dump.tsv" > "$WORK/tsv2.out"
check_files "tsv: two inputs, one header" "$WORK/tsv2.ref" "$WORK/tsv2.out"
check "tsv: the header once" 1 "$(grep -c '^host' "$WORK/tsv2.out")"
cp "$T/dump.tsv" "$WORK/dump2.tsv"
"${REF[@]}" --format tsv --key host --key status --time checked_at --window 300 "$T/dump.tsv" "$WORK/dump2.tsv" > "$WORK/tsv3.ref"
"$D" -a exact -f tsv -k host -k status -t checked_at -w 5m --no-merge "$T/dump.tsv" "$WORK/dump2.tsv" > "$WORK/tsv3.out" 2> /dev/null
check_files "tsv: two timed inputs, one header (the output held until a time is read)" "$WORK/tsv3.ref" "$WORK/tsv3.out"

# --mark and --count add a named column.
"${REF[@]}" --format csv --key user --mark dup "$T/export.csv" > "$WORK/mark.ref"
"$D" -a exact -f csv -k user --mark "$T/export.csv" > "$WORK/mark.out"
check_files "csv --mark: a column dup" "$WORK/mark.ref" "$WORK/mark.out"
"${REF[@]}" --format csv --key user --count dup_count "$T/export.csv" > "$WORK/count.ref"
"$D" -a exact -f csv -k user --count --count-names dup_count,, "$T/export.csv" > "$WORK/count.out"
check_files "csv --count: a column dup_count" "$WORK/count.ref" "$WORK/count.out"
"${REF[@]}" --format zeek --key id.orig_h --key query --time ts --window 60 --mark dup "$T/zeek_dns.log" > "$WORK/zmark.ref"
"$D" -a exact -k id.orig_h -k query -t ts -w 1m --mark "$T/zeek_dns.log" > "$WORK/zmark.out"
check_files "zeek --mark: in #fields and #types too" "$WORK/zmark.ref" "$WORK/zmark.out"
# In a Zeek log, an added column a row does not fill is Zeek's unset field, '-'.
"$D" -a exact -k query -t ts -w 1m --count --where rcode_name=NXDOMAIN "$T/zeek_dns.log" > "$WORK/zwhere.out"
check "zeek --count with --where: every row has its #fields' columns" "" \
  "$(awk -F'\t' '/^#fields/ { n = NF - 1 } !/^#/ && NF != n { print FILENAME ": " FNR }' "$WORK/zwhere.out")"
check "zeek --count with --where: a row not selected has '-' in the count columns" \
  "$(grep -v '^#' "$T/zeek_dns.log" | grep -c -v -P '\tNXDOMAIN(\t|$)')" \
  "$(grep -v '^#' "$WORK/zwhere.out" | grep -c $'\t-\t-\t-$')"
if command -v mlr > /dev/null; then
  check "mlr reads --mark back: every row" 50 "$(mlr --icsv --onidx cut -f dup "$WORK/mark.out" | wc -l)"
  check "mlr: the duplicates are the rows marked true" \
    "$(grep -c ',true.$' "$WORK/mark.out")" "$(mlr --icsv --onidx filter '$dup == "true"' then cut -f dup "$WORK/mark.out" | wc -l)"
  "$D" -a exact -f csv -k user --where action=login --mark "$T/export.csv" > "$WORK/where.out"
  check "mlr: --where's unjudged rows have the dup column, empty" \
    "$(grep -c ',login,' "$T/export.csv")" "$(mlr --icsv --onidx filter '$dup != ""' then cut -f dup "$WORK/where.out" | wc -l)"
  check "mlr: the counts add up to the rows" 50 "$(mlr --icsv --onidx stats1 -a sum -f dup_count "$WORK/count.out")"
  # --count: rows --where did not select, or without a key, have the count columns, empty.
  "$D" -a exact -f csv -k user --where action=login --count "$T/export.csv" > "$WORK/cwhere.out"
  check "mlr: --count with --where, the counts add up to the selected rows" \
    "$(grep -c ',login,' "$T/export.csv")" "$(mlr --icsv --onidx stats1 -a sum -f dup_count "$WORK/cwhere.out")"
  check "mlr: --count with --where, the rows not selected have the count columns, empty" \
    "$(mlr --icsv --onidx filter '$action != "login"' then cut -f user "$T/export.csv" | wc -l)" \
    "$(mlr --icsv --onidx filter '$dup_count == "" && $first_seen == "" && $last_seen == ""' then cut -f user "$WORK/cwhere.out" | wc -l)"
  printf 'id,v\n1,a\n2\n3,a\n' > "$WORK/keyless.csv"
  "$D" -a exact -f csv -k v --count "$WORK/keyless.csv" > "$WORK/keyless.out" 2> /dev/null
  check "--count: a row without a key gets the count columns, empty" "2,,," "$(grep '^2' "$WORK/keyless.out")"
else
  echo "FAIL mlr (Debian package miller) is not installed"
  fails=$((fails + 1))
fi

# A column the header lacks: a usage error naming the nearest columns.
status=0
"$D" -f csv -k usr "$T/export.csv" > /dev/null 2> "$WORK/name.err" || status=$?
check "a missing column: exit 2" 2 "$status"
check "a missing column: the nearest named" 1 "$(grep -c "'usr': no column of that name in the header (nearest: user" "$WORK/name.err")"

# Bad input loses nothing: an unbalanced quote at the end, a row with too few columns, a NUL.
printf 'a,b,c\n1,x,2\n2,x,3\n3,"open,4\n4,y\n' > "$WORK/bad.csv"
"$D" -a exact -f csv -k b -k c "$WORK/bad.csv" > "$WORK/bad.out" 2> "$WORK/bad.err"
check "bad csv: every record written" "$(cat "$WORK/bad.csv")" "$(cat "$WORK/bad.out")"
check "bad csv: the open quote warned about" 1 "$(grep -c 'a quote that is never closed' "$WORK/bad.err")"
# ... also where the open quote is in a column no option reads: the rows it swallowed are one
# record, written as read and warned about, not a row that looks whole.
printf 'a,b,c\n1,x,"open\n2,x,3\n2,x,3\n' > "$WORK/swallow.csv"
"$D" -a exact -f csv -k b "$WORK/swallow.csv" > "$WORK/swallow.out" 2> "$WORK/swallow.err"
check_files "an open quote in an unread column: every byte written" "$WORK/swallow.csv" "$WORK/swallow.out"
check "an open quote in an unread column: warned about" 1 \
  "$(grep -c 'swallow.csv: record 2: not a readable row: a quote that is never closed' "$WORK/swallow.err")"
printf 'a\tb\n1\tx\n2\n3\tx\n' > "$WORK/short.tsv"
"$D" -a exact -f tsv -k b "$WORK/short.tsv" > "$WORK/short.out" 2> "$WORK/short.err"
check "short row: passed through, the duplicate removed" "$(printf 'a\tb\n1\tx\n2')" "$(cat "$WORK/short.out")"
check "short row: warned about" 1 "$(grep -c 'the key (-k b) is absent' "$WORK/short.err")"
printf 'a,b\n1,x\n2,\0x\n' > "$WORK/nul.csv"
"$D" -a exact -f csv -k b "$WORK/nul.csv" > "$WORK/nul.out" 2> "$WORK/nul.err"
check_files "a NUL byte: the row written as read" "$WORK/nul.csv" "$WORK/nul.out"
check "a NUL byte: warned about" 1 "$(grep -c 'a NUL byte' "$WORK/nul.err")"

# Options a table does not take are usage errors.
status=0
"$D" -f csv -d ';' -k a "$T/export.csv" > /dev/null 2>&1 || status=$?
check "-d with -f csv: a usage error" 2 "$status"
status=0
"$D" -f csv -k user --count --state "$WORK/s.state" "$T/export.csv" > /dev/null 2>&1 || status=$?
check "--count --state with -f csv: a usage error" "2 0" "$status $(ls "$WORK" | grep -c '^s.state')"

# --explain=N explains the first N rows: a Zeek log's # lines, and blank JSON lines, are no records.
"$D" -k query -t ts -w 1m --explain=3 "$T/zeek_dns.log" > "$WORK/zexplain.out"
check "--explain=3 on a Zeek log: its first three rows" "9 10 11" \
  "$(tail -n +2 "$WORK/zexplain.out" | cut -f1 | sed 's/.*://' | tr '\n' ' ' | sed 's/ $//')"
printf '{"a":0}\n\n\n{"a":1}\n\n{"a":1}\n' | "$D" -k a --explain=2 > "$WORK/jexplain.out"
check "--explain=2 on JSON with blank lines: its first two records" "1 4" \
  "$(tail -n +2 "$WORK/jexplain.out" | cut -f1 | sed 's/.*://' | tr '\n' ' ' | sed 's/ $//')"

# --comment in line mode: comment lines are written as read, neither keyed nor counted.
printf '# one\na 1\n# one\na 2\nb 3\n' > "$WORK/comments.txt"
"$D" -k 1 --comment '#' --stats=json "$WORK/comments.txt" > "$WORK/comments.out" 2> "$WORK/comments.stats"
check "--comment: comments kept in place, the duplicate dropped" "$(printf '# one\na 1\n# one\nb 3')" "$(cat "$WORK/comments.out")"
check "--comment: three records judged" 1 "$(grep -c '"records":3' "$WORK/comments.stats")"
"$D" -k 1 "$WORK/comments.txt" > "$WORK/no_comment.out"
check "without --comment the second comment is a duplicate" "$(printf '# one\na 1\nb 3')" "$(cat "$WORK/no_comment.out")"

echo "$checks checks, $fails failed"
[ "$fails" -eq 0 ]
