/* SPDX-License-Identifier: MIT */
#include "helpers.h"

#include "../../common/packages/notejson.h"

static int parse(const char *s, struct compat_note *n, char *why)
{
	return notejson_parse(s, strlen(s), n, why, 128);
}

Test(notejson_happy, full)
{
	struct compat_note n;
	char why[128];
	const char *s = "{\"format\":1,\"CUDA version\":\"12.9\",\"driver\":[535,550,560,565,570,575],"
			"\"device\":[{\"name\":\"H100\",\"ids\":[1,2]},\"x\"],\"flag\":true,\"z\":null}";
	cr_assert_eq(parse(s, &n, why), 0, "%s", why);
	cr_assert_eq(n.format, 1);
	cr_assert_eq(n.cuda, 12090);
	cr_assert(n.has_drivers);
	cr_assert_eq(n.n_drivers, 6);
	cr_assert_eq(n.drivers[5], 575);
	cr_assert(!n.has_devices, "a device list of objects is skipped");
}

/* The real cuda-compat-13-0 note, as read off an H200 host. */
Test(notejson_happy, device_brands)
{
	struct compat_note n;
	char why[128];
	const char *s = "{\"format\":1,\"CUDA version\":\"13.0\",\"driver\":[535,550,565,570,575,580],"
			"\"device\":[1,2,7,8,9,10,11,12,13,14]}";
	cr_assert_eq(parse(s, &n, why), 0, "%s", why);
	cr_assert(n.has_devices);
	cr_assert_eq(n.n_devices, 10);
	cr_assert_eq(n.devices[2], 7);
	cr_assert_eq(n.devices[9], 14);
	cr_assert_eq(parse("{\"device\":[]}", &n, why), 0, "%s", why);
	cr_assert(n.has_devices);
	cr_assert_eq(n.n_devices, 0);
	cr_assert_neq(parse("{\"device\":[1,]}", &n, why), 0);
}

Test(notejson_happy, orin_and_case)
{
	struct compat_note n;
	char why[128];
	cr_assert_eq(parse("{\"format\":1,\"CUDA version\":\"13.2\"}", &n, why), 0);
	cr_assert_eq(n.cuda, 13020);
	cr_assert(!n.has_drivers);
	cr_assert_eq(parse(" {\n \"cuda VERSION\" : \"12.4\" , \"DRIVER\" : [ \"550.54.14\" , \"570\" ] }\n", &n, why), 0, "%s", why);
	cr_assert_eq(n.cuda, 12040);
	cr_assert_eq(n.n_drivers, 2);
	cr_assert_eq(n.drivers[0], 550);
	cr_assert_eq(n.drivers[1], 570);
	const char padded[] = "{\"CUDA version\":\"12.8\"}\0\0\0";
	cr_assert_eq(notejson_parse(padded, sizeof padded, &n, why, sizeof why), 0);
	cr_assert_eq(parse("{}", &n, why), 0);
	cr_assert_eq(n.cuda, 0);
}

Test(notejson_sad, malformed)
{
	static const char *bad[] = {
		"", "[]", "{", "{\"a\"}", "{\"a\":}", "{\"a\":1} x",
		"{\"CUDA version\":12.9}", "{\"CUDA version\":\"twelve\"}",
		"{\"driver\":550}", "{\"driver\":[\"abc\"]}", "{\"driver\":[-1]}",
		"{\"driver\":[550,]}", "{\"a\":\"unterminated}", "{\"a\":tru}",
		"{\"a\":1e5}", "{\"a\":\"\x01\"}", "{\"a\":99999999999}",
		"{\"a\":[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]}",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct compat_note n;
		char why[128] = "";
		cr_assert_eq(parse(bad[i], &n, why), -1, "accepted: %s", bad[i]);
		cr_assert(strncmp(why, "note JSON: ", 11) == 0, "no reason for %s", bad[i]);
	}
}

/* One comma after the note's last member, as in a shipped Orin CUDA 13.2
 * note (NVIDIA's container toolkit test data): taken, and said; a comma
 * anywhere else, or two, is still malformed. */
Test(notejson_happy, trailing_comma)
{
	struct compat_note n;
	char why[128];
	cr_assert_eq(parse("{\"format\":1,\"CUDA version\":\"13.2\"}", &n, why), 0, "%s", why);
	cr_assert(!n.trailing_comma);
	cr_assert_eq(parse("{\"format\":1,\"CUDA version\":\"13.2\",}", &n, why), 0, "%s", why);
	cr_assert(n.trailing_comma);
	cr_assert_eq(n.format, 1);
	cr_assert_eq(n.cuda, 13020);
	const char padded[] = "{\"CUDA version\":\"13.2\" , \n}\0\0\0";
	cr_assert_eq(notejson_parse(padded, sizeof padded, &n, why, sizeof why), 0, "%s", why);
	cr_assert(n.trailing_comma);
	cr_assert_eq(n.cuda, 13020);
	cr_assert_eq(parse("{\"driver\":[535,550],\"CUDA version\":\"12.8\",}", &n, why), 0, "%s", why);
	cr_assert(n.trailing_comma);
	cr_assert_eq(n.n_drivers, 2);

	static const char *still_bad[] = {
		"{,}", "{\"a\":1,,}", "{\"a\":1,}}", "{\"a\":1,} x", "{\"a\":1,",
		"{\"driver\":[535,],\"CUDA version\":\"12.8\"}", "{\"x\":{\"a\":1,}}",
		"{\"x\":[1,],\"CUDA version\":\"12.8\"}", "{\"CUDA version\":\"13.2\",]",
	};
	for (size_t i = 0; i < sizeof still_bad / sizeof still_bad[0]; i++) {
		why[0] = '\0';
		cr_assert_eq(parse(still_bad[i], &n, why), -1, "accepted: %s", still_bad[i]);
		cr_assert(strncmp(why, "note JSON: ", 11) == 0, "no reason for %s", still_bad[i]);
	}
	/* a toolkit's version.json is no note: its comma is not taken */
	static const char *vfiles[] = { "{\"cuda\":{\"version\":\"12.2.2\"},}",
					"{\"cuda\":{\"version\":\"12.2.2\",}}" };
	for (size_t i = 0; i < 2; i++)
		cr_assert_eq(notejson_version_file(vfiles[i], strlen(vfiles[i]), why, sizeof why), -1,
			     "accepted: %s", vfiles[i]);
}

Test(notejson_sad, truncated_everywhere)
{
	const char *s = "{\"format\":1,\"CUDA version\":\"12.9\",\"driver\":[535,550]}";
	for (size_t len = 0; len < strlen(s); len++) {
		struct compat_note n;
		char why[128];
		cr_assert_eq(notejson_parse(s, len, &n, why, sizeof why), -1, "prefix %zu accepted", len);
	}
}

Test(notejson_sad, too_many_drivers_are_capped)
{
	char s[2048] = "{\"driver\":[";
	for (int i = 0; i < 100; i++)
		sprintf(s + strlen(s), "%s%d", i ? "," : "", 500 + i);
	strcat(s, "]}");
	struct compat_note n;
	char why[128];
	cr_assert_eq(parse(s, &n, why), 0);
	cr_assert_eq(n.n_drivers, NOTE_MAX_DRIVERS);
}

/* A toolkit's version.json: the CUDA SDK first, then some thirty
 * components, a few KiB in all. */
static char *toolkit_version_json(void)
{
	size_t cap = 8192, n = 0;
	char *s = malloc(cap);
	n += (size_t)snprintf(s + n, cap - n,
			      "{\n   \"cuda\" : {\n      \"name\" : \"CUDA SDK\",\n      \"version\" : \"12.2.2\"\n   }");
	for (int i = 0; i < 32; i++)
		n += (size_t)snprintf(s + n, cap - n,
				      ",\n   \"cuda_component_%d\" : {\n      \"name\" : \"CUDA component %d\",\n"
				      "      \"version\" : \"12.2.%d\"\n   }", i, i, 100 + i);
	snprintf(s + n, cap - n, "\n}\n");
	return s;
}

Test(notejson_happy, version_file)
{
	char why[128];
	char *s = toolkit_version_json();
	cr_assert_gt(strlen(s), 2048, "larger than the old 2 KiB read");
	cr_assert_eq(notejson_version_file(s, strlen(s), why, sizeof why), 12020, "%s", why);
	free(s);
	const char *none = "{\"cuda_cccl\": {\"version\": \"12.2.140\"}}";
	cr_assert_eq(notejson_version_file(none, strlen(none), why, sizeof why), 0);
	const char *other = "{\"cuda\": \"12.2\", \"x\": [1, {\"version\": \"9.9\"}]}";
	cr_assert_eq(notejson_version_file(other, strlen(other), why, sizeof why), 0);
}

/* A version.json cut short was taken for a version. */
Test(notejson_sad, version_file_truncated_everywhere)
{
	char why[128];
	char *s = toolkit_version_json();
	size_t whole = strlen(s);
	while (whole && s[whole - 1] == '\n')
		whole--;	/* trailing white space is no part of the value */
	for (size_t len = 0; len < whole; len++)
		cr_assert_eq(notejson_version_file(s, len, why, sizeof why), -1, "prefix %zu accepted", len);
	cr_assert_eq(notejson_version_file(s, 80, why, sizeof why), -1);
	cr_assert_str_eq(why, "version.json: unterminated string at byte 80");
	free(s);
	const char *bad[] = {
		"{\"cuda\": {\"version\": \"twelve\"}}",
		"{\"cuda\": {\"version\": \"12.2\"}} trailing",
		"[\"cuda\"]",
		"{\"cuda\": {\"version\": \"12.2\"},}",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		cr_assert_eq(notejson_version_file(bad[i], strlen(bad[i]), why, sizeof why), -1, "%s", bad[i]);
}
