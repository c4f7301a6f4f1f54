/* SPDX-License-Identifier: MIT */
#include "helpers.h"

#include <dirent.h>

#include "../../common/stores/patchlist.h"

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	cr_assert(f != NULL, "%s", path);
	static char buf[4096];
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

Test(patchlist_happy, add_save_load_remove)
{
	char *d = scratch_dir();
	char file[512];
	snprintf(file, sizeof file, "%s/var/lib/cudaload/patched", d);
	struct patchlist pl = { 0 };
	int skipped = -1;
	cr_assert_eq(patchlist_read(file, &pl, &skipped, NULL, 0), 0, "a missing record is empty");
	cr_assert_eq(pl.n, 0);
	cr_assert_eq(patchlist_add(&pl, "/usr/bin/cudaload", "/opt/app/bin/a"), 0);
	cr_assert_eq(patchlist_add(&pl, "/usr/bin/cudaload", "/opt/app/bin/with space\tand tab"), 0);
	cr_assert_eq(patchlist_add(&pl, "/opt/cudaload", "/opt/app/bin/a"), 0, "update, not a second line");
	cr_assert_eq(pl.n, 2);
	cr_assert(pl.changed);
	char why[256] = "";
	cr_assert_eq(patchlist_save(&pl, file, why, sizeof why), 0, "%s", why);
	cr_assert_str_eq(slurp(file), "/opt/cudaload\t/opt/app/bin/a\n"
				      "/usr/bin/cudaload\t/opt/app/bin/with space\tand tab\n");
	struct stat st;
	cr_assert_eq(stat(file, &st), 0);
	cr_assert_eq(st.st_mode & 07777, 0644);
	patchlist_free(&pl);

	cr_assert_eq(patchlist_read(file, &pl, &skipped, why, sizeof why), 1, "%s", why);
	cr_assert_eq(skipped, 0);
	cr_assert_eq(pl.n, 2);
	cr_assert(!pl.changed);
	cr_assert_str_eq(pl.v[1].path, "/opt/app/bin/with space\tand tab", "a path keeps its tabs");
	cr_assert(patchlist_remove(&pl, "/opt/app/bin/a"));
	cr_assert(!patchlist_remove(&pl, "/opt/app/bin/a"));
	cr_assert_eq(pl.n, 1);
	cr_assert_str_eq(pl.v[0].interp, "/usr/bin/cudaload");
	cr_assert(patchlist_remove(&pl, pl.v[0].path));
	cr_assert_eq(patchlist_save(&pl, file, why, sizeof why), 0, "%s", why);
	cr_assert_eq(access(file, F_OK), -1, "an empty record is no file");
	patchlist_free(&pl);

	/* no temporary left beside it */
	char dir[512];
	snprintf(dir, sizeof dir, "%s/var/lib/cudaload", d);
	DIR *dh = opendir(dir);
	cr_assert(dh != NULL);
	struct dirent *e;
	while ((e = readdir(dh)))
		cr_assert(e->d_name[0] == '.', "left behind: %s", e->d_name);
	closedir(dh);
	rm_rf(d);
	free(d);
}

Test(patchlist_sad, not_storable)
{
	struct patchlist pl = { 0 };
	cr_assert_eq(patchlist_add(&pl, "/usr/bin/cudaload", "relative/path"), -1);
	cr_assert_eq(patchlist_add(&pl, "/usr/bin/cudaload", "/a\nb"), -1, "a newline would split the line");
	cr_assert_eq(patchlist_add(&pl, "/usr/bin/cuda\tload", "/a"), -1, "a tab in the interpreter");
	cr_assert_eq(pl.n, 0);
	cr_assert(!pl.changed);
}

Test(patchlist_sad, garbage_lines_skipped)
{
	static const char text[] =
		"/usr/bin/cudaload\t/opt/a\n"
		"no tab here\n"
		"\n"
		"relative\t/opt/b\n"
		"/usr/bin/cudaload\trelative\n"
		"/usr/bin/cudaload\t\n"
		"\t/opt/c\n"
		"/usr/bin/cudaload\t/opt/a\n"		/* twice: the first stays */
		"/x\t/opt/\0nul\n"
		"/usr/bin/cudaload\t/opt/last";		/* no final newline */
	struct patchlist pl = { 0 };
	char why[128] = "";
	int skipped = patchlist_parse(&pl, text, sizeof text - 1, why, sizeof why);
	cr_assert_eq(skipped, 6, "skipped %d", skipped);
	cr_assert_str_eq(why, "line 2: no tab between interpreter and path");
	cr_assert_eq(pl.n, 2);
	cr_assert_str_eq(pl.v[0].path, "/opt/a");
	cr_assert_str_eq(pl.v[1].path, "/opt/last");
	patchlist_free(&pl);
}

Test(patchlist_sad, unwritable_directory)
{
	if (geteuid() == 0)
		cr_skip_test("root writes anywhere");
	char *d = scratch_dir();
	char file[512];
	snprintf(file, sizeof file, "%s/ro/patched", d);
	mkdirs(file);
	rmdir(file);
	snprintf(file, sizeof file, "%s/ro", d);
	chmod(file, 0555);
	snprintf(file, sizeof file, "%s/ro/patched", d);
	struct patchlist pl = { 0 };
	cr_assert_eq(patchlist_add(&pl, "/usr/bin/cudaload", "/opt/a"), 0);
	char why[256] = "";
	cr_assert_eq(patchlist_save(&pl, file, why, sizeof why), -1);
	cr_assert(strstr(why, "Permission denied"), "%s", why);
	patchlist_free(&pl);
	snprintf(file, sizeof file, "%s/ro", d);
	chmod(file, 0755);
	rm_rf(d);
	free(d);
}
