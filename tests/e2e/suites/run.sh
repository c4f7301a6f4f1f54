#!/bin/sh
# SPDX-License-Identifier: MIT
# End-to-end tests: real programs, the real cudaload, the real ld.so, fake
# libcuda builds in fixture device trees (docs/design.md §8).
# Usage: run.sh BUILD [x86_64|aarch64] [exec|chain]   (default: this machine's, exec)
# aarch64 on another machine runs under qemu-user through binfmt_misc, exec'ing
# the real aarch64 glibc loader: the path a Jetson takes.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
B=$(cd "${1:-$top/build}" && pwd)
arch=${2:-$(uname -m)}
mode=${3:-exec}
HOSTCC=${CC:-cc}
. "$here/../lib/lib.sh"

case $arch in
x86_64)
	LDSO=/lib64/ld-linux-x86-64.so.2
	FOREIGN_EM='\267\000' FOREIGN=aarch64	# EM_AARCH64
	;;
aarch64)
	LDSO=/lib/ld-linux-aarch64.so.1
	FOREIGN_EM='\076\000' FOREIGN=x86_64	# EM_X86_64
	;;
*)
	echo "run.sh: unknown arch $arch" >&2
	exit 2
	;;
esac
if [ "$arch" = "$(uname -m)" ]; then
	CL=$B/cudaload TCC=$HOSTCC
else
	CL=$B/$arch/cudaload TCC=$arch-linux-gnu-gcc
	. "$here/../lib/foreign.sh"
	if ! foreign_ready "$arch" "$CL" "$TCC"; then
		skip "$arch end-to-end suite" "$foreign_why"
		finish
		exit
	fi
fi
W=$B/e2e-$arch-$mode
CC=$TCC OBJCOPY=${TCC%gcc}objcopy
[ "$TCC" != "$HOSTCC" ] || OBJCOPY=objcopy
export CC OBJCOPY
echo "== end-to-end, $arch, $mode mode: $CL"

rm -rf "$W"
mkdir -p "$W/libs" "$W/roots" "$W/bin"
: >"$W/empty.conf"

# ---- test programs -----------------------------------------------------------
$HOSTCC -O1 -o "$W/libs/mknote" "$here/../helpers/mknote.c"
$TCC -O1 -o "$W/bin/cudaprobe" "$here/../helpers/cudaprobe.c" -ldl
$TCC -O1 -no-pie -o "$W/bin/cudaprobe-nopie" "$here/../helpers/cudaprobe.c" -ldl
# Patched by cudaload-patch (the original loader recorded) and, for the
# non-PIE one, by patchelf (no record: cudaload finds the standard loader).
cp "$W/bin/cudaprobe" "$W/bin/probe-patched"
"$B/cudaload-patch" --interp "$CL" "$W/bin/probe-patched" >/dev/null
cp "$W/bin/cudaprobe-nopie" "$W/bin/probe-nopie-patched"
patchelf --set-interpreter "$CL" "$W/bin/probe-nopie-patched"

# run ROOT DRIVER_DIR CMD...: run under a fixture root, the driver dir standing
# in for ld.so.cache (docs/design.md §8), no config but what a test asks for.
run() {
	r=$1 dd=$2
	shift 2
	env CUDALOAD_ROOT="$r" CUDALOAD_CONFIG="${CONFIG:-$W/empty.conf}" CUDALOAD_MODE="$mode" \
		LD_LIBRARY_PATH="$r$dd" "$@" 2>&1
}

# ---- each device profile: explain, run as a command, run as PT_INTERP --------
for profile in "$top"/tests/fixtures/*.profile; do
	name=$(basename "$profile" .profile)
	root=$W/roots/$name
	sh "$here/../lib/mkroot.sh" "$profile" "$root" "$W/libs" || { bad "$name: fixture"; continue; }
	(
		pass=0 fail=0 expect_dir= driver_dir= expect_host_cuda= expect_reason= expect_json= expect_source=
		. "$profile"
		json=$(run "$root" "$driver_dir" "$CL" --explain --json "$W/bin/cudaprobe")
		contains "$name: explain decision $expect_decision" "$json" "\"decision\":\"$expect_decision\""
		if [ -n "$expect_dir" ]; then
			contains "$name: explain compat_dir" "$json" "\"compat_dir\":\"$expect_dir\""
		fi
		if [ -n "$expect_host_cuda" ]; then
			contains "$name: host CUDA $expect_host_cuda" "$json" "\"host_cuda\":\"$expect_host_cuda\""
		fi
		if [ -n "$expect_reason" ]; then
			contains "$name: says why" "$json" "$expect_reason"
		fi
		# further fragments of the JSON, one a line
		while IFS= read -r frag; do
			[ -z "$frag" ] || contains "$name: JSON has $frag" "$json" "$frag"
		done <<EOF
$expect_json
EOF
		[ -n "$expect_source" ] || bad "$name: the profile names no expect_source"
		observed=$(printf '%s' "$json" | sed -n 's/.*"decision":"\([a-z]*\)","compat_dir":\([^,]*\),.*/\1 \2/p')
		loaded=
		for prog in "$CL $W/bin/cudaprobe" "$W/bin/probe-patched" "$W/bin/probe-nopie-patched"; do
			# shellcheck disable=SC2086
			out=$(run "$root" "$driver_dir" $prog)
			via=${prog##*/}
			first_line "$out" libcuda=
			got=${line##* version=}
			case $line in *" version="*) ;; *) got= ;; esac
			[ -n "$loaded" ] || loaded=$got
			has "$name: $via loads CUDA $expect_version" "$out" "libcuda=${line%% *} version=$expect_version"
			if [ -n "$expect_dir" ]; then
				contains "$name: $via libcuda from the compat dir" "$out" "libcuda=$root$expect_dir/"
			fi
			case $prog in
			"$CL "*)
				# `cudaload PROGRAM` hands its choice down to the program's
				# descendants: the chosen driver's directories, then the user's list
				first_line "$out" LD_LIBRARY_PATH=
				llp=$line
				case $llp in
				"$root$driver_dir" | *":$root$driver_dir") ok "$name: $via ends with the user's LD_LIBRARY_PATH" ;;
				*) bad "$name: $via ends with the user's LD_LIBRARY_PATH" "$out" ;;
				esac
				if [ -n "$expect_dir" ]; then
					case $llp in
					"$root$expect_dir:"*) ok "$name: $via hands the compat dir down" ;;
					*) bad "$name: $via hands the compat dir down" "$out" ;;
					esac
				fi ;;
			*) has "$name: $via keeps the user's LD_LIBRARY_PATH" "$out" "LD_LIBRARY_PATH=$root$driver_dir" ;;
			esac
			has "$name: $via TLS intact" "$out" "tls=7"
		done
		echo "decision $name: expected $expect_decision${expect_dir:+ $expect_dir}, observed $observed" >>"$W/decisions.txt"
		want="$expect_decision null"
		[ -z "$expect_dir" ] || want="$expect_decision \"$expect_dir\""
		verdict=ok
		[ "$observed" = "$want" ] && [ "$loaded" = "$expect_version" ] || verdict=MISMATCH
		printf '| %s | %s%s, loads %s | %s, loads %s | %s | %s |\n' "$name" "$expect_decision" \
			"${expect_dir:+ $expect_dir}" "$expect_version" "$observed" "$loaded" "$verdict" \
			"$expect_source" >>"$W/board.md"
		finish >/dev/null
		echo "$pass $fail" >"$W/roots/$name.counts"
	) | tee "$W/roots/$name.log" | grep -v '^[0-9]* passed'
	read -r p f <"$W/roots/$name.counts" || { p=0 f=1; }
	pass=$((pass + p)) fail=$((fail + f))
done

J5=$W/roots/orin-jp5-compat122
J5DD=/usr/lib/aarch64-linux-gnu/tegra
J5NO=$W/roots/orin-jp5-compat124

# ---- policy overrides ----------------------------------------------------------
out=$(run "$J5NO" $J5DD "$CL" --policy compat "$W/bin/cudaprobe")
contains "policy: --policy compat forces the refused 12.4" "$out" "version=12040"
out=$(CUDALOAD_POLICY=compat run "$J5NO" $J5DD "$W/bin/probe-patched")
contains "policy: CUDALOAD_POLICY=compat as interpreter" "$out" "version=12040"
printf 'policy = compat\n' >"$W/policy.conf"
out=$(CONFIG=$W/policy.conf run "$J5NO" $J5DD "$W/bin/probe-patched")
contains "policy: config policy = compat" "$out" "version=12040"
out=$(run "$J5" $J5DD "$CL" --policy system "$W/bin/cudaprobe")
contains "policy: --policy system keeps the system driver" "$out" "version=11040"
out=$(CUDALOAD_POLICY=system run "$J5" $J5DD "$W/bin/probe-patched")
contains "policy: CUDALOAD_POLICY=system as interpreter" "$out" "version=11040"
out=$(CUDALOAD_POLICY=system CONFIG=$W/policy.conf run "$J5" $J5DD "$W/bin/probe-patched")
contains "policy: environment beats config" "$out" "version=11040"
out=$(CUDALOAD_POLICY=bogus run "$J5" $J5DD "$W/bin/probe-patched")
contains "policy: bad CUDALOAD_POLICY is reported" "$out" "cudaload: CUDALOAD_POLICY=bogus: not auto, compat or system; ignored"
contains "policy: bad CUDALOAD_POLICY falls back to auto" "$out" "version=12020"

# ---- transparency --------------------------------------------------------------
nl='
'
for root in "$J5" "$W/roots/no-gpu"; do
	tag=$(basename "$root")
	for prog in "$CL $W/bin/cudaprobe" "$W/bin/probe-patched"; do
		via=${prog##*/}
		# shellcheck disable=SC2086
		out=$(PROBE_EXIT=42 run "$root" $J5DD $prog "a b" "" "x${nl}y" "--policy" "-")
		st=$?
		status "transparent/$tag/$via: exit status" 42 "$st" "$out"
		has "transparent/$tag/$via: argc" "$out" "argc=6"
		has "transparent/$tag/$via: spaces" "$out" "arg[1]=a b"
		has "transparent/$tag/$via: empty" "$out" "arg[2]="
		has "transparent/$tag/$via: newline" "$out" "arg[3]=x\\ny"
		has "transparent/$tag/$via: option-like args pass" "$out" "arg[4]=--policy"
		has "transparent/$tag/$via: argv[0]" "$out" "arg[0]=${prog##* }"
	done
	out=$(PROBE_CHILD=1 run "$root" $J5DD "$W/bin/probe-patched")
	has "transparent/$tag: a child sees the user's LD_LIBRARY_PATH" "$out" "child LD_LIBRARY_PATH=$root$J5DD"
	unset_out=$(cd "$W" && env -u LD_LIBRARY_PATH CUDALOAD_ROOT="$root" CUDALOAD_CONFIG="$W/empty.conf" CUDALOAD_MODE="$mode" \
		PROBE_CHILD=1 "$W/bin/probe-patched" 2>&1)
	has "transparent/$tag: no LD_LIBRARY_PATH stays unset" "$unset_out" "LD_LIBRARY_PATH=(unset)"
	has "transparent/$tag: ... for children too" "$unset_out" "child LD_LIBRARY_PATH=(unset)"
	# apart from what `cudaload PROGRAM` hands down (the search list, and
	# what names its own part), the environment as given
	a=$(run "$root" $J5DD env | grep -v '^_=' | grep -v '^LD_LIBRARY_PATH=' | sort)
	b=$(run "$root" $J5DD "$CL" env | grep -v '^_=' | grep -v '^LD_LIBRARY_PATH=' |
		grep -v '^CUDALOAD_INHERITED_PATH=' | sort)
	if [ "$a" = "$b" ]; then ok "transparent/$tag: environment unchanged"; else
		bad "transparent/$tag: environment changed" "$(printf '%s\n' "$a" >"$W/a"; printf '%s\n' "$b" | diff "$W/a" -)"; fi
done
out=$(cd "$W/bin" && PATH="$W/bin:$PATH" run "$W/roots/no-gpu" $J5DD "$CL" cudaprobe)
has "transparent: PATH search keeps argv[0]" "$out" "arg[0]=cudaprobe"
has "transparent: system driver as a command execs the program itself" "$out" "exe=$W/bin/cudaprobe"
out=$(cd "$W/bin" && run "$W/roots/no-gpu" $J5DD ./probe-patched)
has "transparent: as interpreter, relative argv[0]" "$out" "arg[0]=./probe-patched"

# ---- scripts -----------------------------------------------------------------
printf '#!%s -x\n' "$W/bin/cudaprobe" >"$W/bin/script"
chmod +x "$W/bin/script"
out=$(run "$J5" $J5DD "$CL" "$W/bin/script" arg)
has "script: interpreter runs through cudaload" "$out" "libcuda=$J5/usr/local/cuda-12.2/compat/libcuda.so.1 version=12020"
has "script: interpreter argv[0]" "$out" "arg[0]=$W/bin/cudaprobe"
has "script: interpreter argument" "$out" "arg[1]=-x"
has "script: script path" "$out" "arg[2]=$W/bin/script"
has "script: user argument" "$out" "arg[3]=arg"
# "#!/usr/bin/env NAME": the decision is for NAME, found in PATH, not for env
# (whose child would get nothing in exec mode)
printf '#!/usr/bin/env cudaprobe\n' >"$W/bin/envscript"
printf '#!/usr/bin/env -S cudaprobe -y z\n' >"$W/bin/envsplit"
printf '#!/usr/bin/env CUDALOAD_T=1 cudaprobe\n' >"$W/bin/envassign"
chmod +x "$W/bin/envscript" "$W/bin/envsplit" "$W/bin/envassign"
out=$(PATH="$W/bin:$PATH" run "$J5" $J5DD "$CL" "$W/bin/envscript" arg)
has "env script: the program env names runs through cudaload" "$out" "libcuda=$J5/usr/local/cuda-12.2/compat/libcuda.so.1 version=12020"
has "env script: argv[0] as env gives it" "$out" "arg[0]=cudaprobe"
has "env script: script path" "$out" "arg[1]=$W/bin/envscript"
has "env script: user argument" "$out" "arg[2]=arg"
out=$(PATH="$W/bin:$PATH" run "$J5" $J5DD "$CL" "$W/bin/envsplit")
has "env -S script: runs through cudaload" "$out" "libcuda=$J5/usr/local/cuda-12.2/compat/libcuda.so.1 version=12020"
has "env -S script: its arguments split" "$out" "arg[1]=-y"
has "env -S script: second argument" "$out" "arg[2]=z"
has "env -S script: script path" "$out" "arg[3]=$W/bin/envsplit"
out=$(PATH="$W/bin:$PATH" run "$J5" $J5DD "$CL" --explain "$W/bin/envscript")
has "env script: --explain shows the program decided for" "$out" "program:      $W/bin/cudaprobe"
out=$(PATH="$W/bin:$PATH" run "$J5" $J5DD "$CL" --explain "$W/bin/envassign")
has "env with an assignment: env itself runs" "$out" "program:      /usr/bin/env"

# ---- errors before the program runs --------------------------------------------
out=$("$CL" /nonexistent/prog 2>&1)
status "error: missing program is 127" 127 $? "$out"
has "error: missing program message" "$out" "cudaload: /nonexistent/prog: No such file or directory"
out=$(PATH=/nonexistent "$CL" no-such-program 2>&1)
status "error: program not in PATH is 127" 127 $? "$out"
cp "$W/bin/cudaprobe" "$W/bin/noexec" && chmod 644 "$W/bin/noexec"
out=$("$CL" "$W/bin/noexec" 2>&1)
status "error: non-executable program is 126" 126 $? "$out"
has "error: non-executable message" "$out" "cudaload: $W/bin/noexec: Permission denied"
printf 'not an elf\n' >"$W/bin/garbage" && chmod 755 "$W/bin/garbage"
out=$("$CL" "$W/bin/garbage" 2>&1)
status "error: non-ELF program is 126" 126 $? "$out"
out=$(CUDALOAD_LDSO=/nonexistent/ld.so "$CL" "$W/bin/cudaprobe" 2>&1)
status "error: missing loader is 127" 127 $? "$out"
has "error: missing loader message" "$out" "cudaload: /nonexistent/ld.so (CUDALOAD_LDSO): No such file or directory"
out=$(CUDALOAD_LDSO=/nonexistent/ld.so "$CL" --explain --json "$W/bin/cudaprobe" 2>&1)
status "explain: a missing loader is reported, with status 127" 127 $? "$out"
contains "explain: ... as ldso_problem" "$out" "\"ldso\":null,\"ldso_problem\":\"/nonexistent/ld.so (CUDALOAD_LDSO): No such file or directory\""
out=$(CUDALOAD_LDSO=$CL "$W/bin/probe-patched" 2>&1)
status "error: cudaload as its own loader is 127" 127 $? "$out"
contains "error: cudaload as its own loader message" "$out" "is cudaload itself"
ln -sf "$CL" "$W/bin/cl-link"
out=$(CUDALOAD_LDSO=$W/bin/cl-link "$CL" "$W/bin/cudaprobe" 2>&1)
status "error: cudaload as its own loader through a symlink is 127" 127 $? "$out"
out=$("$CL" 2>&1)
status "usage: no program is 100" 100 $? "$out"
contains "usage: printed" "$out" "usage: cudaload"
out=$("$CL" --bogus x 2>&1)
status "usage: unknown option is 100" 100 $? "$out"
out=$("$CL" --version)
has "version" "$out" "cudaload 0.1.0"
has "version: the tables' edition and date" "$out" "NVIDIA tables: CUDA 13.4 edition, checked 2026-12-01; also driver branches to R620 (CUDA 13.5), Jetson Linux to r39.2"
out=$("$CL" "$CL" --version 2>&1)
has "cudaload cudaload runs the inner one" "$out" "cudaload 0.1.0"

# ---- config ------------------------------------------------------------------
cat >"$W/bad.conf" <<CONF
# a comment
bogus = 1
policy = sometimes
compat
compat = $J5NO/usr/local/cuda-12.4/compat-not-there
mode = exec
CONF
out=$(CONFIG=$W/bad.conf run "$J5" $J5DD "$W/bin/probe-patched")
has "config: unknown key, with file and line" "$out" "cudaload: $W/bad.conf:2: unknown key 'bogus'; skipped"
has "config: bad policy value" "$out" "cudaload: $W/bad.conf:3: policy must be auto, compat or system; skipped"
has "config: line without =" "$out" "cudaload: $W/bad.conf:4: expected 'key = value'; skipped"
contains "config: the program still runs" "$out" "libcuda="
out=$(CONFIG=$W/bad.conf run "$J5" $J5DD "$CL" --explain --json 2>/dev/null)
contains "config: warnings in the JSON" "$out" "\"config_warnings\":[\"$W/bad.conf:2: unknown key 'bogus'; skipped\",\"$W/bad.conf:3: policy must be auto, compat or system; skipped\""
contains "config: a configured compat dir that does not exist is said" "$out" \
	"\"compat_missing\":[{\"entry\":\"$J5NO/usr/local/cuda-12.4/compat-not-there\",\"origin\":\"config\",\"why\":\"no such directory\"}]"
printf "compat = /opt/vendor/cuda-*/compat\nldso.%s = /nonexistent/ld.so\n" "$arch" >"$W/glob.conf"
mkdir -p "$J5/opt/vendor/cuda-12.1/compat"
cp "$J5/usr/local/cuda-12.2/compat/libcuda.so.1.1" "$J5/usr/local/cuda-12.2/compat/libnvidia-ptxjitcompiler.so.1" \
	"$J5/opt/vendor/cuda-12.1/compat/"
ln -sf libcuda.so.1.1 "$J5/opt/vendor/cuda-12.1/compat/libcuda.so.1"
out=$(CONFIG=$W/glob.conf run "$J5" $J5DD "$CL" "$W/bin/cudaprobe")
status "config: a bad ldso.$arch is not fatal (the config is system-wide)" 0 $? "$out"
has "config: ... a warning saying which" "$out" "cudaload: config ldso.$arch /nonexistent/ld.so: No such file or directory; using the next loader"
contains "config: ... and the program runs" "$out" "libcuda=$J5/opt/vendor/cuda-12.1/compat/libcuda.so.1 "
out=$(CONFIG=$W/glob.conf run "$J5" $J5DD "$W/bin/probe-patched")
status "config: a bad ldso.$arch, patched program" 0 $? "$out"
contains "config: ... runs with its recorded loader" "$out" "libcuda=$J5/opt/vendor/cuda-12.1/compat/libcuda.so.1 "
out=$(CONFIG=$W/glob.conf CUDALOAD_LDSO=/nonexistent/ld.so run "$J5" $J5DD "$W/bin/probe-patched")
status "config: CUDALOAD_LDSO named for one run stays an error" 127 $? "$out"
printf 'ldso.x86-64 = /lib64/ld-linux-x86-64.so.2\n' >"$W/machine.conf"
out=$(CONFIG=$W/machine.conf run "$J5" $J5DD "$CL" --explain --json "$W/bin/cudaprobe")
contains "config: an unknown machine in ldso.<machine> is a warning" "$out" \
	"cudaload: $W/machine.conf:1: ldso.x86-64: no machine of that name (x86_64, aarch64, ...); kept, but no program will use it"
contains "config: ... in the JSON too" "$out" "\"config_warnings\":[\"$W/machine.conf:1: ldso.x86-64: no machine of that name"
printf 'compat = /opt/vendor/cuda-*/compat\n' >"$W/glob.conf"
out=$(CONFIG=$W/glob.conf run "$J5" $J5DD "$CL" --explain --json "$W/bin/cudaprobe")
contains "config: compat glob replaces the defaults" "$out" "\"compat_dir\":\"/opt/vendor/cuda-12.1/compat\""
lacks "config: defaults not searched" "$out" "/usr/local/cuda-12.2/compat"
out=$(CUDALOAD_COMPAT_PATH=/opt/vendor/cuda-12.1/compat:/nonexistent run "$J5" $J5DD "$CL" --explain --json)
contains "CUDALOAD_COMPAT_PATH: candidate listed first" "$out" "\"candidates\":[{\"dir\":\"/opt/vendor/cuda-12.1/compat\""
contains "CUDALOAD_COMPAT_PATH: newest still wins" "$out" "\"compat_dir\":\"/usr/local/cuda-12.2/compat\""
contains "CUDALOAD_COMPAT_PATH: an entry that does not exist is said" "$out" \
	"{\"entry\":\"/nonexistent\",\"origin\":\"CUDALOAD_COMPAT_PATH\",\"why\":\"no such directory\"}"
mkdir -p "$W/roots/empty"
out=$(CUDALOAD_COMPAT_PATH=/nonexistent run "$W/roots/empty" $J5DD "$CL" --explain)
has "explain: none found lists the places searched" "$out" \
	"candidates:   none found; searched /nonexistent, /usr/local/cuda-*/compat, /usr/local/cuda-*/compat_orin, /usr/local/cuda/compat"
has "explain: ... and the missing entry" "$out" "compat path:  /nonexistent (CUDALOAD_COMPAT_PATH): no such directory"
out=$(CUDALOAD_DEBUG=1 CUDALOAD_COMPAT_PATH=/nonexistent run "$W/roots/empty" $J5DD "$W/bin/probe-patched")
if printf '%s\n' "$out" | grep -Eq '^cudaload\[[0-9]+\] probe-patched: compat /nonexistent \(CUDALOAD_COMPAT_PATH\): no such directory$'; then
	ok "debug: the missing entry, with pid and program"; else bad "debug: the missing entry, with pid and program" "$out"; fi

# ---- explain and debug -----------------------------------------------------------
out=$(run "$J5" $J5DD "$CL" --explain --json "$W/bin/cudaprobe")
for key in platform soc l4t host_driver host_cuda candidates decision compat_dir reason ldso library_path mode; do
	contains "explain --json has \"$key\"" "$out" "\"$key\":"
done
contains "explain --json: tegra platform" "$out" "\"platform\":\"tegra\",\"soc\":\"tegra234\""
contains "explain --json: l4t" "$out" "\"l4t\":\"35.4.1\""
contains "explain --json: library path order" "$out" "\"library_path\":\"$J5/usr/local/cuda-12.2/compat:$J5$J5DD\""
out=$(run "$J5" $J5DD "$CL" --explain)
has "explain: text decision" "$out" "decision:     compat"
# (a plain file answers ENOTTY; qemu-user answers ENOSYS: both in words)
contains "explain: the GPU probe said in words" "$out" \
	"gpu:          /dev/nvhost-ctrl-gpu did not answer the nvgpu characteristics query (not"
contains "explain --json: schema" "$(run "$J5" $J5DD "$CL" --explain --json)" "{\"schema\":3,"
out=$(run "$J5" $J5DD "$CL" --explain --json "$W/bin/probe-patched")
contains "explain: a patched program runs in its own mode ($mode)" "$out" "\"mode\":\"$mode\""
out=$(run "$J5" $J5DD "$CL" --explain --json "$W/bin/cudaprobe")
contains "explain: cudaload PROGRAM runs in exec mode" "$out" "\"mode\":\"exec\""
out=$(run "$J5NO" $J5DD "$CL" --policy compat --explain)
contains "explain: --policy compat still says what auto would" "$out" \
	"usable: policy compat (auto: refused: NVIDIA does not support CUDA 12.4 compat on L4T r35)"
if $TCC -static -O1 -o "$W/bin/static" "$here/../helpers/cudaprobe.c" 2>/dev/null; then
	out=$(run "$J5" $J5DD "$CL" --explain "$W/bin/static")
	has "explain: a static program runs directly" "$out" "mode:         direct (statically linked: it runs directly, without a loader)"
	has "explain: ... without a loader" "$out" "loader:       none"
else
	skip "explain: static program" "$TCC cannot link statically here"
fi
out=$(CUDALOAD_DEBUG=1 run "$J5" $J5DD "$W/bin/probe-patched")
if printf '%s\n' "$out" | grep -Eq '^cudaload\[[0-9]+\] probe-patched: decision: '; then
	ok "debug: lines carry the pid and the program"; else bad "debug: lines carry the pid and the program" "$out"; fi
out=$(CUDALOAD_DEBUG=1 run "$J5" $J5DD "$W/bin/probe-patched")
contains "debug: decision traced" "$out" " probe-patched: decision: compat CUDA 12.2 in /usr/local/cuda-12.2/compat"
contains "debug: candidates traced, where each was found" "$out" " probe-patched: candidate /usr/local/cuda-12.2/compat (a default place (/usr/local/cuda-*)): usable"
if [ "$mode" = chain ]; then
	contains "debug: chain traced" "$out" " probe-patched: chain $LDSO at 0x"
	contains "debug: chain passes the list" "$out" ", LD_LIBRARY_PATH=$J5/usr/local/cuda-12.2/compat:"
else
	contains "debug: loader command traced" "$out" " probe-patched: exec '$LDSO' '--library-path'"
fi

# ---- what each mode shows the program -----------------------------------------
out=$(cd "$W/bin" && run "$J5" $J5DD ./probe-patched)
if [ "$mode" = chain ]; then
	has "chain: /proc/self/exe is the program" "$out" "exe=$W/bin/probe-patched"
	has "chain: argv[0] as given" "$out" "arg[0]=./probe-patched"
	out=$(PROBE_REEXEC=1 run "$J5" $J5DD "$W/bin/probe-patched" x)
	has "chain: a program re-executing itself through /proc/self/exe" "$out" "reexec=1"
	has "chain: ... goes through cudaload again" "$out" "libcuda=$J5/usr/local/cuda-12.2/compat/libcuda.so.1 version=12020"
	has "chain: ... with its arguments" "$out" "arg[1]=x"
	# What stays of cudaload under a limit of the address space: the page
	# of its hand-over code and its writable segment, one page
	# (loader/start/chain.c, loader/hot.ld), with a list and without one; before,
	# all of its image and its heap (RLIMIT_AS).  Without
	# a limit the image stays, a munmap less at every start.
	image=$(( ($(stat -c %s "$CL") + 4095) / 4096 ))
	out=$(PROBE_MAPS=$(readlink -f "$CL") run "$J5" $J5DD "$W/bin/probe-patched")
	mapped=$(printf '%s\n' "$out" | sed -n 's/^mapped=//p')
	if [ -n "$mapped" ] && [ "$mapped" -gt 2 ] && [ "$mapped" -le $((image + 2)) ]; then
		ok "chain: no RLIMIT_AS, cudaload's image stays mapped ($mapped pages)"
	else
		bad "chain: no RLIMIT_AS, cudaload's image stays mapped" "mapped=$mapped, image $image pages"
	fi
	if command -v prlimit >/dev/null 2>&1; then
		lim="prlimit --as=$((64 << 30))"
		out=$(PROBE_MAPS=$(readlink -f "$CL") run "$J5" $J5DD $lim "$W/bin/probe-patched")
		has "chain: RLIMIT_AS, two pages of cudaload stay mapped" "$out" "mapped=2"
		has "chain: ... and the list was applied" "$out" "libcuda=$J5/usr/local/cuda-12.2/compat/libcuda.so.1 version=12020"
		out=$(CUDALOAD_POLICY=system PROBE_MAPS=$(readlink -f "$CL") run "$J5" $J5DD $lim "$W/bin/probe-patched")
		has "chain: RLIMIT_AS, two pages stay with the pin's list" "$out" "mapped=2"
		out=$(PROBE_MAPS=$(readlink -f "$CL") run "$W/roots/no-gpu" /usr/lib/x86_64-linux-gnu $lim "$W/bin/probe-patched")
		has "chain: RLIMIT_AS, two pages stay without a list (no GPU)" "$out" "mapped=2"
		has "chain: ... and the program's AT_ENTRY is its own" "$out" "at_entry=own"
	else
		skip "chain: what stays mapped under RLIMIT_AS" "no prlimit (util-linux) here"
	fi
	out=$(CUDALOAD_DEBUG=1 run "$J5" $J5DD "$CL" "$W/bin/cudaprobe")
	contains "chain: as a command it falls back to exec" "$out" " cudaprobe: chain mode needs cudaload as the interpreter; exec mode"
	has "chain: ... and still applies the decision" "$out" "libcuda=$J5/usr/local/cuda-12.2/compat/libcuda.so.1 version=12020"
	# An ET_EXEC file is no loader (common/elf/ldso.h), so it is refused before
	# chain mode would have to fall back to exec for it.
	out=$(CUDALOAD_DEBUG=1 CUDALOAD_LDSO=$W/bin/cudaprobe-nopie run "$J5" $J5DD "$W/bin/probe-patched")
	contains "chain: a program named as the loader is refused, not mapped" "$out" "$W/bin/cudaprobe-nopie (CUDALOAD_LDSO): names a loader of its own (PT_INTERP)"
else
	has "exec: /proc/self/exe is ld.so" "$out" "exe=$(readlink -f "$LDSO")"
fi

# ---- the loader's layout (loader/hot.ld, loader/data.ld) -------------------------
# What keeps a start's pages few: the hand-over's code on the header's page
# (the one page of text that stays under RLIMIT_AS), the start's code and
# data in the first 64 KiB fault-around window, the writable segment one
# page.  A layout that drifts costs faults at every start, which only the
# bench would show.
if [ "$mode" = chain ]; then
	layout=$(readelf -SW "$CL" | awk '
		{ for (i = 1; i <= NF; i++) if ($i ~ /^\.text\.(handover|hot)$/) print $i, $(i + 2), $(i + 4) }')
	ho=$(printf '%s\n' "$layout" | sed -n 's/^\.text\.handover \([0-9a-f]*\) \([0-9a-f]*\)$/\1 \2/p')
	hot=$(printf '%s\n' "$layout" | sed -n 's/^\.text\.hot \([0-9a-f]*\) \([0-9a-f]*\)$/\1 \2/p')
	if [ -n "$ho" ] && [ $((0x${ho% *} + 0x${ho#* })) -le 4096 ]; then
		ok "layout: the hand-over's code on the header's page"
	else
		bad "layout: the hand-over's code on the header's page" "$layout"
	fi
	if [ -n "$hot" ] && [ $((0x${hot% *} + 0x${hot#* })) -le 65536 ]; then
		ok "layout: the start's code and data in the first 64 KiB"
	else
		bad "layout: the start's code and data in the first 64 KiB" "$layout"
	fi
	rw=$(readelf -lW "$CL" | awk '$1 == "LOAD" && $7 ~ /W/ { print $3, $6 }')
	if [ -n "$rw" ] && [ $(( (${rw%% *} % 4096) + ${rw##* } )) -le 4096 ]; then
		ok "layout: the writable segment is one page"
	else
		bad "layout: the writable segment is one page" "$rw"
	fi
fi

# ---- a program for musl's loader -------------------------------------------------
MUSLCC=musl-gcc
[ "$arch" = "$(uname -m)" ] || MUSLCC=$arch-linux-musl-gcc
if command -v "$MUSLCC" >/dev/null 2>&1 && [ -e "/lib/ld-musl-$arch.so.1" ]; then
	$MUSLCC -O1 -o "$W/bin/probe-musl" "$here/../helpers/cudaprobe.c"
	"$B/cudaload-patch" --interp "$CL" "$W/bin/probe-musl" >/dev/null
	out=$(cd "$W/bin" && CUDALOAD_DEBUG=1 run "$J5" $J5DD ./probe-musl "a b")
	contains "musl: its loader is recorded and used" "$out" "(recorded by cudaload-patch), takes --argv0"
	has "musl: compat applied" "$out" "libcuda=$J5/usr/local/cuda-12.2/compat/libcuda.so.1 version=12020"
	has "musl: argv[0] kept (--argv0 or chain)" "$out" "arg[0]=./probe-musl"
	has "musl: arguments" "$out" "arg[1]=a b"
	has "musl: the user's LD_LIBRARY_PATH" "$out" "LD_LIBRARY_PATH=$J5$J5DD"
else
	skip "musl loader" "no $MUSLCC or /lib/ld-musl-$arch.so.1 here"
fi

# ---- candidate checks ------------------------------------------------------------
M=$W/roots/machine
cp -r "$J5" "$M"
lib=$M/usr/local/cuda-12.2/compat/libcuda.so.1.1
# shellcheck disable=SC2059
printf "$FOREIGN_EM" | dd of="$lib" bs=1 seek=18 conv=notrunc 2>/dev/null	# e_machine
out=$(run "$M" $J5DD "$CL" --explain --json "$W/bin/cudaprobe")
contains "machine: $FOREIGN libcuda refused for an $arch program" "$out" "libcuda is $FOREIGN ELF64, the program is $arch ELF64"
contains "machine: so the system driver" "$out" "\"decision\":\"system\""
contains "machine: the decision says why" "$out" "no compat package is for the program's machine and class ($arch ELF64)"
out=$(run "$M" $J5DD "$CL" --policy compat --explain --json "$W/bin/cudaprobe")
contains "machine: even policy compat refuses it" "$out" "\"decision\":\"system\""

C=$W/roots/colon
mkdir -p "$C"
cp -r "$J5"/* "$C"
mv "$C/usr/local/cuda-12.2" "$C/usr/local/cuda-12.2:x"
out=$(CUDALOAD_COMPAT_PATH=/usr/local/cuda-12.2:x/compat run "$C" $J5DD "$CL" --explain --json)
contains "colon: a dir with ':' cannot be listed" "$out" "path contains ':' or ';'"

sed "s|^|  |" "$W/decisions.txt"
# The board table: every fixture, expected against observed, with the source
# of the expectation.
echo "board table ($arch, $mode mode):"
echo "| fixture | expected | observed (explain; libcuda the program loaded) | match | source |"
echo "| --- | --- | --- | --- | --- |"
cat "$W/board.md"
finish
