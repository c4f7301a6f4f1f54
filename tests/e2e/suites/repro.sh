#!/bin/sh
# SPDX-License-Identifier: MIT
# The packages build reproducibly: the tree is built a second time, from
# scratch, in another build directory, with another umask and time zone (as
# reprotest varies them), and both packages must come out byte for byte the
# same as the ones in BUILD; neither may carry a path of either build.
# The second build reuses BUILD's glibc 2.31 sysroots (GLIBC231_DIR).
# Usage: repro.sh BUILD VERSION
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
B=$(cd "${1:-$top/build}" && pwd)
V=${2:-$(sed -n 's/^VERSION *:= *//p' "$top/Makefile")}
. "$here/../lib/lib.sh"
echo "== reproducible packages"
if ! command -v dpkg-deb >/dev/null 2>&1; then
	skip "reproducible packages" "no dpkg-deb here"
	finish
	exit
fi
native=$(dpkg --print-architecture)
arches=$([ "$native" = arm64 ] && echo arm64 || echo "$native arm64")
B2=$B/repro
rm -rf "$B2"
mkdir -p "$B2"
start=$(date +%s)
out=$(umask 002 && TZ=Pacific/Kiritimati ${MAKE:-make} -s -j2 -C "$top" BUILD="$B2" GLIBC231_DIR="$B" deb 2>&1)
status "a second build of the tree in $B2 ($(($(date +%s) - start)) s)" 0 $? "$out"
for a in $arches; do
	d1=$B/cudaload_${V}_$a.deb d2=$B2/cudaload_${V}_$a.deb
	if [ ! -f "$d1" ] || [ ! -f "$d2" ]; then
		bad "$a: a package is missing" "$(ls -l "$d1" "$d2" 2>&1)"
		continue
	fi
	if cmp -s "$d1" "$d2"; then
		ok "$a: both builds give the same bytes ($(sha256sum <"$d1" | cut -c1-16)...)"
	else
		x=$B2/diff-$a
		rm -rf "$x"
		mkdir -p "$x/1" "$x/2"
		dpkg-deb -R "$d1" "$x/1" && dpkg-deb -R "$d2" "$x/2"
		# what differs: the members, the files, their listings
		ar tv "$d1" >"$x/ar1"
		ar tv "$d2" >"$x/ar2"
		dpkg-deb -c "$d1" >"$x/c1"
		dpkg-deb -c "$d2" >"$x/c2"
		bad "$a: the two builds differ" "$(diff "$x/ar1" "$x/ar2"; diff -r "$x/1" "$x/2" 2>&1 | head -20
			diff "$x/c1" "$x/c2" | head -20)"
	fi
	x=$B2/x-$a
	rm -rf "$x"
	dpkg-deb -R "$d1" "$x"
	paths=$(grep -rlF -e "$top" -e "$B" "$x" 2>/dev/null | sed "s|^$x/||")
	status "$a: no build path in the package" "" "$paths"
done
finish
