/* SPDX-License-Identifier: MIT */
/*
 * dupenv NAME=VALUE... -- PROGRAM [ARGS]: run PROGRAM with this process's
 * environment plus the given entries appended as they are, so a variable
 * can appear twice (env(1) and shells keep one).  glibc's ld.so reads the
 * last LD_LIBRARY_PATH, musl's the first (faults.sh).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern char **environ;

int main(int argc, char **argv)
{
	int sep = 1;
	while (sep < argc && strcmp(argv[sep], "--") != 0)
		sep++;
	if (sep + 1 >= argc) {
		fprintf(stderr, "usage: dupenv NAME=VALUE... -- PROGRAM [ARGS]\n");
		return 100;
	}
	size_t n = 0;
	while (environ[n])
		n++;
	char **env = calloc(n + (size_t)sep + 1, sizeof *env);
	if (!env)
		return 111;
	memcpy(env, environ, n * sizeof *env);
	for (int i = 1; i < sep; i++)
		env[n++] = argv[i];
	execve(argv[sep + 1], argv + sep + 1, env);
	perror(argv[sep + 1]);
	return 127;
}
