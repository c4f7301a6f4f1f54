/* SPDX-License-Identifier: MIT */
#include "engines.h"

#include <stdio.h>

int engines_main(int argc, char **argv, const char *self)
{
	(void)argc;
	(void)self;
	fprintf(stderr, "cudaload-runtime: %s: not built yet\n", argv[0]);
	return 2;
}
