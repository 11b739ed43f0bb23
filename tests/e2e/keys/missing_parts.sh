#!/usr/bin/env bash
# A composite JSON key over a log that mixes kinds of records (a Zeek export of several
# streams: each kind has only some of the -k members) deduplicates nothing by default; the run
# must not finish quietly: it stops (no record has a key) naming the way out, --missing null;
# with --on-error pass the records pass and the run says that most of the first 1000 records
# have no key; with --missing null they match on the parts they have.
source "$(dirname "$0")/../lib.bash"
D="$TLBF_DEDUP"

# Three streams in the style of Zeek's JSON streaming export: dns (uid, trans_id, query), files
# (fuid), conn (id_orig_h, id_resp_h); each record is unique and sent twice.
for i in $(seq 0 899); do
  t=$(printf '2018-03-24T17:%02d:%02d.000000Z' $((i / 60 % 60)) $((i % 60)))
  case $((i % 3)) in
    0) r="{\"@stream\":\"dns\",\"ts\":\"$t\",\"uid\":\"C$i\",\"trans_id\":$((i % 7)),\"query\":\"host$((i % 11)).example\"}" ;;
    1) r="{\"@stream\":\"files\",\"ts\":\"$t\",\"fuid\":\"F$i\"}" ;;
    2) r="{\"@stream\":\"conn\",\"ts\":\"$t\",\"id_orig_h\":\"10.0.$((i / 256)).$((i % 256))\",\"id_resp_h\":\"10.0.1.$((i % 5))\"}" ;;
  esac
  printf '%s\n%s\n' "$r" "$r"
done > "$WORK/zeek.ndjson"
KEY=(-k @stream -k uid -k trans_id -k query -k fuid -k id_orig_h -k id_resp_h -t ts -w 60s)

# The issue's command: no record has every part, so nothing could be deduplicated; the run
# stops and writes nothing, naming the way out.
status=0
"$D" "${KEY[@]}" "$WORK/zeek.ndjson" > "$WORK/stop.out" 2> "$WORK/stop.err" || status=$?
check "default: no record has a key: exit 1" 1 "$status"
check "default: nothing written" 0 "$(wc -c < "$WORK/stop.out")"
check "the stop names --missing null" 1 \
  "$(grep -c 'none of the first 1000 records has a key (the first, record 1 of .*: key part 5 (-k fuid) is absent; --missing null reads an absent part as null' "$WORK/stop.err")"
# --on-error pass: such records are meant to pass.
"$D" "${KEY[@]}" --on-error pass "$WORK/zeek.ndjson" > "$WORK/error.out" 2> "$WORK/error.err"
check "--on-error pass: every record passes" 1800 "$(wc -l < "$WORK/error.out")"
check "the first warning names --missing null" 1 \
  "$(grep -c 'record 1: key part 5 (-k fuid) is absent; --missing null reads an absent part as null' "$WORK/error.err")"
check "most of the first 1000 records without a key: said so" 1 \
  "$(grep -c 'warning: 1000 of the first 1000 records have no key, so they are passed through without being deduplicated' "$WORK/error.err")"
check "that warning comes before the totals" 1 \
  "$(grep -n 'of the first 1000 records have no key\|record(s) had no key' "$WORK/error.err" | head -1 | grep -c 'of the first')"

# The way out the warnings name.
"$D" "${KEY[@]}" --missing null --stats=json "$WORK/zeek.ndjson" > "$WORK/null.out" 2> "$WORK/null.err"
check "--missing null: every record keyed" 0 "$(grep -o '"missing_key":[0-9]*' "$WORK/null.err" | cut -d: -f2)"
check "--missing null: the copies are duplicates" 900 "$(wc -l < "$WORK/null.out")"
check "--missing null: no warning" 0 "$(grep -c warning "$WORK/null.err" || true)"

# A single -k absent from most records: the loud warning lists the members the record has.
printf '{"a":1,"b":2}\n{"a":1,"b":2}\n{"id":3}\n' > "$WORK/single.ndjson"
"$D" -k id "$WORK/single.ndjson" > /dev/null 2> "$WORK/single.err"
check "short input, most without a key: said so, with the members" 1 \
  "$(grep -c '2 of the first 3 records have no key, .*(the first, record 1 of .*: the key (-k id) is absent; its members: a, b)' "$WORK/single.err")"
# A few records without a key are no news: no such warning.
printf '{"id":1}\n{"id":1}\n{"x":3}\n' | "$D" -k id > /dev/null 2> "$WORK/few.err"
check "a minority without a key: no such warning" 0 "$(grep -c 'of the first' "$WORK/few.err" || true)"
finish
