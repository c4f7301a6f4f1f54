#!/bin/sh
# SPDX-License-Identifier: MIT
# What a set-id program's children inherit (run by secure.sh, as root, for
# each machine).  setidexec.c, set-id root and patched, runs the user's
# command as the user, as su does; root then replaces the program (mv new
# prog, as dpkg does), and the command tries to run every descriptor it
# inherited (execveat): none may name the old program, which would run with
# its privilege.  Against the same program unpatched, and a control that shows
# the attempt works here: a descriptor of the old file that the user opened
# themselves runs it set-id.  Setuid root and setgid root.
# Usage: setidchildren.sh BUILD ARCH CC CUDALOAD DIR USER CLOSEFDS [QEMU_FLAGS]
# DIR is made and removed; CLOSEFDS runs a program with no descriptor beyond
# 0-2.  With QEMU_FLAGS (run by secure.sh in a user and mount namespace of its
# own) binfmt_misc is mounted afresh, ARCH's qemu-user entry registered with
# those flags.  Prints the results and "N passed, N failed, N skipped".
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
B=$1 ca=$2 ccc=$3 ccl=$4 d=$5 U=$6 closefds=$7 qflags=${8:-}
. "$here/lib.sh"

if [ -n "$qflags" ]; then
	bm=/proc/sys/fs/binfmt_misc
	conf=/usr/lib/binfmt.d/qemu-$ca.conf
	if ! mount -t binfmt_misc binfmt_misc "$bm" 2>/dev/null; then
		skip "$ca: children" "no binfmt_misc of its own in a user namespace (Linux 6.7 and later)"
		finish
		exit
	fi
	# the entry as the distribution writes it, its flags (the last field) replaced
	sed -n '/^:/{s/:[A-Z]*$/:'"$qflags"'/;p;q}' "$conf" >"$bm/register" 2>/dev/null ||
		{ skip "$ca: children" "the kernel refused a qemu-$ca entry with flags $qflags"; finish; exit; }
fi

as_user() {
	setpriv --reuid="$U" --regid="$U" --clear-groups env -i PATH=/usr/bin:/bin "$@" 2>&1
}
mkdir -p "$d/w"
chown "$U" "$d/w"
cp "$ccl" "$d/cudaload"
for v in old new; do
	if ! "$ccc" -O1 -DSETIDEXEC_VERSION="\"$v\"" -o "$d/$v-plain" "$here/../helpers/setidexec.c" 2>"$d/err"; then
		skip "$ca: children" "$ccc cannot build: $(head -n1 "$d/err")"
		rm -rf "$d"
		finish
		exit
	fi
	cp "$d/$v-plain" "$d/$v-patched"
	"$B/cudaload-patch" --interp "$d/cudaload" "$d/$v-patched" >/dev/null
done
cp "$d/new-plain" "$d/try"
chmod -R a+rX "$d"
uid=$(id -u "$U") gid=$(id -g "$U")

# upgrade AS [PREFIX...]: the user runs $d/prog, the old AS build (plain or
# patched) set-id, which runs the user's command; once that has started,
# root replaces $d/prog with the new one
upgrade() {
	as=$1
	shift
	rm -f "$d/w/started" "$d/w/replaced"
	cp "$d/old-$as" "$d/prog.new" && chmod "$mode" "$d/prog.new" && mv "$d/prog.new" "$d/prog"
	as_user "$closefds" "$@" "$d/prog" run "$d/try" try "$d/w" >"$d/out" &
	pid=$!
	i=0
	while [ ! -e "$d/w/started" ] && [ $i -lt 1000 ]; do sleep 0.01; i=$((i + 1)); done
	cp "$d/new-$as" "$d/prog.new" && chmod "$mode" "$d/prog.new" && mv "$d/prog.new" "$d/prog"
	touch "$d/w/replaced"
	wait $pid
	out=$(cat "$d/out")
}

for kind in setuid setgid; do
	case $kind in
	setuid) mode=4755 ids="euid=0 egid=$gid" ;;
	setgid) mode=2755 ids="euid=$uid egid=0" ;;
	esac
	upgrade plain
	if ! printf '%s\n' "$out" | grep -qx "old run $ids"; then
		if [ "$ca" = "$(uname -m)" ]; then
			bad "$ca $kind: the control, unpatched, runs $kind" "$out"
		else
			flags=$(sed -n 's/^flags: //p' "/proc/sys/fs/binfmt_misc/qemu-$ca" 2>/dev/null)
			skip "$ca $kind: children" "qemu-user cannot honour set-id here: binfmt_misc's qemu-$ca entry (flags '$flags', no C) starts qemu with its own credentials, not the program's ($(printf '%s\n' "$out" | head -n1))"
		fi
		continue
	fi
	plain_fds=$(printf '%s\n' "$out" | grep '^fds=')
	ok "$ca $kind: the control, unpatched, runs $kind"
	has "$ca $kind: ... its command as the user" "$out" "try euid=$uid egid=$gid"
	# the attempt can succeed here: a descriptor of the old file that the
	# user opened before the upgrade runs it with its privilege
	upgrade plain /bin/sh -c 'exec 9<"$0" && exec "$0" "$@"'
	has "$ca $kind: control: an inherited descriptor of the old file runs it $kind" "$out" "fd 9: old $ids"
	upgrade patched
	has "$ca $kind: patched, it runs $kind" "$out" "old run $ids"
	has "$ca $kind: ... its command inherits what the unpatched one's does ($plain_fds)" "$out" "$plain_fds"
	if printf '%s\n' "$out" | grep -q '^fd [0-9]*: old '; then
		bad "$ca $kind: ... nothing it inherits runs the old program" "$out"
	else
		ok "$ca $kind: ... nothing it inherits runs the old program"
	fi
	has "$ca $kind: ... and the command keeps the user's ids" "$out" "try euid=$uid egid=$gid"
done
rm -rf "$d"
finish
