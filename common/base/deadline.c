/* SPDX-License-Identifier: MIT */
#include "deadline.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* The monotonic clock by the system call: musl's vDSO lookup would write
 * its pointer into the loader's writable page at a start (firstuse.c). */
static void monotonic(struct timespec *ts)
{
	syscall(SYS_clock_gettime, CLOCK_MONOTONIC, ts);
}

void deadline_in(struct deadline *d, long ms)
{
	monotonic(&d->end);
	d->end.tv_sec += ms / 1000;
	d->end.tv_nsec += (ms % 1000) * 1000000L;
	if (d->end.tv_nsec >= 1000000000L) {
		d->end.tv_sec++;
		d->end.tv_nsec -= 1000000000L;
	}
}

long deadline_left_ms(const struct deadline *d)
{
	struct timespec now;
	monotonic(&now);
	long long ms = (long long)(d->end.tv_sec - now.tv_sec) * 1000 +
		       (d->end.tv_nsec - now.tv_nsec + 999999) / 1000000;
	return ms > 0 ? (ms > 0x7fffffff ? 0x7fffffff : (long)ms) : 0;
}

enum deadline_read_end deadline_read(int fd, char *buf, size_t cap, size_t *got,
				     const struct deadline *d)
{
	enum deadline_read_end end = DEADLINE_FULL;
	*got = 0;
	if (fd < 0) {	/* poll would skip it and wait out the deadline */
		errno = EBADF;
		end = DEADLINE_FAILED;
	}
	while (end == DEADLINE_FULL && *got + 1 < cap) {
		long left = deadline_left_ms(d);
		struct pollfd p = { fd, POLLIN, 0 };
		int r = left ? poll(&p, 1, (int)left) : 0;
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			end = r == 0 ? DEADLINE_PASSED : DEADLINE_FAILED;
			break;
		}
		ssize_t n = read(fd, buf + *got, cap - 1 - *got);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0) {
			end = n == 0 ? DEADLINE_EOF : DEADLINE_FAILED;
			break;
		}
		*got += (size_t)n;
	}
	if (cap)
		buf[*got] = '\0';
	return end;
}

/* Until pid can be reaped or the deadline passes: a pidfd's poll where the
 * kernel has pidfd_open (5.3), else a nap that grows to 32 ms. */
static void await(pid_t pid, const struct deadline *d)
{
#ifdef SYS_pidfd_open
	int pfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (pfd >= 0) {
		struct pollfd p = { pfd, POLLIN, 0 };
		long left;
		while ((left = deadline_left_ms(d)) > 0 && poll(&p, 1, (int)left) < 0 && errno == EINTR)
			;
		close(pfd);
		return;
	}
#endif
	long nap = 1;
	siginfo_t info;
	for (;;) {
		info.si_pid = 0;	/* waitid leaves it so while the child runs */
		if (deadline_left_ms(d) == 0 ||
		    waitid(P_PID, (id_t)pid, &info, WEXITED | WNOHANG | WNOWAIT) < 0 || info.si_pid)
			break;
		struct timespec t = { 0, nap * 1000000L };
		nanosleep(&t, NULL);
		nap = nap < 32 ? nap * 2 : nap;
	}
}

int deadline_wait(pid_t pid, const struct deadline *d, bool group, int *status)
{
	await(pid, d);
	pid_t r;
	while ((r = waitpid(pid, status, WNOHANG)) < 0 && errno == EINTR)
		;
	if (r == pid)
		return 0;
	if (group)
		kill(-pid, SIGKILL);
	kill(pid, SIGKILL);
	while (waitpid(pid, status, 0) < 0 && errno == EINTR)
		;
	return -1;
}
