#!/usr/bin/env bash
# A Common Log Format time without its zone was read as UTC silently: -t 4 on
# [07/Mar/2004:16:05:49 -0800] takes "[07/Mar/2004:16:05:49" and is 8 h off. The run warns,
# once, and suggests -t 4,5, which reads the zone; a stamp written without a zone, or read whole,
# warns nothing.
source "$(dirname "$0")/../lib.bash"
D="$TLBF_DEDUP"
cd "$WORK"

for i in $(seq 0 9); do
  printf '64.242.88.10 - - [07/Mar/2004:16:%02d:49 -0800] "GET /twiki/bin/view/Main/Page%d HTTP/1.1" 200 4523\n' "$i" $((i % 3))
done > access.log
"$D" -k 1,6-8 -t 4 -w 5m --explain=1 access.log > cut.out 2> cut.err
check "-t 4: warned once" 1 "$(grep -c 'warning' cut.err)"
check "-t 4: the warning names the time and suggests -t 4,5" 1 \
  "$(grep -c 'record 1: time "\[07/Mar/2004:16:00:49" at -t 4 is a Common Log Format time cut off before its zone, and read as UTC: .*give -t 4,5$' cut.err)"
"$D" -k 1,6-8 -t 4,5 -w 5m --explain=1 access.log > whole.out 2> whole.err
check "-t 4,5: no warning" 0 "$(wc -c < whole.err)"
check "-t 4,5: the zone is read (8 h after the cut time)" "2004-03-08T00:00:49Z" "$(tail -1 whole.out | cut -f4)"
check "-t 4 read it 8 h off" "2004-03-07T16:00:49Z" "$(tail -1 cut.out | cut -f4)"

# A CLF time written without a zone, or one in a field of its own: nothing to warn about.
printf '[07/Mar/2004:16:05:49] a\n' | "$D" -k 2 -t 1 > /dev/null 2> nozone.err
check "a stamp written without a zone: no warning" 0 "$(wc -c < nozone.err)"
finish
