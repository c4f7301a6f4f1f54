#!/bin/sh
# SPDX-License-Identifier: MIT
# mkdeb.sh BUILD VERSION ARCH [OUTDIR]: build OUTDIR/cudaload_VERSION_ARCH.deb
# (ARCH amd64 or arm64; OUTDIR defaults to BUILD) from a tree staged by
# `make install PREFIX=/usr`, with dpkg-deb: the same layout as make install,
# plus what Debian wants (gzipped man pages and docs, copyright, changelog,
# md5sums, maintainer scripts, triggers, conffiles).  cudaload-patch and
# cudaload-verify are the glibc 2.31 builds of BUILD/glibc231/ARCH
# (docs/design.md §11).  The arm64 package is cross-built on other machines.
# Reproducible: the same tree gives the same bytes (SOURCE_DATE_EPOCH, by
# default the changelog's date, for every time stamp; fixed modes; sorted
# lists; no build paths).  Needs dpkg-dev (dpkg-shlibdeps computes the
# libraries the binaries depend on).
set -eu
[ $# -eq 3 ] || [ $# -eq 4 ] || { echo "usage: mkdeb.sh BUILD VERSION ARCH [OUTDIR]" >&2; exit 100; }
top=$(cd "$(dirname "$0")/.." && pwd)
B=$(cd "$1" && pwd)
version=$2
arch=$3
out=$(cd "${4:-$B}" && pwd)/cudaload_${version}_$arch.deb
umask 022
export LC_ALL=C
if [ -z "${SOURCE_DATE_EPOCH:-}" ]; then
	# the trailer line: " -- MAINTAINER  DATE"
	when=$(sed -n 's/^ -- .*  \([A-Z][a-z][a-z], .*\)$/\1/p' "$top/packaging/changelog" | head -n1)
	SOURCE_DATE_EPOCH=$(date -d "${when:?no date in packaging/changelog}" +%s)
fi
export SOURCE_DATE_EPOCH
make=${MAKE:-make}
maintainer=${DEB_MAINTAINER:-cudaload developers <cudaload@users.noreply.github.com>}
native=$(dpkg --print-architecture)

G=$B/glibc231/$arch
case $arch in
"$native")
	vars="INSTALL_CUDALOAD=$B/cudaload INSTALL_PATCH=$G/cudaload-patch INSTALL_VERIFY=$G/cudaload-verify
INSTALL_RUNTIME=$B/cudaload-runtime" ;;
arm64)
	# the aarch64 binaries built beside the host ones; no second copy of
	# the Jetson cudaload, it is the main one here
	vars="INSTALL_CUDALOAD=$B/aarch64/cudaload INSTALL_PATCH=$G/cudaload-patch
INSTALL_VERIFY=$G/cudaload-verify INSTALL_RUNTIME=$B/aarch64/cudaload-runtime INSTALL_A64=
STRIP=aarch64-linux-gnu-strip" ;;
*)
	echo "mkdeb.sh: cannot build for $arch on $native" >&2; exit 1 ;;
esac
for f in "$G/cudaload-patch" "$G/cudaload-verify"; do
	[ -x "$f" ] || { echo "mkdeb.sh: no $f (make $f)" >&2; exit 1; }
done

W=$B/deb/$arch
R=$W/root
rm -rf "$W"
mkdir -p "$R/DEBIAN"
# shellcheck disable=SC2086
$make -s -C "$top" BUILD="$B" install DESTDIR="$R" PREFIX=/usr APT_HOOK=1 $vars >/dev/null

doc=$R/usr/share/doc/cudaload
# the record of patched programs lives here (cudaload-patch(1))
install -d "$doc" "$R/usr/share/lintian/overrides" "$R/var/lib/cudaload"
install -m 644 "$top/packaging/copyright" "$doc/copyright"
sed "s|@MAINTAINER@|$maintainer|" "$top/packaging/changelog" | gzip -9n >"$doc/changelog.gz"
# make install put the README and docs/ there; every file over 4 KiB but
# the copyright is compressed, as dh_compress does
find "$doc" -type f -size +4k ! -name copyright ! -name '*.gz' -exec gzip -9n {} +
gzip -9n "$R"/usr/share/man/man*/*
{
	cat "$top/packaging/lintian-overrides"
	[ ! -e "$R/usr/lib/cudaload/aarch64/cudaload" ] || cat <<-'EOT'
	# The Jetson cudaload that patch-image.sh installs into aarch64 root file
	# systems (it is data for this machine, run only on the Jetson).
	cudaload: binary-from-other-architecture [usr/lib/cudaload/aarch64/cudaload]
	cudaload: shared-library-lacks-prerequisites [usr/lib/cudaload/aarch64/cudaload]
	EOT
} >"$R/usr/share/lintian/overrides/cudaload"
chmod 644 "$R/usr/share/lintian/overrides/cudaload"

# Libraries of cudaload-patch and cudaload-verify (libc, libelf), as Debian
# computes them.
mkdir -p "$W/shlibs/debian"
printf 'Source: cudaload\n\nPackage: cudaload\nArchitecture: any\n' >"$W/shlibs/debian/control"
depends=$(cd "$W/shlibs" && DEB_HOST_ARCH=$arch dpkg-shlibdeps -O "$R/usr/bin/cudaload-patch" \
	"$R/usr/libexec/cudaload/cudaload-verify" 2>/dev/null |
	sed -n 's/^shlibs:Depends=//p')
[ -n "$depends" ] || { echo "mkdeb.sh: dpkg-shlibdeps found no dependencies for $arch" >&2; exit 1; }

# Installed-Size as dpkg-gencontrol counts it (each file's size in KiB,
# rounded up, 1 for anything else), not du's blocks of this file system.
size=$(find "$R" -path "$R/DEBIAN" -prune -o -printf '%y %s\n' |
	awk '{ n += $1 == "f" ? int(($2 + 1023) / 1024) : 1 } END { print n }')
sed -e "s|@VERSION@|$version|" -e "s|@ARCH@|$arch|" -e "s|@SIZE@|$size|" \
	-e "s|@DEPENDS@|$depends|" -e "s|@MAINTAINER@|$maintainer|" \
	"$top/packaging/control" >"$R/DEBIAN/control"
printf '/etc/cudaload.conf\n/etc/apt/apt.conf.d/80cudaload\n/etc/cdi/cudaload.json\n' >"$R/DEBIAN/conffiles"
install -m 755 "$top/packaging/postinst" "$top/packaging/prerm" "$top/packaging/postrm" "$R/DEBIAN/"
install -m 644 "$top/packaging/triggers.$arch" "$R/DEBIAN/triggers"
(cd "$R" && find . -type f ! -path './DEBIAN/*' ! -path './etc/*' | sed 's|^\./||' | sort |
	xargs md5sum) >"$R/DEBIAN/md5sums"
chmod 644 "$R/DEBIAN/control" "$R/DEBIAN/conffiles" "$R/DEBIAN/md5sums"

# Every time stamp is SOURCE_DATE_EPOCH (dpkg-deb only lowers newer ones
# to it, and uses it for the ar members); dpkg-deb sorts the members.
find "$R" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
dpkg-deb --root-owner-group -Zxz --build "$R" "$out" >/dev/null
echo "$out"
