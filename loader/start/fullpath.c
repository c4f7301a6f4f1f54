/* SPDX-License-Identifier: MIT */
#include "fullpath.h"

#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>

#include "../../common/base/alloc.h"
#include "../../common/base/diag.h"
#include "../../common/base/env.h"
#include "../../common/base/sys.h"
#include "../../common/decision/judge.h"
#include "../../common/packages/reach.h"
#include "../../common/stores/prepared.h"
#include "firstuse.h"
#include "reuse.h"
#include "start.h"
#include "steps.h"

/* Where else the program can get a libcuda (common/packages/reach.h): its name, its
 * search paths, its environment (the user's LD_LIBRARY_PATH, without what a
 * cudaload above handed down).  The start's reach (judge.h); -1 only when
 * out of memory. */
static int reach_more(void *ctx, struct host *h, struct candidates *c)
{
	const struct start *st = ctx;
	const struct settings *s = &st->s;
	const struct target *t = &st->t;
	bool as_interp = st->as_interp;
	char **envp = st->envp;
	struct reach r = { .root = s->root, .machine = t->machine, .explain = st->o.explain || diag_on };
	char *name = NULL, *paths = NULL;
	if (as_interp) {
		/* The file the kernel runs: AT_EXECFN names a script whose #! line
		 * started it, and a venv's python is a link into its conda
		 * environment.  Without /proc, the name it was started by. */
		const char *fn = (const char *)getauxval(AT_EXECFN);
		if ((name = malloc(CL_PATH_MAX)) && exe_name(name, CL_PATH_MAX))
			r.program = name = realloc(name, strlen(name) + 1);	/* the rest given back */
		else if (fn && fn[0] == '/' && !s->secure)
			r.program = fn;
		reach_paths_from_memory(start_program.phdr, start_program.phnum, start_program.phent,
					&r.rpath, &r.runpath, &r.cudart);
		if (root_len(s->root))
			r.own_name = program_by_name(t->argv, t->argc, s->root);
	} else if (t->path) {
		r.program = t->path[0] == '/' ? t->path : (name = realpath(t->path, NULL));
		if ((paths = malloc(2 * 1024 + REACH_CUDART_MAX)) &&
		    reach_paths_from_file(t->path, paths, paths + 1024, paths + 2048, 1024) == 0) {
			r.rpath = paths;
			r.runpath = paths + 1024;
			r.cudart = paths[2048] ? paths + 2048 : NULL;
		}
	}
	if (!s->secure) {
		r.llp = st->user_llp;
		r.conda_prefix = env_get(envp, "CONDA_PREFIX");
		r.cuda_home = env_get(envp, "CUDA_HOME");
		r.cuda_home_from = "CUDA_HOME";
		if (!r.cuda_home) {
			r.cuda_home = env_get(envp, "CUDA_PATH");
			r.cuda_home_from = "CUDA_PATH";
		}
	}
	int got = reach_discover(&r, h, c);
	free(paths);
	free(name);
	return got;
}

/* The start's first use (firstuse.h): the driver asked about what only it
 * can judge of the packages this start would take. */
static bool ask_driver(void *ctx, const struct judgement *j)
{
	struct start *st = ctx;
	int ask[FIRST_USE_MAX];
	int n = first_use_pending(&st->s, &j->host, &j->cands, &j->d, ask, FIRST_USE_MAX);
	return n && first_use_ask(st->self, st->envp, &j->cands, ask, n);
}

void fullpath_judge(struct start *st)
{
	struct judgement j;
	judge_init(&j);
	const struct judge_in in = {
		.s = &st->s, .cls = st->t.cls, .machine = st->t.machine, .self = st->self,
		.bare = st->bare, .full = st->o.explain || diag_on, .explain = st->o.explain,
		.reach = reach_more, .reach_ctx = st,
		.stores = JUDGE_STORES_START, .envp = st->envp, .uid = (unsigned)getauxval(AT_UID),
		.ask = st->o.explain ? NULL : ask_driver, .ask_ctx = st,
		.user_llp = st->user_llp, .one_argument = st->s.mode == MODE_EXEC,
	};
	struct prepared_record rec = { .seen = NULL };
	bool preparing = !diag_on && reuse_fits(st) && prepared_begin(&rec, st->s.root) == 0;
	judge_host(&in, &j);
	st->list = j.list;
	st->own = st->as_interp ? NULL : j.own;	/* `cudaload PROGRAM` hands these down */
	prepared_end(&rec);
	/* Kept where there is a GPU to judge: a host without one leaves no
	 * file behind (its full path is two failed opens and the device tree) */
	if (preparing && j.settled && j.whole && !st->bare && j.host.platform != PLATFORM_NONE)
		reuse_keep(st, &rec, &j.host, &j.cands, &j.d);
	prepared_record_free(&rec);
	if (st->tell)
		st->tell(st, &in, &j);	/* --explain exits */
}

