# SPDX-License-Identifier: MIT
# Adds cudaload and cudaloadHook, and puts the hook where nixpkgs' CUDA
# package sets use autoAddCudaCompatRunpath.  That hook writes cuda_compat's
# directory into RUNPATH at build time; glibc's dlopen searches the RUNPATH
# of its caller (libcudart) before anything else, so a compat entry left
# there would still win over cudaload's "system driver" decision.
final: prev:

let
  lib = prev.lib;  # final.lib would make the names below depend on the fixpoint
  swap = cfinal: cprev: {
    autoAddCudaCompatRunpath = final.cudaloadHook;
  };
  # Names from prev's names only: looking at the values to choose them would
  # make this overlay's names depend on the fixpoint (infinite recursion).
  cudaSets = builtins.filter (lib.hasPrefix "cudaPackages") (builtins.attrNames prev);
  swapIn = set: if builtins.isAttrs set && set ? overrideScope then set.overrideScope swap else set;
in
{
  cudaload = final.callPackage ./package.nix { };
  cudaloadHook = final.callPackage ./hook.nix { };
}
// lib.genAttrs cudaSets (name: swapIn prev.${name})
