/* SPDX-License-Identifier: MIT */
#include "helpers.h"

#include "../../common/packages/secure.h"

Test(secure_happy, trusted_paths)
{
	cr_assert(secure_path_trusted("/"));
	cr_assert(secure_path_trusted("/usr/lib"));
	cr_assert(!secure_path_trusted("/tmp"), "world-writable");
	cr_assert(!secure_path_trusted("relative/dir"));
	cr_assert(!secure_path_trusted("/nonexistent/dir"));
	char *d = scratch_dir();
	chmod(d, 0777);
	cr_assert(!secure_path_trusted(d), "world-writable itself");
	rm_rf(d);
	free(d);
}

/* /nix/store is root:nixbld 1775 (nix's own store setup): a root-owned entry
 * in it is safe, since a sticky directory lets no one else rename or remove
 * it; a group-writable directory without the sticky bit is not. */
Test(secure_happy, sticky_store)
{
	if (geteuid() != 0)
		cr_skip_test("SKIP: root-owned directories need root to create them");
	char *d = scratch_dir();	/* root's, 0700, under /tmp (root, 1777) */
	char store[4200], pkg[4200], compat[4200];
	snprintf(store, sizeof store, "%s/store", d);
	snprintf(pkg, sizeof pkg, "%s/abc-cuda_compat-12.2", store);
	snprintf(compat, sizeof compat, "%s/compat", pkg);
	put_text(compat, "/libcuda.so.1", "x");
	cr_assert_eq(chmod(store, 01775), 0);
	cr_assert(secure_path_trusted(compat), "root-owned entries in sticky directories");
	cr_assert(!secure_path_trusted(store), "the sticky directory itself is writable by others");

	cr_assert_eq(chmod(store, 0775), 0);
	cr_assert(!secure_path_trusted(compat), "group-writable, not sticky");
	cr_assert_eq(chmod(store, 0757), 0);
	cr_assert(!secure_path_trusted(compat), "world-writable, not sticky");

	cr_assert_eq(chmod(store, 01777), 0);
	cr_assert_eq(chown(pkg, 65534, 65534), 0);
	cr_assert(!secure_path_trusted(compat), "an entry someone else owns");
	cr_assert_eq(chown(pkg, 0, 0), 0);
	cr_assert_eq(chmod(compat, 01777), 0);
	cr_assert(!secure_path_trusted(compat), "the compat directory itself, sticky or not");
	rm_rf(d);
	free(d);
}

Test(secure_happy, env_filter)
{
	char *envp[] = { "PATH=/bin", "LD_LIBRARY_PATH=/tmp/x", "LD_PRELOAD=/tmp/e.so", "HOME=/root",
			 "TMPDIR=/tmp", "LD_LIBRARY_PATHX=keep", "GCONV_PATH=/tmp", "TERM=xterm", NULL };
	secure_env_filter(envp);
	cr_assert_str_eq(envp[0], "PATH=/bin");
	cr_assert_str_eq(envp[1], "HOME=/root");
	cr_assert_str_eq(envp[2], "LD_LIBRARY_PATHX=keep");
	cr_assert_str_eq(envp[3], "TERM=xterm");
	cr_assert_null(envp[4]);
}

Test(secure_sad, untrusted_candidates_and_dirs)
{
	char *root = scratch_dir();
	put_text(root, "/usr/lib/aarch64-linux-gnu/tegra/x", "");
	put_text(root, "/usr/local/cuda-12.2/compat/x", "");
	chmod(root, 0777);	/* world-writable, not sticky: nothing under it is trusted */
	struct host h;
	memset(&h, 0, sizeof h);
	h.n_driver_dirs = 1;
	h.driver_dirs[0] = "/usr/lib/aarch64-linux-gnu/tegra";
	struct candidate v;
	memset(&v, 0, sizeof v);
	v.dir = "/usr/local/cuda-12.2/compat";
	v.has_lib = true;
	struct candidates c = { .v = &v, .n = 1, .cap = 1 };
	secure_filter(root, &h, &c);
	cr_assert_eq(h.n_driver_dirs, 0);
	cr_assert(!v.has_lib);
	cr_assert_str_eq(v.lib_problem, "not root-owned or writable by others, and the program is set-id");

	/* the real root's own directories are trusted */
	h.n_driver_dirs = 1;
	h.driver_dirs[0] = "/usr/lib";
	c.n = 0;
	secure_filter("", &h, &c);
	cr_assert_eq(h.n_driver_dirs, 1);

	/* a directory a program reached, dropped, is no longer counted as one */
	char reached[512];
	snprintf(reached, sizeof reached, "%s/usr/lib/aarch64-linux-gnu/tegra", root);
	h.driver_dirs[1] = reached;
	h.n_driver_dirs = 2;
	h.n_reached_dirs = 1;
	secure_filter("", &h, &c);
	cr_assert_eq(h.n_driver_dirs, 1);
	cr_assert_eq(h.n_reached_dirs, 0);
	rm_rf(root);
	free(root);
}
