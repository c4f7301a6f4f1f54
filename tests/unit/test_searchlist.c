/* SPDX-License-Identifier: MIT */
#include "helpers.h"

#include "../../common/decision/searchlist.h"

static void setup(struct host *h, struct candidates *c, struct candidate *v, struct decision *d)
{
	memset(h, 0, sizeof *h);
	h->platform = PLATFORM_TEGRA;
	h->n_driver_dirs = 2;
	h->driver_dirs[0] = "/usr/lib/aarch64-linux-gnu/nvidia";
	h->driver_dirs[1] = "/run/opengl-driver/lib";
	memset(v, 0, sizeof *v);
	v->dir = "/usr/local/cuda-12.9/compat";
	c->v = v;
	c->n = c->cap = 1;
	memset(d, 0, sizeof *d);
	d->use_compat = true;
	d->chosen = 0;
}

Test(searchlist_happy, order_and_root)
{
	struct host h;
	struct candidates c;
	struct candidate v;
	struct decision d;
	setup(&h, &c, &v, &d);
	char *l = searchlist_library_path("", &d, &c, &h, NULL, "/home/u/lib::/opt/x:/run/opengl-driver/lib:", false);
	cr_assert_str_eq(l, "/usr/local/cuda-12.9/compat:/usr/lib/aarch64-linux-gnu/nvidia:"
			    "/run/opengl-driver/lib:/home/u/lib::/opt/x:",
			 "user entries kept with their empty ones, duplicates dropped");
	free(l);
	l = searchlist_library_path("/fixture/", &d, &c, &h, NULL, NULL, false);
	cr_assert_str_eq(l, "/fixture/usr/local/cuda-12.9/compat:/fixture/usr/lib/aarch64-linux-gnu/nvidia:"
			    "/fixture/run/opengl-driver/lib");
	free(l);
}

Test(searchlist_happy, secure_drops_user_path)
{
	struct host h;
	struct candidates c;
	struct candidate v;
	struct decision d;
	setup(&h, &c, &v, &d);
	h.n_driver_dirs = 0;
	char *l = searchlist_library_path("", &d, &c, &h, NULL, "/tmp/evil", true);
	cr_assert_str_eq(l, "/usr/local/cuda-12.9/compat");
	free(l);
}

Test(searchlist_sad, system_and_unlistable)
{
	struct host h;
	struct candidates c;
	struct candidate v;
	struct decision d;
	setup(&h, &c, &v, &d);
	d.use_compat = false;
	d.chosen = -1;
	cr_assert_null(searchlist_library_path("", &d, &c, &h, NULL, "/x", false));
	d.use_compat = true;
	d.chosen = 5;
	cr_assert_null(searchlist_library_path("", &d, &c, &h, NULL, "/x", false), "index out of range");

	d.chosen = 0;
	h.driver_dirs[0] = "/usr/lib/odd:dir";
	char *l = searchlist_library_path("", &d, &c, &h, NULL, NULL, false);
	cr_assert_str_eq(l, "/usr/local/cuda-12.9/compat:/run/opengl-driver/lib");
	free(l);
	cr_assert(!searchlist_dir_expressible("/a;b"));
	cr_assert(searchlist_dir_expressible("/a b"));

	/* a 64 KiB LD_LIBRARY_PATH goes through whole */
	char *big = malloc(65537);
	memset(big, 'a', 65536);
	big[0] = '/';
	big[65536] = '\0';
	l = searchlist_library_path("", &d, &c, &h, NULL, big, false);
	cr_assert(l && strlen(l) > 65536);
	free(l);
	free(big);
}

/* Exec mode passes the list as one argument; the kernel takes
 * none longer than 32 pages, NUL included. */
Test(searchlist_sad, argument_limit)
{
	size_t max = 32 * (size_t)sysconf(_SC_PAGESIZE);
	char *s = malloc(max + 1);
	memset(s, 'x', max);
	s[max - 1] = '\0';
	cr_assert(searchlist_fits_argument(s), "%zu bytes and the NUL", max - 1);
	s[max - 1] = 'x';
	s[max] = '\0';
	cr_assert(!searchlist_fits_argument(s));
	free(s);
}
