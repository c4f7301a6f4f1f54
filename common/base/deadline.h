/* SPDX-License-Identifier: MIT */
/*
 * deadline: waiting with a limit, the one way the tree does it: for a
 * child to end (then killed), and for a pipe to say all it has to say.
 * Used by the first use's wait for the driver's answer (firstuse.c), the
 * container hook's state and its children (ocihook/) and the verifier's
 * children (cudaload-verify.c).  Time is the monotonic clock's: a clock set
 * meanwhile changes nothing.  Nothing is kept between calls.
 */
#ifndef CUDALOAD_DEADLINE_H
#define CUDALOAD_DEADLINE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <time.h>

struct deadline {
	struct timespec end;	/* CLOCK_MONOTONIC */
};

/* A deadline ms milliseconds from now. */
void deadline_in(struct deadline *d, long ms);

/* Milliseconds left, 0 once it has passed. */
long deadline_left_ms(const struct deadline *d);

enum deadline_read_end {
	DEADLINE_EOF,		/* the writer closed the pipe */
	DEADLINE_FULL,		/* cap - 1 bytes read, more may follow */
	DEADLINE_PASSED,	/* the deadline came first */
	DEADLINE_FAILED,	/* read or poll failed: errno */
};

/* What fd gives, into buf (at most cap - 1 bytes, NUL-terminated), until
 * its end, a full buffer or the deadline; *got the bytes read. */
enum deadline_read_end deadline_read(int fd, char *buf, size_t cap, size_t *got,
				     const struct deadline *d);

/* pid's end by the deadline: 0, its wait status in *status.  Else pid, and
 * its process group where group, killed (SIGKILL) and reaped: -1. */
int deadline_wait(pid_t pid, const struct deadline *d, bool group, int *status);

#endif
