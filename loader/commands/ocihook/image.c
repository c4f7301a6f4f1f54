/* SPDX-License-Identifier: MIT */
#include "image.h"

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../../../common/base/deadline.h"
#include "../../../common/base/diag.h"
#include "../../../common/base/sys.h"
#include "../../../common/base/why.h"

#define MOUNTINFO_MAX (8 << 20)

/* ---- the mount table ---- */

/* All of a /proc file, NUL-terminated, malloc'd; NULL when it cannot be
 * read whole, in cap bytes and within seconds. */
static char *read_proc(const char *path, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	char *buf = fd >= 0 ? malloc(cap) : NULL;
	struct deadline d;
	size_t n;
	deadline_in(&d, 10 * 1000L);
	if (buf && deadline_read(fd, buf, cap, &n, &d) != DEADLINE_EOF) {
		free(buf);
		buf = NULL;
	}
	if (fd >= 0)
		close(fd);
	return buf;
}

/* One mountinfo line, cut in place: "ID PARENT MAJ:MIN ROOT POINT OPTIONS
 * [OPTIONAL...] - TYPE SOURCE SUPER". */
static bool mountinfo_line(char *line, struct image_mount *m)
{
	char *f[32];
	int n = 0;
	for (char *p = line; n < 32 && p && *p;) {
		f[n++] = p;
		p = strchr(p, ' ');
		if (p)
			*p++ = '\0';
	}
	int dash = -1;
	for (int i = 6; i < n && dash < 0; i++)
		if (strcmp(f[i], "-") == 0)
			dash = i;
	char *end;
	long id = n >= 5 ? strtol(f[0], &end, 10) : -1;
	if (n < 5 || dash < 0 || dash + 1 >= n || id < 0 || *end || id > INT32_MAX)
		return false;
	/* \040 and the like: octal escapes of space, tab, newline, backslash */
	char *w = f[4];
	for (const char *r = f[4]; *r; w++) {
		if (r[0] == '\\' && r[1] >= '0' && r[1] <= '3' && r[2] >= '0' && r[2] <= '7' &&
		    r[3] >= '0' && r[3] <= '7') {
			*w = (char)((r[1] - '0') * 64 + (r[2] - '0') * 8 + (r[3] - '0'));
			r += 4;
		} else {
			*w = *r++;
		}
	}
	*w = '\0';
	m->id = (int)id;
	m->point = f[4];
	m->type = f[dash + 1];
	m->shared = false;
	for (int i = 6; i < dash; i++)
		m->shared = m->shared || strncmp(f[i], "shared:", 7) == 0;
	return true;
}

/* This process's mounts: 0, or -1 with why. */
static int read_mounts(struct image_mount **out, size_t *n_out, char **text, char *why, size_t cap)
{
	*text = read_proc("/proc/self/mountinfo", MOUNTINFO_MAX);
	if (!*text)
		return why_fail(why, cap, "/proc/self/mountinfo cannot be read whole");
	size_t lines = 1;
	for (const char *p = *text; *p; p++)
		lines += *p == '\n';
	struct image_mount *v = calloc(lines, sizeof *v);
	size_t n = 0;
	for (char *line = *text, *next; v && *line; line = next) {
		next = line + strcspn(line, "\n");
		if (*next)
			*next++ = '\0';
		if (n < lines && mountinfo_line(line, &v[n]))
			n++;
	}
	if (!v)
		return why_fail(why, cap, "out of memory");
	*out = v;
	*n_out = n;
	return 0;
}

static const struct image_mount *mount_of(const struct image *img, int id)
{
	for (size_t i = 0; i < img->n_mounts; i++)
		if (img->mounts[i].id == id)
			return &img->mounts[i];
	return NULL;
}

bool image_path_within(const char *path, const char *dir)
{
	size_t dl = strlen(dir);
	return strncmp(path, dir, dl) == 0 &&
	       (path[dl] == '/' || path[dl] == '\0' || (dl == 1 && dir[0] == '/'));
}

int image_mount_id(int fd)
{
	char path[40], text[1024];
	snprintf(path, sizeof path, "/proc/self/fdinfo/%d", fd);
	int in = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = in >= 0 ? read(in, text, sizeof text - 1) : -1;
	if (in >= 0)
		close(in);
	if (n <= 0)
		return -1;
	text[n] = '\0';
	const char *m = strstr(text, "\nmnt_id:");
	if (!m)
		return -1;
	char *end;
	long id = strtol(m + 8, &end, 10);
	return id >= 0 && id <= INT32_MAX && (*end == '\n' || !*end) ? (int)id : -1;
}

/* fd's path as this process sees it (what mountinfo's points are), into
 * buf.  0, or -1. */
static int path_of(int fd, char *buf, size_t cap)
{
	char link[40];
	snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
	ssize_t n = readlink(link, buf, cap - 1);
	if (n <= 0 || (size_t)n >= cap - 1 || buf[0] != '/')
		return -1;
	buf[n] = '\0';
	return 0;
}

int image_open(struct image *img, const char *root, bool run_tmpfs, char *why, size_t cap)
{
	memset(img, 0, sizeof *img);
	img->run_mnt = -1;
	img->rootfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (img->rootfd < 0)
		return why_fail(why, cap, "the root %s: %s", root, strerror(errno));
	if (read_mounts(&img->mounts, &img->n_mounts, &img->mountinfo, why, cap) < 0)
		return -1;
	img->root_mnt = image_mount_id(img->rootfd);
	const struct image_mount *m = mount_of(img, img->root_mnt);
	if (!m)
		return why_fail(why, cap, "the root's mount is not in /proc/self/mountinfo");
	img->root_shared = m->shared;
	/* /run: a tmpfs of the runtime's for this container, where config.json
	 * says it made one and the mount there is one, not shared */
	size_t rl = strlen(root);
	for (size_t i = 0; run_tmpfs && i < img->n_mounts; i++) {
		const struct image_mount *r = &img->mounts[i];
		if (strncmp(r->point, root, rl) == 0 && strcmp(r->point + rl, "/run") == 0)
			img->run_mnt = strcmp(r->type, "tmpfs") == 0 && !r->shared ? r->id : -1;	/* the top one */
	}
	return 0;
}

void image_close(struct image *img)
{
	if (img->rootfd >= 0)
		close(img->rootfd);
	free(img->mounts);
	free(img->mountinfo);
	memset(img, 0, sizeof *img);
	img->rootfd = -1;
}

const char *image_not_writable(const struct image *img, int fd, bool run)
{
	int id = image_mount_id(fd);
	if (id < 0)
		return "its mount cannot be told (no /proc?)";
	if (id == img->root_mnt || (run && id == img->run_mnt && img->run_mnt >= 0))
		return NULL;
	return run ? "not on the image's own mount nor a /run the runtime made for this container (a volume?)"
		   : "not on the image's own mount (a volume?)";
}

const char *image_not_hideable(const struct image *img, int fd)
{
	const char *why = image_not_writable(img, fd, false);
	if (why)
		return why;
	if (img->root_shared)
		return "the image's mount is shared: a mount over it would propagate out of the container";
	char *path = malloc(CL_PATH_MAX);
	if (!path || path_of(fd, path, CL_PATH_MAX) < 0) {
		free(path);
		return "its path cannot be told (no /proc?)";
	}
	size_t pl = strlen(path);
	why = NULL;
	for (size_t i = 0; i < img->n_mounts && !why; i++)
		if (strncmp(img->mounts[i].point, path, pl) == 0 && img->mounts[i].point[pl] == '/')
			why = "something is mounted below it (the host's driver?)";
	free(path);
	return why;
}

/* ---- entering the image ---- */

/* Kernel file systems whose files are not the image's: procfs has magic
 * links that lead out of any root, the others devices, controls and the
 * host's state. */
static bool kernel_fs(const char *type)
{
	static const char types[] = "proc\0sysfs\0devtmpfs\0devpts\0debugfs\0tracefs\0securityfs\0"
				    "configfs\0fusectl\0bpf\0cgroup\0cgroup2\0mqueue\0hugetlbfs\0"
				    "efivarfs\0binfmt_misc\0nsfs\0pstore\0selinuxfs\0";
	/* one string, the names one after another: no table of pointers to relocate */
	for (const char *t = types; *t; t += strlen(t) + 1)
		if (strcmp(type, t) == 0)
			return true;
	return false;
}

#ifndef SYS_mount_setattr
#define SYS_mount_setattr 442
#endif
struct hook_mount_attr {
	uint64_t attr_set, attr_clr, propagation, userns_fd;
};
#define HOOK_MOUNT_ATTR_NOSUID 0x02
#define HOOK_MOUNT_ATTR_NODEV 0x04

/* The image's kernel file systems and /dev covered, every mount of it
 * nodev and nosuid.  0, or -1 with why. */
static int seal_mounts(const char *root, char *why, size_t cap)
{
	size_t rl = strlen(root);
	struct image_mount *v = NULL;
	size_t n = 0;
	char *text = NULL;
	if (read_mounts(&v, &n, &text, why, cap) < 0)
		return -1;
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < n; i++) {
		const char *point = v[i].point;
		if (!image_path_within(point, root) || !(kernel_fs(v[i].type) || strcmp(point + rl, "/dev") == 0))
			continue;
		if (mount("tmpfs", point, "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
			  "size=4k,mode=0555") < 0 && errno != ENOENT && errno != ENOTDIR)
			rc = why_fail(why, cap, "cannot cover %s (%s): %s", point, v[i].type, strerror(errno));
	}
	/* every mount of the image nodev: mount_setattr (5.12+), else one by one */
	struct hook_mount_attr attr = { .attr_set = HOOK_MOUNT_ATTR_NODEV | HOOK_MOUNT_ATTR_NOSUID };
	if (rc == 0 && syscall(SYS_mount_setattr, AT_FDCWD, root, AT_RECURSIVE, &attr, sizeof attr) < 0) {
		free(v);
		free(text);
		v = NULL;
		text = NULL;
		rc = read_mounts(&v, &n, &text, why, cap);
		for (size_t i = 0; rc == 0 && i < n; i++) {
			struct statvfs sv;
			if (!image_path_within(v[i].point, root) || statvfs(v[i].point, &sv) < 0)
				continue;
			unsigned long fl = MS_BIND | MS_REMOUNT | MS_NODEV | MS_NOSUID;
			fl |= (sv.f_flag & ST_RDONLY ? MS_RDONLY : 0) | (sv.f_flag & ST_NOEXEC ? MS_NOEXEC : 0) |
			      (sv.f_flag & ST_NOATIME ? MS_NOATIME : 0) |
			      (sv.f_flag & ST_NODIRATIME ? MS_NODIRATIME : 0) |
			      (sv.f_flag & ST_RELATIME ? MS_RELATIME : 0);
			if (mount(NULL, v[i].point, NULL, fl, NULL) < 0)
				rc = why_fail(why, cap, "cannot make %s nodev: %s", v[i].point, strerror(errno));
		}
	}
	free(v);
	free(text);
	return rc;
}

static int enter(const char *root, char *why, size_t cap);

struct cap_header {
	uint32_t version;
	int pid;
};
struct cap_data {
	uint32_t effective, permitted, inheritable;
};
#define CAP_VERSION_3 0x20080522
#define CAP_DAC_READ_SEARCH 2

/* no_new_privs, and no capability but CAP_DAC_READ_SEARCH, in every set
 * and in the bounding set (so that nothing it executes regains one). */
static int least_privilege(char *why, size_t cap)
{
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return why_fail(why, cap, "no_new_privs: %s", strerror(errno));
	for (int c = 0; c < 64; c++)
		if (c != CAP_DAC_READ_SEARCH && prctl(PR_CAPBSET_DROP, c, 0, 0, 0) < 0 && errno != EINVAL)
			return why_fail(why, cap, "dropping capability %d: %s", c, strerror(errno));
	prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);	/* before Linux 4.3: none */
	struct cap_header h = { CAP_VERSION_3, 0 };
	struct cap_data d[2] = { { 1u << CAP_DAC_READ_SEARCH, 1u << CAP_DAC_READ_SEARCH, 0 }, { 0, 0, 0 } };
	if (syscall(SYS_capset, &h, d) < 0)
		return why_fail(why, cap, "capset: %s", strerror(errno));
	return 0;
}

#ifndef SYS_close_range
#define SYS_close_range 436
#endif
void image_close_fds(int keep)
{
	if ((keep == 3 || syscall(SYS_close_range, 3u, (unsigned)keep - 1, 0u) == 0) &&
	    syscall(SYS_close_range, (unsigned)keep + 1, ~0u, 0u) == 0)
		return;
	for (int fd = 3; fd < 1024; fd++)	/* before Linux 5.9 */
		if (fd != keep)
			close(fd);
}

/* What this process may do now, as /proc/self/status says (status: that
 * file, opened before /proc went out of reach), for CUDALOAD_DEBUG. */
static void trace_privilege(int status)
{
	char text[4096];
	ssize_t n = status >= 0 ? pread(status, text, sizeof text - 1, 0) : -1;
	text[n > 0 ? n : 0] = '\0';
	static const char keys[] = "CapInh:\0CapPrm:\0CapEff:\0CapBnd:\0CapAmb:\0NoNewPrivs:\0";
	for (const char *k = keys; *k; k += strlen(k) + 1) {
		const char *at = strstr(text, k);
		if (at)
			diag("image: %.*s", (int)strcspn(at, "\n"), at);
	}
}

int image_enter(const char *root, char *why, size_t cap)
{
	int status = diag_on ? open("/proc/self/status", O_RDONLY | O_CLOEXEC) : -1;
	int rc = enter(root, why, cap);
	if (rc == 0)
		trace_privilege(status);
	if (status >= 0)
		close(status);
	return rc;
}

static int enter(const char *root, char *why, size_t cap)
{
	/* every mount private first: nothing done here reaches another
	 * namespace; then the image a mount of its own to pivot into */
	if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mount(root, root, NULL, MS_BIND | MS_REC, NULL) < 0)
		return why_fail(why, cap, "a mount namespace of its own: %s", strerror(errno));
	if (seal_mounts(root, why, cap) < 0)
		return -1;
	/* pivot_root(".", "."), then the old root, stacked under, detached:
	 * the host's tree is gone from this namespace, not just out of sight */
	if (chdir(root) < 0 || syscall(SYS_pivot_root, ".", ".") < 0 || umount2(".", MNT_DETACH) < 0 ||
	    chdir("/") < 0)
		return why_fail(why, cap, "pivot_root into %s: %s", root, strerror(errno));
	/* prlimit64 itself: musl's setrlimit brings __synccall, whose state
	 * would push the loader's writable segment past its one page */
	struct rlimit mem = { IMAGE_CHILD_MEMORY, IMAGE_CHILD_MEMORY };
	struct rlimit file = { IMAGE_CHILD_FILE, IMAGE_CHILD_FILE }, none = { 0, 0 };
	if (syscall(SYS_prlimit64, 0, RLIMIT_AS, &mem, NULL) < 0 ||
	    syscall(SYS_prlimit64, 0, RLIMIT_FSIZE, &file, NULL) < 0 ||
	    syscall(SYS_prlimit64, 0, RLIMIT_CORE, &none, NULL) < 0)
		return why_fail(why, cap, "limits: %s", strerror(errno));
	return least_privilege(why, cap);
}

/* ---- what ldconfig would read ---- */

struct conf_walk {
	struct { dev_t dev; ino_t ino; } stack[IMAGE_CONF_DEPTH_MAX + 1];
	int depth;
	long files;
	struct image_conf *conf;	/* the directories named, or NULL */
	char *why;
	size_t cap;
};

/* A directory line: its name as ldconfig takes it (no "=TYPE", no
 * trailing slash) kept.  false when out of memory. */
static bool conf_dir(struct image_conf *conf, char *line)
{
	line[strcspn(line, "=")] = '\0';
	size_t l = strcspn(line, " \t");
	line[l] = '\0';
	while (l > 1 && line[l - 1] == '/')
		line[--l] = '\0';
	if (!conf || !l || image_conf_names(conf, line))
		return true;
	if (conf->n == conf->cap) {
		size_t cap = conf->cap ? conf->cap * 2 : 16;
		char **v = realloc(conf->dirs, cap * sizeof *v);
		if (!v)
			return false;
		conf->dirs = v;
		conf->cap = cap;
	}
	return (conf->dirs[conf->n] = strdup(line)) && ++conf->n;
}

bool image_conf_names(const struct image_conf *conf, const char *dir)
{
	for (size_t i = 0; i < conf->n; i++)
		if (strcmp(conf->dirs[i], dir) == 0)
			return true;
	return false;
}

void image_conf_free(struct image_conf *conf)
{
	for (size_t i = 0; i < conf->n; i++)
		free(conf->dirs[i]);
	free(conf->dirs);
	memset(conf, 0, sizeof *conf);
}

static const char *conf_file(struct conf_walk *w, const char *path);

/* "include PATTERN..." of the file at path: each pattern (relative to the
 * including file's directory, as glibc's ldconfig takes it) globbed, each
 * match read as a file of its own. */
static const char *conf_include(struct conf_walk *w, const char *path, char *patterns)
{
	const char *problem = NULL;
	char *save;
	for (char *pat = strtok_r(patterns, " \t", &save); pat && !problem; pat = strtok_r(NULL, " \t", &save)) {
		char *full = NULL;
		const char *slash = strrchr(path, '/');
		if (pat[0] != '/' && slash) {
			size_t dl = (size_t)(slash - path);
			full = malloc(dl + strlen(pat) + 2);
			if (!full)
				return "out of memory";
			memcpy(full, path, dl);
			full[dl] = '/';
			strcpy(full + dl + 1, pat);
		}
		glob_t g;
		int r = glob(full ? full : pat, 0, NULL, &g);
		free(full);
		if (r == GLOB_NOSPACE)
			return "out of memory";
		for (size_t i = 0; r == 0 && i < g.gl_pathc && !problem; i++)
			problem = conf_file(w, g.gl_pathv[i]);
		if (r == 0)
			globfree(&g);
	}
	return problem;
}

static const char *conf_file(struct conf_walk *w, const char *path)
{
	if (++w->files > IMAGE_CONF_FILES_MAX)
		return why_fail(w->why, w->cap, "more than %d files included", IMAGE_CONF_FILES_MAX), w->why;
	struct stat st;
	if (stat(path, &st) < 0)
		return NULL;	/* gone, or a dangling link: ldconfig passes over it too */
	if (S_ISDIR(st.st_mode))
		return NULL;	/* ldconfig cannot read it as a file, and says so */
	if (!S_ISREG(st.st_mode))
		return why_fail(w->why, w->cap, "%s is not a regular file", path), w->why;
	if (st.st_size > IMAGE_CONF_FILE_MAX)
		return why_fail(w->why, w->cap, "%s is larger than %d KiB", path, IMAGE_CONF_FILE_MAX >> 10), w->why;
	for (int i = 0; i < w->depth; i++)
		if (w->stack[i].dev == st.st_dev && w->stack[i].ino == st.st_ino)
			return why_fail(w->why, w->cap, "%s includes itself", path), w->why;
	if (w->depth == IMAGE_CONF_DEPTH_MAX)
		return why_fail(w->why, w->cap, "%s: includes deeper than %d", path, IMAGE_CONF_DEPTH_MAX), w->why;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	struct stat now;
	char *text = fd >= 0 ? malloc((size_t)st.st_size + 1) : NULL;
	ssize_t n = text ? pread_full(fd, text, (size_t)st.st_size, 0) : -1;
	bool same = fd >= 0 && fstat(fd, &now) == 0 && now.st_dev == st.st_dev && now.st_ino == st.st_ino;
	if (fd >= 0)
		close(fd);
	if (n < 0 || !same) {
		free(text);
		return why_fail(w->why, w->cap, "%s cannot be read (or changed meanwhile)", path), w->why;
	}
	text[st.st_size] = '\0';
	w->stack[w->depth].dev = st.st_dev;
	w->stack[w->depth].ino = st.st_ino;
	w->depth++;
	const char *problem = NULL;
	for (char *line = text, *next; *line && !problem; line = next) {
		next = line + strcspn(line, "\n");
		if (*next)
			*next++ = '\0';
		line[strcspn(line, "#")] = '\0';
		line += strspn(line, " \t");
		if (strncmp(line, "include", 7) == 0 && (line[7] == ' ' || line[7] == '\t'))
			problem = conf_include(w, path, line + 8);
		else if (strncmp(line, "hwcap", 5) != 0 || (line[5] != ' ' && line[5] != '\t'))
			problem = conf_dir(w->conf, line) ? NULL : "out of memory";
	}
	w->depth--;
	free(text);
	return problem;
}

const char *image_conf_sound(struct image_conf *conf, char *why, size_t cap)
{
	struct conf_walk w = { .conf = conf, .why = why, .cap = cap };
	return conf_file(&w, "/etc/ld.so.conf");
}
