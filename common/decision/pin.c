/* SPDX-License-Identifier: MIT */
#include "pin.h"

#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../base/diag.h"
#include "../elf/elfread.h"
#include "../elf/ldcache.h"
#include "../packages/reach.h"
#include "../elf/searchpath.h"
#include "../packages/secure.h"

/* libcuda.so.1 and what it dlopens itself (the JIT compiler, NVVM, the
 * debugger): a system libcuda with a compat JIT compiler is a mismatch too.
 * libcuda.so for programs that open the unversioned name (numba, Blender's
 * cuew). */
const char *const pin_names[] = {
	"libcuda.so.1", "libcuda.so", "libnvidia-ptxjitcompiler.so.1",
	"libnvidia-nvvm.so.4", "libcudadebugger.so.1",
};

bool pin_needed(const struct candidates *c, int prog_class, int prog_machine)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->v[i].has_lib && c->v[i].elf_class == prog_class &&
		    c->v[i].elf_machine == prog_machine)
			return true;
	return false;
}

static bool is_candidate_dir(const struct candidates *c, const char *dir)
{
	for (size_t i = 0; i < c->n; i++)
		if (strcmp(c->v[i].dir, dir) == 0)
			return true;
	return false;
}

/* a (al bytes), b (bl bytes) and c joined, malloc'd; NULL when out of memory. */
static char *joined(const char *a, size_t al, const char *b, size_t bl, const char *c)
{
	size_t cl = strlen(c);
	char *out = malloc(al + bl + cl + 1);
	if (out) {
		memcpy(out, a, al);
		memcpy(out + al, b, bl);
		memcpy(out + al + bl, c, cl + 1);
	}
	return out;
}

/* Does dir (as on the target) hold a libcuda.so.1?  One system call. */
static bool has_libcuda(const char *root, const char *dir)
{
	char *full = joined(root, root_len(root), dir, strlen(dir), "/libcuda.so.1");
	sys_note(dir);	/* an input of a prepared decision: its entries say this */
	bool there = full && access(full, F_OK) == 0;
	free(full);
	return there;
}

const char *pin_system_dir(const char *root, const struct host *h, const struct candidates *c,
			   int machine, bool *driver_only)
{
	*driver_only = true;
	for (int i = 0; i < h->n_driver_dirs; i++)
		if (!is_candidate_dir(c, h->driver_dirs[i]) && has_libcuda(root, h->driver_dirs[i]))
			return h->driver_dirs[i];
	*driver_only = false;
	for (const char *const *g = searchpath_library_dirs(machine); *g; g++)
		if (has_libcuda(root, *g))
			return *g;
	return NULL;
}

void pin_system(const char *root, const char *self, const struct host *h,
		const struct candidates *c, int machine, bool secure, struct pin *out)
{
	memset(out, 0, sizeof *out);
	bool driver_only;	/* a host driver dir holds nothing else */
	out->system_dir = pin_system_dir(root, h, c, machine, &driver_only);
	if (!out->system_dir) {
		snprintf(out->why, sizeof out->why,
			 "no system libcuda.so.1 in the driver or library directories: nothing to pin");
		return;
	}
	/* The shipped links first: a driver's own directory may lack a name
	 * (JetPack's tegra/ has no libcuda.so on some releases), and then a
	 * compat one named elsewhere would still be found.  Their targets are
	 * the target's own root: a test root (CUDALOAD_ROOT) has none. */
	const char *slash = self ? strrchr(self, '/') : NULL;
	if (slash && !root_len(root)) {
		out->dir = joined(self, (size_t)(slash - self), PIN_SHIPPED_BASE,
				  sizeof PIN_SHIPPED_BASE - 1, out->system_dir);
		if (!out->dir)
			return;
		sys_note(out->dir);
		if (access(out->dir, F_OK) == 0) {
			out->links = true;
		} else {
			snprintf(out->why, sizeof out->why, "no pin directory %.120s", out->dir);
			pin_free(out);
		}
	} else {
		snprintf(out->why, sizeof out->why, "%s",
			 slash ? "no pin directories under CUDALOAD_ROOT"
			       : "cannot tell where cudaload lives, so not where its pin directories are");
	}
	if (!out->dir && driver_only) {
		/* secure_filter has kept only trusted driver dirs */
		out->dir = joined(root, root_len(root), "", 0, out->system_dir);
		if (!out->dir)
			return;
		out->why[0] = '\0';
	}
	if (out->dir && secure && !secure_path_trusted(out->dir)) {
		snprintf(out->why, sizeof out->why, "pin directory %.120s is not trusted (secure mode)",
			 out->dir);
		pin_free(out);
	}
}

void pin_free(struct pin *p)
{
	free(p->dir);
	p->dir = NULL;
}

/* ---- what the pin holds against, for --explain and the trace ---- */

#define MAX_RIVALS 16

struct rivals {
	const char *root;
	char *chosen;		/* real path of the chosen libcuda.so.1, or NULL */
	char *first;		/* the one ld.so finds first, when not the chosen one */
	char **lines;
	int n;
};

/* The real path of dir/libcuda.so.1 under root, as on the target; NULL when
 * there is none. */
static char *libcuda_in(const char *root, const char *dir, size_t dl)
{
	size_t rl = root_len(root);
	char *full = joined(root, rl, dir, dl, "/libcuda.so.1");
	char *real = full ? realpath(full, NULL) : NULL;
	free(full);
	if (real && rl)
		memmove(real, real + rl, strlen(real + rl) + 1);
	return real;
}

__attribute__((format(printf, 2, 3)))
static void rival(struct rivals *r, const char *fmt, ...)
{
	if (r->n >= MAX_RIVALS)
		return;
	va_list ap;
	va_start(ap, fmt);
	int len = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	char *line = len >= 0 ? malloc((size_t)len + 1) : NULL;
	if (!line)
		return;
	va_start(ap, fmt);
	vsnprintf(line, (size_t)len + 1, fmt, ap);
	va_end(ap);
	r->lines[r->n++] = line;
}

/* Does the directory (len bytes at dir) give another libcuda.so.1?  With
 * first, one ld.so meets before the chosen one: the first such is the file
 * the program loads. */
static bool other_driver_first(struct rivals *r, const char *dir, size_t len, bool first)
{
	if (!len || dir[0] != '/')
		return false;
	char *real = libcuda_in(r->root, dir, len);
	bool other = real && (!r->chosen || strcmp(real, r->chosen) != 0);
	if (other && first && !r->first)
		r->first = real;
	else
		free(real);
	return other;
}

/* Does the directory (len bytes at dir) give another libcuda.so.1? */
static bool other_driver(struct rivals *r, const char *dir, size_t len)
{
	return other_driver_first(r, dir, len, false);
}

/* Each entry of a search-path string that gives another driver.  $ORIGIN is
 * the program's directory. */
static void path_rivals(struct rivals *r, const char *list, const char *origin, size_t ol,
			const char *what, bool held)
{
	for (const char *p = list; *p;) {
		size_t n = strcspn(p, ":;");
		char dir[512];
		size_t dn = searchpath_entry(p, n, origin, ol, dir, sizeof dir);
		if (dn && other_driver_first(r, dir, dn, !held))
			rival(r, held ? "over %s %s" : "not held: %s %s gives its libcuda.so.1 first",
			      what, dir);
		p += n;
		if (*p)
			p++;
	}
}

/* The program's DT_RPATH and RUNPATH (2 KiB from rp), and LD_LIBRARY_PATH,
 * in ld.so's order: DT_RPATH (only without a DT_RUNPATH) before the library
 * path, and then nothing can hold against it. */
static void search_rivals(struct rivals *r, const char *program, const char *rp,
			  const char *llp, bool held)
{
	const char *slash = program ? strrchr(program, '/') : NULL;
	size_t ol = slash ? (size_t)(slash - program) : 0;
	if (rp && !rp[1024])
		path_rivals(r, rp, program, ol, "the program's DT_RPATH", false);
	if (llp)
		path_rivals(r, llp, "", 0, "LD_LIBRARY_PATH's", held);
	if (rp)
		path_rivals(r, rp + 1024, program, ol, "the program's RUNPATH", held);
}

/* ld.so.cache is made from these: an entry naming a directory with another
 * driver is one the cache will hold. */
struct conf_rival {
	struct rivals *r;
	bool held;
};

static bool conf_rival(const char *file, const char *dir, size_t len, void *arg)
{
	struct conf_rival *cr = arg;
	if (other_driver(cr->r, dir, len))
		rival(cr->r, cr->held ? "over ld.so.cache's entry %.*s, from %s"
				      : "not held: ld.so.cache's entry %.*s, from %s, gives its libcuda.so.1",
		      (int)len, dir, file);
	return true;
}

static void ldconf_rivals(struct rivals *r, bool held)
{
	struct conf_rival cr = { r, held };
	searchpath_conf_lines(r->root, conf_rival, &cr);
}

/* NUMBA_CUDA_DRIVER=/usr/local/cuda/compat/libcuda.so.1 and the like: a
 * program that opens a path gets that file, whatever the search list. */
static void env_rivals(struct rivals *r, char *const *envp)
{
	for (; envp && *envp; envp++) {
		const char *v = strchr(*envp, '=');
		if (!v || v[1] != '/' || !strstr(v, "/libcuda.so") || strchr(v, ':'))
			continue;
		const char *slash = strrchr(v + 1, '/');
		if (other_driver(r, v + 1, (size_t)(slash - v - 1)))
			rival(r, "not held: %.*s names a driver file by its path, which a program opens as it is",
			      (int)(v - *envp), *envp);
	}
}

/* ld.so takes the first of ld.so.cache's entries for the soname that suits
 * the machine (glibc elf/dl-cache.c, search_cache). */
struct cache_first {
	struct rivals *r;
	bool seen;
};

static void cache_first(const char *path, void *arg)
{
	struct cache_first *cf = arg;
	const char *slash = strrchr(path, '/');
	if (!cf->seen && slash)
		other_driver_first(cf->r, path, (size_t)(slash - path), true);
	cf->seen = true;
}

int pin_rivals(const char *root, const char *program, const char *chosen_dir, bool held,
	       const char *user_llp, char *const *envp, bool secure, int machine,
	       char **libcuda, char ***lines)
{
	struct rivals r = { root, NULL, NULL, calloc(MAX_RIVALS, sizeof(char *)), 0 };
	if (chosen_dir)
		r.chosen = libcuda_in(root, chosen_dir, strlen(chosen_dir));
	*libcuda = r.chosen;
	*lines = r.lines;
	if (!r.lines)
		return 0;
	/* the program is a path on this machine, not under the root */
	char *rp = program ? malloc(2 * 1024) : NULL;
	if (rp && reach_paths_from_file(program, rp, rp + 1024, NULL, 1024) < 0) {
		free(rp);
		rp = NULL;
	}
	search_rivals(&r, program, rp, user_llp && !secure ? user_llp : NULL, held);
	free(rp);
	ldconf_rivals(&r, held);
	if (!held && !r.first) {
		struct cache_first cf = { &r, false };
		ldcache_find(root, "libcuda.so.1", machine, cache_first, &cf);
	}
	if (!secure)
		env_rivals(&r, envp);
	if (r.first) {
		/* the libcuda line names what the program will load */
		free(r.chosen);
		*libcuda = r.first;
	}
	return r.n;
}
