# SPDX-License-Identifier: MIT
# cudaloadHook: the setup hook in ./cudaload-hook.sh, with cudaload-patch for
# the build machine and, as the interpreter patched in, the cudaload of the
# machine the programs will run on: a cross build (x86_64 building for a
# Jetson) patches in the aarch64 cudaload.
{ lib, makeSetupHook, cudaload, targetPackages ? { } }:

let
  # As a nativeBuildInput this hook comes from buildPackages, where
  # targetPackages is the set of the programs being built.
  interp = targetPackages.cudaload or cudaload;
in
makeSetupHook {
  name = "cudaload-hook";
  substitutions = {
    cudaloadPatch = "${lib.getBin cudaload}/bin/cudaload-patch";
    cudaloadInterp = "${interp}/bin/cudaload";
  };
  meta = {
    description = "Make cudaload the interpreter of the CUDA programs in every output";
    platforms = lib.platforms.linux;
  };
} ./cudaload-hook.sh
