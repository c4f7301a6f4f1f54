/* SPDX-License-Identifier: MIT */
#include "verdicts.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../base/atomicfile.h"
#include "../base/diag.h"
#include "../base/why.h"
#include "../host/probe.h"
#include "../packages/compat.h"
#include "../packages/secure.h"
#include "../settings/settings.h"

/* A compat line for every package a start keeps (verdicts.h). */
_Static_assert(VERDICT_MAX_ENTRIES == COMPAT_MAX_CANDIDATES, "a store holds every candidate");

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

/* The steps as stored (enum verdict_step order); arrays, not pointers (see
 * cu_results below). */
static const char step_names[][8] = { "init", "count", "device", "context", "module", "done" };

/* <step>: "init", "count", "done", or "device:<n>", "context:<n>", "module:<n>" */
static const char *parse_step(const char *p, const char *end, struct verdict *v)
{
	for (unsigned i = 0; i < sizeof step_names / sizeof step_names[0]; i++) {
		const char *q = word(p, end, step_names[i]);
		if (!q)
			continue;
		uint64_t n = 0;
		if (verdict_device_step(i)) {
			if (q >= end || *q != ':' || !(q = num(q + 1, end, VERDICT_DEVICES_MAX - 1, &n)))
				return NULL;
		}
		if (q < end && *q != ' ')
			continue;	/* a longer word */
		v->step = (unsigned char)i;
		v->device = verdict_device_step(i) ? (short)n : -1;
		return q;
	}
	return NULL;
}

/* <result> <step> <devices> <time>, each combination as verdict.h allows */
static const char *verdict_fields(const char *p, const char *end, struct verdict *v)
{
	static const struct {
		char prefix[8];
		unsigned char kind;
		uint64_t max;
	} kinds[] = {
		{ "cu=", VERDICT_CU, 0x7fffffff },
		{ "signal=", VERDICT_SIGNAL, 127 },
		{ "hang=", VERDICT_HANG, 1000000 },
		{ "load=", VERDICT_LOAD, 0 },
	};
	uint64_t code, devices, when;
	for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
		const char *q = word(p, end, kinds[i].prefix);
		if (!q)
			continue;
		memset(v, 0, sizeof *v);
		q = sep(num(q, end, kinds[i].max, &code), end);
		q = q ? sep(parse_step(q, end, v), end) : NULL;
		q = q ? sep(num(q, end, VERDICT_DEVICES_MAX, &devices), end) : NULL;
		q = q ? num(q, end, TIME_MAX, &when) : NULL;
		if (!q)
			return NULL;
		v->kind = kinds[i].kind;
		v->code = (int)code;
		v->devices = (short)devices;
		v->when = (long long)when;
		bool cu0 = v->kind == VERDICT_CU && code == 0;
		if ((cu0 && v->step != VSTEP_DONE && v->step != VSTEP_COUNT) ||
		    (v->kind == VERDICT_CU && v->step == VSTEP_DONE && code != 0) ||
		    (v->kind == VERDICT_LOAD && v->step != VSTEP_INIT) ||
		    (v->step == VSTEP_INIT && devices != 0) ||
		    (v->step == VSTEP_COUNT && !cu0 && devices != 0) ||
		    (verdict_device_step(v->step) && (uint64_t)v->device >= devices))
			return NULL;
		return q;
	}
	return NULL;
}

/* One compat line at p (without "compat "), up to its '\n' at nl. */
static int parse_compat(const char *p, const char *nl, struct verdict_entry *e)
{
	uint64_t s, ns;
	memset(e, 0, sizeof *e);
	p = sep(verdict_fields(p, nl, &e->v), nl);
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

/* The reason, after the line it was found on (1 the first; 0 the whole) */
static int fail(char *why, size_t cap, const char *msg, int line)
{
	return line > 0 ? why_fail(why, cap, "line %d: %s", line, msg) : why_fail(why, cap, "%s", msg);
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
	if ((size_t)(nl - p) != strlen(VERDICT_MAGIC) || memcmp(p, VERDICT_MAGIC, (size_t)(nl - p)) != 0) {
		/* another version's (an earlier cudaload's format 1): said as
		 * such, so that the answer is plain: verify again */
		static const char magic[] = "cudaload-verdicts ";
		const char *v = p + sizeof magic - 1;
		uint64_t version;
		if (nl - p > (ptrdiff_t)sizeof magic - 1 && memcmp(p, magic, sizeof magic - 1) == 0 &&
		    num(v, nl, 999999, &version) == nl) {
			snprintf(why, cap, "format %llu, not this cudaload's %s: run cudaload --verify",
				 (unsigned long long)version, &VERDICT_MAGIC[sizeof magic - 1]);
			return -1;
		}
		return fail(why, cap, "not a cudaload verdict store", 0);
	}

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

	/* [boot <id>]: the boot a store that outlives it was made in */
	int line = 3;
	p = nl + 1;
	nl = p < end ? memchr(p, '\n', (size_t)(end - p)) : NULL;
	q = nl ? word(p, nl, "boot ") : NULL;
	if (q) {
		if (nl - q != VERDICT_BOOT_ID_LEN)
			return fail(why, cap, "boot ID is not 36 characters", line);
		for (const char *b = q; b < nl; b++)
			if (!((*b >= '0' && *b <= '9') || (*b >= 'a' && *b <= 'f') || *b == '-'))
				return fail(why, cap, "boot ID is not a lowercase UUID", line);
		memcpy(out->boot, q, VERDICT_BOOT_ID_LEN);
		out->boot[VERDICT_BOOT_ID_LEN] = '\0';
		p = nl + 1;
		nl = p < end ? memchr(p, '\n', (size_t)(end - p)) : NULL;
		line++;
	}

	/* system <result> <step> <devices> <time> */
	q = nl ? word(p, nl, "system ") : NULL;
	if (!q || verdict_fields(q, nl, &out->system) != nl)
		return fail(why, cap, "expected 'system <result> <step> <devices> <time>'", line);

	out->text = text;
	out->len = len;
	out->entries = (size_t)(nl + 1 - text);
	int first = ++line;
	for (p = nl + 1; p < end; p = nl + 1, line++) {
		struct verdict_entry e;
		if (line - first == VERDICT_MAX_ENTRIES)
			return fail(why, cap, "more packages than a store holds", line);
		nl = memchr(p, '\n', (size_t)(end - p));
		q = word(p, nl, "compat ");
		if (!q || parse_compat(q, nl, &e) < 0)
			return fail(why, cap, "expected 'compat <result> <step> <devices> <time> <dev> <ino> <size> <mtime> <dir>'", line);
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

const char *verdict_token(const struct verdict *v, char *buf, size_t cap)
{
	static const char prefix[][8] = { "none=", "cu=", "signal=", "hang=", "load=" };
	snprintf(buf, cap, "%s%d", prefix[v->kind <= VERDICT_LOAD ? v->kind : 0], v->code);
	return buf;
}

const char *verdict_step_name(const struct verdict *v)
{
	return step_names[v->step <= VSTEP_DONE ? v->step : VSTEP_INIT];
}

const char *verdict_step_token(const struct verdict *v, char *buf, size_t cap)
{
	if (verdict_device_step(v->step))
		snprintf(buf, cap, "%s:%d", verdict_step_name(v), v->device);
	else
		snprintf(buf, cap, "%s", verdict_step_name(v));
	return buf;
}

static char *read_bounded(int fd, size_t *len, const char **err);

/* ---- the writer ------------------------------------------------------------ */

int verdict_store_begin(char *text, size_t cap, uint64_t host_key, const char *host_text,
			const char *boot, const struct verdict *system)
{
	char tok[32], step[32];
	int n = snprintf(text, cap, VERDICT_MAGIC "\nhost %016llx %s\n%s%s%ssystem %s %s %d %lld\n",
			 (unsigned long long)host_key, host_text, boot[0] ? "boot " : "", boot,
			 boot[0] ? "\n" : "", verdict_token(system, tok, sizeof tok),
			 verdict_step_token(system, step, sizeof step), system->devices, system->when);
	return n < 0 || (size_t)n >= cap || strchr(host_text, '\n') ? -1 : n;
}

bool verdict_store_add(char *text, size_t *len, size_t cap, const struct verdict *v,
		       const struct stat *st, const char *dir)
{
	char tok[32], step[32];
	if (strchr(dir, '\n') || *len >= cap)
		return false;
	int m = snprintf(text + *len, cap - *len, "compat %s %s %d %lld %llu %llu %llu %lld.%09ld %s\n",
			 verdict_token(v, tok, sizeof tok), verdict_step_token(v, step, sizeof step),
			 v->devices, v->when, (unsigned long long)st->st_dev,
			 (unsigned long long)st->st_ino, (unsigned long long)st->st_size,
			 (long long)st->st_mtim.tv_sec, (long)st->st_mtim.tv_nsec, dir);
	if (m < 0 || (size_t)m >= cap - *len) {
		text[*len] = '\0';
		return false;
	}
	*len += (size_t)m;
	return true;
}

char *verdict_store_read(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	const char *err = NULL;
	char *text = read_bounded(fd, len, &err);
	close(fd);
	return text;
}

int verdict_store_write(const char *dir, const char *name, const char *text, size_t len, mode_t mode)
{
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -1;
	int r = atomic_replace(dfd, name, text, len, mode, true);
	int e = errno;
	close(dfd);
	errno = e;
	return r;
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

bool verdict_file_is(const struct verdict_file *f, const struct stat *st)
{
	return (uint64_t)st->st_dev == f->dev && (uint64_t)st->st_ino == f->ino &&
	       (uint64_t)st->st_size == f->size && (int64_t)st->st_mtim.tv_sec == f->mtime_s &&
	       (uint32_t)st->st_mtim.tv_nsec == f->mtime_ns;
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
	bool same = stat(path, &st) == 0 && verdict_file_is(f, &st);
	free(path);
	return same;
}

/* How much a verdict weighs when both stores have one for a candidate: a
 * failure that applies refuses, else a success that applies lifts, else
 * what says more (verdict.h). */
static int weight(const struct verdict *v)
{
	if (v->kind == VERDICT_NONE)
		return 0;
	switch (v->state) {
	case VSTATE_APPLIES:
		return verdict_ok(v) ? 3 : 4;
	case VSTATE_INCONCLUSIVE:
		return 2;
	default:
		return 1;
	}
}

/* Each entry of a parsed store onto the candidate of its directory; a
 * store of another host marks its verdicts as such, never as applying.  A
 * verdict already there from the other store stays unless this one weighs
 * more. */
static void match_entries(const struct verdict_store *s, const char *root, bool other_host,
			  unsigned char source, struct candidates *c)
{
	struct verdict_entry e;
	for (size_t pos = 0; verdict_next(s, &pos, &e);) {
		for (size_t i = 0; i < c->n; i++) {
			struct candidate *cand = &c->v[i];
			if (strlen(cand->dir) != e.dir_len || memcmp(cand->dir, e.dir, e.dir_len) != 0)
				continue;
			struct verdict v = e.v;
			v.source = source;
			if (other_host)
				v.state = VSTATE_OTHER_HOST;
			else if (!same_file(root, cand->dir, &e.file))
				v.state = VSTATE_CHANGED;
			else if (!verdict_ok(&e.v) && !verdict_past(&s->system, &e.v))
				v.state = VSTATE_INCONCLUSIVE;
			else
				v.state = VSTATE_APPLIES;
			if (other_host || weight(&v) > weight(&cand->verdict))
				cand->verdict = v;
		}
	}
}

int verdict_boot_id(const char *root, char *buf, size_t cap)
{
	if (cap < VERDICT_BOOT_ID_LEN + 2)
		return -1;
	ssize_t n = read_small(root, VERDICT_BOOT_ID, buf, VERDICT_BOOT_ID_LEN + 2);
	if (n < VERDICT_BOOT_ID_LEN || (n > VERDICT_BOOT_ID_LEN && buf[VERDICT_BOOT_ID_LEN] != '\n'))
		return -1;
	buf[VERDICT_BOOT_ID_LEN] = '\0';
	return 0;
}

/* Is a store with this boot line (or none) for this boot?  A store that
 * outlives a boot (lasting) must have one. */
static bool this_boot(const char *root, const struct verdict_store *s, bool lasting, const char **why)
{
	char boot[VERDICT_BOOT_ID_LEN + 2];
	if (!s->boot[0]) {
		*why = "it outlives a boot and keeps no boot ID";
		return !lasting;
	}
	*why = "made in another boot";
	return verdict_boot_id(root, boot, sizeof boot) == 0 && strcmp(boot, s->boot) == 0;
}

/* A store's text applied to the candidates as source (label: its path for
 * the trace, or NULL for root's). */
static int apply_store(const char *text, size_t len, const char *root, const struct host *h,
		       unsigned char source, bool lasting, const char *label,
		       struct candidates *c, struct verdict *system)
{
	struct verdict_store s;
	char why[160];
	const char *other;
	const char *sp = label ? " " : "", *name = label ? label : "";

	if (verdict_parse(text, len, &s, why, sizeof why) < 0) {
		diag("verdicts%s%s: %s; ignored", sp, name, why);
		return -1;
	}
	if (s.host_key != verdict_host_key(h)) {
		diag("verdicts%s%s: made for another driver, GPU or search list; ignored (run cudaload --verify)",
		     sp, name);
		return -1;
	}
	if (!this_boot(root, &s, lasting, &other)) {
		diag("verdicts%s%s: %s; ignored (run cudaload --verify)", sp, name, other);
		return -1;
	}
	if (source == VSOURCE_ROOT || system->kind == VERDICT_NONE) {
		*system = s.system;
		system->source = source;
	}
	match_entries(&s, root, false, source, c);
	return 1;
}

int verdict_apply(const char *text, size_t len, const char *root, const struct host *h,
		  struct candidates *c, struct verdict *system)
{
	return apply_store(text, len, root, h, VSOURCE_ROOT, false, NULL, c, system);
}

/* Whose store may be read: anyone's, root's in root's directories (for a
 * set-id program), or the real uid's own. */
enum trust { TRUST_ANY, TRUST_ROOT, TRUST_OWNER };

/* Is the store, open as fd at path, trusted as asked?  For root: root's
 * file in root's directories, as the config.  For an owner: the file and
 * its directory the owner's, and writable by nobody else. */
static bool store_trusted(int fd, const char *path, enum trust trust, unsigned uid)
{
	struct stat st;
	if (trust == TRUST_ANY)
		return true;
	if (trust == TRUST_OWNER)
		uid = uid ? uid : (unsigned)-1;	/* a user's: never root's, which is the other store */
	else
		uid = 0;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != uid ||
	    (st.st_mode & (S_IWGRP | S_IWOTH)))
		return false;
	char *dir = strdup(path);
	if (!dir)
		return false;
	*strrchr(dir, '/') = '\0';
	bool trusted = trust == TRUST_ROOT ? secure_path_trusted(dir)
		       : stat(dir, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == uid &&
				 !(st.st_mode & (S_IWGRP | S_IWOTH));
	free(dir);
	return trusted;
}

static ssize_t read_some(int fd, char *buf, size_t n)
{
	ssize_t r;
	do
		r = read(fd, buf, n);
	while (r < 0 && errno == EINTR);
	return r;
}

/* The whole of fd (less than VERDICT_STORE_MAX bytes) into a malloc'd
 * buffer, its length in *len; NULL with the reason in *err.  One read for a
 * small store, as before the bound grew; past VERDICT_READ_FIRST bytes only
 * a regular file is read further, and only when fstat says it fits: a huge
 * file, /dev/zero or a FIFO costs no more than that first read. */
static char *read_bounded(int fd, size_t *len, const char **err)
{
	char *buf = malloc(VERDICT_READ_FIRST);
	if (!buf) {
		*err = "out of memory";
		return NULL;
	}
	ssize_t n = read_some(fd, buf, VERDICT_READ_FIRST);
	if (n < 0) {
		*err = strerror(errno);
		free(buf);
		return NULL;
	}
	size_t got = (size_t)n;
	if (got == VERDICT_READ_FIRST) {
		struct stat st;
		char *more;
		if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
			*err = "not a regular file";
		} else if (st.st_size >= VERDICT_STORE_MAX) {
			*err = "too large";
		} else if (!(more = realloc(buf, (size_t)st.st_size + 1))) {
			*err = "out of memory";
		} else {
			/* up to one byte past the size fstat gave: a file that grew
			 * since is not read in part */
			buf = more;
			size_t cap = (size_t)st.st_size + 1;
			while (got < cap && (n = read_some(fd, buf + got, cap - got)) > 0)
				got += (size_t)n;
			*err = n < 0 ? strerror(errno) : got == cap ? "changed while read" : NULL;
		}
		if (*err) {
			free(buf);
			return NULL;
		}
	}
	*len = got;
	return buf;
}

/* The store at path into a malloc'd buffer (*text, *len): 1; 0 when there
 * is none; -1 when it cannot be used, the reason in why.  The one reader of
 * both stores. */
static int read_store_at(const char *path, enum trust trust, unsigned uid, char **text,
			 size_t *len, char *why, size_t cap)
{
	*text = NULL;
	int fd = open_ro(path, O_NONBLOCK);
	if (fd < 0) {
		if (fd == -ENOENT || fd == -ENOTDIR)
			return 0;
		snprintf(why, cap, "%s: %s", path, strerror(-fd));
		return -1;
	}
	if (!store_trusted(fd, path, trust, uid)) {
		close(fd);
		snprintf(why, cap, trust == TRUST_ROOT
				   ? "%s: not root-owned or writable by others; ignored for a set-id program"
				   : "%s: it or its directory is not this user's, or others may write it",
			 path);
		return -1;
	}
	/* On the heap, not on the stack nor in the bss: only a store costs it. */
	const char *err = NULL;
	size_t got = 0;
	char *buf = read_bounded(fd, &got, &err);
	close(fd);
	if (!buf) {
		snprintf(why, cap, "%s: %s", path, err);
		return -1;
	}
	diag("verdicts %s: %zu bytes", path, got);
	*text = buf;
	*len = got;
	return 1;
}

/* Root's store under root (see read_store_at). */
static int read_store(const char *root, bool secure, char **text, size_t *len,
		      char *why, size_t cap)
{
	*text = NULL;
	if ((root ? strlen(root) : 0) + sizeof VERDICT_STORE_PATH > CL_PATH_MAX)
		return 0;
	char *path = root_path(root, VERDICT_STORE_PATH);
	if (!path)
		return 0;
	/* for a set-id program, like the config: root's file in root's
	 * directories, or nothing */
	int r = read_store_at(path, secure ? TRUST_ROOT : TRUST_ANY, 0, text, len, why, cap);
	root_path_free(path, VERDICT_STORE_PATH);
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

char *verdict_user_store(char *const *envp, unsigned uid, bool *lasting)
{
	static const char runtime[] = "/cudaload/verdicts", cache[] = "/.cache/cudaload/verdicts";
	const char *base = env_get(envp, "XDG_RUNTIME_DIR"), *tail = runtime;
	struct stat st;
	*lasting = false;
	/* the runtime directory only as the XDG spec has it: the user's, 0700 */
	if (!base || base[0] != '/' || stat(base, &st) != 0 || !S_ISDIR(st.st_mode) ||
	    st.st_uid != uid || (st.st_mode & 0777) != 0700) {
		base = env_get(envp, "HOME");
		tail = cache;
		*lasting = true;
	}
	if (!base || base[0] != '/')
		return NULL;
	size_t n = strlen(base);
	while (n > 1 && base[n - 1] == '/')
		n--;	/* HOME=/home/u/ */
	if (n + strlen(tail) >= CL_PATH_MAX)
		return NULL;
	char *path = malloc(n + strlen(tail) + 1);
	if (path) {
		memcpy(path, base, n);
		strcpy(path + (n == 1 ? 0 : n), tail);
	}
	return path;
}

/* The user's store onto c, after root's: 1 applied, 0 none, -1 ignored.
 * A function of its own, so that its message buffer is not on the stack
 * while root's store is read (the deepest point of a start, where a few
 * hundred bytes more cost a page fault at many starts). */
__attribute__((noinline))
static int load_user_store(const char *root, char *const *envp, unsigned uid,
			   const struct host *h, struct candidates *c, struct verdict *system)
{
	bool lasting;
	char *path = verdict_user_store(envp, uid, &lasting), *text, why[320];
	if (!path)
		return 0;
	size_t len = 0;
	int u = read_store_at(path, TRUST_OWNER, uid, &text, &len, why, sizeof why);
	if (u < 0)
		diag("verdicts %s; ignored", why);
	if (u > 0) {
		u = apply_store(text, len, root, h, VSOURCE_USER, lasting, path, c, system);
		free(text);
	}
	free(path);
	return u;
}

int verdict_load_stores(const char *root, bool secure, char *const *envp, unsigned uid,
			const struct host *h, struct candidates *c, struct verdict *system)
{
	for (size_t i = 0; i < c->n; i++)
		memset(&c->v[i].verdict, 0, sizeof c->v[i].verdict);
	int r = verdict_load(root, secure, h, c, system);
	/* never for a set-id program, never on a Jetson, not for root (whose
	 * own is the other store) */
	if (secure || uid == 0 || h->platform == PLATFORM_TEGRA)
		return r;
	int u = load_user_store(root, envp, uid, h, c, system);
	return r > 0 || u > 0 ? 1 : r < 0 || u < 0 ? -1 : 0;
}

enum verdict_store_state verdict_survey(const char *root, const struct host *h,
					struct candidates *c, struct verdict *system,
					char *why, size_t cap)
{
	char *text;
	size_t len = 0;
	struct verdict_store s;
	const char *other;
	memset(system, 0, sizeof *system);
	int r = read_store(root, false, &text, &len, why, cap);
	if (r <= 0)
		return r == 0 ? VSTORE_NONE : VSTORE_DAMAGED;
	enum verdict_store_state st = VSTORE_DAMAGED;
	if (verdict_parse(text, len, &s, why, cap) == 0) {
		st = s.host_key == verdict_host_key(h) && this_boot(root, &s, false, &other)
			     ? VSTORE_APPLIES : VSTORE_OTHER_HOST;
		*system = s.system;
		match_entries(&s, root, st == VSTORE_OTHER_HOST, VSOURCE_ROOT, c);
	}
	free(text);
	return st;
}
