#!/bin/sh
# SPDX-License-Identifier: MIT
# hot-check.sh MAP: fail when a line of loader/hot.ld that names cudaload's
# own code placed nothing in the link whose map (ld -Map) is MAP: a
# function renamed, inlined or moved to another object.  A libc member
# that is not there is only reported: which members a musl has is its
# version's and its builder's (a Nix packager's musl is not Debian's).
# In the map, each line of the script is followed by the input sections it
# took; one followed at once by the next line (or the end of .text.hot)
# took none.
set -eu
[ $# -eq 1 ] || { echo "usage: $0 MAP" >&2; exit 2; }
stale=$(awk '
	/^\.text\.hot([ \t]|$)/ { on = 1; next }
	on && /^[^ ]/ { exit }
	!on || /^ \*fill\*/ { next }
	/^ \*/ { if (pat != "" && !took) print pat; pat = substr($0, 2); took = 0; next }
	/^ ?\.[^ ]/ || /^ +0x[0-9a-f]+ +0x[0-9a-f]+ +[^ ]+$/ { took = 1 }
	END { if (pat != "" && !took) print pat }
' "$1")
[ -n "$stale" ] || exit 0
libc=$(printf '%s\n' "$stale" | grep 'libc\.a:' || true)
own=$(printf '%s\n' "$stale" | grep -v 'libc\.a:' || true)
[ -z "$libc" ] || printf '%s: this libc has no member for these lines of loader/hot.ld (%s):\n%s\n' \
	"$0" "$1" "$(printf '%s\n' "$libc" | sed 's/^/  /')" >&2
[ -n "$own" ] || exit 0
printf '%s: loader/hot.ld names code this link (%s) does not have; mend or drop:\n%s\n' \
	"$0" "$1" "$(printf '%s\n' "$own" | sed 's/^/  /')" >&2
exit 1
