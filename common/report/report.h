/* SPDX-License-Identifier: MIT */
/*
 * report: a decision rendered for people (--explain) or tools (--explain
 * --json, docs/design.md §7 keys).  Text and JSON name things alike (model,
 * gpu, mode, ...).  Reads the same structs the hand-over uses.
 */
#ifndef CUDALOAD_REPORT_H
#define CUDALOAD_REPORT_H

#include <stdio.h>

#include "../packages/compat.h"
#include "../settings/settings.h"
#include "../decision/decide.h"
#include "../elf/ldso.h"
#include "../decision/pin.h"
#include "../host/probe.h"
#include "../stores/verdicts.h"

struct report {
	const struct settings *settings;
	const struct host *host;
	const struct candidates *candidates;
	const struct decision *decision;
	const char *program;		/* NULL when none was given */
	const struct ldso_info *ldso;	/* NULL when none was needed */
	const char *ldso_problem;	/* why the loader is unusable, or NULL */
	const char *library_path;	/* NULL: no --library-path */
	const struct verdict *system_verdict;	/* the store's baseline; NULL or none: no store */
	long long now;			/* for the age of verdicts */
	const char *mode;		/* "chain", "exec", "direct"; NULL: the settings' */
	const char *mode_why;		/* why that mode, or NULL */
	const struct pin *pin;		/* the system driver's pin; NULL: not looked for */
	const char *libcuda;		/* the file the program will load, or NULL */
	char *const *rivals;		/* pin_rivals() lines */
	int n_rivals;
};

void report_text(FILE *f, const struct report *r);
void report_json(FILE *f, const struct report *r);

/* Pieces of both, for `cudaload --status` (loader/commands/status.c): one
 * candidate's object of "candidates", the system verdict's object, and a
 * verdict's line ("verified 3 min ago: ...") after indent. */
void report_candidate_json(FILE *f, const struct candidate *c, long long now);
void report_verdict_json(FILE *f, const struct verdict *v, long long now);
void report_verdict_text(FILE *f, const char *indent, const struct verdict *v, long long now);

#endif
