#!/bin/sh
# SPDX-License-Identifier: MIT
# mkimage.sh OUT ARCH REF CUDALOAD RUNTIME BUSYBOX: the cluster image
# (docs/fleet.md, deploy/kubernetes/) as an OCI image archive at OUT, which
# `podman load -i OUT`, `ctr images import OUT` and `skopeo copy
# oci-archive:OUT ...` take.  No base image and no daemon: one layer made
# here from the static binaries, then oci-layout, index.json and the blobs,
# tarred.  ARCH is the machine (x86_64 or aarch64), REF the image's name
# (localhost/cudaload:VERSION), BUSYBOX a static busybox for that machine
# (the entry script's shell and the few commands it runs).
# The layer holds /opt/cudaload as it is installed on a node (the binaries,
# the default config, the pin directories, the CDI spec and the hooks.d
# file for /opt/cudaload/bin), the entry script /usr/bin/cudaload-node and
# busybox with its applet links; nothing else.
# Reproducible: the same inputs give the same bytes (sorted names, time 0,
# owner 0, fixed modes, gzip -n).
set -eu
[ $# -eq 6 ] || { echo "usage: mkimage.sh OUT ARCH REF CUDALOAD RUNTIME BUSYBOX" >&2; exit 100; }
out=$1 arch=$2 ref=$3 cudaload=$4 runtime=$5 busybox=$6
top=$(cd "$(dirname "$0")/.." && pwd)
umask 022
export LC_ALL=C
case $arch in
x86_64) oci_arch=amd64 elf_machine='x86-64' ;;
aarch64) oci_arch=arm64 elf_machine='aarch64' ;;
*) echo "mkimage.sh: no image for $arch" >&2; exit 1 ;;
esac
for f in "$cudaload" "$runtime" "$busybox"; do
	[ -x "$f" ] || { echo "mkimage.sh: no $f" >&2; exit 1; }
	# the image has no libc and no loader: every program in it is static,
	# and for ARCH
	desc=$(file -bL "$f")
	case $desc in
	*"static"*"$elf_machine"* | *"$elf_machine"*"static"*) ;;
	*) echo "mkimage.sh: $f is not a static $arch program ($desc)" >&2; exit 1 ;;
	esac
done

W=$out.d
rm -rf "$W"
R=$W/rootfs
P=/opt/cudaload
mkdir -p "$R$P/bin" "$R$P/etc" "$R$P/share/cudaload" "$R/bin" "$R/usr/bin" "$W/layout/blobs/sha256"
install -m 755 "$cudaload" "$R$P/bin/cudaload"
install -m 755 "$runtime" "$R$P/bin/cudaload-runtime"
install -m 644 "$top/etc/cudaload.conf" "$R$P/etc/cudaload.conf"
# the pin directories beside the binary, as make install makes them
sh "$top/scripts/mkpin.sh" "$R$P/lib/cudaload/pin" "$P/lib/cudaload/pin"
sed "s|@BINDIR@|$P/bin|" "$top/etc/cudaload-cdi.json" >"$R$P/share/cudaload/cdi.json"
sed "s|@BINDIR@|$P/bin|" "$top/etc/cudaload-oci-hook.json" >"$R$P/share/cudaload/oci-hook.json"
install -m 755 "$top/deploy/image/cudaload-node" "$R/usr/bin/cudaload-node"
install -m 755 "$busybox" "$R/bin/busybox"
# the applets cudaload-node runs, and a few to look around with kubectl exec
for a in sh cat chmod chroot cmp cp cut date dirname find grep head ls mkdir mv readlink rm rmdir sed \
	sha256sum sleep sort stat tr wc; do
	ln -s busybox "$R/bin/$a"
done
# where the node's root, the kernel's file systems and the runtime's files go
mkdir -p "$R/host" "$R/proc" "$R/sys" "$R/dev" "$R/etc" "$R/run" "$R/tmp"
chmod 1777 "$R/tmp"

tarball() { # tarball DIR: DIR's contents on stdout, the same bytes for the same tree
	tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner --format=gnu -C "$1" -c .
}
sha() { sha256sum "$1" | cut -d' ' -f1; }
size() { wc -c <"$1" | tr -d ' '; }
# blob FILE: FILE moved into the layout's blobs, its digest in $digest and size in $bytes
blob() {
	digest=$(sha "$1") bytes=$(size "$1")
	mv "$1" "$W/layout/blobs/sha256/$digest"
}

tarball "$R" >"$W/layer.tar"
diff_id=$(sha "$W/layer.tar")
gzip -9n <"$W/layer.tar" >"$W/layer.tar.gz"
rm "$W/layer.tar"
blob "$W/layer.tar.gz"
layer_digest=$digest layer_size=$bytes

version=${ref##*:}
printf '{"created":"1970-01-01T00:00:00Z","architecture":"%s","os":"linux","config":{"Entrypoint":["/usr/bin/cudaload-node"],"Cmd":["run"],"Env":["PATH=/usr/bin:/bin"],"WorkingDir":"/","Labels":{"org.opencontainers.image.title":"cudaload","org.opencontainers.image.version":"%s"}},"rootfs":{"type":"layers","diff_ids":["sha256:%s"]},"history":[{"created":"1970-01-01T00:00:00Z","created_by":"scripts/mkimage.sh"}]}' \
	"$oci_arch" "$version" "$diff_id" >"$W/config.json"
blob "$W/config.json"
config_digest=$digest config_size=$bytes

printf '{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","config":{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"sha256:%s","size":%s},"layers":[{"mediaType":"application/vnd.oci.image.layer.v1.tar+gzip","digest":"sha256:%s","size":%s}]}' \
	"$config_digest" "$config_size" "$layer_digest" "$layer_size" >"$W/manifest.json"
blob "$W/manifest.json"

# ref.name carries the whole name: podman and containerd both tag the image so
printf '{"schemaVersion":2,"mediaType":"application/vnd.oci.image.index.v1+json","manifests":[{"mediaType":"application/vnd.oci.image.manifest.v1+json","digest":"sha256:%s","size":%s,"platform":{"architecture":"%s","os":"linux"},"annotations":{"io.containerd.image.name":"%s","org.opencontainers.image.ref.name":"%s"}}]}' \
	"$digest" "$bytes" "$oci_arch" "$ref" "$ref" >"$W/layout/index.json"
printf '{"imageLayoutVersion":"1.0.0"}' >"$W/layout/oci-layout"
tarball "$W/layout" >"$out.tmp"
mv "$out.tmp" "$out"
rm -rf "$W"
echo "$out: $ref ($oci_arch), layer $(( layer_size / 1024 )) KiB compressed, archive $(( $(size "$out") / 1024 )) KiB"
