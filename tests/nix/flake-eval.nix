# SPDX-License-Identifier: MIT
# flake.nix evaluated as (import ./flake.nix).outputs { self; nixpkgs; }
# (tests/nix/run.sh), with nixpkgs' lib and, as the nixpkgs input, a small
# stand-in: its lib and each system's package set (legacyPackages, with
# appendOverlays as nixpkgs' top level has it).  What is checked: the
# package and hook for both systems (and an aarch64 build for aarch64), the
# checks, that overlays.default swaps autoAddCudaCompatRunpath in every CUDA
# set and overlays.cudaload touches none (its withCudaloadHook swaps the one
# set it is given), the NixOS module with and without pkgs.cudaload from an
# overlay.
{ libPath }:

let
  lib = import libPath;
  fake = name: { type = "derivation"; inherit name; outPath = "/nix/store/00000000000000000000000000000000-${name}"; };
  base = system: final: {
    inherit lib;
    callPackage = lib.callPackageWith final;
    newScope = extra: lib.callPackageWith (final // extra);
    stdenv = {
      # passthru is merged into the result, as mkDerivation does
      mkDerivation = a: a // (a.passthru or { }) // fake "${a.pname}-${a.version}";
      cc.targetPrefix = "";
      hostPlatform.parsed.cpu.name = lib.head (lib.splitString "-" system);
    };
    musl = fake "musl" // { dev = fake "musl-dev"; };
    elfutils = fake "elfutils";
    binutils-unwrapped = fake "binutils";
    runCommand = name: env: script: fake name;
    makeSetupHook = args: script: fake args.name // { inherit (args) substitutions; inherit script; };
    cudaPackages = cudaSet (fake "auto-add-cuda-compat-runpath-hook");
    # nixpkgs' hook now says where its redistributables take it (enableHook:
    # cuda_compat available); jetpack-nixos' sets have none (null)
    cudaPackages_12_9 = cudaSet (fake "auto-add-cuda-compat-runpath-hook" // { enableHook = false; });
    cudaPackages_jetpack = cudaSet null;
  };
  cudaSet = hook: lib.makeScope (lib.callPackageWith { }) (self: {
    autoAddCudaCompatRunpath = hook;
    cuda_cudart = { hooks = [ self.autoAddCudaCompatRunpath ]; };
  });
  packageSet = system: overlays: lib.fix (lib.foldl' (lib.flip lib.extends)
    (final: base system final // { appendOverlays = more: packageSet system (overlays ++ more); })
    overlays);
  nixpkgs = {
    inherit lib;
    legacyPackages = lib.genAttrs [ "x86_64-linux" "aarch64-linux" ] (system: packageSet system [ ]);
  };

  flake = import ../../flake.nix;
  outputs = flake.outputs { self = outputs; inherit nixpkgs; };

  hooks = set: map (h: h.name) set.cudaPackages.cuda_cudart.hooks;
  enabled = set: map (h: "${h.name} enableHook=${builtins.toJSON (h.enableHook or null)}")
    set.cudaPackages_12_9.cuda_cudart.hooks;
  withOverlay = o: packageSet "x86_64-linux" [ o ];

  # programs.cudaload from the flake, beside the NixOS options it sets
  nixosStub = pkgs: { lib, ... }: {
    options.environment.etc = lib.mkOption {
      type = lib.types.attrsOf (lib.types.submodule {
        options.text = lib.mkOption { type = lib.types.lines; };
      });
      default = { };
    };
    options.environment.systemPackages = lib.mkOption {
      type = lib.types.listOf lib.types.package;
      default = [ ];
    };
    config._module.args.pkgs = pkgs;
  };
  moduleWith = module: pkgs: (lib.evalModules {
    modules = [ module (nixosStub pkgs) { programs.cudaload.enable = true; } ];
  }).config;
  packagesOf = config: map (p: p.outPath) config.environment.systemPackages;
  overlaid = withOverlay outputs.overlays.cudaload // { cudaload = fake "cudaload-from-an-overlay"; };
in
{
  description = builtins.isString flake.description;
  nixpkgsInput = flake.inputs.nixpkgs.url;
  packages = lib.mapAttrs (system: lib.mapAttrs (name: p: p.name)) outputs.packages;
  aarch64MakeFlags = lib.filter (lib.hasPrefix "ARCH=") outputs.packages.aarch64-linux.cudaload.makeFlags;
  hookInterp = outputs.packages.x86_64-linux.cudaloadHook.substitutions.cudaloadInterp;
  checks = lib.mapAttrs (system: builtins.attrNames) outputs.checks;
  defaultSwaps = hooks (withOverlay outputs.overlays.default);
  defaultKeepsEnableHook = enabled (withOverlay outputs.overlays.default);
  defaultKeepsNull = (withOverlay outputs.overlays.default).cudaPackages_jetpack.cuda_cudart.hooks;
  cudaloadSwapsNothing = hooks (withOverlay outputs.overlays.cudaload);
  cudaloadKeepsEnableHook = enabled (withOverlay outputs.overlays.cudaload);
  # the swap for one package's CUDA set: pkg.override { cudaPackages = ...; }
  oneSetSwapped = let s = withOverlay outputs.overlays.cudaload; in
    map (h: h.name) (s.withCudaloadHook s.cudaPackages).cuda_cudart.hooks;
  cudaloadAdds = (withOverlay outputs.overlays.cudaload).cudaload.name;
  moduleBuilds = packagesOf (moduleWith outputs.nixosModules.default nixpkgs.legacyPackages.x86_64-linux);
  moduleTakesOverlays = packagesOf (moduleWith outputs.nixosModules.cudaload overlaid);
  moduleConfig = (moduleWith outputs.nixosModules.default nixpkgs.legacyPackages.x86_64-linux).environment.etc."cudaload.conf".text;
}
