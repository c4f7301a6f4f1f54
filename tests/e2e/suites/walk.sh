#!/bin/sh
# SPDX-License-Identifier: MIT
# The walk over a real image (libraries that use CUDA, Python with
# CUDA wheels).  The image is Debian's own packages for ARCH: ffmpeg, python3
# and what they need, as apt resolves them for an empty system, unpacked
# with dpkg-deb (cached under BUILD/walk-debs).  Added to it: a player whose
# own library, found through RUNPATH $ORIGIN/../lib, links libavutil; a
# PyTorch-like wheel tree (torch/lib/libtorch_cuda.so needing
# libcudart.so.12) for python3.11; a virtual environment with an nvidia-*
# wheel for the same interpreter.  cudaload-patch --root over the whole
# image must patch ffmpeg, ffprobe, ffplay, the player and python3.11, and
# nothing else (coreutils, apt, dpkg, perl ... stay as they were); each
# patched program still runs in the image (chroot; qemu-user for arm64).
# Usage: walk.sh BUILD ARCH (x86_64 or aarch64)
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
B=$(cd "${1:-$top/build}" && pwd)
arch=${2:-$(uname -m)}
. "$here/../lib/lib.sh"
echo "== end-to-end, the walk over a real $arch image"

case $arch in
x86_64) deb=amd64 triplet=x86_64-linux-gnu cc=${CC_X86_64:-cc} loader=$B/cudaload ;;
aarch64) deb=arm64 triplet=aarch64-linux-gnu cc=aarch64-linux-gnu-gcc loader=$B/aarch64/cudaload ;;
*) echo "walk.sh: no image for $arch" >&2; exit 1 ;;
esac
P=${PATCHER:-$B/cudaload-patch}
if [ "$(id -u)" != 0 ]; then
	skip "the $arch image" "needs root (chroot)"
	finish
	exit 0
fi
if ! command -v "$cc" >/dev/null || [ ! -x "$loader" ]; then
	skip "the $arch image" "no $cc or no $loader"
	finish
	exit 0
fi
if [ "$arch" = aarch64 ] && [ "$(uname -m)" != aarch64 ] && [ ! -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ]; then
	skip "the $arch image" "no qemu-user binfmt for aarch64"
	finish
	exit 0
fi

# ---- the image: Debian's packages, as apt resolves them ----------------------
D=$B/walk-debs/$deb
want="ffmpeg python3 apt coreutils perl"
mkdir -p "$D/archives/partial"
[ "$(cat "$D/complete" 2>/dev/null)" = "$want" ] || rm -f "$D/complete" "$D"/archives/*.deb
if [ ! -f "$D/complete" ]; then
	: >"$D/status"
	if apt-get -q -o Dir::State::status="$D/status" -o Dir::Cache::archives="$D/archives" \
		-o Debug::NoLocking=1 -o APT::Architecture="$deb" -o APT::Architectures="$deb" \
		--download-only -y --no-install-recommends install $want >"$D/apt.log" 2>&1; then
		echo "$want" >"$D/complete"
	fi
fi
if [ ! -f "$D/complete" ]; then
	skip "the $arch image" "apt could not fetch ffmpeg and python3 for $deb (see $D/apt.log)"
	finish
	exit 0
fi
R=$B/walk-root-$deb
rm -rf "$R"
mkdir -p "$R"
unpacked=0 failed=
for f in "$D"/archives/*.deb; do
	if dpkg-deb -x "$f" "$R"; then unpacked=$((unpacked + 1)); else failed="$failed ${f##*/}"; fi
done
# What the maintainer scripts would have made: the BLAS and LAPACK
# alternatives (update-alternatives links them into the library directory),
# and the image's ld.so.cache.
L=$R/usr/lib/$triplet
for f in "$L"/blas/lib*.so.* "$L"/lapack/lib*.so.*; do
	[ -e "$f" ] && ln -sf "${f#"$L"/}" "$L/${f##*/}"
done
# what the rows below use: ffmpeg, python3, apt, coreutils, perl
missing=
for f in usr/bin/ffmpeg usr/bin/python3 usr/bin/apt bin/ls usr/bin/perl; do
	[ -f "$R/$f" ] || [ -L "$R/$f" ] || missing="$missing /$f"
done
[ -z "$failed" ] && [ -z "$missing" ] && [ "$unpacked" -gt 0 ] &&
	ok "image unpacked: $unpacked packages, $(find "$R" -type f | wc -l) files" ||
	bad "image unpacked: $unpacked packages; dpkg-deb failed on:${failed:- none}; missing:${missing:- none}"

# ---- what the image gets besides --------------------------------------------
W=$B/walk-test-$deb
rm -rf "$W"
mkdir -p "$W" "$R/opt/player/bin" "$R/opt/player/lib"
printf 'extern int av_log_get_level(void);\nint player_level(void) { return av_log_get_level(); }\n' >"$W/libplayer.c"
printf 'extern int player_level(void);\nint main(void) { return player_level() < -100; }\n' >"$W/player.c"
avutil=$(cd "$L" && ls libavutil.so.5? | head -n1)
"$cc" -shared -fPIC -o "$R/opt/player/lib/libplayer.so" -Wl,-soname,libplayer.so "$W/libplayer.c" \
	-Wl,--no-as-needed "$L/$avutil"
"$cc" -o "$R/opt/player/bin/player" "$W/player.c" -Wl,--no-as-needed "$R/opt/player/lib/libplayer.so" \
	-Wl,-rpath-link,"$L" -Wl,--enable-new-dtags,-rpath,'$ORIGIN/../lib'
py=$(cd "$R/usr/bin" && ls python3.[0-9]* | grep -E '^python3\.[0-9]+$' | head -n1)
site=$R/usr/local/lib/$py/dist-packages
mkdir -p "$site/torch/lib" "$site/nvidia/cuda_runtime/lib"
printf 'int cudaGetDeviceCount(int *n) { *n = 0; return 100; }\n' >"$W/cudart.c"
"$cc" -shared -fPIC -o "$site/nvidia/cuda_runtime/lib/libcudart.so.12" -Wl,-soname,libcudart.so.12 "$W/cudart.c"
printf 'extern int cudaGetDeviceCount(int *);\nint torch_cuda(void) { int n; return cudaGetDeviceCount(&n); }\n' >"$W/tc.c"
"$cc" -shared -fPIC -o "$site/torch/lib/libtorch_cuda.so" "$W/tc.c" -Wl,--no-as-needed \
	"$site/nvidia/cuda_runtime/lib/libcudart.so.12"
install -m 755 "$loader" "$R/usr/bin/cudaload"

# ---- the walk ---------------------------------------------------------------------
before=$W/before
(cd "$R" && find . -type f -exec sha256sum {} + | LC_ALL=C sort -k2) >"$before"
files=$(find "$R" -type f | wc -l)
t0=$(date +%s%N)
out=$("$P" --root "$R" --interp /usr/bin/cudaload --machine "$arch" --no-record --dry-run "$R" 2>&1)
rc=$?
t1=$(date +%s%N)
secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", (b - a) / 1e9 }')
[ "$rc" = 0 ] && in_text "$out" ": would be patched" &&
	ok "dry run over the whole image: $files files in $secs s, exit 0" ||
	bad "dry run over the whole image: exit $rc (0 expected), or nothing it would patch" "$(printf '%s\n' "$out" | tail -n 20)"
printf '%s\n' "$out" >"$W/dry-run.txt"
for prog in /usr/bin/ffmpeg /usr/bin/ffprobe /usr/bin/ffplay /opt/player/bin/player "/usr/bin/$py"; do
	contains "$prog is a CUDA program" "$out" "$R$prog: would be patched"
done
contains "ffmpeg: why, and the library that carries it" "$out" \
	"$R/usr/bin/ffmpeg: would be patched, interpreter /usr/bin/cudaload (was /lib"
contains "... through libavutil" "$(grep "$R/usr/bin/ffmpeg:" "$W/dry-run.txt")" "uses CUDA: through libav"
contains "the player: through its own \$ORIGIN library" "$(grep "/opt/player/bin/player:" "$W/dry-run.txt")" \
	"uses CUDA: through libplayer.so > $avutil"
contains "python: through the wheel's libtorch_cuda.so" "$(grep "/usr/bin/$py:" "$W/dry-run.txt")" \
	"uses CUDA: through /usr/local/lib/$py/dist-packages/"
n=$(grep -c ': would be patched' "$W/dry-run.txt")
status "only those five are patched (coreutils, apt, dpkg, perl stay)" 5 "$n" "$(grep ': would be patched' "$W/dry-run.txt")"
(cd "$R" && find . -type f -exec sha256sum {} + | LC_ALL=C sort -k2) >"$W/after-dry"
cmp -s "$before" "$W/after-dry" && ok "--dry-run changed nothing" || bad "--dry-run changed the image"

"$P" --root "$R" --interp /usr/bin/cudaload --machine "$arch" --no-record --quiet "$R" >"$W/patch.txt" 2>&1
status "the walk patches" 0 $? "$(cat "$W/patch.txt")"
for prog in /usr/bin/ffmpeg /usr/bin/ffprobe /opt/player/bin/player "/usr/bin/$py"; do
	out=$("$P" --check "$R$prog" 2>&1)
	contains "$prog patched" "$out" "patched, interpreter /usr/bin/cudaload"
done
for prog in /usr/bin/ls /usr/bin/cat /usr/bin/apt-get /usr/bin/dpkg /usr/bin/perl; do
	out=$("$P" --check "$R$prog" 2>&1)
	contains "$prog left alone" "$out" "not patched"
done
# Each patched program still runs in the image, through cudaload; ld.so
# finds $ORIGIN through /proc/self/exe.
mkdir -p "$R/proc"
mount -t proc proc "$R/proc" 2>/dev/null && trap 'umount "$R/proc"' EXIT
out=$(chroot "$R" /usr/bin/ffmpeg -hide_banner -version 2>&1 | head -n1)
contains "ffmpeg runs in the image" "$out" "ffmpeg version"
out=$(chroot "$R" /usr/bin/ffprobe -hide_banner -version 2>&1 | head -n1)
contains "ffprobe runs in the image" "$out" "ffprobe version"
chroot "$R" /opt/player/bin/player
status "the player runs in the image" 0 $? ""
out=$(chroot "$R" "/usr/bin/$py" -c 'import sys; print("py", sys.version_info[0])' 2>&1)
status "python runs in the image" "py 3" "$out" "$out"
out=$(CUDALOAD_DEBUG=1 chroot "$R" /usr/bin/ffprobe -version 2>&1 >/dev/null | head -n1)
contains "... through cudaload" "$out" "cudaload["
umount "$R/proc" 2>/dev/null && trap - EXIT
"$P" --root "$R" --restore --quiet "$R" >/dev/null 2>&1
(cd "$R" && find . -type f -exec sha256sum {} + | LC_ALL=C sort -k2) >"$W/after-restore"
cmp -s "$before" "$W/after-restore" && ok "--restore gives the image back byte for byte" ||
	bad "--restore left the image changed: $(diff "$before" "$W/after-restore" | head -n4)"

# ---- environments: conda's, and a venv wherever it lies ----------------------------
# The wheel leaves the system site directory; a conda-style environment
# (PREFIX/bin/pythonX.Y, PREFIX/lib/pythonX.Y/site-packages, conda-meta/, as
# conda-forge's python package lays it out) gets its own torch, and a venv in
# /opt/venv (pyvenv.cfg home = /usr/bin) an nvidia-* wheel for the system
# interpreter.  Which interpreters count must not depend on which arguments
# the walk is given, nor on their order.
mv "$site/torch" "$site/nvidia" "$W/"
E=$R/opt/conda/envs/torch
mkdir -p "$E/bin" "$E/conda-meta" "$E/lib/$py/site-packages/torch/lib"
cp "$R/usr/bin/$py" "$E/bin/$py"
cp "$W/torch/lib/libtorch_cuda.so" "$E/lib/$py/site-packages/torch/lib/"
V=$R/opt/venv
mkdir -p "$V/lib/$py/site-packages/nvidia/cuda_runtime/lib"
printf 'home = /usr/bin\ninclude-system-site-packages = false\nversion = %s.4\n' "${py#python}" >"$V/pyvenv.cfg"
cp "$W/nvidia/cuda_runtime/lib/libcudart.so.12" "$V/lib/$py/site-packages/nvidia/cuda_runtime/lib/"
for args in "$R/usr/bin $R/opt" "$R/opt $R/usr/bin" "$R/usr/bin"; do
	# shellcheck disable=SC2086
	out=$("$P" --root "$R" --no-record --dry-run $args 2>&1)
	contains "walk of ${args#"$R"}: the system $py, through the venv in /opt/venv" \
		"$(printf '%s\n' "$out" | grep "^$R/usr/bin/$py:")" "would be patched, interpreter /usr/bin/cudaload"
	case $args in *opt*)
		contains "walk of ${args#"$R"}: the conda environment's $py, through its own site-packages" \
			"$(printf '%s\n' "$out" | grep "^$E/bin/$py:")" \
			"uses CUDA: through /opt/conda/envs/torch/lib/$py/site-packages/torch/lib/libtorch_cuda.so"
	esac
	lacks "walk of ${args#"$R"}: no path of this machine written" "$out" "interpreter $B"
done
mv "$V" "$W/venv.away"
out=$("$P" --root "$R" --no-record --dry-run "$R/usr/bin" 2>&1)
lacks "without the venv, the system $py has no CUDA" "$out" "$R/usr/bin/$py: would be patched"
mv "$W/venv.away" "$V"
# --root names the image's cudaload, checked in the image
out=$("$P" --root "$R" --interp /usr/bin/cudaload --no-record --dry-run "$R/opt" 2>&1)
lacks "--interp is looked for in the image" "$out" "does not exist"
mv "$R/usr/bin/cudaload" "$W/cudaload.away"
out=$("$P" --root "$R" --no-record --dry-run "$R/opt" 2>&1)
status "an image without cudaload and no --interp: a usage error" 100 $? "$out"
contains "... that says so" "$out" "no cudaload in the image"
mv "$W/cudaload.away" "$R/usr/bin/cudaload"
finish
