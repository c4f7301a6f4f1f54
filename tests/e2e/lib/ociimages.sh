# SPDX-License-Identifier: MIT
# The container suites' hosts and images (container.sh, runtime.sh), sourced
# after lib.sh and chroot.sh (chroot_arch run) with here, W (the suite's
# work directory, with hosts/ and images/), L (its libs) and tag set.  A
# host is a fixture tree (mkroot.sh) the hook reads through CUDALOAD_ROOT;
# an image is a root with the real glibc loader, the test program
# (cudaprobe.c: which libcuda.so.1 it loaded), a busybox, the system driver
# as a file of the image (what NVIDIA's toolkit would mount: a fake libcuda
# named for the host's kernel module), and a compat package the image names
# as real images do.
# shellcheck shell=sh disable=SC2034
$TCC -O1 -o "$L/cudaprobe" "$here/../helpers/cudaprobe.c" -ldl && cc -O1 -o "$L/mknote" "$here/../helpers/mknote.c" ||
	{ bad "build the test program"; finish; exit; }
# fakelib CUDA OUT: a libcuda.so.1 that says CUDA (version.h encoding)
fakelib() { $TCC -shared -fPIC -O1 -Wl,-soname,libcuda.so.1 -DFAKE_CUDA_VERSION="$1" -o "$2" "$here/../helpers/fakecuda.c"; }

# ---- the hosts: fixture trees, each GPU's Device Minor its line's index ----
host() { # host NAME PROFILE-TEXT
	printf '%s\n' "$2" >"$W/hosts/$1.profile"
	CC=$TCC OBJCOPY=$OBJCOPY sh "$here/../lib/mkroot.sh" "$W/hosts/$1.profile" "$W/hosts/$1" "$L" >/dev/null ||
		{ bad "host $1"; return 1; }
	i=0
	for f in $(cd "$W/hosts/$1" && ls -d proc/driver/nvidia/gpus/*/information 2>/dev/null); do
		sed -i "s/^Device Minor:.*/Device Minor: 	 $i/" "$W/hosts/$1/$f"
		i=$((i + 1))
	done
}
note() { # note CUDA DRIVERS: a compat note of NVIDIA's shape, quoted for a profile
	printf '{\\"format\\":1,\\"CUDA version\\":\\"%s\\",\\"driver\\":[%s],\\"device\\":[1,2,7,8,9,10,11,12,13,14]}' "$1" "$2"
}
h100='gpus="0000:17:00.0 PCIe NVIDIA H100 80GB HBM3"
pci="0000:17:00.0 0x2330"'

# image NAME DRIVER SYSTEM_CUDA PROFILE-TEXT [SETUP [AFTER]]: a root from a
# profile (its compat lines), the system driver libcuda.so.DRIVER (saying
# SYSTEM_CUDA) in /usr/lib/<triplet>, then SETUP run with R set, ldconfig
# for it, AFTER; then image_import NAME (the suite's: podman import by
# default) takes $R, with ENV from $image_env
image_env=
image() {
	R=$W/images/$1
	printf '%s\n' "$4" >"$W/images/$1.profile"
	CC=$TCC OBJCOPY=$OBJCOPY sh "$here/../lib/mkroot.sh" "$W/images/$1.profile" "$R" "$L" >/dev/null ||
		{ bad "image $1"; return 1; }
	rm -rf "$R/run"
	chroot_libc "$R"
	mkdir -p "$R/bin" "$R/run" "$R/proc" "$R/sys" "$R/dev" "$R/etc"
	cp "$L/cudaprobe" "$R/usr/bin/cudaprobe"
	cp "$(command -v busybox)" "$R/bin/busybox"
	for c in sh cat ls; do ln -s busybox "$R/bin/$c"; done
	s=/usr/lib/$triplet
	fakelib "$3" "$R$s/libcuda.so.$2" && ln -s "libcuda.so.$2" "$R$s/libcuda.so.1"
	[ -z "${5:-}" ] || eval "$5"
	ldconfig -r "$R" 2>/dev/null
	[ -z "${6:-}" ] || eval "$6"
	image_import "$1" || { bad "import image $1"; return 1; }
	image_env=
}
image_import() { # podman's localhost/$tag-NAME
	(cd "$R" && tar -c .) | podman import ${image_env:+--change "ENV $image_env"} - "$tag-$1" >/dev/null 2>"$W/import.log"
}
pkg128="compat=\"/usr/local/cuda-12.8/compat 12080 570.124.06 $(note 12.8 535,550,560,565,570)\"
links=\"/usr/local/cuda cuda-12.8\""
pkg131="compat=\"/usr/local/cuda-13.1/compat 13010 590.44.01 $(note 13.1 535,570,580,590)\"
links=\"/usr/local/cuda cuda-13.1\""
vllm='echo /usr/local/cuda/compat >"$R/etc/ld.so.conf.d/cuda-compat.conf"'
