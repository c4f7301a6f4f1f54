/* SPDX-License-Identifier: MIT */
#include "helpers.h"

#include <errno.h>
#include <dirent.h>

#include "../../common/base/atomicfile.h"

static int open_dir(const char *dir)
{
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cr_assert_geq(dfd, 0);
	return dfd;
}

/* How many entries dir holds, "." and ".." aside. */
static int entries(const char *dir)
{
	DIR *d = opendir(dir);
	int n = 0;
	for (struct dirent *e; (e = readdir(d));)
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

static char *text_of(int dfd, const char *name)
{
	static char buf[256];
	int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW);
	cr_assert_geq(fd, 0, "%s", name);
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return buf;
}

Test(atomicfile, temporaries_are_new_random_and_beside_the_name)
{
	char *dir = scratch_dir();
	int dfd = open_dir(dir);
	char a[NAME_MAX + 1], b[NAME_MAX + 1];
	cr_assert_eq(atomic_temp_name("prog", a, sizeof a), 0);
	cr_assert_str_eq(a, ".prog.cudaload-XXXXXX");
	strcpy(b, a);
	int fa = atomic_create(dfd, a), fb = atomic_create(dfd, b);
	cr_assert(fa >= 0 && fb >= 0);
	cr_assert_eq(strncmp(a, ".prog.cudaload-", 15), 0);
	cr_assert(atomic_is_temp(a), "%s", a);
	cr_assert_str_neq(a, b);
	struct stat st;
	cr_assert_eq(fstatat(dfd, a, &st, AT_SYMLINK_NOFOLLOW), 0);
	cr_assert(S_ISREG(st.st_mode));
	cr_assert_eq(st.st_mode & 07777, 0600);
	close(fa);
	close(fb);
	close(dfd);
}

Test(atomicfile, is_temp_takes_only_its_own_shape)
{
	cr_assert(atomic_is_temp(".app.cudaload-a1B2c3"));
	cr_assert_not(atomic_is_temp("app.cudaload-a1B2c3"), "hidden, always");
	cr_assert_not(atomic_is_temp(".cudaload-a1B2c3"), "a name before the mark");
	cr_assert_not(atomic_is_temp(".app.cudaload-a1B2c"));
	cr_assert_not(atomic_is_temp(".app.cudaload-a1B2-3"));
}

Test(atomicfile, replace_puts_the_whole_file_in_place_and_leaves_nothing_beside)
{
	char *dir = scratch_dir();
	int dfd = open_dir(dir);
	cr_assert_eq(atomic_replace(dfd, "f", "old\n", 4, 0644, true), 0);
	cr_assert_eq(atomic_replace(dfd, "f", "new text\n", 9, 0640, false), 0);
	cr_assert_str_eq(text_of(dfd, "f"), "new text\n");
	struct stat st;
	cr_assert_eq(fstatat(dfd, "f", &st, 0), 0);
	cr_assert_eq(st.st_mode & 07777, 0640);
	cr_assert_eq(entries(dir), 1);
	close(dfd);
}

Test(atomicfile, what_stands_at_the_name_is_replaced_never_written_through)
{
	char *dir = scratch_dir();
	int dfd = open_dir(dir);
	/* a link to another file, and a FIFO: each replaced, neither opened */
	cr_assert_eq(atomic_replace(dfd, "target", "keep", 4, 0600, false), 0);
	cr_assert_eq(symlinkat("target", dfd, "f"), 0);
	cr_assert_eq(atomic_replace(dfd, "f", "mine", 4, 0644, false), 0);
	cr_assert_str_eq(text_of(dfd, "target"), "keep");
	cr_assert_eq(mkfifoat(dfd, "p", 0600), 0);
	cr_assert_eq(atomic_replace(dfd, "p", "mine", 4, 0644, false), 0);
	struct stat st;
	cr_assert_eq(fstatat(dfd, "p", &st, AT_SYMLINK_NOFOLLOW), 0);
	cr_assert(S_ISREG(st.st_mode));
	cr_assert_eq(entries(dir), 3);
	close(dfd);
}

Test(atomicfile, a_failed_commit_or_abort_leaves_no_temporary)
{
	char *dir = scratch_dir();
	int dfd = open_dir(dir);
	/* the rename fails: a directory stands at the name */
	cr_assert_eq(mkdirat(dfd, "d", 0700), 0);
	cr_assert_eq(mkdirat(dfd, "d/x", 0700), 0);
	errno = 0;
	cr_assert_eq(atomic_replace(dfd, "d", "x", 1, 0644, true), -1);
	cr_assert(errno == EISDIR || errno == ENOTEMPTY || errno == EEXIST, "%s", strerror(errno));
	cr_assert_eq(entries(dir), 1);
	struct atomic_file a;
	cr_assert_eq(atomic_begin(&a, dfd, "f", true), 0);
	cr_assert_eq(atomic_write(&a, "part", 4), 0);
	atomic_abort(&a);
	cr_assert_eq(entries(dir), 1);
	cr_assert_eq(faccessat(dfd, "f", F_OK, AT_SYMLINK_NOFOLLOW), -1);
	close(dfd);
}

Test(atomicfile, fails_clearly_where_nothing_can_be_made)
{
	struct atomic_file a;
	errno = 0;
	cr_assert_eq(atomic_begin(&a, -1, "f", false), -1);
	cr_assert_eq(errno, EBADF);
	char *dir = scratch_dir();
	int dfd = open_dir(dir);
	char longname[NAME_MAX + 1];
	memset(longname, 'n', NAME_MAX - 10);
	longname[NAME_MAX - 10] = '\0';
	errno = 0;
	cr_assert_eq(atomic_replace(dfd, longname, "x", 1, 0644, false), -1);
	cr_assert_eq(errno, ENAMETOOLONG);
	cr_assert_eq(atomic_replace(dfd, "gone/f", "x", 1, 0644, false), -1);
	cr_assert_eq(errno, ENOENT);
	cr_assert_eq(entries(dir), 0);
	close(dfd);
}

Test(atomicfile, symlink_replaces_whole)
{
	char *dir = scratch_dir();
	int dfd = open_dir(dir);
	cr_assert_eq(atomic_symlink(dfd, "l", "first"), 0);
	cr_assert_eq(atomic_symlink(dfd, "l", "second value"), 0);
	char buf[64];
	ssize_t n = readlinkat(dfd, "l", buf, sizeof buf - 1);
	cr_assert_eq(n, 12);
	buf[n] = '\0';
	cr_assert_str_eq(buf, "second value");
	cr_assert_eq(entries(dir), 1);
	close(dfd);
}
