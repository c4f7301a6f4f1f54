# cudaload — see README.md.  `make demo`, `make check`.

BUILD     ?= build
PREFIX    ?= /usr/local
DESTDIR   ?=
CC        ?= gcc
VERSION   := 0.1.0

ARCH      := $(shell uname -m)
MUSL_INC  ?= /usr/include/$(ARCH)-linux-musl
MUSL_LIB  ?= /usr/lib/$(ARCH)-linux-musl

WARN      := -Wall -Wextra -Werror -Wshadow -Wformat=2 -Wno-format-truncation \
             -Wvla -Wpointer-arith -Wstrict-prototypes -Wmissing-prototypes \
             -Wundef -Wwrite-strings
BASEFLAGS := -std=c11 -D_GNU_SOURCE $(WARN) -DCUDALOAD_VERSION='"$(VERSION)"'

# The loader: musl only, static-pie (DESIGN §3).  Debian's musl-gcc specs do
# not do static-pie, so the crt files are named here.
LOADER_CFLAGS := $(BASEFLAGS) -Os -fPIE -ffunction-sections -fdata-sections \
                 -nostdinc -isystem $(MUSL_INC) -isystem $(shell $(CC) -print-file-name=include)
LOADER_LDFLAGS := -static-pie -nostdlib -nostartfiles -Wl,--no-dynamic-linker \
                  -Wl,--gc-sections -Wl,-z,noexecstack -Wl,--wrap=__libc_start_main
LOADER_CRT_BEGIN := $(MUSL_LIB)/rcrt1.o $(MUSL_LIB)/crti.o $(shell $(CC) -print-file-name=crtbeginS.o)
LOADER_CRT_END   := $(MUSL_LIB)/libc.a $(shell $(CC) -print-libgcc-file-name) \
                    $(shell $(CC) -print-file-name=crtendS.o) $(MUSL_LIB)/crtn.o

COMMON_SRC := $(wildcard common/*.c)
COMMON_HDR := $(wildcard common/*.h)
LOADER_SRC := $(wildcard loader/*.c)

LOADER_OBJ := $(patsubst %.c,$(BUILD)/musl/%.o,$(COMMON_SRC) $(LOADER_SRC))

all: $(BUILD)/cudaload

$(BUILD)/musl/loader/start.o: LOADER_EXTRA := -fno-stack-protector
$(BUILD)/musl/%.o: %.c $(COMMON_HDR) $(wildcard loader/*.h) Makefile
	@mkdir -p $(dir $@)
	$(CC) $(LOADER_CFLAGS) $(LOADER_EXTRA) -c $< -o $@

$(BUILD)/cudaload: $(LOADER_OBJ)
	$(CC) $(LOADER_LDFLAGS) $(LOADER_CRT_BEGIN) $^ $(LOADER_CRT_END) -o $@

# ---- unit tests: Criterion against glibc, plain and under ASan+UBSan ----
UNIT_SRC  := $(wildcard tests/unit/*.c)
HOST_CFLAGS := $(BASEFLAGS) -g -O1
SAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

$(BUILD)/unit/test_units: $(UNIT_SRC) $(COMMON_SRC) $(COMMON_HDR) tests/unit/helpers.h
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -Wno-missing-prototypes -Wno-write-strings $(UNIT_SRC) $(COMMON_SRC) -lcriterion -o $@

$(BUILD)/asan/test_units: $(UNIT_SRC) $(COMMON_SRC) $(COMMON_HDR) tests/unit/helpers.h
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) $(SAN_FLAGS) -Wno-missing-prototypes -Wno-write-strings $(UNIT_SRC) $(COMMON_SRC) -lcriterion -o $@

unit: $(BUILD)/unit/test_units
	$(BUILD)/unit/test_units --jobs 1

asan: $(BUILD)/asan/test_units
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 $(BUILD)/asan/test_units --jobs 1

e2e: all
	sh tests/e2e/run.sh $(BUILD)

test: all unit asan e2e

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
	install -m 644 etc/cudaload.conf $(DESTDIR)$(PREFIX)/etc/cudaload.conf

clean:
	rm -rf $(BUILD)

.PHONY: all unit asan e2e test check demo install clean
