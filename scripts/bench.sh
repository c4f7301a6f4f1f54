#!/bin/sh
# make bench: what cudaload costs at start-up, measured, as ratios to running
# the program directly (warm-up, many runs, round-robin, medians, one session).
# Also: the system calls cudaload makes before handing over (strace), its
# stripped size, and cudaload-patch against a patchelf loop.
# Prints a table and writes build/bench/results.json.
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

runs=400 copies=5000
[ -z "$smoke" ] || { runs=5 copies=50; }

# A Jetson (JetPack 5, CUDA 12.2 compat available): cudaload probes, finds
# the package, decides, and passes a search list, as it would on the board.
$CC -O1 -o "$O/libs/mknote" "$E/mknote.c"
sh "$E/mkroot.sh" "$top/tests/fixtures/orin-jp5-compat122.profile" "$O/root" "$O/libs"
: >"$O/empty.conf"
LIST=$O/root/usr/local/cuda-12.2/compat
LDSO=$(readelf -lW /usr/bin/env | sed -n 's/.*Requesting program interpreter: \(.*\)]/\1/p')
export CUDALOAD_ROOT="$O/root"
unset CUDALOAD_CONFIG CUDALOAD_MODE CUDALOAD_DEBUG

# One cudaload per mode, each with its ../etc/cudaload.conf naming the mode,
# so no wrapper (env) stands in front of what is measured.
for m in exec chain; do
	mkdir -p "$O/$m/bin" "$O/$m/etc"
	cp "$B/cudaload" "$O/$m/bin/cudaload"
	printf 'mode = %s\n' "$m" >"$O/$m/etc/cudaload.conf"
done
printf 'int main(void) { return 0; }\n' >"$O/trivial.c"
$CC -O2 -o "$O/bin/trivial" "$O/trivial.c"
PY=$(readlink -f /usr/bin/python3)
for m in exec chain; do
	cp "$O/bin/trivial" "$O/bin/trivial-$m"
	cp "$PY" "$O/bin/python3-$m"
	"$B/cudaload-patch" --interp "$O/$m/bin/cudaload" "$O/bin/trivial-$m" "$O/bin/python3-$m" >/dev/null
done
for p in trivial python3; do
	printf '#!/bin/sh\nexport LD_LIBRARY_PATH=%s${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}\nexec %s "$@"\n' \
		"$LIST" "$([ $p = trivial ] && echo "$O/bin/trivial" || echo "$PY")" >"$O/bin/$p-wrapper"
	chmod +x "$O/bin/$p-wrapper"
done

# bench NAME PROGRAM [ARGS]: the six ways to start it, round-robin, medians
# in seconds (tests/bench/startup.c: interleaving keeps the drift of a shared
# machine out of the ratios).
$CC -O2 -o "$O/startup" "$top/tests/bench/startup.c"
bench() {
	name=$1 prog=$2
	shift 2
	args="$*"
	"$O/startup" "$runs" \
		"direct=$prog $args" \
		"ldso-library-path=$LDSO --library-path $LIST $prog $args" \
		"cudaload-exec=$O/bin/$name-exec $args" \
		"cudaload-chain=$O/bin/$name-chain $args" \
		"sh-wrapper=$O/bin/$name-wrapper $args" \
		"env-ld-library-path=/usr/bin/env LD_LIBRARY_PATH=$LIST $prog $args" >"$O/$name.csv"
}
bench trivial "$O/bin/trivial"
bench python3 "$PY" -c pass


# System calls before the hand-over, per mode (the exec of ld.so, or the
# jump into it, ends the count).
# exec: up to the execve of ld.so; chain: up to the first call ld.so makes
# itself (its brk), i.e. through the last mapping of ld.so.
strace -o "$O/strace-exec.txt" "$O/bin/trivial-exec" >/dev/null 2>&1 || true
sc_exec=$(awk 'NR > 1 && /^execve\(/ { print NR - 2; exit }' "$O/strace-exec.txt")
strace -o "$O/strace-chain.txt" "$O/bin/trivial-chain" >/dev/null 2>&1 || true
sc_chain=$(awk 'NR > 5 && /^brk\(NULL\)/ { print NR - 2; exit }' "$O/strace-chain.txt")

strip -o "$O/cudaload.stripped" "$B/cudaload"
size=$(stat -c %s "$O/cudaload.stripped")

# cudaload-patch against patchelf over the same tree of copies of env(1).
mkdir -p "$O/tree-a" "$O/tree-b"
i=0
while [ $i -lt "$copies" ]; do
	cp /usr/bin/env "$O/tree-a/env-$i"
	i=$((i + 1))
done
cp -a "$O/tree-a/." "$O/tree-b/"
t0=$(date +%s%N)
"$B/cudaload-patch" --interp /usr/bin/cudaload --machine "$(uname -m)" --all "$O/tree-a" >/dev/null
t1=$(date +%s%N)
find "$O/tree-b" -type f -exec patchelf --set-interpreter /usr/bin/cudaload {} \;
t2=$(date +%s%N)
patch_s=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", (b - a) / 1e9 }')
patchelf_s=$(awk -v a="$t1" -v b="$t2" 'BEGIN { printf "%.3f", (b - a) / 1e9 }')

# ---- the table and the JSON -------------------------------------------------------
awk -F, -v out="$O/results.json" \
    -v sc_exec="$sc_exec" -v sc_chain="$sc_chain" -v size="$size" \
    -v copies="$copies" -v patch_s="$patch_s" -v patchelf_s="$patchelf_s" -v runs="$runs" '
FNR == 1 { prog = FILENAME; sub(/.*\//, "", prog); sub(/\.csv$/, "", prog) }
{
	med = $2
	key = prog SUBSEP $1
	m[key] = med
	if ($1 == "direct") d[prog] = med
	if (!(prog in seen)) { seen[prog] = 1; progs[++np] = prog }
	if (!(($1) in seenr)) { seenr[$1] = 1; rows[++nr] = $1 }
}
END {
	printf "%-22s", "start-up (median)"
	for (p = 1; p <= np; p++) printf "  %22s", progs[p]
	printf "\n"
	for (r = 1; r <= nr; r++) {
		printf "%-22s", rows[r]
		for (p = 1; p <= np; p++) {
			k = progs[p] SUBSEP rows[r]
			printf "  %10.3f ms  %6.3fx", m[k] * 1000, m[k] / d[progs[p]]
		}
		printf "\n"
	}
	printf "\nsystem calls before hand-over: exec mode %d, chain mode %d\n", sc_exec, sc_chain
	printf "cudaload stripped size: %d bytes (%.1f KiB)\n", size, size / 1024
	printf "patching %d copies of env(1): cudaload-patch %.3f s, patchelf loop %.3f s (%.1fx)\n",
		copies, patch_s, patchelf_s, patchelf_s / (patch_s > 0 ? patch_s : 0.001)
	printf "{\"runs\":%d,\"startup\":{", runs > out
	for (p = 1; p <= np; p++) {
		printf "%s\"%s\":{", (p > 1 ? "," : ""), progs[p] >> out
		for (r = 1; r <= nr; r++) {
			k = progs[p] SUBSEP rows[r]
			printf "%s\"%s\":{\"median_s\":%.9f,\"ratio\":%.4f}", (r > 1 ? "," : ""), rows[r], m[k], m[k] / d[progs[p]] >> out
		}
		printf "}" >> out
	}
	printf "},\"syscalls\":{\"exec\":%d,\"chain\":%d},\"stripped_size\":%d,", sc_exec, sc_chain, size >> out
	printf "\"patch\":{\"copies\":%d,\"cudaload_patch_s\":%s,\"patchelf_s\":%s}}\n", copies, patch_s, patchelf_s >> out
}' "$O/trivial.csv" "$O/python3.csv"
echo "figures: $O/results.json"
