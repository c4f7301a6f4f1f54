/* SPDX-License-Identifier: MIT */
#include "helpers.h"

#include "../../common/decision/decide.h"
#include "../../common/decision/forward.h"
#include "../../common/host/tables.h"

#define V(a, b) ((a) * 1000 + (b) * 10)

static struct host jetson(int l4t_major, int l4t_minor, int cuda, const char *soc)
{
	struct host h;
	memset(&h, 0, sizeof h);
	h.platform = PLATFORM_TEGRA;
	snprintf(h.soc, sizeof h.soc, "%s", soc);
	h.l4t.major = l4t_major;
	h.l4t.minor = l4t_minor;
	h.have_l4t = true;
	h.cuda = cuda;
	return h;
}

static struct host dgpu_full(int branch, int minor, int patch)
{
	struct host h;
	memset(&h, 0, sizeof h);
	h.platform = PLATFORM_DGPU;
	h.have_driver = true;
	h.driver.major = branch;
	h.driver.minor = minor;
	h.driver.patch = patch;
	snprintf(h.driver_str, sizeof h.driver_str, "%d.%d.%02d", branch, minor, patch);
	h.cuda = tables_branch_cuda(branch);
	return h;
}

static struct host dgpu(int branch)
{
	return dgpu_full(branch, 0, 0);
}

static void lib_driver(struct candidate *c, int major, int minor, int patch)
{
	c->has_lib_driver = true;
	c->lib_driver.major = major;
	c->lib_driver.minor = minor;
	c->lib_driver.patch = patch;
}

static void note_drivers(struct candidate *c, const int *branches, int n)
{
	c->has_note = true;
	c->note.has_drivers = true;
	c->note.n_drivers = n;
	for (int i = 0; i < n; i++)
		c->note.drivers[i] = branches[i];
}

static struct candidate cand(const char *dir, int cuda)
{
	struct candidate c;
	memset(&c, 0, sizeof c);
	c.dir = (char *)dir;
	c.has_lib = true;
	c.elf_class = ELFCLASS64;
	c.elf_machine = EM_AARCH64;
	c.cuda = cuda;
	c.cuda_from = "directory";
	c.orin_only = strstr(dir, "compat_orin") != NULL;
	c.has_ptxjit = true;
	return c;
}

static struct decision run(const struct host *h, struct candidate *v, size_t n, enum policy p)
{
	struct candidates c = { .v = v, .n = n, .cap = n };
	struct decision d;
	decide(h, &c, p, ELFCLASS64, EM_AARCH64, &d);
	return d;
}

Test(decide_happy, jetpack5_takes_12_2)
{
	struct host h = jetson(35, 4, V(11, 4), "tegra234");
	struct candidate v[] = { cand("/usr/local/cuda-12.2/compat", V(12, 2)) };
	struct decision d = run(&h, v, 1, POLICY_AUTO);
	cr_assert(d.use_compat);
	cr_assert_eq(d.chosen, 0);
	cr_assert(v[0].usable);
	cr_assert(strstr(d.reason, "compat CUDA 12.2") != NULL, "%s", d.reason);
}

Test(decide_happy, newest_usable_wins)
{
	struct host h = jetson(36, 4, V(12, 6), "tegra234");
	struct candidate v[] = {
		cand("/usr/local/cuda-12.8/compat", V(12, 8)),
		cand("/usr/local/cuda-12.9/compat", V(12, 9)),
		cand("/usr/local/cuda-12.7/compat", V(12, 7)),
		cand("/opt/dup-12.9/compat", V(12, 9)),
	};
	struct decision d = run(&h, v, 4, POLICY_AUTO);
	cr_assert_eq(d.chosen, 1);
	cr_assert(!v[2].usable);
	cr_assert(strstr(v[2].reason, "does not support CUDA 12.7") != NULL, "%s", v[2].reason);
	cr_assert(v[3].usable, "a tie is usable but the earlier one stays chosen");
}

Test(decide_happy, orin_cuda13_only_from_compat_orin)
{
	struct host h = jetson(39, 0, V(13, 2), "tegra234");
	struct candidate v[] = {
		cand("/usr/local/cuda-13.4/compat", V(13, 4)),
		cand("/usr/local/cuda-13.3/compat_orin", V(13, 3)),
	};
	struct decision d = run(&h, v, 2, POLICY_AUTO);
	cr_assert_eq(d.chosen, 1);
	cr_assert(strstr(v[0].reason, "compat_orin") != NULL, "%s", v[0].reason);

	struct host thor = jetson(39, 0, V(13, 2), "tegra264");
	d = run(&thor, v, 2, POLICY_AUTO);
	cr_assert_eq(d.chosen, 0);
	cr_assert(strstr(v[1].reason, "is for Orin") != NULL, "%s", v[1].reason);
}

Test(decide_happy, dgpu_note_and_table)
{
	struct host h = dgpu(550);
	struct candidate v[] = { cand("/usr/local/cuda-12.9/compat", V(12, 9)) };
	v[0].elf_machine = EM_AARCH64;
	v[0].has_note = true;
	v[0].note.has_drivers = true;
	v[0].note.n_drivers = 2;
	v[0].note.drivers[0] = 535;
	v[0].note.drivers[1] = 550;
	lib_driver(&v[0], 575, 51, 3);
	struct decision d = run(&h, v, 1, POLICY_AUTO);
	cr_assert(d.use_compat, "%s", v[0].reason);

	struct host h570 = dgpu(570);
	struct candidate w[] = { cand("/usr/local/cuda-13.0/compat", V(13, 0)) };
	w[0].has_lib_driver = true;
	w[0].lib_driver.major = 580;
	d = run(&h570, w, 1, POLICY_AUTO);
	cr_assert(d.use_compat, "%s", w[0].reason);
}

Test(decide_sad, refusals_with_reasons)
{
	static const struct {
		int l4t, minor, host_cuda;
		const char *soc;
		int cuda;
		const char *reason;
	} cases[] = {
		{ 35, 4, V(11, 4), "tegra234", V(12, 4), "does not support CUDA 12.4 compat on L4T r35" },
		{ 36, 4, V(12, 6), "tegra234", V(12, 4), "is not newer than the host driver's 12.6" },
		{ 36, 4, V(12, 6), "tegra234", V(12, 6), "is not newer" },
		{ 32, 7, V(10, 2), "tegra210", V(11, 8), "does not support CUDA 11.8 compat on L4T r32" },
		{ 38, 2, V(13, 0), "tegra264", V(13, 2), "does not support CUDA 13.2 compat on L4T r38" },
		{ 36, 3, V(12, 2), "tegra234", V(13, 0), "ships as compat_orin" },
		{ 40, 0, V(13, 2), "tegra264", V(13, 4), "L4T r40 is not in the compat table" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct host h = jetson(cases[i].l4t, cases[i].minor, cases[i].host_cuda, cases[i].soc);
		struct candidate v[] = { cand("/usr/local/cuda-x/compat", cases[i].cuda) };
		struct decision d = run(&h, v, 1, POLICY_AUTO);
		cr_assert(!d.use_compat, "case %zu", i);
		cr_assert(strstr(v[0].reason, cases[i].reason) != NULL, "case %zu: %s", i, v[0].reason);
		cr_assert(strstr(d.reason, "system driver") != NULL, "case %zu: %s", i, d.reason);
	}
}

Test(decide_sad, dgpu_refusals)
{
	struct host h = dgpu(545);
	struct candidate v[] = { cand("/c", V(12, 9)) };
	v[0].has_note = true;
	v[0].note.has_drivers = true;
	v[0].note.n_drivers = 1;
	v[0].note.drivers[0] = 550;
	run(&h, v, 1, POLICY_AUTO);
	cr_assert_str_eq(v[0].reason, "its note lists driver branches 550, not the host's 545");

	struct host h580 = dgpu(580);
	struct candidate w[] = { cand("/c", V(13, 1)) };
	run(&h580, w, 1, POLICY_AUTO);
	cr_assert_str_eq(w[0].reason, "no note and no driver version in the file name");
	w[0].has_lib_driver = true;
	w[0].lib_driver.major = 575;
	run(&h580, w, 1, POLICY_AUTO);
	cr_assert_str_eq(w[0].reason, "its driver 575 is not newer than the host's 580");

	struct host h560 = dgpu(560);
	w[0].lib_driver.major = 590;
	run(&h560, w, 1, POLICY_AUTO);
	cr_assert_str_eq(w[0].reason, "NVIDIA does not support forward compatibility on branch 560 (not a supported target branch)");

	/* a Jetson package on a data-center host and the reverse */
	struct host jp = jetson(36, 4, V(12, 6), "tegra234");
	w[0].cuda = V(12, 9);
	run(&jp, w, 1, POLICY_AUTO);
	cr_assert(strstr(w[0].reason, "data-center compat package") != NULL, "%s", w[0].reason);
}

Test(decide_sad, unknowns_and_machine)
{
	struct host none;
	memset(&none, 0, sizeof none);
	snprintf(none.problem, sizeof none.problem, "no NVIDIA GPU found");
	struct candidate v[] = { cand("/c", V(12, 9)) };
	struct decision d = run(&none, v, 1, POLICY_AUTO);
	cr_assert(!d.use_compat);
	cr_assert_str_eq(v[0].reason, "no NVIDIA GPU");
	cr_assert_str_eq(d.reason, "system driver: no NVIDIA GPU found");

	struct host unknown = jetson(36, 4, 0, "tegra234");
	snprintf(unknown.problem, sizeof unknown.problem, "release file from a container");
	run(&unknown, v, 1, POLICY_AUTO);
	cr_assert_str_eq(v[0].reason, "host driver unknown: release file from a container");

	struct host h = jetson(35, 4, V(11, 4), "tegra234");
	struct candidate w[] = { cand("/c", 0) };
	run(&h, w, 1, POLICY_AUTO);
	cr_assert(strstr(w[0].reason, "no CUDA version") != NULL);

	struct candidate x[] = { cand("/usr/local/cuda-12.2/compat", V(12, 2)) };
	x[0].elf_machine = EM_X86_64;
	d = run(&h, x, 1, POLICY_COMPAT);
	cr_assert(!d.use_compat, "even policy compat needs the right machine");
	cr_assert_str_eq(x[0].reason, "libcuda is x86_64 ELF64, the program is aarch64 ELF64");

	struct candidate y[] = { cand("/c", V(12, 2)) };
	y[0].has_lib = false;
	snprintf(y[0].lib_problem, sizeof y[0].lib_problem, "libcuda.so.1: No such file or directory");
	run(&h, y, 1, POLICY_COMPAT);
	cr_assert_str_eq(y[0].reason, "no usable libcuda.so.1 (libcuda.so.1: No such file or directory)");

	d = run(&h, NULL, 0, POLICY_AUTO);
	cr_assert_str_eq(d.reason, "system driver: no compat package found");
}

Test(decide_happy, policies)
{
	struct host h = jetson(35, 4, V(11, 4), "tegra234");
	struct candidate v[] = {
		cand("/usr/local/cuda-12.4/compat", V(12, 4)),
		cand("/usr/local/cuda-12.2/compat", V(12, 2)),
	};
	struct decision d = run(&h, v, 2, POLICY_AUTO);
	cr_assert_eq(d.chosen, 1);
	d = run(&h, v, 2, POLICY_COMPAT);
	cr_assert_eq(d.chosen, 0, "policy compat: newest, whatever the tables say");
	d = run(&h, v, 2, POLICY_SYSTEM);
	cr_assert(!d.use_compat);
	cr_assert_str_eq(d.reason, "policy system");
	cr_assert_str_eq(v[1].reason, "policy system");

	struct host none;
	memset(&none, 0, sizeof none);
	d = run(&none, v, 2, POLICY_COMPAT);
	cr_assert_eq(d.chosen, 0, "policy compat applies without a GPU too");
}

/* ---- verdicts (verdict.h): after the tables, never over the policy ---------- */

static struct candidate verified(const char *dir, int cuda, int cu)
{
	struct candidate c = cand(dir, cuda);
	/* cuInit's failure, or every step passed on the one device */
	c.verdict = (struct verdict){ .kind = VERDICT_CU, .state = VSTATE_APPLIES,
				      .step = cu ? VSTEP_INIT : VSTEP_DONE, .device = -1,
				      .devices = cu ? 0 : 1, .code = cu, .when = 1700000000 };
	return c;
}

Test(decide_verdict, a_failure_refuses_what_the_tables_allow)
{
	struct host h = jetson(35, 4, V(11, 4), "tegra234");
	struct candidate v[] = { verified("/usr/local/cuda-12.2/compat", V(12, 2), 804) };
	struct decision d = run(&h, v, 1, POLICY_AUTO);
	cr_assert(!d.use_compat);
	cr_assert(strstr(v[0].reason, "verified: cuInit returned 804 (CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE") == v[0].reason,
		  "%s", v[0].reason);
}

/* Past cuInit: a context or the JIT failing on a device refuses too, and
 * says which step; cuInit alone that worked is no success. */
Test(decide_verdict, a_failing_step_past_cuinit_refuses)
{
	struct host h = jetson(35, 4, V(11, 4), "tegra234");
	struct candidate v[] = { verified("/usr/local/cuda-12.2/compat", V(12, 2), 0) };
	v[0].verdict = (struct verdict){ .kind = VERDICT_CU, .state = VSTATE_APPLIES, .step = VSTEP_CONTEXT,
					 .device = 1, .devices = 2, .code = 999 };
	struct decision d = run(&h, v, 1, POLICY_AUTO);
	cr_assert(!d.use_compat);
	cr_assert_str_eq(v[0].reason, "verified: context: 999 (CUDA_ERROR_UNKNOWN: unknown error) on device 1 of 2");
	cr_assert_str_eq(d.reason, "system driver: the compat package failed when verified "
			 "(context: 999 (CUDA_ERROR_UNKNOWN: unknown error) on device 1 of 2)");
	v[0].verdict.step = VSTEP_MODULE, v[0].verdict.code = 218;
	d = run(&h, v, 1, POLICY_AUTO);
	cr_assert(!d.use_compat);
	cr_assert(strstr(v[0].reason, "verified: module: 218 (CUDA_ERROR_INVALID_PTX") == v[0].reason, "%s", v[0].reason);
	/* every step passed on fewer devices than the system driver saw */
	v[0].verdict = (struct verdict){ .kind = VERDICT_CU, .state = VSTATE_APPLIES, .step = VSTEP_COUNT,
					 .device = -1, .devices = 1, .code = 0 };
	d = run(&h, v, 1, POLICY_AUTO);
	cr_assert(!d.use_compat);
	cr_assert_str_eq(v[0].reason, "verified: device count: saw 1 device, fewer than the system driver");
	/* the same failure where the system driver failed too: the tables decide */
	v[0].verdict.state = VSTATE_INCONCLUSIVE;
	d = run(&h, v, 1, POLICY_AUTO);
	cr_assert(d.use_compat, "%s", v[0].reason);
}

Test(decide_verdict, the_next_newest_takes_over)
{
	struct host h = jetson(36, 4, V(12, 6), "tegra234");
	struct candidate v[] = {
		verified("/usr/local/cuda-12.9/compat", V(12, 9), 999),
		cand("/usr/local/cuda-12.8/compat", V(12, 8)),
	};
	struct decision d = run(&h, v, 2, POLICY_AUTO);
	cr_assert_eq(d.chosen, 1);
}

Test(decide_verdict, success_makes_an_unknown_candidate_usable)
{
	struct host h = jetson(40, 0, V(13, 2), "tegra264");
	h.l4t.major = 40;
	struct candidate v[] = { verified("/usr/local/cuda-13.4/compat", V(13, 4), 0) };
	struct decision d = run(&h, v, 1, POLICY_AUTO);
	cr_assert(d.use_compat, "%s", v[0].reason);
	cr_assert(strstr(v[0].reason, "verified: it works (tables: L4T r40 is not in the compat table)") != NULL,
		  "%s", v[0].reason);
	v[0].verdict.kind = VERDICT_NONE;
	d = run(&h, v, 1, POLICY_AUTO);
	cr_assert(!d.use_compat, "without the verdict the tables refuse it");
}

Test(decide_verdict, success_does_not_lift_a_known_no)
{
	struct host h = jetson(36, 4, V(12, 6), "tegra234");
	struct candidate v[] = { verified("/usr/local/cuda-12.7/compat", V(12, 7), 0) };
	struct decision d = run(&h, v, 1, POLICY_AUTO);
	cr_assert(!d.use_compat);
	cr_assert(strstr(v[0].reason, "does not support CUDA 12.7") != NULL, "%s", v[0].reason);
}

Test(decide_verdict, stale_or_inconclusive_verdicts_change_nothing)
{
	struct host h = jetson(35, 4, V(11, 4), "tegra234");
	struct candidate v[] = { verified("/usr/local/cuda-12.2/compat", V(12, 2), 804) };
	v[0].verdict.state = VSTATE_CHANGED;
	cr_assert(run(&h, v, 1, POLICY_AUTO).use_compat);
	v[0].verdict.state = VSTATE_INCONCLUSIVE;
	cr_assert(run(&h, v, 1, POLICY_AUTO).use_compat);
}

/* The decision line names the driver's answer, not the host's CUDA, when
 * every candidate the tables judged was refused by a verdict. */
Test(decide_verdict, the_decision_line_says_the_driver_refused)
{
	struct host h = jetson(35, 4, V(11, 4), "tegra234");
	struct candidate v[] = { verified("/usr/local/cuda-12.2/compat", V(12, 2), 804) };
	struct decision d = run(&h, v, 1, POLICY_AUTO);
	cr_assert_str_eq(d.reason, "system driver: the compat package failed when verified (cuInit returned 804 "
			 "(CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE: a GPU here does not support forward compatibility))");

	struct candidate w[] = {
		verified("/usr/local/cuda-12.4/compat", V(12, 4), 803),
		verified("/usr/local/cuda-12.2/compat", V(12, 2), 804),
	};
	w[1].verdict.kind = VERDICT_HANG;
	w[1].verdict.code = 30;
	d = run(&h, w, 2, POLICY_AUTO);
	cr_assert(strstr(d.reason, "system driver: every compat package failed when verified (/usr/local/cuda-12.4/compat: cuInit returned 803") == d.reason,
		  "%s", d.reason);

	/* one refused by the tables, one by the driver: the tables' line, and a word on the rest */
	struct candidate x[] = {
		cand("/usr/local/cuda-12.7/compat", V(12, 7)),
		verified("/usr/local/cuda-12.2/compat", V(12, 2), 804),
	};
	d = run(&h, x, 2, POLICY_AUTO);
	cr_assert(strstr(d.reason, "no compat package is usable with the host's CUDA 11.4 (some failed when verified)") != NULL,
		  "%s", d.reason);
	x[1].verdict.state = VSTATE_CHANGED;
	d = run(&h, x, 2, POLICY_AUTO);
	cr_assert(d.use_compat, "a stale verdict is no verdict: %s", d.reason);
}

Test(decide_verdict, never_over_the_policy)
{
	struct host h = jetson(35, 4, V(11, 4), "tegra234");
	struct candidate v[] = { verified("/usr/local/cuda-12.2/compat", V(12, 2), 804) };
	struct decision d = run(&h, v, 1, POLICY_COMPAT);
	cr_assert(d.use_compat, "policy compat takes it whatever the driver said");
	v[0] = verified("/usr/local/cuda-12.2/compat", V(12, 2), 0);
	d = run(&h, v, 1, POLICY_SYSTEM);
	cr_assert(!d.use_compat);
}

/* Where decide_may_use_compat says no, no candidate changes the choice: a
 * run skips looking for them.  Checked on every kind of host and policy. */
Test(decide_happy, no_candidate_matters_where_none_can_be_chosen)
{
	struct host none;
	memset(&none, 0, sizeof none);
	snprintf(none.problem, sizeof none.problem, "no NVIDIA GPU found");
	struct host unknown_l4t = jetson(35, 4, 0, "tegra234");
	struct host hosts[] = { none, unknown_l4t, jetson(35, 4, V(11, 4), "tegra234"), dgpu(535) };
	enum policy policies[] = { POLICY_AUTO, POLICY_COMPAT, POLICY_SYSTEM };
	int chosen_somewhere = 0;
	for (size_t i = 0; i < sizeof hosts / sizeof hosts[0]; i++) {
		for (size_t j = 0; j < 3; j++) {
			/* one the tables allow, one only a verdict makes usable */
			struct candidate v[] = { cand("/usr/local/cuda-12.2/compat", V(12, 2)),
						 verified("/usr/local/cuda-12.4/compat", V(12, 4), 0) };
			struct decision with = run(&hosts[i], v, 2, policies[j]);
			chosen_somewhere += with.use_compat;
			if (decide_may_use_compat(&hosts[i], policies[j]))
				continue;
			struct decision without = run(&hosts[i], v, 0, policies[j]);
			cr_assert(!with.use_compat, "host %zu policy %zu", i, j);
			cr_assert_str_eq(with.reason, without.reason, "host %zu policy %zu", i, j);
		}
	}
	cr_assert_gt(chosen_somewhere, 0, "the candidate is choosable at all");
	cr_assert(!decide_may_use_compat(&none, POLICY_AUTO));
	cr_assert(decide_may_use_compat(&none, POLICY_COMPAT));
	cr_assert(!decide_may_use_compat(&hosts[2], POLICY_SYSTEM));
	cr_assert(decide_may_use_compat(&hosts[2], POLICY_AUTO));
	/* a Jetson of unknown L4T: the tables know nothing, a verdict can */
	struct candidate v[] = { verified("/usr/local/cuda-12.4/compat", V(12, 4), 0) };
	cr_assert(run(&unknown_l4t, v, 1, POLICY_AUTO).use_compat, "%s", v[0].reason);
	cr_assert(decide_may_use_compat(&unknown_l4t, POLICY_AUTO));
}

/* Thor's cuda-compat-13-4 (libcuda.so.615.31) was refused as a
 * data-center package; on Xavier and Orin such a package stays refused. */
Test(decide_happy, thor_takes_the_data_center_package)
{
	struct host thor = jetson(39, 0, V(13, 2), "tegra264");
	struct candidate v[] = { cand("/usr/local/cuda-13.4/compat", V(13, 4)) };
	lib_driver(&v[0], 615, 31, -1);
	static const int branches[] = { 535, 570, 580, 590, 595, 610, 615 };
	note_drivers(&v[0], branches, 7);	/* the driver list is ignored on Tegra */
	thor.driver.major = 580;		/* and so is the host driver version */
	struct decision d = run(&thor, v, 1, POLICY_AUTO);
	cr_assert(d.use_compat, "%s", v[0].reason);
	cr_assert_str_eq(v[0].reason, "CUDA 13.4 is supported on L4T r39");

	struct host jp70 = jetson(38, 2, V(13, 0), "tegra264");
	d = run(&jp70, v, 1, POLICY_AUTO);
	cr_assert(!d.use_compat, "JetPack 7.0 takes no compat package");

	struct host orin = jetson(39, 0, V(13, 2), "tegra234");
	run(&orin, v, 1, POLICY_AUTO);
	cr_assert(strstr(v[0].reason, "only Thor takes those") != NULL, "%s", v[0].reason);
	struct host xavier = jetson(35, 4, V(11, 4), "tegra194");
	v[0].cuda = V(12, 2);
	run(&xavier, v, 1, POLICY_AUTO);
	cr_assert(strstr(v[0].reason, "only Thor takes those") != NULL, "%s", v[0].reason);
}

/* Host 610.57.04 took a same-branch but older compat (803). */
Test(decide_sad, note_needs_a_newer_compat_driver)
{
	static const int b610[] = { 535, 570, 580, 590, 595, 610 };
	struct host h = dgpu_full(610, 57, 4);
	cr_assert_eq(h.cuda, V(13, 3));
	struct candidate v[] = { cand("/usr/local/cuda-13.3/compat", V(13, 3)) };
	note_drivers(&v[0], b610, 6);
	lib_driver(&v[0], 610, 43, 2);
	struct decision d = run(&h, v, 1, POLICY_AUTO);
	cr_assert(!d.use_compat);
	cr_assert_str_eq(v[0].reason, "its driver 610.43.02 is not newer than the host's 610.57.04 (cuInit would fail with 803)");

	/* the real H200 host: 580.159.04 with cuda-compat-13-0 (580.95.05) */
	static const int b580[] = { 535, 550, 565, 570, 575, 580 };
	struct host h200 = dgpu_full(580, 159, 4);
	struct candidate w[] = { cand("/usr/local/cuda-13.0/compat", V(13, 0)) };
	note_drivers(&w[0], b580, 6);
	lib_driver(&w[0], 580, 95, 5);
	run(&h200, w, 1, POLICY_AUTO);
	cr_assert(strstr(w[0].reason, "580.95.05 is not newer than the host's 580.159.04") != NULL,
		  "%s", w[0].reason);

	/* no file-name version: nothing to compare, refused */
	w[0].has_lib_driver = false;
	run(&h200, w, 1, POLICY_AUTO);
	cr_assert(strstr(w[0].reason, "no driver version to compare") != NULL, "%s", w[0].reason);
}

Test(decide_happy, same_branch_newer_compat)
{
	static const int b575[] = { 535, 550, 560, 565, 570, 575 };
	struct host h = dgpu_full(575, 10, 10);
	struct candidate v[] = { cand("/usr/local/cuda-12.9/compat", V(12, 9)) };
	note_drivers(&v[0], b575, 6);
	lib_driver(&v[0], 575, 57, 8);
	struct decision d = run(&h, v, 1, POLICY_AUTO);
	cr_assert(d.use_compat, "%s", v[0].reason);
}

/* 615 was taken for 595 (13.2); a newer branch is unknown. */
Test(decide_sad, branch_newer_than_the_table)
{
	cr_assert_eq(tables_branch_cuda(615), V(13, 4));
	struct host h = dgpu(625);
	cr_assert_eq(h.cuda, 0);
	snprintf(h.problem, sizeof h.problem, "driver branch 625 is newer than the driver table");
	struct candidate v[] = { cand("/usr/local/cuda-13.4/compat", V(13, 4)) };
	lib_driver(&v[0], 630, 1, 1);
	struct decision d = run(&h, v, 1, POLICY_AUTO);
	cr_assert(!d.use_compat);
	cr_assert(strstr(v[0].reason, "host driver unknown: driver branch 625 is newer") != NULL, "%s", v[0].reason);
	cr_assert(strstr(d.reason, "newer than the driver table") != NULL, "%s", d.reason);

	/* a note that lists the branch needs no table */
	static const int b[] = { 620, 625 };
	note_drivers(&v[0], b, 2);
	d = run(&h, v, 1, POLICY_AUTO);
	cr_assert(d.use_compat, "%s", v[0].reason);
}

/* 535 takes every note-less package from 12.3 through 13.4;
 * end-of-life and new-feature branches are no targets. */
Test(decide_happy, nonote_table_rows)
{
	struct candidate v[] = { cand("/usr/local/cuda-13.0/compat", V(13, 0)) };
	lib_driver(&v[0], 580, 65, 6);
	struct host h535 = dgpu(535);
	struct decision d = run(&h535, v, 1, POLICY_AUTO);
	cr_assert(d.use_compat, "%s", v[0].reason);
	v[0].cuda = V(13, 4);
	lib_driver(&v[0], 615, 31, -1);
	d = run(&h535, v, 1, POLICY_AUTO);
	cr_assert(d.use_compat, "%s", v[0].reason);
	static const int refused[] = { 470, 550, 560, 575 };
	for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
		struct host h = dgpu(refused[i]);
		d = run(&h, v, 1, POLICY_AUTO);
		cr_assert(!d.use_compat, "branch %d", refused[i]);
		cr_assert(strstr(v[0].reason, "not a supported target branch") != NULL, "%s", v[0].reason);
	}
	static const int taken[] = { 570, 580, 590, 595, 610 };
	for (size_t i = 0; i < sizeof taken / sizeof taken[0]; i++) {
		struct host h = dgpu(taken[i]);
		d = run(&h, v, 1, POLICY_AUTO);
		cr_assert(d.use_compat, "branch %d: %s", taken[i], v[0].reason);
	}
}

/* GeForce, TITAN and NVS boards get 804 from any compat libcuda. */
Test(decide_sad, geforce_host)
{
	struct host h = dgpu(570);
	h.n_gpus = 2;
	snprintf(h.gpus[0].model, sizeof h.gpus[0].model, "NVIDIA H100 80GB HBM3");
	h.gpus[0].brand = tables_gpu_brand(h.gpus[0].model);
	snprintf(h.gpus[1].model, sizeof h.gpus[1].model, "NVIDIA GeForce RTX 4090");
	h.gpus[1].brand = tables_gpu_brand(h.gpus[1].model);
	h.unsupported_gpu = 2;
	struct candidate v[] = { cand("/usr/local/cuda-13.0/compat", V(13, 0)) };
	lib_driver(&v[0], 580, 65, 6);
	struct decision d = run(&h, v, 1, POLICY_AUTO);
	cr_assert(!d.use_compat);
	cr_assert_str_eq(v[0].reason, "NVIDIA GeForce RTX 4090 (GeForce RTX) does not support forward compatibility (cuInit would fail with 804)");
	cr_assert_str_eq(d.reason, "system driver: NVIDIA GeForce RTX 4090 does not support forward compatibility (GeForce RTX)");

	/* a note whose device list leaves out the board's brand */
	h.n_gpus = 1;
	h.unsupported_gpu = 0;
	static const int b570[] = { 570 };
	note_drivers(&v[0], b570, 1);
	v[0].note.has_devices = true;
	v[0].note.n_devices = 2;
	v[0].note.devices[0] = 1;
	v[0].note.devices[1] = 2;
	d = run(&h, v, 1, POLICY_AUTO);
	cr_assert(!d.use_compat);
	cr_assert(strstr(v[0].reason, "device list leaves out NVIDIA H100 80GB HBM3 (brand 14") != NULL, "%s", v[0].reason);
	v[0].note.devices[1] = 14;
	d = run(&h, v, 1, POLICY_AUTO);
	cr_assert(d.use_compat, "%s", v[0].reason);
}

/* A compat dir without its PTX JIT compiler is a partial install. */
Test(decide_sad, partial_package)
{
	struct host h = jetson(35, 4, V(11, 4), "tegra234");
	struct candidate v[] = { cand("/usr/local/cuda-12.2/compat", V(12, 2)) };
	v[0].has_ptxjit = false;
	struct decision d = run(&h, v, 1, POLICY_AUTO);
	cr_assert(!d.use_compat);
	cr_assert(strstr(v[0].reason, "incomplete package: no libnvidia-ptxjitcompiler.so.1") != NULL, "%s", v[0].reason);
	d = run(&h, v, 1, POLICY_COMPAT);
	cr_assert(d.use_compat, "policy compat still takes it");
	cr_assert(strstr(v[0].reason, "policy compat (auto: refused: incomplete package") != NULL, "%s", v[0].reason);
}

/* CUDA 13.5 exists and no table knows it: unknown, said so. */
Test(decide_sad, newer_than_the_tables)
{
	struct host h = jetson(39, 0, V(13, 2), "tegra234");
	struct candidate v[] = { cand("/usr/local/cuda-13.5/compat_orin", V(13, 5)) };
	run(&h, v, 1, POLICY_AUTO);
	cr_assert_str_eq(v[0].reason, "CUDA 13.5 is newer than cudaload's tables (CUDA 13.4 edition): unknown; the CUDA for Tegra table needs a row for L4T r39");
	struct host d580 = dgpu(580);
	lib_driver(&v[0], 620, 1, 1);
	run(&d580, v, 1, POLICY_AUTO);
	cr_assert(strstr(v[0].reason, "the forward-compatibility table needs a row for branch 580") != NULL, "%s", v[0].reason);
}

Test(decide_sad, refused_for_the_machine)
{
	struct host h = jetson(35, 4, V(11, 4), "tegra234");
	struct candidate v[] = { cand("/usr/local/cuda-12.2/compat", V(12, 2)) };
	v[0].elf_machine = EM_X86_64;
	struct decision d = run(&h, v, 1, POLICY_AUTO);
	cr_assert_str_eq(d.reason, "system driver: no compat package is for the program's machine and class (aarch64 ELF64)");
}

/* A CUDA newer than every table row is unknown: a stored success lifts it. */
Test(decide_verdict, success_lifts_a_cuda_newer_than_the_tables)
{
	struct host h = jetson(39, 0, V(13, 2), "tegra234");
	struct candidate v[] = { verified("/usr/local/cuda-13.5/compat_orin", V(13, 5), 0) };
	struct decision d = run(&h, v, 1, POLICY_AUTO);
	cr_assert(d.use_compat, "%s", v[0].reason);
	cr_assert(strstr(v[0].reason, "verified: it works (tables: CUDA 13.5 is newer than cudaload's tables") != NULL,
		  "%s", v[0].reason);
}

/* A package newer than the tables whose note lists the host's
 * branch, with a newer driver, is taken on its note and says so. */
Test(decide_happy, note_first_for_a_cuda_the_tables_do_not_know)
{
	struct host h = dgpu_full(580, 95, 5);
	struct candidate v[] = { cand("/usr/local/cuda-13.5/compat", V(13, 5)) };
	v[0].elf_machine = EM_AARCH64;
	lib_driver(&v[0], 620, 70, 6);
	static const int b[] = { 535, 570, 580, 590, 595, 610, 615, 620 };
	note_drivers(&v[0], b, 8);
	struct decision d = run(&h, v, 1, POLICY_AUTO);
	cr_assert(d.use_compat, "%s", v[0].reason);
	cr_assert_str_eq(v[0].reason, "its note lists the host branch 580 and its driver 620.70.06 is newer than the host's 580.95.05; taken on the package's own note: the tables (CUDA 13.4 edition) do not know CUDA 13.5");
	/* the note speaks both ways: a branch it leaves out is refused, known or not */
	struct host old = dgpu_full(550, 1, 2);
	run(&old, v, 1, POLICY_AUTO);
	cr_assert(!v[0].usable && !v[0].unknown, "%s", v[0].reason);
	cr_assert(strstr(v[0].reason, "not the host's 550") != NULL, "%s", v[0].reason);
	/* without a note the tables decide, and do not know 13.5 */
	v[0].has_note = false;
	run(&h, v, 1, POLICY_AUTO);
	cr_assert(v[0].unknown, "%s", v[0].reason);
}

static struct host thor(int l4t_major, int cuda, int branch, int minor, int patch)
{
	struct host h = jetson(l4t_major, 0, cuda, "tegra264");
	h.have_driver = true;
	h.driver.major = branch;
	h.driver.minor = minor;
	h.driver.patch = patch;
	snprintf(h.driver_str, sizeof h.driver_str, "%d.%d.%02d", branch, minor, patch);
	return h;
}

/* On r39.2 Thor's own repository carries cuda-compat-13-2 595.58.03,
 * older than the 595.78 driver: 803, refused; a 13.5 package whose note
 * lists 595 is taken on its note; r38's explicit "none" still wins. */
Test(decide_sad, thor_r39_driver_and_note)
{
	static const int b13_2[] = { 535, 570, 580, 590, 595 }, b13_5[] = { 535, 570, 580, 590, 595, 610, 615, 620 };
	struct host h = thor(39, V(13, 2), 595, 78, 0);
	struct candidate v[] = { cand("/usr/local/cuda-13.2/compat", V(13, 2)),
				 cand("/usr/local/cuda-13.5/compat", V(13, 5)) };
	lib_driver(&v[0], 595, 58, 3);
	note_drivers(&v[0], b13_2, 5);
	lib_driver(&v[1], 620, 70, 6);
	note_drivers(&v[1], b13_5, 8);
	struct decision d = run(&h, v, 2, POLICY_AUTO);
	cr_assert_str_eq(v[0].reason, "its driver 595.58.03 is not newer than the host's 595.78.00 (cuInit would fail with 803)");
	cr_assert(d.use_compat && d.chosen == 1, "%s", d.reason);
	cr_assert(strstr(v[1].reason, "taken on the package's own note") != NULL, "%s", v[1].reason);

	/* without the module's version the note cannot be checked: unknown */
	h.have_driver = false;
	run(&h, v, 2, POLICY_AUTO);
	cr_assert(v[1].unknown, "%s", v[1].reason);
	cr_assert(strstr(v[1].reason, "needs a row for L4T r39") != NULL, "%s", v[1].reason);

	/* JetPack 7.0: the application note says none, whatever a note says */
	struct host r38 = thor(38, V(13, 0), 580, 0, -1);
	snprintf(r38.driver_str, sizeof r38.driver_str, "580.00");
	struct candidate w[] = { cand("/usr/local/cuda-13.2/compat", V(13, 2)) };
	lib_driver(&w[0], 595, 45, 4);
	note_drivers(&w[0], b13_2, 5);
	d = run(&r38, w, 1, POLICY_AUTO);
	cr_assert(!d.use_compat);
	cr_assert_str_eq(w[0].reason, "NVIDIA does not support CUDA 13.2 compat on L4T r38");
}

/* A GPU whose architecture ended at an older branch refuses a
 * package of a later one, before the note (which lists branches, not chips). */
static void add_gpu(struct host *h, const char *model, int arch)
{
	struct dgpu *g = &h->gpus[h->n_gpus++];
	snprintf(g->bus, sizeof g->bus, "0000:%02x:00.0", h->n_gpus);
	snprintf(g->model, sizeof g->model, "%s", model);
	g->brand = tables_gpu_brand(model);
	g->arch = (unsigned char)arch;
	g->arch_from = ARCH_FROM_PCI;
	if (tables_arch_last_branch(arch) &&
	    (!h->retired_gpu || tables_arch_last_branch(arch) <
				      tables_arch_last_branch(h->gpus[h->retired_gpu - 1].arch)))
		h->retired_gpu = h->n_gpus;
}

Test(decide_arch, volta_stops_at_r580)
{
	static const int branches[] = { 535, 570, 580, 590 };
	struct host h = dgpu_full(535, 261, 3);
	add_gpu(&h, "NVIDIA H100 80GB HBM3", GPU_ARCH_HOPPER);
	add_gpu(&h, "Tesla V100-SXM2-16GB", GPU_ARCH_VOLTA);
	struct candidate v[] = { cand("/usr/local/cuda-13.1/compat", V(13, 1)),
				 cand("/usr/local/cuda-13.0/compat", V(13, 0)) };
	for (int i = 0; i < 2; i++) {
		v[i].elf_machine = EM_AARCH64;
		note_drivers(&v[i], branches, 4);
	}
	lib_driver(&v[0], 590, 44, 1);
	lib_driver(&v[1], 580, 65, 6);
	struct decision d = run(&h, v, 2, POLICY_AUTO);
	cr_assert_str_eq(v[0].reason,
			 "Tesla V100-SXM2-16GB: Volta, supported up to driver branch R580; this package is R590");
	cr_assert(v[1].usable, "%s", v[1].reason);
	cr_assert_eq(d.chosen, 1);

	/* without the V100 the newest is taken */
	h.n_gpus = 1;
	h.retired_gpu = 0;
	d = run(&h, v, 2, POLICY_AUTO);
	cr_assert_eq(d.chosen, 0, "%s", v[0].reason);
}

Test(decide_arch, the_branch_from_the_cuda_version_and_the_decision_line)
{
	struct host h = dgpu(470);
	add_gpu(&h, "Tesla K80", GPU_ARCH_KEPLER);
	struct candidate v[] = { cand("/c", V(12, 2)), cand("/d", V(13, 6)) };
	struct decision d = run(&h, v, 2, POLICY_AUTO);
	cr_assert_str_eq(v[0].reason, "Tesla K80: Kepler, supported up to driver branch R470; this package is R535");
	cr_assert_str_eq(v[1].reason,
			 "Tesla K80: Kepler, supported up to driver branch R470; this package is CUDA 13.6, of a later branch");
	cr_assert_str_eq(d.reason,
			 "system driver: Tesla K80 is Kepler, supported up to driver branch R470; every compat package is of a later branch");
	/* the override stays an override */
	d = run(&h, v, 2, POLICY_COMPAT);
	cr_assert(d.use_compat);
}

/* A working cuInit says nothing of a chip the package cannot drive. */
Test(decide_arch, a_verdict_does_not_lift_it)
{
	struct host h = dgpu(535);
	add_gpu(&h, "Tesla P100-PCIE-16GB", GPU_ARCH_PASCAL);
	struct candidate v[] = { cand("/c", V(13, 1)) };
	lib_driver(&v[0], 590, 44, 1);
	v[0].verdict = (struct verdict){ .kind = VERDICT_CU, .state = VSTATE_APPLIES, .step = VSTEP_DONE,
					 .device = -1, .devices = 1 };
	struct decision d = run(&h, v, 1, POLICY_AUTO);
	cr_assert(!d.use_compat, "%s", d.reason);
}

/* A workstation board or a GPU of unknown architecture: what the
 * tables allow needs the driver's word; a success verdict gives it. */
Test(decide_arch, workstation_needs_the_drivers_word)
{
	static const int branches[] = { 535, 550 };
	struct host h = dgpu_full(550, 54, 14);
	add_gpu(&h, "NVIDIA RTX A6000", GPU_ARCH_AMPERE);
	h.ask_gpu = 1;
	struct candidate v[] = { cand("/c", V(12, 9)) };
	note_drivers(&v[0], branches, 2);
	lib_driver(&v[0], 575, 51, 3);
	struct decision d = run(&h, v, 1, POLICY_AUTO);
	cr_assert(!d.use_compat);
	cr_assert(v[0].unknown && v[0].needs_word);
	cr_assert(strstr(v[0].reason, "needs the driver's word: NVIDIA RTX A6000 is a workstation board (NVIDIA RTX;") == v[0].reason,
		  "%s", v[0].reason);
	cr_assert(strstr(v[0].reason, "tables: its note lists the host branch 550") != NULL, "%s", v[0].reason);
	cr_assert(strstr(d.reason, "system driver: NVIDIA RTX A6000: only the driver can say") == d.reason, "%s", d.reason);

	v[0].verdict = (struct verdict){ .kind = VERDICT_CU, .state = VSTATE_APPLIES, .step = VSTEP_DONE,
					 .device = -1, .devices = 1 };
	d = run(&h, v, 1, POLICY_AUTO);
	cr_assert(d.use_compat, "%s", d.reason);

	/* a refusal by the tables stays a refusal: nothing to ask */
	struct candidate w[] = { cand("/c", V(12, 9)) };
	lib_driver(&w[0], 575, 51, 3);
	static const int other[] = { 570 };
	note_drivers(&w[0], other, 1);
	run(&h, w, 1, POLICY_AUTO);
	cr_assert(!w[0].unknown && !w[0].needs_word, "%s", w[0].reason);
}

Test(decide_arch, unknown_architecture_needs_the_drivers_word)
{
	static const int branches[] = { 535 };
	struct host h = dgpu_full(535, 261, 3);
	add_gpu(&h, "NVIDIA Future GPU", GPU_ARCH_UNKNOWN);
	h.gpus[0].device_id = 0x3fff;
	h.ask_gpu = 1;
	struct candidate v[] = { cand("/c", V(13, 1)) };
	note_drivers(&v[0], branches, 1);
	lib_driver(&v[0], 590, 44, 1);
	run(&h, v, 1, POLICY_AUTO);
	cr_assert(strstr(v[0].reason, "needs the driver's word: NVIDIA Future GPU: architecture unknown (device 0x3fff is not in cudaload's table)") == v[0].reason,
		  "%s", v[0].reason);
}

/* forward.h: the newest CUDA a package NVIDIA publishes would be taken
 * with, by the tables alone.  The rows: the forward-compatibility table
 * (13.4 edition: 535, 570, 580, 590, 595, 610, 615 take up to 13.4), the
 * driver deprecation schedule (Volta ends at R580: CUDA 13.0), the brands,
 * the CUDA for Tegra application note (r35: to 12.2, r36: to 12.9, r38:
 * none, r39: 13.3 and 13.4). */
static int forward(const struct host *h)
{
	return forward_newest(h, ELFCLASS64, EM_AARCH64);
}

Test(decide_forward, data_center_hosts)
{
	struct host h = dgpu_full(535, 261, 3);
	add_gpu(&h, "NVIDIA H100 80GB HBM3", GPU_ARCH_HOPPER);
	cr_assert_eq(forward(&h), V(13, 4));
	add_gpu(&h, "Tesla V100-SXM2-16GB", GPU_ARCH_VOLTA);
	cr_assert_eq(forward(&h), V(13, 0), "the V100 beside it sets the node's limit");

	struct host v580 = dgpu_full(580, 95, 5);
	add_gpu(&v580, "Tesla V100-SXM2-16GB", GPU_ARCH_VOLTA);
	cr_assert_eq(forward(&v580), 0, "13.0 is not newer than a 580 host's own");

	struct host h615 = dgpu(615), h620 = dgpu(620), h550 = dgpu(550);
	cr_assert_eq(forward(&h615), 0, "nothing the tables know is newer than 13.4");
	cr_assert_eq(forward(&h620), 0, "R620 is not a target of the 13.4 edition's table");
	cr_assert_eq(forward(&h550), 0, "end of life: not a supported target");

	struct host k80 = dgpu(470);
	add_gpu(&k80, "Tesla K80", GPU_ARCH_KEPLER);
	cr_assert_eq(forward(&k80), 0);

	struct host geforce = dgpu(570);
	add_gpu(&geforce, "NVIDIA GeForce RTX 4090", GPU_ARCH_ADA);
	geforce.unsupported_gpu = 1;
	cr_assert_eq(forward(&geforce), 0, "GeForce: 804");

	struct host workstation = dgpu(535);
	add_gpu(&workstation, "NVIDIA RTX A6000", GPU_ARCH_AMPERE);
	workstation.ask_gpu = 1;
	cr_assert_eq(forward(&workstation), 0, "only the driver can say");

	struct host none;
	memset(&none, 0, sizeof none);
	cr_assert_eq(forward(&none), 0);
}

Test(decide_forward, jetson_hosts)
{
	struct host jp5 = jetson(35, 4, V(11, 4), "tegra234"), jp6 = jetson(36, 4, V(12, 6), "tegra234");
	struct host xavier = jetson(35, 4, V(11, 4), "tegra194"), nano = jetson(32, 7, V(10, 2), "tegra210");
	struct host orin_r39 = jetson(39, 2, V(13, 2), "tegra234");
	cr_assert_eq(forward(&jp5), V(12, 2));
	cr_assert_eq(forward(&jp6), V(12, 9));
	cr_assert_eq(forward(&xavier), V(12, 2));
	cr_assert_eq(forward(&nano), 0);
	cr_assert_eq(forward(&orin_r39), V(13, 4), "compat_orin");
	struct host r38 = thor(38, V(13, 0), 580, 0, -1), r39 = thor(39, V(13, 2), 595, 78, 0);
	cr_assert_eq(forward(&r38), 0);
	cr_assert_eq(forward(&r39), V(13, 4), "the data-center package of R615");
}
