# SPDX-License-Identifier: MIT
# cudaload as a flake: the package and its setup hook for each system, the
# overlays and the NixOS module, from the files in nix/ (docs/nix.md).  No
# flake.lock is shipped: nixpkgs is the consumer's
# (inputs.cudaload.inputs.nixpkgs.follows = "nixpkgs").  tests/nix/run.sh
# evaluates the outputs with nixpkgs' lib over a stand-in package set.
{
  description = "cudaload: the CUDA driver (a forward-compatibility package or the system's) picked for each program when it starts";

  inputs.nixpkgs.url = "github:NixOS/nixpkgs/nixos-unstable";

  outputs = { self, nixpkgs, ... }:
    let
      inherit (nixpkgs) lib;
      systems = [ "x86_64-linux" "aarch64-linux" ];
      # cudaload and its hook over the system's nixpkgs, nothing else changed
      pkgsFor = system: nixpkgs.legacyPackages.${system}.appendOverlays [ self.overlays.cudaload ];
    in
    {
      # cudaload, cudaloadHook, and cudaloadHook in place of
      # autoAddCudaCompatRunpath in every cudaPackages* set: every CUDA
      # derivation's hash changes, so none comes from a binary cache
      # (docs/nix.md: what the overlay costs, and how to limit it).
      overlays.default = import ./nix/overlay.nix;
      # cudaload, cudaloadHook and withCudaloadHook (one CUDA set swapped,
      # for the packages that need compat) alone: no other derivation changes.
      overlays.cudaload = final: prev: {
        inherit (import ./nix/overlay.nix final prev) cudaload cudaloadHook withCudaloadHook;
      };

      packages = lib.genAttrs systems (system:
        let pkgs = pkgsFor system;
        in {
          default = pkgs.cudaload;
          inherit (pkgs) cudaload cudaloadHook;
        });

      # nix/tests.nix: the hook on a real stdenv, the install check (without
      # the override functions callPackage adds: checks are derivations)
      checks = lib.genAttrs systems (system:
        lib.filterAttrs (name: lib.isDerivation) (pkgsFor system).cudaload.tests);

      # programs.cudaload, its package pkgs.cudaload where an overlay put
      # one there, else built from the system's nixpkgs
      nixosModules.cudaload = { pkgs, lib, ... }: {
        imports = [ ./nix/module.nix ];
        programs.cudaload.package = lib.mkDefault (pkgs.cudaload or (pkgs.callPackage ./nix/package.nix { }));
      };
      nixosModules.default = self.nixosModules.cudaload;
    };
}
