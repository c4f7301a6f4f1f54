#!/bin/sh
# SPDX-License-Identifier: MIT
# cudaload-patch against other processes: a writer appending to the file, an
# upgrade renaming a new version over it, a truncation while it is read, an
# append-only directory, a SIGTERM mid-walk.  Nothing another process wrote
# is lost, no upgrade is undone, nothing crashes, no temporary is left, and
# every file left alone is said with its reason and a non-zero exit.
# Usage: patchrace.sh BUILD
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
B=$(cd "${1:-$top/build}" && pwd)
P=${PATCHER:-$B/cudaload-patch}
P=$(cd "$(dirname "$P")" && pwd)/${P##*/}
CL=$B/cudaload
CC=${CC:-cc}
TRIES=${RACE_TRIES:-100}
. "$here/../lib/lib.sh"
echo "== end-to-end, cudaload-patch under concurrent writers ($P)"

W=$B/e2e-patchrace
rm -rf "$W"
mkdir -p "$W"
$CC -O1 -o "$W/prog" "$here/../helpers/cudaprobe.c" -ldl
inode() { stat -c %i "$1"; }
size() { stat -c %s "$1"; }
temps() { find "$1" -name '.*.cudaload-*' | wc -l; }

# Row 2: a writer holds the file open and appends 40 MiB while it is patched.
cp "$W/prog" "$W/a"
s0=$(size "$W/a")
i0=$(inode "$W/a")
{ sleep 1; head -c 41943040 /dev/zero; } >>"$W/a" &
writer=$!
sleep 0.3
out=$("$P" --interp "$CL" "$W/a" 2>&1)
st=$?
wait $writer
status "a writer holds it open: exit 1" 1 "$st" "$out"
contains "... with the reason" "$out" "another process has it open for writing; left as it was"
status "... the same file, not a copy" "$i0" "$(inode "$W/a")"
status "... with every byte the writer appended" $((s0 + 41943040)) "$(size "$W/a")" "$out"
status "... no temporary left" 0 "$(temps "$W")"

# Row 3: an upgrade renames a new version over a named program while the
# rest of the run (a walk) is under way, after the program was read and
# before its patched copy would replace it.
mkdir -p "$W/A" "$W/B"
cp "$W/prog" "$W/A/prog"
{ cat "$W/prog"; echo new-version; } >"$W/v2"
chmod 755 "$W/v2"
copies "$W/prog" 250 "$W/B/p%g"
(
	while [ "$(temps "$W/B")" -eq 0 ]; do :; done
	cp "$W/v2" "$W/A/.up" && mv "$W/A/.up" "$W/A/prog"
) &
racer=$!
"$P" --interp "$CL" "$W/A/prog" "$W/B" >"$W/out" 2>&1
st=$?
out=$(grep -v ': patched, interpreter' "$W/out")
wait $racer
status "an upgrade during the run: exit 1" 1 "$st" "$out"
contains "... with the reason" "$out" "$W/A/prog: error: it was replaced meanwhile (an upgrade?); left as it was"
if cmp -s "$W/v2" "$W/A/prog"; then ok "... the new version stays, as the upgrade left it"
else bad "... the new version stays, as the upgrade left it" "$(tail -c 20 "$W/A/prog" | od -c | head -3)"; fi
contains "... the walk goes on" "$out" "cudaload-patch: 250 patched"
status "... no temporary left" 0 "$(temps "$W")"

# Row 4: the file truncated and rewritten while it is read, many times.
big=$W/big
{ cat "$W/prog"; head -c 4194304 /dev/zero; } >"$big"
chmod 755 "$big"
mkdir -p "$W/T"
cp "$big" "$W/T/f"
sh -c 'trap "exit 0" TERM; while :; do : >"$1"; cat "$2" >"$1"; done' sh "$W/T/f" "$big" 2>/dev/null &
trunc=$!
crashed=0 silent=0 n=0 codes=
while [ $n -lt "$TRIES" ]; do
	"$P" --interp "$CL" "$W/T/f" >"$W/out" 2>&1
	st=$?
	n=$((n + 1))
	case " $codes " in *" $st "*) ;; *) codes="$codes $st" ;; esac
	[ $st -lt 128 ] || crashed=$((crashed + 1))
	[ $st -eq 0 ] || [ -s "$W/out" ] || silent=$((silent + 1))
done
# a walk over the same directory with the truncation going on
copies "$W/prog" 20 "$W/T/w%g"
out=$("$P" --interp "$CL" "$W/T" 2>&1)
kill $trunc
wait $trunc 2>/dev/null
status "truncated while read: $TRIES runs (exit statuses:$codes), none killed by a signal" 0 "$crashed"
status "... every run that did not patch says why" 0 "$silent"
contains "... a walk prints its summary" "$out" "cudaload-patch: "
status "... no temporary left" 0 "$(temps "$W")"

# Row 16: append-only directory; append-only and immutable files.
if mkdir -p "$W/ao" && cp "$W/prog" "$W/ao/p" && chattr +a "$W/ao" 2>/dev/null; then
	out=$("$P" --interp "$CL" "$W/ao/p" 2>&1)
	st=$?
	status "append-only directory: exit 1" 1 "$st" "$out"
	contains "... with the reason" "$out" "its directory is append-only (chattr)"
	status "... no temporary left" 0 "$(temps "$W/ao")"
	if cmp -s "$W/prog" "$W/ao/p"; then ok "... the program as it was"; else bad "... the program as it was"; fi
	chattr -a "$W/ao"
	for flag in a i; do
		chattr +$flag "$W/ao/p"
		out=$("$P" --interp "$CL" "$W/ao/p" 2>&1)
		st=$?
		chattr -$flag "$W/ao/p"
		status "chattr +$flag file: exit 1, said" 1 "$st" "$out"
		status "... no temporary left" 0 "$(temps "$W/ao")"
	done
else
	skip "append-only directory" "chattr +a does not work here (not root, or a file system without it)"
fi

# SIGTERM during a walk: the temporaries written so far are removed.
mkdir -p "$W/S"
copies "$big" 100 "$W/S/p%g"
"$P" --all --interp "$CL" "$W/S" >"$W/out" 2>&1 &
pp=$!
i=0
while [ "$(temps "$W/S")" -lt 3 ] && [ $i -lt 2000 ]; do i=$((i + 1)); done
kill -TERM $pp
{ wait $pp; } 2>/dev/null
status "SIGTERM mid-walk: killed by it" 143 $?
status "... no temporary left" 0 "$(temps "$W/S")"
rm -rf "$W"
finish
