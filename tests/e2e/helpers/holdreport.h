/* SPDX-License-Identifier: MIT */
/* For tests/e2e/suites/hold.sh: open SONAME with dlopen from the object that
 * includes this (its RUNPATH is the one searched) and print KEY=<the real
 * path of the file that answered SYMBOL>, "none" when nothing loaded. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

static void hold_report_here(const char *key, const char *soname, const char *symbol)
{
	void *h = dlopen(soname, RTLD_NOW);
	char *file = NULL;
	Dl_info info;
	void *sym = h ? dlsym(h, symbol) : NULL;
	if (sym && dladdr(sym, &info) && info.dli_fname)
		file = realpath(info.dli_fname, NULL);
	printf("%s=%s\n", key, file ? file : h ? "?" : "none");
	free(file);
}
