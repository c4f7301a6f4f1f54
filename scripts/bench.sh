#!/bin/sh
# SPDX-License-Identifier: MIT
# make bench: what cudaload costs at start-up, against running the program
# directly and against the floor: a do-nothing program interpreter built
# here (tests/bench/floor.c, no libc) that only maps ld.so and jumps to it
# (chain) or only execve()s it (exec).
#
# Two fixtures: this host as it is (no GPU here, so cudaload keeps the
# system driver), and a Jetson (JetPack 5, CUDA 12.2 compat package) where
# cudaload finds the package, decides for it and passes a search list.
# Every variant of a table is timed in one run of tests/bench/startup.c:
# rounds of runs, the order rotated each round, medians.  Beside the times:
# page faults (wait4 of each child, median) and the system calls made
# before ld.so starts (strace): both are stable where times are not.
# Also: python3 -c pass, the stripped sizes, cudaload-patch against a
# patchelf loop.  Prints the tables and writes build/bench/results.json.
# Usage: bench.sh BUILD [smoke]   (smoke: a few runs, so it cannot rot)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
B=$(cd "${1:-$top/build}" && pwd)
smoke=${2:-}
E=$top/tests/e2e
O=$B/bench
rm -rf "$O"
mkdir -p "$O/libs" "$O/bin"
CC=${CC:-cc}
export CC

# BENCH_ROUNDS, BENCH_PER, BENCH_PY_PER, BENCH_COPIES, BENCH_STATUS_PROGRAMS
# (at most BENCH_COPIES) override the counts
# (a shared machine may need fewer runs to finish; counts do not change).
rounds=${BENCH_ROUNDS:-25} per=${BENCH_PER:-100} py_per=${BENCH_PY_PER:-8} copies=${BENCH_COPIES:-5000}
status_n=${BENCH_STATUS_PROGRAMS:-300}
[ -z "$smoke" ] || { rounds=1 per=2 py_per=1 copies=50 status_n=20; }

LDSO=$(readelf -lW /usr/bin/env | sed -n 's/.*Requesting program interpreter: \(.*\)]/\1/p')
ldso_name=${LDSO##*/}
# Nothing of the caller's that cudaload reads: a program that brings no
# directory of its own (CUDA_HOME and the rest would add their stat).
unset CUDALOAD_ROOT CUDALOAD_CONFIG CUDALOAD_MODE CUDALOAD_DEBUG CUDALOAD_POLICY \
	CUDALOAD_COMPAT_PATH CUDALOAD_LDSO LD_LIBRARY_PATH CUDA_HOME CUDA_PATH CONDA_PREFIX

# The Jetson fixture.
$CC -O1 -o "$O/libs/mknote" "$E/helpers/mknote.c"
sh "$E/lib/mkroot.sh" "$top/tests/fixtures/orin-jp5-compat122.profile" "$O/root" "$O/libs"
J="CUDALOAD_ROOT=$O/root"

# One cudaload per mode, so no wrapper stands in front of what is measured.
# Chain is the default: that one runs as installed without a config file
# (it looks for /etc/cudaload.conf and ../etc/cudaload.conf, and finds
# neither).  The exec one has its ../etc/cudaload.conf saying so, as an
# installed one reads its prefix's etc/.
for m in exec chain; do
	mkdir -p "$O/$m/bin"
	cp "$B/cudaload" "$O/$m/bin/cudaload"
done
mkdir -p "$O/exec/etc"
printf 'mode = exec\n' >"$O/exec/etc/cudaload.conf"
# The floor, both ways, for this machine's loader.
for m in exec chain; do
	$CC -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -Werror -ffreestanding -fno-stack-protector \
		-fPIE -fno-tree-loop-distribute-patterns $([ $m = chain ] && echo -DFLOOR_CHAIN) \
		-DLDSO="\"$LDSO\"" -nostdlib -static-pie -Wl,--no-dynamic-linker -Wl,-z,noexecstack \
		-o "$O/floor-$m" "$top/tests/bench/floor.c"
done

printf '#include <stdio.h>\nint main(void) { puts("hello"); return 0; }\n' >"$O/trivial.c"
$CC -O2 -o "$O/bin/trivial" "$O/trivial.c"
PY=$(readlink -f /usr/bin/python3)
cp "$PY" "$O/bin/python3"
for p in trivial python3; do
	for m in exec chain; do
		cp "$O/bin/$p" "$O/bin/$p-$m"
		cp "$O/bin/$p" "$O/bin/$p-floor-$m"
		"$B/cudaload-patch" --interp "$O/$m/bin/cudaload" "$O/bin/$p-$m" >/dev/null
		"$B/cudaload-patch" --interp "$O/floor-$m" "$O/bin/$p-floor-$m" >/dev/null
	done
done
# Each runs in the mode it stands for (a /etc/cudaload.conf on this machine
# could say otherwise).
for m in exec chain; do
	CUDALOAD_DEBUG=1 "$O/bin/trivial-$m" 2>&1 >/dev/null | grep -q ": $m mode\$" || {
		echo "bench: $O/bin/trivial-$m does not run in $m mode (see /etc/cudaload.conf)" >&2
		exit 1
	}
done
# The search list cudaload passes on the Jetson fixture: the floor and the
# direct run get the same one, to show what ld.so's longer search costs.
LIST=$(env "$J" "$B/cudaload" --explain --json "$O/bin/trivial" |
	sed -n 's/.*"library_path": *"\([^"]*\)".*/\1/p')
[ -n "$LIST" ] || { echo "bench: the Jetson fixture chose no compat package" >&2; exit 1; }
L="LD_LIBRARY_PATH=$LIST"
printf '#!/bin/sh\nexport LD_LIBRARY_PATH=%s${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}\nexec %s "$@"\n' \
	"$LIST" "$O/bin/trivial" >"$O/bin/trivial-wrapper"
chmod +x "$O/bin/trivial-wrapper"

# The decision held (common/decision/pin.h): JetPack 5 with cuda-compat-12-4, which
# it refuses, so the system driver is pinned first in the list (the driver's
# own tegra/ directory).  Its twin is the same tree with that package's
# libcuda built for another machine: examined the same way, nothing to pin.
sh "$E/lib/mkroot.sh" "$top/tests/fixtures/orin-jp5-compat124.profile" "$O/pinned" "$O/libs"
rm -rf "$O/unpinned"
cp -a "$O/pinned" "$O/unpinned"
other=aarch64-linux-gnu-gcc
[ "$(uname -m)" != aarch64 ] || other=x86_64-linux-gnu-gcc
$other -shared -fPIC -Wl,-soname,libcuda.so.1 -DFAKE_CUDA_VERSION=12040 \
	-o "$O/unpinned/usr/local/cuda-12.4/compat/libcuda.so.1.1" "$E/helpers/fakecuda.c"
PN="CUDALOAD_ROOT=$O/pinned" UN="CUDALOAD_ROOT=$O/unpinned"
PIN=$(env "$PN" "$B/cudaload" --explain --json "$O/bin/trivial" |
	sed -n 's/.*"pin": *"\([^"]*\)".*/\1/p')
[ -n "$PIN" ] || { echo "bench: the pinned fixture has no pin" >&2; exit 1; }
# The pin's directory alone, without cudaload: what ld.so's search of it costs.
LP="LD_LIBRARY_PATH=$PIN"

$CC -O2 -o "$O/startup" "$top/tests/bench/startup.c"
T=$O/bin/trivial
# The decisions prepared, as a machine's first start (or cudaload --verify)
# leaves them: once every input is past its racy second (common/stores/prepared.h).
sleep 1.2
for f in "$J" "$PN" "$UN"; do
	env "$f" "$T-chain" >/dev/null
	env "$f" CUDALOAD_DEBUG=1 "$T-chain" 2>&1 | grep -q 'prepared decision: holds' || {
		echo "bench: no prepared decision holds for $f" >&2
		exit 1
	}
done
"$O/startup" "$rounds" "$per" \
	"nogpu/direct=$T" \
	"nogpu/floor-chain=$T-floor-chain" \
	"nogpu/cudaload-chain=$T-chain" \
	"nogpu/floor-exec=$T-floor-exec" \
	"nogpu/cudaload-exec=$T-exec" \
	"jetson/direct=$T" \
	"jetson/direct+list=$L $T" \
	"jetson/floor-chain+list=$L $T-floor-chain" \
	"jetson/cudaload-chain=$J $T-chain" \
	"jetson/floor-exec+list=$L $T-floor-exec" \
	"jetson/cudaload-exec=$J $T-exec" \
	"jetson/sh-wrapper=$T-wrapper" \
	"held/direct=$T" \
	"held/direct+pin=$LP $T" \
	"held/floor-chain+pin=$LP $T-floor-chain" \
	"held/floor-exec+pin=$LP $T-floor-exec" \
	"held/unpinned-chain=$UN $T-chain" \
	"held/pinned-chain=$PN $T-chain" \
	"held/unpinned-exec=$UN $T-exec" \
	"held/pinned-exec=$PN $T-exec" >"$O/trivial.csv"
P=$O/bin/python3
"$O/startup" "$rounds" "$py_per" \
	"nogpu/direct=$P -c pass" \
	"nogpu/floor-chain=$P-floor-chain -c pass" \
	"nogpu/cudaload-chain=$P-chain -c pass" \
	"nogpu/floor-exec=$P-floor-exec -c pass" \
	"nogpu/cudaload-exec=$P-exec -c pass" >"$O/python3.csv"

# System calls before ld.so runs.  exec: up to the execve of ld.so.  chain:
# up to ld.so's first own call, the brk(NULL) after the last call that
# names ld.so's file (strace -y shows the file behind each descriptor).
syscalls() { # syscalls NAME MODE [VAR=VALUE] PROGRAM
	name=$1 mode=$2
	shift 2
	env "$@" >/dev/null 2>&1 || true	# warm
	if [ $# -eq 2 ]; then
		env "$1" strace -y -o "$O/strace-$name.txt" "$2" >/dev/null 2>&1 || true
	else
		strace -y -o "$O/strace-$name.txt" "$1" >/dev/null 2>&1 || true
	fi
	if [ "$mode" = exec ]; then
		awk 'NR > 1 && /^execve\(/ { print NR - 2; exit }' "$O/strace-$name.txt"
	else
		awk -v l="$ldso_name" '{ line[NR] = $0 } index($0, l) { last = NR }
			END { for (i = last + 1; i <= NR; i++) if (line[i] ~ /^brk\(NULL\)/) { print i - 2; exit } }' \
			"$O/strace-$name.txt"
	fi
}
{
	for v in floor-chain:chain cudaload-chain:chain floor-exec:exec cudaload-exec:exec; do
		n=${v%:*} m=${v#*:}
		prog=$T-${n#cudaload-}
		printf 'nogpu/%s,%s\n' "$n" "$(syscalls "nogpu-$n" "$m" "$prog")"
		case $n in floor-*) a=$L; jn=$n+list ;; *) a=$J; jn=$n ;; esac
		printf 'jetson/%s,%s\n' "$jn" "$(syscalls "jetson-$n" "$m" "$a" "$prog")"
	done
	for m in chain exec; do
		printf 'held/unpinned-%s,%s\n' "$m" "$(syscalls "unpinned-$m" "$m" "$UN" "$T-$m")"
		printf 'held/pinned-%s,%s\n' "$m" "$(syscalls "pinned-$m" "$m" "$PN" "$T-$m")"
	done
} >"$O/syscalls.csv"
# What the pin adds to the whole run, ld.so's search included: every system
# call from exec to exit.
total_syscalls() { # total_syscalls [VAR=VALUE] PROGRAM
	env "$@" >/dev/null 2>&1 || true	# warm
	if [ $# -eq 2 ]; then set -- -E "$1" "$2"; fi
	strace -f -o "$O/strace-total.txt" "$@" >/dev/null 2>&1 || true
	grep -vc -e '^[0-9]* +++ exited' -e '^[0-9]* --- ' "$O/strace-total.txt"
}
held_total="direct $(total_syscalls "$T"), direct+pin $(total_syscalls "$LP" "$T")"
for m in chain exec; do
	held_total="$held_total, unpinned-$m $(total_syscalls "$UN" "$T-$m"), pinned-$m $(total_syscalls "$PN" "$T-$m")"
done

# The instructions a chain start runs, counted by callgrind: where time on a
# shared machine drifts by microseconds, this count is the same run after
# run, so what a change to the start's own code saves shows exactly.  The
# floor's start (with the same list) is taken from cudaload's, so what is
# left is cudaload's own work.  Chain mode only: valgrind counts an image
# from its exec, and exec mode's cudaload is gone at ld.so's.  valgrind's
# wrapper adds an LD_LIBRARY_PATH of its own, which env takes away again.
instructions() { # instructions [VAR=VALUE] PROGRAM
	env "$@" >/dev/null 2>&1 || true	# warm
	valgrind --tool=callgrind --callgrind-out-file=/dev/null --trace-children=yes \
		env -u LD_LIBRARY_PATH "$@" 2>&1 >/dev/null | sed -n 's/.*I *refs: *//p' | tr -d ,
}
# instr_over CUDALOAD_VAR FLOOR_VAR: a chain start's count less the floor's
# ("" for no variable)
instr_over() {
	a=$(instructions ${1:+"$1"} "$T-chain") b=$(instructions ${2:+"$2"} "$T-floor-chain")
	[ -n "$a" ] && [ -n "$b" ] && echo $((a - b)) || echo "?"
}
instr="-"
if command -v valgrind >/dev/null 2>&1; then
	instr="jetson $(instr_over "$J" "$L"), held/pinned $(instr_over "$PN" "$LP"), nogpu $(instr_over "" "")"
fi

strip -o "$O/cudaload.stripped" "$B/cudaload"
size=$(stat -c %s "$O/cudaload.stripped")
size_a64=0
if [ -f "$B/aarch64/cudaload" ] && command -v aarch64-linux-gnu-strip >/dev/null; then
	aarch64-linux-gnu-strip -o "$O/cudaload-aarch64.stripped" "$B/aarch64/cudaload"
	size_a64=$(stat -c %s "$O/cudaload-aarch64.stripped")
fi

# cudaload-patch against patchelf over the same tree of copies of env(1).
mkdir -p "$O/tree-a" "$O/tree-b"
i=0
while [ $i -lt "$copies" ]; do
	cp /usr/bin/env "$O/tree-a/env-$i"
	i=$((i + 1))
done
cp -a "$O/tree-a/." "$O/tree-b/"
t0=$(date +%s%N)
"$B/cudaload-patch" --interp /usr/bin/cudaload --machine "$(uname -m)" --all "$O/tree-a" >/dev/null 2>&1
t1=$(date +%s%N)
find "$O/tree-b" -type f -exec patchelf --set-interpreter /usr/bin/cudaload {} \;
t2=$(date +%s%N)
patch_s=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", (b - a) / 1e9 }')
patchelf_s=$(awk -v a="$t1" -v b="$t2" 'BEGIN { printf "%.3f", (b - a) / 1e9 }')

# cudaload --status over a machine with status_n recorded programs (copies
# of env(1), patched above), on the Jetson fixture, where a package is
# chosen and every program's search list and rivals are worked out: the
# median of five runs, text output.
S=$O/root
mkdir -p "$S/usr/bin" "$S/var/lib/cudaload" "$S/opt/fleet" "$S$(dirname "$LDSO")"
cp "$B/cudaload" "$S/usr/bin/cudaload"
cp -L "$LDSO" "$S$LDSO"
: >"$O/empty.conf"
i=0
while [ $i -lt "$status_n" ]; do
	cp "$O/tree-a/env-$i" "$S/opt/fleet/app-$i"
	printf '/usr/bin/cudaload\t/opt/fleet/app-%d\n' "$i"
	i=$((i + 1))
done >"$S/var/lib/cudaload/patched"
st=$(for r in 1 2 3 4 5; do
	t0=$(date +%s%N)
	CUDALOAD_ROOT=$S CUDALOAD_CONFIG=$O/empty.conf "$B/cudaload" --status >"$O/status.txt" || [ $? -eq 1 ]
	t1=$(date +%s%N)
	echo $((t1 - t0))
done | sort -n | sed -n 3p)
status_s=$(awk -v n="$st" 'BEGIN { printf "%.4f", n / 1e9 }')
status_held=$(sed -n 's/^status: *//p' "$O/status.txt")

# cudaload-runtime in front of a container's start: the next runtime alone
# (a do-nothing one, a copy of true(1)), then behind the wrapper on runc
# spec's config.json without a GPU, and with a GPU that it hooked already
# (read and scanned, nothing written).  The first create of a GPU
# container (read, rewrite, then exec): its system calls before the next
# runtime's exec, beside the no-GPU one's.
RT=$O/runtime
rt_syscalls="-"
if command -v runc >/dev/null 2>&1; then
	mkdir -p "$RT/nogpu" "$RT/gpu"
	cp /bin/true "$RT/next"
	printf 'runtime = %s\n' "$RT/next" >"$RT/cudaload.conf"
	(cd "$RT/nogpu" && runc spec)
	sed 's/"TERM=xterm"/"TERM=xterm", "NVIDIA_VISIBLE_DEVICES=all"/' "$RT/nogpu/config.json" >"$RT/gpu/config.json"
	cp "$RT/gpu/config.json" "$RT/gpu.orig"
	wrapped() { # wrapped BUNDLE: the system calls before the next runtime's exec
		CUDALOAD_CONFIG=$RT/cudaload.conf strace -o "$O/strace-runtime.txt" "$B/cudaload-runtime" create \
			--bundle "$1" c1 >/dev/null 2>&1 || true
		awk 'NR > 1 && /^execve\(/ { print NR - 2; exit }' "$O/strace-runtime.txt"
	}
	rt_syscalls="no GPU $(wrapped "$RT/nogpu"), first create of a GPU container $(wrapped "$RT/gpu")"
	grep -q oci-hook "$RT/gpu/config.json" || { echo "bench: cudaload-runtime did not hook $RT/gpu" >&2; exit 1; }
	"$O/startup" "$rounds" "$per" \
		"runtime/direct=$RT/next create --bundle $RT/nogpu c1" \
		"runtime/wrapper-no-gpu=CUDALOAD_CONFIG=$RT/cudaload.conf $B/cudaload-runtime create --bundle $RT/nogpu c1" \
		"runtime/wrapper-gpu-hooked=CUDALOAD_CONFIG=$RT/cudaload.conf $B/cudaload-runtime create --bundle $RT/gpu c1" \
		>"$O/runtime.csv"
else
	: >"$O/runtime.csv"
fi

# ---- the tables and the JSON ------------------------------------------------------
printf 'start-up, %d rounds of %d runs (python3: %d), order rotated each round, medians\n' \
	"$rounds" "$per" "$py_per"
printf 'x floor: against the floor of the same fixture and mode (floor-chain, floor-exec; with the list or the pin)\n'
awk -F, -v out="$O/results.json" -v size="$size" -v size_a64="$size_a64" \
    -v copies="$copies" -v patch_s="$patch_s" -v patchelf_s="$patchelf_s" \
    -v rounds="$rounds" -v per="$per" -v py_per="$py_per" -v held_total="$held_total" \
    -v status_n="$status_n" -v status_s="$status_s" -v status_held="$status_held" -v instr="$instr" \
    -v rt_syscalls="$rt_syscalls" '
FILENAME ~ /syscalls/ { sc[$1] = $2; next }
FNR == 1 { prog = FILENAME; sub(/.*\//, "", prog); sub(/\.csv$/, "", prog); progs[++np] = prog }
{
	k = prog SUBSEP $1
	t[k] = $2; pf[k] = $3
	rows[prog, ++nr[prog]] = $1
	split($1, f, "/")
	if (f[2] == "direct") d[prog, f[1]] = $2
	if (f[2] ~ /^floor-chain/) fl[prog, f[1]] = $2
	if (f[2] ~ /^floor-exec/) fle[prog, f[1]] = $2
}
END {
	printf "{\"rounds\":%d,\"runs_per_round\":%d,\"python3_runs_per_round\":%d,\"startup\":{", rounds, per, py_per > out
	for (p = 1; p <= np; p++) {
		pr = progs[p]
		printf "\n%s\n%-28s %10s %9s %9s %7s %9s\n", pr, "fixture/variant", "median", "x direct", "x floor", "faults", "syscalls"
		printf "%s\"%s\":{", (p > 1 ? "," : ""), pr >> out
		for (r = 1; r <= nr[pr]; r++) {
			v = rows[pr, r]; k = pr SUBSEP v
			split(v, f, "/")
			rd = t[k] / d[pr, f[1]]
			fd = f[2] ~ /exec/ && ((pr, f[1]) in fle) ? fle[pr, f[1]] : fl[pr, f[1]]
			rf = fd ? t[k] / fd : 0	# the runtime table has no floor
			s = (pr == "trivial" && (v in sc)) ? sc[v] : ""
			printf "%-28s %7.3f ms %9.3f %9.3f %7d %9s\n", v, t[k] * 1000, rd, rf, pf[k], (s == "" ? "-" : s)
			printf "%s\"%s\":{\"median_s\":%.9f,\"x_direct\":%.4f,\"x_floor\":%.4f,\"page_faults\":%d%s}", \
				(r > 1 ? "," : ""), v, t[k], rd, rf, pf[k], (s == "" ? "" : ",\"syscalls\":" s) >> out
		}
		printf "}" >> out
	}
	printf "\nheld, system calls from exec to exit: %s\n", held_total
	printf "chain start, instructions over the floor'"'"'s (callgrind): %s\n", instr
	printf "cudaload-runtime, system calls before the next runtime'"'"'s exec: %s\n", rt_syscalls
	printf "\ncudaload stripped size: %d bytes (%.1f KiB); aarch64: %d bytes (%.1f KiB)\n", \
		size, size / 1024, size_a64, size_a64 / 1024
	printf "patching %d copies of env(1): cudaload-patch %.3f s, patchelf loop %.3f s (%.1fx)\n", \
		copies, patch_s, patchelf_s, patchelf_s / (patch_s > 0 ? patch_s : 0.001)
	printf "cudaload --status, %d recorded programs: %.4f s (%.3f ms a program): %s\n", \
		status_n, status_s, status_s * 1000 / status_n, status_held
	printf "},\"held_total_syscalls\":\"%s\"", held_total >> out
	printf ",\"chain_instructions_over_floor\":\"%s\"", instr >> out
	printf ",\"runtime_syscalls\":\"%s\"", rt_syscalls >> out
	printf ",\"status\":{\"programs\":%d,\"seconds\":%s}", status_n, status_s >> out
	printf ",\"stripped_size\":{\"host\":%d,\"aarch64\":%d},", size, size_a64 >> out
	printf "\"patch\":{\"copies\":%d,\"cudaload_patch_s\":%s,\"patchelf_s\":%s}}\n", copies, patch_s, patchelf_s >> out
}' "$O/syscalls.csv" "$O/trivial.csv" "$O/python3.csv" "$O/runtime.csv"
echo "figures: $O/results.json"
