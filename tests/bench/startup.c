/* SPDX-License-Identifier: MIT */
/* startup ROUNDS PER NAME=COMMAND...: start each command ROUNDS x PER times
 * and print "name,median_seconds,median_page_faults" per command.
 *
 * Each round runs every command PER times in a row, the order rotated by
 * one from round to round, so that the drift of a shared machine hits every
 * command alike; one warm-up round is not counted.  A command is split on
 * spaces; leading VAR=VALUE words are added to its environment, the rest is
 * run with posix_spawn (no shell), output to /dev/null.  Page faults are
 * the child's minor and major faults from wait4, counted from its start
 * (posix_spawn shares memory until the exec, so almost all are the
 * program's). */
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_CMDS 24
#define MAX_ARGS 32
#define MAX_ENV 512

extern char **environ;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

struct cmd {
	char *name;
	char *args[MAX_ARGS + 1];
	char *env[MAX_ENV + 1];
	double *t, *faults;
};

/* environ with the command's VAR=VALUE words replacing or added. */
static void build_env(struct cmd *c, char **assign, int na)
{
	int k = 0;
	for (char **e = environ; *e && k < MAX_ENV - na; e++) {
		int replaced = 0;
		for (int i = 0; i < na; i++) {
			size_t n = strcspn(assign[i], "=") + 1;
			replaced |= strncmp(*e, assign[i], n) == 0;
		}
		if (!replaced)
			c->env[k++] = *e;
	}
	for (int i = 0; i < na; i++)
		c->env[k++] = assign[i];
	c->env[k] = NULL;
}

int main(int argc, char **argv)
{
	if (argc < 4)
		return 100;
	int rounds = atoi(argv[1]), per = atoi(argv[2]), n = argc - 3;
	if (rounds < 1 || per < 1 || n > MAX_CMDS) {
		fprintf(stderr, "startup: rounds and runs must be positive, at most %d commands\n", MAX_CMDS);
		return 100;
	}
	static struct cmd cmds[MAX_CMDS];
	size_t samples = (size_t)rounds * (size_t)per;
	for (int c = 0; c < n; c++) {
		char *spec = strdup(argv[c + 3]), *eq = strchr(spec, '=');
		if (!eq)
			return 100;
		*eq = '\0';
		cmds[c].name = spec;
		char *assign[MAX_ARGS];
		int k = 0, na = 0;
		for (char *tok = strtok(eq + 1, " "); tok && k < MAX_ARGS; tok = strtok(NULL, " ")) {
			if (k == 0 && tok[0] != '/' && strchr(tok, '=') && na < MAX_ARGS)
				assign[na++] = tok;
			else
				cmds[c].args[k++] = tok;
		}
		cmds[c].args[k] = NULL;
		if (k == 0)
			return 100;
		build_env(&cmds[c], assign, na);
		cmds[c].t = calloc(samples, sizeof *cmds[c].t);
		cmds[c].faults = calloc(samples, sizeof *cmds[c].faults);
	}
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	size_t got = 0;
	for (int r = -1; r < rounds; r++) {	/* round -1 warms up */
		for (int i = 0; i < n; i++) {
			struct cmd *c = &cmds[(i + (r < 0 ? 0 : r)) % n];
			for (int j = 0; j < per; j++) {
				double start = now();
				pid_t pid;
				if (posix_spawn(&pid, c->args[0], &fa, NULL, c->args, c->env) != 0) {
					fprintf(stderr, "startup: %s: cannot start\n", c->name);
					return 1;
				}
				int st;
				struct rusage ru;
				if (wait4(pid, &st, 0, &ru) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
					fprintf(stderr, "startup: %s failed\n", c->name);
					return 1;
				}
				double t = now() - start;
				if (r >= 0) {
					size_t at = (size_t)r * (size_t)per + (size_t)j;
					c->t[at] = t;
					c->faults[at] = (double)(ru.ru_minflt + ru.ru_majflt);
				}
			}
		}
		if (r >= 0)
			got += (size_t)per;
	}
	for (int c = 0; c < n; c++) {
		qsort(cmds[c].t, got, sizeof(double), cmp_double);
		qsort(cmds[c].faults, got, sizeof(double), cmp_double);
		printf("%s,%.9f,%.0f\n", cmds[c].name, cmds[c].t[got / 2], cmds[c].faults[got / 2]);
	}
	return 0;
}
