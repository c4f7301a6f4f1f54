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
#include <sys/stat.h>
#include <unistd.h>

#include "../base/alloc.h"
#include "../base/array.h"
#include "../base/diag.h"
#include "../elf/elfread.h"
#include "../host/tables.h"

int compat_dir_cuda(const char *dir)
{
	int found = 0;
	for (const char *p = dir; (p = strstr(p, "cuda-")); p++) {
		if (p != dir && p[-1] != '/')
			continue;
		const char *v = p + 5;
		int cuda = cuda_version_parse(v, true);
		size_t n = strspn(v, "0123456789.");
		if (cuda > 0 && (v[n] == '/' || v[n] == '\0'))
			found = cuda;	/* the last such component is the package's */
	}
	return found;
}

/* NVIDIA's redistributable names: cuda_compat, and cuda_compat_orin for
 * Orin's CUDA 13 packages (13.2.44429113 ... 13.5.47659993). */
static const char *const store_tags[] = { "-cuda_compat-", "-cuda_compat_orin-" };

int compat_store_cuda(const char *dir)
{
	int found = 0;
	for (size_t t = 0; t < sizeof store_tags / sizeof *store_tags; t++) {
		size_t tl = strlen(store_tags[t]);
		for (const char *p = dir; (p = strstr(p, store_tags[t])); p++) {
			const char *v = p + tl;
			int cuda = cuda_version_parse(v, true);
			size_t n = strspn(v, "0123456789.");
			/* a store name ends at '/', or at '-' before an output name ("-lib") */
			if (cuda > 0 && (v[n] == '/' || v[n] == '\0' || v[n] == '-'))
				found = cuda;
		}
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
	       driver_version_parse(name + sizeof prefix - 1, out) == 0 && out->major >= 100;
}

static void lib_driver(const char *libpath, const char *dirpath, struct candidate *c)
{
	/* on the heap: a link's target may be a whole path, and a frame of
	 * CL_PATH_MAX bytes costs its pages at every start */
	char *target = malloc(CL_PATH_MAX);
	if (!target)
		return;
	ssize_t n = readlink(libpath, target, CL_PATH_MAX - 1);
	int e = errno;
	if (n > 0) {
		target[n] = '\0';
		c->has_lib_driver = driver_from_name(target, &c->lib_driver);
	}
	free(target);
	if (n > 0 || e != EINVAL)
		return;
	/* Not a link (copied packages, some store layouts): look for the versioned file. */
	DIR *d = opendir(dirpath);
	if (!d)
		return;
	struct dirent *ent;
	while ((ent = readdir(d)) && !c->has_lib_driver)
		c->has_lib_driver = driver_from_name(ent->d_name, &c->lib_driver);
	closedir(d);
}

/* CUDA version from a version.json ("cuda": {"version": "12.2.140"}) beside
 * libcuda or in the directory above (a toolkit's /usr/local/cuda-X.Y), or
 * its version.txt ("CUDA Version 12.2.140").  A version.json must be whole
 * (notejson_version_file): one cut short says nothing.  A toolkit's lists
 * some thirty components, a few KiB. */
#define VERSION_FILE_MAX (32 * 1024)
static int version_file_cuda(const char *root, const char *dir)
{
	size_t dl = strlen(dir);
	const char *slash = strrchr(dir, '/');
	/* both on the heap, given back newest first */
	char *path = malloc(dl + 20), *buf = path ? malloc(VERSION_FILE_MAX) : NULL;
	int found = 0;

	if (!buf) {
		free(path);
		return 0;
	}
	for (int up = 0; up < 2 && !found; up++) {
		int plen = up ? (slash ? (int)(slash - dir) : -1) : (int)dl;
		if (plen < 0 || (size_t)plen + 20 > CL_PATH_MAX)
			break;
		snprintf(path, dl + 20, "%.*s/version.json", plen, dir);
		ssize_t n = read_small(root, path, buf, VERSION_FILE_MAX);
		if (n > 0) {
			char why[96];
			int v = n == VERSION_FILE_MAX - 1 ? -1
				: notejson_version_file(buf, (size_t)n, why, sizeof why);
			if (v > 0)
				found = v;
			else if (v < 0)
				diag("compat %s: %s: %s; not used", dir, path,
				     n == VERSION_FILE_MAX - 1 ? "larger than 32 KiB" : why);
		}
	}
	if (!found && slash && (size_t)(slash - dir) + 20 <= CL_PATH_MAX) {
		snprintf(path, dl + 20, "%.*s/version.txt", (int)(slash - dir), dir);
		if (read_small(root, path, buf, VERSION_FILE_MAX) > 0 &&
		    strncmp(buf, "CUDA Version ", 13) == 0) {
			int v = cuda_version_parse(buf + 13, true);
			found = v > 0 ? v : -1;
		}
	}
	free(buf);
	free(path);
	return found > 0 ? found : 0;
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

/* The longest descriptor read; NVIDIA's are a few hundred bytes, and one
 * that fits the stack needs no second read. */
#define NOTE_DESC_MAX 4096
#define NOTE_DESC_SMALL 512

/* The ELF facts of an open libcuda: class, machine and the note.  Only the
 * ELF header is read as the head: the section header table, .shstrtab and
 * the note are read where they lie (elfread_find_note), and an 8 KiB head would
 * cost two pages for bytes nobody looks at. */
static void read_lib(int fd, struct candidate *c)
{
	struct elf_file ef;
	unsigned char head[64];		/* an ELF64 header; ELF32's is smaller */
	char why[128] = "", small[NOTE_DESC_SMALL], *desc = small;
	unsigned past = 0;

	if (elfread_open_fd_head(&ef, fd, head, sizeof head, why, sizeof why) < 0) {
		snprintf(c->lib_problem, sizeof c->lib_problem, "libcuda.so.1: %s", why);
		return;
	}
	c->has_lib = true;
	c->elf_class = ef.cls;
	c->elf_machine = ef.machine;
	long n = elfread_find_note(&ef, COMPAT_NOTE_SECTION, COMPAT_NOTE_OWNER,
			       small, sizeof small, &past, why, sizeof why);
	if (n >= NOTE_DESC_SMALL && n < NOTE_DESC_MAX) {
		/* a long descriptor: again, into room for all of it */
		if ((desc = malloc((size_t)n + 1)))
			n = elfread_find_note(&ef, COMPAT_NOTE_SECTION, COMPAT_NOTE_OWNER,
					  desc, (size_t)n + 1, &past, why, sizeof why);
		else
			n = -1, snprintf(why, sizeof why, "out of memory");
	}
	if (n < 0 || n >= NOTE_DESC_MAX) {
		snprintf(c->note_problem, sizeof c->note_problem, "%s",
			 n < 0 ? why : "descriptor too long");
	} else if (n > 0) {
		if (notejson_parse(desc, (size_t)n, &c->note, why, sizeof why) == 0) {
			c->has_note = true;
			c->note_past = (unsigned char)past;
		} else {
			memset(&c->note, 0, sizeof c->note);
			snprintf(c->note_problem, sizeof c->note_problem, "%s", why);
		}
	}
	if (c->note_problem[0])
		diag("compat %s: note unreadable, judged as a package without one: %s", c->dir,
		     c->note_problem);
	else if (compat_note_remark(c, why, sizeof why))
		diag("compat %s: note read, though %s", c->dir, why);
	if (desc != small)
		free(desc);
}

const char *compat_note_remark(const struct candidate *c, char *buf, size_t cap)
{
	if (!c->has_note || (!c->note_past && !c->note.trailing_comma))
		return NULL;
	char past[96] = "";
	if (c->note_past)
		snprintf(past, sizeof past, "its descriptor runs %u byte%s past its section (cut there)",
			 c->note_past, c->note_past == 1 ? "" : "s");
	snprintf(buf, cap, "%s%s%s", past, c->note_past && c->note.trailing_comma ? " and " : "",
		 c->note.trailing_comma ? "its JSON ends in a trailing comma" : "");
	return buf;
}

/* What the directory holds: libcuda.so.1 and what it is, the driver version
 * in its file name, the PTX JIT compiler beside it. */
static void examine_lib(const char *root, struct candidate *c)
{
	static const char lib[] = "/libcuda.so.1", ptxjit[] = "/libnvidia-ptxjitcompiler.so.1";
	char *dirpath = root_path(root, c->dir);
	if (!dirpath) {
		snprintf(c->lib_problem, sizeof c->lib_problem, "out of memory");
		return;
	}
	size_t dl = strlen(dirpath);
	char *libpath = dl + sizeof lib <= CL_PATH_MAX ? malloc(dl + sizeof ptxjit) : NULL;
	if (!libpath) {
		snprintf(c->lib_problem, sizeof c->lib_problem,
			 dl + sizeof lib <= CL_PATH_MAX ? "out of memory" : "path too long");
	} else if (strpbrk(dirpath, ":;")) {
		snprintf(c->lib_problem, sizeof c->lib_problem,
			 "path contains ':' or ';', which a search list cannot hold");
	} else {
		memcpy(libpath, dirpath, dl);
		memcpy(libpath + dl, lib, sizeof lib);
		int fd = open_ro(libpath, O_NONBLOCK);
		if (fd < 0) {
			snprintf(c->lib_problem, sizeof c->lib_problem, "libcuda.so.1: %s",
				 strerror(-fd));
		} else {
			read_lib(fd, c);
			close(fd);
			lib_driver(libpath, dirpath, c);
			/* the PTX JIT compiler must come from the same package: one system call */
			memcpy(libpath + dl, ptxjit, sizeof ptxjit);
			c->has_ptxjit = access(libpath, F_OK) == 0;
		}
	}
	free(libpath);
	root_path_free(dirpath, c->dir);
}

int compat_examine(const char *root, const char *dir, const char *origin,
		   struct candidate *c)
{
	memset(c, 0, sizeof *c);
	if (!(c->dir = strdup(dir)))
		return -1;
	c->origin = origin;
	const char *base = strrchr(dir, '/');
	c->orin_only = (base && strcmp(base + 1, "compat_orin") == 0) ||
		       strstr(dir, store_tags[1]) != NULL;
	examine_lib(root, c);
	compat_settle_cuda(root, c);
	return 0;
}

static void missed(struct candidates *out, const char *entry, const char *origin,
		   const char *why);

#define STR_(x) #x
#define STR(x) STR_(x)

int compat_add(const char *root, const char *dir, const char *origin, struct candidates *out)
{
	if (out->full && out->n >= COMPAT_MAX_CANDIDATES)
		return 0;	/* said already; a pattern may match thousands more */
	for (size_t i = 0; i < out->n; i++)
		if (strcmp(out->v[i].dir, dir) == 0)
			return 0;
	if (out->n >= COMPAT_MAX_CANDIDATES) {
		if (!out->full)
			missed(out, "further packages", origin,
			       "past " STR(COMPAT_MAX_CANDIDATES) " packages: ignored");
		out->full = true;
		return 0;
	}
	struct stat st;
	if (root_stat(root, dir, &st) < 0 || !S_ISDIR(st.st_mode))
		return -2;
	/* /usr/local/cuda/compat is /usr/local/cuda-13.0/compat: one package */
	for (size_t i = 0; i < out->n; i++)
		if (out->v[i].dev == st.st_dev && out->v[i].ino == st.st_ino)
			return 0;
	/* room for one at first: most machines have one package, and room
	 * that is never touched still pushes later blocks onto pages of
	 * their own */
	if (array_room(&out->v, out->n, &out->cap, sizeof *out->v, 1) < 0)
		return -1;
	if (compat_examine(root, dir, origin, &out->v[out->n]) < 0)
		return -1;
	out->v[out->n].dev = st.st_dev;
	out->v[out->n].ino = st.st_ino;
	out->n++;
	return 1;
}

/* The entries of one directory, kept while the patterns are expanded: the
 * default patterns all list /usr/local, and cudaload counts its system
 * calls.  A listing read to its end also proves what is not there. */
struct listing {
	char *dir;		/* as on the target, ending in '/'; NULL: none yet */
	char *raw;		/* the getdents64 records; names point into them */
	char **names;		/* sorted */
	size_t n;
	bool complete;		/* every entry is in names (or dir does not exist) */
	unsigned listed;	/* directories listed so far, for COMPAT_MAX_LISTINGS */
	bool stopped;		/* the bound was reached: expansion stopped */
	size_t entries;		/* entries read so far, for COMPAT_MAX_ENTRIES */
	bool cut;		/* that bound was reached: a listing is partial */
};

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void listing_free(struct listing *l)
{
	/* newest first, so the allocator takes the space back */
	free(l->names);
	free(l->raw);
	free(l->dir);
	*l = (struct listing){ .listed = l->listed, .stopped = l->stopped, .entries = l->entries,
			       .cut = l->cut };
}

/* Room for one more getdents64 record: its head, a 255-byte name, its NUL,
 * padding.  The shortest record: a one-byte name, its NUL, padded to 8. */
#define DIRENT_MAX (DENT_HEAD + 256 + 8)
#define DIRENT_MIN 24

/* How many records getdents64 put in buf[0..len). */
static size_t count_records(const char *buf, size_t len)
{
	size_t k = 0, pos = 0;
	const char *name;
	for (enum dent_step step; (step = dent_next(buf, len, &pos, &name)) != DENT_END &&
				  step != DENT_BROKEN;)
		k++;
	return k;
}

/* The records of an open directory, read straight into a heap block grown
 * in place (opendir would add an fcntl and a buffer of its own); *len is
 * their size, *count how many.  At most about `budget` records: no read
 * asks for more bytes than that many of the shortest records fill, so
 * neither the block nor the time grows past the bound (COMPAT_MAX_ENTRIES).
 * false when a read or memory failed or the budget ended the reading:
 * then the listing proves nothing absent. */
static bool read_records(int fd, size_t budget, char **raw, size_t *len, size_t *count)
{
	size_t cap = 1024, used = 0, got = 0;
	char *buf = malloc(cap);
	long n = -1;
	while (buf && got < budget) {
		if (cap - used < DIRENT_MAX) {
			char *b = realloc(buf, cap * 2);
			if (!b)
				break;
			buf = b;
			cap *= 2;
		}
		size_t want = cap - used, most = (budget - got) * DIRENT_MIN;
		if (want > most)
			want = most > DIRENT_MAX ? most : DIRENT_MAX;
		n = syscall(SYS_getdents64, fd, buf + used, want);
		if (n <= 0)
			break;
		got += count_records(buf + used, (size_t)n);
		used += (size_t)n;
	}
	*raw = buf;
	*len = used;
	*count = got;
	return buf && n == 0;
}

static int listing_load(struct listing *l, const char *root, const char *dir, size_t dirlen)
{
	if (l->dir && strlen(l->dir) == dirlen && memcmp(l->dir, dir, dirlen) == 0)
		return 0;
	listing_free(l);
	l->listed++;
	if (!(l->dir = strndup(dir, dirlen)))
		return -1;
	if (l->entries >= COMPAT_MAX_ENTRIES) {
		l->cut = true;	/* nothing more is read: no names, nothing proven absent */
		return 0;
	}
	char *full = root_path(root, l->dir);
	if (!full)
		return -1;
	int fd = open_ro(full, O_DIRECTORY);
	root_path_free(full, l->dir);
	if (fd < 0) {
		/* nothing there: no candidates, and nothing below it either */
		l->complete = fd == -ENOENT || fd == -ENOTDIR;
		return 0;
	}
	size_t len, got;
	bool complete = read_records(fd, COMPAT_MAX_ENTRIES - l->entries, &l->raw, &len, &got);
	close(fd);
	if (!l->raw)
		return -1;
	l->entries += got;
	if (!complete && l->entries >= COMPAT_MAX_ENTRIES)
		l->cut = true;
	size_t cap = 0;
	for (size_t pos = 0;;) {
		const char *entry;
		enum dent_step step = dent_next(l->raw, len, &pos, &entry);
		if (step == DENT_END)
			break;
		if (step != DENT_ENTRY) {
			complete = false;	/* what cannot be read proves nothing absent */
			if (step == DENT_BROKEN)
				break;
			continue;
		}
		char *name = (char *)entry;	/* into l->raw, which the listing owns */
		if (name[0] == '.')
			continue;	/* like glob: a wildcard does not match a leading dot */
		if (array_room(&l->names, l->n, &cap, sizeof *l->names, 16) < 0)
			return -1;
		l->names[l->n++] = name;
	}
	/* sorted, so equal versions keep a stable order */
	if (l->n)
		qsort(l->names, l->n, sizeof *l->names, by_name);
	l->complete = complete;
	return 0;
}

/* Does the listing prove that path does not exist?  It does when path runs
 * through the listed directory and its next component is not an entry
 * there: the stat that would say so is saved. */
static bool listing_rules_out(const struct listing *l, const char *path)
{
	if (!l->dir || !l->complete)
		return false;
	size_t dl = strlen(l->dir);
	if (strncmp(path, l->dir, dl) != 0)
		return false;
	const char *comp = path + dl;
	size_t cl = strcspn(comp, "/");
	if (cl == 0 || comp[0] == '.')
		return false;	/* "", ".", ".." and hidden names are not listed */
	size_t lo = 0, hi = l->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int d = strncmp(l->names[mid], comp, cl);
		if (d == 0 && l->names[mid][cl] == '\0')
			return false;
		if (d < 0)
			lo = mid + 1;
		else
			hi = mid;	/* greater, or longer with comp as its prefix */
	}
	return true;
}

/* Expand a pattern, one wildcard component at a time (like glob(3), without
 * its tilde and password-file baggage in a static loader).  The first
 * `literal` bytes are names already matched: a '[' or '*' in a directory's
 * name is a character there, not a pattern to expand again. */
static int expand(const char *root, const char *pattern, size_t literal, const char *origin,
		  struct listing *cache, struct candidates *out, int depth, int *matched)
{
	const char *wild = strpbrk(pattern + literal, "*?[");
	if (!wild) {
		if (listing_rules_out(cache, pattern))
			return 0;
		int r = compat_add(root, pattern, origin, out);
		*matched += r >= 0;	/* a package already found by another name counts */
		return r == -1 ? -1 : 0;
	}
	if (depth > 8)
		return 0;

	const char *comp = wild;
	while (comp > pattern && comp[-1] != '/')
		comp--;
	const char *rest = strchr(wild, '/');
	if (!rest)
		rest = "";

	size_t plen = (size_t)(comp - pattern), rl = strlen(rest);
	size_t cl = *rest ? (size_t)(rest - comp) : strlen(comp);
	size_t rootlen = root ? strlen(root) : 0;
	if (cl >= 256 || plen >= CL_PATH_MAX || rootlen + plen >= CL_PATH_MAX)
		return 0;	/* a component longer than NAME_MAX matches no name */
	bool new_dir = !cache->dir || strlen(cache->dir) != plen || memcmp(cache->dir, pattern, plen) != 0;
	if (new_dir && cache->listed >= COMPAT_MAX_LISTINGS) {
		cache->stopped = true;
		return 0;
	}
	if (listing_load(cache, root, pattern, plen) < 0)
		return -1;
	/* The component (on the heap: expand recurses), and the names matched
	 * here, copied before a deeper level replaces the cache: into one block,
	 * and one buffer for the paths made of them.  A block each, with
	 * thousands of names, outgrew the loader's arena and cost a mapping
	 * each (alloc.h). */
	char *glob = strndup(comp, cl);
	char **names = glob ? malloc((cache->n + 1) * sizeof *names) : NULL;
	size_t n = 0, bytes = 0, longest = 0;
	for (size_t i = 0; names && i < cache->n; i++) {
		size_t nl = strlen(cache->names[i]);
		if (plen + nl + rl >= CL_PATH_MAX || fnmatch(glob, cache->names[i], FNM_PERIOD) != 0)
			continue;
		names[n++] = cache->names[i];	/* copied below */
		bytes += nl + 1;
		longest = nl > longest ? nl : longest;
	}
	char *chars = names ? malloc(bytes + 1) : NULL;
	char *sub = chars ? malloc(plen + longest + rl + 1) : NULL;
	int rc = sub ? 0 : -1;
	for (size_t i = 0, at = 0; sub && i < n; i++) {
		size_t nl = strlen(names[i]) + 1;
		names[i] = memcpy(chars + at, names[i], nl);
		at += nl;
	}
	for (size_t i = 0; i < n && rc == 0; i++) {
		size_t nl = strlen(names[i]);
		memcpy(sub, pattern, plen);
		memcpy(sub + plen, names[i], nl);
		memcpy(sub + plen + nl, rest, rl + 1);
		rc = expand(root, sub, plen + nl, origin, cache, out, depth + 1, matched);
	}
	/* newest first */
	free(sub);
	free(chars);
	free(names);
	free(glob);
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
	bool cut_said = false;

	memset(out, 0, sizeof *out);
	for (int i = 0; i < n_dirs && rc == 0; i++) {
		if (dirs[i][0] != '/')
			missed(out, dirs[i], "CUDALOAD_COMPAT_PATH", "not an absolute path, ignored");
		else if (!root_is_dir(root, dirs[i]))
			missed(out, dirs[i], "CUDALOAD_COMPAT_PATH", "no such directory");
		else if (compat_add(root, dirs[i], "CUDALOAD_COMPAT_PATH", out) == -1)
			rc = -1;
	}
	for (int i = 0; i < n_patterns && rc == 0; i++) {
		if (patterns[i][0] != '/')
			continue;
		int matched = 0;
		bool stopped = cache.stopped;
		rc = expand(root, patterns[i], 0, pattern_origin, &cache, out, 0, &matched);
		if (rc == 0 && cache.cut && !cut_said) {
			cut_said = true;
			missed(out, patterns[i], pattern_origin,
			       "stopped after reading " STR(COMPAT_MAX_ENTRIES)
			       " directory entries: the rest is not looked at");
			continue;
		}
		if (rc == 0 && cache.stopped && !stopped) {
			missed(out, patterns[i], pattern_origin,
			       "stopped after listing " STR(COMPAT_MAX_LISTINGS)
			       " directories (a symbolic link loop?): the rest is not looked at");
			continue;
		}
		/* the defaults are allowed to find nothing; a configured place is not */
		if (rc == 0 && !matched && !cache.cut && strcmp(pattern_origin, "default") != 0)
			missed(out, patterns[i], pattern_origin,
			       strpbrk(patterns[i], "*?[") ? "matched nothing" : "no such directory");
	}
	listing_free(&cache);
	return rc;
}

void compat_truncate(struct candidates *c, size_t n)
{
	for (size_t i = n; i < c->n; i++) {
		free(c->v[i].source);
		free(c->v[i].dir);
	}
	if (n < c->n)
		c->n = n;
}

void compat_free(struct candidates *c)
{
	compat_truncate(c, 0);
	free(c->v);
	memset(c, 0, sizeof *c);
}
