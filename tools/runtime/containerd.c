/* SPDX-License-Identifier: MIT */
#include "containerd.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/base/why.h"
#include "splice.h"

#define NAME "cudaload"
#define CRI_V2 "plugins.\"io.containerd.grpc.v1.cri\""
#define CRI_V3 "plugins.\"io.containerd.cri.v1.runtime\""

int containerd_version(const char *main, size_t len, long *version, char *why, size_t cap)
{
	struct toml_doc d;
	if (toml_parse(&d, main, len, why, cap) < 0)
		return -1;
	const struct toml_item *v = toml_find(&d, "version", TOML_ENTRY);
	bool known = v && toml_integer(&d, v, version) && (*version == 2 || *version == 3);
	toml_free(&d);
	if (!known)
		return why_fail(why, cap, "%s: only config versions 2 (containerd 1.x) and 3 (containerd 2.x) are "
				"supported (`containerd config migrate` converts an older one)",
				v ? "its version" : "no version line");
	return 0;
}

/* Does the doc have anything under prefix? */
static bool has_under(const struct toml_doc *d, const char *prefix)
{
	for (size_t i = 0; i < d->n; i++)
		if (d->items[i].path && toml_under(d->items[i].path, prefix))
			return true;
	return false;
}

/* The last segment of a path that is prefix "." segment, or NULL. */
static const char *child_of(const char *path, const char *prefix)
{
	size_t n = strlen(prefix);
	if (strncmp(path, prefix, n) != 0 || path[n] != '.')
		return NULL;
	const char *rest = path + n + 1;
	return strpbrk(rest, ".\"") ? NULL : rest;
}

/* The handler's own keys (prefix H) or its options (H.options), but for
 * skip, as "  key = value" lines. */
static void copy_keys(FILE *f, const struct toml_doc *d, const char *prefix, const char *skip, const char *skip2)
{
	for (size_t i = 0; i < d->n; i++) {
		const struct toml_item *it = &d->items[i];
		const char *key = it->kind == TOML_ENTRY ? child_of(it->path, prefix) : NULL;
		if (!key || strcmp(key, skip) == 0 || strcmp(key, skip2) == 0)
			continue;
		fprintf(f, "  %s = %.*s\n", key, (int)(it->value_end - it->value_start), d->text + it->value_start);
	}
}

/* The members of an inline table ({a = 1, "b" = "x"}) but skip, as
 * "  key = value" lines, their text as it is. */
static void copy_inline(FILE *f, const char *t, size_t start, size_t end, const char *skip)
{
	if (start >= end || t[start] != '{')
		return;
	size_t from = start + 1;
	int depth = 0;
	char quote = 0;
	for (size_t p = start + 1; p < end; p++) {
		char c = t[p];
		if (quote) {
			if (c == '\\' && quote == '"')
				p++;
			else if (c == quote)
				quote = 0;
			continue;
		}
		if (c == '"' || c == '\'') {
			quote = c;
		} else if (c == '[' || c == '{') {
			depth++;
		} else if ((c == ']' || c == '}') && depth > 0) {
			depth--;
		} else if ((c == ',' || c == '}') && depth == 0) {
			size_t a = from, b = p;
			while (a < b && strchr(" \t\r\n", t[a]))
				a++;
			while (b > a && strchr(" \t\r\n", t[b - 1]))
				b--;
			/* the key, its quotes aside */
			size_t k = a, kend;
			if (k < b && (t[k] == '"' || t[k] == '\'')) {
				kend = k + 1;
				while (kend < b && t[kend] != t[k])
					kend++;
				k++;
			} else {
				kend = k;
				while (kend < b && !strchr(" \t=", t[kend]))
					kend++;
			}
			bool skipped = kend - k == strlen(skip) && memcmp(t + k, skip, kend - k) == 0;
			if (b > a && !skipped)
				fprintf(f, "  %.*s\n", (int)(b - a), t + a);
			from = p + 1;
			if (c == '}')
				return;
		}
	}
}

/* The indentation of an item's first line plus two spaces. */
static int deeper(const struct toml_doc *d, const struct toml_item *it)
{
	size_t n = 0;
	while (it->start + n < it->end && (d->text[it->start + n] == ' ' || d->text[it->start + n] == '\t'))
		n++;
	return (int)n + 2;
}

/* The section of src under prefix, as it is, but for our own handler and
 * with default_runtime_name made ours where asked. */
static void copy_section(FILE *f, const struct toml_doc *d, const char *prefix, const char *ours,
			 const char *containerd, const char *default_key, bool set_default)
{
	bool copying = false, defaulted = !set_default;
	bool has_default = toml_find(d, default_key, TOML_ENTRY) != NULL;
	for (size_t i = 0; i < d->n; i++) {
		const struct toml_item *it = &d->items[i];
		const char *t = d->text + it->start;
		int n = (int)(it->end - it->start);
		if (it->kind == TOML_TABLE || it->kind == TOML_ARRAY_TABLE)
			copying = toml_under(it->path, prefix) && !toml_under(it->path, ours);
		if (!copying || (it->path && toml_under(it->path, ours)))
			continue;
		if (it->kind == TOML_ENTRY && set_default && strcmp(it->path, default_key) == 0) {
			fprintf(f, "%.*s\"" NAME "\"%.*s", (int)(it->value_start - it->start), t,
				(int)(it->end - it->value_end), d->text + it->value_end);
			defaulted = true;
			continue;
		}
		fprintf(f, "%.*s", n, t);
		if (n && t[n - 1] != '\n')
			fputc('\n', f);
		if (it->kind == TOML_TABLE && !has_default && !defaulted && strcmp(it->path, containerd) == 0) {
			fprintf(f, "%*sdefault_runtime_name = \"" NAME "\"\n", deeper(d, it), "");
			defaulted = true;
		}
	}
	if (!defaulted)
		fprintf(f, "\n[%s]\n  default_runtime_name = \"" NAME "\"\n", containerd);
}

int containerd_dropin(const struct containerd_source *src, size_t n, long version, const char *self,
		      bool set_default, char **out, size_t *out_len, struct containerd_note *note, char *why,
		      size_t cap)
{
	static char containerd[256], runtimes[256], ours[256], handler[512], options[600], default_key[300],
		inner[256], segment[300];
	static struct toml_doc docs[64];
	const char *prefix = version == 3 ? CRI_V3 : CRI_V2;
	long with_section = -1;
	int rc = -1;
	memset(note, 0, sizeof *note);
	snprintf(containerd, sizeof containerd, "%s.containerd", prefix);
	snprintf(runtimes, sizeof runtimes, "%s.runtimes", containerd);
	snprintf(ours, sizeof ours, "%s." NAME, runtimes);
	snprintf(default_key, sizeof default_key, "%s.default_runtime_name", containerd);
	if (n > sizeof docs / sizeof docs[0])
		return why_fail(why, cap, "more than %zu imported files", sizeof docs / sizeof docs[0]);
	size_t parsed = 0;
	for (; parsed < n; parsed++) {
		if (toml_parse(&docs[parsed], src[parsed].text, src[parsed].len, inner, sizeof inner) < 0) {
			why_fail(why, cap, "%s: %s", src[parsed].name, inner);
			goto out;
		}
		if (has_under(&docs[parsed], prefix))
			with_section = (long)parsed;
	}

	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (!f) {
		why_fail(why, cap, "out of memory");
		goto out;
	}
	fputs(CONTAINERD_HEADER "# `cudaload-runtime unconfigure --runtime=containerd` (cudaload-runtime(1)).\n", f);
	if (with_section >= 0)
		fprintf(f, "# containerd 1.x takes a plugin's settings whole from the last file that has\n"
			"# them: this repeats the CRI section of %s and adds the handler " NAME ".\n",
			src[with_section].name);
	fprintf(f, "version = %ld\n\n", version);

	const struct toml_doc *d = with_section >= 0 ? &docs[with_section] : NULL;
	const char *from = "runc";
	if (d) {
		const struct toml_item *dn = toml_find(d, default_key, TOML_ENTRY);
		snprintf(handler, sizeof handler, "%s.nvidia", runtimes);
		if (has_under(d, handler))
			from = "nvidia";
		else if (dn && toml_string(d, dn, inner, sizeof inner) && strcmp(inner, NAME) != 0 &&
			 toml_segment(inner, segment, sizeof segment))
			from = segment;
		snprintf(handler, sizeof handler, "%s.%s", runtimes, from);
		snprintf(options, sizeof options, "%s.options", handler);
		if (has_under(d, handler))
			snprintf(note->handler, sizeof note->handler, "%s", from);
		if (strcmp(from, "nvidia") == 0) {
			snprintf(inner, sizeof inner, "%s.BinaryName", options);
			const struct toml_item *bin = toml_find(d, inner, TOML_ENTRY);
			if (bin && !toml_string(d, bin, note->nvidia_binary, sizeof note->nvidia_binary))
				note->nvidia_binary[0] = '\0';
		}
		copy_section(f, d, prefix, ours, containerd, default_key, set_default);
		fputc('\n', f);
	} else if (set_default) {
		fprintf(f, "[%s]\n  default_runtime_name = \"" NAME "\"\n\n", containerd);
	}
	/* containerd's built-in runc handler is in the same map: naming one
	 * handler here would drop it, and with it the default */
	snprintf(inner, sizeof inner, "%s.runc", runtimes);
	if ((!d || !has_under(d, inner)) && strcmp(from, "runc") == 0)
		fprintf(f, "[%s]\n  runtime_type = \"io.containerd.runc.v2\"\n\n", inner);
	fprintf(f, "[%s]\n  runtime_type = \"io.containerd.runc.v2\"\n", ours);
	if (d)
		copy_keys(f, d, handler, "runtime_type", "options");
	fprintf(f, "\n[%s.options]\n  BinaryName = ", ours);
	toml_put_string(f, self);
	fputc('\n', f);
	if (d) {
		copy_keys(f, d, options, "BinaryName", "BinaryName");
		/* options = {SystemdCgroup = true} in the handler's table */
		const struct toml_item *inline_options = toml_find(d, options, TOML_ENTRY);
		if (inline_options)
			copy_inline(f, d->text, inline_options->value_start, inline_options->value_end, "BinaryName");
	}
	if (fclose(f) != 0) {
		free(text);
		why_fail(why, cap, "out of memory");
		goto out;
	}
	*out = text;
	*out_len = len;
	rc = 0;
out:
	for (size_t i = 0; i < parsed; i++)
		toml_free(&docs[i]);
	return rc;
}

bool containerd_clean(const char *path, char *out, size_t cap)
{
	bool rooted = path[0] == '/';
	size_t n = 0, dots = 0;	/* out's length; how much of it is leading ".." segments */
	if (cap < 2)
		return false;
	if (rooted)
		out[n++] = '/';
	dots = n;
	for (const char *p = path; *p;) {
		const char *end = strchr(p, '/');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		if (len == 0 || (len == 1 && p[0] == '.')) {
			/* an empty or "." segment: nothing */
		} else if (len == 2 && p[0] == '.' && p[1] == '.') {
			if (n > dots) {	/* back over the last segment */
				while (n > dots && out[n - 1] != '/')
					n--;
				if (n > dots)
					n--;	/* its separator */
				else if (rooted && n == 0)
					n = 1;
			} else if (!rooted) {
				if (n + 3 >= cap)
					return false;
				if (n)
					out[n++] = '/';
				out[n++] = '.';
				out[n++] = '.';
				dots = n;
			}
		} else {
			if (n + len + 2 >= cap)
				return false;
			if (n > 0 && out[n - 1] != '/')
				out[n++] = '/';
			memcpy(out + n, p, len);
			n += len;
		}
		p += len;
		while (*p == '/')
			p++;
	}
	if (n == 0)
		out[n++] = '.';
	out[n] = '\0';
	return true;
}

bool containerd_resolve(const char *dir, const char *import, char *out, size_t cap)
{
	static char joined[8192];
	if (import[0] == '/')
		return containerd_clean(import, out, cap);
	if (snprintf(joined, sizeof joined, "%s/%s", dir, import) >= (int)sizeof joined)
		return false;
	return containerd_clean(joined, out, cap);
}

/* The top-level imports entry, or NULL. */
static const struct toml_item *imports_of(const struct toml_doc *d)
{
	const struct toml_item *it = toml_find(d, "imports", TOML_ENTRY);
	return it && strcmp(it->key, "imports") == 0 ? it : NULL;
}

struct each_import {
	toml_string_fn *fn;
	void *ctx;
};

int containerd_imports(const char *main, size_t len, toml_string_fn *fn, void *ctx, char *why, size_t cap)
{
	struct toml_doc d;
	if (toml_parse(&d, main, len, why, cap) < 0)
		return -1;
	const struct toml_item *it = imports_of(&d);
	bool good = !it || toml_each_string(&d, it, fn, ctx);
	toml_free(&d);
	return good ? 0 : why_fail(why, cap, "imports is not an array of strings");
}

/* Where each element is, and whether one is (or matches) ours. */
struct elements {
	const char *dir, *dropin;
	size_t n, start[256], end[256];
	long ours;		/* the index of the element that is ours, or -1 */
	bool covered;		/* an element is a pattern that matches ours */
	bool overflow;		/* more elements than there is room for */
};

static bool element(const char *s, size_t start, size_t end, void *ctx)
{
	static char full[8192];
	struct elements *e = ctx;
	if (e->n == sizeof e->start / sizeof e->start[0]) {
		e->overflow = true;
		return false;
	}
	/* as containerd resolves it: cleaned, a relative path against the main
	 * file's directory; a pattern (one with a '*') is globbed */
	bool resolved = containerd_resolve(e->dir, s, full, sizeof full);
	if (!strchr(s, '*')) {
		if (resolved && strcmp(full, e->dropin) == 0 && e->ours < 0)
			e->ours = (long)e->n;
	} else if (s[0] == '/' && resolved && fnmatch(full, e->dropin, FNM_PATHNAME) == 0) {
		/* only an absolute pattern: containerd 1.6 globs a relative
		 * one against its working directory, 1.7 and later against
		 * the main file's, so the drop-in is named as well */
		e->covered = true;
	}
	e->start[e->n] = start;
	e->end[e->n++] = end;
	return true;
}

/* dropin as a TOML string into out (static, for the splices below). */
static const char *quoted(const char *dropin, const char *before, const char *after)
{
	static char text[8192];
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);
	if (!f)
		return NULL;
	fputs(before, f);
	toml_put_string(f, dropin);
	fputs(after, f);
	if (fclose(f) != 0 || n >= sizeof text) {
		free(buf);
		return NULL;
	}
	memcpy(text, buf, n + 1);
	free(buf);
	return text;
}

static int scan_elements(struct toml_doc *d, const char *main, size_t len, const char *dir, const char *dropin,
			 struct elements *e, const struct toml_item **it, char *why, size_t cap)
{
	memset(e, 0, sizeof *e);
	e->dir = dir;
	e->dropin = dropin;
	e->ours = -1;
	if (toml_parse(d, main, len, why, cap) < 0)
		return -1;
	*it = imports_of(d);
	if (*it && !toml_each_string(d, *it, element, e)) {
		toml_free(d);
		if (e->overflow)
			return why_fail(why, cap, "imports has more than %zu entries",
					sizeof e->start / sizeof e->start[0]);
		return why_fail(why, cap, "imports is not an array of strings");
	}
	return 0;
}

int containerd_imports_add(const char *main, size_t len, const char *dir, const char *dropin, char **out,
			   size_t *out_len, char *why, size_t cap)
{
	static struct elements e;
	struct toml_doc d;
	const struct toml_item *it;
	const char *add;
	size_t at;
	*out = NULL;
	if (!main) {
		main = "version = 2\n";
		len = strlen(main);
	}
	if (scan_elements(&d, main, len, dir, dropin, &e, &it, why, cap) < 0)
		return -1;
	if (e.covered || e.ours >= 0) {
		add = "";
		at = 0;
	} else if (it && e.n == 0) {
		add = quoted(dropin, "", "");
		at = it->value_start + 1;
	} else if (it) {
		at = e.end[e.n - 1];
		size_t p = at;
		while (p < it->value_end && strchr(" \t\r\n", main[p]))
			p++;
		bool trailing_comma = main[p] == ',';
		add = trailing_comma ? quoted(dropin, " ", ",") : quoted(dropin, ", ", "");
		if (trailing_comma)
			at = p + 1;
	} else {
		/* a top-level key goes before the first table: after version's line */
		const struct toml_item *v = toml_find(&d, "version", TOML_ENTRY);
		at = v ? v->end : 0;
		bool newline = at > 0 && main[at - 1] != '\n';
		add = quoted(dropin, newline ? "\nimports = [" : "imports = [", newline ? "]" : "]\n");
	}
	toml_free(&d);
	if (!add)
		return why_fail(why, cap, "the drop-in's path is too long");
	*out = splice(main, len, at, 0, add, out_len);
	return *out ? 0 : why_fail(why, cap, "out of memory");
}

/* main with the first element that names dropin taken out, into *out; *none
 * where there is none. */
static int remove_one(const char *main, size_t len, const char *dir, const char *dropin, char **out,
		      size_t *out_len, bool *none, char *why, size_t cap)
{
	static struct elements e;
	struct toml_doc d;
	const struct toml_item *it;
	size_t at = 0, del = 0;
	if (scan_elements(&d, main, len, dir, dropin, &e, &it, why, cap) < 0)
		return -1;
	*none = e.ours < 0;
	if (e.ours < 0) {
		at = del = 0;
	} else if (e.n == 1) {
		at = it->start;
		del = it->end - it->start;
	} else if (e.ours > 0) {
		at = e.end[e.ours - 1];
		del = e.end[e.ours] - at;
	} else {
		at = e.start[0];
		del = e.start[1] - at;
	}
	toml_free(&d);
	*out = splice(main, len, at, del, "", out_len);
	return *out ? 0 : why_fail(why, cap, "out of memory");
}

int containerd_imports_remove(const char *main, size_t len, const char *dir, const char *dropin, char **out,
			      size_t *out_len, char *why, size_t cap)
{
	bool none = false;
	if (remove_one(main, len, dir, dropin, out, out_len, &none, why, cap) < 0)
		return -1;
	/* every element that names it: one left would name a file that is gone */
	while (!none) {
		char *next;
		size_t next_len;
		int rc = remove_one(*out, *out_len, dir, dropin, &next, &next_len, &none, why, cap);
		if (rc < 0) {
			free(*out);
			return -1;
		}
		free(*out);
		*out = next;
		*out_len = next_len;
	}
	return 0;
}
