#!/bin/sh
# SPDX-License-Identifier: MIT
# First use (loader/start/firstuse.h): on a host whose GPU only the driver can
# judge (an unknown device ID, a workstation board), the first start that
# would take a package asks cudaload-verify --first-use, detached, waits for
# its word, and the next start reads it and asks nothing.  Both modes, as a
# command and as PT_INTERP; concurrent first starts ask once; a package
# others can write is never loaded; first_use = off asks nothing; a user
# without root gets a store of the user's own; a busy GPU is asked again only
# after a while.  Prints what the first start and a later one cost.
# Usage: firstuse.sh BUILD [x86_64|aarch64]  (aarch64 elsewhere under qemu-user)
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
B=$(cd "${1:-$top/build}" && pwd)
arch=${2:-$(uname -m)}
HOSTCC=${CC:-cc}
. "$here/../lib/lib.sh"
unset CUDALOAD_FIRST_USE	# this script is about it: the default, verify

verifier_suite "$arch" "first use" || { finish; exit; }
echo "== first use, $arch"
W=$B/e2e-firstuse-$arch
rm -rf "$W"
mkdir -p "$W/libs" "$W/bin"
: >"$W/empty.conf"
printf 'first_use = off\n' >"$W/off.conf"
CC=$TCC
export CC OBJCOPY
$HOSTCC -O1 -o "$W/libs/mknote" "$here/../helpers/mknote.c"
$TCC -O1 -o "$W/bin/cudaprobe" "$here/../helpers/cudaprobe.c" -ldl
cp "$W/bin/cudaprobe" "$W/bin/probe-patched"
"$B/cudaload-patch" --interp "$CL" "$W/bin/probe-patched" >/dev/null
DD=/usr/lib/x86_64-linux-gnu	# the fixtures' driver directory
F=$top/tests/fixtures

# fresh NAME PROFILE: a fixture root of its own, no verdicts yet
fresh() {
	sh "$here/../lib/mkroot.sh" "$F/$2.profile" "$W/$1" "$W/libs" >/dev/null || bad "$1: fixture"
	R=$W/$1
}
# run CMD...: under the fixture root, the driver dir standing in for ld.so.cache
run() {
	env CUDALOAD_ROOT="$R" CUDALOAD_CONFIG="${CONFIG:-$W/empty.conf}" LD_LIBRARY_PATH="$R$DD" \
		CUDALOAD_DEBUG=1 "$@" 2>&1
}
store=run/cudaload/verdicts
lines() { grep -c "^compat .* $2\$" "$1" 2>/dev/null || echo 0; }

# ---- an unknown GPU whose package works: asked once, then taken ----------------
for via in command interp; do
	for mode in exec chain; do
		[ "$via/$mode" = command/chain ] && continue	# chain needs PT_INTERP
		n="$via/$mode"
		fresh "works-$via-$mode" dgpu-unknown-arch-535
		if [ $via = command ]; then set -- "$CL" "$W/bin/cudaprobe"; else set -- "$W/bin/probe-patched"; fi
		out=$(run CUDALOAD_MODE=$mode "$@")
		contains "$n: the first start asks the driver" "$out" "first use: asking the driver about 1 package"
		contains "$n: ... gets its word" "$out" "first use: the driver answered"
		contains "$n: ... and takes the package" "$out" "libcuda=$R/usr/local/cuda-13.1/compat/libcuda.so.1 version=13010"
		status "$n: one verdict stored" 1 "$(lines "$R/$store" /usr/local/cuda-13.1/compat)" "$(cat "$R/$store" 2>&1)"
		out=$(run CUDALOAD_MODE=$mode "$@")
		lacks "$n: a later start asks nothing" "$out" "first use:"
		contains "$n: ... and takes the package" "$out" "version=13010"
	done
done
# the verifier is no child of the program: it waits on its own children only
# (this suite's own: the other machine's may be running beside it)
out=$(run "$W/bin/probe-patched")
lacks "no verifier left behind" "$(ps -eo comm,args |
	grep "[c]udaload-verify --first-use --timeout [0-9]* --cudaload-dir $(dirname "$CL") --package" || true)" \
	"cudaload-verify"

# ---- a workstation board that answers 804: asked once, then the system driver --
fresh ws804 dgpu-rtx-a6000-535-804
out=$(run "$W/bin/probe-patched")
contains "804: the first start asks" "$out" "first use: asking the driver about 1 package"
contains "804: ... and keeps the system driver" "$out" "version=12020"
contains "804: the verdict is stored" "$(cat "$R/$store" 2>&1)" "compat cu=804 init"
out=$(run "$W/bin/probe-patched")
lacks "804: a later start asks nothing" "$out" "first use:"
contains "804: ... and says why" "$out" "verified: cuInit returned 804"

# ---- first_use = off, and the variable ---------------------------------------------
fresh off dgpu-unknown-arch-535
out=$(CONFIG=$W/off.conf run "$W/bin/probe-patched")
lacks "first_use = off: nothing asked" "$out" "first use:"
contains "first_use = off: the system driver" "$out" "version=12020"
[ ! -e "$R/$store" ] && ok "first_use = off: no store written" || bad "first_use = off: a store was written"
out=$(CUDALOAD_FIRST_USE=off run "$W/bin/probe-patched")
lacks "CUDALOAD_FIRST_USE=off: nothing asked" "$out" "first use:"
out=$(CUDALOAD_FIRST_USE=off run "$CL" --explain)
contains "--explain says what the driver would be asked" "$out" "needs the driver's word: NVIDIA Future GPU"

# ---- a package others can write: never loaded, by first use or by root's --verify --
fresh writable dgpu-unknown-arch-535
chmod o+w "$R/usr/local/cuda-13.1/compat"
out=$(run "$W/bin/probe-patched")
contains "writable by others: not loaded to ask" "$out" "first use: /usr/local/cuda-13.1/compat: others than root and this user can change it"
contains "writable by others: the system driver" "$out" "version=12020"
out=$(run "$CL" --verify --timeout 3)
contains "writable by others: root's --verify does not load it either" "$out" \
	"/usr/local/cuda-13.1/compat: not verified: someone other than root can change it, and loading it would run their code as root"
chmod o-w "$R/usr/local/cuda-13.1/compat"
chmod g+w "$R/usr/local/cuda-13.1/compat/libcuda.so.1"
out=$(run "$CL" --verify --timeout 3)
contains "a group-writable libcuda: not loaded" "$out" "not verified: someone other than root can change it"
chmod g-w "$R/usr/local/cuda-13.1/compat/libcuda.so.1"

# ---- A user plants a libcuda in a conda environment the user
# can write, where a program root verifies for lives; root's --verify must not
# run it (its constructor would run as root)
if [ "$(id -u)" -eq 0 ]; then
	fresh planted dgpu-unknown-arch-535
	E=$R/opt/env
	mkdir -p "$E/bin" "$E/conda-meta" "$E/cuda-compat"
	cp "$W/bin/cudaprobe" "$E/bin/app"
	mark=$W/planted-ran
	rm -f "$mark"
	cat >"$W/planted.c" <<'CEOF'
#include <stdio.h>
#include <unistd.h>
__attribute__((constructor)) static void planted(void)
{
	FILE *f = fopen(MARK, "w");
	if (f) {
		fprintf(f, "uid %d\n", (int)getuid());
		fclose(f);
	}
}
int cuInit(unsigned flags);
int cuInit(unsigned flags) { (void)flags; return 0; }
CEOF
	$TCC -shared -fPIC -Wl,-soname,libcuda.so.1 -DMARK="\"$mark\"" -o "$E/cuda-compat/libcuda.so.590.44.01" "$W/planted.c"
	ln -s libcuda.so.590.44.01 "$E/cuda-compat/libcuda.so.1"
	: >"$E/cuda-compat/libnvidia-ptxjitcompiler.so.1"
	chown -R 65534:65534 "$E"
	out=$(run "$CL" --verify --timeout 3 /opt/env/bin/app)
	contains "a user's conda environment: root's --verify finds its package" "$out" "/opt/env/cuda-compat"
	contains "... and does not load it" "$out" \
		"/opt/env/cuda-compat: not verified: someone other than root can change it, and loading it would run their code as root"
	[ ! -e "$mark" ] && ok "... its code never ran as root" || bad "the planted library ran: $(cat "$mark")"
else
	skip "a planted library and root's --verify" "needs root"
fi

# ---- many starts at once (torchrun's ranks): one asks, all agree ------------------
fresh together dgpu-unknown-arch-535
at_once 8 "$W/together" run "$W/bin/probe-patched"
agree=$(cat "$W"/together.* | grep -c 'version=13010')
status "8 starts at once: all take the package" 8 "$agree" "$(cat "$W"/together.*)"
status "8 starts at once: one verdict" 1 "$(lines "$R/$store" /usr/local/cuda-13.1/compat)" "$(cat "$R/$store")"
asked=$(cat "$W"/together.* | grep -c 'first use: asking')
[ "$asked" -ge 1 ] && ok "8 starts at once: the verifier ran for the first ($asked asked; the lock serves the rest)" ||
	bad "8 starts at once: nobody asked"

# ---- a busy GPU: inconclusive, not asked again for a while --------------------------
fresh busy dgpu-unknown-arch-535
printf 'busy 0\n' >>"$R$DD/fake-cuinit"
printf 'busy 0\n' >>"$R/usr/local/cuda-13.1/compat/fake-cuinit"
out=$(run "$W/bin/probe-patched")
contains "busy: the first start asks" "$out" "first use: asking"
contains "busy: ... the system driver meanwhile" "$out" "version=12020"
out=$(run "$W/bin/probe-patched")
lacks "busy: not asked again at once" "$out" "first use:"
# as if the verdict were older than FIRST_USE_RETRY_S (300 s)
sed -i 's/^\(compat [^ ]* [^ ]* [0-9]*\) \([0-9]*\) /\1 1000 /' "$R/$store"
rm -f "$R$DD/fake-cuinit" "$R/usr/local/cuda-13.1/compat/fake-cuinit"
out=$(run "$W/bin/probe-patched")
contains "busy: asked again after a while" "$out" "first use: asking"
contains "busy: ... and the free GPU takes the package" "$out" "version=13010"

# ---- a user without root: the user's own store -----------------------------------
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null 2>&1; then
	NU=65534 H=$W/home
	mkdir -p "$H"
	chown "$NU:$NU" "$H"
	as_user() {
		setpriv --reuid=$NU --regid=$NU --clear-groups env -u XDG_RUNTIME_DIR HOME="$H" \
			CUDALOAD_ROOT="$R" CUDALOAD_CONFIG="$W/empty.conf" LD_LIBRARY_PATH="$R$DD" CUDALOAD_DEBUG=1 "$@" 2>&1
	}
	boot() { mkdir -p "$R/proc/sys/kernel/random" && printf '0c4f3e52-1b2a-4f6e-9d3c-7a8b9c0d1e2f\n' >"$R/proc/sys/kernel/random/boot_id"; }
	fresh user dgpu-unknown-arch-535
	boot
	chmod -R a+rX "$W"
	out=$(as_user "$W/bin/probe-patched")
	contains "user: the first start asks" "$out" "first use: asking"
	contains "user: ... and takes the package" "$out" "version=13010"
	status "user: the verdict is in the user's store" 1 "$(lines "$H/.cache/cudaload/verdicts" /usr/local/cuda-13.1/compat)"
	[ ! -e "$R/$store" ] && ok "user: root's store untouched" || bad "user: root's store written"
	out=$(as_user "$W/bin/probe-patched")
	lacks "user: a later start asks nothing" "$out" "first use:"
	contains "user: ... and takes the package" "$out" "version=13010"
	fresh user804 dgpu-rtx-a6000-535-804
	boot
	rm -rf "$H/.cache"
	chmod -R a+rX "$W"
	out=$(as_user "$W/bin/probe-patched")
	contains "user, 804 board: the system driver" "$out" "version=12020"
	out=$(as_user "$W/bin/probe-patched")
	lacks "user, 804 board: asked once" "$out" "first use:"
else
	skip "a user's first use" "needs root and setpriv"
fi

# ---- what it costs: the first start (the verifier: a baseline and the package) and a later one
fresh cost dgpu-unknown-arch-535
t0=$(date +%s%N)
run "$W/bin/probe-patched" >/dev/null
t1=$(date +%s%N)
run "$W/bin/probe-patched" >/dev/null
t2=$(date +%s%N)
echo "first use cost ($arch, fake libcuda): first start $(( (t1 - t0) / 1000000 )) ms, a later start $(( (t2 - t1) / 1000000 )) ms"

finish
