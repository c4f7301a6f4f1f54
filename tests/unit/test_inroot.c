/* SPDX-License-Identifier: MIT */
/* common/base/inroot.c: an image's paths resolved inside it, by openat2 and by
 * our own resolver, which must agree on every path: links out of the
 * image (absolute, and relative ones that climb), links that loop, links
 * inside it that must be followed there. */
#include "helpers.h"

#include <errno.h>
#include <unistd.h>

#include "../../common/base/inroot.h"

/* An image and a directory beside it that it must never reach. */
struct image {
	char *root, *out;
	int fd;
};

static void image_new(struct image *m)
{
	m->root = scratch_dir();
	m->out = scratch_dir();
	m->fd = open(m->root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	cr_assert_geq(m->fd, 0);
}

static void image_free(struct image *m)
{
	close(m->fd);
	rm_rf(m->root);
	rm_rf(m->out);
	free(m->root);
	free(m->out);
	inroot_use_own(false);
}

static void link_in(const char *dir, const char *rel, const char *target)
{
	char p[4200];
	snprintf(p, sizeof p, "%s%s", dir, rel);
	char *slash = strrchr(p, '/');
	*slash = '\0';
	mkdirs(p);
	*slash = '/';
	cr_assert_eq(symlink(target, p), 0, "%s", p);
}

/* The inode at dir/rel (not followed), to compare what was opened with. */
static ino_t ino_of(const char *dir, const char *rel)
{
	char p[4200];
	struct stat st;
	snprintf(p, sizeof p, "%s%s", dir, rel);
	cr_assert_eq(lstat(p, &st), 0, "%s", p);
	return st.st_ino;
}

/* Open path in the image with each resolver: both must give the same
 * answer; the inode opened, or -errno. */
static long both(struct image *m, const char *path, int flags)
{
	long got[2];
	for (int own = 0; own < 2; own++) {
		inroot_use_own(own);
		int fd = inroot_open(m->fd, path, flags);
		struct stat st;
		got[own] = fd < 0 ? fd : fstat(fd, &st) == 0 ? (long)st.st_ino : -999;
		if (fd >= 0)
			close(fd);
	}
	inroot_use_own(false);
	cr_assert_eq(got[0], got[1], "%s: openat2 %ld, own %ld", path, got[0], got[1]);
	return got[0];
}

Test(inroot, absolute_links_are_followed_inside_the_image)
{
	struct image m;
	image_new(&m);
	put_text(m.root, "/usr-real/bin/app", "in");
	link_in(m.root, "/usr", "/usr-real");
	link_in(m.root, "/usr-real/bin/alias", "/usr/bin/app");
	cr_assert_eq(both(&m, "/usr/bin/app", O_RDONLY), (long)ino_of(m.root, "/usr-real/bin/app"));
	cr_assert_eq(both(&m, "usr/bin/alias", O_RDONLY), (long)ino_of(m.root, "/usr-real/bin/app"));
	cr_assert_eq(both(&m, "/usr/bin/alias", O_PATH | O_NOFOLLOW),
		     (long)ino_of(m.root, "/usr-real/bin/alias"), "the link itself");
	image_free(&m);
}

Test(inroot, links_out_of_the_image_stay_in_it)
{
	struct image m;
	char target[4200];
	image_new(&m);
	put_text(m.out, "/usr/bin/app", "outside");
	snprintf(target, sizeof target, "%s/usr", m.out);
	link_in(m.root, "/usr", target);			/* absolute, out */
	link_in(m.root, "/opt", "../../../../../..");		/* relative, climbing */
	link_in(m.root, "/lib/x", "../../../../../../../..");
	cr_assert_eq(both(&m, "/usr/bin/app", O_RDONLY), -ENOENT, "the image has no such file");
	cr_assert_eq(both(&m, "/opt", O_RDONLY | O_DIRECTORY), (long)ino_of(m.root, ""), "the root");
	cr_assert_eq(both(&m, "/opt/usr/bin/app", O_RDONLY), -ENOENT);
	cr_assert_eq(both(&m, "/../../../..", O_RDONLY | O_DIRECTORY), (long)ino_of(m.root, ""));
	/* the same path inside the image: that one */
	char inside[4300];
	snprintf(inside, sizeof inside, "%s/bin/app", target);
	put_text(m.root, inside, "inside");
	long want = (long)ino_of(m.root, inside);
	cr_assert_eq(both(&m, "/usr/bin/app", O_RDONLY), want);
	cr_assert_eq(both(&m, "/lib/x/usr/bin/app", O_RDONLY), want);
	cr_assert_eq(both(&m, "/opt/opt/lib/x/../usr/bin/app", O_RDONLY), want);
	image_free(&m);
}

Test(inroot, dot_dot_after_a_link_is_the_targets_parent)
{
	struct image m;
	image_new(&m);
	put_text(m.root, "/usr/lib/a/file", "");
	put_text(m.root, "/usr/lib/b", "b");
	put_text(m.root, "/b", "not this one");
	link_in(m.root, "/l", "/usr/lib/a");
	cr_assert_eq(both(&m, "/l/../b", O_RDONLY), (long)ino_of(m.root, "/usr/lib/b"));
	cr_assert_eq(both(&m, "/l/./file", O_RDONLY), (long)ino_of(m.root, "/usr/lib/a/file"));
	image_free(&m);
}

Test(inroot, loops_and_bad_paths_are_refused)
{
	struct image m;
	image_new(&m);
	link_in(m.root, "/opt", "/opt");
	link_in(m.root, "/a", "b");
	link_in(m.root, "/b", "/a");
	link_in(m.root, "/empty-dir/../deep", "/deep/x/../..");
	put_text(m.root, "/file", "f");
	cr_assert_eq(both(&m, "/opt/bin", O_RDONLY), -ELOOP);
	cr_assert_eq(both(&m, "/a", O_RDONLY), -ELOOP);
	cr_assert_eq(both(&m, "/a", O_PATH | O_NOFOLLOW), (long)ino_of(m.root, "/a"));
	cr_assert_eq(both(&m, "/file/x", O_RDONLY), -ENOTDIR);
	cr_assert_eq(both(&m, "/file", O_RDONLY | O_DIRECTORY), -ENOTDIR);
	cr_assert_eq(both(&m, "/nothing", O_RDONLY), -ENOENT);
	cr_assert_eq(both(&m, "/deep", O_RDONLY), -ELOOP);
	char longname[300];
	memset(longname, 'x', sizeof longname - 1);
	longname[sizeof longname - 1] = '\0';
	cr_assert_eq(both(&m, longname, O_RDONLY), -ENAMETOOLONG);
	image_free(&m);
}

Test(inroot, parent_makes_directories_inside_only)
{
	struct image m;
	char name[256], target[4200];
	image_new(&m);
	snprintf(target, sizeof target, "%s/etc", m.out);
	mkdirs(target);
	link_in(m.root, "/etc", target);	/* out, and nowhere inside */
	link_in(m.root, "/usr", "/usr-real");
	mkdirs(m.root);
	for (int own = 0; own < 2; own++) {
		inroot_use_own(own);
		int fd = inroot_parent(m.fd, "/etc/cudaload.conf", true, name, sizeof name);
		cr_assert_eq(fd, -ENOENT, "never made through a link to nowhere (%d)", fd);
		fd = inroot_parent(m.fd, "/usr/lib/cudaload/pin/x", true, name, sizeof name);
		cr_assert_eq(fd, -ENOENT, "nor through a link to nowhere in the middle");
		struct stat st;
		char p[4300];
		snprintf(p, sizeof p, "%s/usr-real", m.root);
		cr_assert_neq(stat(p, &st), 0);
	}
	/* the link's target inside the image, once there: made inside */
	snprintf(target, sizeof target, "%s/usr-real", m.root);
	mkdirs(target);
	for (int own = 0; own < 2; own++) {
		inroot_use_own(own);
		int fd = inroot_parent(m.fd, "/usr/lib/cudaload/pin/x/", true, name, sizeof name);
		cr_assert_geq(fd, 0, "%d", fd);
		cr_assert_str_eq(name, "x");
		struct stat a, b;
		char p[4300];
		snprintf(p, sizeof p, "%s/usr-real/lib/cudaload/pin", m.root);
		cr_assert_eq(stat(p, &a), 0);
		cr_assert_eq(fstat(fd, &b), 0);
		cr_assert_eq(a.st_ino, b.st_ino);
		cr_assert_eq(a.st_mode & 07777, 0755);
		close(fd);
		cr_assert_eq(inroot_parent(m.fd, "/usr/..", false, name, sizeof name), -EINVAL);
		cr_assert_eq(inroot_parent(m.fd, "/", false, name, sizeof name), -EINVAL);
	}
	/* nothing was made beside the image */
	char cmd[4300];
	snprintf(cmd, sizeof cmd, "test \"$(find '%s' | wc -l)\" = 2", m.out);
	cr_assert_eq(system(cmd), 0, "only %s and its etc/", m.out);
	image_free(&m);
}

Test(inroot, a_deep_image_is_fine)
{
	struct image m;
	char rel[4096] = "";
	image_new(&m);
	for (int i = 0; i < 200; i++)
		strcat(rel, "/d");
	strcat(rel, "/f");
	put_text(m.root, rel, "deep");
	cr_assert_eq(both(&m, rel, O_RDONLY), (long)ino_of(m.root, rel));
	image_free(&m);
}

Test(inroot, paths_as_text)
{
	char out[64];
	cr_assert_eq(inroot_absolute("/a//b/./c/", out, sizeof out), 0);
	cr_assert_str_eq(out, "/a/b/c");
	cr_assert_eq(inroot_absolute("/a/../b", out, sizeof out), 0);
	cr_assert_str_eq(out, "/a/../b", "\"..\" is the links' business");
	cr_assert_eq(inroot_absolute("/", out, sizeof out), 0);
	cr_assert_str_eq(out, "/");
	cr_assert_eq(inroot_absolute("/a/very/long/path/that/does/not/fit/in/sixty/four/bytes/at/all/not/even/close", out,
				     sizeof out), -1);
	cr_assert_str_eq(inroot_below("/img", "/img/usr/bin"), "/usr/bin");
	cr_assert_str_eq(inroot_below("/img", "/img"), "/");
	cr_assert_null(inroot_below("/img", "/image/usr"));
	cr_assert_null(inroot_below("/img", "/usr"));
	cr_assert_str_eq(inroot_below("/", "/usr"), "/usr");
}
