#!/bin/sh
# SPDX-License-Identifier: MIT
# cudaload --oci-hook under real container runtimes: podman (CDI specs,
# a hooks.d file) and runc on a bundle of its own.  Each image is a root
# made here and imported (podman import): the real glibc loader, the test
# program (cudaprobe.c: which libcuda.so.1 it loaded), a busybox, the
# system driver as a file of the image (what the toolkit would mount: a
# fake libcuda named for the host's kernel module), and a compat package
# the image names as real images do.  The host is a fixture tree
# (mkroot.sh) that the hook reads through CUDALOAD_ROOT in its CDI entry's
# env.  Each row: what the program in the container loads, with the hook
# and (where the hook changes it) without; hostile images and a broken
# state: the container starts, nothing outside its root changes.
# Needs root, podman and runc.  Usage: container.sh BUILD [cost [N]]: with
# cost, only the hook's cost per container start: N podman runs (20) of
# one image with and without it, interleaved, and their medians.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/lib.sh"
. "$here/../lib/chroot.sh"
top=$(cd "$here/../../.." && pwd) arch=$(uname -m)
B=$(cd "${1:-$top/build}" && pwd)
echo "== end-to-end, cudaload --oci-hook in podman and runc containers ($arch)"
[ "$(id -u)" = 0 ] || { skip "container suite" "not root (podman and runc as root)"; finish; exit; }
for t in podman runc busybox; do
	command -v $t >/dev/null 2>&1 ||
		{ skip "container suite" "no $t (sh scripts/deps.sh installs it)"; finish; exit; }
done
chroot_arch || { skip "container suite" "$chroot_why"; finish; exit; }
W=$B/e2e-container
L=$W/libs
rm -rf "$W"
mkdir -p "$L" "$W/hosts" "$W/images" "$W/outside"

# podman as this machine allows it (docs/design.md §11): runc, and limits
# that need no CAP_SYS_RESOURCE
RUN="podman run --rm --pull never --runtime runc --ulimit nofile=1024:1024 --ulimit nproc=4096:4096"
KIND=cudaload-test.dev/c$$
SPEC=/run/cdi/cudaload-test-$$.json
tag=cudaload-test-$$
cleanup() {
	rm -f "$SPEC" "${SPEC%.json}-shipped.json"
	# shellcheck disable=SC2046
	podman rmi -f $(podman images -q --filter "reference=localhost/$tag-*" 2>/dev/null) >/dev/null 2>&1
	runc delete -f "$tag-runc-vllm" >/dev/null 2>&1
	runc delete -f "$tag-runc-etc" >/dev/null 2>&1
	for c in $(runc list -q 2>/dev/null | grep "^$tag-row-"); do runc delete -f "$c" >/dev/null 2>&1; done
	mountpoint -q "$W/volumes/vol-shared" 2>/dev/null && umount -R -l "$W/volumes/vol-shared"
	for m in "$W/manual/peer" "$W/manual/rootfs"; do mountpoint -q "$m" 2>/dev/null && umount -R -l "$m"; done
}
trap cleanup EXIT INT TERM

. "$here/../lib/ociimages.sh"

host h100-580 "nvidia_version=580.95.05
$h100"
host h100-535 "nvidia_version=535.261.03
$h100"
host geforce-535 'nvidia_version=535.261.03
gpus="0000:01:00.0 PCIe NVIDIA GeForce RTX 4090"
pci="0000:01:00.0 0x2684"'
host v100-535 'nvidia_version=535.261.03
gpus="0000:3b:00.0 PCIe Tesla V100-PCIE-16GB"
pci="0000:3b:00.0 0x1db4"'
# bus order: the V100 is minor 0, the H100 minor 1
host v100-h100-535 'nvidia_version=535.261.03
gpus="0000:3b:00.0 PCIe Tesla V100-PCIE-16GB
0000:b1:00.0 PCIe NVIDIA H100 80GB HBM3"
pci="0000:3b:00.0 0x1db4
0000:b1:00.0 0x2330"'
host orin-jp5 "$(cat "$top/tests/fixtures/board-agx-orin-jp5.1.2.profile")"

# ---- the images ----
cost=${2:-}
image vllm-580 580.95.05 13000 "$pkg128" "$vllm"
image_env='LD_LIBRARY_PATH=/usr/local/cuda/compat:/usr/local/cuda/lib64'
image jc-580 580.95.05 13000 "$pkg128"
image plain-535 535.261.03 12020 "$pkg128"
image vllm-535 535.261.03 12020 "$pkg128" "$vllm"
image vllm131-535 535.261.03 12020 "$pkg131" "$vllm"
image_env='LD_LIBRARY_PATH=/usr/local/cuda-13.2/compat_orin:/usr/local/cuda/lib64'
image orin-13.2 1.1 11040 'compat="/usr/local/cuda-13.2/compat_orin 13020 jetson {\"format\":1,\"CUDA version\":\"13.2\"}"'
# hostile: the compat directory a link out of the root (to a package of the
# host's), a FIFO among the ld.so.conf.d files, etc a link to the host's
outside=$W/outside/cuda-12.8-compat
mkdir -p "$outside" && cp -a "$W/images/vllm-580/usr/local/cuda-12.8/compat/." "$outside/"
image hostile-link 580.95.05 13000 "" \
	'mkdir -p "$R/usr/local"; ln -s "$outside" "$R/usr/local/cuda-12.8"; ln -s cuda-12.8 "$R/usr/local/cuda"; '"$vllm"
image hostile-fifo 580.95.05 13000 "$pkg128" "$vllm" 'mkfifo "$R/etc/ld.so.conf.d/zz-fifo.conf"'
image hostile-etc 580.95.05 13000 "$pkg128" "$vllm" 'rm -rf "$R/etc"; ln -s /etc "$R/etc"'

# ---- the CDI spec: one device a row, its hook reading its host ----
hook_entry() { # hook_entry HOST [PATH ARGS...]: one createContainer hook, JSON
	python3 - "$B/cudaload" "$W/hosts/$1" <<'EOF'
import json, sys
cl, root = sys.argv[1], sys.argv[2]
print(json.dumps({"hookName": "createContainer", "path": cl, "args": ["cudaload", "--oci-hook"],
                  "env": ["CUDALOAD_ROOT=" + root, "PATH=/usr/sbin:/usr/bin:/sbin:/bin"]}))
EOF
}
devices=
device() { # device NAME HOOK-JSON [DEVICE-NODES-JSON]
	devices="$devices${devices:+,}{\"name\":\"$1\",\"containerEdits\":{\"hooks\":[$2]${3:+,\"deviceNodes\":$3}}}"
}
for h in h100-580 h100-535 geforce-535 v100-535 orin-jp5; do device "$h" "$(hook_entry $h)"; done
device v100-h100-535 "$(hook_entry v100-h100-535)"
device only-h100 "$(hook_entry v100-h100-535)" '[{"path":"/dev/nvidia1","type":"c","major":195,"minor":1}]'
device broken "{\"hookName\":\"createContainer\",\"path\":\"/bin/sh\",\"args\":[\"sh\",\"-c\",\"echo '{\\\"bundle\\\":' | $B/cudaload --oci-hook\"],\"env\":[\"PATH=/usr/bin:/bin\"]}"
mkdir -p /run/cdi
printf '{"cdiVersion":"0.5.0","kind":"%s","devices":[%s]}\n' "$KIND" "$devices" >"$SPEC"
cp "$SPEC" "$W/cdi-spec.json"

# run ROW IMAGE [DEVICE]: the program's line and the hook's account, with
# the hook of DEVICE (a row's of $KIND, or KIND=NAME; none: without it)
run() {
	case ${3:-} in *=*) d=$3 ;; ?*) d=$KIND=$3 ;; *) d= ;; esac
	# shellcheck disable=SC2086
	$RUN ${d:+--device "$d"} "localhost/$tag-$2" /bin/sh -c \
		'/usr/bin/cudaprobe | grep "^libcuda="; cat /run/cudaload/oci-hook 2>/dev/null; exit 0' 2>&1
}
# row NAME IMAGE DEVICE WANT [WITHOUT]: the program loads WANT ("system"
# or a compat directory) with the hook; WITHOUT: what it loads without
sysver() { case $1 in *-580) echo 13000 ;; orin*) echo 11040 ;; *) echo 12020 ;; esac; }
row() {
	n=$1 img=$2 dev=$3 want=$4
	out=$(run "$n" "$img" "$dev")
	if [ "$want" = system ]; then
		v=$(sysver "$img")
		contains "$n: the system driver" "$out" "version=$v"
		contains "$n: libcuda from /usr/lib/$triplet" "$out" "libcuda=/usr/lib/$triplet/libcuda.so.1 "
	else
		contains "$n: the compat driver of $want" "$out" "libcuda=$want/libcuda.so.1 "
	fi
	contains "$n: the account in the container says the decision" "$out" "decision:     "
	[ -z "${5:-}" ] || contains "$n: without the hook, $5" "$(run "$n" "$img")" "libcuda=$5/libcuda.so.1 "
	last=$out
}

if [ "$cost" = cost ]; then
	n=${3:-20} i=0
	: >"$W/with" && : >"$W/without"
	ms() { s=$(date +%s%N); "$@" >/dev/null 2>&1; echo $((($(date +%s%N) - s) / 1000000)); }
	while [ $i -lt "$n" ]; do
		ms $RUN --device "$KIND=h100-580" "localhost/$tag-vllm-580" /usr/bin/cudaprobe >>"$W/with"
		ms $RUN "localhost/$tag-vllm-580" /usr/bin/cudaprobe >>"$W/without"
		i=$((i + 1))
	done
	median() { sort -n "$1" | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
	echo "podman run, $n each, median: with the hook $(median "$W/with") ms, without $(median "$W/without") ms"
	exit 0
fi
row "H100 on 580, vLLM's ld.so.conf.d" vllm-580 h100-580 system /usr/local/cuda/compat
contains "H100 on 580: why" "$last" "not the host's 580"
contains "H100 on 580: hidden" "$last" "hidden: /usr/local/cuda-12.8/compat"
row "H100 on 580, jetson-containers' LD_LIBRARY_PATH" jc-580 h100-580 system /usr/local/cuda/compat
row "H100 on 535, the package's note lists 535" plain-535 h100-535 /usr/local/cuda-12.8/compat
contains "H100 on 535: put first" "$last" "first: /usr/local/cuda-12.8/compat"
row "H100 on 535, vLLM's ld.so.conf.d" vllm-535 h100-535 /usr/local/cuda-12.8/compat
row "GeForce on 535" vllm-535 geforce-535 system /usr/local/cuda/compat
contains "GeForce: why" "$last" "does not support forward compatibility"
row "V100 with a 13.1 package" vllm131-535 v100-535 system /usr/local/cuda/compat
row "V100 + H100, the container gets all" vllm131-535 v100-h100-535 system
row "V100 + H100, the container gets the H100 only" vllm131-535 only-h100 /usr/local/cuda-13.1/compat
contains "V100 + H100, the H100 only: GPUs said" "$last" "GPUs: those config.json names"
row "Orin on JetPack 5, compat_orin" orin-13.2 orin-jp5 system /usr/local/cuda-13.2/compat_orin

# ---- what is shipped: the CDI spec, podman's hooks.d entry ----
shipped() { # shipped FILE: etc/FILE naming this cudaload, reading the H100-on-580 host
	sed "s|@BINDIR@|$B|" "$top/etc/$1" | python3 -c '
import json, sys
c, kind, root = json.load(sys.stdin), sys.argv[1], sys.argv[2]
for h in [c["hook"]] if "hook" in c else [h for d in c["devices"] for h in d["containerEdits"]["hooks"]]:
    h["env"].append("CUDALOAD_ROOT=" + root)
if "kind" in c:
    c["kind"] = kind
print(json.dumps(c))' "$KIND-shipped" "$W/hosts/h100-580"
}
SPEC2=${SPEC%.json}-shipped.json
shipped cudaload-cdi.json >"$SPEC2"
out=$(run "shipped CDI spec" vllm-580 "$KIND-shipped=compat")
rm -f "$SPEC2"
contains "the shipped CDI spec (cudaload.dev/compat=compat): the system driver" "$out" "libcuda=/usr/lib/$triplet/libcuda.so.1 version=13000"
mkdir -p "$W/hooks.d"
shipped cudaload-oci-hook.json >"$W/hooks.d/cudaload.json"
hooked() { # hooked [ANNOTATION]: vllm-580 under the shipped hooks.d entry
	podman --hooks-dir "$W/hooks.d" run --rm --pull never --runtime runc --ulimit nofile=1024:1024 \
		--ulimit nproc=4096:4096 ${1:+--annotation "$1"} "localhost/$tag-vllm-580" /bin/sh -c \
		'/usr/bin/cudaprobe | grep "^libcuda="' 2>&1
}
contains "the shipped hooks.d entry, asked for (cudaload.dev/compat=true): the system driver" \
	"$(hooked cudaload.dev/compat=true)" "libcuda=/usr/lib/$triplet/libcuda.so.1 version=13000"
contains "the shipped hooks.d entry, not asked for: the container as it is" \
	"$(hooked)" "libcuda=/usr/local/cuda/compat/libcuda.so.1 "

# ---- hostile images, a broken state ----
sum_outside() { find "$W/outside" /etc/ld.so.conf.d -exec stat -c '%n %s %Y %i' {} + | sort; md5sum /etc/ld.so.cache; }
before=$(sum_outside)
host_mounts() { grep -F -e " $W" -e " /etc" /proc/self/mountinfo | sort; }
mounts_before=$(host_mounts)
out=$(run hostile-link hostile-link h100-580)
contains "hostile, compat a link out of the root: the container starts" "$out" "libcuda="
lacks "hostile, compat a link out: the host's package is not loaded" "$out" "$outside"
out=$(run hostile-fifo hostile-fifo h100-580)
contains "hostile, a FIFO in ld.so.conf.d: the container starts" "$out" "libcuda="
contains "hostile, a FIFO: unchanged, as without the hook" "$out" "libcuda=/usr/local/cuda/compat/libcuda.so.1 "
lacks "hostile, a FIFO: the hook judged nothing" "$out" "decision:"
out=$(run broken vllm-580 broken)
contains "a broken state: the container starts unchanged" "$out" "libcuda=/usr/local/cuda/compat/libcuda.so.1 "
lacks "a broken state: the hook judged nothing" "$out" "decision:"
# what it says, which podman does not show: the hook run by hand
for state in '{"bundle":' '' '{"bundle":"/nonexistent"}' "{\"bundle\":\"$W\"}" '[1,2]'; do
	err=$(printf '%s' "$state" | "$B/cudaload" --oci-hook 2>&1 >/dev/null)
	rc=$?
	status "a broken state '$state': exit 0" 0 $rc "$err"
	contains "a broken state '$state': says why" "$err" "the container starts unchanged"
done

# ---- runc on a bundle of its own: a relative root.path ----
# runc_bundle NAME IMAGE: IMAGE's root run by runc under the hook, reading
# the H100-on-580 host; the program's line and the account
runc_bundle() {
	bundle=$W/bundle-$1
	mkdir -p "$bundle/rootfs"
	cp -a "$W/images/$2/." "$bundle/rootfs/"
	(cd "$bundle" && runc spec) && python3 - "$bundle/config.json" "$(hook_entry h100-580)" <<'EOF'
import json, sys
p, hook = sys.argv[1], json.loads(sys.argv[2])
c = json.load(open(p))
c["root"] = {"path": "rootfs", "readonly": False}
c["process"]["terminal"] = False
c["process"]["args"] = ["/bin/sh", "-c", "/usr/bin/cudaprobe | grep ^libcuda=; cat /run/cudaload/oci-hook"]
del hook["hookName"]
c["hooks"] = {"createContainer": [hook]}
json.dump(c, open(p, "w"))
EOF
	(cd "$bundle" && runc run "$tag-runc-$1" </dev/null 2>&1)
}
out=$(runc_bundle vllm vllm-580)
contains "runc bundle, H100 on 580: the system driver" "$out" "libcuda=/usr/lib/$triplet/libcuda.so.1 version=13000"
contains "runc bundle: hidden" "$out" "hidden: /usr/local/cuda-12.8/compat"
status "runc bundle: the image's files unchanged" \
	"$(cat "$W/images/vllm-580/etc/ld.so.conf.d/cuda-compat.conf")" \
	"$(cat "$W/bundle-vllm/rootfs/etc/ld.so.conf.d/cuda-compat.conf")"
[ -e "$W/bundle-vllm/rootfs/usr/local/cuda-12.8/compat/libcuda.so.1" ] && ok "runc bundle: the package is still in the image" ||
	bad "runc bundle: the package is gone from the image"
# etc a link to the host's (podman refuses such a root itself: runc alone)
out=$(runc_bundle etc hostile-etc)
contains "hostile, etc a link to the host's: the container starts" "$out" "libcuda=/usr/lib/$triplet/libcuda.so.1 "

# ---- what the hook may reach: volumes, propagation, includes, privilege ----
# runc_row NAME IMAGE HOST EDIT [SETUP]: IMAGE's root as a bundle of its
# own under runc, the hook reading HOST, its stderr kept (hook-NAME.err);
# EDIT: Python that changes config.json's dict c (mounts, propagation);
# SETUP: shell run with $rootfs set before.  The program's line, the
# container's own mounts over /usr and /opt, and the account; $W/secs: how
# long the container took.
runc_row() {
	bundle=$W/row-$1 rootfs=$W/row-$1/rootfs
	rm -rf "$bundle"
	mkdir -p "$rootfs"
	cp -a "$W/images/$2/." "$rootfs/"
	[ -z "${5:-}" ] || eval "$5"
	(cd "$bundle" && runc spec) && python3 - "$bundle/config.json" "$B/cudaload" "$W/hosts/$3" \
		"$W/hook-$1.err" "${4:-}" <<'EOF2'
import json, sys
p, cl, host, err, edit = sys.argv[1:6]
c = json.load(open(p))
c["root"] = {"path": "rootfs", "readonly": False}
c["process"]["terminal"] = False
c["process"]["args"] = ["/bin/sh", "-c", "/usr/bin/cudaprobe | grep ^libcuda=; "
    "grep -E ' /(usr|opt)' /proc/self/mountinfo | grep -c tmpfs | sed 's/^/tmpfs-over-usr-opt=/'; "
    "cat /run/cudaload/oci-hook 2>/dev/null; exit 0"]
c["hooks"] = {"createContainer": [{"path": "/bin/sh", "args": ["sh", "-c", "exec \"$0\" --oci-hook 2>>\"$1\"", cl, err],
    "env": ["CUDALOAD_ROOT=" + host, "CUDALOAD_DEBUG=1", "PATH=/usr/sbin:/usr/bin:/sbin:/bin"]}]}
exec(edit)
json.dump(c, open(p, "w"))
EOF2
	t0=$(date +%s%N)
	(cd "$bundle" && timeout 120 runc run "$tag-row-$1" </dev/null 2>&1)
	echo $((($(date +%s%N) - t0) / 1000000000)) >"$W/secs"	# the caller's $(...) keeps no variable
	runc delete -f "$tag-row-$1" >/dev/null 2>&1
}
bind() { # bind SOURCE DEST [OPTIONS...]: a config.json mount, as Python
	printf 'c["mounts"].append({"destination": "%s", "type": "bind", "source": "%s", "options": ["rbind"%s]})\n' \
		"$2" "$1" "$(shift 2; for o; do printf ', "%s"' "$o"; done)"
}
O=$W/volumes
mkdir -p "$O"

# a volume over the package the hook would hide, its propagation shared
# with the host: the host's directory is never covered
mkdir -p "$O/vol-shared" && cp -a "$W/images/vllm-580/usr/local/cuda-12.8/." "$O/vol-shared/"
mount --bind "$O/vol-shared" "$O/vol-shared" && mount --make-shared "$O/vol-shared"
mounts_before=$(host_mounts)
out=$(runc_row shared-vol vllm-580 h100-580 "$(bind "$O/vol-shared" /usr/local/cuda-12.8 rshared)")
contains "a shared volume over a package: the container starts" "$out" "libcuda="
contains "... the package on the volume is not hidden: the account says why" "$out" \
	"cannot be hidden: not on the image's own mount"
contains "... nothing done, the container as without the hook" "$out" "libcuda=/usr/local/cuda/compat/libcuda.so.1 "
status "... the host's directory keeps its files" "$(ls "$W/images/vllm-580/usr/local/cuda-12.8/compat")" \
	"$(ls "$O/vol-shared/compat")"
status "... no mount on the host's tree" "$mounts_before" "$(host_mounts)"
# the same under podman, the volume given as users give it (-v ...:rshared)
out=$($RUN --device "$KIND=h100-580" -v "$O/vol-shared:/usr/local/cuda-12.8:rshared" "localhost/$tag-vllm-580" \
	/bin/sh -c '/usr/bin/cudaprobe | grep "^libcuda="; cat /run/cudaload/oci-hook 2>/dev/null; exit 0' 2>&1)
contains "podman, -v HOSTDIR:/usr/local/cuda-12.8:rshared: the account says why nothing is hidden" "$out" \
	"cannot be hidden: not on the image's own mount"
status "... the host's directory keeps its files" "$(ls "$W/images/vllm-580/usr/local/cuda-12.8/compat")" \
	"$(ls "$O/vol-shared/compat")"
status "... no mount on the host's tree" "$mounts_before" "$(host_mounts)"
# the image's own mount shared with a peer (a root under a shared mount,
# as / is under systemd, where the engine keeps it so): the hook run by
# hand in this namespace mounts nothing, or the peer would show it (runc
# 1.1 itself makes the root's parent private before createContainer)
M=$W/manual
mkdir -p "$M/rootfs" "$M/peer"
cp -a "$W/images/vllm-580/." "$M/rootfs/"
echo '{"root":{"path":"rootfs"}}' >"$M/config.json"
mount --bind "$M/rootfs" "$M/rootfs" && mount --make-shared "$M/rootfs" && mount --bind "$M/rootfs" "$M/peer"
err=$(printf '{"id":"manual","bundle":"%s"}' "$M" | CUDALOAD_ROOT=$W/hosts/h100-580 "$B/cudaload" --oci-hook 2>&1)
contains "the root's mount shared with a peer: the hook says why it hides nothing" "$err" "the image's mount is shared"
status "... the peer still shows the package" "$(ls "$W/images/vllm-580/usr/local/cuda-12.8/compat")" \
	"$(ls "$M/peer/usr/local/cuda-12.8/compat")"
lacks "... no tmpfs on the host" "$(grep -F " $M/" /proc/self/mountinfo)" " - tmpfs "
umount -R -l "$M/peer"
umount -R -l "$M/rootfs"

# /etc/ld.so.conf.d a link into a host directory mounted in: no file of
# the hook's goes there
mkdir -p "$O/hostconf"
out=$(runc_row conf-link plain-535 h100-535 "$(bind "$O/hostconf" /hostconf)" \
	'cp -a "$rootfs/etc/ld.so.conf.d/." "$O/hostconf/"; rm -rf "$rootfs/etc/ld.so.conf.d"; ln -s /hostconf "$rootfs/etc/ld.so.conf.d"; mkdir "$rootfs/hostconf"')
lacks "ld.so.conf.d a link into a host volume: no file written there" "$(ls -A "$O/hostconf")" "0-cudaload.conf"
contains "... the account says why" "$out" "/etc/ld.so.conf.d/0-cudaload.conf: not on the image's own mount"
# /etc a host volume: the host's ldconfig never writes its cache
mkdir -p "$O/etc-vol" && cp -a "$W/images/plain-535/etc/." "$O/etc-vol/"
cache_before=$(md5sum <"$O/etc-vol/ld.so.cache")
out=$(runc_row etc-vol plain-535 h100-535 "$(bind "$O/etc-vol" /etc)")
status "/etc a host volume: its ld.so.cache unchanged" "$cache_before" "$(md5sum <"$O/etc-vol/ld.so.cache")"
lacks "... and no file of the hook's in it" "$(ls -A "$O/etc-vol/ld.so.conf.d")" "0-cudaload.conf"
contains "... the account says why" "$out" "not on the image's own mount"
# /run a link into a user's volume: nothing made there
mkdir -p "$O/uservol"
out=$(runc_row run-link vllm-580 h100-580 "$(bind "$O/uservol" /uservol)" \
	'rm -rf "$rootfs/run"; ln -s /uservol "$rootfs/run"; mkdir "$rootfs/uservol"')
status "/run a link into a user's volume: nothing made there" "" "$(ls -A "$O/uservol")"
contains "... the hook says why" "$(cat "$W/hook-run-link.err")" "the account is not left in the container: /run: not on the image's own mount"
# /run a tmpfs the runtime made for this container: the account is there
out=$(runc_row run-tmpfs vllm-580 h100-580 \
	'c["mounts"].append({"destination": "/run", "type": "tmpfs", "source": "tmpfs", "options": ["nosuid", "nodev"]})')
contains "/run a tmpfs of the runtime's: the account is there" "$out" "decision:     system"
contains "... and the package hidden" "$out" "hidden: /usr/local/cuda-12.8/compat"
# /run a volume: nothing written
mkdir -p "$O/runvol"
out=$(runc_row run-vol vllm-580 h100-580 "$(bind "$O/runvol" /run)")
status "/run a volume: nothing written there" "" "$(ls -A "$O/runvol")"
contains "... the hook says why" "$(cat "$W/hook-run-vol.err")" "/run: not on the image's own mount nor a /run"

# ldconfig's inputs: a FIFO through an include, an include loop, a sparse
# 1 GiB file without a newline: judged nothing, at once, and said why.
# unsound NAME SETUP WHY: the row, under the vLLM-style image on the H100
# 580 host
unsound() {
	out=$(runc_row "$1" vllm-580 h100-580 "" "$2")
	contains "$1: the container starts, as without the hook" "$out" "libcuda=/usr/local/cuda/compat/libcuda.so.1 "
	secs=$(cat "$W/secs")
	[ "$secs" -lt 10 ] && ok "$1: within seconds ($secs s)" || bad "$1: it took $secs s"
	contains "$1: the hook says why" "$(cat "$W/hook-$1.err")" "$3"
}
unsound fifo-include 'echo "include /etc/extra/*.conf" >>"$rootfs/etc/ld.so.conf"; mkdir -p "$rootfs/etc/extra"; mkfifo "$rootfs/etc/extra/zz.conf"' \
	"/etc/extra/zz.conf is not a regular file"
unsound include-loop 'echo "include /etc/ld.so.conf.d/b.conf" >"$rootfs/etc/ld.so.conf.d/a.conf"; echo "include a.conf" >"$rootfs/etc/ld.so.conf.d/b.conf"' \
	"includes itself"
unsound sparse-1g 'truncate -s 1G "$rootfs/etc/ld.so.conf.d/zz-big.conf"' "zz-big.conf is larger than 1024 KiB"

# the children: no capability but CAP_DAC_READ_SEARCH (bit 2), no_new_privs
out=$(runc_row privilege vllm-580 h100-580 "")
err=$(cat "$W/hook-privilege.err")
for line in 'CapEff:\x090000000000000004' 'CapPrm:\x090000000000000004' 'CapBnd:\x090000000000000004' \
	'CapInh:\x090000000000000000' 'NoNewPrivs:\x091'; do
	contains "the judgement's child, /proc/self/status: $line" "$err" "image: $line"
done
contains "... and the hook's work done" "$out" "hidden: /usr/local/cuda-12.8/compat"

# the image's config names where the host's driver is mounted in: never hidden
mkdir -p "$O/nvidia-lib64" && cp -a "$W/images/vllm-580/usr/lib/$triplet/libcuda.so."* "$O/nvidia-lib64/"
out=$(runc_row driver-dir vllm-580 h100-580 "$(bind "$O/nvidia-lib64" /usr/local/nvidia/lib64)" \
	'mkdir -p "$rootfs/usr/local/nvidia/lib64"; echo "compat = /usr/local/nvidia/lib64" >"$rootfs/etc/cudaload.conf"')
lacks "the host's driver named as a compat place: not hidden" "$out" "hidden: /usr/local/nvidia/lib64"
contains "... a libcuda is still loaded" "$out" "libcuda=/usr/"
status "... nothing mounted over /usr or /opt" "tmpfs-over-usr-opt=0" "$(printf '%s\n' "$out" | grep '^tmpfs-over')"

# a package inside another, and a failed ldconfig (a directory where it
# writes its new cache): everything undone, the inner mount too
out=$(runc_row nested vllm-580 h100-580 "" \
	'mkdir -p "$rootfs/opt/outer/inner"; cp -a "$rootfs/usr/local/cuda-12.8/compat/." "$rootfs/opt/outer/"; cp -a "$rootfs/usr/local/cuda-12.8/compat/." "$rootfs/opt/outer/inner/"; printf "/opt/outer\n/opt/outer/inner\n" >"$rootfs/etc/ld.so.conf.d/nested.conf"; ldconfig -r "$rootfs"; mkdir "$rootfs/etc/ld.so.cache~"')
contains "nested packages, ldconfig failing: the hook undid its work" "$out" "nothing done"
status "... no tmpfs left over /usr or /opt, the inner one included" "tmpfs-over-usr-opt=0" \
	"$(printf '%s\n' "$out" | grep '^tmpfs-over')"
# the image's own 0-cudaload.conf: left as it is, its libraries in the cache
out=$(runc_row own-conf plain-535 h100-535 "" \
	'mkdir -p "$rootfs/opt/mylibs"; cp "$rootfs/usr/lib/'"$triplet"'/libcuda.so.535.261.03" "$rootfs/opt/mylibs/libmine.so.1"; echo /opt/mylibs >"$rootfs/etc/ld.so.conf.d/0-cudaload.conf"; ldconfig -r "$rootfs"')
status "the image's own 0-cudaload.conf: left as it is" "/opt/mylibs" "$(cat "$W/row-own-conf/rootfs/etc/ld.so.conf.d/0-cudaload.conf")"
contains "... the account says why" "$out" "is the image's own"
# an entry of the cache that "ldconfig DIR" made, no ld.so.conf line names
out=$(runc_row cache-only plain-535 h100-535 "" \
	'mkdir -p "$rootfs/usr/local/nvidia/lib64"; echo "int nvmlInit(void) { return 0; }" >"$W/nvml.c"; $TCC -shared -fPIC -Wl,-soname,libnvidia-ml.so.1 -o "$rootfs/usr/local/nvidia/lib64/libnvidia-ml.so.1" "$W/nvml.c"; ldconfig -r "$rootfs" /usr/local/nvidia/lib64; strings "$rootfs/etc/ld.so.cache" >"$W/cache-only.before"')
contains "a cache-only entry: in the image's cache before" "$(cat "$W/cache-only.before")" \
	"/usr/local/nvidia/lib64/libnvidia-ml.so.1"
contains "a cache-only entry: the package put first" "$out" "first: /usr/local/cuda-12.8/compat"
contains "... libnvidia-ml.so.1 still in the cache" "$(strings "$W/row-cache-only/rootfs/etc/ld.so.cache")" \
	"/usr/local/nvidia/lib64/libnvidia-ml.so.1"

status "hostile: nothing outside the roots changed" "$before" "$(sum_outside)"
status "hostile: no mount on the host's tree" "$mounts_before" "$(host_mounts)"
umount -R -l "$O/vol-shared"

finish
