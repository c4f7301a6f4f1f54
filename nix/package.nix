# SPDX-License-Identifier: MIT
# cudaload, cudaload-patch and cudaload-verify, built from this tree
# (callPackage).
#
# cudaload is a static-pie musl program whatever stdenv is (it is a program
# interpreter: nothing may load it); cudaload-patch is an ordinary program on
# elfutils' libelf, cudaload-verify one that dlopens libcuda.
{ lib, stdenv, callPackage, musl, elfutils, binutils-unwrapped }:

stdenv.mkDerivation {
  pname = "cudaload";
  version = "0.1.0";

  src = lib.cleanSourceWith {
    src = ./..;
    filter = path: type:
      let rel = lib.removePrefix (toString ./.. + "/") (toString path);
      in lib.cleanSourceFilter path type
         && !(lib.hasPrefix "build" rel) && !(lib.hasPrefix "tests" rel);
  };

  buildInputs = [ elfutils ];
  nativeInstallCheckInputs = [ binutils-unwrapped ];

  # The Makefile's defaults are Debian's musl paths; ARCH is the machine the
  # programs run on, not the one building (cross builds).
  makeFlags = [
    "CC=${stdenv.cc.targetPrefix}cc"
    "ARCH=${stdenv.hostPlatform.parsed.cpu.name}"
    "MUSL_INC=${lib.getDev musl}/include"
    "MUSL_LIB=${lib.getLib musl}/lib"
  ];
  buildFlags = [ "build/cudaload" "build/cudaload-patch" "build/cudaload-verify" "build/cudaload-runtime" ];

  installPhase = ''
    runHook preInstall
    install -Dm755 build/cudaload $out/bin/cudaload
    install -Dm755 build/cudaload-patch $out/bin/cudaload-patch
    # beside cudaload: the hook it adds to GPU containers runs this cudaload
    install -Dm755 build/cudaload-runtime $out/bin/cudaload-runtime
    # cudaload --verify runs it from ../libexec/cudaload
    install -Dm755 build/cudaload-verify $out/libexec/cudaload/cudaload-verify
    install -Dm644 etc/cudaload.conf $out/etc/cudaload.conf
    # the container hook: a CDI spec of its own kind and podman's hooks.d
    # entry (docs/containers.md), naming this cudaload
    mkdir -p $out/etc/cdi $out/share/containers/oci/hooks.d
    sed "s|@BINDIR@|$out/bin|" etc/cudaload-cdi.json >$out/etc/cdi/cudaload.json
    sed "s|@BINDIR@|$out/bin|" etc/cudaload-oci-hook.json >$out/share/containers/oci/hooks.d/cudaload.json
    install -Dm644 -t $out/share/man/man1 man/cudaload.1 man/cudaload-patch.1 man/cudaload-runtime.1
    install -Dm644 -t $out/share/man/man5 man/cudaload.conf.5
    # the README and the pages it links to, as make install lays them out
    install -Dm644 -t $out/share/doc/cudaload README.md
    install -Dm644 -t $out/share/doc/cudaload/docs docs/*.md
    runHook postInstall
  '';

  # patchelf's RUNPATH shrinking has nothing to do on a static-pie program;
  # _FORTIFY_SOURCE means glibc's checking functions, which musl lacks.
  dontPatchELF = true;
  hardeningDisable = [ "fortify" ];

  doInstallCheck = true;
  installCheckPhase = ''
    runHook preInstallCheck
    sh ${./install-check.sh} $out
    runHook postInstallCheck
  '';

  # nix/tests.nix: the hook on a real stdenv, and the install check alone.
  passthru.tests = callPackage ./tests.nix { };

  meta = {
    description = "Picks the CUDA driver (forward-compat package or the system's) for each program when it starts";
    platforms = [ "x86_64-linux" "aarch64-linux" ];
    mainProgram = "cudaload";
  };
}
