/* SPDX-License-Identifier: MIT */
/* configure's pure edits (tools/runtime/): the TOML line editor, Docker's
 * daemon.json, containerd's imports line. */
#include "helpers.h"

#include <stdlib.h>
#include <string.h>

#include "../../tools/runtime/containerd.h"
#include "../../tools/runtime/daemonjson.h"
#include "../../tools/runtime/tomledit.h"

static char why[256];

Test(tomledit, canonical_paths_multiline_values_and_lookups)
{
	const char *t = "version = 3 # the newest\n"
			"imports = [\n  \"/a.toml\", # one\n  '/b/*.toml',\n]\n"
			"[plugins.'io.containerd.cri.v1.runtime'.containerd]\n"
			"  default_runtime_name = \"runc\"\n"
			"  s = \"\"\"x\ny\"\"\"\n";
	struct toml_doc d;
	char s[64];
	long v = 0;
	cr_assert_eq(toml_parse(&d, t, strlen(t), why, sizeof why), 0, "%s", why);
	const struct toml_item *it = toml_find(&d, "version", TOML_ENTRY);
	cr_assert(it && toml_integer(&d, it, &v) && v == 3);
	it = toml_find(&d, "plugins.\"io.containerd.cri.v1.runtime\".containerd.default_runtime_name", TOML_ENTRY);
	cr_assert(it && toml_string(&d, it, s, sizeof s));
	cr_assert_str_eq(s, "runc");
	cr_assert(toml_find(&d, "plugins.\"io.containerd.cri.v1.runtime\".containerd", TOML_TABLE));
	cr_assert(toml_under("plugins.x.y", "plugins.x") && !toml_under("plugins.xy", "plugins.x"));
	toml_free(&d);
}

Test(tomledit, refuses_what_is_malformed_or_too_long)
{
	static const char *const bad[] = {
		"[a\n", "a = \n", "a = \"open\n", "a = [1, 2\n", "a = 1 junk\n", "= 1\n", "a = '''x\n",
		"[[a]\n",
	};
	struct toml_doc d;
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		cr_expect_eq(toml_parse(&d, bad[i], strlen(bad[i]), why, sizeof why), -1, "%s", bad[i]);
	char *long_line = malloc(TOML_LINE_MAX + 16);
	memset(long_line, 'a', TOML_LINE_MAX + 8);
	memcpy(long_line + TOML_LINE_MAX + 8, " = 1\n", 6);
	cr_expect_eq(toml_parse(&d, long_line, strlen(long_line), why, sizeof why), -1);
	cr_expect(strstr(why, "longer than"), "%s", why);
	free(long_line);
	cr_expect_eq(toml_parse(&d, "a = 1\0b", 7, why, sizeof why), -1);
}

Test(daemonjson, configure_keeps_the_rest_and_unconfigure_gives_it_back)
{
	const char *t = "{\n  \"log-driver\": \"journald\",\n  \"runtimes\": {\n    \"nvidia\": {\"path\": \"x\"}\n  }\n}\n";
	char *out, *back;
	size_t n, m;
	cr_assert_eq(daemonjson_configure(t, strlen(t), NULL, 0, "/usr/bin/cudaload-runtime", true, &out, &n, why, sizeof why), 0,
		     "%s", why);
	cr_expect(strstr(out, "    \"nvidia\": {\"path\": \"x\"},\n    \"cudaload\": {\n"
			      "      \"path\": \"/usr/bin/cudaload-runtime\"\n    }\n"), "%s", out);
	cr_expect(strstr(out, ",\n  \"default-runtime\": \"cudaload\"\n}\n"), "%s", out);
	cr_assert_eq(daemonjson_unconfigure(out, n, NULL, 0, &back, &m, why, sizeof why), 0, "%s", why);
	cr_expect(m == strlen(t) && memcmp(back, t, m) == 0, "%s", back);
	free(out);
	free(back);
}

Test(daemonjson, compact_and_empty_files_and_refusals)
{
	char *out;
	size_t n;
	const char *compact = "{\"a\":1}";
	cr_assert_eq(daemonjson_configure(compact, strlen(compact), NULL, 0, "/r", false, &out, &n, why, sizeof why), 0);
	cr_expect_str_eq(out, "{\"a\":1, \"runtimes\": {\"cudaload\": {\"path\": \"/r\"}}}");
	free(out);
	cr_assert_eq(daemonjson_configure(NULL, 0, NULL, 0, "/r", false, &out, &n, why, sizeof why), 0);
	cr_expect_str_eq(out, "{\n    \"runtimes\": {\n        \"cudaload\": {\n            \"path\": \"/r\"\n"
			      "        }\n    }\n}\n");
	free(out);
	static const char *const bad[] = { "", "{", "[]", "{\"runtimes\": 1}", "{\"a\":1,}", "{} x",
					   "{\"default-runtime\": \"a\", \"default-runtime\": \"b\"}" };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		cr_expect_eq(daemonjson_configure(bad[i], strlen(bad[i]), NULL, 0, "/r", true, &out, &n, why, sizeof why), -1,
			     "%s", bad[i]);
}

Test(daemonjson, the_default_follows_the_last_run)
{
	const char *before = "{\"default-runtime\": \"nvidia\", \"runtimes\": {\"nvidia\": {\"path\": \"n\"}}}";
	const char *none = "{\"runtimes\": {\"nvidia\": {\"path\": \"n\"}}}";
	char *with, *without, *back;
	size_t n, m, k;
	cr_assert_eq(daemonjson_configure(before, strlen(before), before, strlen(before), "/r", true, &with, &n, why,
					  sizeof why), 0, "%s", why);
	cr_expect(strstr(with, "\"default-runtime\": \"cudaload\""), "%s", with);
	/* without --set-as-default: the backup's default again */
	cr_assert_eq(daemonjson_configure(with, n, before, strlen(before), "/r", false, &without, &m, why, sizeof why), 0);
	cr_expect(strstr(without, "\"default-runtime\": \"nvidia\""), "%s", without);
	cr_expect(strstr(without, "\"cudaload\": {\"path\": \"/r\"}"), "%s", without);
	free(without);
	/* the admin changed the file since: unconfigure gives the backup's default back */
	cr_assert_eq(daemonjson_unconfigure(with, n, before, strlen(before), &back, &k, why, sizeof why), 0);
	cr_expect_str_eq(back, before);
	free(back);
	/* a backup without one: default-runtime taken out */
	free(with);
	cr_assert_eq(daemonjson_configure(none, strlen(none), none, strlen(none), "/r", true, &with, &n, why,
					  sizeof why), 0);
	cr_assert_eq(daemonjson_configure(with, n, none, strlen(none), "/r", false, &without, &m, why, sizeof why), 0);
	cr_expect(!strstr(without, "default-runtime"), "%s", without);
	free(without);
	cr_assert_eq(daemonjson_unconfigure(with, n, NULL, 0, &back, &k, why, sizeof why), 0);
	cr_expect_str_eq(back, none);
	free(back);
	free(with);
}

Test(containerd, imports_added_once_and_taken_out)
{
	const char *t = "version = 2\nimports = [\"/etc/containerd/x.toml\"]\n";
	char *out, *back;
	size_t n, m;
	cr_assert_eq(containerd_imports_add(t, strlen(t), "/etc/containerd", "/etc/containerd/conf.d/cudaload.toml",
					    &out, &n, why, sizeof why), 0, "%s", why);
	cr_expect_str_eq(out, "version = 2\nimports = [\"/etc/containerd/x.toml\", "
			      "\"/etc/containerd/conf.d/cudaload.toml\"]\n");
	cr_assert_eq(containerd_imports_remove(out, n, "/etc/containerd", "/etc/containerd/conf.d/cudaload.toml", &back, &m, why,
					       sizeof why), 0);
	cr_expect_str_eq(back, t);
	free(out);
	free(back);
	/* an absolute pattern that covers it, however it is spelled: nothing added */
	static const char *const covering[] = {
		"version = 2\nimports = [\"/etc/containerd/conf.d/*.toml\"]\n",
		"version = 2\nimports = [\"/etc/containerd/conf.d//*.toml\"]\n",
		"version = 2\nimports = [\"/etc/containerd/../containerd/./conf.d/*.toml\"]\n",
		"version = 2\nimports = [\"//etc/containerd/conf.d/cudaload.toml\"]\n",
		"version = 2\nimports = [\"./conf.d/cudaload.toml\"]\n",
		"version = 2\nimports = [\"conf.d/../conf.d/cudaload.toml\"]\n",
	};
	for (size_t i = 0; i < sizeof covering / sizeof covering[0]; i++) {
		const char *c = covering[i];
		cr_assert_eq(containerd_imports_add(c, strlen(c), "/etc/containerd",
						    "/etc/containerd/conf.d/cudaload.toml", &out, &n, why, sizeof why), 0);
		cr_expect_str_eq(out, c);
		free(out);
	}
	/* a relative pattern: containerd 1.6 globs it against its working
	 * directory, so the drop-in is named too, once */
	const char *rel = "version = 2\nimports = [\"./conf.d/*.toml\"]\n";
	cr_assert_eq(containerd_imports_add(rel, strlen(rel), "/etc/containerd", "/etc/containerd/conf.d/cudaload.toml",
					    &out, &n, why, sizeof why), 0);
	cr_expect_str_eq(out, "version = 2\nimports = [\"./conf.d/*.toml\", \"/etc/containerd/conf.d/cudaload.toml\"]\n");
	cr_assert_eq(containerd_imports_add(out, n, "/etc/containerd", "/etc/containerd/conf.d/cudaload.toml", &back,
					    &m, why, sizeof why), 0);
	cr_expect_str_eq(back, out);
	free(out);
	free(back);
	/* each element that names it goes, however it is spelled */
	const char *two = "version = 2\nimports = [\"a.toml\", \"./conf.d/cudaload.toml\", "
			  "\"/etc/containerd/conf.d//cudaload.toml\"]\n";
	cr_assert_eq(containerd_imports_remove(two, strlen(two), "/etc/containerd", "/etc/containerd/conf.d/cudaload.toml",
					       &out, &n, why, sizeof why), 0, "%s", why);
	cr_expect_str_eq(out, "version = 2\nimports = [\"a.toml\"]\n");
	free(out);
	long v;
	cr_expect_eq(containerd_version("[plugins.cri]\n", 14, &v, why, sizeof why), -1);
}

Test(containerd, paths_cleaned_as_go_does)
{
	static const char *const cases[][2] = {
		{ "", "." },		{ "/", "/" },		  { "//a//b/", "/a/b" },   { "a/./b/.", "a/b" },
		{ "/../a", "/a" },	{ "../../a", "../../a" }, { "a/../../b", "../b" }, { "a/b/../..", "." },
		{ "/a/b/../c/./d", "/a/c/d" }, { "/etc/containerd/../containerd/conf.d/*.toml", "/etc/containerd/conf.d/*.toml" },
		{ "./conf.d/*.toml", "conf.d/*.toml" }, { "..", ".." }, { "/a/..", "/" }, { "a/..", "." },
	};
	char out[256];
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		cr_assert(containerd_clean(cases[i][0], out, sizeof out));
		cr_expect_str_eq(out, cases[i][1], "%s", cases[i][0]);
	}
	cr_assert(containerd_resolve("/etc/containerd", "./conf.d//x.toml", out, sizeof out));
	cr_expect_str_eq(out, "/etc/containerd/conf.d/x.toml");
	cr_expect(!containerd_clean("/a/very/long/path", out, 8));
}

Test(containerd, more_imports_than_the_bound_refused)
{
	char *t = malloc(300 * 16 + 64), *out = NULL;
	size_t n = (size_t)sprintf(t, "version = 2\nimports = [");
	for (int i = 0; i < 300; i++)
		n += (size_t)sprintf(t + n, "%s\"/x/%d.toml\"", i ? ", " : "", i);
	n += (size_t)sprintf(t + n, "]\n");
	cr_expect_eq(containerd_imports_add(t, n, "/etc/containerd", "/etc/containerd/conf.d/cudaload.toml", &out, &n,
					    why, sizeof why), -1);
	cr_expect(strstr(why, "more than 256"), "%s", why);
	free(out);
	free(t);
}

Test(containerd, the_handler_copies_quoted_keys_and_inline_options)
{
	static const char *const mains[] = {
		"version = 2\n[plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.runc]\n"
		"  runtime_type = \"io.containerd.runc.v2\"\n"
		"[plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.runc.options]\n"
		"  \"SystemdCgroup\" = true\n",
		"version = 2\n[plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.runc]\n"
		"  runtime_type = \"io.containerd.runc.v2\"\n"
		"  options = {SystemdCgroup = true, BinaryName = \"/usr/bin/runc\", \"Root\" = \"/r,x}\"}\n",
	};
	for (size_t i = 0; i < sizeof mains / sizeof mains[0]; i++) {
		struct containerd_source src = { "config.toml", mains[i], strlen(mains[i]) };
		static struct containerd_note note;
		char *out;
		size_t n;
		cr_assert_eq(containerd_dropin(&src, 1, 2, "/r", false, &out, &n, &note, why, sizeof why), 0, "%s", why);
		const char *ours = strstr(out, "runtimes.cudaload.options]\n");
		cr_assert(ours, "%s", out);
		cr_expect(strstr(ours, "\n  SystemdCgroup = true\n"), "%zu: %s", i, out);
		cr_expect(!strstr(ours, "/usr/bin/runc"), "%zu: %s", i, out);
		if (i == 1)
			cr_expect(strstr(ours, "\n  \"Root\" = \"/r,x}\"\n"), "%s", out);
		free(out);
	}
}

Test(daemonjson, runtime_args_of_the_admin_kept)
{
	static const char *const in[][2] = {
		{ "{\"runtimes\": {\"cudaload\": {\"path\": \"/old\", \"runtimeArgs\": [\"--debug\"]}}}",
		  "{\"runtimes\": {\"cudaload\": {\"path\": \"/r\", \"runtimeArgs\": [\"--debug\"]}}}" },
		{ "{\n  \"runtimes\": {\n    \"cudaload\": {\n      \"runtimeArgs\": []\n    }\n  }\n}\n",
		  "{\n  \"runtimes\": {\n    \"cudaload\": {\n      \"runtimeArgs\": [],\n      \"path\": \"/r\"\n    }\n  }\n}\n" },
		{ "{\"runtimes\": {\"cudaload\": \"x\"}}", "{\"runtimes\": {\"cudaload\": {\"path\": \"/r\"}}}" },
	};
	for (size_t i = 0; i < sizeof in / sizeof in[0]; i++) {
		char *out, *again;
		size_t n, m;
		cr_assert_eq(daemonjson_configure(in[i][0], strlen(in[i][0]), NULL, 0, "/r", false, &out, &n, why,
						  sizeof why), 0, "%s", why);
		cr_expect_str_eq(out, in[i][1]);
		cr_assert_eq(daemonjson_configure(out, n, NULL, 0, "/r", false, &again, &m, why, sizeof why), 0);
		cr_expect_str_eq(again, out);
		free(out);
		free(again);
	}
}
