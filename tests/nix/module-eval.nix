# SPDX-License-Identifier: MIT
# programs.cudaload evaluated with nixpkgs' lib.evalModules (tests/nix/run.sh),
# beside the two NixOS options it sets, declared here as NixOS declares them
# for this purpose (environment.etc.<name>.text, environment.systemPackages).
{ libPath }:

let
  lib = import libPath;
  fakePackage = name: { type = "derivation"; inherit name; outPath = "/nix/store/00000000000000000000000000000000-${name}"; };
  nixosStub = { lib, ... }: {
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
    config._module.args.pkgs = { cudaload = fakePackage "cudaload-0.1.0"; };
  };
  eval = cfg: (lib.evalModules {
    modules = [ ../../nix/module.nix nixosStub { programs.cudaload = cfg; } ];
  }).config;
  on = eval {
    enable = true;
    policy = "compat";
    compatPackages = [ (fakePackage "cuda_compat-12.2.34086978" // { version = "12.2.34086978"; }) ];
    extraCompatDirs = [ "/opt/compat cuda=12.4" ];
  };
  defaults = eval { enable = true; };
  off = eval { };
  bad = eval { enable = true; policy = "newest"; };
in
{
  text = on.environment.etc."cudaload.conf".text;
  defaultText = defaults.environment.etc."cudaload.conf".text;
  packages = map (p: p.name) on.environment.systemPackages;
  offEtc = builtins.attrNames off.environment.etc;
  badPolicyRejected = !(builtins.tryEval (builtins.deepSeq bad.environment.etc "")).success;
}
