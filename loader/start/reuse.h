/* SPDX-License-Identifier: MIT */
/*
 * reuse: a start's prepared decision (common/stores/prepared.h).  Whether
 * this start may use or write one at all (reuse_fits: a patched program,
 * not set-id, on a host that may be a Jetson, naming no directories of its
 * own); the choice from one that still holds, at a readlink and a stat per
 * input (reuse_take); what the full path decided, kept for the next start
 * (reuse_keep).  A decision is kept as root's for root, in a user's own
 * XDG_RUNTIME_DIR for another, under a key of this build's ID, its path,
 * the settings and the program's class and machine.
 */
#ifndef CUDALOAD_REUSE_H
#define CUDALOAD_REUSE_H

#include <stdbool.h>

#include "../../common/decision/decide.h"
#include "../../common/host/probe.h"
#include "../../common/packages/compat.h"
#include "../../common/stores/prepared.h"
#include "steps.h"

bool reuse_fits(const struct start *st);

/* true: st->list (and, in exec mode, the loader) from a prepared decision
 * that holds for this program; false: judge the host (fullpath.h). */
bool reuse_take(struct start *st);

/* Keep what the full path decided (h, c, d; rec: what it read, from
 * prepared_begin) for the next start; written or not, the start goes on. */
void reuse_keep(struct start *st, struct prepared_record *rec, const struct host *h,
		const struct candidates *c, const struct decision *d);

#endif
