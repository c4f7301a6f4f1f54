#!/bin/sh
# Install the Debian packages that building and testing cudaload need.
# Idempotent: installs only what is missing.  Needs root (or nothing to do).
# The aarch64 (Jetson) build and tests use Debian's cross toolchain, musl for
# arm64, the arm64 glibc loader and qemu-user (DESIGN §8).
set -eu

packages="make gcc g++ musl-tools musl-dev libcriterion-dev libelf-dev pkg-config
patchelf elfutils binutils gdb strace file attr libcap2-bin python3 perl
valgrind clang libclang-rt-14-dev"
if [ "$(uname -m)" = aarch64 ]; then
	packages="$packages musl-dev"
else
	packages="$packages gcc-aarch64-linux-gnu g++-aarch64-linux-gnu binutils-aarch64-linux-gnu
libc6-dev-arm64-cross qemu-user-static binfmt-support musl-dev:arm64 libc6:arm64"
fi

missing=
for p in $packages; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing="$missing $p"
done

[ -z "$missing" ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "deps.sh: missing packages:$missing (run as root to install them)" >&2
	exit 1
fi
echo "deps.sh: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
case $missing in
*:arm64*)
	dpkg --print-foreign-architectures | grep -qx arm64 || dpkg --add-architecture arm64
	;;
esac
# others may run apt at the same time: wait for the lock instead of failing
apt-get -o DPkg::Lock::Timeout=600 update -q >/dev/null
# shellcheck disable=SC2086
apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends $missing >/dev/null
