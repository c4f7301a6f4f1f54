# SPDX-License-Identifier: MIT
# programs.cudaload: writes /etc/cudaload.conf, the configuration every
# cudaload reads, set-id programs included (they read only this file, and
# only when root owns it).  Shaped like nixpkgs' programs.nix-ld.
{ config, lib, pkgs, ... }:

let
  cfg = config.programs.cudaload;
  inherit (lib) mkEnableOption mkIf mkOption types literalExpression;
in
{
  options.programs.cudaload = {
    enable = mkEnableOption "cudaload, which picks the CUDA driver (a forward-compat package or the system's) when each program starts";

    package = mkOption {
      type = types.package;
      default = pkgs.cudaload;
      defaultText = literalExpression "pkgs.cudaload";
      description = "The cudaload package (from nix/overlay.nix).";
    };

    policy = mkOption {
      type = types.enum [ "auto" "compat" "system" ];
      default = "auto";
      description = ''
        auto: the newest compat package NVIDIA supports on this device, else the
        system driver; compat: the newest compat package built for the
        program's machine, whatever NVIDIA's tables say; system: never one.
      '';
    };

    mode = mkOption {
      type = types.enum [ "chain" "exec" ];
      default = "chain";
      description = "How cudaload hands over to the real loader (cudaload.conf(5), mode; cudaload's docs/running.md).";
    };

    compatPackages = mkOption {
      type = types.listOf types.package;
      default = [ ];
      example = literalExpression "[ pkgs.cudaPackages.cuda_compat ]";
      description = ''
        Forward-compatibility packages laid out as nixpkgs' cuda_compat
        (`compat/libcuda.so.1` inside).  Each is written as
        `compat = <path>/compat cuda=<major.minor of its version>`.
      '';
    };

    extraCompatDirs = mkOption {
      type = types.listOf types.str;
      default = [ ];
      example = [ "/usr/local/cuda-12.6/compat" "/opt/compat cuda=12.4" ];
      description = "More compat directories or globs, each a `compat` line as written.";
    };

    driverDirs = mkOption {
      type = types.listOf types.str;
      default = [ "/run/opengl-driver/lib" ];
      description = "Host driver directories the compat libcuda may need (NixOS puts the driver in /run/opengl-driver/lib).";
    };
  };

  config = mkIf cfg.enable {
    environment.etc."cudaload.conf".text = import ./config-text.nix {
      inherit (cfg) policy mode compatPackages extraCompatDirs driverDirs;
    };
    environment.systemPackages = [ cfg.package ];
  };
}
