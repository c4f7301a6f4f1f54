#!/bin/sh
# SPDX-License-Identifier: MIT
# On a host with a real NVIDIA kernel driver, the driver itself judges what
# cudaload decides: every compat package cudaload would hand out must pass
# cuInit, a program run through cudaload (as a command, patched, patched and
# stripped) must get the same answer from the driver as the decision promises,
# and --verify must store what the driver answered.  Skipped (with the
# reason) where there is no NVIDIA driver, as on CI machines.
# Usage: real-driver.sh BUILD
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
B=$(cd "${1:-$top/build}" && pwd)
. "$top/tests/e2e/lib/lib.sh"
echo "== a real NVIDIA driver judges cudaload's decisions"

if [ ! -r /sys/module/nvidia/version ]; then
	skip "real-driver suite" "no NVIDIA kernel module here (/sys/module/nvidia/version)"
	finish
	exit
fi
W=$B/device
mkdir -p "$W"
if ! ${CC:-cc} -O1 -o "$W/cuinit" "$here/cuinit.c" -ldl 2>"$W/cc.log"; then
	skip "real-driver suite" "cannot build the cuInit probe: $(head -n1 "$W/cc.log")"
	finish
	exit
fi
unset CUDALOAD_ROOT CUDALOAD_CONFIG CUDALOAD_POLICY CUDALOAD_COMPAT_PATH CUDALOAD_LDSO CUDALOAD_MODE
host=$(cat /sys/module/nvidia/version)
echo "host driver $host"

json() { # json KEYPATH: from $W/explain.json, with python3
	python3 -c 'import json,sys
d=json.load(open(sys.argv[1]))
for k in sys.argv[2].split("."):
    d=None if d is None else d[int(k)] if isinstance(d,list) else d.get(k)
print("" if d is None else d)' "$W/explain.json" "$1"
}
cuinit_of() { printf '%s\n' "$1" | sed -n 's/.* cuInit=\([0-9-]*\) .*/\1/p'; }

"$B/cudaload" --explain --json >"$W/explain.json"
status "explain reads the host driver" "$host" "$(json host_driver)"
status "a data-center host" dgpu "$(json platform)"
# Each GPU's architecture from its PCI function, as the driver names the device
g=0
while [ -n "$(json "gpu.devices.$g.bus")" ]; do
	bus=$(json "gpu.devices.$g.bus")
	id=$(json "gpu.devices.$g.device_id")
	status "gpu $bus: its device ID from sysfs" "$(cat "/sys/bus/pci/devices/$bus/device" 2>/dev/null)" "$id"
	if [ -n "$(json "gpu.devices.$g.architecture")" ]; then
		ok "gpu $bus ($(json "gpu.devices.$g.model"), $id): $(json "gpu.devices.$g.architecture")"
	else
		bad "gpu $bus ($(json "gpu.devices.$g.model"), $id): not in cudaload's table of NVIDIA's device IDs"
	fi
	if command -v nvidia-smi >/dev/null 2>&1; then
		smi=$(nvidia-smi --query-gpu=pci.bus_id,pci.device_id --format=csv,noheader 2>/dev/null |
			tr 'A-F' 'a-f' | sed -n "s/^0*${bus#0000}, 0x\(....\)10de\$/0x\1/p")
		[ -z "$smi" ] || status "gpu $bus: nvidia-smi names the same device" "$smi" "$id"
	fi
	g=$((g + 1))
done

direct=$("$W/cuinit")
echo "direct: $direct"
n=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["candidates"]))' "$W/explain.json")
i=0
while [ "$i" -lt "$n" ]; do
	dir=$(json "candidates.$i.dir")
	usable=$(json "candidates.$i.usable")
	got=$(LD_LIBRARY_PATH=$dir "$W/cuinit")
	r=$(cuinit_of "$got")
	echo "candidate $dir: usable=$usable, the driver says cuInit=$r ($(json "candidates.$i.reason"))"
	if [ "$usable" = True ]; then
		status "$dir: a package cudaload would use passes cuInit" 0 "$r" "$got"
	elif [ "$r" = 0 ]; then
		ok "$dir: refused though cuInit passes (the tables are stricter than this driver)"
	else
		ok "$dir: refused, and the driver refuses it too (cuInit=$r)"
	fi
	i=$((i + 1))
done

want=$(cuinit_of "$direct")
[ "$(json decision)" = compat ] && want=0
got=$("$B/cudaload" "$W/cuinit")
status "through cudaload: cuInit as decided" "$want" "$(cuinit_of "$got")" "$got"
if [ "$(json decision)" = compat ]; then
	contains "through cudaload: libcuda from the chosen package" "$got" "lib=$(json compat_dir)/"
else
	status "through cudaload: the same libcuda as without it" "$(printf '%s\n' "$direct" | sed 's/ .*//')" \
		"$(printf '%s\n' "$got" | sed 's/ .*//')"
fi
cp "$W/cuinit" "$W/cuinit-patched"
"$B/cudaload-patch" --quiet --no-record "$W/cuinit-patched" >/dev/null
got=$("$W/cuinit-patched")
status "patched (chain): cuInit as decided" "$want" "$(cuinit_of "$got")" "$got"
got=$(env CUDALOAD_MODE=exec "$W/cuinit-patched")
status "patched (exec): cuInit as decided" "$want" "$(cuinit_of "$got")" "$got"
for tool in strip eu-strip; do
	command -v $tool >/dev/null 2>&1 || { skip "$tool" "not installed"; continue; }
	cp "$W/cuinit-patched" "$W/cuinit-stripped"
	$tool "$W/cuinit-stripped" 2>/dev/null
	got=$("$W/cuinit-stripped")
	status "patched, then $tool: cuInit as decided" "$want" "$(cuinit_of "$got")" "$got"
done

if [ "$(id -u)" -ne 0 ]; then
	skip "--verify" "not root"
else
	"$B/cudaload" --verify >"$W/verify.txt" 2>&1
	status "--verify runs" 0 $? "$(cat "$W/verify.txt")"
	cat "$W/verify.txt"
	"$B/cudaload" --explain --json >"$W/explain.json"
	status "the system driver's verdict is what the driver says" "cu=$(cuinit_of "$direct")" \
		"$(json system_verdict.result)"
	i=0
	while [ "$i" -lt "$n" ]; do
		dir=$(json "candidates.$i.dir")
		r=$(cuinit_of "$(LD_LIBRARY_PATH=$dir "$W/cuinit")")
		status "$dir: its verdict is what the driver says" "cu=$r" "$(json "candidates.$i.verdict.result")"
		i=$((i + 1))
	done
fi
finish
