#!/bin/sh
# SPDX-License-Identifier: MIT
# cudaload --status --nfd and --nfd-dir DIR: a node's labels for Node
# Feature Discovery's local source (docs/fleet.md, cudaload(1)).
#
# Each fixture host (tests/fixtures/*.profile under CUDALOAD_ROOT, and three
# written here) gives exactly its label lines; every name and value is valid
# by Kubernetes' label rules; the expiry directive parses and lies ahead by
# the documented interval; --nfd-dir writes the same lines to DIR/cudaload,
# under 64 KiB, atomically (traced), a second run replacing the file; a
# directory it cannot write is exit 2 with the reason.  The exit status is
# --status's own.
# Usage: nfd.sh BUILD
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
B=$(cd "${1:-$top/build}" && pwd)
. "$here/../lib/lib.sh"
echo "== end-to-end, cudaload --status --nfd"

# Debian's python3 (lib.sh), for the label rules and the time
py3=/usr/bin/python3
[ -x "$py3" ] || { skip "nfd suite" "no /usr/bin/python3 to check the labels"; finish; exit; }
W=$B/e2e-nfd
rm -rf "$W"
mkdir -p "$W/libs"
L=$W/libs
: >"$W/empty.conf"
${CC:-cc} -O1 -o "$L/mknote" "$here/../helpers/mknote.c" || { bad "build mknote"; finish; exit; }

# Hosts the fixtures do not have, from the nearest one: the same H100 without
# a package, and on the R580 branch (580.95.05, CUDA 13.0) with
# cuda-compat-13-1 (590.44.01) whose note lists 580.
h100=$top/tests/fixtures/dgpu-h100-535-compat-13-1.profile
grep -v '^compat=' "$h100" >"$W/h100-535-none.profile"
sed -e 's/^nvidia_version=.*/nvidia_version=580.95.05/' -e 's/^host_cuda=.*/host_cuda=13000/' \
	"$h100" >"$W/h100-580-compat-13-1.profile"

# labels HOST PROFILE: its root under $W/HOST; --status --nfd there into
# $out and $rc, plain --status's exit status into $trc
labels() {
	R=$W/$(printf '%s' "$1" | tr -c 'A-Za-z0-9' '-')
	if ! sh "$here/../lib/mkroot.sh" "$2" "$R" "$L" >/dev/null 2>&1; then
		bad "$1: build the root"
		return 1
	fi
	N="env -i CUDALOAD_FIRST_USE=off CUDALOAD_ROOT=$R CUDALOAD_CONFIG=$W/empty.conf $B/cudaload"
	out=$($N --status --nfd 2>&1)
	rc=$?
	$N --status >/dev/null 2>&1
	trc=$?
}

# k8s_valid NAME TEXT: every line of TEXT is a comment or NAME=VALUE valid by
# Kubernetes' rules for labels (a qualified name: a DNS subdomain prefix, '/',
# a name of at most 63 characters; a value of at most 63, alphanumeric at
# both ends, '-', '_' and '.' inside), the versions integers (nodeAffinity's
# Gt and Lt), the booleans true or false; one expiry directive, RFC 3339,
# ahead by two hours (STATUS_NFD_EXPIRY_SECONDS) within a minute
k8s_valid() {
	got=$(printf '%s\n' "$2" | "$py3" -c '
import datetime, re, sys
name = re.compile(r"[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$")
prefix = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
value = re.compile(r"(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")
now = datetime.datetime.now(datetime.timezone.utc)
expiries = 0
for line in sys.stdin.read().splitlines():
    if line.startswith("# +expiry-time="):
        expiries += 1
        t = datetime.datetime.fromisoformat(line.split("=", 1)[1].replace("Z", "+00:00"))
        ahead = (t - now).total_seconds()
        if t.utcoffset() != datetime.timedelta(0) or not 7200 - 60 <= ahead <= 7200 + 1:
            print("expiry %s: %d s ahead, not 2 h in UTC" % (t, ahead))
        continue
    if line.startswith("#"):
        continue
    k, eq, v = line.partition("=")
    p, slash, n = k.rpartition("/")
    if not eq or not slash or p != "cudaload.dev" or not prefix.match(p) or len(p) > 253:
        print("not a prefixed NAME=VALUE: %r" % line)
    if len(n) > 63 or not name.match(n):
        print("name %r" % n)
    if len(v) > 63 or not value.match(v):
        print("value %r" % v)
    if n.endswith((".major", ".minor")) and not re.match(r"(0|[1-9][0-9]*)$", v):
        print("%s: %r is no integer" % (n, v))
    if n in ("compat.usable", "holds") and v not in ("true", "false"):
        print("%s: %r is no boolean" % (n, v))
if expiries != 1:
    print("%d expiry directives" % expiries)
' 2>&1)
	status "$1: names, values and expiry by Kubernetes' and NFD's rules" "" "$got"
}

# host NAME PROFILE EXIT LABEL...: the host's labels are LABEL... exactly
# (cudaload.dev/ left off), in that order, its exit status EXIT, that of
# plain --status
host() {
	hn=$1 hp=$2 hx=$3
	shift 3
	labels "$hn" "$hp" || return
	want=$(for l in "$@"; do printf 'cudaload.dev/%s\n' "$l"; done)
	status "$hn: the labels" "$want" "$(printf '%s\n' "$out" | grep -v '^#')" "$out"
	status "$hn: exit status" "$hx" "$rc" "$out"
	status "$hn: exit status as plain --status's" "$trc" "$rc"
	k8s_valid "$hn" "$out"
}

F=$top/tests/fixtures
# The expectations are NVIDIA's tables as docs/decision.md and
# common/host/tables.c give them: the driver table ("CUDA Toolkit and
# Corresponding Driver Versions": 535 -> 12.2, 570 -> 12.8, 580 -> 13.0),
# the forward-compatibility table (13.4 edition: branches 535, 570, 580,
# 590, 595, 610, 615 take packages up to CUDA 13.4), the brands (GeForce:
# no forward compatibility, cuInit 804), the driver deprecation schedule
# (R580 is Volta's last branch: CUDA 13.0's package, R580, is the newest a
# V100 runs), and the CUDA for Tegra application note (JetPack 5: up to
# 12.2; JetPack 6: up to 12.9, no 13.x).  cuda.runtime is each fixture's
# own expect_version.

# H100, 535, cuda-compat-13-1 whose note lists 535 (the fixture: compat 13.1)
host "H100 535 with cuda-compat-13-1" "$F/dgpu-h100-535-compat-13-1.profile" 0 \
	cuda.system.major=12 cuda.system.minor=2 cuda.runtime.major=13 cuda.runtime.minor=1 \
	cuda.forward.major=13 cuda.forward.minor=4 compat.usable=true holds=true
H100_ROOT=$R
# the same host, no package: programs get the system's 12.2; an image's
# own package up to 13.4 would be taken
host "H100 535, no package" "$W/h100-535-none.profile" 0 \
	cuda.system.major=12 cuda.system.minor=2 cuda.runtime.major=12 cuda.runtime.minor=2 \
	cuda.forward.major=13 cuda.forward.minor=4 compat.usable=false holds=true
# H100 on 580 (CUDA 13.0) with cuda-compat-13-1: its note lists 580 and its
# 590.44.01 is newer than 580.95.05 (toolkit rule): 13.1; the table: 13.4
host "H100 580 with cuda-compat-13-1" "$W/h100-580-compat-13-1.profile" 0 \
	cuda.system.major=13 cuda.system.minor=0 cuda.runtime.major=13 cuda.runtime.minor=1 \
	cuda.forward.major=13 cuda.forward.minor=4 compat.usable=true holds=true
# GeForce RTX 4090 on 570 (CUDA 12.8): no forward compatibility at all
host "GeForce" "$F/dgpu-geforce.profile" 0 \
	cuda.system.major=12 cuda.system.minor=8 cuda.runtime.major=12 cuda.runtime.minor=8 \
	compat.usable=false holds=true
# V100 on 535: 13.1 (R590) refused, 13.0 (R580) taken; forward: 13.0 too,
# the newest release of a branch Volta is supported on
host "V100 535" "$F/dgpu-v100-535-compat-13-1.profile" 0 \
	cuda.system.major=12 cuda.system.minor=2 cuda.runtime.major=13 cuda.runtime.minor=0 \
	cuda.forward.major=13 cuda.forward.minor=0 compat.usable=true holds=true
# V100 beside an H100 on 535: the node's labels speak for both GPUs, so
# the V100's limit holds for the node
host "V100+H100 535" "$F/dgpu-h100-v100-535-mixed.profile" 0 \
	cuda.system.major=12 cuda.system.minor=2 cuda.runtime.major=13 cuda.runtime.minor=0 \
	cuda.forward.major=13 cuda.forward.minor=0 compat.usable=true holds=true
# ... whatever CUDA_VISIBLE_DEVICES the labelling process has (0 in PCI
# order: the H100 alone, which would take 13.1)
out_all=$out
out=$(env -i CUDALOAD_FIRST_USE=off CUDALOAD_ROOT="$R" CUDALOAD_CONFIG="$W/empty.conf" \
	CUDA_VISIBLE_DEVICES=0 CUDA_DEVICE_ORDER=PCI_BUS_ID "$B/cudaload" --status --nfd 2>&1)
status "V100+H100 535: CUDA_VISIBLE_DEVICES plays no part" "$(printf '%s\n' "$out_all" | grep -v '^#')" \
	"$(printf '%s\n' "$out" | grep -v '^#')"
# AGX Orin, JetPack 5.1.2 (r35.4.1, CUDA 11.4): 12.2 taken, 12.4 refused
host "Orin JetPack 5" "$F/board-agx-orin-jp5.1.2.profile" 0 \
	cuda.system.major=11 cuda.system.minor=4 cuda.runtime.major=12 cuda.runtime.minor=2 \
	cuda.forward.major=12 cuda.forward.minor=2 compat.usable=true holds=true
# AGX Orin, JetPack 6.2 (r36.4.3, CUDA 12.6): 12.9 taken, 13.0 refused
host "Orin JetPack 6" "$F/board-agx-orin-jp6.2.profile" 0 \
	cuda.system.major=12 cuda.system.minor=6 cuda.runtime.major=12 cuda.runtime.minor=9 \
	cuda.forward.major=12 cuda.forward.minor=9 compat.usable=true holds=true
# no GPU, no driver: no CUDA to label (a package is installed, unused)
host "no GPU" "$F/no-gpu.profile" 0 compat.usable=false holds=true
contains "no GPU: says why there is no cuda.* label" "$out" "# no NVIDIA GPU or driver: no cuda.* label"

# A status that does not hold: a recorded program gone (exit 1, as --status)
mkdir -p "$H100_ROOT/var/lib/cudaload"
printf '/usr/bin/cudaload\t/opt/app/bin/gone\n' >"$H100_ROOT/var/lib/cudaload/patched"
N="env -i CUDALOAD_FIRST_USE=off CUDALOAD_ROOT=$H100_ROOT CUDALOAD_CONFIG=$W/empty.conf $B/cudaload"
out=$($N --status --nfd 2>&1)
status "does not hold: exit 1" 1 "$?" "$out"
has "does not hold: holds=false" "$out" "cudaload.dev/holds=false"
has "does not hold: the package still taken" "$out" "cudaload.dev/compat.usable=true"
rm "$H100_ROOT/var/lib/cudaload/patched"

# ---- --nfd-dir: the feature file ----
D=$W/features.d
mkdir -p "$D"
printf 'old\n' >"$D/cudaload"
old_inode=$(stat -c %i "$D/cudaload")
out=$($N --status --nfd --nfd-dir "$D" 2>&1)
status "--nfd-dir: exit" 0 "$?" "$out"
status "--nfd-dir: the file says what --nfd prints" "$out" "$(cat "$D/cudaload")"
status "--nfd-dir: named cudaload, nothing else there" cudaload "$(ls -A "$D")"
size=$(stat -c %s "$D/cudaload")
[ "$size" -lt 65536 ] && ok "--nfd-dir: $size bytes, under NFD's 64 KiB" || bad "--nfd-dir: $size bytes"
status "--nfd-dir: a plain file of one link, 0644" "regular file 1 644" "$(stat -c '%F %h %a' "$D/cudaload")"
[ "$(stat -c %i "$D/cudaload")" != "$old_inode" ] && ok "--nfd-dir: the old file replaced by another" ||
	bad "--nfd-dir: written in place, not replaced"
k8s_valid "--nfd-dir" "$(cat "$D/cudaload")"
# without --nfd the text status is printed and the file still written
txt=$($N --status --nfd-dir "$D" 2>&1)
status "--nfd-dir alone: exit" 0 "$?" "$txt"
contains "--nfd-dir alone: the text status" "$txt" "status:       holds"
has "--nfd-dir alone: the file" "$(cat "$D/cudaload")" "cudaload.dev/cuda.runtime.minor=1"
# with --textfile: both files
mkdir -p "$W/tf"
$N --status --nfd-dir "$D" --textfile "$W/tf" >/dev/null
status "--nfd-dir with --textfile: exit" 0 "$?"
status "--nfd-dir with --textfile: both written" "cudaload cudaload.prom" "$(ls -A "$D") $(ls -A "$W/tf")"
# shellcheck disable=SC2086
written_atomically "--nfd-dir, traced" "$D" cudaload $N --status --nfd-dir "$D"
has "--nfd-dir, traced: written" "$(cat "$D/cudaload" 2>&1)" "cudaload.dev/holds=true"

# a directory it cannot write: exit 2 and why, the old file untouched
U=$W/unwritable
mkdir -p "$U"
printf 'old\n' >"$U/cudaload"
chmod 755 "$U"
if [ "$(id -u)" -eq 0 ]; then
	as_other="setpriv --reuid=65534 --regid=65534 --clear-groups"
	command -v setpriv >/dev/null 2>&1 || as_other=
else
	as_other=" "
	chmod 555 "$U"
fi
if [ -n "$as_other" ]; then
	# shellcheck disable=SC2086
	err=$($as_other $N --status --nfd-dir "$U" 2>&1 >/dev/null)
	status "unwritable --nfd-dir: exit 2" 2 "$?" "$err"
	has "unwritable --nfd-dir: says which file and why" "$err" \
		"cudaload: --nfd-dir: $U/cudaload: Permission denied"
	status "unwritable --nfd-dir: the old file untouched" old "$(cat "$U/cudaload")"
else
	skip "unwritable --nfd-dir" "root, and no setpriv to run as another user"
fi
chmod 755 "$U"
err=$($N --status --nfd-dir "$W/no-such-dir" 2>&1 >/dev/null)
status "missing --nfd-dir: exit 2" 2 "$?" "$err"
has "missing --nfd-dir: says why" "$err" "cudaload: --nfd-dir: $W/no-such-dir/cudaload: No such file or directory"
err=$($N --status --nfd-dir "$D/cudaload" 2>&1 >/dev/null)
status "--nfd-dir a file: exit 2" 2 "$?" "$err"
has "--nfd-dir a file: says why" "$err" "cudaload: --nfd-dir: $D/cudaload/cudaload: Not a directory"

# ---- the timer's service: CUDALOAD_NFD_DIR, as systemd hands ExecStart to the shell ----
run=$(sed -n "s|^ExecStart=/bin/sh -c '\(.*\)'\$|\1|p" "$top/etc/cudaload-status.service" |
	sed -e "s|@BINDIR@|$B|" -e 's/\$\$/$/g')
U2="$W/unit dir"
mkdir -p "$U2"
out=$(env -i CUDALOAD_FIRST_USE=off CUDALOAD_ROOT="$H100_ROOT" CUDALOAD_CONFIG="$W/empty.conf" \
	CUDALOAD_NFD_DIR="$U2" sh -c "$run" 2>&1)
status "timer's unit: CUDALOAD_NFD_DIR: exit" 0 "$?" "$out"
status "timer's unit: CUDALOAD_NFD_DIR alone: the labels only" cudaload "$(ls -A "$U2")"
has "timer's unit: CUDALOAD_NFD_DIR: the labels" "$(cat "$U2/cudaload" 2>&1)" "cudaload.dev/cuda.runtime.minor=1"
rm -f "$U2/cudaload" && mkdir -p "$W/unit tf"
env -i CUDALOAD_FIRST_USE=off CUDALOAD_ROOT="$H100_ROOT" CUDALOAD_CONFIG="$W/empty.conf" \
	CUDALOAD_NFD_DIR="$U2" CUDALOAD_TEXTFILE_DIR="$W/unit tf" sh -c "$run"
status "timer's unit: both directories: exit" 0 "$?"
status "timer's unit: both directories: both files" "cudaload cudaload.prom" "$(ls -A "$U2") $(ls -A "$W/unit tf")"

# ---- usage ----
for u in "--nfd" "--nfd-dir $D" "--explain --nfd" "--status --nfd --json" "--status --nfd --prometheus" \
	"--status --nfd-dir"; do
	# shellcheck disable=SC2086
	err=$($N $u 2>&1 >/dev/null)
	status "usage: $u: exit 100" 100 "$?" "$err"
done

# ---- bash completion: the options, a directory after --nfd-dir ----
if [ -f /usr/share/bash-completion/bash_completion ] && command -v bash >/dev/null; then
	out=$(cd "$top" && PATH=$B:$PATH bash -c '
		. /usr/share/bash-completion/bash_completion
		. etc/bash-completion
		t() { COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMPREPLY=()
		      COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
		      _cudaload "$1" "${COMP_WORDS[-1]}" "${COMP_WORDS[-2]}"; echo "$* => ${COMPREPLY[*]}"; }
		t cudaload --status --nf; t cudaload --status --nfd-dir et' 2>&1)
	has "completion: cudaload --status --nf" "$out" "cudaload --status --nf => --nfd --nfd-dir"
	has "completion: a directory after --nfd-dir" "$out" "cudaload --status --nfd-dir et => etc"
else
	skip "bash completion" "bash-completion not installed (scripts/deps.sh installs it)"
fi

# ---- the docs name the labels cudaload writes ----
names=$(printf '%s\n' "$out_all" "cudaload.dev/cuda.forward.major=0" | sed -n 's/^\(cudaload\.dev\/[^=]*\)=.*/\1/p' | sort -u)
for doc in "$top/docs/fleet.md" "$top/man/cudaload.1"; do
	# (the labels' shapes: cudaload.dev/compat alone is the hook's CDI device)
	unknown=$(grep -o 'cudaload\.dev/\(cuda\.[a-z]*\.[a-z]*\|compat\.[a-z]*\|holds\)' "$doc" | sort -u |
		grep -vxF "$names")
	status "$(basename "$doc"): every cudaload.dev/ label it names is one cudaload writes" "" "$unknown"
	text=$(sed 's/\\-/-/g; s/\\&//g' "$doc")
	for n in $names; do
		in_text "$text" "$n" && ok "$(basename "$doc"): documents $n" || bad "$(basename "$doc"): does not name $n"
	done
done
finish
