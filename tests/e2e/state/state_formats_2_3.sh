#!/usr/bin/env bash
# State files of formats 2 and 3, written by the program before format 4 (a run that held no
# records wrote format 2, a --count or --keep last run format 3), still load and go on as the
# run that wrote them would have; saved again, they are format 4.
# testdata/state/state-format2-tlbf.state: keys k1..k1000 inserted at 1000 + i/10 s (integer
# division) with -k 2 -t 1 -w 60s and the default -e 1e-5 (a TLBF).
# testdata/state/state-format3-count.state: the first 1,000 lines of `twice` below (every key
# k1..k1000 at 1000 + i/10 s and again 10 s later, in time order) run with
# -k 2 -t 1 -w 60s -a exact --count; every record was still held when it was saved.
source "$(dirname "$0")/../lib.bash"
D="$TLBF_DEDUP"

format_of() { od -An -tu4 -j8 -N4 "$1" | tr -d ' '; }

# Format 2: asked at 1101 s, keys younger than the window are duplicates; keys older than the
# window plus one cell (60/43 s) are new again (age 101 - i/10 s).
ask_saved_state state-format2-tlbf.state
check "format 2: keys inside the window are duplicates" 0 "$(count_numbered "$WORK/out.txt" k 'n >= 420')"
check "format 2: keys beyond window + one cell are new" 399 "$(count_numbered "$WORK/out.txt" k 'n <= 399')"
check "format 2: saved again as format 4" 4 "$(format_of "$WORK/s.state")"

# Format 3: the rest of the input with --drain gives what one run over all of it gives,
# counts and order included.
for i in $(seq 1000); do
  echo "$((1000 + i / 10)) k$i"
  echo "$((1010 + i / 10)) k$i"
done | sort -n -s -k1,1 > "$WORK/twice.txt"
tail -n +1001 "$WORK/twice.txt" > "$WORK/rest.txt"
cp "$TESTDATA/state/state-format3-count.state" "$WORK/c.state"
"$D" -k 2 -t 1 -w 60s -a exact --count "$WORK/twice.txt" > "$WORK/whole.out"
"$D" --state "$WORK/c.state" --drain "$WORK/rest.txt" > "$WORK/rest.out"
check "format 3: the whole run counted every key twice" 1000 "$(grep -c . "$WORK/whole.out")"
check_files "format 3: the held records go on from the state" "$WORK/whole.out" "$WORK/rest.out"
check "format 3: saved again as format 4" 4 "$(format_of "$WORK/c.state")"
finish
