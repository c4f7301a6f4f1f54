/* SPDX-License-Identifier: MIT */
/* The record of patched programs (/var/lib/cudaload/patched).  Property:
 * every entry kept is storable, so saving and reading it back gives the
 * same list. */
#include <stdio.h>

#include "../../common/stores/patchlist.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct patchlist pl = { 0 };
	char why[128];
	patchlist_parse(&pl, (const char *)data, size, why, sizeof why);
	for (size_t i = 0; i < pl.n; i++) {
		if (!patchlist_storable(pl.v[i].interp, pl.v[i].path))
			abort();
		if (patchlist_find(&pl, pl.v[i].path) != (long)i)
			abort();	/* a path is listed once */
	}
	if (pl.n && patchlist_remove(&pl, pl.v[0].path) != true)
		abort();
	patchlist_free(&pl);
	return 0;
}
