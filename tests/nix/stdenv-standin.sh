# SPDX-License-Identifier: MIT
# shellcheck shell=bash disable=SC2034,SC2154
# stdenv-standin.sh: a small stand-in for the part of nixpkgs' stdenv that a
# setup hook meets, so that nix/cudaload-hook.sh runs here the way stdenv
# runs it where nixpkgs cannot be evaluated (tests/nix/run.sh).  Not stdenv:
# only its hook protocol, as stdenv's setup.sh does it:
#   - setup hooks are sourced in order ($setupHooks) before any phase runs;
#   - $prePhases run first, then the build, then the fixup phase;
#   - the fixup phase edits the files (here: strip, as stdenv's strip hook
#     does in fixupOutputHooks), then `runHook postFixup`: the derivation's
#     own postFixup, then every function in postFixupHooks, in order.
# Run as a derivation's builder: bash stdenv-standin.sh (with $buildScript,
# $setupHooks, $out from the derivation).
set -eu

prePhases=
postFixupHooks=()

runHook() {
	local hooksSlice="${1%Hook}Hooks[@]"
	local implicit=${!1-}
	if [ -n "$implicit" ]; then
		eval "$implicit"
	fi
	local hook
	for hook in ${!hooksSlice+"${!hooksSlice}"}; do
		"$hook"
	done
}

for hook in ${setupHooks-}; do
	# shellcheck disable=SC1090
	source "$hook"
done

fixupPhase() {
	local f
	while IFS= read -r f; do
		if head -c 4 "$f" | grep -q 'ELF'; then
			strip --strip-debug "$f"
		fi
	done < <(find "$out" -type f)
	runHook postFixup
}

for phase in $prePhases; do
	echo "stand-in: pre-phase $phase"
	"$phase"
done
eval "$buildScript"
fixupPhase
