# fish completion for tlbf-dedup. Install it as tlbf-dedup.fish in a vendor_completions.d
# directory (/usr/share/fish/vendor_completions.d). tests/e2e/completions.sh checks that it
# offers exactly the options of `tlbf-dedup --help`.
set -l c complete -c tlbf-dedup

$c -s h -l help -d 'Show the options and exit'
$c -s V -l version -d 'Show the version and the commit it was built from'
$c -s f -l format -x -a 'auto lines json ndjson' -d 'Input format'
$c -s z -l null -d 'Records end with NUL instead of newline'
$c -s k -l key -x -d 'Key: JSON path or field list; repeatable'
$c -s d -l delimiter -x -d 'Lines: field separator, one byte'
$c -l key-regex -x -d 'Lines: the key is capture group 1 of this regex'
$c -s i -l ignore-case -d 'Compare keys with ASCII letters case-folded'
$c -l mask -x -a 'numbers hex uuid ip quoted numbers,hex,uuid,ip,quoted' -d 'Replace variable parts of the key by placeholders'
$c -s t -l time -x -d "Where the record's time is: JSON path or field list"
$c -l time-format -x -a 'auto epoch epoch-ms epoch-us epoch-ns rfc3339 clf syslog ctime' -d 'Format of the time field'
$c -l year -x -d 'Year for timestamps without one'
$c -l max-future -x -a '1h 1d 7d' -d 'A time this far ahead of the wall clock is untimed'
$c -l jump-threshold -x -a '1h 6h 1d' -d 'Warn when record times jump further than this'
$c -l allow-untimed -d 'Go on when no record has a readable time'
$c -s w -l window -x -a '250ms 1s 30s 1m 5m 1h 1d' -d 'Time window'
$c -s n -l window-count -x -d 'Count window: a duplicate when among the last N keys'
$c -s e -l error-rate -x -a '1e-3 1e-5 1e-7' -d 'Target false-positive rate'
$c -s c -l capacity -x -d 'Expected distinct keys per window'
$c -s a -l algorithm -x -a 'tlbf apbf gebf exact' -d 'Filter algorithm'
$c -l max-memory -x -a '64M 256M 512M 1G 2G' -d "Bound on the filter's memory"
$c -l refresh -d 'A duplicate renews its key (sliding window)'
# --mark and --stats take a value only as --mark=NAME / --stats=FMT.
$c -l mark -d 'Emit every record, flagged (--mark=NAME names the flag)'
$c -l only-dups -d 'Emit only the duplicates'
$c -l line-buffered -d 'Flush the output after every record'
$c -l on-error -x -a 'pass drop fail' -d 'Records whose key cannot be extracted'
$c -l on-cap -x -a 'warn fail' -d 'When --max-memory makes the filter drop keys inside the window'
$c -l stats -d 'Summary on stderr at exit (--stats=json for JSON)'
$c -l top -x -d 'At exit, the N keys with the most duplicates'
$c -l explain -d 'Show how the first N records are judged (--explain=N), instead of them'
$c -l progress -d 'Progress on stderr'
$c -l state -r -F -d 'Keep the filter in FILE across runs'
$c -l state-reset -d 'With --state: ignore an existing state file'
$c -l missing -x -a 'error null' -d 'JSON composite keys: an absent member is an error or a null'
$c -l checkpoint -x -a '10s 30s 60s 5m' -d 'With --state: save the state this often'
$c -l lock-timeout -x -a '0 10s 60s 5m' -d 'With --state: wait this long for another run on the same file'
$c -s q -l quiet -d 'No warnings on stderr'
