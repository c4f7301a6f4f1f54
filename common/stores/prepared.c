/* SPDX-License-Identifier: MIT */
#include "prepared.h"

#include <stddef.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../base/atomicfile.h"
#include "../base/sys.h"

/* ---- the stamp ----------------------------------------------------------- */

#define FNV_BASIS 0xcbf29ce484222325ULL
#define FNV_PRIME 0x100000001b3ULL

/* FNV-1a's step on 64-bit words, not bytes (a start folds ten words for
 * each input: one multiply each, not eight), and a shift that carries the
 * product's high bits down to the low ones the next step multiplies.  The
 * build ID in the key keeps a decision folded another way from being read. */
static uint64_t fold_u64(uint64_t h, uint64_t v)
{
	h = (h ^ v) * FNV_PRIME;
	return h ^ h >> 31;
}

/* n bytes: whole words, then the rest with its length in the top byte. */
static uint64_t fold(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;
	uint64_t w;
	for (; n >= sizeof w; n -= sizeof w, b += sizeof w) {
		memcpy(&w, b, sizeof w);
		h = fold_u64(h, w);
	}
	w = (uint64_t)n << 56;
	for (size_t i = 0; i < n; i++)
		w |= (uint64_t)b[i] << (8 * i);
	return fold_u64(h, w);
}

static uint64_t fold_str(uint64_t h, const char *s)
{
	return s ? fold(h, s, strlen(s) + 1) : fold_u64(h, 0);
}

/* One input: 'n' a kernel node (sysfs), whose times are those of its inode
 * in the cache, not of the thing: its identity and its link count (a sysfs
 * directory's is 2 and its subdirectories: /sys/module's, the modules
 * loaded); 'f' anything
 * else: identity, type, size and both times (ctime moves with every change
 * of content, entries or metadata). */
static uint64_t stamp_input(uint64_t h, char kind, const char *path, const struct timespec *racy_from,
			    bool *racy)
{
	struct stat st;
	h = fold_u64(h, (uint64_t)kind);
	if (stat(path, &st) < 0)
		return fold_u64(h, (uint64_t)errno);
	h = fold_u64(h, (uint64_t)st.st_dev);
	h = fold_u64(h, (uint64_t)st.st_ino);
	h = fold_u64(h, (uint64_t)st.st_nlink);
	if (kind == 'n')
		return h;
	/* changed at or after racy_from: a later change in the same tick of
	 * the file system's clock would leave this stamp as it is */
	const struct timespec *t[2] = { &st.st_ctim, &st.st_mtim };
	for (int i = 0; racy_from && i < 2; i++)
		if (t[i]->tv_sec > racy_from->tv_sec ||
		    (t[i]->tv_sec == racy_from->tv_sec && t[i]->tv_nsec >= racy_from->tv_nsec))
			*racy = true;
	h = fold_u64(h, (uint64_t)st.st_mode);
	h = fold_u64(h, (uint64_t)st.st_size);
	h = fold_u64(h, (uint64_t)st.st_mtim.tv_sec);
	h = fold_u64(h, (uint64_t)st.st_mtim.tv_nsec);
	h = fold_u64(h, (uint64_t)st.st_ctim.tv_sec);
	return fold_u64(h, (uint64_t)st.st_ctim.tv_nsec);
}

uint64_t prepared_key(const void *build, size_t build_len, const char *home, size_t home_len,
		      const struct settings *s, int cls, int machine)
{
	uint64_t h = fold_str(FNV_BASIS, PREPARED_MAGIC);
	h = fold(h, build, build_len);
	h = fold_u64(h, (uint64_t)home_len);
	h = fold(h, home, home_len);
	h = fold_str(h, s->root);
	h = fold_u64(h, (uint64_t)cls);
	h = fold_u64(h, (uint64_t)machine);
	h = fold_u64(h, (uint64_t)s->policy);
	h = fold_u64(h, (uint64_t)s->first_use_off);
	h = fold_u64(h, (uint64_t)s->compat_from_config);
	h = fold_u64(h, (uint64_t)s->n_compat_env);
	for (int i = 0; i < s->n_compat_env; i++)
		h = fold_str(h, s->compat_env[i]);
	h = fold_u64(h, (uint64_t)s->n_compat);
	for (int i = 0; i < s->n_compat; i++) {
		h = fold_str(h, s->compat[i]);
		h = fold_u64(h, (uint64_t)(s->compat_cuda ? s->compat_cuda[i] : 0));
	}
	h = fold_u64(h, (uint64_t)s->n_driver_dirs);
	for (int i = 0; i < s->n_driver_dirs; i++)
		h = fold_str(h, s->driver_dirs[i]);
	/* the GPUs the program sees: unset folds as nothing more (the order
	 * alone, often set for every program, changes nothing) */
	if (s->visible.devices) {
		h = fold_str(h, s->visible.devices);
		h = fold_u64(h, (uint64_t)s->visible.pci_order);
	}
	return h;
}

int prepared_path(char *out, size_t cap, const char *root, const char *dir, int machine)
{
	/* by hand: a start runs no formatter on its way to ld.so */
	static const char name[] = "/prepared-";
	char num[12], *n = num + sizeof num - 1;
	unsigned m = (unsigned)machine;
	*n = '\0';
	do
		*--n = (char)('0' + m % 10);
	while ((m /= 10) && n > num);
	size_t nl = (size_t)(num + sizeof num - 1 - n);
	if (root_join(out, cap, root, dir) < 0)
		return -1;
	size_t at = strlen(out);
	if (at + sizeof name - 1 + nl >= cap)
		return -1;
	memcpy(out + at, name, sizeof name - 1);
	memcpy(out + at + sizeof name - 1, n, nl + 1);
	return 0;
}

/* ---- reading ------------------------------------------------------------- */

/* The text: a header line, one line per input ("f PATH" or "n PATH"), one
 * per package judged ("c DEV INO", hex: the directory's identity), perhaps
 * the loader ("l STAMP KIND MINOR NAMED PATH": KIND g, m, u or -, MINOR
 * decimal, NAMED p or s), "= LIST" and "? REASON".  The header:
 *   cudaload-prepared 1 <key, 16 hex> <stamp, 16 hex> <flags: c, u or ->
 * Parsing cuts the lines (NUL for each newline) in place. */
#define HEX 16

static bool hex64(const char *p, uint64_t *out)
{
	uint64_t v = 0;
	for (int i = 0; i < HEX; i++) {
		char c = p[i];
		int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
		if (d < 0)
			return false;
		v = v << 4 | (uint64_t)d;
	}
	*out = v;
	return true;
}

/* "c DEV INO", lower-case hex, nothing after. */
static bool identity(const char *p, uint64_t *dev, uint64_t *ino)
{
	uint64_t *out[2] = { dev, ino };
	if (p[0] != 'c')
		return false;
	p++;
	for (int k = 0; k < 2; k++) {
		uint64_t v = 0;
		int digits = 0;
		if (*p++ != ' ')
			return false;
		for (; (*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f'); p++, digits++)
			v = v << 4 | (uint64_t)(*p <= '9' ? *p - '0' : *p - 'a' + 10);
		if (digits == 0 || digits > HEX)
			return false;
		*out[k] = v;
	}
	return *p == '\0';
}

/* "l STAMP KIND MINOR NAMED /PATH" (prepared_loader), nothing after PATH's end. */
static bool loader_line(const char *p, struct prepared_loader *l)
{
	if (p[1] != ' ' || !hex64(p + 2, &l->stamp) || p[2 + HEX] != ' ')
		return false;
	p += 3 + HEX;
	if ((*p != 'g' && *p != 'm' && *p != 'u' && *p != '-') || p[1] != ' ')
		return false;
	l->kind = *p;
	p += 2;
	int digits = 0;
	for (l->minor = 0; *p >= '0' && *p <= '9'; p++) {
		if (++digits > 3)
			return false;
		l->minor = l->minor * 10 + (*p - '0');
	}
	if (digits == 0 || *p++ != ' ' || (*p != 'p' && *p != 's') || p[1] != ' ' || p[2] != '/')
		return false;
	l->named = *p == 'p';
	l->path = p + 2;
	return true;
}

/* Cut the line at p, which ends in a newline (the text's last byte is one):
 * that newline made a NUL, the next line's start returned; NULL when a NUL
 * comes first, which no prepared decision holds.  One scan finds either. */
static char *cut_line(char *p)
{
	char *nl = strchrnul(p, '\n');
	if (*nl != '\n')
		return NULL;
	*nl = '\0';
	return nl + 1;
}

int prepared_parse(char *text, size_t len, uint64_t *key, uint64_t *stamp,
		   struct prepared_view *v)
{
	static const char magic[] = PREPARED_MAGIC " ";
	size_t ml = sizeof magic - 1;
	memset(v, 0, sizeof *v);
	if (len == 0 || text[len - 1] != '\n')
		return -1;
	/* each line cut as it is read: no pass over the text of its own, no
	 * strlen of any line */
	char *end = text + len, *p = cut_line(text), *next;
	/* header: magic, key, ' ', stamp, ' ', flags */
	if (!p || (size_t)(p - 1 - text) < ml + 2 * HEX + 3 || memcmp(text, magic, ml) != 0 ||
	    !hex64(text + ml, key) || text[ml + HEX] != ' ' || !hex64(text + ml + HEX + 1, stamp) ||
	    text[ml + 2 * HEX + 1] != ' ')
		return -1;
	for (const char *f = text + ml + 2 * HEX + 2; *f; f++) {
		if (*f == 'c')
			v->compat = true;
		else if (*f == 'u')
			v->users_stores = true;
		else if (*f != '-')
			return -1;
	}
	int n = 0;
	for (; p < end && (p[0] == 'f' || p[0] == 'n'); p = next) {
		if (!(next = cut_line(p)) || p[1] != ' ' || p[2] != '/' || ++n > PREPARED_MAX_INPUTS)
			return -1;
	}
	v->cands = p;
	for (; p < end && p[0] == 'c'; p = next) {
		uint64_t dev, ino;
		if (!(next = cut_line(p)) || !identity(p, &dev, &ino))
			return -1;
		v->n_cands++;
	}
	if (p < end && p[0] == 'l') {
		if (!(next = cut_line(p)) || !loader_line(p, &v->loader))
			return -1;
		p = next;
	}
	if (p >= end || p[0] != '=' || p[1] != ' ' || !(next = cut_line(p)))
		return -1;
	v->list = p + 2;
	p = next;
	if (p >= end || p[0] != '?' || p[1] != ' ' || !(next = cut_line(p)))
		return -1;
	v->reason = p + 2;
	return next == end ? n : -1;
}

bool prepared_has_candidate(const struct prepared_view *v, dev_t dev, ino_t ino)
{
	const char *p = v->cands;
	for (int i = 0; i < v->n_cands; i++, p += strlen(p) + 1) {
		uint64_t d, n;
		if (identity(p, &d, &n) && d == (uint64_t)dev && n == (uint64_t)ino)
			return true;
	}
	return false;
}

/* The stamp of the inputs listed in a parsed text; racy_from: see
 * stamp_input (NULL when reading). */
static uint64_t stamp_of(const char *text, const struct timespec *racy_from, bool *racy)
{
	uint64_t h = FNV_BASIS;
	for (const char *p = text + strlen(text) + 1; p[0] == 'f' || p[0] == 'n'; p += strlen(p) + 1)
		h = stamp_input(h, p[0], p + 2, racy_from, racy);
	return h;
}

uint64_t prepared_stamp(const char *text)
{
	return stamp_of(text, NULL, NULL);
}

bool prepared_loader_holds(const struct prepared_loader *l)
{
	return l->path && stamp_input(FNV_BASIS, 'f', l->path, NULL, NULL) == l->stamp;
}

bool prepared_check(const char *path, uint64_t key, char *buf, struct prepared_view *v,
		    const char **why)
{
	ssize_t n = readlink(path, buf, PREPARED_CAP);
	uint64_t k, s;
	if (n < 0) {
		*why = errno == ENOENT ? "none" : errno == EINVAL ? "not a prepared decision (not a link)"
								   : "cannot be read";
		return false;
	}
	if ((size_t)n >= PREPARED_CAP || prepared_parse(buf, (size_t)n, &k, &s, v) < 0) {
		*why = "damaged, or not a prepared decision";
		return false;
	}
	if (k != key) {
		*why = "made by another build of cudaload, or for other settings, root or machine";
		return false;
	}
	if (prepared_stamp(buf) != s) {
		*why = "an input changed since";
		return false;
	}
	return true;
}

/* ---- writing ------------------------------------------------------------- */

static const char modules[] = "/sys/module", module_nvidia[] = "/sys/module/nvidia";

/* The node that stands for a GPU module: nvidia's own directory when it is
 * loaded (a reload may bring another driver version); else /sys/module,
 * whose link count moves when any module comes or goes.  nvgpu, whose
 * answers are the SoC's and whose version is the release's, stands as
 * /sys/module too: only its coming and going count. */
static const char *module_node(const char *root, const char *module)
{
	struct stat st;
	if (strcmp(module, module_nvidia) != 0)
		return modules;
	char *full = root_path(root, module);
	bool loaded = full && stat(full, &st) == 0;
	root_path_free(full, module);
	return loaded ? module : modules;
}

static bool starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

static uint64_t modules_identity(const char *root)
{
	char *a = root_path(root, modules), *b = root_path(root, module_nvidia);
	uint64_t h = FNV_BASIS;
	if (a && b) {
		h = stamp_input(h, 'n', a, NULL, NULL);
		h = stamp_input(h, 'n', b, NULL, NULL);
	}
	root_path_free(a, modules);
	root_path_free(b, module_nvidia);
	return h;
}

int prepared_begin(struct prepared_record *r, const char *root)
{
	memset(r, 0, sizeof *r);
	r->root = root;
	clock_gettime(CLOCK_REALTIME, &r->began);
	r->modules = modules_identity(root);
	if (!(r->seen = calloc(1, sizeof *r->seen)))
		return -1;
	sys_seen = r->seen;
	return 0;
}

void prepared_end(struct prepared_record *r)
{
	if (sys_seen == r->seen)
		sys_seen = NULL;
}

void prepared_record_free(struct prepared_record *r)
{
	prepared_end(r);
	if (r->seen) {
		for (size_t i = 0; i < r->seen->n; i++)
			free(r->seen->paths[i]);
		free(r->seen);
	}
	r->seen = NULL;
}

/* The input a path looked at stands for: 'n' or 'f' and the path (as on
 * the target) into out; 0 for nothing (the boot's), -1 for a path no stamp
 * can cover (then nothing is prepared). */
static int classify(const char *path, char *out, size_t cap)
{
	/* the boot's (no table of pointers: the loader's writable page) */
	if (starts(path, "/proc/device-tree/") || starts(path, "/sys/firmware/") ||
	    starts(path, "/sys/devices/soc0/") || starts(path, "/sys/bus/pci/devices/"))
		return 0;
	const char *node = NULL;
	if (starts(path, "/proc/driver/nvidia/") || starts(path, "/sys/module/nvidia/") ||
	    starts(path, "/dev/nvidia"))
		node = module_nvidia;
	else if (starts(path, "/dev/nvhost-") || starts(path, "/dev/nvgpu/") ||
		 starts(path, "/sys/module/nvgpu/"))
		node = "nvgpu";
	else if (starts(path, "/proc/") || starts(path, "/sys/") || starts(path, "/dev/"))
		return -1;
	size_t n = strlen(node ? node : path);
	if (n + 3 > cap)
		return -1;
	out[0] = node ? 'n' : 'f';
	out[1] = ' ';
	memcpy(out + 2, node ? node : path, n + 1);
	while (n > 1 && out[n + 1] == '/')
		out[1 + n--] = '\0';	/* "/usr/local/" is /usr/local */
	return 1;
}

struct inputs {
	char *line[PREPARED_MAX_INPUTS];	/* "f /full/path", root joined */
	int n;
};

static void inputs_free(struct inputs *in)
{
	for (int i = 0; i < in->n; i++)
		free(in->line[i]);
	in->n = 0;
}

/* Add "K ROOTPATH" unless there; -1 when there are too many or out of memory. */
static int inputs_add(struct inputs *in, char kind, const char *root, const char *path)
{
	size_t rl = root_len(root), pl = strlen(path);
	for (int i = 0; i < in->n; i++)
		if (in->line[i][0] == kind && strlen(in->line[i] + 2) == rl + pl &&
		    memcmp(in->line[i] + 2, root, rl) == 0 && strcmp(in->line[i] + 2 + rl, path) == 0)
			return 0;
	if (in->n == PREPARED_MAX_INPUTS)
		return -1;
	char *l = malloc(rl + pl + 3);
	if (!l)
		return -1;
	l[0] = kind;
	l[1] = ' ';
	memcpy(l + 2, root, rl);
	memcpy(l + 2 + rl, path, pl + 1);
	in->line[in->n++] = l;
	return 0;
}

/* A path that is not there stands as the deepest directory above it that
 * is (its ctime moves when the next name is made), unless that is the
 * root, the directory the decision is kept in or the one above it (which
 * its own writing changes): then the path itself, whose stat fails until
 * it is made. */
static int add_path(struct inputs *in, const char *root, const char *path, const char *keep_dir)
{
	struct stat st;
	char *full = root_path(root, path);
	if (!full)
		return -1;
	int there = stat(full, &st) == 0 || errno != ENOENT;
	root_path_free(full, path);
	if (there)
		return inputs_add(in, 'f', root, path);
	char *up = strdup(path);
	if (!up)
		return -1;
	int rc = 1;
	for (char *slash; rc == 1 && (slash = strrchr(up, '/')) && slash != up;) {
		*slash = '\0';
		size_t ul = strlen(up);
		if (strncmp(keep_dir, up, ul) == 0 && (keep_dir[ul] == '\0' ||
		    (keep_dir[ul] == '/' && !strchr(keep_dir + ul + 1, '/'))))
			break;
		char *f = root_path(root, up);
		if (!f) {
			rc = -1;
			break;
		}
		if (stat(f, &st) == 0 && S_ISDIR(st.st_mode))
			rc = inputs_add(in, 'f', root, up);
		else if (lstat(f, &st) == 0 && S_ISLNK(st.st_mode))
			rc = -2;	/* a dangling link: what it names may be made anywhere */
		root_path_free(f, up);
	}
	free(up);
	return rc == 1 ? inputs_add(in, 'f', root, path) : rc;
}

/* add_path's answer as gather's: 0, or 1 with why said. */
static int added(int rc, const char **why)
{
	if (rc == -2)
		*why = "a dangling symbolic link above a path it looked for";
	else if (rc < 0)
		*why = "too many inputs, or out of memory";
	return rc < 0;
}

static int gather(struct prepared_record *r, const struct prepared_decision *d, const char *keep_dir,
		  struct inputs *in, const char **why)
{
	const char *root = r->root;
	enum { LINE = CL_PATH_MAX + 3 };
	char *line = malloc(LINE);	/* on the heap: start-up counts its stack pages */
	int stop = !line;
	if (line && r->seen->full) {
		*why = "the decision looked at too many paths";
		stop = 1;
	}
	for (size_t i = 0; !stop && i < r->seen->n; i++) {
		int c = classify(r->seen->paths[i], line, LINE);
		if (c < 0) {
			*why = "the decision read a kernel file no stamp covers";
			stop = 1;
		} else if (c > 0) {
			stop = added(line[0] == 'n' ? inputs_add(in, 'n', root, module_node(root, line + 2))
						    : add_path(in, root, line + 2, keep_dir), why);
		}
	}
	for (size_t i = 0; !stop && i < d->cands->n; i++) {
		const char *dir = d->cands->v[i].dir;
		size_t dl = strlen(dir);
		if (dl + sizeof "/libcuda.so.1" > LINE) {
			*why = "a package's path is too long";
			stop = 1;
			break;
		}
		memcpy(line, dir, dl);
		memcpy(line + dl, "/libcuda.so.1", sizeof "/libcuda.so.1");
		stop = added(add_path(in, root, dir, keep_dir), why) ||
		       added(add_path(in, root, line, keep_dir), why);
	}
	if (!stop && d->user_store)
		stop = added(inputs_add(in, 'f', "", d->user_store), why);
	bool had_line = line != NULL;
	free(line);
	return had_line ? stop : -1;
}

/* Can the loader be kept (its stamp set): an absolute path on one line, a
 * kind and version loader_line reads back, a file not changed since
 * racy_from (as an input's: stamp_input)?  Else the decision is kept
 * without it, and exec starts read the loader as before. */
static bool keepable_loader(struct prepared_loader *l, const struct timespec *racy_from)
{
	bool racy = false;
	if (!l->path || l->path[0] != '/' || strchr(l->path, '\n') || l->minor < 0 || l->minor > 999 ||
	    !l->kind || !strchr("gmu-", l->kind))
		return false;
	l->stamp = stamp_input(FNV_BASIS, 'f', l->path, racy_from, &racy);
	return !racy;
}

/* The decision's text, its stamp a placeholder: malloc'd, or NULL. */
static char *compose(const struct inputs *in, const struct prepared_decision *d, size_t *len)
{
	size_t cap = sizeof PREPARED_MAGIC + 2 * HEX + 8 + d->cands->n * 40;
	for (int i = 0; i < in->n; i++)
		cap += strlen(in->line[i]) + 1;
	cap += strlen(d->list ? d->list : "") + strlen(d->reason) + 8;
	cap += d->loader.path ? strlen(d->loader.path) + HEX + 16 : 0;
	char *t = malloc(cap);
	if (!t)
		return NULL;
	size_t at = (size_t)snprintf(t, cap, "%s %016llx %016llx %s%s%s\n", PREPARED_MAGIC,
				     (unsigned long long)d->key, 0ULL, d->compat ? "c" : "",
				     d->users_stores ? "u" : "", d->compat || d->users_stores ? "" : "-");
	for (int i = 0; i < in->n; i++)
		at += (size_t)snprintf(t + at, cap - at, "%s\n", in->line[i]);
	for (size_t i = 0; i < d->cands->n; i++)
		at += (size_t)snprintf(t + at, cap - at, "c %llx %llx\n",
				       (unsigned long long)d->cands->v[i].dev,
				       (unsigned long long)d->cands->v[i].ino);
	const struct prepared_loader *l = &d->loader;
	if (l->path)
		at += (size_t)snprintf(t + at, cap - at, "l %016llx %c %d %c %s\n",
				       (unsigned long long)l->stamp, l->kind, l->minor, l->named ? 'p' : 's',
				       l->path);
	at += (size_t)snprintf(t + at, cap - at, "= %s\n? ", d->list ? d->list : "");
	for (const char *r = d->reason; *r && at + 2 < cap; r++)
		t[at++] = *r == '\n' ? ' ' : *r;	/* one line */
	t[at++] = '\n';
	t[at] = '\0';
	*len = at;
	return t;
}

int prepared_write(struct prepared_record *r, const char *path, const struct prepared_decision *d,
		   const char **why)
{
	prepared_end(r);
	/* the directory it is kept in, as on the target */
	size_t rl = root_len(r->root);
	const char *slash = strrchr(path, '/');
	if (!slash || (size_t)(slash - path) < rl || (size_t)(slash - path) - rl >= CL_PATH_MAX) {
		*why = "no directory to keep it in";
		return 1;
	}
	char *keep_dir = strndup(path + rl, (size_t)(slash - path) - rl);
	if (!keep_dir)
		return -1;
	struct inputs in = { .n = 0 };
	int rc = gather(r, d, keep_dir, &in, why);
	free(keep_dir);
	struct timespec racy_from = { r->began.tv_sec - PREPARED_RACY_S, r->began.tv_nsec };
	struct prepared_decision kept = *d;
	kept.loader.path = !rc && keepable_loader(&kept.loader, &racy_from) ? kept.loader.path : NULL;
	size_t len = 0;
	char *text = rc ? NULL : compose(&in, &kept, &len);
	if (text && len >= PREPARED_CAP && kept.loader.path) {
		free(text);	/* the decision, if it fits, without the loader */
		kept.loader.path = NULL;
		text = compose(&in, &kept, &len);
	}
	inputs_free(&in);
	if (rc || !text)
		return rc ? rc : -1;
	char *copy = len < PREPARED_CAP ? strdup(text) : NULL;
	uint64_t key, stamp;
	struct prepared_view v;
	if (!copy || prepared_parse(copy, len, &key, &stamp, &v) < 0) {
		*why = len < PREPARED_CAP ? "cannot be written (out of memory or a path with a newline)"
					  : "longer than a prepared decision may be (PREPARED_CAP)";
		free(copy);
		free(text);
		return 1;
	}
	/* The stamp, in place of its placeholder, from the same stats that
	 * say whether an input is racy; then the modules, which have no times
	 * to tell: as they were before the probe, or nothing is kept. */
	bool racy = false;
	char hex[HEX + 1];
	snprintf(hex, sizeof hex, "%016llx", (unsigned long long)stamp_of(copy, &racy_from, &racy));
	memcpy(text + sizeof PREPARED_MAGIC + HEX + 1, hex, HEX);
	free(copy);
	if (racy || modules_identity(r->root) != r->modules) {
		*why = racy ? "an input changed less than a second before the probe (racy)"
			    : "a GPU driver module was loaded or unloaded meanwhile";
		free(text);
		return 1;
	}

	/* A link, put in place whole: a reader sees the old decision or the
	 * new one, never a part. */
	char *dir = strndup(path, (size_t)(slash - path));
	int dfd = dir ? open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC) : -1;
	rc = 1;
	if (!dir)
		*why = "out of memory";
	else if (dfd < 0 || atomic_symlink(dfd, slash + 1, text) < 0)
		*why = strerror(errno);
	else
		rc = 0;
	if (dfd >= 0)
		close(dfd);
	free(dir);
	free(text);
	return rc;
}
