#!/bin/sh
# SPDX-License-Identifier: MIT
# deps.sh [demo]: install the Debian packages that building and testing
# cudaload need (with "demo": only what make demo needs: a compiler, musl and
# libelf).  Idempotent: installs only what is missing, and says what before
# it does.  Needs root (or nothing to do).
# The aarch64 (Jetson) build and tests use Debian's cross toolchain, musl for
# arm64, the arm64 glibc loader and qemu-user (docs/design.md §8); the
# packages are checked with dpkg-dev, lintian and mandoc, and installed in
# Debian 11 and 12 roots that mmdebstrap makes.
set -eu

if [ "${1:-}" = demo ]; then
	packages="make gcc musl-tools musl-dev libelf-dev"
else
	packages="make gcc g++ musl-tools musl-dev libcriterion-dev libelf-dev pkg-config
patchelf elfutils binutils gdb strace file attr libcap2-bin python3 perl
valgrind clang libclang-rt-14-dev dpkg-dev fakeroot lintian mandoc bash-completion
python3-prometheus-client python3-jsonschema
nix-bin shellcheck mmdebstrap podman runc busybox-static docker.io containerd"
	if [ "$(uname -m)" = aarch64 ]; then
		packages="$packages musl-dev"
	else
		packages="$packages gcc-aarch64-linux-gnu g++-aarch64-linux-gnu binutils-aarch64-linux-gnu
libc6-dev-arm64-cross qemu-user-static binfmt-support musl-dev:arm64 libc6:arm64
libelf-dev:arm64"
	fi
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
echo "deps.sh: installing Debian packages:$missing" >&2
export DEBIAN_FRONTEND=noninteractive
case $missing in
*:arm64*)
	dpkg --print-foreign-architectures | grep -qx arm64 || dpkg --add-architecture arm64
	;;
esac
# Others may be running apt at the same time: wait for its lock.
apt-get -o DPkg::Lock::Timeout=600 update -q >/dev/null
# shellcheck disable=SC2086
apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends $missing >/dev/null
