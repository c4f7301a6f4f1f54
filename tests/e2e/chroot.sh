# SPDX-License-Identifier: MIT
# A real host as a chroot (sourced by hold.sh and reach.sh): set arch,
# triplet, ldso and LDCONFIG first.
#   chroot_libc ROOT   glibc and its loader where the distribution puts them,
#                      /etc/ld.so.conf with the multiarch directories
#   ldcache ROOT       ld.so.cache made by ldconfig for that machine (the
#                      aarch64 one by libc-bin:arm64's, under qemu-user)

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
