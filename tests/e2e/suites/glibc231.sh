#!/bin/sh
# SPDX-License-Identifier: MIT
# JetPack 5's userland is glibc 2.31 (Ubuntu 20.04), whose ld.so takes an
# unknown option such as --argv0 for the program name (docs/design.md §3).  This
# takes Debian bullseye's libc6:arm64 and libc6-dev:arm64 (2.31), which
# scripts/sysroot.sh fetches once into BUILD, links the test program against
# them, and runs it through the aarch64 cudaload with that 2.31 loader on a
# JetPack 5 Orin fixture, and the packaged cudaload-verify too.
# Usage: glibc231.sh BUILD
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
B=$(cd "${1:-$top/build}" && pwd)
. "$here/../lib/lib.sh"
echo "== end-to-end, aarch64 with glibc 2.31 (JetPack 5 userland)"

if [ "$(uname -m)" = aarch64 ]; then
	CL=$B/cudaload TCC=${CC:-cc}
else
	CL=$B/aarch64/cudaload TCC=aarch64-linux-gnu-gcc
	. "$here/../lib/foreign.sh"
	if ! foreign_ready aarch64 "$CL" "$TCC"; then
		skip "glibc 2.31 suite" "$foreign_why"
		finish
		exit
	fi
fi

A=$B/bullseye-arm64
S=$A/sysroot
if ! sh "$top/scripts/sysroot.sh" "$B" arm64 >"$B/sysroot-arm64.log" 2>&1; then
	skip "glibc 2.31 suite" "cannot fetch bullseye libc6:arm64 ($(tail -n1 "$B/sysroot-arm64.log"))"
	finish
	exit
fi
LD231=$S/lib/ld-linux-aarch64.so.1
LIB231=$S/lib/aarch64-linux-gnu

W=$B/e2e-glibc231
rm -rf "$W"
mkdir -p "$W/libs" "$W/bin"
: >"$W/empty.conf"
# Built with this machine's headers, linked against 2.31's crt files, libc and
# libdl.
$TCC -O1 -c -o "$W/cudaprobe.o" "$here/../helpers/cudaprobe.c"
$TCC --sysroot="$S" -B"$S/usr/lib/aarch64-linux-gnu/" -L"$S/usr/lib/aarch64-linux-gnu" \
	-o "$W/bin/probe231" "$W/cudaprobe.o" "$LIB231/libdl.so.2" \
	-Wl,--dynamic-linker="$LD231" -Wl,-rpath,"$LIB231"
versions=$(readelf -V "$W/bin/probe231" | grep -o 'GLIBC_2\.[0-9]*' | sort -u | tr '\n' ' ')
case $versions in
*2.3[2-9]*) bad "probe231 needs only glibc <= 2.31" "$versions" ;;
*) ok "probe231 needs only glibc <= 2.31 ($versions)" ;;
esac
cp "$W/bin/probe231" "$W/bin/probe231-patched"
patchelf --set-interpreter "$CL" "$W/bin/probe231-patched"

cc -O1 -o "$W/libs/mknote" "$here/../helpers/mknote.c"
root=$W/orin-jp5
CC=$TCC OBJCOPY=aarch64-linux-gnu-objcopy sh "$here/../lib/mkroot.sh" \
	"$top/tests/fixtures/orin-jp5-compat122.profile" "$root" "$W/libs"
DD=/usr/lib/aarch64-linux-gnu/tegra
printf 'ldso.aarch64 = %s\n' "$LD231" >"$W/ldso231.conf"

run() {
	env CUDALOAD_ROOT="$root" CUDALOAD_CONFIG="${CONFIG:-$W/empty.conf}" CUDALOAD_DEBUG=1 \
		CUDALOAD_MODE="${CUDALOAD_MODE:-exec}" \
		LD_LIBRARY_PATH="$root$DD" "$@" 2>&1
}

# As a command: the program's own PT_INTERP is the 2.31 loader.
out=$(run "$CL" "$W/bin/probe231" "a b")
contains "2.31 as a command: loader recognised as 2.31" "$out" " probe231: loader $LD231 (PT_INTERP), no --argv0"
lacks "2.31 as a command: no --argv0 reaches it" "$out" "'--argv0'"
has "2.31 as a command: compat applied" "$out" "libcuda=$root/usr/local/cuda-12.2/compat/libcuda.so.1 version=12020"
has "2.31 as a command: argument intact" "$out" "arg[1]=a b"
has "2.31 as a command: argv[0] is the program path" "$out" "arg[0]=$W/bin/probe231"

# As PT_INTERP, the loader from the config (what an image with a 2.31
# userland sets): argv[0] becomes the program's path, not what was typed.
out=$(cd "$W/bin" && CONFIG=$W/ldso231.conf run ./probe231-patched x)
contains "2.31 as interpreter: config loader" "$out" " probe231-patched: loader $LD231 (config ldso.aarch64), no --argv0"
lacks "2.31 as interpreter: no --argv0 reaches it" "$out" "'--argv0'"
has "2.31 as interpreter: compat applied" "$out" "libcuda=$root/usr/local/cuda-12.2/compat/libcuda.so.1 version=12020"
has "2.31 as interpreter: argv[0] is the program's full path" "$out" "arg[0]=$W/bin/probe231-patched"
has "2.31 as interpreter: TLS intact" "$out" "tls=7"

# Chain mode maps the 2.31 loader into the process: argv[0] and
# /proc/self/exe stay the program's, which exec mode cannot do with 2.31.
out=$(cd "$W/bin" && CONFIG=$W/ldso231.conf CUDALOAD_MODE=chain run ./probe231-patched x)
contains "2.31 chain: mapped" "$out" " probe231-patched: chain $LD231 at 0x"
has "2.31 chain: compat applied" "$out" "libcuda=$root/usr/local/cuda-12.2/compat/libcuda.so.1 version=12020"
has "2.31 chain: argv[0] as typed" "$out" "arg[0]=./probe231-patched"
has "2.31 chain: /proc/self/exe is the program" "$out" "exe=$W/bin/probe231-patched"
has "2.31 chain: the user's LD_LIBRARY_PATH" "$out" "LD_LIBRARY_PATH=$root$DD"
has "2.31 chain: TLS intact" "$out" "tls=7"

# The packaged verifier for Jetson must start on JetPack 5: linked against
# the 2.31 sysroot, it needs nothing newer, and under the 2.31 loader and
# libc it verifies the fixture.
V231=$B/glibc231/arm64/cudaload-verify
${MAKE:-make} -s -C "$top" BUILD="$B" "$V231" >/dev/null 2>&1 || bad "make $V231"
versions=$(readelf -V "$V231" | grep -o 'GLIBC_2\.[0-9]*' | sort -u | tr '\n' ' ')
case $versions in
*2.3[2-9]*) bad "cudaload-verify needs only glibc <= 2.31" "$versions" ;;
*) ok "cudaload-verify needs only glibc <= 2.31 ($versions)" ;;
esac
mkdir -p "$W/v"
cp "$CL" "$W/v/cudaload"
cp "$V231" "$W/v/cudaload-verify"
patchelf --set-interpreter "$LD231" --force-rpath --set-rpath "$LIB231" "$W/v/cudaload-verify"
mkdir -p "$root/run"
printf '804\n' >"$root/usr/local/cuda-12.2/compat/fake-cuinit"
out=$(run "$W/v/cudaload" --verify --timeout 20)
status "2.31 verify: runs" 0 $? "$out"
contains "2.31 verify: the compat libcuda answered" "$out" "/usr/local/cuda-12.2/compat: cuInit returned 804"
contains "2.31 verify: the system driver answered" "$out" "system driver: cuInit returned 0"
out=$(cd "$W/bin" && CONFIG=$W/ldso231.conf CUDALOAD_MODE=chain run ./probe231-patched)
has "2.31 verify: the refused package is not used" "$out" "libcuda=$root$DD/libcuda.so.1 version=11040"
rm -rf "$root/run/cudaload" "$root/usr/local/cuda-12.2/compat/fake-cuinit"

# With the system driver the same holds.
out=$(cd "$W/bin" && CONFIG=$W/ldso231.conf CUDALOAD_POLICY=system run ./probe231-patched)
has "2.31 system driver: system libcuda" "$out" "libcuda=$root$DD/libcuda.so.1 version=11040"
lacks "2.31 system driver: no --argv0" "$out" "'--argv0'"
finish
