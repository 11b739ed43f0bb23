#!/usr/bin/env bash
# --count and --keep last as a user sees them: the count in front of a line (or where
# --count-format puts it), the members of a JSON object, the last copy kept, window-close
# order, and with every key and time form: field lists, JSON paths, masks, multi-line
# records, compressed input, several files, count windows, one thread or two. Options that
# make no sense beside them are usage errors that say why.
source "$(dirname "$0")/../lib.bash"
D="$TLBF_DEDUP"

# 1. The count in front, as uniq -c gives it (without its padding).
check "lines: 3 a and 1 b" "3 a|1 b" "$(printf 'a\na\nb\na\n' | "$D" --count | paste -sd '|')"
check "--only-dups: the records that had copies" "3 a" "$(printf 'a\na\nb\na\n' | "$D" --count --only-dups)"
check "--count-format: the count after the record, the times beside it" "a	2	1	3|b	1	2	2" \
  "$(printf '1 a\n2 b\n3 a\n' | "$D" -k 2 -t 1 --count --count-format '{record}\t{count}\t{first}\t{last}' |
    cut -d' ' -f2- | paste -sd '|')"
check_files "a missing last line end stays missing" <(printf '1 b\n2 a') <(printf 'b\na\na' | "$D" --count --keep last)
check_files "... and is supplied when another record follows" <(printf '2 a\n1 b\n') \
  <(printf 'a\nb\na' | "$D" --count --keep last)
printf 'x\r\ny\r\nx\r\n' | "$D" --count > "$WORK/crlf.out"
check "CR LF records keep their line ends" "$(printf '2 x\r\n1 y\r\n')" "$(cat "$WORK/crlf.out")"

# 2. NDJSON: members added, the times as the input wrote them; a member of the same name
#    has its value replaced, never doubled.
printf '%s\n' '{"ts":1700000000.5,"id":"a"}' '{"ts":1700000001,"id":"a","dup_count":"x"}' \
  '{"ts":"2023-11-14T22:13:25Z","id":"b"}' > "$WORK/in.ndjson"
"$D" -k id -t ts -w 1m --count "$WORK/in.ndjson" > "$WORK/out.ndjson"
check "NDJSON: members added" \
  '{"ts":1700000000.5,"id":"a","dup_count":2,"first_seen":1700000000.5,"last_seen":1700000001}|{"ts":"2023-11-14T22:13:25Z","id":"b","dup_count":1,"first_seen":"2023-11-14T22:13:25Z","last_seen":"2023-11-14T22:13:25Z"}' \
  "$(paste -sd '|' "$WORK/out.ndjson")"
"$D" -k id -t ts -w 1m --count --keep last --count-names n,, "$WORK/in.ndjson" > "$WORK/last.ndjson"
check "NDJSON: the last copy's member of the same name replaced, names chosen" \
  '{"ts":1700000001,"id":"a","dup_count":"x","n":2}' "$(head -1 "$WORK/last.ndjson")"
check "NDJSON: every output line is one JSON object" 2 "$(python3 -c '
import json, sys
print(sum(1 for l in open(sys.argv[1]) if isinstance(json.loads(l), dict)))' "$WORK/out.ndjson")"

# 3. Keep the last copy, where copies differ outside the key: the last inside each window.
printf '%s\n' '10 alice login from=10.0.0.1' '12 bob login from=10.0.0.9' '20 alice login from=10.0.0.2' \
  '75 alice login from=10.0.0.3' '80 alice login from=10.0.0.4' > "$WORK/logins"
check "--keep last: the last copy inside each window" \
  '20 alice login from=10.0.0.2|12 bob login from=10.0.0.9|80 alice login from=10.0.0.4' \
  "$("$D" -k 2,3 -t 1 -w 1m --keep last "$WORK/logins" | paste -sd '|')"
check "--keep last --count: and how many" '2 20 alice login from=10.0.0.2' \
  "$("$D" -k 2,3 -t 1 -w 1m --keep last --count "$WORK/logins" | head -1)"
check "--refresh: the window runs from the last copy" '1 12 bob login from=10.0.0.9|4 80 alice login from=10.0.0.4' \
  "$("$D" -k 2,3 -t 1 -w 1m --refresh --keep last --count "$WORK/logins" | paste -sd '|')"

# 4. Order: window-close order; on a file sorted by time, the order of the first copies.
python3 "$GEN_EVENTS" --events 20000 --profile burst --phase 2000 --seed 3 > "$WORK/burst.txt"
"$D" -k 3 -t 1 -w 60s --count "$WORK/burst.txt" > "$WORK/burst.out"
check "sorted input: output sorted by first-copy time" 1 \
  "$(cut -d' ' -f2 "$WORK/burst.out" | sort -c -g 2> /dev/null && echo 1 || echo 0)"
check "every copy counted once" 20000 "$(awk '{n += $1} END {print n}' "$WORK/burst.out")"
check "the records kept are the ones -a exact keeps" "$("$D" -k 3 -t 1 -w 60s -a exact "$WORK/burst.txt" | sort | md5sum)" \
  "$(cut -d' ' -f2- "$WORK/burst.out" | sort | md5sum)"

# 5. Every key and time form: masks, multi-line records, compressed input, several files,
#    count windows, JSON paths; one thread or two.
check "--mask: masked keys counted as one" "2 user 1 logged in|1 user x logged in" \
  "$(printf 'user 1 logged in\nuser 2 logged in\nuser x logged in\n' | "$D" --mask numbers --count | paste -sd '|')"
printf '2024-01-01 10:00:00 E boom\n  at a\n2024-01-01 10:00:01 E boom\n  at b\n2024-01-01 10:00:02 I ok\n' > "$WORK/ml.log"
check "--multiline: a record and its lines, once" "2 2024-01-01 10:00:00 E boom|  at a|1 2024-01-01 10:00:02 I ok" \
  "$("$D" --multiline '^\d{4}-' -k 3- -t 1,2 -w 1h --count "$WORK/ml.log" | paste -sd '|')"
check "--multiline --keep last: the last record with its lines" "2024-01-01 10:00:01 E boom|  at b" \
  "$("$D" --multiline '^\d{4}-' -k 3- -t 1,2 -w 1h --keep last "$WORK/ml.log" | head -2 | paste -sd '|')"
gzip -c "$WORK/burst.txt" > "$WORK/burst.txt.gz"
check_files "compressed input: as plain" "$WORK/burst.out" <("$D" -k 3 -t 1 -w 60s --count "$WORK/burst.txt.gz")
head -n 8000 "$WORK/burst.txt" > "$WORK/part1"
tail -n +8001 "$WORK/burst.txt" > "$WORK/part2"
check_files "several files: one stream of windows" "$WORK/burst.out" \
  <("$D" -k 3 -t 1 -w 60s --count "$WORK/part1" "$WORK/part2")
check_files "--threads 1 and 2 alike" "$WORK/burst.out" <("$D" -k 3 -t 1 -w 60s --count --threads 1 "$WORK/burst.txt")
check "-n: a count window of inserted keys" "2 a|1 b|1 c|1 d|1 a" \
  "$(printf 'a\nb\na\nc\nd\na\n' | "$D" -n 2 --count | paste -sd '|')"
check "JSON paths and composite keys" '{"u":{"id":1},"e":"x","dup_count":2,"first_seen":5,"last_seen":6}' \
  "$(printf '%s\n' '{"u":{"id":1},"e":"x","t":5}' '{"u":{"id":1.0},"e":"x","t":6}' |
    "$D" -k u.id -k e -t t --count --count-names dup_count,first_seen,last_seen | sed 's/,"t":[0-9]*//')"
check "records without a key: at once, untouched" "lonely|2 x a" \
  "$(printf 'x a\nlonely\nx a\n' | "$D" -k 2 --count 2> /dev/null | paste -sd '|')"
check "JSON records without a key: untouched" '{"x":2,"ts":2}|{"id":1,"ts":1,"dup_count":2,"first_seen":1,"last_seen":3}' \
  "$(printf '%s\n' '{"id":1,"ts":1}' '{"x":2,"ts":2}' '{"id":1,"ts":3}' | "$D" -k id -t ts --count 2> /dev/null | paste -sd '|')"
check "late copies: first_seen and last_seen the earliest and latest times" \
  '{"id":1,"ts":10,"dup_count":4,"first_seen":5,"last_seen":12}|4 5 12 10 a' \
  "$({ printf '%s\n' '{"id":1,"ts":10}' '{"id":1,"ts":5}' '{"id":1,"ts":12}' '{"id":1,"ts":11}' |
    "$D" -k id -t ts --count 2> /dev/null; printf '10 a\n5 a\n12 a\n11 a\n' |
    "$D" -k 2 -t 1 --count --count-format '{count} {first} {last} {record}' 2> /dev/null; } | paste -sd '|')"
check "--stats says what was held" 1 \
  "$(printf 'a\na\nb\n' | "$D" --count --stats=json 2>&1 > /dev/null | grep -c '"held":{"peak":2,')"

# 6. What makes no sense beside holding is refused, with the reason.
check_usage_error "--mark" "--mark cannot be combined with --count" "$D" --count --mark "$WORK/logins"
check_usage_error "--keep last --mark" "cannot be combined with --keep last" "$D" --keep last --mark "$WORK/logins"
check_usage_error "--explain" "--explain cannot be combined with --count" "$D" --count --explain=3 "$WORK/logins"
check_usage_error "--redis" "--redis cannot be combined with --count" \
  "$D" --count --redis redis://127.0.0.1:1 --redis-key k "$WORK/logins"
check_usage_error "-a tlbf" "-a/--algorithm 'tlbf'" "$D" --count -a tlbf "$WORK/logins"
check_usage_error "-e" "-e/--error-rate cannot be combined with --count" "$D" --count -e 1e-3 "$WORK/logins"
check_usage_error "a template without {record}" "--count-format '{count}'" "$D" --count --count-format '{count}' "$WORK/logins"
check_usage_error "--count-format without --count" "--count-format" "$D" --count-format '{record}' "$WORK/logins"
check_usage_error "--keep" "--keep 'middle'" "$D" --keep middle "$WORK/logins"
check_usage_error "--drain without holding" "--drain has no effect" "$D" --state "$WORK/x.state" --drain "$WORK/logins"
finish
