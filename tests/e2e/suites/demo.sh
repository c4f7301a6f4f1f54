#!/bin/sh
# SPDX-License-Identifier: MIT
# make demo: cudaload choosing a driver on three simulated devices.
# Each device is a fixture tree (tests/fixtures) with fake libcuda builds that
# report their CUDA version, so "loaded" below is what the program really got.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
B=$(cd "${1:-$top/build}" && pwd)
W=$B/demo
CC=${CC:-cc}
export CC
rm -rf "$W"
mkdir -p "$W/libs"
: >"$W/empty.conf"
$CC -O1 -o "$W/libs/mknote" "$here/../helpers/mknote.c"
$CC -O1 -o "$W/cudaprobe" "$here/../helpers/cudaprobe.c" -ldl
cp "$W/cudaprobe" "$W/cudaprobe-patched"
"$B/cudaload-patch" --interp "$B/cudaload" "$W/cudaprobe-patched" >/dev/null

show() { # show PROFILE DRIVER_DIR TITLE
	root=$W/$1
	sh "$here/../lib/mkroot.sh" "$top/tests/fixtures/$1.profile" "$root" "$W/libs"
	printf '\n=== %s ===\n' "$3"
	printf '$ cudaload --explain ./cudaprobe\n'
	env CUDALOAD_ROOT="$root" CUDALOAD_CONFIG="$W/empty.conf" LD_LIBRARY_PATH="$root$2" \
		"$B/cudaload" --explain "$W/cudaprobe" | sed 's/^/  /'
	printf '$ cudaload ./cudaprobe   # what the program actually loaded:\n'
	env CUDALOAD_ROOT="$root" CUDALOAD_CONFIG="$W/empty.conf" LD_LIBRARY_PATH="$root$2" \
		"$B/cudaload" "$W/cudaprobe" | sed -n 's/^libcuda=/  libcuda /p' | sed "s|$root||"
	printf '$ ./cudaprobe-patched    # cudaload as its interpreter (chain mode):\n'
	env CUDALOAD_ROOT="$root" CUDALOAD_CONFIG="$W/empty.conf" LD_LIBRARY_PATH="$root$2" \
		"$W/cudaprobe-patched" | sed -n -e 's/^libcuda=/  libcuda /p' -e 's/^exe=/  \/proc\/self\/exe /p' | sed "s|$root||"
}

show orin-jp5-compat122 /usr/lib/aarch64-linux-gnu/tegra \
	"Jetson AGX Orin, JetPack 5.1.2 (CUDA 11.4) + cuda-compat 12.2: compat is used"
show orin-jp5-compat124 /usr/lib/aarch64-linux-gnu/tegra \
	"Jetson AGX Orin, JetPack 5.1.2 + cuda-compat 12.4: NVIDIA does not support it, system driver"
show dgpu-note-allows /usr/lib/x86_64-linux-gnu \
	"Data-center GPU, driver 550 (CUDA 12.4) + cuda-compat 12.9: the note allows branch 550"
printf '\n(fixture trees under %s; CUDALOAD_DEBUG=1 traces every step)\n' "$W"
