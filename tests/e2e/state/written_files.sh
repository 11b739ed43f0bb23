#!/usr/bin/env bash
# The files a run writes beside its output (issue 52, items 2 and 3): --stats-file, the state,
# its lock. A run never replaces or truncates its own output, an input, the state, a device or
# a FIFO, and never writes through a symbolic link planted at the name; it writes into a FIFO
# or its own stderr in place; new files are 0600. (Once, --stats-file renamed its file over
# /dev/full and /dev/stderr, and the lock file truncated whatever its link led to.) Every path
# here is inside the test's directory: devices are made with mknod where the test may.
source "$(dirname "$0")/../lib.bash"
D="$TLBF_DEDUP"
cd "$WORK"
seq 10 > in.txt
cp in.txt in.orig

# refused LABEL STATUS TEXT ARGS...: the run ends at once with STATUS and TEXT in its message.
refused() {
  local label=$1 want=$2 text=$3 status=0
  shift 3
  timeout -k 1 5 "$D" "$@" < in.txt > out 2> err || status=$?
  check "$label: exit $want" "$want" "$status"
  check "$label: the message says why" 1 "$(grep -cF -- "$text" err)"
}
kind() { if [ -L "$1" ]; then echo "link to $(readlink "$1")"; elif [ -p "$1" ]; then echo fifo; elif [ -c "$1" ]; then echo chardev; elif [ -f "$1" ]; then echo "file $(cat "$1")"; else echo none; fi; }

# --stats-file: what it must not replace is refused (exit 2) before anything is read.
status=0
"$D" --stats-file out.txt < in.txt > out.txt 2> err || status=$?
check "--stats-file naming the output: exit 2" 2 "$status"
check "--stats-file naming the output: said" 1 "$(grep -c "'out.txt': is the run's output (stdout)" err)"
ln -s out.txt out.link
status=0
"$D" --stats-file out.link < in.txt > out.txt 2> err || status=$?
check "--stats-file naming the output through a link: exit 2" 2 "$status"
refused "--stats-file naming an input" 2 "is one of the run's inputs" --stats-file in.txt in.txt
check "the input is untouched" "$(cat in.orig)" "$(cat in.txt)"
refused "--stats-file naming stdin" 2 "is the run's input (stdin)" --stats-file in.txt
"$D" --state s.state in.txt > /dev/null
cp s.state s.orig
refused "--stats-file naming the state" 2 "is the --state file" --state s.state --stats-file s.state
check "the state is untouched" same "$(cmp -s s.state s.orig && echo same)"
refused "--stats-file naming the state's lock" 2 "is the --state file's lock" --state s.state --stats-file s.state.lock
echo keep > real.json
ln -s real.json link.json
refused "--stats-file through a link to a file" 2 "'link.json': is a symbolic link, which is never followed" \
  --stats-file link.json
check "the link and its file are untouched" "link to real.json / file keep" "$(kind link.json) / $(kind real.json)"
ln -s nowhere.json dangling.json
refused "--stats-file, a link to nothing" 2 "is a symbolic link to nothing" --stats-file dangling.json
check "nothing created through it" none "$(kind nowhere.json)"
mkdir dir
refused "--stats-file, a directory" 2 "'dir': is a directory" --stats-file dir

# A FIFO is written into in place: a reader gets the summary, the FIFO stays.
mkfifo stats.fifo
timeout 10 cat stats.fifo > got &
reader=$!
status=0
timeout -k 1 10 "$D" --stats-file stats.fifo in.txt > out 2> err || status=$?
wait "$reader" || true
check "--stats-file, a FIFO with a reader: exit 0" 0 "$status"
check "the reader got the summary" 1 "$(grep -c '^records *10$' got)"
check "the FIFO stays a FIFO" fifo "$(kind stats.fifo)"
refused "--stats-file, a FIFO nobody reads" 1 "no process has the FIFO open for reading" --stats-file stats.fifo
check "the records were written first" 10 "$(wc -l < out)"
check "the FIFO stays a FIFO" fifo "$(kind stats.fifo)"

# The run's own stderr, by any name (as /dev/stderr is a link to /proc/self/fd/2): written to
# stderr, never replaced, even where stderr is a file.
ln -s /proc/self/fd/2 my.stderr
status=0
"$D" --stats-file my.stderr in.txt > out 2> err.log || status=$?
check "--stats-file naming stderr: exit 0" 0 "$status"
check "the summary went to stderr" 1 "$(grep -c '^records *10$' err.log)"
check "the link stays a link" "link to /proc/self/fd/2" "$(kind my.stderr)"
echo "a line before" > log.txt
"$D" --stats-file log.txt in.txt > out 2>> log.txt
check "stderr appended to a log named as --stats-file: the log keeps its lines" "a line before 1" \
  "$(head -1 log.txt) $(grep -c '^records *10$' log.txt)"

# Devices, made here (as root): a full device is refused, never replaced; a null one is
# written into.
if mknod full.dev c 1 7 2> /dev/null && mknod null.dev c 1 3 2> /dev/null; then
  refused "--stats-file, a character device" 2 "'full.dev': is a character device" --stats-file full.dev
  check "the device stays a device" chardev "$(kind full.dev)"
  ln -s full.dev full.link
  refused "--stats-file, a link to a device" 2 "is a character device" --stats-file full.link
  check "the device and the link stay" "chardev / link to full.dev" "$(kind full.dev) / $(kind full.link)"
  status=0
  "$D" --stats-file null.dev in.txt > out 2> err || status=$?
  check "--stats-file, a null device: exit 0, still a device" "0 chardev" "$status $(kind null.dev)"
else
  echo "SKIP (part): mknod not permitted"
fi

# A new summary file is 0600; a replaced one keeps its mode.
"$D" --stats-file new.txt in.txt > /dev/null
check "a new --stats-file is 0600" 600 "$(stat -c %a new.txt)"
chmod 644 new.txt
"$D" --stats-file new.txt in.txt > /dev/null
check "a replaced one keeps its mode" 644 "$(stat -c %a new.txt)"

# The lock file: never followed, never a FIFO, never truncated through another name.
echo data > victim
ln -s victim x.state.lock
refused "a lock file that is a link" 1 "'x.state.lock': is a symbolic link; a lock file is never followed" --state x.state
check "the link's target is untouched" "file data" "$(kind victim)"
check "no state was made" none "$(kind x.state)"
mkfifo y.state.lock
refused "a lock file that is a FIFO" 1 "'y.state.lock': is a FIFO" --state y.state
ln victim z.state.lock
status=0
"$D" --state z.state in.txt > /dev/null 2> err || status=$?
check "a lock file with a second name (hard link): the run locks it" 0 "$status"
check "and writes no pid into the other name's file" "file data" "$(kind victim)"
status=0
"$D" --state w.state in.txt > w.state.lock 2> err || status=$?
check "a lock file that is the output: exit 2" "2 1" "$status $(grep -c "'w.state.lock' is the run's output" err)"
status=0
"$D" --state v.state < in.txt > v.state 2> err || status=$?
check "a state file that is the output: exit 2" "2 1" "$status $(grep -c "'v.state' is the run's output" err)"
refused "a state file that is an input" 2 "'s.state' is one of the run's inputs" --state s.state s.state

# --state-reset replaces a state file only, whatever leads to it.
echo secret > notstate
ln -s notstate r.state
refused "--state-reset through a link to another file" 1 "is not a state file" --state r.state --state-reset
check "that file is untouched" "file secret" "$(kind notstate)"
status=0
"$D" --state s.state --state-reset in.txt > out 2> err || status=$?
check "--state-reset on a state file: exit 0, every record new" "0 10" "$status $(wc -l < out)"

# New state and lock files are 0600: the state holds the secret hash seed.
"$D" --state fresh.state in.txt > /dev/null
check "a new state file and its lock are 0600" "600 600" "$(stat -c %a fresh.state) $(stat -c %a fresh.state.lock)"
finish
