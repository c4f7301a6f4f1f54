#!/bin/sh
# SPDX-License-Identifier: MIT
# What an image build does to a program after cudaload-patch: strip, objcopy,
# eu-strip, patchelf (the Nix fixup order), for x86_64 and aarch64 programs of
# several kinds.  After each tool the patched program must still run through
# cudaload with its recorded loader; readelf and patchelf must read it;
# eu-elflint must find no more than on the original put through the same tool;
# --check must still see the record; and --restore must either give the file
# back byte for byte or say why, and then --restore --force must set the
# original interpreter back.  The matrix (tool x kind x arch: runs / restore)
# is printed at the end and kept in build/e2e-strip/matrix.txt.
# Usage: strip.sh BUILD
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
B=$(cd "${1:-$top/build}" && pwd)
P=${PATCHER:-$B/cudaload-patch}
CC=${CC:-cc}
. "$here/../lib/lib.sh"
. "$here/../lib/foreign.sh"
echo "== end-to-end, patched programs through strip, objcopy, eu-strip, patchelf"

W=$B/e2e-strip
rm -rf "$W"
mkdir -p "$W"
M=$W/matrix.txt
: >"$M"

# noshdr FILE: drop the section header table, as sstrip does
noshdr() {
	printf '\0\0\0\0\0\0\0\0' | dd of="$1" bs=1 seek=40 conv=notrunc 2>/dev/null
	printf '\0\0\0\0\0\0' | dd of="$1" bs=1 seek=58 conv=notrunc 2>/dev/null
}

# build ARCH DIR CC CXX CXXFLAGS STRIP: the program kinds, unpatched, in DIR
build() {
	d=$2
	mkdir -p "$d"
	"$3" -O1 -g -o "$d/pie" "$here/../helpers/cudaprobe.c" -ldl &&
	"$3" -O1 -g -no-pie -o "$d/nopie" "$here/../helpers/cudaprobe.c" -ldl &&
	"$3" -O1 -g -Wl,--build-id=none -o "$d/nobuildid" "$here/../helpers/cudaprobe.c" -ldl &&
	cp "$d/pie" "$d/stripped" && "$6" "$d/stripped" &&
	cp "$d/stripped" "$d/noshdr" && noshdr "$d/noshdr" || return 1
	if command -v "$4" >/dev/null 2>&1; then
		# shellcheck disable=SC2086
		"$4" -O1 -g $5 -o "$d/cxx" "$here/../helpers/cxxapp.cc" || return 1
	fi
	[ "$1" != "$(uname -m)" ] || cp /usr/bin/env "$d/env"
	# another linker's layout (lld puts .dynsym and versions before the hash)
	if [ "$1" = "$(uname -m)" ] && command -v clang >/dev/null 2>&1 && command -v ld.lld >/dev/null 2>&1; then
		clang -fuse-ld=lld -O1 -g -o "$d/lld" "$here/../helpers/cudaprobe.c" -ldl || return 1
	fi
}

# expect KIND: what a run of that kind prints, and its arguments
expect() {
	case $1 in
	cxx) want="cxx ok 14 caught" args= ;;
	env) want="CUDALOAD_X=1" args=CUDALOAD_X=1 ;;
	*) want="tls=7" args= ;;
	esac
}

# tool NAME FILE: put FILE through one rewriting tool (status of the tool)
tool() {
	case $1 in
	strip) "$STRIP" "$2" ;;
	strip-g) "$STRIP" -g "$2" ;;
	strip-unneeded) "$STRIP" --strip-unneeded "$2" ;;
	strip-comment) "$STRIP" --remove-section=.comment "$2" ;;
	debuglink) "$OBJCOPY" --only-keep-debug "$2" "$2.debug" &&
		"$OBJCOPY" --add-gnu-debuglink="$2.debug" "$2" ;;
	dh_strip) "$OBJCOPY" --only-keep-debug "$2" "$2.debug" &&
		"$STRIP" --remove-section=.comment --remove-section=.note "$2" &&
		"$OBJCOPY" --add-gnu-debuglink="$2.debug" "$2" ;;
	only-keep-debug) "$OBJCOPY" --only-keep-debug "$2" "$2.debug" ;;
	eu-strip) eu-strip -f "$2.debug" "$2" ;;
	patchelf-rpath) patchelf --set-rpath /opt/cuda/lib "$2" ;;
	patchelf-needed) patchelf --add-needed libm.so.6 "$2" ;;
	esac
}
TOOLS="strip strip-g strip-unneeded strip-comment debuglink dh_strip only-keep-debug eu-strip patchelf-rpath patchelf-needed"

lint_count() {
	eu-elflint --gnu-ld "$1" 2>&1 | grep -v '^No errors' | wc -l
}

interp_of() {
	readelf -lW "$1" 2>/dev/null | sed -n 's/.*Requesting program interpreter: \(.*\)]/\1/p'
}

# cell ARCH KIND TOOL: one cell of the matrix
cell() {
	a=$1 k=$2 t=$3 c="$1 $2 $3"
	d=$W/$a/$k-$t
	mkdir -p "$d"
	cp "$W/$a/orig/$k" "$d/o"
	cp "$W/$a/patched/$k" "$d/p"
	tool "$t" "$d/o" >"$d/o.log" 2>&1
	ro=$?
	tool "$t" "$d/p" >"$d/p.log" 2>&1
	rp=$?
	runs=no restore=FAIL
	if [ $ro -eq 0 ] && [ $rp -ne 0 ]; then
		bad "$c: the tool refuses the patched file only" "$(cat "$d/p.log")"
	fi
	note=
	[ $ro -ne 0 ] && [ $rp -ne 0 ] && note=" (tool refuses, as on the original)"
	expect "$k"
	# shellcheck disable=SC2086
	out=$(CUDALOAD_DEBUG=1 "$d/p" $args 2>&1)
	if printf '%s\n' "$out" | grep -Fq -- "$want" &&
		printf '%s\n' "$out" | grep -Fq ": loader $LDSO (recorded by cudaload-patch)"; then
		runs=yes
		ok "$c: runs through cudaload with the recorded loader$note"
	else
		bad "$c: does not run through cudaload" "$out"
	fi
	status "$c: readelf reads the interpreter" "$CLA" "$(interp_of "$d/p")"
	po=$(patchelf --print-interpreter "$d/o" 2>/dev/null)
	if [ -n "$po" ]; then
		status "$c: patchelf reads the interpreter" "$CLA" "$(patchelf --print-interpreter "$d/p" 2>&1)"
	fi
	lo=$(lint_count "$d/o") lp=$(lint_count "$d/p")
	if [ "$lp" -le "$lo" ]; then ok "$c: eu-elflint no worse ($lp <= $lo)"; else
		bad "$c: eu-elflint worse ($lp > $lo)" "$(eu-elflint --gnu-ld "$d/p" 2>&1 | head -n 20)"; fi
	out=$("$P" --check "$d/p")
	contains "$c: --check sees the record" "$out" "$d/p: patched, interpreter $CLA, original $LDSO"
	if [ "$t" = only-keep-debug ]; then
		out=$("$P" --check "$d/p.debug" 2>&1)
		st=$?
		[ $st -le 2 ] && ok "$c: --check reads the debug file (status $st)" ||
			bad "$c: --check on the debug file: status $st" "$out"
	fi
	cp "$d/p" "$d/r"
	out=$("$P" --restore "$d/r" 2>&1)
	if [ $? -eq 0 ]; then
		if cmp -s "$d/r" "$d/o"; then restore=exact; ok "$c: restore is byte-identical";
		else bad "$c: restore reported success but differs from the original" "$out"; fi
	else
		contains "$c: restore says why and offers --force" "$out" "--restore --force sets the original interpreter back"
		out=$("$P" --restore --force "$d/r" 2>&1)
		st=$?
		status "$c: --restore --force succeeds" 0 "$st" "$out"
		contains "$c: --force says it is not byte-identical" "$out" "restored, interpreter $LDSO (not byte-identical"
		status "$c: --force sets the original interpreter" "$LDSO" "$(interp_of "$d/r")"
		# shellcheck disable=SC2086
		out=$(CUDALOAD_DEBUG=1 "$d/r" $args 2>&1)
		if printf '%s\n' "$out" | grep -Fq -- "$want" && ! printf '%s\n' "$out" | grep -q '^cudaload[:[]'; then
			ok "$c: after --force it runs without cudaload"
			[ $st -eq 0 ] && restore=force
		else
			bad "$c: after --force" "$out"
		fi
	fi
	printf '%-8s %-10s %-16s runs=%-4s restore=%s%s\n' "$a" "$k" "$t" "$runs" "$restore" "$note" >>"$M"
}

for a in x86_64 aarch64; do
	if [ "$a" = "$(uname -m)" ]; then
		CLA=$B/cudaload GCC=$CC GXX=${CXX:-c++} CXXF= STRIP=strip OBJCOPY=objcopy
	else
		CLA=$B/$a/cudaload GCC=$a-linux-gnu-gcc GXX=$a-linux-gnu-g++ STRIP=$a-linux-gnu-strip
		OBJCOPY=$a-linux-gnu-objcopy CXXF="-static-libstdc++ -static-libgcc"
		if ! foreign_ready "$a" "$CLA" "$GCC"; then
			skip "$a: the strip matrix" "$foreign_why"
			continue
		fi
		command -v "$STRIP" >/dev/null 2>&1 || { skip "$a: the strip matrix" "no $STRIP"; continue; }
	fi
	if ! build "$a" "$W/$a/orig" "$GCC" "$GXX" "$CXXF" "$STRIP"; then
		bad "$a: cannot build the test programs"
		continue
	fi
	command -v "$GXX" >/dev/null 2>&1 || skip "$a: C++ program" "no $GXX (scripts/deps.sh installs it)"
	LDSO=$(interp_of "$W/$a/orig/pie")
	mkdir -p "$W/$a/patched"
	for f in "$W/$a/orig"/*; do
		k=${f##*/}
		cp "$f" "$W/$a/patched/$k"
		out=$("$P" --interp "$CLA" "$W/$a/patched/$k" 2>&1)
		contains "$a $k: patched" "$out" "$W/$a/patched/$k: patched, interpreter $CLA (was $LDSO)"
	done
	for f in "$W/$a/orig"/*; do
		for t in $TOOLS; do
			cell "$a" "${f##*/}" "$t"
		done
	done
done

echo "-- strip matrix (arch kind tool: runs / restore)"
cat "$M"
finish
