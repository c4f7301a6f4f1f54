#!/bin/sh
# SPDX-License-Identifier: MIT
# The prepared decision (common/stores/prepared.h, docs/design.md §13): a start on a
# Jetson whose inputs did not change reads what an earlier start decided and
# checks it with a stat per input; each input changed in turn gives the new
# decision at the next start, a damaged or foreign one is ignored,
# concurrent first starts agree, and on x86_64 strace counts what is left
# before ld.so.  Usage: prepared.sh BUILD [x86_64|aarch64] [exec|chain]
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
B=$(cd "${1:-$top/build}" && pwd)
arch=${2:-$(uname -m)}
mode=${3:-exec}
. "$here/../lib/lib.sh"
echo "== prepared decision, $arch, $mode mode"
if ! for_arch "$arch"; then
	skip "$arch prepared decision" "$foreign_why"
	finish
	exit
fi
export CC=$TCC OBJCOPY
W=$B/e2e-prepared-$arch-$mode
rm -rf "$W"
mkdir -p "$W/libs" "$W/bin"
${HOSTCC:-cc} -O1 -o "$W/libs/mknote" "$here/../helpers/mknote.c"
$TCC -O1 -o "$W/bin/cudaprobe" "$here/../helpers/cudaprobe.c" -ldl
# cudaload installed where no ../etc/cudaload.conf lies beside it, as the
# bench runs it (the build tree's etc/ holds the example config)
mkdir -p "$W/cl/bin"
cp "$CL" "$W/cl/bin/cudaload"
[ ! -x "$(dirname "$CL")/cudaload-verify" ] || cp "$(dirname "$CL")/cudaload-verify" "$W/cl/bin/"
CL=$W/cl/bin/cudaload
P=$W/bin/probe
cp "$W/bin/cudaprobe" "$P"
"$B/cudaload-patch" --interp "$CL" "$P" >/dev/null
# one that names a directory of its own: never prepared
cp "$W/bin/cudaprobe" "$P-runpath"
patchelf --set-rpath /opt/app/lib "$P-runpath"
"$B/cudaload-patch" --interp "$CL" "$P-runpath" >/dev/null

# JetPack 5 with cuda-compat-12-2: compat (the app note's table).
base=$W/base
sh "$here/../lib/mkroot.sh" "$top/tests/fixtures/orin-jp5-compat122.profile" "$base" "$W/libs" || {
	bad "fixture"
	finish
	exit
}
compat=/usr/local/cuda-12.2/compat tegra=/usr/lib/aarch64-linux-gnu/tegra

# bare ROOT COMMAND...: COMMAND on ROOT in this mode, with nothing of the
# caller's that names a directory (no LD_LIBRARY_PATH, CUDA_HOME, conda or
# config file).
bare() {
	r=$1
	shift
	env -u LD_LIBRARY_PATH -u CUDA_HOME -u CUDA_PATH -u CONDA_PREFIX -u CUDALOAD_CONFIG \
		CUDALOAD_ROOT="$r" CUDALOAD_MODE="$mode" CUDALOAD_FIRST_USE=off "$@"
}
# start ROOT [VAR=VALUE...]: the probe, patched, with nothing of its own:
# which libcuda it loaded.
start() {
	r=$1
	shift
	bare "$r" "$@" "$P" 2>&1 |
		sed -n "s|^libcuda=$r\([^ ]*\) .*|\1|p; s|^libcuda=none|none|p"
}
# why_of ROOT PROGRAM [VAR=VALUE...]: what the trace says of the prepared
# decision for PROGRAM, run by that name; why ROOT [VAR=VALUE...]: for the probe.
why_of() {
	r=$1 p=$2
	shift 2
	bare "$r" CUDALOAD_DEBUG=1 "$@" "$p" 2>&1 | sed -n 's/.*: prepared decision: //p'
}
why() {
	r=$1
	shift
	why_of "$r" "$P" "$@"
}
lib_compat=$compat/libcuda.so.1	# as the probe names what dlopen found

cases="release newpkg removed inplace companion config policy verdicts module boot damaged file foreign concurrent runpath cudahome conda ownenv envwriter dangling debug loader verify user strace"
for c in $cases; do
	cp -a "$base" "$W/$c"
done
mkdir -p "$W/envwriter/usr/local/cuda"	# a toolkit with no compat/ (yet)
ln -s ../../opt/cuda "$W/dangling/usr/local/cuda"	# a link to what is not there (yet)
chmod -R a+rX "$W/user" "$W/bin" "$W/cl"	# for a user other than root (below)
# a loader a person names (CUDALOAD_LDSO): a copy of the program's own
ldso=$(readelf -lW "$W/bin/cudaprobe" | sed -n 's/.*interpreter: \(.*\)]/\1/p')
mkdir -p "$W/ldcopy"
cp -L "$ldso" "$W/ldcopy/ld.so"
sleep 1.2	# past the racy second of every file just made (prepared.h)
for c in $cases; do
	[ "$c" = user ] || start "$W/$c" >/dev/null	# prepares (the user's: root's must not be there)
done
for c in $cases; do
	case $c in dangling | user) continue ;; esac
	[ "$(why "$W/$c")" = "holds (the full path runs for this trace)" ] || bad "$c: prepared" "$(why "$W/$c")"
done
got=$(start "$W/release")
[ "$got" = "$lib_compat" ] && ok "prepared: the compat package, as decided" || bad "prepared: compat" "$got"

# expect CASE CHANGED [VAR=VALUE...]: the next start does not take the
# prepared decision and loads what the full path (the trace's run) loads;
# CHANGED: the decision differs from the prepared one.
expect() {
	c=$1 changed=$2
	shift 2
	w=$(why "$W/$c" "$@")
	case $w in
	holds*) bad "$c: the prepared decision no longer holds" "$w" ;;
	*) ok "$c: the prepared decision does not hold: $w" ;;
	esac
	want=$(start "$W/$c" CUDALOAD_DEBUG=1 "$@")
	got=$(start "$W/$c" "$@")
	[ "$got" = "$want" ] && ok "$c: the next start loads what the full path does (${want:-nothing})" ||
		bad "$c: loads $want" "$got"
	if [ "$changed" = changed ]; then
		[ "$got" != "$lib_compat" ] && ok "$c: not the package prepared" || bad "$c: a new decision" "$got"
	fi
}

# the driver: JetPack 4's release takes no 12.2 package (app note)
printf '# R32 (release), REVISION: 7.4, GCID: 33514132, BOARD: t186ref, EABI: aarch64, DATE: Fri Jun  9 04:25:08 UTC 2023\n' \
	>"$W/release/etc/nv_tegra_release"
expect release changed
# a new cuda-X.Y directory (JetPack 5 refuses 12.4: the same choice, judged anew)
cp -a "$W/newpkg/usr/local/cuda-12.2" "$W/newpkg/usr/local/cuda-12.4"
expect newpkg same
# the package gone
rm -rf "$W/removed$compat"
expect removed changed
# its libcuda written over in place, by one for another machine
other=aarch64-linux-gnu-gcc
[ "$arch" != aarch64 ] || other=x86_64-linux-gnu-gcc
if $other -shared -fPIC -Wl,-soname,libcuda.so.1 -DFAKE_CUDA_VERSION=12020 -o "$W/other.so" "$here/../helpers/fakecuda.c" 2>/dev/null; then
	cat "$W/other.so" >"$W/inplace$compat/libcuda.so.1.1"
	expect inplace changed
else
	skip "inplace" "no $other to build a libcuda for another machine"
fi
# a companion library gone
rm -f "$W/companion$compat"/libnvidia-ptxjitcompiler.so*
expect companion same
# the settings: the config file, the environment
printf 'policy = system\n' >"$W/policy.conf"
expect config changed CUDALOAD_CONFIG="$W/policy.conf"
expect policy changed CUDALOAD_POLICY=system
# the verdict store: cudaload-verify itself (cudaload --verify would
# prepare anew), with the package's cuInit failing where the system driver's works
cl=$CL
if verifier_suite "$arch" "prepared: verdicts" >/dev/null; then
	CL=$cl
	printf '%s\n' 999 >"$W/verdicts$compat/fake-cuinit"
	sleep 1.2
	start "$W/verdicts" >/dev/null
	[ "$(why "$W/verdicts")" = "holds (the full path runs for this trace)" ] || bad "verdicts: prepared" "$(why "$W/verdicts")"
	CUDALOAD_ROOT=$W/verdicts "$(dirname "$CL")/cudaload-verify" --cudaload-dir "$(dirname "$CL")" >/dev/null 2>&1
	expect verdicts changed
else
	skip "verdicts" "cudaload-verify cannot load packages from this build tree (verifier_suite)"
fi
CL=$cl
# root's --verify prepares the host's decision once its verdicts are
# stored, for the starts after it (the package triggers, the boot's service)
if verifier_suite "$arch" "prepared: --verify" >/dev/null; then
	CL=$cl
	rm -rf "$W/verify/run/cudaload"
	out=$(bare "$W/verify" "$CL" --verify 2>&1)
	status "verify: root's --verify runs" 0 $? "$out"
	status "verify: ... and leaves a decision prepared that holds" \
		"holds (the full path runs for this trace)" "$(why "$W/verify")"
	status "verify: ... which the next start takes" "$lib_compat" "$(start "$W/verify")"
else
	skip "verify" "cudaload-verify cannot load packages from this build tree (verifier_suite)"
fi
CL=$cl
# a module loaded (or reloaded: a new node in /sys/module)
mkdir -p "$W/module/sys/module/nvgpu"
expect module same
# a boot: /run emptied
rm -rf "$W/boot/run/cudaload"
case $(why "$W/boot") in none*) ok "boot: nothing prepared" ;; *) bad "boot: none" "$(why "$W/boot")" ;; esac
got=$(start "$W/boot")
[ "$got" = "$lib_compat" ] && ok "boot: compat" || bad "boot: compat" "$got"

# damaged, a plain file, another build's or settings': ignored, then made again
m=$(ls "$W/damaged/run/cudaload" | grep prepared-)
ln -sfn "cudaload-prepared 1 nonsense" "$W/damaged/run/cudaload/$m"
expect damaged same
rm -f "$W/file/run/cudaload/$m"
printf 'cudaload-prepared 1\n' >"$W/file/run/cudaload/$m"
expect file same
t=$(readlink "$W/foreign/run/cudaload/$m")
ln -sfn "$(printf '%s' "$t" | sed '1s/^\(cudaload-prepared 1 \)./\1f/')" "$W/foreign/run/cudaload/$m"
expect foreign same
for c in damaged file foreign; do
	w=$(why "$W/$c")
	[ "$w" = "holds (the full path runs for this trace)" ] && ok "$c: made again" || bad "$c: made again" "$w"
done

# concurrent first starts: all agree, and what is left holds
rm -f "$W/concurrent/run/cudaload/$m"
at_once 8 "$W/concurrent" start "$W/concurrent"
n=$(cat "$W"/concurrent.? | sort -u)
[ "$n" = "$lib_compat" ] && ok "concurrent: 8 first starts agree" || bad "concurrent: agree" "$n"
[ "$(why "$W/concurrent")" = "holds (the full path runs for this trace)" ] && ok "concurrent: the one left holds" ||
	bad "concurrent: holds" "$(why "$W/concurrent")"
ls -a "$W/concurrent/run/cudaload" | grep -q '^\.prepared\.' && bad "concurrent: a temporary left" || ok "concurrent: no temporary left"

# what the program brings
w=$(env -u LD_LIBRARY_PATH CUDALOAD_ROOT="$W/runpath" CUDALOAD_MODE="$mode" CUDALOAD_FIRST_USE=off \
	CUDALOAD_DEBUG=1 "$P-runpath" 2>&1 | grep -c 'prepared decision')
[ "$w" = 0 ] && ok "runpath: a program with a RUNPATH takes the full path" || bad "runpath: full path" "$w"
# not_judged CASE WHAT VAR=VALUE: a package the environment names that the
# prepared decision did not judge sends the start down the full path
not_judged() {
	w=$(why "$W/$1" "$3")
	case $w in
	holds*) bad "$1: $2's package, not judged, takes the full path" "$w" ;;
	*) ok "$1: $2's package, not judged, takes the full path: $w" ;;
	esac
}
mkdir -p "$W/cudahome/opt/toolkit" "$W/conda/opt/env"
cp -a "$W/cudahome$compat" "$W/cudahome/opt/toolkit/compat"
cp -a "$W/conda$compat" "$W/conda/opt/env/cuda-compat"
not_judged cudahome CUDA_HOME CUDA_HOME=/opt/toolkit
not_judged conda CONDA_PREFIX CONDA_PREFIX=/opt/env
# the program's own environment (PREFIX/cuda-compat beside PREFIX/bin, as on
# the target: under the root, by the name the program was run by as written,
# where that is a plain absolute name and not a link; else by /proc/self/exe)
ln -sfn bin "$W/alias"
ln -sf probe "$W/bin/probe-link"
# whyp PROGRAM: why_of the ownenv root; loadsp PROGRAM [VAR=VALUE...]: the
# libcuda it loads
whyp() { why_of "$W/ownenv" "$1"; }
loadsp() {
	p=$1
	shift
	bare "$W/ownenv" "$@" "$p" 2>&1 | grep '^libcuda='
}
held="holds (the full path runs for this trace)"
for prog in "$P" "$W/alias/probe" "$W/bin/probe-link"; do
	status "ownenv: ${prog#"$W"/}, no package of its own: the prepared decision holds" "$held" "$(whyp "$prog")"
done
mkdir -p "$W/ownenv$W"
cp -a "$W/ownenv$compat" "$W/ownenv$W/cuda-compat"
# bin/probe: $W is its PREFIX; bin/probe-link: a link, so /proc/self/exe's
# name, bin/probe; ./probe: not absolute, likewise
for prog in "$P" "$W/bin/probe-link"; do
	case $(whyp "$prog") in
	holds*) bad "ownenv: ${prog#"$W"/}: its own package, not judged, takes the full path" ;;
	*) ok "ownenv: ${prog#"$W"/}: its own package, not judged, takes the full path" ;;
	esac
done
(cd "$W/bin" && case $(whyp ./probe) in
	holds*) bad "ownenv: ./probe (a relative name): its own package takes the full path" ;;
	*) ok "ownenv: ./probe (a relative name): its own package takes the full path" ;;
	esac)
# alias/probe: as written, not in a bin/: no package of its own, for the
# full path as for the check
status "ownenv: alias/probe, not in a bin/ as written: the decision holds" "$held" "$(whyp "$W/alias/probe")"
for prog in "$P" "$W/alias/probe" "$W/bin/probe-link"; do
	want=$(loadsp "$prog" CUDALOAD_DEBUG=1)
	status "ownenv: ${prog#"$W"/}: loads what the full path does" "$want" "$(loadsp "$prog")"
done
w=$(why "$W/cudahome" CUDA_HOME=/usr/local/cuda-12.2)
[ "$w" = "holds (the full path runs for this trace)" ] && ok "cudahome: one it judged keeps the prepared decision" ||
	bad "cudahome: judged" "$w"

# a decision written by a start whose CUDA_HOME names the default place:
# that place is still the host's input
rm -f "$W/envwriter/run/cudaload/$m"
start "$W/envwriter" CUDA_HOME=/usr/local/cuda >/dev/null
[ "$(why "$W/envwriter")" = "holds (the full path runs for this trace)" ] || bad "envwriter: prepared" "$(why "$W/envwriter")"
cp -a "$W/envwriter$compat" "$W/envwriter/usr/local/cuda/compat"
expect envwriter same
# a dangling link above a place looked for: what it names may appear
# anywhere, so nothing is kept
case $(why "$W/dangling") in
holds*) bad "dangling: a link to nothing above an input: nothing prepared" ;;
*) ok "dangling: a link to nothing above an input: nothing prepared" ;;
esac
# the trace's start (it looks wider) writes nothing
rm -f "$W/debug/run/cudaload/$m"
why "$W/debug" >/dev/null
[ ! -e "$W/debug/run/cudaload/$m" ] && ok "debug: the trace's start writes nothing" || bad "debug: nothing written"

# the loader, kept beside the decision by an exec start: the next exec
# start that would look there first finds the file it read unchanged (one
# stat) and reads it no more; a file put in its place is read and judged as
# ever (here cudaload itself: refused, never run)
if [ "$mode" = exec ]; then
	R=$W/loader
	rm -f "$R/run/cudaload/$m"
	start "$R" CUDALOAD_LDSO="$W/ldcopy/ld.so" >/dev/null
	contains "loader: kept, named by a person" "$(readlink "$R/run/cudaload/$m")" " p $W/ldcopy/ld.so"
	status "loader: the next start with it loads the package" "$lib_compat" \
		"$(start "$R" CUDALOAD_LDSO="$W/ldcopy/ld.so")"
	status "loader: ... and one with the standard loader, which it does not know, too" "$lib_compat" \
		"$(start "$R")"
	cp "$CL" "$W/ldcopy/ld.so"
	out=$(bare "$R" CUDALOAD_LDSO="$W/ldcopy/ld.so" "$P" 2>&1)
	status "loader: cudaload put in the kept loader's place: refused, not run" 127 $? "$out"
	contains "loader: ... said" "$out" "$W/ldcopy/ld.so (CUDALOAD_LDSO): is cudaload itself, not a dynamic loader"
fi

# a host without a GPU keeps nothing: no file left behind on such a machine
mkdir -p "$W/nogpu/run" "$W/nogpu/etc"
start "$W/nogpu" >/dev/null
start "$W/nogpu" >/dev/null
[ ! -e "$W/nogpu/run/cudaload" ] && ok "nogpu: nothing kept on a host without a GPU" ||
	bad "nogpu: a file left behind" "$(ls -la "$W/nogpu/run/cudaload")"

# $ORIGIN, as without cudaload: glibc's ld.so takes the program's from
# /proc/self/exe, the path behind every link, and so does cudaload, in chain
# mode (ld.so reads it) and in exec mode (the name it hands ld.so).  A
# deploy link (current -> releases/N) repointed while the program runs must
# not change which release's libraries it loads later.  The program repoints
# the link, then dlopens a plugin by its RUNPATH $ORIGIN/../lib; the same
# program unpatched says which release that should be.
O=$W/origin
mkdir -p "$O/releases/1/bin" "$O/releases/2/bin" "$O/releases/1/lib" "$O/releases/2/lib"
cat >"$O/app.c" <<'EOC'
#include <dlfcn.h>
#include <stdio.h>
#include <unistd.h>
/* app LINK TARGET: point LINK at TARGET, then load libplug by RUNPATH */
int main(int argc, char **argv)
{
	char tmp[4096];
	if (argc != 3 || snprintf(tmp, sizeof tmp, "%s.new", argv[1]) >= (int)sizeof tmp ||
	    symlink(argv[2], tmp) != 0 || rename(tmp, argv[1]) != 0)
		return 2;
	void *h = dlopen("libplug.so", RTLD_NOW);
	const char *(*release)(void) = h ? (const char *(*)(void))dlsym(h, "plug_release") : NULL;
	printf("%s\n", release ? release() : "none");
	return 0;
}
EOC
printf 'const char *plug_release(void) { return RELEASE; }\n' >"$O/plug.c"
built=yes
for r in 1 2; do
	$TCC -shared -fPIC -DRELEASE="\"$r\"" -o "$O/releases/$r/lib/libplug.so" "$O/plug.c" &&
		$TCC -o "$O/releases/$r/bin/app-plain" "$O/app.c" -ldl \
			-Wl,--enable-new-dtags,-rpath,'$ORIGIN/../lib' &&
		cp "$O/releases/$r/bin/app-plain" "$O/releases/$r/bin/app" &&
		"$B/cudaload-patch" --interp "$CL" "$O/releases/$r/bin/app" >/dev/null || built=
done
flip() { # flip PROGRAM: the release PROGRAM's plugin comes from, current repointed to 2
	ln -sfn releases/1 "$O/current"
	bare "$base" "$O/current/bin/$1" "$O/current" releases/2 2>&1
}
if [ -n "$built" ]; then
	want=$(flip app-plain)
	status "origin: a deploy link repointed during the run: its own release's plugin, as without cudaload" \
		"$want" "$(flip app)"
	status "origin: ... which is release 1" 1 "$want"
else
	bad "origin: build the program and its plugins"
fi

# a user other than root, where root's is gone: the user's own, in an
# XDG_RUNTIME_DIR of that user's that nobody else may enter; never in one
# another user could write into
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null 2>&1; then
	NU=65534
	mkdir -p "$W/xdg-own" "$W/xdg-open"
	chown "$NU:$NU" "$W/xdg-own"
	chmod 700 "$W/xdg-own"
	chmod 1777 "$W/xdg-open"
	as_user() { # as_user XDG [VAR=VALUE...]
		x=$1
		shift
		setpriv --reuid=$NU --regid=$NU --clear-groups env -u LD_LIBRARY_PATH -u CUDA_HOME \
			-u CUDA_PATH -u CONDA_PREFIX -u CUDALOAD_CONFIG XDG_RUNTIME_DIR="$x" \
			CUDALOAD_ROOT="$W/user" CUDALOAD_MODE="$mode" CUDALOAD_FIRST_USE=off "$@" "$P" 2>&1
	}
	as_user "$W/xdg-own" >/dev/null
	[ -L "$W/xdg-own/cudaload/$m" ] && ok "user: the decision kept in the user's own place" ||
		bad "user: kept in XDG_RUNTIME_DIR"
	w=$(as_user "$W/xdg-own" CUDALOAD_DEBUG=1 | sed -n 's/.*: prepared decision: //p')
	[ "$w" = "holds (the full path runs for this trace)" ] && ok "user: ... and it holds" || bad "user: holds" "$w"
	got=$(as_user "$W/xdg-own" | sed -n "s|^libcuda=$W/user\([^ ]*\) .*|\1|p")
	[ "$got" = "$lib_compat" ] && ok "user: the package, as root's start would take" || bad "user: compat" "$got"
	as_user "$W/xdg-open" >/dev/null
	[ ! -e "$W/xdg-open/cudaload" ] && ok "user: nothing kept where others may write" ||
		bad "user: a decision kept in a directory others may write"
else
	skip "a user's own prepared decision" "needs root and setpriv"
fi

# what is left before ld.so: x86_64, where strace runs (the bench counts the same)
if [ "$arch" = "$(uname -m)" ] && command -v strace >/dev/null; then
	bare "$W/strace" strace -s 4096 -o "$W/strace.txt" "$P" >/dev/null 2>&1
	lacks "strace: the probe is not run (no release read, no /usr/local listed)" \
		"$(grep -e nv_tegra_release.*O_RDONLY -e getdents "$W/strace.txt")" "open"
	contains "strace: one readlink reads the decision" "$(grep -c 'readlink(.*/prepared-' "$W/strace.txt")" 1
	# chain mode finds the program's own package by the name it was run by:
	# no /proc, whose entries cost a start about 10 us; exec mode hands
	# ld.so /proc/self/exe's name (the $ORIGIN test above), found by the
	# name the program was run by where openat2 finds no link on it
	proc_read() { awk '/libc[.]so[.]6/ { exit } /proc.self.exe/' "$1"; }
	if [ "$mode" = chain ]; then
		lacks "strace: the program's own name, not /proc/self/exe's" "$(proc_read "$W/strace.txt")" /proc/self/exe
	else
		contains "strace: exec hands ld.so the program" \
			"$(grep '^execve(' "$W/strace.txt" | sed -n 2p)" "\"$P\""
		before=$(awk 'NR > 1 && /^execve\(/ { exit } { print }' "$W/strace.txt")
		lacks "strace: exec does not open the loader it kept" "$(printf '%s\n' "$before" | grep '^open')" "$ldso"
		contains "strace: ... one stat says it is the file read then" "$before" "stat(\"$ldso\""
		o2=$(grep '^openat2(' "$W/strace.txt")
		contains "strace: exec asks openat2 whether a link is on the program's name" "$o2" "RESOLVE_NO_SYMLINKS"
		case $o2 in
		*") = "[0-9]*)
			lacks "strace: ... and, none being there, reads no /proc/self/exe" \
				"$(proc_read "$W/strace.txt")" /proc/self/exe ;;
		*) skip "strace: exec by the name it was run by" "openat2 is refused here: $o2" ;;
		esac
		# through a linked directory: /proc/self/exe's name, the path behind it
		bare "$W/strace" strace -s 4096 -o "$W/strace-alias.txt" "$W/alias/probe" >/dev/null 2>&1
		contains "strace: exec through a linked directory reads /proc/self/exe" \
			"$(proc_read "$W/strace-alias.txt")" /proc/self/exe
		contains "strace: ... and hands ld.so the path behind the link" \
			"$(grep '^execve(' "$W/strace-alias.txt" | sed -n 2p)" "\"$P\""
	fi
	if [ "$mode" = chain ]; then
		n=$(awk -v l="$(basename "$(readelf -lW "$P" | sed -n 's/.*interpreter: \(.*\)]/\1/p')")" '
			{ line[NR] = $0 } /ld-linux/ { last = NR }
			END { for (i = last + 1; i <= NR; i++) if (line[i] ~ /^brk\(NULL\)/) { print i - 2; exit } }' "$W/strace.txt")
		[ "${n:-99}" -le 25 ] && ok "strace: $n system calls before ld.so" || bad "strace: at most 25 before ld.so" "$n"
	fi
else
	skip "strace counts" "strace runs the host's programs only"
fi
finish
