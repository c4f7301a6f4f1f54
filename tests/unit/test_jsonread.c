/* SPDX-License-Identifier: MIT */
#include "helpers.h"

#include "../../common/base/jsonread.h"

/* An OCI config.json's shape: root.path, process.env, linux.devices. */
struct seen {
	char path[64];
	char env[4][64];
	int n_env;
	long minors[4];
	int n_minors;
	bool cut;
};

static bool env_el(struct jsonread *r, size_t i, void *ctx)
{
	struct seen *s = ctx;
	bool cut = false;
	if (i >= 4)
		return jsonread_skip(r);
	bool ok = jsonread_string(r, s->env[i], sizeof s->env[i], &cut);
	s->cut |= cut;
	s->n_env = (int)i + 1;
	return ok;
}

static bool dev_member(struct jsonread *r, const char *key, void *ctx)
{
	struct seen *s = ctx;
	if (strcmp(key, "minor") == 0 && s->n_minors < 4)
		return jsonread_number(r, &s->minors[s->n_minors++]);
	return jsonread_skip(r);
}

static bool dev_el(struct jsonread *r, size_t i, void *ctx)
{
	(void)i;
	return jsonread_object(r, dev_member, ctx, false, NULL);
}

static bool inner(struct jsonread *r, const char *key, void *ctx)
{
	struct seen *s = ctx;
	if (strcmp(key, "path") == 0)
		return jsonread_string(r, s->path, sizeof s->path, NULL);
	if (strcmp(key, "env") == 0)
		return jsonread_array(r, env_el, ctx);
	if (strcmp(key, "devices") == 0)
		return jsonread_array(r, dev_el, ctx);
	return jsonread_skip(r);
}

static bool top(struct jsonread *r, const char *key, void *ctx)
{
	(void)key;
	if (jsonread_peek(r, '{'))
		return jsonread_object(r, inner, ctx, false, NULL);
	return jsonread_skip(r);
}

static int read_config(const char *text, struct seen *s, const char **err)
{
	struct jsonread r;
	memset(s, 0, sizeof *s);
	jsonread_init(&r, text, strlen(text));
	r.any_number = true;
	bool ok = jsonread_object(&r, top, s, true, NULL);
	*err = r.err;
	return ok ? 0 : -1;
}

Test(jsonread_happy, an_oci_config)
{
	struct seen s;
	const char *err;
	const char *text = "{\"ociVersion\":\"1.0.2-dev\",\"root\":{\"path\":\"/var/lib/x/merged\",\"readonly\":false},"
			   "\"process\":{\"env\":[\"PATH=/bin\",\"LD_LIBRARY_PATH=/usr/local/cuda/compat\"]},"
			   "\"linux\":{\"resources\":{\"memory\":{\"limit\":9223372036854775807,\"swap\":1e21}},"
			   "\"devices\":[{\"path\":\"/dev/nvidia0\",\"type\":\"c\",\"major\":195,\"minor\":0},"
			   "{\"path\":\"/dev/nvidia1\",\"major\":195,\"minor\":1}]}}";
	cr_assert_eq(read_config(text, &s, &err), 0, "%s", err);
	cr_assert_str_eq(s.path, "/var/lib/x/merged");
	cr_assert_eq(s.n_env, 2);
	cr_assert_str_eq(s.env[1], "LD_LIBRARY_PATH=/usr/local/cuda/compat");
	cr_assert_eq(s.n_minors, 2, "numbers of any size are skipped");
	cr_assert_eq(s.minors[1], 1);
}

Test(jsonread_happy, escapes_unescaped)
{
	struct jsonread r;
	char out[64];
	bool cut = true;
	const char *text = "\"a\\\"b\\\\c\\/d\\n\\u00e9\\u20ac\\ud83d\\ude00\"";
	jsonread_init(&r, text, strlen(text));
	cr_assert(jsonread_string(&r, out, sizeof out, &cut), "%s", r.err);
	cr_assert(!cut);
	cr_assert_str_eq(out, "a\"b\\c/d\n\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
}

Test(jsonread_happy, a_long_string_is_read_cut)
{
	struct jsonread r;
	char out[4];
	bool cut = false;
	jsonread_init(&r, "\"abcdef\",", 9);
	cr_assert(jsonread_string(&r, out, sizeof out, &cut));
	cr_assert(cut);
	cr_assert_str_eq(out, "abc");
	cr_assert(jsonread_eat(&r, ','), "read to its end");
}

static bool skip_all(struct jsonread *r, const char *key, void *ctx)
{
	(void)key;
	(void)ctx;
	return jsonread_skip(r);
}

Test(jsonread_happy, a_trailing_comma_where_asked)
{
	struct jsonread r;
	bool comma = false;
	jsonread_init(&r, "{\"a\":1,}", 8);
	cr_assert(jsonread_object(&r, skip_all, NULL, true, &comma), "%s", r.err);
	cr_assert(comma);
}

static const char *fails(const char *text)
{
	struct jsonread r;
	jsonread_init(&r, text, strlen(text));
	r.any_number = true;
	return jsonread_object(&r, skip_all, NULL, true, NULL) ? NULL : r.err;
}

Test(jsonread_sad, what_is_refused)
{
	cr_assert_not_null(fails(""));
	cr_assert_not_null(fails("[1]"), "not an object");
	cr_assert_not_null(fails("{\"a\":\"\\u0000\"}"), "a NUL in a string");
	cr_assert_not_null(fails("{\"a\":\"\\ud83d\"}"), "a lone surrogate");
	cr_assert_not_null(fails("{\"a\":\"\\x\"}"), "an unknown escape");
	cr_assert_not_null(fails("{\"a\":\"x\ny\"}"), "a control character");
	cr_assert_not_null(fails("{\"a\":1,}"), "a trailing comma, unasked");
	cr_assert_not_null(fails("{\"a\":1} x"), "text after it");
	cr_assert_not_null(fails("{\"a\":1e}"), "an exponent without digits");
	cr_assert_not_null(fails("{\"a\":\"open"), "an unterminated string");
	cr_assert_null(fails("{\"a\":[1,{\"b\":[true,false,null,-2.5e+3]}]}"));
}

Test(jsonread_sad, nesting_is_bounded)
{
	char deep[2 * (JSONREAD_MAX_DEPTH + 2) + 16];
	size_t n = 0;
	deep[n++] = '{';
	memcpy(deep + n, "\"a\":", 4);
	n += 4;
	for (int i = 0; i < JSONREAD_MAX_DEPTH + 1; i++)
		deep[n++] = '[';
	for (int i = 0; i < JSONREAD_MAX_DEPTH + 1; i++)
		deep[n++] = ']';
	deep[n++] = '}';
	deep[n] = '\0';
	const char *err = fails(deep);
	cr_assert_not_null(err);
	cr_assert_str_eq(err, "nested too deeply");
}

Test(jsonread_sad, numbers_skipped_strictly_unless_asked)
{
	struct jsonread r;
	jsonread_init(&r, "{\"a\":1e5}", 9);
	cr_assert(!jsonread_object(&r, skip_all, NULL, true, NULL));
	cr_assert_str_eq(r.err, "exponent in a number");
}

Test(jsonread_sad, a_number_read_is_bounded)
{
	struct jsonread r;
	long v;
	jsonread_init(&r, "12345678901", 11);
	cr_assert(!jsonread_number(&r, &v));
	cr_assert_str_eq(r.err, "number too large");
}
