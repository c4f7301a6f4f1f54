/* SPDX-License-Identifier: MIT */
#include "helpers.h"

#include "../../common/packages/compat.h"
#include "../../common/host/probe.h"
#include "../../common/stores/verdicts.h"

#define HDR "cudaload-verdicts 2\nhost 0123456789abcdef dgpu 580.65.06\nsystem cu=0 done 2 1700000000\n"

static int parse(const char *text, struct verdict_store *s, char *why)
{
	return verdict_parse(text, strlen(text), s, why, 160);
}

Test(verdict_happy, header_and_entries)
{
	struct verdict_store s;
	struct verdict_entry e;
	char why[160] = "";
	const char *text = HDR
		"compat cu=804 init 0 1700000001 2049 131 4096 1699999999.000000123 /usr/local/cuda-12.9/compat\n"
		"compat hang=30 module:1 2 1700000002 1 2 3 4.000000000 /opt/a dir with spaces\n";
	cr_assert_eq(parse(text, &s, why), 0, "%s", why);
	cr_assert_eq(s.host_key, 0x0123456789abcdefull);
	cr_assert_eq(s.system.kind, VERDICT_CU);
	cr_assert_eq(s.system.code, 0);
	cr_assert_eq(s.system.step, VSTEP_DONE);
	cr_assert_eq(s.system.devices, 2);
	cr_assert_eq(s.system.when, 1700000000);
	cr_assert(verdict_ok(&s.system));
	size_t pos = 0;
	cr_assert_eq(verdict_next(&s, &pos, &e), 1);
	cr_assert_eq(e.v.kind, VERDICT_CU);
	cr_assert_eq(e.v.code, 804);
	cr_assert_eq(e.v.step, VSTEP_INIT);
	cr_assert_eq(e.v.device, -1);
	cr_assert_eq(e.v.devices, 0);
	cr_assert_eq(e.file.dev, 2049);
	cr_assert_eq(e.file.ino, 131);
	cr_assert_eq(e.file.size, 4096);
	cr_assert_eq(e.file.mtime_s, 1699999999);
	cr_assert_eq(e.file.mtime_ns, 123);
	cr_assert_eq(e.dir_len, strlen("/usr/local/cuda-12.9/compat"));
	cr_assert(memcmp(e.dir, "/usr/local/cuda-12.9/compat", e.dir_len) == 0);
	cr_assert_eq(verdict_next(&s, &pos, &e), 1);
	cr_assert_eq(e.v.kind, VERDICT_HANG);
	cr_assert_eq(e.v.code, 30);
	cr_assert_eq(e.v.step, VSTEP_MODULE);
	cr_assert_eq(e.v.device, 1);
	cr_assert_eq(e.v.devices, 2);
	cr_assert(memcmp(e.dir, "/opt/a dir with spaces", e.dir_len) == 0);
	cr_assert_eq(verdict_next(&s, &pos, &e), 0);
}

Test(verdict_happy, no_entries)
{
	struct verdict_store s;
	struct verdict_entry e;
	char why[160];
	cr_assert_eq(parse(HDR, &s, why), 0, "%s", why);
	size_t pos = 0;
	cr_assert_eq(verdict_next(&s, &pos, &e), 0);
}

Test(verdict_happy, describe)
{
	char buf[160];
	struct verdict v = { .kind = VERDICT_CU, .step = VSTEP_INIT, .device = -1, .code = 804 };
	cr_assert_str_eq(verdict_describe(&v, buf, sizeof buf),
			 "cuInit returned 804 (CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE: a GPU here does not support forward compatibility)");
	v.code = 12345;
	cr_assert_str_eq(verdict_describe(&v, buf, sizeof buf), "cuInit returned 12345");
	v.kind = VERDICT_SIGNAL, v.code = 11;
	cr_assert_str_eq(verdict_describe(&v, buf, sizeof buf), "crashed in cuInit (signal 11)");
	cr_assert_str_eq(verdict_token(&v, buf, sizeof buf), "signal=11");
	cr_assert_str_eq(verdict_step_token(&v, buf, sizeof buf), "init");

	/* past cuInit: the step, its CUresult and the device */
	v = (struct verdict){ .kind = VERDICT_CU, .step = VSTEP_CONTEXT, .device = 1, .devices = 2, .code = 999 };
	cr_assert_str_eq(verdict_describe(&v, buf, sizeof buf),
			 "context: 999 (CUDA_ERROR_UNKNOWN: unknown error) on device 1 of 2");
	cr_assert_str_eq(verdict_step_token(&v, buf, sizeof buf), "context:1");
	cr_assert_str_eq(verdict_step_name(&v), "context");
	v.step = VSTEP_MODULE, v.device = 0, v.code = 218;
	cr_assert_str_eq(verdict_describe(&v, buf, sizeof buf),
			 "module: 218 (CUDA_ERROR_INVALID_PTX: the JIT compiler rejected the PTX) on device 0 of 2");
	v.kind = VERDICT_HANG, v.code = 30;
	cr_assert_str_eq(verdict_describe(&v, buf, sizeof buf), "hung in the module step on device 0 of 2, killed after 30 s");
	v = (struct verdict){ .kind = VERDICT_CU, .step = VSTEP_DONE, .device = -1, .devices = 2 };
	cr_assert(verdict_ok(&v));
	cr_assert_str_eq(verdict_describe(&v, buf, sizeof buf),
			 "cuInit returned 0 (CUDA_SUCCESS: works), then a context and a PTX module on each of its 2 devices");
	v.devices = 1;
	cr_assert_str_eq(verdict_describe(&v, buf, sizeof buf),
			 "cuInit returned 0 (CUDA_SUCCESS: works), then a context and a PTX module on its device");
	v.kind = VERDICT_SIGNAL, v.code = 6;
	cr_assert(!verdict_ok(&v));
	cr_assert_str_eq(verdict_describe(&v, buf, sizeof buf), "crashed at exit (signal 6)");
	v = (struct verdict){ .kind = VERDICT_CU, .step = VSTEP_COUNT, .device = -1, .devices = 1 };
	cr_assert(!verdict_ok(&v), "a partial count is no success");
	cr_assert_str_eq(verdict_describe(&v, buf, sizeof buf),
			 "device count: saw 1 device, fewer than the system driver");
	cr_assert_str_eq(verdict_age(100, 100 + 3 * 3600 + 5, buf, sizeof buf), "3 h");
	cr_assert_str_eq(verdict_age(100, 140, buf, sizeof buf), "40 s");
	cr_assert_str_eq(verdict_cu_name(803), "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH");
}

/* Each damaged store is refused with the reason, never read in part. */
Test(verdict_sad, damaged)
{
	static const struct {
		const char *text, *why;
	} cases[] = {
		{ "", "does not end with a newline" },
		{ "cudaload-verdicts 1\nhost 0123456789abcdef\nsystem cu=0 1\n",
		  "format 1, not this cudaload's 2: run cudaload --verify" },
		{ "cudaload-verdicts 3\nhost 0123456789abcdef\nsystem cu=0 done 1 1\n", "format 3, not this cudaload's 2" },
		{ "cudaload-verdicts 2x\n", "not a cudaload verdict store" },
		{ "cudaload-verdicts \x1b[31m\n", "not a cudaload verdict store" },
		{ "cudaload-verdicts 2", "does not end with a newline" },
		{ "cudaload-verdicts 2\n", "line 2: expected 'host <key>'" },
		{ "cudaload-verdicts 2\nhost 0123456789abcdeg\nsystem cu=0 done 1 1\n", "line 2: host key" },
		{ "cudaload-verdicts 2\nhost 0123456789abcdef0\nsystem cu=0 done 1 1\n", "line 2: host key" },
		{ "cudaload-verdicts 2\nhost 0123456789ABCDEF\nsystem cu=0 done 1 1\n", "line 2: host key" },
		{ "cudaload-verdicts 2\nhost 0123456789abcdef\nsystem cu=0 done 1\n", "line 3" },
		{ "cudaload-verdicts 2\nhost 0123456789abcdef\nsystem cu=0 1\n", "line 3" },
		{ "cudaload-verdicts 2\nhost 0123456789abcdef\nsystem cu= done 1 1\n", "line 3" },
		{ "cudaload-verdicts 2\nhost 0123456789abcdef\nsystem cu=2147483648 init 0 1\n", "line 3" },
		{ "cudaload-verdicts 2\nhost 0123456789abcdef\nsystem signal=128 init 0 1\n", "line 3" },
		{ "cudaload-verdicts 2\nhost 0123456789abcdef\nsystem load=1 init 0 1\n", "line 3" },
		{ "cudaload-verdicts 2\nhost 0123456789abcdef\nsystem cu=0 done 1 1 \n", "line 3" },
		/* the steps, and what goes with each */
		{ "cudaload-verdicts 2\nhost 0123456789abcdef\nsystem cu=0 finished 1 1\n", "line 3" },
		{ "cudaload-verdicts 2\nhost 0123456789abcdef\nsystem cu=0 donex 1 1\n", "line 3" },
		{ "cudaload-verdicts 2\nhost 0123456789abcdef\nsystem cu=0 init 0 1\n", "line 3" },
		{ "cudaload-verdicts 2\nhost 0123456789abcdef\nsystem cu=0 context:0 1 1\n", "line 3" },
		{ "cudaload-verdicts 2\nhost 0123456789abcdef\nsystem cu=804 done 1 1\n", "line 3" },
		{ "cudaload-verdicts 2\nhost 0123456789abcdef\nsystem cu=804 init 1 1\n", "line 3" },
		{ "cudaload-verdicts 2\nhost 0123456789abcdef\nsystem cu=999 count 1 1\n", "line 3" },
		{ "cudaload-verdicts 2\nhost 0123456789abcdef\nsystem load=0 context:0 1 1\n", "line 3" },
		{ "cudaload-verdicts 2\nhost 0123456789abcdef\nsystem cu=999 context:1 1 1\n", "line 3" },
		{ "cudaload-verdicts 2\nhost 0123456789abcdef\nsystem cu=999 context 1 1\n", "line 3" },
		{ "cudaload-verdicts 2\nhost 0123456789abcdef\nsystem cu=999 context: 1 1\n", "line 3" },
		{ "cudaload-verdicts 2\nhost 0123456789abcdef\nsystem cu=999 context:-1 1 1\n", "line 3" },
		{ "cudaload-verdicts 2\nhost 0123456789abcdef\nsystem cu=999 module:1024 1024 1\n", "line 3" },
		{ "cudaload-verdicts 2\nhost 0123456789abcdef\nsystem cu=0 done 1025 1\n", "line 3" },
		{ HDR "compat cu=0 done 1 1 2 3 4 5.000000000 relative\n", "line 4" },
		{ HDR "compat cu=0 done 1 1 2 3 4 5.00000000 /x\n", "line 4" },
		{ HDR "compat cu=0 done 1 1 2 3 4 5 /x\n", "line 4" },
		{ HDR "compat cu=0 done 1 1 2 3 4 5.000000000 \n", "line 4" },
		{ HDR "compat cu=0 1 2 3 4 5.000000000 /x\n", "line 4" },
		{ HDR "compat cu=0 done 1 1 18446744073709551616 3 4 5.000000000 /x\n", "line 4" },
		{ HDR "compat cu=0 done 1 1 2 3 9223372036854775808 5.000000000 /x\n", "line 4" },
		{ HDR "compat cu=0 done 1 1 2 3 4 5.000000000 /x\ncompat", "does not end with a newline" },
		{ HDR "\n", "line 4" },
		{ HDR "bogus\n", "line 4" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct verdict_store s;
		char why[160] = "";
		cr_assert_eq(parse(cases[i].text, &s, why), -1, "case %zu accepted", i);
		cr_assert(strstr(why, cases[i].why) != NULL, "case %zu: '%s'", i, why);
	}
	struct verdict_store s;
	char why[160];
	static const char nul[] = "cudaload-verdicts 2\nhost 0123456789abcdef\0\nsystem cu=0 done 1 1\n";
	cr_assert_eq(verdict_parse(nul, sizeof nul - 1, &s, why, sizeof why), -1);
	cr_assert(strstr(why, "NUL") != NULL, "%s", why);
	static char big[VERDICT_STORE_MAX + 10];
	memset(big, '\n', sizeof big);
	cr_assert_eq(verdict_parse(big, sizeof big, &s, why, sizeof why), -1);
	cr_assert(strstr(why, "larger") != NULL, "%s", why);
}

/* The store holds a line for every package a start keeps, and no more:
 * the bound grows with the packages, a store of more lines is refused. */
Test(verdict_sad, as_many_packages_as_a_start_keeps)
{
	static const char line[] = "compat cu=0 done 1 1 2 3 4 5.000000000 /opt/x\n";
	size_t cap = sizeof HDR + (VERDICT_MAX_ENTRIES + 1) * sizeof line;
	char *text = malloc(cap), why[160];
	struct verdict_store s;
	cr_assert_eq(VERDICT_MAX_ENTRIES, COMPAT_MAX_CANDIDATES);
	size_t len = (size_t)snprintf(text, cap, "%s", HDR);
	for (int i = 0; i < VERDICT_MAX_ENTRIES; i++)
		len += (size_t)snprintf(text + len, cap - len, "%s", line);
	cr_assert_eq(verdict_parse(text, len, &s, why, sizeof why), 0, "%s", why);
	len += (size_t)snprintf(text + len, cap - len, "%s", line);
	cr_assert_eq(verdict_parse(text, len, &s, why, sizeof why), -1);
	cr_assert(strstr(why, "more packages than a store holds") != NULL, "%s", why);
	free(text);
	/* every package with a long path still fits */
	cr_assert(VERDICT_STORE_MAX > 4096 + COMPAT_MAX_CANDIDATES * (sizeof line + 512));
}

/* A failure is the package's only where the system driver got past it. */
Test(verdict_happy, past)
{
	struct verdict sys = { .kind = VERDICT_CU, .step = VSTEP_DONE, .device = -1, .devices = 2 };
	struct verdict v = { .kind = VERDICT_CU, .step = VSTEP_CONTEXT, .device = 1, .devices = 2, .code = 46 };
	cr_assert(verdict_past(&sys, &v), "the system driver passed every step");
	sys = v;
	cr_assert(!verdict_past(&sys, &v), "the same step on the same device: the device's");
	v.step = VSTEP_MODULE;
	cr_assert(!verdict_past(&sys, &v), "later than where the system driver stopped");
	v.step = VSTEP_MODULE, v.device = 0;
	cr_assert(verdict_past(&sys, &v), "device 0's module, which the system driver passed");
	v = (struct verdict){ .kind = VERDICT_CU, .step = VSTEP_INIT, .device = -1, .code = 804 };
	cr_assert(verdict_past(&sys, &v));
	sys.step = VSTEP_INIT, sys.device = -1, sys.code = 100;
	cr_assert(!verdict_past(&sys, &v), "no device for the system driver either");
	sys = (struct verdict){ .kind = VERDICT_SIGNAL, .step = VSTEP_DONE, .device = -1, .code = 11 };
	v = sys;
	cr_assert(!verdict_past(&sys, &v), "both crash at exit");
	struct verdict none = { 0 };
	cr_assert(!verdict_past(&none, &v), "no baseline, no blame");
}

/* ---- matching a store to the host and the candidates' files ---------------- */

static struct host host_dgpu(const char *version)
{
	struct host h;
	memset(&h, 0, sizeof h);
	h.platform = PLATFORM_DGPU;
	snprintf(h.driver_str, sizeof h.driver_str, "%s", version);
	return h;
}

Test(verdict_happy, host_key_covers_what_makes_a_verdict_true)
{
	struct host a = host_dgpu("580.65.06"), b = a;
	cr_assert_eq(verdict_host_key(&a), verdict_host_key(&b));
	snprintf(b.driver_str, sizeof b.driver_str, "580.65.07");
	cr_assert_neq(verdict_host_key(&a), verdict_host_key(&b));
	b = a;
	b.driver_dirs[b.n_driver_dirs++] = "/run/opengl-driver/lib";
	cr_assert_neq(verdict_host_key(&a), verdict_host_key(&b));
	b.n_reached_dirs = 1;	/* reached by a program, as reach.h adds one */
	cr_assert_eq(verdict_host_key(&a), verdict_host_key(&b),
		     "the same driver where a program reaches it is the same host");
	b = a;
	b.have_gpu = true;
	b.gpu.arch = 0x170;
	cr_assert_neq(verdict_host_key(&a), verdict_host_key(&b));
	b = a;
	snprintf(b.model, sizeof b.model, "only in reports");
	cr_assert_eq(verdict_host_key(&a), verdict_host_key(&b), "the board name is read only for reports");
}

/* 804 comes from any one board: a verdict made with one set of GPUs says
 * nothing about another (one added, swapped for another model, moved). */
Test(verdict_sad, another_set_of_gpus_is_another_host)
{
	struct host a = host_dgpu("580.65.06"), b;
	a.n_gpus = 1;
	snprintf(a.gpus[0].bus, sizeof a.gpus[0].bus, "0000:01:00.0");
	snprintf(a.gpus[0].model, sizeof a.gpus[0].model, "NVIDIA T1000 8GB");
	b = a;
	cr_assert_eq(verdict_host_key(&a), verdict_host_key(&b));
	snprintf(b.gpus[0].model, sizeof b.gpus[0].model, "NVIDIA RTX A4000");
	cr_assert_neq(verdict_host_key(&a), verdict_host_key(&b), "another model");
	b = a;
	snprintf(b.gpus[0].bus, sizeof b.gpus[0].bus, "0000:02:00.0");
	cr_assert_neq(verdict_host_key(&a), verdict_host_key(&b), "another slot");
	b = a;
	b.n_gpus = 2;
	snprintf(b.gpus[1].bus, sizeof b.gpus[1].bus, "0000:02:00.0");
	snprintf(b.gpus[1].model, sizeof b.gpus[1].model, "NVIDIA H100 80GB HBM3");
	cr_assert_neq(verdict_host_key(&a), verdict_host_key(&b), "a board added");
	b = a;
	b.n_gpus = 0;
	cr_assert_neq(verdict_host_key(&a), verdict_host_key(&b), "every board gone");
	b = a;
	b.n_gpus = MAX_GPUS + 1;	/* past the list: counted, not listed */
	struct host c = b;
	c.n_gpus = MAX_GPUS + 2;
	cr_assert_neq(verdict_host_key(&b), verdict_host_key(&c), "more boards than listed");

	/* and so the loader ignores a store made with the other set */
	char *root = scratch_dir();
	put_text(root, "/usr/local/cuda-12.9/compat/libcuda.so.1", "twelve nine");
	char text[512], path[4096];
	struct stat st;
	snprintf(path, sizeof path, "%s/usr/local/cuda-12.9/compat/libcuda.so.1", root);
	cr_assert_eq(stat(path, &st), 0);
	snprintf(text, sizeof text,
		 "cudaload-verdicts 2\nhost %016llx dgpu\nsystem cu=0 done 1 1700000000\n"
		 "compat cu=804 init 0 1700000001 %llu %llu %llu %lld.%09ld /usr/local/cuda-12.9/compat\n",
		 (unsigned long long)verdict_host_key(&a), (unsigned long long)st.st_dev,
		 (unsigned long long)st.st_ino, (unsigned long long)st.st_size,
		 (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
	struct candidate v[1];
	memset(v, 0, sizeof v);
	v[0].dir = "/usr/local/cuda-12.9/compat";
	struct candidates cs = { .v = v, .n = 1, .cap = 1 };
	struct verdict sys;
	cr_assert_eq(verdict_apply(text, strlen(text), root, &a, &cs, &sys), 1);
	cr_assert_eq(v[0].verdict.state, VSTATE_APPLIES);
	memset(v, 0, sizeof v);
	v[0].dir = "/usr/local/cuda-12.9/compat";
	b = a;
	snprintf(b.gpus[0].model, sizeof b.gpus[0].model, "NVIDIA RTX A4000");
	cr_assert_eq(verdict_apply(text, strlen(text), root, &b, &cs, &sys), -1, "made with another GPU");
	cr_assert_eq(v[0].verdict.kind, VERDICT_NONE);
	rm_rf(root);
	free(root);
}

struct fixture {
	char *root;
	struct host h;
	struct candidate v[2];
	struct candidates c;
	char text[4096];
};

/* system_result: the system line's <result> <step> <devices> */
static void setup(struct fixture *f, const char *system_result)
{
	memset(f, 0, sizeof *f);
	f->root = scratch_dir();
	put_text(f->root, "/usr/local/cuda-12.9/compat/libcuda.so.1", "twelve nine");
	put_text(f->root, "/usr/local/cuda-13.0/compat/libcuda.so.1", "thirteen");
	f->h = host_dgpu("550.54.14");
	f->v[0].dir = "/usr/local/cuda-12.9/compat";
	f->v[1].dir = "/usr/local/cuda-13.0/compat";
	f->v[0].has_lib = f->v[1].has_lib = true;
	f->c = (struct candidates){ .v = f->v, .n = 2, .cap = 2 };
	char path[4096];
	struct stat st;
	snprintf(path, sizeof path, "%s/usr/local/cuda-12.9/compat/libcuda.so.1", f->root);
	cr_assert_eq(stat(path, &st), 0);
	snprintf(f->text, sizeof f->text,
		 "cudaload-verdicts 2\nhost %016llx dgpu 550.54.14\nsystem %s 1700000000\n"
		 "compat cu=804 init 0 1700000001 %llu %llu %llu %lld.%09ld /usr/local/cuda-12.9/compat\n",
		 (unsigned long long)verdict_host_key(&f->h), system_result,
		 (unsigned long long)st.st_dev, (unsigned long long)st.st_ino,
		 (unsigned long long)st.st_size, (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
}

static void teardown(struct fixture *f)
{
	rm_rf(f->root);
	free(f->root);
}

Test(verdict_happy, applies_to_the_same_file)
{
	struct fixture f;
	struct verdict sys;
	setup(&f, "cu=0 done 2");
	cr_assert_eq(verdict_apply(f.text, strlen(f.text), f.root, &f.h, &f.c, &sys), 1);
	cr_assert(verdict_ok(&sys));
	cr_assert_eq(f.v[0].verdict.state, VSTATE_APPLIES);
	cr_assert_eq(f.v[0].verdict.code, 804);
	cr_assert_eq(f.v[0].verdict.when, 1700000001);
	cr_assert_eq(f.v[1].verdict.kind, VERDICT_NONE, "no entry, no verdict");
	teardown(&f);
}

Test(verdict_sad, a_touched_or_replaced_libcuda_has_no_verdict)
{
	struct fixture f;
	struct verdict sys;
	char path[4096];
	setup(&f, "cu=0 done 2");
	snprintf(path, sizeof path, "%s/usr/local/cuda-12.9/compat/libcuda.so.1", f.root);
	struct timespec ts[2] = { { 0, UTIME_OMIT }, { 1600000000, 5 } };
	cr_assert_eq(utimensat(AT_FDCWD, path, ts, 0), 0);
	cr_assert_eq(verdict_apply(f.text, strlen(f.text), f.root, &f.h, &f.c, &sys), 1);
	cr_assert_eq(f.v[0].verdict.state, VSTATE_CHANGED);
	teardown(&f);

	setup(&f, "cu=0 done 2");
	snprintf(path, sizeof path, "%s/usr/local/cuda-12.9/compat/libcuda.so.1", f.root);
	cr_assert_eq(unlink(path), 0);
	put_text(f.root, "/usr/local/cuda-12.9/compat/libcuda.so.1", "twelve nine");
	cr_assert_eq(verdict_apply(f.text, strlen(f.text), f.root, &f.h, &f.c, &sys), 1);
	cr_assert_eq(f.v[0].verdict.state, VSTATE_CHANGED, "a new inode is another file");
	teardown(&f);
}

Test(verdict_sad, another_host_or_a_failing_baseline)
{
	struct fixture f;
	struct verdict sys;
	setup(&f, "cu=0 done 2");
	struct host other = host_dgpu("550.54.15");
	cr_assert_eq(verdict_apply(f.text, strlen(f.text), f.root, &other, &f.c, &sys), -1);
	cr_assert_eq(f.v[0].verdict.kind, VERDICT_NONE);
	teardown(&f);

	setup(&f, "cu=100 init 0");
	cr_assert_eq(verdict_apply(f.text, strlen(f.text), f.root, &f.h, &f.c, &sys), 1);
	cr_assert_eq(f.v[0].verdict.state, VSTATE_INCONCLUSIVE,
		     "when the system driver fails too, the package is not to blame");
	teardown(&f);
}

/* A device the system driver cannot use either (busy: the same step on the
 * same device fails for both) is the device's fault; a step the system
 * driver passed is the package's. */
Test(verdict_sad, a_busy_device_is_not_the_packages_fault)
{
	struct fixture f;
	struct verdict sys;
	char path[4096], line[512];
	struct stat st;
	setup(&f, "cu=46 context:1 2");
	snprintf(path, sizeof path, "%s/usr/local/cuda-13.0/compat/libcuda.so.1", f.root);
	cr_assert_eq(stat(path, &st), 0);
	snprintf(line, sizeof line, "compat cu=46 context:1 2 1700000001 %llu %llu %llu %lld.%09ld /usr/local/cuda-13.0/compat\n",
		 (unsigned long long)st.st_dev, (unsigned long long)st.st_ino, (unsigned long long)st.st_size,
		 (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
	strcat(f.text, line);
	cr_assert_eq(verdict_apply(f.text, strlen(f.text), f.root, &f.h, &f.c, &sys), 1);
	cr_assert(!verdict_ok(&sys));
	cr_assert_eq(f.v[1].verdict.state, VSTATE_INCONCLUSIVE, "busy for both: the device's");
	cr_assert_eq(f.v[1].verdict.step, VSTEP_CONTEXT);
	cr_assert_eq(f.v[1].verdict.device, 1);
	cr_assert_eq(f.v[0].verdict.state, VSTATE_APPLIES, "cuInit's 804, where the system driver got further");
	teardown(&f);
}

Test(verdict_happy, load_reads_the_store_under_the_root)
{
	struct fixture f;
	struct verdict sys;
	setup(&f, "cu=0 done 2");
	cr_assert_eq(verdict_load(f.root, false, &f.h, &f.c, &sys), 0, "no store: nothing");
	put_text(f.root, VERDICT_STORE_PATH, f.text);
	cr_assert_eq(verdict_load(f.root, false, &f.h, &f.c, &sys), 1);
	cr_assert_eq(f.v[0].verdict.state, VSTATE_APPLIES);
	put_text(f.root, VERDICT_STORE_PATH, "garbage\n");
	f.v[0].verdict.kind = VERDICT_NONE;
	cr_assert_eq(verdict_load(f.root, false, &f.h, &f.c, &sys), -1);
	cr_assert_eq(f.v[0].verdict.kind, VERDICT_NONE);
	teardown(&f);
}

/* A store past the first read is read by its size, only when it is a
 * regular file that fits: a huge file, /dev/zero and a FIFO are refused at
 * the cost of one read. */
Test(verdict_sad, hostile_stores_are_refused_cheaply)
{
	struct fixture f;
	struct verdict sys;
	char why[320] = "", path[4096];
	setup(&f, "cu=0 done 2");
	snprintf(path, sizeof path, "%s" VERDICT_STORE_PATH, f.root);

	/* a real store past VERDICT_READ_FIRST bytes: read whole */
	size_t cap = VERDICT_READ_FIRST * 3;
	char *big = malloc(cap);
	size_t len = (size_t)snprintf(big, cap, "%s", f.text);
	for (int i = 0; len < VERDICT_READ_FIRST * 2; i++)
		len += (size_t)snprintf(big + len, cap - len,
					"compat cu=0 done 1 1 2 3 4 5.000000000 /opt/other-%04d/compat\n", i);
	put_text(f.root, VERDICT_STORE_PATH, big);
	cr_assert_eq(verdict_survey(f.root, &f.h, &f.c, &sys, why, sizeof why), VSTORE_APPLIES, "%s", why);
	cr_assert_eq(f.v[0].verdict.code, 804);
	/* exactly the first read's size */
	big[VERDICT_READ_FIRST - 1] = '\n';
	big[VERDICT_READ_FIRST] = '\0';
	put_text(f.root, VERDICT_STORE_PATH, big);
	cr_assert_eq(verdict_survey(f.root, &f.h, &f.c, &sys, why, sizeof why), VSTORE_DAMAGED);
	cr_assert(strstr(why, "line ") != NULL, "read whole, then judged: %s", why);
	free(big);

	/* 10 MB: refused by its size, not read */
	int fd = open(path, O_WRONLY | O_TRUNC);
	cr_assert(fd >= 0);
	cr_assert_eq(write(fd, f.text, strlen(f.text)), (ssize_t)strlen(f.text));
	cr_assert_eq(ftruncate(fd, 10 << 20), 0);
	close(fd);
	cr_assert_eq(verdict_survey(f.root, &f.h, &f.c, &sys, why, sizeof why), VSTORE_DAMAGED);
	cr_assert(strstr(why, "too large") != NULL, "%s", why);
	cr_assert_eq(verdict_load(f.root, false, &f.h, &f.c, &sys), -1);

	/* /dev/zero and a FIFO */
	cr_assert_eq(unlink(path), 0);
	cr_assert_eq(symlink("/dev/zero", path), 0);
	cr_assert_eq(verdict_survey(f.root, &f.h, &f.c, &sys, why, sizeof why), VSTORE_DAMAGED);
	cr_assert(strstr(why, "not a regular file") != NULL, "%s", why);
	cr_assert_eq(unlink(path), 0);
	cr_assert_eq(mkfifo(path, 0644), 0);
	cr_assert_eq(verdict_survey(f.root, &f.h, &f.c, &sys, why, sizeof why), VSTORE_DAMAGED, "does not block");
	teardown(&f);
}

/* --status reads a store of another host too, and says so, never applying
 * it; a damaged store is named with its reason. */
Test(verdict_happy, survey_tells_which_store_it_found)
{
	struct fixture f;
	struct verdict sys;
	char why[320] = "";
	setup(&f, "cu=0 done 2");
	cr_assert_eq(verdict_survey(f.root, &f.h, &f.c, &sys, why, sizeof why), VSTORE_NONE);
	put_text(f.root, VERDICT_STORE_PATH, f.text);
	cr_assert_eq(verdict_survey(f.root, &f.h, &f.c, &sys, why, sizeof why), VSTORE_APPLIES);
	cr_assert_eq(f.v[0].verdict.state, VSTATE_APPLIES);
	cr_assert(verdict_ok(&sys));
	cr_assert_eq(f.v[1].verdict.kind, VERDICT_NONE);

	/* the driver moved on (535 -> 580, r35 -> r36): the same store is stale */
	struct host other = host_dgpu("580.65.06");
	f.v[0].verdict = (struct verdict){ 0 };
	cr_assert_eq(verdict_survey(f.root, &other, &f.c, &sys, why, sizeof why), VSTORE_OTHER_HOST);
	cr_assert_eq(f.v[0].verdict.state, VSTATE_OTHER_HOST);
	cr_assert_eq(f.v[0].verdict.code, 804, "the old verdict is shown");
	cr_assert_eq(sys.when, 1700000000);

	put_text(f.root, VERDICT_STORE_PATH, "garbage\n");
	cr_assert_eq(verdict_survey(f.root, &f.h, &f.c, &sys, why, sizeof why), VSTORE_DAMAGED);
	cr_assert(strstr(why, "not a cudaload verdict store"), "%s", why);
	teardown(&f);
}

/* A set-id program uses the store only when root owns it and the directories
 * above it and nobody else may write them.  Needs root (to own and give away
 * files) and a root-owned place: /run. */
Test(verdict_sad, secure_mode_trusts_only_roots_store)
{
	if (geteuid() != 0)
		cr_skip_test("needs root");
	struct fixture f;
	struct verdict sys;
	setup(&f, "cu=0 done 2");
	char tree[] = "/run/cudaload-unit-XXXXXX", path[4096], dir[4096];
	if (!mkdtemp(tree))
		cr_skip_test("cannot make a directory in /run");
	chmod(tree, 0755);
	snprintf(dir, sizeof dir, "%s%s", tree, VERDICT_STORE_DIR);
	snprintf(path, sizeof path, "%s%s", tree, VERDICT_STORE_PATH);
	put_text(tree, VERDICT_STORE_PATH, "cudaload-verdicts 2\nhost 0000000000000000\nsystem cu=0 done 1 1\n");
	chmod(path, 0644);
	cr_assert_eq(verdict_load(tree, true, &f.h, &f.c, &sys), -1, "parsed, but made for another host");
	/* the real text, with the key of this host */
	put_text(tree, VERDICT_STORE_PATH, f.text);
	cr_assert_eq(verdict_load(tree, true, &f.h, &f.c, &sys), 0 + 1);
	chmod(path, 0666);
	cr_assert_eq(verdict_load(tree, true, &f.h, &f.c, &sys), -1, "writable by others");
	cr_assert_eq(verdict_load(tree, false, &f.h, &f.c, &sys), 1, "fine for ordinary programs");
	chmod(path, 0644);
	cr_assert_eq(chown(path, 65534, 65534), 0);
	cr_assert_eq(verdict_load(tree, true, &f.h, &f.c, &sys), -1, "owned by a user");
	cr_assert_eq(chown(path, 0, 0), 0);
	chmod(dir, 0777);
	cr_assert_eq(verdict_load(tree, true, &f.h, &f.c, &sys), -1, "its directory writable by others");
	chmod(dir, 0755);
	cr_assert_eq(verdict_load(tree, true, &f.h, &f.c, &sys), 1);
	rm_rf(tree);
	teardown(&f);
}

/* ---- a user's own store (verdict_load_stores) ------------------------------- */

/* "compat RESULT STEP DEVICES 1700000005 <the file's identity> DIR\n" */
static void entry(const struct fixture *f, const char *dir, const char *rsd, char *out, size_t cap)
{
	char path[4096];
	struct stat st;
	snprintf(path, sizeof path, "%s%s/libcuda.so.1", f->root, dir);
	cr_assert_eq(stat(path, &st), 0);
	snprintf(out, cap, "compat %s 1700000005 %llu %llu %llu %lld.%09ld %s\n", rsd,
		 (unsigned long long)st.st_dev, (unsigned long long)st.st_ino, (unsigned long long)st.st_size,
		 (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec, dir);
}

/* The user's store: header (with boot when given), system line, one entry. */
static void user_text(const struct fixture *f, const char *boot, const char *system, const char *line,
		      char *out, size_t cap)
{
	snprintf(out, cap, "cudaload-verdicts 2\nhost %016llx dgpu\n%s%s%ssystem %s 1700000004\n%s",
		 (unsigned long long)verdict_host_key(&f->h), boot ? "boot " : "", boot ? boot : "",
		 boot ? "\n" : "", system, line);
}

/* A uid of a user, and the files made here given to it (root can). */
static unsigned test_uid(void)
{
	return geteuid() ? (unsigned)geteuid() : 4242;
}

static void give(const char *path, unsigned uid)
{
	if (geteuid() == 0)
		cr_assert_eq(chown(path, uid, uid), 0, "%s", path);
}

/* envp with XDG_RUNTIME_DIR=home/run (the user's, 0700) and HOME=home. */
struct user_env {
	char xdg[4200], home[4200], store[4200];
	char *envp[3];
};

static void user_env(struct user_env *u, const char *home, unsigned uid)
{
	snprintf(u->home, sizeof u->home, "HOME=%s", home);
	snprintf(u->xdg, sizeof u->xdg, "XDG_RUNTIME_DIR=%s/run", home);
	snprintf(u->store, sizeof u->store, "%s/run/cudaload/verdicts", home);
	u->envp[0] = u->xdg;
	u->envp[1] = u->home;
	u->envp[2] = NULL;
	char path[4200];
	snprintf(path, sizeof path, "%s/run/cudaload", home);
	mkdirs(path);
	give(path, uid);
	snprintf(path, sizeof path, "%s/run", home);
	cr_assert_eq(chmod(path, 0700), 0);
	give(path, uid);
}

static void put_user_store(struct user_env *u, const char *text, unsigned uid)
{
	FILE *s = fopen(u->store, "w");
	cr_assert(s != NULL);
	fputs(text, s);
	fclose(s);
	chmod(u->store, 0600);
	give(u->store, uid);
}

Test(verdict_user, the_users_store_is_read_after_roots)
{
	struct fixture f;
	struct verdict sys;
	struct user_env u;
	char line[4200], text[8400], home[4200];
	unsigned uid = test_uid();
	setup(&f, "cu=0 done 2");
	snprintf(home, sizeof home, "%s/home", f.root);
	user_env(&u, home, uid);
	entry(&f, "/usr/local/cuda-13.0/compat", "cu=999 context:1 2", line, sizeof line);
	user_text(&f, NULL, "cu=0 done 2", line, text, sizeof text);
	put_user_store(&u, text, uid);

	/* no root store: the user's alone, its baseline too */
	cr_assert_eq(verdict_load_stores(f.root, false, u.envp, uid, &f.h, &f.c, &sys), 1);
	cr_assert_eq(f.v[1].verdict.state, VSTATE_APPLIES);
	cr_assert_eq(f.v[1].verdict.source, VSOURCE_USER);
	cr_assert_eq(f.v[1].verdict.step, VSTEP_CONTEXT);
	cr_assert_eq(sys.source, VSOURCE_USER);
	cr_assert(verdict_ok(&sys));
	cr_assert_eq(f.v[0].verdict.kind, VERDICT_NONE);

	/* root's store too: both apply, each from its own */
	put_text(f.root, VERDICT_STORE_PATH, f.text);
	cr_assert_eq(verdict_load_stores(f.root, false, u.envp, uid, &f.h, &f.c, &sys), 1);
	cr_assert_eq(f.v[0].verdict.code, 804);
	cr_assert_eq(f.v[0].verdict.source, VSOURCE_ROOT);
	cr_assert_eq(f.v[1].verdict.code, 999);
	cr_assert_eq(f.v[1].verdict.source, VSOURCE_USER);
	cr_assert_eq(sys.source, VSOURCE_ROOT, "root's baseline where there is one");

	/* never for a set-id program, on a Jetson, or for root */
	verdict_load_stores(f.root, true, u.envp, uid, &f.h, &f.c, &sys);	/* root's: as its owner allows */
	cr_assert_eq(f.v[1].verdict.kind, VERDICT_NONE, "secure: the user's store is not read");
	struct host tegra = f.h;
	tegra.platform = PLATFORM_TEGRA;
	verdict_load_stores(f.root, false, u.envp, uid, &tegra, &f.c, &sys);
	cr_assert_eq(f.v[1].verdict.kind, VERDICT_NONE, "Jetson: not read");
	cr_assert_eq(verdict_load_stores(f.root, false, u.envp, 0, &f.h, &f.c, &sys), 1);
	cr_assert_eq(f.v[1].verdict.kind, VERDICT_NONE, "root: its store is the other one");
	teardown(&f);
}

/* root's store: its system line and one entry */
static void root_text(const struct fixture *f, const char *system, const char *line, char *out, size_t cap)
{
	snprintf(out, cap, "cudaload-verdicts 2\nhost %016llx dgpu\nsystem %s 1700000000\n%s",
		 (unsigned long long)verdict_host_key(&f->h), system, line);
}

/* A failing verdict in either store refuses; a success in either lifts. */
Test(verdict_user, a_failure_in_either_store_wins)
{
	static const struct {
		const char *root_sys, *root, *user, *why;
		int code;
		unsigned char source, state;
	} cases[] = {
		{ "cu=0 done 2", "cu=804 init 0", "cu=0 done 2", "root's failure over the user's success",
		  804, VSOURCE_ROOT, VSTATE_APPLIES },
		{ "cu=0 done 2", "cu=0 done 2", "cu=218 module:0 2", "the user's failure over root's success",
		  218, VSOURCE_USER, VSTATE_APPLIES },
		{ "cu=100 init 0", "cu=804 init 0", "cu=0 done 2",
		  "the user's success over root's inconclusive failure", 0, VSOURCE_USER, VSTATE_APPLIES },
		{ "cu=0 done 2", "cu=999 context:0 2", "cu=999 context:0 2", "the same: root's stays",
		  999, VSOURCE_ROOT, VSTATE_APPLIES },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct fixture f;
		struct verdict sys;
		struct user_env u;
		char line[4200], text[8400], home[4200];
		unsigned uid = test_uid();
		setup(&f, "cu=0 done 2");
		snprintf(home, sizeof home, "%s/home", f.root);
		user_env(&u, home, uid);
		entry(&f, "/usr/local/cuda-12.9/compat", cases[i].root, line, sizeof line);
		root_text(&f, cases[i].root_sys, line, text, sizeof text);
		put_text(f.root, VERDICT_STORE_PATH, text);
		entry(&f, "/usr/local/cuda-12.9/compat", cases[i].user, line, sizeof line);
		user_text(&f, NULL, "cu=0 done 2", line, text, sizeof text);
		put_user_store(&u, text, uid);
		cr_assert_eq(verdict_load_stores(f.root, false, u.envp, uid, &f.h, &f.c, &sys), 1);
		cr_assert_eq(f.v[0].verdict.code, cases[i].code, "%s", cases[i].why);
		cr_assert_eq(f.v[0].verdict.source, cases[i].source, "%s", cases[i].why);
		cr_assert_eq(f.v[0].verdict.state, cases[i].state, "%s", cases[i].why);
		teardown(&f);
	}
}

/* Only a store and directory of the real uid's that nobody else may write. */
Test(verdict_user, a_store_not_the_users_own_is_ignored)
{
	struct fixture f;
	struct verdict sys;
	struct user_env u;
	char line[4200], text[8400], home[4200], dir[4200];
	unsigned uid = test_uid();
	setup(&f, "cu=0 done 2");
	snprintf(home, sizeof home, "%s/home", f.root);
	user_env(&u, home, uid);
	snprintf(dir, sizeof dir, "%s/run/cudaload", home);
	entry(&f, "/usr/local/cuda-12.9/compat", "cu=999 context:0 1", line, sizeof line);
	user_text(&f, NULL, "cu=0 done 1", line, text, sizeof text);
	put_user_store(&u, text, uid);
	cr_assert_eq(verdict_load_stores(f.root, false, u.envp, uid, &f.h, &f.c, &sys), 1, "the control");
	cr_assert_eq(f.v[0].verdict.code, 999);

	chmod(u.store, 0620);
	cr_assert_eq(verdict_load_stores(f.root, false, u.envp, uid, &f.h, &f.c, &sys), -1, "group-writable");
	cr_assert_eq(f.v[0].verdict.kind, VERDICT_NONE);
	chmod(u.store, 0600);
	chmod(dir, 0777);
	cr_assert_eq(verdict_load_stores(f.root, false, u.envp, uid, &f.h, &f.c, &sys), -1, "its directory writable by others");
	chmod(dir, 0700);
	cr_assert_eq(verdict_load_stores(f.root, false, u.envp, uid, &f.h, &f.c, &sys), 1);
	cr_assert_eq(verdict_load_stores(f.root, false, u.envp, uid + 1, &f.h, &f.c, &sys), 0,
		     "another user's: not even its XDG_RUNTIME_DIR is that user's, and HOME has no store");
	if (geteuid() == 0) {
		cr_assert_eq(chown(u.store, uid + 1, uid + 1), 0);
		cr_assert_eq(verdict_load_stores(f.root, false, u.envp, uid, &f.h, &f.c, &sys), -1, "owned by another user");
		cr_assert_eq(f.v[0].verdict.kind, VERDICT_NONE);
		cr_assert_eq(chown(u.store, uid, uid), 0);
		cr_assert_eq(chown(dir, uid + 1, uid + 1), 0);
		cr_assert_eq(verdict_load_stores(f.root, false, u.envp, uid, &f.h, &f.c, &sys), -1, "in another user's directory");
		cr_assert_eq(chown(dir, uid, uid), 0);
	}
	teardown(&f);
}

/* XDG_RUNTIME_DIR only when it is the user's 0700 directory; else the
 * ~/.cache store, which outlives a boot: keyed by the boot ID as well. */
Test(verdict_user, the_cache_store_is_for_one_boot)
{
	struct fixture f;
	struct verdict sys;
	struct user_env u;
	char line[4200], text[8400], home[4200], path[4200];
	unsigned uid = test_uid();
	bool lasting;
	setup(&f, "cu=0 done 2");
	snprintf(home, sizeof home, "%s/home", f.root);
	user_env(&u, home, uid);
	char *p = verdict_user_store(u.envp, uid, &lasting);
	cr_assert_str_eq(p, u.store);
	cr_assert(!lasting);
	free(p);
	snprintf(path, sizeof path, "%s/run", home);
	chmod(path, 0755);
	p = verdict_user_store(u.envp, uid, &lasting);
	snprintf(path, sizeof path, "%s/.cache/cudaload/verdicts", home);
	cr_assert_str_eq(p, path, "XDG_RUNTIME_DIR not 0700: the cache");
	cr_assert(lasting);
	free(p);
	char *rel[] = { "HOME=home", NULL }, *none[] = { NULL }, *slash[] = { "HOME=/home/u/", NULL };
	cr_assert_null(verdict_user_store(rel, uid, &lasting), "a relative HOME");
	cr_assert_null(verdict_user_store(none, uid, &lasting));
	p = verdict_user_store(slash, uid, &lasting);
	cr_assert_str_eq(p, "/home/u/.cache/cudaload/verdicts");
	free(p);

	/* the store there, made in this boot, another, or none said */
	static const char boot[] = "0c4f3e52-1b2a-4f6e-9d3c-7a8b9c0d1e2f";
	put_text(f.root, VERDICT_BOOT_ID, "0c4f3e52-1b2a-4f6e-9d3c-7a8b9c0d1e2f\n");
	snprintf(path, sizeof path, "%s/.cache/cudaload", home);
	mkdirs(path);
	give(path, uid);
	snprintf(u.store, sizeof u.store, "%s/.cache/cudaload/verdicts", home);
	entry(&f, "/usr/local/cuda-12.9/compat", "cu=999 context:0 1", line, sizeof line);
	user_text(&f, boot, "cu=0 done 1", line, text, sizeof text);
	put_user_store(&u, text, uid);
	cr_assert_eq(verdict_load_stores(f.root, false, u.envp, uid, &f.h, &f.c, &sys), 1);
	cr_assert_eq(f.v[0].verdict.code, 999);
	put_text(f.root, VERDICT_BOOT_ID, "9f9f9f9f-1b2a-4f6e-9d3c-7a8b9c0d1e2f\n");
	cr_assert_eq(verdict_load_stores(f.root, false, u.envp, uid, &f.h, &f.c, &sys), -1, "another boot");
	cr_assert_eq(f.v[0].verdict.kind, VERDICT_NONE);
	user_text(&f, NULL, "cu=0 done 1", line, text, sizeof text);
	put_user_store(&u, text, uid);
	cr_assert_eq(verdict_load_stores(f.root, false, u.envp, uid, &f.h, &f.c, &sys), -1, "no boot said");
	snprintf(path, sizeof path, "%s" VERDICT_BOOT_ID, f.root);
	unlink(path);
	user_text(&f, boot, "cu=0 done 1", line, text, sizeof text);
	put_user_store(&u, text, uid);
	cr_assert_eq(verdict_load_stores(f.root, false, u.envp, uid, &f.h, &f.c, &sys), -1, "no boot ID to compare with");
	teardown(&f);
}

Test(verdict_sad, boot_lines)
{
	struct verdict_store s;
	char why[160];
	cr_assert_eq(parse("cudaload-verdicts 2\nhost 0123456789abcdef\nboot 0c4f3e52-1b2a-4f6e-9d3c-7a8b9c0d1e2f\n"
			   "system cu=0 done 1 1\ncompat cu=0 done 1 1 2 3 4 5.000000000 /x\n", &s, why), 0, "%s", why);
	cr_assert_str_eq(s.boot, "0c4f3e52-1b2a-4f6e-9d3c-7a8b9c0d1e2f");
	cr_assert_eq(parse("cudaload-verdicts 2\nhost 0123456789abcdef\nboot 0c4f3e52\nsystem cu=0 done 1 1\n", &s, why), -1);
	cr_assert(strstr(why, "line 3: boot ID is not 36 characters") != NULL, "%s", why);
	cr_assert_eq(parse("cudaload-verdicts 2\nhost 0123456789abcdef\nboot 0C4F3E52-1B2A-4F6E-9D3C-7A8B9C0D1E2F\n"
			   "system cu=0 done 1 1\n", &s, why), -1);
	cr_assert_eq(parse("cudaload-verdicts 2\nhost 0123456789abcdef\nboot 0c4f3e52-1b2a-4f6e-9d3c-7a8b9c0d1e2f\n"
			   "compat cu=0 done 1 1 2 3 4 5.000000000 /x\n", &s, why), -1);
	cr_assert(strstr(why, "line 4: expected 'system") != NULL, "%s", why);
	cr_assert_eq(parse("cudaload-verdicts 2\nhost 0123456789abcdef\nsystem cu=0 done 1 1\n"
			   "boot 0c4f3e52-1b2a-4f6e-9d3c-7a8b9c0d1e2f\n", &s, why), -1, "boot only before system");
}
