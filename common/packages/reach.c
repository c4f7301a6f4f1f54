/* SPDX-License-Identifier: MIT */
#include "reach.h"

#include <dirent.h>
#include <elf.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../base/diag.h"
#include "../elf/elfread.h"
#include "../elf/ldcache.h"
#include "../elf/searchpath.h"

#define DIR_MAX 512		/* longer search-path entries are passed over */

const char *reach_origin_text(const char *origin)
{
	/* arrays, not pointers: no relocation for every start to apply */
	static const struct {
		char origin[24], text[56];
	} texts[] = {
		{ "CUDALOAD_COMPAT_PATH", "from CUDALOAD_COMPAT_PATH" },
		{ "config", "a compat line of the config" },
		{ "default", "a default place (/usr/local/cuda-*)" },
		{ "environment", "the program's conda environment" },
		{ "CONDA_PREFIX", "the conda environment CONDA_PREFIX names" },
		{ "DT_RPATH", "from the program's DT_RPATH" },
		{ "LD_LIBRARY_PATH", "from LD_LIBRARY_PATH" },
		{ "RUNPATH", "from the program's RUNPATH" },
		{ "ld.so.cache", "ld.so.cache entry" },
		{ "ld.so.conf", "named by an ld.so.conf file" },
		{ "toolkit", "the toolkit whose libcudart the program reaches" },
		{ "CUDA_HOME", "the toolkit CUDA_HOME names" },
		{ "CUDA_PATH", "the toolkit CUDA_PATH names" },
	};
	for (size_t i = 0; i < sizeof texts / sizeof *texts; i++)
		if (origin && strcmp(origin, texts[i].origin) == 0)
			return texts[i].text;
	return origin ? origin : "";
}

/* ---- the program's search paths ---- */

/* Do len bytes at vaddr lie in the file-backed part of one PT_LOAD? */
static bool in_load(const ElfW(Phdr) *ph, size_t phnum, uintptr_t vaddr, uintptr_t len)
{
	for (size_t i = 0; i < phnum; i++)
		if (ph[i].p_type == PT_LOAD && vaddr >= ph[i].p_vaddr && len <= ph[i].p_filesz &&
		    vaddr - ph[i].p_vaddr <= ph[i].p_filesz - len)
			return true;
	return false;
}

/* Is the string at name (avail bytes readable there) a CUDA runtime's
 * soname ("libcudart.so.12", "libcudart.so.11.0") that fits
 * REACH_CUDART_MAX? */
static bool cudart_name(const char *name, size_t avail)
{
	static const char prefix[] = "libcudart.so.";
	size_t l = strnlen(name, avail < REACH_CUDART_MAX ? avail : REACH_CUDART_MAX);
	return l < avail && l < REACH_CUDART_MAX && l > sizeof prefix - 1 &&
	       strncmp(name, prefix, sizeof prefix - 1) == 0;
}

/* The program's dynamic section as the kernel mapped it, with its string
 * table (the kernel relocates nothing: d_ptr values are link-time
 * addresses, bias + d_ptr where they lie). */
struct mapped {
	const ElfW(Phdr) *ph;
	size_t phnum;
	uintptr_t bias;
	const ElfW(Dyn) *dyn;
	size_t ndyn;
	const char *strs;	/* DT_STRTAB, or NULL: none, or not where the kernel mapped */
	uintptr_t strsz;
	/* the tags its readers look for, from the one pass over it */
	uintptr_t rpath, runpath;	/* offsets into strs, or UINTPTR_MAX: none */
	bool needed;			/* any DT_NEEDED */
	uintptr_t verneed, verneednum;	/* DT_VERNEED (link-time address), its count */
};

/* 1 with m filled, 0 for a static program, -1 when the image cannot tell
 * (no PT_PHDR, a section outside every PT_LOAD, which would fault here
 * before ld.so could say what is wrong). */
static int mapped_dynamic(const void *phdr, size_t phnum, size_t phent, struct mapped *m)
{
	if (!phdr || phent != sizeof(ElfW(Phdr)))
		return -1;
	const ElfW(Phdr) *ph = phdr, *dynph = NULL;
	bool have_bias = false;
	memset(m, 0, sizeof *m);
	m->ph = ph;
	m->phnum = phnum;
	for (size_t i = 0; i < phnum; i++) {
		if (ph[i].p_type == PT_PHDR) {
			m->bias = (uintptr_t)phdr - ph[i].p_vaddr;
			have_bias = true;
		} else if (ph[i].p_type == PT_DYNAMIC) {
			dynph = &ph[i];
		}
	}
	if (!have_bias)
		return -1;
	if (!dynph)
		return 0;
	if (!in_load(ph, phnum, dynph->p_vaddr, dynph->p_memsz))
		return -1;
	m->dyn = (const ElfW(Dyn) *)(m->bias + dynph->p_vaddr);
	m->ndyn = dynph->p_memsz / sizeof *m->dyn;
	uintptr_t strtab = 0;
	m->rpath = m->runpath = UINTPTR_MAX;
	for (size_t i = 0; i < m->ndyn && m->dyn[i].d_tag != DT_NULL; i++) {
		uintptr_t v = m->dyn[i].d_un.d_val;
		switch (m->dyn[i].d_tag) {
		case DT_STRTAB: strtab = v; break;
		case DT_STRSZ: m->strsz = v; break;
		case DT_RPATH: m->rpath = v; break;
		case DT_RUNPATH: m->runpath = v; break;
		case DT_NEEDED: m->needed = true; break;
		case DT_VERNEED: m->verneed = v; break;
		case DT_VERNEEDNUM: m->verneednum = v; break;
		}
	}
	if (m->strsz && in_load(ph, phnum, strtab, m->strsz))
		m->strs = (const char *)(m->bias + strtab);
	return 1;
}

int reach_paths_from_memory(const void *phdr, size_t phnum, size_t phent, const char **rpath,
			    const char **runpath, const char **cudart)
{
	*rpath = *runpath = NULL;
	if (cudart)
		*cudart = NULL;
	struct mapped m;
	int r = mapped_dynamic(phdr, phnum, phent, &m);
	if (r <= 0)
		return r;	/* 0: static, nothing to search */
	uintptr_t rp = m.rpath, rn = m.runpath;
	bool needed = m.needed;
	if (rp == UINTPTR_MAX && rn == UINTPTR_MAX && (!needed || !cudart))
		return 0;
	const char *strs = m.strs;
	uintptr_t strsz = m.strsz;
	if (!strs)
		return -1;
	if (rp != UINTPTR_MAX && rp < strsz && memchr(strs + rp, '\0', strsz - rp))
		*rpath = strs + rp;
	if (rn != UINTPTR_MAX && rn < strsz && memchr(strs + rn, '\0', strsz - rn))
		*runpath = strs + rn;
	/* the CUDA runtime the program needs: the toolkit it uses (search_path) */
	for (size_t i = 0; cudart && needed && i < m.ndyn && m.dyn[i].d_tag != DT_NULL; i++) {
		uintptr_t v = m.dyn[i].d_un.d_val;
		if (m.dyn[i].d_tag == DT_NEEDED && v < strsz && cudart_name(strs + v, strsz - v)) {
			*cudart = strs + v;
			break;
		}
	}
	return 0;
}

/* The number after "GLIBC_2." in name (avail bytes readable), or 0. */
static int glibc_2_minor(const char *name, size_t avail)
{
	static const char prefix[] = "GLIBC_2.";
	if (avail <= sizeof prefix - 1 || strncmp(name, prefix, sizeof prefix - 1) != 0)
		return 0;
	int minor = 0;
	for (size_t i = sizeof prefix - 1; i < avail && name[i] >= '0' && name[i] <= '9'; i++)
		if ((minor = minor * 10 + (name[i] - '0')) >= 1000)
			return 0;
	return minor;
}

int reach_glibc_floor(const void *phdr, size_t phnum, size_t phent)
{
	struct mapped m;
	if (mapped_dynamic(phdr, phnum, phent, &m) <= 0 || !m.strs)
		return 0;
	uintptr_t verneed = m.verneed, count = m.verneednum;
	const char *strs = m.strs;
	uintptr_t strsz = m.strsz;
	int best = 0;
	/* bounded walks: every entry checked to lie where the kernel mapped */
	for (uintptr_t vn = verneed, n = 0; vn && n < count && n < 64; n++) {
		if (!in_load(m.ph, m.phnum, vn, sizeof(ElfW(Verneed))))
			return 0;
		const ElfW(Verneed) *need = (const ElfW(Verneed) *)(m.bias + vn);
		bool libc = need->vn_file < strsz && strsz - need->vn_file >= sizeof "libc.so.6" &&
			    memcmp(strs + need->vn_file, "libc.so.6", sizeof "libc.so.6") == 0;
		uintptr_t ax = vn + need->vn_aux;
		for (unsigned k = 0; libc && k < need->vn_cnt && k < 64; k++) {
			if (!in_load(m.ph, m.phnum, ax, sizeof(ElfW(Vernaux))))
				return 0;
			const ElfW(Vernaux) *aux = (const ElfW(Vernaux) *)(m.bias + ax);
			int v = aux->vna_name < strsz ? glibc_2_minor(strs + aux->vna_name, strsz - aux->vna_name) : 0;
			if (v > best)
				best = v;
			if (!aux->vna_next)
				break;
			ax += aux->vna_next;
		}
		if (!need->vn_next)
			break;
		vn += need->vn_next;
	}
	return best;
}

/* The first libcudart.so.N among the file's DT_NEEDED names into cudart
 * (REACH_CUDART_MAX bytes), or "". */
#define NEEDED_MAX 4096
static void cudart_from_file(const struct elf_file *ef, const struct elf_phdr *phs, unsigned n,
			     char *cudart)
{
	char *names = malloc(NEEDED_MAX);
	unsigned count;
	cudart[0] = '\0';
	if (names && elfread_needed(ef, phs, n, names, NEEDED_MAX, &count) == 0)
		for (const char *p = names; *p; p += strlen(p) + 1)
			if (cudart_name(p, strlen(p) + 1)) {
				memcpy(cudart, p, strlen(p) + 1);
				break;
			}
	free(names);
}

int reach_paths_from_file(const char *program, char *rpath, char *runpath, char *cudart,
			  size_t cap)
{
	if (cudart)
		cudart[0] = '\0';
	int fd = open_ro(program, 0);
	if (fd < 0)
		return -1;
	struct elf_file ef;
	struct elf_phdr *phs = malloc(ELF_MAX_PHDRS * sizeof *phs);
	char why[96];
	unsigned n = 0;
	int r = -1;
	if (phs && elfread_open_fd(&ef, fd, why, sizeof why) == 0) {
		if (elfread_read_phdrs(&ef, phs, ELF_MAX_PHDRS, &n, why, sizeof why) == 0) {
			r = elfread_search_paths(&ef, phs, n, rpath, runpath, cap) < 0 ? -1 : 0;
			if (r == 0 && cudart)
				cudart_from_file(&ef, phs, n, cudart);
		}
		elfread_release(&ef);
	}
	free(phs);
	close(fd);
	return r;
}

int reach_discover_program(const char *root, int machine, const char *path, struct host *h,
			   struct candidates *c)
{
	struct reach r = { .root = root, .machine = machine, .program = path };
	char *full = root_path(root, path), *paths = malloc(2 * 1024 + REACH_CUDART_MAX);
	if (full && paths &&
	    reach_paths_from_file(full, paths, paths + 1024, paths + 2048, 1024) == 0) {
		r.rpath = paths;
		r.runpath = paths + 1024;
		r.cudart = paths[2048] ? paths + 2048 : NULL;
	}
	int rc = full && paths ? reach_discover(&r, h, c) : -1;
	root_path_free(full, path);
	free(paths);
	return rc;
}

/* ---- what a directory's libcuda is ---- */

struct ctx {
	const struct reach *r;
	struct host *h;
	struct candidates *c;
	int rc;
	char dir[DIR_MAX];
	char path[DIR_MAX], up[DIR_MAX], lex[DIR_MAX];	/* package_dir's */
};

/* Is dir one of the places the system driver lives: a host driver
 * directory, or a directory a distribution puts every library in? */
static bool system_place(const struct ctx *x, const char *dir)
{
	static const char more[][24] = { "/lib64", "/lib", "/lib/x86_64-linux-gnu",
					 "/lib/aarch64-linux-gnu" };
	for (int i = 0; i < x->h->n_driver_dirs; i++)
		if (strcmp(x->h->driver_dirs[i], dir) == 0)
			return true;
	for (const char *const *g = searchpath_library_dirs(x->r->machine); *g; g++)
		if (strcmp(*g, dir) == 0)
			return true;
	for (size_t i = 0; i < sizeof more / sizeof *more; i++)
		if (strcmp(more[i], dir) == 0)
			return true;
	return false;
}

bool reach_nvidia_only(const char *root, const char *dir)
{
	static const char prefixes[][20] = {
		"libcuda", "libnvidia-", "libnvcuvid", "libnvoptix", "libGLX_nvidia",
		"libEGL_nvidia", "libGLESv1_CM_nvidia", "libGLESv2_nvidia", "libvdpau_nvidia",
		"libnvrm", "libnvos", "libnvsciipc", "libnvdla", "libnvscf",
	};
	char *full = root_path(root, dir);
	DIR *d = full ? opendir(full) : NULL;
	root_path_free(full, dir);
	bool only = d != NULL;
	for (struct dirent *e; only && (e = readdir(d));) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		bool nv = false;
		for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes && !nv; i++)
			nv = strncmp(e->d_name, prefixes[i], strlen(prefixes[i])) == 0;
		only = nv;
	}
	if (d)
		closedir(d);
	return only;
}

static bool same_driver(const struct driver_version *a, const struct driver_version *b)
{
	return a->major == b->major && a->minor == b->minor && a->patch == b->patch;
}

/* The newest candidate is the system driver, by the version in its file
 * name: it is no candidate, and a directory of NVIDIA's files alone is a
 * driver directory of the host. */
static void system_found(struct ctx *x)
{
	struct candidate *c = &x->c->v[x->c->n - 1];
	diag("%s: libcuda.so.%s is the system driver (the kernel module's version)", c->dir,
	     x->h->driver_str);
	if (x->h->n_driver_dirs < MAX_DRIVER_DIRS && reach_nvidia_only(x->r->root, c->dir)) {
		x->h->driver_dirs[x->h->n_driver_dirs++] = c->dir;	/* kept until exit */
		x->h->n_reached_dirs++;
		c->dir = NULL;
	}
	free(c->source);
	free(c->dir);
	x->c->n--;
}

/* A directory that may hold a libcuda: a candidate unless it is the system
 * driver's. */
static void consider(struct ctx *x, const char *dir, const char *origin)
{
	if (x->rc < 0 || system_place(x, dir))
		return;
	int added = compat_add(x->r->root, dir, origin, x->c);
	if (added == -1)
		x->rc = -1;
	if (added != 1)
		return;
	struct candidate *c = &x->c->v[x->c->n - 1];
	if (x->h->have_driver && c->has_lib_driver && same_driver(&c->lib_driver, &x->h->driver))
		system_found(x);
}

/* stat(2) of dir/libcuda.so.1 under the root, the link followed, into st;
 * false when it is not there. */
static bool lib_stat(struct ctx *x, const char *dir, struct stat *st)
{
	size_t dl = strlen(dir);
	if (dl + sizeof "/libcuda.so.1" > sizeof x->path)
		return false;
	memcpy(x->path, dir, dl);
	memcpy(x->path + dl, "/libcuda.so.1", sizeof "/libcuda.so.1");
	return root_stat(x->r->root, x->path, st) == 0;
}

/* An absolute path without "." and ".." components or repeated slashes, in
 * place: a name, which may not be the same directory (package_dir checks). */
static void lexical(char *path)
{
	char *w = path;
	for (const char *p = path; *p;) {
		while (*p == '/')
			p++;
		size_t n = strcspn(p, "/");
		if (n == 0 || (n == 1 && p[0] == '.')) {
			p += n;
		} else if (n == 2 && p[0] == '.' && p[1] == '.') {
			while (w > path && *--w != '/')
				;
			p += n;
		} else {
			*w++ = '/';
			memmove(w, p, n);	/* w never runs ahead of p */
			w += n;
			p += n;
		}
	}
	if (w == path)
		*w++ = '/';
	*w = '\0';
}

static bool same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* The package a directory that names a libcuda.so.1 stands for.  Its
 * libcuda.so.1 may be a link into another directory: conda-forge's newer
 * activation links $PREFIX/lib/libcuda.so.1 to ../cuda-compat/libcuda.so.1,
 * and people make directories of links for LD_LIBRARY_PATH.  The package is
 * the directory whose own libcuda.so.1 is that same file: its versioned
 * file name and its JIT compiler lie there, and whatever names reach it, it
 * is one candidate (compat_add knows a directory by its identity).  x->dir
 * becomes that directory, named without ".." when that name is the same
 * directory (it is not where a component before the ".." is a link).
 * Cost: a readlink (consider_named calls it for a new candidate only); a
 * few stat calls more for each link into another directory, at most 8. */
static void package_dir(struct ctx *x)
{
	struct stat want, st;
	bool have_want = false;
	for (int hop = 0; hop < 8; hop++) {
		size_t dl = strlen(x->dir);
		if (dl + sizeof "/libcuda.so.1" > sizeof x->path)
			return;
		memcpy(x->path, x->dir, dl);
		memcpy(x->path + dl, "/libcuda.so.1", sizeof "/libcuda.so.1");
		char *full = root_path(x->r->root, x->path);
		ssize_t n = full ? readlink(full, x->up, sizeof x->up) : -1;
		root_path_free(full, x->path);
		if (n <= 0 || (size_t)n >= sizeof x->up)
			return;	/* no link (EINVAL), or a target too long to follow */
		x->up[n] = '\0';
		char *slash = strrchr(x->up, '/');
		if (!slash)
			return;	/* a file of the same directory */
		/* the target's directory: absolute, or from the link's own */
		size_t tl = (size_t)(slash - x->up), at = x->up[0] == '/' ? 0 : dl + 1;
		if (at + tl >= sizeof x->up)
			return;
		memmove(x->up + at, x->up, tl);
		if (at) {
			memcpy(x->up, x->dir, dl);
			x->up[dl] = '/';
		}
		x->up[at + tl] = '\0';
		if (!have_want && !(have_want = lib_stat(x, x->dir, &want)))
			return;
		memcpy(x->lex, x->up, at + tl + 1);
		lexical(x->lex);
		if (lib_stat(x, x->lex, &st) && same_file(&st, &want))
			memcpy(x->dir, x->lex, strlen(x->lex) + 1);
		else if (lib_stat(x, x->up, &st) && same_file(&st, &want))
			memcpy(x->dir, x->up, at + tl + 1);
		else
			return;	/* a link to a file its directory does not call libcuda.so.1 */
	}
}

/* A directory that names a libcuda.so.1 for ld.so (x->dir): a candidate
 * unless it is the system driver's, and the package it stands for in its
 * place.  Followed only when it is a new candidate: one known by this name
 * or as the same directory costs nothing more. */
static void consider_named(struct ctx *x, const char *origin)
{
	size_t n = x->c->n;
	consider(x, x->dir, origin);
	if (x->c->n != n + 1)
		return;
	package_dir(x);
	if (strcmp(x->dir, x->c->v[n].dir) == 0)
		return;
	compat_truncate(x->c, n);	/* the link's directory gives way */
	consider(x, x->dir, origin);
}

/* Does ROOT/dir/name exist?  One system call. */
static bool holds(const struct ctx *x, const char *dir, size_t dl, const char *name)
{
	size_t rl = root_len(x->r->root), nl = strlen(name);
	char *full = malloc(rl + dl + nl + 2);
	if (!full)
		return false;
	memcpy(full, x->r->root, rl);
	memcpy(full + rl, dir, dl);
	full[rl + dl] = '/';
	memcpy(full + rl + dl + 1, name, nl + 1);
	bool there = access(full, F_OK) == 0;
	free(full);
	return there;
}

/* Each entry of a search path: a candidate where it gives a libcuda.so.1;
 * with toolkit, also the compat/ of a toolkit whose libcudart it gives: the
 * libcudart.so.N the program needs, which a runtime install (no development
 * link) has too, else libcudart.so.  One access each. */
static void search_path(struct ctx *x, const char *list, const char *origin, bool toolkit)
{
	const char *rt = x->r->cudart ? x->r->cudart : "libcudart.so";
	const char *prog = x->r->program, *slash = prog ? strrchr(prog, '/') : NULL;
	size_t ol = slash ? (size_t)(slash - prog) : 0;
	for (const char *p = list; p && *p;) {
		size_t n = strcspn(p, ":;");
		size_t dl = searchpath_entry(p, n, prog, ol, x->dir, sizeof x->dir);
		if (dl && holds(x, x->dir, dl, "libcuda.so.1")) {
			consider_named(x, origin);
			/* x->dir may have become the package: the entry again */
			searchpath_entry(p, n, prog, ol, x->dir, sizeof x->dir);
		}
		if (dl && toolkit && holds(x, x->dir, dl, rt)) {
			char *up = strrchr(x->dir, '/');
			if (up && (strcmp(up, "/lib64") == 0 || strcmp(up, "/lib") == 0) &&
			    (size_t)(up - x->dir) + sizeof "/compat" <= sizeof x->dir) {
				strcpy(up, "/compat");
				consider(x, x->dir, "toolkit");
			}
		}
		p += n;
		if (*p)
			p++;
	}
}

static void cache_entry(const char *path, void *arg)
{
	struct ctx *x = arg;
	const char *slash = strrchr(path, '/');
	size_t dl = slash ? (size_t)(slash - path) : 0;
	if (!dl || dl >= sizeof x->dir)
		return;
	memcpy(x->dir, path, dl);
	x->dir[dl] = '\0';
	consider_named(x, "ld.so.cache");
}

bool reach_own_env(const char *program, char *out, size_t cap)
{
	const char *slash = program ? strrchr(program, '/') : NULL;
	size_t bl = slash ? (size_t)(slash - program) : 0;
	if (bl < 4 || strncmp(program + bl - 4, "/bin", 4) != 0 ||
	    bl - 4 + sizeof "/cuda-compat" > (cap < DIR_MAX ? cap : DIR_MAX))
		return false;
	memcpy(out, program, bl - 4);
	memcpy(out + bl - 4, "/cuda-compat", sizeof "/cuda-compat");
	return true;
}

/* PREFIX/cuda-compat for a program in PREFIX/bin; the prefix into x->dir. */
static bool own_env(struct ctx *x)
{
	if (!reach_own_env(x->r->own_name ? x->r->own_name : x->r->program, x->dir, sizeof x->dir))
		return false;
	x->dir[strlen(x->dir) - (sizeof "/cuda-compat" - 1)] = '\0';
	return true;
}

static void env_compat(struct ctx *x, const char *prefix, const char *origin)
{
	size_t pl = strlen(prefix);
	if (prefix[0] != '/' || pl + sizeof "/cuda-compat" > DIR_MAX)
		return;
	char *dir = malloc(pl + sizeof "/cuda-compat");
	if (!dir) {
		x->rc = -1;
		return;
	}
	memcpy(dir, prefix, pl);
	memcpy(dir + pl, "/cuda-compat", sizeof "/cuda-compat");
	consider(x, dir, origin);
	free(dir);
}

/* NGC: compat/ holds lib.real and, once the start-up script ran, a link
 * lib to it; without the script nothing names the files.  A compat/
 * without libcuda.so.1 gives way to its lib.real. */
static void ngc_lib_real(struct ctx *x)
{
	for (size_t i = 0; i < x->c->n && x->rc == 0; i++) {
		struct candidate *c = &x->c->v[i];
		size_t dl = strlen(c->dir);
		struct stat st;
		if (c->has_lib || dl < 7 || strcmp(c->dir + dl - 7, "/compat") != 0 ||
		    dl + sizeof "/lib.real" > sizeof x->dir)
			continue;
		memcpy(x->dir, c->dir, dl);
		memcpy(x->dir + dl, "/lib.real", sizeof "/lib.real");
		consider(x, x->dir, c->origin);
		c = &x->c->v[i];
		/* lib.real, just added or found before by another name */
		size_t k = x->c->n;
		if (root_stat(x->r->root, x->dir, &st) == 0)
			for (k = 0; k < x->c->n; k++)
				if (x->c->v[k].dev == st.st_dev && x->c->v[k].ino == st.st_ino)
					break;
		if (k == x->c->n || !x->c->v[k].has_lib)
			continue;
		/* the real files take the place of the empty compat/ */
		free(c->source);
		free(c->dir);
		if (k == x->c->n - 1 && k > i) {
			*c = x->c->v[k];
		} else {
			memmove(c, c + 1, (x->c->n - i - 1) * sizeof *c);
			i--;
		}
		x->c->n--;
	}
}

/* An ld.so.conf line: a candidate where its directory holds a libcuda.so.1,
 * the file that names it said. */
static bool conf_line(const char *file, const char *dir, size_t len, void *arg)
{
	struct ctx *x = arg;
	while (len > 1 && dir[len - 1] == '/')
		len--;
	if (dir[0] != '/' || len >= sizeof x->dir)
		return x->rc == 0;
	memcpy(x->dir, dir, len);
	x->dir[len] = '\0';
	size_t n = x->c->n;
	if (holds(x, x->dir, len, "libcuda.so.1"))
		consider_named(x, "ld.so.conf");
	if (x->c->n > n && !x->c->v[n].source)
		x->c->v[n].source = strdup(file);
	return x->rc == 0;
}

struct conf_find {
	const char *dir;
	char *file;
};

static bool conf_names(const char *file, const char *dir, size_t len, void *arg)
{
	struct conf_find *f = arg;
	while (len > 1 && dir[len - 1] == '/')
		len--;
	if (strlen(f->dir) != len || strncmp(f->dir, dir, len) != 0)
		return true;
	f->file = strdup(file);
	return false;
}

int reach_discover(const struct reach *r, struct host *h, struct candidates *c)
{
	struct ctx *x = malloc(sizeof *x);
	if (!x)
		return -1;
	*x = (struct ctx){ .r = r, .h = h, .c = c };
	size_t first = c->n;
	/* What the environment names is looked at by each start that takes a
	 * prepared decision (prepared.h): not an input of one. */
	struct sys_seen *seen = sys_seen;
	sys_seen = NULL;
	/* the program's own environment, then another one's */
	bool own = own_env(x);
	if (own)
		env_compat(x, x->dir, "environment");
	if (r->conda_prefix && r->conda_prefix[0]) {
		bool skip = false;
		if (own && strcmp(x->dir, r->conda_prefix) != 0) {
			size_t pl = strlen(x->dir);
			memcpy(x->dir + pl, "/conda-meta", sizeof "/conda-meta");
			skip = root_is_dir(r->root, x->dir);
			if (skip)
				diag("CONDA_PREFIX %s: the program lives in an environment of its own",
				     r->conda_prefix);
		}
		if (!skip)
			env_compat(x, r->conda_prefix, "CONDA_PREFIX");
	}
	sys_seen = seen;
	/* what names a libcuda.so.1 for ld.so, in ld.so's order */
	bool runpath = r->runpath && r->runpath[0];	/* then DT_RPATH counts for nothing */
	search_path(x, runpath ? NULL : r->rpath, "DT_RPATH", false);
	search_path(x, r->llp, "LD_LIBRARY_PATH", true);
	search_path(x, r->runpath, "RUNPATH", true);
	if (r->cuda_home && r->cuda_home[0] == '/' && strlen(r->cuda_home) + sizeof "/compat" <= sizeof x->dir) {
		snprintf(x->dir, sizeof x->dir, "%s/compat", r->cuda_home);
		sys_seen = NULL;	/* the environment's, as above */
		consider(x, x->dir, r->cuda_home_from);
		sys_seen = seen;
	}
	if (x->rc == 0)
		ldcache_find(r->root, "libcuda.so.1", r->machine, cache_entry, x);
	if (x->rc == 0 && r->conf)
		searchpath_conf_lines(r->root, conf_line, x);
	if (x->rc == 0)
		ngc_lib_real(x);
	/* which ld.so.conf file made a cache entry: said, not needed */
	for (size_t i = first; r->explain && i < c->n; i++) {
		if (strcmp(c->v[i].origin, "ld.so.cache") != 0)
			continue;
		struct conf_find f = { c->v[i].dir, NULL };
		searchpath_conf_lines(r->root, conf_names, &f);
		c->v[i].source = f.file;
	}
	int rc = x->rc;
	free(x);
	return rc;
}
