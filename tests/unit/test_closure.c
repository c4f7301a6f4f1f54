/* SPDX-License-Identifier: MIT */
/* tools/patch/closure.c: paths inside an image root, and the closure of real
 * programs of this machine through an image that links to them. */
#include "helpers.h"

#include <errno.h>
#include <unistd.h>

#include "../../tools/patch/closure.h"

static void link_at(const char *root, const char *rel, const char *target)
{
	char p[4200];
	snprintf(p, sizeof p, "%s%s", root, rel);
	char *slash = strrchr(p, '/');
	*slash = '\0';
	mkdirs(p);
	*slash = '/';
	cr_assert_eq(symlink(target, p), 0, "%s", p);
}

Test(closure_happy, resolve_inside_the_root)
{
	char *root = scratch_dir();
	char out[4096];
	put_text(root, "/usr/lib/x86_64-linux-gnu/libavutil.so.57.28.100", "");
	link_at(root, "/usr/lib/x86_64-linux-gnu/libavutil.so.57", "libavutil.so.57.28.100");
	link_at(root, "/lib", "usr/lib");				/* usrmerge */
	link_at(root, "/usr/lib/abs", "/usr/lib/x86_64-linux-gnu");	/* absolute: the root's */
	cr_assert_eq(closure_resolve(root, "/lib/x86_64-linux-gnu/libavutil.so.57", out, sizeof out), 0);
	cr_assert_str_eq(out, "/usr/lib/x86_64-linux-gnu/libavutil.so.57.28.100");
	cr_assert_eq(closure_resolve(root, "/usr/lib/abs/../abs/./libavutil.so.57", out, sizeof out), 0);
	cr_assert_str_eq(out, "/usr/lib/x86_64-linux-gnu/libavutil.so.57.28.100");
	cr_assert_eq(closure_resolve(root, "/../../../usr/lib", out, sizeof out), 0, "never above the root");
	cr_assert_str_eq(out, "/usr/lib");
	rm_rf(root);
	free(root);
}

Test(closure_sad, resolve_failures)
{
	char *root = scratch_dir();
	char out[4096];
	link_at(root, "/a", "b");
	link_at(root, "/b", "a");
	cr_assert_eq(closure_resolve(root, "/a/x", out, sizeof out), -ELOOP);
	cr_assert_eq(closure_resolve(root, "/missing/x", out, sizeof out), -ENOENT);
	cr_assert_eq(closure_resolve(root, "/b", out, 2), -ENAMETOOLONG);
	rm_rf(root);
	free(root);
}

/* The judge the test uses: a library whose name says CUDA. */
static int by_name(void *ctx, int fd, const char *path, char *why, size_t cap)
{
	(void)fd;
	if (ctx)
		++*(int *)ctx;
	const char *base = strrchr(path, '/');
	if (base && strstr(base, "libcudart")) {
		snprintf(why, cap, "named so");
		return 1;
	}
	return 0;
}

/* An image of this machine's own programs and libraries, linked in: env
 * needs libc only; a copy of libc renamed libcudart makes it "CUDA" once a
 * library's RUNPATH reaches it first ($ORIGIN). */
Test(closure_happy, closure_of_a_real_program)
{
	const char *env = "/usr/bin/env";
	char real_libc[4096];
	if (!realpath("/lib/x86_64-linux-gnu/libc.so.6", real_libc) &&
	    !realpath("/lib/aarch64-linux-gnu/libc.so.6", real_libc))
		cr_skip_test("no multiarch libc.so.6 here");
	char *root = scratch_dir();
	char p[4200];
	snprintf(p, sizeof p, "cp %s %s/env && mkdir -p %s/etc %s/lib && cp %s %s/lib/libc.so.6", env, root,
		 root, root, real_libc, root);
	cr_assert_eq(system(p), 0);
	int judged = 0;
	struct closure *c = closure_new(root, by_name, &judged);
	char why[512];
	snprintf(p, sizeof p, "%s/env", root);
	cr_assert_eq(closure_uses_cuda(c, p, why, sizeof why), 0, "%s", why);
	cr_assert_geq(closure_libraries(c), 2, "env and libc were read");
	cr_assert_eq(judged, 1, "libc judged once; env, which the caller judged, not again");
	cr_assert_eq(closure_uses_cuda(c, p, why, sizeof why), 0);
	cr_assert_eq(judged, 1, "nothing judged twice");
	closure_free(c);

	/* the same libc, found under another name through ld.so.conf: still libc */
	put_text(root, "/etc/ld.so.conf", "# comment\ninclude /etc/ld.so.conf.d/*.conf\n");
	put_text(root, "/etc/ld.so.conf.d/x.conf", "/opt/cuda/lib   \n");
	snprintf(p, sizeof p, "mkdir -p %s/opt/cuda/lib && cp %s %s/opt/cuda/lib/libcudart.so.12 && "
		 "ln -s libcudart.so.12 %s/opt/cuda/lib/libc.so.6", root, real_libc, root, root);
	cr_assert_eq(system(p), 0);
	c = closure_new(root, by_name, NULL);
	snprintf(p, sizeof p, "%s/env", root);
	cr_assert_eq(closure_uses_cuda(c, p, why, sizeof why), 1);
	cr_assert_str_eq(why, "through libc.so.6 (named so)", "ld.so.conf comes before the defaults");
	closure_free(c);
	rm_rf(root);
	free(root);
}
