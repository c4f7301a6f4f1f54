#!/bin/sh
# SPDX-License-Identifier: MIT
# The record of patched programs (common/stores/patchlist.h): what
# cudaload-patch patches goes in, what it restores comes out, --reapply
# patches again a program an upgrade replaced, --restore-recorded restores
# them all, programs that are gone leave it, and --dry-run, --no-record and patch-image.sh keep
# it untouched.  Runs on a record file named by CUDALOAD_PATCH_RECORD, so it
# needs neither root nor the package.  Usage: record.sh BUILD
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
B=$(cd "${1:-$top/build}" && pwd)
P=${PATCHER:-$B/cudaload-patch}
. "$here/../lib/lib.sh"
echo "== end-to-end, the record of patched programs"

W=$B/record-test
rm -rf "$W"
mkdir -p "$W/bin"
REC=$W/state/patched
export CUDALOAD_PATCH_RECORD=$REC
prog=$(command -v env)
for n in a b c; do cp "$prog" "$W/bin/$n"; done

"$P" --interp "$B/cudaload" "$W/bin/a" "$W/bin/b" >/dev/null
want=$(printf '%s\t%s\n%s\t%s' "$B/cudaload" "$W/bin/a" "$B/cudaload" "$W/bin/b")
status "patched programs are recorded with their interpreter" "$want" "$(cat "$REC" 2>&1)" "$(cat "$REC" 2>&1)"

"$P" --interp "$B/cudaload" --dry-run "$W/bin/c" >/dev/null
"$P" --interp "$B/cudaload" --no-record "$W/bin/c" >/dev/null
lacks "--dry-run and --no-record leave the record alone" "$(cat "$REC")" "$W/bin/c"
"$P" --restore "$W/bin/c" >/dev/null

cp "$prog" "$W/bin/a"	# an upgrade: a fresh, unpatched copy in its place
out=$("$P" --reapply --quiet 2>&1)
status "--reapply --quiet prints nothing" "" "$out" "$out"
out=$("$P" --check "$W/bin/a" "$W/bin/b")
has "--reapply patched the replaced program again" "$out" "$W/bin/a: patched, interpreter $B/cudaload, original $(readelf -l "$prog" | sed -n 's/.*interpreter: \(.*\)]/\1/p')"
out=$("$W/bin/a" echo through-cudaload 2>&1)
status "the re-patched program runs" "through-cudaload" "$out" "$out"
out=$(CUDALOAD_DEBUG=1 "$W/bin/a" true 2>&1)
contains "... through cudaload" "$out" "as interpreter"

rm "$W/bin/b"
out=$("$P" --reapply 2>&1)
contains "a program that is gone is said" "$out" "$W/bin/b: no longer exists; left the record"
lacks "... and leaves the record" "$(cat "$REC")" "$W/bin/b"

"$P" --interp "$B/cudaload" "$W/bin/c" >/dev/null
out=$("$P" --restore-recorded 2>&1)
status "--restore-recorded exits 0" 0 $? "$out"
out=$("$P" --check "$W/bin/a" "$W/bin/c")
has "--restore-recorded restored a" "$out" "$W/bin/a: not patched, interpreter $(readelf -l "$prog" | sed -n 's/.*interpreter: \(.*\)]/\1/p')"
contains "--restore-recorded restored c" "$out" "$W/bin/c: not patched"
cmp -s "$prog" "$W/bin/a" && ok "... byte for byte" || bad "a differs from the original after --restore-recorded"
[ ! -e "$REC" ] && ok "an empty record is removed" || bad "record left: $(cat "$REC")"

"$P" --interp "$B/cudaload" "$W/bin/a" >/dev/null
"$P" --restore "$W/bin/a" >/dev/null 2>&1

# More programs to re-patch than descriptors allow open at once (three
# each while a batch is replaced): --reapply works in batches, as a walk does.
mkdir -p "$W/many"
i=0
while [ $i -lt 120 ]; do cp "$prog" "$W/many/p$i"; i=$((i + 1)); done
"$P" --interp "$B/cudaload" --quiet "$W"/many/p* >/dev/null 2>&1
for f in "$W"/many/p*; do cp "$prog" "$f"; done
out=$( (ulimit -n 200 && "$P" --reapply --quiet) 2>&1)
status "--reapply of 120 programs with 200 descriptors exits 0" 0 $? "$out"
n=$("$P" --check "$W"/many/p* 2>&1 | grep -c ': patched, interpreter')
status "... and patches every one again" 120 "$n" "$out"
"$P" --restore-recorded --quiet >/dev/null 2>&1
[ ! -e "$REC" ] && ok "--restore takes a program out of the record" || bad "record after --restore: $(cat "$REC")"

# A damaged record is read as far as it goes and never stops a run.
mkdir -p "$W/state"
printf 'garbage\n%s\t%s\n' "$B/cudaload" "$W/bin/a" >"$REC"
out=$("$P" --reapply 2>&1)
status "--reapply on a damaged record exits 0" 0 $? "$out"
contains "... says which lines it skipped" "$out" "1 line skipped (line 1: no tab between interpreter and path)"
"$P" --check "$W/bin/a" | grep -q ': patched' && ok "... and patches what it could read" ||
	bad "a not patched from a damaged record"
"$P" --restore "$W/bin/a" >/dev/null 2>&1

# An image is not this system.
if [ -f "$B/aarch64/cudaload" ]; then
	mkdir -p "$W/rootfs/usr/bin"
	cp "$prog" "$W/rootfs/usr/bin/x"
	rm -f "$REC"
	sh "$top/scripts/patch-image.sh" "$W/rootfs" >/dev/null 2>&1
	[ ! -e "$REC" ] && ok "patch-image.sh records nothing" || bad "patch-image.sh recorded: $(cat "$REC")"
else
	skip "patch-image.sh records nothing" "no build/aarch64/cudaload"
fi

out=$(env -u CUDALOAD_PATCH_RECORD "$P" --reapply 2>&1)
st=$?
if [ -d /var/lib/cudaload ]; then
	skip "--reapply without a record" "/var/lib/cudaload exists here"
else
	status "--reapply without a record is a usage error" 100 $st "$out"
	contains "... that says why" "$out" "no record"
fi

# Programs recorded for two cudaloads, both replaced by an upgrade: each is
# patched again for its own, and the record keeps each one's (all in one
# batch of replacements).
REC=$W/state/two
export CUDALOAD_PATCH_RECORD=$REC
mkdir -p "$W/other/bin"
cp "$B/cudaload" "$W/other/bin/cudaload"
cp "$prog" "$W/bin/d"
cp "$prog" "$W/bin/e"
"$P" --interp "$B/cudaload" "$W/bin/d" >/dev/null
"$P" --interp "$W/other/bin/cudaload" "$W/bin/e" >/dev/null
cp "$prog" "$W/bin/d"
cp "$prog" "$W/bin/e"
"$P" --reapply --quiet >/dev/null 2>&1
want=$(printf '%s\t%s\n%s\t%s' "$B/cudaload" "$W/bin/d" "$W/other/bin/cudaload" "$W/bin/e")
status "--reapply keeps each program's own interpreter in the record" "$want" "$(cat "$REC" 2>&1)" "$(cat "$REC" 2>&1)"
out=$("$P" --check "$W/bin/e")
contains "... and patches each for it" "$out" "$W/bin/e: patched, interpreter $W/other/bin/cudaload"
finish
