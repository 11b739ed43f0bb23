#!/usr/bin/env bash
# What a --state path may be: a regular file or nothing. A FIFO, a device, a directory (or a
# link to one) is refused at once, exit 1, naming the path, before anything is locked or read;
# a symbolic link is followed to an existing file (a link to nothing is refused), so every
# name of one state file takes one lock and saving replaces the file, keeping the link. A crafted state whose k + l overflows 32 bits is
# refused with a message, not a crash.
source "$(dirname "$0")/../lib.bash"
D="$TLBF_DEDUP"
# An address-space bound, except under the sanitizers (TLBF_SANITIZED), whose shadow memory
# takes terabytes of it; ASan's allocator stops an absurd allocation by itself.
vmem() { if [ -n "${TLBF_SANITIZED:-}" ]; then echo unlimited; else echo "$1"; fi; }
cd "$WORK"
seq 5 > in

# refused NAME TEXT ARGS...: exit 1 within 3 s (under a 1 GB address space), TEXT in the message.
refused() {
  local name=$1 text=$2 status=0
  shift 2
  (ulimit -v "$(vmem 1000000)" && timeout -k 1 3 "$D" "$@" > out 2> err < /dev/null) || status=$?
  check "$name: exit 1 at once" 1 "$status"
  check "$name: the message names it" 1 "$(grep -cF -- "$text" err)"
  check "$name: nothing written" 0 "$(wc -c < out)"
}

# The issue's two: a FIFO (open() waited for a writer for ever) and a link to /dev/zero (read
# without end: 150-300 MB/s, then "std::bad_alloc" naming no file).
mkfifo s.fifo
refused "a FIFO" "state file 's.fifo': is a FIFO; a state file is a regular file, or absent" --state s.fifo
check "a FIFO: no lock file made" no "$([ -e s.fifo.lock ] && echo yes || echo no)"
ln -s /dev/zero z.state
refused "a link to /dev/zero" "state file 'z.state' (which leads to '/dev/zero'): is a character device" --state z.state
refused "a link to /dev/zero, --state-reset" "is a character device" --state z.state --state-reset
check "/dev/zero is still a device" yes "$([ -c /dev/zero ] && echo yes || echo no)"
mkdir dir.state
refused "a directory" "state file 'dir.state': is a directory" --state dir.state
ln -s s.fifo loop1.state
refused "a link to a FIFO" "(which leads to 's.fifo'): is a FIFO" --state loop1.state
ln -s loop2.state loop2.state
refused "a link to itself" "more than 40 symbolic links" --state loop2.state

# A link: the run locks, reads and writes the file it leads to, and the link stays.
"$D" -w 1h --state real.state in > /dev/null
ln -s real.state alias.state
seq 3 8 | "$D" -w 1h --state alias.state > out
check "through the link: the keys of the run on the file are known" "$(seq 6 8)" "$(cat out)"
check "the link is still a link to the file" real.state "$(readlink alias.state)"
check "the file is a regular file" yes "$([ -f real.state ] && [ ! -L real.state ] && echo yes || echo no)"
check "no lock file for the link's name" no "$([ -e alias.state.lock ] && echo yes || echo no)"
mkdir sub
ln -s ../real.state sub/rel.state
seq 8 9 | "$D" -w 1h --state sub/rel.state > out
check "a relative link from another directory: the same file" 9 "$(cat out)"
# A link to nothing is refused: its first save would create a file wherever the link points.
ln -s new.state dangling.state
refused "a link to nothing" "state file 'dangling.state': is a symbolic link to 'new.state', which does not exist" \
  --state dangling.state
check "a link to nothing: nothing created, the link left alone" "no new.state" \
  "$([ -e new.state ] && echo yes || echo no) $(readlink dangling.state)"

# Two names, one lock: a run holding real.state keeps a run on alias.state out.
mkfifo hold
"$D" -w 1h --state real.state < hold > /dev/null &
holder=$!
exec 3> hold
for _ in $(seq 100); do [ "$(cat real.state.lock 2> /dev/null)" == "$holder" ] && break; sleep 0.05; done
status=0
echo 1 | "$D" -w 1h --state alias.state > out 2> err || status=$?
check "a run on the link while one holds the file: exit 1, nothing written" "1 0" "$status $(wc -c < out)"
check "the message names the lock of the file" 1 "$(grep -c "in use by another run (pid $holder holds the lock 'real.state.lock')" err)"
exec 3>&-
wait "$holder"

# A checksummed TLBF (APBF) state whose l is 2^32 - k: k + l wrapped to 0 and the loader
# divided by it (SIGFPE). Refused by name, exit 1.
for alg in tlbf apbf; do
  cp "$TESTDATA/state/$alg-k-plus-l-overflow.state" "$alg.state"
  status=0
  echo 1 | "$D" --state "$alg.state" > out 2> err || status=$?
  check "$alg state with k + l over 2^32: exit 1" 1 "$status"
  check "$alg state with k + l over 2^32: the message says so" 1 "$(grep -c "state file '$alg.state': corrupted .*$alg k or l out of range" err)"
done

# Bytes past what the header declares are refused without being read.
cp real.state long.state
head -c 1000000 /dev/zero >> long.state
status=0
echo 1 | "$D" --state long.state > /dev/null 2> err || status=$?
check "a state with 1,000,000 bytes appended: exit 1 naming them" "1 1" \
  "$status $(grep -c 'corrupted (1000000 unexpected bytes after the checksum)' err)"

# -z, -f and --multiline are recorded like -k: another value later is a usage error.
printf 'a\0b\0' | "$D" -z --state z1.state > /dev/null
check_usage_error "-f json against a state made with -z" "--format 'json' differs from the state file z1.state (made with --null" \
  "$D" -f json --state z1.state in
printf 'a\0c\0' | "$D" --state z1.state > out
check "a run giving no -z reads the state's -z" "$(printf 'c\0' | od -c)" "$(od -c < out)"
"$D" -f lines --state f.state in > /dev/null
check_usage_error "-f json against -f lines" "--format 'json' differs from the state file f.state" \
  "$D" -f json --state f.state in
"$D" --multiline '^1' --state m.state in > /dev/null
check_usage_error "another --multiline" "--multiline '^2' differs from the state file m.state (made with --multiline '^1'" \
  "$D" --multiline '^2' --state m.state in
"$D" --state plain.state in > /dev/null
check_usage_error "-z against a state made without" "--null differs from the state file plain.state" \
  "$D" -z --state plain.state in
finish
