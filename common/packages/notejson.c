/* SPDX-License-Identifier: MIT */
#include "notejson.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../base/jsonread.h"
#include "../base/version.h"

#define MAX_STRING 128

/* A string; a long one is read cut (no version is long). */
static bool string(struct jsonread *ps, char *out, size_t cap)
{
	return jsonread_string(ps, out, cap, NULL);
}

/* "driver": [535, 550, ...]; entries may also be strings such as "570". */
static bool drivers(struct jsonread *ps, struct compat_note *out)
{
	out->has_drivers = true;
	if (!jsonread_eat(ps, '['))
		return jsonread_fail(ps, "\"driver\" is not a list");
	if (jsonread_eat(ps, ']'))
		return true;
	do {
		long v;
		char s[MAX_STRING];
		jsonread_ws(ps);
		if (ps->p < ps->end && *ps->p == '"') {
			struct driver_version dv;
			if (!string(ps, s, sizeof s))
				return false;
			if (driver_version_parse(s, &dv) == 0)
				v = dv.major;
			else {
				char *end;
				v = strtol(s, &end, 10);
				if (end == s || *end)
					return jsonread_fail(ps, "\"driver\" entry is not a branch number");
			}
		} else if (!jsonread_number(ps, &v)) {
			return false;
		}
		if (v <= 0 || v > 100000)
			return jsonread_fail(ps, "\"driver\" entry out of range");
		if (out->n_drivers < NOTE_MAX_DRIVERS)
			out->drivers[out->n_drivers++] = (int)v;
	} while (jsonread_eat(ps, ','));
	return jsonread_eat(ps, ']') || jsonread_fail(ps, "expected ',' or ']' in \"driver\"");
}

/* "device": [1, 2, 7, ...], NVML brand numbers.  A list of anything else
 * (some hand-made notes hold words) is skipped, not an error. */
static bool devices(struct jsonread *ps, struct compat_note *out)
{
	const char *start = ps->p;
	jsonread_ws(ps);
	if (ps->p < ps->end && *ps->p == '[') {
		const char *q = ps->p + 1;
		while (q < ps->end && *q != ']' && *q != '"' && *q != '[' && *q != '{')
			q++;
		if (q < ps->end && *q == ']') {	/* numbers only */
			ps->p++;
			out->has_devices = true;
			if (jsonread_eat(ps, ']'))
				return true;
			do {
				long v;
				if (!jsonread_number(ps, &v))
					return false;
				if (out->n_devices < NOTE_MAX_DRIVERS)
					out->devices[out->n_devices++] = (int)v;
			} while (jsonread_eat(ps, ','));
			return jsonread_eat(ps, ']') || jsonread_fail(ps, "expected ',' or ']' in \"device\"");
		}
	}
	ps->p = start;
	return jsonread_skip(ps);
}

static bool note_member(struct jsonread *ps, const char *key, void *ctx)
{
	struct compat_note *out = ctx;
	if (strcasecmp(key, "CUDA version") == 0) {
		char v[MAX_STRING];
		if (!string(ps, v, sizeof v))
			return false;
		out->cuda = cuda_version_parse(v, false);
		return out->cuda >= 0 || jsonread_fail(ps, "\"CUDA version\" is not a version");
	}
	if (strcasecmp(key, "driver") == 0)
		return drivers(ps, out);
	if (strcasecmp(key, "device") == 0)
		return devices(ps, out);
	if (strcasecmp(key, "format") == 0) {
		long f;
		if (!jsonread_number(ps, &f))
			return false;
		out->format = (int)f;
		return true;
	}
	return jsonread_skip(ps);
}

int notejson_parse(const char *text, size_t len, struct compat_note *out,
		   char *why, size_t whycap)
{
	struct jsonread ps;
	jsonread_init(&ps, text, len);
	memset(out, 0, sizeof *out);

	/* Descriptors are often NUL-padded. */
	while (ps.end > ps.p && ps.end[-1] == '\0')
		ps.end--;

	/* NVIDIA shipped an Orin 13.2 note ending in ",}": taken, and said */
	if (!jsonread_object(&ps, note_member, out, true, &out->trailing_comma))
		goto bad;
	return 0;
bad:
	if (why && whycap)
		snprintf(why, whycap, "note JSON: %s at byte %ld", ps.err,
			 (long)(ps.p - text));
	return -1;
}

/* The version string of "cuda": {"version": "12.2.140", ...}, left ""
 * when absent; other members skipped. */
struct version_out {
	char *v;
	size_t cap;
};

static bool cuda_version_member(struct jsonread *ps, const char *key, void *ctx)
{
	struct version_out *out = ctx;
	return strcmp(key, "version") == 0 ? string(ps, out->v, out->cap) : jsonread_skip(ps);
}

/* A top-level member of version.json: "cuda" (an object, else skipped like
 * any other value) has the version. */
static bool version_file_member(struct jsonread *ps, const char *key, void *ctx)
{
	if (strcmp(key, "cuda") != 0 || ps->p >= ps->end || *ps->p != '{')
		return jsonread_skip(ps);
	return jsonread_object(ps, cuda_version_member, ctx, false, NULL);
}

int notejson_version_file(const char *text, size_t len, char *why, size_t whycap)
{
	struct jsonread ps;
	jsonread_init(&ps, text, len);
	char v[MAX_STRING] = "";
	struct version_out out = { v, sizeof v };
	int cuda = 0;

	if (!jsonread_object(&ps, version_file_member, &out, true, NULL))
		goto bad;
	if (v[0] && (cuda = cuda_version_parse(v, true)) <= 0) {
		jsonread_fail(&ps, "\"cuda\" \"version\" is not a version");
		goto bad;
	}
	return cuda;
bad:
	if (why && whycap)
		snprintf(why, whycap, "version.json: %s at byte %ld", ps.err, (long)(ps.p - text));
	return -1;
}
