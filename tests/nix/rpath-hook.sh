# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# A setup hook that edits ELF files in postFixup, as nixpkgs' RUNPATH hooks
# do (autoAddDriverRunpath, autoPatchelfHook): sourced after cudaloadHook, so
# it registers after it too.  cudaload-patch must still run last, or this
# rewrite would lose its restore record.
rpathFixup() {
	local f
	for f in "${out:?}"/bin/*; do
		patchelf --set-rpath "$out/lib" "$f"
	done
	echo "rpath hook: RUNPATH $out/lib"
}
postFixupHooks+=(rpathFixup)
