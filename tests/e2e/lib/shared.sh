#!/bin/sh
# SPDX-License-Identifier: MIT
# What the suites share, made once before they run side by side (make e2e):
# qemu-user's binfmt_misc entry for aarch64 programs (foreign.sh) and the
# arm64 ldconfig the aarch64 chroots use (chroot.sh), each of which two
# suites at once would otherwise register or download over each other.
# Whatever cannot be made here is said by the suites that need it, as a SKIP.
# Usage: shared.sh BUILD
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
B=$(cd "${1:-$top/build}" && pwd)
arch=aarch64
[ "$(uname -m)" = "$arch" ] && exit 0
. "$here/chroot.sh"
if chroot_arch; then
	echo "shared fixtures: aarch64 programs run, ldconfig for arm64 at $LDCONFIG"
else
	echo "shared fixtures: aarch64: $chroot_why (the aarch64 suites say SKIP)"
fi
