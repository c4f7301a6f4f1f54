#!/bin/sh
# SPDX-License-Identifier: MIT
# NVIDIA's own CUDA runtime judges the driver cudaload hands it (x86_64).
# Usage: cudart.sh BUILD
# A program built with nvcc -cudart shared loads libcudart.so.13, which
# dlopens libcuda.so.1 and asks for every driver function through
# cuGetProcAddress.  The fake libcuda (fakecuda.c) answers cuDriverGetVersion
# with its build-time version and everything else with CUDA_ERROR_NO_DEVICE:
# cudaGetDeviceCount then returns 35 (cudaErrorInsufficientDriver) for a
# driver older than the runtime's 13.0, and 100 (cudaErrorNoDevice) once the
# runtime accepted it.  Run across the data-center fixtures: directly (the
# control: the system driver), through cudaload as a command, and as the
# interpreter of the patched program.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
B=$(cd "${1:-$top/build}" && pwd)
. "$here/../lib/lib.sh"

echo "== NVIDIA CUDA runtime against the drivers cudaload picks"
W=$B/e2e-cudart
rm -rf "$W"
mkdir -p "$W/libs" "$W/roots" "$W/bin"
: >"$W/empty.conf"
cc -O1 -o "$W/libs/mknote" "$here/../helpers/mknote.c"
build_cudart "$W/bin/cudart"
case $? in
1)
	skip "CUDA runtime suite" "$cudart_why"
	finish
	exit
	;;
2)
	bad "nvcc builds the runtime program" "$(cat "$W/bin/cudart.log")"
	finish
	exit
	;;
esac
cp "$W/bin/cudart" "$W/bin/cudart-patched"
"$B/cudaload-patch" --interp "$B/cudaload" "$W/bin/cudart-patched" >/dev/null

run() { # run ROOT DRIVER_DIR MODE CMD...
	r=$1 dd=$2 m=$3
	shift 3
	env CUDALOAD_ROOT="$r" CUDALOAD_CONFIG="$W/empty.conf" CUDALOAD_MODE="$m" \
		LD_LIBRARY_PATH="$r$dd" "$@" 2>&1
}
want() { # the runtime's verdict on a driver of CUDA version $1
	if [ "$1" -ge 13000 ]; then echo 100; else echo 35; fi
}

table=
for profile in "$top"/tests/fixtures/dgpu-*.profile "$top"/tests/fixtures/igx-*.profile; do
	name=$(basename "$profile" .profile)
	root=$W/roots/$name
	sh "$here/../lib/mkroot.sh" "$profile" "$root" "$W/libs" || { bad "$name: fixture"; continue; }
	expect_dir= driver_dir= host_cuda= expect_version= expect_decision=
	. "$profile"
	direct=$(want "$host_cuda") through=$(want "$expect_version")
	out=$(run "$root" "$driver_dir" exec "$W/bin/cudart")
	has "$name: direct run (the control): $direct" "$out" "cudaGetDeviceCount=$direct driver=$host_cuda"
	got_direct=$(printf '%s' "$out" | sed -n 's/^cudaGetDeviceCount=\([0-9]*\).*/\1/p')
	got=
	for m in exec chain; do
		for prog in "$B/cudaload $W/bin/cudart" "$W/bin/cudart-patched"; do
			# shellcheck disable=SC2086
			out=$(run "$root" "$driver_dir" $m $prog)
			has "$name: ${prog##*/} ($m): $through" "$out" "cudaGetDeviceCount=$through driver=$expect_version"
			g=$(printf '%s' "$out" | sed -n 's/^cudaGetDeviceCount=\([0-9]*\).*/\1/p')
			case " $got " in *" $g "*) ;; *) got="$got $g" ;; esac
		done
	done
	table="$table
| $name | $expect_decision${expect_dir:+ $expect_dir} | $got_direct | $through |$got |"
done
echo "runtime table (cudaGetDeviceCount: 35 driver too old, 100 accepted):"
echo "| fixture | decision expected | direct | expected through cudaload | observed through cudaload |"
echo "| --- | --- | --- | --- | --- |"
printf '%s\n' "$table" | sed '/^$/d'
finish
