/* SPDX-License-Identifier: MIT */
/*
 * fullpath: a start without a prepared decision that holds.  The host
 * judged for the program (common/decision/judge.h) with the start's own
 * reach (its name, search paths and environment) and its first use of a
 * package only the driver can judge (firstuse.h); the decision kept for
 * the next start (reuse.h); then told (st->tell: --explain, the trace) or
 * left in st->list for the hand-over.  Apart from main: its frame holds
 * what a prepared decision spares.
 */
#ifndef CUDALOAD_FULLPATH_H
#define CUDALOAD_FULLPATH_H

#include "steps.h"

void fullpath_judge(struct start *st);

#endif
