/* SPDX-License-Identifier: MIT */
#include "helpers.h"

#include "../../common/elf/searchpath.h"

Test(searchpath_happy, entry)
{
	char dir[64];
	cr_assert_eq(searchpath_entry("$ORIGIN/../lib", 14, "/opt/env/bin", 12, dir, sizeof dir), 19);
	cr_assert_str_eq(dir, "/opt/env/bin/../lib");
	cr_assert_eq(searchpath_entry("${ORIGIN}", 9, "/a", 2, dir, sizeof dir), 2);
	cr_assert_str_eq(dir, "/a");
	cr_assert_eq(searchpath_entry("/usr/local/cuda/compat:x", 22, "", 0, dir, sizeof dir), 22);
	cr_assert_str_eq(dir, "/usr/local/cuda/compat");
	/* relative, $ORIGINAL, no origin, too long: nothing */
	cr_assert_eq(searchpath_entry("lib", 3, "/a", 2, dir, sizeof dir), 0);
	cr_assert_eq(searchpath_entry("$ORIGINAL", 9, "/a", 2, dir, sizeof dir), 0);
	cr_assert_eq(searchpath_entry("$ORIGIN/x", 9, "", 0, dir, sizeof dir), 0);
	cr_assert_eq(searchpath_entry("/0123456789", 11, "", 0, dir, 8), 0);
}

/* What conf_lines handed over: "file dir" per line. */
struct seen {
	char text[512];
	int n, stop_after;
};

static bool collect(const char *file, const char *dir, size_t len, void *arg)
{
	struct seen *s = arg;
	size_t at = strlen(s->text);
	snprintf(s->text + at, sizeof s->text - at, "%s %.*s\n", file, (int)len, dir);
	return ++s->n != s->stop_after;
}

/* ld.so.conf first, then each conf.d file that ends in .conf; blanks,
 * comments and include lines are no directory; fn returning false stops. */
Test(searchpath_happy, conf_lines)
{
	char *root = scratch_dir();
	put_text(root, "/etc/ld.so.conf", "# comment\ninclude /etc/ld.so.conf.d/*.conf\n\n  /opt/a/lib  # why\n");
	put_text(root, "/etc/ld.so.conf.d/cuda-compat.conf", "/usr/local/cuda/compat\n");
	put_text(root, "/etc/ld.so.conf.d/README", "/not/a/conf\n");
	struct seen s = { "", 0, 0 };
	searchpath_conf_lines(root, collect, &s);
	cr_assert_str_eq(s.text, "/etc/ld.so.conf /opt/a/lib\n"
				 "/etc/ld.so.conf.d/cuda-compat.conf /usr/local/cuda/compat\n");
	s = (struct seen){ "", 0, 1 };
	searchpath_conf_lines(root, collect, &s);
	cr_assert_str_eq(s.text, "/etc/ld.so.conf /opt/a/lib\n", "stopped at the first");
	rm_rf(root);
	free(root);
}

Test(searchpath_edge, conf_lines_none)
{
	char *root = scratch_dir();
	struct seen s = { "", 0, 0 };
	searchpath_conf_lines(root, collect, &s);
	cr_assert_eq(s.n, 0, "no ld.so.conf, no conf.d: nothing");
	rm_rf(root);
	free(root);
}
