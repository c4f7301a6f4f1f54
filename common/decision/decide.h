/* SPDX-License-Identifier: MIT */
/*
 * decide: which libcuda the program gets.
 *
 * A pure function of the host facts, the candidates, the policy and the
 * program's ELF class and machine.  It marks every candidate usable or not
 * with the reason, and returns the choice with its reason, so that
 * --explain, CUDALOAD_DEBUG and the tests all read what the hand-over uses.
 */
#ifndef CUDALOAD_DECIDE_H
#define CUDALOAD_DECIDE_H

#include <stdbool.h>

#include "../packages/compat.h"
#include "../settings/settings.h"
#include "../host/probe.h"

struct decision {
	bool use_compat;
	int chosen;		/* index into the candidates, -1 for the system driver */
	char reason[768];
};

void decide(const struct host *h, struct candidates *c, enum policy policy,
	    int prog_class, int prog_machine, struct decision *out);

/* Could any candidate be chosen on this host under this policy?  When not,
 * decide() chooses the system driver whatever the candidates, so a run need
 * not look for them (--explain and CUDALOAD_DEBUG still do: the reason they
 * show can name candidates). */
bool decide_may_use_compat(const struct host *h, enum policy policy);

#endif
