#!/bin/sh
# SPDX-License-Identifier: MIT
# Set-id programs: a setuid-root copy of the test program, patched with
# cudaload and run by an unprivileged user, must not be steerable: every
# CUDALOAD_* variable ignored, only a root-owned default config read, compat
# and driver directories used only when root owns them and their parents and
# nobody else may write them, the user's LD_LIBRARY_PATH not passed on, and
# glibc's unsafe variables removed before ld.so runs (glibc 2.36's ld.so run as
# a command in secure mode aborts on LD_LIBRARY_PATH).  Last, the hand-over
# under attack: the user swaps their own program in under the name the set-id
# program was started by (setidrace.c), holding the set-id file across an
# upgrade or through a hard link (fs.protected_hardlinks=0); ld.so must run
# the file the kernel checked, so theirs never runs as root.  RACE_TRIES
# (default 400) a case, in exec and chain mode, fs.protected_hardlinks 1 and 0.
# ld.so opens that file as /proc/self/exe, in the set-id program's own
# process: nothing of it is left open for the program or its children, which
# setidexec.c shows, a setuid and a setgid program that run a user's command
# as su does, across an upgrade that replaces the program, on both machines.
# A program with file capabilities keeps them, patched or run by `cudaload
# PROGRAM`, on both machines.
# Needs root (to make the user, the setuid file and /etc/cudaload.conf);
# everything it creates is removed on exit.  Usage: secure.sh BUILD
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
B=$(cd "${1:-$top/build}" && pwd)
CC=${CC:-cc}
TRIES=${RACE_TRIES:-400}
. "$here/../lib/lib.sh"
echo "== end-to-end, set-id programs"

T=/opt/cudaload-test
U=cudaload-test
CONF=/etc/cudaload.conf
if [ "$(id -u)" -ne 0 ]; then
	skip "set-id suite" "not root"
	finish
	exit
fi
if [ -e "$CONF" ] || [ -e "$T" ]; then
	skip "set-id suite" "$CONF or $T exists already; not touching them"
	finish
	exit
fi
made_run=
hardlinks=$(sysctl -n fs.protected_hardlinks 2>/dev/null || echo)
cleanup() {
	[ -z "$hardlinks" ] || sysctl -qw fs.protected_hardlinks="$hardlinks" 2>/dev/null
	rm -rf "$T" "$CONF" /tmp/cudaload-evil /tmp/cudaload-test-home
	[ -z "$made_run" ] || rm -rf /run/cudaload
	userdel "$U" 2>/dev/null
}
trap cleanup EXIT INT TERM
id "$U" >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin "$U" ||
	{ skip "set-id suite" "cannot create user $U"; finish; exit; }

mkdir -p "$T/bin" "$T/cuda-12.9/compat" /tmp/cudaload-evil
chmod 755 "$T" "$T/bin" "$T/cuda-12.9" "$T/cuda-12.9/compat"
cp "$B/cudaload" "$T/bin/cudaload"
$CC -O1 -o "$T/bin/probe" "$here/../helpers/cudaprobe.c" -ldl
"$B/cudaload-patch" --interp "$T/bin/cudaload" "$T/bin/probe" >/dev/null
cp "$T/bin/probe" "$T/bin/probe-suid"
chmod 4755 "$T/bin/probe-suid"
$CC -O1 -o "$T/bin/plain-suid" "$here/../helpers/cudaprobe.c" -ldl
chmod 4755 "$T/bin/plain-suid"
$CC -shared -fPIC -Wl,-soname,libcuda.so.1 -DFAKE_CUDA_VERSION=12090 -o "$T/cuda-12.9/compat/libcuda.so.1" "$here/../helpers/fakecuda.c"
$CC -shared -fPIC -Wl,-soname,libcuda.so.1 -DFAKE_CUDA_VERSION=66666 -o /tmp/cudaload-evil/libcuda.so.1 "$here/../helpers/fakecuda.c"
chmod -R a+rX /tmp/cudaload-evil

# as_user ENV... PROGRAM: run as the unprivileged user with only these variables
as_user() {
	setpriv --reuid="$U" --regid="$U" --clear-groups env -i PATH=/usr/bin:/bin "$@" 2>&1
}
evil="CUDALOAD_DEBUG=1 CUDALOAD_POLICY=compat CUDALOAD_COMPAT_PATH=/tmp/cudaload-evil
CUDALOAD_ROOT=/tmp/cudaload-evil CUDALOAD_LDSO=/tmp/cudaload-evil/ld.so
CUDALOAD_CONFIG=/tmp/cudaload-evil/conf LD_LIBRARY_PATH=/tmp/cudaload-evil"

# Does the setuid bit take effect here at all?  (Asked of a program without
# cudaload, so a cudaload failure cannot pass for a nosuid mount.)
if ! as_user "$T/bin/plain-suid" | grep -qx 'euid=0'; then
	skip "set-id suite" "the setuid bit does not take effect under $T (nosuid mount?)"
	finish
	exit
fi
for mode in exec chain; do
	# shellcheck disable=SC2086
	out=$(as_user $evil CUDALOAD_MODE=$mode "$T/bin/probe-suid")
	st=$?
	has "$mode: runs set-id" "$out" "euid=0"
	status "$mode: the set-id program runs (no ld.so assertion)" 0 "$st" "$out"
	lacks "$mode: CUDALOAD_DEBUG ignored" "$out" "cudaload:"
	has "$mode: CUDALOAD_COMPAT_PATH, CUDALOAD_ROOT, CUDALOAD_POLICY and LD_LIBRARY_PATH do not bring in a libcuda" "$out" "libcuda=none"
	has "$mode: the program sees no LD_LIBRARY_PATH, as glibc would give it" "$out" "LD_LIBRARY_PATH=(unset)"
	has "$mode: TLS intact" "$out" "tls=7"
done
out=$(as_user CUDALOAD_DEBUG=1 "$T/bin/probe")
contains "control: the same variables work for a program that is not set-id" "$out" " probe: decision:"

# The default config, root-owned: honored.
printf 'policy = compat\ncompat = %s/cuda-*/compat\n' "$T" >"$CONF"
chmod 644 "$CONF"
for mode in exec chain; do
	out=$(as_user CUDALOAD_MODE=$mode "$T/bin/probe-suid")
	has "config: a root-owned $CONF and compat dir are used ($mode)" "$out" "libcuda=$T/cuda-12.9/compat/libcuda.so.1 version=12090"
done
# Without /proc the set-id program's file cannot be held (below): it
# runs as the kernel mapped it (chain), with the system driver, and is never
# handed to ld.so by a name.
if unshare -m sh -c 'umount -l /proc' 2>/dev/null; then
	out=$(unshare -m sh -c "umount -l /proc && setpriv --reuid=$U --regid=$U --clear-groups \
		env -i PATH=/usr/bin:/bin '$T/bin/probe-suid' a" 2>&1)
	has "no /proc: the set-id program runs as root" "$out" "euid=0"
	has "no /proc: ... with its arguments" "$out" "arg[1]=a"
	has "no /proc: ... with the system driver, though a package is configured" "$out" "libcuda=none"
else
	skip "no /proc" "cannot unmount /proc in a new mount namespace here"
fi
# With /proc: ld.so, mapped in the program's process and run as a command,
# opens the file the kernel checked as /proc/self/exe; the program sees its
# own argv[0] and /proc/self/exe (no second exec).
out=$(as_user "$T/bin/probe-suid" a)
has "in place: argv[0] is the program's own" "$out" "arg[0]=$T/bin/probe-suid"
has "in place: ... and /proc/self/exe" "$out" "exe=$T/bin/probe-suid"
# ... and no descriptor more than the unpatched program: nothing of the
# hand-over is left open.  Started with none beyond 0-2.
printf '#!/usr/bin/python3\nimport os, sys\nos.closerange(3, 4096)\nos.execv(sys.argv[1], sys.argv[1:])\n' >"$T/bin/closefds"
chmod 755 "$T/bin/closefds"
out=$(as_user PROBE_FDS=1 "$T/bin/closefds" "$T/bin/plain-suid")
has "descriptors: the control, unpatched, has none beyond 0-2" "$out" "fds=0 1 2"
out=$(as_user PROBE_FDS=1 "$T/bin/closefds" "$T/bin/probe-suid")
has "descriptors: the patched one has none beyond 0-2 either" "$out" "fds=0 1 2"
has "descriptors: ... and the package" "$out" "libcuda=$T/cuda-12.9/compat/libcuda.so.1 version=12090"
# An execute-only setgid program: ld.so, which opens it as the user, could
# not read it; it runs as the kernel mapped it, with the system driver.
cp "$T/bin/probe" "$T/bin/probe-xonly"
chmod 2711 "$T/bin/probe-xonly"
out=$(as_user "$T/bin/probe-xonly" a)
status "execute-only: the setgid program runs" 0 $? "$out"
has "execute-only: ... with its arguments" "$out" "arg[1]=a"
has "execute-only: ... and the system driver" "$out" "libcuda=none"
rm -f "$T/bin/probe-xonly"
chmod o+w "$T/cuda-12.9"
out=$(as_user "$T/bin/probe-suid")
has "trust: a parent writable by others is refused" "$out" "libcuda=none"
chmod o-w "$T/cuda-12.9"
chown "$U" "$T/cuda-12.9/compat"
out=$(as_user "$T/bin/probe-suid")
has "trust: a compat dir owned by the user is refused" "$out" "libcuda=none"
chown root "$T/cuda-12.9/compat"
out=$(as_user "$T/bin/probe-suid")
has "trust: root-owned again, used again" "$out" "libcuda=$T/cuda-12.9/compat/libcuda.so.1 version=12090"
# The verdict store (/run/cudaload/verdicts, no CUDALOAD_ROOT for set-id
# programs): one the user may write, or one full of garbage, changes nothing.
if [ -e /run/cudaload ]; then
	skip "verdicts: a user's store" "/run/cudaload exists already; not touching it"
elif [ -d /run ]; then
	made_run=1
	mkdir -p /run/cudaload
	printf 'cudaload-verdicts 2\nhost 0000000000000000\nsystem cu=0 done 1 1\ncompat cu=804 init 0 1 0 0 0 0.000000000 %s/cuda-12.9/compat\n' "$T" >/run/cudaload/verdicts
	chown "$U" /run/cudaload/verdicts
	for mode in exec chain; do
		out=$(as_user CUDALOAD_MODE=$mode "$T/bin/probe-suid")
		has "verdicts: a store the user owns breaks nothing ($mode; that it is not read: tests/unit/test_verdict.c)" "$out" "libcuda=$T/cuda-12.9/compat/libcuda.so.1 version=12090"
	done
	head -c 3000 /dev/urandom >/run/cudaload/verdicts
	chown root /run/cudaload/verdicts
	out=$(as_user "$T/bin/probe-suid")
	status "verdicts: a root-owned store full of garbage: the program runs" 0 $? "$out"
	has "verdicts: ... with what it would get without" "$out" "libcuda=$T/cuda-12.9/compat/libcuda.so.1 version=12090"
	rm -rf /run/cudaload
	made_run=
fi
# A user's own store (common/packages/verdict.h): the user's programs read it after
# root's, a set-id program never.  A set-id copy of cudaload shows with
# --explain what a start of it reads (the verdict lines say whose store).
HU=/tmp/cudaload-test-home
rm -rf "$HU"
mkdir -p "$HU/run"
chmod 700 "$HU/run"
chown -R "$U" "$HU"
printf 'compat = %s/cuda-*/compat\n' "$T" >"$CONF"	# policy auto: verdicts are read
cp "$(dirname "$B/cudaload")/cudaload-verify" "$T/bin/cudaload-verify"
cp "$T/bin/cudaload" "$T/bin/cudaload-suid"
chmod 4755 "$T/bin/cudaload-suid"
out=$(as_user HOME="$HU" XDG_RUNTIME_DIR="$HU/run" "$T/bin/cudaload" --verify --timeout 5)
status "user store: the user verifies, without root" 0 $? "$out"
has "user store: ... into the user's own store" "$out" "verdicts stored in $HU/run/cudaload/verdicts"
out=$(as_user HOME="$HU" XDG_RUNTIME_DIR="$HU/run" "$T/bin/cudaload" --explain)
contains "user store: the control: a start that is not set-id reads it" "$out" \
	" ago (this user's store): cuInit returned 0 (CUDA_SUCCESS: works)"
out=$(as_user HOME="$HU" XDG_RUNTIME_DIR="$HU/run" "$T/bin/cudaload-suid" --explain)
contains "user store: the set-id cudaload explains" "$out" "candidate:    $T/cuda-12.9/compat"
lacks "user store: ... and never reads the user's store" "$out" "this user's store"
rm -rf "$HU" "$T/bin/cudaload-suid" "$T/bin/cudaload-verify"
# A Nix store: root-owned, group-writable and sticky (root:nixbld 1775), the
# compat package a root-owned entry in it, its version stated in the config.
S=$T/store/0c8vb4q6s9k2-cuda_compat-12.2.34086978/compat
mkdir -p "$S"
cp "$T"/cuda-12.9/compat/* "$S/"	# the whole package, as it is there
chgrp "$U" "$T/store"
chmod 1775 "$T/store"
chmod 755 "$T/store/0c8vb4q6s9k2-cuda_compat-12.2.34086978" "$S"
printf 'policy = compat\ncompat = %s cuda=12.2\n' "$S" >"$CONF"
out=$(as_user "$T/bin/probe-suid")
has "trust: a compat package in a sticky store (1775) is used" "$out" "libcuda=$S/libcuda.so.1 version=12090"
chmod 775 "$T/store"
out=$(as_user "$T/bin/probe-suid")
has "trust: the same store group-writable without the sticky bit is refused" "$out" "libcuda=none"
# A config only root may read: a mistake in it is said, its words are not
printf 'policy = compat\nsecret_key_4711 = x\n' >"$CONF"
chmod 600 "$CONF"
out=$(as_user "$T/bin/probe-suid")
has "config: a mistake in a root-only config is said" "$out" \
	"cudaload: the configuration has a problem (as root: cudaload --explain)"
lacks "config: ... without its words" "$out" "secret_key_4711"
out=$("$T/bin/probe-suid" 2>&1)
contains "config: ... which root sees in full" "$out" "unknown key 'secret_key_4711'"
printf 'policy = compat\ncompat = %s/cuda-*/compat\n' "$T" >"$CONF"
chmod 664 "$CONF"
out=$(as_user "$T/bin/probe-suid")
has "config: a group-writable $CONF is ignored" "$out" "libcuda=none"
chmod 644 "$CONF"
chown "$U" "$CONF"
out=$(as_user "$T/bin/probe-suid")
has "config: a $CONF not owned by root is ignored" "$out" "libcuda=none"
# ---- file capabilities ----
# A program with file capabilities starts with AT_SECURE and its ids
# unchanged; an exec of ld.so would drop the capabilities (CapEff 0: the
# program no longer works, GPU or not).  It runs as unpatched: chain mode
# whatever the config, the system driver (ld.so reads no search list in
# secure mode), and `cudaload PROGRAM` runs it itself.  On each machine that
# can carry file capabilities: the aarch64 program runs under qemu-user,
# which binfmt_misc starts with qemu's credentials unless its entry has the
# C flag.
rm -f "$CONF"
printf 'policy = compat\nmode = exec\ncompat = %s/cuda-*/compat\n' "$T" >"$CONF"
chmod 644 "$CONF"
out=$(as_user "$T/bin/probe-suid")
has "config for what follows: a set-id program takes the package" "$out" "libcuda=$T/cuda-12.9/compat/libcuda.so.1 version=12090"
caps() { # caps ARCH CC CUDALOAD
	ca=$1 ccc=$2 ccl=$3
	d=$T/caps-$ca
	mkdir -p "$d"
	if ! "$ccc" -O1 -o "$d/plain" "$here/../helpers/cudaprobe.c" -ldl 2>"$d/err"; then
		skip "$ca: file capabilities" "$ccc cannot build: $(head -n1 "$d/err")"
		return
	fi
	cp "$ccl" "$d/cudaload"
	cp "$d/plain" "$d/probe"
	"$B/cudaload-patch" --interp "$d/cudaload" "$d/probe" >/dev/null
	chmod -R a+rX "$d"
	if ! setcap cap_net_raw+ep "$d/plain" 2>"$d/err" || ! setcap cap_net_raw+ep "$d/probe" 2>>"$d/err"; then
		skip "$ca: file capabilities" "setcap failed: $(head -n1 "$d/err")"
		return
	fi
	want=capeff=0000000000002000	# CAP_NET_RAW, bit 13
	out=$(as_user PROBE_CAPS=1 "$d/plain")
	if ! printf '%s\n' "$out" | grep -qx "$want"; then
		if [ "$ca" = "$(uname -m)" ]; then
			bad "$ca: file capabilities: the control, unpatched, has them" "$out"
		else
			flags=$(sed -n 's/^flags: //p' "/proc/sys/fs/binfmt_misc/qemu-$ca" 2>/dev/null)
			skip "$ca: file capabilities" "qemu-user cannot carry them here: binfmt_misc's qemu-$ca entry (flags '$flags', no C) starts qemu with its own credentials, not the program's ($(printf '%s\n' "$out" | grep -m1 '^capeff=\|rror' || echo 'no output'))"
		fi
		return
	fi
	ok "$ca: file capabilities: the control, unpatched, has them"
	out=$(as_user PROBE_CAPS=1 "$d/probe" a)
	has "$ca: file capabilities kept by the patched program (mode = exec configured: chain)" "$out" "$want"
	has "$ca: ... with the system driver, though a package is configured" "$out" "libcuda=none"
	has "$ca: ... /proc/self/exe is the program (no second exec)" "$out" "exe=$d/probe"
	has "$ca: ... its arguments" "$out" "arg[1]=a"
	has "$ca: ... its TLS" "$out" "tls=7"
	for prog in plain probe; do
		out=$(as_user PROBE_CAPS=1 "$d/cudaload" "$d/$prog" a)
		has "$ca: cudaload PROGRAM ($prog) runs it itself: the capabilities kept" "$out" "$want"
		has "$ca: ... and its own argv[0]" "$out" "arg[0]=$d/$prog"
	done
	out=$(as_user "$d/cudaload" --explain "$d/probe")
	has "$ca: --explain says chain" "$out" "mode:         chain (its interpreter is cudaload; file capabilities: chain keeps them)"
	has "$ca: --explain says the system driver" "$out" "reason:       system driver: file capabilities (a second exec would drop them, and ld.so reads no search list in secure mode)"
	out=$(as_user "$d/cudaload" --explain "$d/plain")
	has "$ca: --explain of the unpatched one: it runs by itself" "$out" "mode:         direct (file capabilities: it runs by itself, which keeps them)"
}
caps "$(uname -m)" "$CC" "$B/cudaload"
if [ "$(uname -m)" = x86_64 ]; then
	foreign_why=
	. "$here/../lib/foreign.sh"
	if foreign_ready aarch64 "$B/aarch64/cudaload" aarch64-linux-gnu-gcc; then
		caps aarch64 aarch64-linux-gnu-gcc "$B/aarch64/cudaload"
	else
		skip "aarch64: file capabilities" "$foreign_why"
	fi
fi
# ---- what a set-id program's children inherit (setidchildren.sh) ----
# part COMMAND...: another script's results, counted with these
part() {
	po=$("$@" 2>&1)
	printf '%s\n' "$po" | sed '$d'
	pc=$(printf '%s\n' "$po" | tail -n1 | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed, \([0-9]*\) skipped$/\1 \2 \3/p')
	if [ -z "$pc" ]; then
		bad "$2: ended without its results" "$po"
		return
	fi
	set -- $pc
	pass=$((pass + $1)) fail=$((fail + $2)) skip=$((skip + $3))
}
# in_ns COMMAND...: COMMAND as root of a user and mount namespace of its own
# that has ids 0-65535 as they are outside (set-id files stay root's there);
# the maps are written from here once it exists
in_ns() {
	nsf=$T/ns.fifo
	rm -f "$nsf"
	mkfifo -m 600 "$nsf"
	unshare --user --mount sh -c 'f=$1; shift; read go <"$f" && [ "$go" = go ] && exec "$@"' sh "$nsf" "$@" &
	upid=$!
	i=0
	while kill -0 $upid 2>/dev/null && [ $i -lt 500 ] &&
		[ "$(readlink /proc/$upid/ns/user 2>/dev/null)" = "$(readlink /proc/self/ns/user)" ]; do
		sleep 0.01
		i=$((i + 1))
	done
	go=no
	echo '0 0 65536' >/proc/$upid/uid_map 2>/dev/null && echo '0 0 65536' >/proc/$upid/gid_map 2>/dev/null && go=go
	kill -0 $upid 2>/dev/null && timeout 5 sh -c 'echo "$1" >"$2"' sh "$go" "$nsf"
	wait $upid
	st=$?
	rm -f "$nsf"
	if [ "$go" != go ]; then
		printf 'SKIP %s: %s\n0 passed, 0 failed, 1 skipped\n' "$2" "cannot make a user namespace with its own ids here"
	fi
	return $st
}
children() { # children ARCH CC CUDALOAD [QEMU_FLAGS]
	set -- "$here/../lib/setidchildren.sh" "$B" "$1" "$2" "$3" "$T/children-$1" "$U" "$T/bin/closefds" ${4:+"$4"}
	if [ $# -eq 9 ]; then
		part in_ns sh "$@"
	else
		part sh "$@"
	fi
}
children "$(uname -m)" "$CC" "$B/cudaload"
if [ "$(uname -m)" = x86_64 ]; then
	if foreign_ready aarch64 "$B/aarch64/cudaload" aarch64-linux-gnu-gcc; then
		flags=$(sed -n 's/^flags: //p' /proc/sys/fs/binfmt_misc/qemu-aarch64 2>/dev/null)
		case $flags in
		*C*) children aarch64 aarch64-linux-gnu-gcc "$B/aarch64/cudaload" ;;
		*)
			# Without the C flag qemu-user runs with its own credentials,
			# not the set-id program's: the entry gets it in a binfmt_misc of
			# a namespace's own (Linux 6.7 and later), or the rows are skipped
			children aarch64 aarch64-linux-gnu-gcc "$B/aarch64/cudaload" "${flags}C"
			;;
		esac
	else
		skip "aarch64: children" "$foreign_why"
	fi
fi
# Set-id, run as `cudaload PROGRAM`: it runs itself too, as root.
out=$(as_user "$T/bin/cudaload" "$T/bin/plain-suid")
has "set-id: cudaload PROGRAM runs it itself, as root" "$out" "euid=0"
out=$(as_user "$T/bin/cudaload" "$T/bin/probe-suid")
has "set-id: ... a patched one too" "$out" "euid=0"
has "set-id: ... which then takes the configured package (secure mode)" "$out" "libcuda=$T/cuda-12.9/compat/libcuda.so.1 version=12090"

# ---- the hand-over under a renaming attacker ----
mkdir -p "$T/u"
$CC -O1 -o "$T/bin/setidrace" "$here/../helpers/setidrace.c"
printf '#include <stdio.h>\n#include <unistd.h>\nint main(void){printf("evil euid=%%d\\n",(int)geteuid());return 0;}\n' |
	$CC -O1 -x c -o "$T/u/evil" -
chown -R "$U" "$T/u"
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
	rm -f "$CONF"
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
