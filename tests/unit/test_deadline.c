/* SPDX-License-Identifier: MIT */
#include "helpers.h"

#include <signal.h>
#include <sys/wait.h>

#include "../../common/base/deadline.h"

static pid_t child_sleeping(int ms)
{
	pid_t pid = fork();
	if (pid == 0) {
		struct timespec t = { ms / 1000, (ms % 1000) * 1000000L };
		nanosleep(&t, NULL);
		_exit(7);
	}
	cr_assert_gt(pid, 0);
	return pid;
}

Test(deadline, a_child_that_ends_in_time_gives_its_status)
{
	struct deadline d;
	deadline_in(&d, 10000);
	int status = 0;
	cr_assert_eq(deadline_wait(child_sleeping(0), &d, false, &status), 0);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 7);
	cr_assert_gt(deadline_left_ms(&d), 0);
}

Test(deadline, a_child_past_it_is_killed_and_reaped)
{
	struct deadline d;
	deadline_in(&d, 50);
	int status = 0;
	pid_t pid = child_sleeping(60000);
	cr_assert_eq(deadline_wait(pid, &d, false, &status), -1);
	cr_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	cr_assert_eq(kill(pid, 0), -1, "reaped: no such process");
	cr_assert_eq(deadline_left_ms(&d), 0);
}

Test(deadline, read_tells_eof_a_full_buffer_and_the_deadline_apart)
{
	int p[2];
	char buf[8];
	size_t got;
	struct deadline d;
	deadline_in(&d, 10000);

	cr_assert_eq(pipe(p), 0);
	cr_assert_eq(write(p[1], "abc", 3), 3);
	close(p[1]);
	cr_assert_eq(deadline_read(p[0], buf, sizeof buf, &got, &d), DEADLINE_EOF);
	cr_assert_eq(got, 3);
	cr_assert_str_eq(buf, "abc");
	close(p[0]);

	cr_assert_eq(pipe(p), 0);
	cr_assert_eq(write(p[1], "0123456789", 10), 10);
	cr_assert_eq(deadline_read(p[0], buf, sizeof buf, &got, &d), DEADLINE_FULL);
	cr_assert_eq(got, 7);
	cr_assert_str_eq(buf, "0123456");

	/* the rest, then nothing more: the writer still holds the pipe */
	struct deadline soon;
	deadline_in(&soon, 30);
	cr_assert_eq(deadline_read(p[0], buf, sizeof buf, &got, &soon), DEADLINE_PASSED);
	cr_assert_eq(got, 3);
	cr_assert_str_eq(buf, "789");
	close(p[0]);
	close(p[1]);

	cr_assert_eq(deadline_read(-1, buf, sizeof buf, &got, &d), DEADLINE_FAILED);
}
