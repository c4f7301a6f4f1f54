/* SPDX-License-Identifier: MIT */
#include "helpers.h"

#include <elf.h>

#include "../../common/decision/pin.h"
#include "../../common/decision/searchlist.h"

static struct candidate cand(const char *dir, int machine)
{
	struct candidate v;
	memset(&v, 0, sizeof v);
	v.dir = (char *)dir;
	v.has_lib = true;
	v.elf_class = ELFCLASS64;
	v.elf_machine = machine;
	return v;
}

Test(pin_happy, needed_only_for_a_loadable_package)
{
	struct candidate v = cand("/usr/local/cuda-13.0/compat", EM_AARCH64);
	struct candidates c = { .v = &v, .n = 1, .cap = 1 };
	cr_assert(pin_needed(&c, ELFCLASS64, EM_AARCH64));
	cr_assert(!pin_needed(&c, ELFCLASS64, EM_X86_64), "a package for another machine cannot load");
	v.has_lib = false;
	cr_assert(!pin_needed(&c, ELFCLASS64, EM_AARCH64), "no libcuda: nothing to load");
	c.n = 0;
	cr_assert(!pin_needed(&c, ELFCLASS64, EM_AARCH64));
}

/* Under a test root the shipped links (absolute, into the target's own
 * root) cannot serve: a driver dir is its own pin; a general dir none. */
Test(pin_happy, driver_dir_under_a_root)
{
	char *root = scratch_dir();
	put_file(root, "/usr/lib/aarch64-linux-gnu/tegra/libcuda.so.1", "x", 1);
	put_file(root, "/usr/local/cuda-12.4/compat/libcuda.so.1", "x", 1);
	struct host h;
	memset(&h, 0, sizeof h);
	h.platform = PLATFORM_TEGRA;
	h.driver_dirs[0] = "/usr/local/cuda-12.4/compat";	/* a candidate never counts */
	h.driver_dirs[1] = "/usr/lib/aarch64-linux-gnu/tegra";
	h.n_driver_dirs = 2;
	struct candidate v = cand("/usr/local/cuda-12.4/compat", EM_AARCH64);
	struct candidates c = { .v = &v, .n = 1, .cap = 1 };
	struct pin p;
	pin_system(root, "/usr/bin/cudaload", &h, &c, EM_AARCH64, false, &p);
	cr_assert_str_eq(p.system_dir, "/usr/lib/aarch64-linux-gnu/tegra");
	char want[4096];
	snprintf(want, sizeof want, "%s/usr/lib/aarch64-linux-gnu/tegra", root);
	cr_assert_str_eq(p.dir, want);
	cr_assert(!p.links);

	/* the system driver first in the list, the user's after it */
	struct decision d = { false, -1, "" };
	char *l = searchlist_library_path(root, &d, &c, &h, p.dir, "/usr/local/cuda/compat", false);
	char wl[8192];
	snprintf(wl, sizeof wl, "%s:/usr/local/cuda/compat", want);
	cr_assert_str_eq(l, wl);
	free(l);
	l = searchlist_library_path(root, &d, &c, &h, p.dir, "/usr/local/cuda/compat", true);
	cr_assert_str_eq(l, want, "secure: the user's list is dropped");
	free(l);
	pin_free(&p);
	rm_rf(root);
	free(root);
}

Test(pin_sad, general_dir_under_a_root_or_nothing)
{
	char *root = scratch_dir();
	struct host h;
	memset(&h, 0, sizeof h);
	h.platform = PLATFORM_DGPU;
	struct candidate v = cand("/usr/local/cuda-13.0/compat", EM_X86_64);
	struct candidates c = { .v = &v, .n = 1, .cap = 1 };
	struct pin p;
	pin_system(root, "/usr/bin/cudaload", &h, &c, EM_X86_64, false, &p);
	cr_assert_null(p.system_dir);
	cr_assert_null(p.dir);
	cr_assert(strstr(p.why, "no system libcuda.so.1") != NULL, "%s", p.why);

	put_file(root, "/usr/lib/x86_64-linux-gnu/libcuda.so.1", "x", 1);
	pin_system(root, "/usr/bin/cudaload", &h, &c, EM_X86_64, false, &p);
	cr_assert_str_eq(p.system_dir, "/usr/lib/x86_64-linux-gnu");
	cr_assert_null(p.dir, "a general dir is never its own pin");
	cr_assert(strstr(p.why, "CUDALOAD_ROOT") != NULL, "%s", p.why);
	rm_rf(root);
	free(root);
}

/* On the real root: the shipped links beside the cudaload binary. */
Test(pin_happy, shipped_links_beside_cudaload)
{
	char *base = scratch_dir();
	char self[4096], pindir[4096];
	snprintf(self, sizeof self, "%s/bin/cudaload", base);
	/* a driver dir that exists on every machine: the test's own */
	snprintf(pindir, sizeof pindir, "%s/lib/cudaload/pin%s", base, base);
	put_file(base, "/drv/libcuda.so.1", "x", 1);
	put_file(base, "/bin/cudaload", "x", 1);	/* bin/.. must resolve */
	mkdirs(pindir);
	strcat(pindir, "/drv");
	mkdirs(pindir);
	char drv[4096];
	snprintf(drv, sizeof drv, "%s/drv", base);
	struct host h;
	memset(&h, 0, sizeof h);
	h.platform = PLATFORM_DGPU;
	h.driver_dirs[0] = drv;
	h.n_driver_dirs = 1;
	struct candidate v = cand("/usr/local/cuda-13.0/compat", EM_X86_64);
	struct candidates c = { .v = &v, .n = 1, .cap = 1 };
	struct pin p;
	pin_system("", self, &h, &c, EM_X86_64, false, &p);
	char want[8192];
	snprintf(want, sizeof want, "%s/bin/..%s%s/drv", base, "/lib/cudaload/pin", base);
	cr_assert_str_eq(p.dir, want);
	cr_assert(p.links);
	pin_free(&p);
	pin_system("", NULL, &h, &c, EM_X86_64, false, &p);
	cr_assert_str_eq(p.dir, drv, "without its own path: the driver dir itself");
	pin_free(&p);
	rm_rf(base);
	free(base);
}
