/* SPDX-License-Identifier: MIT */
/*
 * judge: one judgement of a host for a program, the one every caller makes
 * (a start, --explain, --status, cudaload --verify, the container hook).
 *
 * Three steps, each on what the one before left in the judgement:
 * - look around: the host (probe.h), the packages where they are configured
 *   (compat.h) and wherever else this program reaches a libcuda (the
 *   caller's reach, reach.h), with the versions the config states; in
 *   secure mode only what root alone can change (secure.h);
 * - weigh: the verdicts of the stores, the decision (decide.h), and the
 *   driver's word where only it can judge a package (the caller's first
 *   use, firstuse.h), then the decision again;
 * - list: the system driver held first where a package could beat it
 *   (pin.h), and the search list (searchlist.h).
 *
 * Where callers differ (which stores, which places, a list that must fit
 * one exec argument), that is an input here, never a copy of a step.
 * A host without a GPU pays for the probe alone: nothing is looked for
 * where nothing could be chosen or held against.
 */
#ifndef CUDALOAD_JUDGE_H
#define CUDALOAD_JUDGE_H

#include <stdbool.h>

#include "../packages/compat.h"
#include "../settings/settings.h"
#include "decide.h"
#include "pin.h"
#include "../host/probe.h"
#include "../stores/verdicts.h"

/* Which verdicts weigh. */
enum judge_stores {
	JUDGE_STORES_NONE,	/* none: the tables alone */
	JUDGE_STORES_START,	/* root's, then the user's, as a start reads them
				 * (verdict_load_stores) */
	JUDGE_STORES_SURVEY,	/* root's, stale ones shown too (verdict_survey: --status) */
};

struct judgement;
struct reach;

/* Adds to c what else the program reaches (reach.h); system driver
 * directories found on the way go into h.  -1 only when out of memory. */
typedef int judge_reach_fn(void *ctx, struct host *h, struct candidates *c);

/* Asks the driver about what only it can judge in j (firstuse.h): true when
 * it answered, so that the stores are read again. */
typedef bool judge_ask_fn(void *ctx, const struct judgement *j);

struct judge_in {
	struct settings *s;		/* root, policy, mode, places; warnings go here */
	int cls, machine;		/* the program's ELF class and e_machine */
	const char *self;		/* this cudaload's path (the pin beside it) */
	const char *bare;		/* why no search list can change anything (then
					 * nothing is looked at), or NULL */
	bool full;			/* look at everything, as --explain and the trace do */
	bool explain;			/* nothing runs: every verdict is read, whatever
					 * the policy */
	/* look around */
	const char *const *packages;	/* only these packages (a first use's), or NULL:
					 * the configured ones */
	int n_packages;
	judge_reach_fn *reach;		/* NULL: the configured places alone */
	void *reach_ctx;
	/* the container hook's image: the host probed under s, only the GPUs
	 * of these minors judged; then (the caller having entered the image
	 * between judge_look_at_host and judge_look_for_packages) packages
	 * looked for as the image's own starts would */
	const int *gpu_minors;		/* NULL: every GPU */
	int n_gpu_minors;
	struct settings *image;		/* the image's settings (its root, config and
					 * places), or NULL: s's */
	const struct reach *image_reach;	/* what the image's loader reaches, or NULL */
	/* weigh */
	enum judge_stores stores;
	char *store_why;		/* JUDGE_STORES_SURVEY: what is wrong with a damaged
					 * store (store_why_cap bytes) */
	size_t store_why_cap;
	char **envp;			/* the environment (the user's store's names, what
					 * names a libcuda), or NULL: none */
	unsigned uid;			/* JUDGE_STORES_START: the real uid */
	judge_ask_fn *ask;		/* NULL: no first use */
	void *ask_ctx;
	/* list */
	const char *user_llp;		/* the user's LD_LIBRARY_PATH, or NULL */
	bool one_argument;		/* the list must fit one exec argument */
};

struct judgement {
	struct host host;		/* look around: the platform, GPU, driver */
	struct candidates cands;	/* look around: every package found */
	bool whole;			/* nothing left out for want of memory */
	enum verdict_store_state store;	/* weigh, JUDGE_STORES_SURVEY: the store's state */
	struct verdict system_verdict;	/* weigh: the system driver's, from a store */
	struct decision d;		/* weigh */
	bool settled;			/* weigh: no package waits for the driver's word */
	struct pin pin;			/* list: the system driver held first, or none */
	char *own;			/* list: the chosen driver's own directories, or NULL */
	char *list;			/* list: own, then the user's list: ld.so's, or NULL */
};

/* A judgement with nothing in it yet. */
void judge_init(struct judgement *j);

/* look around: the host, then the packages (what judge_look_around does
 * in one). */
void judge_look_at_host(const struct judge_in *in, struct judgement *j);
void judge_look_for_packages(const struct judge_in *in, struct judgement *j);
void judge_look_around(const struct judge_in *in, struct judgement *j);
void judge_weigh(const struct judge_in *in, struct judgement *j);
/* The search list for j->d, whoever set it (a caller may list for a decision of
 * its own: cudaload --verify runs each package). */
void judge_search_list(const struct judge_in *in, struct judgement *j);

/* What else names a libcuda for the program (path, or NULL: none) beside
 * the chosen driver, held or not by a search list (pin_rivals). */
int judge_rivals(const struct judge_in *in, const struct judgement *j, const char *program,
		 bool held, char **libcuda, char ***lines);

/* The host judged for the program: all three steps. */
void judge_host(const struct judge_in *in, struct judgement *j);

/* The search list, the caller's now (malloc'd, or NULL: none); the rest
 * of it (the pin, own) given back, for another judge_search_list. */
char *judge_search_list_take(struct judgement *j);

#endif
