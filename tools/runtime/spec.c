/* SPDX-License-Identifier: MIT */
#include "spec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/base/jsonread.h"
#include "../../common/base/sys.h"
#include "../../common/base/why.h"
#include "../../loader/commands/ocihook/bundle.h"
#include "splice.h"

struct scan {
	struct spec_scan *s;
	const char *text;
	char value[BUNDLE_ENV_ENTRY_MAX];	/* one string read */
	/* one linux.devices entry */
	bool nvidia_node;
	long major;
	/* one hook entry */
	bool hook_is_cudaload, args_oci_hook;
	const char *stage;
	/* where the entry goes */
	bool seen_hooks, seen_create, hooks_nonempty, create_nonempty;
	size_t hooks_close, create_close;
};

/* The offset of the bracket that closed the value r just read: white space
 * after it is r's. */
static size_t closed_at(const struct scan *c, const struct jsonread *r)
{
	const char *p = r->p;
	while (p > c->text && (p[-1] == ' ' || p[-1] == '\t' || p[-1] == '\n' || p[-1] == '\r'))
		p--;
	return (size_t)(p - 1 - c->text);
}

static bool is_false_word(const char *v)
{
	return strcmp(v, "false") == 0 || strcmp(v, "0") == 0 || strcmp(v, "no") == 0 || strcmp(v, "off") == 0;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

/* A string value into c->value; false (with r's reason) when it is not one
 * or does not fit, which no field read here may do. */
static bool read_value(struct jsonread *r, struct scan *c)
{
	bool cut;
	return jsonread_string(r, c->value, sizeof c->value, &cut) &&
	       (!cut || jsonread_fail(r, "a string longer than 64 KiB"));
}

/* ---- process.env ---- */

static bool env_element(struct jsonread *r, size_t i, void *ctx)
{
	struct scan *c = ctx;
	(void)i;
	if (!read_value(r, c))
		return false;
	static const char visible[] = "NVIDIA_VISIBLE_DEVICES=", opt[] = "CUDALOAD_COMPAT=";
	const char *v = c->value;
	if (strncmp(v, visible, sizeof visible - 1) == 0) {
		v += sizeof visible - 1;
		if (*v && strcmp(v, "void") != 0 && strcmp(v, "none") != 0)
			snprintf(c->s->gpu, sizeof c->s->gpu, "process.env: NVIDIA_VISIBLE_DEVICES=%.64s", v);
	} else if (strncmp(v, opt, sizeof opt - 1) == 0 && is_false_word(v + sizeof opt - 1) &&
		   !c->s->opted_out[0]) {
		snprintf(c->s->opted_out, sizeof c->s->opted_out, "process.env: %s", v);
	}
	return true;
}

static bool process_member(struct jsonread *r, const char *key, void *ctx)
{
	return strcmp(key, "env") == 0 ? jsonread_array(r, env_element, ctx) : jsonread_skip(r);
}

/* ---- linux.devices ---- */

static bool device_member(struct jsonread *r, const char *key, void *ctx)
{
	struct scan *c = ctx;
	if (strcmp(key, "path") == 0) {
		if (!read_value(r, c))
			return false;
		c->nvidia_node = strncmp(c->value, "/dev/", 5) == 0 && bundle_nvidia_node(c->value + 5) >= 0;
		return true;
	}
	return strcmp(key, "major") == 0 ? jsonread_number(r, &c->major) : jsonread_skip(r);
}

static bool device_element(struct jsonread *r, size_t i, void *ctx)
{
	struct scan *c = ctx;
	(void)i;
	c->nvidia_node = false;
	c->major = -1;
	if (!jsonread_object(r, device_member, c, false, NULL))
		return false;
	if (c->nvidia_node && c->major == NVIDIA_MAJOR && !c->s->gpu[0])
		snprintf(c->s->gpu, sizeof c->s->gpu, "linux.devices: a device of major %d", NVIDIA_MAJOR);
	return true;
}

static bool linux_member(struct jsonread *r, const char *key, void *ctx)
{
	return strcmp(key, "devices") == 0 ? jsonread_array(r, device_element, ctx) : jsonread_skip(r);
}

/* ---- hooks ---- */

/* NVIDIA's container toolkit's hooks: the legacy prestart hook, and the
 * CDI hooks' binaries (docs/containers.md). */
static bool nvidia_hook(const char *name)
{
	static const char names[] =
		"nvidia-container-runtime-hook\0nvidia-container-toolkit\0nvidia-cdi-hook\0nvidia-ctk\0";
	for (const char *n = names; *n; n += strlen(n) + 1)
		if (strcmp(name, n) == 0)
			return true;
	return false;
}

static bool arg_element(struct jsonread *r, size_t i, void *ctx)
{
	struct scan *c = ctx;
	(void)i;
	if (!read_value(r, c))
		return false;
	c->args_oci_hook |= strcmp(c->value, "--oci-hook") == 0;
	return true;
}

static bool hook_member(struct jsonread *r, const char *key, void *ctx)
{
	struct scan *c = ctx;
	if (strcmp(key, "args") == 0)
		return jsonread_array(r, arg_element, ctx);
	if (strcmp(key, "path") != 0)
		return jsonread_skip(r);
	if (!read_value(r, c))
		return false;
	const char *name = base_name(c->value);
	c->hook_is_cudaload = strcmp(name, "cudaload") == 0;
	if (nvidia_hook(name) && !c->s->gpu[0])
		snprintf(c->s->gpu, sizeof c->s->gpu, "hooks.%s: %.64s", c->stage, name);
	return true;
}

static bool hook_element(struct jsonread *r, size_t i, void *ctx)
{
	struct scan *c = ctx;
	(void)i;
	c->hook_is_cudaload = c->args_oci_hook = false;
	if (!jsonread_object(r, hook_member, c, false, NULL))
		return false;
	c->s->hooked |= strcmp(c->stage, "createContainer") == 0 && c->hook_is_cudaload && c->args_oci_hook;
	return true;
}

static bool hooks_member(struct jsonread *r, const char *key, void *ctx)
{
	struct scan *c = ctx;
	bool create = strcmp(key, "createContainer") == 0;
	/* the stage names the runtime spec knows, for what is said */
	static const char stages[] = "prestart\0createRuntime\0createContainer\0startContainer\0poststart\0poststop\0";
	c->stage = "?";
	for (const char *n = stages; *n; n += strlen(n) + 1)
		if (strcmp(key, n) == 0)
			c->stage = n;
	c->hooks_nonempty = true;
	if (create && c->seen_create)
		return jsonread_fail(r, "hooks.createContainer named twice");
	if (!jsonread_peek(r, '['))
		return create ? jsonread_fail(r, "hooks.createContainer is not an array") : jsonread_skip(r);
	size_t before = (size_t)(r->p - c->text);
	if (!jsonread_array(r, hook_element, c))
		return false;
	if (create) {
		c->seen_create = true;
		c->create_close = closed_at(c, r);
		/* "[ ]": nothing but white space between the brackets */
		for (size_t k = before + 1; k < c->create_close; k++)
			c->create_nonempty |= c->text[k] != ' ' && c->text[k] != '\t' && c->text[k] != '\n' &&
					      c->text[k] != '\r';
	}
	return true;
}

/* ---- the whole ---- */

static bool annotation_member(struct jsonread *r, const char *key, void *ctx)
{
	struct scan *c = ctx;
	if (strcmp(key, "cudaload.dev/compat") != 0)
		return jsonread_skip(r);
	if (!read_value(r, c))
		return false;
	if (is_false_word(c->value))
		snprintf(c->s->opted_out, sizeof c->s->opted_out, "the annotation cudaload.dev/compat=%.16s",
			 c->value);
	return true;
}

static bool top_member(struct jsonread *r, const char *key, void *ctx)
{
	struct scan *c = ctx;
	if (strcmp(key, "process") == 0)
		return jsonread_object(r, process_member, c, false, NULL);
	if (strcmp(key, "linux") == 0)
		return jsonread_object(r, linux_member, c, false, NULL);
	if (strcmp(key, "annotations") == 0)
		return jsonread_object(r, annotation_member, c, false, NULL);
	if (strcmp(key, "hooks") != 0)
		return jsonread_skip(r);
	if (c->seen_hooks)
		return jsonread_fail(r, "hooks named twice");
	if (!jsonread_peek(r, '{'))
		return jsonread_fail(r, "hooks is not an object");
	c->seen_hooks = true;
	if (!jsonread_object(r, hooks_member, c, false, NULL))
		return false;
	c->hooks_close = closed_at(c, r);
	return true;
}

int spec_scan(const char *text, size_t len, struct spec_scan *s, char *why, size_t cap)
{
	struct scan *c = malloc(sizeof *c);
	if (!c)
		return why_fail(why, cap, "out of memory");
	memset(s, 0, sizeof *s);
	memset(c, 0, sizeof *c);
	c->s = s;
	c->text = text;
	c->stage = "?";
	struct jsonread r;
	jsonread_init(&r, text, len);
	r.any_number = true;	/* memory limits of 2^63-1 */
	int rc = 0;
	if (!jsonread_object(&r, top_member, c, true, NULL)) {
		rc = why_fail(why, cap, "%s at byte %ld", r.err, (long)(r.p - text));
	} else if (c->seen_create) {
		s->level = SPEC_IN_CREATE;
		s->close_at = c->create_close;
		s->nonempty = c->create_nonempty;
	} else if (c->seen_hooks) {
		s->level = SPEC_IN_HOOKS;
		s->close_at = c->hooks_close;
		s->nonempty = c->hooks_nonempty;
	} else {
		s->level = SPEC_IN_TOP;
		r.p = text + len;
		s->close_at = closed_at(c, &r);
		/* "{ }" aside, the whole has members */
		s->nonempty = false;
		for (const char *p = text; p < text + s->close_at; p++)
			s->nonempty |= *p == '"';
	}
	free(c);
	return rc;
}

char *spec_add_hook(const char *text, size_t len, const struct spec_scan *s, const char *entry, size_t *out_len)
{
	const char *comma = s->nonempty ? "," : "";
	char *insert = NULL;
	int n = s->level == SPEC_IN_CREATE ? asprintf(&insert, "%s%s", comma, entry)
		: s->level == SPEC_IN_HOOKS ? asprintf(&insert, "%s\"createContainer\":[%s]", comma, entry)
					    : asprintf(&insert, "%s\"hooks\":{\"createContainer\":[%s]}", comma, entry);
	if (n < 0)
		return NULL;
	char *out = splice(text, len, s->close_at, 0, insert, out_len);
	free(insert);
	return out;
}
