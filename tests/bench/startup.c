/* startup RUNS NAME=COMMAND...: start each command RUNS times, round-robin
 * (so drift in the machine's speed hits every command alike), and print
 * "name,median_seconds" per command.  A command is split on spaces and run
 * with execv, no shell; its output goes to /dev/null. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_CMDS 16
#define MAX_ARGS 32

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

int main(int argc, char **argv)
{
	if (argc < 3)
		return 100;
	int runs = atoi(argv[1]), n = argc - 2;
	if (runs < 1 || n > MAX_CMDS)
		return 100;
	char *names[MAX_CMDS], *args[MAX_CMDS][MAX_ARGS + 1];
	double *t[MAX_CMDS];
	for (int c = 0; c < n; c++) {
		char *spec = strdup(argv[c + 2]), *eq = strchr(spec, '=');
		if (!eq)
			return 100;
		*eq = '\0';
		names[c] = spec;
		int k = 0;
		for (char *tok = strtok(eq + 1, " "); tok && k < MAX_ARGS; tok = strtok(NULL, " "))
			args[c][k++] = tok;
		args[c][k] = NULL;
		t[c] = calloc((size_t)runs, sizeof *t[c]);
	}
	int null = open("/dev/null", O_WRONLY);
	for (int r = -runs / 10 - 1; r < runs; r++) {	/* the first rounds warm up */
		for (int c = 0; c < n; c++) {
			double start = now();
			pid_t pid = fork();
			if (pid == 0) {
				dup2(null, 1);
				execv(args[c][0], args[c]);
				_exit(127);
			}
			int st;
			waitpid(pid, &st, 0);
			if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
				fprintf(stderr, "startup: %s failed\n", names[c]);
				return 1;
			}
			if (r >= 0)
				t[c][r] = now() - start;
		}
	}
	for (int c = 0; c < n; c++) {
		qsort(t[c], (size_t)runs, sizeof *t[c], cmp_double);
		printf("%s,%.9f\n", names[c], t[c][runs / 2]);
	}
	return 0;
}
