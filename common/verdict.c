/* SPDX-License-Identifier: MIT */
#include "verdict.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compat.h"
#include "diag.h"
#include "probe.h"
#include "secure.h"

/* ---- the text format ---------------------------------------------------- */

/* Decimal digits at p (at least one, at most max); the end, or NULL. */
static const char *num(const char *p, const char *end, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;
	const char *start = p;
	for (; p < end && *p >= '0' && *p <= '9'; p++) {
		unsigned d = (unsigned)(*p - '0');
		if (d > max || v > (max - d) / 10)
			return NULL;
		v = v * 10 + d;
	}
	if (p == start || p - start > 20)
		return NULL;
	*out = v;
	return p;
}

/* "word" at p followed by a separator; after it, or NULL. */
static const char *word(const char *p, const char *end, const char *w)
{
	size_t n = strlen(w);
	return (size_t)(end - p) >= n && memcmp(p, w, n) == 0 ? p + n : NULL;
}

static const char *sep(const char *p, const char *end)
{
	return p && p < end && *p == ' ' ? p + 1 : NULL;
}

#define TIME_MAX ((uint64_t)1 << 62)

/* <result> <time> */
static const char *result_time(const char *p, const char *end, struct verdict *v)
{
	static const struct {
		const char *prefix;
		unsigned char kind;
		uint64_t max;
	} kinds[] = {
		{ "cu=", VERDICT_CU, 0x7fffffff },
		{ "signal=", VERDICT_SIGNAL, 127 },
		{ "hang=", VERDICT_HANG, 1000000 },
		{ "load=", VERDICT_LOAD, 0 },
	};
	uint64_t code, when;
	for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
		const char *q = word(p, end, kinds[i].prefix);
		if (!q)
			continue;
		q = sep(num(q, end, kinds[i].max, &code), end);
		q = q ? num(q, end, TIME_MAX, &when) : NULL;
		if (!q)
			return NULL;
		memset(v, 0, sizeof *v);
		v->kind = kinds[i].kind;
		v->code = (int)code;
		v->when = (long long)when;
		return q;
	}
	return NULL;
}

/* One compat line at p (without "compat "), up to its '\n' at nl. */
static int parse_compat(const char *p, const char *nl, struct verdict_entry *e)
{
	uint64_t s, ns;
	memset(e, 0, sizeof *e);
	p = sep(result_time(p, nl, &e->v), nl);
	p = p ? sep(num(p, nl, UINT64_MAX, &e->file.dev), nl) : NULL;
	p = p ? sep(num(p, nl, UINT64_MAX, &e->file.ino), nl) : NULL;
	p = p ? sep(num(p, nl, INT64_MAX, &e->file.size), nl) : NULL;
	p = p ? num(p, nl, INT64_MAX, &s) : NULL;
	if (!p || p >= nl || *p != '.')
		return -1;
	const char *frac = p + 1;
	p = num(frac, nl, 999999999, &ns);
	if (!p || p - frac != 9 || !(p = sep(p, nl)) || *p != '/' || nl - p >= CL_PATH_MAX)
		return -1;
	e->file.mtime_s = (int64_t)s;
	e->file.mtime_ns = (uint32_t)ns;
	e->dir = p;
	e->dir_len = (size_t)(nl - p);
	return 0;
}

static int fail(char *why, size_t cap, const char *msg, int line)
{
	if (line > 0)
		snprintf(why, cap, "line %d: %s", line, msg);
	else
		snprintf(why, cap, "%s", msg);
	return -1;
}

int verdict_parse(const char *text, size_t len, struct verdict_store *out,
		  char *why, size_t cap)
{
	const char *end = text + len, *p = text;
	memset(out, 0, sizeof *out);
	if (len >= VERDICT_STORE_MAX)
		return fail(why, cap, "larger than the format allows", 0);
	if (memchr(text, '\0', len))
		return fail(why, cap, "contains a NUL byte", 0);
	if (len == 0 || end[-1] != '\n')
		return fail(why, cap, "does not end with a newline (truncated?)", 0);
	const char *nl = memchr(p, '\n', len);
	if ((size_t)(nl - p) != strlen(VERDICT_MAGIC) || memcmp(p, VERDICT_MAGIC, (size_t)(nl - p)) != 0)
		return fail(why, cap, "not a cudaload verdict store of format 1", 0);

	/* host <16 hex> [text] */
	p = nl + 1;
	nl = p < end ? memchr(p, '\n', (size_t)(end - p)) : NULL;
	const char *q = nl ? word(p, nl, "host ") : NULL;
	if (!q || nl - q < 16)
		return fail(why, cap, "expected 'host <key>'", 2);
	for (int i = 0; i < 16; i++, q++) {
		unsigned d = *q >= '0' && *q <= '9' ? (unsigned)(*q - '0')
			   : *q >= 'a' && *q <= 'f' ? (unsigned)(*q - 'a' + 10) : 16;
		if (d > 15)
			return fail(why, cap, "host key is not 16 hex digits", 2);
		out->host_key = out->host_key << 4 | d;
	}
	if (q != nl && *q != ' ')
		return fail(why, cap, "host key is not 16 hex digits", 2);

	/* system <result> <time> */
	p = nl + 1;
	nl = p < end ? memchr(p, '\n', (size_t)(end - p)) : NULL;
	q = nl ? word(p, nl, "system ") : NULL;
	if (!q || result_time(q, nl, &out->system) != nl)
		return fail(why, cap, "expected 'system <result> <time>'", 3);

	out->text = text;
	out->len = len;
	out->entries = (size_t)(nl + 1 - text);
	int line = 4;
	for (p = nl + 1; p < end; p = nl + 1, line++) {
		struct verdict_entry e;
		nl = memchr(p, '\n', (size_t)(end - p));
		q = word(p, nl, "compat ");
		if (!q || parse_compat(q, nl, &e) < 0)
			return fail(why, cap, "expected 'compat <result> <time> <dev> <ino> <size> <mtime> <dir>'", line);
	}
	return 0;
}

int verdict_next(const struct verdict_store *s, size_t *pos, struct verdict_entry *e)
{
	size_t at = *pos ? *pos : s->entries;
	if (!s->text || at >= s->len)
		return 0;
	const char *p = s->text + at;
	const char *nl = memchr(p, '\n', s->len - at);
	if (!nl || parse_compat(p + strlen("compat "), nl, e) < 0)
		return 0;	/* cannot happen after verdict_parse */
	*pos = (size_t)(nl + 1 - s->text);
	return 1;
}

/* ---- for people ----------------------------------------------------------- */

/* Arrays, not pointers: a table of pointers is relocated at start-up, so it
 * would sit in the loader's writable segment, which then outgrows its page
 * (a fault more on every start, a page more left mapped in chain mode). */
static const struct {
	int code;
	char name[48], meaning[64];
} cu_results[] = {
	{ 0, "CUDA_SUCCESS", "works" },
	{ 1, "CUDA_ERROR_INVALID_VALUE", "invalid value" },
	{ 2, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory" },
	{ 3, "CUDA_ERROR_NOT_INITIALIZED", "not initialized" },
	{ 4, "CUDA_ERROR_DEINITIALIZED", "deinitialized" },
	{ 34, "CUDA_ERROR_STUB_LIBRARY", "a stub libcuda, not a driver" },
	{ 46, "CUDA_ERROR_DEVICE_UNAVAILABLE", "the GPU is busy or unavailable" },
	{ 100, "CUDA_ERROR_NO_DEVICE", "no CUDA device" },
	{ 101, "CUDA_ERROR_INVALID_DEVICE", "invalid device" },
	{ 102, "CUDA_ERROR_DEVICE_NOT_LICENSED", "device not licensed" },
	{ 304, "CUDA_ERROR_OPERATING_SYSTEM", "a system call failed" },
	{ 800, "CUDA_ERROR_NOT_PERMITTED", "not permitted" },
	{ 801, "CUDA_ERROR_NOT_SUPPORTED", "not supported" },
	{ 802, "CUDA_ERROR_SYSTEM_NOT_READY", "the system is not ready (fabric manager?)" },
	{ 803, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH", "this compat driver does not fit the kernel driver" },
	{ 804, "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE", "a GPU here does not support forward compatibility" },
	{ 999, "CUDA_ERROR_UNKNOWN", "unknown error" },
};

const char *verdict_cu_name(int code)
{
	for (size_t i = 0; i < sizeof cu_results / sizeof cu_results[0]; i++)
		if (cu_results[i].code == code)
			return cu_results[i].name;
	return NULL;
}

const char *verdict_token(const struct verdict *v, char *buf, size_t cap)
{
	static const char *const prefix[] = { "none=", "cu=", "signal=", "hang=", "load=" };
	snprintf(buf, cap, "%s%d", prefix[v->kind <= VERDICT_LOAD ? v->kind : 0], v->code);
	return buf;
}

const char *verdict_describe(const struct verdict *v, char *buf, size_t cap)
{
	switch (v->kind) {
	case VERDICT_CU:
		for (size_t i = 0; i < sizeof cu_results / sizeof cu_results[0]; i++)
			if (cu_results[i].code == v->code) {
				snprintf(buf, cap, "cuInit returned %d (%s: %s)", v->code,
					 cu_results[i].name, cu_results[i].meaning);
				return buf;
			}
		snprintf(buf, cap, "cuInit returned %d", v->code);
		break;
	case VERDICT_SIGNAL:
		snprintf(buf, cap, "crashed in cuInit (signal %d)", v->code);
		break;
	case VERDICT_HANG:
		snprintf(buf, cap, "hung in cuInit, killed after %d s", v->code);
		break;
	case VERDICT_LOAD:
		snprintf(buf, cap, "libcuda.so.1 could not be loaded");
		break;
	default:
		snprintf(buf, cap, "not verified");
	}
	return buf;
}

const char *verdict_age(long long when, long long now, char *buf, size_t cap)
{
	long long d = now - when;
	if (d < 0)
		snprintf(buf, cap, "in the future (clock changed?)");
	else if (d < 120)
		snprintf(buf, cap, "%lld s", d);
	else if (d < 2 * 3600)
		snprintf(buf, cap, "%lld min", d / 60);
	else if (d < 2 * 86400)
		snprintf(buf, cap, "%lld h", d / 3600);
	else
		snprintf(buf, cap, "%lld d", d / 86400);
	return buf;
}

/* ---- matching the store to this host and its candidates ------------------- */

static uint64_t fnv(uint64_t h, const char *s)
{
	/* FNV-1a; the terminating NUL too, so that fields cannot run together */
	do {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ull;
	} while (*s++);
	return h;
}

uint64_t verdict_host_key(const struct host *h)
{
	char gpu[48];
	uint64_t k = 0xcbf29ce484222325ull;
	k = fnv(k, platform_name(h->platform));
	k = fnv(k, h->soc);
	k = fnv(k, h->l4t_str);
	snprintf(gpu, sizeof gpu, "%d %x %x %x", h->have_gpu, (unsigned)h->gpu.arch,
		 (unsigned)h->gpu.impl, (unsigned)h->gpu.rev);
	k = fnv(k, gpu);
	k = fnv(k, h->driver_str);
	/* the host's own, not those a program reached: the same driver (its
	 * libcuda.so.<module version>) found elsewhere, which a verifier that
	 * runs no such program would not see */
	for (int i = 0; i < h->n_driver_dirs - h->n_reached_dirs; i++)
		k = fnv(k, h->driver_dirs[i]);
	/* the GPUs seen: 804 comes from any one board, so another set of
	 * boards (one added, swapped or gone) needs its own verdict */
	snprintf(gpu, sizeof gpu, "%d", h->n_gpus);
	k = fnv(k, gpu);
	for (int i = 0; i < h->n_gpus && i < MAX_GPUS; i++) {
		k = fnv(k, h->gpus[i].bus);
		k = fnv(k, h->gpus[i].model);
	}
	return k;
}

static bool same_file(const char *root, const char *dir, const struct verdict_file *f)
{
	struct stat st;
	static const char lib[] = "/libcuda.so.1";
	size_t rl = root ? strlen(root) : 0, dl = strlen(dir);
	if (rl + dl + sizeof lib > CL_PATH_MAX)
		return false;
	/* on the heap: no CL_PATH_MAX buffer for a path of a hundred bytes */
	char *path = malloc(rl + dl + sizeof lib);
	if (!path)
		return false;
	if (rl)
		memcpy(path, root, rl);
	memcpy(path + rl, dir, dl);
	memcpy(path + rl + dl, lib, sizeof lib);
	bool same = stat(path, &st) == 0 && (uint64_t)st.st_dev == f->dev &&
		    (uint64_t)st.st_ino == f->ino && (uint64_t)st.st_size == f->size &&
		    (int64_t)st.st_mtim.tv_sec == f->mtime_s &&
		    (uint32_t)st.st_mtim.tv_nsec == f->mtime_ns;
	free(path);
	return same;
}

/* Each entry of a parsed store onto the candidate of its directory; a
 * store of another host marks its verdicts as such, never as applying. */
static void match_entries(const struct verdict_store *s, const char *root, bool other_host,
			  struct candidates *c)
{
	struct verdict_entry e;
	for (size_t pos = 0; verdict_next(s, &pos, &e);) {
		for (size_t i = 0; i < c->n; i++) {
			struct candidate *cand = &c->v[i];
			if (strlen(cand->dir) != e.dir_len || memcmp(cand->dir, e.dir, e.dir_len) != 0)
				continue;
			cand->verdict = e.v;
			if (other_host)
				cand->verdict.state = VSTATE_OTHER_HOST;
			else if (!same_file(root, cand->dir, &e.file))
				cand->verdict.state = VSTATE_CHANGED;
			else if (!verdict_ok(&e.v) && !verdict_ok(&s->system))
				cand->verdict.state = VSTATE_INCONCLUSIVE;
			else
				cand->verdict.state = VSTATE_APPLIES;
		}
	}
}

int verdict_apply(const char *text, size_t len, const char *root, const struct host *h,
		  struct candidates *c, struct verdict *system)
{
	struct verdict_store s;
	char why[160];

	if (verdict_parse(text, len, &s, why, sizeof why) < 0) {
		diag("verdicts: %s; ignored", why);
		return -1;
	}
	if (s.host_key != verdict_host_key(h)) {
		diag("verdicts: made for another driver, GPU or search list; ignored (run cudaload --verify)");
		return -1;
	}
	*system = s.system;
	match_entries(&s, root, false, c);
	return 1;
}

/* Is the store, open as fd, root's file in root's directories (those of
 * path, as opened)? */
static bool store_trusted(int fd, const char *path)
{
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != 0 ||
	    (st.st_mode & (S_IWGRP | S_IWOTH)))
		return false;
	char *dir = strdup(path);
	if (!dir)
		return false;
	*strrchr(dir, '/') = '\0';
	bool trusted = secure_path_trusted(dir);
	free(dir);
	return trusted;
}

/* The store under root into a malloc'd buffer (*text, *len): 1; 0 when
 * there is none; -1 when it cannot be used, the reason in why. */
static int read_store(const char *root, bool secure, char **text, size_t *len,
		      char *why, size_t cap)
{
	*text = NULL;
	if ((root ? strlen(root) : 0) + sizeof VERDICT_STORE_PATH > CL_PATH_MAX)
		return 0;
	char *path = rooted_path(root, VERDICT_STORE_PATH);
	if (!path)
		return 0;
	int r = -1;
	int fd = open_ro(path, O_NONBLOCK);
	if (fd < 0) {
		if (fd == -ENOENT || fd == -ENOTDIR)
			r = 0;
		else
			snprintf(why, cap, "%s: %s", path, strerror(-fd));
		goto out;
	}
	/* like the config: root's file in root's directories, or nothing */
	if (secure && !store_trusted(fd, path)) {
		close(fd);
		snprintf(why, cap, "%s: not root-owned or writable by others; ignored for a set-id program",
			 path);
		goto out;
	}
	/* On the heap, not on the stack nor in the bss: only a store costs it. */
	char *buf = malloc(VERDICT_STORE_MAX);
	ssize_t n = -1;
	do
		n = buf ? read(fd, buf, VERDICT_STORE_MAX) : -1;
	while (n < 0 && buf && errno == EINTR);
	close(fd);
	if (n < 0 || n >= VERDICT_STORE_MAX) {
		snprintf(why, cap, "%s: %s", path,
			 !buf ? "out of memory" : n < 0 ? strerror(errno) : "too large");
		free(buf);
	} else {
		diag("verdicts %s: %zd bytes", path, n);
		*text = buf;
		*len = (size_t)n;
		r = 1;
	}
out:
	rooted_path_free(path, VERDICT_STORE_PATH);
	return r;
}

int verdict_load(const char *root, bool secure, const struct host *h,
		 struct candidates *c, struct verdict *system)
{
	char *text, why[320];
	size_t len = 0;
	memset(system, 0, sizeof *system);
	int r = read_store(root, secure, &text, &len, why, sizeof why);
	if (r < 0)
		diag("verdicts %s; ignored", why);
	if (r <= 0)
		return r;
	r = verdict_apply(text, len, root, h, c, system);
	free(text);
	return r;
}

enum verdict_store_state verdict_survey(const char *root, const struct host *h,
					struct candidates *c, struct verdict *system,
					char *why, size_t cap)
{
	char *text;
	size_t len = 0;
	struct verdict_store s;
	memset(system, 0, sizeof *system);
	int r = read_store(root, false, &text, &len, why, cap);
	if (r <= 0)
		return r == 0 ? VSTORE_NONE : VSTORE_DAMAGED;
	enum verdict_store_state st = VSTORE_DAMAGED;
	if (verdict_parse(text, len, &s, why, cap) == 0) {
		st = s.host_key == verdict_host_key(h) ? VSTORE_APPLIES : VSTORE_OTHER_HOST;
		*system = s.system;
		match_entries(&s, root, st == VSTORE_OTHER_HOST, c);
	}
	free(text);
	return st;
}
