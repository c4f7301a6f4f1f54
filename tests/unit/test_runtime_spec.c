/* SPDX-License-Identifier: MIT */
/* cudaload-runtime's reader of config.json and its one edit
 * (tools/runtime/spec.h). */
#include "helpers.h"

#include "../../tools/runtime/spec.h"

#define ENTRY "{\"path\":\"/usr/bin/cudaload\"}"

static void scan(const char *text, struct spec_scan *s)
{
	char why[256];
	cr_assert_eq(spec_scan(text, strlen(text), s, why, sizeof why), 0, "%s: %s", text, why);
}

/* text with ENTRY added: want */
static void adds(const char *text, const char *want)
{
	struct spec_scan s;
	size_t len;
	scan(text, &s);
	char *out = spec_add_hook(text, strlen(text), &s, ENTRY, &len);
	cr_assert_not_null(out);
	cr_assert_str_eq(out, want);
	cr_assert_eq(len, strlen(want));
	free(out);
}

Test(runtime_spec, the_entry_goes_where_the_hooks_are_or_are_made)
{
	adds("{}", "{\"hooks\":{\"createContainer\":[" ENTRY "]}}");
	adds("{ \"ociVersion\": \"1.0.2\" }\n", "{ \"ociVersion\": \"1.0.2\" ,\"hooks\":{\"createContainer\":[" ENTRY "]}}\n");
	adds("{\"hooks\":{}}", "{\"hooks\":{\"createContainer\":[" ENTRY "]}}");
	adds("{\"hooks\":{\"prestart\":[]} }", "{\"hooks\":{\"prestart\":[],\"createContainer\":[" ENTRY "]} }");
	adds("{\"hooks\":{\"createContainer\":[ ]}}", "{\"hooks\":{\"createContainer\":[ " ENTRY "]}}");
	adds("{\"hooks\":{\"createContainer\":[{\"path\":\"/a\"}\n\t],\"poststop\":[]}}",
	     "{\"hooks\":{\"createContainer\":[{\"path\":\"/a\"}\n\t," ENTRY "],\"poststop\":[]}}");
}

Test(runtime_spec, what_gives_a_gpu)
{
	struct spec_scan s;
	scan("{\"process\":{\"env\":[\"NVIDIA_VISIBLE_DEVICES=0,1\"]}}", &s);
	cr_assert(strstr(s.gpu, "NVIDIA_VISIBLE_DEVICES=0,1"), "%s", s.gpu);
	scan("{\"linux\":{\"devices\":[{\"path\":\"/dev/nvidia3\",\"type\":\"c\",\"major\":195,\"minor\":3}]}}", &s);
	cr_assert(strstr(s.gpu, "linux.devices"), "%s", s.gpu);
	scan("{\"hooks\":{\"prestart\":[{\"path\":\"/usr/bin/nvidia-container-runtime-hook\"}]}}", &s);
	cr_assert(strstr(s.gpu, "hooks.prestart: nvidia-container-runtime-hook"), "%s", s.gpu);
	/* not a GPU: a blank, void or none, another major, nvidiactl */
	const char *none[] = {
		"{\"process\":{\"env\":[\"NVIDIA_VISIBLE_DEVICES=\"]}}",
		"{\"process\":{\"env\":[\"NVIDIA_VISIBLE_DEVICES=void\"]}}",
		"{\"process\":{\"env\":[\"NVIDIA_VISIBLE_DEVICES=none\"]}}",
		"{\"linux\":{\"devices\":[{\"path\":\"/dev/nvidia0\",\"major\":10}]}}",
		"{\"linux\":{\"devices\":[{\"path\":\"/dev/nvidiactl\",\"major\":195}]}}",
		"{\"hooks\":{\"prestart\":[{\"path\":\"/usr/bin/other-hook\"}]}}",
	};
	for (size_t i = 0; i < sizeof none / sizeof none[0]; i++) {
		scan(none[i], &s);
		cr_assert_str_eq(s.gpu, "", "%s: %s", none[i], s.gpu);
	}
}

Test(runtime_spec, opted_out_and_hooked_already)
{
	struct spec_scan s;
	scan("{\"annotations\":{\"cudaload.dev/compat\":\"off\"}}", &s);
	cr_assert(strstr(s.opted_out, "cudaload.dev/compat=off"), "%s", s.opted_out);
	scan("{\"annotations\":{\"cudaload.dev/compat\":\"true\"}}", &s);
	cr_assert_str_eq(s.opted_out, "");
	scan("{\"process\":{\"env\":[\"CUDALOAD_COMPAT=0\"]}}", &s);
	cr_assert(strstr(s.opted_out, "CUDALOAD_COMPAT=0"), "%s", s.opted_out);
	scan("{\"hooks\":{\"createContainer\":[{\"path\":\"/usr/bin/cudaload\",\"args\":[\"cudaload\",\"--oci-hook\"]}]}}", &s);
	cr_assert(s.hooked);
	/* only as a createContainer hook, and only cudaload's */
	scan("{\"hooks\":{\"prestart\":[{\"path\":\"/usr/bin/cudaload\",\"args\":[\"cudaload\",\"--oci-hook\"]}]}}", &s);
	cr_assert(!s.hooked);
	scan("{\"hooks\":{\"createContainer\":[{\"path\":\"/bin/sh\",\"args\":[\"sh\",\"--oci-hook\"]}]}}", &s);
	cr_assert(!s.hooked);
}

Test(runtime_spec, refused_with_a_reason)
{
	const char *bad[][2] = {
		{ "{\"process\":", "at byte" },
		{ "[]", "not a JSON object" },
		{ "{\"hooks\":[]}", "hooks is not an object" },
		{ "{\"hooks\":null}", "hooks is not an object" },
		{ "{\"hooks\":{},\"hooks\":{}}", "hooks named twice" },
		{ "{\"hooks\":{\"createContainer\":{}}}", "hooks.createContainer is not an array" },
		{ "{\"hooks\":{\"createContainer\":[],\"createContainer\":[]}}", "hooks.createContainer named twice" },
		{ "{} {}", "text after the object" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct spec_scan s;
		char why[256] = "";
		cr_assert_eq(spec_scan(bad[i][0], strlen(bad[i][0]), &s, why, sizeof why), -1, "%s", bad[i][0]);
		cr_assert(strstr(why, bad[i][1]), "%s: %s", bad[i][0], why);
	}
}
