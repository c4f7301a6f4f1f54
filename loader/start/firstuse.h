/* SPDX-License-Identifier: MIT */
/*
 * firstuse: the driver's word at the first start that needs it.
 *
 * Where the tables allow a package only the driver can judge (a workstation
 * board, a GPU of unknown architecture) or do not know it (a CUDA or branch
 * past their rows), and no verdict for it is stored, the start that would
 * take it asks: cudaload-verify --first-use runs for those packages in a
 * process of its own session, a grandchild, so that nothing of it is ever
 * this program's child; this start waits for its word (EOF on a pipe) at
 * most FIRST_USE_WAIT_S seconds and then reads the stores again.  The
 * verifier holds the store's lock while it works, so processes that start
 * together (torchrun's ranks) ask once.  A verdict that the GPU was busy
 * (inconclusive) is asked again only after FIRST_USE_RETRY_S.
 *
 * Never for a set-id program, never on a Jetson (its tables are complete:
 * no system call more there), never under "first_use = off" or a policy
 * other than auto, never for a package that anyone but root and this user
 * could change (the verifier loads it).
 */
#ifndef CUDALOAD_FIRSTUSE_H
#define CUDALOAD_FIRSTUSE_H

#include <stdbool.h>

#include "../../common/packages/compat.h"
#include "../../common/settings/settings.h"
#include "../../common/decision/decide.h"
#include "../../common/host/probe.h"

#define FIRST_USE_WAIT_S 10
#define FIRST_USE_WAIT_STR "10"	/* the verifier's --timeout for each child */
#define FIRST_USE_RETRY_S 300
#define FIRST_USE_MAX 8		/* packages asked about in one start */

/* Which candidates this start should ask about: their indices into which
 * (at most cap), newest first as decide() would take them; 0 when none. */
int first_use_pending(const struct settings *s, const struct host *h,
		      const struct candidates *c, const struct decision *d, int *which, int cap);

/* Ask the driver about those candidates (self: this binary's path, whose
 * directory holds the verifier).  true when the verifier finished within
 * the wait, so the stores are worth reading again. */
bool first_use_ask(const char *self, char **envp, const struct candidates *c,
		   const int *which, int n);

/* Exec the verifier, cudaload-verify beside this binary (self_dir: its
 * directory) or in self_dir/../libexec/cudaload, with av (av[0] is set
 * here, to helper: CL_PATH_MAX bytes).  Returns only when neither could be
 * run: the errno of the first failure other than ENOENT, else ENOENT. */
int first_use_exec_verifier(const char *self_dir, char *helper, char **av, char **envp);

#endif
