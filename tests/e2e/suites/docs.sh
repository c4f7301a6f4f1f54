#!/bin/sh
# SPDX-License-Identifier: MIT
# The documentation covers the interface: every option the two programs
# parse is in their --help and their man page, every CUDALOAD_* variable and
# config key is documented, every key of `cudaload --explain --json` is
# described in cudaload(1), the man pages carry the program's version and
# mandoc finds nothing to warn about, no comment cites a design section
# that docs/design.md lacks, and the README and the pages of docs/ link
# where they say.  Usage: docs.sh BUILD
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
B=$(cd "${1:-$top/build}" && pwd)
. "$here/../lib/lib.sh"
echo "== documentation"
cd "$top" || exit 1


# Option names a source file spells as string literals ("--foo").  ld.so's
# own options, which cudaload passes on and never takes, and the one it
# passes to its verifier (--cudaload-dir), are left out.
# An option table's rows ({ "name", ...) count too.
source_options() {
	{
		grep -o '"--[a-z][a-z0-9-]*' "$1" | sed 's/^"//'
		sed -n 's/^[[:space:]]*{ "\([a-z][a-z0-9-]*\)", .*/--\1/p' "$1"
	} | grep -vx -e '--library-path' -e '--argv0' -e '--preload' -e '--cudaload-dir' | sort -u
}

check_program() { # check_program NAME SOURCE MANPAGE
	help=$("$B/$1" --help 2>&1)
	words=$(man_words "$3")
	n=0
	for o in $(source_options "$2"); do
		n=$((n + 1))
		printf '%s\n' "$help" | grep -q -- "$o\\b" || bad "$1 --help lists $o" "$help"
		printf '%s\n' "$words" | grep -qx -- "$o" || bad "$3 documents $o"
	done
	[ "$n" -ge 3 ] && ok "$1: $n options, each in --help and $3" || bad "$1: options found in $2: $n"
}
check_program cudaload loader/main.c man/cudaload.1
check_program cudaload-patch tools/patch/cudaload-patch.c man/cudaload-patch.1

# Environment variables the loader reads.
words=$(man_words man/cudaload.1)
vars=$(grep -ho '"CUDALOAD_[A-Z_]*' common/*/*.c loader/*.c loader/*/*.c | sed 's/^"//' | sort -u)
missing=
for v in $vars; do printf '%s\n' "$words" | grep -qx "$v" || missing="$missing $v"; done
[ -n "$vars" ] && [ -z "$missing" ] && ok "cudaload.1 documents every variable: $(echo $vars)" ||
	bad "cudaload.1 lacks${missing:- (no variables found in the source)}"

words=$(man_words man/cudaload-patch.1)
vars=$(grep -ho '"CUDALOAD_[A-Z_]*' tools/patch/*.c tools/verify/*.c tools/patch/elfpatch/*.c | sed 's/^"//' | sort -u)
missing=
for v in $vars; do printf '%s\n' "$words" | grep -qx "$v" || missing="$missing $v"; done
[ -z "$missing" ] && ok "cudaload-patch.1 documents every variable: $(echo $vars)" || bad "cudaload-patch.1 lacks$missing"

# cudaload-runtime's: the ones it reads in a container's environment (the
# bare prefix is how it passes its own CUDALOAD_* on to the hook)
words=$(man_words man/cudaload-runtime.1)
vars=$(grep -ho '"CUDALOAD_[A-Z_]*[A-Z]' tools/runtime/*.c | sed 's/^"//' | sort -u)
missing=
for v in $vars; do printf '%s\n' "$words" | grep -qx "$v" || missing="$missing $v"; done
[ -n "$vars" ] && [ -z "$missing" ] && ok "cudaload-runtime.1 documents every variable: $(echo $vars)" ||
	bad "cudaload-runtime.1 lacks${missing:- (no variables found in the source)}"

# Config keys the parser takes.
words=$(man_words man/cudaload.conf.5)
keys=$(grep -o 'strn*cmp(key, "[a-z_.]*"' common/settings/settings.c | sed 's/.*"\(.*\)"/\1/' | sort -u)
missing=
for k in $keys; do
	printf '%s\n' "$words" | grep -qx -- "$k" || mandoc -T utf8 man/cudaload.conf.5 | col -b | grep -q "$k" ||
		missing="$missing $k"
done
[ -n "$keys" ] && [ -z "$missing" ] && ok "cudaload.conf.5 documents every key: $(echo $keys)" ||
	bad "cudaload.conf.5 lacks${missing:- (no keys found in config.c)}"

# JSON keys of --explain, on a Jetson fixture with a compat package (so
# candidates and gpu objects are present) and with no GPU at all.
W=$B/docs-test
rm -rf "$W"
mkdir -p "$W/libs"
CC=${CC:-cc}
if $CC -O1 -o "$W/libs/mknote" "$here/../helpers/mknote.c" 2>/dev/null &&
	sh "$here/../lib/mkroot.sh" "$top/tests/fixtures/orin-jp5-compat122.profile" "$W/root" "$W/libs" >/dev/null 2>&1; then
	: >"$W/empty.conf"
	# a verdict store, so that the verdict objects are there too
	mkdir -p "$W/root/run"
	CUDALOAD_ROOT=$W/root CUDALOAD_CONFIG=$W/empty.conf "$B/cudaload" --verify --timeout 5 >/dev/null 2>&1
	json=$(CUDALOAD_ROOT=$W/root CUDALOAD_CONFIG=$W/empty.conf "$B/cudaload" --explain --json /bin/true)
	keys=$(printf '%s' "$json" | json_keys)
	words=$(man_words man/cudaload.1)
	missing=
	for k in $keys; do printf '%s\n' "$words" | grep -qx -- "$k" || missing="$missing $k"; done
	if [ -z "$keys" ]; then
		bad "--explain --json gave no keys" "$json"
	elif [ -n "$missing" ]; then
		bad "cudaload.1 JSON OUTPUT lacks$missing" "$json"
	else
		ok "cudaload.1 documents every --explain --json key ($(echo $keys | wc -w))"
	fi
else
	bad "cannot build the fixture root for the JSON check"
fi

# Bash completion offers the options of --help and the values they take.
if [ -f /usr/share/bash-completion/bash_completion ] && command -v bash >/dev/null; then
	out=$(PATH=$B:$PATH bash -c '
		. /usr/share/bash-completion/bash_completion
		. etc/bash-completion
		t() { COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMPREPLY=()
		      COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
		      "$fn" "$1" "${COMP_WORDS[-1]}" "${COMP_WORDS[-2]}"; echo "$* => ${COMPREPLY[*]}"; }
		fn=_cudaload; t cudaload --pol; t cudaload --policy ""
		fn=_cudaload_patch; t cudaload-patch --ma; t cudaload-patch --machine a; t cudaload-patch --re' 2>&1)
	has "completion: cudaload --pol" "$out" "cudaload --pol => --policy"
	has "completion: cudaload --policy" "$out" "cudaload --policy  => auto compat system"
	has "completion: cudaload-patch --ma" "$out" "cudaload-patch --ma => --machine"
	has "completion: cudaload-patch --machine a" "$out" "cudaload-patch --machine a => aarch64"
	contains "completion: cudaload-patch --re" "$out" "--reapply"
else
	skip "bash completion" "bash-completion not installed (scripts/deps.sh installs it)"
fi

# Version in the man pages.
v=$("$B/cudaload" --version | sed 's/^cudaload //')
for m in man/*.[0-9]; do
	head -3 "$m" | grep -q "\"cudaload $v\"" && ok "$m is for version $v" || bad "$m: .TH does not say cudaload $v"
done

if command -v mandoc >/dev/null 2>&1; then
	out=$(mandoc -T lint -W warning man/*.[0-9] 2>&1) && ok "mandoc -T lint: clean" || bad "mandoc -T lint" "$out"
else
	skip "mandoc -T lint" "mandoc not installed (scripts/deps.sh installs it)"
fi

# Every source file says its license.
if command -v git >/dev/null && git rev-parse --git-dir >/dev/null 2>&1; then
	missing=$(for f in $(git ls-files '*.c' '*.h' '*.S' '*.sh' Makefile packaging/prerm packaging/postrm); do
		[ ! -f "$f" ] || head -3 "$f" | grep -q 'SPDX-License-Identifier: MIT' || echo "$f"; done)
	[ -z "$missing" ] && ok "every source file has an SPDX line" || bad "no SPDX-License-Identifier line" "$missing"
else
	skip "SPDX lines" "not a git checkout"
fi

# The table of rivals (docs/containers.md) says what each does as its source does.
# NVIDIA's container hook (nvidia-container-toolkit,
# cmd/nvidia-cdi-hook/cudacompat: useCompatLibraries, UseCompat) enables the
# image's compat only where its note lists the host's branch and its driver
# is newer than the host version the hook is given, which nvidia-ctk cdi
# generate freezes into the spec: 803 comes from a spec left stale by a
# driver upgrade, not from every newer driver; 804 on GeForce (no GPU check).
row=$(grep '^| container toolkit hook' docs/containers.md)
contains "docs/containers.md rivals: the container hook row" "$row" "| container toolkit hook"
contains "docs/containers.md rivals: the hook's 803 is a stale CDI spec's" "$row" "803 where that version is stale, frozen into a CDI spec"
contains "docs/containers.md rivals: the hook checks the note's branches" "$row" "note lists the host's branch"
contains "docs/containers.md rivals: the hook's 804 on GeForce" "$row" "804 on GeForce"
lacks "docs/containers.md rivals: no 803 on every newer driver" "$row" "on newer drivers"

# The README is a newcomer's path: the first use comes within its first 80
# lines, and its test command is the one CI runs.
first=$(grep -n '^cudaload \./app' README.md | head -n1 | cut -d: -f1)
[ -n "$first" ] && [ "$first" -le 80 ] && ok "README: the first command cudaload ./app is at line $first" ||
	bad "README: the first cudaload ./app is at line ${first:-(none)}, past 80"
ci=$(grep -v -e '^#' -e '^set ' -e '^cd ' -e '^$' .ci/run | tail -n1)
[ -n "$ci" ] && grep -q "^$ci\( \|\$\)" README.md && ok "README shows CI's test command: $ci" ||
	bad "README does not show CI's test command (.ci/run: ${ci:-none})"

# Every relative link in the README and docs/ leads to a file, and to a
# heading there when it names one (GitHub's anchors); every page of docs/ is
# linked from the README.
if out=$(/usr/bin/python3 - README.md docs/*.md <<'PY'
import os, re, sys
def lines(path):
    fence = False
    for line in open(path, encoding="utf-8"):
        if line.startswith("```"):
            fence = not fence
        elif not fence:
            yield line
def anchors(path):
    seen, out = {}, set()
    for line in lines(path):
        m = re.match(r"#+ (.*)", line)
        if not m:
            continue
        slug = re.sub(r"[^\w\- ]", "", m.group(1).strip().lower()).replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        out.add(slug if n == 0 else "%s-%d" % (slug, n))
    return out
problems, count, linked = [], 0, set()
for path in sys.argv[1:]:
    for line in lines(path):
        for target in re.findall(r"\]\(([^)\s]+)\)", line):
            if re.match(r"[a-z]+:", target):
                continue
            count += 1
            file, _, anchor = target.partition("#")
            dest = os.path.normpath(os.path.join(os.path.dirname(path), file)) if file else path
            if path == "README.md":
                linked.add(dest)
            if not os.path.isfile(dest):
                problems.append("%s: %s: no such file" % (path, target))
            elif anchor and (not dest.endswith(".md") or anchor not in anchors(dest)):
                problems.append("%s: %s: no such heading" % (path, target))
for page in sys.argv[2:]:
    if page not in linked:
        problems.append("README.md does not link to %s" % page)
print("\n".join(problems) if problems else "%d links" % count)
sys.exit(1 if problems else 0)
PY
); then
	ok "README and docs/: every link resolves ($out), every page is linked from the README"
else
	bad "README and docs/: a link leads nowhere, or a page is not linked from the README" "$out"
fi

# Every "docs/design.md §N" cited exists.
cited=$(grep -rhoI --exclude-dir=.git --exclude-dir=build 'docs/design.md §[0-9]*' . | sed 's/.*§//' | sort -un)
missing=
for n in $cited; do grep -q "^## $n\. " docs/design.md || missing="$missing §$n"; done
[ -z "$missing" ] && ok "every cited docs/design.md section exists: $(echo $cited)" || bad "docs/design.md lacks$missing"
stale=$(grep -rlI --exclude-dir=.git --exclude-dir=build 'DESIG[N] §' . || true)
[ -z "$stale" ] && ok "no comment cites a design file outside the repository" || bad "a comment cites a design file outside the repository" "$stale"

# The tracked tree (scripts/tree-check.sh): clean as it is, and each kind of
# junk found when planted in the list of tracked names.
if names=$(git ls-files 2>/dev/null) && [ -n "$names" ]; then
	out=$(sh scripts/tree-check.sh .) && ok "the tracked tree: printable names, no build output, every top-level entry in docs/source-tree.md" ||
		bad "the tracked tree has junk" "$out"
	for plant in "$(printf '\177ELF\002\001')" loader/start/steps.o build-sym/cudaload.map stray-notes.txt; do
		out=$(printf '%s\n%s\n' "$names" "$plant" | sh scripts/tree-check.sh . -) &&
			bad "tree-check.sh passes a planted '$(printf '%s' "$plant" | cat -v)'" ||
			ok "tree-check.sh fails a planted '$(printf '%s' "$plant" | cat -v)': $(printf '%s\n' "$out" | head -n 1 | cut -d: -f1)"
	done
	elf=$(mktemp -d) && mkdir -p "$elf/docs" && cp docs/source-tree.md "$elf/docs/" && cp /bin/true "$elf/README.md" &&
		out=$(printf 'README.md\n' | sh scripts/tree-check.sh "$elf" -) && bad "tree-check.sh passes an ELF binary" ||
		{ contains "tree-check.sh fails an ELF binary whatever its name" "$out" "a binary (ELF): README.md"; }
	rm -rf "$elf"
else
	skip "the tracked tree" "not a git checkout"
fi

# common/ in floors, each including only from those below it (the order of
# docs/source-tree.md); every folder on a floor, every include a file.
floors="base elf host settings packages stores decision report"
floor_of() { echo $floors | tr ' ' '\n' | grep -nx "$1" | cut -d: -f1; }	# 1 the lowest; "" none
up= strays=
for d in common/*/; do
	d=${d#common/} d=${d%/}
	case " $floors " in *" $d "*) ;; *) strays="$strays common/$d" ;; esac
done
for f in common/*/*.[ch]; do
	own=${f#common/} own=${own%%/*}
	rank_own=$(floor_of "$own")
	for inc in $(sed -n 's/^#include "\(\.\.\/[^"]*\)"/\1/p' "$f"); do
		to=${inc#../} to=${to%%/*}
		rank_to=$(floor_of "$to")
		[ -f "$(dirname "$f")/$inc" ] && [ -n "$rank_to" ] && [ "$rank_to" -lt "$rank_own" ] ||
			up="$up $f:$inc"
	done
done
[ -z "$strays" ] && ok "common/: every folder a floor of docs/source-tree.md" || bad "common/: folders on no floor:$strays"
[ -z "$up" ] && ok "common/: every include of another folder is of a floor below" || bad "common/: includes of the same floor or one above, or of no file" "$up"

# What the start keeps together (loader/hot.ld) is checked at each link of
# the loader: this build's map passes, and a line naming a function this
# link lacks fails it, as a rename would.
map=$B/cudaload.map
if [ -f "$map" ]; then
	stale=$(mktemp)
	awk '{ print } /^\.text\.hot[ \t]/ && !done { print " *common/base/env.o(.text.env_renamed .text.env_renamed.*)"; done = 1 }' \
		"$map" >"$stale"
	sh scripts/hot-check.sh "$map" 2>/dev/null && ok "loader/hot.ld: every line places code in this build's link" ||
		bad "loader/hot.ld names code this build lacks" "$(sh scripts/hot-check.sh "$map" 2>&1)"
	out=$(sh scripts/hot-check.sh "$stale" 2>&1) && bad "hot-check.sh passes a map with a stale line" ||
		{ printf '%s\n' "$out" | grep -q 'env_renamed' && ok "hot-check.sh fails a stale line, naming it" ||
			bad "hot-check.sh failed without naming the stale line" "$out"; }
	rm -f "$stale"
else
	bad "no link map $map (the Makefile's loader link writes it)"
fi

finish
