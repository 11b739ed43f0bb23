#!/usr/bin/env bash
# Every option of the interface, each with a check that fails when the option does nothing
# or the wrong thing; usage errors exit with status 2 and a message naming the option.
source "$(dirname "$0")/../lib.bash"
D="$TLBF_DEDUP"
stat() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$1" "$2"; }
lines() { printf '%s\n' "$@"; }

# -f/--format: auto picks JSON by the first non-blank byte; lines forces whole-line keys.
lines '{"id":1,"x":1}' '{"id":1,"x":2}' > "$WORK/two.ndjson"
check "-f auto on JSON (key id)" '{"id":1,"x":1}' "$("$D" -k id "$WORK/two.ndjson")"
check "-f json" '{"id":1,"x":1}' "$("$D" -f json -k id "$WORK/two.ndjson")"
check "--format ndjson is json" '{"id":1,"x":1}' "$("$D" --format ndjson -k id "$WORK/two.ndjson")"
check "-f lines: -k id is not a field list" 2 "$("$D" -f lines -k id "$WORK/two.ndjson" > /dev/null 2>&1; echo $?)"
check "-f lines, whole line key" 2 "$("$D" -f lines "$WORK/two.ndjson" | wc -l)"
lines '' '  ' '{"id":1}' '{"id":1}' > "$WORK/blank_first.ndjson"
check "-f auto skips blank records when detecting" 3 "$("$D" -k id "$WORK/blank_first.ndjson" | wc -l)"

# -z/--null
check "-z" "$(printf 'a\0b\0' | od -c)" "$(printf 'a\0b\0a\0' | "$D" -z | od -c)"

# -k/--key: field lists and repeats (composite keys).
lines 'a x 1' 'a y 2' 'b x 3' 'a x 4' > "$WORK/f.txt"
check "-k 1" "$(lines 'a x 1' 'b x 3')" "$("$D" -k 1 "$WORK/f.txt")"
check "-k 1,2" "$(lines 'a x 1' 'a y 2' 'b x 3')" "$("$D" -k 1,2 "$WORK/f.txt")"
check "-k 1-2" "$(lines 'a x 1' 'a y 2' 'b x 3')" "$("$D" -k 1-2 "$WORK/f.txt")"
check "-k 2-" 4 "$("$D" -k 2- "$WORK/f.txt" | wc -l)"
check "--key 1 --key 2 (composite)" "$(lines 'a x 1' 'a y 2' 'b x 3')" "$("$D" --key 1 --key 2 "$WORK/f.txt")"
# Composite keys cannot collide by concatenation: ("ab","c") vs ("a","bc").
check "composite keys are unambiguous" 2 "$(printf '{"a":"ab","b":"c"}\n{"a":"a","b":"bc"}\n' | "$D" -k a -k b | wc -l)"
check "-k bad list is a usage error" 2 "$("$D" -f lines -k 0 "$WORK/f.txt" > /dev/null 2>&1; echo $?)"
check "-k reversed range is a usage error" 2 "$("$D" -f lines -k 3-1 "$WORK/f.txt" > /dev/null 2>&1; echo $?)"

# -d/--delimiter
lines 'a,b c,1' 'a,b c,2' 'a,x,3' > "$WORK/csv.txt"
check "-d , -k 1,2" "$(lines 'a,b c,1' 'a,x,3')" "$("$D" -d , -k 1,2 "$WORK/csv.txt")"
check "-d , -k 2 (blanks are ordinary bytes)" 2 "$("$D" -d , -k 2 "$WORK/csv.txt" | wc -l)"
check "-d tab" 1 "$(printf 'a b\tz\na c\tz\n' | "$D" -d '\t' -k 2 | wc -l)"
check "-d of two bytes is a usage error" 2 "$("$D" -d ab < /dev/null > /dev/null 2>&1; echo $?)"

# --key-regex: group 1, else the whole match.
lines 'GET /a?id=7 x' 'GET /b?id=7 y' 'GET /c?id=8 z' > "$WORK/re.txt"
check "--key-regex group 1" 2 "$("$D" --key-regex 'id=([0-9]+)' "$WORK/re.txt" | wc -l)"
check "--key-regex whole match" 3 "$("$D" --key-regex '/[a-z]' "$WORK/re.txt" | wc -l)"
check "--key-regex bad expression" 2 "$("$D" --key-regex '(' < /dev/null > /dev/null 2>&1; echo $?)"
check "--key-regex with -k is a usage error" 2 "$("$D" --key-regex 'a' -k 1 < /dev/null > /dev/null 2>&1; echo $?)"

# -i/--ignore-case
check "-i folds ASCII case" 1 "$(lines 'Hello' 'HELLO' 'hello' | "$D" -i | wc -l)"
check "without -i case matters" 3 "$(lines 'Hello' 'HELLO' 'hello' | "$D" | wc -l)"
check "-i with JSON keys" 1 "$(printf '{"u":"Ab"}\n{"u":"aB"}\n' | "$D" -i -k u | wc -l)"

# -t/--time and -w/--window: a repeat at age 4 s is a duplicate in 5 s, new in 3 s.
lines '100 k' '104 k' > "$WORK/t.txt"
check "-t 1 -w 5" 1 "$("$D" -t 1 -k 2 -w 5 "$WORK/t.txt" | wc -l)"
check "-t 1 -w 3" 2 "$("$D" -t 1 -k 2 -w 3 "$WORK/t.txt" | wc -l)"
check "--window 4s: age == window is new" 2 "$("$D" -t 1 -k 2 --window 4s "$WORK/t.txt" | wc -l)"
check "-w 4001ms" 1 "$("$D" -t 1 -k 2 -w 4001ms "$WORK/t.txt" | wc -l)"
lines '0 k' '7199 k' '7200 k' > "$WORK/t2.txt"
check "-w 2h" 2 "$("$D" -t 1 -k 2 -w 2h "$WORK/t2.txt" | wc -l)"
# Compound durations and "min": a repeat at age 5400 s is new in 1h30m, a duplicate in
# 1h30m1s; at age 299 s a duplicate in 5min, new in 4min59s.
lines '0 k' '5400 k' > "$WORK/t3.txt"
check "-w 1h30m" 2 "$("$D" -t 1 -k 2 -w 1h30m "$WORK/t3.txt" | wc -l)"
check "-w 1h30m1s" 1 "$("$D" -t 1 -k 2 -w 1h30m1s "$WORK/t3.txt" | wc -l)"
lines '0 k' '299 k' > "$WORK/t4.txt"
check "-w 5min" 1 "$("$D" -t 1 -k 2 -w 5min "$WORK/t4.txt" | wc -l)"
check "-w 4m59s" 2 "$("$D" -t 1 -k 2 -w 4m59s "$WORK/t4.txt" | wc -l)"
check "-w 30m1h: refused" 2 "$("$D" -w 30m1h < /dev/null > /dev/null 2>&1; echo $?)"
check "-w 1d" 1 "$("$D" -t 1 -k 2 -w 1d "$WORK/t2.txt" | wc -l)"
check "-w 0 is a usage error" 2 "$("$D" -w 0 < /dev/null > /dev/null 2>&1; echo $?)"
check "-w 5x is a usage error" 2 "$("$D" -w 5x < /dev/null > /dev/null 2>&1; echo $?)"
check "-w and -n together are a usage error" 2 "$("$D" -w 5 -n 3 < /dev/null > /dev/null 2>&1; echo $?)"
# Without -t the wall clock: two identical lines arriving together are duplicates.
check "no -t: wall clock" 1 "$(lines x x | "$D" -w 1h | wc -l)"
# Out-of-order times are judged at the newest time seen.
lines '100 a' '200 b' '150 a' > "$WORK/late.txt"
check "late record judged at the newest time" 3 "$("$D" -a exact -t 1 -k 2 -w 60 "$WORK/late.txt" | wc -l)"

# --time-format: each named format and a pattern.
tf() { printf '%s k\n%s k\n' "$2" "$3" | "$D" -t "$1" -k "$4" -w 10 --time-format "$5" | wc -l; }
check "--time-format epoch (9 s apart: dup)" 1 "$(tf 1 1000 1009 2 epoch)"
check "--time-format epoch (11 s apart: new)" 2 "$(tf 1 1000 1011 2 epoch)"
check "--time-format epoch-ms" 2 "$(tf 1 1000000 1011000 2 epoch-ms)"
check "--time-format epoch-us" 1 "$(tf 1 1000000000 1009000000 2 epoch-us)"
check "--time-format epoch-ns" 2 "$(tf 1 1000000000000 1011000000000 2 epoch-ns)"
check "--time-format rfc3339" 2 "$(tf 1 2020-01-01T00:00:00Z 2020-01-01T01:00:10+01:00 2 rfc3339)"
check "--time-format rfc3339 (offsets: 5 s apart)" 1 "$(tf 1 2020-01-01T00:00:00Z 2020-01-01T01:00:05+01:00 2 rfc3339)"
check "--time-format clf" 1 "$(tf 1,2 '[10/Oct/2000:13:55:36 -0700]' '[10/Oct/2000:13:55:40 -0700]' 3 clf)"
check "--time-format syslog" 2 "$(tf 1-3 'Mar  1 10:00:00' 'Mar  1 10:00:11' 4 syslog)"
check "--time-format ctime" 1 "$(tf 1-5 '[Sun Dec 04 04:47:44 2005]' '[Sun Dec 04 04:47:50 2005]' 6 ctime)"
check "--time-format pattern" 2 "$(tf 1,2 '081109 203615' '081109 203630' 3 '%y%m%d %H%M%S')"
check "--time-format pattern (5 s apart)" 1 "$(tf 1,2 '081109 203615' '081109 203620' 3 '%y%m%d %H%M%S')"
check "--time-format auto on RFC 3339" 2 "$(tf 1 2018-03-24T17:15:20.865716Z 2018-03-24T17:15:31Z 2 auto)"
check "--time-format without -t is a usage error" 2 "$("$D" --time-format epoch < /dev/null > /dev/null 2>&1; echo $?)"
check "--time-format bad name" 2 "$("$D" -t 1 --time-format nope < /dev/null > /dev/null 2>&1; echo $?)"
check "--time-format bad pattern" 2 "$("$D" -t 1 --time-format '%Q' < /dev/null > /dev/null 2>&1; echo $?)"
# A time in the wrong format is untimed, not an error.
printf '2020-01-01T00:00:00Z k\n' | "$D" -t 1 -k 2 --time-format epoch --allow-untimed --stats=json > /dev/null 2> "$WORK/tf.err"
grep '^{' "$WORK/tf.err" > "$WORK/tf.json"
check "--time-format mismatch is untimed" 1 "$(stat "$WORK/tf.json" untimed)"

# --year: syslog dates are taken in that year (Feb 29 exists only in leap years).
check "--year 2016 accepts Feb 29" 0 "$(printf 'Feb 29 10:00:00 x\n' | "$D" -q -t 1-3 -k 4 --year 2016 --stats=json 2>&1 > /dev/null | grep -o '"untimed":[0-9]*' | cut -d: -f2)"
check "--year 2017 rejects Feb 29" 1 "$(printf 'Feb 29 10:00:00 x\n' | "$D" -q -t 1-3 -k 4 --year 2017 --stats=json 2>&1 > /dev/null | grep -o '"untimed":[0-9]*' | cut -d: -f2)"
check "--year bad" 2 "$("$D" --year abc < /dev/null > /dev/null 2>&1; echo $?)"

# -n/--window-count: a duplicate while among the last N inserted keys.
check "-n 2 -a exact (a is 3 inserts back: new)" 4 "$(lines a b c a | "$D" -n 2 -a exact | wc -l)"
check "-n 3 (a is among the last 3: dup)" 3 "$(lines a b c a | "$D" -n 3 | wc -l)"
check "-n with -a exact" 3 "$(lines a b c a | "$D" -n 3 -a exact | wc -l)"
check "-n with -a gebf" 3 "$(lines a b c a | "$D" -n 3 -a gebf | wc -l)"
check "-n 0 is a usage error" 2 "$("$D" -n 0 < /dev/null > /dev/null 2>&1; echo $?)"

# -a/--algorithm with a time window, -e/--error-rate, -c/--capacity, --max-memory:
# every algorithm gives the exact answer on a small input; parameters reach the filter.
for a in tlbf gebf exact; do
  check "-a $a" "$(lines '1 a' '2 b' '20 a')" "$("$D" -a $a -t 1 -k 2 -w 10 <<< "$(lines '1 a' '2 b' '3 a' '20 a')")"
done
check "-a apbf with -w is a usage error" 2 "$("$D" -a apbf -w 5 < /dev/null > /dev/null 2>&1; echo $?)"
check "-a tlbf with -n is a usage error" 2 "$("$D" -a tlbf -n 5 < /dev/null > /dev/null 2>&1; echo $?)"
check "-a bad" 2 "$("$D" -a bloom < /dev/null > /dev/null 2>&1; echo $?)"
k_small=$(lines a | "$D" -e 1e-2 --stats=json 2>&1 > /dev/null | grep -o '"k":[0-9]*')
k_large=$(lines a | "$D" -e 1e-8 --stats=json 2>&1 > /dev/null | grep -o '"k":[0-9]*')
check "-e changes the filter (more hash functions for a lower rate)" 1 "$([ "$k_small" != "$k_large" ] && echo 1 || echo 0)"
check "-e 0 is a usage error" 2 "$("$D" -e 0 < /dev/null > /dev/null 2>&1; echo $?)"
check "-e 1.5 is a usage error" 2 "$("$D" -e 1.5 < /dev/null > /dev/null 2>&1; echo $?)"
m_small=$(lines a | "$D" -c 1000 --stats=json 2>&1 > /dev/null | grep -o '"bits_allocated":[0-9]*' | cut -d: -f2)
m_large=$(lines a | "$D" -c 1000000 --stats=json 2>&1 > /dev/null | grep -o '"bits_allocated":[0-9]*' | cut -d: -f2)
check "-c sizes the filter" 1 "$(( m_large > m_small ? 1 : 0 ))"
check "-c 0 is a usage error" 2 "$("$D" -c 0 < /dev/null > /dev/null 2>&1; echo $?)"
m_capped=$(lines a | "$D" -c 1000000 --max-memory 64K --stats=json 2>&1 > /dev/null | grep -o '"bits_allocated":[0-9]*' | cut -d: -f2)
check "--max-memory bounds the filter" 1 "$(( m_capped <= 64 * 1024 * 8 ? 1 : 0 ))"
check "--max-memory bad" 2 "$("$D" --max-memory lots < /dev/null > /dev/null 2>&1; echo $?)"

# --refresh: with it a duplicate renews its key; without it the window runs from the
# last emitted copy.
lines '0 a' '4 a' '8 a' '12 a' > "$WORK/r.txt"
check "no --refresh" "$(lines '0 a' '8 a')" "$("$D" -a exact -t 1 -k 2 -w 5 "$WORK/r.txt")"
check "--refresh" "0 a" "$("$D" -a exact -t 1 -k 2 -w 5 --refresh "$WORK/r.txt")"
check "--refresh with tlbf" "0 a" "$("$D" -t 1 -k 2 -w 5 --refresh "$WORK/r.txt")"

# --mark[=NAME] and --only-dups.
check "--mark on lines" "$(printf 'new\ta\nnew\tb\ndup\ta')" "$(lines a b a | "$D" --mark)"
check "--mark on JSON" "$(printf '{"k":1,"dup":false}\n{"k":1,"dup":true}')" "$(printf '{"k":1}\n{"k":1}\n' | "$D" -k k --mark)"
check "--mark=NAME" '{"k":1,"seen":false}' "$(printf '{"k":1}\n' | "$D" -k k --mark=seen)"
check "--mark=NAME is JSON-escaped" '{"k":1,"a\"b":false}' "$(printf '{"k":1}\n' | "$D" -k k '--mark=a"b')"
check "--mark before a file name does not take it as NAME" "$(printf 'new\ta\nnew\tb\ndup\ta')" "$(lines a b a > "$WORK/m.txt"; "$D" --mark "$WORK/m.txt")"
check "--mark keeps CRLF after the flag" "$(printf '{"k":1,"dup":false}\r\n' | od -c)" "$(printf '{"k":1}\r\n' | "$D" -k k --mark | od -c)"
check "--only-dups" "$(lines a c)" "$(lines a b a c c | "$D" --only-dups)"
check "--only-dups --mark" "$(printf 'dup\ta')" "$(lines a b a | "$D" --only-dups --mark)"

# --line-buffered: each record is written as soon as it is decided, even while more
# input is ready (the flush-on-pause rule alone would wait): the reader downstream sees the
# first line while the writer side is still busy.
mkfifo "$WORK/lb"
( printf 'first\n'; sleep 1; printf 'second\n' ) | "$D" --line-buffered > "$WORK/lb" &
pid=$!
exec 3< "$WORK/lb"
read -r -t 5 got <&3 || got=timeout
check "--line-buffered: first line arrives" first "$got"
exec 3<&-
wait "$pid" || true
check "--line-buffered output = default output" "$(lines a b a | "$D")" "$(lines a b a | "$D" --line-buffered)"

# --on-error (details in bad_input.sh).
check "--on-error bad value" 2 "$("$D" --on-error ignore < /dev/null > /dev/null 2>&1; echo $?)"

# --stats[=text|json]
lines a b a | "$D" --stats > /dev/null 2> "$WORK/stats.txt"
check "--stats text: records" 1 "$(grep -c '^records *3$' "$WORK/stats.txt")"
check "--stats text: duplicates" 1 "$(grep -c '^duplicates *1$' "$WORK/stats.txt")"
check "--stats text: filter line" 1 "$(grep -c '^filter ' "$WORK/stats.txt")"
lines a b a | "$D" --stats=json > /dev/null 2> "$WORK/stats.json"
check "--stats=json: emitted" 2 "$(stat "$WORK/stats.json" emitted)"
check "--stats=json: bytes_in" 6 "$(stat "$WORK/stats.json" bytes_in)"
check "--stats=json: bytes_out" 4 "$(stat "$WORK/stats.json" bytes_out)"
check "--stats=yaml is a usage error" 2 "$("$D" --stats=yaml < /dev/null > /dev/null 2>&1; echo $?)"

# --progress: on stderr only; the output is unchanged.
seq 1 200000 > "$WORK/seq.txt"
"$D" -a exact --progress "$WORK/seq.txt" > "$WORK/p.out" 2> "$WORK/p.err"
check_files "--progress leaves stdout alone" "$WORK/seq.txt" "$WORK/p.out"
check "--progress shows percent for a file" 1 "$(grep -c '100.0%' "$WORK/p.err")"
seq 1 1000 | "$D" --progress > /dev/null 2> "$WORK/p2.err"
check "--progress shows rates for a pipe" 1 "$(grep -c 'records/s' "$WORK/p2.err")"

# -q/--quiet (warnings; details in bad_input.sh), -h/--help, -V/--version.
check "-q silences warnings" "" "$(printf 'x\n' | "$D" -q -k 3 --on-error pass 2>&1 > /dev/null)"
check "--quiet" "" "$(printf 'x\n' | "$D" --quiet -k 3 --on-error pass 2>&1 > /dev/null)"
check "-h exits 0 and shows usage" 1 "$("$D" -h | grep -c '^Usage: tlbf-dedup')"
check "--help lists --window" 1 "$("$D" --help | grep -c -- '-w,--window')"
check "-V" 1 "$("$D" -V | grep -c '^tlbf-dedup [0-9]')"
check "--version" "$("$D" -V)" "$("$D" --version)"
check "unknown option: status 2" 2 "$("$D" --frobnicate < /dev/null > /dev/null 2>&1; echo $?)"
check "unknown option: message" 1 "$("$D" --frobnicate 2>&1 < /dev/null | grep -c frobnicate)"
check "missing file: status 1" 1 "$("$D" "$WORK/nonexistent" > /dev/null 2>&1; echo $?)"
check "missing file: message names it" 1 "$("$D" "$WORK/nonexistent" 2>&1 | grep -c nonexistent)"

# --state, --state-reset, --checkpoint (the state file itself is tested in state_*.sh).
lines '100 a' '101 b' > "$WORK/s1.txt"
lines '102 a' '103 c' > "$WORK/s2.txt"
"$D" -t 1 -k 2 -w 1h --state "$WORK/st" "$WORK/s1.txt" > /dev/null
check "--state: keys survive the run" "103 c" "$("$D" -t 1 -k 2 --state "$WORK/st" "$WORK/s2.txt")"
check "--state-reset starts empty" "$(cat "$WORK/s2.txt")" "$("$D" -t 1 -k 2 -w 1h --state "$WORK/st" --state-reset "$WORK/s2.txt")"
check "--state: a conflicting -w is a usage error" 2 "$("$D" -t 1 -k 2 -w 2h --state "$WORK/st" "$WORK/s2.txt" > /dev/null 2>&1; echo $?)"
check "--state: the message names the option" 1 "$("$D" -t 1 -k 2 -w 2h --state "$WORK/st" "$WORK/s2.txt" 2>&1 > /dev/null | grep -c -- '-w/--window')"
check "--checkpoint without --state is a usage error" 2 "$("$D" --checkpoint 5s < /dev/null > /dev/null 2>&1; echo $?)"
check "--state-reset without --state is a usage error" 2 "$("$D" --state-reset < /dev/null > /dev/null 2>&1; echo $?)"
# A checkpoint while the input is still open: the file appears before the run ends.
rm -f "$WORK/cp"
( printf '1 a\n'; sleep 2; printf '2 b\n' ) | "$D" -t 1 -k 2 --state "$WORK/cp" --checkpoint 500ms > /dev/null &
pid=$!
sleep 1.5
check "--checkpoint saves while running" 1 "$([ -s "$WORK/cp" ] && echo 1 || echo 0)"
wait "$pid"
finish
