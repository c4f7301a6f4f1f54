#!/bin/sh
# SPDX-License-Identifier: MIT
# mkpin.sh PINBASE [INSTALLED]: the pin directories cudaload uses to hold the system
# driver against compat directories named elsewhere (common/decision/pin.h): for each
# directory D the NVIDIA driver is installed in, PINBASE/D holds one link per driver file, into D, and nothing else.
# PINBASE is BINDIR/../lib/cudaload/pin of the cudaload they serve.  The
# names are pin_names[] of common/decision/pin.c (tests/e2e/suites/hold.sh checks both agree).
# INSTALLED is where PINBASE will be on the target (default PINBASE): the
# links are relative and as short as can be (Debian policy 10.5).
set -eu
base=$1
installed=$(realpath -m "${2:-$1}")
# The general library dirs, then the driver dirs of common/host/probe.c (a
# driver's own directory may lack a name: JetPack's tegra/ has no libcuda.so).
for d in /usr/lib/x86_64-linux-gnu /usr/lib/aarch64-linux-gnu /usr/lib64 /usr/lib \
	/usr/lib/aarch64-linux-gnu/tegra /usr/lib/aarch64-linux-gnu/nvidia \
	/opt/nvidia/l4t-gpu-libs/nvgpu /opt/nvidia/l4t-gpu-libs/openrm \
	/usr/local/nvidia/lib64 /run/opengl-driver/lib; do
	mkdir -p "$base$d"
	chmod 755 "$base$d"
	for n in libcuda.so.1 libcuda.so libnvidia-ptxjitcompiler.so.1 libnvidia-nvvm.so.4 \
		libcudadebugger.so.1; do
		# libcuda.so is the same driver as libcuda.so.1, whether or not
		# the system has the unversioned link
		t=$n
		[ "$n" != libcuda.so ] || t=libcuda.so.1
		# relative within one top-level directory, absolute across (policy 10.5)
		l=$d/$t
		[ "${installed#/*/}" = "$installed" ] || [ "${installed%%/${installed#/*/}}" != "${d%%/${d#/*/}}" ] ||
			l=$(realpath -m --relative-to="$installed$d" "$d/$t")
		ln -sfn "$l" "$base$d/$n"
	done
done
