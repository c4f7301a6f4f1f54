/* SPDX-License-Identifier: MIT */
#include "forward.h"

#include <stdlib.h>
#include <string.h>

#include "decide.h"
#include "../host/tables.h"

/* c as NVIDIA's package of CUDA cuda for h's platform (forward.h): complete
 * (the PTX JIT compiler beside libcuda), of the program's machine, no note,
 * no verdict. */
static void published_package(const struct host *h, int cuda, int cls, int machine,
			      struct candidate *c)
{
	bool thor = strcmp(h->soc, "tegra264") == 0;
	memset(c, 0, sizeof *c);
	c->dir = (char *)"(a package of the tables)";
	c->origin = "tables";
	c->has_lib = true;
	c->elf_class = cls;
	c->elf_machine = machine;
	c->has_ptxjit = true;
	c->cuda = cuda;
	c->cuda_from = "tables";
	/* Data-center packages (and Thor's) carry their driver in the file
	 * name; a release's is the first branch that supports it, the oldest
	 * driver such a package can have. */
	if (h->platform == PLATFORM_DGPU || thor) {
		c->has_lib_driver = true;
		c->lib_driver = (struct driver_version){ tables_cuda_branch(cuda), 0, -1 };
	}
	c->orin_only = h->platform == PLATFORM_TEGRA && strcmp(h->soc, "tegra234") == 0 && cuda >= 13000;
}

int forward_newest(const struct host *h, int cls, int machine)
{
	if (h->platform == PLATFORM_NONE)
		return 0;
	/* a candidate and a decision hold a note and reasons: the heap's, off
	 * a command's stack */
	struct candidate *c = malloc(sizeof *c);
	struct decision *d = malloc(sizeof *d);
	int newest = 0;
	if (!c || !d) {
		free(c);
		free(d);
		return -1;
	}
	for (int i = 0, cuda; (cuda = tables_cuda_release(i)); i++) {
		struct candidates one = { .v = c, .n = 1, .cap = 1 };
		published_package(h, cuda, cls, machine, c);
		decide(h, &one, POLICY_AUTO, cls, machine, d);
		if (d->use_compat && cuda > newest)
			newest = cuda;
	}
	free(c);
	free(d);
	return newest;
}
