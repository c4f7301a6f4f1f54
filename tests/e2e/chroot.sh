# SPDX-License-Identifier: MIT
# A real host as a chroot (sourced by hold.sh and reach.sh): set arch,
# triplet, ldso and LDCONFIG first.
#   chroot_libc ROOT   glibc and its loader where the distribution puts them,
#                      /etc/ld.so.conf with the multiarch directories
#   ldcache ROOT       ld.so.cache made by ldconfig for that machine (the
#                      aarch64 one by libc-bin:arm64's, under qemu-user)
#   proc_on ROOT       a real /proc in the chroot, the host's fake driver
#                      files (mkroot.sh's proc/driver) bound over its driver/:
#                      set-id programs run through /proc/self/fd (docs/design.md
#                      §6), and without /proc keep the system driver unpinned
#   proc_off ROOT      take them down again

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

proc_on() {
	mkdir -p "$1.proc" "$1/proc/driver" && rm -rf "$1.proc/driver" && cp -a "$1/proc/driver" "$1.proc/" &&
		mount -t proc proc "$1/proc" 2>/dev/null &&
		{ mount --bind "$1.proc/driver" "$1/proc/driver" || { umount "$1/proc"; false; }; }
}
proc_off() { umount "$1/proc/driver" "$1/proc"; }
