/* SPDX-License-Identifier: MIT */
#include "helpers.h"

#include "../../common/decision/judge.h"
#include "../../common/packages/reach.h"

/* An H100 on 535 with cuda-compat-13-1, whose note lists 535 (the fixture
 * dgpu-h100-535-compat-13-1: compat, the toolkit's rule). */
static const struct test_elf_spec note131 = {
	.note_owner = "NVIDIA Corporation",
	.note_desc = "{\"format\":1,\"CUDA version\":\"13.1\",\"driver\":[535,570,580,590],"
		     "\"device\":[1,2,7,8,9,10,11,12,13,14]}",
};
#define PKG "/usr/local/cuda-13.1/compat"
#define BUS "0000:17:00.0"

/* A whole package: libcuda and its JIT compiler, as NVIDIA ships them. */
static void put_package(const char *root, const char *dir)
{
	char rel[256];
	put_lib(root, dir, "libcuda.so.590.44.01", &note131);
	snprintf(rel, sizeof rel, "%s/libnvidia-ptxjitcompiler.so.1", dir);
	put_text(root, rel, "");
}

static char *h100_root(void)
{
	char *root = scratch_dir();
	put_text(root, "/sys/module/nvidia/version", "535.261.03\n");
	put_text(root, "/proc/driver/nvidia/gpus/" BUS "/information",
		 "Model: \t\t NVIDIA H100 80GB HBM3\nBus Type: \t PCIe\nBus Location: \t " BUS "\n"
		 "Device Minor: \t 0\n");
	put_text(root, "/sys/bus/pci/devices/" BUS "/vendor", "0x10de\n");
	put_text(root, "/sys/bus/pci/devices/" BUS "/device", "0x2330\n");
	put_text(root, "/sys/bus/pci/devices/" BUS "/class", "0x030200\n");
	put_package(root, PKG);
	return root;
}

/* The settings of a start under root (CUDALOAD_ROOT), with an empty
 * config; they point into root_var, as a start's into its environment. */
static char root_var[4200], config_var[4200];

static void settings_at(struct settings *s, const char *root)
{
	snprintf(root_var, sizeof root_var, "CUDALOAD_ROOT=%s", root);
	snprintf(config_var, sizeof config_var, "CUDALOAD_CONFIG=%s/empty.conf", root);
	put_text(root, "/empty.conf", "");
	char *envp[] = { root_var, config_var, NULL };
	settings_from_env(s, envp, false);
	settings_load_config(s, envp, NULL);
}

static struct judge_in in_for(struct settings *s)
{
	return (struct judge_in){ .s = s, .cls = ELFCLASS64, .machine = EM_X86_64 };
}

static int reached, asked;

/* A program whose RUNPATH names one more package (reach.h). */
static int reach_runpath(void *ctx, struct host *h, struct candidates *c)
{
	reached++;
	return reach_discover(ctx, h, c);
}

static int reach_oom(void *ctx, struct host *h, struct candidates *c)
{
	(void)ctx, (void)h, (void)c;
	return -1;
}

static bool ask_none(void *ctx, const struct judgement *j)
{
	(void)ctx, (void)j;
	asked++;
	return false;
}

Test(judge_happy, compat_first_then_the_users_list)
{
	char *root = h100_root();
	struct settings s;
	settings_at(&s, root);
	struct judge_in in = in_for(&s);
	in.user_llp = "/home/u/lib";
	in.ask = ask_none;
	asked = 0;
	struct judgement j;
	judge_init(&j);
	judge_host(&in, &j);
	cr_assert(j.whole);
	cr_assert_eq(j.host.platform, PLATFORM_DGPU);
	cr_assert_eq(j.cands.n, 1);
	cr_assert(j.d.use_compat, "%s; %s", j.d.reason, j.cands.v[0].reason);
	cr_assert_eq(asked, 1, "the first use is asked once the decision is made");
	char want[4400];
	snprintf(want, sizeof want, "%s" PKG, root);
	cr_assert_str_eq(j.own, want);
	snprintf(want, sizeof want, "%s" PKG ":/home/u/lib", root);
	cr_assert_str_eq(j.list, want);
	cr_assert(!j.pin.dir, "compat chosen: no pin");
	char *list = judge_search_list_take(&j);
	cr_assert_str_eq(list, want);
	cr_assert_null(j.list);
	cr_assert_null(j.own);
	free(list);
	compat_free(&j.cands);
	settings_free(&s);
	rm_rf(root);
	free(root);
}

/* One judgement, listed again for a decision of the caller's: the system
 * driver gets no list of its own where no pin can be made (none here). */
Test(judge_happy, plan_for_another_decision)
{
	char *root = h100_root();
	struct settings s;
	settings_at(&s, root);
	struct judge_in in = in_for(&s);
	struct judgement j;
	judge_init(&j);
	judge_host(&in, &j);
	cr_assert(j.d.use_compat);
	free(judge_search_list_take(&j));
	j.d = (struct decision){ false, -1, "" };
	judge_search_list(&in, &j);
	cr_assert_null(j.list);
	cr_assert_neq(j.pin.why[0], '\0', "why the system driver has no pin is said");
	free(judge_search_list_take(&j));
	compat_free(&j.cands);
	settings_free(&s);
	rm_rf(root);
	free(root);
}

Test(judge_happy, bare_looks_at_nothing)
{
	char *root = h100_root();
	struct settings s;
	settings_at(&s, root);
	struct judge_in in = in_for(&s);
	in.bare = "file capabilities";
	in.ask = ask_none;
	asked = 0;
	struct judgement j;
	judge_init(&j);
	judge_host(&in, &j);
	cr_assert_eq(j.host.platform, PLATFORM_NONE, "nothing probed");
	cr_assert_eq(j.cands.n, 0);
	cr_assert(!j.d.use_compat);
	cr_assert_str_eq(j.d.reason, "system driver: file capabilities");
	cr_assert_null(j.list);
	cr_assert_eq(asked, 0);
	settings_free(&s);
	rm_rf(root);
	free(root);
}

/* What the caller's reach finds is judged with the rest; a reach out of
 * memory leaves the judgement not whole (so it is never kept). */
Test(judge_happy, reach_is_judged)
{
	char *root = h100_root();
	put_package(root, "/opt/app/compat");
	struct settings s;
	settings_at(&s, root);
	struct judge_in in = in_for(&s);
	struct reach rp = { .root = root, .machine = EM_X86_64, .runpath = "/opt/app/compat" };
	in.reach = reach_runpath;
	in.reach_ctx = &rp;
	reached = 0;
	struct judgement j;
	judge_init(&j);
	judge_look_around(&in, &j);
	cr_assert_eq(reached, 1);
	cr_assert(j.whole);
	cr_assert_eq(j.cands.n, 2);
	cr_assert_str_eq(j.cands.v[1].dir, "/opt/app/compat");
	compat_free(&j.cands);

	in.reach = reach_oom;
	judge_init(&j);
	judge_look_around(&in, &j);
	cr_assert(!j.whole);
	compat_free(&j.cands);
	settings_free(&s);
	rm_rf(root);
	free(root);
}

/* A host without a GPU: nothing looked for, unless everything is looked at
 * (--explain), and no reach asked. */
Test(judge_happy, no_gpu_pays_for_the_probe_alone)
{
	char *root = scratch_dir();
	put_package(root, PKG);
	struct settings s;
	settings_at(&s, root);
	struct judge_in in = in_for(&s);
	struct reach rp = { .root = root, .machine = EM_X86_64, .runpath = PKG };
	in.reach = reach_runpath;
	in.reach_ctx = &rp;
	reached = 0;
	struct judgement j;
	judge_init(&j);
	judge_host(&in, &j);
	cr_assert_eq(j.cands.n, 0);
	cr_assert_eq(reached, 0);
	cr_assert(!j.d.use_compat);
	in.full = true;
	judge_init(&j);
	judge_host(&in, &j);
	cr_assert_geq(j.cands.n, 1);
	cr_assert_eq(reached, 1);
	compat_free(&j.cands);
	settings_free(&s);
	rm_rf(root);
	free(root);
}

/* Exec mode's one argument: a list past the kernel's limit is no list, the
 * system driver, said (fail open); without the limit it is kept. */
Test(judge_sad, list_too_long_for_one_argument)
{
	char *root = h100_root();
	struct settings s;
	settings_at(&s, root);
	struct judge_in in = in_for(&s);
	size_t n = 40 * 4096;
	char *llp = malloc(n + 1);
	memset(llp, 'a', n);
	llp[0] = '/';
	llp[n] = '\0';
	in.user_llp = llp;
	struct judgement j;
	judge_init(&j);
	judge_host(&in, &j);
	cr_assert(j.d.use_compat);
	cr_assert_gt(strlen(j.list), n);
	free(judge_search_list_take(&j));
	compat_free(&j.cands);

	in.one_argument = true;
	judge_init(&j);
	cr_redirect_stderr();
	judge_host(&in, &j);
	cr_assert(!j.d.use_compat);
	cr_assert_null(j.list);
	cr_assert(strstr(j.d.reason, "too long to pass in exec mode"), "%s", j.d.reason);
	cr_assert_eq(s.n_warnings, 1);
	compat_free(&j.cands);
	free(llp);
	settings_free(&s);
	rm_rf(root);
	free(root);
}
