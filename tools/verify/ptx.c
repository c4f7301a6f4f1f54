/* SPDX-License-Identifier: MIT */
#include "ptx.h"

#include <stdio.h>

/* Each target with the PTX ISA version that introduced it, from the release
 * notes of NVIDIA's PTX ISA document ("PTX ISA Version X.Y ... adds support
 * for sm_NN"; LLVM's NVPTX target states the same minimums in NVPTX.td).
 * ISA as major * 10 + minor. */
static const struct {
	short target, isa;
} targets[] = {
	{ 30, 30 }, { 32, 40 }, { 35, 31 }, { 37, 41 },	/* Kepler */
	{ 50, 40 }, { 52, 41 }, { 53, 42 },			/* Maxwell */
	{ 60, 50 }, { 61, 50 }, { 62, 50 },			/* Pascal */
	{ 70, 60 }, { 72, 61 },					/* Volta */
	{ 75, 63 },						/* Turing */
	{ 80, 70 }, { 86, 71 }, { 87, 74 },			/* Ampere */
	{ 89, 78 },						/* Ada */
	{ 88, 90 },						/* (PTX ISA 9.0) */
	{ 90, 78 },						/* Hopper */
	{ 100, 86 }, { 101, 86 }, { 103, 88 }, { 110, 90 },	/* Blackwell */
	{ 120, 87 }, { 121, 88 },
};

int ptx_choose(int major, int minor, struct ptx_choice *out)
{
	if (major < 0 || minor < 0 || minor > 9 || major > 99)
		return -1;
	out->target = major * 10 + minor;
	out->isa = 0;
	out->guessed = false;
	int newest = 0;
	for (size_t i = 0; i < sizeof targets / sizeof targets[0]; i++) {
		if (targets[i].target == out->target)
			out->isa = targets[i].isa;
		if (targets[i].isa > newest)
			newest = targets[i].isa;
	}
	if (!out->isa) {
		/* not in the table: the newest ISA it knows, and said so */
		out->isa = newest;
		out->guessed = true;
	}
	return 0;
}

int ptx_module(const struct ptx_choice *c, char *buf, size_t cap)
{
	int n = snprintf(buf, cap,
			 ".version %d.%d\n"
			 ".target sm_%d\n"
			 ".address_size 64\n"
			 "\n"
			 ".visible .entry " PTX_ENTRY "()\n"
			 "{\n"
			 "\tret;\n"
			 "}\n",
			 c->isa / 10, c->isa % 10, c->target);
	return n < 0 || (size_t)n >= cap ? -1 : n;
}
