# SPDX-License-Identifier: MIT
# cudaload — see README.md.  `make demo`, `make check`.

BUILD     ?= build
CC        ?= gcc
VERSION   := 0.1.0

# Install layout.  The config goes to /etc when installing into /usr (where
# cudaload looks first), else beside the prefix (PREFIX/etc, which cudaload
# finds as ../etc next to its binary).
PREFIX     ?= /usr/local
DESTDIR    ?=
BINDIR     ?= $(PREFIX)/bin
LIBDIR     ?= $(PREFIX)/lib
DATADIR    ?= $(PREFIX)/share
MANDIR     ?= $(DATADIR)/man
DOCDIR     ?= $(DATADIR)/doc/cudaload
SYSCONFDIR ?= $(if $(filter /usr,$(PREFIX)),/etc,$(PREFIX)/etc)
SYSTEMD_UNIT_DIR ?= $(if $(filter /usr,$(PREFIX)),/usr/lib/systemd/system,/etc/systemd/system)
# cudaload --verify looks for its helper in ../libexec/cudaload beside its
# own binary, so this one follows BINDIR's prefix.
VERIFYDIR  := $(PREFIX)/libexec/cudaload
# Where cudaload finds its pin directories (common/decision/pin.h): beside its binary.
PINDIR     := $(BINDIR)/../lib/cudaload/pin
STRIP      ?= strip

# Compiler lines are shown only when a command fails, or with V=1.
QUIET = $(if $(filter 1,$(V)),,@sh scripts/quiet.sh $@)

ARCH      := $(shell uname -m)

WARN      := -Wall -Wextra -Werror -Wshadow -Wformat=2 -Wno-format-truncation \
             -Wvla -Wpointer-arith -Wstrict-prototypes -Wmissing-prototypes \
             -Wundef -Wwrite-strings
BASEFLAGS := -std=c11 -D_GNU_SOURCE $(WARN) -DCUDALOAD_VERSION='"$(VERSION)"'

COMMON_SRC := $(wildcard common/*/*.c)
COMMON_HDR := $(wildcard common/*/*.h)
# loader/libc/: the libc functions the loader replaces (malloc, the printf
# family), linked before musl's libc.a.
LOADER_SRC := $(wildcard loader/*.c loader/start/*.c loader/commands/*.c loader/commands/*/*.c loader/libc/*.c)
LOADER_HDR := $(wildcard loader/*.h loader/start/*.h loader/commands/*.h loader/commands/*/*.h)

# The loader: musl only, static-pie (docs/design.md §3).  Debian's musl-gcc specs do
# not do static-pie, so the crt files are named here.  $(1) is the compiler,
# $(2) musl's include directory (cflags) or the one with its libc.a and crt
# files (link), $(3) the objects.
loader_cflags = $(BASEFLAGS) -Os -fPIE -ffunction-sections -fdata-sections \
	-fno-asynchronous-unwind-tables -fno-unwind-tables \
	-nostdinc -isystem $(2) -isystem $(shell $(1) -print-file-name=include)
# Linked without a symbol table: as PT_INTERP its symbols would shadow the
# program's in a debugger (gdb's `break main` stopping in cudaload's main).
# LOADER_STRIP= keeps them, to debug cudaload itself.
LOADER_STRIP ?= -Wl,--strip-all
# A build ID always: what tells one build's prepared decisions from another's
# (common/stores/prepared.h).
loader_link = $(1) -static-pie -nostdlib -nostartfiles -Wl,--no-dynamic-linker $(LOADER_STRIP) -Wl,--build-id \
	-Wl,--gc-sections -Wl,-z,noexecstack -Wl,-z,norelro -Wl,-z,noseparate-code \
	-Wl,--wrap=__libc_start_main -Wl,-T,loader/hot.ld -Wl,-T,loader/data.ld \
	$(2)/rcrt1.o $(2)/crti.o $(shell $(1) -print-file-name=crtbeginS.o) \
	$(3) $(2)/libc.a $(shell $(1) -print-libgcc-file-name) \
	$(shell $(1) -print-file-name=crtendS.o) $(2)/crtn.o

HOST_TRIPLET := $(ARCH)-linux-musl
# Where musl is: Debian's paths by default; a Nix build passes its own.
MUSL_INC ?= /usr/include/$(HOST_TRIPLET)
MUSL_LIB ?= /usr/lib/$(HOST_TRIPLET)
AARCH64_MUSL_INC ?= /usr/include/aarch64-linux-musl
AARCH64_MUSL_LIB ?= /usr/lib/aarch64-linux-musl
# The Jetson target: cross-compiled on other machines, native on aarch64.
AARCH64_CC ?= $(if $(filter aarch64,$(ARCH)),$(CC),aarch64-linux-gnu-gcc)
HAVE_AARCH64 := $(shell command -v $(AARCH64_CC) >/dev/null 2>&1 && \
	test -f $(AARCH64_MUSL_LIB)/libc.a && echo yes)

HOST_OBJ := $(patsubst %.c,$(BUILD)/musl/%.o,$(COMMON_SRC) $(LOADER_SRC)) \
	$(patsubst %.S,$(BUILD)/musl/%.o,$(wildcard loader/arch/$(ARCH)/*.S))
A64_OBJ  := $(patsubst %.c,$(BUILD)/aarch64/musl/%.o,$(COMMON_SRC) $(LOADER_SRC)) \
	$(patsubst %.S,$(BUILD)/aarch64/musl/%.o,$(wildcard loader/arch/aarch64/*.S))

all: $(BUILD)/cudaload $(BUILD)/cudaload-patch $(BUILD)/cudaload-verify $(BUILD)/cudaload-runtime \
	$(if $(HAVE_AARCH64),$(BUILD)/aarch64/cudaload $(BUILD)/aarch64/cudaload-verify \
		$(BUILD)/aarch64/cudaload-runtime,aarch64-missing)

aarch64-missing:
	@echo "note: no aarch64 cross toolchain (run scripts/deps.sh): build/aarch64/cudaload not built" >&2

# start.c runs before libc has set up the stack protector's canary, and
# chain.c's restore hook after ld.so has replaced musl's thread pointer.
NO_SSP = $(if $(filter %/loader/start/start.o %/loader/start/chain.o,$@),-fno-stack-protector)
# The start-up stack rule (common/base/alloc.h: no CL_PATH_MAX buffer on the
# stack, each page touched costs): no frame of the loader's may exceed one
# such buffer.  main's holds the run's state (settings, host, candidates,
# decision, the real loader's headers: about 4.9 KiB), so it gets 6 KiB;
# make bench counts its pages.
FRAME_MAX = -Wframe-larger-than=$(if $(filter %/loader/main.o,$@),6144,4096)

$(BUILD)/musl/%.o: %.c $(COMMON_HDR) $(LOADER_HDR) $(RUNTIME_HDR) Makefile
	@mkdir -p $(dir $@)
	$(QUIET) $(CC) $(call loader_cflags,$(CC),$(MUSL_INC)) $(NO_SSP) $(FRAME_MAX) -c $< -o $@

$(BUILD)/musl/%.o: %.S Makefile
	@mkdir -p $(dir $@)
	$(QUIET) $(CC) -c $< -o $@

$(BUILD)/aarch64/musl/%.o: %.S Makefile
	@mkdir -p $(dir $@)
	$(QUIET) $(AARCH64_CC) -c $< -o $@

# Cortex-A53 erratum 843419: GCC's default fix puts an ADRP that would
# trip it into a stub, in 4 KiB of padding each time the layout happens to
# land one there (the loader grew 12 KiB that way).  The loader is well
# under 1 MiB, so ADR can always stand in for such an ADRP instead.
A53_ADR := -Wl,--fix-cortex-a53-843419=adr

$(BUILD)/cudaload: $(HOST_OBJ) loader/data.ld loader/hot.ld scripts/hot-check.sh
	$(QUIET) $(call loader_link,$(CC),$(MUSL_LIB),$(filter-out %.ld %.sh,$^)) $(if $(filter aarch64,$(ARCH)),$(A53_ADR)) -Wl,-Map,$@.map -o $@
	@sh scripts/hot-check.sh $@.map || { rm -f $@; exit 1; }

$(BUILD)/aarch64/musl/%.o: %.c $(COMMON_HDR) $(LOADER_HDR) $(RUNTIME_HDR) Makefile
	@mkdir -p $(dir $@)
	$(QUIET) $(AARCH64_CC) $(call loader_cflags,$(AARCH64_CC),$(AARCH64_MUSL_INC)) $(NO_SSP) $(FRAME_MAX) -c $< -o $@

$(BUILD)/aarch64/cudaload: $(A64_OBJ) loader/data.ld loader/hot.ld scripts/hot-check.sh
	$(QUIET) $(call loader_link,$(AARCH64_CC),$(AARCH64_MUSL_LIB),$(filter-out %.ld %.sh,$^)) $(A53_ADR) -Wl,-Map,$@.map -o $@
	@sh scripts/hot-check.sh $@.map || { rm -f $@; exit 1; }

# ---- cudaload-runtime: an OCI runtime that wraps the next one ----
# Static on musl like the loader, so that one file runs on any node an
# engine runs on (and from the cluster's image: docs/fleet.md); the parts
# it shares with the loader are the loader's objects.
RUNTIME_SRC := $(wildcard tools/runtime/*.c)
RUNTIME_HDR := $(wildcard tools/runtime/*.h)
RUNTIME_USES := common/base/jsonread.c common/base/json.c common/base/atomicfile.c common/base/why.c \
	common/base/sys.c common/base/env.c common/base/array.c common/base/diag.c common/base/fmt.c \
	common/base/utf8.c common/base/version.c \
	common/settings/settings.c common/host/visible.c common/elf/elfread.c \
	loader/commands/ocihook/bundle.c
runtime_link = $(1) -static-pie -nostdlib -nostartfiles -Wl,--no-dynamic-linker -Wl,--strip-all \
	-Wl,--gc-sections -Wl,-z,noexecstack \
	$(2)/rcrt1.o $(2)/crti.o $(shell $(1) -print-file-name=crtbeginS.o) \
	$(3) $(2)/libc.a $(shell $(1) -print-libgcc-file-name) \
	$(shell $(1) -print-file-name=crtendS.o) $(2)/crtn.o
$(BUILD)/cudaload-runtime: $(patsubst %.c,$(BUILD)/musl/%.o,$(RUNTIME_SRC) $(RUNTIME_USES))
	$(QUIET) $(call runtime_link,$(CC),$(MUSL_LIB),$^) -o $@
$(BUILD)/aarch64/cudaload-runtime: $(patsubst %.c,$(BUILD)/aarch64/musl/%.o,$(RUNTIME_SRC) $(RUNTIME_USES))
	$(QUIET) $(call runtime_link,$(AARCH64_CC),$(AARCH64_MUSL_LIB),$^) -o $@

# ---- the cluster image (deploy/kubernetes/, docs/fleet.md) ----
# An OCI archive made from the static binaries and a static busybox, with
# no base image and no daemon: `podman load -i build/cudaload-image-x86_64.tar`.
# The aarch64 one where the aarch64 binaries are built and BUSYBOX_AARCH64
# names a static aarch64 busybox (Debian's busybox-static:arm64 /bin/busybox).
IMAGE_REF       ?= localhost/cudaload:$(VERSION)
BUSYBOX         ?= /bin/busybox
BUSYBOX_AARCH64 ?= $(if $(filter aarch64,$(ARCH)),$(BUSYBOX))
IMAGE_INPUTS    := scripts/mkimage.sh scripts/mkpin.sh deploy/image/cudaload-node etc/cudaload.conf \
	etc/cudaload-cdi.json etc/cudaload-oci-hook.json
$(BUILD)/cudaload-image-$(ARCH).tar: $(BUILD)/cudaload $(BUILD)/cudaload-runtime $(IMAGE_INPUTS)
	sh scripts/mkimage.sh $@ $(ARCH) $(IMAGE_REF) $(BUILD)/cudaload $(BUILD)/cudaload-runtime $(BUSYBOX)
ifneq ($(ARCH),aarch64)
$(BUILD)/cudaload-image-aarch64.tar: $(BUILD)/aarch64/cudaload $(BUILD)/aarch64/cudaload-runtime $(IMAGE_INPUTS)
	sh scripts/mkimage.sh $@ aarch64 $(IMAGE_REF) $(BUILD)/aarch64/cudaload $(BUILD)/aarch64/cudaload-runtime $(BUSYBOX_AARCH64)
endif
image: $(BUILD)/cudaload-image-$(ARCH).tar \
	$(if $(and $(filter-out aarch64,$(ARCH)),$(HAVE_AARCH64),$(BUSYBOX_AARCH64)),$(BUILD)/cudaload-image-aarch64.tar)

# ---- cudaload-patch: a host tool on elfutils' libelf ----
ELFPATCH_SRC := $(wildcard tools/patch/elfpatch/*.c)
TOOL_SRC := $(wildcard tools/patch/*.c) $(ELFPATCH_SRC) common/stores/patchlist.c common/base/inroot.c common/base/array.c common/base/atomicfile.c common/base/why.c common/elf/elfread.c common/base/sys.c
TOOL_HDR := $(wildcard tools/*/*.h tools/patch/elfpatch/*.h) $(COMMON_HDR)
# Debian's hardening defaults for a program that runs as root.
TOOL_HARDEN := -D_FORTIFY_SOURCE=2 -fstack-protector-strong -Wl,-z,relro,-z,now
$(BUILD)/cudaload-patch: $(TOOL_SRC) $(TOOL_HDR) Makefile
	@mkdir -p $(dir $@)
	$(QUIET) $(CC) $(BASEFLAGS) -O2 $(TOOL_HARDEN) $(TOOL_SRC) -lelf -o $@

$(BUILD)/asan/cudaload-patch: $(TOOL_SRC) $(TOOL_HDR) Makefile
	@mkdir -p $(dir $@)
	$(QUIET) $(CC) $(BASEFLAGS) -g -O1 $(SAN_FLAGS) $(TOOL_SRC) -lelf -o $@

# ---- cudaload-verify: glibc, dynamic, because it must dlopen libcuda ----
VERIFY_SRC := tools/verify/cudaload-verify.c tools/verify/ptx.c $(COMMON_SRC)
$(BUILD)/cudaload-verify: $(VERIFY_SRC) $(COMMON_HDR) tools/verify/ptx.h Makefile
	@mkdir -p $(dir $@)
	$(QUIET) $(CC) $(BASEFLAGS) -O2 $(VERIFY_SRC) -ldl -o $@

# The Jetson one for the tests here (under qemu-user); the package's is below.
$(BUILD)/aarch64/cudaload-verify: $(VERIFY_SRC) $(COMMON_HDR) tools/verify/ptx.h Makefile
	@mkdir -p $(dir $@)
	$(QUIET) $(AARCH64_CC) $(BASEFLAGS) -O2 $(VERIFY_SRC) -ldl -o $@

# ---- what the Debian packages ship: glibc 2.31 and every later one ----
# cudaload-patch and cudaload-verify of build/glibc231/{amd64,arm64}/ are
# linked against Debian 11's glibc 2.31 and libelf (scripts/sysroot.sh
# fetches them into GLIBC231_DIR/bullseye-ARCH/sysroot once), so that they
# run on Debian 11 and 12, Ubuntu 20.04 to 24.04, JetPack 5 to 7
# (docs/design.md §11).  Headers, crt files and libraries all come from the
# sysroot; the compiler's own headers and libgcc from this machine.
GLIBC231_DIR ?= $(BUILD)
PKG_CC_amd64 := $(if $(filter x86_64,$(ARCH)),$(CC),x86_64-linux-gnu-gcc)
PKG_CC_arm64 := $(AARCH64_CC)
PKG_TRIPLET_amd64 := x86_64-linux-gnu
PKG_TRIPLET_arm64 := aarch64-linux-gnu
# $(1) the Debian architecture
pkg_sysroot = $(abspath $(GLIBC231_DIR))/bullseye-$(1)/sysroot
pkg_flags = -nostdinc -isystem $(shell $(PKG_CC_$(1)) -print-file-name=include) \
	-isystem $(call pkg_sysroot,$(1))/usr/include/$(PKG_TRIPLET_$(1)) -isystem $(call pkg_sysroot,$(1))/usr/include \
	--sysroot=$(call pkg_sysroot,$(1)) -B$(call pkg_sysroot,$(1))/usr/lib/$(PKG_TRIPLET_$(1))/ \
	-L$(call pkg_sysroot,$(1))/usr/lib/$(PKG_TRIPLET_$(1)) -L$(call pkg_sysroot,$(1))/lib/$(PKG_TRIPLET_$(1)) \
	-Wl,-rpath-link=$(call pkg_sysroot,$(1))/lib/$(PKG_TRIPLET_$(1)):$(call pkg_sysroot,$(1))/usr/lib/$(PKG_TRIPLET_$(1)) \
	-ffile-prefix-map=$(CURDIR)=.
# (precious: make would delete it as an intermediate file)
.PRECIOUS: $(GLIBC231_DIR)/bullseye-%/sysroot/.complete
$(GLIBC231_DIR)/bullseye-%/sysroot/.complete:
	sh scripts/sysroot.sh $(GLIBC231_DIR) $*

$(BUILD)/glibc231/%/cudaload-patch: $(TOOL_SRC) $(TOOL_HDR) Makefile $(GLIBC231_DIR)/bullseye-%/sysroot/.complete
	@mkdir -p $(dir $@)
	$(QUIET) $(PKG_CC_$*) $(BASEFLAGS) -O2 $(TOOL_HARDEN) $(call pkg_flags,$*) $(TOOL_SRC) -lelf -o $@

$(BUILD)/glibc231/%/cudaload-verify: $(VERIFY_SRC) $(COMMON_HDR) tools/verify/ptx.h Makefile $(GLIBC231_DIR)/bullseye-%/sysroot/.complete
	@mkdir -p $(dir $@)
	$(QUIET) $(PKG_CC_$*) $(BASEFLAGS) -O2 $(TOOL_HARDEN) $(call pkg_flags,$*) $(VERIFY_SRC) -ldl -o $@

# ---- unit tests: Criterion against glibc, plain and under ASan+UBSan ----
UNIT_SRC  := $(wildcard tests/unit/*.c)
HOST_CFLAGS := $(BASEFLAGS) -g -O1
SAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

UNIT_TOOL := $(ELFPATCH_SRC) tools/patch/closure.c tools/patch/pysite.c tools/patch/replace.c \
	loader/commands/ocihook/bundle.c loader/commands/ocihook/word.c tools/runtime/spec.c \
	tools/verify/ptx.c loader/start/firstuse.c \
	tools/runtime/tomledit.c tools/runtime/daemonjson.c tools/runtime/containerd.c tools/runtime/splice.c
UNIT_DEPS := $(UNIT_SRC) $(COMMON_SRC) $(UNIT_TOOL) $(TOOL_HDR) $(wildcard tests/unit/*.h)
UNIT_CFLAGS := $(HOST_CFLAGS) -Wno-missing-prototypes -Wno-write-strings

$(BUILD)/unit/test_units: $(UNIT_DEPS)
	@mkdir -p $(dir $@)
	$(QUIET) $(CC) $(UNIT_CFLAGS) $(UNIT_SRC) $(COMMON_SRC) $(UNIT_TOOL) -lcriterion -lelf -o $@

$(BUILD)/asan/test_units: $(UNIT_DEPS)
	@mkdir -p $(dir $@)
	$(QUIET) $(CC) $(UNIT_CFLAGS) $(SAN_FLAGS) $(UNIT_SRC) $(COMMON_SRC) $(UNIT_TOOL) -lcriterion -lelf -o $@

unit: $(BUILD)/unit/test_units
	$(BUILD)/unit/test_units --jobs 1

asan: $(BUILD)/asan/test_units
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 $(BUILD)/asan/test_units --jobs 1

# Every suite a target of its own, run E2E_JOBS at a time, each one's output
# kept together (-O).  Four side by side on two cores: the verifier's suites
# spend most of their time waiting (each --verify waits out a second for the
# store it wrote, prepared.h), and with three, two of them waiting left a
# core idle.
# Both matrices in both modes: the host's, and aarch64 (under qemu-user where
# this is not aarch64), then JetPack 5's glibc 2.31 userland.  A matrix that
# cannot run here is reported as skipped, never as passed.  The longest come
# first, so that the two lanes end together.  Two suites change the host
# itself (the installed package, a user, a sysctl, /run/cudaload): they run
# alone, after the others.
E2E_ARCHES := $(sort $(ARCH) aarch64)
each_arch = $(foreach a,$(E2E_ARCHES),$(1).$(a))
each_mode = $(foreach a,$(E2E_ARCHES),$(foreach m,exec chain,$(1).$(a).$(m)))
E2E_SUITES := distro $(call each_arch,verify) patch faults repro $(call each_arch,walk) strip status nfd \
	$(call each_mode,run) image container runtime cluster patchrace $(call each_mode,reach) nix cudart visible \
	$(call each_mode,prepared) $(call each_mode,hold) $(call each_arch,firstuse) docs glibc231 \
	valgrind record real-driver configure
E2E_ALONE := secure deb
E2E_JOBS ?= 4
# What the suites share, made once before they start, E2E_JOBS builds at a
# time (make check's own make runs one).
e2e-ready:
	@$(MAKE) --no-print-directory -j$(E2E_JOBS) all $(BUILD)/asan/cudaload-patch
	@sh tests/e2e/lib/shared.sh $(BUILD)
	@$(MAKE) --no-print-directory -j$(E2E_JOBS) deb

e2e: e2e-ready
	@$(MAKE) --no-print-directory -j$(E2E_JOBS) -O $(addprefix e2e-,$(E2E_SUITES))
	@$(MAKE) --no-print-directory e2e-alone

# e2e-SUITE[.ARCH[.MODE]]: tests/e2e/suites/SUITE.sh BUILD [ARCH [MODE]]; the
# suites that also check the patcher under ASan run a second time so.
ASAN_PATCHER = PATCHER=$(BUILD)/asan/cudaload-patch ASAN_OPTIONS=detect_leaks=1
E2E_TWICE := patch patchrace image record
e2e-%:
	@set -e; n='$*'; suite=$${n%%.*}; args=$$(echo "$$n" | sed 's/^[^.]*//; s/\./ /g'); \
	start=$$(date +%s); \
	case $$suite in \
	real-driver) sh tests/device/real-driver.sh $(BUILD) ;; \
	nix) sh tests/nix/run.sh $(BUILD) ;; \
	deb|repro|distro) sh tests/e2e/suites/$$suite.sh $(BUILD) $(VERSION) ;; \
	*) sh tests/e2e/suites/$$suite.sh $(BUILD) $$args; \
		case " $(E2E_TWICE) " in *" $$suite "*) $(ASAN_PATCHER) sh tests/e2e/suites/$$suite.sh $(BUILD) ;; esac ;; \
	esac; \
	echo "suite $$n: $$(( $$(date +%s) - start )) s"

# On a host with a real NVIDIA driver (skipped elsewhere): the driver's own
# cuInit judges every package cudaload would use, patched and stripped runs,
# and what --verify stores.
device-check: all
	sh tests/device/real-driver.sh $(BUILD)

# Start-up cost, system calls, size, patcher throughput: build/bench/.
bench: all
	sh scripts/bench.sh $(BUILD)

# A few runs of the same, so the benchmark cannot rot; timings decide nothing.
bench-smoke: all
	sh scripts/bench.sh $(BUILD) smoke >/dev/null
	@echo "bench smoke: ok ($(BUILD)/bench/results.json)"

# ---- fuzzing: libFuzzer targets (clang) for every parser of outside data ----
FUZZ_TARGETS := release versions notejson config elf patch verdict patchlist utf8 ldcache inroot prepared visible ocihook spec
FUZZ_LIBSRC := $(COMMON_SRC) $(ELFPATCH_SRC) loader/commands/ocihook/bundle.c loader/commands/ocihook/word.c \
	tools/runtime/spec.c tools/runtime/splice.c
FUZZ_SECONDS ?= 60

$(BUILD)/fuzz/%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz.h $(FUZZ_LIBSRC) $(TOOL_HDR)
	@mkdir -p $(dir $@)
	$(QUIET) clang $(BASEFLAGS) -Wno-unknown-warning-option -Wno-missing-prototypes -g -O1 \
		-fsanitize=fuzzer,address,undefined \
		$< $(FUZZ_LIBSRC) -lelf -o $@

# The corpus replayed without libFuzzer, under ASan and UBSan, in make check.
# The parsers are built once for all the targets (each built them anew:
# 11 s a target here).
FUZZ_REPLAY_FLAGS := $(BASEFLAGS) -Wno-missing-prototypes -g -O1 $(SAN_FLAGS)
FUZZ_REPLAY_OBJ := $(patsubst %.c,$(BUILD)/fuzz-replay-obj/%.o,$(FUZZ_LIBSRC))
$(BUILD)/fuzz-replay-obj/%.o: %.c $(COMMON_HDR) $(TOOL_HDR) Makefile
	@mkdir -p $(dir $@)
	$(QUIET) $(CC) $(FUZZ_REPLAY_FLAGS) -c $< -o $@

$(BUILD)/fuzz-replay/%: tests/fuzz/fuzz_%.c tests/fuzz/replay.c tests/fuzz/fuzz.h $(FUZZ_REPLAY_OBJ) $(TOOL_HDR)
	@mkdir -p $(dir $@)
	$(QUIET) $(CC) $(FUZZ_REPLAY_FLAGS) $< tests/fuzz/replay.c $(FUZZ_REPLAY_OBJ) -lelf -o $@

fuzz: $(addprefix $(BUILD)/fuzz/,$(FUZZ_TARGETS))
	sh scripts/fuzz.sh $(BUILD) $(FUZZ_SECONDS) $(FUZZ_TARGETS)

fuzz-replay: $(addprefix $(BUILD)/fuzz-replay/,$(FUZZ_TARGETS))
	@set -e; for t in $(FUZZ_TARGETS); do printf 'fuzz corpus %-9s ' $$t; \
		UBSAN_OPTIONS=halt_on_error=1 $(BUILD)/fuzz-replay/$$t tests/fuzz/corpus/$$t; done

# make check's tests: the unit tests and the corpus in the suites' pool,
# after the longest suites, the bench's few runs last (it reads no state
# the suites leave); then the suites that change the host.
TEST_POOL := $(addprefix e2e-,$(wordlist 1,4,$(E2E_SUITES))) unit asan fuzz-replay \
	$(addprefix e2e-,$(wordlist 5,$(words $(E2E_SUITES)),$(E2E_SUITES))) bench-smoke
test: e2e-ready
	@$(MAKE) --no-print-directory -j$(E2E_JOBS) -O $(TEST_POOL)
	@$(MAKE) --no-print-directory e2e-alone

e2e-alone:
	@$(MAKE) --no-print-directory -j1 -O $(addprefix e2e-,$(E2E_ALONE))

# Installs what is missing (as root), then builds and runs every test.
check:
	sh scripts/deps.sh
	$(MAKE) test

# Only what the demo needs: a compiler, musl, libelf (deps.sh says what it
# installs before it does).
demo:
	@sh scripts/deps.sh demo
	@$(MAKE) -s --no-print-directory $(BUILD)/cudaload $(BUILD)/cudaload-patch
	@sh tests/e2e/suites/demo.sh $(BUILD)

# ---- install: the layout the Debian packages use (PREFIX=/usr) ----
# What goes in: the binaries of this machine by default; the arm64 package
# names the aarch64 ones.  INSTALL_A64 is the Jetson cudaload that
# patch-image.sh puts into images, shipped where it is not the main one.
INSTALL_CUDALOAD ?= $(BUILD)/cudaload
INSTALL_PATCH    ?= $(BUILD)/cudaload-patch
INSTALL_VERIFY   ?= $(BUILD)/cudaload-verify
INSTALL_RUNTIME  ?= $(BUILD)/cudaload-runtime
INSTALL_A64      ?= $(if $(HAVE_AARCH64),$(if $(filter aarch64,$(ARCH)),,$(BUILD)/aarch64/cudaload))
# APT_HOOK=1 also installs the apt hook that re-patches upgraded programs.
APT_HOOK         ?=
MAN1 := man/cudaload.1 man/cudaload-patch.1 man/cudaload-runtime.1
MAN5 := man/cudaload.conf.5
# The README and the pages it links to, in the tree's own layout (DOCDIR/docs/).
DOCS := $(wildcard docs/*.md)

install: $(INSTALL_CUDALOAD) $(INSTALL_PATCH) $(INSTALL_VERIFY) $(INSTALL_RUNTIME) $(INSTALL_A64)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(SYSCONFDIR) $(DESTDIR)$(MANDIR)/man1 \
		$(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(DATADIR)/cudaload \
		$(DESTDIR)$(DATADIR)/bash-completion/completions \
		$(DESTDIR)$(VERIFYDIR) $(DESTDIR)$(SYSTEMD_UNIT_DIR) $(DESTDIR)$(DOCDIR)/docs
	install -m 755 $(INSTALL_CUDALOAD) $(DESTDIR)$(BINDIR)/cudaload
	sh scripts/mkpin.sh $(DESTDIR)$(PINDIR) $(PINDIR)
	install -m 755 $(INSTALL_PATCH) $(DESTDIR)$(BINDIR)/cudaload-patch
	@# beside cudaload: the hook it adds runs the cudaload in its directory
	install -m 755 $(INSTALL_RUNTIME) $(DESTDIR)$(BINDIR)/cudaload-runtime
	install -m 755 $(INSTALL_VERIFY) $(DESTDIR)$(VERIFYDIR)/cudaload-verify
	$(STRIP) --strip-all --remove-section=.comment $(DESTDIR)$(BINDIR)/cudaload \
		$(DESTDIR)$(BINDIR)/cudaload-patch $(DESTDIR)$(BINDIR)/cudaload-runtime \
		$(DESTDIR)$(VERIFYDIR)/cudaload-verify
	for u in cudaload-verify.service cudaload-status.service; do \
		sed 's|@BINDIR@|$(BINDIR)|' etc/$$u >$(DESTDIR)$(SYSTEMD_UNIT_DIR)/$$u && \
		chmod 644 $(DESTDIR)$(SYSTEMD_UNIT_DIR)/$$u || exit 1; done
	install -m 644 etc/cudaload-status.timer $(DESTDIR)$(SYSTEMD_UNIT_DIR)/
	@# the container hook (docs/containers.md): a CDI spec of its own kind,
	@# and podman's hooks.d entry, taken by the containers that ask for it
	install -d $(DESTDIR)$(SYSCONFDIR)/cdi $(DESTDIR)$(DATADIR)/containers/oci/hooks.d
	sed 's|@BINDIR@|$(BINDIR)|' etc/cudaload-cdi.json >$(DESTDIR)$(SYSCONFDIR)/cdi/cudaload.json
	sed 's|@BINDIR@|$(BINDIR)|' etc/cudaload-oci-hook.json \
		>$(DESTDIR)$(DATADIR)/containers/oci/hooks.d/cudaload.json
	chmod 644 $(DESTDIR)$(SYSCONFDIR)/cdi/cudaload.json $(DESTDIR)$(DATADIR)/containers/oci/hooks.d/cudaload.json
	$(if $(INSTALL_A64),install -d $(DESTDIR)$(LIBDIR)/cudaload/aarch64)
	$(if $(INSTALL_A64),install -m 755 $(INSTALL_A64) $(DESTDIR)$(LIBDIR)/cudaload/aarch64/cudaload)
	$(if $(INSTALL_A64),aarch64-linux-gnu-strip --strip-all --remove-section=.comment \
		$(DESTDIR)$(LIBDIR)/cudaload/aarch64/cudaload)
	sed -e 's|^default_cudaload=.*|default_cudaload=$(if $(INSTALL_A64),$(LIBDIR)/cudaload/aarch64/cudaload,$(BINDIR)/cudaload)|' \
		-e 's|^default_config=.*|default_config=$(DATADIR)/cudaload/cudaload.conf|' \
		scripts/patch-image.sh >$(DESTDIR)$(DATADIR)/cudaload/patch-image.sh
	chmod 755 $(DESTDIR)$(DATADIR)/cudaload/patch-image.sh
	install -m 755 scripts/mkpin.sh $(DESTDIR)$(DATADIR)/cudaload/mkpin.sh
	install -m 644 etc/cudaload.conf $(DESTDIR)$(DATADIR)/cudaload/cudaload.conf
	install -d $(DESTDIR)$(DATADIR)/cudaload/schema
	install -m 644 share/schema/explain.schema.json share/schema/status.schema.json \
		share/schema/verify.schema.json $(DESTDIR)$(DATADIR)/cudaload/schema/
	@# an existing config is the admin's: never overwritten
	test -e $(DESTDIR)$(SYSCONFDIR)/cudaload.conf || \
		install -m 644 etc/cudaload.conf $(DESTDIR)$(SYSCONFDIR)/cudaload.conf
	install -m 644 $(MAN1) $(DESTDIR)$(MANDIR)/man1/
	install -m 644 $(MAN5) $(DESTDIR)$(MANDIR)/man5/
	install -m 644 README.md $(DESTDIR)$(DOCDIR)/
	install -m 644 $(DOCS) $(DESTDIR)$(DOCDIR)/docs/
	install -m 644 etc/bash-completion $(DESTDIR)$(DATADIR)/bash-completion/completions/cudaload
	ln -sf cudaload $(DESTDIR)$(DATADIR)/bash-completion/completions/cudaload-patch
	$(if $(APT_HOOK),install -d $(DESTDIR)$(SYSCONFDIR)/apt/apt.conf.d)
	$(if $(APT_HOOK),sed 's|@BINDIR@|$(BINDIR)|g' etc/apt-hook.conf \
		>$(DESTDIR)$(SYSCONFDIR)/apt/apt.conf.d/80cudaload)

# Removes what install put there; the config only when it is unchanged.
uninstall:
	rm -f $(DESTDIR)$(BINDIR)/cudaload $(DESTDIR)$(BINDIR)/cudaload-patch $(DESTDIR)$(BINDIR)/cudaload-runtime \
		$(addprefix $(DESTDIR)$(MANDIR)/man1/,$(notdir $(MAN1))) \
		$(addprefix $(DESTDIR)$(MANDIR)/man5/,$(notdir $(MAN5))) \
		$(DESTDIR)$(DATADIR)/bash-completion/completions/cudaload \
		$(DESTDIR)$(DATADIR)/bash-completion/completions/cudaload-patch \
		$(DESTDIR)$(SYSCONFDIR)/apt/apt.conf.d/80cudaload \
		$(DESTDIR)$(SYSTEMD_UNIT_DIR)/cudaload-verify.service \
		$(DESTDIR)$(SYSTEMD_UNIT_DIR)/cudaload-status.service \
		$(DESTDIR)$(SYSTEMD_UNIT_DIR)/cudaload-status.timer \
		$(DESTDIR)$(SYSCONFDIR)/cdi/cudaload.json \
		$(DESTDIR)$(DATADIR)/containers/oci/hooks.d/cudaload.json
	rm -rf $(DESTDIR)$(DATADIR)/cudaload $(DESTDIR)$(LIBDIR)/cudaload $(DESTDIR)$(VERIFYDIR) \
		$(DESTDIR)$(PINDIR)
	rm -f $(DESTDIR)$(DOCDIR)/README.md $(addprefix $(DESTDIR)$(DOCDIR)/docs/,$(notdir $(DOCS)))
	-rmdir $(DESTDIR)$(DOCDIR)/docs $(DESTDIR)$(DOCDIR) 2>/dev/null
	@if cmp -s etc/cudaload.conf $(DESTDIR)$(SYSCONFDIR)/cudaload.conf; then \
		rm -f $(DESTDIR)$(SYSCONFDIR)/cudaload.conf; \
	elif [ -e $(DESTDIR)$(SYSCONFDIR)/cudaload.conf ]; then \
		echo "uninstall: $(DESTDIR)$(SYSCONFDIR)/cudaload.conf was changed: kept"; fi

# ---- Debian packages: build/cudaload_$(VERSION)_{amd64,arm64}.deb ----
DEB_ARCHES := $(if $(filter aarch64,$(ARCH)),arm64,amd64 arm64)
deb: all $(foreach a,$(DEB_ARCHES),$(BUILD)/glibc231/$(a)/cudaload-patch $(BUILD)/glibc231/$(a)/cudaload-verify)
	+@set -e; for a in $(DEB_ARCHES); do MAKE="$(MAKE)" sh scripts/mkdeb.sh $(BUILD) $(VERSION) $$a; done

# The man pages, as mandoc sees them (warnings are errors).
man-lint:
	mandoc -T lint -W warning $(MAN1) $(MAN5)

clean:
	rm -rf $(BUILD)

.PHONY: image device-check all aarch64-missing bench bench-smoke fuzz fuzz-replay unit asan e2e e2e-ready e2e-alone test check demo install uninstall deb man-lint clean
