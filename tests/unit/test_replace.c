/* SPDX-License-Identifier: MIT */
#include "helpers.h"

#include <errno.h>
#include <sys/wait.h>

#include "../../tools/patch/replace.h"

/* A file in a scratch directory, open read-only with its stat. */
struct fixture {
	char *dir;
	char path[4200];
	int fd, dirfd;
	struct stat st;
	struct held h;
	char why[128];
};

static void open_fixture(struct fixture *f, const void *data, size_t len)
{
	f->dir = scratch_dir();
	put_file(f->dir, "/prog", data, len);
	snprintf(f->path, sizeof f->path, "%s/prog", f->dir);
	f->fd = open(f->path, O_RDONLY | O_CLOEXEC);
	f->dirfd = open(f->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	f->why[0] = '\0';
	cr_assert_geq(f->fd, 0);
	cr_assert_geq(f->dirfd, 0);
	cr_assert_eq(fstat(f->fd, &f->st), 0);
}

static int hold(struct fixture *f)
{
	struct stat dirst;
	cr_assert_eq(fstat(f->dirfd, &dirst), 0);
	return replace_hold(&f->h, f->fd, &f->st, f->dirfd, &dirst, f->why, sizeof f->why);
}

static int still(struct fixture *f)
{
	return replace_still_held(&f->h, f->dirfd, "prog", f->why, sizeof f->why);
}

static void close_fixture(struct fixture *f)
{
	close(f->fd);
	close(f->dirfd);
	rm_rf(f->dir);
	free(f->dir);
}

static size_t temps_in(const char *dir)
{
	size_t n = 0;
	char cmd[4300];
	snprintf(cmd, sizeof cmd, "find '%s' -name '.*.cudaload-*' | wc -l", dir);
	FILE *p = popen(cmd, "r");
	cr_assert(p != NULL);
	cr_assert_eq(fscanf(p, "%zu", &n), 1);
	pclose(p);
	return n;
}

Test(replace, reads_an_elf_whole_and_only_the_magic_of_the_rest)
{
	static const unsigned char elf[] = "\177ELF and then the rest of it";
	struct fixture f;
	char why[128];
	size_t len = 0;
	open_fixture(&f, elf, sizeof elf);
	unsigned char *img = replace_read(f.fd, &f.st, &len, why, sizeof why);
	cr_assert_not_null(img, "%s", why);
	cr_assert_eq(len, sizeof elf);
	cr_assert_eq(memcmp(img, elf, len), 0);
	free(img);
	close_fixture(&f);

	static const char data[] = "PK\003\004 a big archive, say";
	open_fixture(&f, data, sizeof data);
	img = replace_read(f.fd, &f.st, &len, why, sizeof why);
	cr_assert_not_null(img, "%s", why);
	cr_assert_eq(len, 4);
	free(img);
	close_fixture(&f);
}

Test(replace, a_file_that_got_shorter_is_said)
{
	static const unsigned char elf[] = "\177ELF and then the rest of it";
	struct fixture f;
	char why[128] = "";
	size_t len;
	open_fixture(&f, elf, sizeof elf);
	cr_assert_eq(truncate(f.path, 10), 0);
	cr_assert_null(replace_read(f.fd, &f.st, &len, why, sizeof why));
	cr_assert(strstr(why, "shorter") != NULL, "%s", why);
	close_fixture(&f);
}

Test(replace, a_file_open_for_writing_is_not_held)
{
	struct fixture f;
	open_fixture(&f, "\177ELF", 4);
	int w = open(f.path, O_WRONLY | O_APPEND | O_CLOEXEC);
	cr_assert_geq(w, 0);
	cr_assert_eq(hold(&f), -1);
	cr_assert_str_eq(f.why, "another process has it open for writing");
	close(w);
	close_fixture(&f);
}

Test(replace, a_write_after_the_read_is_seen)
{
	struct fixture f;
	open_fixture(&f, "\177ELF", 4);
	cr_assert_eq(hold(&f), 0, "%s", f.why);
	cr_assert(f.h.leased, "root or the owner may lease on ext4 and tmpfs");
	cr_assert_eq(still(&f), 0, "%s", f.why);
	replace_release(&f.h);
	/* without the lease, the identity alone */
	int w = open(f.path, O_WRONLY | O_APPEND | O_CLOEXEC);
	cr_assert_eq(write(w, "x", 1), 1);
	close(w);
	cr_assert_eq(still(&f), -1);
	cr_assert_str_eq(f.why, "it was written to meanwhile");
	close_fixture(&f);
}

Test(replace, a_lease_broken_by_a_writer_is_seen)
{
	struct fixture f;
	replace_install_handlers();	/* the break's SIGIO ignored */
	open_fixture(&f, "\177ELF", 4);
	cr_assert_eq(hold(&f), 0, "%s", f.why);
	/* another process opens it for writing: it waits for the lease, we see the break */
	pid_t pid = fork();
	if (pid == 0) {
		int w = open(f.path, O_WRONLY | O_CLOEXEC);
		_exit(w < 0);
	}
	int broken = 0;
	for (int i = 0; i < 500 && !broken; i++) {
		broken = still(&f) < 0;
		usleep(1000);
	}
	cr_assert(broken);
	cr_assert_str_eq(f.why, "another process opened it for writing meanwhile");
	replace_release(&f.h);
	int status;
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert_eq(WEXITSTATUS(status), 0);
	close_fixture(&f);
}

Test(replace, a_rename_over_it_is_seen)
{
	struct fixture f;
	char other[4300];
	open_fixture(&f, "\177ELF", 4);
	cr_assert_eq(hold(&f), 0, "%s", f.why);
	put_file(f.dir, "/new", "\177ELF", 4);
	snprintf(other, sizeof other, "%s/new", f.dir);
	cr_assert_eq(rename(other, f.path), 0);
	cr_assert_eq(still(&f), -1);
	cr_assert_str_eq(f.why, "it was replaced meanwhile (an upgrade?)");
	replace_release(&f.h);
	close_fixture(&f);
}

Test(replace, temporaries_are_committed_or_removed)
{
	struct fixture f;
	char why[128] = "", tmp[4300];
	open_fixture(&f, "\177ELF", 4);
	int fd = replace_make_temp(f.dirfd, "prog", tmp, sizeof tmp, why, sizeof why);
	cr_assert_geq(fd, 0, "%s", why);
	cr_assert(replace_is_temp(tmp), "%s", tmp);
	cr_assert_eq(strncmp(tmp, ".prog.cudaload-", 15), 0, "%s", tmp);
	close(fd);
	cr_assert_eq(temps_in(f.dir), 1);
	cr_assert_eq(replace_discard(f.dirfd, tmp, why, sizeof why), 0);
	cr_assert_eq(temps_in(f.dir), 0);
	fd = replace_make_temp(f.dirfd, "prog", tmp, sizeof tmp, why, sizeof why);
	close(fd);
	cr_assert_eq(replace_commit(f.dirfd, tmp, "prog"), 0);
	cr_assert_eq(temps_in(f.dir), 0);
	close_fixture(&f);
}

Test(replace, names_of_temporaries)
{
	cr_assert(replace_is_temp(".app.cudaload-a1B2c3"));
	cr_assert(replace_is_temp(".x.cudaload-x.cudaload-ABCDEF"));
	cr_assert_not(replace_is_temp("app.cudaload-a1B2c3"), "hidden, always");
	cr_assert_not(replace_is_temp(".cudaload-a1B2c3"), "a name before the mark");
	cr_assert_not(replace_is_temp(".app.cudaload-a1B2c"));
	cr_assert_not(replace_is_temp(".app.cudaload-a1B2c3d"));
	cr_assert_not(replace_is_temp(".app.cudaload-a1B2c."));
	cr_assert_not(replace_is_temp(".app.cudaload.a1B2c3"));
}

/* A temporary is removed by a later run only when a killed run left it:
 * not while a live run holds it, nor another user's, nor a link. */
Test(replace, stale_temporaries_and_live_ones)
{
	struct fixture f;
	char why[128] = "", tmp[4300], live[4300];
	open_fixture(&f, "\177ELF", 4);
	/* a live run's: locked from its creation to its rename */
	int fd = replace_make_temp(f.dirfd, "prog", live, sizeof live, why, sizeof why);
	cr_assert_geq(fd, 0, "%s", why);
	cr_assert_eq(write(fd, "\177ELF", 4), 4);
	int lock = replace_lock_again(f.dirfd, live);
	cr_assert_geq(lock, 0);
	close(fd);	/* written: the read-only descriptor keeps the lock */
	pid_t pid = fork();
	if (pid == 0)	/* another run: a process of its own */
		_exit(replace_remove_stale(f.dirfd, live, why, sizeof why) == 0 ? 0 : 1);
	int status;
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert_eq(WEXITSTATUS(status), 0, "a live run's temporary is left");
	cr_assert_eq(temps_in(f.dir), 1);
	/* the run killed: nobody holds it any more */
	close(lock);
	cr_assert_eq(replace_remove_stale(f.dirfd, live, why, sizeof why), 1, "%s", why);
	cr_assert_eq(temps_in(f.dir), 0);

	/* another user's, a link, a directory, a second name: left */
	snprintf(tmp, sizeof tmp, "%s/.prog.cudaload-AAAAAA", f.dir);
	put_file(f.dir, "/.prog.cudaload-AAAAAA", "x", 1);
	if (geteuid() == 0) {
		cr_assert_eq(chown(tmp, 1234, 1234), 0);
		cr_assert_eq(replace_remove_stale(f.dirfd, ".prog.cudaload-AAAAAA", why, sizeof why), 0);
		cr_assert_eq(chown(tmp, 0, 0), 0);
	}
	char other[4300];
	snprintf(other, sizeof other, "%s/second", f.dir);
	cr_assert_eq(link(tmp, other), 0);
	cr_assert_eq(replace_remove_stale(f.dirfd, ".prog.cudaload-AAAAAA", why, sizeof why), 0,
		     "two links: not a temporary of ours");
	cr_assert_eq(unlink(other), 0);
	cr_assert_eq(symlinkat("prog", f.dirfd, ".prog.cudaload-BBBBBB"), 0);
	cr_assert_eq(replace_remove_stale(f.dirfd, ".prog.cudaload-BBBBBB", why, sizeof why), 0);
	cr_assert_eq(mkdirat(f.dirfd, ".prog.cudaload-CCCCCC", 0700), 0);
	cr_assert_eq(replace_remove_stale(f.dirfd, ".prog.cudaload-CCCCCC", why, sizeof why), 0);
	cr_assert_eq(replace_remove_stale(f.dirfd, "prog", why, sizeof why), 0, "not the name of one");
	cr_assert_eq(replace_remove_stale(f.dirfd, ".prog.cudaload-AAAAAA", why, sizeof why), 1);
	struct stat st;
	cr_assert_eq(fstatat(f.dirfd, "prog", &st, 0), 0, "the program stays");
	cr_assert_eq(fstatat(f.dirfd, ".prog.cudaload-BBBBBB", &st, AT_SYMLINK_NOFOLLOW), 0);
	cr_assert_eq(fstatat(f.dirfd, ".prog.cudaload-CCCCCC", &st, AT_SYMLINK_NOFOLLOW), 0);
	close_fixture(&f);
}
