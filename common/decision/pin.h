/* SPDX-License-Identifier: MIT */
/*
 * pin: the decision holds, whatever else on the machine names a driver.
 *
 * ld.so takes a bare soname from the first place that has it: the caller's
 * DT_RPATH (only without a DT_RUNPATH), the library path, the caller's
 * DT_RUNPATH, ld.so.cache, the default directories.  A compat directory in a
 * RUNPATH, in LD_LIBRARY_PATH or in /etc/ld.so.conf.d would beat the system
 * driver that cudaload chose (docs/design.md §5).  So the search list starts
 * with a directory that holds the chosen driver's files and no other library
 * a program links:
 *
 * - a chosen compat package: its own directory (searchlist.c already puts it
 *   first; NVIDIA's packages hold nothing but the driver);
 * - the system driver: the pin directory cudaload's package ships for the
 *   driver's directory beside the binary, BINDIR/../lib/cudaload/pin/<dir>,
 *   links named pin_names[] to the driver's files in <dir> and nothing
 *   else (scripts/mkpin.sh: the general library dirs such as
 *   /usr/lib/x86_64-linux-gnu and the known driver dirs); without one, the
 *   driver's own directory when that holds only NVIDIA's driver (a host
 *   driver dir of probe.c: Tegra's tegra/ and nvidia/, l4t-gpu-libs,
 *   NixOS's /run/opengl-driver/lib, a container's /usr/local/nvidia/lib64,
 *   a config driver_dir).
 *
 * Every other library resolves as before.  Only where a compat package for
 * the program's machine exists: without one nothing can beat the system
 * driver, and nothing is added.  In secure mode only a trusted pin directory
 * is used (secure.h).
 */
#ifndef CUDALOAD_PIN_H
#define CUDALOAD_PIN_H

#include <stdbool.h>

#include "../packages/compat.h"
#include "../host/probe.h"

/* The driver's files a program or libcuda opens by soname; a shipped pin
 * directory holds one link of each name (libcuda.so to libcuda.so.1). */
extern const char *const pin_names[];

/* Where the shipped pin directories live, from cudaload's own directory. */
#define PIN_SHIPPED_BASE "/../lib/cudaload/pin"

struct pin {
	/* The system libcuda.so.1's directory, as on the target: a host driver
	 * dir (a constant or the config's) or a standard one; NULL: none found. */
	const char *system_dir;
	bool links;		/* dir is a shipped pin directory, else system_dir itself */
	char *dir;		/* first in the search list, as ld.so sees it (malloc'd); NULL: none */
	char why[192];		/* why there is no pin, or "" */
};

/* Does any candidate hold a libcuda the program could load (its class and
 * machine)?  Only then can something beat the system driver. */
bool pin_needed(const struct candidates *c, int prog_class, int prog_machine);

/* The system libcuda.so.1's directory, as on the target: the first host
 * driver dir that holds one (*driver_only true), else the first library
 * dir of the machine; never a candidate's.  NULL: none found. */
const char *pin_system_dir(const char *root, const struct host *h, const struct candidates *c,
			   int machine, bool *driver_only);

/* The pin for the system driver: find its libcuda.so.1 under root (host
 * driver dirs first, then the standard library dirs of the machine, never a
 * candidate's directory) and the directory to put first.  self: this
 * cudaload's path (its pin directories are beside it), or NULL. */
void pin_system(const char *root, const char *self, const struct host *h,
		const struct candidates *c, int machine, bool secure, struct pin *out);

/* For --explain and the trace: the libcuda.so.1 the program will load
 * (*libcuda, a malloc'd real path, or NULL when unknown) and every other
 * place that names one for it, each said with what becomes of it ("over
 * LD_LIBRARY_PATH's /usr/local/cuda/compat", or "not held: ..." for a
 * DT_RPATH or an absolute path in the environment, which come before any
 * search list).  chosen_dir: the chosen driver's directory as on the
 * target; held: a search list puts it first (without one, the first of
 * ld.so.cache's entries for machine is what the program gets, when nothing
 * before the cache names a driver).  Returns the count of lines
 * in *lines (malloc'd, each malloc'd; kept until exit, like the report). */
int pin_rivals(const char *root, const char *program, const char *chosen_dir, bool held,
	       const char *user_llp, char *const *envp, bool secure, int machine,
	       char **libcuda, char ***lines);

void pin_free(struct pin *p);

#endif
