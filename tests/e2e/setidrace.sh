#!/bin/sh
# SPDX-License-Identifier: MIT
# The set-id hand-over under attack: an unprivileged user starts a set-id
# root program patched with cudaload and swaps their own program in under the
# name it was started by (tests/e2e/setidrace.c), holding the set-id file
# across an upgrade, or through a hard link when fs.protected_hardlinks=0.
# The kernel checked the set-id file; ld.so must run that file and no other,
# so the user's program never runs with euid 0.  Bounded tries per case
# (RACE_TRIES, default 400), in exec and chain mode, with
# fs.protected_hardlinks 1 and 0.  Needs root; restores what it changes.
# Usage: setidrace.sh BUILD
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
B=$(cd "${1:-$top/build}" && pwd)
CC=${CC:-cc}
TRIES=${RACE_TRIES:-400}
. "$here/lib.sh"
echo "== end-to-end, the set-id hand-over under a renaming attacker"

T=/opt/cudaload-race
U=cudaload-race
CONF=/etc/cudaload.conf
if [ "$(id -u)" -ne 0 ]; then
	skip "set-id race" "not root"
	finish
	exit
fi
if [ -e "$CONF" ] || [ -e "$T" ]; then
	skip "set-id race" "$CONF or $T exists already; not touching them"
	finish
	exit
fi
hardlinks=$(sysctl -n fs.protected_hardlinks 2>/dev/null || echo)
cleanup() {
	[ -z "$hardlinks" ] || sysctl -qw fs.protected_hardlinks="$hardlinks" 2>/dev/null
	rm -rf "$T" "$CONF"
	userdel "$U" 2>/dev/null
}
trap cleanup EXIT INT TERM
id "$U" >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin "$U" ||
	{ skip "set-id race" "cannot create user $U"; finish; exit; }

mkdir -p "$T/bin" "$T/u"
chmod 755 "$T" "$T/bin"
cp "$B/cudaload" "$T/bin/cudaload"
$CC -O1 -o "$T/bin/probe" "$here/cudaprobe.c" -ldl
"$B/cudaload-patch" --interp "$T/bin/cudaload" "$T/bin/probe" >/dev/null
cp "$T/bin/probe" "$T/bin/probe-suid"
chmod 4755 "$T/bin/probe-suid"
$CC -O1 -o "$T/bin/plain-suid" "$here/cudaprobe.c" -ldl
chmod 4755 "$T/bin/plain-suid"
$CC -O1 -o "$T/bin/setidrace" "$here/setidrace.c"
printf '#include <stdio.h>\n#include <unistd.h>\nint main(void){printf("evil euid=%%d\\n",(int)geteuid());return 0;}\n' |
	$CC -O1 -x c -o "$T/u/evil" -
chown -R "$U" "$T/u"

as_user() {
	setpriv --reuid="$U" --regid="$U" --clear-groups env -i PATH=/usr/bin:/bin "$@" 2>&1
}
if ! as_user "$T/bin/plain-suid" | grep -qx 'euid=0'; then
	skip "set-id race" "the setuid bit does not take effect under $T (nosuid mount?)"
	finish
	exit
fi
out=$(as_user "$T/bin/probe-suid")
has "the patched set-id program runs as root" "$out" "euid=0"

# race MODE HOW SETTING: one case; the set-id file is fresh for each
race() {
	name="$1 mode, $2, fs.protected_hardlinks=$3"
	rm -rf "$T/u/w"
	mkdir "$T/u/w"
	chown "$U" "$T/u/w"
	cp -p "$T/bin/probe" "$T/bin/probe-suid.new"
	chmod 4755 "$T/bin/probe-suid.new"
	mv "$T/bin/probe-suid.new" "$T/bin/probe-suid"
	as_user "$T/bin/setidrace" "$2" "$T/bin/probe-suid" "$T/u/evil" "$T/u/w" "$TRIES" >"$T/out" &
	pid=$!
	if [ "$2" = held ]; then
		# the upgrade, once the user holds the old file
		i=0
		while [ ! -e "$T/u/w/ready" ] && [ $i -lt 500 ]; do sleep 0.01; i=$((i + 1)); done
		cp -p "$T/bin/probe" "$T/bin/probe-suid.new"
		chmod 4755 "$T/bin/probe-suid.new"
		mv "$T/bin/probe-suid.new" "$T/bin/probe-suid"
	fi
	wait $pid
	st=$?
	out=$(cat "$T/out")
	if [ $st -ne 0 ]; then
		bad "$name: the attack could not be run" "$out"
	elif printf '%s\n' "$out" | grep -qx "tries $TRIES won 0 setid 0"; then
		bad "$name: the set-id program never ran: the race proves nothing" "$out"
	elif printf '%s\n' "$out" | grep -q "^tries $TRIES won 0 setid"; then
		ok "$name: $TRIES tries, the user's program never ran as root ($(echo "$out" | sed 's/.* setid //') ran the set-id program)"
	else
		bad "$name: the user's program ran as root" "$out"
	fi
}

for mode in exec chain; do
	printf 'mode = %s\n' "$mode" >"$CONF"
	chmod 644 "$CONF"
	for setting in 1 0; do
		if ! sysctl -qw fs.protected_hardlinks=$setting 2>/dev/null; then
			skip "$mode mode, fs.protected_hardlinks=$setting" "cannot set the sysctl here"
			continue
		fi
		race "$mode" held "$setting"
		[ "$setting" = 1 ] || race "$mode" hardlink "$setting"
	done
done
finish
