/* SPDX-License-Identifier: MIT */
#include "compat.h"

#include <dirent.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <elf.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diag.h"
#include "elfread.h"
#include "tables.h"

int compat_dir_cuda(const char *dir)
{
	int found = 0;
	for (const char *p = dir; (p = strstr(p, "cuda-")); p++) {
		if (p != dir && p[-1] != '/')
			continue;
		const char *v = p + 5;
		int cuda = cuda_parse(v, true);
		size_t n = strspn(v, "0123456789.");
		if (cuda > 0 && (v[n] == '/' || v[n] == '\0'))
			found = cuda;	/* the last such component is the package's */
	}
	return found;
}

int compat_store_cuda(const char *dir)
{
	static const char tag[] = "-cuda_compat-";
	int found = 0;
	for (const char *p = dir; (p = strstr(p, tag)); p++) {
		const char *v = p + sizeof tag - 1;
		int cuda = cuda_parse(v, true);
		size_t n = strspn(v, "0123456789.");
		/* a store name ends at '/', or at '-' before an output name ("-lib") */
		if (cuda > 0 && (v[n] == '/' || v[n] == '\0' || v[n] == '-'))
			found = cuda;
	}
	return found;
}

void compat_apply_stated(const char *root, struct candidates *c, const char *const *patterns,
			 const int *cuda, int n)
{
	for (size_t k = 0; k < c->n; k++) {
		struct candidate *cand = &c->v[k];
		for (int i = 0; i < n; i++) {
			if (cuda[i] <= 0 || fnmatch(patterns[i], cand->dir, FNM_PATHNAME | FNM_PERIOD) != 0)
				continue;
			cand->stated_cuda = cuda[i];
			compat_settle_cuda(root, cand);
			break;
		}
	}
}

/* "libcuda.so.570.86.10" -> 570.86.10.  Jetson's "libcuda.so.1.1" is no driver. */
static bool driver_from_name(const char *name, struct driver_version *out)
{
	static const char prefix[] = "libcuda.so.";
	const char *slash = strrchr(name, '/');
	if (slash)
		name = slash + 1;
	return strncmp(name, prefix, sizeof prefix - 1) == 0 &&
	       driver_parse(name + sizeof prefix - 1, out) == 0 && out->major >= 100;
}

static void lib_driver(const char *libpath, const char *dirpath, struct candidate *c)
{
	char target[CL_PATH_MAX];
	ssize_t n = readlink(libpath, target, sizeof target - 1);
	if (n > 0) {
		target[n] = '\0';
		c->has_lib_driver = driver_from_name(target, &c->lib_driver);
		return;
	}
	if (errno != EINVAL)
		return;
	/* Not a link (copied packages, some store layouts): look for the versioned file. */
	DIR *d = opendir(dirpath);
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d)) && !c->has_lib_driver)
		c->has_lib_driver = driver_from_name(e->d_name, &c->lib_driver);
	closedir(d);
}

/* CUDA version from a version.json ("cuda": {"version": "12.2.140"}) beside
 * libcuda or in the directory above (a toolkit's /usr/local/cuda-X.Y), or
 * its version.txt ("CUDA Version 12.2.140"). */
static int version_file_cuda(const char *root, const char *dir)
{
	char path[CL_PATH_MAX], buf[2048];
	size_t dl = strlen(dir);
	const char *slash = strrchr(dir, '/');

	for (int up = 0; up < 2; up++) {
		int plen = up ? (slash ? (int)(slash - dir) : -1) : (int)dl;
		if (plen < 0 || (size_t)plen + 20 > sizeof path)
			break;
		snprintf(path, sizeof path, "%.*s/version.json", plen, dir);
		if (read_small(root, path, buf, sizeof buf) > 0) {
			const char *p = strstr(buf, "\"cuda\"");
			p = p ? strstr(p, "\"version\"") : NULL;
			p = p ? strchr(p + 9, ':') : NULL;
			p = p ? strchr(p, '"') : NULL;
			int v = p ? cuda_parse(p + 1, true) : -1;
			if (v > 0)
				return v;
		}
	}
	if (slash && (size_t)(slash - dir) + 20 <= sizeof path) {
		snprintf(path, sizeof path, "%.*s/version.txt", (int)(slash - dir), dir);
		if (read_small(root, path, buf, sizeof buf) > 0 &&
		    strncmp(buf, "CUDA Version ", 13) == 0) {
			int v = cuda_parse(buf + 13, true);
			return v > 0 ? v : 0;
		}
	}
	return 0;
}

void compat_settle_cuda(const char *root, struct candidate *c)
{
	int v;
	c->cuda = 0;
	c->cuda_from = NULL;
	if (c->has_note && c->note.cuda > 0) {
		c->cuda = c->note.cuda;
		c->cuda_from = "note";
	} else if (c->stated_cuda > 0) {
		c->cuda = c->stated_cuda;
		c->cuda_from = "stated";
	} else if ((v = compat_dir_cuda(c->dir)) > 0) {
		c->cuda = v;
		c->cuda_from = "directory";
	} else if ((v = compat_store_cuda(c->dir)) > 0) {
		c->cuda = v;
		c->cuda_from = "store name";
	} else if ((v = version_file_cuda(root, c->dir)) > 0) {
		c->cuda = v;
		c->cuda_from = "version file";
	} else if (c->has_lib_driver && (v = tables_branch_cuda(c->lib_driver.major)) > 0) {
		/* the weakest evidence: a guess through the branch table */
		c->cuda = v;
		c->cuda_from = "file name";
	}
}

void compat_examine(const char *root, const char *dir, const char *origin,
		    struct candidate *c)
{
	char dirpath[CL_PATH_MAX], libpath[CL_PATH_MAX], why[128] = "";

	memset(c, 0, sizeof *c);
	snprintf(c->dir, sizeof c->dir, "%s", dir);
	c->origin = origin;
	const char *base = strrchr(dir, '/');
	c->orin_only = base && strcmp(base + 1, "compat_orin") == 0;

	if (path_join(dirpath, sizeof dirpath, root, dir) < 0 ||
	    snprintf(libpath, sizeof libpath, "%s/libcuda.so.1", dirpath) >= (int)sizeof libpath) {
		snprintf(c->lib_problem, sizeof c->lib_problem, "path too long");
		return;
	}
	if (strpbrk(dirpath, ":;")) {
		snprintf(c->lib_problem, sizeof c->lib_problem,
			 "path contains ':' or ';', which a search list cannot hold");
		return;
	}

	int fd = open_ro(libpath, O_NONBLOCK);
	if (fd < 0) {
		snprintf(c->lib_problem, sizeof c->lib_problem, "libcuda.so.1: %s",
			 strerror(-fd));
	} else {
		struct elf_file ef;
		if (elf_open_fd(&ef, fd, why, sizeof why) < 0) {
			snprintf(c->lib_problem, sizeof c->lib_problem, "libcuda.so.1: %s", why);
		} else {
			c->has_lib = true;
			c->elf_class = ef.cls;
			c->elf_machine = ef.machine;
			char desc[4096];
			long n = elf_find_note(&ef, COMPAT_NOTE_SECTION, COMPAT_NOTE_OWNER,
					       desc, sizeof desc, why, sizeof why);
			if (n < 0 || (size_t)n >= sizeof desc) {
				diag("compat %s: note unreadable: %s", dir,
				     n < 0 ? why : "descriptor too long");
			} else if (n > 0) {
				if (notejson_parse(desc, (size_t)n, &c->note, why, sizeof why) == 0)
					c->has_note = true;
				else
					diag("compat %s: %s", dir, why);
			}
		}
		elf_release(&ef);
		close(fd);
		lib_driver(libpath, dirpath, c);
		/* the PTX JIT compiler must come from the same package: one system call */
		snprintf(libpath, sizeof libpath, "%s/libnvidia-ptxjitcompiler.so.1", dirpath);
		c->has_ptxjit = access(libpath, F_OK) == 0;
	}

	compat_settle_cuda(root, c);
}

static int push(struct candidates *out, const char *root, const char *dir,
		const char *origin)
{
	for (size_t i = 0; i < out->n; i++)
		if (strcmp(out->v[i].dir, dir) == 0)
			return 0;
	if (out->n == out->cap) {
		size_t cap = out->cap ? out->cap * 2 : 8;
		struct candidate *v = realloc(out->v, cap * sizeof *v);
		if (!v)
			return -1;
		out->v = v;
		out->cap = cap;
	}
	compat_examine(root, dir, origin, &out->v[out->n++]);
	return 0;
}

/* The entries of one directory, kept while the patterns are expanded: the
 * default patterns all list /usr/local, and cudaload counts its system calls. */
struct listing {
	char dir[CL_PATH_MAX];
	char **names;
	size_t n;
};

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void listing_free(struct listing *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->names[i]);
	free(l->names);
	memset(l, 0, sizeof *l);
}

static int listing_load(struct listing *l, const char *dir)
{
	if (l->names && strcmp(l->dir, dir) == 0)
		return 0;
	listing_free(l);
	snprintf(l->dir, sizeof l->dir, "%s", dir);
	int fd = open_ro(dir, O_DIRECTORY);
	if (fd < 0)
		return 0;	/* nothing there: no candidates */
	/* getdents64 straight into a stack buffer: opendir would add an fcntl
	 * and a heap buffer, and cudaload counts its system calls */
	_Alignas(8) char buf[4096];
	size_t cap = 0;
	long n;
	while ((n = syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0) {
		for (long pos = 0; pos < n;) {
			struct dirent64_head {
				uint64_t ino;
				int64_t off;
				unsigned short reclen;
				unsigned char type;
			} h;
			memcpy(&h, buf + pos, sizeof h);
			const char *name = buf + pos + offsetof(struct dirent64_head, type) + 1;
			if (h.reclen == 0 || h.reclen > n - pos)
				break;
			pos += h.reclen;
			if (name[0] == '.')
				continue;	/* like glob: a wildcard does not match a leading dot */
			if (l->n == cap) {
				char **v = realloc(l->names, (cap = cap ? cap * 2 : 16) * sizeof *v);
				if (!v)
					goto done;
				l->names = v;
			}
			if (!(l->names[l->n] = strndup(name, h.reclen)))
				goto done;
			l->n++;
		}
	}
done:
	close(fd);
	if (!l->names)
		l->names = calloc(1, sizeof *l->names);
	/* sorted, so equal versions keep a stable order */
	qsort(l->names, l->n, sizeof *l->names, by_name);
	return l->names ? 0 : -1;
}

/* Expand a pattern, one wildcard component at a time (like glob(3), without
 * its tilde and password-file baggage in a static loader). */
static int expand(const char *root, const char *pattern, const char *origin,
		  struct listing *cache, struct candidates *out, int depth)
{
	const char *wild = strpbrk(pattern, "*?[");
	if (!wild)
		return rooted_is_dir(root, pattern) ? push(out, root, pattern, origin) : 0;
	if (depth > 8)
		return 0;

	const char *comp = wild;
	while (comp > pattern && comp[-1] != '/')
		comp--;
	const char *rest = strchr(wild, '/');

	char parent[CL_PATH_MAX], full[CL_PATH_MAX], compbuf[256];
	size_t cl = rest ? (size_t)(rest - comp) : strlen(comp);
	if (cl >= sizeof compbuf ||
	    snprintf(parent, sizeof parent, "%.*s", (int)(comp - pattern), pattern) >= (int)sizeof parent ||
	    path_join(full, sizeof full, root, parent) < 0)
		return 0;
	memcpy(compbuf, comp, cl);
	compbuf[cl] = '\0';
	if (listing_load(cache, full) < 0)
		return -1;
	/* the names matched here, before a deeper level replaces the cache */
	char **names = calloc(cache->n + 1, sizeof *names);
	size_t n = 0;
	int rc = names ? 0 : -1;
	for (size_t i = 0; rc == 0 && i < cache->n; i++) {
		if (fnmatch(compbuf, cache->names[i], FNM_PERIOD) != 0)
			continue;
		if ((names[n] = strdup(cache->names[i])))
			n++;
		else
			rc = -1;
	}
	for (size_t i = 0; i < n && rc == 0; i++) {
		char sub[CL_PATH_MAX];
		if (snprintf(sub, sizeof sub, "%s%s%s", parent, names[i], rest ? rest : "") < (int)sizeof sub)
			rc = expand(root, sub, origin, cache, out, depth + 1);
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return rc;
}

static void missed(struct candidates *out, const char *entry, const char *origin,
		   const char *why)
{
	diag("compat %s (%s): %s", entry, origin, why);
	if (out->n_miss < COMPAT_MAX_MISSES)
		out->miss[out->n_miss++] = (struct compat_miss){ entry, origin, why };
}

int compat_discover(const char *root, const char *const *dirs, int n_dirs,
		    const char *const *patterns, int n_patterns, const char *pattern_origin,
		    struct candidates *out)
{
	struct listing cache = { 0 };
	int rc = 0;

	memset(out, 0, sizeof *out);
	for (int i = 0; i < n_dirs && rc == 0; i++) {
		if (dirs[i][0] != '/')
			missed(out, dirs[i], "CUDALOAD_COMPAT_PATH", "not an absolute path, ignored");
		else if (!rooted_is_dir(root, dirs[i]))
			missed(out, dirs[i], "CUDALOAD_COMPAT_PATH", "no such directory");
		else
			rc = push(out, root, dirs[i], "CUDALOAD_COMPAT_PATH");
	}
	for (int i = 0; i < n_patterns && rc == 0; i++) {
		if (patterns[i][0] != '/')
			continue;
		size_t before = out->n;
		rc = expand(root, patterns[i], pattern_origin, &cache, out, 0);
		/* the defaults are allowed to find nothing; a configured place is not */
		if (rc == 0 && out->n == before && strcmp(pattern_origin, "default") != 0)
			missed(out, patterns[i], pattern_origin,
			       strpbrk(patterns[i], "*?[") ? "matched nothing" : "no such directory");
	}
	listing_free(&cache);
	return rc;
}

void compat_free(struct candidates *c)
{
	free(c->v);
	memset(c, 0, sizeof *c);
}
