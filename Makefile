# cudaload — see README.md.  `make demo`, `make check`.

BUILD     ?= build
PREFIX    ?= /usr/local
SYSTEMD_UNIT_DIR ?= $(if $(filter /usr,$(PREFIX)),/usr/lib/systemd/system,/etc/systemd/system)
DESTDIR   ?=
CC        ?= gcc
VERSION   := 0.1.0

ARCH      := $(shell uname -m)

WARN      := -Wall -Wextra -Werror -Wshadow -Wformat=2 -Wno-format-truncation \
             -Wvla -Wpointer-arith -Wstrict-prototypes -Wmissing-prototypes \
             -Wundef -Wwrite-strings
BASEFLAGS := -std=c11 -D_GNU_SOURCE $(WARN) -DCUDALOAD_VERSION='"$(VERSION)"'

COMMON_SRC := $(wildcard common/*.c)
COMMON_HDR := $(wildcard common/*.h)
LOADER_SRC := $(wildcard loader/*.c)
LOADER_HDR := $(wildcard loader/*.h)

# The loader: musl only, static-pie (DESIGN §3).  Debian's musl-gcc specs do
# not do static-pie, so the crt files are named here.  $(1) is the compiler,
# $(2) the musl triplet.
loader_cflags = $(BASEFLAGS) -Os -fPIE -ffunction-sections -fdata-sections \
	-nostdinc -isystem /usr/include/$(2) -isystem $(shell $(1) -print-file-name=include)
loader_link = $(1) -static-pie -nostdlib -nostartfiles -Wl,--no-dynamic-linker \
	-Wl,--gc-sections -Wl,-z,noexecstack -Wl,-z,norelro -Wl,-z,noseparate-code \
	-Wl,--wrap=__libc_start_main \
	/usr/lib/$(2)/rcrt1.o /usr/lib/$(2)/crti.o $(shell $(1) -print-file-name=crtbeginS.o) \
	$(3) /usr/lib/$(2)/libc.a $(shell $(1) -print-libgcc-file-name) \
	$(shell $(1) -print-file-name=crtendS.o) /usr/lib/$(2)/crtn.o

HOST_TRIPLET := $(ARCH)-linux-musl
# The Jetson target: cross-compiled on other machines, native on aarch64.
AARCH64_CC ?= $(if $(filter aarch64,$(ARCH)),$(CC),aarch64-linux-gnu-gcc)
HAVE_AARCH64 := $(shell command -v $(AARCH64_CC) >/dev/null 2>&1 && \
	test -f /usr/lib/aarch64-linux-musl/libc.a && echo yes)

HOST_OBJ := $(patsubst %.c,$(BUILD)/musl/%.o,$(COMMON_SRC) $(LOADER_SRC)) \
	$(patsubst %.S,$(BUILD)/musl/%.o,$(wildcard loader/arch/$(ARCH)/*.S))
A64_OBJ  := $(patsubst %.c,$(BUILD)/aarch64/musl/%.o,$(COMMON_SRC) $(LOADER_SRC)) \
	$(patsubst %.S,$(BUILD)/aarch64/musl/%.o,$(wildcard loader/arch/aarch64/*.S))

all: $(BUILD)/cudaload $(BUILD)/cudaload-patch $(BUILD)/cudaload-verify \
	$(if $(HAVE_AARCH64),$(BUILD)/aarch64/cudaload $(BUILD)/aarch64/cudaload-verify,aarch64-missing)

aarch64-missing:
	@echo "note: no aarch64 cross toolchain (run scripts/deps.sh): build/aarch64/cudaload not built" >&2

# start.c runs before libc has set up the stack protector's canary, and
# chain.c's restore hook after ld.so has replaced musl's thread pointer.
NO_SSP = $(if $(filter %/loader/start.o %/loader/chain.o,$@),-fno-stack-protector)

$(BUILD)/musl/%.o: %.c $(COMMON_HDR) $(LOADER_HDR) Makefile
	@mkdir -p $(dir $@)
	$(CC) $(call loader_cflags,$(CC),$(HOST_TRIPLET)) $(NO_SSP) -c $< -o $@

$(BUILD)/musl/%.o: %.S Makefile
	@mkdir -p $(dir $@)
	$(CC) -c $< -o $@

$(BUILD)/aarch64/musl/%.o: %.S Makefile
	@mkdir -p $(dir $@)
	$(AARCH64_CC) -c $< -o $@

$(BUILD)/cudaload: $(HOST_OBJ)
	$(call loader_link,$(CC),$(HOST_TRIPLET),$^) -o $@

$(BUILD)/aarch64/musl/%.o: %.c $(COMMON_HDR) $(LOADER_HDR) Makefile
	@mkdir -p $(dir $@)
	$(AARCH64_CC) $(call loader_cflags,$(AARCH64_CC),aarch64-linux-musl) $(NO_SSP) -c $< -o $@

$(BUILD)/aarch64/cudaload: $(A64_OBJ)
	$(call loader_link,$(AARCH64_CC),aarch64-linux-musl,$^) -o $@

# ---- cudaload-patch: a host tool on elfutils' libelf ----
TOOL_SRC := tools/cudaload-patch.c tools/elfpatch.c common/elfread.c common/sys.c
TOOL_HDR := $(wildcard tools/*.h) $(COMMON_HDR)
$(BUILD)/cudaload-patch: $(TOOL_SRC) $(TOOL_HDR) Makefile
	@mkdir -p $(dir $@)
	$(CC) $(BASEFLAGS) -O2 $(TOOL_SRC) -lelf -o $@

$(BUILD)/asan/cudaload-patch: $(TOOL_SRC) $(TOOL_HDR) Makefile
	@mkdir -p $(dir $@)
	$(CC) $(BASEFLAGS) -g -O1 $(SAN_FLAGS) $(TOOL_SRC) -lelf -o $@

# ---- cudaload-verify: glibc, dynamic, because it must dlopen libcuda ----
VERIFY_SRC := tools/cudaload-verify.c $(COMMON_SRC)
$(BUILD)/cudaload-verify: $(VERIFY_SRC) $(COMMON_HDR) Makefile
	@mkdir -p $(dir $@)
	$(CC) $(BASEFLAGS) -O2 $(VERIFY_SRC) -ldl -o $@

# The Jetson one: JetPack 5 is glibc 2.31, and a program linked against a
# newer glibc does not start there (docs/design.md).  Linked against the
# bullseye sysroot tests/e2e/glibc231.sh fetches when it is there (rebuilt
# once it appears), else against the cross toolchain's glibc, with a note.
A64_GLIBC_SYSROOT ?= $(BUILD)/bullseye-arm64/sysroot
A64_LD231 := $(wildcard $(A64_GLIBC_SYSROOT)/lib/aarch64-linux-gnu/ld-2.31.so)
a64_verify_flags = $(if $(A64_LD231),-nostdinc -isystem $(shell $(AARCH64_CC) -print-file-name=include) \
	-isystem $(A64_GLIBC_SYSROOT)/usr/include/aarch64-linux-gnu -isystem $(A64_GLIBC_SYSROOT)/usr/include -isystem /usr/aarch64-linux-gnu/include \
	--sysroot=$(A64_GLIBC_SYSROOT) -B$(A64_GLIBC_SYSROOT)/usr/lib/aarch64-linux-gnu/ \
	-L$(A64_GLIBC_SYSROOT)/usr/lib/aarch64-linux-gnu)
a64_verify_libdl = $(if $(A64_LD231),$(A64_GLIBC_SYSROOT)/lib/aarch64-linux-gnu/libdl.so.2,-ldl)
$(BUILD)/aarch64/cudaload-verify: $(VERIFY_SRC) $(COMMON_HDR) Makefile $(A64_LD231)
	@mkdir -p $(dir $@)
	$(if $(A64_LD231),,@echo "note: $@ is linked against this machine's glibc and needs GLIBC_2.34; for JetPack 5 (glibc 2.31) rebuild after tests/e2e/glibc231.sh fetched $(A64_GLIBC_SYSROOT)" >&2)
	$(AARCH64_CC) $(BASEFLAGS) -O2 $(a64_verify_flags) $(VERIFY_SRC) $(a64_verify_libdl) -o $@

# ---- unit tests: Criterion against glibc, plain and under ASan+UBSan ----
UNIT_SRC  := $(wildcard tests/unit/*.c)
HOST_CFLAGS := $(BASEFLAGS) -g -O1
SAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

UNIT_DEPS := $(UNIT_SRC) $(COMMON_SRC) tools/elfpatch.c $(TOOL_HDR) tests/unit/helpers.h
UNIT_CFLAGS := $(HOST_CFLAGS) -Wno-missing-prototypes -Wno-write-strings

$(BUILD)/unit/test_units: $(UNIT_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(UNIT_CFLAGS) $(UNIT_SRC) $(COMMON_SRC) tools/elfpatch.c -lcriterion -lelf -o $@

$(BUILD)/asan/test_units: $(UNIT_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(UNIT_CFLAGS) $(SAN_FLAGS) $(UNIT_SRC) $(COMMON_SRC) tools/elfpatch.c -lcriterion -lelf -o $@

unit: $(BUILD)/unit/test_units
	$(BUILD)/unit/test_units --jobs 1

asan: $(BUILD)/asan/test_units
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 $(BUILD)/asan/test_units --jobs 1

# Both matrices in both modes: the host's, and aarch64 (under qemu-user where
# this is not aarch64), then JetPack 5's glibc 2.31 userland.  A matrix that cannot run
# here is reported as skipped, never as passed.
E2E_ARCHES := $(sort $(ARCH) aarch64)
e2e: all $(BUILD)/asan/cudaload-patch
	@set -e; for a in $(E2E_ARCHES); do for m in exec chain; do \
		sh tests/e2e/run.sh $(BUILD) $$a $$m; done; done
	@set -e; for a in $(E2E_ARCHES); do sh tests/e2e/verify.sh $(BUILD) $$a; done
	sh tests/e2e/glibc231.sh $(BUILD)
	sh tests/e2e/cudart.sh $(BUILD)
	sh tests/e2e/patch.sh $(BUILD)
	sh tests/e2e/secure.sh $(BUILD)
	sh tests/e2e/faults.sh $(BUILD)
	PATCHER=$(BUILD)/asan/cudaload-patch ASAN_OPTIONS=detect_leaks=1 sh tests/e2e/patch.sh $(BUILD)
	sh tests/e2e/valgrind.sh $(BUILD)

# Start-up cost, system calls, size, patcher throughput: build/bench/.
bench: all
	sh scripts/bench.sh $(BUILD)

# A few runs of the same, so the benchmark cannot rot; timings decide nothing.
bench-smoke: all
	sh scripts/bench.sh $(BUILD) smoke >/dev/null
	@echo "bench smoke: ok ($(BUILD)/bench/results.json)"

# ---- fuzzing: libFuzzer targets (clang) for every parser of outside data ----
FUZZ_TARGETS := release versions notejson config elf patch verdict
FUZZ_LIBSRC := $(COMMON_SRC) tools/elfpatch.c
FUZZ_SECONDS ?= 60

$(BUILD)/fuzz/%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz.h $(FUZZ_LIBSRC) $(TOOL_HDR)
	@mkdir -p $(dir $@)
	clang $(BASEFLAGS) -Wno-unknown-warning-option -Wno-missing-prototypes -g -O1 \
		-fsanitize=fuzzer,address,undefined \
		$< $(FUZZ_LIBSRC) -lelf -o $@

# The corpus replayed without libFuzzer, under ASan and UBSan, in make check.
$(BUILD)/fuzz-replay/%: tests/fuzz/fuzz_%.c tests/fuzz/replay.c tests/fuzz/fuzz.h $(FUZZ_LIBSRC) $(TOOL_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(BASEFLAGS) -Wno-missing-prototypes -g -O1 $(SAN_FLAGS) $< tests/fuzz/replay.c $(FUZZ_LIBSRC) -lelf -o $@

fuzz: $(addprefix $(BUILD)/fuzz/,$(FUZZ_TARGETS))
	sh scripts/fuzz.sh $(BUILD) $(FUZZ_SECONDS) $(FUZZ_TARGETS)

fuzz-replay: $(addprefix $(BUILD)/fuzz-replay/,$(FUZZ_TARGETS))
	@set -e; for t in $(FUZZ_TARGETS); do printf 'fuzz corpus %-9s ' $$t; \
		UBSAN_OPTIONS=halt_on_error=1 $(BUILD)/fuzz-replay/$$t tests/fuzz/corpus/$$t; done

test: all unit asan fuzz-replay e2e bench-smoke

# Installs what is missing (as root), then builds and runs every test.
check:
	sh scripts/deps.sh
	$(MAKE) test

demo:
	sh scripts/deps.sh
	$(MAKE) all
	sh tests/e2e/demo.sh $(BUILD)

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/etc
	install -m 755 $(BUILD)/cudaload $(DESTDIR)$(PREFIX)/bin/cudaload
	install -m 755 $(BUILD)/cudaload-patch $(DESTDIR)$(PREFIX)/bin/cudaload-patch
	install -d $(DESTDIR)$(PREFIX)/libexec/cudaload $(DESTDIR)$(SYSTEMD_UNIT_DIR)
	install -m 755 $(BUILD)/cudaload-verify $(DESTDIR)$(PREFIX)/libexec/cudaload/cudaload-verify
	sed 's|@BINDIR@|$(PREFIX)/bin|' etc/cudaload-verify.service >$(DESTDIR)$(SYSTEMD_UNIT_DIR)/cudaload-verify.service
	chmod 644 $(DESTDIR)$(SYSTEMD_UNIT_DIR)/cudaload-verify.service
	install -m 644 etc/cudaload.conf $(DESTDIR)$(PREFIX)/etc/cudaload.conf

clean:
	rm -rf $(BUILD)

.PHONY: all aarch64-missing bench bench-smoke fuzz fuzz-replay unit asan e2e test check demo install clean
