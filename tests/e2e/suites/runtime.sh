#!/bin/sh
# SPDX-License-Identifier: MIT
# cudaload-runtime, the OCI runtime that wraps the next one: first alone,
# with a stand-in for the next runtime that records what it was given
# (the arguments, the bundle's config.json), on bundles made by runc spec;
# then under the real engines (Docker, containerd's ctr, podman), the
# hook judging the images and hosts of container.sh.
# Usage: runtime.sh BUILD
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/lib.sh"
. "$here/../lib/chroot.sh"
top=$(cd "$here/../../.." && pwd) arch=$(uname -m)
B=$(cd "${1:-$top/build}" && pwd)
echo "== end-to-end, cudaload-runtime alone and under Docker, containerd and podman ($arch)"
RT=$B/cudaload-runtime
[ -x "$RT" ] || { bad "no $RT (make all builds it)"; finish; exit; }
command -v runc >/dev/null 2>&1 || { skip "runtime suite" "no runc (sh scripts/deps.sh installs it)"; finish; exit; }
W=$B/e2e-runtime
rm -rf "$W"
mkdir -p "$W/conf" "$W/bin"

# ---- alone: a stand-in next runtime ----
cat >"$W/spy" <<SPY
#!/bin/sh
# the next runtime's stand-in: its arguments, the config.json it was
# handed, and the exit status \$SPY_RC
printf '%s\n' "\$*" >>"$W/spy.args"
b=.
while [ \$# -gt 0 ]; do case \$1 in --bundle|-b) b=\$2; shift ;; --bundle=*) b=\${1#--bundle=} ;; esac; shift; done
[ ! -f "\$b/config.json" ] || cp "\$b/config.json" "$W/spy.config.json"
exit \${SPY_RC:-0}
SPY
chmod 755 "$W/spy"
echo "runtime = $W/spy" >"$W/conf/spy.conf"
wrap() { CUDALOAD_CONFIG=$W/conf/spy.conf "$RT" "$@"; }

# bundle NAME PYTHON: runc spec's config.json in $W/NAME, changed by PYTHON
# (on its dict c), written back as runc writes it; the original kept as
# config.orig
bundle() {
	rm -rf "${W:?}/$1" && mkdir -p "$W/$1" && (cd "$W/$1" && runc spec) &&
		python3 - "$W/$1/config.json" "$2" <<'PY' && cp -p "$W/$1/config.json" "$W/$1/config.orig"
import json, sys
p = sys.argv[1]
c = json.load(open(p))
exec(sys.argv[2])
json.dump(c, open(p, "w"), indent="\t")
PY
}
gpu_env='c["process"]["env"].append("NVIDIA_VISIBLE_DEVICES=all")'
: >"$W/spy.args"

# pass-through: the arguments as they came, the next runtime's status
SPY_RC=3 wrap --version >/dev/null 2>&1
status "--version: the next runtime's exit status" 3 $?
status "--version: its arguments unchanged" "--version" "$(tail -n 1 "$W/spy.args")"
for cmd in "--root $W/r --log $W/l --log-format json state c1" "--root $W/r kill c1 KILL" "delete --force c1" \
	"features" "exec --process p.json c1" "--root $W/r --log $W/l start c1"; do
	# shellcheck disable=SC2086
	wrap $cmd >/dev/null 2>&1
	status "$cmd: to the next runtime as it came" "$cmd" "$(tail -n 1 "$W/spy.args")"
done

# created: the hook appended, nothing else changed, its environment the
# wrapper's own
check_hooked() { # check_hooked NAME BUNDLE [ENTRIES BEFORE OURS]
	d=$(python3 "$here/../helpers/ocidiff.py" "$W/$2/config.orig" "$W/spy.config.json" 2>&1)
	has "$1: one insertion, every other byte as the engine wrote it" "$d" "inserted-only"
	has "$1: the hook last among createContainer hooks" "$d" "createContainer: ${3:+$3 }$B/cudaload"
	has "$1: the rest of the spec as it was" "$d" "rest: the same"
	contains "$1: the hook's arguments" "$d" "args: cudaload --oci-hook"
	hook_env=$d
}
check_same() { # check_same NAME BUNDLE
	if cmp -s "$W/$2/config.orig" "$W/$2/config.json" && cmp -s "$W/$2/config.orig" "$W/spy.config.json"; then
		ok "$1: config.json unchanged"
	else
		bad "$1: config.json changed" "$(python3 "$here/../helpers/ocidiff.py" "$W/$2/config.orig" "$W/$2/config.json")"
	fi
}
bundle nvvis "$gpu_env; c['process']['env'].append('CUDALOAD_ROOT=/from-the-image')" && chmod 640 "$W/nvvis/config.json"
err=$(CUDALOAD_ROOT=/the/host CUDALOAD_DEBUG=1 PATH=/usr/sbin:/usr/bin:/sbin:/bin:$(dirname "$(command -v runc)") \
	CUDALOAD_CONFIG=$W/conf/spy.conf "$RT" --root "$W/r" --log "$W/l" --log-format json create \
	--bundle "$W/nvvis" --pid-file "$W/pid" c1 2>&1)
status "NVIDIA_VISIBLE_DEVICES=all: the next runtime ran" 0 $? "$err"
status "... its arguments unchanged" "--root $W/r --log $W/l --log-format json create --bundle $W/nvvis --pid-file $W/pid c1" \
	"$(tail -n 1 "$W/spy.args")"
check_hooked "NVIDIA_VISIBLE_DEVICES=all" nvvis
contains "... the hook's env: the wrapper's PATH" "$hook_env" "env: PATH=/usr/sbin:/usr/bin:/sbin:/bin"
contains "... the hook's env: the wrapper's CUDALOAD_ROOT" "$hook_env" "CUDALOAD_ROOT=/the/host"
contains "... the hook's env: the wrapper's CUDALOAD_DEBUG" "$hook_env" "CUDALOAD_DEBUG=1"
lacks "... the hook's env: nothing of the container's" "$hook_env" "/from-the-image"
status "... config.json keeps its mode" 640 "$(stat -c %a "$W/nvvis/config.json")"
lacks "... nothing said" "$err" "cudaload-runtime"
cp "$W/nvvis/config.json" "$W/nvvis.once"
wrap create --bundle "$W/nvvis" c1 >/dev/null 2>&1
cmp -s "$W/nvvis.once" "$W/nvvis/config.json" && ok "a second create: hooked already, unchanged" ||
	bad "a second create: changed again" "$(diff "$W/nvvis.once" "$W/nvvis/config.json")"

bundle node 'c["linux"]["devices"] = [{"path": "/dev/nvidia0", "type": "c", "major": 195, "minor": 0}]'
wrap create -b "$W/node" c1 >/dev/null 2>&1
check_hooked "/dev/nvidia0 in linux.devices (-b)" node
bundle legacy "c['hooks'] = {'prestart': [{'path': '/usr/bin/nvidia-container-runtime-hook', 'args': ['nvidia-container-runtime-hook', 'prestart']}]}"
wrap create "--bundle=$W/legacy" c1 >/dev/null 2>&1
check_hooked "NVIDIA's prestart hook (--bundle=)" legacy
bundle cdi "$gpu_env; c['hooks'] = {'createContainer': [{'path': '/usr/bin/nvidia-cdi-hook', 'args': ['nvidia-cdi-hook', 'update-ldcache']}], 'poststop': []}"
(cd "$W/cdi" && wrap run c1 >/dev/null 2>&1)
check_hooked "NVIDIA's CDI hooks, run in the bundle" cdi /usr/bin/nvidia-cdi-hook
bundle emptycc "$gpu_env; c['hooks'] = {'createContainer': []}"
wrap create --bundle "$W/emptycc" c1 >/dev/null 2>&1
check_hooked "an empty createContainer list" emptycc

for v in void none ""; do
	bundle novis "c['process']['env'].append('NVIDIA_VISIBLE_DEVICES=$v')"
	wrap create --bundle "$W/novis" c1 >/dev/null 2>&1
	check_same "NVIDIA_VISIBLE_DEVICES='$v'" novis
done
bundle nogpu 'pass'
wrap create --bundle "$W/nogpu" c1 >/dev/null 2>&1
check_same "no GPU" nogpu
bundle optann "$gpu_env; c['annotations'] = {'cudaload.dev/compat': 'false'}"
wrap create --bundle "$W/optann" c1 >/dev/null 2>&1
check_same "opted out by the annotation cudaload.dev/compat=false" optann
bundle optenv "$gpu_env; c['process']['env'].append('CUDALOAD_COMPAT=no')"
wrap create --bundle "$W/optenv" c1 >/dev/null 2>&1
check_same "opted out by CUDALOAD_COMPAT=no in its environment" optenv
bundle hooked "$gpu_env; c['hooks'] = {'createContainer': [{'path': '/usr/bin/cudaload', 'args': ['cudaload', '--oci-hook']}]}"
wrap create --bundle "$W/hooked" c1 >/dev/null 2>&1
check_same "hooked already (hooks.d, a CDI spec)" hooked

# never worse: passed on unchanged, and why on stderr
broken() { # broken NAME SAYS: create on $W/NAME
	: >"$W/spy.args"
	err=$(wrap create --bundle "$W/$1" c1 2>&1)
	status "$1: the next runtime ran" 0 $? "$err"
	status "$1: with its arguments" "create --bundle $W/$1 c1" "$(cat "$W/spy.args")"
	contains "$1: says why" "$err" "$2"
	contains "$1: says the container starts without the hook" "$err" "starts without the cudaload hook"
}
bundle malformed "$gpu_env" && printf '{"process":' >"$W/malformed/config.json" && cp "$W/malformed/config.json" "$W/malformed/config.orig"
broken malformed "config.json: "
check_same "malformed" malformed
bundle hooksarray "$gpu_env; c['hooks'] = []"
broken hooksarray "hooks is not an object"
check_same "hooks an array" hooksarray
bundle twice "$gpu_env" && sed -i '0,/{/s//{"hooks":{},/' "$W/twice/config.json" && sed -i '$s/}$/,"hooks":{}}/' "$W/twice/config.json" &&
	cp "$W/twice/config.json" "$W/twice/config.orig"
broken twice "hooks named twice"
check_same "hooks named twice" twice
bundle large "$gpu_env; c['annotations'] = {'pad': 'x' * (9 << 20)}"
broken large "not a regular file of at most 8 MiB"
check_same "9 MiB" large
bundle link "$gpu_env" && mv "$W/link/config.json" "$W/link/real.json" && ln -s real.json "$W/link/config.json"
broken link "config.json: "
cmp -s "$W/link/config.orig" "$W/link/real.json" && [ -L "$W/link/config.json" ] &&
	ok "config.json a link: the link and its file unchanged" || bad "config.json a link: changed"
broken nonexistent "the bundle $W/nonexistent"

# the next runtime
echo "runtime = $RT" >"$W/conf/self.conf"
err=$(CUDALOAD_CONFIG=$W/conf/self.conf "$RT" --version 2>&1)
status "runtime = cudaload-runtime itself: refused" 127 $? "$err"
contains "... says it would run itself" "$err" "is cudaload-runtime itself"
echo "runtime = $W/no-such-runtime" >"$W/conf/missing.conf"
err=$(CUDALOAD_CONFIG=$W/conf/missing.conf "$RT" --version 2>&1)
status "runtime = a missing file: refused" 127 $? "$err"
contains "... says so" "$err" "no-such-runtime) is not an executable file"
# a copy of itself named runc first on PATH is passed over for the real one
ln -s "$RT" "$W/bin/runc"
: >"$W/conf/none.conf"
out=$(PATH=$W/bin:$(dirname "$(command -v runc)"):/usr/bin:/bin CUDALOAD_CONFIG=$W/conf/none.conf "$RT" --version 2>&1)
contains "itself as runc first on PATH: passed over for the real runc" "$out" "runc version"
out=$(PATH=$W/bin CUDALOAD_CONFIG=$W/conf/none.conf "$RT" --version 2>&1)
status "only itself on PATH: refused" 127 $? "$out"
contains "... says why" "$out" "but for copies of cudaload-runtime"

finish
