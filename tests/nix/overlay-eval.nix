# SPDX-License-Identifier: MIT
# nix/overlay.nix, nix/package.nix and nix/hook.nix evaluated with nixpkgs'
# lib over a small stand-in package set (tests/nix/run.sh): what the overlay
# adds, that it swaps autoAddCudaCompatRunpath for cudaloadHook in every CUDA
# package set, the make flags for a cross (aarch64) stdenv, and which
# cudaload a cross build's hook patches in.
{ libPath }:

let
  lib = import libPath;
  fake = name: { type = "derivation"; inherit name; outPath = "/nix/store/00000000000000000000000000000000-${name}"; };
  base = final: {
    inherit lib;
    callPackage = lib.callPackageWith final;
    newScope = extra: lib.callPackageWith (final // extra);
    stdenv = {
      mkDerivation = a: a // fake "${a.pname}-${a.version}";
      cc.targetPrefix = "aarch64-unknown-linux-gnu-";
      hostPlatform.parsed.cpu.name = "aarch64";
    };
    musl = fake "musl" // { dev = fake "musl-dev"; };
    elfutils = fake "elfutils";
    binutils-unwrapped = fake "binutils";
    makeSetupHook = args: script: fake args.name // { inherit (args) substitutions; inherit script; };
    cudaPackages = lib.makeScope final.newScope (self: {
      autoAddCudaCompatRunpath = fake "auto-add-cuda-compat-runpath-hook";
      cuda_cudart = { hooks = [ self.autoAddCudaCompatRunpath ]; };
    });
    cudaPackages_12_6 = final.cudaPackages;
    cudaPackagesNotAScope = "left alone";
  };
  pkgs = lib.fix (lib.extends (import ../../nix/overlay.nix) base);
  crossHook = pkgs.callPackage ../../nix/hook.nix { targetPackages.cudaload = fake "cudaload-aarch64-0.1.0"; };
in
{
  cudaload = pkgs.cudaload.name;
  makeFlags = pkgs.cudaload.makeFlags;
  buildFlags = pkgs.cudaload.buildFlags;
  hook = pkgs.cudaloadHook.name;
  interp = pkgs.cudaloadHook.substitutions.cudaloadInterp;
  crossInterp = crossHook.substitutions.cudaloadInterp;
  crossPatch = crossHook.substitutions.cudaloadPatch;
  swapped = map (h: h.name) pkgs.cudaPackages.cuda_cudart.hooks;
  swapped_12_6 = map (h: h.name) pkgs.cudaPackages_12_6.cuda_cudart.hooks;
  untouched = pkgs.cudaPackagesNotAScope;
}
