#!/usr/bin/env bash
# Every repository path the documentation names exists: README.md, docs/*.md and the man page,
# read for words that start with one of the repository's top-level folders (`tests/...`,
# `src/...`, `scripts/...`) and for relative Markdown links. A path may hold a glob (`*`) or a
# brace list (`{hpp,cpp}`), which must match at least one file; a path with a placeholder
# (`<stage>`) is not checked. Paths are taken from the repository's root, or beside the doc
# (docs/experiments.md's `experiments/x.png` are docs/experiments/x.png).
source "$(dirname "$0")/../lib.bash"
: "${SOURCE_DIR:?}"
python3 - "$SOURCE_DIR" > "$WORK/report" <<'PY'
import glob, os, re, sys
root = sys.argv[1]
os.chdir(root)
tops = sorted(d for d in os.listdir('.') if os.path.isdir(d) and d not in ('.git', 'build') and not d.startswith('build-'))
docs = ['README.md'] + sorted(glob.glob('docs/*.md')) + sorted(glob.glob('man/*.[1-9]'))
word = re.compile(r'(?<![A-Za-z0-9_./$~<-])((?:' + '|'.join(map(re.escape, tops)) + r')/[A-Za-z0-9_.*+/{},-]*)')
link = re.compile(r'\]\(([^)#\s]+)')

def expand(p):  # one level of {a,b}
    m = re.search(r'\{([^{}]*)\}', p)
    return [p[:m.start()] + alt + p[m.end():] for alt in m.group(1).split(',')] if m else [p]

def exists(p, base):
    for q in expand(p):
        for where in ('.', base):
            cand = os.path.normpath(os.path.join(where, q))
            if glob.glob(cand) if '*' in cand else os.path.exists(cand):
                break
        else:
            return False
    return True

names = 0
for doc in docs:
    text = open(doc, encoding='utf-8').read()
    if doc.startswith('man/'):
        text = text.replace('\\-', '-').replace('\\&', '').replace('\\(en', '-')
    base = os.path.dirname(doc)
    for m in word.finditer(text):
        p = m.group(1).rstrip('.,:;)')
        while p.endswith('}') and p.count('}') > p.count('{'):
            p = p[:-1].rstrip('.,:;)')
        if p.count('{') != p.count('}'):
            p = p.split('{')[0]
        names += 1
        if not exists(p, base):
            print(f'{doc}:{text.count(chr(10), 0, m.start()) + 1}: {p}')
    for m in link.finditer(text):
        p = m.group(1)
        if re.match(r'[a-z][a-z0-9+.-]*:', p):
            continue  # a URL
        names += 1
        if not os.path.exists(os.path.normpath(os.path.join(base, p))):
            print(f'{doc}:{text.count(chr(10), 0, m.start()) + 1}: link {p}')
print(f'NAMES {names}')
PY
named=$(sed -n 's/^NAMES //p' "$WORK/report")
check "the docs name paths (a scan that finds none is broken)" 1 "$([ "${named:-0}" -gt 50 ] && echo 1 || echo 0)"
check "every path the docs name exists (doc:line: path)" "" "$(grep -v '^NAMES ' "$WORK/report")"
finish
