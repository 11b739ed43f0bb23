#!/usr/bin/env bash
# --multiline with a pattern that never matches made each input one record, silently (the
# README's '^\d{4}-' on a Spark log whose lines start "17/06/09 20:10:40"). When no line of the
# first 1000 lines (or the first MiB) starts a record, the run warns, naming the pattern, the
# first line and the shape of a pattern that matches it, which works. A pattern that matches
# after a few leading lines warns nothing.
source "$(dirname "$0")/../lib.bash"
D="$TLBF_DEDUP"
cd "$WORK"

# A Spark log: year-last-two-digit slash dates, and stack traces under some lines.
for i in $(seq 0 1199); do
  printf '17/06/09 20:%02d:%02d INFO executor.Executor: Finished task %d.0 in stage %d\n' $((i / 60 % 60)) $((i % 60)) $((i % 7)) $((i % 3))
  [ $((i % 100)) -eq 0 ] && printf '\tat org.apache.spark.Task.run(Task.scala:%d)\n' "$i"
done > spark.log
status=0
"$D" --multiline '^\d{4}-' -k 3- -w 1h --stats spark.log > spark.out 2> spark.err || status=$?
check "the README's pattern on a Spark log: exit 0" 0 "$status"
check "one record of the whole file" 1 "$(grep -c '^records       1$' spark.err)"
check "the warning names the pattern, the first 1000 lines and the first line" 1 \
  "$(grep -c "warning: spark.log: --multiline '\^\\\\d{4}-' matched none of the first 1000 lines (the first: \"17/06/09 20:00:00 INFO executor.Executor: Finished task 0.0 in stage 0\")" spark.err)"
pattern=$(sed -n "s/.*this input's lines start like '\([^']*\)'.*/\1/p" spark.err)
check "it suggests the lines' shape" '^\d{2}/\d{2}/\d{2}' "$pattern"
status=0
"$D" --multiline "$pattern" -k 3- -w 1h --stats spark.log > fixed.out 2> fixed.err || status=$?
check "the suggestion works: no warning" 0 "$(grep -c 'warning' fixed.err || true)"
check "the suggestion works: a record per header line" 1 "$(grep -c '^records       1200$' fixed.err)"

# A short input: the lines there are.
printf 'a\nb\n' | "$D" --multiline '^x' > /dev/null 2> short.err
check "a short input: said for the lines read" 1 "$(grep -c "matched none of the 2 lines read (the first: \"a\")" short.err)"

# Few long lines: the first MiB decides.
awk 'BEGIN { s = sprintf("%2000s", ""); gsub(/ /, "x", s); for (i = 0; i < 600; i++) print "line", i, s }' > wide.log
"$D" --multiline '^\d' wide.log > /dev/null 2> wide.err
check "long lines: the first MiB" 1 "$(grep -c "matched none of the first MiB (" wide.err)"

# A pattern that matches after leading lines (a JVM's banner): no warning.
"$D" --multiline '^\d{4}-' -k 3- -w 1h "$TESTDATA/app_stacktrace.log" > /dev/null 2> match.err
check "a matching pattern: no warning" 0 "$(grep -c 'multiline' match.err || true)"
finish
