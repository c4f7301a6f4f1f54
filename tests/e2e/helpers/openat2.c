/* SPDX-License-Identifier: MIT */
/* openat2: prints why openat2 is refused here (before Linux 5.6, a seccomp
 * filter, qemu-user), nothing where it works.  Exec mode finds the
 * program's name without /proc by it (loader/start/steps.c, program_by_real_name);
 * the tests that expect that ask this first. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(void)
{
	struct {
		uint64_t flags, mode, resolve;
	} how = { O_PATH | O_CLOEXEC, 0, 0x04 /* RESOLVE_NO_SYMLINKS */ };
	long fd = syscall(SYS_openat2, AT_FDCWD, "/", &how, sizeof how);
	if (fd < 0)
		printf("openat2: %s\n", strerror(errno));
	return 0;
}
