/* SPDX-License-Identifier: MIT */
#include "closure.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../common/base/array.h"
#include "../../common/elf/elfread.h"
#include "../../common/base/sys.h"

#define MAX_LINKS 40		/* symbolic links on one path, as the kernel's */
#define MAX_DEPTH 64		/* libraries deep: a chain longer is no real program */
#define MAX_CONF_NEST 8		/* ld.so.conf includes inside includes */
#define NEEDED_CAP 8192		/* the DT_NEEDED names of one object */

/* What one library is, read once. */
struct lib {
	char *path;		/* in the image, links resolved */
	int cls, machine;
	char *needed;		/* NUL-separated names, an empty one last */
	char *rpath, *runpath;	/* "" when none */
	bool elf;		/* read as ld.so reads it; never matched when not */
	signed char self;	/* the caller's rule: 1, 0, -1 not asked yet */
	signed char closure;	/* -2 not yet, 2 being walked, 0, 1 */
	char *why;		/* what says so, when self is 1 */
	char *via;		/* the way to a CUDA library, when closure is 1 */
};

struct closure {
	char *root;		/* without a trailing slash; "" for / */
	closure_judge judge;
	void *ctx;
	char **conf;		/* ld.so.conf directories, in order */
	size_t n_conf, cap_conf;
	bool conf_read;
	struct lib **libs;	/* open addressing on path, a power of two */
	size_t n_libs, cap_libs;
};

/* ---- paths inside the root ------------------------------------------------ */

int closure_resolve(const char *root, const char *path, char *out, size_t cap)
{
	char *rest = malloc(CL_PATH_MAX), *link = malloc(CL_PATH_MAX), *full = malloc(CL_PATH_MAX);
	int r = 0, links = 0;
	size_t rl = root_len(root), n = 0;
	if (!rest || !link || !full || cap < 2) {
		r = -ENOMEM;
		goto out;
	}
	if (snprintf(rest, CL_PATH_MAX, "%s", path) >= CL_PATH_MAX) {
		r = -ENAMETOOLONG;
		goto out;
	}
	out[0] = '\0';
	for (char *p = rest; *p;) {
		while (*p == '/')
			p++;
		if (!*p)
			break;
		size_t cl = strcspn(p, "/");
		if (cl == 1 && p[0] == '.') {
			p += cl;
			continue;
		}
		if (cl == 2 && p[0] == '.' && p[1] == '.') {
			char *slash = strrchr(out, '/');	/* never above the root */
			n = slash ? (size_t)(slash - out) : 0;
			out[n] = '\0';
			p += cl;
			continue;
		}
		if (n + 1 + cl >= cap) {
			r = -ENAMETOOLONG;
			goto out;
		}
		out[n] = '/';
		memcpy(out + n + 1, p, cl);
		out[n + 1 + cl] = '\0';
		p += cl;
		if (snprintf(full, CL_PATH_MAX, "%.*s%s", (int)rl, root, out) >= CL_PATH_MAX) {
			r = -ENAMETOOLONG;
			goto out;
		}
		struct stat st;
		if (lstat(full, &st) < 0) {
			r = -errno;
			goto out;
		}
		if (!S_ISLNK(st.st_mode)) {
			n += 1 + cl;
			continue;
		}
		if (++links > MAX_LINKS) {
			r = -ELOOP;
			goto out;
		}
		ssize_t ll = readlink(full, link, CL_PATH_MAX - 1);
		if (ll < 0) {
			r = -errno;
			goto out;
		}
		link[ll] = '\0';
		/* the link's target, then what was left of the path */
		if ((size_t)ll + 1 + strlen(p) >= CL_PATH_MAX) {
			r = -ENAMETOOLONG;
			goto out;
		}
		memmove(rest + ll + 1, p, strlen(p) + 1);
		memcpy(rest, link, (size_t)ll);
		rest[ll] = '/';
		p = rest;
		if (link[0] == '/')
			n = 0;	/* absolute: from the root again */
		out[n] = '\0';
	}
	if (!out[0])
		snprintf(out, cap, "/");
out:
	free(full);
	free(link);
	free(rest);
	return r;
}

/* ---- the image's ld.so.conf ----------------------------------------------- */

static int conf_add(struct closure *c, const char *dir, size_t len)
{
	while (len > 1 && dir[len - 1] == '/')
		len--;
	for (size_t i = 0; i < c->n_conf; i++)
		if (strlen(c->conf[i]) == len && strncmp(c->conf[i], dir, len) == 0)
			return 0;
	if (array_room(&c->conf, c->n_conf, &c->cap_conf, sizeof *c->conf, 8) < 0 ||
	    !(c->conf[c->n_conf] = strndup(dir, len)))
		return -1;
	c->n_conf++;
	return 0;
}

static int conf_file(struct closure *c, const char *path, int depth);

/* "include PATTERN": relative to the including file's directory. */
static int conf_include(struct closure *c, const char *from, const char *pattern, int depth)
{
	char pat[CL_PATH_MAX];
	const char *slash = strrchr(from, '/');
	if (pattern[0] == '/')
		snprintf(pat, sizeof pat, "%s%s", c->root, pattern);
	else
		snprintf(pat, sizeof pat, "%s%.*s/%s", c->root, slash ? (int)(slash - from) : 0, from,
			 pattern);
	glob_t g;
	if (glob(pat, 0, NULL, &g) != 0)
		return 0;	/* nothing matched: ldconfig says nothing either */
	int r = 0;
	size_t rl = strlen(c->root);
	for (size_t i = 0; i < g.gl_pathc && r == 0; i++)
		r = conf_file(c, g.gl_pathv[i] + rl, depth + 1);
	globfree(&g);
	return r;
}

static int conf_file(struct closure *c, const char *path, int depth)
{
	if (depth > MAX_CONF_NEST)
		return 0;
	char full[CL_PATH_MAX];
	snprintf(full, sizeof full, "%s%s", c->root, path);
	FILE *f = fopen(full, "re");
	if (!f)
		return 0;
	char line[CL_PATH_MAX];
	int r = 0;
	while (r == 0 && fgets(line, sizeof line, f)) {
		line[strcspn(line, "#\n")] = '\0';
		char *s = line + strspn(line, " \t");
		size_t n = strlen(s);
		while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
			s[--n] = '\0';
		if (!n || strncmp(s, "hwcap ", 6) == 0)
			continue;
		if (strncmp(s, "include", 7) == 0 && (s[7] == ' ' || s[7] == '\t')) {
			char *pat = s + 7 + strspn(s + 7, " \t");
			r = conf_include(c, path, pat, depth);
		} else if (s[0] == '/') {
			r = conf_add(c, s, n);
		}
	}
	fclose(f);
	return r;
}

/* ---- libraries, once each -------------------------------------------------- */

static uint64_t hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h;
}

static struct lib **slot(struct closure *c, const char *path)
{
	size_t mask = c->cap_libs - 1;
	for (size_t i = hash(path) & mask;; i = (i + 1) & mask)
		if (!c->libs[i] || strcmp(c->libs[i]->path, path) == 0)
			return &c->libs[i];
}

static int grow_libs(struct closure *c)
{
	size_t cap = c->cap_libs ? c->cap_libs * 2 : 256;
	struct lib **old = c->libs;
	size_t old_cap = c->cap_libs;
	if (!(c->libs = calloc(cap, sizeof *c->libs))) {
		c->libs = old;
		return -1;
	}
	c->cap_libs = cap;
	for (size_t i = 0; i < old_cap; i++)
		if (old[i])
			*slot(c, old[i]->path) = old[i];
	free(old);
	return 0;
}

static void lib_free(struct lib *l)
{
	if (!l)
		return;
	free(l->via);
	free(l->why);
	free(l->runpath);
	free(l->rpath);
	free(l->needed);
	free(l->path);
	free(l);
}

/* The caller's rule for l, on fd when open (-1: opened here).  false when
 * out of memory. */
static bool lib_judge(struct closure *c, struct lib *l, int fd)
{
	char full[CL_PATH_MAX], said[128] = "";
	snprintf(full, sizeof full, "%s%s", c->root, l->path);
	int own = fd < 0 ? (fd = open(full, O_RDONLY | O_CLOEXEC)) : -1;
	l->self = fd >= 0 && c->judge(c->ctx, fd, full, said, sizeof said) == 1;
	if (own >= 0)
		close(own);
	return !l->self || (l->why = strdup(said));
}

/* Read what ld.so reads of the file at path in the image (links resolved),
 * and, for a library (judge_now), judge it while it is open: a program the
 * caller judged already is asked only if it is found as a library too.
 * NULL when out of memory. */
static struct lib *lib_read(struct closure *c, const char *path, bool judge_now)
{
	if (2 * (c->n_libs + 1) > c->cap_libs && grow_libs(c) < 0)
		return NULL;
	struct lib **s = slot(c, path);
	if (*s)
		return *s;
	struct lib *l = calloc(1, sizeof *l);
	char *full = malloc(CL_PATH_MAX), *rpath = malloc(CL_PATH_MAX), *runpath = malloc(CL_PATH_MAX);
	char *needed = malloc(NEEDED_CAP), why[128] = "";
	bool ok = l && full && rpath && runpath && needed && (l->path = strdup(path));
	if (!ok) {
		free(needed), free(runpath), free(rpath), free(full);
		if (l)
			free(l->path);
		free(l);
		return NULL;
	}
	l->self = -1;
	l->closure = -2;
	snprintf(full, CL_PATH_MAX, "%s%s", c->root, path);
	int fd = open(full, O_RDONLY | O_CLOEXEC);
	struct elf_file ef;
	struct elf_phdr ph[ELF_MAX_PHDRS];
	unsigned nph = 0, nneeded = 0;
	if (fd >= 0 && elfread_open_fd(&ef, fd, why, sizeof why) == 0) {
		l->cls = ef.cls;
		l->machine = ef.machine;
		if ((ef.type == ET_DYN || ef.type == ET_EXEC) &&
		    elfread_read_phdrs(&ef, ph, ELF_MAX_PHDRS, &nph, why, sizeof why) == 0 &&
		    elfread_needed(&ef, ph, nph, needed, NEEDED_CAP, &nneeded) == 0 &&
		    elfread_search_paths(&ef, ph, nph, rpath, runpath, CL_PATH_MAX) == 0) {
			l->elf = true;
			ok = !judge_now || lib_judge(c, l, fd);
		}
		elfread_release(&ef);
	}
	if (fd >= 0)
		close(fd);
	if (!l->elf)
		needed[0] = rpath[0] = runpath[0] = '\0';
	size_t nl = 0;
	while (needed[nl])
		nl += strlen(needed + nl) + 1;	/* the names and the empty one after them */
	ok = ok && (l->needed = malloc(nl + 1)) && memcpy(l->needed, needed, nl + 1) &&
	     (l->rpath = strdup(rpath)) &&
	     (l->runpath = strdup(runpath));
	free(needed), free(runpath), free(rpath), free(full);
	if (!ok) {
		lib_free(l);
		return NULL;
	}
	*s = l;
	c->n_libs++;
	return l;
}

/* ---- search ------------------------------------------------------------------ */

static const char *triplet(int machine)
{
	switch (machine) {
	case EM_X86_64: return "x86_64-linux-gnu";
	case EM_AARCH64: return "aarch64-linux-gnu";
	case EM_386: return "i386-linux-gnu";
	case EM_ARM: return "arm-linux-gnueabihf";
	case EM_PPC64: return "powerpc64le-linux-gnu";
	case EM_RISCV: return "riscv64-linux-gnu";
	default: return NULL;
	}
}

/* One search directory with $ORIGIN, $LIB and $PLATFORM (bare or in
 * braces) expanded: Debian's $LIB is the multiarch directory. */
static bool expand(const char *dir, size_t len, const char *origin, int machine,
		   char *out, size_t cap)
{
	static const char *const names[] = { "ORIGIN", "LIB", "PLATFORM" };
	char lib[64];
	const char *t = triplet(machine), *plat = elfread_machine_name(machine);
	snprintf(lib, sizeof lib, "lib/%s", t ? t : "");
	const char *vals[] = { origin, t ? lib : "lib", plat ? plat : "" };
	size_t n = 0;
	for (size_t i = 0; i < len;) {
		size_t skip = 0;
		int k = 0;
		for (; dir[i] == '$' && k < 3 && !skip; k++) {
			size_t nl = strlen(names[k]), left = len - i - 1;
			char after = left > nl ? dir[i + 1 + nl] : '\0';
			if (left >= nl && strncmp(dir + i + 1, names[k], nl) == 0 &&
			    !(after == '_' || (after >= 'A' && after <= 'Z') || (after >= '0' && after <= '9')))
				skip = 1 + nl;
			else if (left >= nl + 2 && dir[i + 1] == '{' &&
				 strncmp(dir + i + 2, names[k], nl) == 0 && dir[i + 2 + nl] == '}')
				skip = 3 + nl;
		}
		const char *val = skip ? vals[k - 1] : NULL;
		size_t vl = val ? strlen(val) : 1;
		if (n + vl >= cap)
			return false;
		if (val) {
			memcpy(out + n, val, vl);
			i += skip;
		} else {
			out[n] = dir[i++];
		}
		n += vl;
	}
	out[n] = '\0';
	return true;
}

/* ld.so's order through one list ("a:b"), expanded for the object at
 * origin: the first ELF of the program's class and machine named name. */
static struct lib *in_list(struct closure *c, const char *list, const char *origin,
			   const char *name, int cls, int machine, bool *oom)
{
	char dir[CL_PATH_MAX], cand[CL_PATH_MAX], real[CL_PATH_MAX];
	for (const char *p = list; *p;) {
		size_t l = strcspn(p, ":");
		if (l && expand(p, l, origin, machine, dir, sizeof dir) && dir[0] == '/' &&
		    snprintf(cand, sizeof cand, "%s/%s", dir, name) < (int)sizeof cand &&
		    closure_resolve(c->root, cand, real, sizeof real) == 0) {
			struct lib *lib = lib_read(c, real, true);
			if (!lib) {
				*oom = true;
				return NULL;
			}
			if (lib->elf && lib->cls == cls && lib->machine == machine)
				return lib;
		}
		p += l;
		if (*p == ':')
			p++;
	}
	return NULL;
}

static void origin_of(const char *path, char *out, size_t cap)
{
	const char *slash = strrchr(path, '/');
	snprintf(out, cap, "%.*s", slash && slash != path ? (int)(slash - path) : 1, slash ? path : "/");
}

/* The loaders above an object, for DT_RPATH. */
struct chain {
	const struct lib *lib;
	const struct chain *up;
};

static struct lib *find(struct closure *c, const struct chain *at, const char *name, bool *oom)
{
	const struct lib *o = at->lib;
	char origin[CL_PATH_MAX];
	if (strchr(name, '/')) {
		char real[CL_PATH_MAX];
		if (name[0] != '/' || closure_resolve(c->root, name, real, sizeof real) != 0)
			return NULL;
		struct lib *l = lib_read(c, real, true);
		if (!l)
			*oom = true;
		return l && l->elf && l->cls == o->cls && l->machine == o->machine ? l : NULL;
	}
	struct lib *l = NULL;
	if (!o->runpath[0])
		for (const struct chain *k = at; k && !l && !*oom; k = k->up) {
			if (k->lib->runpath[0] || !k->lib->rpath[0])
				continue;
			origin_of(k->lib->path, origin, sizeof origin);
			l = in_list(c, k->lib->rpath, origin, name, o->cls, o->machine, oom);
		}
	if (!l && !*oom && o->runpath[0]) {
		origin_of(o->path, origin, sizeof origin);
		l = in_list(c, o->runpath, origin, name, o->cls, o->machine, oom);
	}
	if (!c->conf_read) {
		c->conf_read = true;
		if (conf_file(c, "/etc/ld.so.conf", 0) < 0)
			*oom = true;
	}
	for (size_t i = 0; !l && !*oom && i < c->n_conf; i++)
		l = in_list(c, c->conf[i], "", name, o->cls, o->machine, oom);
	if (!l && !*oom) {
		const char *t = triplet(o->machine);
		bool wide = o->cls == ELFCLASS64 && o->machine != EM_AARCH64;
		char defaults[256];
		snprintf(defaults, sizeof defaults, "%s%s%s%s%s%s/lib:/usr/lib",
			 t ? "/lib/" : "", t ? t : "", t ? ":/usr/lib/" : "", t ? t : "", t ? ":" : "",
			 wide ? "/lib64:/usr/lib64:" : "");
		l = in_list(c, defaults, "", name, o->cls, o->machine, oom);
	}
	return l;
}

/* Through the needed names: first whether one of them is itself a CUDA
 * library, then, in order, what each one needs, so that the reason names
 * the shortest way found ("a > b (what says so)"). */
static int walk(struct closure *c, const struct chain *at, int depth, char *why, size_t cap)
{
	struct lib *o = (struct lib *)at->lib;
	if (depth > MAX_DEPTH)
		return 0;
	o->closure = 2;
	int found = 0;
	bool oom = false;
	char sub[512];
	for (int pass = 0; pass < 2 && !found && !oom; pass++)
		for (const char *name = o->needed; *name && !found && !oom; name += strlen(name) + 1) {
			struct lib *l = find(c, at, name, &oom);
			if (!l)
				continue;
			if (pass == 0) {
				if (l->self < 0 && !lib_judge(c, l, -1)) {
					oom = true;
					break;
				}
				if (l->self == 1) {
					snprintf(sub, sizeof sub, "%s (%s)", name, l->why);
					found = 1;
				}
				continue;
			}
			if (l->closure == -2) {
				struct chain next = { l, at };
				char inner[512];
				int r = walk(c, &next, depth + 1, inner, sizeof inner);
				if (r < 0)
					return -1;
				if (r == 1) {
					snprintf(sub, sizeof sub, "%s > %s", name, inner);
					found = 1;
				}
			} else if (l->closure == 1) {
				snprintf(sub, sizeof sub, "%s > %s", name, l->via);
				found = 1;
			}
		}
	if (found) {
		snprintf(why, cap, "%s", sub);
		if (!o->via && !(o->via = strdup(sub)))
			oom = true;
	}
	if (oom)
		return -1;
	o->closure = (signed char)found;
	return found;
}

/* ---- the interface ------------------------------------------------------- */

struct closure *closure_new(const char *root, closure_judge judge, void *ctx)
{
	struct closure *c = calloc(1, sizeof *c);
	if (!c || !(c->root = strndup(root ? root : "", root_len(root ? root : "")))) {
		free(c);
		return NULL;
	}
	c->judge = judge;
	c->ctx = ctx;
	return c;
}

void closure_free(struct closure *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->cap_libs; i++)
		lib_free(c->libs[i]);
	free(c->libs);
	for (size_t i = 0; i < c->n_conf; i++)
		free(c->conf[i]);
	free(c->conf);
	free(c->root);
	free(c);
}

size_t closure_libraries(const struct closure *c)
{
	return c->n_libs;
}

int closure_uses_cuda(struct closure *c, const char *path, char *why, size_t cap)
{
	size_t rl = strlen(c->root);
	char real[CL_PATH_MAX];
	if (cap)
		why[0] = '\0';
	/* the program's path in the image: below the root */
	if (strncmp(path, c->root, rl) != 0 || (path[rl] != '/' && rl) ||
	    closure_resolve(c->root, path + rl, real, sizeof real) != 0)
		return 0;
	struct lib *prog = lib_read(c, real, false);	/* the caller judged it */
	if (!prog)
		return -1;
	if (!prog->elf)
		return 0;
	if (prog->closure == -2) {
		struct chain top = { prog, NULL };
		char inner[512];
		int r = walk(c, &top, 0, inner, sizeof inner);
		if (r < 0)
			return -1;
	}
	if (prog->closure != 1)
		return 0;
	snprintf(why, cap, "through %s", prog->via);
	return 1;
}
