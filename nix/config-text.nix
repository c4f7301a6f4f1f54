# SPDX-License-Identifier: MIT
# The text of /etc/cudaload.conf from the NixOS module's settings.  Builtins
# only, so that it can be evaluated and tested without nixpkgs.
#
# A compat package is a store path with compat/ inside, as nixpkgs'
# cuda_compat is; its version (e.g. "12.2.34086978") is written as
# `cuda=12.2`, since its Jetson libcuda.so.1.1 names no version.
{ policy ? "auto"
, mode ? "chain"
, compatPackages ? [ ]
, extraCompatDirs ? [ ]
, driverDirs ? [ "/run/opengl-driver/lib" ]
}:

let
  majorMinor = v:
    let parts = builtins.filter builtins.isString (builtins.split "\\." v);
    in if builtins.length parts >= 2
       then "${builtins.elemAt parts 0}.${builtins.elemAt parts 1}"
       else null;
  compatLine = p:
    let v = if p ? version then majorMinor p.version else null;
    in "compat = ${toString p}/compat" + (if v == null then "" else " cuda=${v}");
  lines =
    [ "# Written by the NixOS module programs.cudaload."
      "policy = ${policy}"
      "mode = ${mode}"
    ]
    ++ map compatLine compatPackages
    ++ map (d: "compat = ${d}") extraCompatDirs
    ++ map (d: "driver_dir = ${d}") driverDirs;
in
builtins.concatStringsSep "\n" lines + "\n"
