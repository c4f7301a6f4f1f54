/* SPDX-License-Identifier: MIT */
#include "verify.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../common/base/alloc.h"
#include "../../common/base/env.h"
#include "../../common/stores/prepared.h"
#include "../start/firstuse.h"
#include "../start/fullpath.h"
#include "../start/handover.h"
#include "../start/pick.h"
#include "../start/reuse.h"

/* After --verify: the host's decision prepared for the programs that
 * bring nothing of their own (prepared.h), as a start of a program of
 * cudaload's own machine would make it; nothing run. */
static void prepare_for_host(struct start *st)
{
	st->for_host = true;
	st->self = path_from_kernel();
	settings_load_config(&st->s, st->envp, st->self);
	target_init(&st->t);
	st->t.cls = __ehdr_start.e_ident[EI_CLASS];
	st->t.machine = __ehdr_start.e_machine;
	st->user_llp = user_library_path(env_get(st->envp, "LD_LIBRARY_PATH"), st->envp, st->s.secure);
	if (reuse_fits(st))
		fullpath_judge(st);
}

void verify_run(struct start *st)
{
	char *self = path_from_kernel();
	char *helper = malloc(CL_PATH_MAX);
	char *slash = self ? strrchr(self, '/') : NULL;
	if (!slash)
		die(EXIT_NOT_FOUND, "--verify: cannot tell where cudaload lives (no /proc?)");
	if (!helper)
		die(EXIT_CANNOT_EXEC, "out of memory");
	*slash = '\0';
	char **av = calloc((size_t)st->argc + 4, sizeof *av);
	if (!av)
		die(EXIT_CANNOT_EXEC, "out of memory");
	static char opt_dir[] = "--cudaload-dir";
	int k = 1;
	av[k++] = opt_dir;
	av[k++] = self;
	for (int i = 1; i < st->argc; i++)
		av[k++] = st->argv[i];
	fflush(NULL);
	pid_t pid = fork();
	if (pid <= 0) {	/* the child, or no child: the verifier in its place */
		int e = first_use_exec_verifier(self, helper, av, st->envp);
		if (e != ENOENT)
			die(EXIT_CANNOT_EXEC, "%s: %s", helper, strerror(e));
		die(EXIT_NOT_FOUND, "--verify: no cudaload-verify in %s or %s/../libexec/cudaload", self,
		    self);
	}
	int status = 0;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	*slash = '/';
	/* The store just written is racy for PREPARED_RACY_S (prepared.h):
	 * wait that out, so that the next start finds the decision prepared. */
	struct timespec racy = { PREPARED_RACY_S, 100 * 1000 * 1000 };
	while (nanosleep(&racy, &racy) < 0 && errno == EINTR)
		;
	prepare_for_host(st);
	exit(WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
}

