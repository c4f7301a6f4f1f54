# SPDX-License-Identifier: MIT
# Shared helpers for the end-to-end scripts (sourced).  Counts results and
# prints the closing line "N passed, N failed, N skipped".

pass=0 fail=0 skip=0

# The fixtures' expectations are the tables' and the stored verdicts': a
# start that asked the driver itself (first use, loader/start/firstuse.h) would
# write verdicts into a fixture between two checks.  firstuse.sh turns it on.
CUDALOAD_FIRST_USE=off
export CUDALOAD_FIRST_USE

# Debian's python3, with its packages (python3-jsonschema and the rest that
# scripts/deps.sh installs), wherever another one comes first on PATH (a
# version manager's shim, which also costs a dozen processes a call).
[ ! -x /usr/bin/python3 ] || python3() { /usr/bin/python3 "$@"; }

# The fake libcudas of mkroot.sh, built once for all the suites of a run
# (each builds them for its machine), under BUILD, kept by their sources'
# checksum: a changed fakecuda.c or mknote.c builds them anew.
if [ -n "${B:-}" ] && [ -n "${top:-}" ] && [ -z "${FAKECUDA_CACHE:-}" ]; then
	fc_sum=$(cat "$top/tests/e2e/helpers/fakecuda.c" "$top/tests/e2e/helpers/mknote.c" | cksum)
	FAKECUDA_CACHE=$B/fakecuda/${fc_sum%% *}
	export FAKECUDA_CACHE
fi

ok() { pass=$((pass + 1)); printf 'ok   %s\n' "$1"; }
skip() { skip=$((skip + 1)); printf 'SKIP %s: %s\n' "$1" "$2"; }
bad() {
	fail=$((fail + 1))
	printf 'FAIL %s\n' "$1"
	[ -z "${2:-}" ] || printf '%s\n' "$2" | sed 's/^/     | /'
}

# The checks below match with the shell's own patterns, where a quoted
# part is literal: a process each would cost a start of grep, and the
# suites make thousands of checks.  A LINE or PART of several lines is
# left to grep -F, whose patterns are one a line (any of them matches).
lib_nl='
'
# in_text TEXT PART: TEXT contains PART somewhere
in_text() {
	case $2 in *"$lib_nl"*) printf '%s\n' "$1" | grep -Fq -- "$2"; return ;; esac
	case $1 in *"$2"*) return 0 ;; esac
	return 1
}
# first_line TEXT PREFIX: the rest of TEXT's first line that starts with
# PREFIX, in $line; 1 (and $line empty) when no line does
first_line() {
	line=
	case "$lib_nl$1" in *"$lib_nl$2"*) ;; *) return 1 ;; esac
	line=$lib_nl$1
	line=${line#*"$lib_nl$2"}
	line=${line%%"$lib_nl"*}
}
# has NAME TEXT LINE: TEXT contains LINE as a whole line
has() {
	case $3 in
	*"$lib_nl"*) printf '%s\n' "$2" | grep -Fqx -- "$3" ;;
	*) case "$lib_nl$2$lib_nl" in *"$lib_nl$3$lib_nl"*) true ;; *) false ;; esac ;;
	esac && ok "$1" || bad "$1: no line '$3'" "$2"
}
# contains NAME TEXT PART: TEXT contains PART somewhere
contains() {
	if in_text "$2" "$3"; then ok "$1"; else bad "$1: no '$3'" "$2"; fi
}
lacks() {
	if in_text "$2" "$3"; then bad "$1: unexpected '$3'" "$2"; else ok "$1"; fi
}
# copies FILE N FORMAT: N copies of FILE with its mode, named by FORMAT with
# %g for 1 to N, by one tee (a cp each would cost a process each)
copies() {
	seq -f "$3" 1 "$2" | xargs sh -c 'tee -- "$@" <"$0" >/dev/null' "$1"
	seq -f "$3" 1 "$2" | xargs chmod "$(stat -c %a "$1")"
}
# status NAME WANT GOT OUTPUT
status() {
	if [ "$2" = "$3" ]; then ok "$1"; else bad "$1: got $3, want $2" "${4:-}"; fi
}

# written_atomically NAME DIR FILE CMD...: CMD, traced, puts DIR/FILE in place
# as common/base/atomicfile.h says: a temporary .FILE.cudaload-XXXXXX (a
# dot-file, which the collectors skip) created new by name, exclusively and
# never through a link, then renamed over FILE, nothing else left in DIR.
# DIR/FILE is removed first; DIR.strace keeps the trace.  Skipped where
# strace is missing or cannot trace.
written_atomically() {
	wa_name=$1 wa_dir=$2 wa_file=$3
	shift 3
	if ! command -v strace >/dev/null 2>&1 || ! strace -f -qq -o /dev/null true 2>/dev/null; then
		skip "$wa_name" "no strace, or it cannot trace here"
		return
	fi
	rm -f "$wa_dir/$wa_file"
	strace -f -qq -o "$wa_dir.strace" -e trace=openat,renameat,renameat2 "$@" >/dev/null 2>&1
	status "$wa_name: exit" 0 "$?"
	wa_re=$(printf '%s' "$wa_file" | sed 's/[].[*^$\\]/\\&/g')
	status "$wa_name: created by name, exclusively" 1 "$(grep -c \
		"openat([0-9]*, \"\\.$wa_re\\.cudaload-[0-9A-Za-z]\\{6\\}\", O_RDWR|O_CREAT|O_EXCL|.*O_NOFOLLOW" "$wa_dir.strace")"
	status "$wa_name: renamed into place" 1 \
		"$(grep -c "rename.*\"\\.$wa_re\\.cudaload-[0-9A-Za-z]\\{6\\}\", [0-9]*, \"$wa_re\"" "$wa_dir.strace")"
	status "$wa_name: no temporary left" "$wa_file" "$(ls -A "$wa_dir")"
}

# man_words PAGE: the rendered man page, one word a line, for lookups
man_words() { mandoc -T utf8 "$1" 2>/dev/null | col -b | tr -s ' \t,.;:()[]|' '\n\n\n\n\n\n\n\n\n'; }

# json_keys: every key of the JSON on standard input, nested ones too, sorted
json_keys() {
	python3 -c '
import json, sys
def walk(v):
    if isinstance(v, dict):
        for k, x in v.items():
            print(k)
            walk(x)
    elif isinstance(v, list):
        for x in v:
            walk(x)
walk(json.load(sys.stdin))' | sort -u
}

finish() {
	printf '%d passed, %d failed, %d skipped\n' "$pass" "$fail" "$skip"
	[ "$fail" -eq 0 ]
}

# build_cudart OUT: NVIDIA's runtime test program ($top/tests/e2e/helpers/cudart.c, built with
# nvcc -cudart shared) at OUT.  0: built; 1: this machine cannot build it,
# the reason in $cudart_why (a skip); 2: nvcc failed, its log in OUT.log.
build_cudart() {
	cuda=${CUDA_HOME:-/usr/local/cuda}
	nvcc=$cuda/bin/nvcc
	[ -x "$nvcc" ] || nvcc=$(command -v nvcc 2>/dev/null || true)
	if [ "$(uname -m)" != x86_64 ]; then
		cudart_why="the toolkit here is for x86_64; this is $(uname -m)"
		return 1
	fi
	if [ -z "$nvcc" ] || [ ! -x "$nvcc" ]; then
		cudart_why="no nvcc (looked in $cuda/bin and PATH)"
		return 1
	fi
	rtlib=$(dirname "$(find "$cuda/lib" "$cuda/lib64" "$cuda/targets/x86_64-linux/lib" -maxdepth 1 \
		-name 'libcudart.so.1[0-9]*' 2>/dev/null | head -n1)")
	if [ ! -e "$rtlib/libcudart.so.13" ]; then
		cudart_why="no libcudart.so.13 beside $nvcc (the fake driver answers CUDA 13's runtime)"
		return 1
	fi
	"$nvcc" -cudart shared -Xlinker -rpath="$rtlib" -o "$1" "$top/tests/e2e/helpers/cudart.c" >"$1.log" 2>&1 ||
		"$nvcc" -x cu -cudart shared -Xlinker -rpath="$rtlib" -o "$1" "$top/tests/e2e/helpers/cudart.c" >>"$1.log" 2>&1 ||
		return 2
}

# at_once N OUT CMD...: N runs of CMD at the same moment, the output of the
# i-th in OUT.i (starts that race: first use, a decision prepared)
at_once() {
	ao_n=$1 ao_out=$2 ao_i=0
	shift 2
	while [ $ao_i -lt "$ao_n" ]; do
		"$@" >"$ao_out.$ao_i" &
		ao_i=$((ao_i + 1))
	done
	wait
}

# for_arch ARCH: CL (that machine's cudaload under $B), TCC and OBJCOPY for
# ARCH's programs; 1, the reason in foreign_why, when they cannot run here
# (needs $B and $here).
for_arch() {
	if [ "$1" = "$(uname -m)" ]; then
		CL=$B/cudaload TCC=${CC:-cc} OBJCOPY=objcopy
		return 0
	fi
	CL=$B/$1/cudaload TCC=$1-linux-gnu-gcc OBJCOPY=$1-linux-gnu-objcopy
	. "$top/tests/e2e/lib/foreign.sh"
	foreign_ready "$1" "$CL" "$TCC"
}

# root_only DIR: are DIR and every directory above it root's and writable by
# root alone (one above may be writable by others when sticky, as /tmp)?
# Root's --verify loads no package under a tree others can change.
root_only() {
	ro=$(cd "$1" && pwd -P) || return 1
	ro_above=
	while :; do
		ro_stat=$(stat -c '%u %a' "$ro") || return 1
		ro_mode=0${ro_stat#* }
		[ "${ro_stat%% *}" = 0 ] || return 1
		if [ $((ro_mode & 022)) -ne 0 ]; then
			[ -n "$ro_above" ] && [ $((ro_mode & 01000)) -ne 0 ] || return 1
		fi
		[ "$ro" = / ] && return 0
		ro=$(dirname "$ro")
		ro_above=1
	done
}

# verifier_suite ARCH NAME: ready to run the verifier's suite NAME for ARCH
# (for_arch; a build tree root's --verify may load from; cudaload-verify
# beside CL); 1 having said SKIP or FAIL with the reason.
verifier_suite() {
	if ! for_arch "$1"; then
		skip "$1 $2" "$foreign_why"
		return 1
	fi
	if [ "$(id -u)" -eq 0 ] && ! root_only "$B"; then
		skip "$1 $2" "$B or a directory above it can be changed by others than root: root's --verify rightly loads no package there (build in a tree only root can write)"
		return 1
	fi
	[ -x "$(dirname "$CL")/cudaload-verify" ] || { bad "no cudaload-verify beside $CL"; return 1; }
}
