#!/bin/sh
# SPDX-License-Identifier: MIT
# sysroot.sh DIR ARCH: Debian 11's glibc 2.31 and libelf for ARCH (amd64 or
# arm64) in DIR/bullseye-ARCH/sysroot, which the packaged cudaload-patch and
# cudaload-verify are linked against so that they run on glibc 2.31 (Debian
# 11, Ubuntu 20.04, JetPack 5) and every later one (docs/design.md §11).
# Fetched once with apt (own sources list and state, the mirror this machine
# uses: scripts/debmirror.sh), unpacked with dpkg -x; nothing outside DIR is
# touched.  DIR/bullseye-ARCH/sysroot/.complete marks a finished one.
set -eu
[ $# -eq 2 ] || { echo "usage: sysroot.sh DIR amd64|arm64" >&2; exit 100; }
here=$(cd "$(dirname "$0")" && pwd)
arch=$2
case $arch in
amd64) triplet=x86_64-linux-gnu ;;
arm64) triplet=aarch64-linux-gnu ;;
*) echo "sysroot.sh: $arch: not amd64 or arm64" >&2; exit 100 ;;
esac
mkdir -p "$1"
A=$(cd "$1" && pwd)/bullseye-$arch
S=$A/sysroot
[ -f "$S/.complete" ] && exit 0

mirror=$(sh "$here/debmirror.sh")
mkdir -p "$A/lists/partial" "$A/cache/archives/partial"
rm -rf "$A/debs" "$S"
mkdir -p "$A/debs"
echo "deb [arch=$arch signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror bullseye main" >"$A/sources.list"
set -- -o Dir::Etc::SourceList="$A/sources.list" -o Dir::Etc::SourceParts=/dev/null \
	-o Dir::State::Lists="$A/lists" -o Dir::Cache="$A/cache" -o Dir::State::Status=/dev/null \
	-o APT::Architecture="$arch" -o APT::Architectures::="$arch" -o APT::Sandbox::User=root -q
# The C library and its headers (with the kernel's), libelf and what
# libelf.so.1 and gcc's libgcc_s link script name.
pkgs="libc6 libc6-dev linux-libc-dev libelf1 libelf-dev zlib1g libgcc-s1"
echo "sysroot.sh: fetching Debian 11 $arch: $pkgs" >&2
# shellcheck disable=SC2086
if ! apt-get "$@" update >"$A/apt.log" 2>&1 ||
	! (cd "$A/debs" && apt-get "$@" download $pkgs) >>"$A/apt.log" 2>&1; then
	echo "sysroot.sh: cannot fetch Debian 11 $arch packages from $mirror:" >&2
	tail -n3 "$A/apt.log" >&2
	exit 1
fi
for deb in "$A"/debs/*.deb; do dpkg-deb -x "$deb" "$S"; done
# Links such as lib64/ld-linux-x86-64.so.2 and libdl.so name absolute paths,
# which would leave the sysroot: made relative, inside it.
find "$S" -type l | while read -r link; do
	target=$(readlink "$link")
	case $target in /*) ln -sfnr "$S$target" "$link" ;; esac
done
if [ ! -f "$S/lib/$triplet/libc.so.6" ] || [ ! -f "$S/usr/include/libelf.h" ]; then
	echo "sysroot.sh: $S: no libc.so.6 or libelf.h after unpacking" >&2
	exit 1
fi
: >"$S/.complete"
