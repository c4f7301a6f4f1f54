/* SPDX-License-Identifier: MIT */
/*
 * A set-id program that runs a user's command as that user, as su, newgrp,
 * sg and pkexec do, and the user's command (tests/e2e/suites/secure.sh):
 *
 *   setidexec id              prints "VERSION euid=N egid=N"
 *   setidexec run CMD [ARG...]
 *                             prints "VERSION run euid=N egid=N", takes the
 *                             real ids for all three (the set-id ones are
 *                             gone), then execs CMD
 *   setidexec try DIR         the user's command: makes DIR/started, waits
 *                             (10 s at most) for DIR/replaced, the upgrade
 *                             of the set-id
 *                             program, then prints "fds=0 1 2 ..." (what it
 *                             inherited) and runs each descriptor beyond
 *                             0-2 as "setidexec id" (execveat, AT_EMPTY_PATH,
 *                             in a child; where that is not implemented, as
 *                             under qemu-user, execve of /proc/self/fd/N):
 *                             "fd N: " then the child's line,
 *                             or "fd N: execveat: ERROR"; last
 *                             "try euid=N egid=N"
 *
 * VERSION is SETIDEXEC_VERSION, set at build time ("old", "new").  Exits
 * 0, or 2 when something it needs fails.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef SETIDEXEC_VERSION
#define SETIDEXEC_VERSION "plain"
#endif

extern char **environ;

__attribute__((noreturn)) static void die(const char *what)
{
	fprintf(stderr, "setidexec: %s: %s\n", what, strerror(errno));
	exit(2);
}

/* The descriptors open now, the directory's own left out. */
static int inherited(int *fds, int cap)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;
	if (!d)
		die("/proc/self/fd");
	for (struct dirent *e; (e = readdir(d)) && n < cap;)
		if (e->d_name[0] != '.' && atoi(e->d_name) != dirfd(d))
			fds[n++] = atoi(e->d_name);
	closedir(d);
	for (int i = 1; i < n; i++)	/* readdir's order is the kernel's: sort */
		for (int j = i; j > 0 && fds[j - 1] > fds[j]; j--) {
			int t = fds[j];
			fds[j] = fds[j - 1];
			fds[j - 1] = t;
		}
	return n;
}

static int try_descriptors(const char *dir)
{
	char started[4096], replaced[4096];
	struct stat sb;
	snprintf(started, sizeof started, "%s/started", dir);
	snprintf(replaced, sizeof replaced, "%s/replaced", dir);
	int fd = open(started, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		die(started);
	close(fd);
	for (int i = 0; stat(replaced, &sb) < 0; i++) {
		if (i == 1000)
			die("waiting for the program to be replaced");
		nanosleep(&(struct timespec){ 0, 10 * 1000 * 1000 }, NULL);
	}
	int fds[256], n = inherited(fds, 256);
	printf("fds=");
	for (int i = 0; i < n; i++)
		printf("%s%d", i ? " " : "", fds[i]);
	printf("\n");
	for (int i = 0; i < n; i++) {
		if (fds[i] <= 2)
			continue;
		printf("fd %d: ", fds[i]);
		fflush(stdout);
		pid_t pid = fork();
		if (pid < 0)
			die("fork");
		if (pid == 0) {
			char *av[] = { (char *)"setidexec", (char *)"id", NULL };
			syscall(SYS_execveat, fds[i], "", av, environ, AT_EMPTY_PATH);
			if (errno == ENOSYS) {	/* qemu-user has none: the same by /proc */
				char self[64];
				snprintf(self, sizeof self, "/proc/self/fd/%d", fds[i]);
				execve(self, av, environ);
			}
			printf("execveat: %s\n", strerror(errno));
			fflush(stdout);
			_exit(127);
		}
		int st;
		while (waitpid(pid, &st, 0) < 0)
			if (errno != EINTR)
				die("waitpid");
	}
	printf("try euid=%d egid=%d\n", (int)geteuid(), (int)getegid());
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 2 && strcmp(argv[1], "id") == 0) {
		printf("%s euid=%d egid=%d\n", SETIDEXEC_VERSION, (int)geteuid(), (int)getegid());
		return 0;
	}
	if (argc >= 3 && strcmp(argv[1], "run") == 0) {
		printf("%s run euid=%d egid=%d\n", SETIDEXEC_VERSION, (int)geteuid(), (int)getegid());
		gid_t g = getgid();
		uid_t u = getuid();
		if (setresgid(g, g, g) < 0 || setresuid(u, u, u) < 0)
			die("dropping the set-id ids");
		execv(argv[2], argv + 2);
		die(argv[2]);
	}
	if (argc == 3 && strcmp(argv[1], "try") == 0)
		return try_descriptors(argv[2]);
	fprintf(stderr, "usage: setidexec id | run CMD [ARG...] | try DIR\n");
	return 2;
}
