#!/bin/sh
# SPDX-License-Identifier: MIT
# cudaload-runtime, the OCI runtime that wraps the next one: first alone,
# with a stand-in for the next runtime that records what it was given
# (the arguments, the bundle's config.json), on bundles made by runc spec;
# then under the real engines (Docker, containerd's ctr, podman), the
# hook judging the images and hosts of container.sh.
# Usage: runtime.sh BUILD [cost [N]]: with cost, only what the wrapper and
# the hook cost a container's start under Docker: N runs (15) each of
# docker run --gpus all with runc, with cudaload-runtime opted out (the
# wrapper alone) and with it (wrapper and hook), interleaved, and medians.
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
contains "... under CUDALOAD_DEBUG, what it made of the bundle" "$err" \
	"cudaload-runtime: $W/nvvis: process.env: NVIDIA_VISIBLE_DEVICES=all: the cudaload hook added"
# a setting that is not UTF-8 cannot pass through JSON unchanged: left out
cp "$W/nvvis/config.orig" "$W/nvvis/config.json"
err=$(env "$(printf 'CUDALOAD_BAD=\377')" CUDALOAD_CONFIG=$W/conf/spy.conf "$RT" create --bundle "$W/nvvis" c1 2>&1)
contains "a CUDALOAD_ setting that is not UTF-8: left out, said so" "$err" "CUDALOAD_BAD: not UTF-8, left out"
python3 -c 'import json,sys; json.load(open(sys.argv[1], encoding="utf-8"))' "$W/nvvis/config.json" 2>/dev/null &&
	ok "... config.json still UTF-8 JSON" || bad "... config.json no longer UTF-8 JSON"
cp "$W/nvvis/config.json" "$W/nvvis.once"
err=$(wrap create --bundle "$W/nvvis" c1 2>&1 >/dev/null)
cmp -s "$W/nvvis.once" "$W/nvvis/config.json" && ok "a second create: hooked already, unchanged" ||
	bad "a second create: changed again" "$(diff "$W/nvvis.once" "$W/nvvis/config.json")"
status "... nothing said without CUDALOAD_DEBUG (runc's stderr is the container's)" "" "$err"
err=$(CUDALOAD_DEBUG=1 wrap create --bundle "$W/nvvis" c1 2>&1 >/dev/null)
contains "... under CUDALOAD_DEBUG, said" "$err" "the cudaload hook is there already, unchanged"

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

# unchanged NAME EDIT: a bundle that EDIT makes, created through the
# wrapper, its config.json as it was
unchanged() {
	bundle unchanged "$2"
	wrap create --bundle "$W/unchanged" c1 >/dev/null 2>&1
	check_same "$1" unchanged
}
for v in void none ""; do
	unchanged "NVIDIA_VISIBLE_DEVICES='$v'" "c['process']['env'].append('NVIDIA_VISIBLE_DEVICES=$v')"
done
unchanged "no GPU" 'pass'
unchanged "opted out by the annotation cudaload.dev/compat=false" \
	"$gpu_env; c['annotations'] = {'cudaload.dev/compat': 'false'}"
unchanged "opted out by CUDALOAD_COMPAT=no in its environment" "$gpu_env; c['process']['env'].append('CUDALOAD_COMPAT=no')"
unchanged "hooked already (hooks.d, a CDI spec)" \
	"$gpu_env; c['hooks'] = {'createContainer': [{'path': '/usr/bin/cudaload', 'args': ['cudaload', '--oci-hook']}]}"

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

# ---- under the real engines ----
# Docker and containerd as this machine runs them (docs/design.md §11):
# private roots, no network set-up, limits that need no CAP_SYS_RESOURCE.
# The hook reads the host named by $W/host, a link moved between rows, so
# one daemon serves every host.  --gpus all needs NVIDIA's prestart hook on
# dockerd's PATH; NVIDIA's toolkit is not in Debian, so a stand-in stands
# there that does for the test what its prestart does: the images already
# hold the driver's files it would mount, so it only reads the state.
engines() {
	[ "$(id -u)" = 0 ] || { skip "the engines" "not root (the engines run as root)"; return 1; }
	for t in dockerd docker containerd ctr podman busybox; do
		command -v $t >/dev/null 2>&1 ||
			{ skip "the engines" "no $t (sh scripts/deps.sh installs docker.io, containerd, podman)"; return 1; }
	done
	chroot_arch || { skip "the engines" "$chroot_why"; return 1; }
}
engines || { finish; exit; }
L=$W/libs
tag=cudaload-rt-$$
mkdir -p "$L" "$W/hosts" "$W/images" "$W/nvbin" "$W/d"
cleanup() {
	for f in "$W/d/pid" "$W/c/pid"; do
		p=$(cat "$f" 2>/dev/null) && kill "$p" 2>/dev/null || continue
		while kill -0 "$p" 2>/dev/null; do sleep 0.2; done
	done
	# shellcheck disable=SC2046
	podman rmi -f $(podman images -q --filter "reference=localhost/$tag-*" 2>/dev/null) >/dev/null 2>&1
	for m in $(grep -oE " $W/[^ ]+" /proc/self/mountinfo | sort -r); do umount -l "$m" 2>/dev/null; done
}
trap cleanup EXIT INT TERM
. "$here/../lib/ociimages.sh"
host h100-580 "nvidia_version=580.95.05
$h100"
host h100-535 "nvidia_version=535.261.03
$h100"
on_host() { ln -sfn "hosts/$1" "$W/host"; }
on_host h100-580

DOCKER_HOST=unix://$W/d/sock
export DOCKER_HOST
printf '#!/bin/sh\n# a stand-in for NVIDIA'"'"'s prestart hook\ncat >/dev/null\n' >"$W/nvbin/nvidia-container-runtime-hook"
chmod 755 "$W/nvbin/nvidia-container-runtime-hook"
# the engines' next runtime: runc, through a stand-in that keeps each
# config.json it is handed and its arguments
cat >"$W/spy-runc" <<SPY
#!/bin/sh
printf '%s\n' "\$*" >>"$W/engine.args"
b=.
for a; do case \${p:-} in --bundle|-b) b=\$a ;; esac; p=\$a; done
[ ! -f "\$b/config.json" ] || cp "\$b/config.json" "$W/engine.config.json"
exec runc "\$@"
SPY
chmod 755 "$W/spy-runc"
cost=${2:-}
if [ "$cost" = cost ]; then
	echo "runtime = $(command -v runc)" >"$W/conf/engine.conf"
else
	echo "runtime = $W/spy-runc" >"$W/conf/engine.conf"
fi
ENGINE_ENV="CUDALOAD_ROOT=$W/host CUDALOAD_CONFIG=$W/conf/engine.conf PATH=$W/nvbin:$PATH"
# Docker's default runtime set the way a node administrator sets it
printf '{\n  "log-level": "warn",\n  "log-opts": {"max-size": "10m"}\n}\n' >"$W/d/daemon.json"
cp "$W/d/daemon.json" "$W/d/daemon.orig"
out=$("$RT" configure --runtime=docker --config="$W/d/daemon.json" --set-as-default 2>&1)
status "configure --runtime=docker --set-as-default" 0 $? "$out"
contains "... says which service to restart" "$out" "restart docker"
# shellcheck disable=SC2086
env $ENGINE_ENV dockerd --config-file "$W/d/daemon.json" --iptables=false --bridge=none --ip-forward=false \
	--ip-masq=false --default-ulimit nofile=1024:1024 --default-ulimit nproc=4096:4096 --data-root "$W/d/data" \
	--exec-root "$W/d/exec" -H "$DOCKER_HOST" --pidfile "$W/d/pid" >"$W/d/log" 2>&1 &
i=0
until docker info >/dev/null 2>&1 || [ $i -ge 100 ]; do sleep 0.2; i=$((i + 1)); done
docker_up=$(docker info --format '{{.DefaultRuntime}}' 2>&1)
status "dockerd: cudaload-runtime its default runtime" cudaload "$docker_up" "$(tail -n 20 "$W/d/log")"

image_import() { # docker's $tag-NAME
	(cd "$R" && tar -c .) | docker import ${image_env:+--change "ENV $image_env"} - "$tag-$1" >/dev/null 2>"$W/import.log"
}
image vllm-580 580.95.05 13000 "$pkg128" "$vllm"
image plain-535 535.261.03 12020 "$pkg128"
# the vLLM-style root again, its ENV asking for every GPU
image_env=NVIDIA_VISIBLE_DEVICES=all R=$W/images/vllm-580
image_import nvenv-580 || bad "import image nvenv-580"
image_env=
probe='/usr/bin/cudaprobe | grep "^libcuda="; cat /run/cudaload/oci-hook 2>/dev/null; exit 0'
dk() { docker run --rm "$@" 2>&1; }

if [ "$cost" = cost ]; then
	n=${3:-15} i=0
	: >"$W/runc.ms" && : >"$W/wrapper.ms" && : >"$W/hook.ms"
	ms() { s=$(date +%s%N); "$@" >/dev/null 2>&1; echo $((($(date +%s%N) - s) / 1000000)); }
	while [ $i -lt "$n" ]; do
		ms docker run --rm --gpus all --runtime runc "$tag-vllm-580" /usr/bin/cudaprobe >>"$W/runc.ms"
		ms docker run --rm --gpus all -e CUDALOAD_COMPAT=false "$tag-vllm-580" /usr/bin/cudaprobe >>"$W/wrapper.ms"
		ms docker run --rm --gpus all "$tag-vllm-580" /usr/bin/cudaprobe >>"$W/hook.ms"
		i=$((i + 1))
	done
	median() { sort -n "$1" | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
	echo "docker run --gpus all, $n each, median: runc $(median "$W/runc.ms") ms," \
		"cudaload-runtime opted out $(median "$W/wrapper.ms") ms, cudaload-runtime and the hook $(median "$W/hook.ms") ms"
	exit 0
fi

out=$(dk --gpus all "$tag-vllm-580" /bin/sh -c "$probe")
contains "docker run --gpus all, vLLM-style image, H100 on 580: the system driver" "$out" \
	"libcuda=/usr/lib/$triplet/libcuda.so.1 version=13000"
contains "... the hook's account in the container" "$out" "decision:     "
contains "... the next runtime was handed NVIDIA's prestart hook and then ours" \
	"$(python3 -c 'import json,sys; h=json.load(open(sys.argv[1]))["hooks"]; print(h["prestart"][0]["path"], h["createContainer"][-1]["path"])' "$W/engine.config.json")" \
	"$W/nvbin/nvidia-container-runtime-hook $B/cudaload"
on_host h100-535
out=$(dk --gpus all "$tag-plain-535" /bin/sh -c "$probe")
contains "docker run --gpus all, a dormant package whose note lists 535, H100 on 535: the compat driver" "$out" \
	"libcuda=/usr/local/cuda-12.8/compat/libcuda.so.1 "
contains "... put first" "$out" "first: /usr/local/cuda-12.8/compat"
on_host h100-580
out=$(dk --runtime cudaload "$tag-nvenv-580" /bin/sh -c "$probe")
contains "docker run --runtime cudaload, NVIDIA_VISIBLE_DEVICES in the image's ENV: judged, the system driver" "$out" \
	"libcuda=/usr/lib/$triplet/libcuda.so.1 version=13000"
out=$(dk "$tag-vllm-580" /bin/sh -c "$probe")
contains "docker run without a GPU: as the image says" "$out" "libcuda=/usr/local/cuda/compat/libcuda.so.1 "
lacks "... no account in it" "$out" "decision:"
has "... no createContainer hook in its config.json" \
	"$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("hooks", {}).get("createContainer"))' "$W/engine.config.json")" None
out=$(dk --gpus all -e CUDALOAD_COMPAT=false "$tag-vllm-580" /bin/sh -c "$probe")
contains "docker run --gpus all -e CUDALOAD_COMPAT=false: opted out, as the image says" "$out" \
	"libcuda=/usr/local/cuda/compat/libcuda.so.1 "
lacks "... no account" "$out" "decision:"

# a container's life through the wrapper: exec, stop, restart, rm
: >"$W/engine.args"
c=$(docker run -d --gpus all --name "$tag-life" "$tag-vllm-580" /bin/sh -c 'exec sleep 600' 2>&1)
status "docker run -d --gpus all: started" running "$(docker inspect -f '{{.State.Status}}' "$tag-life" 2>&1)" "$c"
contains "docker exec: the account" "$(docker exec "$tag-life" cat /run/cudaload/oci-hook 2>&1)" "decision:     "
docker stop -t 1 "$tag-life" >/dev/null 2>&1
status "docker stop" exited "$(docker inspect -f '{{.State.Status}}' "$tag-life" 2>&1)"
docker restart -t 1 "$tag-life" >/dev/null 2>&1
status "docker restart" running "$(docker inspect -f '{{.State.Status}}' "$tag-life" 2>&1)"
contains "... judged again at its new creation" "$(docker exec "$tag-life" /bin/sh -c "$probe" 2>&1)" \
	"libcuda=/usr/lib/$triplet/libcuda.so.1 version=13000"
docker rm -f "$tag-life" >/dev/null 2>&1
status "docker rm -f" "" "$(docker ps -aq --filter "name=$tag-life" 2>&1)"
for cmd in create start exec kill delete; do
	contains "... runc's $cmd came through the wrapper" "$(cut -d' ' -f1-8 "$W/engine.args")" " $cmd"
done

out=$("$RT" unconfigure --runtime=docker --config="$W/d/daemon.json" 2>&1)
status "unconfigure --runtime=docker" 0 $? "$out"
cmp -s "$W/d/daemon.orig" "$W/d/daemon.json" && ok "... daemon.json back byte for byte" ||
	bad "... daemon.json not as it was" "$(diff "$W/d/daemon.orig" "$W/d/daemon.json")"

# containerd, as a Kubernetes handler's BinaryName runs it
mkdir -p "$W/c"
cat >"$W/c/config.toml" <<TOML
version = 2
root = "$W/c/root"
state = "$W/c/state"
disabled_plugins = ["io.containerd.grpc.v1.cri"]
[grpc]
  address = "$W/c/sock"
TOML
# shellcheck disable=SC2086
(env $ENGINE_ENV containerd --config "$W/c/config.toml" >"$W/c/log" 2>&1 & echo $! >"$W/c/pid")
CTR="ctr -a $W/c/sock -n cudaload-test"
i=0
until $CTR version >/dev/null 2>&1 || [ $i -ge 100 ]; do sleep 0.2; i=$((i + 1)); done
docker save -o "$W/c/vllm.tar" "$tag-vllm-580" && $CTR images import "$W/c/vllm.tar" >/dev/null 2>&1 ||
	bad "ctr images import" "$(tail -n 5 "$W/c/log")"
out=$($CTR run --rm --runc-binary "$RT" --env NVIDIA_VISIBLE_DEVICES=all "docker.io/library/$tag-vllm-580:latest" \
	"$tag-ctr" /bin/sh -c "$probe" 2>&1)
contains "ctr run --runc-binary cudaload-runtime, NVIDIA_VISIBLE_DEVICES=all, H100 on 580: the system driver" "$out" \
	"libcuda=/usr/lib/$triplet/libcuda.so.1 version=13000"
contains "... the account, on ctr's /run tmpfs" "$out" "decision:     "

# podman: --runtime PATH gets none of podman's caller's environment, so
# the settings come from a script in front of it, as an administrator's
# would
printf '#!/bin/sh\nexport %s\nexec %s "$@"\n' "$ENGINE_ENV" "$RT" >"$W/with-host"
chmod 755 "$W/with-host"
image_import() { # podman's localhost/$tag-NAME
	(cd "$R" && tar -c .) | podman import - "$tag-$1" >/dev/null 2>"$W/import.log"
}
image_import vllm-580 || bad "podman import"
R=$W/images/vllm-580
PODMAN="podman run --rm --pull never --runtime $W/with-host --ulimit nofile=1024:1024 --ulimit nproc=4096:4096"
out=$($PODMAN -e NVIDIA_VISIBLE_DEVICES=all "localhost/$tag-vllm-580" /bin/sh -c "$probe" 2>&1)
contains "podman run --runtime cudaload-runtime, H100 on 580: the system driver" "$out" \
	"libcuda=/usr/lib/$triplet/libcuda.so.1 version=13000"
contains "... the account" "$out" "decision:     "
out=$($PODMAN --annotation cudaload.dev/compat=false -e NVIDIA_VISIBLE_DEVICES=all "localhost/$tag-vllm-580" \
	/bin/sh -c "$probe" 2>&1)
contains "podman, the annotation cudaload.dev/compat=false: opted out, as the image says" "$out" \
	"libcuda=/usr/local/cuda/compat/libcuda.so.1 "
lacks "... no account" "$out" "decision:"
# the shipped hooks.d file made "always" (every container, as
# docs/containers.md has it) and the wrapper: the hook once
mkdir -p "$W/hooks.d"
sed "s|@BINDIR@|$B|" "$top/etc/cudaload-oci-hook.json" | python3 -c '
import json, sys
h = json.load(sys.stdin)
h["when"] = {"always": True}
h["hook"]["env"].append("CUDALOAD_ROOT=" + sys.argv[1])
print(json.dumps(h))' "$W/host" >"$W/hooks.d/cudaload.json"
out=$(podman --hooks-dir "$W/hooks.d" run --rm --pull never --runtime "$W/with-host" --ulimit nofile=1024:1024 \
	--ulimit nproc=4096:4096 -e NVIDIA_VISIBLE_DEVICES=all "localhost/$tag-vllm-580" /bin/sh -c "$probe" 2>&1)
contains "podman, hooks.d's always file and the wrapper: the system driver" "$out" \
	"libcuda=/usr/lib/$triplet/libcuda.so.1 version=13000"
status "... the hook in config.json once" 1 \
	"$(python3 -c 'import json,sys; print(sum("--oci-hook" in h.get("args", []) for h in json.load(open(sys.argv[1]))["hooks"]["createContainer"]))' "$W/engine.config.json")"

finish
