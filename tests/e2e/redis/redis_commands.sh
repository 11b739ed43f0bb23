#!/usr/bin/env bash
# The TLBF.* commands against a real redis-server: their replies, the window at its edges,
# the server's clock for TIME *, the refusal of times far ahead, and bad arguments of every
# kind (named cases, then a few hundred random ones): each gets an error reply, nothing is
# created or changed by a refused command, and the server stays up without a crash report.
source "$(dirname "$0")/../redis_lib.bash"

start_server s

# 1. Replies.
check "reserve" OK "$(rc s TLBF.RESERVE f WINDOW 10000 ERROR 1e-3 CAPACITY 1000)"
check "reserve an existing key" "ERR TLBF: the key already exists" \
  "$(rc s TLBF.RESERVE f WINDOW 10000 ERROR 1e-3 CAPACITY 1000 | head -1)"
check "the module's type" TLBFilter "$(rc s TYPE f)"
check "add: new, new, then a duplicate in the same call" "1 1 0" "$(rc s TLBF.ADD f TIME 1000 a b a | paste -sd' ')"
check "add: duplicate and new" "0 1" "$(rc s TLBF.ADD f TIME 2000 a c | paste -sd' ')"
inserted_before=$(rc s TLBF.INFO f | paste - - | awk '$1 == "keys_inserted" { print $2 }')
check "exists" "1 1 1 0" "$(rc s TLBF.EXISTS f TIME 2000 a b c d | paste -sd' ')"
check "exists inserts nothing" "$inserted_before" "$(rc s TLBF.INFO f | paste - - | awk '$1 == "keys_inserted" { print $2 }')"
check "keywords in any letter case" "1" "$(rc s tlbf.exists f time 2000 a)"

# 2. The window, at its edges: an item is reported while its age is under the window, and
# nothing is once the slices of the latest insert (c at 2000) have expired, at 2000 + 10000.
check "inside the window" "1 1 1" "$(rc s TLBF.EXISTS f TIME 10999 a b c | paste -sd' ')"
check "c, inserted last, until its window ends" "1" "$(rc s TLBF.EXISTS f TIME 11999 c)"
check "after the window" "0 0 0" "$(rc s TLBF.EXISTS f TIME 12000 a b c | paste -sd' ')"
check "new again after the window" "1" "$(rc s TLBF.ADD f TIME 12000 a)"
# The clock never goes back: an earlier TIME is judged at the latest one.
check "an earlier time counts as the latest" "0" "$(rc s TLBF.ADD f TIME 1 a)"
check "a binary-safe and an empty item" "1 1 0" "$(printf 'x\0y' | rc s -x TLBF.ADD f TIME 12000 '' | paste -sd' ' | cut -c1-3) $(rc s TLBF.ADD f TIME 12000 '')"
# MADD: the items as one list of netstrings, answered by one string, a byte per item; the
# same filter as ADD (a, decided above, is a duplicate here; a binary item round-trips).
check "madd: duplicate, new, new, a duplicate in the same list, empty" "01100" \
  "$(rc s TLBF.MADD f TIME 12000 '1:a,2:mm,3:xyz,2:mm,0:,')"
check "madd's items are ADD's" "1 1 1" "$(rc s TLBF.EXISTS f TIME 12000 mm xyz '' | paste -sd' ')"
check "madd: a binary-safe item" "10" "$(printf '3:p\0q,3:p\0q,' | rc s -x TLBF.MADD f TIME 12000)"
check "madd: an empty list changes nothing" "" "$(rc s TLBF.MADD f TIME 12000 '')"

# 3. INFO: parameters, then the statistics named as in tlbf-dedup --stats.
check "info fields" \
  "algorithm window_ms error_rate capacity max_memory shards clock_ms k l slices slice0_bits bits_allocated peak_bits_allocated keys_inserted live_keys bits_per_key memory_capped cap_evictions" \
  "$(rc s TLBF.INFO f | paste - - | awk '{ print $1 }' | paste -sd' ')"
check "info clock_ms: the latest insert" 12000 "$(rc s TLBF.INFO f | paste - - | awk '$1 == "clock_ms" { print $2 }')"
check "reserve with every option" OK \
  "$(rc s TLBF.RESERVE g window 60000 error 0.01 capacity 100 algorithm gebf maxmemory 1048576 shards 8)"
check "info of a gebf shard" "gebf 1048576 8" \
  "$(rc s TLBF.INFO g | paste - - | awk '$1 == "algorithm" || $1 == "shards" || $1 == "max_memory" { print $2 }' | paste -sd' ')"
check "gebf: new, duplicate" "1 0" "$(rc s TLBF.ADD g TIME 5 k k | paste -sd' ')"
usage=$(rc s MEMORY USAGE f)
check "MEMORY USAGE counts the filter's bits" yes \
  "$([ "$usage" -ge "$(($(rc s TLBF.INFO f | paste - - | awk '$1 == "bits_allocated" { print $2 }') / 8))" ] && echo yes || echo "no: $usage")"

# 4. TIME * is the server's clock; a TIME more than one window ahead of it is refused.
check "reserve w" OK "$(rc s TLBF.RESERVE w WINDOW 60000 ERROR 1e-3 CAPACITY 1000)"
before=$(date +%s%3N)
check "add at the server's clock" 1 "$(rc s TLBF.ADD w TIME '*' x)"
after=$(date +%s%3N)
clock=$(rc s TLBF.INFO w | paste - - | awk '$1 == "clock_ms" { print $2 }')
check "TIME * resolved to the server's clock" yes "$([ "$clock" -ge "$before" ] && [ "$clock" -le "$after" ] && echo yes || echo "no: $before <= $clock <= $after")"
check "half a window ahead is accepted" 1 "$(rc s TLBF.ADD w TIME $(($(date +%s%3N) + 30000)) y)"
far=$(($(date +%s%3N) + 120000))
check "two windows ahead is refused" yes "$(rc s TLBF.ADD w TIME $far z | grep -q 'ahead of the server clock' && echo yes)"
check "the refused item was not inserted" 0 "$(rc s TLBF.EXISTS w TIME '*' z)"
check "EXISTS may look ahead (it changes nothing)" 0 "$(rc s TLBF.EXISTS w TIME $far z)"

# 5. Named bad arguments: each an error reply, and nothing created or changed.
inserted_before=$(rc s TLBF.INFO f | paste - - | awk '$1 == "keys_inserted" { print $2 }')
rc s SET text hello >/dev/null
bad() {  # bad EXPECTED-PREFIX ARGS...
  local want=$1 got
  shift
  got=$(rc s "$@" 2>&1 | head -1)
  check "refused: $*" "$want" "${got:0:${#want}}"
}
E="ERR TLBF:"
bad "ERR wrong number of arguments" TLBF.RESERVE
bad "$E WINDOW, ERROR and CAPACITY are required" TLBF.RESERVE n
bad "$E option 'WINDOW' has no value" TLBF.RESERVE n WINDOW
for v in abc -1 0 1.5 1e3 99999999999999999999 ''; do bad "$E WINDOW must be" TLBF.RESERVE n WINDOW "$v" ERROR 0.01 CAPACITY 10; done
for v in 0 1 2 -0.5 abc nan inf 0.1x ''; do bad "$E ERROR must be" TLBF.RESERVE n WINDOW 1000 ERROR "$v" CAPACITY 10; done
for v in 0 -1 10.5 1e9 281474976710657; do bad "$E CAPACITY must be" TLBF.RESERVE n WINDOW 1000 ERROR 0.01 CAPACITY "$v"; done
for v in apbf exact ''; do bad "$E ALGORITHM must be" TLBF.RESERVE n WINDOW 1000 ERROR 0.01 CAPACITY 10 ALGORITHM "$v"; done
bad "$E MAXMEMORY must be" TLBF.RESERVE n WINDOW 1000 ERROR 0.01 CAPACITY 10 MAXMEMORY 1
bad "$E SHARDS must be" TLBF.RESERVE n WINDOW 1000 ERROR 0.01 CAPACITY 10 SHARDS 0
bad "$E unknown option 'COLOR'" TLBF.RESERVE n WINDOW 1000 ERROR 0.01 CAPACITY 10 COLOR red
bad "$E WINDOW given twice" TLBF.RESERVE n WINDOW 1000 ERROR 0.01 CAPACITY 10 WINDOW 5
bad "$E CAPACITY 10000000000 needs more than MAXMEMORY" TLBF.RESERVE n WINDOW 1000 ERROR 0.01 CAPACITY 10000000000 MAXMEMORY 65536
bad "$E the key already exists" TLBF.RESERVE text WINDOW 1000 ERROR 0.01 CAPACITY 10
for cmd in TLBF.ADD TLBF.EXISTS; do
  bad "$E expected: key TIME" $cmd f
  bad "$E expected: key TIME" $cmd f TIME 1
  bad "$E expected TIME after the key" $cmd f TYME 1 a
  for v in -1 1.5 abc '' 99999999999999999999 '**'; do bad "$E TIME must be" $cmd f TIME "$v" a; done
  bad "$E no filter at this key" $cmd n TIME 1 a
  bad "WRONGTYPE" $cmd text TIME 1 a
done
bad "$E expected: key TIME ms|* list" TLBF.MADD f TIME 1
bad "$E expected: key TIME ms|* list" TLBF.MADD f TIME 1 1:a, 1:b,
bad "$E expected TIME after the key" TLBF.MADD f TYME 1 1:a,
bad "$E TIME must be" TLBF.MADD f TIME -1 1:a,
bad "$E no filter at this key" TLBF.MADD n TIME 1 1:a,
bad "WRONGTYPE" TLBF.MADD text TIME 1 1:a,
# A malformed list is refused whole: the good netstrings before the fault are not inserted.
for v in 1:a 1:ab, 2:a, 01:a, :a, -1:a, 1a, 1:a,x 1:a,2 99999999999999999999:a, 18446744073709551617:a,; do
  bad "$E the item list is not a sequence of netstrings" TLBF.MADD f TIME 12000 "1:q,$v"
done
check "nothing of a refused list went in" 0 "$(rc s TLBF.EXISTS f TIME 12000 q)"
bad "ERR wrong number of arguments" TLBF.INFO
bad "ERR wrong number of arguments" TLBF.INFO f g
bad "$E no filter at this key" TLBF.INFO n
bad "WRONGTYPE" TLBF.INFO text
bad "WRONGTYPE" GET f
bad "ERR wrong number of arguments" TLBF.LOADCHUNK n 0 3
bad "$E offset must be" TLBF.LOADCHUNK n x 3 abc
bad "$E total must be" TLBF.LOADCHUNK n 0 0 ''
bad "$E chunk out of sequence" TLBF.LOADCHUNK n 5 10 abc
bad "$E chunk goes past the announced total" TLBF.LOADCHUNK n 0 2 abc
bad "$E cannot load the filter: not a TLBF value" TLBF.LOADCHUNK n 0 24 abcdefghijklmnopqrstuvwx
bad "$E the key already exists" TLBF.LOADCHUNK f 0 3 abc
check "no refused command created a key" 0 "$(rc s EXISTS n)"
check "the text key is untouched" hello "$(rc s GET text)"
check "f unchanged by the refusals" "$inserted_before" "$(rc s TLBF.INFO f | paste - - | awk '$1 == "keys_inserted" { print $2 }')"

# 6. Random arguments: a few hundred commands built from the commands' own words, numbers
# at and past every limit, and junk. Every reply must be a well-formed reply; errors must
# be the module's or the server's arity/type errors.
python3 - "${PORT[s]}" <<'EOF' >"$WORK/fuzz.out"
import random, sys
from redis_resp import Client, ReplyError
random.seed(13)
c = Client(int(sys.argv[1]))
words = ["TLBF.RESERVE", "TLBF.ADD", "TLBF.MADD", "TLBF.EXISTS", "TLBF.INFO", "TLBF.LOADCHUNK"]
tokens = ["WINDOW", "ERROR", "CAPACITY", "ALGORITHM", "MAXMEMORY", "SHARDS", "TIME", "*", "tlbf", "gebf",
          "0", "1", "-1", "0.5", "1e-3", "1e308", "nan", "9223372036854775807", "18446744073709551616",
          "4096", "16384", "", "\x00\xff", "f", "fz", "text", "TLBFREDS", "1:a,", "3:a,", "0:,2:xy,", "1:"]
keys = ["fz", "f", "text", "fz2"]
bad = 0
for i in range(400):
    cmd = random.choice(words)
    args = [cmd] + ([random.choice(keys)] if random.random() < 0.95 else [])
    if cmd == "TLBF.RESERVE" and random.random() < 0.5:
        args += ["WINDOW", random.choice(["1", "1000", "0", "x"]), "ERROR", random.choice(["0.01", "1", "1e-9"]),
                 "CAPACITY", random.choice(["1", "1000", "0"])]
    if cmd in ("TLBF.ADD", "TLBF.MADD", "TLBF.EXISTS") and random.random() < 0.6:
        args += ["TIME", random.choice(["*", "0", str(random.randrange(0, 10**13)), "-5"])]
    args += [random.choice(tokens) for _ in range(random.randrange(0, 8))]
    reply = c.call(*args)
    ok = not isinstance(reply, ReplyError) or reply.startswith(("ERR TLBF:", "WRONGTYPE", "ERR wrong number"))
    if not ok:
        bad += 1
        print("unexpected reply %r to %r" % (reply, args))
print("bad replies:", bad)
EOF
check "random arguments: only the expected kinds of replies" "bad replies: 0" "$(tail -1 "$WORK/fuzz.out")"
check_alive s
finish
