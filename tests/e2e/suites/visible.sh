#!/bin/sh
# SPDX-License-Identifier: MIT
# Judged on the GPUs the process sees (common/host/visible.h): hosts with two
# kinds of GPU (tests/fixtures/visible/), every form of CUDA_VISIBLE_DEVICES
# and CUDA_DEVICE_ORDER, in exec and chain mode, run as `cudaload PROGRAM`
# and patched; what --explain says; the prepared decision keyed by the
# value; a patched child with a value of its own.  Usage: visible.sh BUILD
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
B=$(cd "${1:-$top/build}" && pwd)
. "$here/../lib/lib.sh"
echo "== end-to-end, the GPUs a process sees"
for_arch "$(uname -m)"
W=$B/e2e-visible
rm -rf "$W"
mkdir -p "$W/libs" "$W/bin"
${HOSTCC:-cc} -O1 -o "$W/libs/mknote" "$here/../helpers/mknote.c"
$TCC -O1 -o "$W/bin/cudaprobe" "$here/../helpers/cudaprobe.c" -ldl
cp "$W/bin/cudaprobe" "$W/bin/probe"
"$B/cudaload-patch" --interp "$CL" "$W/bin/probe" >/dev/null
: >"$W/empty.conf"
for p in v100-h100-535 rtx4090-l20-570; do
	sh "$here/../lib/mkroot.sh" "$top/tests/fixtures/visible/$p.profile" "$W/$p" "$W/libs" ||
		{ bad "$p: fixture"; finish; exit; }
done
DD=/usr/lib/x86_64-linux-gnu

# run PROFILE VALUE ORDER CMD...: CMD on the profile's host, VALUE the
# program's CUDA_VISIBLE_DEVICES ("-": unset), ORDER its CUDA_DEVICE_ORDER
run() {
	r=$W/$1 value=$2 order=$3
	shift 3
	if [ "$value" = - ]; then
		set -- env -u CUDA_VISIBLE_DEVICES "$@"
	else
		set -- env CUDA_VISIBLE_DEVICES="$value" "$@"
	fi
	[ "$order" = - ] || set -- env CUDA_DEVICE_ORDER="$order" "$@"
	env -u CUDA_DEVICE_ORDER CUDALOAD_ROOT="$r" CUDALOAD_CONFIG="$W/empty.conf" \
		CUDALOAD_MODE="$mode" LD_LIBRARY_PATH="$r$DD" "$@" 2>&1
}
loaded() { printf '%s\n' "$1" | sed -n 's/^libcuda=.* version=\([0-9]*\)$/\1/p' | head -n1; }

# PROFILE | CUDA_VISIBLE_DEVICES ("-": unset) | CUDA_DEVICE_ORDER | CUDA loaded | how chosen
# Sources: CUDA C Programming Guide, CUDA Environment Variables (the forms,
# the list ending at an invalid entry, the default order fastest first);
# the profiles' own (what each GPU allows).
H100=GPU-5d8a6e2c-1f0b-4c93-9a7e-2b64c1d0e8f3
V100=GPU-9e1c4b7a-3d2f-4e6a-8b5c-7f0a1d2e3c4b
RTX=GPU-1b2c3d4e-5f60-7182-93a4-b5c6d7e8f901
L20=GPU-a0b1c2d3-e4f5-0617-2839-4a5b6c7d8e9f
cases="v100-h100-535|-|-|13000|unset
v100-h100-535|$H100|-|13010|named
v100-h100-535|GPU-5d8a|-|13010|named
v100-h100-535|gpu-5D8A6E2C|-|13010|named
v100-h100-535| GPU-5d8a |-|13010|named
v100-h100-535|$V100|-|13000|named
v100-h100-535|$H100,$V100|-|13000|named
v100-h100-535|GPU-|-|13000|named
v100-h100-535|MIG-$H100/1/0|-|13010|named
v100-h100-535|MIG-4f1e2d3c-5b6a-5988-a9ba-cbdcedfe0f10|-|13000|every
v100-h100-535|0|-|13000|every
v100-h100-535|0|FASTEST_FIRST|13000|every
v100-h100-535|0|PCI_BUS_ID|13010|named
v100-h100-535|1|PCI_BUS_ID|13000|named
v100-h100-535|0,-1,1|PCI_BUS_ID|13010|named
v100-h100-535|$H100,GPU-ffffffff,$V100|-|13010|named
v100-h100-535|1x|-|13000|every
v100-h100-535||-|12020|none
v100-h100-535|-1|-|12020|none
v100-h100-535|2|PCI_BUS_ID|12020|none
v100-h100-535|GPU-ffffffff|-|12020|none
v100-h100-535|NoDevFiles|-|12020|none
rtx4090-l20-570|-|-|12080|unset
rtx4090-l20-570|$L20|-|13000|named
rtx4090-l20-570|GPU-a0b1|-|13000|named
rtx4090-l20-570|$RTX|-|12080|named
rtx4090-l20-570|$L20,$RTX|-|12080|named
rtx4090-l20-570|1|PCI_BUS_ID|13000|named
rtx4090-l20-570|1|-|12080|every
rtx4090-l20-570|MIG-GPU-a0b1c2d3-e4f5-0617-2839-4a5b6c7d8e9f/2/0|-|13000|named
rtx4090-l20-570|-1|-|12080|none"

for mode in exec chain; do
	printf '%s\n' "$cases" | { pass=0 fail=0; while IFS='|' read -r p value order want rule; do
		tag="$mode: $p, CUDA_VISIBLE_DEVICES=${value:-(empty)}${order#-}"
		[ "$order" = - ] || tag="$tag CUDA_DEVICE_ORDER=$order"
		[ "$value" != - ] || tag="$mode: $p, CUDA_VISIBLE_DEVICES unset"
		for prog in "$CL $W/bin/cudaprobe" "$W/bin/probe"; do
			# shellcheck disable=SC2086
			out=$(run "$p" "$value" "$order" $prog)
			got=$(loaded "$out")
			status "$tag: ${prog##*/} loads CUDA $want" "$want" "$got" "$out"
		done
		json=$(run "$p" "$value" "$order" "$CL" --explain --json "$W/bin/cudaprobe")
		contains "$tag: --explain --json: $rule" "$json" "\"rule\":\"$rule\""
		echo "$pass $fail" >"$W/counts"
	done; } >"$W/cases.log"
	grep -v '^ok ' "$W/cases.log"
	read -r p f <"$W/counts"
	pass=$((pass + p)) fail=$((fail + f))
	echo "ok   $mode: $p checks of the table passed"
done

mode=chain
# --explain names the GPUs judged and how they were chosen
out=$(run v100-h100-535 "GPU-5d8a,GPU-ffff,$V100" - "$CL" --explain "$W/bin/cudaprobe")
has "explain: how the GPUs were chosen" "$out" \
	"gpus judged:  CUDA_VISIBLE_DEVICES=GPU-5d8a,GPU-ffff,$V100: the GPUs it names, by UUID; GPU-ffff names no GPU: the list ends there"
contains "explain: the V100 not judged" "$out" "Tesla V100-SXM2-16GB (Tesla; Volta, device 0x1db1, supported up to driver branch R580), not seen by the program: not judged"
lacks "explain: the H100 judged" "$out" "HBM3 (NVIDIA; Hopper, device 0x2330), not seen"
contains "explain: compat 13.1" "$out" "reason:       compat CUDA 13.1"
out=$(run v100-h100-535 1 - "$CL" --explain "$W/bin/cudaprobe")
contains "explain: an index in the default order: every GPU, and why" "$out" \
	"every GPU, indexes count in CUDA's default order (fastest first), which only the driver knows (CUDA_DEVICE_ORDER=PCI_BUS_ID counts them by bus)"
out=$(run v100-h100-535 "" - "$CL" --explain "$W/bin/cudaprobe")
contains "explain: an empty value: no GPU, the system driver" "$out" \
	"reason:       system driver: CUDA_VISIBLE_DEVICES names no GPU: the program sees none"
json=$(run v100-h100-535 "$H100" PCI_BUS_ID "$CL" --explain --json "$W/bin/cudaprobe")
contains "explain --json: the value" "$json" "\"visible_gpus\":{\"value\":\"$H100\",\"order\":\"PCI_BUS_ID\",\"rule\":\"named\""
visible=$(printf '%s' "$json" | /usr/bin/python3 -c '
import json, sys
print(" ".join("%s=%s" % (d["bus"], d["visible"]) for d in json.load(sys.stdin)["gpu"]["devices"]))')
status "explain --json: each GPU seen or not" "0000:17:00.0=True 0000:65:00.0=False" "$visible" "$json"
json=$(run v100-h100-535 - - "$CL" --explain --json "$W/bin/cudaprobe")
contains "explain --json: unset" "$json" "\"visible_gpus\":{\"value\":null,\"order\":\"FASTEST_FIRST\",\"rule\":\"unset\""

# --status judges the machine, not a process: every GPU, whatever its own
# environment says
out=$(run v100-h100-535 "$H100" - "$CL" --status)
contains "--status: every GPU, though its environment names one" "$out" "V100"
contains "--status: the machine's choice is the V100's" "$out" "cuda-13.0/compat"

# The prepared decision (common/stores/prepared.h) is kept for one value: another
# value is judged again, the same value is served again.  Without an
# LD_LIBRARY_PATH of the program's own, which would take the full path.
cp -a "$W/v100-h100-535" "$W/prepared"
sleep 1.2	# past the racy second of every file just made (prepared.h)
start() { run prepared "$1" - env -u LD_LIBRARY_PATH "$W/bin/probe"; }
trace() { run prepared "$1" - env -u LD_LIBRARY_PATH CUDALOAD_DEBUG=1 "$W/bin/probe" | sed -n 's/.*: prepared decision: //p'; }
start - >/dev/null
got=$(trace -)
status "prepared: written for the start without a value" "holds (the full path runs for this trace)" "$got"
got=$(trace "$H100")
case $got in holds*) bad "prepared: not served for another value" "$got" ;; *) ok "prepared: not served for another value: $got" ;; esac
got=$(loaded "$(start "$H100")")
status "prepared: the H100 alone takes 13.1" 13010 "$got"
got=$(trace "$H100")
status "prepared: then kept for that value" "holds (the full path runs for this trace)" "$got"
got=$(loaded "$(start -)")
status "prepared: without it, 13.0 again" 13000 "$got"
got=$(start "")
lacks "prepared: an empty value is not the unset one (no GPU: the system driver)" "$got" "cuda-13.0/compat"

# A process tree: `cudaload PROGRAM` hands its driver down; a patched child
# with a value of its own is judged again on its GPUs (docs/running.md).
out=$(run v100-h100-535 - - "$CL" /bin/sh -c "CUDA_VISIBLE_DEVICES=$H100 exec $W/bin/probe")
status "tree: a patched child that sees the H100 alone takes 13.1" 13010 "$(loaded "$out")" "$out"
out=$(run v100-h100-535 - - "$CL" /bin/sh -c "CUDA_VISIBLE_DEVICES=$H100 exec $W/bin/cudaprobe")
status "tree: a child not patched keeps its parent's 13.0" 13000 "$(loaded "$out")" "$out"
finish
