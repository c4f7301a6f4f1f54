/* SPDX-License-Identifier: MIT */
#include "helpers.h"

#include <errno.h>

#include "../../common/base/diag.h"
#include "../../common/base/sys.h"

Test(sys_happy, join_and_read)
{
	char out[64];
	cr_assert_eq(root_join(out, sizeof out, "/r/", "/etc/x"), 0);
	cr_assert_str_eq(out, "/r/etc/x");
	cr_assert_eq(root_join(out, sizeof out, "/", "/etc/x"), 0);
	cr_assert_str_eq(out, "/etc/x");
	cr_assert_eq(root_join(out, sizeof out, NULL, "/etc/x"), 0);
	cr_assert_str_eq(out, "/etc/x");

	char *root = scratch_dir();
	put_text(root, "/etc/f", "hello\n");
	char buf[16];
	cr_assert_eq(read_small(root, "/etc/f", buf, sizeof buf), 6);
	cr_assert_str_eq(buf, "hello\n");
	cr_assert_eq(read_small(root, "/etc/f", buf, 4), 3, "bounded by cap");
	cr_assert_str_eq(buf, "hel");
	cr_assert(root_is_dir(root, "/etc"));
	cr_assert(!root_is_dir(root, "/etc/f"));
	rm_rf(root);
	free(root);
}

Test(sys_sad, odd_files)
{
	char buf[64], out[8];
	cr_assert_eq(root_join(out, sizeof out, "/root", "/etc/x"), -1);
	cr_assert_eq(read_small(NULL, "/nonexistent", buf, sizeof buf), -ENOENT);
	cr_assert_eq(read_small(NULL, "/tmp", buf, sizeof buf), -EISDIR);
	cr_assert_eq(read_small(NULL, "/dev/zero", buf, sizeof buf), 63, "endless file is cut");
	cr_assert_eq(read_small(NULL, "/etc/passwd", buf, 0), -EINVAL);

	char *root = scratch_dir();
	char fifo[4200];
	snprintf(fifo, sizeof fifo, "%s/fifo", root);
	cr_assert_eq(mkfifo(fifo, 0600), 0);
	cr_assert_eq(read_small(NULL, fifo, buf, sizeof buf), 0, "a FIFO with no writer does not block");
	char big[5000];
	memset(big, 'a', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	cr_assert_eq(read_small(big, "/x", buf, sizeof buf), -ENAMETOOLONG);
	rm_rf(root);
	free(root);
}

Test(sys_happy, diag_off_by_default, .init = cr_redirect_stderr)
{
	diag("nothing %d", 1);
	diag_on = true;
	diag("step %d", 2);
	diag_set_program("/usr/bin/app");
	diag("step %d", 3);
	diag_set_program(NULL);
	diag_on = false;
	fflush(stderr);
	char want[128];
	snprintf(want, sizeof want, "cudaload[%d]: step 2\ncudaload[%d] app: step 3\n",
		 (int)getpid(), (int)getpid());
	cr_assert_stderr_eq_str(want);
}

/* The trace prints names as every other output does (utf8.h): a program
 * or a directory named with an escape sequence or a newline cannot drive
 * the terminal or forge a line. */
Test(sys_sad, diag_names_printable, .init = cr_redirect_stderr)
{
	diag_on = true;
	diag_set_program("/tmp/\x1b]0;owned\x07" "app");
	diag("candidate %s: usable", "/usr/local/cuda-\xff\x1b[31mred\nx\\/compat");
	diag_set_program(NULL);
	diag_on = false;
	fflush(stderr);
	char want[256];
	snprintf(want, sizeof want,
		 "cudaload[%d] \\x1b]0;owned\\x07app: candidate /usr/local/cuda-\\xff\\x1b[31mred\\x0ax\\\\/compat: usable\n",
		 (int)getpid());
	cr_assert_stderr_eq_str(want);
}

/* getdents64 records, as both directory readers take them (dent_next). */
static size_t put_dent(char *buf, size_t at, unsigned short reclen, const char *name, size_t namelen)
{
	memset(buf + at, 0, reclen);
	memcpy(buf + at + 16, &reclen, sizeof reclen);
	memcpy(buf + at + DENT_HEAD, name, namelen);
	return at + reclen;
}

Test(sys_happy, dent_records)
{
	char buf[256];
	size_t len = put_dent(buf, 0, 24, "a", 2);
	len = put_dent(buf, len, 32, "gpu0000", 8);
	size_t pos = 0;
	const char *name;
	cr_assert_eq(dent_next(buf, len, &pos, &name), DENT_ENTRY);
	cr_assert_str_eq(name, "a");
	cr_assert_eq(dent_next(buf, len, &pos, &name), DENT_ENTRY);
	cr_assert_str_eq(name, "gpu0000");
	cr_assert_eq(dent_next(buf, len, &pos, &name), DENT_END);
}

Test(sys_sad, dent_bad_records)
{
	char buf[256];
	/* a name that fills its record without a NUL: skipped, the next still read */
	size_t len = put_dent(buf, 0, 24, "abcde", 5);
	len = put_dent(buf, len, 24, "ok", 3);
	size_t pos = 0;
	const char *name;
	cr_assert_eq(dent_next(buf, len, &pos, &name), DENT_UNTERMINATED);
	cr_assert_eq(dent_next(buf, len, &pos, &name), DENT_ENTRY);
	cr_assert_str_eq(name, "ok");
	/* a record longer than what was read, or too short for a name: stop */
	pos = 0;
	cr_assert_eq(dent_next(buf, 20, &pos, &name), DENT_BROKEN);
	put_dent(buf, 0, DENT_HEAD, "", 0);
	pos = 0;
	cr_assert_eq(dent_next(buf, 64, &pos, &name), DENT_BROKEN);
	pos = 0;
	cr_assert_eq(dent_next(buf, 10, &pos, &name), DENT_END, "less than a head");
}
