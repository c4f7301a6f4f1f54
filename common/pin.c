/* SPDX-License-Identifier: MIT */
#include "pin.h"

#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diag.h"
#include "secure.h"

/* libcuda.so.1 and what it dlopens itself (the JIT compiler, NVVM, the
 * debugger): a system libcuda with a compat JIT compiler is a mismatch too.
 * libcuda.so for programs that open the unversioned name (numba, Blender's
 * cuew). */
const char *const pin_names[] = {
	"libcuda.so.1", "libcuda.so", "libnvidia-ptxjitcompiler.so.1",
	"libnvidia-nvvm.so.4", "libcudadebugger.so.1",
};
const int pin_names_n = sizeof pin_names / sizeof pin_names[0];

bool pin_needed(const struct candidates *c, int prog_class, int prog_machine)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->v[i].has_lib && c->v[i].elf_class == prog_class &&
		    c->v[i].elf_machine == prog_machine)
			return true;
	return false;
}

/* Where a distribution puts the driver with every other library: the
 * shipped pin directories are for these (Makefile, PIN_DIRS). */
static const char *const *general_dirs(int machine)
{
	static const char *const x86_64[] = { "/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib", NULL };
	static const char *const aarch64[] = { "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib", NULL };
	static const char *const other[] = { "/usr/lib64", "/usr/lib", NULL };
	return machine == EM_X86_64 ? x86_64 : machine == EM_AARCH64 ? aarch64 : other;
}

static bool is_candidate_dir(const struct candidates *c, const char *dir)
{
	for (size_t i = 0; i < c->n; i++)
		if (strcmp(c->v[i].dir, dir) == 0)
			return true;
	return false;
}

/* Does dir (as on the target) hold a libcuda.so.1?  One system call. */
static bool has_libcuda(const char *root, const char *dir)
{
	size_t rl = root_len(root), dl = strlen(dir);
	char *full = malloc(rl + dl + sizeof "/libcuda.so.1");
	if (!full)
		return false;
	memcpy(full, root, rl);
	memcpy(full + rl, dir, dl);
	strcpy(full + rl + dl, "/libcuda.so.1");
	bool there = access(full, F_OK) == 0;
	free(full);
	return there;
}

void pin_system(const char *root, const char *self, const struct host *h,
		const struct candidates *c, int machine, bool secure, struct pin *out)
{
	memset(out, 0, sizeof *out);
	for (int i = 0; i < h->n_driver_dirs && !out->system_dir; i++)
		if (!is_candidate_dir(c, h->driver_dirs[i]) && has_libcuda(root, h->driver_dirs[i])) {
			out->system_dir = h->driver_dirs[i];
			out->driver_only = true;
		}
	for (const char *const *g = general_dirs(machine); *g && !out->system_dir; g++)
		if (has_libcuda(root, *g))
			out->system_dir = *g;
	if (!out->system_dir) {
		snprintf(out->why, sizeof out->why,
			 "no system libcuda.so.1 in the driver or library directories: nothing to pin");
		return;
	}
	/* The shipped links first: a driver's own directory may lack a name
	 * (JetPack's tegra/ has no libcuda.so on some releases), and then a
	 * compat one named elsewhere would still be found.  Their targets are
	 * the target's own root: a test root (CUDALOAD_ROOT) has none. */
	const char *slash = self ? strrchr(self, '/') : NULL;
	if (slash && !root_len(root)) {
		size_t sl = (size_t)(slash - self);
		out->dir = malloc(sl + sizeof PIN_SHIPPED_BASE + strlen(out->system_dir));
		if (!out->dir)
			return;
		memcpy(out->dir, self, sl);
		strcpy(out->dir + sl, PIN_SHIPPED_BASE);
		strcat(out->dir, out->system_dir);
		if (access(out->dir, F_OK) == 0) {
			out->links = true;
		} else {
			snprintf(out->why, sizeof out->why, "no pin directory %.120s", out->dir);
			pin_free(out);
		}
	} else {
		snprintf(out->why, sizeof out->why, "%s",
			 slash ? "no pin directories under CUDALOAD_ROOT"
			       : "cannot tell where cudaload lives, so not where its pin directories are");
	}
	if (!out->dir && out->driver_only) {
		/* secure_filter has kept only trusted driver dirs */
		size_t rl = root_len(root), dl = strlen(out->system_dir);
		out->dir = malloc(rl + dl + 1);
		if (!out->dir)
			return;
		memcpy(out->dir, root, rl);
		memcpy(out->dir + rl, out->system_dir, dl + 1);
		out->why[0] = '\0';
	}
	if (out->dir && secure && !secure_path_trusted(out->dir)) {
		snprintf(out->why, sizeof out->why, "pin directory %.120s is not trusted (secure mode)",
			 out->dir);
		pin_free(out);
	}
}

void pin_free(struct pin *p)
{
	free(p->dir);
	p->dir = NULL;
}
