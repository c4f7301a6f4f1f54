#!/bin/sh
# SPDX-License-Identifier: MIT
# Faults and limits: each gets a clear one-line error or a fail-open run,
# never a hang or a crash.  Every run is under `timeout`, so a hang fails.
# Usage: faults.sh BUILD
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
B=$(cd "${1:-$top/build}" && pwd)
CC=${CC:-cc}
. "$here/../lib/lib.sh"
echo "== end-to-end, faults and limits"

# Everything lives in a world-readable scratch directory, so an unprivileged
# user can run it too.
F=$(mktemp -d /tmp/cudaload-faults-XXXXXX)
chmod 755 "$F"
U=cudaload-faults
cleanup() {
	[ -n "${spinner:-}" ] && kill "$spinner" 2>/dev/null
	rm -rf "$F"
	[ "$(id -u)" -eq 0 ] && userdel "$U" 2>/dev/null
}
trap cleanup EXIT INT TERM
mkdir -p "$F/bin" "$F/libs"
cp "$B/cudaload" "$F/bin/cudaload"
$CC -O1 -o "$F/bin/cudaprobe" "$here/../helpers/cudaprobe.c" -ldl
cp "$F/bin/cudaprobe" "$F/bin/probe"
"$B/cudaload-patch" --interp "$F/bin/cudaload" "$F/bin/probe" >/dev/null
$CC -O1 -o "$F/libs/mknote" "$here/../helpers/mknote.c"
$CC -O1 -o "$F/bin/bigargs" "$here/../helpers/bigargs.c"
$CC -O1 -o "$F/libs/maxrss" "$here/../helpers/maxrss.c"
R=$F/root
sh "$here/../lib/mkroot.sh" "$top/tests/fixtures/orin-jp5-compat122.profile" "$R" "$F/libs"
chmod -R a+rX "$F"
DD=/usr/lib/aarch64-linux-gnu/tegra
: >"$F/empty.conf"
COMPAT_LINE="libcuda=$R/usr/local/cuda-12.2/compat/libcuda.so.1 version=12020"
SYSTEM_LINE="libcuda=$R$DD/libcuda.so.1 version=11040"

run() { # run [VAR=VALUE...] PROGRAM ARGS: under the fixture, 20 s at most
	timeout 20 env CUDALOAD_ROOT="$R" CUDALOAD_CONFIG="$F/empty.conf" LD_LIBRARY_PATH="$R$DD" "$@" 2>&1
}

# ---- release files that are not files -----------------------------------------
rel=$R/etc/nv_tegra_release
cp "$rel" "$F/release.good"
for kind in directory fifo endless; do
	rm -f "$rel"
	case $kind in
	directory) mkdir "$rel" ;;
	fifo) mkfifo "$rel" ;;
	endless) ln -s /dev/zero "$rel" ;;
	esac
	for mode in exec chain; do
		out=$(run CUDALOAD_MODE=$mode "$F/bin/probe")
		status "release is a $kind ($mode): runs, no hang" 0 $? "$out"
		has "release is a $kind ($mode): system driver" "$out" "$SYSTEM_LINE"
	done
	out=$(run "$F/bin/cudaload" --explain)
	contains "release is a $kind: explained" "$out" "problem:      /etc/nv_tegra_release"
	rm -rf "$rel"
done
cp "$F/release.good" "$rel"

# ---- a GPU whose information file says nothing, beside an H100 ---------------------
# Not counted, it let the package through: it must count as a GPU that may
# not support forward compatibility (tests/fixtures/dgpu-unreadable-gpu).
U13=$F/unreadable-gpu
sh "$here/../lib/mkroot.sh" "$top/tests/fixtures/dgpu-unreadable-gpu.profile" "$U13" "$F/libs"
info=$U13/proc/driver/nvidia/gpus/0000:02:00.0/information
X86DD=/usr/lib/x86_64-linux-gnu
for kind in fifo directory dangling garbage; do
	rm -rf "$info"
	case $kind in
	fifo) mkfifo "$info"; problem="information file: empty or no Model: line" ;;
	directory) mkdir "$info"; problem="information file: Is a directory" ;;
	dangling) ln -s nowhere "$info"; problem="information file: No such file or directory" ;;
	garbage) printf 'IRQ: 41\nBus Type: PCIe\n' >"$info"; problem="information file: empty or no Model: line" ;;
	esac
	for mode in exec chain; do
		out=$(timeout 20 env CUDALOAD_ROOT="$U13" CUDALOAD_CONFIG="$F/empty.conf" CUDALOAD_MODE=$mode \
			LD_LIBRARY_PATH="$U13$X86DD" "$F/bin/probe" 2>&1)
		status "unidentified GPU, $kind ($mode): runs" 0 $? "$out"
		has "unidentified GPU, $kind ($mode): system driver" "$out" "libcuda=$U13$X86DD/libcuda.so.1 version=12080"
	done
	out=$(timeout 20 env CUDALOAD_ROOT="$U13" CUDALOAD_CONFIG="$F/empty.conf" "$F/bin/cudaload" --explain 2>&1)
	has "unidentified GPU, $kind: explained" "$out" \
		"gpu:          0000:02:00.0 cannot be identified ($problem): may not support forward compatibility"
	has "unidentified GPU, $kind: the decision says why" "$out" \
		"reason:       system driver: GPU 0000:02:00.0 cannot be identified ($problem): it may not support forward compatibility"
	out=$(timeout 20 env CUDALOAD_ROOT="$U13" CUDALOAD_CONFIG="$F/empty.conf" "$F/bin/cudaload" --explain --json 2>&1)
	contains "unidentified GPU, $kind: json device" "$out" \
		"{\"bus\":\"0000:02:00.0\",\"model\":\"\",\"brand\":0,\"brand_name\":\"unknown\",\"forward_compat\":false,\"problem\":\"$problem\",\"device_id\":null,\"architecture\":null,\"architecture_from\":null,\"last_branch\":null,\"visible\":true}"
	contains "unidentified GPU, $kind: json count and unsupported" "$out" "\"count\":2,\"unsupported\":\"0000:02:00.0\""
	contains "unidentified GPU, $kind: json decision" "$out" "\"decision\":\"system\""
done
rm -rf "$(dirname "$info")"
out=$(timeout 20 env CUDALOAD_ROOT="$U13" CUDALOAD_CONFIG="$F/empty.conf" "$F/bin/cudaload" --explain --json 2>&1)
contains "the H100 alone: compat (the control)" "$out" "\"decision\":\"compat\""

# ---- unreadable /proc, /sys and config: as an unprivileged user ---------------
if [ "$(id -u)" -eq 0 ] && (id "$U" >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin "$U"); then
	as_user() { setpriv --reuid="$U" --regid="$U" --clear-groups "$@" 2>&1; }
	chmod 000 "$R/proc/device-tree/compatible" "$R/sys/devices/soc0/family" "$rel"
	printf 'policy = compat\n' >"$F/locked.conf"
	chmod 000 "$F/locked.conf"
	out=$(as_user timeout 20 env CUDALOAD_ROOT="$R" CUDALOAD_CONFIG="$F/locked.conf" LD_LIBRARY_PATH="$R$DD" "$F/bin/probe")
	status "EACCES everywhere: the program runs" 0 $? "$out"
	has "EACCES: unreadable config reported with its name" "$out" "cudaload: $F/locked.conf: Permission denied; config ignored"
	has "EACCES: unreadable device tree and soc0 mean no GPU: system driver" "$out" "$SYSTEM_LINE"
	chmod 644 "$R/proc/device-tree/compatible" "$R/sys/devices/soc0/family"
	out=$(as_user timeout 20 env CUDALOAD_ROOT="$R" CUDALOAD_CONFIG="$F/empty.conf" "$F/bin/cudaload" --explain)
	contains "EACCES: an unreadable release file is explained" "$out" "problem:      /etc/nv_tegra_release: Permission denied"
	chmod 644 "$rel"
else
	skip "EACCES cases" "needs root to create an unprivileged user"
fi

# ---- the real loader: missing, not executable, a loop, cudaload itself -------
printf 'x\n' >"$F/notexec"
cp /lib64/ld-linux-x86-64.so.2 "$F/ld-noexec.so" 2>/dev/null || cp "$(readelf -lW /bin/true | sed -n 's/.*interpreter: \(.*\)]/\1/p')" "$F/ld-noexec.so"
chmod 644 "$F/ld-noexec.so"
ln -s loop-b "$F/loop-a"
ln -s loop-a "$F/loop-b"
ln -s "$F/bin/cudaload" "$F/cl-link"
cp "$F/bin/cudaload" "$F/cl-copy"
for mode in exec chain; do
	out=$(run CUDALOAD_MODE=$mode CUDALOAD_LDSO="$F/ld-noexec.so" "$F/bin/probe")
	status "loader not executable ($mode): 126" 126 $? "$out"
	has "loader not executable ($mode): said" "$out" "cudaload: $F/ld-noexec.so (CUDALOAD_LDSO): not executable"
	out=$(run CUDALOAD_MODE=$mode CUDALOAD_LDSO="$F/loop-a" "$F/bin/probe")
	status "loader is a symlink loop ($mode): 127" 127 $? "$out"
	has "loader is a symlink loop ($mode): said" "$out" "cudaload: $F/loop-a (CUDALOAD_LDSO): Symbolic link loop"	# musl's words for ELOOP
	out=$(run CUDALOAD_MODE=$mode CUDALOAD_LDSO="$F/cl-link" "$F/bin/probe")
	status "loader is cudaload through a symlink ($mode): 127" 127 $? "$out"
	out=$(run CUDALOAD_MODE=$mode CUDALOAD_LDSO="$F/cl-copy" "$F/bin/probe")
	status "loader is a copy of cudaload ($mode): 127, no loop" 127 $? "$out"
	has "loader is a copy of cudaload ($mode): said" "$out" "cudaload: $F/cl-copy (CUDALOAD_LDSO): is cudaload itself, not a dynamic loader"
	out=$(run CUDALOAD_MODE=$mode CUDALOAD_LDSO="$F/notexec" "$F/bin/probe")
	status "loader is not ELF ($mode): 126" 126 $? "$out"
done
# A configured loader that is no loader at all (a typo naming the C library,
# a program, a shell) is never run: a warning, then the next loader.
libc=$(ldd "$F/bin/cudaprobe" | sed -n 's/.*=> \(\/[^ ]*\/libc\.so\.6\) .*/\1/p')
for wrong in "$libc" /usr/bin/true /bin/bash; do
	printf 'ldso.%s = %s\n' "$(uname -m)" "$wrong" >"$F/wrong-ldso.conf"
	for mode in exec chain; do
		out=$(run CUDALOAD_MODE=$mode CUDALOAD_CONFIG="$F/wrong-ldso.conf" "$F/bin/probe")
		status "config ldso = $wrong ($mode): the program runs" 0 $? "$out"
		has "config ldso = $wrong ($mode): with the decision" "$out" "$COMPAT_LINE"
		contains "config ldso = $wrong ($mode): warned" "$out" "cudaload: config ldso.$(uname -m) $wrong: "
		contains "config ldso = $wrong ($mode): ... as no loader" "$out" "not a dynamic loader; using the next loader"
	done
	out=$(run CUDALOAD_LDSO="$wrong" "$F/bin/probe")
	status "CUDALOAD_LDSO=$wrong: 126, not run" 126 $? "$out"
	contains "CUDALOAD_LDSO=$wrong: said" "$out" "cudaload: $wrong (CUDALOAD_LDSO): "
done
out=$(run "$F/bin/cudaload" "$F/bin/cudaload" "$F/bin/cudaprobe")
status "cudaload cudaload ./x: runs" 0 $? "$out"
has "cudaload cudaload ./x: the decision still applies" "$out" "$COMPAT_LINE"

# ---- a compat dir that comes and goes while programs start ---------------------
C=$R/usr/local/cuda-12.2
( while [ ! -e "$F/stop" ]; do mv "$C" "$C.away" 2>/dev/null; mv "$C.away" "$C" 2>/dev/null; done ) &
spinner=$!
bad_runs=0 compat_runs=0 system_runs=0
i=0
while [ $i -lt 150 ]; do
	m=exec
	[ $((i % 2)) -eq 0 ] && m=chain
	out=$(run CUDALOAD_MODE=$m "$F/bin/probe")
	st=$?
	if [ $st -ne 0 ]; then bad_runs=$((bad_runs + 1)); last_bad=$out
	elif printf '%s\n' "$out" | grep -q 'version=12020'; then compat_runs=$((compat_runs + 1))
	elif printf '%s\n' "$out" | grep -q 'version=11040'; then system_runs=$((system_runs + 1))
	else bad_runs=$((bad_runs + 1)); last_bad=$out; fi
	i=$((i + 1))
done
touch "$F/stop"
wait "$spinner" 2>/dev/null
spinner=
[ -d "$C" ] || mv "$C.away" "$C"
status "vanishing compat dir: 150 starts, none failed ($compat_runs compat, $system_runs system)" 0 "$bad_runs" "${last_bad:-}"

# ---- a compat directory named with bytes that are not UTF-8 and controls -----
# --explain --json stays valid JSON (UTF-8), the text shows the bytes, never
# sends them to the terminal: both give the name's printable form
# (common/base/utf8.h), \xNN for each such byte.
hostile=$(printf '/usr/local/cuda-\377\033[31mred\nx/compat')
mkdir -p "$R$hostile"
cp -a "$R/usr/local/cuda-12.2/compat/." "$R$hostile/"
out=$(run "$F/bin/cudaload" --explain --json)
if command -v python3 >/dev/null 2>&1; then
	got=$(printf '%s' "$out" | python3 -c 'import json, sys
d = json.loads(sys.stdin.buffer.read().decode("utf-8"))
print([c["dir"] for c in d["candidates"] if "red" in c["dir"]][0])' 2>&1)
	status "hostile dir name: --explain --json is valid UTF-8 JSON" '/usr/local/cuda-\xff\x1b[31mred\x0ax/compat' "$got" "$out"
else
	skip "hostile dir name: JSON validity" "no python3 to parse it"
fi
contains "hostile dir name: json escapes" "$out" '"dir":"/usr/local/cuda-\\xff\\x1b[31mred\\x0ax/compat"'
out=$(run "$F/bin/cudaload" --explain)
has "hostile dir name: text shows the bytes" "$out" 'candidate:    /usr/local/cuda-\xff\x1b[31mred\x0ax/compat'
if printf '%s' "$out" | tr -d '\n' | LC_ALL=C grep -q '[[:cntrl:]]'; then
	bad "hostile dir name: no control byte reaches the terminal" "$out"
else
	ok "hostile dir name: no control byte reaches the terminal"
fi
out=$(run "$F/bin/probe")
has "hostile dir name: the decision stands" "$out" "$COMPAT_LINE"
# the CUDALOAD_DEBUG trace too: its candidate line in the printable form,
# no control byte on the terminal
out=$(run CUDALOAD_DEBUG=1 "$F/bin/probe")
contains "hostile dir name: the trace shows the bytes" "$out" \
	"candidate /usr/local/cuda-\\xff\\x1b[31mred\\x0ax/compat ("
if printf '%s' "$out" | tr -d '\n' | LC_ALL=C grep -q '[[:cntrl:]]'; then
	bad "hostile dir name: no control byte reaches the terminal from the trace" "$out"
else
	ok "hostile dir name: no control byte reaches the terminal from the trace"
fi
rm -rf "$R/usr/local/cuda-$(printf '\377')"*

# ---- LD_LIBRARY_PATH twice in the environment -------------------------------------
# glibc's ld.so takes the last (rtld.c process_envvars walks every LD_ entry,
# each LIBRARY_PATH replacing the one before), musl's the first (getenv):
# cudaload reads it as the loader will, and sets the slot the loader reads.
$CC -O1 -o "$F/bin/dupenv" "$here/../helpers/dupenv.c"
mkdir -p "$F/dupA" "$F/dupB"
printf 'const char *dup_which(void) { return "%s"; }\n' B >"$F/dupB/dup.c"
$CC -shared -fPIC -o "$F/dupB/libdupe.so" "$F/dupB/dup.c"
printf '#include <stdio.h>\nconst char *dup_which(void);\nint main(void) { printf("dupe=%%s\\n", dup_which()); return 0; }\n' >"$F/dupmain.c"
$CC -O1 -o "$F/bin/dupmain" "$F/dupmain.c" -L"$F/dupB" -ldupe
cp "$F/bin/dupmain" "$F/bin/dupmain-patched"
"$B/cudaload-patch" --interp "$F/bin/cudaload" "$F/bin/dupmain-patched" >/dev/null
dup() { # dup FIRST LAST PROGRAM...: LD_LIBRARY_PATH twice, under the fixture
	first=$1 last=$2
	shift 2
	timeout 20 env -u LD_LIBRARY_PATH CUDALOAD_ROOT="$R" CUDALOAD_CONFIG="$F/empty.conf" \
		"$F/bin/dupenv" "LD_LIBRARY_PATH=$first" "LD_LIBRARY_PATH=$last" -- "$@" 2>&1
}
out=$(dup "$F/dupA" "$F/dupB" "$F/bin/dupmain")
has "LD_LIBRARY_PATH twice, no cudaload (the control): glibc takes the last" "$out" "dupe=B"
for mode in exec chain; do
	out=$(CUDALOAD_MODE=$mode dup "$F/dupA" "$F/dupB" "$F/bin/dupmain-patched")
	has "LD_LIBRARY_PATH twice ($mode): the program's library from the last" "$out" "dupe=B"
	out=$(CUDALOAD_MODE=$mode dup "$F/dupA" "$F/dupB" "$F/bin/cudaload" "$F/bin/dupmain")
	has "LD_LIBRARY_PATH twice ($mode, as a command): from the last" "$out" "dupe=B"
	out=$(CUDALOAD_MODE=$mode dup "$F/dupA" "$R$DD" "$F/bin/probe")
	has "LD_LIBRARY_PATH twice ($mode): compat still first" "$out" "$COMPAT_LINE"
done
out=$(dup "$F/dupA" "$F/dupB" "$F/bin/cudaload" --explain)
contains "LD_LIBRARY_PATH twice: explained with the last" "$out" "library path: $R/usr/local/cuda-12.2/compat:$R$DD:$F/dupB"
if command -v musl-gcc >/dev/null 2>&1 && [ -e "/lib/ld-musl-$(uname -m).so.1" ]; then
	musl-gcc -O1 -o "$F/bin/probe-musl" "$here/../helpers/cudaprobe.c"
	"$B/cudaload-patch" --interp "$F/bin/cudaload" "$F/bin/probe-musl" >/dev/null
	for mode in exec chain; do
		out=$(CUDALOAD_MODE=$mode dup "$R$DD" "$F/dupA" "$F/bin/probe-musl")
		has "LD_LIBRARY_PATH twice, musl ($mode): compat applied" "$out" "$COMPAT_LINE"
		has "LD_LIBRARY_PATH twice, musl ($mode): the program sees its first" "$out" "LD_LIBRARY_PATH=$R$DD"
	done
	out=$(dup "$R$DD" "$F/dupA" "$F/bin/cudaload" --explain "$F/bin/probe-musl")
	has "LD_LIBRARY_PATH twice, musl: explained with the first (already in the list)" "$out" "library path: $R/usr/local/cuda-12.2/compat:$R$DD"
else
	skip "LD_LIBRARY_PATH twice, musl" "no musl-gcc or no /lib/ld-musl-$(uname -m).so.1"
fi

# ---- limits -------------------------------------------------------------------------
long=$(printf '/%0250d' 0 | sed 's/0/d/g')
long=$long$long$long$long$long$long$long$long$long$long$long$long$long$long$long$long$long$long$long$long
out=$(run CUDALOAD_COMPAT_PATH="$long" CUDALOAD_ROOT_X=1 "$F/bin/probe")
has "overlong compat path: ignored, runs" "$out" "$COMPAT_LINE"
out=$(timeout 20 env CUDALOAD_ROOT="$long" CUDALOAD_CONFIG="$F/empty.conf" "$F/bin/probe" 2>&1)
has "overlong CUDALOAD_ROOT: reported" "$out" "cudaload: CUDALOAD_ROOT: too long; ignored"
contains "overlong CUDALOAD_ROOT: runs" "$out" "tls=7"
out=$(run "$F/bin/cudaload" "$long/prog")
status "overlong program path: 127" 127 $? "$out"
has "overlong program path: said" "$out" "cudaload: $long/prog: Filename too long"	# musl's words

# More CUDALOAD_COMPAT_PATH entries than cudaload takes (64): said, never
# dropped silently; the run goes on with the first 64.
many_env=
i=0
while [ $i -lt 70 ]; do many_env="$many_env${many_env:+:}/nowhere/c$i"; i=$((i + 1)); done
out=$(run CUDALOAD_COMPAT_PATH="$many_env" "$F/bin/probe")
status "70 compat path entries: runs" 0 $? "$out"
has "70 compat path entries: warned" "$out" \
	"cudaload: CUDALOAD_COMPAT_PATH: more than 64 entries; '/nowhere/c64' and every later one ignored"
has "70 compat path entries: the decision stands" "$out" "$COMPAT_LINE"
out=$(run CUDALOAD_COMPAT_PATH="$many_env" "$F/bin/cudaload" --explain)
has "70 compat path entries: explained" "$out" \
	"warning:      CUDALOAD_COMPAT_PATH: more than 64 entries; '/nowhere/c64' and every later one ignored"
out=$(run CUDALOAD_COMPAT_PATH="$many_env" "$F/bin/cudaload" --explain --json)
contains "70 compat path entries: in the JSON" "$out" \
	"\"config_warnings\":[\"CUDALOAD_COMPAT_PATH: more than 64 entries; '/nowhere/c64' and every later one ignored\"]"
out=$(run CUDALOAD_COMPAT_PATH="$long" "$F/bin/probe")
contains "overlong compat path entry: warned" "$out" "cudaload: CUDALOAD_COMPAT_PATH: an entry of 5020 bytes is longer than a path can be; ignored"

big=$R/usr/lib/big
mkdir -p "$big"
llp=$R$DD
while [ ${#llp} -lt 65536 ]; do llp="$llp:$big"; done
for mode in exec chain; do
	out=$(timeout 20 env CUDALOAD_ROOT="$R" CUDALOAD_CONFIG="$F/empty.conf" CUDALOAD_MODE=$mode \
		LD_LIBRARY_PATH="$llp" "$F/bin/probe" 2>&1)
	status "64 KiB LD_LIBRARY_PATH ($mode): runs" 0 $? "$(printf '%s' "$out" | cut -c1-300)"
	has "64 KiB LD_LIBRARY_PATH ($mode): compat used" "$out" "$COMPAT_LINE"
	has "64 KiB LD_LIBRARY_PATH ($mode): the program sees it unchanged" "$out" "LD_LIBRARY_PATH=$llp"
done

# An LD_LIBRARY_PATH the kernel took (each environment string up to 32
# pages, MAX_ARG_STRLEN) makes, with the compat directories in front, a
# --library-path it would not take: E2BIG.  Exec mode runs the program with
# the system driver instead, and says so; chain mode passes no argument.
pad=$(printf '%0240d' 0 | tr 0 p)
llp=$R$DD
i=0
while [ ${#llp} -lt 130500 ]; do llp="$llp:/nowhere/$i$pad"; i=$((i + 1)); done
llp="$llp:/nowhere/$(printf "%0$((131050 - ${#llp} - 10))d" 0)"	# 131,050 bytes: with its name, nearly as long as an environment string can be
echo "     (LD_LIBRARY_PATH of ${#llp} bytes)"
for how in exec command; do
	if [ $how = exec ]; then prog=$F/bin/probe; else prog="$F/bin/cudaload $F/bin/cudaprobe"; fi
	# shellcheck disable=SC2086
	out=$(timeout 20 env CUDALOAD_ROOT="$R" CUDALOAD_CONFIG="$F/empty.conf" CUDALOAD_MODE=exec \
		LD_LIBRARY_PATH="$llp" $prog 2>&1)
	status "128 KiB LD_LIBRARY_PATH ($how): runs" 0 $? "$(printf '%s' "$out" | cut -c1-300)"
	has "128 KiB LD_LIBRARY_PATH ($how): with the system driver" "$out" "$SYSTEM_LINE"
	contains "128 KiB LD_LIBRARY_PATH ($how): said" "$out" \
		"bytes) is longer than exec mode can pass in one argument; the system driver, unpinned"
done
out=$(timeout 20 env CUDALOAD_ROOT="$R" CUDALOAD_CONFIG="$F/empty.conf" CUDALOAD_MODE=exec \
	LD_LIBRARY_PATH="$llp" "$F/bin/cudaload" --explain "$F/bin/cudaprobe" 2>&1)
contains "128 KiB LD_LIBRARY_PATH: explained" "$out" "reason:       system driver: the search list ("
out=$(timeout 20 env CUDALOAD_ROOT="$R" CUDALOAD_CONFIG="$F/empty.conf" CUDALOAD_MODE=chain \
	LD_LIBRARY_PATH="$llp" "$F/bin/probe" 2>&1)
has "128 KiB LD_LIBRARY_PATH (chain): compat, no argument to pass" "$out" "$COMPAT_LINE"

out=$(cd "$F" && CUDALOAD_ROOT="$R" CUDALOAD_CONFIG="$F/empty.conf" CUDALOAD_MODE=exec timeout 120 "$F/bin/bigargs" "$F/bin/probe" 64 2>&1 >/dev/null)
contains "ARG_MAX: exec mode reports E2BIG" "$out" "argument list and environment too long (E2BIG)"
contains "ARG_MAX: ... and exits 126" "$out" "status 126"
out=$(cd "$F" && CUDALOAD_ROOT="$R" CUDALOAD_CONFIG="$F/empty.conf" CUDALOAD_MODE=chain timeout 120 "$F/bin/bigargs" "$F/bin/probe" 64 2>&1 >/dev/null)
contains "ARG_MAX: chain mode needs no second exec: it runs" "$out" "status 0"

# ---- a tight RLIMIT_AS -------------------------------------------
# The smallest address space in which the program, started by ld.so with
# the list cudaload hands over, loads the package: cudaload's program must
# load it too with four pages more (chain mode leaves two, run.sh counts
# them; the rest is slack for a stack page more or less), in both modes.
# Before, chain mode needed 320 KiB more (its image and heap stayed mapped
# while ld.so loaded the program's libraries).
loads() { # loads LIMIT CMD...: does CMD load the package under RLIMIT_AS=LIMIT?
	lim=$1
	shift
	prlimit --as="$lim" env CUDALOAD_ROOT="$R" CUDALOAD_CONFIG="$F/empty.conf" "$@" 2>/dev/null |
		grep -qx "$COMPAT_LINE"
}
handed=$(CUDALOAD_DEBUG=1 run CUDALOAD_MODE=chain "$F/bin/probe" | sed -n 's/.* chain .*, LD_LIBRARY_PATH=//p')
page=$(getconf PAGESIZE)
if [ -z "$handed" ] || ! command -v prlimit >/dev/null 2>&1; then
	skip "RLIMIT_AS" "no prlimit here, or no list traced: '$handed'"
else
	lo=$page hi=$((256 << 20))
	while [ $((hi - lo)) -gt "$page" ]; do
		mid=$(((lo + hi) / 2))
		if loads $mid env LD_LIBRARY_PATH="$handed" "$F/bin/cudaprobe"; then hi=$mid; else lo=$mid; fi
	done
	for mode in chain exec; do
		if loads $((hi + 4 * page)) env CUDALOAD_MODE=$mode LD_LIBRARY_PATH="$R$DD" "$F/bin/probe"; then
			ok "RLIMIT_AS $hi bytes + 4 pages ($mode): the package loads as without cudaload"
		else
			bad "RLIMIT_AS $hi bytes + 4 pages ($mode): the package loads as without cudaload" \
				"$(prlimit --as=$((hi + 4 * page)) env CUDALOAD_ROOT="$R" CUDALOAD_CONFIG="$F/empty.conf" \
					CUDALOAD_MODE=$mode LD_LIBRARY_PATH="$R$DD" "$F/bin/probe" 2>&1 | head -3)"
		fi
	done
fi

# 10,000 compat candidates (version unknown, no libcuda): decided, in time.
many=$F/many
mkdir -p "$many/etc" "$many/usr/local"
cp -a "$R/proc" "$R/sys" "$R/usr" "$many/" 2>/dev/null
cp "$rel" "$many/etc/"
i=0
while [ $i -lt 10000 ]; do echo "cuda-x$i" "cuda-x$i/compat"; i=$((i + 1)); done | (cd "$many/usr/local" && xargs mkdir)
start=$(date +%s)
out=$(timeout 60 env CUDALOAD_ROOT="$many" CUDALOAD_CONFIG="$F/empty.conf" LD_LIBRARY_PATH="$many$DD" "$F/bin/probe" 2>&1)
status "10,000 candidates: runs" 0 $? "$(printf '%s' "$out" | head -5)"
has "10,000 candidates: the real one still wins" "$out" "libcuda=$many/usr/local/cuda-12.2/compat/libcuda.so.1 version=12020"
echo "     (10,000 candidates took $(( $(date +%s) - start )) s)"

# 40,000 leftover directories: only 256 candidates were
# kept, but the listing was not bounded: 130 MB resident and 1.7-4.4 s a
# start.  The entries read are (COMPAT_MAX_ENTRIES, cudaload(1) Bounds), so
# memory and system calls stay near a plain start's; said once.
i=10000
while [ $i -lt 40000 ]; do echo "cuda-x$i/compat"; i=$((i + 1)); done | (cd "$many/usr/local" && xargs mkdir -p)
# usage PROGRAM: its exit status and most memory resident (KiB, getrusage)
usage() {
	timeout 60 "$F/libs/maxrss" env CUDALOAD_ROOT="$many" CUDALOAD_CONFIG="$F/empty.conf" \
		LD_LIBRARY_PATH="$many$DD" "$@"
}
start=$(date +%s)
# shellcheck disable=SC2046
set -- $(usage "$F/bin/probe")
echo "     (40,000 directories: a start took $(( $(date +%s) - start )) s, $2 KiB resident)"
# shellcheck disable=SC2046
set -- "$1" "$2" $(usage "$F/bin/cudaprobe")
status "40,000 directories: runs" 0 "$1"
if [ "$2" -le $(($4 + 8192)) ]; then
	ok "40,000 directories: at most 8 MiB more resident than without cudaload ($2 KiB, $4 without)"
else
	bad "40,000 directories: at most 8 MiB more resident than without cudaload ($2 KiB, $4 without)"
fi
if command -v strace >/dev/null 2>&1; then
	strace -f -c -o "$F/strace.txt" env CUDALOAD_ROOT="$many" CUDALOAD_CONFIG="$F/empty.conf" \
		LD_LIBRARY_PATH="$many$DD" "$F/bin/probe" >/dev/null 2>&1
	calls=$(awk '$NF == "total" { print $4 }' "$F/strace.txt")
	# 256 candidates, a few calls each, and the program's own: was 290,000
	if [ -n "$calls" ] && [ "$calls" -le 5000 ]; then
		ok "40,000 directories: at most 5,000 system calls a start ($calls)"
	else
		bad "40,000 directories: at most 5,000 system calls a start (${calls:-none counted})" "$(tail -5 "$F/strace.txt")"
	fi
else
	skip "40,000 directories: system calls" "no strace"
fi
out=$(timeout 60 env CUDALOAD_ROOT="$many" CUDALOAD_CONFIG="$F/empty.conf" "$F/bin/cudaload" --explain 2>&1)
n=$(printf '%s\n' "$out" | grep -c 'stopped after reading 16384 directory entries: the rest is not looked at')
status "40,000 directories: the bound is said once in --explain" 1 "$n" "$(printf '%s\n' "$out" | grep 'compat path')"
finish
