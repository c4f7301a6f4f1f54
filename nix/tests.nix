# SPDX-License-Identifier: MIT
# passthru.tests of package.nix, in the style of nixpkgs' autoPatchelfHook
# tests, for where nixpkgs is reachable (`nix-build -A cudaload.tests` with
# nix/overlay.nix applied).  tests/nix/run.sh runs the same checks here
# through a stand-in for stdenv, since nixpkgs cannot be evaluated offline.
{ lib, stdenv, runCommand, binutils-unwrapped, cudaload, cudaloadHook }:

let
  # A CUDA program (DT_NEEDED libcudart, dlopens libcuda.so.1) and a plain one.
  app = stdenv.mkDerivation {
    name = "cudaload-hook-test-app";
    dontUnpack = true;
    nativeBuildInputs = [ cudaloadHook ];
    buildPhase = ''
      runHook preBuild
      mkdir -p $out/bin $out/lib
      $CC -shared -fPIC -Wl,-soname,libcudart.so.12 -o $out/lib/libcudart.so.12 ${../tests/e2e/helpers/fakecudart.c}
      $CC -o $out/bin/cudaprobe ${../tests/e2e/helpers/cudaprobe.c} -Wl,--no-as-needed $out/lib/libcudart.so.12 -Wl,-rpath,$out/lib -ldl
      $CC -o $out/bin/plain ${../tests/e2e/helpers/mknote.c}
      runHook postBuild
    '';
    dontInstall = true;
  };
in
{
  hook = runCommand "cudaload-hook-test" { nativeBuildInputs = [ binutils-unwrapped ]; } ''
    interp() { readelf -lW "$1" | sed -n 's/.*Requesting program interpreter: \(.*\)]/\1/p'; }
    [ "$(interp ${app}/bin/cudaprobe)" = ${cudaload}/bin/cudaload ]
    [ "$(interp ${app}/bin/plain)" != ${cudaload}/bin/cudaload ]
    # after strip and every other fixup hook: the restore record is whole
    out=$(${cudaload}/bin/cudaload-patch --check ${app}/bin/cudaprobe)
    case $out in
    *"without a restore record"* | *"rewritten since"*) echo "$out"; exit 1 ;;
    esac
    # and it runs: no GPU here, so the system driver, and no libcuda at all
    ${app}/bin/cudaprobe | grep -x 'libcuda=none'
    touch $out
  '';
  install = runCommand "cudaload-install-test" { nativeBuildInputs = [ binutils-unwrapped ]; } ''
    sh ${./install-check.sh} ${cudaload}
    touch $out
  '';
}
