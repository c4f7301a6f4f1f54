/* SPDX-License-Identifier: MIT */
#include "helpers.h"

#include "../../common/packages/compat.h"
#include "../../common/settings/settings.h"

static const struct test_elf_spec note129 = {
	.note_owner = "NVIDIA Corporation",
	.note_desc = "{\"format\":1,\"CUDA version\":\"12.9\",\"driver\":[535,550,570]}",
};
static const struct test_elf_spec plain = { 0 };

Test(compat_happy, version_sources)
{
	char *root = scratch_dir();
	put_lib(root, "/usr/local/cuda-12.9/compat", "libcuda.so.575.51.03", &note129);
	put_lib(root, "/usr/local/cuda-13.0/compat", "libcuda.so.580.65.06", &plain);
	put_lib(root, "/usr/local/cuda-12.2/compat", "libcuda.so.1.1", &plain);
	put_lib(root, "/opt/pkg/compat", "libcuda.so.1.1", &plain);
	put_text(root, "/opt/pkg/version.json", "{\"cuda\" : {\"name\" : \"CUDA SDK\", \"version\" : \"12.1.105\"}}");
	put_lib(root, "/usr/local/cuda-13.2/compat_orin", "libcuda.so.1.1", &plain);

	const char *dirs[] = { "/opt/pkg/compat" };
	struct candidates c;
	cr_assert_eq(compat_discover(root, dirs, 1, config_default_compat, config_default_compat_n, "default", &c), 0);
	cr_assert_eq(c.n, 5);
	cr_assert_str_eq(c.v[0].dir, "/opt/pkg/compat");
	cr_assert_eq(c.v[0].cuda, 12010);
	cr_assert_str_eq(c.v[0].cuda_from, "version file");
	cr_assert_str_eq(c.v[0].origin, "CUDALOAD_COMPAT_PATH");
	/* glob order: cuda-12.2, cuda-12.9, cuda-13.0, then compat_orin */
	cr_assert_str_eq(c.v[1].dir, "/usr/local/cuda-12.2/compat");
	cr_assert_str_eq(c.v[1].cuda_from, "directory");
	cr_assert_eq(c.v[2].cuda, 12090);
	cr_assert_str_eq(c.v[2].cuda_from, "note");
	cr_assert(c.v[2].has_note);
	cr_assert_eq(c.v[2].note.n_drivers, 3);
	cr_assert(c.v[2].has_lib_driver);
	cr_assert_eq(c.v[2].lib_driver.major, 575);
	cr_assert_eq(c.v[3].cuda, 13000);
	cr_assert_str_eq(c.v[3].cuda_from, "directory");
	cr_assert_str_eq(c.v[4].dir, "/usr/local/cuda-13.2/compat_orin");
	cr_assert(c.v[4].orin_only);
	cr_assert_eq(c.v[4].elf_machine, EM_X86_64);
	compat_free(&c);
	rm_rf(root);
	free(root);
}

/* The cuda-X.Y directory and a version.json are stronger evidence than a
 * guess from the driver version in the file name (a note-less
 * libcuda.so.615.31 in cuda-13.4/compat was labelled 13.2). */
Test(compat_happy, version_trust_order)
{
	char *root = scratch_dir();
	put_lib(root, "/usr/local/cuda-13.4/compat", "libcuda.so.615.31", &plain);
	put_lib(root, "/opt/json/compat", "libcuda.so.610.43.02", &plain);
	put_text(root, "/opt/json/compat/version.json", "{\"cuda\": {\"version\": \"13.3.20\"}}");
	put_lib(root, "/opt/guess/compat", "libcuda.so.615.31", &plain);
	put_text(root, "/usr/local/cuda-13.4/compat/libnvidia-ptxjitcompiler.so.1", "");

	const char *dirs[] = { "/usr/local/cuda-13.4/compat", "/opt/json/compat", "/opt/guess/compat" };
	struct candidates c;
	cr_assert_eq(compat_discover(root, dirs, 3, NULL, 0, "default", &c), 0);
	cr_assert_eq(c.n, 3);
	cr_assert_eq(c.v[0].cuda, 13040);
	cr_assert_str_eq(c.v[0].cuda_from, "directory");
	cr_assert(c.v[0].has_ptxjit);
	cr_assert_eq(c.v[1].cuda, 13030);
	cr_assert_str_eq(c.v[1].cuda_from, "version file");
	cr_assert(!c.v[1].has_ptxjit, "no companion: a partial package");
	cr_assert_eq(c.v[2].cuda, 13040, "615 -> 13.4 through the branch table");
	cr_assert_str_eq(c.v[2].cuda_from, "file name");

	/* a stated version ranks below the note only */
	c.v[2].stated_cuda = 13030;
	compat_settle_cuda(root, &c.v[2]);
	cr_assert_eq(c.v[2].cuda, 13030);
	cr_assert_str_eq(c.v[2].cuda_from, "stated");
	c.v[0].stated_cuda = 13030;
	compat_settle_cuda(root, &c.v[0]);
	cr_assert_str_eq(c.v[0].cuda_from, "stated");
	compat_free(&c);
	rm_rf(root);
	free(root);
}

Test(compat_sad, missing_places_are_said)
{
	char *root = scratch_dir();
	const char *dirs[] = { "/nonexistent", "relative/dir" };
	const char *pats[] = { "/opt/none-*/compat", "/opt/absent/compat" };
	struct candidates c;
	cr_assert_eq(compat_discover(root, dirs, 2, pats, 2, "config", &c), 0);
	cr_assert_eq(c.n, 0);
	cr_assert_eq(c.n_miss, 4);
	cr_assert_str_eq(c.miss[0].why, "no such directory");
	cr_assert_str_eq(c.miss[0].origin, "CUDALOAD_COMPAT_PATH");
	cr_assert_str_eq(c.miss[1].why, "not an absolute path, ignored");
	cr_assert_str_eq(c.miss[2].entry, "/opt/none-*/compat");
	cr_assert_str_eq(c.miss[2].why, "matched nothing");
	cr_assert_str_eq(c.miss[3].why, "no such directory");
	compat_free(&c);
	cr_assert_eq(compat_discover(root, NULL, 0, pats, 2, "default", &c), 0);
	cr_assert_eq(c.n_miss, 0, "the defaults may find nothing");
	compat_free(&c);
	rm_rf(root);
	free(root);
}

Test(compat_happy, nested_patterns)
{
	char *root = scratch_dir();
	put_lib(root, "/opt/vendor-b/cuda-12.4/compat", "libcuda.so.1.1", &plain);
	put_lib(root, "/opt/vendor-a/cuda-12.6/compat", "libcuda.so.1.1", &plain);
	put_text(root, "/opt/vendor-a/cuda-12.9/README", "no compat here\n");
	put_text(root, "/opt/.hidden/cuda-12.8/compat/libcuda.so.1", "x");
	const char *patterns[] = { "/opt/*/cuda-*/compat", "/opt/vendor-?/cuda-12.[46]/compat" };
	struct candidates c;
	cr_assert_eq(compat_discover(root, NULL, 0, patterns, 2, "config", &c), 0);
	cr_assert_eq(c.n, 2, "each directory once; no hidden ones; only existing dirs");
	cr_assert_str_eq(c.v[0].dir, "/opt/vendor-a/cuda-12.6/compat");
	cr_assert_str_eq(c.v[1].dir, "/opt/vendor-b/cuda-12.4/compat");
	cr_assert_str_eq(c.v[0].origin, "config");
	compat_free(&c);
	rm_rf(root);
	free(root);
}

/* A version.json cut short (a full disk, an interrupted copy)
 * gave the package a version; now it gives none, and a whole one still
 * does. */
Test(compat_sad, truncated_version_file)
{
	char *root = scratch_dir();
	put_lib(root, "/opt/cut/compat", "libcuda.so.1.1", &plain);
	put_text(root, "/opt/cut/version.json", "{\n   \"cuda\" : {\n      \"name\" : \"CUDA SDK\",\n      \"version\" : \"13.2.1\"");
	put_lib(root, "/opt/whole/compat", "libcuda.so.1.1", &plain);
	put_text(root, "/opt/whole/version.json", "{\n   \"cuda\" : {\n      \"name\" : \"CUDA SDK\",\n      \"version\" : \"13.2.1\"\n   }\n}\n");
	const char *dirs[] = { "/opt/cut/compat", "/opt/whole/compat" };
	struct candidates c;
	cr_assert_eq(compat_discover(root, dirs, 2, NULL, 0, "default", &c), 0);
	cr_assert_eq(c.n, 2);
	cr_assert_str_eq(c.v[0].dir, "/opt/cut/compat");
	cr_assert_eq(c.v[0].cuda, 0, "a truncated version.json is no version");
	cr_assert_str_eq(c.v[1].dir, "/opt/whole/compat");
	cr_assert_eq(c.v[1].cuda, 13020);
	cr_assert_str_eq(c.v[1].cuda_from, "version file");
	compat_free(&c);
	rm_rf(root);
	free(root);
}

/* A directory whose name holds '' (an escape sequence: ESC [ 31 m)
 * was expanded again as a pattern, and matched nothing. */
Test(compat_sad, matched_names_are_not_patterns)
{
	char *root = scratch_dir();
	put_lib(root, "/usr/local/cuda-\x1b[31m/compat", "libcuda.so.1.1", &plain);
	put_lib(root, "/usr/local/cuda-[12]*?/compat", "libcuda.so.1.1", &plain);
	put_lib(root, "/usr/local/cuda-1/compat", "libcuda.so.1.1", &plain);
	const char *patterns[] = { "/usr/local/cuda-*/compat" };
	struct candidates c;
	cr_assert_eq(compat_discover(root, NULL, 0, patterns, 1, "config", &c), 0);
	cr_assert_eq(c.n, 3);
	cr_assert_str_eq(c.v[0].dir, "/usr/local/cuda-\x1b[31m/compat");	/* in byte order */
	cr_assert_str_eq(c.v[1].dir, "/usr/local/cuda-1/compat");
	cr_assert_str_eq(c.v[2].dir, "/usr/local/cuda-[12]*?/compat");
	compat_free(&c);
	rm_rf(root);
	free(root);
}

/* Debian's /usr/bin/X11 -> . under wildcards, ten times over: each level
 * would list ten directories more (10^5 listings); the bound stops it and
 * says so, and what was found before stays. */
Test(compat_sad, symlink_loops_are_bounded)
{
	char *root = scratch_dir();
	char dir[4200], link[4300];
	put_lib(root, "/usr/bin/compat", "libcuda.so.1.1", &plain);
	snprintf(dir, sizeof dir, "%s/usr/bin", root);
	for (int i = 0; i < 10; i++) {
		snprintf(link, sizeof link, "%s/X%d", dir, i);
		cr_assert_eq(symlink(".", link), 0);
	}
	const char *patterns[] = { "/usr/*/*/*/*/*/*/compat" };
	struct candidates c;
	cr_assert_eq(compat_discover(root, NULL, 0, patterns, 1, "config", &c), 0);
	cr_assert_eq(c.n_miss, 1);
	cr_assert_str_eq(c.miss[0].entry, patterns[0]);
	cr_assert(strstr(c.miss[0].why, "stopped after listing 256 directories"), "%s", c.miss[0].why);
	cr_assert_geq(c.n, 1, "the package found before the bound is kept");
	compat_free(&c);
	rm_rf(root);
	free(root);
}

/* More packages than any machine has: the first COMPAT_MAX_CANDIDATES are
 * kept, the rest said once. */
Test(compat_sad, candidates_are_bounded)
{
	char *root = scratch_dir(), dir[4200];
	for (int i = 0; i < COMPAT_MAX_CANDIDATES + 20; i++) {
		snprintf(dir, sizeof dir, "%s/opt/c%03d/compat", root, i);
		mkdirs(dir);
	}
	const char *patterns[] = { "/opt/c*/compat" };
	struct candidates c;
	cr_assert_eq(compat_discover(root, NULL, 0, patterns, 1, "config", &c), 0);
	cr_assert_eq(c.n, COMPAT_MAX_CANDIDATES);
	cr_assert_str_eq(c.v[COMPAT_MAX_CANDIDATES - 1].dir, "/opt/c255/compat");
	cr_assert_eq(c.n_miss, 1);
	cr_assert_str_eq(c.miss[0].why, "past 256 packages: ignored");
	compat_free(&c);
	rm_rf(root);
	free(root);
}

/* 40,000 leftover directories under a pattern cost 130 MB
 * and seconds per start, though only 256 became candidates.  The entries
 * read are bounded for the whole start, said once; the bound holds for the
 * next pattern too (it lists nothing more), and nothing past it counts as
 * proven absent ("matched nothing" is not said of what was not read). */
Test(compat_sad, listing_is_bounded)
{
	char *root = scratch_dir(), path[4200];
	snprintf(path, sizeof path, "%s/opt", root);
	mkdirs(path);
	for (int i = 0; i < COMPAT_MAX_ENTRIES + 64; i++) {
		snprintf(path, sizeof path, "%s/opt/f%05d", root, i);
		int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
		cr_assert_geq(fd, 0, "%s", path);
		close(fd);
	}
	put_lib(root, "/usr/local/cuda-12.2/compat", "libcuda.so.1.1", &plain);
	const char *patterns[] = { "/opt/*/compat", "/usr/local/cuda-*/compat", "/srv/*/compat" };
	struct candidates c;
	cr_assert_eq(compat_discover(root, NULL, 0, patterns, 3, "config", &c), 0);
	cr_assert_eq(c.n_miss, 1);
	cr_assert_str_eq(c.miss[0].entry, patterns[0]);
	cr_assert_str_eq(c.miss[0].why, "stopped after reading 16384 directory entries: "
					 "the rest is not looked at");
	cr_assert_eq(c.n, 0, "past the bound nothing more is read");
	compat_free(&c);
	/* under the bound, all of it */
	const char *one[] = { "/usr/local/cuda-*/compat" };
	cr_assert_eq(compat_discover(root, NULL, 0, one, 1, "config", &c), 0);
	cr_assert_eq(c.n, 1);
	cr_assert_eq(c.n_miss, 0);
	compat_free(&c);
	rm_rf(root);
	free(root);
}

Test(compat_happy, dir_cuda)
{
	cr_assert_eq(compat_dir_cuda("/usr/local/cuda-12.2/compat"), 12020);
	cr_assert_eq(compat_dir_cuda("/nix/store/x-cuda-12.4/cuda-12.6/compat"), 12060);
	cr_assert_eq(compat_dir_cuda("/usr/local/cuda/compat"), 0);
	cr_assert_eq(compat_dir_cuda("/usr/local/mycuda-12.2/compat"), 0);
	cr_assert_eq(compat_dir_cuda("/usr/local/cuda-12.2x/compat"), 0);
}

Test(compat_sad, broken_packages)
{
	char *root = scratch_dir();
	/* no libcuda at all */
	put_text(root, "/usr/local/cuda-12.4/compat/README", "empty\n");
	/* not an ELF */
	put_text(root, "/usr/local/cuda-12.5/compat/libcuda.so.1", "text\n");
	/* bad JSON in the note: version falls back to the directory */
	struct test_elf_spec badnote = { .note_owner = "NVIDIA Corporation", .note_desc = "{\"CUDA version\":" };
	put_lib(root, "/usr/local/cuda-12.6/compat", "libcuda.so.1.1", &badnote);
	/* dangling link */
	char link[4200];
	snprintf(link, sizeof link, "%s/usr/local/cuda-12.8/compat", root);
	mkdirs(link);
	strcat(link, "/libcuda.so.1");
	cr_assert_eq(symlink("libcuda.so.1.1", link), 0);

	struct candidates c;
	cr_assert_eq(compat_discover(root, NULL, 0, config_default_compat, config_default_compat_n, "default", &c), 0);
	cr_assert_eq(c.n, 4);
	cr_assert(!c.v[0].has_lib);
	cr_assert(strstr(c.v[0].lib_problem, "No such file") != NULL, "%s", c.v[0].lib_problem);
	cr_assert(!c.v[1].has_lib);
	cr_assert_str_eq(c.v[1].lib_problem, "libcuda.so.1: not an ELF file");
	cr_assert(c.v[2].has_lib);
	cr_assert(!c.v[2].has_note);
	cr_assert_eq(c.v[2].cuda, 12060);
	cr_assert_str_eq(c.v[2].cuda_from, "directory");
	cr_assert(strstr(c.v[2].note_problem, "note JSON") != NULL, "said, not dropped: %s", c.v[2].note_problem);
	cr_assert(!c.v[3].has_lib);
	compat_free(&c);

	/* relative, missing and duplicate explicit dirs */
	const char *dirs[] = { "relative/compat", "/not/there", "/usr/local/cuda-12.6/compat",
			       "/usr/local/cuda-12.6/compat" };
	cr_assert_eq(compat_discover(root, dirs, 4, NULL, 0, "default", &c), 0);
	cr_assert_eq(c.n, 1);
	compat_free(&c);
	rm_rf(root);
	free(root);
}

Test(compat_sad, unlistable_dir)
{
	char *root = scratch_dir();
	put_lib(root, "/opt/a:b/compat", "libcuda.so.1.1", &plain);
	const char *dirs[] = { "/opt/a:b/compat" };
	struct candidates c;
	cr_assert_eq(compat_discover(root, dirs, 1, NULL, 0, "default", &c), 0);
	cr_assert_eq(c.n, 1);
	cr_assert(!c.v[0].has_lib);
	cr_assert(strstr(c.v[0].lib_problem, "':' or ';'") != NULL);
	compat_free(&c);
	rm_rf(root);
	free(root);
}

/* nixpkgs' cuda_compat: /nix/store/<hash>-cuda_compat-<X.Y.build>/compat, Jetson's
 * libcuda.so.1.1 (no driver version in the name), no cuda-X.Y directory
 * (nixpkgs pkgs/development/cuda-modules, autoAddCudaCompatRunpath). */
Test(compat_happy, nix_store_names)
{
	cr_assert_eq(compat_store_cuda("/nix/store/0c8vb4q6s9k2-cuda_compat-12.2.34086978/compat"), 12020);
	cr_assert_eq(compat_store_cuda("/nix/store/0c8vb4q6s9k2-cuda_compat-12.4/compat"), 12040);
	cr_assert_eq(compat_store_cuda("/nix/store/0c8vb4q6s9k2-cuda_compat-12.2.34086978-lib/compat"), 12020);
	cr_assert_eq(compat_store_cuda("/nix/store/0c8vb4q6s9k2-cuda_compat-12.2x/compat"), 0);
	cr_assert_eq(compat_store_cuda("/nix/store/0c8vb4q6s9k2-cuda_compat-/compat"), 0);
	cr_assert_eq(compat_store_cuda("/nix/store/0c8vb4q6s9k2-cuda_compatible-12.2/compat"), 0);
	cr_assert_eq(compat_store_cuda("/usr/local/cuda-12.2/compat"), 0);
	/* Orin's CUDA 13 redistributable, as NVIDIA's manifests name it */
	cr_assert_eq(compat_store_cuda("/nix/store/0c8vb4q6s9k2-cuda_compat_orin-13.4.47145772/compat"), 13040);
	cr_assert_eq(compat_store_cuda("/nix/store/0c8vb4q6s9k2-cuda_compat_orin-13.5.47659993/compat"), 13050);

	char *root = scratch_dir();
	put_lib(root, "/nix/store/0c8vb4q6s9k2-cuda_compat-12.2.34086978/compat", "libcuda.so.1.1", &plain);
	const char *patterns[] = { "/nix/store/*-cuda_compat-*/compat" };
	struct candidates c;
	cr_assert_eq(compat_discover(root, NULL, 0, patterns, 1, "config", &c), 0);
	cr_assert_eq(c.n, 1);
	cr_assert_eq(c.v[0].cuda, 12020);
	cr_assert_str_eq(c.v[0].cuda_from, "store name");
	cr_assert(!c.v[0].orin_only);
	compat_free(&c);

	/* a store path of Orin's package is Orin's, like a compat_orin directory */
	put_lib(root, "/nix/store/1d9wc5r7t0l3-cuda_compat_orin-13.4.47145772/compat", "libcuda.so.1.1", &plain);
	const char *orin[] = { "/nix/store/*-cuda_compat_orin-*/compat" };
	cr_assert_eq(compat_discover(root, NULL, 0, orin, 1, "config", &c), 0);
	cr_assert_eq(c.n, 1);
	cr_assert_eq(c.v[0].cuda, 13040);
	cr_assert(c.v[0].orin_only);
	compat_free(&c);
	rm_rf(root);
	free(root);
}

Test(compat_happy, stated_version)
{
	char *root = scratch_dir();
	put_lib(root, "/opt/jp/compat", "libcuda.so.1.1", &plain);
	put_lib(root, "/usr/local/cuda-12.4/compat", "libcuda.so.1.1", &plain);
	put_lib(root, "/usr/local/cuda-12.9/compat", "libcuda.so.575.51.03", &note129);
	const char *patterns[] = { "/opt/jp/compat", "/usr/local/cuda-*/compat" };
	const int cuda[] = { 12020, 12060 };
	struct candidates c;
	cr_assert_eq(compat_discover(root, NULL, 0, patterns, 2, "config", &c), 0);
	cr_assert_eq(c.n, 3);
	cr_assert_eq(c.v[0].cuda, 0, "nothing tells before the config does");
	compat_apply_stated(root, &c, patterns, cuda, 2);
	cr_assert_eq(c.v[0].cuda, 12020);
	cr_assert_str_eq(c.v[0].cuda_from, "stated");
	cr_assert_eq(c.v[1].cuda, 12060, "the user's word beats a directory name");
	cr_assert_str_eq(c.v[1].cuda_from, "stated");
	cr_assert_eq(c.v[2].cuda, 12090, "the note beats the user's word");
	cr_assert_str_eq(c.v[2].cuda_from, "note");
	compat_free(&c);
	rm_rf(root);
	free(root);
}

/* /usr/local, listed for the cuda-* patterns, also says whether
 * /usr/local/cuda exists: no stat for a name that is not there, and the
 * same candidates as without the shortcut. */
Test(compat_happy, listing_proves_absence)
{
	char *root = scratch_dir();
	put_lib(root, "/usr/local/cuda-12.2/compat", "libcuda.so.1.1", &plain);
	struct candidates c;
	cr_assert_eq(compat_discover(root, NULL, 0, config_default_compat, config_default_compat_n, "default", &c), 0);
	cr_assert_eq(c.n, 1);
	compat_free(&c);

	/* /usr/local/cuda as JetPack has it, a link to the toolkit */
	char link[4200];
	snprintf(link, sizeof link, "%s/usr/local/cuda", root);
	cr_assert_eq(symlink("cuda-12.2", link), 0);
	cr_assert_eq(compat_discover(root, NULL, 0, config_default_compat, config_default_compat_n, "default", &c), 0);
	/* one package, by whichever name found it first */
	cr_assert_eq(c.n, 1);
	cr_assert_str_eq(c.v[0].dir, "/usr/local/cuda-12.2/compat");
	cr_assert(c.v[0].has_lib);
	compat_free(&c);

	/* hidden names are not listed, so they are looked up */
	put_lib(root, "/opt/.hidden/compat", "libcuda.so.1.1", &plain);
	put_lib(root, "/opt/seen/compat", "libcuda.so.1.1", &plain);
	const char *patterns[] = { "/opt/*/compat", "/opt/.hidden/compat", "/opt/absent/compat",
				   "/none/*/compat", "/none/x/compat", "/opt//seen/compat" };
	cr_assert_eq(compat_discover(root, NULL, 0, patterns, 6, "config", &c), 0);
	cr_assert_eq(c.n, 2);	/* /opt//seen/compat is /opt/seen/compat */
	cr_assert_str_eq(c.v[0].dir, "/opt/seen/compat");
	cr_assert_str_eq(c.v[1].dir, "/opt/.hidden/compat");
	cr_assert_eq(c.n_miss, 3);
	cr_assert_str_eq(c.miss[0].entry, "/opt/absent/compat");
	cr_assert_str_eq(c.miss[0].why, "no such directory");
	cr_assert_str_eq(c.miss[1].why, "matched nothing");
	cr_assert_str_eq(c.miss[2].entry, "/none/x/compat");
	cr_assert_str_eq(c.miss[2].why, "no such directory");
	compat_free(&c);
	rm_rf(root);
	free(root);
}

/* A directory with more entries than one read of it holds. */
Test(compat_happy, big_directory)
{
	char *root = scratch_dir();
	char rel[128];
	for (int i = 0; i < 300; i++) {
		snprintf(rel, sizeof rel, "/opt/pkgs/package-with-a-long-name-%03d/README", i);
		put_text(root, rel, "x");
	}
	put_lib(root, "/opt/pkgs/package-with-a-long-name-150/compat", "libcuda.so.1.1", &plain);
	put_lib(root, "/opt/pkgs/package-with-a-long-name-299/compat", "libcuda.so.1.1", &plain);
	put_lib(root, "/opt/pkgs/package-with-a-long-name-298/other", "libcuda.so.1.1", &plain);
	const char *patterns[] = { "/opt/pkgs/*/compat", "/opt/pkgs/package-with-a-long-name-200/compat",
				   "/opt/pkgs/package-with-a-long-name-298/other",
				   "/opt/pkgs/package-with-a-long-name-300/other" };
	struct candidates c;
	cr_assert_eq(compat_discover(root, NULL, 0, patterns, 4, "config", &c), 0);
	cr_assert_eq(c.n, 3);
	cr_assert_str_eq(c.v[0].dir, "/opt/pkgs/package-with-a-long-name-150/compat");
	cr_assert_str_eq(c.v[1].dir, "/opt/pkgs/package-with-a-long-name-299/compat");
	cr_assert_str_eq(c.v[2].dir, "/opt/pkgs/package-with-a-long-name-298/other");
	cr_assert_eq(c.n_miss, 2);
	compat_free(&c);
	rm_rf(root);
	free(root);
}

/* A descriptor longer than the first read takes is read again, whole. */
Test(compat_happy, long_note)
{
	char desc[900];
	snprintf(desc, sizeof desc, "{\"format\":1,\"CUDA version\":\"12.9\",%*s\"driver\":[535,550,570]}", 700, "");
	struct test_elf_spec spec = { .note_owner = "NVIDIA Corporation", .note_desc = desc };
	char *root = scratch_dir();
	put_lib(root, "/usr/local/cuda-12.4/compat", "libcuda.so.575.51.03", &spec);
	const char *dirs[] = { "/usr/local/cuda-12.4/compat" };
	struct candidates c;
	cr_assert_eq(compat_discover(root, dirs, 1, NULL, 0, "default", &c), 0);
	cr_assert_eq(c.n, 1);
	cr_assert(c.v[0].has_note);
	cr_assert_eq(c.v[0].cuda, 12090);
	cr_assert_eq(c.v[0].note.n_drivers, 3);
	compat_free(&c);
	rm_rf(root);
	free(root);
}

/* The malformed shapes NVIDIA has shipped (toolkit PR #1804 and
 * commit 1a09d4a1): the Orin note padded as in a section aligned to 8, a
 * trailing comma, the Orin 13.2 note whose descriptor runs 2 bytes past
 * its 71-byte section (n_type 0, NULs there), and shapes still refused: a
 * descriptor far longer than its section, JSON cut short.  Each is read or
 * reported, never dropped, and what was read despite its shape is said. */
Test(compat_sad, malformed_notes)
{
	char *root = scratch_dir();
	const char *orin = "{\"format\":1,\"CUDA version\":\"13.4\"}";
	struct test_elf_spec pad8 = { .note_owner = "NVIDIA Corporation", .note_desc = orin, .note_align = 8 },
			     comma = { .note_owner = "NVIDIA Corporation",
				       .note_desc = "{\"format\":1,\"CUDA version\":\"13.2\",}" },
			     cut = { .note_owner = "NVIDIA Corporation", .note_desc = orin, .note_descsz = 400 },
			     shipped = { .note_owner = "NVIDIA Corporation", .note_type_0 = true,
					 .note_desc = "{\"format\":1,\"CUDA version\":\"13.2\",}",
					 .note_descsz = 41, .note_size = 71 },
			     bad = { .note_owner = "NVIDIA Corporation", .note_desc = "{\"format\":1,\"CUDA version\":" };
	put_lib(root, "/usr/local/cuda-13.4/compat_orin", "libcuda.so.1.1", &pad8);
	put_lib(root, "/usr/local/cuda-13.2/compat_orin", "libcuda.so.1.1", &comma);
	put_lib(root, "/usr/local/cuda-13.3/compat_orin", "libcuda.so.1.1", &cut);
	put_lib(root, "/opt/shipped/cuda-13.1/compat_orin", "libcuda.so.1.1", &shipped);
	put_lib(root, "/usr/local/cuda-13.5/compat_orin", "libcuda.so.1.1", &bad);
	const char *dirs[] = { "/usr/local/cuda-13.4/compat_orin", "/usr/local/cuda-13.2/compat_orin",
			       "/usr/local/cuda-13.3/compat_orin", "/opt/shipped/cuda-13.1/compat_orin",
			       "/usr/local/cuda-13.5/compat_orin" };
	struct candidates c;
	char remark[128];
	cr_assert_eq(compat_discover(root, dirs, 5, NULL, 0, "default", &c), 0);
	cr_assert_eq(c.n, 5);
	cr_assert(c.v[0].has_note, "8-byte padding is read: %s", c.v[0].note_problem);
	cr_assert_eq(c.v[0].cuda, 13040);
	cr_assert_str_eq(c.v[0].note_problem, "");
	cr_assert_null(compat_note_remark(&c.v[0], remark, sizeof remark), "a well-formed note: nothing to say");
	cr_assert(c.v[1].has_note, "a trailing comma is taken: %s", c.v[1].note_problem);
	cr_assert_str_eq(c.v[1].cuda_from, "note");
	cr_assert_eq(c.v[1].cuda, 13020);
	cr_assert_str_eq(c.v[1].note_problem, "");
	cr_assert_str_eq(compat_note_remark(&c.v[1], remark, sizeof remark), "its JSON ends in a trailing comma");
	cr_assert(!c.v[2].has_note);
	cr_assert_str_eq(c.v[2].note_problem, "note runs past the end of its section");
	cr_assert_eq(c.v[2].cuda, 13030, "judged as a package without a note");
	cr_assert_null(compat_note_remark(&c.v[2], remark, sizeof remark));
	/* the note, not the directory's 13.1, gives the version */
	cr_assert(c.v[3].has_note, "read cut to its section: %s", c.v[3].note_problem);
	cr_assert_str_eq(c.v[3].cuda_from, "note");
	cr_assert_eq(c.v[3].cuda, 13020);
	cr_assert_eq(c.v[3].note_past, 2);
	cr_assert_str_eq(compat_note_remark(&c.v[3], remark, sizeof remark),
			 "its descriptor runs 2 bytes past its section (cut there) and its JSON ends in a trailing comma");
	cr_assert(!c.v[4].has_note);
	cr_assert(strstr(c.v[4].note_problem, "note JSON") != NULL, "%s", c.v[4].note_problem);
	cr_assert_eq(c.v[4].cuda, 13050, "judged as a package without a note");
	compat_free(&c);
	rm_rf(root);
	free(root);
}
