/* SPDX-License-Identifier: MIT */
/*
 * explain: what a start found and decided, told.  For the trace
 * (CUDALOAD_DEBUG) what else names a libcuda for the program; for
 * `cudaload --explain [--json] [--root DIR]` the choice's whole story
 * (common/report/report.h), with an image's paths as its own under
 * --root, and then the exit: 0, or 126/127 when the real loader cannot be
 * used.  A start's st->tell once the host is judged (fullpath.h).
 */
#ifndef CUDALOAD_EXPLAIN_H
#define CUDALOAD_EXPLAIN_H

#include "../../common/decision/judge.h"
#include "../start/steps.h"

/* hidden: its address is taken, which a GOT entry would hold (steps.h) */
__attribute__((visibility("hidden")))
void explain(struct start *st, const struct judge_in *in, struct judgement *j);

#endif
