#!/bin/sh
# SPDX-License-Identifier: MIT
# cudaload-patch once under valgrind (memcheck): patch, check and restore a
# few real programs; any error or definite leak fails.  Usage: valgrind.sh BUILD
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
B=$(cd "${1:-$top/build}" && pwd)
. "$here/../lib/lib.sh"
echo "== cudaload-patch under valgrind"
if ! command -v valgrind >/dev/null 2>&1; then
	skip "valgrind" "not installed"
	finish
	exit
fi
W=$B/e2e-valgrind
rm -rf "$W"
mkdir -p "$W"
cp /usr/bin/env /usr/bin/perl "$W/"
printf '#!/bin/sh\n' >"$W/script"
vg() {
	valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
		"$B/cudaload-patch" "$@" >"$W/out" 2>&1
}
vg --interp /usr/bin/cudaload --machine x86_64 --all "$W"
status "valgrind: patch, no errors" 0 $? "$(cat "$W/out")"
vg --check "$W"/env "$W"/perl
status "valgrind: check, no errors" 0 $? "$(cat "$W/out")"
vg --restore "$W"
status "valgrind: restore, no errors" 0 $? "$(cat "$W/out")"
if cmp -s "$W/env" /usr/bin/env && cmp -s "$W/perl" /usr/bin/perl; then ok "valgrind: restored byte for byte"; else bad "valgrind: restore differs"; fi
finish
