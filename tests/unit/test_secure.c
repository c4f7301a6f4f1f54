/* SPDX-License-Identifier: MIT */
#include "helpers.h"

#include "../../common/secure.h"

Test(secure_happy, trusted_paths)
{
	cr_assert(secure_path_trusted("/"));
	cr_assert(secure_path_trusted("/usr/lib"));
	cr_assert(!secure_path_trusted("/tmp"), "world-writable");
	cr_assert(!secure_path_trusted("relative/dir"));
	cr_assert(!secure_path_trusted("/nonexistent/dir"));
	char *d = scratch_dir();	/* under /tmp: untrusted however it is set */
	chmod(d, 0755);
	cr_assert(!secure_path_trusted(d));
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
	char *root = scratch_dir();	/* /tmp is world-writable: nothing under it is trusted */
	put_text(root, "/usr/lib/aarch64-linux-gnu/tegra/x", "");
	struct host h;
	memset(&h, 0, sizeof h);
	h.n_driver_dirs = 1;
	strcpy(h.driver_dirs[0], "/usr/lib/aarch64-linux-gnu/tegra");
	struct candidate v;
	memset(&v, 0, sizeof v);
	strcpy(v.dir, "/usr/local/cuda-12.2/compat");
	v.has_lib = true;
	struct candidates c = { .v = &v, .n = 1, .cap = 1 };
	secure_filter(root, &h, &c);
	cr_assert_eq(h.n_driver_dirs, 0);
	cr_assert(!v.has_lib);
	cr_assert_str_eq(v.lib_problem, "not root-owned or writable by others, and the program is set-id");

	/* the real root's own directories are trusted */
	h.n_driver_dirs = 1;
	strcpy(h.driver_dirs[0], "/usr/lib");
	c.n = 0;
	secure_filter("", &h, &c);
	cr_assert_eq(h.n_driver_dirs, 1);
	rm_rf(root);
	free(root);
}
