/* SPDX-License-Identifier: MIT */
#include "edits.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../../common/base/atomicfile.h"
#include "../../../common/base/deadline.h"
#include "../../../common/base/inroot.h"
#include "../../../common/base/sys.h"
#include "../../../common/base/why.h"
#include "../../../common/elf/elfread.h"
#include "../../../common/elf/ldcache.h"

/* Where the host's ldconfig may be: glibc's is static everywhere (a
 * build may name its own, as Nix's does). */
#ifndef CUDALOAD_LDCONFIG
#define CUDALOAD_LDCONFIG "/sbin/ldconfig:/usr/sbin/ldconfig:/run/current-system/sw/bin/ldconfig"
#endif

extern const ElfW(Ehdr) __ehdr_start;

/* ---- hiding ---- */

/* dir inside the image, open (O_PATH), where it is still the directory the
 * judgement saw; -1 otherwise. */
static int open_same(const struct image *img, const struct edit *e)
{
	struct stat st;
	int fd = inroot_open(img->rootfd, e->dir, O_PATH | O_DIRECTORY);
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
 * container's mount namespace (this process's: createContainer), where
 * the place allows it (image.h).  0, or -1 with why. */
static int hide(const struct image *img, struct edit *e, char *why, size_t cap)
{
	char at[32];
	int fd = open_same(img, e);
	if (fd < 0)
		return why_fail(why, cap, "%s: not the directory judged (changed, or not inside the image)", e->dir);
	const char *no = image_not_hideable(img, fd);
	int rc = no ? why_fail(why, cap, "%s cannot be hidden: %s", e->dir, no) : 0;
	proc_fd(at, sizeof at, fd);
	if (rc == 0 && mount("tmpfs", at, "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
			     "size=4k,mode=0555") < 0)
		rc = why_fail(why, cap, "mount over %s: %s", e->dir, strerror(errno));
	close(fd);
	e->mounted = rc == 0;
	return rc;
}

/* The tmpfs over it taken away again (what resolves there now is its
 * root: the mounts made after it are gone already). */
static void unhide(const struct image *img, struct edit *e)
{
	char at[32];
	int fd = inroot_open(img->rootfd, e->dir, O_PATH | O_DIRECTORY);
	if (fd < 0)
		return;
	proc_fd(at, sizeof at, fd);
	if (umount2(at, MNT_DETACH) == 0)
		e->mounted = false;
	close(fd);
}

/* ---- the ld.so.conf.d file ---- */

/* The directory of path inside the image, open, where the hook may write
 * (image.h); name its last part.  -1 with why otherwise. */
static int place_of(const struct image *img, const char *path, char *name, size_t name_cap, char *why,
		    size_t cap)
{
	int fd = inroot_parent(img->rootfd, path, false, name, name_cap);
	if (fd < 0)
		return why_fail(why, cap, "%s: %s", path, strerror(-fd));
	const char *no = image_not_writable(img, fd, false);
	if (no) {
		close(fd);
		return why_fail(why, cap, "%s: %s", path, no);
	}
	return fd;
}

/* Is name in dfd a file the hook wrote (its first line its mark), or
 * nothing?  Else it is the image's own. */
static bool ours_or_none(int dfd, const char *name)
{
	char head[sizeof OCIHOOK_CONF_MARK];
	int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT;
	struct stat st;
	bool ours = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
		    pread_full(fd, head, sizeof head - 1, 0) == 0 &&
		    memcmp(head, OCIHOOK_CONF_MARK, sizeof head - 1) == 0;
	close(fd);
	return ours;
}

/* OCIHOOK_CONF naming dir, the hook's own file.  0, or -1 with why. */
static int write_conf(const struct image *img, const char *dir, bool *wrote, char *why, size_t cap)
{
	char name[NAME_MAX + 1];
	if (strpbrk(dir, "\n\r:#"))
		return why_fail(why, cap, "%s cannot be named in an ld.so.conf file", dir);
	int dfd = place_of(img, OCIHOOK_CONF, name, sizeof name, why, cap);
	if (dfd < 0)
		return -1;
	int rc = 0;
	char *text = malloc(strlen(dir) + sizeof OCIHOOK_CONF_MARK + 64);
	if (!ours_or_none(dfd, name))
		rc = why_fail(why, cap, "%s is the image's own: it is left as it is, and nothing put first",
			      OCIHOOK_CONF);
	else if (!text)
		rc = why_fail(why, cap, "out of memory");
	if (rc == 0) {
		sprintf(text, OCIHOOK_CONF_MARK " the compat package chosen for this host\n%s\n", dir);
		if (atomic_replace(dfd, name, text, strlen(text), 0644, false) < 0)
			rc = why_fail(why, cap, "%s: %s", OCIHOOK_CONF, strerror(errno));
	}
	*wrote = rc == 0;
	free(text);
	close(dfd);
	return rc;
}

static void remove_conf(const struct image *img)
{
	char name[NAME_MAX + 1], why[64];
	int dfd = place_of(img, OCIHOOK_CONF, name, sizeof name, why, sizeof why);
	if (dfd >= 0 && ours_or_none(dfd, name))
		unlinkat(dfd, name, 0);
	if (dfd >= 0)
		close(dfd);
}

/* ---- the cache ---- */

/* The host's ldconfig, open, where it is a static program of this machine
 * (nothing of the image would be its loader); -1 with why otherwise. */
static int host_ldconfig(char *why, size_t cap)
{
	char list[] = CUDALOAD_LDCONFIG;
	why_fail(why, cap, "no ldconfig on the host (looked at %s)", CUDALOAD_LDCONFIG);
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
			why_fail(why, cap, "%s is not a static program of this machine: it would run the "
				 "image's loader", p);
			close(fd);
		}
	}
	return -1;
}

/* The directories the image's cache names that neither its ld.so.conf
 * nor the system's library directories account for: what "ldconfig DIR"
 * put there, for ldconfig's command line (which gives them the precedence
 * they had). */
struct cache_dirs {
	char *v[OCIHOOK_CACHE_DIRS_MAX + 4];
	int n;
	const struct image_conf *conf;
};

/* /lib, /usr/lib, lib64, lib32, libx32, and a multiarch triplet below one:
 * ldconfig's own, read after everything else. */
static bool system_lib_dir(const char *d, size_t n)
{
	if (n >= 4 && memcmp(d, "/usr", 4) == 0)
		d += 4, n -= 4;
	if (n < 4 || memcmp(d, "/lib", 4) != 0)
		return false;
	d += 4, n -= 4;
	for (const char *s = "64\0" "32\0" "x32\0"; *s; s += strlen(s) + 1)
		if (n >= strlen(s) && memcmp(d, s, strlen(s)) == 0) {
			d += strlen(s), n -= strlen(s);
			break;
		}
	return n == 0 || (d[0] == '/' && !memchr(d + 1, '/', n - 1) && memmem(d, n, "-linux-", 7));
}

static void cache_dir(const char *path, void *arg)
{
	struct cache_dirs *d = arg;
	const char *slash = strrchr(path, '/');
	size_t dl = slash ? (size_t)(slash - path) : 0;
	if (!dl || system_lib_dir(path, dl))
		return;
	for (int i = 3; i < d->n; i++)
		if (strlen(d->v[i]) == dl && memcmp(d->v[i], path, dl) == 0)
			return;
	char *dir = d->n < OCIHOOK_CACHE_DIRS_MAX + 3 ? strndup(path, dl) : NULL;
	if (dir && !image_conf_names(d->conf, dir))
		d->v[d->n++] = dir;
	else
		free(dir);
}

/* ldconfig's exit when the image's ld.so.conf is not sound */
#define LDCONFIG_UNSOUND 124
#define LDCONFIG_NOT_ENTERED 125

/* In the child: into the image, its ld.so.conf checked, then the host's
 * ldconfig (fd 4) over it and every directory its cache named (so that
 * entries made by "ldconfig DIR" stay), links left as they are (-X), no
 * aux cache (-i).  Never returns. */
__attribute__((noreturn))
static void ldconfig_child(const char *root, int ldconfig, int null)
{
	char cwhy[256];
	if (null >= 0) {
		dup2(null, 0);
		dup2(null, 1);
		dup2(null, 2);
	}
	if (dup2(ldconfig, 4) < 0)
		_exit(126);
	image_close_fds(4);
	if (image_enter(root, cwhy, sizeof cwhy) < 0)
		_exit(LDCONFIG_NOT_ENTERED);
	struct image_conf conf = { 0 };
	if (image_conf_sound(&conf, cwhy, sizeof cwhy))
		_exit(LDCONFIG_UNSOUND);
	char name[] = "ldconfig", no_aux[] = "-i", no_links[] = "-X";	/* not static: the writable page */
	struct cache_dirs *d = calloc(1, sizeof *d);
	if (!d)
		_exit(126);
	d->v[0] = name;
	d->v[1] = no_aux;
	d->v[2] = no_links;
	d->n = 3;
	d->conf = &conf;
	ldcache_find("", NULL, EM_NONE, cache_dir, d);
	char *envp[] = { NULL };
	syscall(SYS_execveat, 4, "", d->v, envp, AT_EMPTY_PATH);
	_exit(127);
}

/* The host's ldconfig inside the image, where /etc and its cache are the
 * image's own.  0, -2 when the host has none to run, or -1, each with why. */
static int run_ldconfig(const struct image *img, const char *root, char *why, size_t cap)
{
	char name[NAME_MAX + 1];
	int etc = place_of(img, "/etc/ld.so.cache", name, sizeof name, why, cap);
	if (etc < 0)
		return -1;
	int cache = openat(etc, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	const char *no = cache >= 0 ? image_not_writable(img, cache, false) : NULL;
	if (cache >= 0)
		close(cache);
	close(etc);
	if (no)
		return why_fail(why, cap, "/etc/ld.so.cache: %s", no);
	int fd = host_ldconfig(why, cap);
	if (fd < 0)
		return -2;
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0)
		ldconfig_child(root, fd, null);
	close(fd);
	if (null >= 0)
		close(null);
	struct deadline d;
	int status = 0;
	deadline_in(&d, OCIHOOK_LDCONFIG_SECONDS * 1000L);
	bool ended = pid > 0 && deadline_wait(pid, &d, false, &status) == 0;
	if (ended && WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	return why_fail(why, cap, "ldconfig inside the image %s",
			pid < 0 ? "could not start" : !ended ? "took too long: killed"
			: !WIFEXITED(status) ? "failed (killed by a signal: out of memory?)"
			: WEXITSTATUS(status) == LDCONFIG_NOT_ENTERED ? "could not enter it"
			: WEXITSTATUS(status) == LDCONFIG_UNSOUND ? "was not run: the image's ld.so.conf "
								   "includes what it should not"
			: "failed");
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
static bool cache_puts_first(const struct image *img, const char *dir)
{
	int fd = inroot_open(img->rootfd, "/etc/ld.so.cache", O_RDONLY | O_NONBLOCK);
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

/* ---- all of them ---- */

/* Hidden already by one hidden before it (a package inside another)? */
static bool covered(const struct edits *e, int i)
{
	for (int j = 0; j < e->n_hide; j++)
		if (j != i && image_path_within(e->hide[i].dir, e->hide[j].dir) &&
		    (!image_path_within(e->hide[j].dir, e->hide[i].dir) || j < i))
			return true;
	return false;
}

int edits_apply(const struct image *img, const char *root, struct edits *e, char *why, size_t cap)
{
	int rc = 0, hidden[COMPAT_MAX_CANDIDATES], n_hidden = 0;
	bool wrote_conf = false;
	for (int i = 0; rc == 0 && i < e->n_hide; i++) {
		if (covered(e, i)) {
			fprintf(e->log, "oci-hook:     hidden: %s (inside another hidden package)\n", e->hide[i].dir);
		} else if ((rc = hide(img, &e->hide[i], why, cap)) == 0) {
			hidden[n_hidden++] = i;
			fprintf(e->log, "oci-hook:     hidden: %s (an empty read-only tmpfs over it)\n",
				e->hide[i].dir);
		}
	}
	if (rc == 0 && e->have_first) {
		int fd = open_same(img, &e->first);
		if (fd < 0)
			rc = why_fail(why, cap, "%s: not the directory judged", e->first.dir);
		else
			close(fd);
		if (rc == 0)
			rc = write_conf(img, e->first.dir, &wrote_conf, why, cap);
	}
	bool cache = rc == 0 && (e->have_first || e->cache_names_hidden);
	if (cache && (rc = run_ldconfig(img, root, why, cap)) == 0)
		fprintf(e->log, "oci-hook:     ld.so.cache made anew by the host's ldconfig\n");
	if (rc == -2 && !e->have_first) {	/* ld.so passes over an entry of a hidden directory */
		fprintf(e->log, "oci-hook:     ld.so.cache left as it is (%s): ld.so passes over its "
			"entries for what is hidden\n", why);
		rc = 0;
		cache = false;
	}
	rc = rc < 0 ? -1 : rc;
	if (rc == 0 && e->have_first && !cache_puts_first(img, e->first.dir))
		rc = why_fail(why, cap, "ld.so.cache does not give %s first (no include of "
			      "/etc/ld.so.conf.d in /etc/ld.so.conf?)", e->first.dir);
	if (rc == 0 && e->have_first)
		fprintf(e->log, "oci-hook:     first: %s (%s, ld.so.cache)\n", e->first.dir, OCIHOOK_CONF);
	if (rc == 0)
		return 0;
	/* undone, the mounts last made first: one made over an earlier one's
	 * place would hide it from its undo */
	while (n_hidden > 0)
		unhide(img, &e->hide[hidden[--n_hidden]]);
	if (wrote_conf) {
		char again[256];
		remove_conf(img);
		if (cache)
			run_ldconfig(img, root, again, sizeof again);	/* the cache as the image's files make it */
	}
	return -1;
}

/* ---- the account ---- */

int edits_write_report(const struct image *img, const char *text, char *why, size_t cap)
{
	/* /run found first, then its cudaload/ made: nothing is made where
	 * the account may not go */
	int run = inroot_open(img->rootfd, OCIHOOK_REPORT_DIR, O_PATH | O_DIRECTORY);
	if (run < 0)
		return why_fail(why, cap, "%s: %s", OCIHOOK_REPORT_DIR, strerror(-run));
	const char *no = image_not_writable(img, run, true);
	int dir = -1, rc = 0;
	if (no)
		rc = why_fail(why, cap, "%s: %s", OCIHOOK_REPORT_DIR, no);
	else if (mkdirat(run, "cudaload", 0755) < 0 && errno != EEXIST)
		rc = why_fail(why, cap, "%s/cudaload: %s", OCIHOOK_REPORT_DIR, strerror(errno));
	else if ((dir = openat(run, "cudaload", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		rc = why_fail(why, cap, "%s/cudaload: %s", OCIHOOK_REPORT_DIR, strerror(errno));
	else if ((no = image_not_writable(img, dir, true)))
		rc = why_fail(why, cap, "%s/cudaload: %s", OCIHOOK_REPORT_DIR, no);
	else if (atomic_replace(dir, "oci-hook", text, strlen(text), 0644, false) < 0)
		rc = why_fail(why, cap, "%s: %s", OCIHOOK_REPORT, strerror(errno));
	if (dir >= 0)
		close(dir);
	close(run);
	return rc;
}
