#!/bin/sh
# SPDX-License-Identifier: MIT
# patch-image.sh ROOTFS [CUDALOAD]: make the CUDA programs of a Jetson root
# filesystem start through cudaload.
#
#   1. installs CUDALOAD (default: build/aarch64/cudaload of this tree, or
#      the aarch64 cudaload make install put beside it) as
#      ROOTFS/usr/bin/cudaload, and a commented ROOTFS/etc/cudaload.conf
#      unless the image has one;
#   2. runs cudaload-patch over the program directories of the image (PATCH_DIRS,
#      default "usr/bin usr/sbin usr/local opt"): programs whose DT_NEEDED
#      names a CUDA library, that embed device code or dlopen libcuda, or
#      load a library of the image that does (ffmpeg through libavutil), and
#      Python interpreters with CUDA packages, get /usr/bin/cudaload as
#      their interpreter, with their original interpreter recorded;
#      everything else is left alone.
#
# Every write into the image goes through cudaload-patch (--root, and
# --install for what is installed), which resolves each path inside the
# image as chroot would: a link of the image that points out of it (usr ->
# /usr) is followed inside the image, and fails there when the image has no
# such directory; nothing outside the image is written.  A temporary file
# that a killed run left in a directory written or walked is removed.
#
# Refuses an image whose machine is not that of CUDALOAD; exits non-zero
# when anything failed.
#
# Undo with: cudaload-patch --restore ROOTFS/usr/bin ... (byte-identical).
# Set PATCH_ALL=1 to patch every dynamically linked program, and
# CUDALOAD_PATCH to the cudaload-patch to use.
set -eu

usage() {
	echo "usage: patch-image.sh ROOTFS [CUDALOAD]" >&2
	exit 100
}
[ $# -ge 1 ] && [ $# -le 2 ] || usage
rootfs=$1
top=$(cd "$(dirname "$0")/.." && pwd)
# make install rewrites these two lines for the installed copy.
default_cudaload=$top/build/aarch64/cudaload
default_config=$top/etc/cudaload.conf
cudaload=${2:-$default_cudaload}
patcher=${CUDALOAD_PATCH:-}
[ -n "$patcher" ] || patcher=$(command -v cudaload-patch || echo "$top/build/cudaload-patch")

[ -d "$rootfs" ] || { echo "patch-image.sh: $rootfs: not a directory" >&2; exit 1; }
[ -f "$cudaload" ] || { echo "patch-image.sh: $cudaload: not found (make builds it)" >&2; exit 1; }
[ -x "$patcher" ] || { echo "patch-image.sh: $patcher: not found (make builds it)" >&2; exit 1; }

# machine_of FILE: aarch64, x86_64, another name, or nothing when not ELF
machine_of() {
	m=$(readelf -h "$1" 2>/dev/null | sed -n 's/^ *Machine: *//p')
	case $m in
	'') ;;
	*AArch64*) echo aarch64 ;;
	*X86-64*) echo x86_64 ;;
	*) echo "$m" ;;
	esac
}
machine=$(machine_of "$cudaload")
case $machine in
aarch64 | x86_64) ;;
*) echo "patch-image.sh: $cudaload: unknown machine '$machine'" >&2; exit 1 ;;
esac

# The image's machine: its dynamic loader, else its first ELF program.
image_machine=
for l in lib/ld-linux-aarch64.so.1 lib64/ld-linux-x86-64.so.2 lib/ld-linux-x86-64.so.2 \
	lib/ld-linux-armhf.so.3 lib/ld-linux.so.2; do
	f=$rootfs/$l
	if [ -L "$f" ]; then	# a link inside the image: resolve it there
		t=$(readlink "$f")
		case $t in /*) f=$rootfs$t ;; *) f=$(dirname "$f")/$t ;; esac
	fi
	[ -f "$f" ] || continue
	image_machine=$(machine_of "$f")
	[ -n "$image_machine" ] && break
done
if [ -z "$image_machine" ]; then
	for f in $(find "$rootfs/usr/bin" "$rootfs/bin" "$rootfs/opt" -type f 2>/dev/null | head -n 200); do
		image_machine=$(machine_of "$f")
		[ -n "$image_machine" ] && break
	done
fi
if [ -n "$image_machine" ] && [ "$image_machine" != "$machine" ]; then
	echo "patch-image.sh: $rootfs is a $image_machine image, $cudaload is for $machine: refused" >&2
	exit 1
fi

# Installed through cudaload-patch: a shell script cannot resolve a path
# inside an image (cudaload-patch(1), --install).
install_in_image() {
	"$patcher" --root "$rootfs" --quiet --install "$@" ||
		{ echo "patch-image.sh: cannot install into $rootfs (see above); nothing patched" >&2; exit 1; }
}
install_in_image --mode 755 "$cudaload" /usr/bin/cudaload
# its pin directories (cudaload(1), PINNING): beside it, as make install
# puts them; made here, then copied in
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
sh "$(dirname "$0")/mkpin.sh" "$stage/pin" /usr/lib/cudaload/pin
install_in_image "$stage/pin" /usr/lib/cudaload/pin
install_in_image --mode 644 --no-clobber "$default_config" /etc/cudaload.conf

dirs=
for d in ${PATCH_DIRS:-usr/bin usr/sbin usr/local opt}; do
	[ -d "$rootfs/$d" ] && dirs="$dirs $rootfs/$d"
done
[ -n "$dirs" ] || { echo "patch-image.sh: nothing to patch under $rootfs" >&2; exit 0; }
# An image is not this system: nothing goes into this system's record of
# patched programs (cudaload-patch(1), --reapply).  cudaload-patch exits 1
# when anything failed (and says what on stderr); cudaload itself, walked in
# usr/bin, is not counted as a skipped file.
st=0
# shellcheck disable=SC2086
# --root: what the programs load and the Python packages they import are
# the image's, not this machine's.
"$patcher" --no-record --root "$rootfs" --interp /usr/bin/cudaload --machine "$machine" \
	${PATCH_ALL:+--all} $dirs || st=$?
[ $st -eq 0 ] || echo "patch-image.sh: cudaload-patch failed on some files (status $st)" >&2
exit $st
