#!/bin/sh
# SPDX-License-Identifier: MIT
# Every libcuda the process can reach is judged or held (common/packages/reach.h):
# packages and drivers where conda, NGC images, Apptainer and HPC toolkits
# put them.  Each host is a real chroot as in hold.sh: cudaload's probes
# read its files, its ld.so.cache is made by ldconfig, every library is a
# real one; the layouts are tests/fixtures/layouts/*.profile, each saying
# where it comes from.  Each case asserts the real paths of the libcuda.so.1
# and JIT compiler the program got (dlopen + realpath), and that
# --explain's libcuda line names that file.  Needs root (chroot).
# Usage: reach.sh BUILD ARCH MODE
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/lib.sh"
. "$here/../lib/chroot.sh"
top=$(cd "$here/../../.." && pwd) arch=${2:-$(uname -m)} mode=${3:-chain}
B=$(cd "${1:-$top/build}" && pwd)
echo "== end-to-end, every libcuda reached is judged or held ($arch, $mode mode)"
[ "$(id -u)" = 0 ] || { skip "reach suite" "not root (the hosts are chroots)"; finish; exit; }
# conda-forge's cuda-compat, NGC images, Apptainer and Spack exist for
# x86_64 and for aarch64 servers (sbsa: Grace Hopper)
chroot_arch || { skip "reach suite" "$chroot_why"; finish; exit; }
W=$B/e2e-reach-$arch-$mode
L=$W/libs
rm -rf "$W"
mkdir -p "$L/link"

# ---- the libraries and programs, built once ----
lib() { # lib OUT SONAME SOURCE [FLAGS...]
	o=$1 so=$2 src=$3
	shift 3
	$TCC -shared -fPIC -O1 -Wl,-soname,"$so" -o "$L/$o" "$here/../helpers/$src" "$@"
}
lib libcuda-system.so libcuda.so.1 fakecuda.c -DFAKE_CUDA_VERSION=12020 &&
	lib ptxjit.so libnvidia-ptxjitcompiler.so.1 holdlib.c &&
	lib bundle.so libbundle.so.1 holdlib.c &&
	lib via.so libvia.so.1 holdvia.c -ldl &&
	lib cudart.so libcudart.so.12 fakecudart.c &&
	cc -O1 -o "$L/mknote" "$here/../helpers/mknote.c" ||
	{ bad "build the test libraries"; finish; exit; }
cp "$L/via.so" "$L/link/libvia.so" && cp "$L/bundle.so" "$L/link/libbundle.so" &&
	cp "$L/cudart.so" "$L/link/libcudart.so"
prog() { # prog NAME RUNPATH [MORE LIBRARIES]
	n=$1 rp=$2
	shift 2
	$TCC -O1 -o "$L/$n" "$here/../helpers/holdprobe.c" -L"$L/link" -lvia -lbundle "$@" -ldl \
		-Wl,--enable-new-dtags,-rpath,"$rp"
}
spack=/opt/spack/opt/spack/linux-x86_64/gcc-12.2.0/cuda-12.8.0-q3x7nv2kjz
# conda's programs have RUNPATH $ORIGIN/../lib; a chroot has no /proc for
# ld.so to find $ORIGIN by, so the environment's lib is named as it is
prog python-torch /opt/conda/envs/torch/lib && prog python-jax /opt/conda/envs/jax/lib &&
	prog python-user /opt/conda/envs/user/lib && prog python-linked /opt/conda/envs/linked/lib &&
	prog app /opt/app/lib &&
	prog spack-app "/opt/app/lib:$spack/lib64" &&
	prog rt-app "/opt/app/lib:$spack/lib64" -Wl,--no-as-needed -lcudart &&
	prog rt-llp-app /opt/app/lib -Wl,--no-as-needed -lcudart ||
	{ bad "build the test programs"; finish; exit; }

# install R PROGRAM AT: the program, patched to start cudaload
install_prog() {
	mkdir -p "$1$(dirname "$3")"
	cp "$L/$2" "$1$3"
	"$B/cudaload-patch" --no-record --interp /usr/bin/cudaload --machine "$arch" "$1$3" >/dev/null 2>&1
}

# mkhost NAME LAYOUT [SED]: $W/NAME from the layout, its probe files edited
# by SED (another driver, another GPU).  The system driver goes into
# /usr/lib/<triplet> as the driver packages put it, unless the layout binds
# it elsewhere (bound=DIR); each package gets a real JIT compiler beside
# its libcuda (mkroot.sh's are empty files, which ld.so rejects).
mkhost() {
	R=$W/$1
	sed "${3:-}" "$top/tests/fixtures/layouts/$2.profile" >"$W/$1.profile"
	CC=$TCC OBJCOPY=$OBJCOPY sh "$here/../lib/mkroot.sh" "$W/$1.profile" "$R" "$L" >/dev/null || return 1
	chroot_libc "$R"
	mkdir -p "$R/opt/app/lib" "$R/usr/lib/cudaload"
	cp "$L/bundle.so" "$R/opt/app/lib/libbundle.so.1"
	cp "$L/via.so" "$R/opt/app/lib/libvia.so.1"
	bound= nvidia_version= ldconf=
	. "$W/$1.profile"
	[ -z "$ldconf" ] || printf '%s\n' "$ldconf" >"$R/etc/ld.so.conf.d/cuda-compat.conf"
	if [ -z "$bound" ]; then
		s=/usr/lib/$triplet
		cp "$L/libcuda-system.so" "$R$s/libcuda.so.$nvidia_version"
		ln -s "libcuda.so.$nvidia_version" "$R$s/libcuda.so.1"
		ln -s libcuda.so.1 "$R$s/libcuda.so"
		cp "$L/ptxjit.so" "$R$s/libnvidia-ptxjitcompiler.so.$nvidia_version"
		ln -s "libnvidia-ptxjitcompiler.so.$nvidia_version" "$R$s/libnvidia-ptxjitcompiler.so.1"
	fi
	for f in $(cd "$R" && find . -name 'libnvidia-ptxjitcompiler.so.[0-9]*.*' -type f); do
		cp "$L/ptxjit.so" "$R/$f"
	done
	find "$R" -name 'libnvidia-nvvm.so*' -delete
	cp "$CL" "$R/usr/bin/cudaload"
	sh "$top/scripts/mkpin.sh" "$R/usr/lib/cudaload/pin" /usr/lib/cudaload/pin
	printf 'mode = %s\n' "$mode" >"$R/etc/cudaload.conf"
}
finish_host() {
	chmod -R go-w "$1"
	ldcache "$1"
}
env_for() { # env_for R ENVDIR: a conda environment's own files
	mkdir -p "$1$2/conda-meta" "$1$2/lib"
	cp "$L/bundle.so" "$1$2/lib/libbundle.so.1"
	cp "$L/via.so" "$1$2/lib/libvia.so.1"
	install_prog "$1" "python-${2##*/}" "$2/bin/python3.12"
	ln -s python3.12 "$1$2/bin/python"
}

# linked_env R ENVDIR: an environment whose lib/ links libcuda.so.1 and the
# JIT compiler to ../cuda-compat/ (conda-forge's newer activation), its
# package torch's
linked_env() {
	env_for "$1" "$2"
	cp -a "$1$torch/cuda-compat" "$1$2/"
	ln -s ../cuda-compat/libcuda.so.1 "$1$2/lib/libcuda.so.1"
	ln -s ../cuda-compat/libnvidia-ptxjitcompiler.so.1 "$1$2/lib/libnvidia-ptxjitcompiler.so.1"
}
# candidates HOST ROW PROGRAM N [VAR=VALUE...]: --explain lists N candidates
# and no refusal for want of a driver version in a file name
candidates() {
	h=$1 row=$2 p=$3 want=$4
	shift 4
	ex=$(env -i PATH=/usr/bin:/bin "$@" "$CHROOT" "$W/$h" /usr/bin/cudaload --explain "$p" 2>&1)
	got=$(printf '%s\n' "$ex" | grep -c '^candidate:')
	status "$h $row: $want candidate(s)" "$want" "$got" "$ex"
	lacks "$h $row: no package refused for its file name" "$ex" "no driver version"
}
bundle_from=

CHROOT=$(command -v chroot || echo /usr/sbin/chroot)
# in_root ROOT COMMAND...: COMMAND, with /proc/self (chroot.sh) when PROC=1
PROC=
in_root() {
	if [ -n "$PROC" ]; then proc_self "$@"; else shift; "$@"; fi
}
# check HOST ROW PROGRAM WANT_LIBCUDA_DIR [VAR=VALUE...]: the program got
# the libcuda.so.1 and JIT compiler of WANT, and --explain names that file
check() {
	h=$1 row=$2 p=$3 want=$4
	shift 4
	R=$W/$h
	out=$(in_root "$R" env -i PATH=/usr/bin:/bin "$@" "$CHROOT" "$R" "$p" 2>&1)
	wl=$(realpath "$R$want/libcuda.so.1") wj=$(realpath "$R$want/libnvidia-ptxjitcompiler.so.1")
	has "$h $row: libcuda.so.1 from $want" "$out" "libcuda=${wl#"$R"}"
	has "$h $row: JIT compiler from $want" "$out" "ptxjit=${wj#"$R"}"
	ip=$p	# a script: its interpreter's environment
	[ "$(head -c 2 "$R$p")" != "#!" ] || ip=$(head -n 1 "$R$p" | cut -c 3-)
	case $ip in /opt/conda/*) b=${ip%/bin/*}/lib ;; *) b=/opt/app/lib ;; esac
	[ -z "$bundle_from" ] || b=$bundle_from	# LD_LIBRARY_PATH's, which comes first
	has "$h $row: the bundled library stays" "$out" "bundle=$b/libbundle.so.1"
	ex=$(in_root "$R" env -i PATH=/usr/bin:/bin "$@" "$CHROOT" "$R" /usr/bin/cudaload --explain "$p" 2>&1)
	has "$h $row: --explain names that file" "$ex" "libcuda:      ${wl#"$R"}"
}
# explain HOST PROGRAM LINE [VAR=VALUE...]: --explain says LINE
explain() {
	h=$1 p=$2 line=$3
	shift 3
	ex=$(env -i PATH=/usr/bin:/bin "$@" "$CHROOT" "$W/$h" /usr/bin/cudaload --explain "$p" 2>&1)
	has "$h: --explain says '$line'" "$ex" "$line"
}

# check_setid ROW PROGRAM WANT [VAR=VALUE...]: run as nobody, set-id root
check_setid() {
	row=$1 p=$2 want=$3
	shift 3
	R=$W/conda-535
	out=$(proc_self "$R" env -i PATH=/usr/bin:/bin "$@" "$CHROOT" --userspec=65534:65534 "$R" "$p" 2>&1)
	wl=$(realpath "$R$want/libcuda.so.1")
	has "conda-535 set-id, $row: libcuda.so.1 from $want" "$out" "libcuda=${wl#"$R"}"
}
# set-id programs: CONDA_PREFIX is the user's word, not taken; the
# program's own environment is, when root owns it and alone can write it
# with a real /proc: a script whose #! line names an environment's python
# (the kernel's AT_EXECFN names the script; /proc/self/exe the python), and
# set-id programs: CONDA_PREFIX is the user's word, not taken; the program's
# own environment is, when root owns it and alone can write it
proc_rows() {
	R=$W/conda-535
	mkdir -p "$R/usr/local/bin"
	printf '#!%s/bin/python3.12\n' $torch >"$R/usr/local/bin/tool"
	chmod 755 "$R/usr/local/bin/tool"
	cp "$R/usr/bin/app" "$R/usr/bin/app-suid"
	cp "$R$torch/bin/python3.12" "$R$torch/bin/python-suid"
	env_for "$R" /opt/conda/envs/user
	cp -a "$R$torch/cuda-compat" "$R/opt/conda/envs/user/"
	cp "$R/opt/conda/envs/user/bin/python3.12" "$R/opt/conda/envs/user/bin/python-suid"
	chown -R 65534:65534 "$R/opt/conda/envs/user/cuda-compat"
	chmod 4755 "$R/usr/bin/app-suid" "$R$torch/bin/python-suid" "$R/opt/conda/envs/user/bin/python-suid"
	PROC=1
	check conda-535 "a script run by torch's python" /usr/local/bin/tool $torch/cuda-compat
	PROC=
	if ! setid_runs; then
		skip "set-id rows" "$chroot_why"
	else
		check_setid "CONDA_PREFIX ignored" /usr/bin/app-suid $sys CONDA_PREFIX=$torch
		check_setid "its own root-owned environment" $torch/bin/python-suid $torch/cuda-compat
		check_setid "its environment's package owned by a user" /opt/conda/envs/user/bin/python-suid $sys
	fi
}

torch=/opt/conda/envs/torch jax=/opt/conda/envs/jax sys=/usr/lib/$triplet
linked=/opt/conda/envs/linked
# ---- conda: the program's own environment, CONDA_PREFIX's, two of them ----
if mkhost conda-535 conda; then
	env_for "$W/conda-535" $torch
	env_for "$W/conda-535" $jax
	linked_env "$W/conda-535" $linked
	# a directory of links people make for LD_LIBRARY_PATH (absolute ones)
	mkdir -p "$W/conda-535/opt/links"
	ln -s $linked/cuda-compat/libcuda.so.1 $linked/cuda-compat/libnvidia-ptxjitcompiler.so.1 \
		"$W/conda-535/opt/links/"
	install_prog "$W/conda-535" app /usr/bin/app
	finish_host "$W/conda-535"
	check conda-535 "torch's python" $torch/bin/python $torch/cuda-compat
	check conda-535 "jax's python" $jax/bin/python $jax/cuda-compat
	check conda-535 "torch's python, CONDA_PREFIX jax's" $torch/bin/python $torch/cuda-compat \
		CONDA_PREFIX=$jax
	check conda-535 "a system program, CONDA_PREFIX torch's" /usr/bin/app $torch/cuda-compat \
		CONDA_PREFIX=$torch
	check conda-535 "a system program, no CONDA_PREFIX" /usr/bin/app $sys
	# one package, one candidate, whatever names reach it: the linked
	# environment's lib/ (its python's RUNPATH, LD_LIBRARY_PATH) is its
	# cuda-compat/, and a directory of links is the package it links to
	check conda-535 "linked lib/: its python" $linked/bin/python $linked/cuda-compat
	candidates conda-535 "linked lib/: its python" $linked/bin/python 1
	candidates conda-535 "linked lib/: its python, LD_LIBRARY_PATH=\$PREFIX/lib" $linked/bin/python 1 \
		LD_LIBRARY_PATH=$linked/lib
	bundle_from=$linked/lib
	check conda-535 "linked lib/: a system program, LD_LIBRARY_PATH=\$PREFIX/lib" /usr/bin/app \
		$linked/cuda-compat LD_LIBRARY_PATH=$linked/lib
	bundle_from=
	candidates conda-535 "linked lib/: a system program, LD_LIBRARY_PATH=\$PREFIX/lib" /usr/bin/app 1 \
		LD_LIBRARY_PATH=$linked/lib
	explain conda-535 /usr/bin/app "candidate:    $linked/cuda-compat" LD_LIBRARY_PATH=$linked/lib
	check conda-535 "a directory of links: a system program" /usr/bin/app $linked/cuda-compat \
		LD_LIBRARY_PATH=/opt/links
	candidates conda-535 "a directory of links and the environment" $linked/bin/python 1 \
		LD_LIBRARY_PATH=/opt/links:$linked/lib
	proc_rows
	# cudaload --status judges each recorded program with what it reaches
	# (its environment's package), and the system driver's own ld.so.cache
	# entry is no rival of a program that keeps it
	mkdir -p "$W/conda-535/var/lib/cudaload"
	printf '/usr/bin/cudaload\t%s\n/usr/bin/cudaload\t/usr/bin/app\n' $torch/bin/python3.12 \
		>"$W/conda-535/var/lib/cudaload/patched"
	out=$(env -i PATH=/usr/bin:/bin "$CHROOT" "$W/conda-535" /usr/bin/cudaload --status 2>&1)
	status "conda-535 --status: exit 0, all held" 0 $? "$out"
	has "conda-535 --status: torch's python held" "$out" "program:      $torch/bin/python3.12: held"
	has "conda-535 --status: with its environment's package" "$out" \
		"              compat $torch/cuda-compat, libcuda $torch/cuda-compat/libcuda.so.570.124.06"
	has "conda-535 --status: a system program held" "$out" "program:      /usr/bin/app: held"
	explain conda-535 $torch/bin/python "              found: the program's conda environment"
	explain conda-535 /usr/bin/app "              found: the conda environment CONDA_PREFIX names" \
		CONDA_PREFIX=$torch
else
	bad "conda-535: build the host"
fi
if mkhost conda-580 conda 's/535\.216\.01/580.95.05/g'; then
	env_for "$W/conda-580" $torch
	linked_env "$W/conda-580" $linked
	finish_host "$W/conda-580"
	check conda-580 "torch's python" $torch/bin/python $sys
	# the recipe users are told to follow, left set after a driver upgrade
	check conda-580 "LD_LIBRARY_PATH=\$PREFIX/cuda-compat" $torch/bin/python $sys \
		LD_LIBRARY_PATH=$torch/cuda-compat
	explain conda-580 $torch/bin/python "              over LD_LIBRARY_PATH's $torch/cuda-compat" \
		LD_LIBRARY_PATH=$torch/cuda-compat
	# the linked environment's package, older than the driver: one
	# candidate, refused as a package, and held against its lib/
	check conda-580 "linked lib/: its python, LD_LIBRARY_PATH=\$PREFIX/lib" $linked/bin/python $sys \
		LD_LIBRARY_PATH=$linked/lib
	candidates conda-580 "linked lib/: its python, LD_LIBRARY_PATH=\$PREFIX/lib" $linked/bin/python 1 \
		LD_LIBRARY_PATH=$linked/lib
	explain conda-580 $linked/bin/python "              over LD_LIBRARY_PATH's $linked/lib" \
		LD_LIBRARY_PATH=$linked/lib
else
	bad "conda-580: build the host"
fi
if mkhost conda-geforce conda 's/H100 80GB HBM3/GeForce RTX 4090/'; then
	env_for "$W/conda-geforce" $torch
	finish_host "$W/conda-geforce"
	check conda-geforce "torch's python" $torch/bin/python $sys
	ex=$(env -i PATH=/usr/bin:/bin "$CHROOT" "$W/conda-geforce" /usr/bin/cudaload --explain $torch/bin/python 2>&1)
	contains "conda-geforce: --explain says 804" "$ex" "804"
else
	bad "conda-geforce: build the host"
fi

# ---- NGC: the real files in compat/lib.real, the entrypoint overridden ----
if mkhost ngc-535 ngc; then
	install_prog "$W/ngc-535" app /usr/bin/app
	finish_host "$W/ngc-535"
	check ngc-535 "entrypoint overridden" /usr/bin/app /usr/local/cuda-12.8/compat/lib.real
else
	bad "ngc-535: build the host"
fi

# ---- Apptainer --nv: the host's driver bound in, the image's compat first ----
if mkhost apptainer-580 apptainer; then
	install_prog "$W/apptainer-580" app /usr/bin/app
	finish_host "$W/apptainer-580"
	a=/usr/local/cuda/compat:/.singularity.d/libs
	check apptainer-580 "LD_LIBRARY_PATH=$a" /usr/bin/app /.singularity.d/libs LD_LIBRARY_PATH=$a
	explain apptainer-580 /usr/bin/app "pin:          /.singularity.d/libs (the system driver's own directory)" \
		LD_LIBRARY_PATH=$a
	ex=$(env -i PATH=/usr/bin:/bin LD_LIBRARY_PATH=$a "$CHROOT" "$W/apptainer-580" /usr/bin/cudaload --explain /usr/bin/app 2>&1)
	lacks "apptainer-580: the bound driver is no rival" "$ex" "over LD_LIBRARY_PATH's /.singularity.d/libs"
else
	bad "apptainer-580: build the host"
fi
# the same layout on 535: the image's 12.8 package is newer, and usable
if mkhost apptainer-535 apptainer 's/580\.95\.05/535.216.01/g'; then
	install_prog "$W/apptainer-535" app /usr/bin/app
	finish_host "$W/apptainer-535"
	check apptainer-535 "LD_LIBRARY_PATH=$a" /usr/bin/app /usr/local/cuda-12.8/compat LD_LIBRARY_PATH=$a
else
	bad "apptainer-535: build the host"
fi

# ---- an HPC toolkit the program reaches through its RUNPATH ----
if mkhost spack-535 spack; then
	mkdir -p "$W/spack-535$spack/lib64"
	: >"$W/spack-535$spack/lib64/libcudart.so"
	install_prog "$W/spack-535" spack-app /opt/app/bin/app
	install_prog "$W/spack-535" app /usr/bin/app
	finish_host "$W/spack-535"
	check spack-535 "RUNPATH to the toolkit's lib64" /opt/app/bin/app $spack/compat
	explain spack-535 /opt/app/bin/app "              found: the toolkit whose libcudart the program reaches"
	check spack-535 "CUDA_HOME (a loaded module)" /usr/bin/app $spack/compat CUDA_HOME=$spack
	check spack-535 "nothing names the toolkit" /usr/bin/app $sys
else
	bad "spack-535: build the host"
fi

# ---- a runtime install of the toolkit: lib64/libcudart.so.12 alone ----
# NVIDIA's packages put libcudart.so.12 in cuda-cudart-12-8 and the
# libcudart.so development link in cuda-cudart-dev-12-8; a runtime install
# (an HPC module built without the -dev parts, a container's runtime image)
# has no link.  The toolkit is the one whose libcudart.so.12 the program
# needs, through its RUNPATH or LD_LIBRARY_PATH.
if mkhost runtime-535 spack; then
	mkdir -p "$W/runtime-535$spack/lib64"
	cp "$L/cudart.so" "$W/runtime-535$spack/lib64/libcudart.so.12"
	install_prog "$W/runtime-535" rt-app /opt/app/bin/app
	install_prog "$W/runtime-535" rt-llp-app /usr/bin/app
	finish_host "$W/runtime-535"
	check runtime-535 "RUNPATH to a runtime install's lib64" /opt/app/bin/app $spack/compat
	explain runtime-535 /opt/app/bin/app "              found: the toolkit whose libcudart the program reaches"
	check runtime-535 "LD_LIBRARY_PATH names a runtime install's lib64" /usr/bin/app $spack/compat \
		LD_LIBRARY_PATH=$spack/lib64
else
	bad "runtime-535: build the host"
fi

# ---- vLLM-style: ld.so.cache names the compat directory ----
for v in "535 " "580 s/535\.216\.01/580.95.05/g" "4090 s/H100 80GB HBM3/GeForce RTX 4090/"; do
	n=${v%% *} e=${v#* }
	if mkhost "vllm-$n" vllm "$e"; then
		install_prog "$W/vllm-$n" app /usr/bin/app
		finish_host "$W/vllm-$n"
		[ "$n" = 535 ] && want=/usr/local/cuda-12.9/compat || want=$sys
		check "vllm-$n" "/etc/ld.so.conf.d/cuda-compat.conf" /usr/bin/app $want
		[ "$n" = 580 ] || continue
		# cudaload without its pin directories (copied by hand, not
		# installed): nothing holds, and --explain names what ld.so.cache
		# gives first, which is what the program gets
		mv "$W/vllm-580/usr/lib/cudaload/pin" "$W/vllm-580/usr/lib/cudaload/pin.away"
		out=$(env -i PATH=/usr/bin:/bin "$CHROOT" "$W/vllm-580" /usr/bin/app 2>&1)
		got=$(printf '%s\n' "$out" | sed -n 's/^libcuda=//p')
		explain vllm-580 /usr/bin/app "libcuda:      ${got:-?}"
		explain vllm-580 /usr/bin/app "pin:          none: no pin directory /usr/bin/../lib/cudaload/pin/usr/lib/$triplet"
		mv "$W/vllm-580/usr/lib/cudaload/pin.away" "$W/vllm-580/usr/lib/cudaload/pin"
	else
		bad "vllm-$n: build the host"
	fi
done
# a package ld.so.cache alone names: judged, and said where it came from
if mkhost cache-535 spack; then
	printf '%s\n' "$spack/compat" >"$W/cache-535/etc/ld.so.conf.d/cuda-compat.conf"
	install_prog "$W/cache-535" app /usr/bin/app
	finish_host "$W/cache-535"
	check cache-535 "ld.so.cache entry" /usr/bin/app $spack/compat
	explain cache-535 /usr/bin/app "              found: ld.so.cache entry from /etc/ld.so.conf.d/cuda-compat.conf"
	sed -i 's/^nvidia_version=.*/nvidia_version=580.95.05/' "$W/cache-535.profile"
	printf '580.95.05\n' >"$W/cache-535/sys/module/nvidia/version"
	for f in "$W/cache-535$sys"/libcuda.so.535* "$W/cache-535$sys"/libnvidia-ptxjitcompiler.so.535*; do
		mv "$f" "$(printf '%s' "$f" | sed 's/535\.216\.01/580.95.05/')"
	done
	ln -sf libcuda.so.580.95.05 "$W/cache-535$sys/libcuda.so.1"
	ln -sf libnvidia-ptxjitcompiler.so.580.95.05 "$W/cache-535$sys/libnvidia-ptxjitcompiler.so.1"
	ldcache "$W/cache-535"
	check cache-535 "ld.so.cache entry, driver upgraded to 580" /usr/bin/app $sys
else
	bad "cache-535: build the host"
fi

# ---- no driver: nothing is looked at, the program runs as without cudaload ----
if mkhost nodriver conda 's/^nvidia_version=.*/nvidia_version=/; s/^gpus=.*/gpus=/'; then
	env_for "$W/nodriver" $torch
	rm -f "$W/nodriver$sys"/libcuda* "$W/nodriver$sys"/libnvidia*
	cp "$L/python-torch" "$W/nodriver$torch/bin/python.orig"
	finish_host "$W/nodriver"
	out=$(env -i PATH=/usr/bin:/bin "$CHROOT" "$W/nodriver" $torch/bin/python 2>&1)
	orig=$(env -i PATH=/usr/bin:/bin "$CHROOT" "$W/nodriver" $torch/bin/python.orig 2>&1)
	status "nodriver: the program sees what it would without cudaload" "$orig" "$out" "$out"
	explain nodriver $torch/bin/python "decision:     system"
else
	bad "nodriver: build the host"
fi
finish
