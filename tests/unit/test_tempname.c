/* SPDX-License-Identifier: MIT */
#include "helpers.h"

#include <errno.h>

#include "../../common/base/tempname.h"

Test(tempname, create_replaces_the_trailing_x_and_only_those)
{
	char *dir = scratch_dir();
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cr_assert_geq(dfd, 0);
	char a[] = "prog.XXXXXXXX", b[] = "prog.XXXXXXXX";
	int fa = tempname_create(dfd, a, 8, O_RDWR, 0600);
	int fb = tempname_create(dfd, b, 8, O_RDWR, 0600);
	cr_assert(fa >= 0 && fb >= 0);
	cr_assert_eq(strncmp(a, "prog.", 5), 0);
	cr_assert(tempname_is_random(a + 5, 8), "%s", a);
	cr_assert_str_neq(a, b);
	struct stat st;
	cr_assert_eq(fstatat(dfd, a, &st, AT_SYMLINK_NOFOLLOW), 0);
	cr_assert(S_ISREG(st.st_mode));
	cr_assert_eq(st.st_mode & 07777, 0600);
	close(fa);
	close(fb);
	close(dfd);
}

Test(tempname, is_random_refuses_what_fill_never_writes)
{
	cr_assert(tempname_is_random("aZ09", 4));
	cr_assert_not(tempname_is_random("aZ-9", 4));
	cr_assert_not(tempname_is_random("aZ", 4));	/* shorter than n */
	cr_assert_not(tempname_is_random("XX.X", 4));
}

Test(tempname, create_fails_clearly_where_nothing_can_be_made)
{
	char name[] = "prog.XXXXXX";
	errno = 0;
	cr_assert_eq(tempname_create(-1, name, 6, O_RDWR, 0600), -1);
	cr_assert_eq(errno, EBADF);
	char *dir = scratch_dir();
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	char nested[] = "gone/prog.XXXXXX";
	cr_assert_eq(tempname_create(dfd, nested, 6, O_RDWR, 0600), -1);
	cr_assert_eq(errno, ENOENT);
	close(dfd);
}
