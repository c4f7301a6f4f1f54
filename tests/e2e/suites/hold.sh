#!/bin/sh
# SPDX-License-Identifier: MIT
# The decision holds (common/decision/pin.h): whatever cudaload decides, the program
# loads that driver's libcuda.so.1, libcuda.so and JIT compiler, even when a
# RUNPATH (the program's, or a library's that dlopens the driver),
# LD_LIBRARY_PATH or an /etc/ld.so.conf.d entry in ld.so.cache names a compat
# directory; and nothing else moves.
#
# Each host is a real chroot: cudaload's probes read its files (no
# CUDALOAD_ROOT), its ld.so.cache is made by ldconfig (the aarch64 one by
# libc-bin:arm64's ldconfig under qemu-user), and every library is a real
# one.  Nothing is simulated but the hardware.  Hosts:
#   h200     a Debian-style data-center host: module 580.159.04, the driver in
#            /usr/lib/<triplet>, cuda-compat-13-0 (580.95.05, older: 803 on
#            that host, measured; see tests/fixtures/dgpu-h200-real.profile)
#            -> system, pinned by the shipped links
#   h100-570 the same package on module 570.86.15 (its note lists 570, its
#            driver is newer) -> compat: the control
#   orin-jp5 (aarch64) AGX Orin, L4T r35.4.1, cuda-compat 12.4 (refused on
#            JetPack 5: CUDA for Tegra app note) -> system, pinned by the
#            driver's own tegra/ directory
# Each case asserts the real paths the program got (dlinfo + realpath), not
# what cudaload printed; the same cases without cudaload show that each row
# does load the compat driver there.  Needs root (chroot).
# Usage: hold.sh BUILD ARCH MODE
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
B=$(cd "${1:-$top/build}" && pwd)
arch=${2:-$(uname -m)} mode=${3:-chain}
. "$here/../lib/lib.sh"
. "$here/../lib/chroot.sh"
echo "== end-to-end, the decision holds ($arch, $mode mode)"

if [ "$(id -u)" -ne 0 ]; then
	skip "hold suite" "not root (the hosts are chroots)"
	finish
	exit
fi
chroot_arch || { skip "hold suite" "$chroot_why"; finish; exit; }

W=$B/e2e-hold-$arch-$mode
rm -rf "$W"
mkdir -p "$W/libs"
# why openat2 is refused to the program's machine here (qemu-user), if it is
$TCC -O1 -o "$W/openat2" "$here/../helpers/openat2.c"
openat2_refused=$("$W/openat2" 2>&1 || echo "openat2: the probe did not run")

# ---- the libraries, built once for every host ----
L=$W/libs
lib() { # lib OUT SONAME SOURCE [FLAGS...]: a shared object
	o=$1 so=$2 src=$3
	shift 3
	$TCC -shared -fPIC -O1 -Wl,-soname,"$so" -o "$L/$o" "$here/../helpers/$src" "$@"
}
lib libcuda-system.so libcuda.so.1 fakecuda.c -DFAKE_CUDA_VERSION=13000 &&
	lib libcuda-compat.so libcuda.so.1 fakecuda.c -DFAKE_CUDA_VERSION=13000 &&
	lib libcuda-jetson.so libcuda.so.1 fakecuda.c -DFAKE_CUDA_VERSION=11040 &&
	lib libcuda-compat124.so libcuda.so.1 fakecuda.c -DFAKE_CUDA_VERSION=12040 &&
	lib ptxjit.so libnvidia-ptxjitcompiler.so.1 holdlib.c &&
	lib bundle.so libbundle.so.1 holdlib.c &&
	lib via.so libvia.so.1 holdvia.c -ldl &&
	lib via-rp.so libvia.so.1 holdvia.c -ldl -Wl,--enable-new-dtags,-rpath,/usr/local/cuda/compat ||
	{ bad "build the test libraries"; finish; exit; }
${CC:-cc} -O1 -o "$L/mknote" "$here/../helpers/mknote.c"
note='{"format":1,"CUDA version":"13.0","driver":[535,550,565,570,575,580],"device":[1,2,7,8,9,10,11,12,13,14]}'
"$L/mknote" "NVIDIA Corporation" "$note" >"$L/note.bin"
${OBJCOPY:-objcopy} --add-section .note.cuda.fwd_compatibility="$L/note.bin" \
	--set-section-flags .note.cuda.fwd_compatibility=readonly \
	--set-section-alignment .note.cuda.fwd_compatibility=4 "$L/libcuda-compat.so" "$L/libcuda-compat.so.n" &&
	mv "$L/libcuda-compat.so.n" "$L/libcuda-compat.so"
# The programs: libvia and the bundled library through the program's RUNPATH
# (absolute: set-id programs get no $ORIGIN).
prog() { # prog NAME RUNPATH
	$TCC -O1 -o "$L/$1" "$here/../helpers/holdprobe.c" -L"$L/link" -lvia -lbundle -ldl \
		-Wl,--enable-new-dtags,-rpath,"$2"
}
mkdir -p "$L/link"
cp "$L/via.so" "$L/link/libvia.so" && cp "$L/bundle.so" "$L/link/libbundle.so"
prog probe /opt/app/lib && prog probe-rp /opt/app/lib:/usr/local/cuda/compat &&
	prog probe-librp /opt/app/lib-rp:/opt/app/lib &&
	$TCC -O1 -o "$L/probe-rpath" "$here/../helpers/holdprobe.c" -L"$L/link" -lvia -lbundle -ldl \
		-Wl,--disable-new-dtags,-rpath,/opt/app/lib:/usr/local/cuda/compat ||
	{ bad "build the test programs"; finish; exit; }

# ---- a host: a chroot with a libc, the driver, a compat package, cudaload ----
# mkhost NAME: $W/NAME from tests/fixtures-style variables set by the caller:
# sysdir (where the system driver is), sysfile (its libcuda file name),
# syslib, compatdir, compatfile, compatlib, plus the probe files (mkroot.sh).
mkhost() {
	R=$W/$1
	sh "$here/../lib/mkroot.sh" "$W/$1.profile" "$R" "$L" >/dev/null || return 1
	chroot_libc "$R"
	for d in /opt/app/bin /opt/app/lib /opt/app/lib-rp; do mkdir -p "$R$d"; done
	# the system driver, and a library of the same name as the bundled one
	rm -f "$R$sysdir/libcuda.so.1" "$R$sysdir/libcuda.so.1.1"
	cp "$L/$syslib" "$R$sysdir/$sysfile"
	ln -sf "$sysfile" "$R$sysdir/libcuda.so.1"
	cp "$L/ptxjit.so" "$R$sysdir/libnvidia-ptxjitcompiler.so.$syssuffix"
	ln -sf "libnvidia-ptxjitcompiler.so.$syssuffix" "$R$sysdir/libnvidia-ptxjitcompiler.so.1"
	cp "$L/bundle.so" "$R/usr/lib/$triplet/libbundle.so.1"
	# the compat package, with a real JIT compiler
	# (mkroot.sh's companions are empty files, which ldconfig and ld.so reject)
	rm -f "$R$compatdir"/libnvidia-ptxjitcompiler.so* "$R$compatdir"/libnvidia-nvvm.so* \
		"$R$sysdir"/libnvrm_*.so
	cp "$L/$compatlib" "$R$compatdir/$compatfile"
	cp "$L/ptxjit.so" "$R$compatdir/libnvidia-ptxjitcompiler.so.$compatsuffix"
	ln -sf "libnvidia-ptxjitcompiler.so.$compatsuffix" "$R$compatdir/libnvidia-ptxjitcompiler.so.1"
	# /usr/local/cuda, as the toolkit's alternatives set it
	rm -rf "$R/usr/local/cuda"
	ln -s "$(basename "$(dirname "$compatdir")")" "$R/usr/local/cuda"
	# the program and its own libraries
	cp "$L/bundle.so" "$R/opt/app/lib/libbundle.so.1"
	cp "$L/via.so" "$R/opt/app/lib/libvia.so.1"
	cp "$L/via-rp.so" "$R/opt/app/lib-rp/libvia.so.1"
	for p in probe probe-rp probe-librp probe-rpath; do
		cp "$L/$p" "$R/opt/app/bin/$p.orig"
		cp "$L/$p" "$R/opt/app/bin/$p"
		"$B/cudaload-patch" --no-record --interp /usr/bin/cudaload --machine "$arch" "$R/opt/app/bin/$p" >/dev/null 2>&1 ||
			return 1
	done
	cp "$R/opt/app/bin/probe-rp" "$R/opt/app/bin/probe-rp-suid"
	chmod 4755 "$R/opt/app/bin/probe-rp-suid"
	# cudaload as make install lays it out: the binary, its pin directories
	cp "$CL" "$R/usr/bin/cudaload"
	sh "$top/scripts/mkpin.sh" "$R/usr/lib/cudaload/pin" /usr/lib/cudaload/pin
	printf 'mode = %s\n' "$mode" >"$R/etc/cudaload.conf"
	chmod -R go-w "$R"
	ldcache "$R"
}
CHROOT=$(command -v chroot || echo /usr/sbin/chroot)
# run R PROGRAM [VAR=VALUE...]: the program in the chroot, an empty environment
run() {
	r=$1 p=$2
	shift 2
	env -i PATH=/usr/bin:/bin "$@" "$CHROOT" "$r" "/opt/app/bin/$p" 2>&1
}

# check HOST ROW PROGRAM WANT_DRIVER_DIR WANT_LLP [VAR=VALUE...]
check() {
	h=$1 row=$2 p=$3 want=$4 wllp=$5
	shift 5
	out=$(run "$W/$h" "$p" "$@")
	wl=$(realpath "$W/$h$want/libcuda.so.1") wj=$(realpath "$W/$h$want/libnvidia-ptxjitcompiler.so.1")
	has "$h $row: libcuda.so.1 from $want" "$out" "libcuda=${wl#"$W/$h"}"
	has "$h $row: libcuda.so from $want" "$out" "libcuda_unversioned=${wl#"$W/$h"}"
	has "$h $row: JIT compiler from $want" "$out" "ptxjit=${wj#"$W/$h"}"
	has "$h $row: the bundled library stays" "$out" "bundle=/opt/app/lib/libbundle.so.1"
	has "$h $row: LD_LIBRARY_PATH as given" "$out" "LD_LIBRARY_PATH=$wllp"
}

# rows HOST WANT_DIR OTHER_DIR: every row of the table, through cudaload, then
# without it (the unpatched program) where the row names the compat dir.
rows() {
	h=$1 want=$2 other=$3 R=$W/$1
	check "$h" "nothing else" probe "$want" "(unset)"
	check "$h" "program RUNPATH" probe-rp "$want" "(unset)"
	check "$h" "library RUNPATH" probe-librp "$want" "(unset)" HOLD_VIA=1
	check "$h" "LD_LIBRARY_PATH" probe "$want" /usr/local/cuda/compat LD_LIBRARY_PATH=/usr/local/cuda/compat
	# without cudaload, each of these loads the compat driver
	out=$(run "$R" probe-rp.orig)
	contains "$h program RUNPATH without cudaload: compat" "$out" "libcuda=$compat_real"
	out=$(run "$R" probe.orig LD_LIBRARY_PATH=/usr/local/cuda/compat)
	contains "$h LD_LIBRARY_PATH without cudaload: compat" "$out" "libcuda=$compat_real"
	# NVIDIA's container toolkit writes 00-compat-<uuid>.conf, then ldconfig
	printf '%s\n' "$compatdir" >"$R/etc/ld.so.conf.d/00-compat-2f1c9a4e.conf"
	ldcache "$R"
	check "$h" "ld.so.conf.d" probe "$want" "(unset)"
	out=$(run "$R" probe.orig)
	contains "$h ld.so.conf.d without cudaload: compat" "$out" "libcuda=$compat_real"
	# set-id, in the ld.so.conf.d row and with a RUNPATH to the compat dir;
	# cudaload hands a set-id program to ld.so as /proc/self/exe (a chroot
	# without /proc runs it as ld.so would without cudaload)
	if setid_runs; then
		out=$(proc_self "$R" env -i PATH=/usr/bin:/bin "$CHROOT" --userspec=65534:65534 "$R" \
			/opt/app/bin/probe-rp-suid 2>&1)
		wl=$(realpath "$R$want/libcuda.so.1")
		has "$h set-id: libcuda.so.1 from $want" "$out" "libcuda=${wl#"$R"}"
	else
		skip "$h set-id" "$chroot_why"
	fi
	rm "$R/etc/ld.so.conf.d/00-compat-2f1c9a4e.conf"
	ldcache "$R"
	: "$other"
}

# workers HOST WANT_DIR: `cudaload PROGRAM`, and the program starts two
# workers without cudaload, as torchrun and multiprocessing's spawn re-run
# sys.executable: the parent and both workers load WANT_DIR's driver, with a
# rival in LD_LIBRARY_PATH too, and keep their own libraries; a program
# that is itself patched still decides for itself.
workers() {
	h=$1 want=$2
	wl=$(realpath "$W/$h$want/libcuda.so.1")
	wl=${wl#"$W/$h"}
	for rival in "" /usr/local/cuda/compat; do
		out=$(env -i PATH=/usr/bin:/bin HOLD_WORKERS=2 ${rival:+LD_LIBRARY_PATH=$rival} \
			"$CHROOT" "$W/$h" /usr/bin/cudaload /opt/app/bin/probe.orig 2>&1)
		n=$(printf '%s\n' "$out" | grep -cx "libcuda=$wl")
		status "$h cudaload PROGRAM${rival:+, LD_LIBRARY_PATH=$rival}: the parent and two workers load $want" \
			3 "$n" "$out"
		n=$(printf '%s\n' "$out" | grep -cx "bundle=/opt/app/lib/libbundle.so.1")
		status "$h ... and each keeps its own libraries" 3 "$n" "$out"
		lacks "$h ... every worker ran" "$out" "failed"
	done
	# a patched worker decides for itself: the same here, and its own list
	out=$(env -i PATH=/usr/bin:/bin HOLD_WORKERS=1 HOLD_WORKER=/opt/app/bin/probe \
		"$CHROOT" "$W/$h" /usr/bin/cudaload /opt/app/bin/probe.orig 2>&1)
	n=$(printf '%s\n' "$out" | grep -cx "libcuda=$wl")
	status "$h a patched worker: the same driver" 2 "$n" "$out"
}

# explain HOST: --explain names the pin
explain() {
	out=$(env -i PATH=/usr/bin:/bin "$CHROOT" "$W/$1" /usr/bin/cudaload --explain /opt/app/bin/probe 2>&1)
	has "$1 --explain: the pin" "$out" "pin:          $2"
}

# by_name HOST: a prepared decision on a real root (no CUDALOAD_ROOT) and
# the program's own environment (PREFIX/cuda-compat), which a chain start
# finds by the name the program was run by, without /proc (loader/start/steps.c,
# program_by_name), and an exec start by /proc/self/exe: through a linked
# directory and a linked name alike, and a package beside it not judged
# sends the start down the full path.
by_name() {
	R=$W/$1
	mkdir -p "$R/opt/env/bin"
	if ! $TCC -O1 -o "$R/opt/env/bin/probe" "$here/../helpers/cudaprobe.c" -ldl ||
		! "$B/cudaload-patch" --no-record --interp /usr/bin/cudaload --machine "$arch" \
			"$R/opt/env/bin/probe" >/dev/null 2>&1; then
		bad "$1 by name: build the probe"
		return
	fi
	ln -sfn env "$R/opt/alias"
	ln -sf probe "$R/opt/env/bin/probe-link"
	# why [proc] PROGRAM: what the trace says of the decision (proc: with
	# a /proc of its own in the chroot, else none)
	why() {
		pr=
		[ "$1" != proc ] || { pr="proc_self $R"; shift; }
		$pr env -i PATH=/usr/bin:/bin CUDALOAD_DEBUG=1 "$CHROOT" "$R" "$1" 2>&1 |
			sed -n 's/.*: prepared decision: //p'
	}
	sleep 1.2	# past the racy second of the files just made (prepared.h)
	proc_self "$R" env -i PATH=/usr/bin:/bin "$CHROOT" "$R" /opt/env/bin/probe >/dev/null 2>&1
	held="holds (the full path runs for this trace)"
	status "$1 by name: a decision prepared on the real root" "$held" "$(why proc /opt/env/bin/probe)"
	if [ "$mode" = chain ]; then
		status "$1 by name: holds in chain mode without /proc" "$held" "$(why /opt/env/bin/probe)"
	elif [ -z "$openat2_refused" ]; then
		status "$1 by name: holds in exec mode without /proc (openat2 finds no link on the name)" \
			"$held" "$(why /opt/env/bin/probe)"
	else
		skip "$1 by name: exec mode without /proc" "$openat2_refused"
	fi
	status "$1 by name: through a linked directory" "$held" "$(why proc /opt/alias/bin/probe)"
	status "$1 by name: through a linked name" "$held" "$(why proc /opt/env/bin/probe-link)"
	want=$(env -i PATH=/usr/bin:/bin CUDALOAD_DEBUG=1 "$CHROOT" "$R" /opt/alias/bin/probe 2>&1 | grep '^libcuda=')
	got=$(env -i PATH=/usr/bin:/bin "$CHROOT" "$R" /opt/alias/bin/probe 2>&1 | grep '^libcuda=')
	status "$1 by name: the prepared start loads what the full path does" "$want" "$got"
	cp -a "$R$compatdir" "$R/opt/env/cuda-compat"
	for p in /opt/env/bin/probe /opt/alias/bin/probe /opt/env/bin/probe-link; do
		case $(why proc "$p") in
		holds*) bad "$1 by name: $p, its own package not judged, takes the full path" ;;
		*) ok "$1 by name: $p, its own package not judged, takes the full path" ;;
		esac
	done
	rm -rf "$R/opt/env/cuda-compat"
}

if [ "$arch" = x86_64 ] || [ "$arch" = aarch64 ]; then
	# h200: Debian-style, system chosen, pinned by links
	cat >"$W/h200.profile" <<EOF
nvidia_version=580.159.04
proc_version="NVRM version: NVIDIA UNIX Open Kernel Module for $arch  580.159.04  Release Build  (dvs-builder@U22-I3-AF03-09-1)  Tue Oct 14 00:00:00 UTC 2025"
gpus="0000:00:06.0 PCIe NVIDIA H200"
compat="/usr/local/cuda-13.0/compat 13000 580.95.05 -"
EOF
	sysdir=/usr/lib/$triplet sysfile=libcuda.so.580.159.04 syslib=libcuda-system.so syssuffix=580.159.04
	compatdir=/usr/local/cuda-13.0/compat compatfile=libcuda.so.580.95.05 compatlib=libcuda-compat.so
	compatsuffix=580.95.05
	compat_real=$compatdir/$compatfile
	if mkhost h200; then
		rows h200 "$sysdir" "$compatdir"
		workers h200 "$sysdir"
		explain h200 "/usr/bin/../lib/cudaload/pin/usr/lib/$triplet (links to the system driver's files)"
		# what the pin holds against, and what it cannot
		R=$W/h200
		printf '%s\n' "$compatdir" >"$R/etc/ld.so.conf.d/00-compat-2f1c9a4e.conf"
		out=$(env -i PATH=/usr/bin:/bin LD_LIBRARY_PATH=/usr/local/cuda/compat \
			NUMBA_CUDA_DRIVER=/usr/local/cuda/compat/libcuda.so.1 \
			"$CHROOT" "$R" /usr/bin/cudaload --explain /opt/app/bin/probe-rp 2>&1)
		has "h200 --explain: the file" "$out" "libcuda:      /usr/lib/$triplet/$sysfile"
		has "h200 --explain: over RUNPATH" "$out" "              over the program's RUNPATH /usr/local/cuda/compat"
		has "h200 --explain: over LD_LIBRARY_PATH" "$out" "              over LD_LIBRARY_PATH's /usr/local/cuda/compat"
		has "h200 --explain: over ld.so.conf.d" "$out" \
			"              over ld.so.cache's entry $compatdir, from /etc/ld.so.conf.d/00-compat-2f1c9a4e.conf"
		has "h200 --explain: an absolute path is said" "$out" \
			"              not held: NUMBA_CUDA_DRIVER names a driver file by its path, which a program opens as it is"
		rm "$R/etc/ld.so.conf.d/00-compat-2f1c9a4e.conf"
		out=$(env -i PATH=/usr/bin:/bin "$CHROOT" "$R" /usr/bin/cudaload --explain /opt/app/bin/probe-rpath 2>&1)
		has "h200 --explain: a DT_RPATH is said" "$out" \
			"              not held: the program's DT_RPATH /usr/local/cuda/compat gives its libcuda.so.1 first"
		has "h200 --explain: its libcuda line is the DT_RPATH's file" "$out" "libcuda:      $compat_real"
		out=$(run "$R" probe-rpath)
		contains "h200 DT_RPATH: loads what --explain says (compat)" "$out" "libcuda=$compat_real"
		# the links, and pin_names[] of common/decision/pin.c, name the same files
		names=$(sed -n '/^const char \*const pin_names/,/};/p' "$top/common/decision/pin.c" |
			grep -o '"lib[^"]*"' | tr -d '"' | sort | tr '\n' ' ')
		# (the links only: a driver dir below this one has its own pin dir here)
		links=$(find "$W/h200/usr/lib/cudaload/pin/usr/lib/$triplet" -maxdepth 1 -type l \
			-printf '%f\n' | sort | tr '\n' ' ')
		status "pin links are pin_names[]" "$names" "$links"
	else
		bad "h200: build the host"
	fi
	# h100-570: the control, compat chosen
	sed 's/580\.159\.04/570.86.15/g; s/H200/H100 80GB HBM3/' "$W/h200.profile" >"$W/h100-570.profile"
	if mkhost h100-570; then
		rows h100-570 "$compatdir" "$sysdir"
		workers h100-570 "$compatdir"
		explain h100-570 "/usr/local/cuda-13.0/compat (the compat directory, first in the search list)"
	else
		bad "h100-570: build the host"
	fi
fi
if [ "$arch" = aarch64 ]; then
	# orin-jp5: a refused package, the driver's own directory as the pin
	cp "$top/tests/fixtures/orin-jp5-compat124.profile" "$W/orin-jp5.profile"
	sysdir=/usr/lib/aarch64-linux-gnu/tegra sysfile=libcuda.so.1.1 syslib=libcuda-jetson.so syssuffix=35.4.1
	compatdir=/usr/local/cuda-12.4/compat compatfile=libcuda.so.1.1 compatlib=libcuda-compat124.so
	compatsuffix=12.4
	compat_real=$compatdir/$compatfile
	if grep -q '^driver_dir=/usr/lib/aarch64-linux-gnu/tegra' "$W/orin-jp5.profile" && mkhost orin-jp5; then
		rows orin-jp5 "$sysdir" "$compatdir"
		workers orin-jp5 "$sysdir"
		explain orin-jp5 "/usr/bin/../lib/cudaload/pin$sysdir (links to the system driver's files)"
		by_name orin-jp5
	else
		bad "orin-jp5: build the host"
	fi
fi
finish
