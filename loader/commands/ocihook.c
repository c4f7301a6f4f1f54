/* SPDX-License-Identifier: MIT */
/*
 * cudaload --oci-hook (ocihook.h).  The steps, as ocihook_run runs them:
 * the state and the bundle's config read; the container's GPUs; the
 * judgement, in a child inside the image (judge_container); the edits, by
 * the hook through inroot.h (apply); the account left in the container.
 */
#include "ocihook.h"

#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../common/packages/compat.h"
#include "../../common/settings/settings.h"
#include "../../common/decision/decide.h"
#include "../../common/base/atomicfile.h"
#include "../../common/base/deadline.h"
#include "../../common/base/diag.h"
#include "../../common/elf/elfread.h"
#include "../../common/base/inroot.h"
#include "../../common/base/jsonread.h"
#include "../../common/decision/judge.h"
#include "../../common/elf/ldcache.h"
#include "../../common/host/probe.h"
#include "../../common/packages/reach.h"
#include "../../common/report/report.h"
#include "../../common/base/sys.h"
#include "../../common/host/tables.h"

/* Where the host's ldconfig may be: glibc's is static everywhere (a
 * build may name its own, as Nix's does). */
#ifndef CUDALOAD_LDCONFIG
#define CUDALOAD_LDCONFIG "/sbin/ldconfig:/usr/sbin/ldconfig:/run/current-system/sw/bin/ldconfig"
#endif

/* Bounds on what the runtime hands over: the state is a few hundred bytes,
 * a config.json tens of KiB (podman's, with its mounts and annotations). */
#define STATE_MAX (64 * 1024)
#define CONFIG_MAX (8 * 1024 * 1024)
#define ENV_ENTRY_MAX (64 * 1024)
#define ENV_KEPT_MAX 64
#define MINORS_MAX 64
#define MESSAGE_MAX (1024 * 1024)	/* the child's word: the account and its edits */
#define JUDGE_SECONDS 10		/* reading the image; a start takes milliseconds */
#define LDCONFIG_SECONDS 30
#define NVIDIA_MAJOR 195		/* /dev/nvidiaN (the kernel module's devices.txt) */

extern const ElfW(Ehdr) __ehdr_start;

struct hook {
	const char *id;			/* the container's, for messages */
	char *bundle;
	char *root;			/* canonical, on the host */
	int rootfd;			/* O_PATH of it */
	dev_t root_dev;
	char *env[ENV_KEPT_MAX + 1];	/* what of process.env is read (keep_env) */
	int n_env;
	int minors[MINORS_MAX];		/* the container's /dev/nvidiaN */
	int n_minors;
	bool minors_full;
	const char *gpus_from;		/* "config.json", "/dev", or NULL: all */
};

/* ---- saying why, and giving up ---- */

/* NULL until the state names it ("?"): an initialised pointer would be a
 * relocation every start of cudaload applies. */
static const char *hook_id;

__attribute__((format(printf, 1, 2)))
static void say(const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	fprintf(stderr, "cudaload --oci-hook: container %.12s: %s\n", hook_id ? hook_id : "?", line);
}

/* ---- reading what the runtime gives ---- */

/* All of fd (up to cap bytes, NUL-terminated) within seconds: the state
 * pipe the runtime writes and closes.  Its length, or -1 (why). */
static ssize_t read_all(int fd, char *buf, size_t cap, int seconds, const char **why)
{
	struct deadline d;
	size_t got;
	deadline_in(&d, seconds * 1000L);
	switch (deadline_read(fd, buf, cap, &got, &d)) {
	case DEADLINE_EOF:
		return (ssize_t)got;
	case DEADLINE_FULL:
		*why = "too long";
		return -1;
	case DEADLINE_PASSED:
		*why = "timed out";
		return -1;
	default:
		*why = strerror(errno);
		return -1;
	}
}

static bool state_member(struct jsonread *r, const char *key, void *ctx)
{
	struct hook *h = ctx;
	bool cut = false;
	if (strcmp(key, "bundle") == 0) {
		h->bundle = malloc(CL_PATH_MAX);
		return h->bundle && jsonread_string(r, h->bundle, CL_PATH_MAX, &cut) &&
		       (!cut || jsonread_fail(r, "\"bundle\" too long"));
	}
	if (strcmp(key, "id") == 0) {
		/* on the heap: the loader's writable data is one page, for every
		 * start (docs/design.md §6) */
		char *id = malloc(128);
		if (!id || !jsonread_string(r, id, 128, &cut)) {
			free(id);
			return false;
		}
		h->id = hook_id = id;
		return true;
	}
	return jsonread_skip(r);
}

/* The process.env entries the judgement reads: the search list, the
 * places packages live, and CUDALOAD_* (to tell a hook environment that is
 * the container's). */
static bool keep_env(const char *e)
{
	/* one string, the names one after another: a table of pointers would
	 * be relocations that every start of cudaload applies */
	static const char names[] = "LD_LIBRARY_PATH=\0CONDA_PREFIX=\0CUDA_HOME=\0CUDA_PATH=\0CUDALOAD_\0";
	for (const char *n = names; *n; n += strlen(n) + 1)
		if (strncmp(e, n, strlen(n)) == 0)
			return true;
	return false;
}

struct config_read {
	struct hook *h;
	char *text;		/* ENV_ENTRY_MAX bytes */
	/* one linux.devices entry */
	char dev_path[64];
	long major, minor;
	bool has_minor;
};

static bool env_element(struct jsonread *r, size_t i, void *ctx)
{
	struct config_read *c = ctx;
	bool cut;
	(void)i;
	if (!jsonread_string(r, c->text, ENV_ENTRY_MAX, &cut))
		return false;
	if (cut)
		return jsonread_fail(r, "a process.env entry is longer than 64 KiB");
	if (!keep_env(c->text) || c->h->n_env == ENV_KEPT_MAX)
		return true;
	return (c->h->env[c->h->n_env++] = strdup(c->text)) != NULL ||
	       jsonread_fail(r, "out of memory");
}

static bool process_member(struct jsonread *r, const char *key, void *ctx)
{
	return strcmp(key, "env") == 0 ? jsonread_array(r, env_element, ctx) : jsonread_skip(r);
}

static bool device_member(struct jsonread *r, const char *key, void *ctx)
{
	struct config_read *c = ctx;
	if (strcmp(key, "path") == 0)
		return jsonread_string(r, c->dev_path, sizeof c->dev_path, NULL);
	if (strcmp(key, "major") == 0)
		return jsonread_number(r, &c->major);
	if (strcmp(key, "minor") == 0)
		return (c->has_minor = jsonread_number(r, &c->minor));
	return jsonread_skip(r);
}

/* "/dev/nvidiaN" (N digits): N, else -1. */
static long nvidia_node(const char *name)
{
	static const char prefix[] = "nvidia";
	if (strncmp(name, prefix, sizeof prefix - 1) != 0)
		return -1;
	const char *d = name + sizeof prefix - 1;
	char *end;
	long n = *d >= '0' && *d <= '9' ? strtol(d, &end, 10) : -1;
	return n >= 0 && n < 256 && !*end ? n : -1;
}

static void add_minor(struct hook *h, long minor)
{
	for (int i = 0; i < h->n_minors; i++)
		if (h->minors[i] == minor)
			return;
	if (h->n_minors == MINORS_MAX)
		h->minors_full = true;
	else
		h->minors[h->n_minors++] = (int)minor;
}

static bool device_element(struct jsonread *r, size_t i, void *ctx)
{
	struct config_read *c = ctx;
	(void)i;
	c->dev_path[0] = '\0';
	c->major = NVIDIA_MAJOR;
	c->has_minor = false;
	if (!jsonread_object(r, device_member, c, false, NULL))
		return false;
	long n = strncmp(c->dev_path, "/dev/", 5) == 0 ? nvidia_node(c->dev_path + 5) : -1;
	if (n >= 0 && c->major == NVIDIA_MAJOR) {
		add_minor(c->h, c->has_minor ? c->minor : n);
		c->h->gpus_from = "config.json";
	}
	return true;
}

static bool linux_member(struct jsonread *r, const char *key, void *ctx)
{
	return strcmp(key, "devices") == 0 ? jsonread_array(r, device_element, ctx) : jsonread_skip(r);
}

static bool root_member(struct jsonread *r, const char *key, void *ctx)
{
	struct config_read *c = ctx;
	if (strcmp(key, "path") != 0)
		return jsonread_skip(r);
	bool cut;
	return jsonread_string(r, c->text, CL_PATH_MAX, &cut) &&
	       (!cut || jsonread_fail(r, "root.path too long")) &&
	       ((c->h->root = strdup(c->text)) != NULL || jsonread_fail(r, "out of memory"));
}

static bool config_member(struct jsonread *r, const char *key, void *ctx)
{
	if (strcmp(key, "root") == 0)
		return jsonread_object(r, root_member, ctx, false, NULL);
	if (strcmp(key, "process") == 0)
		return jsonread_object(r, process_member, ctx, false, NULL);
	if (strcmp(key, "linux") == 0)
		return jsonread_object(r, linux_member, ctx, false, NULL);
	return jsonread_skip(r);
}

/* The bundle's config.json: the root (made absolute and canonical), the
 * GPUs named, the environment.  NULL, or why not. */
__attribute__((noinline))
static const char *read_config(struct hook *h, char *why, size_t cap)
{
	char *path = malloc(CL_PATH_MAX), *text = NULL;
	struct config_read c = { .h = h, .text = malloc(ENV_ENTRY_MAX) };
	const char *problem = NULL;
	struct stat st;
	int fd = -1;
	if (!path || !c.text || snprintf(path, CL_PATH_MAX, "%s/config.json", h->bundle) >= CL_PATH_MAX) {
		problem = "out of memory, or the bundle's name is too long";
	} else if ((fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) < 0 || fstat(fd, &st) < 0) {
		snprintf(why, cap, "%s: %s", path, strerror(errno));
		problem = why;
	} else if (!S_ISREG(st.st_mode) || st.st_size > CONFIG_MAX) {
		snprintf(why, cap, "%s: not a regular file of at most %d MiB", path, CONFIG_MAX >> 20);
		problem = why;
	} else if (!(text = malloc((size_t)st.st_size + 1)) ||
		   pread_full(fd, text, (size_t)st.st_size, 0) < 0) {
		snprintf(why, cap, "%s: cannot read it", path);
		problem = why;
	} else {
		struct jsonread r;
		jsonread_init(&r, text, (size_t)st.st_size);
		r.any_number = true;	/* memory limits of 2^63-1 */
		if (!jsonread_object(&r, config_member, &c, true, NULL)) {
			snprintf(why, cap, "%s: %s at byte %ld", path, r.err, (long)(r.p - text));
			problem = why;
		} else if (!h->root) {
			snprintf(why, cap, "%s: no root.path", path);
			problem = why;
		}
	}
	if (!problem && h->root[0] != '/') {	/* relative to the bundle */
		if (snprintf(path, CL_PATH_MAX, "%s/%s", h->bundle, h->root) >= CL_PATH_MAX)
			problem = "root.path too long";
		free(h->root);
		h->root = problem ? NULL : strdup(path);
	}
	char *canonical = problem ? NULL : realpath(h->root, NULL);
	if (!problem && !canonical) {
		snprintf(why, cap, "root.path %s: %s", h->root, strerror(errno));
		problem = why;
	} else if (!problem && strcmp(canonical, "/") == 0) {
		problem = "the container's root is the host's: no image to judge";
	}
	if (!problem) {
		free(h->root);
		h->root = canonical;
	}
	if (fd >= 0)
		close(fd);
	free(text);
	free(c.text);
	free(path);
	return problem;
}

/* The hook's environment, unless it is the container's: runc hands a hook
 * entry that names no env the container's own, whose CUDALOAD_* the
 * image's author chose (docs/design.md §11).  Then none. */
static char **trusted_env(char **envp, const struct hook *h)
{
	/* read-only: the loader's writable data is one page, for every start */
	static char *const none[1] = { NULL };
	for (char **e = envp; *e; e++) {
		if (strncmp(*e, "CUDALOAD_", 9) != 0)
			continue;
		for (int i = 0; i < h->n_env; i++)
			if (strcmp(h->env[i], *e) == 0) {
				say("the hook's environment is the container's (%s is the image's): its "
				    "CUDALOAD_* settings are not read; name the hook's env in its entry", *e);
				return (char **)none;	/* never written: execve reads it */
			}
	}
	return envp;
}

/* The container's /dev/nvidiaN, where config.json names none (legacy mode
 * makes them in a prestart hook): read through inroot, nothing followed. */
static void gpus_in_dev(struct hook *h)
{
	int fd = inroot_open(h->rootfd, "/dev", O_RDONLY | O_DIRECTORY);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	for (struct dirent *e; (e = readdir(d));) {
		struct stat st;
		if (nvidia_node(e->d_name) >= 0 &&
		    fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISCHR(st.st_mode) &&
		    major(st.st_rdev) == NVIDIA_MAJOR) {
			add_minor(h, (long)minor(st.st_rdev));
			h->gpus_from = "/dev";
		}
	}
	closedir(d);
}

/* ---- the GPUs the container gets ---- */

/* A GPU's "Device Minor:", -1 when its information file has none. */
static long gpu_minor(const char *host_root, const char *bus)
{
	char rel[96], text[1024];
	if (snprintf(rel, sizeof rel, "/proc/driver/nvidia/gpus/%s/information", bus) >= (int)sizeof rel ||
	    read_small(host_root, rel, text, sizeof text) <= 0)
		return -1;
	const char *m = strstr(text, "Device Minor:");
	if (!m)
		return -1;
	m += sizeof "Device Minor:" - 1;
	m += strspn(m, " \t");
	char *end;
	long v = *m >= '0' && *m <= '9' ? strtol(m, &end, 10) : -1;
	return v >= 0 && v < 256 ? v : -1;
}

/* Only the GPUs whose minors the container gets are judged, as probe.c
 * judges a host's (the brand, the driver's word, the oldest architecture).
 * Past MAX_GPUS the host's list is not whole: all are kept (the stricter
 * judgement).  A GPU whose minor cannot be read is kept too. */
static void keep_container_gpus(const char *host_root, const struct hook *k, struct host *h)
{
	if (!k->gpus_from || k->minors_full || h->platform != PLATFORM_DGPU || h->n_gpus > MAX_GPUS)
		return;
	int n = 0;
	for (int i = 0; i < h->n_gpus; i++) {
		long m = gpu_minor(host_root, h->gpus[i].bus);
		bool kept = m < 0;
		for (int j = 0; j < k->n_minors && !kept; j++)
			kept = k->minors[j] == m;
		diag("gpu %s (minor %ld): %s", h->gpus[i].bus, m, kept ? "the container's" : "not the container's");
		if (kept)
			h->gpus[n++] = h->gpus[i];
	}
	h->n_gpus = n;
	probe_judge_gpus(h, ~0u);
}

/* ---- inside the image ---- */

/* What mountinfo says of one mount: its point (unescaped) and type. */
static bool mountinfo_line(char *line, char **point, char **type)
{
	char *f[16];
	int n = 0;
	for (char *p = line; n < 16 && p && *p;) {
		f[n++] = p;
		p = strchr(p, ' ');
		if (p)
			*p++ = '\0';
	}
	int dash = -1;
	for (int i = 6; i < n && dash < 0; i++)
		if (strcmp(f[i], "-") == 0)
			dash = i;
	if (n < 5 || dash < 0 || dash + 1 >= n)
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
	*point = f[4];
	*type = f[dash + 1];
	return true;
}

/* Kernel file systems whose files are not the image's: procfs has magic
 * links that lead out of any root, the others devices, controls and the
 * host's state. */
static bool kernel_fs(const char *type)
{
	static const char types[] = "proc\0sysfs\0devtmpfs\0devpts\0debugfs\0tracefs\0securityfs\0"
				    "configfs\0fusectl\0bpf\0cgroup\0cgroup2\0mqueue\0hugetlbfs\0"
				    "efivarfs\0binfmt_misc\0nsfs\0pstore\0selinuxfs\0";
	for (const char *t = types; *t; t += strlen(t) + 1)	/* no pointers: keep_env */
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

/* This process in a mount namespace of its own, the image's kernel file
 * systems and /dev covered by empty read-only tmpfs, every mount of the
 * image nodev and nosuid, then chrooted into it: from here on every path
 * is the kernel's to resolve inside the image, no magic link leads out,
 * no device node of the image opens.  Nothing of it reaches the
 * container's namespace.  0, or -1 with why. */
static int enter_image(const char *root, char *why, size_t cap)
{
	size_t rl = strlen(root);
	if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) {
		snprintf(why, cap, "a mount namespace of its own: %s", strerror(errno));
		return -1;
	}
	char *info = malloc(MESSAGE_MAX);
	int fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
	const char *rwhy = "cannot open it";
	ssize_t n = fd >= 0 && info ? read_all(fd, info, MESSAGE_MAX, JUDGE_SECONDS, &rwhy) : -1;
	if (fd >= 0)
		close(fd);
	if (n < 0) {
		snprintf(why, cap, "/proc/self/mountinfo: %s", rwhy);
		free(info);
		return -1;
	}
	int rc = 0;
	char *dev = malloc(rl + sizeof "/dev");
	if (dev)
		memcpy((char *)memcpy(dev, root, rl) + rl, "/dev", sizeof "/dev");
	for (char *line = info, *next; rc == 0 && *line; line = next) {
		next = line + strcspn(line, "\n");
		if (*next)
			*next++ = '\0';
		char *point, *type;
		if (!mountinfo_line(line, &point, &type) || strncmp(point, root, rl) != 0 ||
		    (point[rl] != '/' && point[rl] != '\0'))
			continue;
		if (kernel_fs(type) || (dev && strcmp(point, dev) == 0)) {
			if (mount("tmpfs", point, "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
				  "size=4k,mode=0555") < 0 && errno != ENOENT && errno != ENOTDIR) {
				snprintf(why, cap, "cannot cover %s (%s): %s", point, type, strerror(errno));
				rc = -1;
			}
		}
	}
	free(dev);
	/* every mount of the image nodev: mount_setattr (5.12+), else one by one */
	struct hook_mount_attr attr = { .attr_set = HOOK_MOUNT_ATTR_NODEV | HOOK_MOUNT_ATTR_NOSUID };
	if (rc == 0 && syscall(SYS_mount_setattr, AT_FDCWD, root, AT_RECURSIVE, &attr, sizeof attr) < 0) {
		fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
		n = fd >= 0 ? read_all(fd, info, MESSAGE_MAX, JUDGE_SECONDS, &rwhy) : -1;
		if (fd >= 0)
			close(fd);
		for (char *line = info, *next; n >= 0 && rc == 0 && *line; line = next) {
			next = line + strcspn(line, "\n");
			if (*next)
				*next++ = '\0';
			char *point, *type;
			struct statvfs sv;
			if (!mountinfo_line(line, &point, &type) || strncmp(point, root, rl) != 0 ||
			    (point[rl] != '/' && point[rl] != '\0') || statvfs(point, &sv) < 0)
				continue;
			unsigned long fl = MS_BIND | MS_REMOUNT | MS_NODEV | MS_NOSUID;
			fl |= (sv.f_flag & ST_RDONLY ? MS_RDONLY : 0) | (sv.f_flag & ST_NOEXEC ? MS_NOEXEC : 0) |
			      (sv.f_flag & ST_NOATIME ? MS_NOATIME : 0) |
			      (sv.f_flag & ST_NODIRATIME ? MS_NODIRATIME : 0) |
			      (sv.f_flag & ST_RELATIME ? MS_RELATIME : 0);
			if (mount(NULL, point, NULL, fl, NULL) < 0) {
				snprintf(why, cap, "cannot make %s nodev: %s", point, strerror(errno));
				rc = -1;
			}
		}
		if (n < 0) {
			snprintf(why, cap, "/proc/self/mountinfo: %s", rwhy);
			rc = -1;
		}
	}
	free(info);
	if (rc == 0 && (chroot(root) < 0 || chdir("/") < 0)) {
		snprintf(why, cap, "chroot %s: %s", root, strerror(errno));
		rc = -1;
	}
	return rc;
}

/* Every descriptor from 3 on closed but keep (-1: none): a directory of the
 * host held open would lead out of the chroot. */
#ifndef SYS_close_range
#define SYS_close_range 436
#endif
static void close_from_3(int keep)
{
	/* keep is 3 or 4: 3 up to it, then the rest */
	if ((keep == 3 || syscall(SYS_close_range, 3u, (unsigned)keep - 1, 0u) == 0) &&
	    syscall(SYS_close_range, (unsigned)keep + 1, ~0u, 0u) == 0)
		return;
	for (int fd = 3; fd < 1024; fd++)	/* before Linux 5.9 */
		if (fd != keep)
			close(fd);
}

/* ---- the judgement, and what it asks for ---- */

/* The child's word to the hook: NUL-terminated fields.  A kind, then its
 * fields: 'H' hide DIR DEV INO; 'F' first DIR DEV INO; 'C' the cache names
 * a hidden package (ldconfig is due); 'K' kept DIR WHY (not hidden); 'R'
 * the account; 'E' WHY (no judgement); '.' the end. */
struct word {
	char *buf;
	size_t n, cap;
};

static void put(struct word *w, const char *s)
{
	size_t l = strlen(s) + 1;
	if (w->n + l > w->cap)
		return;
	memcpy(w->buf + w->n, s, l);
	w->n += l;
}

static void put_dir(struct word *w, const char *kind, const struct candidate *c)
{
	char id[64];
	put(w, kind);
	put(w, c->dir);
	snprintf(id, sizeof id, "%llu", (unsigned long long)c->dev);
	put(w, id);
	snprintf(id, sizeof id, "%llu", (unsigned long long)c->ino);
	put(w, id);
}

struct cache_seen {
	const struct candidates *c;
	const bool *hidden;
	bool names_hidden;
};

static void cache_entry(const char *path, void *arg)
{
	struct cache_seen *cs = arg;
	char dir[CL_PATH_MAX / 4];
	const char *slash = strrchr(path, '/');
	struct stat st;
	if (!slash || (size_t)(slash - path) >= sizeof dir)
		return;
	memcpy(dir, path, (size_t)(slash - path));
	dir[slash - path] = '\0';
	if (stat(dir[0] ? dir : "/", &st) < 0)
		return;
	for (size_t i = 0; i < cs->c->n; i++)
		if (cs->hidden[i] && cs->c->v[i].dev == st.st_dev && cs->c->v[i].ino == st.st_ino)
			cs->names_hidden = true;
}

/* ld.so.conf and each ld.so.conf.d file a regular file, or none: ldconfig
 * would block on a FIFO, and an image that makes one is not judged.
 * NULL, or why. */
static const char *conf_files_sound(char *why, size_t cap)
{
	struct stat st;
	if (stat("/etc/ld.so.conf", &st) == 0 && !S_ISREG(st.st_mode))
		return "/etc/ld.so.conf is not a regular file";
	DIR *d = opendir("/etc/ld.so.conf.d");
	const char *problem = NULL;
	for (struct dirent *e; !problem && d && (e = readdir(d));) {
		if (e->d_name[0] == '.' && (!e->d_name[1] || (e->d_name[1] == '.' && !e->d_name[2])))
			continue;
		if (fstatat(dirfd(d), e->d_name, &st, 0) == 0 && !S_ISREG(st.st_mode) &&
		    !S_ISDIR(st.st_mode)) {
			snprintf(why, cap, "/etc/ld.so.conf.d/%s is not a regular file", e->d_name);
			problem = why;
		}
	}
	if (d)
		closedir(d);
	return problem;
}

/* The image as judge.h's reach: what the container's loader can reach is
 * the image.  Called by judge_look_around once it has probed the host
 * (s->root: CUDALOAD_ROOT, or the host's own), which looked for nothing
 * there (no places given): it keeps the container's GPUs of the host,
 * enters the image (enter_image), and from then on the settings are the
 * image's, as its own starts see them (s->root "", its config file, the
 * places the hook's settings named), which the rest of the judgement
 * reads: every package a start looks for and every one the image's loader
 * reaches (ld.so.cache, ld.so.conf lines, the container's LD_LIBRARY_PATH,
 * CONDA_PREFIX, CUDA_HOME or CUDA_PATH). */
struct image_reach {
	struct hook *k;
	struct settings *s;
	char **env;
	int n_compat_env;		/* the hook's places, held back from the host */
	char *why;			/* why the image could not be judged, "" */
	size_t cap;
};

static int reach_image(void *ctx, struct host *h, struct candidates *c)
{
	struct image_reach *x = ctx;
	struct settings *s = x->s;
	keep_container_gpus(s->root, x->k, h);
	if (enter_image(x->k->root, x->why, x->cap) < 0)
		return 0;
	const char *problem = conf_files_sound(x->why, x->cap);
	if (problem) {
		if (problem != x->why)
			snprintf(x->why, x->cap, "%s", problem);
		return 0;
	}
	s->root = "";
	s->n_compat_env = x->n_compat_env;
	s->compat = (char **)config_default_compat;
	s->n_compat = config_default_compat_n;
	settings_load_config(s, x->env, NULL);
	struct reach r = { .root = "", .machine = __ehdr_start.e_machine, .explain = true, .conf = true,
			   .llp = env_get(x->k->env, "LD_LIBRARY_PATH"),
			   .conda_prefix = env_get(x->k->env, "CONDA_PREFIX"),
			   .cuda_home = env_get(x->k->env, "CUDA_HOME"), .cuda_home_from = "CUDA_HOME" };
	if (!r.cuda_home) {
		r.cuda_home = env_get(x->k->env, "CUDA_PATH");
		r.cuda_home_from = "CUDA_PATH";
	}
	if (compat_discover("", (const char *const *)s->compat_env, s->n_compat_env,
			    (const char *const *)s->compat, s->n_compat,
			    s->compat_from_config ? "config" : "default", c) < 0)
		return -1;
	return reach_discover(&r, h, c);
}

/* The judgement of a start (judge.h), for this image on this host, for
 * this machine's programs: the tables alone (no verdict of the host's is
 * about an image's file, and nothing of the image runs to ask the
 * driver).  0, or -1 with why (then nothing is judged). */
static int judge_container(struct hook *k, char **env, struct settings *s, struct judgement *j,
			   char *why, size_t cap)
{
	why[0] = '\0';
	struct image_reach x = { k, s, env, s->n_compat_env, why, cap };
	s->n_compat_env = 0;	/* nothing looked for on the host */
	s->n_compat = 0;
	struct judge_in in = { .s = s, .cls = __ehdr_start.e_ident[EI_CLASS],
			       .machine = __ehdr_start.e_machine, .full = true,
			       .reach = reach_image, .reach_ctx = &x, .stores = JUDGE_STORES_NONE };
	judge_init(j);
	judge_look_around(&in, j);
	if (why[0])
		return -1;
	if (!j->whole) {
		snprintf(why, cap, "out of memory while looking for compat packages");
		return -1;
	}
	judge_weigh(&in, j);
	return 0;
}

/* In the child: judge, then tell the hook what to do, on out.  Never
 * returns. */
__attribute__((noreturn, noinline))
static void judge_child(struct hook *k, char **env, struct settings *s, int out)
{
	struct word w = { malloc(MESSAGE_MAX), 0, MESSAGE_MAX };
	char why[512];
	struct judgement *j = malloc(sizeof *j);
	if (dup2(out, 3) < 0 || !w.buf || !j)
		_exit(1);
	close_from_3(3);
	out = 3;
	const struct candidates *found = &j->cands;
	if (judge_container(k, env, s, j, why, sizeof why) < 0) {
		put(&w, "E");
		put(&w, why);
	} else {
		const struct candidates *c = found;
		int chosen = j->d.use_compat ? j->d.chosen : -1;
		bool *hidden = calloc(c->n + 1, sizeof *hidden);
		for (size_t i = 0; hidden && i < c->n; i++) {
			if ((int)i == chosen || !c->v[i].has_lib)
				continue;
			if (reach_nvidia_only("", c->v[i].dir)) {
				hidden[i] = true;
				put_dir(&w, "H", &c->v[i]);
			} else {
				put(&w, "K");
				put(&w, c->v[i].dir);
				put(&w, "its directory holds other libraries too");
			}
		}
		if (chosen >= 0)
			put_dir(&w, "F", &c->v[chosen]);
		struct cache_seen cs = { c, hidden, false };
		if (hidden)
			ldcache_find("", "libcuda.so.1", __ehdr_start.e_machine, cache_entry, &cs);
		if (cs.names_hidden)
			put(&w, "C");
		free(hidden);
		char *text = NULL;
		size_t tl = 0;
		FILE *f = open_memstream(&text, &tl);
		struct report r = { .settings = s, .host = &j->host, .candidates = c, .decision = &j->d,
				    .now = (long long)time(NULL), .mode = "container",
				    .mode_why = "cudaload --oci-hook judged the image at its creation" };
		if (f) {
			report_text(f, &r);
			fclose(f);
		}
		put(&w, "R");
		put(&w, text ? text : "");
	}
	put(&w, ".");
	for (size_t off = 0; off < w.n;) {
		ssize_t n = write(out, w.buf + off, w.n - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			_exit(1);
		off += (size_t)n;
	}
	_exit(0);
}

/* ---- the edits ---- */

struct edit {
	char *dir;
	dev_t dev;
	ino_t ino;
	bool mounted;
};

struct edits {
	struct edit hide[COMPAT_MAX_CANDIDATES];
	int n_hide;
	struct edit first;
	bool have_first, cache_names_hidden;
	const char *report;
	char *account;		/* what the hook did, said */
	size_t account_len;
	FILE *log;
};

/* The next field of the child's word, or NULL past its end. */
static const char *field(const char *buf, size_t n, size_t *at)
{
	if (*at >= n)
		return NULL;
	const char *f = buf + *at;
	size_t l = strnlen(f, n - *at);
	if (*at + l >= n)
		return NULL;	/* no NUL: cut short */
	*at += l + 1;
	return f;
}

/* The child's word read into p (pointing into buf); NULL, or why. */
static const char *read_word(const char *buf, size_t n, struct edits *p)
{
	size_t at = 0;
	for (const char *kind; (kind = field(buf, n, &at));) {
		const char *a = NULL, *b = NULL, *c = NULL;
		switch (kind[0]) {
		case '.':
			return NULL;
		case 'C':
			p->cache_names_hidden = true;
			continue;
		case 'E':
			a = field(buf, n, &at);
			return a ? a : "the judgement's word was cut short";
		case 'R':
			if (!(p->report = field(buf, n, &at)))
				return "the judgement's word was cut short";
			continue;
		case 'K':
			if (!(a = field(buf, n, &at)) || !(b = field(buf, n, &at)))
				return "the judgement's word was cut short";
			fprintf(p->log, "oci-hook:     not hidden: %s: %s\n", a, b);
			continue;
		case 'H':
		case 'F': {
			if (!(a = field(buf, n, &at)) || !(b = field(buf, n, &at)) || !(c = field(buf, n, &at)))
				return "the judgement's word was cut short";
			struct edit *e = kind[0] == 'F' ? &p->first
				       : p->n_hide < COMPAT_MAX_CANDIDATES ? &p->hide[p->n_hide++] : NULL;
			if (!e)
				return "too many packages";
			e->dir = (char *)a;
			e->dev = (dev_t)strtoull(b, NULL, 10);
			e->ino = (ino_t)strtoull(c, NULL, 10);
			p->have_first |= kind[0] == 'F';
			continue;
		}
		default:
			return "the judgement's word is not understood";
		}
	}
	return "the judgement's word has no end";
}

/* dir inside the image, open (O_PATH), where it is still the directory the
 * judgement saw; -1 otherwise. */
static int open_same(const struct hook *k, const struct edit *e)
{
	struct stat st;
	int fd = inroot_open(k->rootfd, e->dir, O_PATH | O_DIRECTORY);
	if (fd >= 0 && (fstat(fd, &st) < 0 || st.st_dev != e->dev || st.st_ino != e->ino)) {
		close(fd);
		return -1;
	}
	return fd;
}

static void proc_fd(char *out, size_t cap, int fd)
{
	snprintf(out, cap, "/proc/self/fd/%d", fd);
}

/* An empty read-only tmpfs over the package's directory, in the
 * container's mount namespace (this process's: createContainer). */
static int hide(const struct hook *k, struct edit *e, char *why, size_t cap)
{
	char at[32];
	int fd = open_same(k, e);
	if (fd < 0) {
		snprintf(why, cap, "%s: not the directory judged (changed, or not inside the image)", e->dir);
		return -1;
	}
	proc_fd(at, sizeof at, fd);
	int rc = mount("tmpfs", at, "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
		       "size=4k,mode=0555");
	if (rc < 0)
		snprintf(why, cap, "mount over %s: %s", e->dir, strerror(errno));
	close(fd);
	e->mounted = rc == 0;
	return rc;
}

/* The tmpfs over it taken away again (what resolves there now is its root). */
static void unhide(const struct hook *k, struct edit *e)
{
	char at[32];
	int fd = inroot_open(k->rootfd, e->dir, O_PATH | O_DIRECTORY);
	if (fd < 0)
		return;
	proc_fd(at, sizeof at, fd);
	if (umount2(at, MNT_DETACH) == 0)
		e->mounted = false;
	close(fd);
}

/* path's directory inside the image, open, where it lies on the image's own
 * file system (not a volume of the host's): -1 otherwise. */
static int image_dir(const struct hook *k, const char *path, bool make, char *name, size_t cap)
{
	struct stat st;
	int fd = inroot_parent(k->rootfd, path, make, name, cap);
	if (fd >= 0 && (fstat(fd, &st) < 0 || st.st_dev != k->root_dev)) {
		close(fd);
		errno = EXDEV;
		return -1;
	}
	if (fd < 0)
		errno = -fd;
	return fd < 0 ? -1 : fd;
}

/* text as the file path inside the image, put in place whole
 * (atomicfile.h): nothing followed out, no FIFO opened.  0, or -1 (errno). */
static int write_in_image(const struct hook *k, const char *path, const char *text, bool make)
{
	char name[256];
	int dfd = image_dir(k, path, make, name, sizeof name);
	if (dfd < 0)
		return -1;
	int rc = atomic_replace(dfd, name, text, strlen(text), 0644, false);
	int e = errno;
	close(dfd);
	errno = e;
	return rc;
}

static void remove_in_image(const struct hook *k, const char *path)
{
	char name[256];
	int dfd = image_dir(k, path, false, name, sizeof name);
	if (dfd >= 0) {
		unlinkat(dfd, name, 0);
		close(dfd);
	}
}

/* The host's ldconfig, open, where it is a static program of this machine
 * (nothing of the image would be its loader); -1 with why otherwise. */
static int host_ldconfig(char *why, size_t cap)
{
	char list[] = CUDALOAD_LDCONFIG;
	snprintf(why, cap, "no ldconfig on the host (looked at %s)", CUDALOAD_LDCONFIG);
	char *save;	/* strtok_r: strtok's own pointer would take room in the writable page */
	for (char *p = strtok_r(list, ":", &save); p; p = strtok_r(NULL, ":", &save)) {
		int fd = open(p, O_RDONLY | O_CLOEXEC);
		struct elf_file ef;
		struct elf_phdr *phs = fd >= 0 ? malloc(ELF_MAX_PHDRS * sizeof *phs) : NULL;
		unsigned n = 0;
		char ewhy[96];
		bool interp = true;
		bool opened = phs && elfread_open_fd(&ef, fd, ewhy, sizeof ewhy) == 0;
		if (opened && elfread_read_phdrs(&ef, phs, ELF_MAX_PHDRS, &n, ewhy, sizeof ewhy) == 0) {
			interp = ef.machine != __ehdr_start.e_machine;
			for (unsigned i = 0; i < n; i++)
				interp = interp || phs[i].type == PT_INTERP;
		}
		if (opened)
			elfread_release(&ef);
		free(phs);
		if (fd >= 0 && !interp)
			return fd;
		if (fd >= 0) {
			snprintf(why, cap, "%s is not a static program of this machine: it would run the "
				 "image's loader", p);
			close(fd);
		}
	}
	return -1;
}

/* A child's end within seconds (then killed): its wait status, or -1. */
static int wait_for(pid_t pid, int seconds)
{
	struct deadline d;
	int status;
	deadline_in(&d, seconds * 1000L);
	return deadline_wait(pid, &d, false, &status) == 0 ? status : -1;
}

/* The host's ldconfig inside the image (enter_image: the hook's mounts are
 * seen, nothing leads out), links left as they are (-X), no aux cache
 * (-i).  0, -2 when the host has none to run, or -1, each with why. */
static int run_ldconfig(const struct hook *k, char *why, size_t cap)
{
	int fd = host_ldconfig(why, cap);
	if (fd < 0)
		return -2;
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		char name[] = "ldconfig", no_aux[] = "-i", no_links[] = "-X";	/* not static: the
										 * writable page */
		char *argv[] = { name, no_aux, no_links, NULL }, *envp[] = { NULL };
		char cwhy[256];
		if (null >= 0) {
			dup2(null, 0);
			dup2(null, 1);
			dup2(null, 2);
		}
		if (dup2(fd, 4) < 0)
			_exit(126);
		close_from_3(4);
		if (enter_image(k->root, cwhy, sizeof cwhy) < 0)
			_exit(125);
		syscall(SYS_execveat, 4, "", argv, envp, AT_EMPTY_PATH);
		_exit(127);
	}
	close(fd);
	if (null >= 0)
		close(null);
	int status = pid < 0 ? -1 : wait_for(pid, LDCONFIG_SECONDS);
	if (status < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		snprintf(why, cap, "ldconfig inside the image %s",
			 pid < 0 ? "could not start" : status < 0 ? "took too long: killed"
			 : WIFEXITED(status) && WEXITSTATUS(status) == 125 ? "could not enter it"
			 : "failed");
		return -1;
	}
	return 0;
}

struct first_seen {
	const char *dir;
	int n;
	bool first;
};

static void first_entry(const char *path, void *arg)
{
	struct first_seen *f = arg;
	size_t dl = strlen(f->dir);
	if (f->n++ == 0)
		f->first = strncmp(path, f->dir, dl) == 0 && path[dl] == '/' && !strchr(path + dl + 1, '/');
}

/* Does the image's ld.so.cache give dir's libcuda.so.1 first? */
static bool cache_puts_first(const struct hook *k, const char *dir)
{
	int fd = inroot_open(k->rootfd, "/etc/ld.so.cache", O_RDONLY | O_NONBLOCK);
	struct stat st;
	struct first_seen f = { dir, 0, false };
	if (fd < 0)
		return false;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 && st.st_size < (64 << 20)) {
		void *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (map != MAP_FAILED) {
			ldcache_scan(map, (size_t)st.st_size, "libcuda.so.1", __ehdr_start.e_machine,
				     first_entry, &f);
			munmap(map, (size_t)st.st_size);
		}
	}
	close(fd);
	return f.first;
}

/* The edits the judgement asks for, each said in p->log; on a failure
 * every one undone.  0, or -1 with why. */
__attribute__((noinline))
static int apply(struct hook *k, struct edits *p, char *why, size_t cap)
{
	int rc = 0;
	bool wrote_conf = false;
	for (int i = 0; rc == 0 && i < p->n_hide; i++)
		if ((rc = hide(k, &p->hide[i], why, cap)) == 0)
			fprintf(p->log, "oci-hook:     hidden: %s (an empty read-only tmpfs over it)\n",
				p->hide[i].dir);
	if (rc == 0 && p->have_first) {
		const char *dir = p->first.dir;
		int fd = open_same(k, &p->first);
		if (fd < 0) {
			snprintf(why, cap, "%s: not the directory judged", dir);
			rc = -1;
		} else {
			close(fd);
		}
		char *text = malloc(strlen(dir) + 128);
		if (rc == 0 && (strpbrk(dir, "\n\r:#") || !text)) {
			snprintf(why, cap, "%s cannot be named in an ld.so.conf file", dir);
			rc = -1;
		}
		if (rc == 0) {
			sprintf(text, "# cudaload --oci-hook: the compat package chosen for this host\n%s\n", dir);
			if (write_in_image(k, OCIHOOK_CONF, text, false) < 0) {
				snprintf(why, cap, "%s: %s", OCIHOOK_CONF, strerror(errno));
				rc = -1;
			}
			wrote_conf = rc == 0;
		}
		free(text);
	}
	bool cache = rc == 0 && (p->have_first || p->cache_names_hidden);
	if (cache && (rc = run_ldconfig(k, why, cap)) == 0)
		fprintf(p->log, "oci-hook:     ld.so.cache made anew by the host's ldconfig\n");
	if (rc == -2 && !p->have_first) {	/* ld.so passes over an entry of a hidden directory */
		fprintf(p->log, "oci-hook:     ld.so.cache left as it is (%s): ld.so passes over its "
			"entries for what is hidden\n", why);
		rc = 0;
		cache = false;
	}
	rc = rc < 0 ? -1 : rc;
	if (rc == 0 && p->have_first && !cache_puts_first(k, p->first.dir)) {
		snprintf(why, cap, "ld.so.cache does not give %s first (no include of "
			 "/etc/ld.so.conf.d in /etc/ld.so.conf?)", p->first.dir);
		rc = -1;
	}
	if (rc == 0 && p->have_first)
		fprintf(p->log, "oci-hook:     first: %s (%s, ld.so.cache)\n", p->first.dir, OCIHOOK_CONF);
	if (rc == 0)
		return 0;
	for (int i = 0; i < p->n_hide; i++)
		if (p->hide[i].mounted)
			unhide(k, &p->hide[i]);
	if (wrote_conf) {
		char again[256];
		remove_in_image(k, OCIHOOK_CONF);
		if (cache)
			run_ldconfig(k, again, sizeof again);	/* the cache as the image's files make it */
	}
	return -1;
}

/* ---- the hook ---- */

int ocihook_run(char **envp)
{
	struct hook k = { .rootfd = -1 };
	struct edits *p = calloc(1, sizeof *p);
	char *state = malloc(STATE_MAX), *msg = malloc(MESSAGE_MAX), why[1024];
	struct settings *s = malloc(sizeof *s);
	const char *problem = NULL, *rwhy = "";
	if (!p || !state || !msg || !s) {
		say("out of memory; the container starts unchanged");
		return 0;
	}
	ssize_t n = read_all(0, state, STATE_MAX, JUDGE_SECONDS, &rwhy);
	struct jsonread r;
	jsonread_init(&r, state, n > 0 ? (size_t)n : 0);
	r.any_number = true;
	if (n < 0) {
		snprintf(why, sizeof why, "the OCI state on standard input: %s", rwhy);
		problem = why;
	} else if (!jsonread_object(&r, state_member, &k, true, NULL)) {
		snprintf(why, sizeof why, "the OCI state on standard input: %s at byte %ld", r.err,
			 (long)(r.p - state));
		problem = why;
	} else if (!k.bundle || k.bundle[0] != '/') {
		problem = "the OCI state names no absolute bundle";
	}
	if (!problem)
		problem = read_config(&k, why, sizeof why);
	struct stat st;
	if (!problem && ((k.rootfd = open(k.root, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0 ||
			 fstat(k.rootfd, &st) < 0)) {
		snprintf(why, sizeof why, "the root %s: %s", k.root, strerror(errno));
		problem = why;
	}
	if (problem) {
		say("%s; the container starts unchanged", problem);
		return 0;
	}
	k.root_dev = st.st_dev;
	if (!k.gpus_from)
		gpus_in_dev(&k);
	char **env = trusted_env(envp, &k);
	settings_from_env(s, env, false);
	/* the container's GPUs are its device nodes; CUDA_VISIBLE_DEVICES is
	 * each of its processes' own, judged by their starts */
	s->visible.devices = NULL;
	diag("oci-hook: bundle %s, root %s, GPUs from %s", k.bundle, k.root,
	     k.gpus_from ? k.gpus_from : "none named: all");

	/* the judgement, in a child inside the image */
	int pipefd[2];
	if (pipe2(pipefd, O_CLOEXEC) < 0) {
		say("pipe: %s; the container starts unchanged", strerror(errno));
		return 0;
	}
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0)
		judge_child(&k, env, s, pipefd[1]);
	close(pipefd[1]);
	n = pid < 0 ? -1 : read_all(pipefd[0], msg, MESSAGE_MAX, JUDGE_SECONDS, &rwhy);
	close(pipefd[0]);
	int status = pid < 0 ? -1 : n < 0 ? (kill(pid, SIGKILL), wait_for(pid, 1)) : wait_for(pid, JUDGE_SECONDS);
	p->log = open_memstream(&p->account, &p->account_len);
	if (!p->log) {
		say("out of memory; the container starts unchanged");
		return 0;
	}
	if (pid < 0)
		problem = "cannot fork";
	else if (n < 0)
		snprintf(why, sizeof why, "judging the image: %s", rwhy), problem = why;
	else if (status < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		problem = "judging the image failed";
	else
		problem = read_word(msg, (size_t)n, p);
	if (problem) {
		say("the image cannot be judged: %s; the container starts unchanged", problem);
		return 0;
	}
	if (apply(&k, p, why, sizeof why) < 0) {
		say("%s; what the hook did is undone, the container starts unchanged", why);
		return 0;
	}
	fclose(p->log);
	/* the account, where a person in the container finds it */
	size_t rl = strlen(p->report), al = p->account ? strlen(p->account) : 0;
	char *text = malloc(rl + al + 256);
	if (text) {
		snprintf(text, rl + al + 256, "%soci-hook:     GPUs: %s\n%s", p->report,
			 k.gpus_from ? (strcmp(k.gpus_from, "/dev") == 0 ? "those in the container's /dev"
					: "those config.json names") : "all (the container names none)",
			 p->account ? p->account : "");
		if (write_in_image(&k, OCIHOOK_REPORT, text, true) < 0)
			say("%s: %s (the edits stand)", OCIHOOK_REPORT, strerror(errno));
	}
	if (diag_on)
		fputs(text ? text : "", stderr);
	return 0;
}
