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
}
trap cleanup EXIT INT TERM

$TCC -O1 -o "$L/cudaprobe" "$here/../helpers/cudaprobe.c" -ldl && cc -O1 -o "$L/mknote" "$here/../helpers/mknote.c" ||
	{ bad "build the test program"; finish; exit; }
# fakelib CUDA OUT: a libcuda.so.1 that says CUDA (version.h encoding)
fakelib() { $TCC -shared -fPIC -O1 -Wl,-soname,libcuda.so.1 -DFAKE_CUDA_VERSION="$1" -o "$2" "$here/../helpers/fakecuda.c"; }

# ---- the hosts: fixture trees, each GPU's Device Minor its line's index ----
host() { # host NAME PROFILE-TEXT
	printf '%s\n' "$2" >"$W/hosts/$1.profile"
	CC=$TCC OBJCOPY=$OBJCOPY sh "$here/../lib/mkroot.sh" "$W/hosts/$1.profile" "$W/hosts/$1" "$L" >/dev/null ||
		{ bad "host $1"; return 1; }
	i=0
	for f in $(cd "$W/hosts/$1" && ls -d proc/driver/nvidia/gpus/*/information 2>/dev/null); do
		sed -i "s/^Device Minor:.*/Device Minor: 	 $i/" "$W/hosts/$1/$f"
		i=$((i + 1))
	done
}
note() { # note CUDA DRIVERS: a compat note of NVIDIA's shape, quoted for a profile
	printf '{\\"format\\":1,\\"CUDA version\\":\\"%s\\",\\"driver\\":[%s],\\"device\\":[1,2,7,8,9,10,11,12,13,14]}' "$1" "$2"
}
h100='gpus="0000:17:00.0 PCIe NVIDIA H100 80GB HBM3"
pci="0000:17:00.0 0x2330"'
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
# image NAME DRIVER SYSTEM_CUDA PROFILE-TEXT [SETUP [AFTER]]: a root from a
# profile (its compat lines), the system driver libcuda.so.DRIVER (saying
# SYSTEM_CUDA) in /usr/lib/<triplet>, then SETUP run with R set, ldconfig
# for it, AFTER; imported as localhost/$tag-NAME (ENV from $image_env)
image_env=
image() {
	R=$W/images/$1
	printf '%s\n' "$4" >"$W/images/$1.profile"
	CC=$TCC OBJCOPY=$OBJCOPY sh "$here/../lib/mkroot.sh" "$W/images/$1.profile" "$R" "$L" >/dev/null ||
		{ bad "image $1"; return 1; }
	rm -rf "$R/run"
	chroot_libc "$R"
	mkdir -p "$R/bin" "$R/run" "$R/proc" "$R/sys" "$R/dev" "$R/etc"
	cp "$L/cudaprobe" "$R/usr/bin/cudaprobe"
	cp "$(command -v busybox)" "$R/bin/busybox"
	for c in sh cat ls; do ln -s busybox "$R/bin/$c"; done
	s=/usr/lib/$triplet
	fakelib "$3" "$R$s/libcuda.so.$2" && ln -s "libcuda.so.$2" "$R$s/libcuda.so.1"
	[ -z "${5:-}" ] || eval "$5"
	ldconfig -r "$R" 2>/dev/null
	[ -z "${6:-}" ] || eval "$6"
	(cd "$R" && tar -c .) | podman import ${image_env:+--change "ENV $image_env"} - "$tag-$1" >/dev/null 2>"$W/import.log" ||
		{ bad "import image $1"; return 1; }
	image_env=
}
pkg128="compat=\"/usr/local/cuda-12.8/compat 12080 570.124.06 $(note 12.8 535,550,560,565,570)\"
links=\"/usr/local/cuda cuda-12.8\""
pkg131="compat=\"/usr/local/cuda-13.1/compat 13010 590.44.01 $(note 13.1 535,570,580,590)\"
links=\"/usr/local/cuda cuda-13.1\""
vllm='echo /usr/local/cuda/compat >"$R/etc/ld.so.conf.d/cuda-compat.conf"'
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
status "hostile: nothing outside the roots changed" "$before" "$(sum_outside)"
status "hostile: no mount on the host's tree" "$mounts_before" "$(host_mounts)"

finish
