#!/usr/bin/env bash
# --count and --keep last with --state: the held records are kept in the state
# at the end of each run and at checkpoints, so running an input in parts equals running it
# whole once the last part drains them; the state records --count and --keep, so a later run
# continues them, and a state made without them is not continued with them.
source "$(dirname "$0")/../lib.bash"
D="$TLBF_DEDUP"

python3 "$GEN_EVENTS" --events 20000 --rate 200 --dup-window 20 --profile burst --phase 2000 --seed 21 > "$WORK/all.txt"
python3 "$GEN_EVENTS" --events 6000 --rate 200 --dup-window 20 --format ndjson --seed 22 > "$WORK/all.ndjson"

# parts_run NAME INPUT PARTS OPTIONS...: INPUT whole, then in PARTS pieces with one state (the
# later pieces with no options at all: the state gives them; the last with --drain).
parts_run() {
  local name=$1 input=$2 parts=$3 lines per i=0 st
  shift 3
  st="$WORK/$name.state"
  rm -f "$st" "$WORK/$name".part* "$WORK/$name.joined.out"
  "$D" "$@" "$input" > "$WORK/$name.whole.out"
  lines=$(wc -l < "$input")
  per=$(((lines + parts - 1) / parts))
  split -l "$per" -d -a 2 "$input" "$WORK/$name.part"
  for part in "$WORK/$name".part*; do
    i=$((i + 1))
    if [ $i -eq 1 ]; then
      "$D" "$@" --state "$st" "$part"
    elif [ $i -lt "$parts" ]; then
      "$D" --state "$st" "$part"
    else
      "$D" --state "$st" --drain "$part"
    fi
  done >> "$WORK/$name.joined.out"
  check "$name: the whole run held and counted" 1 "$([ "$(wc -l < "$WORK/$name.whole.out")" -lt "$lines" ] && echo 1 || echo 0)"
  check_files "$name: $parts parts = whole" "$WORK/$name.whole.out" "$WORK/$name.joined.out"
}
parts_run count2 "$WORK/all.txt" 2 -k 3 -t 1 -w 20s --count
parts_run count5 "$WORK/all.txt" 5 -k 3 -t 1 -w 20s --count
parts_run last5 "$WORK/all.txt" 5 -k 3 -t 1 -w 20s --keep last
parts_run refresh3 "$WORK/all.txt" 3 -k 3 -t 1 -w 20s --count --keep last
parts_run json3 "$WORK/all.ndjson" 3 -k id -t ts -w 20s --count
parts_run count_window3 "$WORK/all.txt" 3 -k 3 -n 500 --count

# The state is format 4, with the held records in it or without them.
"$D" -k 3 -t 1 -w 20s --count --state "$WORK/v3.state" "$WORK/count5.part00" > /dev/null
check "a holding run's state is format 4" 4 "$(od -An -tu4 -j8 -N4 "$WORK/v3.state" | tr -d ' ')"
"$D" -k 3 -t 1 -w 20s --state "$WORK/v2.state" "$WORK/count5.part00" > /dev/null
check "a run without holding writes format 4 too" 4 "$(od -An -tu4 -j8 -N4 "$WORK/v2.state" | tr -d ' ')"
check_usage_error "a state made without --count is not continued with it" "--count differs from the state file" \
  "$D" -k 3 -t 1 --count --state "$WORK/v2.state" "$WORK/count5.part01"
check_usage_error "nor with another --keep" "--keep 'last' differs from the state file" \
  "$D" --keep last --state "$WORK/v3.state" "$WORK/count5.part01"
cp "$WORK/v3.state" "$WORK/v3b.state"
status=0
"$D" --keep first --missing error --state "$WORK/v3b.state" "$WORK/count5.part01" > /dev/null 2> "$WORK/err" || status=$?
check "but --keep first and --missing error, the defaults spelled out, continue it" "0 0" \
  "$status $(grep -v 'gives .* (as the run that made it)$' "$WORK/err" | wc -c)"
check "... with the key and time options the state gives, said once" 1 "$(grep -c 'gives --key=' "$WORK/err")"

# A checkpoint saves the held records too: a run killed after one loses none of them.
rm -f "$WORK/ck.state" "$WORK/in"
mkfifo "$WORK/in"
"$D" -k 2 -t 1 -w 1h --count --state "$WORK/ck.state" --checkpoint 100ms < "$WORK/in" > "$WORK/ck.out" &
pid=$!
exec 3> "$WORK/in"
printf '1 a\n2 b\n3 a\n' >&3
sleep 1
kill -KILL "$pid"
{ wait "$pid"; } 2> /dev/null || true
exec 3>&-
check "killed after a checkpoint: nothing written yet" 0 "$(wc -c < "$WORK/ck.out")"
check "... and the checkpoint's held records come out of the next run" "2 1 a|1 2 b|1 4 c" \
  "$(printf '4 c\n' | "$D" --state "$WORK/ck.state" --drain | paste -sd '|')"

finish
