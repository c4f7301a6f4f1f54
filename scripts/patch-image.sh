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
#      names a CUDA library get /usr/bin/cudaload as their interpreter, with
#      their original interpreter recorded; everything else is left alone.
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

machine=$(readelf -h "$cudaload" | sed -n 's/^ *Machine: *//p')
case $machine in
*AArch64*) machine=aarch64 ;;
*X86-64*) machine=x86_64 ;;
*) echo "patch-image.sh: $cudaload: unknown machine '$machine'" >&2; exit 1 ;;
esac

install -d "$rootfs/usr/bin" "$rootfs/etc"
install -m 755 "$cudaload" "$rootfs/usr/bin/cudaload"
[ -e "$rootfs/etc/cudaload.conf" ] || install -m 644 "$default_config" "$rootfs/etc/cudaload.conf"

dirs=
for d in ${PATCH_DIRS:-usr/bin usr/sbin usr/local opt}; do
	[ -d "$rootfs/$d" ] && dirs="$dirs $rootfs/$d"
done
[ -n "$dirs" ] || { echo "patch-image.sh: nothing to patch under $rootfs" >&2; exit 0; }
# An image is not this system: nothing goes into this system's record of
# patched programs (cudaload-patch(1), --reapply).
# shellcheck disable=SC2086
exec "$patcher" --no-record --interp /usr/bin/cudaload --machine "$machine" \
	${PATCH_ALL:+--all} $dirs
