#!/bin/sh
# SPDX-License-Identifier: MIT
# The cluster install (docs/fleet.md, "On a cluster"): the manifests of
# deploy/kubernetes/ validated as Kubernetes objects against their OpenAPI
# schemas (npm's kubernetes-models, offline, run by node), with planted
# faults the validator must catch; then the image `make image` builds,
# loaded into podman and run as the DaemonSet runs it, privileged, a fake
# node's root at /host: a GPU host of the fixtures (mkroot.sh) with
# containerd's default config.  After `run` the node holds the binaries,
# the CDI spec, the hooks.d file, the engine's drop-in and the NFD file
# with that host's labels; a second run changes nothing; `uninstall` gives
# the node back byte for byte; a file of someone else's is left alone.
# Needs node and npm (the validator, cached under BUILD/k8s-validate),
# root, podman and runc (the image).  Usage: cluster.sh BUILD
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/lib.sh"
top=$(cd "$here/../../.." && pwd)
B=$(cd "${1:-$top/build}" && pwd)
echo "== end-to-end, the cluster's DaemonSet and image"
M=$top/deploy/kubernetes/cudaload.yaml
V=$top/tests/e2e/lib/k8s-validate
version=$(sed -n 's/^VERSION *:= *//p' "$top/Makefile")
ref=localhost/cudaload:$version
W=$B/e2e-cluster
rm -rf "$W"
mkdir -p "$W"

# ---- the manifests ----
# validator_ready: kubernetes-models and js-yaml of V's lock file in
# BUILD/k8s-validate, installed once (npm ci), kept while the lock is the same
validator_ready() {
	cache=$B/k8s-validate
	command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 ||
		{ validator_why="no node or npm (Debian: nodejs, npm)"; return 1; }
	cmp -s "$V/package-lock.json" "$cache/package-lock.json" && [ -d "$cache/node_modules/kubernetes-models" ] &&
		return 0
	rm -rf "$cache" "$cache.tmp"
	mkdir -p "$cache.tmp"
	cp "$V/package.json" "$V/package-lock.json" "$cache.tmp/"
	if ! (cd "$cache.tmp" && npm ci --no-audit --no-fund --loglevel=error) >"$W/npm.log" 2>&1; then
		if grep -qE 'ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH|network' "$W/npm.log"; then
			validator_why="npm cannot reach its registry: $(grep -m1 -E 'ENOTFOUND|EAI_AGAIN|ECONN|ETIMEDOUT|ENETUNREACH|network' "$W/npm.log")"
			return 1
		fi
		bad "npm ci of $V" "$(tail -n 20 "$W/npm.log")"
		validator_why=failed
		return 2
	fi
	mv "$cache.tmp" "$cache"
}
validate() { node "$V/validate.mjs" "$B/k8s-validate" "$@"; }

if validator_ready; then
	out=$(validate "$M")
	status "the manifests: valid Kubernetes objects (kubernetes-models' OpenAPI schemas)" 0 $? "$out"
	has "the Namespace" "$out" "ok $M Namespace cudaload"
	has "the DaemonSet" "$out" "ok $M DaemonSet cudaload-node"
	status "nothing else, nothing cluster-wide" 2 "$(printf '%s\n' "$out" | grep -c '^ok ')" "$out"
	has "the DaemonSet in the namespace" "$out" "fact daemonset-namespace cudaload"
	# two terms, which Kubernetes ORs (one term's expressions are ANDed)
	has "on NFD's NVIDIA PCI label" "$out" "fact affinity-term feature.node.kubernetes.io/pci-10de.present In true"
	has "or GFD's (the GPU Operator's)" "$out" "fact affinity-term nvidia.com/gpu.present In true"
	has "either label alone is enough (two node selector terms)" "$out" "fact affinity-terms 2"
	has "privileged" "$out" "fact privileged true"
	has "the node's root at /host" "$out" "fact mount / /host"
	has "no API token" "$out" "fact service-account-token false"
	has "the image make image builds" "$out" "fact image $ref"
	has "runs 'run'" "$out" "fact args run"
	has "ready when its work is done" "$out" "fact readiness /usr/bin/cudaload-node ready"
	# planted faults: each copy must be refused, by the schema
	plant() { # plant NAME SED-SCRIPT WANT
		sed "$2" "$M" >"$W/planted.yaml"
		cmp -s "$M" "$W/planted.yaml" && { bad "planted $1: the sed script changed nothing"; return; }
		out=$(validate "$W/planted.yaml")
		rc=$?
		if [ $rc -eq 1 ] && in_text "$out" "$3"; then ok "the validator refuses $1: $3"
		else bad "the validator passes $1 (exit $rc)" "$out"; fi
	}
	plant "a string for a boolean" 's/privileged: true/privileged: "yes"/' "privileged must be boolean"
	plant "a volume mount without its path" 's/mountPath: \/host/mountpath: \/host/' "must have required property mountPath"
	plant "a list for a string" 's/priorityClassName: system-node-critical/priorityClassName: [system-node-critical]/' "priorityClassName must be string"
	plant "a kind that does not exist" 's/^kind: DaemonSet$/kind: Daemonset/' "no schema for apiVersion apps/v1 kind Daemonset"
else
	[ "$validator_why" = failed ] || skip "the manifests' validation" "$validator_why"
fi

# ---- the image ----
if ! make -s -C "$top" BUILD="$B" image >"$W/make.log" 2>&1; then
	bad "make image" "$(tail -n 20 "$W/make.log")"
	finish
	exit
fi
I=$B/cudaload-image-$(uname -m).tar
[ -f "$I" ] && ok "make image: $I, $(($(wc -c <"$I") / 1024)) KiB" || bad "make image made no $I"
sh "$top/scripts/mkimage.sh" "$W/again.tar" "$(uname -m)" "$ref" "$B/cudaload" "$B/cudaload-runtime" /bin/busybox >/dev/null &&
	cmp -s "$I" "$W/again.tar" && ok "the image is reproducible: made again, the same bytes" ||
	bad "the image made twice differs"
# the layer: nothing but what the node needs
mkdir -p "$W/oci"
tar -xf "$I" -C "$W/oci"
layer=$(/usr/bin/python3 -c '
import json, sys
d = sys.argv[1]
idx = json.load(open(d + "/index.json"))
m = json.load(open(d + "/blobs/sha256/" + idx["manifests"][0]["digest"][7:]))
print(d + "/blobs/sha256/" + m["layers"][0]["digest"][7:])' "$W/oci")
files=$(tar -tvzf "$layer" | awk '$1 ~ /^-/ {print $6}' | sort | tr '\n' ' ')
status "the layer's files: the binaries, the config, the CDI spec, the hooks.d file, the entry script, busybox" \
	"./bin/busybox ./opt/cudaload/bin/cudaload ./opt/cudaload/bin/cudaload-runtime ./opt/cudaload/etc/cudaload.conf ./opt/cudaload/share/cudaload/cdi.json ./opt/cudaload/share/cudaload/oci-hook.json ./usr/bin/cudaload-node " \
	"$files"
size=$(wc -c <"$I")
[ "$size" -lt $((4 * 1024 * 1024)) ] && ok "the image is small: $((size / 1024)) KiB" || bad "the image is $((size / 1024)) KiB"

if [ "$(id -u)" != 0 ]; then
	skip "the image on a node" "not root (podman as root)"
	finish
	exit
fi
for t in podman runc containerd cc; do
	command -v $t >/dev/null 2>&1 || { skip "the image on a node" "no $t (sh scripts/deps.sh installs it)"; finish; exit; }
done
had_image=$(podman images -q "$ref" 2>/dev/null)
cleanup() {
	[ -z "${cid:-}" ] || podman rm -f "$cid" >/dev/null 2>&1
	[ -n "$had_image" ] || podman rmi -f "$ref" >/dev/null 2>&1
}
trap cleanup EXIT INT TERM
out=$(podman load -i "$I" 2>&1)
contains "podman load names it $ref" "$out" "Loaded image: $ref"

# ---- a node: a fixture GPU host with containerd's default config ----
H=$W/node
mkdir -p "$W/libs"
cc -O1 -o "$W/libs/mknote" "$here/../helpers/mknote.c" &&
	CC=cc sh "$here/../lib/mkroot.sh" "$top/tests/fixtures/dgpu-h100-535-compat-13-1.profile" "$H" "$W/libs" >/dev/null ||
	{ bad "the fake node"; finish; exit; }
mkdir -p "$H/etc/containerd" "$H/etc/cdi"
containerd config default >"$H/etc/containerd/config.toml"
# a CDI spec of NVIDIA's, which must stay as it is
printf 'cdiVersion: 0.5.0\nkind: nvidia.com/gpu\ndevices: []\n' >"$H/etc/cdi/nvidia.yaml"

# listing DIR: every path under DIR, its type, mode, size and checksum (a
# link's target)
listing() {
	(cd "$1" && find . -printf '%y %m %s %p %l\n' | sort -k4 | while read -r y m s p l; do
		case $y in
		f) printf '%s %s %s %s %s\n' "$y" "$m" "$s" "$p" "$(sha256sum <"$p" | cut -d' ' -f1)" ;;
		*) printf '%s %s %s %s\n' "$y" "$m" "$p" "$l" ;;
		esac
	done)
}
before=$(listing "$H")

# What has landed: configure (cudaload-runtime's engines) and --nfd-dir
# (cudaload --status); rows that need one that has not are skipped, said so.
mkdir -p "$W/probe"
cp "$H/etc/containerd/config.toml" "$W/probe/config.toml"
engine=none
if "$B/cudaload-runtime" configure --runtime=containerd --config="$W/probe/config.toml" >"$W/probe.log" 2>&1; then
	engine=auto
elif grep -q 'not built yet' "$W/probe.log"; then
	engine_why="cudaload-runtime configure is not in this build: $(head -n 1 "$W/probe.log")"
else
	engine_why="cudaload-runtime configure fails on containerd's default config"
	bad "$engine_why" "$(cat "$W/probe.log")"
fi
CUDALOAD_ROOT=$H "$B/cudaload" --status --nfd >/dev/null 2>&1
[ $? -ne 100 ] && nfd=yes || nfd_why="cudaload --status --nfd is not in this build (usage error)"

RUN="podman run --pull never --runtime runc --ulimit nofile=1024:1024 --ulimit nproc=4096:4096 --privileged -v $H:/host"
# daemonset_run NAME: the image's `run` as the DaemonSet starts it, until
# its readiness probe says ready; then stopped as a pod is (SIGTERM)
daemonset_run() {
	cid=$($RUN -d -e CUDALOAD_ENGINE=$engine -e CUDALOAD_RESTART_ENGINE=none "$ref" run) ||
		{ bad "$1: podman run"; return 1; }
	i=0
	until podman exec "$cid" /usr/bin/cudaload-node ready 2>/dev/null; do
		i=$((i + 1))
		if [ $i -ge 100 ] || [ "$(podman inspect -f '{{.State.Running}}' "$cid" 2>/dev/null)" != true ]; then
			bad "$1: never ready" "$(podman logs "$cid" 2>&1)"
			podman rm -f "$cid" >/dev/null 2>&1
			cid=
			return 1
		fi
		sleep 0.2
	done
	ok "$1: ready after $i probes"
	t0=$(date +%s)
	podman stop -t 8 "$cid" >/dev/null 2>&1
	[ $(($(date +%s) - t0)) -lt 8 ] && ok "$1: stops at SIGTERM" || bad "$1: had to be killed"
	run_log=$(podman logs "$cid" 2>&1)
	podman rm -f "$cid" >/dev/null 2>&1
	cid=
}

daemonset_run "first run" || { finish; exit; }
for f in cudaload cudaload-runtime; do
	cmp -s "$B/$f" "$H/opt/cudaload/bin/$f" && [ "$(stat -c %a "$H/opt/cudaload/bin/$f")" = 755 ] &&
		ok "the node has /opt/cudaload/bin/$f (mode 755)" || bad "no /opt/cudaload/bin/$f on the node" "$run_log"
done
[ -d "$H/opt/cudaload/lib/cudaload/pin/usr/lib/x86_64-linux-gnu" ] && ok "and its pin directories" ||
	bad "no pin directories on the node"
sed "s|@BINDIR@|/opt/cudaload/bin|" "$top/etc/cudaload-cdi.json" | cmp -s - "$H/etc/cdi/cudaload.json" &&
	ok "the CDI spec, naming /opt/cudaload/bin/cudaload" || bad "the CDI spec" "$run_log"
sed "s|@BINDIR@|/opt/cudaload/bin|" "$top/etc/cudaload-oci-hook.json" |
	cmp -s - "$H/usr/share/containers/oci/hooks.d/cudaload.json" &&
	ok "the hooks.d file, naming /opt/cudaload/bin/cudaload" || bad "the hooks.d file" "$run_log"
contains "it says what it did" "$run_log" "cudaload-node: installed /etc/cdi/cudaload.json"
after=$(listing "$H")
changed=$(printf '%s\n' "$before" | grep -vxF -e "$after" | awk '{print $4}')
if [ "$engine" = auto ]; then
	status "of what was there, only the engine's config.toml changed" "./etc/containerd/config.toml" "$changed"
	dropin=$H/etc/containerd/conf.d/cudaload.toml
	[ -f "$dropin" ] && grep -q '/opt/cudaload/bin/cudaload-runtime' "$dropin" &&
		ok "containerd's drop-in names the node's /opt/cudaload/bin/cudaload-runtime" ||
		bad "containerd's drop-in" "$run_log
$(cat "$dropin" 2>&1)"
	contains "config.toml imports it" "$(cat "$H/etc/containerd/config.toml")" "/etc/containerd/conf.d/cudaload.toml"
	contains "the engine: containerd, found by its config file" "$run_log" "configured containerd"
else
	status "nothing that was there changed" "" "$changed"
	skip "the engine's configuration (containerd's drop-in, config.toml's imports)" "$engine_why"
fi
F=$H/etc/kubernetes/node-feature-discovery/features.d/cudaload
if [ -n "${nfd:-}" ]; then
	labels=$(grep -v '^#' "$F" 2>/dev/null)
	has "NFD's file: the host's system CUDA" "$labels" "cudaload.dev/cuda.system.major=12"
	has "NFD's file: what programs get (the 13.1 package)" "$labels" "cudaload.dev/cuda.runtime.minor=1"
	status "NFD's file: the labels cudaload --status --nfd gives for that host" \
		"$(CUDALOAD_ROOT=$H "$B/cudaload" --status --nfd | grep -v '^#')" "$labels"
	grep -q '^# +expiry-time=' "$F" && ok "NFD's file expires unless refreshed" || bad "no expiry in $F" "$(cat "$F")"
else
	skip "NFD's feature file on the node" "$nfd_why"
	contains "without --nfd-dir the pod still becomes ready, saying so" "$run_log" "no labels this time"
fi

# a second run: nothing changes but the NFD file's expiry
steady() { listing "$H" | grep -v ' ./etc/kubernetes/node-feature-discovery/features.d/cudaload '; grep -v '^# +expiry-time=' "$F" 2>/dev/null; }
first=$(steady)
daemonset_run "second run"
status "the second run changes nothing (a listing with sizes and checksums)" "$first" "$(steady)"
contains "and says so" "$run_log" "cudaload-node: /opt/cudaload is up to date"
lacks "nothing installed again" "$run_log" "installed"

# uninstall, as docs/fleet.md has it done: the node as it was, byte for
# byte.  Told not to restart the engine, the first one keeps the binaries
# that the running engine still names; the one after the restart ends it.
out=$($RUN --rm "$ref" uninstall 2>&1)
status "uninstall" 0 $? "$out"
if [ "$engine" = auto ]; then
	status "... the engine's files as they were" "$(printf '%s\n' "$before" | grep ' ./etc/containerd')" \
		"$(listing "$H" | grep ' ./etc/containerd')"
	contains "... the engine not restarted: the binaries it names kept, said so" "$out" \
		"kept /opt/cudaload/bin: the running engine still names cudaload-runtime until it restarts"
	[ -x "$H/opt/cudaload/bin/cudaload-runtime" ] && [ -x "$H/opt/cudaload/bin/cudaload" ] &&
		ok "... /opt/cudaload/bin/cudaload-runtime and cudaload still there" || bad "... the engine's runtime is gone" "$out"
	out=$($RUN --rm "$ref" uninstall 2>&1)
	status "uninstall after the engine's restart" 0 $? "$out"
fi
status "after uninstall the node is as it was (a listing with sizes and checksums)" "$before" "$(listing "$H")"
contains "it says what it removed" "$out" "cudaload-node: removed /opt/cudaload"
out=$($RUN --rm "$ref" uninstall 2>&1)
status "uninstall again: nothing to do" "0 cudaload-node: not installed on this node (no /opt/cudaload/node-installed): nothing to do" "$? $out"

# someone else's CDI spec (a package's) at the same path: left alone, and kept
H2=$W/node2
mkdir -p "$H2/etc/cdi"
printf '{"cdiVersion":"0.5.0","kind":"cudaload.dev/compat","devices":[]}\n' >"$H2/etc/cdi/cudaload.json"
before=$(listing "$H2")
out=$(podman run --rm --pull never --runtime runc --ulimit nofile=1024:1024 --ulimit nproc=4096:4096 --privileged \
	-v "$H2:/host" -e CUDALOAD_ENGINE=none "$ref" install 2>&1)
status "install beside another CDI spec" 0 $? "$out"
contains "another's CDI spec: left as it is, said so" "$out" "/etc/cdi/cudaload.json is there and was not put there by cudaload-node"
out=$(podman run --rm --pull never --runtime runc --ulimit nofile=1024:1024 --ulimit nproc=4096:4096 --privileged \
	-v "$H2:/host" "$ref" uninstall 2>&1)
status "uninstall keeps it: that node as it was" "$before" "$(listing "$H2")"
finish
