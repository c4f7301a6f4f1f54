# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# cudaloadHook: make cudaload the program interpreter of the CUDA programs in
# every output, so that the compat-or-system-driver choice is made on the
# device at exec time, not baked into RUNPATH at build time (see
# docs/nix.md).
#
# Knobs (derivation attributes or shell variables):
#   dontCudaload      set: do nothing
#   cudaloadAll       set: every dynamically linked executable, not only the
#                     ones the walk recognises as CUDA programs
#   cudaloadPrograms  space-separated programs the walk cannot recognise;
#                     relative names are taken in $out
#
# cudaload-patch rewrites PT_INTERP and appends a restore record, so it has
# to run after everything else that edits the files (strip, patchelf
# --set-rpath, autoPatchelfHook): its fixup hook is registered from a
# pre-phase, when every setup hook and the derivation's own hooks have
# registered theirs, and so runs last.

cudaloadInterp=@cudaloadInterp@
cudaloadPatch=@cudaloadPatch@

cudaloadRegister() {
	postFixupHooks+=(cudaloadFixup)
}

cudaloadFixup() {
	if [ -n "${dontCudaload-}" ]; then
		echo "cudaloadHook: dontCudaload is set; nothing patched"
		return 0
	fi
	local -a flags=(--interp "$cudaloadInterp")
	if [ -n "${cudaloadAll-}" ]; then
		flags+=(--all)
	fi
	local -a dirs=()
	local output names
	if declare -F getAllOutputNames >/dev/null; then
		names=$(getAllOutputNames) # stdenv, __structuredAttrs or not
	else
		names=${outputs:-out}
	fi
	for output in $names; do
		if [ -e "${!output}" ]; then
			dirs+=("${!output}")
		fi
	done
	if [ "${#dirs[@]}" -gt 0 ]; then
		echo "cudaloadHook: interpreter $cudaloadInterp in ${dirs[*]}"
		"$cudaloadPatch" "${flags[@]}" "${dirs[@]}"
	fi
	local prog
	for prog in ${cudaloadPrograms-}; do
		case $prog in
		/*) ;;
		*) prog=${out:?}/$prog ;;
		esac
		"$cudaloadPatch" --interp "$cudaloadInterp" "$prog"
	done
}

if declare -F appendToVar >/dev/null; then
	appendToVar prePhases cudaloadRegister # stdenv with __structuredAttrs support
else
	prePhases+=" cudaloadRegister"
fi
