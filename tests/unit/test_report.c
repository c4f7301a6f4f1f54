/* SPDX-License-Identifier: MIT */
#include "helpers.h"

#include "../../common/base/utf8.h"

#include "../../common/packages/notejson.h"
#include "../../common/report/report.h"

static char *render(const struct report *r, bool json)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	(json ? report_json : report_text)(f, r);
	fclose(f);
	return buf;
}

static void fixture(struct settings *s, struct host *h, struct candidate *v,
		    struct decision *d, struct ldso_info *l)
{
	settings_from_env(s, NULL, false);
	memset(h, 0, sizeof *h);
	h->platform = PLATFORM_TEGRA;
	strcpy(h->soc, "tegra234");
	strcpy(h->model, "Jetson \"AGX\" Orin\n");
	strcpy(h->l4t_str, "35.4.1");
	h->cuda = 11040;
	memset(v, 0, sizeof *v);
	v->dir = "/usr/local/cuda-12.2/compat";
	v->cuda = 12020;
	v->cuda_from = "directory";
	v->has_lib = true;
	v->elf_machine = EM_AARCH64;
	v->usable = true;
	strcpy(v->reason, "CUDA 12.2 is supported on L4T r35");
	memset(d, 0, sizeof *d);
	d->use_compat = true;
	strcpy(d->reason, "compat CUDA 12.2");
	memset(l, 0, sizeof *l);
	l->path = "/lib/ld-linux-aarch64.so.1";
	l->from = "standard path";
}

Test(report_happy, json_is_valid_and_complete)
{
	struct settings s;
	struct host h;
	struct candidate v;
	struct decision d;
	struct ldso_info l;
	fixture(&s, &h, &v, &d, &l);
	struct candidates c = { .v = &v, .n = 1, .cap = 1 };
	struct report r = { &s, &h, &c, &d, "/usr/bin/app", &l, NULL, "/usr/local/cuda-12.2/compat", NULL, 0, NULL, NULL, NULL, NULL, NULL, 0 };
	char *out = render(&r, true);
	struct compat_note n;
	char why[128];
	cr_assert_eq(notejson_parse(out, strlen(out), &n, why, sizeof why), 0, "%s: %s", why, out);
	cr_assert(!n.trailing_comma, "valid JSON has no trailing comma: %s", out);
	static const char *const keys[] = {
		"\"platform\":\"tegra\"", "\"soc\":\"tegra234\"", "\"l4t\":\"35.4.1\"", "\"host_driver\":null",
		"\"host_cuda\":\"11.4\"", "\"candidates\":[{\"dir\":\"/usr/local/cuda-12.2/compat\",\"cuda\":\"12.2\"",
		"\"usable\":true", "\"decision\":\"compat\"", "\"compat_dir\":\"/usr/local/cuda-12.2/compat\"",
		"\"reason\":\"compat CUDA 12.2\"", "\"ldso\":\"/lib/ld-linux-aarch64.so.1\"",
		"\"library_path\":\"/usr/local/cuda-12.2/compat\"", "\"mode\":\"chain\"",
		"\"model\":\"Jetson \\\"AGX\\\" Orin\\\\x0a\"", "{\"schema\":3,", "\"cuda_source\":\"directory\"",
		"\"gpu\":{\"problem\":", "\"config_warnings\":[]", "\"tables\":{\"cuda\":\"13.4\"",
		"\"compat_searched\":[\"/usr/local/cuda-*/compat\",",
	};
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
		cr_assert(strstr(out, keys[i]) != NULL, "missing %s in %s", keys[i], out);
	free(out);
	settings_free(&s);
}

Test(report_happy, text)
{
	struct settings s;
	struct host h;
	struct candidate v;
	struct decision d;
	struct ldso_info l;
	fixture(&s, &h, &v, &d, &l);
	struct candidates c = { .v = &v, .n = 1, .cap = 1 };
	struct report r = { &s, &h, &c, &d, NULL, &l, NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL, NULL, 0 };
	char *out = render(&r, false);
	cr_assert(strstr(out, "decision:     compat\n") != NULL, "%s", out);
	/* the model's own newline is shown, not obeyed */
	cr_assert(strstr(out, "soc:          tegra234 (Orin)\nmodel:        Jetson \"AGX\" Orin\\x0a\nL4T:") != NULL, "%s", out);
	cr_assert(strstr(out, "CUDA 12.2 (from directory), usable: CUDA 12.2 is supported on L4T r35\n") != NULL, "%s", out);
	cr_assert(strstr(out, "library path: (unchanged)\n") != NULL, "%s", out);
	free(out);
	/* where it was found, said in words and as JSON */
	v.origin = "ld.so.cache";
	v.source = (char *)"/etc/ld.so.conf.d/cuda-compat.conf";
	out = render(&r, false);
	cr_assert(strstr(out, "candidate:    /usr/local/cuda-12.2/compat\n"
			      "              found: ld.so.cache entry from /etc/ld.so.conf.d/cuda-compat.conf\n"),
		  "%s", out);
	free(out);
	out = render(&r, true);
	cr_assert(strstr(out, "\"origin\":\"ld.so.cache\",\"found\":\"ld.so.cache entry\","
			      "\"found_in\":\"/etc/ld.so.conf.d/cuda-compat.conf\""), "%s", out);
	free(out);
	settings_free(&s);
}

/* A note read despite its shape (NVIDIA's Orin 13.2: cut to its section,
 * a trailing comma) is said in --explain and its JSON; one read whole is
 * not. */
Test(report_happy, note_read_despite_its_shape)
{
	struct settings s;
	struct host h;
	struct candidate v;
	struct decision d;
	struct ldso_info l;
	fixture(&s, &h, &v, &d, &l);
	struct candidates c = { .v = &v, .n = 1, .cap = 1 };
	struct report r = { &s, &h, &c, &d, NULL, &l, NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL, NULL, 0 };
	v.has_note = true;
	char *out = render(&r, true);
	cr_assert(strstr(out, "\"note_problem\":null,\"note_remark\":null,") != NULL, "%s", out);
	free(out);
	out = render(&r, false);
	cr_assert(strstr(out, "note: read, though") == NULL, "%s", out);
	free(out);
	static const char said[] = "its descriptor runs 2 bytes past its section (cut there) and its JSON ends in a trailing comma";
	v.note_past = 2;
	v.note.trailing_comma = true;
	out = render(&r, true);
	cr_assert(strstr(out, "\"note_remark\":\"its descriptor runs 2 bytes") != NULL, "%s", out);
	cr_assert(strstr(out, said) != NULL, "%s", out);
	free(out);
	out = render(&r, false);
	cr_assert(strstr(out, "              note: read, though its descriptor runs 2 bytes past its section "
			      "(cut there) and its JSON ends in a trailing comma\n") != NULL, "%s", out);
	free(out);
	v.note_past = 0;
	out = render(&r, false);
	cr_assert(strstr(out, "note: read, though its JSON ends in a trailing comma\n") != NULL, "%s", out);
	free(out);
	settings_free(&s);
}

Test(report_sad, nothing_known, .init = cr_redirect_stderr)
{
	struct settings s;
	settings_from_env(&s, NULL, false);
	struct host h;
	memset(&h, 0, sizeof h);
	strcpy(h.problem, "no NVIDIA GPU found");
	struct decision d = { false, -1, "system driver: no NVIDIA GPU found" };
	struct candidates c = { .v = NULL, .n = 0, .cap = 0 };
	settings_warn(&s, "%s", "x.conf:3: unknown key 'bogus'; skipped");
	struct report r = { &s, &h, &c, &d, "/bin/static", NULL, NULL, NULL, NULL, 0, "direct",
			    "statically linked: it runs directly, without a loader", NULL, NULL, NULL, 0 };
	char *out = render(&r, true);
	struct compat_note n;
	char why[128];
	cr_assert_eq(notejson_parse(out, strlen(out), &n, why, sizeof why), 0, "%s", why);
	cr_assert(!n.trailing_comma, "valid JSON has no trailing comma: %s", out);
	cr_assert(strstr(out, "\"platform\":\"none\"") && strstr(out, "\"candidates\":[]") &&
		  strstr(out, "\"compat_dir\":null") && strstr(out, "\"ldso\":null"), "%s", out);
	cr_assert(strstr(out, "\"gpu\":{\"problem\":\"no NVIDIA GPU found\"}") != NULL, "%s", out);
	cr_assert(strstr(out, "\"config_warnings\":[\"x.conf:3: unknown key 'bogus'; skipped\"]") != NULL, "%s", out);
	cr_assert(strstr(out, "\"mode\":\"direct\"") != NULL, "%s", out);
	free(out);
	out = render(&r, false);
	cr_assert(strstr(out, "candidates:   none found; searched /usr/local/cuda-*/compat, /usr/local/cuda-*/compat_orin, /usr/local/cuda/compat\n") != NULL, "%s", out);
	cr_assert(strstr(out, "warning:      x.conf:3: unknown key 'bogus'; skipped\n") != NULL, "%s", out);
	cr_assert(strstr(out, "loader:       none\n") != NULL, "%s", out);
	cr_assert(strstr(out, "mode:         direct (statically linked: it runs directly, without a loader)\n") != NULL, "%s", out);
	free(out);
	settings_free(&s);
}

Test(report_happy, verdicts_and_their_age)
{
	struct settings s;
	struct host h;
	struct candidate v;
	struct decision d;
	struct ldso_info l;
	fixture(&s, &h, &v, &d, &l);
	v.verdict = (struct verdict){ .kind = VERDICT_CU, .state = VSTATE_APPLIES, .step = VSTEP_INIT,
				      .device = -1, .code = 804, .when = 1000 };
	struct verdict sys = { .kind = VERDICT_CU, .step = VSTEP_DONE, .device = -1, .devices = 2, .when = 1000 };
	struct candidates c = { .v = &v, .n = 1, .cap = 1 };
	struct report r = { &s, &h, &c, &d, NULL, &l, NULL, NULL, &sys, 1000 + 3 * 60, NULL, NULL, NULL, NULL, NULL, 0 };
	char *out = render(&r, false);
	cr_assert(strstr(out, "              verified 3 min ago: cuInit returned 804 (CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE: a GPU here does not support forward compatibility)\n") != NULL, "%s", out);
	cr_assert(strstr(out, "system driver verified 3 min ago: cuInit returned 0 (CUDA_SUCCESS: works), "
			  "then a context and a PTX module on each of its 2 devices\n") != NULL, "%s", out);
	free(out);
	out = render(&r, true);
	struct compat_note n;
	char why[128];
	cr_assert_eq(notejson_parse(out, strlen(out), &n, why, sizeof why), 0, "%s: %s", why, out);
	cr_assert(!n.trailing_comma, "valid JSON has no trailing comma: %s", out);
	cr_assert(strstr(out, "\"verdict\":{\"result\":\"cu=804\",\"name\":\"CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE\"") != NULL, "%s", out);
	cr_assert(strstr(out, "\"ok\":false,\"age_s\":180,\"step\":\"init\",\"device\":null,\"devices\":0,"
			  "\"store\":\"root\",\"state\":\"applies\"}") != NULL, "%s", out);
	cr_assert(strstr(out, "\"system_verdict\":{\"result\":\"cu=0\"") != NULL, "%s", out);
	cr_assert(strstr(out, "\"ok\":true,\"age_s\":180,\"step\":\"done\",\"device\":null,\"devices\":2,"
			  "\"store\":\"root\"}") != NULL, "%s", out);
	free(out);
	/* a verdict from the user's own store says so */
	v.verdict.source = VSOURCE_USER;
	out = render(&r, false);
	cr_assert(strstr(out, "              verified 3 min ago (this user's store): cuInit returned 804 ") != NULL,
		  "%s", out);
	free(out);
	out = render(&r, true);
	cr_assert(strstr(out, "\"store\":\"user\",\"state\":\"applies\"}") != NULL, "%s", out);
	free(out);
	v.verdict.source = VSOURCE_ROOT;
	v.verdict.state = VSTATE_CHANGED;
	out = render(&r, false);
	cr_assert(strstr(out, "; ignored: libcuda.so.1 changed since\n") != NULL, "%s", out);
	free(out);
	sys.kind = VERDICT_NONE;
	v.verdict.kind = VERDICT_NONE;
	out = render(&r, false);
	cr_assert(strstr(out, "verified") == NULL, "no store, no verdict lines: %s", out);
	free(out);
	settings_free(&s);
}

/* A compat directory named with bytes that are not UTF-8 and with
 * control characters made --explain --json invalid and put raw escape
 * sequences on the terminal. */
Test(report_sad, hostile_names)
{
	struct settings s;
	struct host h;
	struct candidate v;
	struct decision d;
	struct ldso_info l;
	fixture(&s, &h, &v, &d, &l);
	char hostile[] = "/opt/\xff\xfe\x1b[31mred\xc3\xa9\xc2\x9b\xe2\x82/compat\nfake: line";
	v.dir = hostile;
	struct candidates c = { .v = &v, .n = 1, .cap = 1 };
	struct report r = { &s, &h, &c, &d, NULL, &l, NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL, NULL, 0 };
	char *out = render(&r, true);
	/* the printable form (utf8.h), quoted for JSON */
	cr_assert(strstr(out, "\"dir\":\"/opt/\\\\xff\\\\xfe\\\\x1b[31mred\xc3\xa9\\\\xc2\\\\x9b\\\\xe2\\\\x82"
			  "/compat\\\\x0afake: line\"") != NULL, "%s", out);
	struct compat_note n;
	char why[128];
	cr_assert_eq(notejson_parse(out, strlen(out), &n, why, sizeof why), 0, "%s: %s", why, out);
	cr_assert(!n.trailing_comma, "valid JSON has no trailing comma: %s", out);
	for (const unsigned char *p = (const unsigned char *)out; *p;) {
		size_t k = utf8_seq(p, strlen((const char *)p));
		cr_assert(k > 0, "not UTF-8 at %ld", (long)(p - (const unsigned char *)out));
		p += k;
	}
	free(out);
	out = render(&r, false);
	cr_assert(strstr(out, "candidate:    /opt/\\xff\\xfe\\x1b[31mred\xc3\xa9\\xc2\\x9b\\xe2\\x82/compat\\x0afake: line\n")
		  != NULL, "%s", out);
	for (const char *p = out; *p; p++)
		cr_assert(*p == '\n' || (unsigned char)*p >= 0x20, "control byte 0x%02x", (unsigned char)*p);
	free(out);
	settings_free(&s);
}

/* A name could pass for another.  A program named with the four
 * characters \x1b showed as one named with an escape byte; the backslash
 * is now doubled, in text and in JSON, so no two names look alike. */
Test(report_sad, names_cannot_pass_for_others)
{
	struct settings s;
	struct host h;
	struct candidate v;
	struct decision d;
	struct ldso_info l;
	fixture(&s, &h, &v, &d, &l);
	struct candidates c = { .v = &v, .n = 1, .cap = 1 };
	struct report r = { &s, &h, &c, &d, "/opt/a\\x1b[2Jb", &l, NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL, NULL, 0 };
	char *lit = render(&r, false), *lit_json = render(&r, true);
	r.program = "/opt/a\x1b[2Jb";
	char *esc = render(&r, false), *esc_json = render(&r, true);
	cr_assert(strstr(lit, "program:      /opt/a\\\\x1b[2Jb\n") != NULL, "%s", lit);
	cr_assert(strstr(esc, "program:      /opt/a\\x1b[2Jb\n") != NULL, "%s", esc);
	cr_assert(strstr(lit_json, "\"program\":\"/opt/a\\\\\\\\x1b[2Jb\"") != NULL, "%s", lit_json);
	cr_assert(strstr(esc_json, "\"program\":\"/opt/a\\\\x1b[2Jb\"") != NULL, "%s", esc_json);
	free(lit);
	free(lit_json);
	free(esc);
	free(esc_json);
	settings_free(&s);
}

/* Schema 3: where a version came from is a token ("version file" is
 * version_file), under one key (cuda_from went: it said the same). */
Test(report_happy, cuda_source_is_a_token)
{
	static const char *const from[][2] = { { "version file", "\"cuda_source\":\"version_file\"" },
					       { "file name", "\"cuda_source\":\"file_name\"" },
					       { "store name", "\"cuda_source\":\"store_name\"" },
					       { NULL, "\"cuda_source\":null" } };
	for (size_t i = 0; i < sizeof from / sizeof from[0]; i++) {
		struct candidate v;
		memset(&v, 0, sizeof v);
		v.dir = "/usr/local/cuda-12.2/compat";
		v.cuda_from = from[i][0];
		strcpy(v.reason, "r");
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);
		report_candidate_json(f, &v, 0);
		fclose(f);
		cr_assert(strstr(buf, from[i][1]) != NULL, "want %s in %s", from[i][1], buf);
		cr_assert(strstr(buf, "cuda_from") == NULL, "cuda_from is gone: %s", buf);
		free(buf);
	}
}
