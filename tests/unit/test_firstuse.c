/* SPDX-License-Identifier: MIT */
#include "helpers.h"

#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../../common/host/tables.h"
#include "../../loader/start/firstuse.h"

#define V(a, b) ((a) * 1000 + (b) * 10)

/* A dGPU host with one package the tables leave to the driver, in a
 * directory of this test's (root's or this user's alone). */
struct fixture {
	char *root;
	struct settings s;
	struct host h;
	struct candidate v[2];
	struct candidates c;
	struct decision d;
};

static void setup(struct fixture *f)
{
	memset(f, 0, sizeof *f);
	f->root = scratch_dir();
	put_text(f->root, "/usr/local/cuda-13.1/compat/libcuda.so.1", "\x7f" "ELF");
	chmod(f->root, 0755);
	f->s.root = f->root;
	f->s.policy = POLICY_AUTO;
	f->h.platform = PLATFORM_DGPU;
	f->v[0].dir = (char *)"/usr/local/cuda-13.1/compat";
	f->v[0].cuda = V(13, 1);
	f->v[0].unknown = true;
	f->v[1].dir = (char *)"/usr/local/cuda-12.9/compat";
	f->v[1].cuda = V(12, 9);
	f->v[1].usable = true;
	f->c.v = f->v;
	f->c.n = 2;
	f->d.chosen = 1;
}

static void teardown(struct fixture *f)
{
	rm_rf(f->root);
	free(f->root);
}

Test(firstuse, asks_only_where_it_may)
{
	struct fixture f;
	int which[FIRST_USE_MAX];
	setup(&f);
	cr_assert_eq(first_use_pending(&f.s, &f.h, &f.c, &f.d, which, FIRST_USE_MAX), 1);
	cr_assert_eq(which[0], 0);

	f.s.secure = true;	/* a set-id program never asks */
	cr_assert_eq(first_use_pending(&f.s, &f.h, &f.c, &f.d, which, FIRST_USE_MAX), 0);
	f.s.secure = false;
	f.s.first_use_off = true;
	cr_assert_eq(first_use_pending(&f.s, &f.h, &f.c, &f.d, which, FIRST_USE_MAX), 0);
	f.s.first_use_off = false;
	f.h.platform = PLATFORM_TEGRA;	/* a Jetson's tables need no word */
	cr_assert_eq(first_use_pending(&f.s, &f.h, &f.c, &f.d, which, FIRST_USE_MAX), 0);
	f.h.platform = PLATFORM_DGPU;
	f.s.policy = POLICY_SYSTEM;
	cr_assert_eq(first_use_pending(&f.s, &f.h, &f.c, &f.d, which, FIRST_USE_MAX), 0);
	f.s.policy = POLICY_AUTO;

	/* nothing newer than what is taken is worth asking about */
	f.v[1].cuda = V(13, 2);
	cr_assert_eq(first_use_pending(&f.s, &f.h, &f.c, &f.d, which, FIRST_USE_MAX), 0);
	f.v[1].cuda = V(12, 9);

	/* a verdict on this host stands; a busy GPU is asked again later */
	f.v[0].verdict.state = VSTATE_APPLIES;
	cr_assert_eq(first_use_pending(&f.s, &f.h, &f.c, &f.d, which, FIRST_USE_MAX), 0);
	f.v[0].verdict.state = VSTATE_INCONCLUSIVE;
	f.v[0].verdict.when = (long long)time(NULL);
	cr_assert_eq(first_use_pending(&f.s, &f.h, &f.c, &f.d, which, FIRST_USE_MAX), 0);
	f.v[0].verdict.when -= FIRST_USE_RETRY_S + 1;
	cr_assert_eq(first_use_pending(&f.s, &f.h, &f.c, &f.d, which, FIRST_USE_MAX), 1);
	teardown(&f);
}

/* The verifier would load the package: never one others can change. */
Test(firstuse, never_a_package_others_can_write)
{
	struct fixture f;
	int which[FIRST_USE_MAX];
	char p[512];
	setup(&f);
	snprintf(p, sizeof p, "%s/usr/local/cuda-13.1/compat", f.root);
	chmod(p, 0777);
	cr_assert_eq(first_use_pending(&f.s, &f.h, &f.c, &f.d, which, FIRST_USE_MAX), 0);
	chmod(p, 0755);
	snprintf(p, sizeof p, "%s/usr/local/cuda-13.1/compat/libcuda.so.1", f.root);
	chmod(p, 0666);
	cr_assert_eq(first_use_pending(&f.s, &f.h, &f.c, &f.d, which, FIRST_USE_MAX), 0);
	chmod(p, 0644);
	cr_assert_eq(first_use_pending(&f.s, &f.h, &f.c, &f.d, which, FIRST_USE_MAX), 1);
	teardown(&f);
}
