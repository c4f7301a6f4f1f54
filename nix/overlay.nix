# SPDX-License-Identifier: MIT
# Adds cudaload and cudaloadHook, and puts the hook where nixpkgs' CUDA
# package sets use autoAddCudaCompatRunpath.  That hook writes cuda_compat's
# directory into RUNPATH at build time; glibc's dlopen searches the RUNPATH
# of its caller (libcudart) before anything else, so a compat entry left
# there would still win over cudaload's "system driver" decision.
final: prev:

let
  lib = prev.lib;  # final.lib would make the names below depend on the fixpoint
  # nixpkgs' CUDA redistributables take the hook where its passthru
  # enableHook says (the set's cuda_compat is available: Jetson builds), and
  # read that attribute unguarded: cudaloadHook carries the same word.  A set
  # without the hook (null, as jetpack-nixos' sets have it) keeps none.
  swap = cfinal: cprev: {
    autoAddCudaCompatRunpath =
      if (cprev.autoAddCudaCompatRunpath or null) == null then null
      else final.cudaloadHook // { enableHook = cprev.autoAddCudaCompatRunpath.enableHook or true; };
  };
  # Names from prev's names only: looking at the values to choose them would
  # make this overlay's names depend on the fixpoint (infinite recursion).
  cudaSets = builtins.filter (lib.hasPrefix "cudaPackages") (builtins.attrNames prev);
  swapIn = set: if builtins.isAttrs set && set ? overrideScope then set.overrideScope swap else set;
in
{
  cudaload = final.callPackage ./package.nix { };
  cudaloadHook = final.callPackage ./hook.nix { };
  # One CUDA package set with the swap, for the packages that need compat
  # alone: pkg.override { cudaPackages = final.withCudaloadHook prev.cudaPackages; }
  # (docs/nix.md: what the overlay costs in rebuilds, and how to limit it).
  withCudaloadHook = swapIn;
}
// lib.genAttrs cudaSets (name: swapIn prev.${name})
