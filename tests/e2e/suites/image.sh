#!/bin/sh
# SPDX-License-Identifier: MIT
# Image patching stays in the image.
#
# An image's usr, opt, etc or var may be links that point out of it (to
# /usr, or anywhere).  cudaload-patch --root and scripts/patch-image.sh
# resolve every path inside the image, as chroot would: the directory
# outside that such a link names stays as it was, entry for entry and byte
# for byte (a listing of names, types, modes, times, link targets and
# checksums, before and after); absolute links inside the image are
# followed there, relative ones that climb stop at its root; links that
# loop are errors.  Each case runs with the kernel's openat2
# (RESOLVE_IN_ROOT) and again with cudaload-patch's own resolver
# (CUDALOAD_PATCH_RESOLVER=own), which hosts without openat2 use (Ubuntu
# 20.04's first kernel).
#
# Then the temporaries of a run that was killed (".NAME.cudaload-XXXXXX"):
# the next run removes them and says so, but never a live run's (locked)
# nor another user's; patch-image.sh leaves none in an image.
# Usage: image.sh BUILD
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
B=$(cd "${1:-$top/build}" && pwd)
P=${PATCHER:-$B/cudaload-patch}	# make check also runs this with an ASan+UBSan build
CC=${CC:-cc}
. "$here/../lib/lib.sh"
echo "== end-to-end, image patching stays in the image ($P)"

W=$B/e2e-image
rm -rf "$W"
mkdir -p "$W"
M=$(uname -m)
$CC -O1 -o "$W/prog" "$here/../helpers/cudaprobe.c" -ldl	# a CUDA program: it dlopens libcuda
LDSO=$(readelf -lW "$W/prog" | sed -n 's/.*Requesting program interpreter: \(.*\)]/\1/p')

# listing DIR: every entry below DIR: type, mode, owner, modification time,
# link target; then every file's checksum.  Two listings are equal when
# nothing there was made, removed, renamed, written or re-linked.
listing() {
	(cd "$1" && find . -printf '%y %m %U %T@ %p -> %l\n' | LC_ALL=C sort &&
		find . -type f -exec sha256sum {} + | LC_ALL=C sort -k2)
}
# unchanged NAME DIR BEFORE: DIR lists as BEFORE
unchanged() {
	if [ "$(listing "$2")" = "$3" ]; then ok "$1"; else
		bad "$1" "$(printf '%s\n' "$3" >"$W/want"; listing "$2" | diff "$W/want" - | head -n 12)"; fi
}
patched() { "$P" --check "$1" 2>&1 | grep -q ': patched, interpreter /usr/bin/cudaload'; }

# The directory outside every image: what links out of them point to.
O=$W/outside
mkdir -p "$O/usr/bin" "$O/usr/lib" "$O/opt/app" "$O/etc" "$O/var/lib/cudaload"
cp "$W/prog" "$O/usr/bin/app"
cp "$W/prog" "$O/opt/app/app"
cp "$W/prog" "$O/opt/app/app2"
cp "$B/cudaload" "$O/usr/bin/cudaload"	# a cudaload an image must not take for its own
printf 'outside\n' >"$O/etc/cudaload.conf"
mkdir -p "$O/usr/lib/python3/dist-packages/torch/lib"	# a CUDA wheel, not the image's
: >"$O/usr/lib/python3/dist-packages/torch/lib/libcudart.so.12"
before=$(listing "$O")
climb=../../../../../../../../../../../../../../../..	# far above any root

kernel_openat2=no
case $(uname -r) in
[0-4].* | 5.[0-5].* | 5.[0-5]) ;;
*) kernel_openat2=yes ;;
esac

for how in openat2 own; do
	if [ $how = own ]; then export CUDALOAD_PATCH_RESOLVER=own; else unset CUDALOAD_PATCH_RESOLVER; fi
	t="[$how]"
	D=$W/$how
	mkdir -p "$D"

	# ---- row 2: cudaload-patch --root over links that leave the image ----------
	I=$D/out
	mkdir -p "$I"
	ln -s "$O/usr" "$I/usr"			# absolute, out
	ln -s "$climb$O/opt" "$I/opt"		# relative, climbing out
	out=$("$P" --root "$I" --interp /usr/bin/cudaload --machine "$M" -v "$I/usr/bin" "$I/opt" 2>&1)
	status "row 2 $t: walks through links out of the image fail" 1 $? "$out"
	contains "row 2 $t: usr: no such directory in the image" "$out" "$I/usr/bin: error: No such file or directory"
	contains "row 2 $t: opt: no such directory in the image" "$out" "$I/opt: error: No such file or directory"
	case $how in
	own) contains "row 2 $t: -v says the resolver (forced)" "$out" \
		"paths in $I are resolved inside it, by cudaload-patch's own (CUDALOAD_PATCH_RESOLVER=own)" ;;
	*) if printf '%s\n' "$out" | grep -q 'by openat2 (RESOLVE_IN_ROOT)$'; then
		ok "row 2 $t: -v says the resolver (the kernel's)"
	elif [ $kernel_openat2 = no ]; then
		skip "row 2 $t: -v says the resolver (the kernel's)" "kernel $(uname -r) has no openat2"
	elif printf '%s\n' "$out" | grep -q "by cudaload-patch's own (this kernel has no openat2)"; then
		skip "row 2 $t: -v says the resolver (the kernel's)" "openat2 refused here (a seccomp filter?)"
	else
		bad "row 2 $t: -v says the resolver" "$out"
	fi ;;
	esac
	out=$("$P" --root "$I" --interp /usr/bin/cudaload --machine "$M" --all "$I/usr/bin/app" "$I/opt/app/app" 2>&1)
	status "row 2 $t: named programs through links out fail" 1 $? "$out"
	out=$("$P" --root "$I" --restore "$I/usr/bin" "$I/usr/bin/app" 2>&1)
	status "row 2 $t: --restore through links out fails" 1 $? "$out"
	out=$("$P" --root "$I" --machine "$M" "$I/opt/app" 2>&1)
	status "row 2 $t: the image's cudaload is looked for inside it" 100 $? "$out"
	contains "row 2 $t: ... and not found there" "$out" "no cudaload in the image"
	out=$("$P" --root "$I" --interp /usr/bin/cudaload --machine "$M" "$O/opt/app" 2>&1)
	status "row 2 $t: a path outside the image is refused" 1 $? "$out"
	contains "row 2 $t: ... with the reason" "$out" "$O/opt/app: error: not in the image (--root $I)"
	unchanged "row 2 $t: nothing outside the image changed" "$O" "$before"

	# ---- row 2: absolute links inside the image are followed inside it ---------
	I=$D/in
	mkdir -p "$I$O/usr/bin" "$I$O/opt/app" "$I/real"
	ln -s "$O/usr" "$I/usr"			# the same absolute path, inside
	ln -s "$climb$O/opt" "$I/opt"		# climbs to the image's root, no further
	ln -s "$O/opt/app/app2" "$I/real/alias"	# a named link, absolute
	ln -s /usr/bin/app "$I$O/usr/bin/same"	# a link to a file already walked
	for f in "$I$O/usr/bin/app" "$I$O/opt/app/app" "$I$O/opt/app/app2"; do cp "$W/prog" "$f"; done
	out=$("$P" --root "$I" --interp /usr/bin/cudaload --machine "$M" "$I/usr/bin" "$I/opt" "$I/real/alias" 2>&1)
	status "row 2 $t: walks through links inside the image" 0 $? "$out"
	has "row 2 $t: usr/bin/app, through the absolute link" "$out" \
		"$I/usr/bin/app: patched, interpreter /usr/bin/cudaload (was $LDSO), grown"
	has "row 2 $t: opt/app/app, through the climbing link (named: its target walked)" "$out" \
		"$I$O/opt/app/app: patched, interpreter /usr/bin/cudaload (was $LDSO), grown"
	has "row 2 $t: a named absolute link: its target inside the image" "$out" \
		"$I$O/opt/app/app2: patched, interpreter /usr/bin/cudaload (was $LDSO), grown"
	has "row 2 $t: three patched" "$out" "cudaload-patch: 3 patched, 0 skipped, 0 failed"
	for f in usr/bin/app opt/app/app opt/app/app2; do
		patched "$I$O/$f" && ok "row 2 $t: $f patched inside the image" || bad "row 2 $t: $f not patched"
	done
	unchanged "row 2 $t: nothing outside the image changed" "$O" "$before"
	out=$("$P" --root "$I" --restore "$I/usr/bin" "$I/opt/app" 2>&1)
	status "row 2 $t: --restore inside the image" 0 $? "$out"
	contains "row 2 $t: ... all three" "$out" "cudaload-patch: 3 restored"
	for f in usr/bin/app opt/app/app opt/app/app2; do
		cmp -s "$I$O/$f" "$W/prog" && ok "row 2 $t: $f restored byte for byte" || bad "row 2 $t: $f differs"
	done
	unchanged "row 2 $t: still nothing outside" "$O" "$before"

	# ---- row 2: what is read as the image's is read inside it too -------------
	I=$D/py
	mkdir -p "$I/usr/bin"
	cp /usr/bin/env "$I/usr/bin/python3.11"	# a Python with no CUDA of its own
	ln -s "$O/usr/lib" "$I/usr/lib"
	out=$("$P" --root "$I" --interp /usr/bin/cudaload --machine "$M" --dry-run "$I/usr/bin" 2>&1)
	status "row 2 $t: a dry run over an image whose usr/lib links out" 0 $? "$out"
	has "row 2 $t: ... judges its Python by the image's packages, not this machine's" "$out" \
		"cudaload-patch: 0 would be patched, 1 skipped (no CUDA 1), 0 failed"

	# ---- row 2: links that loop ------------------------------------------------
	I=$D/loop
	mkdir -p "$I"
	ln -s /opt "$I/opt"		# itself, absolute
	ln -s usr "$I/usr"		# itself, relative
	ln -s b "$I/a"
	ln -s /a/x "$I/b"
	out=$("$P" --root "$I" --interp /usr/bin/cudaload --machine "$M" "$I/opt" "$I/usr/bin" "$I/a" 2>&1)
	status "row 2 $t: links that loop fail" 1 $? "$out"
	for p in opt usr/bin a; do
		has "row 2 $t: $p loops" "$out" "$I/$p: error: Too many levels of symbolic links"
	done
	unchanged "row 2 $t: nothing outside the image changed" "$O" "$before"

	# ---- row 2: the record, when it lies in the image --------------------------
	I=$D/rec
	mkdir -p "$I/opt/app"
	cp "$W/prog" "$I/opt/app/app"
	ln -s "$O/var" "$I/var"
	out=$(CUDALOAD_PATCH_RECORD=$I/var/lib/cudaload/patched "$P" --root "$I" --interp /usr/bin/cudaload \
		--machine "$M" "$I/opt/app" 2>&1)
	status "row 2 $t: a record behind a link out of the image is not written" 1 $? "$out"
	contains "row 2 $t: ... and says so" "$out" \
		"cudaload-patch: cannot update the record: $I/var/lib/cudaload/patched: No such file or directory"
	unchanged "row 2 $t: nothing outside the image changed" "$O" "$before"
	mkdir -p "$I$O/var"
	"$P" --root "$I" --restore --quiet "$I/opt/app"
	out=$(CUDALOAD_PATCH_RECORD=$I/var/lib/cudaload/patched "$P" --root "$I" --interp /usr/bin/cudaload \
		--machine "$M" "$I/opt/app" 2>&1)
	status "row 2 $t: a record behind a link inside the image" 0 $? "$out"
	status "row 2 $t: ... is written inside it" "$(printf '/usr/bin/cudaload\t%s/opt/app/app' "$I")" \
		"$(cat "$I$O/var/lib/cudaload/patched" 2>&1)"
	unchanged "row 2 $t: nothing outside the image changed" "$O" "$before"

	# ---- row 3: patch-image.sh over an image whose usr and etc link out --------
	I=$D/pi-out
	mkdir -p "$I/opt/app"
	cp "$W/prog" "$I/opt/app/app"
	ln -s "$O/usr" "$I/usr"
	ln -s "$O/etc" "$I/etc"
	out=$(CUDALOAD_PATCH=$P sh "$top/scripts/patch-image.sh" "$I" "$B/cudaload" 2>&1)
	status "row 3 $t: patch-image.sh fails" 1 $? "$out"
	contains "row 3 $t: ... saying where" "$out" "$I/usr/bin/cudaload: error: cannot make its directory: No such file or directory (in the image"
	unchanged "row 3 $t: nothing installed or patched outside the image" "$O" "$before"
	cmp -s "$I/opt/app/app" "$W/prog" && ok "row 3 $t: nothing patched before the install failed" ||
		bad "row 3 $t: patched without a cudaload"

	# ... and one whose links lead inside it
	I=$D/pi-in
	mkdir -p "$I$O/usr/bin" "$I$O/etc" "$I/opt/app"
	ln -s "$O/usr" "$I/usr"
	ln -s "$O/etc" "$I/etc"
	cp "$W/prog" "$I$O/usr/bin/app"
	cp "$W/prog" "$I/opt/app/app"
	out=$(CUDALOAD_PATCH=$P sh "$top/scripts/patch-image.sh" "$I" "$B/cudaload" 2>&1)
	status "row 3 $t: patch-image.sh through links inside the image" 0 $? "$out"
	has "row 3 $t: ... patches both programs" "$out" "cudaload-patch: 2 patched, 0 skipped, 0 failed"
	cmp -s "$I$O/usr/bin/cudaload" "$B/cudaload" && [ -x "$I$O/usr/bin/cudaload" ] &&
		ok "row 3 $t: cudaload installed inside the image" || bad "row 3 $t: cudaload not installed inside"
	cmp -s "$I$O/etc/cudaload.conf" "$top/etc/cudaload.conf" &&
		ok "row 3 $t: cudaload.conf installed inside the image" || bad "row 3 $t: no cudaload.conf inside"
	n=$(find "$I$O/usr/lib/cudaload/pin" -type l | wc -l)
	want=$(sh "$top/scripts/mkpin.sh" "$W/pin-$how" /usr/lib/cudaload/pin && find "$W/pin-$how" -type l | wc -l)
	status "row 3 $t: the pin directories inside the image" "$want" "$n"
	status "row 3 $t: ... links as mkpin.sh makes them" \
		"$(cd "$W/pin-$how" && find . -printf '%y %m %p -> %l\n' | LC_ALL=C sort)" \
		"$(cd "$I$O/usr/lib/cudaload/pin" && find . -printf '%y %m %p -> %l\n' | LC_ALL=C sort)"
	patched "$I$O/usr/bin/app" && ok "row 3 $t: usr/bin/app patched inside" || bad "row 3 $t: usr/bin/app"
	unchanged "row 3 $t: nothing outside the image changed" "$O" "$before"
	printf 'mine\n' >"$I$O/etc/cudaload.conf"
	out=$(CUDALOAD_PATCH=$P sh "$top/scripts/patch-image.sh" "$I" "$B/cudaload" 2>&1)
	status "row 3 $t: again: nothing more to patch" 0 $? "$out"
	status "row 3 $t: ... and the image's own cudaload.conf is kept" mine "$(cat "$I$O/etc/cudaload.conf")"
	unchanged "row 3 $t: nothing outside the image changed" "$O" "$before"
done
unset CUDALOAD_PATCH_RESOLVER

# ---- --install: its usage --------------------------------------------------------
out=$("$P" --install "$W/prog" /usr/bin/x 2>&1)
status "--install without --root: usage error" 100 $? "$out"
out=$("$P" --root "$W" --install "$W/prog" usr/bin/x 2>&1)
status "--install with a relative DEST: usage error" 100 $? "$out"
out=$("$P" --root "$W" --install --mode 9 "$W/prog" /x 2>&1)
status "--install --mode 9: usage error" 100 $? "$out"
out=$("$P" --mode 644 "$W/prog" 2>&1)
status "--mode without --install: usage error" 100 $? "$out"

# ---- row 12: the temporaries of a killed run --------------------------------------
K=$W/killed
mkdir -p "$K"
for i in 1 2 3 4 5 6; do cp "$W/prog" "$K/app-$i"; done
cp "$W/prog" "$K/.app-1.cudaload-AbC123"	# left by a run that was killed
cp "$W/prog" "$K/.app-2.cudaload-XyZ789"	# a live run's: locked
ln -s app-4 "$K/.app-4.cudaload-SYMLNK"	# not a file
mkdir "$K/.app-6.cudaload-DIRECT"		# nor this
# the live run: a process that holds the lock as cudaload-patch does
/usr/bin/python3 -c 'import fcntl, sys, time
f = open(sys.argv[1])
fcntl.flock(f, fcntl.LOCK_SH)
open(sys.argv[2], "w").close()
time.sleep(120)' "$K/.app-2.cudaload-XyZ789" "$W/locked" >/dev/null 2>&1 &
holder=$!
n=0
while [ ! -e "$W/locked" ] && [ $n -lt 200 ]; do sleep 0.05; n=$((n + 1)); done
if [ "$(id -u)" = 0 ]; then
	cp "$W/prog" "$K/.app-3.cudaload-OtHeR1"
	chown 1234:1234 "$K/.app-3.cudaload-OtHeR1"	# another user's
fi
temps=$(find "$K" -name '.*.cudaload-*' | LC_ALL=C sort)
out=$("$P" --interp /usr/bin/cudaload --machine "$M" --all --dry-run "$K" 2>&1)
status "row 12: --dry-run leaves them" "$temps" "$(find "$K" -name '.*.cudaload-*' | LC_ALL=C sort)" "$out"
out=$("$P" --interp /usr/bin/cudaload --machine "$M" --all "$K" 2>&1)
status "row 12: a run over them: exit 0" 0 $? "$out"
has "row 12: the killed run's temporary is removed, and said" "$out" \
	"$K/.app-1.cudaload-AbC123: removed: a temporary copy left by a run that was killed"
has "row 12: ... never patched" "$out" "cudaload-patch: 6 patched, 0 skipped, 0 failed"
[ ! -e "$K/.app-1.cudaload-AbC123" ] && ok "row 12: ... gone" || bad "row 12: still there"
[ -e "$K/.app-2.cudaload-XyZ789" ] && ok "row 12: a live run's (locked) is left" || bad "row 12: a live run's was removed"
[ -L "$K/.app-4.cudaload-SYMLNK" ] && [ -d "$K/.app-6.cudaload-DIRECT" ] &&
	ok "row 12: a link and a directory of that name are left" || bad "row 12: a link or directory removed"
if [ "$(id -u)" = 0 ]; then
	[ -e "$K/.app-3.cudaload-OtHeR1" ] && ok "row 12: another user's is left" || bad "row 12: another user's removed"
else
	skip "row 12: another user's is left" "not root (chown)"
fi
cmp -s "$K/.app-2.cudaload-XyZ789" "$W/prog" && ok "row 12: ... and none of them patched" ||
	bad "row 12: a temporary was patched"
kill "$holder" 2>/dev/null
wait "$holder" 2>/dev/null
cp "$W/prog" "$K/.app-5.cudaload-NaMeD1"	# beside a named file
out=$("$P" --restore "$K/app-5" 2>&1)
status "row 12: a named file" 0 $? "$out"
has "row 12: ... its directory's stale temporaries removed" "$out" \
	"$K/.app-2.cudaload-XyZ789: removed: a temporary copy left by a run that was killed"
has "row 12: ... all of them" "$out" \
	"$K/.app-5.cudaload-NaMeD1: removed: a temporary copy left by a run that was killed"

# A real kill: SIGKILL while the first batch is being written; the next run
# removes every temporary it left and patches the rest.
R=$W/realkill
mkdir -p "$R"
copies "$W/prog" 1200 "$R/app-%g"
"$P" --interp /usr/bin/cudaload --machine "$M" --all "$R" >/dev/null 2>&1 &
kpid=$!
n=0
while [ -z "$(find "$R" -maxdepth 1 -name '.*.cudaload-*' -print -quit)" ] && kill -0 "$kpid" 2>/dev/null &&
	[ $n -lt 100000 ]; do
	n=$((n + 1))
done
kill -9 "$kpid" 2>/dev/null
wait "$kpid" 2>/dev/null
left=$(find "$R" -maxdepth 1 -name '.*.cudaload-*' | wc -l)
if [ "$left" -eq 0 ]; then
	skip "row 12: a real kill leaves temporaries" "the run was not caught writing (it finished, or between batches)"
else
	ok "row 12: a real kill left $left temporaries"
fi
out=$("$P" --interp /usr/bin/cudaload --machine "$M" --all "$R" 2>&1)
status "row 12: the next run: exit 0" 0 $? "$(printf '%s\n' "$out" | tail -n 3)"
status "row 12: ... says each one it removed" "$left" "$(printf '%s\n' "$out" | grep -c ': removed: a temporary copy left by a run that was killed')"
status "row 12: ... and none is left" 0 "$(find "$R" -name '.*.cudaload-*' | wc -l)"
out=$("$P" --check "$R" 2>&1)
contains "row 12: ... every program patched" "$out" "cudaload-patch: 1200 patched, 0 not patched, 0 skipped, 0 failed"

# patch-image.sh leaves none in the image: what a killed run of it left is
# removed (beside the programs it walks, beside the files it installs).
I=$W/pi-temps
mkdir -p "$I/usr/bin" "$I/etc" "$I/opt/app"
cp "$W/prog" "$I/opt/app/app"
cp "$W/prog" "$I/opt/app/.app.cudaload-Killed"
cp "$B/cudaload" "$I/usr/bin/.cudaload.cudaload-Killed"
cp "$top/etc/cudaload.conf" "$I/etc/.cudaload.conf.cudaload-Killed"
out=$(CUDALOAD_PATCH=$P sh "$top/scripts/patch-image.sh" "$I" "$B/cudaload" 2>&1)
status "row 12: patch-image.sh over a killed run's leftovers" 0 $? "$out"
status "row 12: ... leaves no temporary in the image" "" "$(find "$I" -name '.*.cudaload-*')"
patched "$I/opt/app/app" && ok "row 12: ... and patches" || bad "row 12: not patched"
finish
