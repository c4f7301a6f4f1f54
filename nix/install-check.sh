#!/bin/sh
# SPDX-License-Identifier: MIT
# install-check.sh PREFIX: what an installed cudaload must be.  As a program
# interpreter the kernel maps it without a loader, so it must have no
# PT_INTERP and need no library (no DT_NEEDED).  Used by package.nix and by
# tests/nix.
set -eu
cl=$1/bin/cudaload
[ -x "$cl" ] || { echo "install check: $cl: missing or not executable" >&2; exit 1; }
for f in bin/cudaload-patch bin/cudaload-runtime libexec/cudaload/cudaload-verify; do
	[ -x "$1/$f" ] || { echo "install check: $1/$f: missing" >&2; exit 1; }
done
if readelf -lW "$cl" | grep -q 'INTERP'; then
	echo "install check: $cl has a PT_INTERP" >&2
	exit 1
fi
if readelf -dW "$cl" | grep -q '(NEEDED)'; then
	echo "install check: $cl needs a shared library" >&2
	exit 1
fi
echo "install check: $cl: no PT_INTERP, no DT_NEEDED"
