/* SPDX-License-Identifier: MIT */
#include "helpers.h"

#include <link.h>

#include "../../common/packages/reach.h"

static const struct test_elf_spec plain = { 0 };

/* A scratch root for a 535 data-center host, and what is found there. */
struct fx {
	char *root;
	struct host h;
	struct candidates c;
};

static void fx_open(struct fx *f)
{
	memset(f, 0, sizeof *f);
	f->root = scratch_dir();
	f->h.platform = PLATFORM_DGPU;
	f->h.have_driver = true;
	f->h.driver = (struct driver_version){ 535, 216, 1 };
	snprintf(f->h.driver_str, sizeof f->h.driver_str, "535.216.01");
}

static void fx_close(struct fx *f)
{
	compat_free(&f->c);
	rm_rf(f->root);
	free(f->root);
}

static struct reach at(const char *root, const char *program)
{
	return (struct reach){ .root = root, .machine = EM_X86_64, .program = program };
}

/* libcuda files under root: directory and file name pairs, then NULL */
static void put_libs(const char *root, const char *const *pairs)
{
	for (; pairs[0]; pairs += 2)
		put_lib(root, pairs[0], pairs[1], &plain);
}

/* r reaches one candidate, dir, found as origin; c keeps it for more checks */
static void reaches_one(const struct reach *r, struct host *h, struct candidates *c,
			const char *dir, const char *origin)
{
	cr_assert_eq(reach_discover(r, h, c), 0);
	cr_assert_eq(c->n, 1, "%zu candidates, want %s", c->n, dir);
	cr_assert_str_eq(c->v[0].dir, dir);
	cr_assert_str_eq(c->v[0].origin, origin);
}

/* conda-forge's cuda-compat in the program's environment, and another
 * environment's through CONDA_PREFIX only for a program outside one. */
Test(reach_happy, conda_environments)
{
	struct fx f;
	fx_open(&f);
	put_libs(f.root, (const char *const[]){ "/opt/conda/envs/torch/cuda-compat", "libcuda.so.570.124.06",
						"/opt/conda/envs/jax/cuda-compat", "libcuda.so.575.57.08", NULL });
	put_text(f.root, "/opt/conda/envs/torch/conda-meta/history", "");
	struct reach r = at(f.root, "/opt/conda/envs/torch/bin/python");
	r.conda_prefix = "/opt/conda/envs/jax";
	reaches_one(&r, &f.h, &f.c, "/opt/conda/envs/torch/cuda-compat", "environment");
	cr_assert_str_eq(reach_origin_text(f.c.v[0].origin), "the program's conda environment");
	compat_free(&f.c);
	r.program = "/usr/bin/python3";
	reaches_one(&r, &f.h, &f.c, "/opt/conda/envs/jax/cuda-compat", "CONDA_PREFIX");
	fx_close(&f);
}

/* A directory LD_LIBRARY_PATH names: a package is a candidate, the system
 * driver (its file named for the kernel module's version) is not, and a
 * directory of NVIDIA's files alone becomes a driver directory. */
Test(reach_happy, rivals_and_the_system_driver)
{
	struct fx f;
	fx_open(&f);
	put_libs(f.root, (const char *const[]){ "/opt/conda/envs/torch/cuda-compat", "libcuda.so.570.124.06",
						"/.singularity.d/libs", "libcuda.so.535.216.01",
						"/usr/lib/x86_64-linux-gnu", "libcuda.so.535.216.01",
						"/opt/mixed", "libcuda.so.535.216.01", NULL });
	put_text(f.root, "/.singularity.d/libs/libnvidia-ptxjitcompiler.so.1", "");
	put_text(f.root, "/opt/mixed/libz.so.1", "");
	struct reach r = at(f.root, NULL);
	r.llp = "/usr/lib/x86_64-linux-gnu:/opt/conda/envs/torch/cuda-compat::/.singularity.d/libs:/opt/mixed:rel";
	reaches_one(&r, &f.h, &f.c, "/opt/conda/envs/torch/cuda-compat", "LD_LIBRARY_PATH");
	cr_assert_eq(f.h.n_driver_dirs, 1);
	cr_assert_str_eq(f.h.driver_dirs[0], "/.singularity.d/libs");
	free((char *)f.h.driver_dirs[0]);	/* kept until exit in the loader */
	fx_close(&f);
}

/* NGC: compat/ without libcuda.so.1 gives way to compat/lib.real; one
 * package reached by two names is one candidate, named as first found. */
Test(reach_happy, ngc_lib_real)
{
	struct fx f;
	char link[4200];
	fx_open(&f);
	put_lib(f.root, "/usr/local/cuda-12.8/compat/lib.real", "libcuda.so.570.124.06", &plain);
	snprintf(link, sizeof link, "%s/usr/local/cuda", f.root);
	cr_assert_eq(symlink("cuda-12.8", link), 0);
	for (int named = 1; named >= 0; named--) {
		cr_assert_eq(compat_add(f.root, "/usr/local/cuda-12.8/compat", "default", &f.c), 1);
		cr_assert_eq(compat_add(f.root, "/usr/local/cuda/compat", "default", &f.c), 0);
		struct reach r = at(f.root, NULL);
		r.llp = named ? "/usr/local/cuda/compat/lib.real" : NULL;
		reaches_one(&r, &f.h, &f.c, named ? "/usr/local/cuda/compat/lib.real"
						  : "/usr/local/cuda-12.8/compat/lib.real",
			    named ? "LD_LIBRARY_PATH" : "default");
		cr_assert_eq(f.c.v[0].cuda, 12080);
		compat_free(&f.c);
	}
	fx_close(&f);
}

/* With conf: what an ld.so.conf line names, before ldconfig has put it
 * into the cache (an image judged at its creation); the system driver's
 * directory and a line without a libcuda are no candidates. */
Test(reach_happy, ld_so_conf_lines)
{
	struct fx f;
	fx_open(&f);
	put_libs(f.root, (const char *const[]){ "/usr/local/cuda-12.8/compat", "libcuda.so.570.124.06",
						"/usr/lib/x86_64-linux-gnu", "libcuda.so.535.216.01", NULL });
	put_text(f.root, "/etc/ld.so.conf", "include /etc/ld.so.conf.d/*.conf\n");
	put_text(f.root, "/etc/ld.so.conf.d/cuda-compat.conf", "/usr/local/cuda-12.8/compat/\n/opt/none\n");
	put_text(f.root, "/etc/ld.so.conf.d/x86_64-linux-gnu.conf", "/usr/lib/x86_64-linux-gnu\n");
	struct reach r = at(f.root, NULL);
	cr_assert_eq(reach_discover(&r, &f.h, &f.c), 0);
	cr_assert_eq(f.c.n, 0, "without conf, the lines are not looked at");
	r.conf = true;
	reaches_one(&r, &f.h, &f.c, "/usr/local/cuda-12.8/compat", "ld.so.conf");
	cr_assert_str_eq(f.c.v[0].source, "/etc/ld.so.conf.d/cuda-compat.conf");
	cr_assert(reach_nvidia_only(f.root, "/usr/local/cuda-12.8/compat"));
	put_text(f.root, "/usr/local/cuda-12.8/compat/libz.so.1", "");
	cr_assert(!reach_nvidia_only(f.root, "/usr/local/cuda-12.8/compat"));
	fx_close(&f);
}

/* symlink(target, root + at), in place of what is there */
static void put_link(const char *root, const char *target, const char *at)
{
	char path[4200];
	snprintf(path, sizeof path, "%s%s", root, at);
	unlink(path);
	char *slash = strrchr(path, '/');
	*slash = '\0';
	mkdirs(path);
	*slash = '/';
	cr_assert_eq(symlink(target, path), 0, "%s", path);
}

/* A directory whose libcuda.so.1 links into another one (conda-forge's
 * newer activation: $PREFIX/lib/libcuda.so.1 -> ../cuda-compat/libcuda.so.1)
 * stands for the package there: one candidate, whichever name comes first. */
Test(reach_happy, link_directories)
{
	struct fx f;
	fx_open(&f);
	put_libs(f.root, (const char *const[]){ "/opt/conda/envs/torch/cuda-compat", "libcuda.so.570.124.06",
						"/usr/lib/x86_64-linux-gnu", "libcuda.so.535.216.01",
						"/opt/other", "libcuda.so.575.57.08", NULL });
	put_text(f.root, "/opt/conda/envs/torch/conda-meta/history", "");
	put_text(f.root, "/opt/conda/envs/torch/lib/libz.so.1", "");
	put_link(f.root, "../cuda-compat/libcuda.so.1", "/opt/conda/envs/torch/lib/libcuda.so.1");
	/* the environment's python: its own package, and LD_LIBRARY_PATH's
	 * $PREFIX/lib is the same one */
	struct reach r = at(f.root, "/opt/conda/envs/torch/bin/python");
	r.llp = "/opt/conda/envs/torch/lib";
	reaches_one(&r, &f.h, &f.c, "/opt/conda/envs/torch/cuda-compat", "environment");
	compat_free(&f.c);
	/* a program outside it: the package, found by the link, read whole */
	r.program = "/usr/bin/app";
	reaches_one(&r, &f.h, &f.c, "/opt/conda/envs/torch/cuda-compat", "LD_LIBRARY_PATH");
	cr_assert(f.c.v[0].has_lib_driver);
	cr_assert_eq(f.c.v[0].lib_driver.major, 570);
	compat_free(&f.c);
	/* the same through the RUNPATH and ld.so.cache's name of it */
	r.llp = NULL;
	r.runpath = "/opt/conda/envs/torch/lib:/opt/conda/envs/torch/cuda-compat";
	reaches_one(&r, &f.h, &f.c, "/opt/conda/envs/torch/cuda-compat", "RUNPATH");
	compat_free(&f.c);
	r.runpath = NULL;
	/* a link to the environment's lib: the name with ".." is the one that
	 * is the same directory; a link to a link, followed (relative links:
	 * the kernel would follow an absolute one out of the scratch root) */
	put_link(f.root, "conda/envs/torch/lib", "/opt/envlib");
	put_link(f.root, "../envlib/libcuda.so.1", "/opt/links/libcuda.so.1");
	r.llp = "/opt/links";
	reaches_one(&r, &f.h, &f.c, "/opt/envlib/../cuda-compat", "LD_LIBRARY_PATH");
	cr_assert_eq(f.c.v[0].lib_driver.major, 570);
	compat_free(&f.c);
	/* a link to a file that is not its directory's libcuda.so.1: the
	 * link's own directory, as before */
	put_link(f.root, "../other/libcuda.so.575.57.08", "/opt/odd/libcuda.so.1");
	put_lib(f.root, "/opt/other2", "libcuda.so.1", &plain);
	put_link(f.root, "../other2/libcuda.so.1", "/opt/other/libcuda.so.1");
	r.llp = "/opt/odd";
	reaches_one(&r, &f.h, &f.c, "/opt/odd", "LD_LIBRARY_PATH");
	compat_free(&f.c);
	/* a link to the system driver's file: no candidate, no driver dir */
	put_link(f.root, "../../usr/lib/x86_64-linux-gnu/libcuda.so.1", "/opt/sys/libcuda.so.1");
	r.llp = "/opt/sys";
	cr_assert_eq(reach_discover(&r, &f.h, &f.c), 0);
	cr_assert_eq(f.c.n, 0);
	cr_assert_eq(f.h.n_driver_dirs, 0);
	fx_close(&f);
}

/* The toolkit whose libcudart the RUNPATH reaches, and CUDA_HOME's; a
 * DT_RPATH counts for nothing beside a RUNPATH. */
Test(reach_happy, toolkits)
{
	struct fx f;
	char dir[256];
	const char *spack = "/opt/spack/linux-x86_64/cuda-12.8.0-q3x7nv2";
	fx_open(&f);
	snprintf(dir, sizeof dir, "%s/compat", spack);
	put_lib(f.root, dir, "libcuda.so.570.124.06", &plain);
	snprintf(dir, sizeof dir, "%s/lib64/libcudart.so", spack);
	put_text(f.root, dir, "");
	put_lib(f.root, "/opt/apps/cuda/12.9/compat", "libcuda.so.575.57.08", &plain);
	put_lib(f.root, "/opt/rpath", "libcuda.so.575.57.08", &plain);
	struct reach r = at(f.root, "/opt/app/bin/app");
	snprintf(dir, sizeof dir, "/opt/app/lib:%s/lib64", spack);
	r.runpath = dir;
	r.rpath = "/opt/rpath";
	r.cuda_home = "/opt/apps/cuda/12.9";
	r.cuda_home_from = "CUDA_HOME";
	cr_assert_eq(reach_discover(&r, &f.h, &f.c), 0);
	cr_assert_eq(f.c.n, 2);
	cr_assert_str_eq(f.c.v[0].origin, "toolkit");
	cr_assert(strstr(f.c.v[0].dir, "cuda-12.8.0-q3x7nv2/compat"));
	cr_assert_str_eq(f.c.v[1].dir, "/opt/apps/cuda/12.9/compat");
	cr_assert_str_eq(f.c.v[1].origin, "CUDA_HOME");
	fx_close(&f);
}

/* An HPC runtime install: lib64/libcudart.so.12 and no libcudart.so
 * development link.  The program that needs that runtime finds the toolkit
 * through its RUNPATH or LD_LIBRARY_PATH; one that needs none goes by the
 * development link, as before. */
Test(reach_happy, runtime_installs)
{
	struct fx f;
	char dir[256];
	const char *hpc = "/sw/cuda/12.8.1";
	fx_open(&f);
	snprintf(dir, sizeof dir, "%s/compat", hpc);
	put_lib(f.root, dir, "libcuda.so.570.124.06", &plain);
	snprintf(dir, sizeof dir, "%s/lib64/libcudart.so.12", hpc);
	put_text(f.root, dir, "");
	struct reach r = at(f.root, "/opt/app/bin/app");
	snprintf(dir, sizeof dir, "/opt/app/lib:%s/lib64", hpc);
	r.runpath = dir;
	r.cudart = "libcudart.so.12";
	reaches_one(&r, &f.h, &f.c, "/sw/cuda/12.8.1/compat", "toolkit");
	compat_free(&f.c);
	r.runpath = NULL;
	r.llp = dir;
	reaches_one(&r, &f.h, &f.c, "/sw/cuda/12.8.1/compat", "toolkit");
	compat_free(&f.c);
	/* another runtime, or none: not this toolkit's */
	r.cudart = "libcudart.so.13";
	cr_assert_eq(reach_discover(&r, &f.h, &f.c), 0);
	cr_assert_eq(f.c.n, 0);
	r.cudart = NULL;
	cr_assert_eq(reach_discover(&r, &f.h, &f.c), 0);
	cr_assert_eq(f.c.n, 0);
	fx_close(&f);
}

/* A program image as the kernel maps it: program headers at 0x40, the
 * dynamic section (image_headers), the string table at 0x300, one PT_LOAD
 * over all of it; the link addresses are offsets, the bias the buffer. */
struct image {
	_Alignas(16) unsigned char b[0x400];
	ElfW(Phdr) *ph;
};

/* The headers, the dynamic section at dyn_at (5 entries, DT_STRTAB and
 * DT_STRSZ first) and strsz bytes of string table at 0x300; the rest of
 * the dynamic section to fill. */
static ElfW(Dyn) *image_headers(struct image *im, uintptr_t dyn_at, uintptr_t strsz)
{
	memset(im, 0, sizeof *im);
	ElfW(Phdr) *ph = im->ph = (ElfW(Phdr) *)(im->b + 0x40);
	ph[0] = (ElfW(Phdr)){ .p_type = PT_PHDR, .p_vaddr = 0x40, .p_filesz = 3 * sizeof *ph };
	ph[1] = (ElfW(Phdr)){ .p_type = PT_LOAD, .p_vaddr = 0, .p_filesz = 0x400, .p_memsz = 0x400 };
	ph[2] = (ElfW(Phdr)){ .p_type = PT_DYNAMIC, .p_vaddr = dyn_at, .p_memsz = 5 * sizeof(ElfW(Dyn)) };
	ElfW(Dyn) *d = (ElfW(Dyn) *)(im->b + dyn_at);
	d[0] = (ElfW(Dyn)){ .d_tag = DT_STRTAB, .d_un.d_ptr = 0x300 };
	d[1] = (ElfW(Dyn)){ .d_tag = DT_STRSZ, .d_un.d_val = strsz };
	return d;
}

static void image(struct image *im, bool runpath)
{
	ElfW(Dyn) *d = image_headers(im, 0x200, 40);
	d[2] = (ElfW(Dyn)){ .d_tag = runpath ? DT_RUNPATH : DT_DEBUG, .d_un.d_val = 1 };
	d[3] = (ElfW(Dyn)){ .d_tag = DT_RPATH, .d_un.d_val = 22 };
	memcpy(im->b + 0x300, "\0/opt/app/lib:$ORIGIN\0/rp\0", 26);
}

Test(reach_happy, paths_from_memory)
{
	struct image im;
	const char *rp, *rn;
	image(&im, true);
	cr_assert_eq(reach_paths_from_memory(im.ph, 3, sizeof *im.ph, &rp, &rn, NULL), 0);
	cr_assert_str_eq(rn, "/opt/app/lib:$ORIGIN");
	cr_assert_str_eq(rp, "/rp");
	image(&im, false);
	cr_assert_eq(reach_paths_from_memory(im.ph, 3, sizeof *im.ph, &rp, &rn, NULL), 0);
	cr_assert_null(rn);
	cr_assert_str_eq(rp, "/rp");
}

/* The CUDA runtime the program needs, from its DT_NEEDED names. */
Test(reach_happy, cudart_from_memory)
{
	struct image im;
	const char *rp, *rn, *rt;
	for (int named = 0; named < 3; named++) {
		image(&im, true);
		ElfW(Dyn) *d = (ElfW(Dyn) *)(im.b + 0x200);
		static const char *const names[] = { "libcudart.so", "libcudart.so.12", "libcudart.so.11.0" };
		memcpy(im.b + 0x300 + 26, "libm.so.6\0", 10);
		memcpy(im.b + 0x300 + 36, names[named], strlen(names[named]) + 1);
		d[1].d_un.d_val = 64;
		d[4] = (ElfW(Dyn)){ .d_tag = DT_NEEDED, .d_un.d_val = 26 };
		d[5] = (ElfW(Dyn)){ .d_tag = DT_NEEDED, .d_un.d_val = 36 };
		im.ph[2].p_memsz = 7 * sizeof *d;
		cr_assert_eq(reach_paths_from_memory(im.ph, 3, sizeof *im.ph, &rp, &rn, &rt), 0);
		cr_assert_str_eq(rn, "/opt/app/lib:$ORIGIN");
		if (named)
			cr_assert_str_eq(rt, names[named]);
		else
			cr_assert_null(rt, "the development link is no soname a program needs");
		/* a name that runs past the string table is none */
		d[1].d_un.d_val = 36 + 8;
		cr_assert_eq(reach_paths_from_memory(im.ph, 3, sizeof *im.ph, &rp, &rn, &rt), 0);
		cr_assert_null(rt);
	}
}

Test(reach_sad, paths_from_memory)
{
	struct image im;
	const char *rp, *rn;
	image(&im, true);
	im.ph[0].p_type = PT_NULL;	/* no PT_PHDR: the bias is unknown */
	cr_assert_eq(reach_paths_from_memory(im.ph, 3, sizeof *im.ph, &rp, &rn, NULL), -1);
	image(&im, true);
	im.ph[2].p_vaddr = 0x3f8;	/* the dynamic section past the mapping */
	cr_assert_eq(reach_paths_from_memory(im.ph, 3, sizeof *im.ph, &rp, &rn, NULL), -1);
	image(&im, true);
	((ElfW(Dyn) *)(im.b + 0x200))[1].d_un.d_val = 0x200;	/* strings past it */
	cr_assert_eq(reach_paths_from_memory(im.ph, 3, sizeof *im.ph, &rp, &rn, NULL), -1);
	image(&im, true);
	((ElfW(Dyn) *)(im.b + 0x200))[2].d_un.d_val = 39;	/* no NUL before the end */
	memset(im.b + 0x300 + 21, 'x', 19);
	cr_assert_eq(reach_paths_from_memory(im.ph, 3, sizeof *im.ph, &rp, &rn, NULL), 0);
	cr_assert_null(rn);
	cr_assert_eq(reach_paths_from_memory(im.ph, 3, 7, &rp, &rn, NULL), -1);	/* another phent */
}

/* The glibc the program asks for at least, from its DT_VERNEED in memory:
 * libc.so.6's newest GLIBC_2.N (another library's versions say nothing). */
static void verneed_image(struct image *im, uint32_t libc_next, uintptr_t count)
{
	ElfW(Dyn) *d = image_headers(im, 0x100, 64);
	d[2] = (ElfW(Dyn)){ .d_tag = DT_VERNEED, .d_un.d_ptr = 0x200 };
	d[3] = (ElfW(Dyn)){ .d_tag = DT_VERNEEDNUM, .d_un.d_val = count };
	/* 1 libm.so.6, 11 GLIBC_2.99, 22 libc.so.6, 32 GLIBC_2.2.5, 44 GLIBC_2.34 */
	memcpy(im->b + 0x300, "\0libm.so.6\0GLIBC_2.99\0libc.so.6\0GLIBC_2.2.5\0GLIBC_2.34\0", 55);
	ElfW(Verneed) *m = (ElfW(Verneed) *)(im->b + 0x200), *c = m + 2;
	ElfW(Vernaux) *ma = (ElfW(Vernaux) *)(m + 1), *ca = (ElfW(Vernaux) *)(c + 1);
	*m = (ElfW(Verneed)){ .vn_version = 1, .vn_cnt = 1, .vn_file = 1, .vn_aux = sizeof *m,
			      .vn_next = 2 * sizeof *m };
	ma[0] = (ElfW(Vernaux)){ .vna_name = 11 };
	*c = (ElfW(Verneed)){ .vn_version = 1, .vn_cnt = 2, .vn_file = 22, .vn_aux = sizeof *c };
	ca[0] = (ElfW(Vernaux)){ .vna_name = 32, .vna_next = libc_next };
	ca[1] = (ElfW(Vernaux)){ .vna_name = 44 };
}

Test(reach_happy, glibc_floor_from_memory)
{
	struct image im;
	verneed_image(&im, sizeof(ElfW(Vernaux)), 2);
	cr_assert_eq(reach_glibc_floor(im.ph, 3, sizeof *im.ph), 34, "libc's newest, not libm's 2.99");
	verneed_image(&im, 0, 2);
	cr_assert_eq(reach_glibc_floor(im.ph, 3, sizeof *im.ph), 2, "2.2.5 alone: 2");
	verneed_image(&im, sizeof(ElfW(Vernaux)), 1);
	cr_assert_eq(reach_glibc_floor(im.ph, 3, sizeof *im.ph), 0, "libm's only");
	image(&im, true);
	cr_assert_eq(reach_glibc_floor(im.ph, 3, sizeof *im.ph), 0, "no DT_VERNEED");
}

Test(reach_sad, glibc_floor_outside_the_image)
{
	struct image im;
	verneed_image(&im, 0x1000, 2);	/* an aux past the mapped segment */
	cr_assert_eq(reach_glibc_floor(im.ph, 3, sizeof *im.ph), 0);
	verneed_image(&im, sizeof(ElfW(Vernaux)), 2);
	((ElfW(Dyn) *)(im.b + 0x100))[2].d_un.d_ptr = 0x3f8;	/* a verneed cut by the end */
	cr_assert_eq(reach_glibc_floor(im.ph, 3, sizeof *im.ph), 0);
	verneed_image(&im, sizeof(ElfW(Vernaux)), 2);
	memcpy(im.b + 0x300 + 22, "libc.so.", 8);	/* the file name cut by the table's end */
	((ElfW(Dyn) *)(im.b + 0x100))[1].d_un.d_val = 30;
	cr_assert_eq(reach_glibc_floor(im.ph, 3, sizeof *im.ph), 0);
	verneed_image(&im, sizeof(ElfW(Vernaux)), 2);
	memcpy(im.b + 0x300 + 44, "GLIBC_2.99999", 14);	/* no such minor */
	cr_assert_eq(reach_glibc_floor(im.ph, 3, sizeof *im.ph), 2);
	cr_assert_eq(reach_glibc_floor(im.ph, 3, 7), 0, "another phent");
}
