/* SPDX-License-Identifier: MIT */
#include "firstuse.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../common/base/deadline.h"
#include "../../common/base/diag.h"
#include "../../common/packages/secure.h"
#include "../../common/base/sys.h"

int first_use_exec_verifier(const char *self_dir, char *helper, char **av, char **envp)
{
	/* arrays, not pointers: a table of pointers would be relocated into the
	 * writable segment, which must stay within its page (loader/data.ld) */
	static const char places[][40] = { "/cudaload-verify", "/../libexec/cudaload/cudaload-verify" };
	int err = ENOENT;
	for (size_t i = 0; i < sizeof places / sizeof places[0]; i++) {
		snprintf(helper, CL_PATH_MAX, "%s%s", self_dir, places[i]);
		av[0] = helper;
		execve(helper, av, envp);
		if (errno != ENOENT && err == ENOENT)
			err = errno;
	}
	return err;
}

int first_use_pending(const struct settings *s, const struct host *h,
		      const struct candidates *c, const struct decision *d, int *which, int cap)
{
	if (s->secure || s->first_use_off || s->policy != POLICY_AUTO ||
	    h->platform != PLATFORM_DGPU)
		return 0;
	int taken = d->chosen >= 0 ? c->v[d->chosen].cuda : 0, n = 0;
	for (size_t i = 0; i < c->n && n < cap; i++) {
		const struct candidate *k = &c->v[i];
		/* only what a verdict could make usable, and only what would
		 * then be taken over the present choice */
		if (!k->unknown || k->usable || k->cuda <= taken)
			continue;
		if (k->verdict.state == VSTATE_APPLIES)
			continue;	/* asked on this host: its answer stands */
		if (k->verdict.state == VSTATE_INCONCLUSIVE &&
		    (long long)time(NULL) - k->verdict.when < FIRST_USE_RETRY_S)
			continue;	/* the GPU was busy a moment ago */
		if (!secure_package_owned(s->root, k->dir, getuid())) {
			diag("first use: %s: others than root and this user can change it; not loaded to ask the driver",
			     k->dir);
			continue;
		}
		/* newest first: the order decide() would take them in */
		int j = n++;
		for (; j > 0 && c->v[which[j - 1]].cuda < k->cuda; j--)
			which[j] = which[j - 1];
		which[j] = (int)i;
	}
	return n;
}

/* Wait for EOF on fd at most seconds; true when it came. */
static bool wait_eof(int fd, int seconds)
{
	struct deadline d;
	char buf[256];
	size_t got;
	enum deadline_read_end end;
	deadline_in(&d, seconds * 1000L);
	while ((end = deadline_read(fd, buf, sizeof buf, &got, &d)) == DEADLINE_FULL)
		;
	return end == DEADLINE_EOF;
}

bool first_use_ask(const char *self, char **envp, const struct candidates *c,
		   const int *which, int n)
{
	const char *slash = self ? strrchr(self, '/') : NULL;
	if (!slash || n <= 0)
		return false;
	char *dir = strndup(self, (size_t)(slash - self));
	char *helper = malloc(CL_PATH_MAX);
	char **av = calloc((size_t)n * 2 + 7, sizeof *av);	/* 0, 4 options, the dir, the pairs, NULL */
	/* the options on the heap: writable copies of literals would sit in
	 * the writable segment at every start */
	static const char options[] = "--first-use\0--timeout\0" FIRST_USE_WAIT_STR "\0--cudaload-dir\0--package";
	char *opt = malloc(sizeof options);
	int fds[2] = { -1, -1 };
	bool done = false;
	if (!dir || !helper || !av || !opt || pipe2(fds, O_CLOEXEC) < 0)
		goto out;
	memcpy(opt, options, sizeof options);
	int k = 1;
	for (char *o = opt; k < 5; o += strlen(o) + 1)
		av[k++] = o;	/* --first-use --timeout N --cudaload-dir */
	char *opt_package = av[4] + strlen(av[4]) + 1;
	av[k++] = dir;
	for (int i = 0; i < n; i++) {
		av[k++] = opt_package;
		av[k++] = c->v[which[i]].dir;
	}
	diag("first use: asking the driver about %d package%s (at most %d s)", n, n == 1 ? "" : "s",
	     FIRST_USE_WAIT_S);
	/* clone, not musl's fork: no atfork state for this one use, and the
	 * children only make system calls until they exec */
	pid_t pid = (pid_t)syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0);
	if (pid == 0) {
		/* a grandchild in a session of its own: never this program's
		 * child, and out of the terminal's signals */
		if (syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0) != 0)
			_exit(0);
		setsid();
		int null = open("/dev/null", O_RDWR);
		if (fds[1] == STDOUT_FILENO)	/* dup2 onto itself keeps close-on-exec */
			fcntl(STDOUT_FILENO, F_SETFD, 0);
		else
			dup2(fds[1], STDOUT_FILENO);	/* the pipe: EOF when it is done */
		if (null >= 0) {
			dup2(null, STDIN_FILENO);
			dup2(null, STDERR_FILENO);
		}
		first_use_exec_verifier(dir, helper, av, envp);
		_exit(127);
	}
	close(fds[1]);
	fds[1] = -1;
	if (pid < 0)
		goto out;
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
	done = wait_eof(fds[0], FIRST_USE_WAIT_S);
	diag("first use: %s", done ? "the driver answered" : "no answer in time; the verifier goes on alone");
out:
	free(opt);
	if (fds[0] >= 0)
		close(fds[0]);
	if (fds[1] >= 0)
		close(fds[1]);
	free(av);
	free(helper);
	free(dir);
	return done;
}
