# SPDX-License-Identifier: MIT
# A real host as a chroot (sourced by hold.sh and reach.sh).
#   chroot_arch        for $arch (this machine's, or aarch64 through
#                      qemu-user: foreign.sh) set CL (the cudaload), TCC and
#                      OBJCOPY (its compiler tools), triplet, ldso and
#                      LDCONFIG; 1 with the reason in chroot_why
#   chroot_libc ROOT   glibc and its loader where the distribution puts them,
#                      /etc/ld.so.conf with the multiarch directories
#   ldcache ROOT       ld.so.cache made by ldconfig for that machine (the
#                      aarch64 one by libc-bin:arm64's, under qemu-user)
#   proc_self ROOT COMMAND...
#                      COMMAND (a chroot into ROOT) with a real procfs for
#                      ROOT's /proc/self beside its fixture files, in a mount
#                      namespace of its own: set-id programs are handed to
#                      ld.so as /proc/self/exe (docs/design.md §6), which names
#                      the file the kernel runs
#   setid_runs         0 when a set-id program runs with its privileges here:
#                      this machine's, or qemu-user's binfmt_misc entry with
#                      the C flag; else 1 with the reason in chroot_why

chroot_arch() {
	chroot_why=
	if [ "$arch" = "$(uname -m)" ]; then
		CL=$B/cudaload TCC=${CC:-cc} OBJCOPY=objcopy
	else
		CL=$B/aarch64/cudaload TCC=aarch64-linux-gnu-gcc OBJCOPY=aarch64-linux-gnu-objcopy
		. "$top/tests/e2e/lib/foreign.sh"
		foreign_ready "$arch" "$CL" "$TCC" || { chroot_why=$foreign_why; return 1; }
	fi
	case $arch in
	x86_64) triplet=x86_64-linux-gnu ldso=/lib64/ld-linux-x86-64.so.2 ;;
	aarch64) triplet=aarch64-linux-gnu ldso=/lib/ld-linux-aarch64.so.1 ;;
	*) chroot_why="no chroot recipe for $arch"; return 1 ;;
	esac
	# ldconfig for the chroot's machine: this machine's, or libc-bin's for
	# arm64 (Debian's ldconfig is static; qemu-user runs it through binfmt_misc)
	LDCONFIG=ldconfig
	[ "$arch" != "$(uname -m)" ] || return 0
	D=$B/hold-debs/$arch
	LDCONFIG=$D/x/sbin/ldconfig
	[ ! -x "$LDCONFIG" ] || return 0
	mkdir -p "$D"
	(cd "$D" && apt-get download "libc-bin:arm64" >"$D/apt.log" 2>&1 &&
		dpkg-deb -x libc-bin_*_arm64.deb "$D/x") ||
		{ chroot_why="cannot fetch libc-bin:arm64 ($(tail -n1 "$D/apt.log"))"; return 1; }
}

chroot_libc() {
	cr=$1
	for d in "$(dirname "$ldso")" /lib/$triplet /usr/lib/$triplet /etc/ld.so.conf.d /usr/bin /tmp; do
		mkdir -p "$cr$d"
	done
	if [ "$arch" = "$(uname -m)" ]; then
		libc=/lib/$triplet/libc.so.6 ld=$ldso
	else
		libc=/usr/aarch64-linux-gnu/lib/libc.so.6 ld=/usr/aarch64-linux-gnu/lib/ld-linux-aarch64.so.1
	fi
	cp -L "$libc" "$cr/lib/$triplet/libc.so.6"
	cp -L "$ld" "$cr/lib/$triplet/${ldso##*/}"
	[ -e "$cr$ldso" ] || ln -s "/lib/$triplet/${ldso##*/}" "$cr$ldso"
	printf 'include /etc/ld.so.conf.d/*.conf\n' >"$cr/etc/ld.so.conf"
	printf '/usr/local/lib/%s\n/lib/%s\n/usr/lib/%s\n' "$triplet" "$triplet" "$triplet" \
		>"$cr/etc/ld.so.conf.d/$triplet.conf"
}

ldcache() {
	if [ "$LDCONFIG" = ldconfig ]; then ldconfig -r "$1"; else "$LDCONFIG" -r "$1"; fi
}

proc_self() {
	unshare -m sh -c 'r=$1; shift; mkdir -p "$r/proc/.real" && ln -sfn .real/self "$r/proc/self" &&
		mount -t proc proc "$r/proc/.real" && exec "$@"' sh "$@"
}

setid_runs() {
	[ "$arch" != "$(uname -m)" ] || return 0
	grep -q '^flags:.*C' "/proc/sys/fs/binfmt_misc/qemu-$arch" 2>/dev/null && return 0
	chroot_why="qemu-user's binfmt_misc entry lacks the C flag: no set-id under it"
	return 1
}
