/* SPDX-License-Identifier: MIT */
#include "judge.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/diag.h"
#include "searchlist.h"
#include "../packages/reach.h"
#include "../packages/secure.h"

void judge_init(struct judgement *j)
{
	memset(j, 0, sizeof *j);
	j->whole = true;
	j->settled = true;
	j->d.chosen = -1;
}

void judge_look_at_host(const struct judge_in *in, struct judgement *j)
{
	struct settings *s = in->s;
	if (in->bare)
		return;	/* nothing a search list could change: nothing to look at */
	probe_host(s->root, (const char *const *)s->driver_dirs, s->n_driver_dirs, in->full, &s->visible,
		   &j->host);
	probe_keep_minors(s->root, &j->host, in->gpu_minors, in->n_gpu_minors);
}

void judge_look_for_packages(const struct judge_in *in, struct judgement *j)
{
	struct settings *s = in->image ? in->image : in->s;
	if (in->bare)
		return;
	/* Looked for when one could be chosen, and wherever a GPU is: a package
	 * the policy refuses can still be named by a RUNPATH (pin.h). */
	int found = 0;
	if (!in->full && !decide_may_use_compat(&j->host, s->policy) && j->host.platform == PLATFORM_NONE)
		;	/* nothing to choose or to hold against */
	else if ((found = in->packages ? compat_discover(s->root, in->packages, in->n_packages, NULL, 0,
							 "first use", &j->cands)
				       : compat_discover(s->root, (const char *const *)s->compat_env,
							 s->n_compat_env, (const char *const *)s->compat,
							 s->n_compat,
							 s->compat_from_config ? "config" : "default",
							 &j->cands)) < 0) {
		j->whole = false;
		diag("out of memory while looking for compat packages");
	} else if ((in->image_reach && reach_discover(in->image_reach, &j->host, &j->cands) < 0) ||
		   (in->reach && in->reach(in->reach_ctx, &j->host, &j->cands) < 0)) {
		j->whole = false;
		diag("out of memory while looking where else a libcuda is");
	}
	compat_apply_stated(s->root, &j->cands, (const char *const *)s->compat, s->compat_cuda,
			    s->n_compat);
	if (s->secure)
		secure_filter(s->root, &j->host, &j->cands);
}

void judge_look_around(const struct judge_in *in, struct judgement *j)
{
	judge_look_at_host(in, j);
	judge_look_for_packages(in, j);
}

/* The stores' verdicts on what was found (verdict.h). */
static void read_stores(const struct judge_in *in, struct judgement *j)
{
	const struct settings *s = in->s;
	if (in->stores == JUDGE_STORES_SURVEY)
		j->store = verdict_survey(s->root, &j->host, &j->cands, &j->system_verdict, in->store_why,
					  in->store_why_cap);
	/* Verdicts matter only when there is something to verify and the
	 * policy leaves the choice to the device (docs/design.md): root's
	 * store, then this user's own (never set-id, never on a Jetson). */
	else if (in->stores == JUDGE_STORES_START && j->cands.n > 0 &&
		 (s->policy == POLICY_AUTO || in->explain))
		verdict_load_stores(s->root, s->secure, in->envp, in->uid, &j->host, &j->cands,
				    &j->system_verdict);
}

void judge_weigh(const struct judge_in *in, struct judgement *j)
{
	struct settings *s = in->s;
	j->settled = true;
	if (in->bare) {
		j->d.use_compat = false;
		j->d.chosen = -1;
		snprintf(j->d.reason, sizeof j->d.reason, "system driver: %s", in->bare);
		return;
	}
	read_stores(in, j);
	decide(&j->host, &j->cands, s->policy, in->cls, in->machine, &j->d);
	/* What only the driver can judge is asked once, by the start that
	 * would take it (firstuse.h); then the stores are read again. */
	if (in->ask && in->ask(in->ask_ctx, j)) {
		read_stores(in, j);
		decide(&j->host, &j->cands, s->policy, in->cls, in->machine, &j->d);
	}
	for (size_t i = 0; i < j->cands.n; i++) {
		const struct candidate *c = &j->cands.v[i];
		j->settled = j->settled && !c->needs_word;
		diag("candidate %s (%s): %s: %s", c->dir, reach_origin_text(c->origin),
		     c->usable ? "usable" : "refused", c->reason);
	}
	diag("decision: %s", j->d.reason);
}

void judge_search_list(const struct judge_in *in, struct judgement *j)
{
	struct settings *s = in->s;
	struct decision *d = &j->d;
	if (!in->bare && !d->use_compat && pin_needed(&j->cands, in->cls, in->machine)) {
		pin_system(s->root, in->self, &j->host, &j->cands, in->machine, s->secure, &j->pin);
		if (j->pin.dir)
			diag("pin %s (%s)", j->pin.dir, j->pin.links ? "links to the driver's files"
								 : "the driver's own directory");
		else
			diag("system driver not pinned: %s", j->pin.why);
	}
	char *own = in->bare ? NULL : searchlist_own(s->root, d, &j->cands, &j->host, j->pin.dir);
	char *llp = own && in->user_llp && !s->secure ? searchlist_extend(own, in->user_llp, s->secure) : own;
	if (d->use_compat && !llp) {
		j->whole = false;
		d->use_compat = false;
		snprintf(d->reason, sizeof d->reason, "system driver: no memory for the search list");
	}
	/* Exec mode passes the list as one argument, which the kernel may
	 * refuse (E2BIG): then no list, and the program runs (fail open). */
	if (llp && in->one_argument && !searchlist_fits_argument(llp)) {
		settings_warn(s, "the search list (%zu bytes) is longer than exec mode can pass in one "
			      "argument; the system driver, unpinned", strlen(llp));
		if (llp != own)
			free(llp);
		free(own);
		own = llp = NULL;
		d->use_compat = false;
		snprintf(d->reason, sizeof d->reason,
			 "system driver: the search list (with LD_LIBRARY_PATH) is too long to pass in exec mode");
	}
	j->own = own;
	j->list = llp;
}

int judge_rivals(const struct judge_in *in, const struct judgement *j, const char *program,
		 bool held, char **libcuda, char ***lines)
{
	const char *root = in->s->root;
	bool only;	/* the system driver, pinned or not: never its own rival */
	const char *sys_dir = j->pin.system_dir ? j->pin.system_dir
			      : pin_system_dir(root, &j->host, &j->cands, in->machine, &only);
	return pin_rivals(root, program, j->d.use_compat ? j->cands.v[j->d.chosen].dir : sys_dir, held,
			  in->user_llp, in->envp, in->s->secure, in->machine, libcuda, lines);
}

void judge_host(const struct judge_in *in, struct judgement *j)
{
	judge_look_around(in, j);
	judge_weigh(in, j);
	judge_search_list(in, j);
}

char *judge_search_list_take(struct judgement *j)
{
	char *list = j->list;
	if (j->own != list)
		free(j->own);
	j->own = j->list = NULL;
	pin_free(&j->pin);
	memset(&j->pin, 0, sizeof j->pin);
	return list;
}
