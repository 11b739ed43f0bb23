#!/usr/bin/env bash
# --threads 2 (a second thread reads and extracts files ahead of the decisions) gives what
# --threads 1 gives: the same stdout byte for byte, the same stderr (warnings naming the
# same file and record, in the same order; --stats but its timing line) and the same exit
# status, on every file of ../shared/data with its natural key, several files in one run,
# -z, a record longer than a batch, --multiline, a damaged .gz among plain files and the
# untimed probe; and it ends cleanly when the pipe closes or a signal comes.
source "$(dirname "$0")/../lib.bash"
need_shared_data
D="$TLBF_DEDUP"
S="$SHARED_DATA"

# same LABEL ARGS...: runs both thread modes with ARGS and compares them.
same() {
  local label=$1 t status
  shift
  for t in 1 2; do
    status=0
    "$D" --threads "$t" "$@" > "$WORK/out$t" 2> "$WORK/err$t" || status=$?
    # The run time (--stats, text or JSON) is the only line allowed to differ.
    grep -av -e '^seconds ' "$WORK/err$t" | sed 's/"seconds":[^,]*,"records_per_second":[^,]*,//' > "$WORK/diag$t"
    echo "status $status" >> "$WORK/diag$t"
  done
  check_files "$label: same output" "$WORK/out1" "$WORK/out2"
  check_files "$label: same stderr and status" "$WORK/diag1" "$WORK/diag2"
}

# Every shared file, with the key and time its SOURCES.md entry suggests (no --year: each
# file's year comes from its modification time, set per input on the reading thread).
same apache -k 1-3,6- -t 4,5 -w 60s --stats "$S/apache_access_elastic.log"
same auth -k 4- -t 1-3 -w 61s --stats "$S/syslog_auth_elastic.log"
same kafka --multiline '^\[' -k 3- -t 1,2 -w 60s --stats "$S/kafka_state_change_multiline_elastic.log"
same kafka_lines -k 3- -t 1,2 -w 60s --stats "$S/kafka_state_change_multiline_elastic.log"
same nginx -k address -k timestamp -t timestamp -w 5m --stats=json "$S/nginxplus_status_elastic.ndjson"
same apache_error -k 6- -t 1-5 -w 60s --stats "$S/loghub_apache_error_2k.log"
for f in openssh linux_syslog mac_syslog; do
  same "$f" -k 4- -t 1-3 -w 61s --stats "$S/loghub_${f}_2k.log"
done
same hdfs -k 4- -t 1,2 -w 60s --stats "$S/loghub_hdfs_2k.log"
same bgl -k 1,4,6- -t 2 --time-format epoch -w 60s --stats "$S/loghub_bgl_2k.log"
same hpc -k 2-4,6- -t 5 --time-format epoch -w 60s --stats "$S/loghub_hpc_2k.log"
for f in hadoop windows_cbs zookeeper android proxifier; do
  same "$f" -k 3- -t 1,2 -w 60s --stats "$S/loghub_${f}_2k.log"
done
same healthapp -d '|' -k 2- -t 1 -w 60s --stats "$S/loghub_healthapp_2k.log"
same zeek_dns -k uid -k trans_id -k query -k qtype_name -t ts -w 60s --stats --top 5 "$S/zeek_dns_wrccdc2018.ndjson"
same zeek_syslog -k id.orig_h -k message -t ts -w 61s --stats "$S/zeek_syslog_wrccdc2018.ndjson"
same zeek_rdp -k uid -t ts -w 60s --stats "$S/zeek_rdp_wrccdc2018.ndjson"
same zeek_notice -k note -k msg -k src -k dst -t ts -w 60s --stats "$S/zeek_notice_wrccdc2018.ndjson"

# Several files in one run: warnings name each file and its own record numbers; JSON read
# as lines, records without the key passed or dropped.
TEXT=("$S"/loghub_*_2k.log "$S/syslog_auth_elastic.log")
same several -k 4- -t 1-3 -w 61s --stats "${TEXT[@]}"
same several_mark -k 4- -t 1-3 -w 61s --mark --stats "${TEXT[@]}"
same json_several_pass -k id.orig_h -k message -t ts -w 61s --stats "$S"/zeek_*.ndjson "$S/nginxplus_status_elastic.ndjson"
same json_several_drop -k uid -t ts -w 61s --on-error drop --stats "$S"/zeek_*.ndjson "$S/loghub_hdfs_2k.log"
same json_only_dups -k query -w 1h --only-dups --stats "$S/zeek_dns_wrccdc2018.ndjson" "$S/zeek_dns_wrccdc2018.ndjson"
same on_error_fail -k uid -t ts -w 61s --on-error fail "$S/zeek_rdp_wrccdc2018.ndjson" "$S/loghub_hdfs_2k.log"

# -z records, and a record longer than a batch (1 MiB) and than the reader's buffer.
tr '\n' '\0' < "$S/loghub_openssh_2k.log" > "$WORK/z.in"
same nul -z -k 4- -t 1-3 -w 61s --stats "$WORK/z.in"
{ head -500 "$S/loghub_linux_syslog_2k.log"; head -c 3000000 /dev/zero | tr '\0' x; echo; head -500 "$S/loghub_linux_syslog_2k.log"; } > "$WORK/huge.in"
same huge_line -k 4- -t 1-3 -w 61s --stats "$WORK/huge.in"
# Over --max-record: an input error after every record before it was written.
same too_long --max-record 1M -k 4- -t 1-3 -w 61s --stats "$WORK/huge.in" "$S/loghub_openssh_2k.log"

# A damaged .gz between plain files: what came before it is written, then the error.
head -c 20000 < <(gzip -c "$S/loghub_hadoop_2k.log") > "$WORK/cut.gz"
same truncated_gz -k 3- -t 1,2 -w 60s --stats "$S/loghub_zookeeper_2k.log" "$WORK/cut.gz" "$S/loghub_hdfs_2k.log"
gzip -c "$S/loghub_hadoop_2k.log" > "$WORK/whole.gz"
same gz -k 3- -t 1,2 -w 60s --stats "$S/loghub_zookeeper_2k.log" "$WORK/whole.gz" "$S/loghub_hdfs_2k.log"

# The untimed probe stops the run at the 1000th untimed record, naming its file.
seq 1 5000 | sed 's/^/x /' > "$WORK/untimed.in"
same untimed_probe -k 2 -t 1 --stats "$S/loghub_hdfs_2k.log" "$WORK/untimed.in" "$S/loghub_openssh_2k.log"

# The second thread exists with 2 and not with 1: seen while the run waits on a full pipe.
seq 1 3000000 > "$WORK/big.in"
tasks() {  # [taskset -c CPU] $D [--threads N]: the process's threads while it runs
  local pid n
  rm -f "$WORK/fifo"
  mkfifo "$WORK/fifo"
  exec 3<> "$WORK/fifo"
  "$@" "$WORK/big.in" > "$WORK/fifo" 3<&- &
  pid=$!
  sleep 1
  n=$(ls "/proc/$pid/task" | wc -l)
  kill -KILL "$pid"
  exec 3<&-
  wait "$pid" || true
  echo "$n"
}
# (Compared, not counted: a sanitizer build has a thread of its own.)
one=$(tasks "$D" --threads 1)
check "--threads 2: one thread more than --threads 1" "$((one + 1))" "$(tasks "$D" --threads 2)"
# The default is 1 where the process may run on one CPU only, else 2.
check "the default on one CPU (taskset -c 0): one thread" "$one" "$(tasks taskset -c 0 "$D")"
check "--threads 2 given on one CPU: two threads" "$((one + 1))" "$(tasks taskset -c 0 "$D" --threads 2)"
if [ "$(nproc)" -ge 2 ]; then
  check "the default with $(nproc) CPUs: two threads" "$((one + 1))" "$(tasks "$D")"
else
  echo "SKIP (one check): this machine lets the test use one CPU, so the two-CPU default was not checked"
fi

# Downstream closes the pipe: status 0, nothing on stderr, the first record.
set +o pipefail
"$D" --threads 2 "$WORK/big.in" 2> "$WORK/bp.err" | head -1 > "$WORK/bp.out"
status=${PIPESTATUS[0]}
set -o pipefail
check "broken pipe: status 0" 0 "$status"
check "broken pipe: nothing on stderr" "" "$(cat "$WORK/bp.err")"
check "broken pipe: the first record" 1 "$(cat "$WORK/bp.out")"

# SIGINT mid-run: 130, the state saved, and what was written is the start of the output
# with no record lost (every number up to the last one written: an exact filter, and keys
# one second apart, so none is a duplicate).
seq 1 10000000 > "$WORK/huge_seq.in"
"$D" --threads 2 -a exact -k 1 -t 1 --time-format epoch -w 1h --state "$WORK/st" "$WORK/huge_seq.in" > "$WORK/int.out" &
pid=$!
# The whole file takes about 1 s on an idle machine: signal well before that.
sleep 0.3
kill -INT "$pid"
wait "$pid" && status=0 || status=$?
check "SIGINT: 130" 130 "$status"
check "SIGINT: state saved" 1 "$([ -s "$WORK/st" ] && echo 1)"
check "SIGINT: stopped before the end" 1 "$(( $(wc -l < "$WORK/int.out") < 10000000 ? 1 : 0 ))"
check "SIGINT: no record lost before the stop" 1 "$(awk 'NR != $1 { bad = 1 } END { print bad ? 0 : 1 }' "$WORK/int.out")"

check_usage_error "--threads 3" "--threads" "$D" --threads 3 "$WORK/z.in"
finish
