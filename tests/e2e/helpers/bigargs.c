/* SPDX-License-Identifier: MIT */
/* bigargs PROGRAM [MARGIN]: find (by trying) the largest argument list that
 * execve accepts here, then run PROGRAM with that list less MARGIN bytes and
 * report how the exec went: "fits N" when the program ran, else its status.
 * cudaload's exec mode adds its own arguments; this shows E2BIG reported. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define CHUNK 100000	/* below MAX_ARG_STRLEN (128 KiB) */

static char **args_of(const char *prog, size_t total)
{
	size_t n = total / (CHUNK + 1) + 2;
	char **av = calloc(n + 2, sizeof *av);
	size_t k = 0;
	av[k++] = (char *)prog;
	while (total > 1) {
		size_t len = total - 1 < CHUNK ? total - 1 : CHUNK;
		av[k] = malloc(len + 1);
		memset(av[k], 'a', len);
		av[k][len] = '\0';
		total -= len + 1;
		k++;
	}
	av[k] = NULL;
	return av;
}

static int try(const char *prog, size_t total)
{
	char **av = args_of(prog, total);
	pid_t pid = fork();
	if (pid == 0) {
		execv(prog, av);
		_exit(errno == E2BIG ? 200 : 201);
	}
	int st;
	waitpid(pid, &st, 0);
	for (char **a = av + 1; *a; a++)
		free(*a);
	free(av);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 100;
	size_t margin = argc > 2 ? strtoul(argv[2], NULL, 10) : 0;
	size_t lo = 0, hi = 64u << 20;
	while (hi - lo > 16) {	/* largest total that /bin/true accepts */
		size_t mid = lo + (hi - lo) / 2;
		if (try("/bin/true", mid) == 0)
			lo = mid;
		else
			hi = mid;
	}
	int st = try(argv[1], lo - margin);
	fprintf(stderr, "limit %zu, ran with %zu: status %d\n", lo, lo - margin, st);
	return 0;
}
