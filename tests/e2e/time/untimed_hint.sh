#!/usr/bin/env bash
# The advice of a run that found no readable time speaks for most of its records, not for the
# first, which is often a preamble: here Tomcat's own dated line before the application's
# records, whose stamps (2024.03.05 23:42:07,115) no format reads. The error names the
# pattern that reads the records, which then works; a file whose records are all alike gets
# the advice of the first, as before.
source "$(dirname "$0")/../lib.bash"
D="$TLBF_DEDUP"
cd "$WORK"
{
  echo "05-Mar-2024 23:41:02.418 INFO [main] org.apache.catalina.startup.VersionLoggerListener.log Server version name:   Apache Tomcat/9.0.85"
  for i in $(seq 30); do
    printf '2024.03.05 23:%02d:07,115 ERROR [exec-%d] c.e.Handler - Request failed\n' $((41 + i % 18)) $((i % 4))
  done
} > app.log
status=0
"$D" -k 3,5- -t 1,2 -w 5m app.log > out.txt 2> err.txt || status=$?
check "no readable time: exit 1, nothing written" "1 0" "$status $(wc -c < out.txt)"
check "the first record's own warning names its pattern" 1 \
  "$(grep -c 'record 1: no readable time at -t 1,2: "05-Mar-2024 23:41:02.418".*'"'"'%d-%b-%Y %H:%M:%S.%f'"'"' reads it' err.txt)"
check "the error names the first and the records most are like" 1 \
  "$(grep -c '(the first: "05-Mar-2024 23:41:02.418"; 30 of them like "2024.03.05 23:4[0-9]:07,115"): --time-format '"'"'%Y.%m.%d %H:%M:%S,%f'"'"' reads it' err.txt)"
format=$(sed -n "s/.*none of the .*: --time-format '\([^']*\)' reads it.*/\1/p" err.txt)
status=0
"$D" -k 3,5- -t 1,2 -w 5m --time-format "$format" app.log > fixed.txt 2> fixed.err || status=$?
check "the advice works: exit 0, only the preamble untimed" "0 1" \
  "$status $(grep -c '^tlbf-dedup: warning: 1 record(s) had no readable time' fixed.err)"
check "the advice works: one request failure per thread and 5 minutes" 1 "$(( $(wc -l < fixed.txt) < 31 ? 1 : 0 ))"

# Records all alike: the first speaks for them.
tail -n +2 app.log > alike.log
"$D" -k 3,5- -t 1,2 alike.log > /dev/null 2> alike.err || true
check "records all alike: the first, as before" 1 \
  "$(grep -c '(the first: "2024.03.05 23:42:07,115"): --time-format' alike.err)"
finish
