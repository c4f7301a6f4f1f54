#!/bin/sh
# SPDX-License-Identifier: MIT
# The packages where users install them: Debian 11 (bullseye, glibc 2.31,
# the glibc of Ubuntu 20.04 and so of JetPack 5) and Debian 12 (bookworm),
# arm64 (its programs under qemu-user) and amd64.  Each root is made by
# `mmdebstrap --variant=minbase --include=libelf1` once and kept under
# BUILD/roots, so later runs neither download nor wait (mmdebstrap fetches in
# parallel and unpacks with the host's tools, about half of debootstrap's
# time, an arm64 root's second stage under qemu the most of it);
# every run works in a fresh copy.  In each, chrooted:
#   apt-get install ./cudaload_*.deb (the unit is enabled), the installed
#   binaries: --explain on a fixture device root, a program run through
#   cudaload, --verify on the fixture; cudaload-patch patches, the patched
#   program runs, --restore gives it back byte for byte; an upgrade to a
#   second build with a higher version keeps the program patched and the
#   conffile; the driver-change trigger: a fake compat package and a fake
#   driver package dropping files in watched paths, with and without a GPU
#   device node, with the unit disabled, under a stand-in systemd; purge
#   leaves nothing.  On amd64, the image pipeline a container builder runs:
#   a conda-style environment and a venv with CUDA wheels (stand-ins,
#   tests/e2e/helpers/pyworker.c and torchlib.c), patch-image.sh over the root, then
#   the programs on three host models (550 with a package its note allows,
#   a real H200's 580, a GeForce): the parent and its two workers load the
#   driver the rules say, patched or run as `cudaload PROGRAM`.
# The four roots run side by side.  Needs root, mmdebstrap and the mirror
# (scripts/debmirror.sh) for a root not yet made; a root that cannot be made
# or run is a SKIP with the reason.  DISTRO_ROOTS="bullseye-arm64 ..." picks
# some.  Usage: distro.sh BUILD VERSION
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
B=$(cd "${1:-$top/build}" && pwd)
V=${2:-$(sed -n 's/^VERSION *:= *//p' "$top/Makefile")}
. "$here/../lib/lib.sh"
echo "== the packages in Debian 11 and 12 roots (mmdebstrap)"
if [ "$(id -u)" -ne 0 ]; then
	skip "Debian 11 and 12 roots" "not root (chroot, mmdebstrap)"
	finish
	exit
fi
native=$(dpkg --print-architecture 2>/dev/null)
case $native in
amd64) roots_all="bullseye-arm64 bullseye-amd64 bookworm-arm64 bookworm-amd64" ;;
arm64) roots_all="bullseye-arm64 bookworm-arm64" ;;
*) skip "Debian 11 and 12 roots" "this is not amd64 or arm64"; finish; exit ;;
esac
roots=${DISTRO_ROOTS:-$roots_all}
UP=$V+test1	# the upgrade
R=$B/roots
W=$B/e2e-distro
# a /proc left mounted in a copy (a run killed halfway) goes before the copy
unmount_all() { for w in "$W"/scratch/*; do [ -d "$w/proc" ] && umount "$w/proc" 2>/dev/null; done; }
unmount_all
rm -rf "$W"
trap unmount_all EXIT
trap 'unmount_all; exit 130' INT TERM
mkdir -p "$R" "$W/scratch" "$W/log"

# ---- what goes into the roots, built here ----
triplet() { [ "$1" = arm64 ] && echo aarch64-linux-gnu || echo x86_64-linux-gnu; }
tcc() { [ "$1" = "$native" ] && echo "${CC:-cc}" || echo "$(triplet "$1")-gcc"; }
cc -O1 -o "$W/mknote" "$here/../helpers/mknote.c"
prepare() { # prepare ARCH: W/in-ARCH, the files the flow copies into a root
	a=$1 t=$(triplet "$1") c=$(tcc "$1")
	I=$W/in-$a
	mkdir -p "$I"
	cp "$B/cudaload_${V}_$a.deb" "$I/" || return 1
	sh "$top/scripts/mkdeb.sh" "$B" "$UP" "$a" "$I" >/dev/null || return 1
	# the test program, linked against the 2.31 sysroot: it runs on both
	S=$B/bullseye-$a/sysroot
	$c -O1 -nostdinc -isystem "$($c -print-file-name=include)" -isystem "$S/usr/include/$t" \
		-isystem "$S/usr/include" --sysroot="$S" -B"$S/usr/lib/$t/" -L"$S/usr/lib/$t" \
		-o "$I/probe" "$here/../helpers/cudaprobe.c" -ldl || return 1
	# a fixture device: JetPack 5 Orin with cuda-compat 12.2 for arm64, a
	# data-center GPU whose 12.9 package's note allows its driver for amd64
	if [ "$a" = arm64 ]; then prof=orin-jp5-compat122 dd=/usr/lib/aarch64-linux-gnu/tegra
	else prof=dgpu-note-allows dd=/usr/lib/x86_64-linux-gnu; fi
	mkdir -p "$I/libs"
	cp "$W/mknote" "$I/libs/"
	CC=$c OBJCOPY=$t-objcopy sh "$here/../lib/mkroot.sh" "$top/tests/fixtures/$prof.profile" "$I/fx" "$I/libs" || return 1
	if [ "$a" = amd64 ]; then
		# the pipeline: the interpreter stand-in, its torch and CUDA runtime
		# wheels, and the host models
		sysroot() { $c -O1 -nostdinc -isystem "$($c -print-file-name=include)" -isystem "$S/usr/include/$t" \
			-isystem "$S/usr/include" --sysroot="$S" -B"$S/usr/lib/$t/" -L"$S/usr/lib/$t" "$@"; }
		mkdir -p "$I/wheels/nvidia/cuda_runtime/lib" "$I/wheels/torch/lib"
		sysroot -o "$I/pyworker" "$here/../helpers/pyworker.c" -ldl &&
			sysroot -shared -fPIC -Wl,-soname,libcudart.so.12 \
				-o "$I/wheels/nvidia/cuda_runtime/lib/libcudart.so.12" "$here/../helpers/fakecudart.c" &&
			sysroot -shared -fPIC -I"$here" -o "$I/wheels/torch/lib/libtorch_cuda.so" "$here/../helpers/torchlib.c" \
				"$I/wheels/nvidia/cuda_runtime/lib/libcudart.so.12" -ldl \
				-Wl,--enable-new-dtags,-rpath,'$ORIGIN/../../nvidia/cuda_runtime/lib' || return 1
		for h in dgpu-note-allows dgpu-h200-real dgpu-geforce; do
			CC=$c OBJCOPY=$t-objcopy sh "$here/../lib/mkroot.sh" "$top/tests/fixtures/$h.profile" "$I/hosts/$h" "$I/libs" ||
				return 1
		done
	fi
	rm -rf "$I/libs"
	echo "$dd" >"$I/fx.driver_dir"
	: >"$I/empty.conf"
	# fake driver and compat packages that drop a libcuda into paths the
	# package's trigger watches
	$c -shared -fPIC -Wl,-soname,libcuda.so.1 -DFAKE_CUDA_VERSION=12020 -o "$I/compat.so" "$here/../helpers/fakecuda.c" &&
		$c -shared -fPIC -Wl,-soname,libcuda.so.1 -DFAKE_CUDA_VERSION=11040 -o "$I/drv1.so" "$here/../helpers/fakecuda.c" &&
		$c -shared -fPIC -Wl,-soname,libcuda.so.1 -DFAKE_CUDA_VERSION=11080 -o "$I/drv2.so" "$here/../helpers/fakecuda.c" || return 1
	drvdir=$([ "$a" = arm64 ] && echo /usr/lib/aarch64-linux-gnu/tegra || echo /usr/lib/x86_64-linux-gnu)
	fakepkg "$I" cudaload-test-compat 1 "$a" /usr/local/cuda-12.2/compat/libcuda.so.1 "$I/compat.so" &&
		fakepkg "$I" cudaload-test-driver 1 "$a" "$drvdir/libcuda.so.1" "$I/drv1.so" &&
		fakepkg "$I" cudaload-test-driver 2 "$a" "$drvdir/libcuda.so.1" "$I/drv2.so"
}
fakepkg() { # fakepkg DIR NAME VERSION ARCH PATH FILE
	s=$1/pkg-$2-$3
	mkdir -p "$s/DEBIAN" "$s$(dirname "$5")"
	cp "$6" "$s$5"
	printf 'Package: %s\nVersion: %s\nArchitecture: %s\nMaintainer: test <test@example.org>\nDescription: test package\n test\n' \
		"$2" "$3" "$4" >"$s/DEBIAN/control"
	dpkg-deb --root-owner-group --build "$s" "$1/$2_$3.deb" >/dev/null
}

# ---- the roots ----
mirror=$(sh "$top/scripts/debmirror.sh" 2>&1) || mirror=
arm64_why=
if [ "$native" != arm64 ] && ! grep -q '^flags:.*F' /proc/sys/fs/binfmt_misc/qemu-aarch64 2>/dev/null; then
	. "$here/../lib/foreign.sh"
	binfmt_register aarch64
	grep -q '^flags:.*F' /proc/sys/fs/binfmt_misc/qemu-aarch64 2>/dev/null ||
		arm64_why="no qemu-aarch64 binfmt_misc entry with the F flag (qemu-user-static): ${foreign_why:-}"
fi
# root SUITE-ARCH: the pristine root R/SUITE-ARCH, made once; 1 with the
# reason in R/SUITE-ARCH.why
root() {
	rr=$R/$1
	[ -f "$rr.ok" ] && [ -d "$rr" ] && return 0
	if ! command -v mmdebstrap >/dev/null 2>&1; then
		echo "no mmdebstrap (scripts/deps.sh installs it)" >"$rr.why"
		return 1
	fi
	[ -n "$mirror" ] || { echo "no Debian mirror: $mirror" >"$rr.why"; return 1; }
	rm -rf "$rr" "$rr.new" "$rr.ok"
	start=$(date +%s)
	if ! mmdebstrap --variant=minbase --architectures="${1#*-}" --include=libelf1 \
		"${1%-*}" "$rr.new" "$mirror" >"$rr.log" 2>&1; then
		echo "mmdebstrap failed: $(tail -n1 "$rr.log")" >"$rr.why"
		return 1
	fi
	mv "$rr.new" "$rr"
	echo "$(($(date +%s) - start))" >"$rr.ok"
}

# ---- the image pipeline, in flow's root w ----
pipeline() {
	E=/opt/conda/envs/torch V=/opt/venv P=/srv/plain
	# a conda environment as conda-forge's python lays it out, torch from
	# the wheels in its site-packages; the "system" interpreter, whose venv
	# in /opt holds the same wheels; an environment patch-image.sh never
	# walks, for `cudaload PROGRAM`
	for prefix in $E $V $P; do
		mkdir -p "$w$prefix/bin" "$w$prefix/lib/python3.11/site-packages"
		cp -a "$I/wheels/." "$w$prefix/lib/python3.11/site-packages/"
	done
	mkdir -p "$w$E/conda-meta"
	: >"$w$E/conda-meta/history"
	cp "$I/pyworker" "$w$E/bin/python3.11"
	cp "$I/pyworker" "$w/usr/bin/python3.11"
	cp "$I/pyworker" "$w$P/bin/python3.11"
	ln -s /usr/bin/python3.11 "$w$V/bin/python3.11"
	printf 'home = /usr/bin\ninclude-system-site-packages = false\nversion = 3.11.2\n' >"$w$V/pyvenv.cfg"
	out=$(CUDALOAD_PATCH=$B/cudaload-patch sh "$top/scripts/patch-image.sh" "$w" "$B/cudaload" 2>&1)
	status "$name: patch-image.sh over the root" 0 $? "$out"
	for prog in $E/bin/python3.11 /usr/bin/python3.11; do
		contains "$name: ... patches $prog" "$(chr cudaload-patch --check $prog)" "$prog: patched, interpreter /usr/bin/cudaload"
	done
	contains "$name: ... leaves what it did not walk" "$(chr cudaload-patch --check $P/bin/python3.11)" "not patched"
	for h in dgpu-note-allows dgpu-h200-real dgpu-geforce; do
		(
			expect_dir= driver_dir=
			. "$top/tests/fixtures/$h.profile"
			want=$(realpath "$w$T/hosts/$h${expect_dir:-$driver_dir}/libcuda.so.1")
			want=${want#"$w"}
			for prog in $E/bin/python3.11 $V/bin/python3.11 "cudaload $P/bin/python3.11"; do
				# shellcheck disable=SC2086
				out=$(chr env CUDALOAD_ROOT=$T/hosts/$h CUDALOAD_CONFIG=$T/empty.conf \
					LD_LIBRARY_PATH=$T/hosts/$h$driver_dir $prog)
				n=$(printf '%s\n' "$out" | grep -cx "libcuda=$want")
				status "$name $h ($expect_decision): $prog, the parent and two workers load ${want#"$T/hosts/$h"}" \
					3 "$n" "$out"
			done
			# the user's recipe left in the environment names the package
			# first: where the system driver is chosen, the workers are held
			# against it too (without cudaload all three load the package).
			# On the H200 the driver's directory is its own pin; the links
			# shipped for /usr/lib/<triplet> name the real one, which a
			# fixture root does not stand in for (hold.sh runs them in chroots).
			if [ "$h" = dgpu-h200-real ]; then
				rival=$T/hosts/$h/usr/local/cuda-13.0/compat:$T/hosts/$h$driver_dir
				for run in "" cudaload; do
					out=$(chr env CUDALOAD_ROOT=$T/hosts/$h CUDALOAD_CONFIG=$T/empty.conf \
						LD_LIBRARY_PATH=$rival $run $P/bin/python3.11)
					n=$(printf '%s\n' "$out" | grep -cx "libcuda=$want")
					status "$name $h: LD_LIBRARY_PATH names the package first, ${run:-no cudaload}: system for $([ -n "$run" ] && echo all three || echo none)" \
						"$([ -n "$run" ] && echo 3 || echo 0)" "$n" "$out"
				done
			fi
			echo "$pass $fail $skip" >"$W/log/$name.pipeline"
		)
		read -r pass fail skip <"$W/log/$name.pipeline"
	done
}

# ---- one root's flow (its own counters: run in the background) ----
flow() { # flow SUITE-ARCH
	name=$1 a=${1#*-}
	pass=0 fail=0 skip=0
	if [ "$a" = arm64 ] && [ -n "$arm64_why" ]; then
		skip "$name" "$arm64_why"
		return
	fi
	fresh=
	[ -f "$R/$name.ok" ] && [ -d "$R/$name" ] || fresh=1
	if ! root "$name"; then
		skip "$name" "$(cat "$R/$name.why")"
		return
	fi
	[ -z "$fresh" ] || ok "$name: mmdebstrap --variant=minbase made the root ($(cat "$R/$name.ok") s, kept in $R)"
	w=$W/scratch/$name
	cp -a "$R/$name" "$w"
	mount -t proc proc "$w/proc" || { bad "$name: cannot mount /proc in the root"; return; }
	I=$W/in-$a
	mkdir -p "$w/tmp/t"
	cp -a "$I"/* "$w/tmp/t/"
	chr() { env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LC_ALL=C \
		DEBIAN_FRONTEND=noninteractive chroot "$w" "$@" 2>&1; }
	chr_apt() { chr apt-get -y -q -o Dpkg::Use-Pty=0 --no-install-recommends "$@"; }
	libc=$(chr dpkg-query -W -f='${Version}' libc6)
	T=/tmp/t

	out=$(chr_apt install "$T/cudaload_${V}_$a.deb")
	status "$name (libc6 $libc): apt-get install ./cudaload_${V}_$a.deb" 0 $? "$out"
	status "$name: installed" "install ok installed $V" "$(chr dpkg-query -W -f='${Status} ${Version}' cudaload)"
	wants=/etc/systemd/system/multi-user.target.wants/cudaload-verify.service
	[ -L "$w$wants" ] && ok "$name: cudaload-verify.service enabled at install" ||
		bad "$name: cudaload-verify.service not enabled" "$(ls -la "$w/etc/systemd/system" 2>&1)"
	status "$name: cudaload-patch runs" "cudaload-patch $V" "$(chr cudaload-patch --version)"

	# the demo's steps with the installed binaries, on the fixture device
	dd=$(cat "$I/fx.driver_dir")
	fx() { chr env CUDALOAD_ROOT=$T/fx CUDALOAD_CONFIG=$T/empty.conf LD_LIBRARY_PATH=$T/fx$dd "$@"; }
	if [ "$a" = arm64 ]; then cuda=12.2 cver=12020; else cuda=12.9 cver=12090; fi
	cdir=/usr/local/cuda-$cuda/compat
	out=$(fx cudaload --explain $T/probe)
	has "$name: cudaload --explain on the fixture device: compat" "$out" "decision:     compat"
	contains "$name: ... $cdir" "$out" "reason:       compat CUDA $cuda in $cdir"
	out=$(fx cudaload $T/probe)
	has "$name: a program run through cudaload loads the compat libcuda" "$out" "libcuda=$T/fx$cdir/libcuda.so.1 version=$cver"
	out=$(fx cudaload --verify --timeout 20)
	contains "$name: cudaload --verify (the glibc 2.31 verifier) on the fixture" "$out" "$cdir: cuInit returned 0"

	# patch, run, restore byte for byte
	chr mkdir -p /opt/t >/dev/null
	chr cp $T/probe /opt/t/app >/dev/null
	out=$(chr cudaload-patch /opt/t/app)
	contains "$name: cudaload-patch /opt/t/app" "$out" "/opt/t/app: patched, interpreter /usr/bin/cudaload"
	status "$name: ... recorded" "$(printf '/usr/bin/cudaload\t/opt/t/app')" "$(cat "$w/var/lib/cudaload/patched" 2>&1)"
	out=$(fx env CUDALOAD_DEBUG=1 /opt/t/app)
	contains "$name: the patched program runs through cudaload" "$out" "app: as interpreter"
	has "$name: ... with the compat libcuda" "$out" "libcuda=$T/fx$cdir/libcuda.so.1 version=$cver"
	out=$(chr cudaload-patch --restore /opt/t/app)
	cmp -s "$w/opt/t/app" "$I/probe" && ok "$name: --restore gives it back byte for byte" ||
		bad "$name: restored program differs" "$out"
	chr cudaload-patch /opt/t/app >/dev/null

	if [ "$a" = amd64 ]; then pipeline; else
		skip "$name: the image pipeline" "its host models are data-center (x86_64) ones"; fi

	# the upgrade
	echo "# changed here" >>"$w/etc/cudaload.conf"
	out=$(chr_apt install "$T/cudaload_${UP}_$a.deb")
	status "$name: apt-get install of a second build, $UP" 0 $? "$out"
	status "$name: ... upgraded" "$UP" "$(chr dpkg-query -W -f='${Version}' cudaload)"
	contains "$name: ... the program stays patched" "$(chr cudaload-patch --check /opt/t/app)" "/opt/t/app: patched, interpreter /usr/bin/cudaload"
	has "$name: ... and runs" "$(fx /opt/t/app)" "libcuda=$T/fx$cdir/libcuda.so.1 version=$cver"
	[ "$(tail -n1 "$w/etc/cudaload.conf")" = "# changed here" ] && ok "$name: ... the changed conffile is kept" ||
		bad "$name: the upgrade replaced the changed /etc/cudaload.conf"
	[ -L "$w$wants" ] && ok "$name: ... the unit stays enabled" || bad "$name: the upgrade disabled the unit"

	# the driver-change trigger
	store=$w/run/cudaload/verdicts
	# what fires for the driver package: JetPack 5's directory, the
	# data-center driver's soname link
	trig=$([ "$a" = arm64 ] && echo /usr/lib/aarch64-linux-gnu/tegra || echo /usr/lib/x86_64-linux-gnu/libcuda.so.1)
	out=$(chr dpkg -i $T/cudaload-test-compat_1.deb)
	contains "$name: trigger, compat package, no GPU: says so" "$out" "cudaload: /usr/local changed; no NVIDIA GPU here: nothing to verify"
	[ ! -e "$store" ] && ok "$name: ... and verifies nothing" || bad "$name: a store without a GPU" "$(cat "$store")"
	: >"$w/dev/nvidia0"	# a GPU's device node, as the unit's condition sees it
	out=$(chr_apt install $T/cudaload-test-driver_1.deb)
	contains "$name: trigger, driver package, a GPU: runs cudaload --verify" "$out" \
		"cudaload: $trig changed: refreshing the verdicts (cudaload --verify)"
	contains "$name: ... which judges the new compat package" "$out" "/usr/local/cuda-12.2/compat: cuInit returned 0"
	contains "$name: ... and stores the verdicts" "$out" "verdicts stored in /run/cudaload/verdicts"
	grep -q ' /usr/local/cuda-12.2/compat$' "$store" 2>/dev/null && ok "$name: ... the store has a verdict for it" ||
		bad "$name: no verdict for the compat package" "$(cat "$store" 2>&1)"
	printf '%s\n' "$out" | grep '^cudaload: \|^verdicts\|^host\|^system\|^/usr' >"$W/log/$name.trigger"
	out=$(chr dpkg -i $T/cudaload-test-driver_2.deb)
	contains "$name: trigger, driver upgrade: verifies again" "$out" "cudaload: $trig changed: refreshing the verdicts (cudaload --verify)"
	out=$(chr dpkg -r cudaload-test-compat)
	contains "$name: trigger, compat package removed: verifies again" "$out" "cudaload: /usr/local changed: refreshing the verdicts"
	grep -q 'cuda-12.2' "$store" 2>/dev/null && bad "$name: the removed package keeps its verdict" "$(cat "$store")" ||
		ok "$name: ... and its verdict is gone"
	# disabled as systemctl disable does it: the link goes
	target=$(readlink "$w$wants")
	rm "$w$wants"
	before=$(cat "$store" 2>&1)
	out=$(chr dpkg -i $T/cudaload-test-compat_1.deb)
	contains "$name: trigger, unit disabled: says so" "$out" "cudaload: /usr/local changed; verification is not enabled"
	status "$name: ... and leaves the store alone" "$before" "$(cat "$store" 2>&1)"
	ln -s "$target" "$w$wants"
	# under systemd the trigger restarts the unit (deb-systemd-invoke):
	# a stand-in systemctl that records what it is asked
	mkdir -p "$w/run/systemd/system" "$w/usr/local/sbin"
	printf '#!/bin/sh\necho "$*" >>/tmp/t/systemctl.log\ncase "$*" in *is-enabled*) echo enabled ;; esac\nexit 0\n' \
		>"$w/usr/local/sbin/systemctl"
	chmod 755 "$w/usr/local/sbin/systemctl"
	out=$(chr dpkg -r cudaload-test-compat)
	contains "$name: trigger under systemd: says so" "$out" "cudaload: /usr/local changed: refreshing the verdicts (cudaload-verify.service"
	contains "$name: ... and restarts the unit" "$(cat "$w/tmp/t/systemctl.log" 2>&1)" "restart cudaload-verify.service"
	rm -rf "$w/run/systemd" "$w/usr/local/sbin/systemctl" "$w/dev/nvidia0"

	# purge
	out=$(chr dpkg --purge cudaload-test-driver cudaload-test-compat)
	out=$(chr dpkg --purge cudaload)
	status "$name: dpkg --purge cudaload" 0 $? "$out"
	cmp -s "$w/opt/t/app" "$I/probe" && ok "$name: ... restored the patched program byte for byte" ||
		bad "$name: purge left the program patched" "$(ls -la "$w/opt/t")"
	left=
	for f in $(dpkg-deb -c "$I/cudaload_${UP}_$a.deb" | awk '$1 !~ /^d/ {print substr($6, 2)}') \
		/var/lib/cudaload /run/cudaload $wants /etc/systemd/system/cudaload-verify.service \
		/var/lib/systemd/deb-systemd-helper-enabled/cudaload-verify.service.dsh-also \
		/var/lib/systemd/deb-systemd-helper-enabled/multi-user.target.wants/cudaload-verify.service \
		/var/lib/systemd/deb-systemd-helper-masked/cudaload-verify.service; do
		[ -e "$w$f" ] || [ -L "$w$f" ] && left="$left $f"
	done
	status "$name: purge leaves nothing" "" "$left"
	status "$name: ... and dpkg knows nothing of it" "" "$(chr dpkg-query -W -f='${Status}' cudaload 2>/dev/null | grep installed)"
	umount "$w/proc"
	rm -rf "$w"
}

start=$(date +%s)
arches=
for r in $roots; do
	case " $arches " in *" ${r#*-} "*) ;; *) arches="$arches ${r#*-}" ;; esac
done
for a in $arches; do
	prepare "$a" >"$W/log/prepare-$a" 2>&1 || { bad "cannot build what goes into the $a roots" "$(cat "$W/log/prepare-$a")"; }
done
for r in $roots; do
	(
		flow "$r"
		echo "$pass $fail $skip" >"$W/log/$r.count"
	) >"$W/log/$r" 2>&1 &
done
wait
for r in $roots; do
	cat "$W/log/$r"
	if read -r p f s <"$W/log/$r.count" 2>/dev/null; then
		pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
	else
		bad "$r: the flow stopped early"
	fi
	[ ! -s "$W/log/$r.trigger" ] || { echo "     what the trigger did in $r (dpkg output):"; sed 's/^/     | /' "$W/log/$r.trigger"; }
done
echo "($(($(date +%s) - start)) s for $roots)"
finish
