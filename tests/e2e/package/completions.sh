#!/usr/bin/env bash
# The bash, zsh and fish completions (completions/) offer exactly the options that
# `tlbf-dedup --help` lists, short and long, and at least the values its help names for the
# options that take one of a few words. An option added to the program but not to every
# completion fails here. bash and fish are asked through their own completion machinery;
# zsh's _arguments specs are read from the file (zsh completes only in a terminal), and the
# file must pass `zsh -n`. Without zsh or fish the checks that need them cannot run: the test
# then says so and is reported as skipped, unless another check failed.
source "$(dirname "$0")/../lib.bash"
: "${SOURCE_DIR:?}"
export LC_ALL=C
BASH_COMP="$SOURCE_DIR/completions/tlbf-dedup.bash"
ZSH_COMP="$SOURCE_DIR/completions/_tlbf-dedup"
FISH_COMP="$SOURCE_DIR/completions/tlbf-dedup.fish"
missing=()

# The option column of --help: "  -k,--key SPEC ...  text" gives -k and --key.
"$TLBF_DEDUP" --help > "$WORK/help.txt"
awk '/^Options:/ { on = 1; next } on && /^  -/ { print $1 }' "$WORK/help.txt" | tr ',' '\n' | sort -u > "$WORK/help"
check "--help lists more than 30 options" 1 "$(( $(wc -l < "$WORK/help") > 30 ? 1 : 0 ))"

# check_options NAME FILE: FILE lists the options of --help, no more and no fewer.
check_options() {
  check "$1" "" "$(comm -3 "$WORK/help" "$2" | awk -F'\t' '{ print ($1 != "" ? "missing " $1 : "unknown " $2) }' | tr '\n' ' ')"
}

# The words an option's help offers as its value: "auto|lines|json (...); ..." gives auto lines
# json; "records whose ...: pass (default) | drop | fail" gives pass drop fail.
help_values() {
  awk -v o="$1" '/^Options:/ { on = 1; next }
    on && /^  -/ { n = split($1, names, ","); for (i = 1; i <= n; i++) if (names[i] == o) { sub(/^  [^ ]+ [^ ]* +/, ""); print } }' \
    "$WORK/help.txt" |
    sed 's/([^)]*)//g; s/;.*//; s/, .*//; s/.*: //' | tr '|' '\n' | awk 'NF { print $1 }' | sort -u
}
CHOICE_OPTIONS=(--format --time-format --algorithm --on-error)
for opt in "${CHOICE_OPTIONS[@]}"; do
  help_values "$opt" > "$WORK/values$opt"
  check "--help names values for $opt" 1 "$(( $(wc -l < "$WORK/values$opt") >= 3 ? 1 : 0 ))"
done
# check_values SHELL OPTION FILE: FILE (what SHELL completes after OPTION) holds the help's words.
check_values() {
  check "$1 completes the values of $2 that --help names" "" \
    "$(sort -u "$3" | comm -23 "$WORK/values$2" - | tr '\n' ' ')"
}

# bash: call the completion function as bash-completion would.
bash_complete() {  # the words before the cursor, then the word being completed
  bash -c 'source "$1"; shift; COMP_WORDS=(tlbf-dedup "$@"); COMP_CWORD=$#; _tlbf_dedup
           printf "%s\n" "${COMPREPLY[@]}"' _ "$BASH_COMP" "$@"
}
check "bash -n accepts the bash completion" 0 "$(bash -n "$BASH_COMP"; echo $?)"
bash_complete - | sort -u > "$WORK/bash"
check_options "bash offers the options of --help after -" "$WORK/bash"
for opt in "${CHOICE_OPTIONS[@]}"; do
  bash_complete "$opt" "" > "$WORK/bash$opt"
  check_values bash "$opt" "$WORK/bash$opt"
done

# zsh: the option names of each _arguments spec, leaving out the [descriptions] and the
# (exclusion lists) and (value lists), which may name options too.
if command -v zsh > /dev/null; then
  check "zsh -n accepts the zsh completion" 0 "$(zsh -n "$ZSH_COMP"; echo $?)"
else
  missing+=(zsh)
fi
grep -E "^[[:space:]]+['\"]" "$ZSH_COMP" | sed 's/\[[^]]*\]//g; s/([^)]*)//g' |
  grep -oE -- "(^|[{,'\"[:space:]])--?[a-zA-Z][a-zA-Z-]*" | sed "s/^[{,'\"[:space:]]//" | sort -u > "$WORK/zsh"
check_options "zsh offers the options of --help" "$WORK/zsh"
for opt in "${CHOICE_OPTIONS[@]}"; do
  # "...--algorithm=}'[filter algorithm]:algorithm:(tlbf apbf gebf exact)'" gives the words.
  grep -E -- "[{,'\"]$opt=" "$ZSH_COMP" | sed -n 's/.*:(\([^)]*\))['"'"'"]*[[:space:]\\]*$/\1/p' | tr ' ' '\n' > "$WORK/zsh$opt"
  check_values zsh "$opt" "$WORK/zsh$opt"
done

# fish: ask fish what it completes.
if command -v fish > /dev/null; then
  fish_complete() { fish --no-config -c "source '$FISH_COMP'; complete -C'tlbf-dedup $1'" | cut -f1; }
  check "fish -n accepts the fish completion" 0 "$(fish -n "$FISH_COMP"; echo $?)"
  fish_complete - | sort -u > "$WORK/fish"
  check_options "fish offers the options of --help after -" "$WORK/fish"
  for opt in "${CHOICE_OPTIONS[@]}"; do
    fish_complete "$opt " > "$WORK/fish$opt"
    check_values fish "$opt" "$WORK/fish$opt"
  done
else
  missing+=(fish)
fi

if [ ${#missing[@]} -gt 0 ] && [ "$fails" -eq 0 ]; then
  echo "SKIP: ${missing[*]} not installed (scripts/test.sh installs them), so their completion was not checked"
  exit 77
fi
finish
