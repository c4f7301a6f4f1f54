#!/bin/sh
# SPDX-License-Identifier: MIT
# Packaging: make install's layout, both Debian packages (contents, lintian),
# the arm64 one installed into a throwaway root and its cudaload run there
# (under qemu-user on other machines), and the amd64 one (this machine's)
# installed for real: cudaload --version, the demo's scenarios with the
# installed binaries, a patched program from another package that an upgrade
# replaces and the apt hook patches again, removal restoring it, purge
# leaving nothing.  The real install needs root and a machine without
# cudaload installed; it removes everything it installed, also on failure.
# Run it under the same lock as the full suite (tests/e2e/suites/secure.sh also
# owns /etc/cudaload.conf while it runs).  Usage: deb.sh BUILD VERSION
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
B=$(cd "${1:-$top/build}" && pwd)
V=${2:-$(sed -n 's/^VERSION *:= *//p' "$top/Makefile")}
CC=${CC:-cc}
. "$here/../lib/lib.sh"
echo "== packaging"
W=$B/deb-test
rm -rf "$W"
mkdir -p "$W"

# ---- make install / uninstall into a staging directory ----
for prefix in /usr /usr/local; do
	D=$W/destdir$prefix
	make -s -C "$top" BUILD="$B" install DESTDIR="$D" PREFIX="$prefix" >/dev/null 2>"$W/install.err"
	conf=$([ $prefix = /usr ] && echo /etc || echo $prefix/etc)/cudaload.conf
	[ -f "$D$conf" ] && ok "PREFIX=$prefix: config in $conf" || bad "PREFIX=$prefix: no $conf" "$(cd "$D" && find . | sort)"
	for f in bin/cudaload bin/cudaload-patch bin/cudaload-runtime share/man/man1/cudaload.1 share/man/man1/cudaload-patch.1 \
		share/man/man5/cudaload.conf.5 share/bash-completion/completions/cudaload share/cudaload/patch-image.sh \
		share/cudaload/schema/status.schema.json \
		libexec/cudaload/cudaload-verify; do
		[ -e "$D$prefix/$f" ] || bad "PREFIX=$prefix: $prefix/$f missing"
	done
	# the README and every page it links to, in the tree's layout
	missing=
	for f in README.md $(cd "$top" && echo docs/*.md); do
		cmp -s "$top/$f" "$D$prefix/share/doc/cudaload/$f" || missing="$missing $f"
	done
	[ -z "$missing" ] && ok "PREFIX=$prefix: the README and docs/ in $prefix/share/doc/cudaload" ||
		bad "PREFIX=$prefix: not in $prefix/share/doc/cudaload:$missing"
	# the container hook's CDI spec and hooks.d entry name this cudaload
	cdi=$([ $prefix = /usr ] && echo /etc || echo $prefix/etc)/cdi/cudaload.json
	for f in "$cdi" "$prefix/share/containers/oci/hooks.d/cudaload.json"; do
		python3 -m json.tool "$D$f" 2>/dev/null | grep -qF "\"path\": \"$prefix/bin/cudaload\"" &&
			ok "PREFIX=$prefix: $f runs $prefix/bin/cudaload --oci-hook" || bad "PREFIX=$prefix: no $f naming $prefix/bin/cudaload"
	done
	unit=$([ $prefix = /usr ] && echo /usr/lib/systemd/system || echo /etc/systemd/system)/cudaload-verify.service
	grep -qx "ExecStart=$prefix/bin/cudaload --verify" "$D$unit" 2>/dev/null &&
		ok "PREFIX=$prefix: $unit runs $prefix/bin/cudaload --verify" || bad "PREFIX=$prefix: no $unit with ExecStart=$prefix/bin/cudaload"
	# the timer that refreshes the textfile and the node's labels, beside it
	sunit=${unit%/*}/cudaload-status.service
	grep -qF "exec $prefix/bin/cudaload --status \$\${CUDALOAD_TEXTFILE_DIR:+--textfile" "$D$sunit" 2>/dev/null &&
		ok "PREFIX=$prefix: $sunit runs $prefix/bin/cudaload --status" || bad "PREFIX=$prefix: no $sunit running $prefix/bin/cudaload"
	[ -f "$D${unit%/*}/cudaload-status.timer" ] && ok "PREFIX=$prefix: cudaload-status.timer beside it" ||
		bad "PREFIX=$prefix: no ${unit%/*}/cudaload-status.timer"
	file -L "$D$prefix/bin/cudaload" | grep -q ', stripped' && ok "PREFIX=$prefix: cudaload stripped" ||
		bad "PREFIX=$prefix: cudaload not stripped" "$(file "$D$prefix/bin/cudaload")"
	echo "# changed" >>"$D$conf"
	out=$(make -s -C "$top" BUILD="$B" uninstall DESTDIR="$D" PREFIX="$prefix" 2>&1)
	left=$(cd "$D" && find . -type f -o -type l)
	status "PREFIX=$prefix: uninstall leaves only the changed config" ".$conf" "$left" "$out"
done
if [ "$(uname -m)" != aarch64 ] && [ -f "$B/aarch64/cudaload" ]; then
	make -s -C "$top" BUILD="$B" install DESTDIR="$W/a64" PREFIX=/usr >/dev/null 2>&1
	readelf -h "$W/a64/usr/lib/cudaload/aarch64/cudaload" 2>/dev/null | grep -q AArch64 &&
		ok "make install ships the aarch64 cudaload for patch-image.sh" || bad "no aarch64 cudaload installed"
	grep -qx 'default_cudaload=/usr/lib/cudaload/aarch64/cudaload' "$W/a64/usr/share/cudaload/patch-image.sh" &&
		ok "... and the installed patch-image.sh uses it" || bad "installed patch-image.sh does not use it"
fi

# ---- the packages ----
native=$(dpkg --print-architecture 2>/dev/null)
if [ -z "$native" ] || ! command -v dpkg-deb >/dev/null; then
	skip "Debian packages" "no dpkg here"
	finish
	exit
fi
arches=$([ "$native" = arm64 ] && echo arm64 || echo "$native arm64")
debs=
for a in $arches; do
	deb=$B/cudaload_${V}_$a.deb
	if [ ! -f "$deb" ]; then
		bad "$deb was not built (make deb)"
		continue
	fi
	debs="$debs $deb"
	list=$(dpkg-deb -c "$deb" | awk '{print $1, $6}' | sed 's|^\(.\)[^ ]* \./|\1 /|')
	for want in "- /usr/bin/cudaload" "- /usr/bin/cudaload-patch" "- /usr/bin/cudaload-runtime" "- /etc/cudaload.conf" \
		"- /etc/apt/apt.conf.d/80cudaload" "- /usr/share/man/man1/cudaload.1.gz" \
		"- /usr/share/man/man1/cudaload-patch.1.gz" "- /usr/share/man/man1/cudaload-runtime.1.gz" \
		"- /usr/share/man/man5/cudaload.conf.5.gz" \
		"- /usr/share/bash-completion/completions/cudaload" "l /usr/share/bash-completion/completions/cudaload-patch" \
		"- /usr/share/doc/cudaload/copyright" "- /usr/share/doc/cudaload/changelog.gz" \
		"- /usr/share/cudaload/patch-image.sh" "d /var/lib/cudaload/" \
		"- /usr/share/cudaload/schema/explain.schema.json" "- /usr/share/cudaload/schema/status.schema.json" \
		"- /usr/share/cudaload/schema/verify.schema.json" \
		"- /usr/libexec/cudaload/cudaload-verify" "- /usr/lib/systemd/system/cudaload-verify.service" \
		"- /usr/lib/systemd/system/cudaload-status.service" "- /usr/lib/systemd/system/cudaload-status.timer" \
		"- /etc/cdi/cudaload.json" "- /usr/share/containers/oci/hooks.d/cudaload.json"; do
		printf '%s\n' "$list" | grep -qxF -- "$want" || bad "$a: no ${want#? }" "$list"
	done
	printf '%s\n' "$list" | grep -q ' /usr/local\| /home\| /tmp\| /root' && bad "$a: paths outside the Debian layout" "$list"
	x=$W/x-$a
	dpkg-deb -x "$deb" "$x"
	m=$([ $a = arm64 ] && echo AArch64 || echo X86-64)
	for f in bin/cudaload bin/cudaload-patch bin/cudaload-runtime libexec/cudaload/cudaload-verify; do
		readelf -h "$x/usr/$f" | grep -q "Machine: *.*$m" || bad "$a: /usr/$f is not for $m"
		file "$x/usr/$f" | grep -q ', stripped' || bad "$a: /usr/$f is not stripped"
	done
	# Debian 11, Ubuntu 20.04 and JetPack 5 are glibc 2.31: nothing shipped
	# may need more (docs/design.md §11).
	for f in bin/cudaload-patch libexec/cudaload/cudaload-verify; do
		need=$(objdump -T "$x/usr/$f" 2>/dev/null | grep -o 'GLIBC_2\.[0-9]*' | sort -t. -k2 -n | tail -1)
		if [ -n "$need" ] && [ "${need#GLIBC_2.}" -le 31 ]; then
			ok "$a: /usr/$f needs $need, runs on glibc 2.31 (JetPack 5) and later"
		else
			bad "$a: /usr/$f needs ${need:-no glibc at all?}, more than glibc 2.31"
		fi
	done
	for f in cudaload cudaload-runtime; do
		file "$x/usr/bin/$f" | grep -q 'static-pie' || bad "$a: $f is not static-pie" "$(file "$x/usr/bin/$f")"
	done
	info=$(dpkg-deb -I "$deb")
	contains "$a: conffiles" "$info" "conffiles"
	depends=$(dpkg-deb -f "$deb" Depends)
	status "$a: Depends names only libc6 and libelf1" "libc6 libelf1" \
		"$(printf '%s\n' "$depends" | tr ',' '\n' | sed 's/^ *//; s/[ (].*//' | sort | tr '\n' ' ' | sed 's/ $//')" "$depends"
	libc=$(printf '%s\n' "$depends" | sed -n 's/.*libc6 (>= 2\.\([0-9]*\)).*/\1/p')
	[ -n "$libc" ] && [ "$libc" -le 31 ] && ok "$a: ... libc6 (>= 2.$libc), which Debian 11's 2.31 satisfies" ||
		bad "$a: Depends asks for more than Debian 11's libc6 2.31" "$depends"
	# the floor docs/install.md and docs/design.md §11 state is the one built
	for doc in docs/install.md docs/design.md; do
		said=$(tr '\n' ' ' <"$top/$doc" | grep -o -e 'libc6 (>= 2\.[0-9]*)' -e 'need 2\.[0-9]* at most' |
			sed 's/.*2\.\([0-9]*\).*/2.\1/' | sort -u | tr '\n' ' ' | sed 's/ $//')
		status "$a: $doc says libc6 (>= 2.$libc), as built" "2.$libc" "$said"
	done
	for c in postinst prerm postrm triggers; do
		printf '%s\n' "$info" | grep -q "^ *[0-9]* bytes, *[0-9]* lines *\*\{0,1\} *$c\b" || bad "$a: no DEBIAN/$c" "$info"
	done
	contains "$a: triggers: compat packages under /usr/local" "$(dpkg-deb -I "$deb" triggers)" "interest-noawait /usr/local"
	status "$a: architecture" "$a" "$(dpkg-deb -f "$deb" Architecture)"
	# the documentation: every page, compressed when over 4 KiB
	missing=
	for f in README.md $(cd "$top" && echo docs/*.md); do
		z=$([ "$(wc -c <"$top/$f")" -gt 4096 ] && echo .gz)
		printf '%s\n' "$list" | grep -qxF -- "- /usr/share/doc/cudaload/$f$z" || missing="$missing $f$z"
	done
	[ -z "$missing" ] && ok "$a: the README and docs/ in /usr/share/doc/cudaload" ||
		bad "$a: not in /usr/share/doc/cudaload:$missing" "$list"
	# what the package says it holds is what it unpacks to: its files and
	# links, and its Installed-Size as dpkg-gencontrol counts it (mkdeb.sh)
	listed=$(printf '%s\n' "$list" | grep -c '^[-l]')
	unpacked=$(find "$x" -type f -o -type l | wc -l)
	said=$(dpkg-deb -f "$deb" Installed-Size)
	counted=$(find "$x" -printf '%y %s\n' | awk '{ n += $1 == "f" ? int(($2 + 1023) / 1024) : 1 } END { print n }')
	[ "$listed" -gt 0 ] && [ "$listed" = "$unpacked" ] && [ "$said" = "$counted" ] &&
		ok "$a: $listed files, $said KiB installed, as unpacked" ||
		bad "$a: the package lists $listed files and says $said KiB; unpacked, $unpacked files and $counted KiB"
done

if command -v lintian >/dev/null 2>&1 && [ -n "$debs" ]; then
	# shellcheck disable=SC2086
	out=$(lintian --fail-on none -L +pedantic $debs 2>&1 | grep -v '^running with root privileges')
	[ -z "$out" ] && ok "lintian (pedantic): clean" || bad "lintian" "$out"
else
	skip "lintian" "not installed (scripts/deps.sh installs it)"
fi

# ---- arm64 into a throwaway root ----
deb=$B/cudaload_${V}_arm64.deb
R=$W/arm64-root
if [ "$(id -u)" -ne 0 ]; then
	skip "arm64 package in a throwaway root" "not root"
elif [ -f "$deb" ]; then
	mkdir -p "$R/var/lib/dpkg/updates" "$R/var/lib/dpkg/info"
	: >"$R/var/lib/dpkg/status"
	# the root has no shell: the maintainer scripts run here, with DPKG_ROOT
	out=$(dpkg --root="$R" --force-architecture --force-depends --force-script-chrootless -i "$deb" 2>&1)
	status "arm64: dpkg --root installs it" 0 $? "$out"
	out=$(dpkg --root="$R" -L cudaload 2>&1)
	contains "arm64: dpkg --root lists its files" "$out" "/usr/bin/cudaload"
	if [ "$native" = arm64 ]; then run=; else run=$(command -v qemu-aarch64-static || command -v qemu-aarch64); fi
	if [ "$native" != arm64 ] && [ -z "$run" ]; then
		skip "arm64: cudaload runs" "no qemu-aarch64 (scripts/deps.sh installs qemu-user-static)"
	else
		out=$($run "$R/usr/bin/cudaload" --version 2>&1 | head -n1)
		status "arm64: its cudaload runs${run:+ under qemu-user}" "cudaload $V" "$out" "$out"
		out=$(CUDALOAD_ROOT=$R $run "$R/usr/bin/cudaload" --explain 2>&1)
		contains "arm64: ... and explains (reading the root's config)" "$out" "config:       $R/etc/cudaload.conf"
		if [ -e /lib/ld-linux-aarch64.so.1 ] && [ -e /usr/lib/aarch64-linux-gnu/libelf.so.1 ]; then
			out=$($run "$R/usr/bin/cudaload-patch" --version 2>&1)
			status "arm64: its cudaload-patch runs" "cudaload-patch $V" "$out" "$out"
		else
			skip "arm64: its cudaload-patch runs" "no arm64 glibc and libelf here"
		fi
	fi
	# Inside that root, as on a Jetson: the static cudaload needs nothing else
	# (binfmt_misc's F flag keeps qemu-user reachable from the chroot).
	if [ "$native" = arm64 ] || grep -q '^flags:.*F' /proc/sys/fs/binfmt_misc/qemu-aarch64 2>/dev/null; then
		out=$(chroot "$R" /usr/bin/cudaload --version 2>&1 | head -n1)
		status "arm64: its cudaload runs chrooted in that root" "cudaload $V" "$out" "$out"
	else
		skip "arm64: cudaload chrooted in that root" "no qemu-aarch64 binfmt_misc entry with the F flag"
	fi
	out=$(dpkg --root="$R" --force-script-chrootless --purge cudaload 2>&1)
	status "arm64: purged from the throwaway root" 0 $? "$out"
	left=$(cd "$R" && find . -path ./var/lib/dpkg -prune -o \( -type f -o -type l \) -print)
	status "arm64: purge leaves nothing" "" "$left"
fi

# ---- amd64 (this machine's) for real ----
deb=$B/cudaload_${V}_$native.deb
T=/opt/cudaload-deb-test
if [ "$(id -u)" -ne 0 ]; then
	skip "installing the package" "not root"
	finish
	exit
fi
# What the package's scripts make outside its files: the unit's enablement
# (deb-systemd-helper's link and state) and the verdict store.
wants=/etc/systemd/system/multi-user.target.wants/cudaload-verify.service
dsh=/var/lib/systemd/deb-systemd-helper-enabled
made="$wants $dsh/cudaload-verify.service.dsh-also $dsh/multi-user.target.wants/cudaload-verify.service
/var/lib/systemd/deb-systemd-helper-masked/cudaload-verify.service /etc/systemd/system/cudaload-verify.service
/run/cudaload /var/lib/cudaload"
already=
for f in /usr/bin/cudaload /etc/cudaload.conf $T $made; do
	[ -e "$f" ] || [ -L "$f" ] && already="$already $f"
done
if dpkg-query -W -f='${Status}' cudaload 2>/dev/null | grep -q installed || [ -n "$already" ]; then
	skip "installing the package" "cudaload or what it makes is already on this machine:${already:- the package}"
	finish
	exit
fi
[ -f "$deb" ] || { bad "no $deb"; finish; exit; }
cleanup() {
	dpkg --purge cudaload cudaload-testapp >/dev/null 2>&1
	# shellcheck disable=SC2086
	rm -rf $T $made
}
trap cleanup EXIT INT TERM

# A package that owns a CUDA-style program, in two versions.
mkapp() { # mkapp VERSION CFLAGS
	s=$W/app-$1
	mkdir -p "$s/DEBIAN" "$s$T"
	$CC $2 -o "$s$T/cudaprobe" "$here/../helpers/cudaprobe.c" -ldl || return 1
	printf 'Package: cudaload-testapp\nVersion: %s\nArchitecture: %s\nMaintainer: test <test@example.org>\nDescription: test program\n test\n' \
		"$1" "$native" >"$s/DEBIAN/control"
	dpkg-deb --root-owner-group --build "$s" "$W/cudaload-testapp_$1.deb" >/dev/null
}
mkapp 1 -O1 && mkapp 2 -O2 || { bad "cannot build the test packages"; finish; exit; }
apt_get() { apt-get -o DPkg::Lock::Timeout=600 -y -q --no-install-recommends "$@"; }

out=$(dpkg -i "$deb" 2>&1)
status "dpkg -i $(basename "$deb")" 0 $? "$out"
out=$(cudaload --version 2>&1 | head -n1)
status "installed cudaload --version" "cudaload $V" "$out"
[ -L $wants ] && ok "cudaload-verify.service enabled at install ($(readlink $wants))" ||
	bad "cudaload-verify.service not enabled: no $wants"
status "/etc/cudaload.conf is a conffile" "/etc/cudaload.conf" \
	"$(dpkg-query -W -f='${Conffiles}' cudaload | awk '$1 == "/etc/cudaload.conf" {print $1}')"
mkdir -p "$W/vroot/run"
out=$(CUDALOAD_ROOT=$W/vroot cudaload --verify 2>&1)
status "installed cudaload --verify finds its helper and runs (on an empty root)" 0 $? "$out"
man -w cudaload.conf >/dev/null 2>&1 && ok "man finds cudaload.conf(5)" || skip "man cudaload.conf" "man -w found nothing"

# The demo with the installed binaries says what the build's binaries say.
mkdir -p "$W/inst"
ln -s /usr/bin/cudaload "$W/inst/cudaload"
ln -s /usr/bin/cudaload-patch "$W/inst/cudaload-patch"
want=$(CUDALOAD_PATCH_RECORD=$W/rec sh "$here/demo.sh" "$B" 2>&1 | grep '^  libcuda\|^  /proc')
got=$(CUDALOAD_PATCH_RECORD=$W/rec sh "$here/demo.sh" "$W/inst" 2>&1 | grep '^  libcuda\|^  /proc' | sed "s|$W/inst|$B|")
[ -n "$want" ] && [ "$want" = "$got" ] && ok "the demo's scenarios with the installed binaries ($(printf '%s\n' "$got" | grep -c libcuda) runs)" ||
	bad "demo with the installed binaries" "$(printf 'build:\n%s\ninstalled:\n%s' "$want" "$got")"

out=$(dpkg -i "$W/cudaload-testapp_1.deb" 2>&1) || bad "dpkg -i cudaload-testapp 1" "$out"
out=$(cudaload-patch $T/cudaprobe 2>&1)
contains "a packaged program patched with the installed cudaload-patch" "$out" "$T/cudaprobe: patched, interpreter /usr/bin/cudaload"
status "... is recorded" "$(printf '/usr/bin/cudaload\t%s' $T/cudaprobe)" "$(cat /var/lib/cudaload/patched 2>&1)"
out=$(CUDALOAD_DEBUG=1 $T/cudaprobe 2>&1)
contains "... and runs through cudaload" "$out" "cudaprobe: as interpreter"

out=$(apt_get install "$W/cudaload-testapp_2.deb" 2>&1)
status "apt-get install of the upgraded package" 0 $? "$out"
status "... replaced the program" 2 "$(dpkg-query -W -f='${Version}' cudaload-testapp)"
out=$(cudaload-patch --check $T/cudaprobe 2>&1)
contains "... and the apt hook patched it again" "$out" "$T/cudaprobe: patched, interpreter /usr/bin/cudaload"
out=$(CUDALOAD_DEBUG=1 $T/cudaprobe 2>&1)
contains "... it runs through cudaload" "$out" "cudaprobe: as interpreter"
cp $T/cudaprobe "$W/upgraded-patched"

out=$(dpkg -r cudaload 2>&1)
status "dpkg -r cudaload" 0 $? "$out"
out=$("$B/cudaload-patch" --check $T/cudaprobe 2>&1)
contains "removal restored the patched program" "$out" "$T/cudaprobe: not patched"
cmp -s $T/cudaprobe "$W/app-2$T/cudaprobe" && ok "... byte for byte" || bad "restored program differs from the package's"
out=$($T/cudaprobe 2>&1) && ok "... and it runs" || bad "restored program does not run" "$out"
[ -e /etc/cudaload.conf ] && ok "dpkg -r keeps the conffile" || bad "dpkg -r removed /etc/cudaload.conf"

out=$(dpkg --purge cudaload 2>&1)
status "dpkg --purge cudaload" 0 $? "$out"
left=
for f in $(dpkg-deb -c "$deb" | awk '$1 !~ /^d/ {print substr($6, 2)}') $made; do
	[ -e "$f" ] || [ -L "$f" ] && left="$left $f"
done
status "purge leaves nothing" "" "$left"
out=$(dpkg --purge cudaload-testapp 2>&1) || bad "purge cudaload-testapp" "$out"
trap - EXIT INT TERM
cleanup
finish
