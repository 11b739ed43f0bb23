# Bash completion for tlbf-dedup. Source it, or install it as
# /usr/share/bash-completion/completions/tlbf-dedup. tests/e2e/package/completions.sh checks that it
# offers exactly the options of `tlbf-dedup --help`.
_tlbf_dedup() {
  local cur prev
  cur=${COMP_WORDS[COMP_CWORD]}
  prev=${COMP_WORDS[COMP_CWORD-1]}
  case "$prev" in
    -f|--format) COMPREPLY=($(compgen -W "auto lines json ndjson csv tsv zeek" -- "$cur")); return ;;
    -a|--algorithm) COMPREPLY=($(compgen -W "tlbf apbf gebf exact tagged" -- "$cur")); return ;;
    --on-error) COMPREPLY=($(compgen -W "pass drop fail" -- "$cur")); return ;;
    --on-cap) COMPREPLY=($(compgen -W "warn fail" -- "$cur")); return ;;
    --keep) COMPREPLY=($(compgen -W "first last" -- "$cur")); return ;;
    --count-names) COMPREPLY=($(compgen -W "dup_count,first_seen,last_seen" -- "$cur")); return ;;
    --missing) COMPREPLY=($(compgen -W "error null" -- "$cur")); return ;;
    --mask) COMPREPLY=($(compgen -W "numbers hex uuid ip quoted numbers,hex,uuid,ip,quoted" -- "$cur")); return ;;
    --time-format) COMPREPLY=($(compgen -W "auto epoch epoch-ms epoch-us epoch-ns rfc3339 clf syslog ctime" -- "$cur")); return ;;
    -w|--window|--checkpoint|--lock-timeout) COMPREPLY=($(compgen -W "250ms 1s 30s 1m 5m 1h 1d" -- "$cur")); return ;;
    --timezone) COMPREPLY=($(compgen -W "UTC +01:00 -05:00 Europe/Berlin America/New_York" -- "$cur")); return ;;
    --max-memory) COMPREPLY=($(compgen -W "64M 256M 512M 1G 2G" -- "$cur")); return ;;
    --max-record) COMPREPLY=($(compgen -W "1M 64M 1G" -- "$cur")); return ;;
    --multiline-timeout) COMPREPLY=($(compgen -W "0 200ms 1s 5s" -- "$cur")); return ;;
    --lateness) COMPREPLY=($(compgen -W "0 1s 5s 1m 1h" -- "$cur")); return ;;
    -k|--key|--key-except|--where|--where-regex|--records|-t|--time|-d|--delimiter|--comment|--key-regex|--multiline|--count-format|-n|--window-count|-e|--error-rate|-c|--capacity|--year|--date|--time-regex|--max-future|--jump-threshold|--top) return ;;
    --threads) COMPREPLY=($(compgen -W "1 2" -- "$cur")); return ;;
    --state|--stats-file) COMPREPLY=($(compgen -f -- "$cur")); return ;;
    --redis) COMPREPLY=($(compgen -W "redis:// redis+cluster://" -- "$cur")); return ;;
    --redis-fallback) COMPREPLY=($(compgen -W "stop local" -- "$cur")); return ;;
    --redis-key|--redis-shards) return ;;
  esac
  if [[ "$cur" == --stats=* ]]; then
    COMPREPLY=($(compgen -W "--stats=text --stats=json" -- "$cur")); return
  fi
  if [[ "$cur" == -* ]]; then
    COMPREPLY=($(compgen -W "--format --records --null --multiline --multiline-timeout --max-record --key --key-except --delimiter --comment --key-regex --missing --where --where-regex --ignore-case --mask --time --time-format
      --time-regex --year --date --timezone --max-future --jump-threshold --lateness --no-merge --allow-untimed --window --window-count --error-rate --capacity --algorithm --max-memory --refresh --mark --compact --only-dups
      --count --count-format --count-names --keep --line-buffered --on-error --on-cap --stats --stats-file --top --explain --progress --threads --state --state-reset --checkpoint --lock-timeout --drain
      --redis --redis-key --redis-fallback --redis-shards --quiet --help --version
      -f -z -k -d -i -t -w -n -e -c -a -q -h -V" -- "$cur"))
    return
  fi
  COMPREPLY=($(compgen -f -- "$cur"))
}
complete -o filenames -F _tlbf_dedup tlbf-dedup
