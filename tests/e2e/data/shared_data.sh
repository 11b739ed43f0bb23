#!/usr/bin/env bash
# The real-world files of ../shared/data (see its SOURCES.md): counts under exact window
# semantics against the kept-anchor columns of SOURCES.md, the default filter against the
# exact one (never fewer duplicates, at most a few more), and byte-exact output.
# SOURCES.md counts a gap of exactly W as a duplicate (|dts| <= W); tlbf-dedup says new at
# exactly the window (age < W). With whole-second timestamps, -w 61s here is SOURCES's 60 s.
source "$(dirname "$0")/../lib.bash"
need_shared_data
S=$SHARED_DATA
D="$TLBF_DEDUP"

# stat FILE FIELD: one field of a --stats=json report.
stat() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$1" "$2"; }

# run NAME ARGS...: runs tlbf-dedup with --stats=json, output to $WORK/NAME.out.
run() {
  local name=$1
  shift
  "$D" -q --stats=json "$@" > "$WORK/$name.out" 2> "$WORK/$name.json"
  echo "     $name: $(python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); print(" ".join(f"{k}={s[k]}" for k in ("records","emitted","duplicates","untimed","errors")))' "$WORK/$name.json")"
}

# Apache CLF access log, timed by "[17/May/2015:10:05:03 +0000]" (fields 4,5); key: the line
# without the timestamp. SOURCES kept-anchor 60 s / 300 s: 610 / 610.
run apache60 -a exact -k 1-3,6- -t 4,5 -w 60s "$S/apache_access_elastic.log"
check "apache: records" 10000 "$(stat "$WORK/apache60.json" records)"
check "apache: exact 60 s duplicates (SOURCES 610)" 610 "$(stat "$WORK/apache60.json" duplicates)"
check "apache: no untimed" 0 "$(stat "$WORK/apache60.json" untimed)"
run apache300 -a exact -k 1-3,6- -t 4,5 -w 5m "$S/apache_access_elastic.log"
check "apache: exact 300 s duplicates (SOURCES 610)" 610 "$(stat "$WORK/apache300.json" duplicates)"
run apache_tlbf -k 1-3,6- -t 4,5 -w 60s "$S/apache_access_elastic.log"
dups=$(stat "$WORK/apache_tlbf.json" duplicates)
check "apache: tlbf finds every duplicate, at most 5 extra" 1 "$(( dups >= 610 && dups <= 615 ? 1 : 0 ))"

# Syslog without a year (given with --year): "Mar 27 13:06:56" is fields 1-3.
# SOURCES kept-anchor 60 s / 300 s: 734 / 853 with <= W.
run auth61 -a exact -k 4- -t 1-3 --year 2017 -w 61s "$S/syslog_auth_elastic.log"
check "syslog auth: exact <=60 s duplicates (SOURCES 734)" 734 "$(stat "$WORK/auth61.json" duplicates)"
run auth60 -a exact -k 4- -t 1-3 --year 2017 -w 60s "$S/syslog_auth_elastic.log"
check "syslog auth: exact <60 s duplicates (one gap of exactly 60 s fewer)" 733 "$(stat "$WORK/auth60.json" duplicates)"
run auth300 -a exact -k 4- -t 1-3 --year 2017 -w 301s "$S/syslog_auth_elastic.log"
check "syslog auth: exact <=300 s duplicates (SOURCES 853)" 853 "$(stat "$WORK/auth300.json" duplicates)"
run auth_syslogfmt -a exact -k 4- -t 1-3 --time-format syslog --year 2017 -w 61s "$S/syslog_auth_elastic.log"
check "syslog auth: --time-format syslog = auto" 734 "$(stat "$WORK/auth_syslogfmt.json" duplicates)"

# Kafka log4j with 1,902 untimed stack-trace lines. Keyed on the whole line, they are
# judged at the clock of the event before them and counted as untimed, not as errors.
run kafka_line -a exact -t 1,2 -w 60s "$S/kafka_state_change_multiline_elastic.log"
check "kafka: untimed continuation lines" 1902 "$(stat "$WORK/kafka_line.json" untimed)"
check "kafka: untimed lines are not errors" 0 "$(stat "$WORK/kafka_line.json" errors)"
check "kafka: whole-line duplicates (SOURCES: 1,807 exact duplicate lines)" 1807 "$(stat "$WORK/kafka_line.json" duplicates)"
# Keyed on fields 3- (the line without its timestamp): continuation lines lack field 3 and
# pass through as errors; SOURCES kept-anchor 60 s counts 686 over the timestamped lines.
run kafka_key -a exact -k 3- -t 1,2 -w 60s "$S/kafka_state_change_multiline_elastic.log"
check "kafka: keyed duplicates (SOURCES 686)" 686 "$(stat "$WORK/kafka_key.json" duplicates)"
check "kafka: every record out but the duplicates" $(( 5307 - 686 )) "$(stat "$WORK/kafka_key.json" emitted)"

# A CRLF loghub file without a final newline: the output keeps the bytes.
# OpenSSH has no exact duplicate lines, so the whole-line output is the input.
run openssh_whole -a exact -w 1d "$S/loghub_openssh_2k.log"
check_files "openssh: CRLF, no final newline, whole-line output = input" "$S/loghub_openssh_2k.log" "$WORK/openssh_whole.out"
run openssh61 -a exact -k 4- -t 1-3 --year 2017 -w 61s "$S/loghub_openssh_2k.log"
check "openssh: exact 60 s duplicates (SOURCES 50)" 50 "$(stat "$WORK/openssh61.json" duplicates)"
check "openssh: output ends like the input (no newline added)" "$(tail -c 20 "$S/loghub_openssh_2k.log" | od -c)" "$(tail -c 20 "$WORK/openssh61.out" | od -c)"
check "openssh: kept lines keep their CR (all but the unterminated last)" 1949 "$(grep -c $'\r$' "$WORK/openssh61.out" || true)"
# Windows CBS: CRLF, no final newline, 719 exact duplicate lines.
run windows -a exact -w 1000d "$S/loghub_windows_cbs_2k.log"
check "windows: whole-line duplicates (SOURCES 719)" 719 "$(stat "$WORK/windows.json" duplicates)"
check "windows: output has no final newline either" "$(tail -c 1 "$S/loghub_windows_cbs_2k.log" | od -c)" "$(tail -c 1 "$WORK/windows.out" | od -c)"

# Zeek DNS NDJSON keyed by uid+trans_id+query+qtype_name, timed by ts (out of order by up
# to 670 s; late records are judged at the newest time seen). 9 records have no
# qtype_name: they pass through as errors. SOURCES counts 29,015 (those 9 among them).
run zeek -a exact -k uid -k trans_id -k query -k qtype_name -t ts -w 60s "$S/zeek_dns_wrccdc2018.ndjson"
check "zeek dns: records" 53615 "$(stat "$WORK/zeek.json" records)"
check "zeek dns: records without qtype_name" 9 "$(stat "$WORK/zeek.json" errors)"
check "zeek dns: exact 60 s duplicates (SOURCES 29,015 incl. the 9)" 29006 "$(stat "$WORK/zeek.json" duplicates)"
run zeek_ptr -a exact -k /uid -k /trans_id -k /query -k /qtype_name -t /ts -w 60s "$S/zeek_dns_wrccdc2018.ndjson"
check_files "zeek dns: JSON pointers = dotted paths" "$WORK/zeek.out" "$WORK/zeek_ptr.out"
run zeek_tlbf -k uid -k trans_id -k query -k qtype_name -t ts -w 60s "$S/zeek_dns_wrccdc2018.ndjson"
dups=$(stat "$WORK/zeek_tlbf.json" duplicates)
check "zeek dns: tlbf finds every duplicate, at most 5 extra" 1 "$(( dups >= 29006 && dups <= 29011 ? 1 : 0 ))"
# Zeek member names contain dots ("id.orig_h"): a literal member wins over nesting.
run zeek_syslog -a exact -k id.orig_h -k message -t ts -w 61s "$S/zeek_syslog_wrccdc2018.ndjson"
check "zeek syslog: dotted member names (SOURCES 1,806)" 1806 "$(stat "$WORK/zeek_syslog.json" duplicates)"

# nginx JSON control file: no duplicates, so the output equals the input byte for byte.
run nginx -k address -k timestamp -t timestamp -w 5m "$S/nginxplus_status_elastic.ndjson"
check_files "nginx: output = input" "$S/nginxplus_status_elastic.ndjson" "$WORK/nginx.out"
check "nginx: no duplicates" 0 "$(stat "$WORK/nginx.json" duplicates)"
run nginx_ms -a exact -k address -k timestamp -t timestamp --time-format epoch-ms -w 5m "$S/nginxplus_status_elastic.ndjson"
check_files "nginx: epoch-ms explicitly" "$S/nginxplus_status_elastic.ndjson" "$WORK/nginx_ms.out"
finish
