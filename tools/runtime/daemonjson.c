/* SPDX-License-Identifier: MIT */
#include "daemonjson.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/base/json.h"
#include "../../common/base/jsonread.h"
#include "../../common/base/why.h"
#include "splice.h"

#define NAME "cudaload"
#define MEMBERS_MAX 4096

struct member {
	size_t key_start, value_start, value_end;
};

/* An object's extent and its members', in the text. */
struct object {
	size_t open, close, n;
	struct member m[MEMBERS_MAX];
};

struct shape {
	const char *text;
	struct object top, runtimes, cudaload;		/* cudaload: where runtimes.cudaload is an object */
	long at_runtimes, at_default, at_cudaload;	/* member indexes, or -1 */
	long at_path;					/* runtimes.cudaload.path's, or -1 */
	bool cudaload_object;
	bool default_is_ours;				/* default-runtime is "cudaload" */
	const char *twice;				/* a key named twice */
};

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* The member begun at r->p (its value) read or skipped, its extent noted. */
static bool note_member(struct jsonread *r, struct shape *sh, struct object *o, bool (*read)(struct jsonread *,
										   struct shape *))
{
	if (o->n == MEMBERS_MAX)
		return jsonread_fail(r, "more members than its bound");
	struct member *m = &o->m[o->n++];
	m->value_start = (size_t)(r->p - sh->text);
	if (!read(r, sh))
		return false;
	size_t end = (size_t)(r->p - sh->text);
	while (end > m->value_start && is_space(sh->text[end - 1]))
		end--;
	m->value_end = end;
	return true;
}

static bool skip_value(struct jsonread *r, struct shape *sh)
{
	(void)sh;
	return jsonread_skip(r);
}

static bool read_default(struct jsonread *r, struct shape *sh)
{
	char value[64];
	bool cut = false;
	if (!jsonread_peek(r, '"'))
		return jsonread_skip(r);
	if (!jsonread_string(r, value, sizeof value, &cut))
		return false;
	sh->default_is_ours = !cut && strcmp(value, NAME) == 0;
	return true;
}

static bool cudaload_member(struct jsonread *r, const char *key, void *ctx)
{
	struct shape *sh = ctx;
	if (strcmp(key, "path") == 0) {
		if (sh->at_path >= 0)
			sh->twice = "runtimes.cudaload.path";
		sh->at_path = (long)sh->cudaload.n;
	}
	return note_member(r, sh, &sh->cudaload, skip_value);
}

/* An object's close: the last '}' before r->p. */
static size_t close_of(const struct jsonread *r, const struct shape *sh)
{
	size_t end = (size_t)(r->p - sh->text);
	while (end > 0 && sh->text[end - 1] != '}')
		end--;
	return end - 1;
}

/* runtimes.cudaload: its members noted where it is an object (the admin's
 * runtimeArgs kept beside our path). */
static bool read_cudaload(struct jsonread *r, struct shape *sh)
{
	if (!jsonread_peek(r, '{'))
		return jsonread_skip(r);
	sh->cudaload_object = true;
	sh->cudaload.open = (size_t)(r->p - sh->text);
	if (!jsonread_object(r, cudaload_member, sh, false, NULL))
		return false;
	sh->cudaload.close = close_of(r, sh);
	return true;
}

static bool runtime_member(struct jsonread *r, const char *key, void *ctx)
{
	struct shape *sh = ctx;
	if (strcmp(key, NAME) == 0) {
		if (sh->at_cudaload >= 0)
			sh->twice = "runtimes.cudaload";
		sh->at_cudaload = (long)sh->runtimes.n;
		return note_member(r, sh, &sh->runtimes, read_cudaload);
	}
	return note_member(r, sh, &sh->runtimes, skip_value);
}

static bool read_runtimes(struct jsonread *r, struct shape *sh)
{
	if (!jsonread_peek(r, '{'))
		return jsonread_fail(r, "\"runtimes\" is not an object");
	sh->runtimes.open = (size_t)(r->p - sh->text);
	if (!jsonread_object(r, runtime_member, sh, false, NULL))
		return false;
	size_t end = (size_t)(r->p - sh->text);
	while (end > 0 && sh->text[end - 1] != '}')
		end--;
	sh->runtimes.close = end - 1;
	return true;
}

static bool top_member(struct jsonread *r, const char *key, void *ctx)
{
	struct shape *sh = ctx;
	if (strcmp(key, "runtimes") == 0) {
		if (sh->at_runtimes >= 0)
			sh->twice = "runtimes";
		sh->at_runtimes = (long)sh->top.n;
		return note_member(r, sh, &sh->top, read_runtimes);
	}
	if (strcmp(key, "default-runtime") == 0) {
		if (sh->at_default >= 0)
			sh->twice = "default-runtime";
		sh->at_default = (long)sh->top.n;
		return note_member(r, sh, &sh->top, read_default);
	}
	return note_member(r, sh, &sh->top, skip_value);
}

/* Each member's key start: the first character after the object's '{' or
 * the comma that follows the previous value. */
static void key_starts(const char *t, struct object *o)
{
	for (size_t i = 0; i < o->n; i++) {
		size_t p = i ? o->m[i - 1].value_end : o->open + 1;
		while (is_space(t[p]) || t[p] == ',')
			p++;
		o->m[i].key_start = p;
	}
}

static int scan(struct shape *sh, const char *text, size_t len, char *why, size_t cap)
{
	struct jsonread r;
	memset(sh, 0, sizeof *sh);
	sh->text = text;
	sh->at_runtimes = sh->at_default = sh->at_cudaload = sh->at_path = -1;
	if (len > DAEMONJSON_MAX)
		return why_fail(why, cap, "larger than %d KiB", DAEMONJSON_MAX >> 10);
	jsonread_init(&r, text, len);
	r.any_number = true;
	jsonread_ws(&r);
	sh->top.open = (size_t)(r.p - text);
	if (!jsonread_object(&r, top_member, sh, true, NULL))
		return why_fail(why, cap, "not valid JSON: %s at byte %zu", r.err ? r.err : "malformed",
				(size_t)(r.p - text));
	if (sh->twice)
		return why_fail(why, cap, "names \"%s\" twice", sh->twice);
	size_t end = len;
	while (end > 0 && text[end - 1] != '}')
		end--;
	sh->top.close = end - 1;
	key_starts(text, &sh->top);
	key_starts(text, &sh->runtimes);
	key_starts(text, &sh->cudaload);
	return 0;
}

/* The indentation of the line pos is on, into out (cap bytes). */
static void indent_of(const char *t, size_t pos, char *out, size_t cap)
{
	size_t line = pos, n = 0;
	while (line > 0 && t[line - 1] != '\n')
		line--;
	while (line + n < pos && (t[line + n] == ' ' || t[line + n] == '\t') && n + 1 < cap)
		n++;
	memcpy(out, t + line, n);
	out[n] = '\0';
}

/* Are an object's members each on a line of their own? */
static bool pretty(const char *t, const struct object *o)
{
	if (o->n == 0)
		return true;
	for (size_t p = o->open + 1; p < o->m[0].key_start; p++)
		if (t[p] == '\n')
			return true;
	return false;
}

/* The text to put "key": value into object o: its place, what it replaces. */
static char *add_member(const char *t, size_t len, const struct object *o, const char *outer, const char *unit,
			const char *member, size_t *out_len)
{
	static char text[8192];
	char ind[256];
	bool lines = pretty(t, o);
	if (o->n)
		indent_of(t, o->m[0].key_start, ind, sizeof ind);
	else
		snprintf(ind, sizeof ind, "%s%s", outer, unit);
	if (o->n == 0) {
		snprintf(text, sizeof text, "\n%s%s\n%s", ind, member, outer);
		return splice(t, len, o->open + 1, o->close - o->open - 1, text, out_len);
	}
	if (lines)
		snprintf(text, sizeof text, ",\n%s%s", ind, member);
	else
		snprintf(text, sizeof text, ", %s", member);
	return splice(t, len, o->m[o->n - 1].value_end, 0, text, out_len);
}

/* Member i removed with its comma. */
static char *remove_member(const char *t, size_t len, const struct object *o, size_t i, size_t *out_len)
{
	if (o->n == 1)
		return splice(t, len, o->open + 1, o->close - o->open - 1, "", out_len);
	if (i > 0)
		return splice(t, len, o->m[i - 1].value_end, o->m[i].value_end - o->m[i - 1].value_end, "", out_len);
	return splice(t, len, o->m[0].key_start, o->m[1].key_start - o->m[0].key_start, "", out_len);
}

/* s as a JSON string, byte for byte, into out: false where it does not
 * fit (or out of memory). */
static bool quote(const char *s, char *out, size_t cap)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (!f)
		return false;
	json_str_as_is(f, s);
	bool fits = fclose(f) == 0 && len < cap;
	if (fits)
		memcpy(out, text, len + 1);
	free(text);
	return fits;
}

/* The default-runtime of the file before configure, as its JSON text, into
 * out: "" where it has none, or names cudaload (or cannot be read). */
static void backup_default(const char *backup, size_t len, char *out, size_t cap)
{
	static struct shape sh;
	static char why[64];
	out[0] = '\0';
	if (!backup || scan(&sh, backup, len, why, sizeof why) < 0 || sh.at_default < 0 || sh.default_is_ours)
		return;
	const struct member *m = &sh.top.m[sh.at_default];
	snprintf(out, cap, "%.*s", (int)(m->value_end - m->value_start), backup + m->value_start);
}

/* default-runtime "cudaload" put back to the backup's value, or taken out
 * where the backup had none. */
static char *default_back(const char *t, size_t len, const struct shape *sh, const char *backup, size_t backup_len,
			  size_t *out_len)
{
	static char value[1024];
	backup_default(backup, backup_len, value, sizeof value);
	const struct member *m = &sh->top.m[sh->at_default];
	if (value[0])
		return splice(t, len, m->value_start, m->value_end - m->value_start, value, out_len);
	return remove_member(t, len, &sh->top, (size_t)sh->at_default, out_len);
}

/* One step toward the configured text: the next change made (*out set), or
 * none left (*out NULL).  -1 with why. */
static int configure_step(const char *t, size_t len, const char *backup, size_t backup_len, const char *self,
			  bool set_default, char **out, size_t *out_len, char *why, size_t cap)
{
	static struct shape sh;
	static char value[6144], member[6400], path[4200];
	char unit[64], ind[256];
	*out = NULL;
	if (scan(&sh, t, len, why, cap) < 0)
		return -1;
	if (sh.top.n && pretty(t, &sh.top))
		indent_of(t, sh.top.m[0].key_start, unit, sizeof unit);
	else
		snprintf(unit, sizeof unit, "    ");
	if (!unit[0])
		snprintf(unit, sizeof unit, "    ");
	if (!quote(self, path, sizeof path))
		return why_fail(why, cap, "the path of cudaload-runtime is too long");

	if (sh.at_runtimes < 0) {
		snprintf(member, sizeof member, "\"runtimes\": {\n%s%s\"" NAME "\": {\n%s%s%s\"path\": %s\n%s%s}\n%s}",
			 unit, unit, unit, unit, unit, path, unit, unit, unit);
		if (!pretty(t, &sh.top))
			snprintf(member, sizeof member, "\"runtimes\": {\"" NAME "\": {\"path\": %s}}", path);
		*out = add_member(t, len, &sh.top, "", unit, member, out_len);
		goto done;
	}
	/* the value in the runtimes object's own layout */
	char outer[256];
	bool lines = pretty(t, &sh.runtimes);
	indent_of(t, sh.top.m[sh.at_runtimes].key_start, outer, sizeof outer);
	if (sh.runtimes.n)
		indent_of(t, sh.runtimes.m[0].key_start, ind, sizeof ind);
	else
		snprintf(ind, sizeof ind, "%s%s", outer, unit);
	if (lines)
		snprintf(value, sizeof value, "{\n%s%s\"path\": %s\n%s}", ind, unit, path, ind);
	else
		snprintf(value, sizeof value, "{\"path\": %s}", path);
	if (sh.at_cudaload < 0) {
		snprintf(member, sizeof member, "\"" NAME "\": %s", value);
		*out = add_member(t, len, &sh.runtimes, outer, unit, member, out_len);
		goto done;
	}
	const struct member *m = &sh.runtimes.m[sh.at_cudaload];
	if (sh.cudaload_object && sh.at_path >= 0) {
		/* only the path is ours: runtimeArgs and the rest stay */
		const struct member *p = &sh.cudaload.m[sh.at_path];
		if (p->value_end - p->value_start != strlen(path) || memcmp(t + p->value_start, path, strlen(path)) != 0) {
			*out = splice(t, len, p->value_start, p->value_end - p->value_start, path, out_len);
			goto done;
		}
	} else if (sh.cudaload_object && sh.cudaload.n > 0) {
		char inner[256];
		indent_of(t, sh.runtimes.m[sh.at_cudaload].key_start, inner, sizeof inner);
		snprintf(member, sizeof member, "\"path\": %s", path);
		*out = add_member(t, len, &sh.cudaload, inner, unit, member, out_len);
		goto done;
	} else if (m->value_end - m->value_start != strlen(value) ||
		   memcmp(t + m->value_start, value, strlen(value)) != 0) {
		*out = splice(t, len, m->value_start, m->value_end - m->value_start, value, out_len);
		goto done;
	}
	if (set_default && !sh.default_is_ours) {
		if (sh.at_default >= 0) {
			m = &sh.top.m[sh.at_default];
			*out = splice(t, len, m->value_start, m->value_end - m->value_start, "\"" NAME "\"", out_len);
		} else {
			*out = add_member(t, len, &sh.top, "", unit, "\"default-runtime\": \"" NAME "\"", out_len);
		}
		goto done;
	}
	if (!set_default && sh.default_is_ours) {
		*out = default_back(t, len, &sh, backup, backup_len, out_len);
		goto done;
	}
	return 0;
done:
	return *out ? 0 : why_fail(why, cap, "out of memory");
}

static int unconfigure_step(const char *t, size_t len, const char *backup, size_t backup_len, char **out,
			    size_t *out_len, char *why, size_t cap)
{
	static struct shape sh;
	*out = NULL;
	if (scan(&sh, t, len, why, cap) < 0)
		return -1;
	if (sh.at_default >= 0 && sh.default_is_ours)
		*out = default_back(t, len, &sh, backup, backup_len, out_len);
	else if (sh.at_cudaload >= 0 && sh.runtimes.n == 1)
		*out = remove_member(t, len, &sh.top, (size_t)sh.at_runtimes, out_len);
	else if (sh.at_cudaload >= 0)
		*out = remove_member(t, len, &sh.runtimes, (size_t)sh.at_cudaload, out_len);
	else
		return 0;
	return *out ? 0 : why_fail(why, cap, "out of memory");
}

/* step applied until it changes nothing (a handful of times at most). */
static int repeat(const char *text, size_t len, const char *backup, size_t backup_len, const char *self,
		  bool set_default, bool configure, char **out, size_t *out_len, char *why, size_t cap)
{
	char *cur = malloc(len + 1);
	size_t cur_len = len;
	if (!cur)
		return why_fail(why, cap, "out of memory");
	memcpy(cur, text, len);
	cur[len] = '\0';
	for (int step = 0; step < 8; step++) {
		char *next = NULL;
		size_t next_len = 0;
		int rc = configure ? configure_step(cur, cur_len, backup, backup_len, self, set_default, &next,
						    &next_len, why, cap)
				   : unconfigure_step(cur, cur_len, backup, backup_len, &next, &next_len, why, cap);
		if (rc < 0) {
			free(cur);
			return -1;
		}
		if (!next) {
			*out = cur;
			*out_len = cur_len;
			return 0;
		}
		free(cur);
		cur = next;
		cur_len = next_len;
	}
	free(cur);
	return why_fail(why, cap, "the edit does not settle (a bug)");
}

int daemonjson_configure(const char *text, size_t len, const char *backup, size_t backup_len, const char *self,
			 bool set_default, char **out, size_t *out_len, char *why, size_t cap)
{
	if (!text) {
		text = "{}\n";
		len = 3;
	}
	return repeat(text, len, backup, backup_len, self, set_default, true, out, out_len, why, cap);
}

int daemonjson_unconfigure(const char *text, size_t len, const char *backup, size_t backup_len, char **out,
			   size_t *out_len, char *why, size_t cap)
{
	return repeat(text, len, backup, backup_len, NULL, false, false, out, out_len, why, cap);
}
