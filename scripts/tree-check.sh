#!/bin/sh
# SPDX-License-Identifier: MIT
# What the repository tracks is what someone wrote or the build needs: every
# name printable (letters, digits, '.', '_', '-', '/'), no build output (an
# object, an archive, a shared object, a link map, an ELF file outside the
# fuzz corpus, whose inputs are ELF on purpose), and every top-level entry
# described in docs/source-tree.md (as `NAME` or `NAME/`).
# Usage: tree-check.sh [TOP [-]]  (the tracked names: `git ls-files`; with
# "-", stdin's lines, as the docs suite plants faults in them)
# Prints each offence, one a line; exits 1 when there is one.
set -u
top=${1:-.}
cd "$top" || exit 2
if [ "${2:-}" = - ]; then
	names=$(cat)
else
	names=$(git ls-files) || { echo "not a git checkout: nothing to check" >&2; exit 2; }
fi
doc=docs/source-tree.md
status=0
offend() { printf '%s\n' "$1"; status=1; }

unprintable=$(printf '%s\n' "$names" | LC_ALL=C grep -vE '^([A-Za-z0-9._/-]+)?$' | LC_ALL=C cat -v)
[ -z "$unprintable" ] || offend "$(printf '%s\n' "$unprintable" | sed 's/^/not a printable name: /')"

printable=$(printf '%s\n' "$names" | LC_ALL=C grep -E '^[A-Za-z0-9._/-]+$')
for f in $(printf '%s\n' "$printable" | grep -E '\.(o|a|so|map)$|\.so\.'); do
	offend "a build output: $f"
done
# one grep for every file (a process a file costs seconds): a first line
# that starts as ELF does
for f in $(printf '%s\n' "$printable" | grep -v '^tests/fuzz/corpus/' |
	(cd "$top" && xargs -r sh -c 'for f; do [ -f "$f" ] && echo "$f"; done' sh) |
	LC_ALL=C xargs -r grep -laP -m1 '^\x7fELF' 2>/dev/null); do
	offend "a binary (ELF): $f"
done

for entry in $(printf '%s\n' "$printable" | sed 's|/.*||' | sort -u); do
	grep -qF -e "\`$entry\`" -e "\`$entry/" "$doc" || offend "not described in $doc: $entry"
done
exit $status
