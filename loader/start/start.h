/* SPDX-License-Identifier: MIT */
/*
 * start: cudaload's own entry, between musl's self-relocation and libc init.
 *
 * As PT_INTERP, AT_PHDR/AT_PHNUM in the auxv describe the *program*; musl's
 * static TLS setup would read the program's PT_TLS as its own and crash
 * (nix-ld#8).  We point those slots at cudaload's own headers before libc
 * starts and keep the program's values here.
 */
#ifndef CUDALOAD_START_H
#define CUDALOAD_START_H

#include <stddef.h>

struct program_auxv {
	const void *phdr;	/* the program's AT_PHDR */
	size_t phnum, phent;
	size_t *auxv;		/* the process auxv, for a later restore */
};

extern struct program_auxv start_program;

#endif
