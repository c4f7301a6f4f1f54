/* SPDX-License-Identifier: MIT */
#include "tempname.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

static const char letters[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

void tempname_fill(char *name, size_t n)
{
	/* no state kept between calls: the loader links this too, and its
	 * writable segment must stay one page (docs/design.md §6) */
	uint64_t state;
	if (getrandom(&state, sizeof state, GRND_NONBLOCK) != (ssize_t)sizeof state) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		state = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 30) ^ ((uint64_t)getpid() << 48);
	}
	state |= 1;
	char *out = name + strlen(name) - n;
	for (size_t i = 0; i < n; i++) {
		/* xorshift64* */
		state ^= state >> 12;
		state ^= state << 25;
		state ^= state >> 27;
		out[i] = letters[((state * 0x2545F4914F6CDD1Dull) >> 40) % (sizeof letters - 1)];
	}
}

bool tempname_is_random(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!s[i] || !strchr(letters, s[i]))
			return false;
	return true;
}

int tempname_create(int dirfd, char *name, size_t n, int flags, mode_t mode)
{
	int fd = -1;
	errno = EEXIST;
	for (int tries = 0; tries < 100 && fd < 0 && errno == EEXIST; tries++) {
		tempname_fill(name, n);
		fd = openat(dirfd, name, flags | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
	}
	return fd;
}
