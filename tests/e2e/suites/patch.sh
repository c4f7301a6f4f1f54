#!/bin/sh
# SPDX-License-Identifier: MIT
# End-to-end tests of cudaload-patch: real Debian executables and test
# programs patched, run through cudaload, restored and compared byte for
# byte; skips, bad input made by poking bytes into a good ELF, faithful and
# atomic writes, and an image tree of a few hundred files.
# Usage: patch.sh BUILD
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
B=$(cd "${1:-$top/build}" && pwd)
CL=$B/cudaload
P=${PATCHER:-$B/cudaload-patch}	# make check also runs this with an ASan+UBSan build
P=$(cd "$(dirname "$P")" && pwd)/${P##*/}	# some tests run it from another directory
CC=${CC:-cc}
. "$here/../lib/lib.sh"
echo "== end-to-end, cudaload-patch ($P)"

W=$B/e2e-patch
rm -rf "$W"
mkdir -p "$W/bin" "$W/orig"
PY=$(readlink -f /usr/bin/python3)
LDSO=$(readelf -lW /usr/bin/env | sed -n 's/.*Requesting program interpreter: \(.*\)]/\1/p')

$CC -O1 -o "$W/orig/cudaprobe" "$here/../helpers/cudaprobe.c" -ldl
$CC -O1 -no-pie -o "$W/orig/cudaprobe-nopie" "$here/../helpers/cudaprobe.c" -ldl
$CC -O1 -shared -fPIC -Wl,-soname,libcudart.so.12 -o "$W/orig/libcudart.so.12" "$here/../helpers/fakecudart.c"
$CC -O1 -o "$W/orig/cudaapp" "$here/../helpers/cudaapp.c" "$W/orig/libcudart.so.12" -Wl,-rpath,'$ORIGIN'
cp "$W/orig/libcudart.so.12" "$W/bin/"
$CC -O1 -static -o "$W/orig/static" "$here/../helpers/mknote.c"
cp /usr/bin/env /usr/bin/perl "$PY" "$W/orig/"
py=$(basename "$PY")

# elflint_same NEW OLD: eu-elflint finds nothing it did not find in the
# original (a patch may renumber sections: indices are left out)
elflint_same() {
	eu-elflint --gnu-ld "$1" >"$W/lint.new" 2>&1
	eu-elflint --gnu-ld "$2" >"$W/lint.old" 2>&1
	sed "s|$1|F|; s/\[ *[0-9]*\]/[N]/g" "$W/lint.new" | sort >"$W/lint.a"
	sed "s|$2|F|; s/\[ *[0-9]*\]/[N]/g" "$W/lint.old" | sort >"$W/lint.b"
	cmp -s "$W/lint.a" "$W/lint.b"
}

# phdrs_loaded FILE: the program header table lies inside a PT_LOAD
phdrs_loaded() {
	readelf -lW "$1" | awk '$1 == "PHDR" || $1 == "LOAD" {print $1, $2, $5}' | {
		read -r _ po ps
		while read -r _ lo ls; do
			[ $((po)) -ge $((lo)) ] && [ $((po + ps)) -le $((lo + ls)) ] && exit 0
		done
		exit 1
	}
}

# ---- real programs: patch, check, run, restore, compare -----------------------
for prog in cudaprobe cudaprobe-nopie cudaapp env perl "$py"; do
	cp "$W/orig/$prog" "$W/bin/$prog"
	out=$("$P" --interp "$CL" "$W/bin/$prog")
	contains "$prog: patched" "$out" "$W/bin/$prog: patched, interpreter $CL (was $LDSO)"
	interp=$(readelf -lW "$W/bin/$prog" | sed -n 's/.*Requesting program interpreter: \(.*\)]/\1/p')
	status "$prog: readelf sees the new interpreter" "$CL" "$interp" "$(readelf -lW "$W/bin/$prog")"
	if elflint_same "$W/bin/$prog" "$W/orig/$prog"; then ok "$prog: eu-elflint as clean as before"; else
		bad "$prog: eu-elflint" "$(diff "$W/lint.b" "$W/lint.a")"; fi
	if phdrs_loaded "$W/bin/$prog"; then
		ok "$prog: program headers inside a PT_LOAD"; else bad "$prog: program headers not loaded" "$(readelf -lW "$W/bin/$prog")"; fi
	out=$("$P" --check "$W/bin/$prog")
	has "$prog: --check" "$out" "$W/bin/$prog: patched, interpreter $CL, original $LDSO"
	cp "$W/bin/$prog" "$W/twice"
	out=$("$P" --interp "$CL" "$W/bin/$prog")
	contains "$prog: a second patch reports it" "$out" "already patched, original interpreter $LDSO"
	if cmp -s "$W/bin/$prog" "$W/twice"; then ok "$prog: patching twice equals once"; else bad "$prog: second patch changed it"; fi
done

out=$(CUDALOAD_DEBUG=1 "$W/bin/cudaprobe" x 2>&1)
contains "cudaprobe: runs through cudaload with the recorded loader" "$out" " cudaprobe: loader $LDSO (recorded by cudaload-patch)"
has "cudaprobe: runs" "$out" "arg[1]=x"
out=$("$W/bin/cudaprobe-nopie" 2>&1)
has "cudaprobe-nopie: runs" "$out" "tls=7"
out=$("$W/bin/cudaapp" 2>&1)
has "cudaapp: runs" "$out" "cudart 12020"
out=$("$W/bin/env" CUDALOAD_X=1 2>&1)
has "env: runs" "$out" "CUDALOAD_X=1"
out=$("$W/bin/perl" -e 'print "perl $]\n"' 2>&1)
contains "perl: runs" "$out" "perl 5"
out=$("$W/bin/$py" -c 'import sys, json; print("python", sys.version_info[0])' 2>&1)
has "$py: runs" "$out" "python 3"

out=$("$P" --restore "$W/bin"/*)
contains "restore: summary" "$out" "cudaload-patch: 6 restored, 1 skipped (library 1), 0 failed"
for prog in cudaprobe cudaprobe-nopie cudaapp env perl "$py"; do
	if cmp "$W/bin/$prog" "$W/orig/$prog"; then ok "$prog: restore is byte-identical"; else bad "$prog: restore differs"; fi
done
out=$("$P" --restore "$W/bin/env")
contains "restore: an unpatched file is skipped" "$out" "$W/bin/env: skipped: not patched"

# ---- the interpreter it already has; a path that fits in place -----------------
cp "$W/orig/env" "$W/bin/env"
out=$("$P" --interp "$LDSO" "$W/bin/env")
contains "same interpreter: skipped" "$out" "skipped: already this interpreter"
if cmp -s "$W/bin/env" "$W/orig/env"; then ok "same interpreter: byte-identical"; else bad "same interpreter: changed"; fi

# A PT_INTERP with room to spare (NUL padding after the string, as some
# image tools leave it): the record is written in place, nothing grows.
long=/lib64/ld-linux-x86-64.so.2$(printf '%0120d' 0 | tr 0 X)
$CC -O1 -o "$W/orig/longinterp" "$here/../helpers/cudaprobe.c" -ldl -Wl,--dynamic-linker="$long"
set -- $(readelf -lW "$W/orig/longinterp" | awk '$1 == "INTERP" {print $2, $5}')
head -c $(($2 - 28)) /dev/zero | dd of="$W/orig/longinterp" bs=1 seek=$(($1 + 27)) conv=notrunc 2>/dev/null
cp "$W/orig/longinterp" "$W/bin/longinterp"
out=$("$P" --interp "$CL" "$W/bin/longinterp")
has "in place: patched without growing" "$out" "$W/bin/longinterp: patched, interpreter $CL (was $LDSO)"
status "in place: same program headers" "$(readelf -lW "$W/orig/longinterp" | grep -c LOAD)" "$(readelf -lW "$W/bin/longinterp" | grep -c LOAD)"
out=$("$W/bin/longinterp" 2>&1)
has "in place: runs" "$out" "tls=7"
"$P" --restore "$W/bin/longinterp" >/dev/null
if cmp -s "$W/bin/longinterp" "$W/orig/longinterp"; then ok "in place: restore is byte-identical"; else bad "in place: restore differs"; fi

# ---- skipped with a reason, unchanged ------------------------------------------
printf '#!/bin/sh\necho hi\n' >"$W/bin/script"
printf 'just text\n' >"$W/bin/text"
: >"$W/bin/empty"
cp "$W/orig/static" "$W/orig/libcudart.so.12" "$W/bin/"
aarch64-linux-gnu-gcc -o "$W/bin/arm-prog" "$here/../helpers/cudaprobe.c" -ldl 2>/dev/null
chmod +x "$W/bin"/*
for f in script text empty static libcudart.so.12 arm-prog; do cp "$W/bin/$f" "$W/keep-$f"; done
out=$("$P" --interp "$CL" "$W/bin/script" "$W/bin/text" "$W/bin/empty" "$W/bin/static" "$W/bin/libcudart.so.12")
has "skip: script" "$out" "$W/bin/script: skipped: script"
has "skip: text" "$out" "$W/bin/text: skipped: not ELF"
has "skip: empty" "$out" "$W/bin/empty: skipped: not ELF"
has "skip: static" "$out" "$W/bin/static: skipped: static"
has "skip: library" "$out" "$W/bin/libcudart.so.12: skipped: library"
if [ -f "$W/bin/arm-prog" ]; then
	out=$("$P" --interp "$CL" "$W/bin/arm-prog")
	has "skip: other machine" "$out" "$W/bin/arm-prog: skipped: for aarch64, cudaload is for x86_64"
fi
for f in script text empty static libcudart.so.12 arm-prog; do
	[ -f "$W/bin/$f" ] || continue
	if cmp -s "$W/bin/$f" "$W/keep-$f"; then ok "skip: $f unchanged"; else bad "skip: $f changed"; fi
done

# ---- bad input: a clear error naming the file, status 1, nothing written -------
poke() { # poke NAME OFFSET BYTES(printf format): a copy of env with bytes poked
	cp "$W/orig/env" "$W/bad-$1"
	# shellcheck disable=SC2059
	printf "$3" | dd of="$W/bad-$1" bs=1 seek="$2" conv=notrunc 2>/dev/null
}
set -- $(readelf -lW "$W/orig/env" | awk '$1 == "INTERP" {print $2, $5}')
iof=$(($1 + $2 - 1))
poke phoff 32 '\377\377\377\377\377\377\000\000'
poke phnum 56 '\000\100'
poke shoff 40 '\377\377\377\377\000\000\000\000'
poke shnum 60 '\377\177'
poke interp-nul "$iof" 'X'
poke class 4 '\011'
poke phentsize 54 '\020\000'
head -c 3000 "$W/orig/env" >"$W/bad-truncated"
head -c 40 "$W/orig/env" >"$W/bad-header"
chmod +x "$W"/bad-*
expect_bad() { # NAME MESSAGE
	cp "$W/bad-$1" "$W/bad-copy"
	out=$("$P" --interp "$CL" "$W/bad-$1" 2>&1)
	st=$?
	status "bad $1: exit status 1" 1 "$st" "$out"
	has "bad $1: message" "$out" "$W/bad-$1: error: $2"
	if cmp -s "$W/bad-$1" "$W/bad-copy"; then ok "bad $1: unchanged"; else bad "bad $1: file changed"; fi
	leftovers=$(find "$W" -maxdepth 1 -name '.*cudaload-*' | wc -l)
	status "bad $1: no temporary file left" 0 "$leftovers"
}
expect_bad phoff "program headers lie outside the file"
expect_bad phnum "program headers lie outside the file"
expect_bad shoff "section headers lie outside the file or have a bad size"
expect_bad shnum "section headers lie outside the file or have a bad size"
expect_bad interp-nul "PT_INTERP is not NUL-terminated"
expect_bad class "unknown ELF class 9"
expect_bad phentsize "program header entry size 16, expected 56"
expect_bad truncated "section headers lie outside the file or have a bad size"
expect_bad header "truncated ELF header"

# ---- faithful writes: mode, owner, extended attributes, capabilities, links ----
cp "$W/orig/cudaprobe" "$W/bin/meta"
chown 1234:5678 "$W/bin/meta" && chmod 4751 "$W/bin/meta"
setfattr -n user.origin -v image-build "$W/bin/meta" 2>/dev/null && xattr=yes || xattr=no
before=$(stat -c '%a %u %g' "$W/bin/meta")
"$P" --interp "$CL" "$W/bin/meta" >/dev/null
status "meta: mode and owner kept" "$before" "$(stat -c '%a %u %g' "$W/bin/meta")"
if [ $xattr = yes ]; then
	status "meta: extended attribute kept" "image-build" "$(getfattr --only-values -n user.origin "$W/bin/meta" 2>/dev/null)"
fi
cp "$W/orig/cudaprobe" "$W/bin/cap"
if setcap cap_net_raw+ep "$W/bin/cap" 2>/dev/null; then
	before=$(getcap "$W/bin/cap" | sed 's/^[^ ]* //')
	"$P" --interp "$CL" "$W/bin/cap" >/dev/null
	status "cap: file capability kept" "$before" "$(getcap "$W/bin/cap" | sed 's/^[^ ]* //')"
else
	skip "cap: file capability kept" "setcap not possible here"
fi

cp "$W/orig/cudaprobe" "$W/bin/linked"
ln -f "$W/bin/linked" "$W/bin/linked2"
out=$("$P" --interp "$CL" "$W/bin/linked")
has "links: skipped by default" "$out" "$W/bin/linked: skipped: 2 hard links (--break-links patches this name only)"
if cmp -s "$W/bin/linked" "$W/orig/cudaprobe"; then ok "links: unchanged"; else bad "links: changed"; fi
out=$("$P" --interp "$CL" --break-links "$W/bin/linked")
contains "links: --break-links patches the name" "$out" "$W/bin/linked: patched"
if cmp -s "$W/bin/linked2" "$W/orig/cudaprobe"; then ok "links: the other name keeps the original"; else bad "links: other name changed"; fi

# Both names of one file in one run, one of them given twice: each name once
mkdir -p "$W/hl2"
cp "$W/orig/cudaprobe" "$W/hl2/a"
ln -f "$W/hl2/a" "$W/hl2/b"
out=$("$P" --interp "$CL" --break-links "$W/hl2/a" "$W/hl2" "$W/hl2/a" 2>&1)
status "links: --break-links on both names, one named twice: exit 0" 0 $? "$out"
contains "... the summary counts each name once" "$out" "cudaload-patch: 2 patched, 0 skipped, 0 failed"

ln -sf linked "$W/bin/symlink"
cp "$W/orig/cudaprobe" "$W/bin/linked"
out=$("$P" --interp "$CL" "$W/bin/symlink")
contains "symlink: the target is patched" "$out" "$W/bin/linked: patched"
[ -L "$W/bin/symlink" ] && ok "symlink: still a link" || bad "symlink: replaced by a file"

# ---- failures leave the original intact: a full disk, a read-only target -------
T=$W/tmpfs
mkdir -p "$T"
if mount -t tmpfs -o size=96k tmpfs "$T" 2>/dev/null; then
	cp "$W/orig/cudaprobe" "$T/prog"
	head -c 60000 /dev/zero >"$T/filler" 2>/dev/null
	out=$("$P" --interp "$CL" "$T/prog" 2>&1)
	status "disk full: exit status 1" 1 $? "$out"
	contains "disk full: reported" "$out" "$T/prog: error: cannot write: No space left on device; left as it was"
	if cmp -s "$T/prog" "$W/orig/cudaprobe"; then ok "disk full: original intact"; else bad "disk full: original damaged"; fi
	status "disk full: no temporary left" 0 "$(find "$T" -name '.*cudaload-*' | wc -l)"
	rm -f "$T/filler"
	mount -o remount,ro "$T"
	out=$("$P" --interp "$CL" "$T/prog" 2>&1)
	contains "read-only: reported" "$out" "$T/prog: error: cannot create a file beside it: Read-only file system"
	if cmp -s "$T/prog" "$W/orig/cudaprobe"; then ok "read-only: original intact"; else bad "read-only: damaged"; fi
	umount "$T"
else
	skip "disk full and read-only cases" "cannot mount a tmpfs (not root?)"
fi

# ---- an image tree of a few hundred files -----------------------------------------
I=$W/image
mkdir -p "$I/usr/bin" "$I/usr/lib/cuda" "$I/opt/app/bin" "$I/usr/share/doc"
copies "$W/orig/cudaapp" 40 "$I/opt/app/bin/cuda-app-%g"
copies "$W/orig/env" 80 "$I/usr/bin/tool-%g"
copies "$W/orig/libcudart.so.12" 40 "$I/usr/lib/cuda/libcudart-%g.so.12"
for i in $(seq 1 60); do printf '#!/bin/sh\necho %s\n' "$i" >"$I/usr/bin/script-$i"; done
for i in $(seq 1 60); do printf 'doc %s\n' "$i" >"$I/usr/share/doc/file-$i"; done
copies "$W/orig/static" 10 "$I/usr/bin/static-%g"
for i in $(seq 1 10); do ln -s "tool-$i" "$I/usr/bin/link-$i"; done
cp -a "$I" "$W/image.orig"
total=$(find "$I" -type f | wc -l)
out=$("$P" --interp /usr/bin/cudaload --machine x86_64 "$I" 2>/dev/null)
status "image: exit status" 0 $? "$out"
has "image: summary ($total files)" "$out" "cudaload-patch: 40 patched, 250 skipped (not ELF 60, script 60, static 10, library 40, no CUDA 80), 0 failed"
out=$("$P" --interp /usr/bin/cudaload --machine x86_64 "$I" 2>/dev/null)
has "image: a second run patches nothing" "$out" "cudaload-patch: 0 patched, 290 skipped (not ELF 60, script 60, static 10, library 40, already patched 40, no CUDA 80), 0 failed"
out=$("$P" --check "$I/opt/app/bin/cuda-app-7" "$I/usr/bin/tool-3")
has "image: --check patched" "$out" "$I/opt/app/bin/cuda-app-7: patched, interpreter /usr/bin/cudaload, original $LDSO"
has "image: --check not patched" "$out" "$I/usr/bin/tool-3: not patched, interpreter $LDSO"
out=$("$P" --restore "$I")
contains "image: restore" "$out" "cudaload-patch: 40 restored"
if diff -r "$I" "$W/image.orig" >/dev/null; then ok "image: restored tree identical"; else bad "image: tree differs after restore"; fi
out=$("$P" --interp /usr/bin/cudaload --machine x86_64 --all --dry-run "$I" 2>/dev/null)
contains "image: --all --dry-run counts every dynamic executable" "$out" "cudaload-patch: 120 would be patched"
if diff -r "$I" "$W/image.orig" >/dev/null; then ok "image: --dry-run writes nothing"; else bad "image: --dry-run wrote"; fi
if command -v script >/dev/null 2>&1; then
	out=$(script -qec "$P --interp /usr/bin/cudaload --machine x86_64 --all $I" /dev/null | tr '\r' '\n')
	contains "image: progress line on a terminal" "$out" "files, "
	contains "image: --all patches them all" "$out" "cudaload-patch: 120 patched"
fi

# ---- killed mid-run: every file intact or fully patched -----------------------------
K=$W/killed
mkdir -p "$K"
copies "$W/orig/cudaapp" 1500 "$K/app-%g"
cp -a "$K" "$W/killed.orig"
"$P" --interp /usr/bin/cudaload --machine x86_64 "$K" >/dev/null 2>&1 &
kpid=$!
# once the first batch is in place, kill it while it writes the next one
n=0
while cmp -s "$K/app-1" "$W/killed.orig/app-1" && kill -0 "$kpid" 2>/dev/null && [ $n -lt 100000 ]; do
	n=$((n + 1))
done
kill -9 "$kpid" 2>/dev/null
wait "$kpid" 2>/dev/null
# Each file is the original (its checksum), patched (--check), or torn:
# neither.  One run of each for all 1500.
orig_sum=$(cksum <"$W/orig/cudaapp")
intact=$(cksum "$K"/app-* | awk -v want="$orig_sum" '$1 " " $2 == want { n++ } END { print n + 0 }')
done_=$("$P" --check "$K"/app-* 2>/dev/null | grep -c ': patched, interpreter /usr/bin/cudaload, original')
torn=$((1500 - intact - done_))
status "kill -9: no file half-written ($intact intact, $done_ patched)" 0 "$torn"
# what a killed run left beside the originals: the next run removes it
left=$(find "$K" -name '.*.cudaload-*' | wc -l)
out=$("$P" --restore "$K" 2>&1)
status "kill -9: the next run removes the $left temporaries left, each said" "$left" \
	"$(printf '%s\n' "$out" | grep -c ': removed: a temporary copy left by a run that was killed')"
status "kill -9: ... none left" 0 "$(find "$K" -name '.*.cudaload-*' | wc -l)"
if diff -r "$K" "$W/killed.orig" >/dev/null; then ok "kill -9: restore gives back the whole tree"; else bad "kill -9: tree differs after restore"; fi

# ---- a Jetson root filesystem: scripts/patch-image.sh, then run in a chroot -------
. "$here/../lib/foreign.sh"
if [ "$(id -u)" -ne 0 ]; then
	skip "image: patch-image.sh and chroot" "not root"
elif ! foreign_ready aarch64 "$B/aarch64/cudaload" aarch64-linux-gnu-gcc; then
	skip "image: patch-image.sh and chroot" "$foreign_why"
else
	R=$W/rootfs
	mkdir -p "$R/lib/aarch64-linux-gnu" "$R/usr/bin" "$R/usr/lib/aarch64-linux-gnu" "$R/opt/app"
	cp -L /lib/ld-linux-aarch64.so.1 "$R/lib/"
	cp -L /lib/aarch64-linux-gnu/libc.so.6 "$R/lib/aarch64-linux-gnu/"
	aarch64-linux-gnu-gcc -O1 -shared -fPIC -Wl,-soname,libcudart.so.12 \
		-o "$R/usr/lib/aarch64-linux-gnu/libcudart.so.12" "$here/../helpers/fakecudart.c"
	aarch64-linux-gnu-gcc -O1 -o "$R/opt/app/cuda-app" "$here/../helpers/cudaapp.c" \
		"$R/usr/lib/aarch64-linux-gnu/libcudart.so.12" -Wl,-rpath,/usr/lib/aarch64-linux-gnu
	aarch64-linux-gnu-gcc -O1 -o "$R/usr/bin/plain" "$here/../helpers/mknote.c"
	out=$(CUDALOAD_PATCH=$P sh "$top/scripts/patch-image.sh" "$R" "$B/aarch64/cudaload" 2>&1)
	st=$?
	status "rootfs: patch-image.sh exit status" 0 "$st" "$out"
	has "rootfs: patch-image.sh patches the CUDA program only (cudaload itself is no skip)" "$out" \
		"cudaload-patch: 1 patched, 1 skipped (no CUDA 1), 0 failed"
	[ -x "$R/usr/bin/cudaload" ] && [ -f "$R/etc/cudaload.conf" ] &&
		ok "rootfs: cudaload and its config installed" || bad "rootfs: cudaload not installed"
	out=$(CUDALOAD_DEBUG=1 chroot "$R" /opt/app/cuda-app 2>&1)
	has "rootfs: the patched program runs in the image" "$out" "cudart 12020"
	contains "rootfs: through cudaload and the recorded loader" "$out" \
		" cuda-app: loader /lib/ld-linux-aarch64.so.1 (recorded by cudaload-patch)"
fi

# ---- patch-image.sh: another machine's image, failures ----------------------------
R2=$W/rootfs-x
mkdir -p "$R2/lib" "$R2/opt/app"
cp -L /lib/ld-linux-aarch64.so.1 "$R2/lib/" 2>/dev/null || cp "$W/bin/arm-prog" "$R2/opt/app/arm-prog" 2>/dev/null
if [ -e "$R2/lib/ld-linux-aarch64.so.1" ] || [ -e "$R2/opt/app/arm-prog" ]; then
	out=$(CUDALOAD_PATCH=$P sh "$top/scripts/patch-image.sh" "$R2" "$B/cudaload" 2>&1)
	status "patch-image.sh: an aarch64 image with an x86_64 cudaload is refused" 1 $? "$out"
	has "patch-image.sh: says why" "$out" "patch-image.sh: $R2 is a aarch64 image, $B/cudaload is for x86_64: refused"
	[ ! -e "$R2/usr/bin/cudaload" ] && ok "patch-image.sh: nothing installed" || bad "patch-image.sh: installed into a foreign image"
else
	skip "patch-image.sh: another machine's image" "no aarch64 loader or program here"
fi
R3=$W/rootfs-bad
mkdir -p "$R3/lib64" "$R3/opt/app"
cp -L "$LDSO" "$R3/lib64/"
cp "$W/orig/cudaapp" "$R3/opt/app/cuda-app"
head -c 3000 "$W/orig/cudaapp" >"$R3/opt/app/broken"
out=$(CUDALOAD_PATCH=$P sh "$top/scripts/patch-image.sh" "$R3" "$B/cudaload" 2>&1)
status "patch-image.sh: a failure is a non-zero exit" 1 $? "$out"
contains "patch-image.sh: the failure is named" "$out" "$R3/opt/app/broken: error:"
contains "patch-image.sh: the rest is patched" "$out" "cudaload-patch: 1 patched, 0 skipped, 1 failed"

# ---- behaving like a Unix tool ------------------------------------------------------
U=$W/unix
mkdir -p "$U"
cp "$W/orig/cudaprobe" "$U/app"
cp "$U/app" "$U/app.orig"
out=$("$P" --interp "$CL" "$U/app" --dry-run 2>&1)
status "options after the path: exit status" 0 $? "$out"
has "options after the path: --dry-run shows the interpreter, and why" "$out" "$U/app: would be patched, interpreter $CL (was $LDSO), grown; uses CUDA: dlopens libcuda.so"
cmp -s "$U/app" "$U/app.orig" && ok "options after the path: --dry-run wrote nothing" || bad "options after the path: --dry-run wrote"
cp "$U/app.orig" "$U/-n"
out=$(cd "$U" && "$P" --interp="$CL" -- -n 2>&1)
status "-- ends the options, --interp=PATH" 0 $? "$out"
has "--: a file named -n is patched" "$out" "-n: patched, interpreter $CL (was $LDSO), grown"
"$P" --interp "$CL" "$U/app" >"$U/out" 2>"$U/err"
status "a named program patched: exit 0" 0 $? "$(cat "$U/out" "$U/err")"
"$P" --interp "$CL" "$U/app" >/dev/null 2>&1 && ok "already patched: exit 0 (cudaload-patch app && echo done)" || bad "already patched: non-zero"
"$P" --interp "$CL" "$U/app.orig" /nonexistent >"$U/out" 2>"$U/err"
status "an error: exit 1" 1 $? "$(cat "$U/out" "$U/err")"
has "errors on stderr" "$(cat "$U/err")" "/nonexistent: error: No such file or directory"
contains "results on stdout" "$(cat "$U/out")" "$U/app.orig: patched, interpreter $CL"
has "the summary on stdout" "$(cat "$U/out")" "cudaload-patch: 1 patched, 0 skipped, 1 failed"
lacks "no result on stderr" "$(cat "$U/err")" "patched"
printf '#!/bin/sh\necho hi\n' >"$U/script"
chmod +x "$U/script"
out=$("$P" --interp "$CL" "$U/script" 2>&1)
status "a named script is skipped: exit 2" 2 $? "$out"
mkdir -p "$U/dir"
cp "$U/script" "$U/dir/"
out=$("$P" --interp "$CL" "$U/dir" 2>&1)
status "a walked script is skipped silently: exit 0" 0 $? "$out"
cp "$W/orig/env" "$U/plain"
out=$("$P" --check "$U/app" 2>&1)
status "--check: patched: exit 0" 0 $? "$out"
has "--check: one-line summary" "$out" "cudaload-patch: 1 patched, 0 not patched, 0 skipped, 0 failed"
out=$("$P" --check "$U/app" "$U/plain" 2>&1)
status "--check: one not patched: exit 1" 1 $? "$out"
has "--check: summary counts it" "$out" "cudaload-patch: 1 patched, 1 not patched, 0 skipped, 0 failed"
out=$("$P" --check "$U/script" 2>&1)
status "--check: a named script: exit 2" 2 $? "$out"
out=$("$P" --check --restore "$U/app" 2>&1)
status "conflicting modes: usage error" 100 $? "$out"
has "conflicting modes: says so" "$out" "cudaload-patch: --check and --restore exclude each other"
out=$("$P" --force "$U/app" 2>&1)
status "--force without --restore: usage error" 100 $? "$out"
out=$("$P" -h)
status "-h: exit 0" 0 $? "$out"
for o in --interp --machine --all --dry-run --break-links --restore --force --check --help --version; do
	contains "--help lists $o" "$out" "$o"
done
contains "--help lists the exit codes" "$out" "Exit status: 0"
out=$("$P" --bogus "$U/app" 2>&1)
status "unknown option: usage error" 100 $? "$out"
cp "$U/app.orig" "$U/far"
"$P" --interp /opt/nowhere/cudaload --machine x86_64 "$U/far" >"$U/out" 2>"$U/err"
status "--interp pointing nowhere with --machine: patched" 0 $? "$(cat "$U/out" "$U/err")"
has "--interp pointing nowhere with --machine: a warning on stderr" "$(cat "$U/err")" \
	"cudaload-patch: warning: /opt/nowhere/cudaload does not exist here; patched programs start only where it does"
mkdir -p "$U/tool"
cp "$P" "$U/tool/cudaload-patch"
out=$("$U/tool/cudaload-patch" "$U/app.orig" 2>&1)
status "no cudaload beside cudaload-patch: usage error" 100 $? "$out"
has "no cudaload beside cudaload-patch: asks for --interp" "$out" \
	"cudaload-patch: no cudaload beside cudaload-patch ($U/tool/cudaload): give --interp PATH"

# ---- a walk finds every CUDA program: DT_NEEDED, static cudart, dlopen only --------
F=$W/find
mkdir -p "$F/bin"
expected=0
for i in 1 2 3; do cp "$W/orig/cudaapp" "$F/bin/needed-$i"; expected=$((expected + 1)); done	# DT_NEEDED libcudart
for i in 1 2 3; do cp "$W/orig/cudaprobe" "$F/bin/dlopen-$i"; expected=$((expected + 1)); done	# dlopen("libcuda.so.1") only
for i in 1 2 3; do cp "$W/orig/env" "$F/bin/plain-$i"; done
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
if [ -x "$NVCC" ] && printf '__global__ void k(int *x) { *x = 1; }\nint main() { int n = 0; return cudaGetDeviceCount(&n) == 0 ? 0 : 3; }\n' >"$W/k.cu" &&
	"$NVCC" -o "$F/bin/nvcc-static" "$W/k.cu" 2>"$W/nvcc.err"; then
	expected=$((expected + 1))
	cp "$F/bin/nvcc-static" "$F/bin/nvcc-static-2"
	expected=$((expected + 1))
	nvcc=yes
else
	skip "walk: an nvcc-built program (static cudart)" "no nvcc at $NVCC, or it failed: $(head -n 1 "$W/nvcc.err" 2>/dev/null)"
	nvcc=no
fi
# a program with device code but no libcuda string and no DT_NEEDED: section only
$CC -O1 -o "$F/bin/fatbin-only" -x c - <<'C'
__attribute__((section(".nv_fatbin"), used)) static const char fatbin[16] = "fatbin";
int main(void) { return 0; }
C
expected=$((expected + 1))
if command -v aarch64-linux-gnu-gcc >/dev/null 2>&1; then
	aarch64-linux-gnu-gcc -o "$F/bin/arm-dlopen" "$here/../helpers/cudaprobe.c" -ldl 2>/dev/null
fi
cp "$W/orig/cudaapp" "$F/bin/linked-a"
ln -f "$F/bin/linked-a" "$F/bin/linked-b"
out=$("$P" --interp "$CL" "$F" 2>&1)
st=$?
status "walk: exit status" 0 "$st" "$out"
found=$(printf '%s\n' "$out" | grep -c ': patched, interpreter ')
status "walk: finds every CUDA program ($found of $expected)" "$expected" "$found" "$out"
echo "walk find rate: $found of $expected CUDA programs (DT_NEEDED 3, dlopen only 3, device code only 1, nvcc static cudart $([ $nvcc = yes ] && echo 2 || echo 0)), 0 of 3 plain programs"
lacks "walk: plain programs are left alone" "$out" "plain-"
if [ $nvcc = yes ]; then
	has "walk: the nvcc-built program is found by its device code" "$("$P" --check "$W/find/bin/nvcc-static-2")" \
		"$F/bin/nvcc-static-2: patched, interpreter $CL, original $LDSO"
	cp "$W/find/bin/nvcc-static" "$W/nvcc-orig"
	"$P" --restore "$W/nvcc-orig" >/dev/null
	has "walk: --check says why an nvcc-built program is CUDA" "$("$P" --check "$W/nvcc-orig")" \
		"$W/nvcc-orig: not patched, interpreter $LDSO, uses CUDA: device code in .nv_fatbin"
	out=$("$F/bin/nvcc-static" 2>&1)
	st=$?
	[ $st -ne 139 ] && [ $st -ne 127 ] && ok "walk: the patched nvcc program starts (status $st, no GPU here)" ||
		bad "walk: the patched nvcc program" "$out"
fi
has "walk: a skipped CUDA program with hard links is named" "$("$P" --interp "$CL" "$F" 2>&1)" \
	"$F/bin/linked-a: skipped: 2 hard links (--break-links patches this name only)"
if [ -f "$F/bin/arm-dlopen" ]; then
	contains "walk: a CUDA program for another machine is named" "$out$("$P" --interp "$CL" "$F" 2>&1)" \
		"$F/bin/arm-dlopen: skipped: for aarch64, cudaload is for x86_64"
fi
unpatched=2	# linked-a, linked-b
[ -f "$F/bin/arm-dlopen" ] && unpatched=3
out=$("$P" --check "$F" 2>&1)
status "--check on a walk with CUDA programs left unpatched: exit 1" 1 $? "$out"
contains "--check on a walk: summary" "$out" "cudaload-patch: $expected patched, $unpatched not patched, "

# ---- gdb on a patched program ----------------------------------------------------------
if ! command -v gdb >/dev/null 2>&1; then
	skip "gdb: a patched program" "no gdb (scripts/deps.sh installs it)"
else
	$CC -O0 -g -o "$W/gdbprog" "$here/../helpers/cudaprobe.c" -ldl
	"$P" --interp "$CL" "$W/gdbprog" >/dev/null
	out=$(timeout 120 gdb -nx -batch -ex 'break main' -ex run -ex 'info sharedlibrary' -ex kill "$W/gdbprog" 2>&1)
	if printf '%s\n' "$out" | grep -q 'ptrace: Operation not permitted\|Could not trace'; then
		skip "gdb: a patched program" "ptrace is not allowed here"
	else
		contains "gdb: break main stops in the program's main" "$out" "Breakpoint 1, main (argc="
		lacks "gdb: cudaload's symbols do not shadow the program's" "$out" "in main () from $CL"
		contains "gdb: shared libraries are listed once the program runs" "$out" "libc.so.6"
	fi
fi

# ---- usage ------------------------------------------------------------------------
out=$("$P" 2>&1)
status "usage: no path is 100" 100 $? "$out"
out=$("$P" --interp relative/cudaload x 2>&1)
status "usage: relative --interp is 100" 100 $? "$out"
out=$("$P" --interp /nonexistent/cudaload x 2>&1)
status "usage: --interp pointing nowhere is refused" 100 $? "$out"
has "usage: --interp pointing nowhere asks for --machine" "$out" "cudaload-patch: --interp /nonexistent/cudaload: No such file or directory (give --machine M as well to patch for a cudaload that exists only on the target)"
out=$("$P" --interp /usr/bin/cudaload --machine x86_64 /nonexistent 2>&1)
status "missing file: exit status 1" 1 $? "$out"
has "missing file: message" "$out" "/nonexistent: error: No such file or directory"
finish
