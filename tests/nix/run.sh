#!/bin/sh
# SPDX-License-Identifier: MIT
# The Nix files (nix/), tested with Debian's Nix 2.8, offline: every .nix file
# parses; the config text the NixOS module writes; the module under nixpkgs'
# lib.evalModules; the overlay, package and hook evaluated over a stand-in
# package set; real nix-builds of plain derivations (tests/nix/default.nix)
# in a store under BUILD: cudaload built from this tree, the setup hook run
# through a stand-in for stdenv's hook protocol, a patched program run from
# the store against a compat package laid out as nixpkgs' cuda_compat; and
# the hook through shellcheck.  What needs nixpkgs itself is reported as
# skipped.
# Usage: run.sh BUILD
# NIXPKGS_LIB: nixpkgs' lib/ for the evaluation tests (test data, never part
# of the project); by default ../shared/testdata/nixpkgs-lib/lib beside the
# checkout.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
mkdir -p "${1:-$top/build}"
B=$(cd "${1:-$top/build}" && pwd)
# shellcheck source=tests/e2e/lib/lib.sh
. "$top/tests/e2e/lib/lib.sh"
echo "== Nix (nix/)"

skip "package.nix and overlay.nix under real nixpkgs" "nixpkgs cannot be fetched or evaluated here (no network; it needs Nix >= 2.18, Debian has 2.8); see docs/nix.md"
skip "pkgsStatic and cross builds (x86_64 building for Jetson)" "they need nixpkgs' stdenv and bootstrap tools; the cross choice of interpreter is checked by evaluation below"
skip "NixOS VM test of programs.cudaload" "needs nixpkgs and KVM"

if ! command -v nix-instantiate >/dev/null 2>&1; then
	skip "Nix tests" "nix-instantiate not installed (scripts/deps.sh installs nix-bin)"
	finish
	exit
fi

# Nix 2.8 as Debian configures it wants a nixbld group; builds here run as
# root in the sandbox without one, and never fetch anything.
nixopts="--option build-users-group '' --option substituters ''"
nixeval() { eval "nix-instantiate $nixopts --eval --strict --json \"\$@\"" 2>"$W/eval.err"; }

W=$B/nix-test
rm -rf "$W"
mkdir -p "$W"

# ---- every .nix file parses ----------------------------------------------------
for f in "$top"/flake.nix "$top"/nix/*.nix "$here"/*.nix; do
	if out=$(nix-instantiate --parse "$f" 2>&1 >/dev/null); then ok "parses: ${f#"$top"/}"; else
		bad "parses: ${f#"$top"/}" "$out"; fi
done

# ---- the config text -------------------------------------------------------------
nl='
'
want="# Written by the NixOS module programs.cudaload.${nl}policy = auto${nl}mode = chain${nl}driver_dir = /run/opengl-driver/lib${nl}"
got=$(nixeval -E "import $top/nix/config-text.nix { }" | python3 -c 'import json,sys; print(json.load(sys.stdin), end="")')
status "config text: defaults" "$want" "$got$nl" "$(cat "$W/eval.err")"
want="# Written by the NixOS module programs.cudaload.${nl}policy = system${nl}mode = exec${nl}compat = /nix/store/0c8vb4q6s9k2-cuda_compat-12.2.34086978/compat cuda=12.2${nl}compat = /nix/store/1d9wc5r7t0l3-cuda_compat-custom/compat${nl}compat = /usr/local/cuda-*/compat${nl}driver_dir = /run/opengl-driver/lib${nl}driver_dir = /opt/l4t${nl}"
got=$(nixeval -E "import $top/nix/config-text.nix {
	policy = \"system\"; mode = \"exec\";
	compatPackages = [
		{ outPath = \"/nix/store/0c8vb4q6s9k2-cuda_compat-12.2.34086978\"; version = \"12.2.34086978\"; }
		{ outPath = \"/nix/store/1d9wc5r7t0l3-cuda_compat-custom\"; }
	];
	extraCompatDirs = [ \"/usr/local/cuda-*/compat\" ];
	driverDirs = [ \"/run/opengl-driver/lib\" \"/opt/l4t\" ];
}" | python3 -c 'import json,sys; print(json.load(sys.stdin), end="")')
status "config text: packages with and without a version, dirs" "$want" "$got$nl" "$(cat "$W/eval.err")"

# ---- the module and the overlay, with nixpkgs' lib ----------------------------------
lib=${NIXPKGS_LIB:-$top/../shared/testdata/nixpkgs-lib/lib}
if [ ! -f "$lib/default.nix" ]; then
	skip "programs.cudaload under lib.evalModules" "no nixpkgs lib at $lib (set NIXPKGS_LIB)"
	skip "overlay, package and hook evaluated" "no nixpkgs lib at $lib (set NIXPKGS_LIB)"
	skip "flake.nix's outputs evaluated" "no nixpkgs lib at $lib (set NIXPKGS_LIB)"
else
	lib=$(cd "$lib" && pwd)
	if out=$(nixeval "$here/module-eval.nix" --arg libPath "$lib"); then
		printf '%s' "$out" >"$W/module.json"
		want='{"badPolicyRejected":true,"defaultText":"# Written by the NixOS module programs.cudaload.\npolicy = auto\nmode = chain\ndriver_dir = /run/opengl-driver/lib\n","offEtc":[],"packages":["cudaload-0.1.0"],"text":"# Written by the NixOS module programs.cudaload.\npolicy = compat\nmode = chain\ncompat = /nix/store/00000000000000000000000000000000-cuda_compat-12.2.34086978/compat cuda=12.2\ncompat = /opt/compat cuda=12.4\ndriver_dir = /run/opengl-driver/lib\n"}'
		status "programs.cudaload: /etc/cudaload.conf, the package, nothing when off, a bad policy refused" "$want" "$out"
	else
		bad "programs.cudaload evaluates" "$(cat "$W/eval.err")"
	fi
	if out=$(nixeval "$here/overlay-eval.nix" --arg libPath "$lib"); then
		want='{"buildFlags":["build/cudaload","build/cudaload-patch","build/cudaload-verify","build/cudaload-runtime"],"crossInterp":"/nix/store/00000000000000000000000000000000-cudaload-aarch64-0.1.0/bin/cudaload","crossPatch":"/nix/store/00000000000000000000000000000000-cudaload-0.1.0/bin/cudaload-patch","cudaload":"cudaload-0.1.0","hook":"cudaload-hook","interp":"/nix/store/00000000000000000000000000000000-cudaload-0.1.0/bin/cudaload","makeFlags":["CC=aarch64-unknown-linux-gnu-cc","ARCH=aarch64","MUSL_INC=/nix/store/00000000000000000000000000000000-musl-dev/include","MUSL_LIB=/nix/store/00000000000000000000000000000000-musl/lib"],"swapped":["cudaload-hook"],"swapped_12_6":["cudaload-hook"],"untouched":"left alone"}'
		status "overlay: adds cudaload and its hook, swaps autoAddCudaCompatRunpath in every CUDA set; cross: the target's cudaload" "$want" "$out"
	else
		bad "overlay evaluates" "$(cat "$W/eval.err")"
	fi
	# the flake as Nix calls it, (import ./flake.nix).outputs { self; nixpkgs; },
	# with a stand-in nixpkgs input (tests/nix/flake-eval.nix)
	if out=$(nixeval "$here/flake-eval.nix" --arg libPath "$lib"); then
		want='{"aarch64MakeFlags":["ARCH=aarch64"],"checks":{"aarch64-linux":["hook","install"],"x86_64-linux":["hook","install"]},"cudaloadAdds":"cudaload-0.1.0","cudaloadKeepsEnableHook":["auto-add-cuda-compat-runpath-hook enableHook=false"],"cudaloadSwapsNothing":["auto-add-cuda-compat-runpath-hook"],"defaultKeepsEnableHook":["cudaload-hook enableHook=false"],"defaultKeepsNull":[null],"defaultSwaps":["cudaload-hook"],"description":true,"hookInterp":"/nix/store/00000000000000000000000000000000-cudaload-0.1.0/bin/cudaload","moduleBuilds":["/nix/store/00000000000000000000000000000000-cudaload-0.1.0"],"moduleConfig":"# Written by the NixOS module programs.cudaload.\npolicy = auto\nmode = chain\ndriver_dir = /run/opengl-driver/lib\n","moduleTakesOverlays":["/nix/store/00000000000000000000000000000000-cudaload-from-an-overlay"],"nixpkgsInput":"github:NixOS/nixpkgs/nixos-unstable","oneSetSwapped":["cudaload-hook"],"packages":{"aarch64-linux":{"cudaload":"cudaload-0.1.0","cudaloadHook":"cudaload-hook","default":"cudaload-0.1.0"},"x86_64-linux":{"cudaload":"cudaload-0.1.0","cudaloadHook":"cudaload-hook","default":"cudaload-0.1.0"}}}'
		status "flake: packages, hook and checks for both systems; overlays.default swaps the hook (keeping enableHook, leaving a null one), overlays.cudaload swaps nothing but the set withCudaloadHook is given; nixosModules with and without pkgs.cudaload" "$want" "$out"
	else
		bad "flake.nix's outputs evaluate" "$(cat "$W/eval.err")"
	fi
fi
if [ -e "$top/flake.lock" ]; then
	bad "no flake.lock shipped: nixpkgs is the consumer's" "$top/flake.lock"
else
	ok "no flake.lock shipped: nixpkgs is the consumer's"
fi

# ---- shellcheck --------------------------------------------------------------------
if command -v shellcheck >/dev/null 2>&1; then
	if out=$(shellcheck -s bash "$top/nix/cudaload-hook.sh" "$here/stdenv-standin.sh" "$here/rpath-hook.sh" &&
		(cd "$top" && shellcheck -x -s sh nix/install-check.sh tests/nix/run.sh) 2>&1); then
		ok "shellcheck: the hook, the stand-in, the scripts"
	else
		bad "shellcheck" "$out"
	fi
else
	skip "shellcheck" "not installed (scripts/deps.sh installs it)"
fi

# ---- real builds -------------------------------------------------------------------
if [ "$(id -u)" -ne 0 ]; then
	skip "nix-build" "a local store under $B needs root with Nix 2.8"
	finish
	exit
fi
S=$B/nix-store
# The host toolchain, as stdenv would provide one; /etc/alternatives for cc.
buildopts="$nixopts --store '$S' --option sandbox true --option sandbox-paths '/bin /usr /lib /lib64 /etc/alternatives' --no-out-link"
nixbuild() { eval "nix-build $buildopts \"\$@\"" 2>"$W/build.err"; }
# nix-store queries in the same store
nixq() { nix-store --option build-users-group '' --store "$S" "$@" 2>>"$W/build.err"; }
phys() { printf '%s%s' "$S" "$1"; }	# a store path as a file here

if ! check=$(nixbuild "$here/default.nix" --argstr top "$top" -A check); then
	bad "nix-build of the test derivations" "$(tail -30 "$W/build.err")"
	finish
	exit
fi
ok "nix-build: cudaload from this tree (with its install check), the hook, a CUDA program, a cuda_compat package"
cl=$(nixbuild "$here/default.nix" --argstr top "$top" -A cudaload)
app=$(nixbuild "$here/default.nix" --argstr top "$top" -A app)
P=$B/cudaload-patch
[ -x "$P" ] || P=$(phys "$cl")/bin/cudaload-patch
# The derivation ran nix/install-check.sh (it fails the build otherwise); run
# it here too, and on a prefix holding a dynamic program, which it must refuse.
out=$(sh "$top/nix/install-check.sh" "$(phys "$cl")" 2>&1)
contains "install check: the built cudaload has no PT_INTERP, no DT_NEEDED" "$out" "no PT_INTERP, no DT_NEEDED"
mkdir -p "$W/dynamic/bin"
cp /usr/bin/env "$W/dynamic/bin/cudaload"
cp /usr/bin/env "$W/dynamic/bin/cudaload-patch"
cp /usr/bin/env "$W/dynamic/bin/cudaload-runtime"
mkdir -p "$W/dynamic/libexec/cudaload"
cp /usr/bin/env "$W/dynamic/libexec/cudaload/cudaload-verify"
if out=$(sh "$top/nix/install-check.sh" "$W/dynamic" 2>&1); then
	bad "install check refuses a dynamic cudaload" "$out"
else
	contains "install check refuses a dynamic cudaload" "$out" "has a PT_INTERP"
fi

interp_of() { readelf -lW "$1" | sed -n 's/.*Requesting program interpreter: \(.*\)]/\1/p'; }
status "hook: the CUDA program's interpreter is cudaload in the store" "$cl/bin/cudaload" "$(interp_of "$(phys "$app")/bin/cudaprobe")"
got=$(interp_of "$(phys "$app")/bin/plain")
case $got in
"$cl"*) bad "hook: the program without CUDA is left alone" "$got" ;;
*) ok "hook: the program without CUDA is left alone ($got)" ;;
esac
status "hook: a static-cudart program (.nv_fatbin, no CUDA in DT_NEEDED) is patched" "$cl/bin/cudaload" "$(interp_of "$(phys "$app")/bin/static-cudart")"
status "hook: a program that only dlopens libcuda is patched" "$cl/bin/cudaload" "$(interp_of "$(phys "$app")/bin/dlopen-only")"
status "hook: a program named in cudaloadPrograms is patched" "$cl/bin/cudaload" "$(interp_of "$(phys "$app")/bin/named")"
out=$("$P" --check "$(phys "$app")/bin/cudaprobe" 2>&1)
has "hook: ran after strip and after the RUNPATH hook registered after it (restore record intact)" "$out" \
	"$(phys "$app")/bin/cudaprobe: patched, interpreter $cl/bin/cudaload, original $(interp_of /usr/bin/env)"
contains "hook: the RUNPATH hook ran too" "$(readelf -dW "$(phys "$app")/bin/cudaprobe")" "[$app/lib]"
contains "closure: cudaload is a reference of the patched package" "$(nixq -q --references "$app")" "$cl"

# The same hook registered the ordinary way (at source time) runs before the
# RUNPATH hook, whose rewrite then loses the record: the order is the point.
if early=$(nixbuild "$here/default.nix" --argstr top "$top" --arg hookFirst true -A app); then
	out=$("$P" --check "$(phys "$early")/bin/cudaprobe" 2>&1)
	case $out in
	*"without a restore record"* | *"rewritten since"*)
		ok "hook registered at source time instead: the record is lost (what prePhases prevents)" ;;
	*) bad "hook registered at source time instead: the record should be lost" "$out" ;;
	esac
else
	bad "nix-build with the hook registered at source time" "$(tail -20 "$W/build.err")"
fi

# A patched program run from the store, on a JetPack 5 device tree, against
# nixpkgs' cuda_compat layout, with the config the module writes.
compat=$(cat "$(phys "$check")/compat-path")
for n in 1 0; do
	run=$(cat "$(phys "$check")/run-$n.txt")
	has "store program (config $n) loads the store's compat libcuda" "$run" \
		"libcuda=$(printf '%s' "$run" | sed -n 's/^libcuda=\(.*\) version=.*/\1/p' | grep -F "$compat/compat/libcuda.so.1") version=12020"
	contains "store program (config $n): argv[0] and /proc/self/exe are the program's" "$run" "exe=$app/bin/cudaprobe"
	contains "dlopen-only store program (config $n) loads the store's compat libcuda" \
		"$(cat "$(phys "$check")/dlopen-$n.txt")" "$compat/compat/libcuda.so.1 version=12020"
done
contains "config with cuda= from the module: the version is the one stated" "$(cat "$(phys "$check")/explain-1.txt")" "CUDA 12.2 (from stated), usable"
contains "config without it: the version comes from the store name" "$(cat "$(phys "$check")/explain-0.txt")" "CUDA 12.2 (from store name), usable"
has "module's config line" "$(cat "$(phys "$check")/cudaload-1.conf")" "compat = $compat/compat cuda=12.2"
finish
