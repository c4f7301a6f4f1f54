#!/bin/sh
# SPDX-License-Identifier: MIT
# mkroot.sh PROFILE ROOT LIBDIR: build the device tree a profile describes.
#
# A profile (tests/fixtures/*.profile) is sh variable assignments naming the
# files a real board has; this turns them into real files under ROOT, with
# fake libcuda builds (from LIBDIR, see lib_for) in the real directories.
# The note section is left unallocated: objcopy cannot give it a segment,
# and cudaload reads notes through the section headers anyway.
# Variables: compatible (space-separated), model, soc_family, soc_id,
# release (nv_tegra_release, may span lines), driver_dir, host_cuda,
# nvidia_version (/sys/module/nvidia/version), proc_version
# (/proc/driver/nvidia/version), gpu_node, gpus (one discrete GPU a line:
# "BUS BUSTYPE MODEL...", written as /proc/driver/nvidia/gpus/BUS/information),
# uuids (one GPU a line: "BUS UUID", the information file's GPU UUID; else
# GPU-00000000-0000-0000-0000-000000000000, as every GPU of the profiles
# that do not say),
# gpus_unreadable (one GPU a line: "BUS KIND", its information file a fifo,
# a directory or a dangling link), pci (one GPU a line: "BUS DEVICEID", its
# PCI function in sysfs: vendor 0x10de, that device ID, class 3D controller),
# compat (one package a line: "DIR CUDA KIND NOTE", KIND jetson or a driver
# version, NOTE JSON or -), partial (compat dirs left without their
# companion libraries), links ("LINK TARGET" a line: symlinked dirs),
# cuinit (one a line: "DIR SETTING", a line of the fake libcuda's
# fake-cuinit in DIR, see tests/e2e/helpers/fakecuda.c: "DIR 804" for what cuInit
# answers (a CUresult, crash or hang; 0 when not said), "DIR context 999",
# "DIR module 218 1", "DIR ptx 7.8"; a DIR named twice gets both lines),
# cuda_devices (fake-cuinit lines for every libcuda of the root, the host
# driver's and each package's, written before their own cuinit lines: what
# the GPUs are to every driver, "devices 2", "cc 7.0 1", "busy 1"),
# note_align (4, or 8 for notes padded as in a section aligned to 8),
# note_shape ("TYPE DESCSZ SIZE": a note shaped as NVIDIA shipped one, see
# mknote.c), driver_active
# (/run/nvidia-gpu-driver-active).  A /run directory is made for the
# verdict store.
# Each compat dir ships the companions the real packages carry:
# libnvidia-ptxjitcompiler.so.1 and libnvidia-nvvm.so.4 (data-center ones as
# links to the driver-versioned files).
set -eu
profile=$1 root=$2 libdir=$3

compatible= model= soc_family= soc_id= release= driver_dir= host_cuda=
nvidia_version= proc_version= gpu_node= compat= cuinit= cuda_devices= gpus= gpus_unreadable= partial= links= pci= uuids=
note_align=4 note_shape= driver_active=
# shellcheck disable=SC1090
. "$profile"

rm -rf "$root"
mkdir -p "$root/run"
cache=${FAKECUDA_CACHE:-$libdir}
mkdir -p "$cache"

# Each process costs a fixture about 6 ms on a slow VM: what the shell can
# do itself (a path's directory, a checksum's first word) it does.
nl='
'
put() { # put PATH CONTENT: a file with exactly CONTENT
	mkdir -p "$root${1%/*}"
	printf '%s' "$2" >"$root$1"
}

# devices DIR: what every driver sees of the GPUs, into DIR's fake-cuinit
devices() {
	[ -z "$cuda_devices" ] || printf '%s\n' "$cuda_devices" >>"$root$1/fake-cuinit"
}

if [ -n "$compatible" ]; then
	mkdir -p "$root/proc/device-tree"
	for c in $compatible; do printf '%s\0' "$c"; done >"$root/proc/device-tree/compatible"
	[ -z "$model" ] || printf '%s\0' "$model" >"$root/proc/device-tree/model"
fi
[ -z "$soc_family" ] || put /sys/devices/soc0/family "$soc_family
"
[ -z "$soc_id" ] || put /sys/devices/soc0/soc_id "$soc_id
"
[ -z "$release" ] || put /etc/nv_tegra_release "$release
"
[ -z "$driver_active" ] || put /run/nvidia-gpu-driver-active "$driver_active
"
[ -z "$nvidia_version" ] || put /sys/module/nvidia/version "$nvidia_version
"
[ -z "$proc_version" ] || put /proc/driver/nvidia/version "$proc_version
"
# A device node in a tree is a plain file: the ioctl fails, the probe falls
# back to the device tree (the ioctl itself is unit-tested through the seam).
[ -z "$gpu_node" ] || put "$gpu_node" ""

# lib_for CUDA NOTE: the fake libcuda for that version and note, built once,
# in $lib.  Built into FAKECUDA_CACHE where a run's suites share one
# (lib.sh), else into libdir; each under a temporary name of this process,
# renamed into place, so that suites side by side never see half a file.
lib_for() {
	sum=$(printf '%s %s' "$note_shape" "$2" | cksum)
	cc=${CC:-cc}
	out="$cache/libcuda-${cc##*/}-$1-$note_align-${sum%% *}.so"
	if [ ! -f "$out" ]; then
		t=$out.$$
		$cc -shared -fPIC -o "$t.tmp" -Wl,-soname,libcuda.so.1 \
			-DFAKE_CUDA_VERSION="$1" "$(dirname "$0")/../helpers/fakecuda.c"
		if [ "$2" != - ]; then
			# shellcheck disable=SC2086
			"$libdir/mknote" "NVIDIA Corporation" "$2" "$note_align" $note_shape >"$t.note"
			${OBJCOPY:-objcopy} --add-section .note.cuda.fwd_compatibility="$t.note" \
				--set-section-flags .note.cuda.fwd_compatibility=readonly \
				"$t.tmp" "$t.tmp2"
			# a second pass: objcopy (binutils 2.40) leaves a section it
			# adds aligned to 1, whatever the same call asks
			${OBJCOPY:-objcopy} --set-section-alignment .note.cuda.fwd_compatibility="$note_align" \
				"$t.tmp2" "$t.tmp"
			rm -f "$t.tmp2" "$t.note"
		fi
		mv "$t.tmp" "$out"
	fi
	lib=$out
}

if [ -n "$driver_dir" ]; then
	mkdir -p "$root$driver_dir"
	if [ -n "$host_cuda" ]; then
		lib_for "$host_cuda" -
		cp "$lib" "$root$driver_dir/libcuda.so.1.1"
		ln -sf libcuda.so.1.1 "$root$driver_dir/libcuda.so.1"
		devices "$driver_dir"
	fi
	# what the Jetson compat libcuda needs from the host
	for l in libnvrm_gpu.so libnvrm_mem.so; do : >"$root$driver_dir/$l"; done
fi

printf '%s\n' "$compat" | while read -r dir cuda kind note; do
	[ -n "$dir" ] || continue
	mkdir -p "$root$dir"
	if [ "$kind" = jetson ]; then
		file=libcuda.so.1.1
	else
		file=libcuda.so.$kind
	fi
	lib_for "$cuda" "$note"
	cp "$lib" "$root$dir/$file"
	ln -sf "$file" "$root$dir/libcuda.so.1"
	devices "$dir"
	ln -sf libcuda.so.1 "$root$dir/libcuda.so"
	case " $partial " in *" $dir "*) continue ;; esac
	if [ "$kind" = jetson ]; then
		: >"$root$dir/libnvidia-ptxjitcompiler.so.1"
		: >"$root$dir/libnvidia-nvvm.so.4"
	else
		for l in libnvidia-ptxjitcompiler.so.1 libnvidia-nvvm.so.4; do
			: >"$root$dir/${l%.so.*}.so.$kind"
			ln -sf "${l%.so.*}.so.$kind" "$root$dir/$l"
		done
	fi
done

printf '%s\n' "$gpus" | while read -r bus bustype gmodel; do
	[ -n "$bus" ] || continue
	uuid=
	case "$nl$uuids" in *"$nl$bus "*)
		uuid=$nl$uuids
		uuid=${uuid#*"$nl$bus "}
		uuid=${uuid%%"$nl"*} ;;
	esac
	put "/proc/driver/nvidia/gpus/$bus/information" "Model: 		 $gmodel
IRQ:   		 41
GPU UUID: 	 ${uuid:-GPU-00000000-0000-0000-0000-000000000000}
Video BIOS: 	 00.00.00.00.00
Bus Type: 	 $bustype
DMA Size: 	 52 bits
DMA Mask: 	 0xfffffffffffff
Bus Location: 	 $bus
Device Minor: 	 0
GPU Excluded:	 No
"
done

printf '%s\n' "$gpus_unreadable" | while read -r bus kind; do
	[ -n "$bus" ] || continue
	info=$root/proc/driver/nvidia/gpus/$bus/information
	mkdir -p "${info%/*}"
	case $kind in
	fifo) mkfifo "$info" ;;
	directory) mkdir "$info" ;;
	dangling) ln -s nowhere "$info" ;;
	*) echo "mkroot.sh: gpus_unreadable: unknown kind '$kind'" >&2; exit 1 ;;
	esac
done

printf '%s\n' "$pci" | while read -r bus devid; do
	[ -n "$bus" ] || continue
	put "/sys/bus/pci/devices/$bus/vendor" "0x10de
"
	put "/sys/bus/pci/devices/$bus/device" "$devid
"
	put "/sys/bus/pci/devices/$bus/class" "0x030200
"
done

printf '%s\n' "$links" | while read -r link target; do
	[ -n "$link" ] || continue
	mkdir -p "$root${link%/*}"
	ln -sfn "$target" "$root$link"
done

printf '%s\n' "$cuinit" | while read -r dir setting; do
	[ -n "$dir" ] || continue
	printf '%s\n' "$setting" >>"$root$dir/fake-cuinit"
done
