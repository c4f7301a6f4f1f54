/* SPDX-License-Identifier: MIT */
/*
 * maxrss COMMAND [ARGS...]: runs COMMAND (its output to /dev/null) and
 * prints "STATUS MAXRSS": its exit status and the most memory it had
 * resident, in KiB (getrusage of the child, through wait4).  A small
 * program of its own, so the copy that the fork makes before the exec is
 * small too (a Python parent's would count as the child's).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 2) {
		fputs("usage: maxrss COMMAND [ARGS...]\n", stderr);
		return 2;
	}
	pid_t pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);
		if (null >= 0) {
			dup2(null, 1);
			dup2(null, 2);
		}
		execvp(argv[1], argv + 1);
		_exit(127);
	}
	int st;
	struct rusage ru;
	if (pid < 0 || wait4(pid, &st, 0, &ru) != pid) {
		perror("maxrss");
		return 2;
	}
	printf("%d %ld\n", WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st), ru.ru_maxrss);
	return 0;
}
