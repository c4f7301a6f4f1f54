# SPDX-License-Identifier: MIT
# Real nix-builds of plain derivations (no nixpkgs, no stdenv: the host's
# toolchain through sandbox-paths), run by tests/nix/run.sh:
#   cudaload      cudaload, cudaload-patch and cudaload-runtime built from this tree, with the
#                 package's install check (nix/install-check.sh)
#   cuda_compat   a compat package laid out as nixpkgs lays out cuda_compat:
#                 <hash>-cuda_compat-12.2.<build>/compat/libcuda.so.1.1 and
#                 its links, a fake libcuda that reports CUDA 12.2
#   app           CUDA programs (DT_NEEDED libcudart; static cudart; dlopen
#                 only), a plain one and one named in cudaloadPrograms, built
#                 through the hook stand-in with nix/cudaload-hook.sh sourced
#                 before a hook that runs patchelf --set-rpath
#   check         runs the patched program from the store on a JetPack 5
#                 device tree, with the config the NixOS module would write
{ top, hookFirst ? false }:

let
  system = builtins.currentSystem;
  src = builtins.path {
    name = "cudaload-src";
    path = /. + top;
    filter = path: type:
      let rel = builtins.substring (builtins.stringLength top + 1) (-1) (toString path);
      in rel != "build" && baseNameOf path != ".git";
  };
  mk = name: script: env: derivation ({
    inherit name system;
    builder = "/bin/sh";
    args = [ "-eu" "-c" script ];
    PATH = "/usr/bin:/bin";
  } // env);

  cudaload = mk "cudaload-0.1.0" ''
    cp -r ${src} src
    chmod -R u+w src
    cd src
    t=$(uname -m)-linux-musl
    # musl where the Makefile would not look: the overrides must be used
    mkdir -p ../musl
    ln -s /usr/include/$t ../musl/include
    ln -s /usr/lib/$t ../musl/lib
    make -s -j2 MUSL_INC=$PWD/../musl/include MUSL_LIB=$PWD/../musl/lib \
      build/cudaload build/cudaload-patch build/cudaload-verify build/cudaload-runtime
    mkdir -p $out/bin $out/etc $out/libexec/cudaload
    cp build/cudaload build/cudaload-patch build/cudaload-runtime $out/bin/
    cp build/cudaload-verify $out/libexec/cudaload/
    cp etc/cudaload.conf $out/etc/
    sh nix/install-check.sh $out
  '' { };

  # What makeSetupHook's substitutions do.
  cudaloadHook = mk "cudaload-hook" ''
    sed -e "s|@cudaloadInterp@|${cudaload}/bin/cudaload|" \
        -e "s|@cudaloadPatch@|${cudaload}/bin/cudaload-patch|" ${src}/nix/cudaload-hook.sh >$out
  '' { };

  cudaloadHookAtSource = mk "cudaload-hook-at-source" ''
    { cat ${cudaloadHook}; echo 'cudaloadRegister; prePhases='; } >$out
  '' { };

  cuda_compat = mk "cuda_compat-12.2.34086978" ''
    mkdir -p $out/compat
    cc -shared -fPIC -Wl,-soname,libcuda.so.1 -DFAKE_CUDA_VERSION=12020 \
      -o $out/compat/libcuda.so.1.1 ${src}/tests/e2e/helpers/fakecuda.c
    ln -s libcuda.so.1.1 $out/compat/libcuda.so.1
    ln -s libcuda.so.1 $out/compat/libcuda.so
    # the rest of the package, as stubs: the PTX JIT compiler and NVVM
    echo 'int fake_jit;' >stub.c
    cc -shared -fPIC -Wl,-soname,libnvidia-ptxjitcompiler.so.1 -o $out/compat/libnvidia-ptxjitcompiler.so.1 stub.c
    cc -shared -fPIC -Wl,-soname,libnvidia-nvvm.so.4 -o $out/compat/libnvidia-nvvm.so.4 stub.c
  '' { version = "12.2.34086978"; };  # nixpkgs' packages carry .version too

  app = derivation {
    name = "cudaapp-1.0";
    inherit system;
    builder = "/bin/bash";
    args = [ "${src}/tests/nix/stdenv-standin.sh" ];
    PATH = "/usr/bin:/bin";
    # hookFirst: register cudaload's fixup as an ordinary hook would, at
    # source time, to show that the order matters (run.sh expects a loss).
    setupHooks = "${if hookFirst then cudaloadHookAtSource else cudaloadHook} ${src}/tests/nix/rpath-hook.sh";
    buildScript = ''
      mkdir -p $out/bin $out/lib
      cc -shared -fPIC -Wl,-soname,libcudart.so.12 -o $out/lib/libcudart.so.12 ${src}/tests/e2e/helpers/fakecudart.c
      cc -g -o $out/bin/cudaprobe ${src}/tests/e2e/helpers/cudaprobe.c -Wl,--no-as-needed $out/lib/libcudart.so.12 -ldl
      cc -g -o $out/bin/plain ${src}/tests/e2e/helpers/mknote.c
      cp $out/bin/plain $out/bin/named
      # static cudart: device code in .nv_fatbin, no CUDA library in DT_NEEDED
      cc -g -o $out/bin/static-cudart ${src}/tests/e2e/helpers/mknote.c ${src}/tests/nix/fatbin.c
      # a program that only dlopens the driver
      cc -g -o $out/bin/dlopen-only ${src}/tests/e2e/helpers/cudaprobe.c -ldl
    '';
    # a program no walk can tell from a plain one, named to the hook
    cudaloadPrograms = "bin/named";
  };

  # The config programs.cudaload writes, from the module's own function.
  confText = stated: import ../../nix/config-text.nix {
    compatPackages = if stated then [ cuda_compat ] else [ ];
    extraCompatDirs = if stated then [ ] else [ "${cuda_compat}/compat" ];
    driverDirs = [ ];
  };

  check = mk "cudaload-nix-check" ''
    # A JetPack 5 Orin (CUDA 11.4) with no compat package of its own; the
    # store is reached through the tree's /nix.
    sed '/^compat=/d; /^expect_/d' ${src}/tests/fixtures/orin-jp5-compat122.profile >profile
    mkdir libs
    sh ${src}/tests/e2e/lib/mkroot.sh $PWD/profile $PWD/root $PWD/libs >/dev/null
    ln -s /nix root/nix
    export CUDALOAD_ROOT=$PWD/root
    mkdir -p $out
    for stated in 1 0; do
      if [ $stated = 1 ]; then printf '%s' "$conf1"; else printf '%s' "$conf0"; fi >cudaload-$stated.conf
      cp cudaload-$stated.conf $out/
      CUDALOAD_CONFIG=$PWD/cudaload-$stated.conf ${app}/bin/cudaprobe >$out/run-$stated.txt 2>&1 || echo "exit $?" >>$out/run-$stated.txt
      CUDALOAD_CONFIG=$PWD/cudaload-$stated.conf ${cudaload}/bin/cudaload --explain ${app}/bin/cudaprobe >$out/explain-$stated.txt 2>&1 || true
      CUDALOAD_CONFIG=$PWD/cudaload-$stated.conf ${app}/bin/dlopen-only >$out/dlopen-$stated.txt 2>&1 || echo "exit $?" >>$out/dlopen-$stated.txt
    done
    echo ${cuda_compat} >$out/compat-path
  '' { conf1 = confText true; conf0 = confText false; };
in
{ inherit cudaload cudaloadHook cuda_compat app check; }
