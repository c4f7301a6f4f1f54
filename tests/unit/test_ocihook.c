/* SPDX-License-Identifier: MIT */
/* The container hook's readers: the OCI state, config.json and the
 * judgement's word (loader/commands/ocihook/bundle.h, word.h). */
#include "helpers.h"

#include "../../loader/commands/ocihook/bundle.h"
#include "../../loader/commands/ocihook/word.h"

static int state(const char *text, struct bundle *b, char *why)
{
	memset(b, 0, sizeof *b);
	return bundle_parse_state(text, strlen(text), b, why, 256);
}

static int config(const char *text, struct bundle *b, char *why)
{
	memset(b, 0, sizeof *b);
	return bundle_parse_config(text, strlen(text), b, why, 256);
}

struct refused {
	const char *text, *why;
};

/* Each text refused by parse with a reason that holds its why. */
static void refuse_each(int (*parse)(const char *, struct bundle *, char *), const struct refused *bad, size_t n)
{
	struct bundle b;
	char why[256];
	for (size_t i = 0; i < n; i++) {
		why[0] = '\0';
		cr_assert_eq(parse(bad[i].text, &b, why), -1, "%s", bad[i].text);
		cr_assert_neq(why[0], '\0', "%s", bad[i].text);
		cr_assert(strstr(why, bad[i].why), "%s: %s", bad[i].text, why);
		bundle_free(&b);
	}
}

Test(ocihook_bundle, state_gives_the_bundle_and_the_id)
{
	struct bundle b;
	char why[256];
	cr_assert_eq(state("{\"ociVersion\":\"1.0.2\",\"id\":\"abc123\",\"status\":\"creating\",\"pid\":4242,"
			   "\"bundle\":\"/run/containers/abc\",\"annotations\":{\"x\":\"y\"}}", &b, why), 0, "%s", why);
	cr_assert_str_eq(b.path, "/run/containers/abc");
	cr_assert_str_eq(b.id, "abc123");
	bundle_free(&b);
}

Test(ocihook_bundle, a_bad_state_is_refused_with_its_reason)
{
	struct bundle b;
	char why[256];
	static const struct refused bad[] = {
		{ "{\"bundle\":", "" },
		{ "", "" },
		{ "[1,2]", "" },
		{ "{\"bundle\":\"relative/path\"}", "names no absolute bundle" },
		{ "{\"id\":\"x\"}", "names no absolute bundle" },
	};
	refuse_each(state, bad, sizeof bad / sizeof bad[0]);
	/* an id past its bound is an error, never cut */
	char text[400];
	snprintf(text, sizeof text, "{\"id\":\"%0200d\",\"bundle\":\"/b\"}", 7);
	cr_assert_eq(state(text, &b, why), -1);
	cr_assert(strstr(why, "\"id\" too long"), "%s", why);
	bundle_free(&b);
}

Test(ocihook_bundle, config_gives_root_gpus_env_and_run)
{
	struct bundle b;
	char why[256];
	cr_assert_eq(config("{\"ociVersion\":\"1.0.2\",\"root\":{\"path\":\"rootfs\",\"readonly\":false},"
			    "\"process\":{\"env\":[\"PATH=/bin\",\"LD_LIBRARY_PATH=/usr/local/cuda/compat\","
			    "\"CUDALOAD_POLICY=system\",\"HOME=/root\"]},"
			    "\"mounts\":[{\"destination\":\"/proc\",\"type\":\"proc\"},"
			    "{\"destination\":\"/run\",\"type\":\"tmpfs\",\"source\":\"tmpfs\"}],"
			    "\"linux\":{\"resources\":{\"memory\":{\"limit\":9223372036854775807}},"
			    "\"devices\":[{\"path\":\"/dev/nvidia1\",\"type\":\"c\",\"major\":195,\"minor\":1},"
			    "{\"path\":\"/dev/nvidiactl\",\"type\":\"c\",\"major\":195,\"minor\":255},"
			    "{\"path\":\"/dev/fuse\",\"type\":\"c\",\"major\":10,\"minor\":229}]}}", &b, why), 0,
		     "%s", why);
	cr_assert_str_eq(b.root, "rootfs");
	cr_assert_eq(b.n_env, 2);
	cr_assert_str_eq(b.env[0], "LD_LIBRARY_PATH=/usr/local/cuda/compat");
	cr_assert_str_eq(b.env[1], "CUDALOAD_POLICY=system");
	cr_assert_eq(b.n_minors, 1);
	cr_assert_eq(b.minors[0], 1);
	cr_assert_str_eq(b.gpus_from, "config.json");
	cr_assert(b.run_tmpfs);
	bundle_free(&b);
}

Test(ocihook_bundle, run_is_the_containers_own_only_as_a_tmpfs)
{
	struct bundle b;
	char why[256];
	cr_assert_eq(config("{\"root\":{\"path\":\"/r\"},\"mounts\":[{\"destination\":\"/run\",\"type\":\"bind\","
			    "\"source\":\"/home/u/run\"}]}", &b, why), 0, "%s", why);
	cr_assert_not(b.run_tmpfs, "a volume at /run is not the container's own");
	bundle_free(&b);
	cr_assert_eq(config("{\"root\":{\"path\":\"/r\"},\"mounts\":[{\"destination\":\"/run\",\"type\":\"tmpfs\"},"
			    "{\"destination\":\"/run\",\"type\":\"bind\"}]}", &b, why), 0, "%s", why);
	cr_assert_not(b.run_tmpfs, "the last mount at /run is what the container sees");
	bundle_free(&b);
}

Test(ocihook_bundle, a_bad_config_is_refused_with_its_reason)
{
	static const struct refused bad[] = {
		{ "{}", "no root.path" },
		{ "{\"root\":{\"path\":\"\"}}", "no root.path" },
		{ "{\"root\":{\"path\":\"/r\"},\"linux\":{\"devices\":[{\"path\":\"/dev/nvidia0\",\"major\":195,"
		  "\"minor\":999}]}}", "minor is out of range" },
		{ "{\"root\":{\"path\":\"/r\"},\"process\":{\"env\":[1]}}", "" },
		{ "{\"root\":{\"path\":\"/r\"}", "" },
	};
	refuse_each(config, bad, sizeof bad / sizeof bad[0]);
}

Test(ocihook_bundle, more_variables_than_it_reads_fail_closed)
{
	struct bundle b;
	char why[256];
	size_t cap = 64 + (BUNDLE_ENV_MAX + 1) * 32;
	char *text = malloc(cap);
	size_t n = (size_t)snprintf(text, cap, "{\"root\":{\"path\":\"/r\"},\"process\":{\"env\":[");
	for (int i = 0; i <= BUNDLE_ENV_MAX; i++)
		n += (size_t)snprintf(text + n, cap - n, "%s\"CUDALOAD_X%d=1\"", i ? "," : "", i);
	snprintf(text + n, cap - n, "]}}");
	cr_assert_eq(config(text, &b, why), -1);
	cr_assert(strstr(why, "than the hook reads"), "%s", why);
	bundle_free(&b);
	free(text);
}

Test(ocihook_bundle, nvidia_nodes_are_told_by_name)
{
	cr_assert_eq(bundle_nvidia_node("nvidia0"), 0);
	cr_assert_eq(bundle_nvidia_node("nvidia255"), 255);
	cr_assert_eq(bundle_nvidia_node("nvidia256"), -1);
	cr_assert_eq(bundle_nvidia_node("nvidiactl"), -1);
	cr_assert_eq(bundle_nvidia_node("nvidia-uvm"), -1);
	cr_assert_eq(bundle_nvidia_node("nvidia1x"), -1);
}

/* ---- the word ---- */

static const char *read_word(const char *buf, size_t n, struct edits *e)
{
	static char *text;
	static size_t len;
	memset(e, 0, sizeof *e);
	e->log = open_memstream(&text, &len);
	const char *why = word_read(buf, n, e);
	fclose(e->log);
	return why;
}

Test(ocihook_word, a_whole_word_is_read)
{
	struct word w = { malloc(4096), 0, 4096, false };
	struct candidate c = { 0 };
	c.dir = "/usr/local/cuda-12.8/compat";
	c.dev = 2049;
	c.ino = 77;
	word_put_dir(&w, "H", &c);
	word_put_dir(&w, "F", &c);
	word_put(&w, "C");
	word_put(&w, "R");
	word_put(&w, "decision: compat\n");
	word_end(&w);
	struct edits e;
	cr_assert_null(read_word(w.buf, w.n, &e));
	cr_assert_eq(e.n_hide, 1);
	cr_assert_str_eq(e.hide[0].dir, "/usr/local/cuda-12.8/compat");
	cr_assert_eq(e.hide[0].dev, 2049);
	cr_assert_eq(e.hide[0].ino, 77);
	cr_assert(e.have_first && e.cache_names_hidden);
	cr_assert_str_eq(e.report, "decision: compat\n");
	/* every cut of it short of its end is refused */
	for (size_t n = 0; n < w.n; n++)
		cr_assert_not_null(read_word(w.buf, n, &e), "cut at %zu", n);
	free(w.buf);
}

Test(ocihook_word, a_word_that_does_not_fit_says_so)
{
	char buf[96];
	struct word w = { buf, 0, sizeof buf, false };
	word_put(&w, "R");
	cr_assert_not(word_put(&w, "an account far longer than the word's buffer, which has room for the "
				   "hook's own complaint and no more"));
	word_end(&w);
	struct edits e;
	const char *why = read_word(buf, w.n, &e);
	cr_assert_not_null(why);
	cr_assert(strstr(why, "longer than the hook reads"), "%s", why);
}

Test(ocihook_word, malformed_words_are_refused)
{
	struct edits e;
	static const struct { const char *buf; size_t n; } bad[] = {
		{ "H\0/a\0x1\0002\0.", 13 },		/* a device that is no number */
		{ "H\0relative\0001\0002\0.", 20 },	/* not absolute */
		{ "F\0/a\0001\0002\0F\0/b\0001\0002\0.", 26 },	/* two first */
		{ "Q\0.", 4 },				/* not understood */
		{ "HH\0.", 5 },
		{ ".\0R\0x", 6 },			/* past its end */
		{ "R\0x", 3 },				/* no NUL */
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		cr_assert_not_null(read_word(bad[i].buf, bad[i].n, &e), "case %zu", i);
	cr_assert_null(read_word(".", 2, &e));
	cr_assert_str_eq(read_word("E\0no GPU\0.", 11, &e), "no GPU");
}
