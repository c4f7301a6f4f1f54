#!/bin/sh
# SPDX-License-Identifier: MIT
# cudaload --verify and the verdict store (common/stores/verdicts.h): the real
# verifier starts the fake libcuda of each fixture (tests/e2e/helpers/fakecuda.c,
# answering cuInit, each device's context and the PTX module on it with
# what the fixture's fake-cuinit says) with the search list the hand-over
# would use, stores the verdicts under CUDALOAD_ROOT, and
# the loader honours them as a command and as PT_INTERP, in exec and chain
# mode.  Prints the verdict table of every fixture at the end.
# Usage: verify.sh BUILD [x86_64|aarch64]  (aarch64 elsewhere under qemu-user)
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
B=$(cd "${1:-$top/build}" && pwd)
arch=${2:-$(uname -m)}
HOSTCC=${CC:-cc}
. "$here/../lib/lib.sh"

verifier_suite "$arch" "verify suite" || { finish; exit; }
echo "== verify, $arch: $CL --verify"
W=$B/e2e-verify-$arch
rm -rf "$W"
mkdir -p "$W/libs" "$W/roots" "$W/bin"
: >"$W/empty.conf"
CC=$TCC
export CC OBJCOPY
$HOSTCC -O1 -o "$W/libs/mknote" "$here/../helpers/mknote.c"
$TCC -O1 -o "$W/bin/cudaprobe" "$here/../helpers/cudaprobe.c" -ldl
cp "$W/bin/cudaprobe" "$W/bin/probe-patched"
"$B/cudaload-patch" --interp "$CL" "$W/bin/probe-patched" >/dev/null

# under ROOT DRIVER_DIR CMD...: as run.sh, the driver dir standing in for ld.so.cache
under() {
	r=$1 dd=$2
	shift 2
	env CUDALOAD_ROOT="$r" CUDALOAD_CONFIG="${CONFIG:-$W/empty.conf}" LD_LIBRARY_PATH="$r$dd" "$@" 2>&1
}
verify() { # verify ROOT DRIVER_DIR [ARGS]: cudaload --verify, its status in vst
	r=$1 dd=$2
	shift 2
	out=$(under "$r" "$dd" "$CL" --verify --timeout 3 "$@")
	vst=$?
}
# libcuda_version TEXT: the version its first libcuda= line says, in $v
libcuda_version() {
	first_line "$1" libcuda=
	v=${line##* version=}
	case $line in *" version="*) case $v in *[!0-9]* | "") v= ;; esac ;; *) v= ;; esac
}

# ---- one fixture after another: verify, then what each way of running gets ----
for profile in "$top"/tests/fixtures/*.profile; do
	name=$(basename "$profile" .profile)
	root=$W/roots/$name
	sh "$here/../lib/mkroot.sh" "$profile" "$root" "$W/libs" || { bad "$name: fixture"; continue; }
	(
		expect_dir= expect_verified= expect_verified_dir= expect_verified_version= driver_dir=
		. "$profile"
		want=${expect_verified:-$expect_decision}
		want_dir=${expect_verified_dir:-$expect_dir}
		want_version=${expect_verified_version:-$expect_version}
		verify "$root" "$driver_dir"
		printf '%s\n' "$out" >"$W/roots/$name.verify"
		json=$(under "$root" "$driver_dir" "$CL" --explain --json "$W/bin/cudaprobe")
		got=$(printf '%s' "$json" | sed -n 's/.*"decision":"\([a-z]*\)".*/\1/p')
		verdicts=$(sed -n 's/^compat \([a-z]*=[0-9]*\) \([a-z:0-9]*\) .* \(\/.*\)$/\3 \1 \2/p' "$root/run/cudaload/verdicts" | tr '\n' ';')
		echo "verdicts $name: ${verdicts:-no candidate} tables $expect_decision, verified $got" >"$W/roots/$name.table"
		[ "$vst" = 0 ] && echo "ok   $name: --verify ran" || echo "FAIL $name: --verify exit $vst"
		[ "$got" = "$want" ] && echo "ok   $name: verified decision $want" || echo "FAIL $name: verified decision $got, want $want"
		for m in exec chain; do
			for prog in "$CL $W/bin/cudaprobe" "$W/bin/probe-patched"; do
				# shellcheck disable=SC2086
				o=$(CUDALOAD_MODE=$m under "$root" "$driver_dir" $prog)
				libcuda_version "$o"
				[ "$v" = "$want_version" ] && echo "ok   $name: $m ${prog##*/} loads CUDA $want_version" ||
					echo "FAIL $name: $m ${prog##*/} loads CUDA $v, want $want_version"
				if [ -n "$want_dir" ] && [ "$want" = compat ]; then
					case $o in *"libcuda=$root$want_dir/"*) ;; *) echo "FAIL $name: $m not from $want_dir" ;; esac
				fi
			done
		done
	) >"$W/roots/$name.log"
	cat "$W/roots/$name.log"
	pass=$((pass + $(grep -c '^ok' "$W/roots/$name.log"))) fail=$((fail + $(grep -c '^FAIL' "$W/roots/$name.log")))
done

# ---- the reported cases, on the workstation fixture ---------------------------
D=$W/roots/dgpu-workstation-804
DD=/usr/lib/x86_64-linux-gnu
C=$D/usr/local/cuda-12.9/compat
has "804: the verifier says what it means" "$(cat "$W/roots/dgpu-workstation-804.verify")" \
	"/usr/local/cuda-12.9/compat: cuInit returned 804 (CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE: a GPU here does not support forward compatibility) [driver API 12090]: fails: not used from now on"
out=$(under "$D" $DD "$CL" --explain)
contains "804: explain says why, from the driver" "$out" "refused: verified: cuInit returned 804 (CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE"
age=$(printf '%s\n' "$out" | sed -n 's/^              verified \(.*\) ago: cuInit returned 804 .*/\1/p')
case $age in
*" s" | *" min") ok "804: explain shows the verdict's age ($age)" ;;
*) bad "804: explain shows the verdict's age" "$out" ;;
esac
contains "804: explain shows the baseline" "$out" " ago: cuInit returned 0 (CUDA_SUCCESS: works)"
contains "804: the decision line says the driver refused it" "$out" \
	"reason:       system driver: the compat package failed when verified (cuInit returned 804 (CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE"
out=$(CUDALOAD_DEBUG=1 under "$D" $DD "$W/bin/probe-patched")
contains "804: debug names the store" "$out" " probe-patched: verdicts $D/run/cudaload/verdicts: "
out=$(under "$D" $DD "$CL" --policy compat "$W/bin/cudaprobe")
contains "804: a verdict never overrides --policy compat" "$out" "version=12090"
out=$(CUDALOAD_POLICY=compat under "$D" $DD "$W/bin/probe-patched")
contains "804: ... nor CUDALOAD_POLICY=compat" "$out" "version=12090"
out=$(under "$D" $DD "$CL" --explain --json)
contains "804: json verdict" "$out" "\"verdict\":{\"result\":\"cu=804\",\"name\":\"CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE\""
contains "804: json baseline" "$out" "\"system_verdict\":{\"result\":\"cu=0\""
out=$(under "$D" $DD "$CL" --verify --json)
contains "--verify --json" "$out" "\"candidates\":[{\"dir\":\"/usr/local/cuda-12.9/compat\",\"origin\":\"default\",\"verdict\":{\"result\":\"cu=804\""

# A helper patched by hand (patchelf: cudaload-patch leaves cudaload's own
# programs alone) still judges the system driver with the system driver, so
# the 804 package stays refused.
PV=$W/planted
mkdir -p "$PV"
cp "$CL" "$PV/cudaload"
cp "$(dirname "$CL")/cudaload-verify" "$PV/cudaload-verify"
if patchelf --set-interpreter "$PV/cudaload" "$PV/cudaload-verify" 2>/dev/null; then
	rm -f "$D/run/cudaload/verdicts"
	out=$(under "$D" $DD "$PV/cudaload" --verify --timeout 3)
	has "planted patched helper: the system driver is judged with itself" "$out" \
		"system driver: cuInit returned 0 (CUDA_SUCCESS: works), then a context and a PTX module on its device [driver API 12040, 1 device; sm_80 PTX 7.0]: the baseline"
	out=$(under "$D" $DD "$W/bin/probe-patched")
	contains "planted patched helper: the 804 package stays refused" "$out" "version=12040"
else
	skip "planted patched helper" "patchelf cannot set the interpreter here"
fi
"$B/cudaload-patch" -v --interp "$PV/cudaload" "$PV" >"$W/own.out" 2>&1
has "cudaload-patch leaves cudaload-verify alone, saying why" "$(cat "$W/own.out")" \
	"$PV/cudaload-verify: skipped: one of cudaload's own programs (its identity note): the verifier must judge each driver with that driver"
verify "$D" $DD

# A changed libcuda: touched, then replaced by another file.
cp -p "$D/run/cudaload/verdicts" "$W/verdicts.804"
touch "$C/libcuda.so.575.51.03"
out=$(under "$D" $DD "$W/bin/probe-patched")
contains "changed: a touched libcuda has no verdict (tables again)" "$out" "version=12090"
out=$(under "$D" $DD "$CL" --explain)
contains "changed: explain says so" "$out" "; ignored: libcuda.so.1 changed since"
verify "$D" $DD
out=$(under "$D" $DD "$W/bin/probe-patched")
contains "changed: verified again, refused again" "$out" "version=12040"
cp "$C/libcuda.so.575.51.03" "$W/lib.copy"
rm "$C/libcuda.so.575.51.03"
cp -p "$W/lib.copy" "$C/libcuda.so.575.51.03"
out=$(under "$D" $DD "$W/bin/probe-patched")
contains "changed: a replaced libcuda (new inode, same size and mtime) has no verdict" "$out" "version=12090"

# Another driver on the host: the store is for another host.
verify "$D" $DD
sed -i 's/550.54.14/550.54.15/' "$D/proc/driver/nvidia/version"
out=$(CUDALOAD_DEBUG=1 under "$D" $DD "$W/bin/probe-patched")
contains "host: another driver version ignores the store" "$out" "version=12090"
contains "host: ... saying so" "$out" " probe-patched: verdicts: made for another driver, GPU or search list; ignored (run cudaload --verify)"
sed -i 's/550.54.15/550.54.14/' "$D/proc/driver/nvidia/version"

# Other GPUs on the host: 804 comes from any one board, so a verdict made
# with one set of boards says nothing about another.
G=$D/proc/driver/nvidia/gpus
verify "$D" $DD
out=$(under "$D" $DD "$W/bin/probe-patched")
contains "gpus: the verdict applies to the GPUs it was made with" "$out" "version=12040"
sed -i 's/NVIDIA T1000 8GB/NVIDIA A10/' "$G/0000:01:00.0/information"
out=$(CUDALOAD_DEBUG=1 under "$D" $DD "$W/bin/probe-patched")
contains "gpus: another model in the slot ignores the store" "$out" "version=12090"
contains "gpus: ... saying so" "$out" " probe-patched: verdicts: made for another driver, GPU or search list; ignored (run cudaload --verify)"
sed -i 's/NVIDIA A10/NVIDIA T1000 8GB/' "$G/0000:01:00.0/information"
mkdir -p "$G/0000:02:00.0" && sed 's/0000:01:00.0/0000:02:00.0/' "$G/0000:01:00.0/information" >"$G/0000:02:00.0/information"
cp -r "$D/sys/bus/pci/devices/0000:01:00.0" "$D/sys/bus/pci/devices/0000:02:00.0"
out=$(under "$D" $DD "$W/bin/probe-patched")
contains "gpus: a board added ignores the store" "$out" "version=12090"
rm -r "$G/0000:02:00.0" "$D/sys/bus/pci/devices/0000:02:00.0"
out=$(under "$D" $DD "$W/bin/probe-patched")
contains "gpus: the same boards again: the verdict applies again" "$out" "version=12040"

# The same driver reached elsewhere (Apptainer's /.singularity.d/libs in
# LD_LIBRARY_PATH: libcuda.so.<the module's version>) is a driver directory
# of the host for that program (reach.h), not another host: the store holds.
SL=$D/.singularity.d/libs
mkdir -p "$SL"
cp "$D$DD/libcuda.so.1.1" "$SL/libcuda.so.550.54.14"
ln -sf libcuda.so.550.54.14 "$SL/libcuda.so.1"
out=$(CUDALOAD_DEBUG=1 env CUDALOAD_ROOT="$D" CUDALOAD_CONFIG="$W/empty.conf" \
	LD_LIBRARY_PATH="$D$DD:/.singularity.d/libs" "$W/bin/probe-patched" 2>&1)
contains "reached driver: found as the system driver" "$out" "/.singularity.d/libs: libcuda.so.550.54.14 is the system driver"
contains "reached driver: the verdicts still apply" "$out" "version=12040"
lacks "reached driver: ... the store is not for another host" "$out" "made for another driver"
rm -r "$D/.singularity.d"

# A damaged store: ignored with one debug line, the program runs.
for bad_store in "garbage" "" "cudaload-verdicts 1" "$(head -c 5000 /dev/zero | tr '\0' x)"; do
	printf '%s' "$bad_store" >"$D/run/cudaload/verdicts"
	out=$(CUDALOAD_DEBUG=1 under "$D" $DD "$W/bin/probe-patched")
	contains "damaged store (${#bad_store} bytes): the program runs with the tables' choice" "$out" "version=12090"
	contains "damaged store (${#bad_store} bytes): said in the trace" "$out" "; ignored"
done
# Hostile stores are refused cheaply: one read, then fstat says it is too
# large (10 MB, 20,000 lines) or not a regular file (/dev/zero).
S=$D/run/cudaload/verdicts
head -c 10485760 /dev/zero | tr '\0' x >"$S"
i=0
{
	printf 'cudaload-verdicts 2\nhost 0000000000000000\nsystem cu=0 done 1 1\n'
	while [ $i -lt 20000 ]; do
		printf 'compat cu=0 done 1 1 2 3 4 5.000000000 /opt/p%d\n' $i
		i=$((i + 1))
	done
} >"$W/lines.store"
for kind in "10 MB:$S" "20,000 lines:$W/lines.store" "/dev/zero:/dev/zero"; do
	what=${kind%%:*} file=${kind#*:}
	[ "$file" = "$S" ] || ln -sf "$file" "$S"
	out=$(CUDALOAD_DEBUG=1 under "$D" $DD "$W/bin/probe-patched")
	contains "hostile store ($what): the program runs with the tables' choice" "$out" "version=12090"
	case $what in
	/dev/zero) contains "hostile store ($what): refused, saying why" "$out" "verdicts $S: not a regular file; ignored" ;;
	*) contains "hostile store ($what): refused, saying why" "$out" "verdicts $S: too large; ignored" ;;
	esac
	if command -v strace >/dev/null 2>&1; then
		# -y: each descriptor with the file it is (links resolved)
		CUDALOAD_ROOT="$D" CUDALOAD_CONFIG="$W/empty.conf" LD_LIBRARY_PATH="$D$DD" \
			strace -f -y -e trace=read -o "$W/strace.out" "$W/bin/probe-patched" >/dev/null 2>&1
		n=$(grep -cF "<$(readlink -f "$S")>" "$W/strace.out")
		status "hostile store ($what): one read of it" 1 "$n" "$(grep 'read(' "$W/strace.out" | head -20)"
	else
		skip "hostile store ($what): one read of it" "no strace"
	fi
	rm -f "$S"
done
mkdir -p "$W/roots/fifo/run/cudaload" && cp -r "$D"/. "$W/roots/fifo/" && rm -f "$W/roots/fifo/run/cudaload/verdicts"
mkfifo "$W/roots/fifo/run/cudaload/verdicts"
out=$(under "$W/roots/fifo" $DD "$W/bin/probe-patched")
contains "a FIFO as the store does not block" "$out" "version=12090"
rm -f "$D/run/cudaload/verdicts"
out=$(CUDALOAD_DEBUG=1 under "$D" $DD "$W/bin/probe-patched")
lacks "no store: not a word" "$out" "verdicts"

# Packages found only where a process reaches them (reach.h) are verified
# too: a program's RUNPATH (named, or in cudaload-patch's record) and this
# environment's CONDA_PREFIX.  Each is a copy of the 804 package; unverified,
# the tables take it (the configured one is verified: 804).
verify "$D" $DD
mkdir -p "$D/opt/vendor/bin" "$D/opt/conda/envs/x"
cp -a "$C" "$D/opt/vendor/compat"
cp -a "$C" "$D/opt/conda/envs/x/cuda-compat"
$TCC -O1 -Wl,--enable-new-dtags -Wl,-rpath,/opt/vendor/compat -o "$D/opt/vendor/bin/app" "$here/../helpers/cudaprobe.c" -ldl
"$B/cudaload-patch" --interp "$CL" "$D/opt/vendor/bin/app" >/dev/null
out=$(under "$D" $DD "$D/opt/vendor/bin/app")
has "reached: unverified, a RUNPATH's package is the tables' choice" "$out" \
	"libcuda=$D/opt/vendor/compat/libcuda.so.1 version=12090"
verify "$D" $DD /opt/vendor/bin/app
status "reached: --verify PROGRAM runs" 0 "$vst" "$out"
contains "reached: ... verifies what the program reaches" "$out" "/opt/vendor/compat: cuInit returned 804"
out=$(under "$D" $DD "$CL" --verify --json --timeout 3 /opt/vendor/bin/app)
contains "reached: --verify --json says where it was found" "$out" '{"dir":"/opt/vendor/compat","origin":"RUNPATH",'
verify "$D" $DD /opt/vendor/bin/app
out=$(under "$D" $DD "$D/opt/vendor/bin/app")
contains "reached: verified, the RUNPATH's package is refused" "$out" "version=12040"
verify "$D" $DD
out=$(under "$D" $DD "$D/opt/vendor/bin/app")
contains "reached: verified again without it, the program's package is the tables' again" "$out" "version=12090"
mkdir -p "$D/var/lib/cudaload"
printf '%s\t/opt/vendor/bin/app\n' "$CL" >"$D/var/lib/cudaload/patched"
verify "$D" $DD
contains "reached: --verify looks at each recorded program" "$out" "/opt/vendor/compat: cuInit returned 804"
out=$(under "$D" $DD "$D/opt/vendor/bin/app")
contains "reached: ... and the recorded program's package is refused" "$out" "version=12040"
mv "$D/var/lib/cudaload/patched" "$W/record"
mkdir "$D/var/lib/cudaload/patched"
verify "$D" $DD
status "reached: an unreadable record does not stop --verify" 0 "$vst" "$out"
contains "reached: ... which says so" "$out" \
	"cudaload: --verify: /var/lib/cudaload/patched: not a regular file, over 64 MiB or out of memory: its programs are not looked at"
rmdir "$D/var/lib/cudaload/patched"
mv "$W/record" "$D/var/lib/cudaload/patched"
out=$(CONDA_PREFIX=/opt/conda/envs/x under "$D" $DD "$W/bin/probe-patched")
has "reached: unverified, CONDA_PREFIX's package is the tables' choice" "$out" \
	"libcuda=$D/opt/conda/envs/x/cuda-compat/libcuda.so.1 version=12090"
out=$(CONDA_PREFIX=/opt/conda/envs/x under "$D" $DD "$CL" --verify --timeout 3)
contains "reached: --verify verifies this environment's CONDA_PREFIX" "$out" "/opt/conda/envs/x/cuda-compat: cuInit returned 804"
out=$(CONDA_PREFIX=/opt/conda/envs/x under "$D" $DD "$W/bin/probe-patched")
contains "reached: ... and a program started with it refuses it" "$out" "version=12040"
out=$(under "$D" $DD "$CL" --verify --timeout 3 /opt/nothing)
status "reached: a named program that is not there is a usage error" 100 $? "$out"
contains "reached: ... said" "$out" "cudaload: --verify: /opt/nothing: no such file under CUDALOAD_ROOT"
out=$(under "$D" $DD "$CL" --verify --timeout 3 opt/vendor/bin/app)
status "reached: under a root, a relative name is a usage error" 100 $? "$out"
contains "reached: ... said" "$out" "a program is named by its absolute path in the root"
rm -rf "$D/opt" "$D/var/lib/cudaload"
verify "$D" $DD

# Hang and crash are verdicts, never the verifier's own end.
printf 'hang\n' >"$C/fake-cuinit"
verify "$D" $DD
status "hang: --verify still exits 0" 0 "$vst" "$out"
contains "hang: killed and said" "$out" "hung in cuInit, killed after 3 s"
grep -q '^compat hang=3 ' "$D/run/cudaload/verdicts" && ok "hang: recorded" || bad "hang: recorded" "$(cat "$D/run/cudaload/verdicts")"
out=$(under "$D" $DD "$W/bin/probe-patched")
contains "hang: refused" "$out" "version=12040"
printf 'crash\n' >"$C/fake-cuinit"
verify "$D" $DD
status "crash: --verify still exits 0" 0 "$vst" "$out"
contains "crash: said" "$out" "crashed in cuInit (signal 11)"
out=$(under "$D" $DD "$W/bin/probe-patched")
contains "crash: refused" "$out" "version=12040"

# When the system driver fails too (no device yet), nothing is held against the package.
printf '100\n' >"$C/fake-cuinit"
printf '100\n' >"$D$DD/fake-cuinit"
verify "$D" $DD
contains "baseline: the system driver's failure is said" "$out" "the system driver fails too"
out=$(under "$D" $DD "$W/bin/probe-patched")
contains "baseline: the package is not refused for the device's failure" "$out" "version=12090"
out=$(under "$D" $DD "$CL" --explain)
contains "baseline: explain says why" "$out" "; not applied: the system driver failed there too"
rm -f "$D$DD/fake-cuinit"
printf '804\n' >"$C/fake-cuinit"

# ---- past cuInit: each device's context and a PTX module through the JIT ------
# (fixtures dgpu-context-fails, dgpu-jit-fails, dgpu-busy-device,
# dgpu-mixed-cc, verified in the loop above)
R=$W/roots
X=$R/dgpu-context-fails
out=$(under "$X" $DD "$CL" --explain)
contains "context: explain says which step failed, and its CUresult" "$out" \
	"refused: verified: context: 999 (CUDA_ERROR_UNKNOWN: unknown error) on device 0 of 1"
contains "context: ... and the decision says so" "$out" \
	"reason:       system driver: the compat package failed when verified (context: 999"
out=$(under "$X" $DD "$CL" --explain --json)
contains "context: json verdict with its step and devices" "$out" \
	'"verdict":{"result":"cu=999","name":"CUDA_ERROR_UNKNOWN","what":"context: 999 (CUDA_ERROR_UNKNOWN: unknown error) on device 0 of 1","ok":false,'
contains "context: ... step, device, devices" "$out" '"step":"context","device":0,"devices":1,"store":"root","state":"applies"}'
contains "context: json baseline: every step" "$out" '"ok":true,'
grep -q '^compat cu=999 context:0 1 ' "$X/run/cudaload/verdicts" && ok "context: stored with its step" ||
	bad "context: stored with its step" "$(cat "$X/run/cudaload/verdicts")"
out=$(under "$X" $DD "$CL" --verify --json --timeout 3)
contains "context: --verify --json says the step" "$out" '"ok":false,"step":"context","device":0,"driver_version":12090,"devices":1,'
contains "context: --verify --json: the baseline's modules" "$out" '"modules":[{"device":0,"target":"sm_90","ptx":"7.8","in_table":true}]'

X=$R/dgpu-jit-fails
out=$(under "$X" $DD "$CL" --explain)
contains "module: refused, the JIT's CUresult said" "$out" \
	"refused: verified: module: 218 (CUDA_ERROR_INVALID_PTX: the JIT compiler rejected the PTX) on device 0 of 1"
has "module: --verify said which module it loaded" "$(cat "$R/dgpu-jit-fails.verify")" \
	"/usr/local/cuda-12.9/compat: module: 218 (CUDA_ERROR_INVALID_PTX: the JIT compiler rejected the PTX) on device 0 of 1 [driver API 12090, 1 device; sm_90 PTX 7.8]: fails: not used from now on"
# a crash or a hang in a step past cuInit is that step's
cp "$X/usr/local/cuda-12.9/compat/fake-cuinit" "$W/jit.fake"
printf 'cc 9.0\nmodule crash\n' >"$X/usr/local/cuda-12.9/compat/fake-cuinit"
verify "$X" $DD
contains "module crash: the step and device said" "$out" "crashed in the module step on device 0 of 1 (signal 11)"
grep -q '^compat signal=11 module:0 1 ' "$X/run/cudaload/verdicts" && ok "module crash: stored" ||
	bad "module crash: stored" "$(cat "$X/run/cudaload/verdicts")"
printf 'cc 9.0\ncontext hang\n' >"$X/usr/local/cuda-12.9/compat/fake-cuinit"
verify "$X" $DD
contains "context hang: the step and device said" "$out" "hung in the context step on device 0 of 1, killed after 3 s"
out=$(under "$X" $DD "$W/bin/probe-patched")
contains "context hang: refused" "$out" "version=12040"
cp "$W/jit.fake" "$X/usr/local/cuda-12.9/compat/fake-cuinit"
verify "$X" $DD

X=$R/dgpu-busy-device
has "busy: the system driver fails on the busy GPU" "$(cat "$R/dgpu-busy-device.verify")" \
	"system driver: context: 46 (CUDA_ERROR_DEVICE_UNAVAILABLE: the GPU is busy or unavailable) on device 1 of 2 [driver API 12040, 2 devices; sm_90 PTX 7.8]: the system driver fails too: a package failing there or before is not held against it"
out=$(under "$X" $DD "$CL" --explain)
contains "busy: not held against the package" "$out" \
	" ago: context: 46 (CUDA_ERROR_DEVICE_UNAVAILABLE: the GPU is busy or unavailable) on device 1 of 2; not applied: the system driver failed there too"
contains "busy: the package is taken as the tables allow" "$out" "decision:     compat"
out=$(under "$X" $DD "$CL" --explain --json)
contains "busy: json state inconclusive" "$out" '"step":"context","device":1,"devices":2,"store":"root","state":"inconclusive"}'
# a failure on the free GPU, which the system driver passed, is the package's
printf 'module 218 0\n' >>"$X/usr/local/cuda-12.9/compat/fake-cuinit"
verify "$X" $DD
out=$(under "$X" $DD "$W/bin/probe-patched")
contains "busy: a failing module on the free GPU is still refused" "$out" "version=12040"
sed -i '/^module 218 0$/d' "$X/usr/local/cuda-12.9/compat/fake-cuinit"
verify "$X" $DD

X=$R/dgpu-mixed-cc
has "mixed: each device gets its own module, and every driver takes it" "$(cat "$R/dgpu-mixed-cc.verify")" \
	"system driver: cuInit returned 0 (CUDA_SUCCESS: works), then a context and a PTX module on each of its 2 devices [driver API 12040, 2 devices; sm_90 PTX 7.8, sm_80 PTX 7.0]: the baseline"
grep -q '^system cu=0 done 2 ' "$X/run/cudaload/verdicts" && grep -q '^compat cu=0 done 2 ' "$X/run/cudaload/verdicts" &&
	ok "mixed: stored: every step on both devices" || bad "mixed: stored" "$(cat "$X/run/cudaload/verdicts")"
# every device, whatever this environment shows (CUDA_VISIBLE_DEVICES)
out=$(CUDA_VISIBLE_DEVICES=1 under "$X" $DD "$CL" --verify --timeout 3)
contains "mixed: CUDA_VISIBLE_DEVICES is cleared for the children" "$out" "[driver API 12040, 2 devices; sm_90 PTX 7.8, sm_80 PTX 7.0]: the baseline"
# a package that sees fewer devices than the system driver: a partial count
printf 'devices 1\n' >>"$X/usr/local/cuda-12.9/compat/fake-cuinit"
verify "$X" $DD
contains "mixed: a partial count is said" "$out" \
	"/usr/local/cuda-12.9/compat: device count: saw 1 device, fewer than the system driver [driver API 12090, 1 device; sm_90 PTX 7.8]: fails: not used from now on"
out=$(under "$X" $DD "$W/bin/probe-patched")
contains "mixed: ... and refused" "$out" "version=12040"
sed -i '/^devices 1$/d' "$X/usr/local/cuda-12.9/compat/fake-cuinit"
verify "$X" $DD
out=$(under "$X" $DD "$W/bin/probe-patched")
contains "mixed: every device again: taken" "$out" "version=12090"

# A store of format 1 (cuInit only, an earlier cudaload's): ignored, saying
# what to do; the tables decide until --verify runs.
X=$R/dgpu-context-fails
cp "$X/run/cudaload/verdicts" "$W/v2.store"
printf 'cudaload-verdicts 1\nhost %s\nsystem cu=0 1\ncompat cu=0 1 0 0 0 0.000000000 /usr/local/cuda-12.9/compat\n' \
	"$(sed -n 's/^host \([0-9a-f]*\).*/\1/p' "$W/v2.store")" >"$X/run/cudaload/verdicts"
out=$(CUDALOAD_DEBUG=1 under "$X" $DD "$W/bin/probe-patched")
contains "format 1: ignored, saying so" "$out" "verdicts: format 1, not this cudaload's 2: run cudaload --verify; ignored"
contains "format 1: the tables decide" "$out" "version=12090"
cp "$W/v2.store" "$X/run/cudaload/verdicts"

# ---- the driver's word for every user: a store of the user's own ----------
# cudaload --verify run by a user without root writes that user's store
# ($XDG_RUNTIME_DIR/cudaload, else ~/.cache/cudaload with the boot ID), which
# that user's programs read after root's (common/packages/verdict.h).
user_suite() {
	if [ "$(id -u)" -ne 0 ] || ! command -v setpriv >/dev/null 2>&1; then
		skip "a user's own store" "needs root and setpriv (to run as an unprivileged user)"
		return
	fi
	NU=65534 OU=65533
	H=$W/home
	rm -rf "$H" "$H-other"
	mkdir -p "$H/run" "$H-other"
	chmod 700 "$H/run"
	chown -R "$NU:$NU" "$H"
	chown "$OU:$OU" "$H-other"
	# as_user ROOT DRIVER_DIR CMD...: under, as the user; XDG=- leaves
	# XDG_RUNTIME_DIR unset, UHOME and UID_ say another home and user
	as_user() {
		r=$1 dd=$2
		shift 2
		if [ "${XDG:-}" = - ]; then set -- env -u XDG_RUNTIME_DIR "$@"; else set -- env XDG_RUNTIME_DIR="${XDG:-$H/run}" "$@"; fi
		setpriv --reuid="${UID_:-$NU}" --regid="${UID_:-$NU}" --clear-groups env CUDALOAD_ROOT="$r" \
			CUDALOAD_CONFIG="$W/empty.conf" LD_LIBRARY_PATH="$r$dd" HOME="${UHOME:-$H}" "$@" 2>&1
	}
	X=$R/dgpu-context-fails
	rm -f "$X/run/cudaload/verdicts"
	out=$(as_user "$X" $DD "$W/bin/probe-patched")
	contains "user: unverified, the tables take the package" "$out" "version=12090"
	out=$(as_user "$X" $DD "$CL" --verify --timeout 3)
	status "user: --verify runs without root" 0 $? "$out"
	has "user: ... into the user's own store" "$out" "verdicts stored in $H/run/cudaload/verdicts"
	[ ! -e "$X/run/cudaload/verdicts" ] && ok "user: ... and not into root's" || bad "user: root's store written"
	status "user: its directory is the user's, 0700" "700 $NU" "$(stat -c '%a %u' "$H/run/cudaload")"
	status "user: the store is the user's, 0600" "600 $NU" "$(stat -c '%a %u' "$H/run/cudaload/verdicts")"
	out=$(as_user "$X" $DD "$W/bin/probe-patched")
	contains "user: the user's programs apply it" "$out" "version=12040"
	out=$(as_user "$X" $DD "$CL" --explain)
	contains "user: explain says the verdict is from the user's store" "$out" \
		" ago (this user's store): context: 999 (CUDA_ERROR_UNKNOWN: unknown error) on device 0 of 1"
	out=$(as_user "$X" $DD "$CL" --explain --json)
	contains "user: ... and in JSON" "$out" '"devices":1,"store":"user","state":"applies"}'
	out=$(under "$X" $DD "$W/bin/probe-patched")
	contains "user: root's programs do not read it" "$out" "version=12090"
	out=$(UID_=$OU as_user "$X" $DD "$W/bin/probe-patched")
	contains "user: nor another user's (XDG_RUNTIME_DIR not theirs)" "$out" "version=12090"
	# a store that is not the user's own, or that others may write: ignored
	mkdir -p "$H-other/.cache/cudaload"
	cp "$H/run/cudaload/verdicts" "$H-other/.cache/cudaload/verdicts"
	chown -R "$NU:$NU" "$H-other/.cache"
	chmod 644 "$H-other/.cache/cudaload/verdicts"	# readable: owned by another is the point
	chmod 755 "$H-other/.cache/cudaload"
	out=$(CUDALOAD_DEBUG=1 UID_=$OU UHOME=$H-other XDG=- as_user "$X" $DD "$W/bin/probe-patched")
	contains "user: a store owned by another user is ignored" "$out" "version=12090"
	contains "user: ... saying so" "$out" \
		"verdicts $H-other/.cache/cudaload/verdicts: it or its directory is not this user's, or others may write it; ignored"
	chmod 620 "$H/run/cudaload/verdicts"
	out=$(CUDALOAD_DEBUG=1 as_user "$X" $DD "$W/bin/probe-patched")
	contains "user: a group-writable store is ignored" "$out" "version=12090"
	contains "user: ... saying so" "$out" "it or its directory is not this user's, or others may write it; ignored"
	chmod 600 "$H/run/cudaload/verdicts"
	chmod 777 "$H/run/cudaload"
	out=$(as_user "$X" $DD "$W/bin/probe-patched")
	contains "user: a store in a directory others may write is ignored" "$out" "version=12090"
	chmod 700 "$H/run/cudaload"
	# a failing verdict in either store refuses; a success in either lifts
	verify "$X" $DD
	out=$(as_user "$X" $DD "$CL" --explain)
	contains "user: both stores: root's verdict, where both fail" "$out" \
		" ago: context: 999 (CUDA_ERROR_UNKNOWN"
	cp "$X/usr/local/cuda-12.9/compat/fake-cuinit" "$W/ctx.fake"
	printf 'cc 9.0\n' >"$X/usr/local/cuda-12.9/compat/fake-cuinit"
	verify "$X" $DD
	out=$(as_user "$X" $DD "$W/bin/probe-patched")
	contains "user: root's store says it works, the user's (for the same file) that it fails: refused" "$out" "version=12040"
	out=$(as_user "$X" $DD "$CL" --explain)
	contains "user: ... the user's failure shown" "$out" " ago (this user's store): context: 999"
	cp "$W/ctx.fake" "$X/usr/local/cuda-12.9/compat/fake-cuinit"
	verify "$X" $DD
	rm -rf "$H/run/cudaload"

	# the workstation boards: only the driver can say, and a user may ask it
	I=$R/igx-orin-dgpu ID=/usr/lib/aarch64-linux-gnu
	rm -f "$I/run/cudaload/verdicts"
	out=$(as_user "$I" $ID "$W/bin/probe-patched")
	contains "workstation: unverified, a user gets the system driver" "$out" "version=12020"
	as_user "$I" $ID "$CL" --verify --timeout 3 >/dev/null
	out=$(as_user "$I" $ID "$W/bin/probe-patched")
	contains "workstation: verified by the user to work, the user's programs take the package" "$out" "version=12040"
	out=$(as_user "$I" $ID "$CL" --explain)
	contains "workstation: ... on the driver's word from the user's store" "$out" \
		" ago (this user's store): cuInit returned 0 (CUDA_SUCCESS: works), then a context and a PTX module on its device"
	out=$(under "$I" $ID "$W/bin/probe-patched")
	contains "workstation: ... not root's programs" "$out" "version=12020"
	A=$R/dgpu-rtx-a6000-535-804
	rm -rf "$A/run/cudaload/verdicts" "$H/run/cudaload"
	as_user "$A" $DD "$CL" --verify --timeout 3 >/dev/null
	out=$(as_user "$A" $DD "$CL" --explain)
	contains "workstation 804: the user's verdict refuses it" "$out" \
		" ago (this user's store): cuInit returned 804 (CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE"
	contains "workstation 804: ... the system driver" "$out" "decision:     system"
	rm -rf "$H/run/cudaload"

	# no usable XDG_RUNTIME_DIR: ~/.cache, for this boot only
	Y=$R/dgpu-jit-fails
	rm -f "$Y/run/cudaload/verdicts"
	out=$(XDG=- as_user "$Y" $DD "$CL" --verify --timeout 3)
	status "cache: no boot ID under the root: --verify cannot tell this boot from the next" 111 $? "$out"
	contains "cache: ... says so" "$out" "/proc/sys/kernel/random/boot_id: cannot be read"
	mkdir -p "$Y/proc/sys/kernel/random"
	printf '0c4f3e52-1b2a-4f6e-9d3c-7a8b9c0d1e2f\n' >"$Y/proc/sys/kernel/random/boot_id"
	out=$(XDG=- as_user "$Y" $DD "$CL" --verify --timeout 3)
	status "cache: --verify runs" 0 $? "$out"
	has "cache: ... into ~/.cache" "$out" "verdicts stored in $H/.cache/cudaload/verdicts"
	status "cache: its directory is the user's, 0700" "700 $NU" "$(stat -c '%a %u' "$H/.cache/cudaload")"
	grep -qx 'boot 0c4f3e52-1b2a-4f6e-9d3c-7a8b9c0d1e2f' "$H/.cache/cudaload/verdicts" &&
		ok "cache: keyed by the boot ID" || bad "cache: keyed by the boot ID" "$(cat "$H/.cache/cudaload/verdicts")"
	out=$(XDG=- as_user "$Y" $DD "$W/bin/probe-patched")
	contains "cache: the user's programs apply it" "$out" "version=12040"
	chmod 755 "$H/run"
	out=$(as_user "$Y" $DD "$W/bin/probe-patched")
	contains "cache: an XDG_RUNTIME_DIR that is not 0700 is passed over for it" "$out" "version=12040"
	chmod 700 "$H/run"
	printf '9f9f9f9f-1b2a-4f6e-9d3c-7a8b9c0d1e2f\n' >"$Y/proc/sys/kernel/random/boot_id"
	out=$(CUDALOAD_DEBUG=1 XDG=- as_user "$Y" $DD "$W/bin/probe-patched")
	contains "cache: a store from another boot is ignored" "$out" "version=12090"
	contains "cache: ... saying so" "$out" "verdicts $H/.cache/cudaload/verdicts: made in another boot; ignored"

	# a Jetson reads no user's store: not a system call more
	J=$W/roots/user-orin
	rm -rf "$J"
	cp -a "$R/orin-jp5-compat122" "$J"
	rm -f "$J/run/cudaload/verdicts"
	JD=/usr/lib/aarch64-linux-gnu/tegra
	printf '804\n' >"$J/usr/local/cuda-12.2/compat/fake-cuinit"
	out=$(as_user "$J" $JD "$CL" --verify --timeout 3)
	contains "jetson: the user verifies" "$out" "/usr/local/cuda-12.2/compat: cuInit returned 804"
	out=$(as_user "$J" $JD "$W/bin/probe-patched")
	contains "jetson: the user's store is not read" "$out" "version=12020"
	if command -v strace >/dev/null 2>&1; then
		as_user "$J" $JD strace -f -o "$H/strace.out" "$W/bin/probe-patched" >/dev/null
		n=$(grep -c "$H" "$H/strace.out")
		status "jetson: nothing of the user's store is even looked at" 0 "$n" "$(grep "$H" "$H/strace.out")"
	fi
	rm -rf "$J"
}
user_suite

# Started with standard descriptors closed (a service manager, a cron job
# with >&-): its pipe must not take their numbers, nor the store fd 2.
tokens() { sed -n 's/^\(system\|compat\) \([a-z]*=[0-9]*\) .*/\1 \2/p' "$D/run/cudaload/verdicts" | tr '\n' ' '; }
verify "$D" $DD
want_tokens=$(tokens)
for closed in "0<&- 1>&-" "1>&-" "0<&-" "2>&-" "0<&- 1>&- 2>&-"; do
	rm -f "$D/run/cudaload/verdicts"
	out=$(eval "env CUDALOAD_ROOT=\"\$D\" CUDALOAD_CONFIG=\"\$W/empty.conf\" LD_LIBRARY_PATH=\"\$D\$DD\" \"\$CL\" --verify --timeout 3 2>&1 $closed")
	st=$?
	status "closed $closed: --verify exits 0" 0 $st "$out"
	status "closed $closed: the same verdicts stored" "$want_tokens" "$(tokens)" "$(cat "$D/run/cudaload/verdicts" 2>&1)"
done

# It must be able to store what it found.
rm -rf "$D/run"
verify "$D" $DD
status "no store directory: --verify fails" 111 "$vst" "$out"
contains "no store directory: says which" "$out" "no such directory for the store"
mkdir -p "$D/run"
out=$("$CL" --json --verify --bogus 2>&1)
status "usage: an unknown option is 100" 100 $? "$out"

# NVIDIA's own runtime (tests/e2e/suites/cudart.sh) judges what a verdict leaves:
# on the 804 workstation the system driver (12.4: the runtime's 13.0 says
# 35, too old, and reports 12040), on the L4T release no table knows the
# compat 13.5 verified to work (100, accepted, 13050).
cudart_suite() {
	if [ "$arch" != x86_64 ]; then
		skip "verdicts through the CUDA runtime" "the toolkit here is for x86_64; this run is $arch"
		return
	fi
	build_cudart "$W/bin/cudart"
	case $? in
	1)
		skip "verdicts through the CUDA runtime" "$cudart_why"
		return
		;;
	2)
		bad "nvcc builds the runtime program" "$(cat "$W/bin/cudart.log")"
		return
		;;
	esac
	cp "$W/bin/cudart" "$W/bin/cudart-patched"
	"$B/cudaload-patch" --interp "$CL" "$W/bin/cudart-patched" >/dev/null
	verify "$D" $DD
	status "cudart: the 804 workstation verified" 0 "$vst" "$out"
	O=$W/roots/orin-next-l4t-verified
	# ROOT DRIVER_DIR, then what the runtime says directly (the control: the
	# system driver) and through cudaload after the verdict, then what that is
	for c in "$D $DD 35 12040 35 12040 system driver, verified 804" \
		"$O /usr/lib/aarch64-linux-gnu/nvidia 100 13000 100 13050 compat, verified 0"; do
		# shellcheck disable=SC2086
		set -- $c
		r=$1 dd=$2 direct=$3 direct_drv=$4 rt=$5 drv=$6
		shift 6
		n=${r##*/}
		out=$(under "$r" "$dd" "$W/bin/cudart")
		has "cudart $n: direct run (the control)" "$out" "cudaGetDeviceCount=$direct driver=$direct_drv"
		for m in exec chain; do
			for prog in "$CL $W/bin/cudart" "$W/bin/cudart-patched"; do
				# shellcheck disable=SC2086
				out=$(CUDALOAD_MODE=$m under "$r" "$dd" $prog)
				has "cudart $n: ${prog##*/} ($m): the runtime sees the $* answer" "$out" \
					"cudaGetDeviceCount=$rt driver=$drv"
			done
		done
	done
}
cudart_suite

echo "verdict table ($arch; each fixture verified, then decided):"
cat "$W"/roots/*.table | sed 's/^verdicts /  /'
finish
