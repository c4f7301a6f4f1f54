/* SPDX-License-Identifier: MIT */
/*
 * ptx: the PTX module cudaload --verify loads on each device, so that the
 * package's JIT compiler is judged as a program uses it.
 *
 * The module is chosen per device, from the compute capability that the
 * driver under test reports for it: `.target sm_XY` of that capability and
 * the lowest `.version` (PTX ISA) that introduced the target.  Every JIT
 * that supports a GPU takes the ISA that came out with it, so a good
 * package (or the system driver) is never blamed for a module it could not
 * take.  A capability newer than the table gets the newest ISA the table
 * knows, and ptx_choose says so.
 */
#ifndef CUDALOAD_PTX_H
#define CUDALOAD_PTX_H

#include <stdbool.h>
#include <stddef.h>

/* The kernel's name in the module. */
#define PTX_ENTRY "cudaload_verify"

struct ptx_choice {
	int target;		/* 70 for sm_70 */
	int isa;		/* 60 for PTX ISA 6.0 */
	bool guessed;		/* the capability is not in the table */
};

/* The target and ISA for compute capability major.minor.  -1 when the
 * capability cannot be a target (negative, or a minor of 10 and more). */
int ptx_choose(int major, int minor, struct ptx_choice *out);

/* The module's text for a choice into buf (NUL-terminated); its length, or
 * -1 when it does not fit. */
int ptx_module(const struct ptx_choice *c, char *buf, size_t cap);

#endif
